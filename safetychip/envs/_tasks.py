"""Tasks in any environment: instructions, goals, example plans and constraints, read from
JSON lines; the environments that host them, by name (:data:`ENVIRONMENTS`).

Two suites live under ``data/virtualhome/tasks/`` as JSON lines, one task a line:

``four_room``
    Navigation constraints only, over ``agent_at`` of the kitchen, bathroom, bedroom and
    living room.
``mobile_manipulation``
    Constraints over the six object predicates and ``agent_at``.

Each task has an ``id``, ``scene``, ``suite``, ``instruction``, ``description``,
``initial`` and ``goal`` literals, an ``example_plan`` (templated English) with its
``example_script`` (VirtualHome lines) — written as an in-context example that ignores the
constraints — a ``reference_plan`` that reaches the goal and satisfies every constraint, and
five ``constraints``. A constraint has a ``sentence``, a ``formula`` in Spot's syntax, the
specification ``pattern`` (a key of :data:`safetychip.ltl.PATTERNS`) it instantiates, the
pattern's ``args`` (literals) and, for ``at_most``, a ``bound``. Loaded, a task's constraints
are :class:`safetychip.monitor.Constraint` objects named ``c1`` … ``c5``: the very
constraints every monitor, agent and judge of the task uses.

An optional ``env`` field names the environment the task runs in, a key of
:data:`ENVIRONMENTS`: ``"virtualhome"`` (the default), ``"spot"`` (the Spot robot's lab,
``data/spot/tasks.jsonl``: the same format, with ``example_script`` empty), ``"thor"``, or
``"minigrid"`` (a MiniGrid or BabyAI environment id as the scene, ``data/minigrid/tasks.jsonl``;
registered by :mod:`safetychip.gym`, the ``gym`` extra, when it is imported).
Each environment registers itself here (:func:`register_environment`) with how it makes an
environment for a task, checks a task's names and finds its domain invariants; this module
imports none of them, and none of them imports another.

Examples
--------
>>> tasks = load_tasks(suite="four_room")
>>> task = tasks[0]
>>> task.id, len(task.constraints), task.constraints[0].pattern, task.constraints[0].name
('four_room/apartment_1/01', 5, 'not_before', 'c1')
>>> print(task.constraints[0].formula)
!"agent_at(kitchen)" W "agent_at(bathroom)"
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from safetychip._io import load_json_lines
from safetychip.envs._base import Env
from safetychip.errors import ActionError, DataFileError, FormulaError, PropositionError, TaskError
from safetychip.ltl import PATTERNS, Formula, parse
from safetychip.monitor import Constraint, Monitor
from safetychip.paths import DATA_DIR

__all__ = [
    "ENVIRONMENTS", "SUITES", "TASK_DIR", "Task", "TaskEnvironment", "check_task",
    "check_task_names", "goal_formula", "load_tasks", "register_environment", "task_invariants",
    "task_monitor",
]  # fmt: skip

#: Where the default task suites live (``data/virtualhome/tasks`` in the repository).
TASK_DIR = DATA_DIR / "virtualhome" / "tasks"

#: The default task suites, each a file ``<suite>.jsonl`` in :data:`TASK_DIR`.
SUITES = ("four_room", "mobile_manipulation")


@dataclass(frozen=True)
class Task:
    """A task of a suite; see the module docstring for the fields."""

    id: str
    scene: str
    suite: str
    instruction: str
    description: str
    initial: tuple[str, ...]
    goal: tuple[str, ...]
    example_plan: tuple[str, ...]
    example_script: tuple[str, ...]
    reference_plan: tuple[str, ...]
    constraints: tuple[Constraint, ...]
    env: str = "virtualhome"

    @property
    def propositions(self) -> tuple[str, ...]:
        """Every proposition the constraints and the goal mention, sorted."""
        names = {p for c in self.constraints for p in c.formula.atoms()}
        names.update(literal.lstrip("!") for literal in self.goal)
        return tuple(sorted(names))

    def make_env(self) -> Env:
        """An environment of the task's kind (``env``, see :data:`ENVIRONMENTS`) and scene,
        with this task."""
        return _environment(self).make_env(self)

    def __repr__(self) -> str:
        return f"<Task {self.id}: {self.instruction!r}>"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{k}</td><td style='text-align:left'>{html.escape(c.sentence)}</td>"
            f"<td style='text-align:left'><code>{html.escape(str(c.formula))}</code></td></tr>"
            for k, c in enumerate(self.constraints, 1)
        )
        return (
            f"<p><b>{html.escape(self.id)}</b> ({html.escape(self.scene)}): "
            f"{html.escape(self.instruction)}<br>goal: <code>"
            f"{html.escape(' & '.join(self.goal))}</code></p><table>{rows}</table>"
        )


def load_tasks(
    path: str | os.PathLike[str] | None = None,
    *,
    suite: str | None = None,
    scene: str | None = None,
    check: bool = True,
) -> list[Task]:
    """Load tasks from a JSON-lines file, or every suite of :data:`TASK_DIR`.

    Parameters
    ----------
    path : str or path, optional
        One ``.jsonl`` file; by default every suite in :data:`TASK_DIR`.
    suite, scene : str, optional
        Keep only the tasks of this suite or scene.
    check : bool, optional
        Check every task against its scene with :func:`check_task` (the default). Either
        every task of the file loads, or none does.

    Raises
    ------
    DataFileError
        If a file is missing or a line is not a valid task: malformed JSON or fields, a
        formula that does not parse, a scene that does not exist, or a proposition, goal or
        plan naming an object the scene lacks. The message names the file, the line, the
        task and the object.
    ValueError
        If *suite* is not one of :data:`SUITES`.
    """
    if path is None and suite is not None and suite not in SUITES:
        raise ValueError(
            f"unknown suite {suite!r}; choose one of {', '.join(SUITES)} (or "
            f"give the path of a task file)"
        )
    paths = [Path(path)] if path is not None else [TASK_DIR / f"{s}.jsonl" for s in SUITES]
    tasks = [task for p in paths for task in _read(p, check)]
    return [
        t
        for t in tasks
        if (suite is None or t.suite == suite) and (scene is None or t.scene == scene)
    ]


_FIELDS: dict[str, type] = {
    "id": str,
    "scene": str,
    "suite": str,
    "instruction": str,
    "description": str,
    "initial": list,
    "goal": list,
    "example_plan": list,
    "example_script": list,
    "reference_plan": list,
    "constraints": list,
}
_CONSTRAINT_FIELDS: dict[str, type] = {
    "sentence": str,
    "formula": str,
    "pattern": str,
}


@dataclass(frozen=True)
class TaskEnvironment:
    """How one environment hosts tasks: the entry of :data:`ENVIRONMENTS` that a task's
    ``env`` field names.

    Attributes
    ----------
    make_env : callable
        ``make_env(task)``: an environment of the task's scene, with the task (its initial
        conditions and goal).
    check : callable
        ``check(task, scene)``: raise :class:`~safetychip.errors.TaskError` if a name of
        *task* is not the environment's; *scene* is the task's scene if already loaded by
        :attr:`load_scene`, else None. Default: :func:`check_task_names`.
    invariants : callable, optional
        ``invariants(task, atoms)``: the domain invariants a monitor of *task* may rely on.
        Default: those of ``make_env(task)``.
    load_scene : callable, optional
        ``load_scene(name)``: a scene that :attr:`check` can reuse across the tasks of a
        file (default: none is shared).
    """

    make_env: Callable[[Task], Env]
    check: Callable[[Task, Any], None] | None = None
    invariants: Callable[[Task, list[str]], list[Formula]] | None = None
    load_scene: Callable[[str], Any] | None = None


#: The environments a task can name in its ``env`` field, each registered by its own package
#: (``"virtualhome"``, ``"spot"``, ``"thor"``; ``"minigrid"`` by :mod:`safetychip.gym`).
ENVIRONMENTS: dict[str, TaskEnvironment] = {}


def register_environment(name: str, environment: TaskEnvironment) -> None:
    """Let tasks whose ``env`` is *name* run in *environment*.

    Examples
    --------
    >>> {"spot", "thor", "virtualhome"} <= set(ENVIRONMENTS)  # "minigrid" once safetychip.gym is
    True
    >>> load_tasks(suite="four_room")[0].make_env()
    <VirtualHomeEnv scene='apartment_1', task='four_room/apartment_1/01'>
    """
    ENVIRONMENTS[name] = environment


def _environment(task: Task) -> TaskEnvironment:
    try:
        return ENVIRONMENTS[task.env]
    except KeyError:
        raise TaskError(f"task {task.id!r}: {_unknown(task.env)}") from None


def check_task(task: Task, scene: Any = None) -> None:
    """Check that *task* fits its scene: formulas parse, and every name exists.

    Checks, the way the task's environment reads them, that each atom of each constraint is
    a proposition of the scene; that the initial and goal literals are such propositions;
    and that the example and reference plans read as actions in the scene.

    Parameters
    ----------
    task : Task
    scene : object, optional
        The task's scene, if already loaded (else it is loaded by name).

    Raises
    ------
    TaskError
        On the first problem; the message names the task, the constraint or entry, and the
        object (with the closest names the scene has).

    Examples
    --------
    >>> import dataclasses
    >>> task = load_tasks(suite="mobile_manipulation")[0]
    >>> check_task(task)
    >>> bad = dataclasses.replace(task, goal=("is_in(salmon,oven)",))
    >>> check_task(bad)
    Traceback (most recent call last):
    ...
    safetychip.errors.TaskError: task 'mobile_manipulation/apartment_1/01', goal \
