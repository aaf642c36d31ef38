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
the specification cannot be met at all).

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
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..envs import Env
from ..errors import ActionError, MonitorError
from ..ltl import evaluate
from ..monitor import Constraint, Monitor
from ._filter import Filter, MonitorFilter
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
    """

    def __init__(self, env: Env, filters: Sequence[Filter] = (), *,
                 propositions: Iterable[str] = (),
                 idle_seconds: float | None = 1.0) -> None:  # fmt: skip
        if not isinstance(env, Env):
            raise TypeError(f"env must be a safetychip.envs.Env, got {type(env).__name__}")
        bad = [f for f in filters if not isinstance(f, Filter)]
        if bad:
            raise TypeError(f"filters must be safetychip.shield.Filter objects, got {bad[0]!r}")
        self.env = env
        self.filters = tuple(filters)
        self.extra = tuple(propositions)
        self.idle_seconds = idle_seconds
        self.propositions = self._propositions()
        self.steps: list[Step] = []
        self.trace: list[dict[str, bool]] = []
        self.start: Judgement | None = None
        self._stopped = False

    @classmethod
    def of(cls, env: Env, monitor: Monitor | None, *filters: Filter,
           propositions: Iterable[str] = (),
           idle_seconds: float | None = 1.0) -> Shield:  # fmt: skip
        """A shield with *monitor* as its first filter (None: no monitor), then *filters*."""
        first = [MonitorFilter(monitor)] if monitor is not None else []
        return cls(env, [*first, *filters], propositions=propositions, idle_seconds=idle_seconds)

    def idle(self, seconds: float | None = None) -> int:
        """Give every filter up to *seconds* (None: no limit) to finish deferred work;
        returns how many deferred decisions were settled."""
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
        """
        env = self.env
        env.track(())  # the environment may change scene at reset: track its names after
        _, info = env.reset(seed=seed, options=options)
        self.propositions = self._propositions()
        env.track(self.propositions)
        info = {"states": [env.truth(self.propositions)]}
        initial = dict(info["states"][0])
        self.steps, self.trace, self._stopped = [], [initial], False
        answer: Judgement | None = None
        for f in self.filters:
            judgement = f.reset(initial)
            if not judgement.admitted:
                answer = judgement
                break
            if answer is None and judgement.verdict is not None:
                answer = judgement
        self.start = answer if answer is not None else Judgement.admit("shield")
        self._stopped = not self.start.admitted
        return self.start

    def propose(self, action: Any, *, reply: str | None = None, source: str = "agent") -> Step:
        """Propose *action* (DONE included): preview, judge, and execute it if admitted.

        Parameters
        ----------
        action : str
            In the environment's words.
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
            If the shield was not reset, or the episode is over.
        """
        if not self.trace:
            raise MonitorError("the shield has not been reset: call reset() first")
        if self._stopped:
            raise MonitorError("the episode is over (DONE was accepted, or the start was "
                               "refused): call reset() first")  # fmt: skip
        env = self.env
        try:
            parsed = env.parse(action)
        except ActionError as exc:
            return self._add(Step(str(action), "not_executable", error=str(exc), reply=reply))
        text = str(parsed)
        if parsed.verb == DONE:
            return self._done(reply)
        ahead = env.lookahead(parsed, self.propositions)
        if ahead.error is not None:
            return self._add(Step(text, "not_executable", error=ahead.error, reply=reply))
        proposal = Proposal(text, tuple(ahead.states))
        judgement = self._judge(proposal)
        if not judgement.admitted:
            step = self._add(Step(text, "pruned", proposal.states, judgement, reply=reply))
            if self.idle_seconds != 0:
                self.idle(self.idle_seconds)
            return step
        *_, truncated, info = env.step(parsed)
        self._stopped = bool(truncated)  # the environment ended the episode
        produced = tuple(info["states"])  # fresh dicts from the environment, kept as they are
        error = info.get("error")
        if error and not produced:  # the environment changed its mind: nothing ran
            return self._add(Step(text, "not_executable", error=error, reply=reply))
        # It ran (a robot that failed half-way reports the states it went through, with the
        # error): the filters commit, and the record keeps, what actually happened.
        for f in self.filters:
            late = f.commit(proposal, produced)
            if late is not None:  # what ran is not what was admitted: record the truth
                judgement = late
        self.trace.extend(produced)
        step = Step(
            text,
            "executed",
            produced,
            judgement,
            error or None,
            tuple(info.get("script", ())),
            reply,
            None,
            source,
        )
        self.steps.append(step)
        return step

    def judge(self, action: Any) -> Judgement:
        """What the filters would say about *action* now, without executing it.

        Raises
        ------
        ActionError
            If the environment cannot read *action*.
        """
        parsed = self.env.parse(action)
        if parsed.verb == DONE:
            return self._judge(Proposal(DONE))
        ahead = self.env.lookahead(str(parsed), self.propositions)
        if ahead.error is not None:
            return Judgement.refuse("environment", ahead.error)
        return self._judge(Proposal(str(parsed), tuple(ahead.states)))

    def _judge(self, proposal: Proposal) -> Judgement:
        decided: Judgement | None = None
        for f in self.filters:
            judgement = f.judge(proposal, self.trace[-1], self.trace)
            if not judgement.admitted:
                return judgement
            if decided is None and judgement.verdict is not None:
                decided = judgement
        return decided if decided is not None else _ADMITTED

    def _done(self, reply: str | None) -> Step:
        proposal = Proposal(DONE)
        judgement = self._judge(proposal)
        if not judgement.admitted:
            return self._add(Step(DONE, "pruned", (), judgement, reply=reply))
        for f in self.filters:
            f.commit(proposal, ())
        self.env.step(DONE)
        self._stopped = True
        return self._add(Step(DONE, "done", (), judgement, reply=reply))

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


@lru_cache(maxsize=256)
def _spelled(invariants: tuple[Any, ...]) -> tuple[str, ...]:
    """The invariants in Spot syntax, for records (printed once per specification)."""
    return tuple(str(i) for i in invariants)
