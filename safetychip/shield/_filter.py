"""Filters: the judges of the shield. Each sees a proposal, the current proposition state
and the trace so far, and admits or refuses; the constraint monitor is the first of them.

A filter is stateful the way the monitor is: :meth:`Filter.reset` starts an episode,
:meth:`Filter.judge` must not change what the filter remembers, and :meth:`Filter.commit`
records what actually ran (which the shield calls only after ``env.step``).

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
from collections.abc import Mapping, Sequence
from typing import ClassVar

from ..monitor import Monitor
from ._judgement import Judgement, Proposal

__all__ = ["Filter", "MonitorFilter"]

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
    """

    name = "monitor"
    bounded = True

    def __init__(self, monitor: Monitor) -> None:
        self.monitor = monitor
        self.propositions = monitor.atoms

    def reset(self, initial: State) -> Judgement:
        """Reset the monitor with *initial* as position 0 (ABORT on a contradiction)."""
        return Judgement.of_verdict(self.monitor.reset(initial), self.name)

    def judge(self, proposal: Proposal, state: State, trace: Sequence[State]) -> Judgement:
        """The monitor's verdict: ``check`` of the states, or ``finish`` for DONE (taken
        back, so a later filter may still refuse DONE)."""
        monitor = self.monitor
        if proposal.done:
            position = monitor.snapshot()
            verdict = monitor.finish()
            monitor.restore(position)
        else:
            verdict = monitor.check(proposal.states)
        return Judgement.of_verdict(verdict, self.name)

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
