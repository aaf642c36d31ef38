"""Run a fixed plan through the shield: with the constraint monitor pruning unsafe actions,
or with no filter at all (every action the environment accepts runs), judged afterwards
by the independent evaluator.

Examples
--------
>>> from safetychip.envs import VirtualHomeEnv, load_tasks, task_monitor
>>> task = load_tasks(suite="four_room")[0]
>>> env = VirtualHomeEnv(task=task)
>>> run_unmonitored(env, task.example_plan, task_monitor(task)).violated
('c1',)
>>> watched = run_monitored(env, task.example_plan, task_monitor(task))
>>> [step.outcome for step in watched.steps], watched.violated
(['pruned', 'done'], ())
>>> print(watched.steps[0].state_changes[-1])
Violated: agent_at(kitchen) & !agent_at(living_room)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..envs import Env
from ..ltl import Formula
from ..monitor import Constraint, Monitor, as_constraints
from ._record import TraceRecord
from ._shield import Shield

__all__ = ["run_monitored", "run_plan", "run_unmonitored"]


def run_plan(shield: Shield, plan: Iterable[str], *, options: dict[str, Any] | None = None,
             constraints: Iterable[Constraint] | None = None) -> TraceRecord:  # fmt: skip
    """Reset *shield* and propose each action of *plan* in turn, up to the first accepted
    DONE; a refused action is skipped and the next one proposed.

    Parameters
    ----------
    shield : Shield
    plan : iterable of str
        Actions in the environment's words, usually ending with ``done``.
    options : dict, optional
        Passed to the environment's ``reset``.
    constraints : iterable of Constraint, optional
        What the record judges (default: the monitor's).
    """
    plan = tuple(plan)
    start = shield.reset(options=options)
    if start.admitted:
        for action in plan:
            step = shield.propose(action)
            if step.outcome == "done" or shield.finished:
                break
            if shield.env.is_done(action):  # DONE refused ends a fixed plan too
                break
    cs = tuple(constraints) if constraints is not None else None
    return shield.record(constraints=cs, plan=plan)


def run_monitored(env: Env, plan: Iterable[str], monitor: Monitor, *,
                  options: dict[str, Any] | None = None,
                  propositions: Iterable[str] = ()) -> TraceRecord:  # fmt: skip
    """Run *plan* in *env* with *monitor* as the shield's only filter.

    Each action is previewed and checked; an unsafe one is pruned (the world does not
    change), an admitted one is executed and committed; DONE is accepted only when every
    constraint holds. An ABORT at the start runs no action.

    Parameters
    ----------
    env : Env
    plan : iterable of str
    monitor : Monitor
        Reset by the run.
    options : dict, optional
        Passed to ``env.reset``.
    propositions : iterable of str, optional
        More propositions to record.

    Examples
    --------
    >>> from safetychip.envs import VirtualHomeEnv
    >>> env = VirtualHomeEnv("apartment_1")
    >>> r = run_monitored(env, ["walk to fridge", "open fridge", "done"],
    ...                   Monitor(["G !is_open(fridge)"]),
    ...                   options={"initial": ["agent_at(kitchen)"]})
    >>> [s.outcome for s in r.steps], r.steps[1].violated, r.finish.admitted
    (['executed', 'pruned', 'done'], ('c1',), True)
    """
    return run_plan(Shield.of(env, monitor, propositions=propositions), plan, options=options)


def run_unmonitored(env: Env, plan: Iterable[str],
                    constraints: Monitor | Iterable[Constraint | Formula | str], *,
                    options: dict[str, Any] | None = None,
                    propositions: Iterable[str] = ()) -> TraceRecord:  # fmt: skip
    """Run *plan* in *env* with no filter, then judge the executed trace.

    Parameters
    ----------
    env : Env
    plan : iterable of str
    constraints : Monitor or iterable of Constraint, Formula or str
        What to judge the trace against (a monitor's constraints are used, the monitor
        itself is not).
    options : dict, optional
    propositions : iterable of str, optional

    Examples
    --------
    >>> from safetychip.envs import VirtualHomeEnv
    >>> r = run_unmonitored(VirtualHomeEnv("apartment_1"), ["walk to fridge", "open fridge",
    ...                     "done"], ["G !is_open(fridge)"],
    ...                     options={"initial": ["agent_at(kitchen)"]})
    >>> r.violated, len(r.trace)
    (('c1',), 3)
    """
    if isinstance(constraints, Monitor):
        cs, atoms = constraints.constraints, constraints.atoms
    else:
        cs = as_constraints(constraints)
        atoms = tuple(sorted(set().union(*(c.formula.atoms() for c in cs)))) if cs else ()
    shield = Shield(env, (), propositions=(*atoms, *propositions))
    return run_plan(shield, plan, options=options, constraints=cs)
