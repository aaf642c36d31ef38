"""Filters: the judges of the shield. Each sees a proposal, the current proposition state
and the trace so far, and admits or refuses; the constraint monitor is the first of them.

A filter is stateful the way the monitor is: :meth:`Filter.reset` starts an episode (and may
stop it before the first action), :meth:`Filter.judge` must not change what the filter
remembers, :meth:`Filter.commit` records what actually ran (which the shield calls only after
``env.step``), and :meth:`Filter.finish` may name a continuation to run when the agent stops
without DONE (the Safety Chip's safe stop).

Examples
--------
>>> from safetychip.monitor import Monitor
>>> f = MonitorFilter(Monitor(["G !is_open(fridge)"]))
>>> f.reset({"is_open(fridge)": False}).admitted
True
>>> f.judge(Proposal("open fridge", ({"is_open(fridge)": True},)), {}, ()).constraints
('c1',)
"""

from __future__ import annotations

import abc
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ..monitor import CandidateMonitor, Monitor, Question, Status, Verdict
from ._judgement import Judgement, Proposal

__all__ = ["Ask", "Filter", "MonitorFilter", "ask_within"]

#: A question callback: True (allowed), False (not allowed) or None (no answer).
Ask = Callable[[Question], "bool | None"]

State = Mapping[str, bool]


