"""Agent queries on a recorded episode (what ``safetychip explain`` reads).

The record is the shield's :class:`~safetychip.shield.TraceRecord`, read from a file with
:meth:`TraceRecord.load <safetychip.shield.TraceRecord.load>`: a record the shield wrote
(``safetychip.trace/1``), a ``safetychip.rollout/1`` record, or this minimal form::

    {"constraints": [{"name": "c1", "sentence": "...", "formula": "..."}, ...],
     "invariants": ["formula", ...],                      (optional)
     "initial": {"agent_at(bedroom)": true, ...},         (or a list of true atoms)
     "steps": [{"action": "walk to kitchen", "states": [{...}, ...]}, ...]}

Each step gives the proposed action and the proposition states it produced (or would have
produced, for a pruned action). Steps without states (refused by the environment, DONE) are
skipped, as the monitor was never asked about their states. What the record says the shield
decided is not used: the monitor is replayed from the constraints and the invariants. Safe
steps are committed; a violation is explained and, as the shield does, not committed.

Examples
--------
>>> from safetychip.shield import TraceRecord
>>> r = TraceRecord.from_dict({
...     "constraints": [{"name": "c1", "sentence": "Never pick up the phone",
...                      "formula": 'G!"is_grabbed(phone)"'}],
...     "initial": [], "steps": [{"action": "grab phone", "states": [["is_grabbed(phone)"]]}]})
>>> q = explain_rollout(r)
>>> q.step, q.explanation.violated
(1, ('c1',))
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import DataFileError, SafetyChipError
from ..ltl import parse
from ..monitor import Constraint, Monitor, Status, Verdict
from ..shield import DONE, TraceRecord
from ._agent import AgentExplanation, agent_query_messages, explain_violation

__all__ = ["RolloutQuery", "explain_rollout"]

#: Steps the monitor is not asked about, by outcome, and why.
_SKIPPED = {
    "done": "is DONE",
    "not_executable": "was refused by the environment ({error})",
    "error": "is no usable action ({error})",
}


@dataclass(frozen=True)
class RolloutQuery:
    """An agent query on a rollout: the refused step, its verdict and explanation, and what
    the paper's LLM prompt needs.

    Attributes
    ----------
    step : int
        The refused step (1 = the first action).
    action : str
        Its action.
    verdict : Verdict
        The monitor's verdict.
    explanation : AgentExplanation
        The deterministic explanation.
    valid : list of (str, list of str)
        The steps committed before it, with their ``Safe:`` lines.
    constraints : tuple of Constraint
        The specification.
    """

    step: int
    action: str
    verdict: Verdict
    explanation: AgentExplanation
    valid: list[tuple[str, list[str]]] = field(default_factory=list)
    constraints: tuple[Constraint, ...] = ()

    def messages(self):
        """The paper's agent-query prompt for this violation."""
        return agent_query_messages(
            self.constraints, self.valid, (self.action, list(self.verdict.state_changes))
        )

    def to_dict(self) -> dict:
        """JSON-ready form (what ``safetychip explain`` prints)."""
        return {
            "step": self.step,
            "action": self.action,
            "verdict": self.verdict.to_dict(),
            "explanation": self.explanation.to_dict(),
            "valid": [{"action": a, "state_changes": lines} for a, lines in self.valid],
        }


def explain_rollout(
    record: TraceRecord, *, step: int | None = None, source: str = "<rollout>"
) -> RolloutQuery:
    """Replay *record* through the monitor and explain its first violation (or *step*).

    Parameters
    ----------
    record : TraceRecord
        The episode; steps are numbered from 1 as recorded.
    step : int, optional
        The step to explain (default: the first violation).
    source : str, optional
        Where the record comes from (its file), for the error messages.

    Raises
    ------
    DataFileError
        Naming *source*: if an invariant cannot be read, the constraints are unsatisfiable
        (the chip aborts before the first action), a step the monitor is asked about has
        no states, there is no violation to explain, or *step* is not one.
    """
    invariants = []
    for i, text in enumerate(record.invariants, 1):
        try:
            invariants.append(parse(text))
        except SafetyChipError as err:
            raise DataFileError(source, f"invariant {i}: {err}") from None
    monitor = Monitor(record.constraints, invariants)
    start = monitor.reset(record.initial)
    if start.status is Status.ABORT:
        raise DataFileError(source, f"the chip aborts before the first action: {start.reason}")
    if step is not None and not 1 <= step <= len(record.steps):
        raise DataFileError(source, f"there is no step {step}; the rollout has {len(record.steps)}")
    valid: list[tuple[str, list[str]]] = []
    for k, s in enumerate(record.steps, 1):
        skipped = _SKIPPED.get("done" if s.action == DONE else s.outcome)
        if skipped is not None:
            if step == k:
                why = skipped.format(error=s.error)
                raise DataFileError(source, f"step {k} ({s.action!r}) {why}; nothing to explain")
            continue
        if not s.states:
            raise DataFileError(source, f"step {k} ({s.action!r}) has no proposition states")
        verdict = monitor.check(list(s.states))
        if not verdict.safe and (step is None or step == k):
            explanation = explain_violation(
                monitor, list(s.states), action=s.action, verdict=verdict
            )
            return RolloutQuery(k, s.action, verdict, explanation, valid, monitor.constraints)
        if step == k:
            raise DataFileError(
                source, f"step {k} ({s.action!r}) is safe: {verdict.reason}; nothing to explain"
            )
        if verdict.safe:
            monitor.commit(list(s.states))
            valid.append((s.action, list(verdict.state_changes)))
    raise DataFileError(source, "no step of the rollout is a violation; nothing to explain")
