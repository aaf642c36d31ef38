"""Environments behind one small protocol (:class:`Env`), and its checker.

Contents
--------
:class:`Env`, :class:`Lookahead`, :data:`PropositionState`
    The Gymnasium-shaped protocol with proposition states, ``lookahead``/``preview``,
    snapshots and domain invariants.
:func:`check_env`
    Drives an environment through a short episode and checks the protocol.
:class:`PropositionEnv`
    A proposition-level environment for tests and teaching (no simulator).
:class:`SpotEnv`, :func:`load_spot_scene`, :func:`load_spot_tasks`
    The Spot robot in a lab scene, on a simulated or a real backend
    (:mod:`safetychip.envs.spot`).
:mod:`safetychip.envs.virtualhome`
    VirtualHome on its real executor: scenes, actions, propositions and task suites,
    re-exported here.
:mod:`safetychip.envs.thor`
    An AI2-THOR-style household at the plan level: the embodied-safety benchmarks' actions on
    AI2-THOR's object states, FloorPlan-style rooms, plan and task files (imported from there).
"""

from safetychip.envs._base import Env, Lookahead, PropositionState
from safetychip.envs._checker import check_env
from safetychip.envs._mock import PropositionEnv
from safetychip.envs.spot import SpotEnv, load_spot_scene, load_spot_tasks
from safetychip.envs.virtualhome import (
    ALL_VERBS,
    PREDICATES,
    SUITES,
    VERBS,
    VIRTUALHOME_PREDICATES,
    Action,
    Scene,
    SceneProposition,
    Task,
    VirtualHomeEnv,
    WorldSnapshot,
    check_task,
    domain_invariants,
    goal_formula,
    load_scene,
    load_tasks,
    load_virtualhome_graph,
    parse_action,
    parse_literal,
    parse_proposition,
    plot_floor_plan,
    plot_timeline,
    prepare_program,
    read_program,
    run_program,
    task_monitor,
)

__all__ = [
    "ALL_VERBS",
    "PREDICATES",
    "SUITES",
    "VERBS",
    "VIRTUALHOME_PREDICATES",
    "Action",
    "Env",
    "Lookahead",
    "PropositionEnv",
    "PropositionState",
    "Scene",
    "SceneProposition",
    "SpotEnv",
    "Task",
    "VirtualHomeEnv",
    "WorldSnapshot",
    "check_env",
    "check_task",
    "domain_invariants",
    "goal_formula",
    "load_scene",
    "load_spot_scene",
    "load_spot_tasks",
    "load_tasks",
    "load_virtualhome_graph",
    "parse_action",
    "parse_literal",
    "parse_proposition",
    "plot_floor_plan",
    "plot_timeline",
    "prepare_program",
    "read_program",
    "run_program",
    "task_monitor",
]