class Filter(abc.ABC):
    """Base class of the shield's filters: implement :meth:`judge`.

    Attributes
    ----------
    name : str
        Names the filter in judgements and records.
    propositions : tuple of str
        The propositions the filter reads; the shield has the environment track them.
    bounded : bool
        Whether the filter bounds its own time (the constraint monitor: its deadline and its
        search budget); the shield then calls it directly, else within its time budget.
    """

    name: ClassVar[str] = "filter"
    propositions: tuple[str, ...] = ()
    bounded: ClassVar[bool] = False

    def reset(self, initial: State) -> Judgement:
        """Start an episode in the proposition state *initial*; a refusal stops it before
        the first action (``abort`` when nothing could ever be admitted)."""
        return Judgement.admit(self.name)

    @abc.abstractmethod
    def judge(self, proposal: Proposal, state: State, trace: Sequence[State]) -> Judgement:
        """Admit or refuse *proposal* made in *state*, after *trace* (position 0 first)."""

    def commit(self, proposal: Proposal, states: Sequence[State]) -> Judgement | None:  # noqa: B027
        """The admitted *proposal* ran and produced *states*; return a judgement only when
        what happened differs from what was admitted."""

    def finish(self, state: State, trace: Sequence[State]) -> Sequence[Any] | None:
        """The agent stopped without DONE in *state*, after *trace*: the actions that would
        meet what this filter still owes, for the shield to run (:meth:`Shield.finish
        <safetychip.shield.Shield.finish>`); None when it owes nothing, an empty sequence
        when it owes something that no continuation it found meets."""
        return None

    def idle(self, seconds: float | None) -> int:
        """Spend at most *seconds* (None: no limit) finishing work a judgement deferred, so
        the same question answers properly next time; returns how many items were settled."""
        return 0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class MonitorFilter(Filter):
    """The constraint monitor as a filter: a proposal is admitted when its states leave every
    constraint satisfiable; DONE when the trace satisfies them all.

    Parameters
    ----------
    monitor : Monitor
        Reset by :meth:`reset`; its verdicts become the judgements.
    ask : callable, optional
        For a :class:`~safetychip.monitor.CandidateMonitor`: ``ask(question) -> bool | None``,
        called when the readings of a sentence disagree about a proposal. True (it is
        allowed) drops the candidates that forbid it, False those that admit it; None, an
        exception, or no answer within *ask_seconds* refuses the proposal as if every
        candidate forbade it, and the question is recorded in the monitor's
        ``open_questions``. Without *ask* (unattended runs) every such proposal is refused
        and its question recorded.
    ask_seconds : float or None
        How long one answer may take (None: no limit); a late answer counts as none.

    Examples
    --------
    >>> from safetychip.monitor import CandidateMonitor, CandidateSet
    >>> s = CandidateSet.parse(['G !"is_open(fridge)"', 'F "is_open(fridge)" -> F "is_on(a,b)"'],
    ...                        "be careful with the fridge", name="c1")
    >>> f = MonitorFilter(CandidateMonitor([s]), ask=lambda question: True)
    >>> f.reset({"is_open(fridge)": False, "is_on(a,b)": False}).admitted
    True
    >>> after = {"is_open(fridge)": True, "is_on(a,b)": False}
    >>> f.judge(Proposal("open fridge", (after,)), {}, ()).admitted
    True
    >>> f.monitor.candidate_sets[0].picked.formula
    Formula('F"is_open(fridge)" -> F"is_on(a,b)"')
    """

    name = "monitor"
    bounded = True

    def __init__(self, monitor: Monitor, *, ask: Ask | None = None,
                 ask_seconds: float | None = 60.0) -> None:  # fmt: skip
        if ask_seconds is not None and not ask_seconds > 0:
            raise ValueError(f"ask_seconds must be a positive number of seconds or None, got "
                             f"{ask_seconds!r}")  # fmt: skip
        self.monitor = monitor
        self.propositions = monitor.atoms
        self.ask = ask
        self.ask_seconds = ask_seconds
        # The judgement of each verdict met (the monitor hands back the same verdict object
        # for the same move), by the verdict's identity: the verdict is kept alive with it.
        self._judgements: dict[int, tuple[Verdict, Judgement]] = {}

    def reset(self, initial: State) -> Judgement:
        """Reset the monitor with *initial* as position 0 (ABORT on a contradiction)."""
        monitor = self.monitor
        verdict = monitor.reset(initial)
        if verdict.status is Status.AMBIGUOUS and isinstance(monitor, CandidateMonitor):
            verdict = self._settle(verdict, "start here", initial, monitor.decided)
        return Judgement.of_verdict(verdict, self.name)

    def judge(self, proposal: Proposal, state: State, trace: Sequence[State]) -> Judgement:
        """The monitor's verdict: ``check`` of the states, or ``finish`` for DONE (taken
        back, so a later filter may still refuse DONE); an ambiguous one is asked about."""
        monitor = self.monitor
        done = proposal.done

        def again() -> Verdict:
            if not done:
                return monitor.check(proposal.states)
            position = monitor.snapshot()
            try:
                return monitor.finish()
            finally:
                monitor.restore(position)

        verdict = monitor.check(proposal.states) if not done else again()
        if verdict.status is Status.AMBIGUOUS:
            verdict = self._settle(verdict, proposal.action, state, again)
        return self._judgement(verdict)

    def _judgement(self, verdict: Verdict) -> Judgement:
        """``Judgement.of_verdict(verdict)``, made once per verdict object."""
        found = self._judgements.get(id(verdict))
        if found is not None and found[0] is verdict:
            return found[1]
        judgement = Judgement.of_verdict(verdict, self.name)
        if len(self._judgements) > 10_000:
            self._judgements.clear()
        self._judgements[id(verdict)] = verdict, judgement
        return judgement

    def _settle(self, verdict: Verdict, action: str, state: State,
                again: Callable[[], Verdict]) -> Verdict:  # fmt: skip
        """Ask about an AMBIGUOUS *verdict* until it is decided or no one answers."""
        monitor = self.monitor
        if not isinstance(monitor, CandidateMonitor):
            return verdict
        while verdict.status is Status.AMBIGUOUS:
            question = monitor.question(verdict, action, state)
            if question is None:
                return verdict
            allowed = ask_within(self.ask, question, self.ask_seconds)
            if allowed is None:
                if question not in monitor.open_questions:
                    monitor.open_questions.append(question)
                return verdict
            monitor.answer(question, allowed)
            verdict = again()
        return verdict

    def commit(self, proposal: Proposal, states: Sequence[State]) -> Judgement | None:
        """Commit what ran (DONE: finish the trace); a judgement only if it breaks what the
        check admitted."""
        monitor = self.monitor
        verdict = monitor.finish() if proposal.done else monitor.commit(states)
        return None if verdict.safe else Judgement.of_verdict(verdict, self.name)

    def idle(self, seconds: float | None) -> int:
        """Finish the monitor's decisions that missed their deadline (``Monitor.idle``)."""
        return self.monitor.idle(seconds)

    def __repr__(self) -> str:
        return f"<MonitorFilter: {len(self.monitor.constraints)} constraints>"


def ask_within(ask: Ask | None, question: Question, seconds: float | None) -> bool | None:
    """*ask*'s answer to *question* within *seconds*; None when there is no one to ask, the
    callback raises or answers anything but a bool, or it is late (fail safe: never a yes).

    The callback runs in a daemon thread so that a late one cannot hold the action up; its
    answer, if it ever comes, is ignored.

    Examples
    --------
    >>> q = Question("c1", "s", "open fridge", "The robot is about to open fridge", (0,), (1,),
    ...              ("a", "b"))
    >>> ask_within(lambda q: True, q, 1.0), ask_within(lambda q: 1 / 0, q, 1.0)
    (True, None)
    """
    if ask is None:
        return None
    answer: list[object] = []

    def call() -> None:
        try:
            answer.append(ask(question))
        except Exception:  # a failing callback is no answer
            answer.append(None)

    worker = threading.Thread(target=call, name="safetychip-ask", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive() or not answer or not isinstance(answer[0], bool):
        return None
    return answer[0]
