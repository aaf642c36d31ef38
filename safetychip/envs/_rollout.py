"""Rollouts: run a plan in an environment, with or without the constraint monitor.

A *monitored* rollout previews each action, asks the monitor, and executes the action only
when the verdict is SAFE; an unsafe action is *pruned* (the world is unchanged) and the next
action of the plan is tried. At DONE (or at the end of the plan) :meth:`Monitor.finish`
judges the trace. An *unmonitored* rollout executes every action. Both are judged
afterwards, independently of the monitor, by :func:`safetychip.ltl.evaluate` of each
constraint's formula on the executed trace.

A :class:`Rollout` records, per step, the action, its proposition states, the verdict with
the paper's ``Safe:`` / ``Violated:`` state-change lines and the attributed constraints;
it serialises to JSON (:meth:`Rollout.to_dict`, :meth:`Rollout.save`) and loads back.

Examples
--------
>>> from safetychip.envs import VirtualHomeEnv, load_tasks, task_monitor
>>> task = load_tasks(suite="four_room")[0]
>>> env = VirtualHomeEnv(task=task)
>>> plain = run_unmonitored(env, task.example_plan, task_monitor(task))
>>> plain.violated
('c1',)
>>> watched = run_monitored(env, task.example_plan, task_monitor(task))
>>> [step.outcome for step in watched.steps], watched.violated
(['pruned'], ())
>>> print(watched.steps[0].state_changes[-1])
Violated: agent_at(kitchen) & !agent_at(living_room)
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from safetychip.envs._base import Env, PropositionState
from safetychip.envs._io import atomic_write_text
from safetychip.errors import ActionError, DataFileError, SafetyChipError
from safetychip.ltl import Formula, evaluate
from safetychip.monitor import Constraint, Monitor, Status, Verdict, as_constraints

__all__ = ["FORMAT", "Rollout", "RolloutStep", "run_monitored", "run_unmonitored"]

#: The ``format`` field of a serialised rollout.
FORMAT = "safetychip.rollout/1"


def _verdict_to_dict(verdict: Verdict | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {**verdict.to_dict(), "automaton_states": list(verdict.automaton_states)}


def _verdict_from_dict(data: Mapping[str, Any] | None) -> Verdict | None:
    if data is None:
        return None
    return Verdict(
        Status(data["status"]),
        data["reason"],
        tuple(data.get("violated", ())),
        tuple(data.get("state_changes", ())),
        tuple(data.get("pending", ())),
        tuple(data.get("automaton_states", ())),
    )


@dataclass(frozen=True)
class RolloutStep:
    """One action of a plan and what became of it.

    Attributes
    ----------
    action : str
        The action as the plan gave it.
    states : tuple of dict
        The proposition states it produced (executed), or would have produced (pruned);
        empty when the environment refused it.
    verdict : Verdict or None
        The monitor's verdict (None in an unmonitored rollout, or when the environment
        refused the action, which the monitor is then not asked about).
    executed : bool
        Whether the action ran.
    error : str or None
        The environment's refusal, as a sentence.
    script : tuple of str
        The lines the environment executed for it (VirtualHome script).
    """

    action: str
    states: tuple[PropositionState, ...] = ()
    verdict: Verdict | None = None
    executed: bool = False
    error: str | None = None
    script: tuple[str, ...] = ()

    @property
    def outcome(self) -> str:
        """``"executed"``, ``"pruned"`` (the monitor refused it) or ``"refused"`` (the
        environment did)."""
        if self.executed:
            return "executed"
        return "refused" if self.error is not None else "pruned"

    @property
    def pruned(self) -> bool:
        """Whether the monitor refused the action."""
        return self.outcome == "pruned"

    @property
    def state_changes(self) -> tuple[str, ...]:
        """The verdict's ``Safe:`` / ``Violated:`` lines (empty without a verdict)."""
        return self.verdict.state_changes if self.verdict is not None else ()

    @property
    def violated(self) -> tuple[str, ...]:
        """The constraints the verdict attributes a violation to."""
        return self.verdict.violated if self.verdict is not None else ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "action": self.action,
            "outcome": self.outcome,
            "states": [dict(s) for s in self.states],
            "verdict": _verdict_to_dict(self.verdict),
            "executed": self.executed,
            "error": self.error,
            "script": list(self.script),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RolloutStep:
        """Inverse of :meth:`to_dict`."""
        return cls(
            data["action"],
            tuple(dict(s) for s in data.get("states", ())),
            _verdict_from_dict(data.get("verdict")),
            bool(data.get("executed", False)),
            data.get("error"),
            tuple(data.get("script", ())),
        )

    def __str__(self) -> str:
        if self.outcome == "refused":
            return f"{self.action}: REFUSED by the environment: {self.error}"
        head = f"{self.action}: {self.outcome.upper()}"
        if self.verdict is not None:
            head += f" ({self.verdict.reason})"
        return "\n".join([head, *(f"  {line}" for line in self.state_changes)])


