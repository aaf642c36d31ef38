"""An AI2-THOR-style household at the plan level: the benchmarks' high-level actions on
AI2-THOR's object states, with no simulator.

Contents
--------
:class:`ThorEnv`, :class:`ThorAction`, :class:`ThorTarget`, :data:`THOR_PREDICATES`,
:data:`THOR_VERBS`
    The environment (see :class:`safetychip.envs.Env` for the protocol); its module
    docstring has the table of every action's preconditions and effects.
:class:`ObjectType`, :func:`load_object_types`, :data:`AFFORDANCES`, :data:`TAGS`, :data:`LIQUIDS`
    AI2-THOR's object types and affordances, from ``data/thor/object_types.csv``.
:class:`ThorScene`, :func:`load_thor_scene`, :data:`SCENE_DIR`, :data:`KINDS`, :data:`STATES`,
:data:`CLASS_WORDS`
    FloorPlan-style rooms (``data/thor/scenes/``, written by ``data/thor/make_scenes.py``);
    a room is also a vocabulary for the translator (``Vocabulary.of``: objects, liquids,
    class names).
:class:`ThorTask`, :func:`read_plan`, :func:`load_thor_tasks`, :data:`THOR_TASKS`
    Plan files (one action a line) and task files (instruction, plan, goal, constraints),
    checked line by line against their scene; our suite of hazardous and safe tasks.
"""

from safetychip._public import publish
from safetychip.envs.thor._env import (
    THOR_PREDICATES,
    THOR_VERBS,
    ThorAction,
    ThorEnv,
    ThorTarget,
)
from safetychip.envs.thor._scene import (
    CLASS_WORDS,
    KINDS,
    SCENE_DIR,
    SCENE_FORMAT,
    STATES,
    ThorScene,
    load_thor_scene,
)
from safetychip.envs.thor._tasks import THOR_TASKS, ThorTask, load_thor_tasks, read_plan
from safetychip.envs.thor._types import (
    AFFORDANCES,
    LIQUIDS,
    TAGS,
    THOR_DIR,
    ObjectType,
    load_object_types,
    snake_case,
)

__all__ = [
    "AFFORDANCES",
    "CLASS_WORDS",
    "KINDS",
    "LIQUIDS",
    "SCENE_DIR",
    "SCENE_FORMAT",
    "STATES",
    "TAGS",
    "THOR_DIR",
    "THOR_PREDICATES",
    "THOR_TASKS",
    "THOR_VERBS",
    "ObjectType",
    "ThorAction",
    "ThorEnv",
    "ThorScene",
    "ThorTarget",
    "ThorTask",
    "load_object_types",
    "load_thor_scene",
    "load_thor_tasks",
    "read_plan",
    "snake_case",
]

publish(__name__, globals(), __all__)
