"""The trace record: what the shield saw and decided in one episode, in one versioned JSON
format.

A :class:`TraceRecord` holds the constraints, the initial proposition state and one
:class:`Step` per proposal, with one outcome vocabulary (:data:`OUTCOMES`): ``executed``
(admitted and run), ``pruned`` (a filter refused it; the world is unchanged),
``not_executable`` (the environment refused it), ``done`` (DONE accepted) and ``error``
(the agent could not propose anything usable). Records written by earlier versions (the
``safetychip.rollout/1`` files of monitored rollouts, and the minimal rollout form that
``safetychip explain`` reads) still load.

Examples
--------
>>> record = TraceRecord.from_dict({
...     "constraints": [{"name": "c1", "formula": 'G!"is_grabbed(phone)"'}],
...     "initial": [], "steps": [{"action": "grab phone", "states": [["is_grabbed(phone)"]]}]})
>>> record.steps[0].outcome, record.trace
('executed', [{'is_grabbed(phone)': False}, {'is_grabbed(phone)': True}])
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from .._io import atomic_write_text, load_json
from ..errors import DataFileError, SafetyChipError, TraceError
from ..monitor import Constraint, Status, Verdict, as_constraints, proposition_state
from ._judgement import DONE, Judgement

__all__ = ["FORMAT", "OUTCOMES", "Step", "TraceRecord"]

#: The ``format`` field of a serialised record.
FORMAT = "safetychip.trace/1"
#: What became of a proposal.
OUTCOMES = ("executed", "pruned", "not_executable", "done", "error")
_LEGACY_OUTCOMES = {"refused": "not_executable"}  # safetychip.rollout/1 words

State = dict[str, bool]


class _StepFields(NamedTuple):
    action: str
    outcome: str
    states: tuple[State, ...] = ()
    judgement: Judgement | None = None
    error: str | None = None
    script: tuple[str, ...] = ()
    reply: str | None = None
    feedback: str | None = None
    source: str = "agent"


class Step(_StepFields):
    """One proposal and what became of it.

    Attributes
    ----------
    action : str
        The action as proposed (canonical words when the environment could read it).
    outcome : str
        One of :data:`OUTCOMES`.
    states : tuple of dict
        The proposition states it produced (executed) or would have produced (pruned).
    judgement : Judgement or None
        The deciding judgement: the refusal of a pruned step; for an executed step, the
        constraint monitor's (with its ``Safe:`` lines) when there is one.
    error : str or None
        Why the environment refused it, or why the agent's reply was unusable.
    script : tuple of str
        The lines the environment ran for it (a VirtualHome script).
    reply : str or None
        The agent's text that proposed it.
    feedback : str or None
        What the agent was told after a refusal (the reprompt).
    source : str
        Who proposed it: ``"agent"``, or ``"safe_stop"`` for the shield's own continuation.
    """

    __slots__ = ()

    def __new__(cls, action: str, outcome: str, *args: Any, **kwargs: Any) -> Step:
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}; choose one of "
                             f"{', '.join(OUTCOMES)}")  # fmt: skip
        return super().__new__(cls, action, outcome, *args, **kwargs)

    @property
    def executed(self) -> bool:
        """Whether the action ran (DONE excluded)."""
        return self.outcome == "executed"

    @property
    def pruned(self) -> bool:
        """Whether a filter refused it."""
        return self.outcome == "pruned"

    @property
    def state_changes(self) -> tuple[str, ...]:
        """The ``Safe:`` / ``Violated:`` lines of the deciding judgement."""
        return self.judgement.state_changes if self.judgement is not None else ()

    @property
    def violated(self) -> tuple[str, ...]:
        """The constraints a refusal is attributed to."""
        j = self.judgement
        return j.constraints if j is not None and not j.admitted else ()

    @property
    def verdict(self) -> Verdict | None:
        """The constraint monitor's verdict, when it decided."""
        return self.judgement.verdict if self.judgement is not None else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out: dict[str, Any] = {"action": self.action, "outcome": self.outcome,
                               "states": [dict(s) for s in self.states]}  # fmt: skip
        if self.judgement is not None:
            out["judgement"] = self.judgement.to_dict()
        for name in ("error", "reply", "feedback"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.script:
            out["script"] = list(self.script)
        if self.source != "agent":
            out["source"] = self.source
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], atoms: Sequence[str] = ()) -> Step:
        """Inverse of :meth:`to_dict`; also reads earlier step forms (a ``verdict`` instead
        of a judgement, states as lists of true atoms, no outcome)."""
        states = tuple(_state(s, atoms) for s in data.get("states", ()))
        judgement = data.get("judgement")
        if judgement is not None:
            found = Judgement.from_dict(judgement)
        elif data.get("verdict") is not None:
            found = Judgement.of_verdict(Verdict.from_dict(data["verdict"]))
        else:
            found = None
        outcome = data.get("outcome")
        if outcome is None:  # the minimal form: refused by the environment, or proposed
            outcome = "not_executable" if data.get("error") else "executed"
        outcome = _LEGACY_OUTCOMES.get(outcome, outcome)
        return cls(str(data["action"]), outcome, states, found, data.get("error"),
                   tuple(data.get("script", ())), data.get("reply"), data.get("feedback"),
                   data.get("source", "agent"))  # fmt: skip

    def __str__(self) -> str:
        if self.outcome == "not_executable":
            return f"{self.action}: NOT EXECUTABLE: {self.error}"
        head = f"{self.action}: {self.outcome.upper()}"
        if self.judgement is not None and (self.pruned or self.judgement.reason):
            head += f" ({self.judgement.reason})"
        return "\n".join([head, *(f"  {line}" for line in self.state_changes)])