'is_in(salmon,oven)': in 'is_in(salmon,oven)': no object or room named 'oven' in scene \
'apartment_1'; closest names: stove, vase
    """
    environment = _environment(task)
    (environment.check or check_task_names)(task, scene)


def check_task_names(task: Task, scene: Any = None) -> None:
    """:func:`check_task` through the environment's own checks: every proposition is
    :meth:`~safetychip.envs.Env.track`-ed and every plan action :meth:`~safetychip.envs.Env.parse`-d
    by an environment of the task (*scene* is not used).

    Raises
    ------
    TaskError
        As :func:`check_task`.

    Examples
    --------
    >>> from safetychip.envs import load_spot_tasks
    >>> check_task_names(load_spot_tasks()[0])
    """
    try:
        env = _environment(task).make_env(task)
    except DataFileError as exc:
        raise TaskError(f"task {task.id!r}: scene {task.scene!r}: {exc}") from None
    entries = [
        (f"constraint {k} ({c.sentence!r})", atom)
        for k, c in enumerate(task.constraints, 1)
        for atom in sorted(c.formula.atoms())
    ]
    entries += [(f"{f} {lit!r}", lit.lstrip("! ")) for f in ("initial", "goal")
                for lit in getattr(task, f)]  # fmt: skip
    for where, atom in entries:
        try:
            env.track([atom])
        except PropositionError as exc:
            raise TaskError(f"task {task.id!r}, {where}: {exc}") from None
    for field_name in ("example_plan", "reference_plan"):
        for k, action in enumerate(getattr(task, field_name), 1):
            try:
                env.parse(action)
            except ActionError as exc:
                raise TaskError(
                    f"task {task.id!r}, {field_name} action {k} {action!r}: {exc}"
                ) from None


def task_monitor(task: Task, k: int | None = None, *, invariants: bool = True,
                 goal: bool = False) -> Monitor:  # fmt: skip
    """The :class:`~safetychip.monitor.Monitor` that judges the first *k* constraints of
    *task*: the one the notebooks, the agents and the experiments all use.

    The constraints are named ``c1`` … ``c5`` after their place in the task and keep their
    sentence and pattern, so verdicts attribute violations readably.

    Parameters
    ----------
    task : Task
    k : int, optional
        How many constraints, from the first (default: all).
    invariants : bool, optional
        Declare the scene's domain invariants (:func:`domain_invariants`: one room at a
        time, moves between adjacent rooms, furniture changing only with the agent in its
        room), as the environment guarantees (the default).
    goal : bool, optional
        Add the task's goal as a constraint named ``goal`` (:func:`goal_formula`), to ask
        whether the constraints still let the task end in its goal.

    Raises
    ------
    ValueError
        If *k* is not between 0 and the number of constraints.
    TaskError
        If a formula does not parse.

    Examples
    --------
    >>> task = load_tasks(suite="four_room")[0]
    >>> m = task_monitor(task, 2)
    >>> [c.name for c in m.constraints], len(m.invariants)
    (['c1', 'c2'], 6)
    """
    n = len(task.constraints)
    k = n if k is None else k
    if not 0 <= k <= n:
        raise ValueError(f"k must be between 0 and {n} for task {task.id!r}, got {k}")
    constraints = list(task.constraints[:k])
    if goal and task.goal:
        sentence = "the task's goal: " + " and ".join(task.goal) + " at the end"
        constraints.append(Constraint(parse(goal_formula(task.goal)), sentence, "goal"))
    atoms = sorted({a for c in constraints for a in c.formula.atoms()})
    return Monitor(constraints, task_invariants(task, atoms) if invariants else [])


def task_invariants(task: Task, atoms: Sequence[str]) -> list[Formula]:
    """The domain invariants of *task*'s environment over *atoms*: what every run of its
    scene satisfies (for VirtualHome: one room at a time, moves between adjacent rooms …).

    Examples
    --------
    >>> task = load_tasks(suite="four_room")[0]
    >>> len(task_invariants(task, ["agent_at(kitchen)", "agent_at(bedroom)"]))
    6
    """
    environment = _environment(task)
    if environment.invariants is not None:
        return list(environment.invariants(task, list(atoms)))
    return list(environment.make_env(task).invariants(atoms))


def goal_formula(goal: Sequence[str]) -> str:
    """The LTLf formula "the trace ends in a state where every goal literal holds".

    Examples
    --------
    >>> goal_formula(["is_in(salmon,fridge)", "!is_open(fridge)"])
    'F("is_in(salmon,fridge)" & !"is_open(fridge)" & !X[!]true)'
    """
    lits = [f'!"{g[1:]}"' if g.startswith("!") else f'"{g}"' for g in goal]
    return f"F({' & '.join([*lits, '!X[!]true'])})"


def _read(path: Path, check: bool = True) -> list[Task]:
    try:
        lines = list(load_json_lines(path, DataFileError))
    except FileNotFoundError:
        raise DataFileError(str(path), "no such file") from None
    tasks = []
    scenes: dict[tuple[str, str], Any] = {}
    for number, data in lines:
        where = f"line {number}"
        _require(data, _FIELDS, path, where)
        constraints = []
        for k, item in enumerate(data["constraints"], 1):
            _require(item, _CONSTRAINT_FIELDS, path, f"{where}, constraint {k}")
            if item["pattern"] not in PATTERNS:
                raise DataFileError(
                    str(path),
                    f"{where}, constraint {k}: unknown pattern {item['pattern']!r}; "
                    f"valid: {', '.join(PATTERNS)}",
                )
            try:
                constraint = Constraint.parse(
                    item["formula"],
                    item["sentence"],
                    name=f"c{k}",
                    pattern=item["pattern"],
                    args=item.get("args", ()),
                    bound=item.get("bound"),
                )
            except FormulaError as exc:
                which = f"task {data['id']!r}, constraint {k} ({item['sentence']!r})"
                detail = f"{which}: the formula does not parse: {exc}"
                raise DataFileError(str(path), f"{where}: {detail}") from None
            constraints.append(constraint)
        fields = {key: data[key] for key in _FIELDS}
        tuples = {k: tuple(v) for k, v in fields.items() if isinstance(v, list)}
        env = data.get("env", "virtualhome")
        if env not in ENVIRONMENTS:
            raise DataFileError(str(path), f"{where}: {_unknown(env)}")
        task = Task(**{**fields, **tuples, "constraints": tuple(constraints)}, env=env)
        if check:
            environment = ENVIRONMENTS[env]
            key = (env, task.scene)
            try:
                if environment.load_scene is not None and key not in scenes:
                    scenes[key] = environment.load_scene(task.scene)
                check_task(task, scenes.get(key))
            except (TaskError, DataFileError) as exc:
                detail = str(exc) if isinstance(exc, TaskError) else f"task {task.id!r}: {exc}"
                raise DataFileError(str(path), f"{where}: {detail}") from None
        tasks.append(task)
    return tasks


#: The packages that register an environment only when imported (an optional extra).
_REGISTERED_BY = {"minigrid": "safetychip.gym"}


def _unknown(env: str) -> str:
    """Why the task environment *env* is unknown, and the fix."""
    text = f"unknown env {env!r}; valid: {', '.join(sorted(ENVIRONMENTS))}"
    package = _REGISTERED_BY.get(env)
    if package is not None:
        text += f" (import {package} to register {env!r}; it needs its extra installed)"
    return text


def _require(data: Any, fields: dict[str, type], path: Path, where: str) -> None:
    if not isinstance(data, dict):
        raise DataFileError(str(path), f"{where}: expected a JSON object")
    for key, kind in fields.items():
        if not isinstance(data.get(key), kind):
            raise DataFileError(
                str(path), f"{where}: field {key!r} is missing or not a {kind.__name__}"
            )
