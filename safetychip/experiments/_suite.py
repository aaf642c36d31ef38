"""Suite validation: example plans run, safe plans exist, and the benchmark is not trivial.

For every task of a suite and every k = 1..5 (the first k constraints):

* the task's example plan executes in its scene and reaches the goal;
* a *safe plan* exists — one that reaches the goal while the monitor accepts every action
  and DONE — found by :func:`find_safe_plan`, a bounded best-first search over the product
  of the environment and the monitor's automata;
* whether the example plan alone breaks one of the k constraints is measured, judged by
  :func:`safetychip.ltl.evaluate` of each formula on the executed trace (independently of
  the monitor), so that the share of non-trivial (task, k) pairs can be reported.

:func:`validate_suite` does all three and returns a :class:`SuiteReport`.

Examples
--------
>>> from safetychip.envs import load_tasks
>>> task = load_tasks(suite="four_room")[0]
>>> found = find_safe_plan(task, 2)
>>> found.plan
('walk to bathroom', 'walk to kitchen', 'done')
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..envs import (
    Task,
    VirtualHomeEnv,
    WorldSnapshot,
    check_task,
    load_tasks,
    parse_literal,
    task_monitor,
)
from ..envs.virtualhome import candidate_actions
from ..errors import NoSafePlan
from ..ltl import evaluate
from ..monitor import Monitor
from ..shield import run_monitored, run_unmonitored, search_safe_plan

__all__ = [
    "SafePlan",
    "SuiteReport",
    "TaskValidation",
    "candidate_actions",
    "find_safe_plan",
    "validate_suite",
]

#: Weight of the heuristic in the best-first search's priority ``g + WEIGHT * h``.
WEIGHT = 2.0


@dataclass(frozen=True)
class SafePlan:
    """A plan the search found: it reaches the goal, and the monitor accepts it whole.

    Attributes
    ----------
    task : str
        The task id.
    k : int
        How many constraints (the first k) it respects.
    plan : tuple of str
        Templated English actions, ending with ``done``.
    expanded : int
        Search nodes expanded to find it.
    verified : bool
        Whether a monitored rollout of the plan executed every action, reached the goal,
        had DONE accepted, and satisfied every constraint by ``evaluate``.
    """

    task: str
    k: int
    plan: tuple[str, ...]
    expanded: int
    verified: bool = False


@dataclass(frozen=True)
class TaskValidation:
    """What :func:`validate_suite` found for one task.

    Attributes
    ----------
    task : str
    example_executes : bool
        Every action of the example plan ran, and the goal held at DONE.
    example_violates : tuple of bool
        For k = 1, 2, …: whether the example plan's trace breaks one of the first k
        constraints (by ``evaluate``).
    safe_plans : tuple of (SafePlan or None)
        For k = 1, 2, …: the safe plan found, or None when the search gave up.
    failures : tuple of str
        Why a safe plan was not found, per failing k.
    """

    task: str
    example_executes: bool
    example_violates: tuple[bool, ...]
    safe_plans: tuple[SafePlan | None, ...]
    failures: tuple[str, ...] = ()


@dataclass(frozen=True)
class SuiteReport:
    """The outcome of :func:`validate_suite`.

    Attributes
    ----------
    tasks : tuple of TaskValidation
    ks : tuple of int
        The numbers of constraints checked.
    seconds : float
        Wall-clock time of the whole validation (not shown by ``repr``).
    """

    tasks: tuple[TaskValidation, ...]
    ks: tuple[int, ...]
    seconds: float = field(default=0.0, compare=False)

    @property
    def pairs(self) -> int:
        """Number of (task, k) pairs."""
        return len(self.tasks) * len(self.ks)

    @property
    def example_share(self) -> float:
        """Share of tasks whose example plan executes and reaches the goal."""
        return _share(t.example_executes for t in self.tasks)

    @property
    def safe_plan_share(self) -> float:
        """Share of (task, k) pairs with a verified safe plan."""
        return _share(p is not None and p.verified for t in self.tasks for p in t.safe_plans)

    @property
    def violating_share(self) -> float:
        """Share of (task, k) pairs whose example plan breaks one of the first k constraints."""
        return _share(v for t in self.tasks for v in t.example_violates)

    def violating_share_by_k(self) -> dict[int, float]:
        """:attr:`violating_share` for each k."""
        return {k: _share(t.example_violates[i] for t in self.tasks) for i, k in
                enumerate(self.ks)}  # fmt: skip

    def missing(self) -> list[tuple[str, int]]:
        """The (task, k) pairs without a verified safe plan."""
        return [
            (t.task, k)
            for t in self.tasks
            for k, p in zip(self.ks, t.safe_plans)
            if p is None or not p.verified
        ]

    def table(self) -> str:
        """One line per task: example executes, violations per k, safe-plan lengths per k."""
        violates = f"violates (k={','.join(map(str, self.ks))})"
        head = f"{'task':<36}{'example':>8}  {violates:<22}"
        lines = [head + "  safe plan length (nodes expanded)"]
        for t in self.tasks:
            marks = "".join("x" if v else "." for v in t.example_violates)
            plans = " ".join(
                f"{len(p.plan) - 1}({p.expanded})" if p is not None else "--" for p in t.safe_plans
            )
            lines.append(f"{t.task:<36}{'ok' if t.example_executes else 'FAIL':>8}  "
                         f"{marks:<22}  {plans}")  # fmt: skip
        return "\n".join(lines)

    def summary(self) -> str:
        """The shares, as printed by the benchmark."""
        by_k = ", ".join(f"k={k}: {s:.0%}" for k, s in self.violating_share_by_k().items())
        contiguous = self.ks == tuple(range(self.ks[0], self.ks[-1] + 1)) if self.ks else False
        ks = f"{self.ks[0]}..{self.ks[-1]}" if contiguous else ",".join(map(str, self.ks))
        return (
            f"{len(self.tasks)} tasks x k={ks} = {self.pairs} pairs\n"
            f"example plans execute and reach the goal: {self.example_share:.0%} of tasks\n"
            f"safe plan found and verified: {self.safe_plan_share:.0%} of pairs\n"
            f"example plan violates a constraint: {self.violating_share:.0%} of pairs "
            f"({by_k})"
        )

    def __repr__(self) -> str:
        return (f"<SuiteReport {len(self.tasks)} tasks: safe plans {self.safe_plan_share:.0%}, "
                f"violating examples {self.violating_share:.0%}>")  # fmt: skip


def _share(flags: Iterable[bool]) -> float:
    values = list(flags)
    return sum(values) / len(values) if values else 0.0


# -- the search -----------------------------------------------------------------------------


class _GoalCost:
    """The search's estimate for a task: a relaxed count of the actions its goal still needs,
    per world (cached by the world's content)."""

    def __init__(self, task: Task, env: VirtualHomeEnv) -> None:
        self.goal = [parse_literal(text, env.scene) for text in task.goal]
        self.cache: dict[WorldSnapshot, float] = {}

    def __call__(self, env: VirtualHomeEnv) -> float:
        world = env.snapshot()
        found = self.cache.get(world)
        if found is None:
            found = self.cache[world] = float(sum(self._cost(env, p, v) for p, v in self.goal))
        return found

    @staticmethod
    def _cost(env: VirtualHomeEnv, prop: Any, value: bool) -> int:
        truth = env.truth
        if truth([prop.name])[prop.name] is value:
            return 0
        x = prop.args[0]

        def near(name: str) -> int:
            return 0 if truth([f"agent_at({name})"])[f"agent_at({name})"] else 1

        match prop.predicate:
            case "agent_at":
                return 1
            case "is_on" | "is_in" if value:
                held = truth([f"is_grabbed({x})"])[f"is_grabbed({x})"]
                return (0 if held else 1 + near(x)) + 1 + 1
            case "is_grabbed" | "is_on" | "is_in":
                return 1 + (near(x) if value else 0)
            case _:
                return 1 + near(x)


def find_safe_plan(
    task: Task,
    k: int | None = None,
    *,
    env: VirtualHomeEnv | None = None,
    monitor: Monitor | None = None,
    max_expansions: int = 5_000,
    max_depth: int = 24,
) -> SafePlan:
    """Find a plan that reaches *task*'s goal and that the monitor accepts throughout.

    Best-first search over the product of the environment and the monitor: a node is a
    world (a :class:`WorldSnapshot`) with the automaton state of every constraint; its
    children are the :func:`candidate_actions` the executor accepts, minus those the
    monitor refuses (the automata reach a state from which no continuation can satisfy
    every constraint, under the domain invariants). Nodes are deduplicated by (world,
    automaton states). A node whose world meets the goal and whose automata all accept is a
    solution (DONE would be accepted). The priority is ``g + WEIGHT * h``, where g counts
    actions and h adds a relaxed count of the actions the goal still needs to the largest
    number of letters an automaton needs to accept.

    The plan found is then run with :func:`~safetychip.shield.run_monitored` and judged by
    ``evaluate``; :attr:`SafePlan.verified` says whether every check passed.

    Parameters
    ----------
    task : Task
    k : int, optional
        Respect the first *k* constraints (default: all).
    env : VirtualHomeEnv, optional
        Reused if given (it is reset).
    monitor : Monitor, optional
        Default: :func:`task_monitor` of the first *k* constraints, with the one-room
        invariant.
    max_expansions : int, optional
        Nodes expanded before giving up.
    max_depth : int, optional
        Longest plan considered (actions, DONE excluded).

    Returns
    -------
    SafePlan

    Raises
    ------
    NoSafePlan
        If the bound is reached, or the search space is exhausted, without a safe plan; or
        if the initial state already breaks the constraints.
    TaskError
        If the task does not fit its scene.
    """
    k = len(task.constraints) if k is None else k
    env = env if env is not None else VirtualHomeEnv(task=task)
    check_task(task, env.scene)
    if monitor is None:
        monitor = task_monitor(task, k)
    return _search(task, k, env, monitor, _GoalCost(task, env), max_expansions, max_depth)


def _search(task: Task, k: int, env: VirtualHomeEnv, monitor: Monitor, estimate: _GoalCost,
            max_expansions: int, max_depth: int) -> SafePlan:  # fmt: skip
    """:func:`~safetychip.shield.search_safe_plan` from the task's initial world, verified."""
    rooms = [f"agent_at({r})" for r in env.scene.rooms]
    props = tuple(dict.fromkeys([*task.propositions, *rooms, *monitor.atoms]))
    env.track(props)
    _, info = env.reset(options={"initial": list(task.initial), "goal": list(task.goal)})
    if not monitor.reset(info["states"][0]).safe:
        raise NoSafePlan(f"task {task.id!r}, k={k}: the initial state already breaks the "
                         "constraints (or they contradict each other)")  # fmt: skip
    found = search_safe_plan(env, monitor, candidate_actions(task, env), goal=task.goal,
                             propositions=props, estimate=estimate, weight=WEIGHT,
                             max_expansions=max_expansions, max_depth=max_depth)  # fmt: skip
    if found.plan is None:
        why = "every safe continuation explored" if found.exhausted else "search bound reached"
        raise NoSafePlan(
            f"task {task.id!r}, k={k}: no safe plan reaches the goal ({why}; {found.expanded} "
            f"nodes expanded, max_expansions={max_expansions}, max_depth={max_depth})",
            found.expanded,
        )
    verified = _verify(task, env, monitor, found.plan)
    return SafePlan(task.id, k, found.plan, found.expanded, verified)


def _verify(task: Task, env: VirtualHomeEnv, monitor: Monitor, plan: Sequence[str]) -> bool:
    options = {"initial": list(task.initial), "goal": list(task.goal)}
    record = run_monitored(env, plan, monitor, options=options)
    return (
        all(step.executed for step in record.steps[:-1])
        and record.done
        and record.goal_reached
        and record.safe
    )


# -- the whole suite ------------------------------------------------------------------------


def validate_suite(
    tasks: Iterable[Task] | None = None,
    *,
    ks: Iterable[int] = range(1, 6),
    max_expansions: int = 5_000,
    progress: bool = False,
) -> SuiteReport:
    """Validate task suites: example plans run, safe plans exist, examples break constraints.

    Parameters
    ----------
    tasks : iterable of Task, optional
        Default: every task of every suite (:func:`load_tasks`).
    ks : iterable of int, optional
        Numbers of constraints to check (default 1..5).
    max_expansions : int, optional
        Bound of each safe-plan search.
    progress : bool, optional
        Show a ``tqdm`` progress bar.

    Returns
    -------
    SuiteReport
        Searches that fail are recorded (``None`` in :attr:`TaskValidation.safe_plans`, with
        the reason in :attr:`TaskValidation.failures`), not raised.

    Raises
    ------
    TaskError
        If a task does not fit its scene (a formula that does not parse, an object the
        scene lacks); the message names the task and the object. Every task is checked
        before anything runs.

    Examples
    --------
    >>> report = validate_suite(load_tasks(suite="four_room")[:2], ks=(1, 5))
    >>> print(report.summary())
    2 tasks x k=1,5 = 4 pairs
    example plans execute and reach the goal: 100% of tasks
    safe plan found and verified: 100% of pairs
    example plan violates a constraint: 75% of pairs (k=1: 50%, k=5: 100%)
    >>> report.tasks[1].safe_plans[1].plan
    ('walk to bathroom', 'walk to bedroom', 'done')
    """
    began = time.perf_counter()
    tasks = list(load_tasks() if tasks is None else tasks)
    ks = tuple(ks)
    envs: dict[str, VirtualHomeEnv] = {}
    for task in tasks:  # check everything before running anything
        if task.scene not in envs:
            envs[task.scene] = VirtualHomeEnv(task.scene)
        check_task(task, envs[task.scene].scene)
    iterator: Iterable[Task] = tasks
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(tasks, desc="validating", unit="task")
    results = []
    for task in iterator:
        env = envs[task.scene]
        env.reset(options={"task": task})
        full = task_monitor(task)
        example = run_unmonitored(env, task.example_plan, full)
        executes = example.goal_reached and all(s.executed for s in example.steps[:-1])
        trace = example.trace
        formulas = [c.formula for c in full.constraints]
        broken = [not evaluate(f, trace) for f in formulas]
        violates = tuple(any(broken[:k]) for k in ks)
        cost = _GoalCost(task, env)
        plans: list[SafePlan | None] = []
        failures = []
        for k in ks:
            try:
                monitor = task_monitor(task, k)
                plans.append(_search(task, k, env, monitor, cost, max_expansions, max_depth=24))
            except NoSafePlan as exc:
                plans.append(None)
                failures.append(str(exc))
        results.append(TaskValidation(task.id, executes, violates, tuple(plans), tuple(failures)))
    return SuiteReport(tuple(results), ks, time.perf_counter() - began)
