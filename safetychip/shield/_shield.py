"""The shield: the one loop in which a proposed action is previewed, judged by filters,
executed only when every filter admits it, and committed.

::

    propose(action) ── env.lookahead ──► not_executable (the environment refuses)
                          │ states
                          ▼
                 filters judge in order ──► pruned (the first refusal; nothing runs)
                          │ all admit
                          ▼
                 env.step(action) ── filters commit what actually happened ──► executed

DONE is judged the same way (the monitor's ``finish``) and, when admitted, stepped. A
refusal of the initial state stops the episode before the first action (an abort when
the specification cannot be met at all, or, for the Safety Chip, when the goal cannot be
reached under it). When the agent stops without DONE, :meth:`Shield.finish` runs what a
filter still owes (the Safety Chip's safe stop). An action is read once
(:meth:`~safetychip.envs.Env.parse`): the parsed object is previewed and stepped.

Fail safe: filters see read-only copies of the states (a filter cannot change what the next
one judges); every filter call has a time budget; a filter that raises or overruns its
budget refuses the action; after an action ran, every filter commits it, and if one fails
the run stops (what it remembers no longer matches what happened). One shield serves one
episode at a time: concurrent calls from several threads are serialised.

Examples
--------
>>> from safetychip.envs import PropositionEnv
>>> from safetychip.monitor import Monitor
>>> env = PropositionEnv(["is_open(fridge)"])
>>> shield = Shield.of(env, Monitor(["G !is_open(fridge)"]))
>>> shield.reset().admitted
True
>>> step = shield.propose("set is_open(fridge)")
>>> step.outcome, step.violated, env.steps
('pruned', ('c1',), 0)
>>> shield.propose("done").outcome
'done'
"""

from __future__ import annotations

import html
import threading
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from .._budget import Budget
from ..envs import Env
from ..errors import ActionError, MonitorError, TimeBudgetError
from ..ltl import evaluate
from ..monitor import Constraint, Monitor
from ._filter import Ask, Filter, MonitorFilter
from ._judgement import DONE, Judgement, Proposal
from ._record import Step, TraceRecord

__all__ = ["Shield"]


