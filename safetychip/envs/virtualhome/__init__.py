"""VirtualHome: our own apartments, task suites, and the real evolving-graph executor.

The executor comes from the ``virtualhome`` wheel (``pip install --no-deps
virtualhome==2.3.0``); everything else — scenes, tasks, the action language and the truth
of the seven grounded predicates — is safetychip's.

Contents
--------
:class:`VirtualHomeEnv`
    The environment (see :class:`safetychip.envs.Env` for the protocol).
:class:`Scene`, :func:`load_scene`, :func:`load_virtualhome_graph`
    Scene graphs with unique object names and room adjacency.
:class:`Action`, :func:`parse_action`, :data:`VERBS`, :data:`ALL_VERBS`
    Templated English and VirtualHome script lines, both ways: the paper's verbs, and every
    other action the executor implements (:data:`REFUSED_SCRIPT_ACTIONS` it does not).
:class:`SceneProposition`, :func:`parse_proposition`, :func:`parse_literal`
    Grounded predicates (:data:`PREDICATES`, and :data:`VIRTUALHOME_PREDICATES` for sitting,
    lying, facing, either hand, worn, dirty/clean, plugged in, poured) bound to a scene.
:class:`Program`, :func:`read_program`, :func:`prepare_program`, :func:`run_program`
    VirtualHome's own programs on graphs in the official format, prepared as the dataset
    does and run line by line (:class:`ProgramRun`), monitored or not;
    :data:`PROGRAM_DIR` and :data:`OFFICIAL_GRAPH` hold ours.
:class:`Task`, :func:`load_tasks`, :data:`SUITES`
    The Four Room and Mobile Manipulation suites; :func:`check_task` checks a task against
    its scene, :func:`task_monitor` builds the monitor of its first k constraints (from
    :mod:`safetychip.envs._tasks`, shared by every environment; VirtualHome registers
    itself there as ``"virtualhome"``).
:func:`candidate_actions`
    The actions a planner tries on a task.
:func:`plot_floor_plan`, :func:`plot_timeline`
    Pictures of a scene with the agent's path, and of a rollout over time.
"""

from safetychip._public import publish
from safetychip.envs._tasks import (  # the tasks of every environment, kept here too
    SUITES,
    TASK_DIR,
    Task,
    check_task,
    goal_formula,
    load_tasks,
    task_monitor,
)
from safetychip.envs.virtualhome import _tasks as _tasks  # registers "virtualhome" for tasks
from safetychip.envs.virtualhome._actions import (
    ALL_VERBS,
    REFUSED_SCRIPT_ACTIONS,
    VERBS,
    Action,
    Target,
    parse_action,
)
from safetychip.envs.virtualhome._candidates import candidate_actions
from safetychip.envs.virtualhome._env import VirtualHomeEnv, WorldSnapshot
from safetychip.envs.virtualhome._invariants import domain_invariants
from safetychip.envs.virtualhome._plot import (
    floor_plan_layout,
    plot_floor_plan,
    plot_timeline,
    rooms_visited,
)
from safetychip.envs.virtualhome._program import (
    OFFICIAL_GRAPH,
    PROGRAM_DIR,
    PreparedProgram,
    Program,
    prepare_program,
    read_program,
)
from safetychip.envs.virtualhome._program_run import ProgramRun, ProgramStep, run_program
from safetychip.envs.virtualhome._propositions import (
    PREDICATES,
    VIRTUALHOME_PREDICATES,
    SceneProposition,
    parse_literal,
    parse_proposition,
)
from safetychip.envs.virtualhome._scene import (
    SCENE_DIR,
    Scene,
    load_scene,
    load_virtualhome_graph,
    normalize_name,
)
from safetychip.envs.virtualhome._simulator import INSTALL

__all__ = [
    "ALL_VERBS",
    "INSTALL",
    "OFFICIAL_GRAPH",
    "PREDICATES",
    "PROGRAM_DIR",
    "REFUSED_SCRIPT_ACTIONS",
    "SCENE_DIR",
    "SUITES",
    "TASK_DIR",
    "VERBS",
    "VIRTUALHOME_PREDICATES",
    "Action",
    "PreparedProgram",
    "Program",
    "ProgramRun",
    "ProgramStep",
    "Scene",
    "SceneProposition",
    "Target",
    "Task",
    "VirtualHomeEnv",
    "WorldSnapshot",
    "candidate_actions",
    "check_task",
    "domain_invariants",
    "floor_plan_layout",
    "goal_formula",
    "load_scene",
    "load_tasks",
    "load_virtualhome_graph",
    "normalize_name",
    "parse_action",
    "parse_literal",
    "parse_proposition",
    "plot_floor_plan",
    "plot_timeline",
    "prepare_program",
    "read_program",
    "rooms_visited",
    "run_program",
    "task_monitor",
]

publish(__name__, globals(), __all__)
