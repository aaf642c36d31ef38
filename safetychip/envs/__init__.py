"""Environments behind one small protocol (:class:`Env`), and its checker.

Contents
--------
:class:`Env`, :data:`PropositionState`
    The Gymnasium-shaped protocol with proposition states and ``preview``.
:func:`check_env`
    Drives an environment through a short episode and checks the protocol.
:func:`run_monitored`, :func:`run_unmonitored`, :class:`Rollout`
    Run a plan with the constraint monitor pruning unsafe actions, or without it; the
    records serialise to JSON.
:mod:`safetychip.envs.virtualhome`
    VirtualHome on its real executor: scenes, actions, propositions and task suites,
    re-exported here.
"""

from safetychip.envs._base import Env, Lookahead, PropositionState
from safetychip.envs._mock import PropositionEnv
from safetychip.envs._checker import check_env
from safetychip.envs._rollout import Rollout, RolloutStep, run_monitored, run_unmonitored
from safetychip.envs.virtualhome import (
    PATTERNS,
    PREDICATES,
    SUITES,
    VERBS,
    Action,
    Constraint,
    SafePlan,
    Scene,
    SceneProposition,
    SuiteReport,
    Task,
    VirtualHomeEnv,
    WorldSnapshot,
    check_task,
    domain_invariants,
    find_safe_plan,
    goal_formula,
    load_scene,
    load_tasks,
    load_virtualhome_graph,
    parse_action,
    parse_literal,
    parse_proposition,
    plot_floor_plan,
    plot_timeline,
    task_monitor,
    validate_suite,
)

__all__ = [
    "PATTERNS",
    "PREDICATES",
    "SUITES",
    "VERBS",
    "Action",
    "Constraint",
    "Env",
    "Lookahead",
    "PropositionEnv",
    "PropositionState",
    "Rollout",
    "RolloutStep",
    "SafePlan",
    "Scene",
    "SceneProposition",
    "SuiteReport",
    "Task",
    "VirtualHomeEnv",
    "WorldSnapshot",
    "check_env",
    "check_task",
    "domain_invariants",
    "find_safe_plan",
    "goal_formula",
    "load_scene",
    "load_tasks",
    "load_virtualhome_graph",
    "parse_action",
    "parse_literal",
    "parse_proposition",
    "plot_floor_plan",
    "plot_timeline",
    "run_monitored",
    "run_unmonitored",
    "task_monitor",
    "validate_suite",
]