class Shield:
    """Wrap an environment so that only actions every filter admits reach ``env.step``.

    Parameters
    ----------
    env : Env
        Any environment of the :class:`~safetychip.envs.Env` protocol.
    filters : sequence of Filter
        Asked in order; the first refusal decides. The constraint monitor comes first
        (:meth:`of` puts it there); no filter at all records an unshielded run.
    propositions : iterable of str
        More propositions to record in every state (the filters' own are always tracked).
    idle_seconds : float or None
        After a refusal, the agent is about to think again: the shield gives the filters up
        to this long (None: no limit, 0: never) to finish what they deferred, so that a
        decision the monitor refused for want of time answers properly when the same state
        comes back. Call :meth:`idle` yourself for other quiet moments.
    filter_seconds : float or None
        The time budget of each filter call (reset, judge, commit), 5 s by default; None for
        no limit. A judgement past it refuses the action; a reset or commit past it stops
        the run. A filter that bounds its own time (``Filter.bounded``: the constraint
        monitor, with its deadline and search budget) is called directly.

    Attributes
    ----------
    propositions : tuple of str
        Every proposition recorded: the filters', the extra ones, and the rooms'.
    steps : list of Step
        The episode so far.
    trace : list of dict
        The executed proposition states, position 0 first.
    start : Judgement or None
        The filters' answer to the initial state.

    Notes
    -----
    Thread safety: :meth:`reset`, :meth:`propose`, :meth:`judge` and :meth:`idle` hold one
    lock, so proposals from several threads are judged and executed one after the other,
    each against the trace the previous one left.
    """

    def __init__(self, env: Env, filters: Sequence[Filter] = (), *,
                 propositions: Iterable[str] = (), idle_seconds: float | None = 1.0,
                 filter_seconds: float | None = 5.0) -> None:  # fmt: skip
        if not isinstance(env, Env):
            raise TypeError(f"env must be a safetychip.envs.Env, got {type(env).__name__}")
        bad = [f for f in filters if not isinstance(f, Filter)]
        if bad:
            raise TypeError(f"filters must be safetychip.shield.Filter objects, got {bad[0]!r}")
        self.env = env
        self.filters = tuple(filters)
        self.extra = tuple(propositions)
        self.idle_seconds = idle_seconds
        self.filter_seconds = filter_seconds
        self._budgets = tuple(Budget(None if f.bounded else filter_seconds, f"filter {f.name!r}")
                              for f in self.filters)  # fmt: skip
        self.propositions = self._propositions()
        self.steps: list[Step] = []
        self.trace: list[dict[str, bool]] = []
        # What filters see of the trace: read-only views of its states.
        self._view: list[Mapping[str, bool]] = []
        self.start: Judgement | None = None
        self._stopped = False
        self._why_stopped = ("the episode is over (DONE was accepted, or the start was "
                             "refused): call reset() first")  # fmt: skip
        self._lock = threading.RLock()

    @classmethod
    def of(cls, env: Env, monitor: Monitor | None, *filters: Filter,
           propositions: Iterable[str] = (), idle_seconds: float | None = 1.0,
           filter_seconds: float | None = 5.0, ask: Ask | None = None,
           ask_seconds: float | None = 60.0) -> Shield:  # fmt: skip
        """A shield with *monitor* as its first filter (None: no monitor), then *filters*;
        *ask* and *ask_seconds* settle the readings of a
        :class:`~safetychip.monitor.CandidateMonitor` (see :class:`MonitorFilter`)."""
        first = ([MonitorFilter(monitor, ask=ask, ask_seconds=ask_seconds)]
                 if monitor is not None else [])  # fmt: skip
        return cls(env, [*first, *filters], propositions=propositions,
                   idle_seconds=idle_seconds, filter_seconds=filter_seconds)  # fmt: skip

    def idle(self, seconds: float | None = None) -> int:
        """Give every filter up to *seconds* (None: no limit) to finish deferred work;
        returns how many deferred decisions were settled."""
        with self._lock:
            return sum(f.idle(seconds) for f in self.filters)

    # -- views ------------------------------------------------------------------------------

    @property
    def monitor(self) -> Monitor | None:
        """The constraint monitor among the filters, if any."""
        for f in self.filters:
            if isinstance(f, MonitorFilter):
                return f.monitor
        return None

    def _propositions(self) -> tuple[str, ...]:
        """Every proposition recorded: the filters', the extra ones, and the rooms'."""
        names = [p for f in self.filters for p in f.propositions]
        names += self.extra
        names += [f"agent_at({room})" for room in self.env.rooms]
        return tuple(dict.fromkeys(names))

    @property
    def state(self) -> dict[str, bool]:
        """The current proposition state (the last of the trace)."""
        if not self.trace:
            raise MonitorError("the shield has not been reset: call reset() first")
        return self.trace[-1]

    @property
    def executed(self) -> tuple[str, ...]:
        """The actions that ran so far."""
        return tuple(s.action for s in self.steps if s.executed)

    @property
    def finished(self) -> bool:
        """Whether the episode is over (DONE accepted, stopped at the start, or truncated by
        the environment)."""
        return self._stopped

    # -- the loop ---------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Judgement:
        """Reset the environment (tracking :attr:`propositions`) and every filter.

        Returns the first refusal of the initial state, else the monitor's admission (or a
        plain one). After a refusal nothing may be proposed.

        Raises
        ------
        Exception
            Whatever a filter's reset raised (:class:`~safetychip.errors.TimeBudgetError`
            past its budget): nothing may be proposed until a reset succeeds.
        """
        with self._lock:
            self._stopped = True  # until every filter has been reset
            self._why_stopped = "the last reset() failed: call reset() again"
            return self._reset(seed, options)

    def _reset(self, seed: int | None, options: dict[str, Any] | None) -> Judgement:
        env = self.env
        env.track(())  # the environment may change scene at reset: track its names after
        _, info = env.reset(seed=seed, options=options)
        self.propositions = self._propositions()
        env.track(self.propositions)
        info = {"states": [env.truth(self.propositions)]}
        initial = dict(info["states"][0])
        self.steps, self.trace, self._view = [], [initial], [MappingProxyType(initial)]
        answer: Judgement | None = None
        for f, budget in zip(self.filters, self._budgets):
            judgement = budget.call(f.reset, self._view[0])
            if not judgement.admitted:
                answer = judgement
                break
            if answer is None and judgement.verdict is not None:
                answer = judgement
        self.start = answer if answer is not None else Judgement.admit("shield")
        self._stopped = not self.start.admitted
        self._why_stopped = ("the episode is over (DONE was accepted, or the start was "
                             "refused): call reset() first")  # fmt: skip
        return self.start

    def propose(self, action: Any, *, reply: str | None = None, source: str = "agent") -> Step:
        """Propose *action* (DONE included): preview, judge, and execute it if admitted.

        Parameters
        ----------
        action : str or parsed action
            In the environment's words, or as :meth:`~safetychip.envs.Env.parse` read it
            (then it is not read again: an action is parsed once).
        reply : str, optional
            The agent's text that proposed it, for the record.
        source : str
            Who proposed it, for the record (``"safe_stop"`` for a chip's own continuation).

        Returns
        -------
        Step
            Also appended to :attr:`steps`.

        Raises
        ------
        MonitorError
            If the shield was not reset, or the episode is over (DONE accepted, the start
            refused, or a filter failed to commit what ran: the message says which).

        Notes
        -----
        Thread safe: proposals from several threads are serialised (one lock), each judged
        against the trace the previous one left.
        """
        with self._lock:
            return self._propose(action, reply, source)

    def _propose(self, action: Any, reply: str | None, source: str) -> Step:
        if not self.trace:
            raise MonitorError("the shield has not been reset: call reset() first")
        if self._stopped:
            raise MonitorError(self._why_stopped)
        env = self.env
        try:
            parsed = env.parse(action)
        except ActionError as exc:
            return self._add(Step(str(action), "not_executable", error=str(exc), reply=reply))
        text = str(parsed)
        if parsed.verb == DONE:
            return self._done(parsed, reply)
        ahead = env.lookahead(parsed, self.propositions)
        if ahead.error is not None:
            return self._add(Step(text, "not_executable", error=ahead.error, reply=reply))
        proposal = Proposal(text, _read_only(ahead.states))
        judgement = self._judge(proposal)
        if not judgement.admitted:
            step = self._add(Step(text, "pruned", tuple(ahead.states), judgement, reply=reply))
            if self.idle_seconds != 0:
                self.idle(self.idle_seconds)
            return step
        *_, truncated, info = env.step(parsed)
        return self._ran(text, proposal, judgement, truncated, info, reply, source)

    def _ran(self, text: str, proposal: Proposal, judgement: Judgement, truncated: bool,
             info: dict[str, Any], reply: str | None = None,
             source: str = "agent") -> Step:  # fmt: skip
        """Record that the admitted *proposal* ran: the environment's step gave *truncated*
        and *info* (its ``states``); the filters commit them."""
        self._stopped = bool(truncated)  # the environment ended the episode
        produced = tuple(map(dict, info["states"]))  # the shield's own copies
        error = info.get("error")
        if error and not produced:  # the environment changed its mind: nothing ran
            return self._add(Step(text, "not_executable", error=error, reply=reply))
        # It ran (a robot that failed half-way reports the states it went through, with the
        # error): the filters commit, and the record keeps, what actually happened.
        late, failed = self._commit(proposal, produced)
        if late is not None:  # what ran is not what was admitted: record the truth
            judgement = late
        step = Step(
            text,
            "executed",
            produced,
            judgement,
            "; ".join(e for e in (error, failed) if e) or None,
            tuple(info.get("script", ())),
            reply,
            None,
            source,
        )
        self.steps.append(step)
        return step

    def record_feedback(self, text: str | None) -> Step:
        """Record in the last step, which a filter refused, what the agent was told about it
        (the reprompt; None: nothing); returns that step.

        Raises
        ------
        MonitorError
            If the last step was not refused.

        Examples
        --------
        >>> from safetychip.envs import PropositionEnv
        >>> from safetychip.monitor import Monitor
        >>> shield = Shield.of(PropositionEnv(["a"]), Monitor(["G !a"]))
        >>> _ = shield.reset()
        >>> _ = shield.propose("set a")
        >>> shield.record_feedback("a must stay false").feedback
        'a must stay false'
        """
        with self._lock:
            if not self.steps or not self.steps[-1].pruned:
                raise MonitorError("only a refused step is answered with feedback, and the last "
                                   "step was not refused")  # fmt: skip
            step = self.steps[-1] = self.steps[-1]._replace(feedback=text)
            return step

    def finish(self) -> tuple[Any, ...] | None:
        """The agent stops without DONE: the first filter that still owes something names a
        continuation (:meth:`Filter.finish`; the Safety Chip's safe stop), and the shield runs
        it, each action proposed as usual (``reply="(safe stop)"``, ``source="safe_stop"``)
        until one does not run.

        Returns
        -------
        tuple or None
            The continuation (empty: the filter found none that meets what it owes); None
            when no filter owes anything, or the episode is over (DONE accepted, the start
            refused, a commit failed).

        Examples
        --------
        >>> from safetychip.envs import PropositionEnv
        >>> from safetychip.monitor import Monitor
        >>> shield = Shield.of(PropositionEnv(["a"]), Monitor(["F a"]))
        >>> _ = shield.reset()
        >>> shield.finish()  # a bare monitor names no continuation
        """
        with self._lock:
            if not self.trace or self._stopped:
                return None
            trace = _TraceView(self._view)
            for f, budget in zip(self.filters, self._budgets):
                plan = budget.call(f.finish, trace[-1], trace)
                if plan is None:
                    continue
                for action in plan:
                    if not self._propose(action, "(safe stop)", "safe_stop").executed:
                        break  # what the filter checked did not run: the rest would not hold
                return tuple(plan)
            return None

    def judge(self, action: Any) -> Judgement:
        """What the filters would say about *action* (text, or as the environment read it)
        now, without executing it.

        Raises
        ------
        ActionError
            If the environment cannot read *action*.
        """
        with self._lock:
            parsed = self.env.parse(action)
            if parsed.verb == DONE:
                return self._judge(Proposal(DONE))
            ahead = self.env.lookahead(parsed, self.propositions)
            if ahead.error is not None:
                return Judgement.refuse("environment", ahead.error)
            return self._judge(Proposal(str(parsed), _read_only(ahead.states)))

    def _judge(self, proposal: Proposal) -> Judgement:
        """The first refusal, else the first monitor verdict; a filter that raises, overruns
        its budget or answers something else than a Judgement refuses."""
        decided: Judgement | None = None
        trace = _TraceView(self._view)
        for f, budget in zip(self.filters, self._budgets):
            try:
                judgement = budget.call(f.judge, proposal, trace[-1], trace)
            except Exception as exc:  # never run what was not judged
                return Judgement.refuse(f.name, f"filter {f.name!r} could not judge the "
                                        f"action, so it is refused: {_fault(exc)}")  # fmt: skip
            if not isinstance(judgement, Judgement):
                return Judgement.refuse(f.name, f"filter {f.name!r} answered {judgement!r}, not "
                                        "a Judgement, so the action is refused")  # fmt: skip
            if not judgement.admitted:
                return judgement
            if decided is None and judgement.verdict is not None:
                decided = judgement
        return decided if decided is not None else _ADMITTED

    def _commit(self, proposal: Proposal,
                produced: tuple[dict[str, bool], ...]) -> tuple[Judgement | None, str]:  # fmt: skip
        """Commit what ran to every filter (all of them, whatever one does) and extend the
        trace; returns the last late judgement and, if a filter failed, why the run stops."""
        self.trace.extend(produced)
        view = _read_only(produced)
        self._view.extend(view)
        late, failed = None, []
        for f, budget in zip(self.filters, self._budgets):
            try:
                late = budget.call(f.commit, proposal, view) or late
            except Exception as exc:  # the others still record what ran
                failed.append(f"filter {f.name!r} failed to commit it ({_fault(exc)})")
        if not failed:
            return late, ""
        self._stopped = True
        self._why_stopped = (f"the run was stopped after {proposal.action!r} ran: "
                             f"{'; '.join(failed)}, so what it remembers no longer matches "
                             "the trace; call reset() to start a new episode")  # fmt: skip
        return late, self._why_stopped

    def _done(self, parsed: Any, reply: str | None) -> Step:
        proposal = Proposal(DONE)
        judgement = self._judge(proposal)
        if not judgement.admitted:
            return self._add(Step(DONE, "pruned", (), judgement, reply=reply))
        _, failed = self._commit(proposal, ())
        self.env.step(parsed)
        self._stopped = True
        return self._add(Step(DONE, "done", (), judgement, failed or None, reply=reply))

    def _add(self, step: Step) -> Step:
        self.steps.append(step)
        return step

    # -- the record -------------------------------------------------------------------------

    def record(self, *, constraints: Sequence[Constraint] | None = None,
               judged: Mapping[str, bool] | None = None, plan: Sequence[str] = (),
               extra_steps: Sequence[Step] = (), trace: Sequence[Mapping[str, bool]] | None
               = None) -> TraceRecord:  # fmt: skip
        """The :class:`TraceRecord` of the episode so far.

        Parameters
        ----------
        constraints : sequence of Constraint, optional
            What to judge the executed trace against (default: the monitor's).
        judged : mapping, optional
            Judgements already made elsewhere (default: :func:`safetychip.ltl.evaluate` of
            each constraint on the executed trace).
        plan : sequence of str
            The plan that was run, if any.
        """
        monitor = self.monitor
        cs = tuple(constraints if constraints is not None else
                   monitor.constraints if monitor is not None else ())  # fmt: skip
        executed = list(trace) if trace is not None else self.trace
        if judged is None:
            judged = {c.name: evaluate(c.formula, executed) for c in cs}
        env = self.env
        scene, task = getattr(env, "scene", None), getattr(env, "task", None)
        return TraceRecord(
            constraints=cs, propositions=self.propositions,
            initial=self.trace[0] if self.trace else {}, steps=(*self.steps, *extra_steps),
            invariants=_spelled(monitor.invariants) if monitor else (),
            filters=tuple(f.name for f in self.filters), start=self.start,
            judged=dict(judged), goal_reached=env.goal_reached() if self.trace else False,
            plan=tuple(plan), scene=getattr(scene, "name", None),
            task=getattr(task, "id", None),
        )  # fmt: skip

    # -- display ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        names = ", ".join(f.name for f in self.filters) or "no filter"
        return (f"<Shield over {type(self.env).__name__} [{names}]: {len(self.executed)} "
                f"executed, {sum(s.pruned for s in self.steps)} pruned>")  # fmt: skip

    def _repr_html_(self) -> str:
        rows = "".join(f"<li>{html.escape(repr(f))}</li>" for f in self.filters)
        return f"<p><b>{html.escape(repr(self))}</b></p><ol>{rows}</ol>"