@dataclass(frozen=True)
class TraceRecord:
    """The record of one shielded episode (or one plan run without a shield).

    Attributes
    ----------
    constraints : tuple of Constraint
        The constraints the episode is judged against.
    propositions : tuple of str
        The propositions recorded in every state.
    initial : dict
        The proposition state at position 0.
    steps : tuple of Step
        One per proposal, DONE included, in order.
    invariants : tuple of str
        The monitor's domain invariants, in Spot syntax.
    filters : tuple of str
        The names of the shield's filters, in order (empty: nothing was shielded).
    start : Judgement or None
        The filters' answer to the initial state (an abort stops the episode).
    judged : dict of str to bool
        Whether each constraint holds on the executed trace, by the independent evaluator
        :func:`safetychip.ltl.evaluate`.
    goal_reached : bool
    plan : tuple of str
        The plan given, for plan runs.
    scene, task : str or None
    """

    constraints: tuple[Constraint, ...]
    propositions: tuple[str, ...]
    initial: State
    steps: tuple[Step, ...] = ()
    invariants: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()
    start: Judgement | None = None
    judged: dict[str, bool] = field(default_factory=dict)
    goal_reached: bool = False
    plan: tuple[str, ...] = ()
    scene: str | None = None
    task: str | None = None

    # -- views ------------------------------------------------------------------------------

    @property
    def monitored(self) -> bool:
        """Whether a shield filtered the proposals."""
        return bool(self.filters)

    @property
    def trace(self) -> list[State]:
        """The executed trace: the initial state, then the states of each executed step."""
        return [self.initial, *(s for step in self.steps if step.executed for s in step.states)]

    @property
    def executed(self) -> tuple[str, ...]:
        """The actions that ran, in order (DONE excluded)."""
        return tuple(step.action for step in self.steps if step.executed)

    @property
    def pruned(self) -> tuple[Step, ...]:
        """The steps a filter refused."""
        return tuple(step for step in self.steps if step.pruned)

    @property
    def aborted(self) -> bool:
        """Whether the episode was stopped before the first action."""
        return self.start is not None and not self.start.admitted

    @property
    def finish(self) -> Judgement | None:
        """The judgement of the last DONE proposed (None if none was)."""
        for step in reversed(self.steps):
            if step.action == DONE and step.outcome in ("done", "pruned"):
                return step.judgement
        return None

    @property
    def done(self) -> bool:
        """Whether DONE was accepted."""
        return any(step.outcome == "done" for step in self.steps)

    @property
    def violated(self) -> tuple[str, ...]:
        """The constraints the executed trace breaks (judged independently)."""
        return tuple(name for name, ok in self.judged.items() if not ok)

    @property
    def safe(self) -> bool:
        """Whether the executed trace satisfies every constraint."""
        return not self.violated

    def constraint(self, name: str) -> Constraint:
        """The constraint called *name*.

        Raises
        ------
        KeyError
            If there is none; the message lists the names.
        """
        for c in self.constraints:
            if c.name == name:
                return c
        names = ", ".join(c.name for c in self.constraints)
        raise KeyError(f"no constraint named {name!r}; the constraints are {names}")

    def replace(self, **changes: Any) -> TraceRecord:
        """A copy with *changes* (a record is immutable)."""
        return replace(self, **changes)

    # -- serialisation ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (see :data:`FORMAT`)."""
        return {
            "format": FORMAT, "scene": self.scene, "task": self.task,
            "constraints": [c.to_dict() for c in self.constraints],
            "invariants": list(self.invariants), "filters": list(self.filters),
            "propositions": list(self.propositions), "initial": dict(self.initial),
            "start": self.start.to_dict() if self.start is not None else None,
            "plan": list(self.plan), "steps": [s.to_dict() for s in self.steps],
            "judged": dict(self.judged), "goal_reached": self.goal_reached,
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Any) -> TraceRecord:
        """Inverse of :meth:`to_dict`; also reads ``safetychip.rollout/1`` records and the
        minimal form ``{"constraints", "initial", "steps"}`` (constraints as objects or formula
        text, states as mappings or lists of true atoms).

        Raises
        ------
        TraceError
            If *data* is not a record; the message names the field.
        """
        if not isinstance(data, Mapping):
            raise TraceError(f"a trace record is a JSON object, got {type(data).__name__}")
        kind = data.get("format")
        if kind not in (None, FORMAT, "safetychip.rollout/1"):
            raise TraceError(f"unknown record format {kind!r}; this version reads {FORMAT!r} "
                             "and 'safetychip.rollout/1'")  # fmt: skip
        try:
            constraints = as_constraints(
                c if isinstance(c, str) else Constraint.from_dict(c) for c in data["constraints"]
            )
            atoms = tuple(data.get("propositions", ())) or tuple(
                sorted(set().union(*(c.formula.atoms() for c in constraints)))
            )
            initial = _state(data["initial"], atoms)
            steps = tuple(Step.from_dict(s, atoms) for s in data["steps"])
            start = data.get("start")
            if kind == "safetychip.rollout/1":
                steps = _rollout_steps(data, steps)
                start = Judgement.of_verdict(Verdict.from_dict(start)) if start else None
            elif start is not None:
                start = Judgement.from_dict(start)
            monitored = data.get("monitored", kind is None)
            filters = tuple(data.get("filters", ("monitor",) if monitored else ()))
            return cls(
                constraints=constraints, propositions=atoms or tuple(initial), initial=initial,
                steps=steps, invariants=tuple(data.get("invariants", ())), filters=filters,
                start=start, judged={str(k): bool(v) for k, v in data.get("judged", {}).items()},
                goal_reached=bool(data.get("goal_reached", False)),
                plan=tuple(data.get("plan", ())), scene=data.get("scene"),
                task=data.get("task"),
            )  # fmt: skip
        except KeyError as exc:
            raise TraceError(f"not a trace record: missing field {exc.args[0]!r}") from None
        except TraceError:
            raise
        except (TypeError, AttributeError, ValueError, SafetyChipError) as exc:
            raise TraceError(f"not a trace record: {exc}") from None

    def to_json(self, *, indent: int | None = 1) -> str:
        """The record as JSON text."""
        return json.dumps(self.to_dict(), indent=indent) + "\n"

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the record as JSON to *path*, atomically."""
        return atomic_write_text(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> TraceRecord:
        """Read a record written by :meth:`save` (or an earlier format).

        Raises
        ------
        DataFileError
            If the file is missing, is not JSON, or is not a record; the message names it.
        """
        try:
            data = load_json(path, DataFileError)
        except (FileNotFoundError, IsADirectoryError):
            raise DataFileError(str(path), "no such file") from None
        try:
            return cls.from_dict(data)
        except TraceError as exc:
            raise DataFileError(str(path), str(exc)) from None

    # -- display ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        kind = "shielded" if self.monitored else "unshielded"
        where = f" {self.task}" if self.task else f" in {self.scene}" if self.scene else ""
        counts = {o: sum(s.outcome == o for s in self.steps) for o in OUTCOMES if o != "done"}
        detail = ", ".join(f"{n} {o.replace('_', ' ')}" for o, n in counts.items() if n)
        if self.aborted:
            detail = "aborted"
        broken = f"violates {', '.join(self.violated)}" if self.violated else "safe"
        return f"<TraceRecord {kind}{where}: {detail or 'no action'}; {broken}>"

    def __str__(self) -> str:
        lines = [("Shielded" if self.monitored else "Unshielded") + " run"
                 + (f" of {self.task}" if self.task else "")]  # fmt: skip
        if self.aborted and self.start is not None:
            lines.append(f"ABORT: {self.start.reason}")
        lines += [f"{k}. {step}" for k, step in enumerate(self.steps, 1)]
        lines.append(f"goal reached: {'yes' if self.goal_reached else 'no'}")
        for c in self.constraints:
            verdict = "holds" if self.judged.get(c.name, True) else "VIOLATED"
            lines.append(f"{c.name} {verdict}: {c.sentence or c.formula}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colour = {"executed": "#2e7d32", "pruned": "#c62828", "not_executable": "#757575",
                  "done": "#1565c0", "error": "#6a1b9a"}  # fmt: skip
        rows = []
        for k, step in enumerate(self.steps, 1):
            j = step.judgement
            detail = step.error or (j.reason if j is not None else "")
            changes = "<br>".join(f"<code>{html.escape(c)}</code>" for c in step.state_changes)
            rows.append(
                f"<tr><td>{k}</td><td style='text-align:left'>{html.escape(step.action)}</td>"
                f"<td style='color:{colour[step.outcome]}'><b>{step.outcome}</b></td>"
                f"<td style='text-align:left'>{html.escape(detail)}</td>"
                f"<td style='text-align:left'>{changes}</td></tr>"
            )
        judged = "".join(
            f"<li>{html.escape(c.name)} "
            f"{'holds' if self.judged.get(c.name, True) else '<b>VIOLATED</b>'}: "
            f"{html.escape(c.sentence or str(c.formula))}</li>"
            for c in self.constraints
        )
        return (f"<p><b>{html.escape(repr(self))}</b></p><table><tr><th>#</th><th>action</th>"
                "<th>outcome</th><th>why</th><th>state changes</th></tr>" + "".join(rows)
                + f"</table><ul>{judged}</ul>")  # fmt: skip


def _state(value: Any, atoms: Sequence[str]) -> State:
    """A recorded proposition state (a mapping of booleans, or the list of true atoms), read
    by the monitor's one boundary (:func:`~safetychip.monitor.proposition_state`)."""
    if isinstance(value, Mapping):
        return proposition_state(value, [*atoms, *(k for k in value if k not in atoms)])
    if not atoms and isinstance(value, list):
        return proposition_state(value, value)
    return proposition_state(value, atoms)


def _rollout_steps(data: Mapping[str, Any], steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """A ``safetychip.rollout/1`` record kept DONE's verdict apart: make it the last step."""
    finish = data.get("finish")
    if finish is None:
        return steps
    verdict = Verdict.from_dict(finish)
    outcome = "done" if verdict.status is Status.SAFE else "pruned"
    return (*steps, Step(DONE, outcome, judgement=Judgement.of_verdict(verdict)))
