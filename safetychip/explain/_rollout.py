"""Recorded rollouts, and agent queries on them (what ``safetychip explain`` reads).

A rollout file is one JSON object: a record written by
:meth:`safetychip.envs.Rollout.save` (``"format": "safetychip.rollout/1"``), or this
minimal form::

    {"constraints": [{"name": "c1", "sentence": "...", "formula": "..."}, ...],
     "invariants": ["formula", ...],                      (optional)
     "initial": {"agent_at(bedroom)": true, ...},         (or a list of true atoms)
     "steps": [{"action": "walk to kitchen", "states": [{...}, ...]}, ...]}

Each step gives the proposed action and the proposition states it produced (or would have
produced, for a pruned action); a step the environment refused (``"error"``, no states) is
skipped, as the monitor was never asked about it. Other keys, such as a recorded verdict,
are ignored: the monitor is replayed from the constraints. Safe steps are committed; a
violation is explained and, as an agent does, not committed. :func:`explain_rollout` also
takes a :class:`safetychip.envs.Rollout` object directly.

Examples
--------
>>> r = RecordedRollout.from_dict({
...     "constraints": [{"name": "c1", "sentence": "Never pick up the phone",
...                      "formula": 'G!"is_grabbed(phone)"'}],
...     "initial": [], "steps": [{"action": "grab phone", "states": [["is_grabbed(phone)"]]}]})
>>> q = explain_rollout(r)
>>> q.step, q.explanation.violated
(1, ('c1',))
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DataFileError, SafetyChipError
from ..ltl import Formula, parse
from ..monitor import Constraint, Monitor, Status, Verdict
from ._agent import AgentExplanation, agent_query_messages, explain_violation

__all__ = ["RecordedRollout", "RecordedStep", "RolloutQuery", "explain_rollout", "load_rollout"]


@dataclass(frozen=True)
class RecordedStep:
    """One proposed action and its proposition states (true atoms or mappings); *error* is
    the environment's refusal (then there are no states)."""

    action: str
    states: tuple[Any, ...]
    error: str | None = None


@dataclass(frozen=True)
class RecordedRollout:
    """A recorded rollout: constraints, invariants, the initial state and the steps."""

    constraints: tuple[Constraint, ...]
    steps: tuple[RecordedStep, ...]
    initial: Any = frozenset()
    invariants: tuple[Formula, ...] = ()
    source: str = "<dict>"

    @classmethod
    def from_dict(cls, data: Any, source: str = "<dict>") -> RecordedRollout:
        """Read the JSON form (see the module notes).

        Raises
        ------
        DataFileError
            Naming the source and the offending entry.
        """
        if not isinstance(data, dict):
            raise DataFileError(source, "a rollout is a JSON object with 'constraints' and 'steps'")
        for key in ("constraints", "steps"):
            if not isinstance(data.get(key), list):
                raise DataFileError(source, f"the rollout needs a list {key!r}")
        constraints = []
        for i, item in enumerate(data["constraints"], 1):
            try:
                if isinstance(item, str):
                    constraints.append(Constraint(parse(item), name=f"c{i}"))
                elif isinstance(item, dict):
                    c = Constraint.from_dict(item)
                    constraints.append(
                        c if c.name else Constraint(c.formula, c.sentence, f"c{i}", c.pattern)
                    )
                else:
                    raise DataFileError(
                        source, f"constraint {i} is neither an object nor a formula string"
                    )
            except SafetyChipError as err:
                if isinstance(err, DataFileError):
                    raise
                raise DataFileError(source, f"constraint {i}: {err}") from None
        invariants = []
        for i, text in enumerate(data.get("invariants", []), 1):
            try:
                invariants.append(parse(text))
            except (SafetyChipError, TypeError) as err:
                raise DataFileError(source, f"invariant {i}: {err}") from None
        steps = []
        for k, step in enumerate(data["steps"], 1):
            if not isinstance(step, dict) or not isinstance(step.get("action"), str):
                raise DataFileError(source, f"step {k} needs an 'action' string")
            states = step.get("states")
            if isinstance(states, dict):
                states = [states]
            if step.get("error") is not None and not states:
                steps.append(RecordedStep(step["action"], (), str(step["error"])))
                continue
            if not isinstance(states, list) or not states:
                raise DataFileError(
                    source, f"step {k} ({step['action']!r}) needs a non-empty list 'states'"
                )
            for s in states:
                if not isinstance(s, (dict, list)):
                    raise DataFileError(
                        source, f"step {k}: a state is an object or a list of true atoms"
                    )
            steps.append(
                RecordedStep(
                    step["action"],
                    tuple(s if isinstance(s, dict) else frozenset(s) for s in states),
                )
            )
        initial = data.get("initial", data.get("initial_state", []))
        if isinstance(initial, list):
            initial = frozenset(initial)
        elif not isinstance(initial, dict):
            raise DataFileError(source, "'initial' is an object or a list of true atoms")
        return cls(tuple(constraints), tuple(steps), initial, tuple(invariants), source)


def load_rollout(path: str | os.PathLike[str]) -> RecordedRollout:
    """Read a rollout file.

    Raises
    ------
    DataFileError
        If the file is missing, not JSON, or malformed.
    """
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataFileError(str(source), "no such rollout file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise DataFileError(str(source), f"cannot read: {err}") from None
    except json.JSONDecodeError as err:
        raise DataFileError(str(source), f"not JSON: {err.msg} at line {err.lineno}") from None
    return RecordedRollout.from_dict(data, str(source))


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


def explain_rollout(rollout, *, step: int | None = None) -> RolloutQuery:
    """Replay *rollout* through the monitor and explain its first violation (or *step*).

    *rollout* is a :class:`RecordedRollout` or a :class:`safetychip.envs.Rollout`. Steps are
    numbered from 1 as recorded; steps the environment refused are skipped.

    Raises
    ------
    SafetyChipError
        If the constraints are unsatisfiable (the chip aborts before the first action), if
        there is no violation to explain, or *step* is not one.
    """
    source = getattr(rollout, "source", None) or "<rollout>"
    invariants = [parse(i) if isinstance(i, str) else i for i in rollout.invariants]
    monitor = Monitor(rollout.constraints, invariants)
    start = monitor.reset(rollout.initial)
    if start.status is Status.ABORT:
        raise DataFileError(source, f"the chip aborts before the first action: {start.reason}")
    if step is not None and not 1 <= step <= len(rollout.steps):
        raise DataFileError(
            source, f"there is no step {step}; the rollout has {len(rollout.steps)}"
        )
    valid: list[tuple[str, list[str]]] = []
    for k, s in enumerate(rollout.steps, 1):
        if not s.states:  # refused by the environment: the monitor was not asked
            if step == k:
                raise DataFileError(
                    source,
                    f"step {k} ({s.action!r}) was refused by the "
                    f"environment ({s.error}); nothing to explain",
                )
            continue
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