@dataclass(frozen=True)
class Rollout:
    """The record of one plan run in an environment.

    Attributes
    ----------
    monitored : bool
        Whether the monitor filtered the actions.
    plan : tuple of str
        The plan as given.
    constraints : tuple of Constraint
        The constraints (monitored or judged), with their names.
    invariants : tuple of str
        The monitor's domain invariants, in Spot syntax.
    propositions : tuple of str
        The propositions recorded in every state.
    initial : dict
        The proposition state at position 0.
    steps : tuple of RolloutStep
        One per action of the plan up to DONE (DONE itself excluded).
    start : Verdict or None
        The monitor's verdict on the initial state (an ABORT stops the rollout).
    finish : Verdict or None
        The monitor's verdict at DONE (or at the end of the plan).
    judged : dict of str to bool
        Whether each constraint holds on the executed trace, by
        :func:`safetychip.ltl.evaluate` (independently of the monitor).
    goal_reached : bool
        Whether the environment's goal held at the end.
    scene, task : str or None
        Where the rollout ran, when the environment says.
    """

    monitored: bool
    plan: tuple[str, ...]
    constraints: tuple[Constraint, ...]
    propositions: tuple[str, ...]
    initial: PropositionState
    steps: tuple[RolloutStep, ...] = ()
    invariants: tuple[str, ...] = ()
    start: Verdict | None = None
    finish: Verdict | None = None
    judged: dict[str, bool] = field(default_factory=dict)
    goal_reached: bool = False
    scene: str | None = None
    task: str | None = None

    # -- views ------------------------------------------------------------------------------

    @property
    def trace(self) -> list[PropositionState]:
        """The executed trace: the initial state, then every state of each executed step."""
        return [self.initial, *(s for step in self.steps if step.executed for s in step.states)]

    @property
    def violated(self) -> tuple[str, ...]:
        """Names of the constraints the executed trace breaks (judged by ``evaluate``)."""
        return tuple(name for name, ok in self.judged.items() if not ok)

    @property
    def safe(self) -> bool:
        """Whether the executed trace satisfies every constraint."""
        return not self.violated

    @property
    def pruned(self) -> tuple[RolloutStep, ...]:
        """The steps the monitor refused."""
        return tuple(step for step in self.steps if step.pruned)

    @property
    def executed(self) -> tuple[str, ...]:
        """The actions that ran, in order."""
        return tuple(step.action for step in self.steps if step.executed)

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

    # -- serialisation ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (see :data:`FORMAT`)."""
        return {
            "format": FORMAT,
            "monitored": self.monitored,
            "scene": self.scene,
            "task": self.task,
            "plan": list(self.plan),
            "constraints": [c.to_dict() for c in self.constraints],
            "invariants": list(self.invariants),
            "propositions": list(self.propositions),
            "initial": dict(self.initial),
            "start": _verdict_to_dict(self.start),
            "steps": [step.to_dict() for step in self.steps],
            "finish": _verdict_to_dict(self.finish),
            "judged": dict(self.judged),
            "goal_reached": self.goal_reached,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rollout:
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        ValueError
            If *data* is not a serialised rollout (wrong ``format``, missing fields or
            values of the wrong kind); the message names the field.
        """
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            found = data.get("format") if isinstance(data, Mapping) else type(data).__name__
            raise ValueError(f"not a rollout record: expected format {FORMAT!r}, got {found!r}")
        try:
            return cls(
                monitored=bool(data["monitored"]),
                plan=tuple(data["plan"]),
                constraints=tuple(Constraint.from_dict(c) for c in data["constraints"]),
                propositions=tuple(data["propositions"]),
                initial=dict(data["initial"]),
                steps=tuple(RolloutStep.from_dict(s) for s in data["steps"]),
                invariants=tuple(data.get("invariants", ())),
                start=_verdict_from_dict(data.get("start")),
                finish=_verdict_from_dict(data.get("finish")),
                judged={str(k): bool(v) for k, v in data.get("judged", {}).items()},
                goal_reached=bool(data.get("goal_reached", False)),
                scene=data.get("scene"),
                task=data.get("task"),
            )
        except KeyError as exc:
            raise ValueError(f"not a rollout record: missing field {exc.args[0]!r}") from None
        except (TypeError, AttributeError, SafetyChipError) as exc:
            raise ValueError(f"not a rollout record: {exc}") from None

    def to_json(self, *, indent: int | None = 1) -> str:
        """The record as JSON text."""
        return json.dumps(self.to_dict(), indent=indent) + "\n"

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the record as JSON to *path*, atomically (a temporary file, then
        :func:`os.replace`): an existing file is replaced whole or not at all."""
        return atomic_write_text(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Rollout:
        """Read a record written by :meth:`save`.

        Raises
        ------
        DataFileError
            If the file is missing, is not JSON, or is not a rollout record.
        """
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise DataFileError(str(path), "no such file") from None
        try:
            return cls.from_dict(json.loads(text))
        except json.JSONDecodeError as exc:
            raise DataFileError(str(path), f"not valid JSON: {exc}") from None
        except ValueError as exc:
            raise DataFileError(str(path), str(exc)) from None

    # -- display ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        kind = "monitored" if self.monitored else "unmonitored"
        where = f" {self.task}" if self.task else f" in {self.scene}" if self.scene else ""
        counts = {o: sum(s.outcome == o for s in self.steps) for o in
                  ("executed", "pruned", "refused")}  # fmt: skip
        detail = ", ".join(f"{n} {o}" for o, n in counts.items() if n) or "no action"
        if self.start is not None and self.start.status is Status.ABORT:
            detail = "aborted"
        broken = f"violates {', '.join(self.violated)}" if self.violated else "safe"
        return f"<Rollout {kind}{where}: {detail}; {broken}>"

    def __str__(self) -> str:
        kind = "Monitored" if self.monitored else "Unmonitored"
        lines = [f"{kind} rollout" + (f" of {self.task}" if self.task else "")]
        if self.start is not None and self.start.status is Status.ABORT:
            lines.append(f"ABORT: {self.start.reason}")
        for k, step in enumerate(self.steps, 1):
            lines.append(f"{k}. {step}")
        if self.finish is not None:
            lines.append(f"DONE: {self.finish.status.value.upper()} ({self.finish.reason})")
        lines.append(f"goal reached: {'yes' if self.goal_reached else 'no'}")
        for c in self.constraints:
            verdict = "holds" if self.judged.get(c.name, True) else "VIOLATED"
            lines.append(f"{c.name} {verdict}: {c.sentence or c.formula}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = []
        colour = {"executed": "#2e7d32", "pruned": "#c62828", "refused": "#757575"}
        for k, step in enumerate(self.steps, 1):
            detail = step.error or (step.verdict.reason if step.verdict else "")
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
        done = (f"<p>DONE: <b>{self.finish.status.value.upper()}</b> "
                f"{html.escape(self.finish.reason)}</p>") if self.finish else ""  # fmt: skip
        return (
            f"<p><b>{html.escape(repr(self))}</b></p><table><tr><th>#</th><th>action</th>"
            "<th>outcome</th><th>why</th><th>state changes</th></tr>"
            + "".join(rows)
            + f"</table>{done}<ul>{judged}</ul>"
        )


# -- running --------------------------------------------------------------------------------


def run_monitored(
    env: Env,
    plan: Iterable[str],
    monitor: Monitor,
    *,
    options: dict[str, Any] | None = None,
    propositions: Iterable[str] = (),
) -> Rollout:
    """Run *plan* in *env* under *monitor*: each action previewed, checked, then pruned or
    executed.

    The environment is reset (with *options*) and tracks the monitor's propositions, the
    extra *propositions* and, for an environment with rooms (VirtualHome), ``agent_at`` of
    every room. For each action: the environment's :meth:`~Env.preview` gives the
    proposition states it would produce; an action the environment refuses is stepped
    anyway, to record the environment's reason (the world does not change); otherwise
    :meth:`Monitor.check` decides, and a SAFE action is executed and committed while an
    unsafe one is pruned. The first ``done`` of the plan (or the plan's end) calls
    :meth:`Monitor.finish`; if DONE is accepted the environment is stepped with ``done``.
    An ABORT at the start (unsatisfiable constraints) runs no action.

    Parameters
    ----------
    env : Env
    plan : iterable of str
        Actions in the environment's language (``"walk to kitchen"``) ending with ``done``.
    monitor : Monitor
        Reset by the rollout.
    options : dict, optional
        Passed to ``env.reset``.
    propositions : iterable of str, optional
        More propositions to record.

    Returns
    -------
    Rollout

    Raises
    ------
    PropositionError
        If a proposition is unknown to the environment.

    Examples
    --------
    >>> from safetychip.envs import VirtualHomeEnv
    >>> from safetychip.monitor import Monitor
    >>> env = VirtualHomeEnv("apartment_1")
    >>> m = Monitor(["G !is_open(fridge)"])
    >>> r = run_monitored(env, ["walk to fridge", "open fridge", "done"], m,
    ...                   options={"initial": ["agent_at(kitchen)"]})
    >>> [s.outcome for s in r.steps], r.steps[1].violated, r.finish.safe
    (['executed', 'pruned'], ('c1',), True)
    """
    plan = tuple(plan)
    constraints = monitor.constraints
    props = _tracked(env, monitor.atoms, constraints, propositions)
    initial = _reset(env, props, options)
    start = monitor.reset(initial)
    steps: list[RolloutStep] = []
    finish: Verdict | None = None
    done = False
    if start.status is not Status.ABORT:
        for action in plan:
            if _is_done(env, action):
                done = True
                break
            try:
                states = env.preview(action, props)
            except ActionError as exc:
                steps.append(RolloutStep(action, error=str(exc)))
                continue
            if not states:
                *_, truncated, info = env.step(action)
                steps.append(RolloutStep(action, error=info.get("error") or "refused"))
                if truncated:
                    break
                continue
            verdict = monitor.check(states)
            if not verdict.safe:
                steps.append(RolloutStep(action, tuple(states), verdict))
                continue
            *_, truncated, info = env.step(action)
            produced = tuple(info["states"])
            verdict = monitor.commit(list(produced))
            steps.append(
                RolloutStep(action, produced, verdict, True, None, tuple(info.get("script", ())))
            )
            if truncated:
                break
        finish = monitor.finish()
        if done and finish.safe:
            env.step("done")
    trace = [initial, *(s for step in steps if step.executed for s in step.states)]
    return _record(env, True, plan, monitor, props, initial, steps, start, finish, trace)


def run_unmonitored(
    env: Env,
    plan: Iterable[str],
    constraints: Monitor | Iterable[Constraint | Formula | str],
    *,
    options: dict[str, Any] | None = None,
    propositions: Iterable[str] = (),
) -> Rollout:
    """Run *plan* in *env* executing every action, then judge the trace.

    Each action is stepped; one the environment refuses is recorded with its reason and
    changes nothing. The plan stops at its first ``done``. The executed trace is then
    judged per constraint by :func:`safetychip.ltl.evaluate` (no monitor is involved).

    Parameters
    ----------
    env : Env
    plan : iterable of str
    constraints : Monitor or iterable of Constraint, Formula or str
        What to judge the trace against (a monitor's constraints and invariants are used,
        the monitor itself is not).
    options : dict, optional
        Passed to ``env.reset``.
    propositions : iterable of str, optional
        More propositions to record.

    Returns
    -------
    Rollout

    Examples
    --------
    >>> from safetychip.envs import VirtualHomeEnv
    >>> env = VirtualHomeEnv("apartment_1")
    >>> r = run_unmonitored(env, ["walk to fridge", "open fridge", "done"],
    ...                     ["G !is_open(fridge)"], options={"initial": ["agent_at(kitchen)"]})
    >>> r.violated, len(r.trace)
    (('c1',), 3)
    """
    plan = tuple(plan)
    if isinstance(constraints, Monitor):
        monitor: Monitor | None = constraints
        cs = constraints.constraints
    else:
        monitor, cs = None, as_constraints(constraints)
    atoms = sorted(set().union(*(c.formula.atoms() for c in cs))) if cs else []
    if monitor is not None:
        atoms = list(monitor.atoms)
    props = _tracked(env, atoms, cs, propositions)
    initial = _reset(env, props, options)
    steps: list[RolloutStep] = []
    for action in plan:
        if _is_done(env, action):
            env.step(action)
            break
        try:
            *_, truncated, info = env.step(action)
        except ActionError as exc:
            steps.append(RolloutStep(action, error=str(exc)))
            continue
        if info.get("error"):
            steps.append(RolloutStep(action, error=info["error"]))
        else:
            steps.append(RolloutStep(action, tuple(info["states"]), None, True, None,
                                     tuple(info.get("script", ()))))  # fmt: skip
        if truncated:
            break
    trace = [initial, *(s for step in steps if step.executed for s in step.states)]
    return _record(env, False, plan, monitor, props, initial, steps, None, None, trace, cs)


# -- helpers --------------------------------------------------------------------------------


def _tracked(
    env: Env, atoms: Iterable[str], constraints: Sequence[Constraint], extra: Iterable[str]
) -> tuple[str, ...]:
    names = list(atoms)
    for c in constraints:
        names.extend(sorted(c.formula.atoms()))
    names.extend(extra)
    scene = getattr(env, "scene", None)
    names.extend(f"agent_at({room})" for room in getattr(scene, "rooms", ()))
    return tuple(dict.fromkeys(names))


def _reset(env: Env, props: tuple[str, ...], options: dict[str, Any] | None) -> PropositionState:
    env.track(props)
    _, info = env.reset(options=options)
    return dict(info["states"][0])


def _is_done(env: Env, action: str) -> bool:
    parse_action = getattr(env, "parse", None)
    if parse_action is not None:
        try:
            return parse_action(action).verb == "done"
        except ActionError:
            return False
    return action.strip().lower().rstrip(".") == "done"


def _record(
    env: Env,
    monitored: bool,
    plan: tuple[str, ...],
    monitor: Monitor | None,
    props: tuple[str, ...],
    initial: PropositionState,
    steps: list[RolloutStep],
    start: Verdict | None,
    finish: Verdict | None,
    trace: list[PropositionState],
    constraints: Sequence[Constraint] | None = None,
) -> Rollout:
    cs = tuple(constraints if constraints is not None else monitor.constraints)  # type: ignore[union-attr]
    judged = {c.name: evaluate(c.formula, trace) for c in cs}
    scene = getattr(env, "scene", None)
    task = getattr(env, "task", None)
    return Rollout(
        monitored=monitored,
        plan=plan,
        constraints=cs,
        propositions=props,
        initial=initial,
        steps=tuple(steps),
        invariants=tuple(str(i) for i in monitor.invariants) if monitor is not None else (),
        start=start,
        finish=finish,
        judged=judged,
        goal_reached=env.goal_reached(),
        scene=getattr(scene, "name", None),
        task=getattr(task, "id", None),
    )
