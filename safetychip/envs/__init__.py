"""Environments behind one small protocol (:class:`Env`), and its checker.

Contents
--------
:class:`Env`, :class:`Lookahead`, :data:`PropositionState`
    The Gymnasium-shaped protocol with proposition states, ``lookahead``/``preview``,
    snapshots and domain invariants.
:class:`VerbLexicon`, :class:`Verb`
    Each environment's one verb lexicon (``SpotEnv.verbs``, ``VirtualHomeEnv.verbs``,
    ``ThorEnv.verbs``): its verbs, their English templates and the phrasings it reads.
:func:`check_env`
    Drives an environment through a short episode and checks the protocol.
:class:`PropositionEnv`
    A proposition-level environment for tests and teaching (no simulator).
:class:`Task`, :func:`load_tasks`, :func:`check_task`, :func:`task_monitor`, :data:`ENVIRONMENTS`
    Tasks in any environment; each environment registers how it hosts them
    (:func:`register_environment`, :class:`TaskEnvironment`).
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

from safetychip._public import publish
from safetychip.envs import thor as thor  # registers "thor" for tasks
from safetychip.envs._base import Env, Lookahead, PropositionState
from safetychip.envs._checker import check_env
from safetychip.envs._lexicon import Verb, VerbLexicon
from safetychip.envs._mock import PropositionEnv
from safetychip.envs._tasks import (
    ENVIRONMENTS,
    SUITES,
    Task,
    TaskEnvironment,
    check_task,
    goal_formula,
    load_tasks,
    register_environment,
    task_invariants,
    task_monitor,
)
from safetychip.envs.spot import SpotEnv, load_spot_scene, load_spot_tasks
from safetychip.envs.virtualhome import (
    ALL_VERBS,
    PREDICATES,
    VERBS,
    VIRTUALHOME_PREDICATES,
    Action,
    Scene,
    SceneProposition,
    VirtualHomeEnv,
    WorldSnapshot,
    domain_invariants,
    load_scene,
    load_virtualhome_graph,
    parse_action,
    parse_literal,
    parse_proposition,
    plot_floor_plan,
    plot_timeline,
    prepare_program,
    read_program,
    run_program,
)

__all__ = [
    "ALL_VERBS",
    "ENVIRONMENTS",
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
    "TaskEnvironment",
    "Verb",
    "VerbLexicon",
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
    "register_environment",
    "run_program",
    "task_invariants",
    "task_monitor",
]

publish(__name__, globals(), __all__)