_ADMITTED = Judgement.admit("shield")


class _TraceView(Sequence[Mapping[str, bool]]):
    """The trace as the filters see it: read-only, and fixed at its length when made (the
    shield's list is not copied, so that a judgement costs the same at any trace length).

    Examples
    --------
    >>> view = _TraceView([{"a": True}, {"a": False}])
    >>> len(view), view[-1], list(view[:1])
    (2, {'a': False}, [{'a': True}])
    """

    __slots__ = ("_length", "_states")

    def __init__(self, states: list[Mapping[str, bool]]) -> None:
        self._states, self._length = states, len(states)

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self._states[: self._length][index])
        if not -self._length <= index < self._length:
            raise IndexError(f"trace index {index} out of range (the trace has "
                             f"{self._length} states)")  # fmt: skip
        return self._states[index % self._length]


def _read_only(states: Iterable[Any]) -> tuple[Mapping[str, bool], ...]:
    """Read-only copies of *states* for the filters."""
    return tuple(MappingProxyType(dict(s)) for s in states)


def _fault(exc: BaseException) -> str:
    """An exception as the words of a refusal."""
    return str(exc) if isinstance(exc, TimeBudgetError) else f"{type(exc).__name__}: {exc}"


@lru_cache(maxsize=256)
def _spelled(invariants: tuple[Any, ...]) -> tuple[str, ...]:
    """The invariants in Spot syntax, for records (printed once per specification)."""
    return tuple(str(i) for i in invariants)
