"""The Boston Dynamics Spot robot behind safetychip's environment protocol.

Contents
--------
:class:`SpotEnv`, :class:`SpotAction`, :class:`SpotTarget`
    The robot in a lab scene: actions, preconditions, proposition states, a backend.
:class:`SpotScene`, :func:`load_spot_scene`, :data:`SPOT_DIR`
    Waypoints named after landmarks, walkable edges, objects (``data/spot/lab.json``).
:class:`SpotBackend`, :class:`SimulatedBackend`
    The robot that carries out admitted commands: the interface, and a recording simulator.
:func:`load_spot_tasks`, :data:`SPOT_TASKS`, :data:`SPOT_SUITES`
    The robot demo: two deliveries with ten constraints, three task-abortion cases.
:class:`BosdynBackend`
    The real robot through the Boston Dynamics SDK (the ``spot-robot`` extra, imported on use).
"""

from safetychip._public import publish
from safetychip.envs.spot._backend import SimulatedBackend, SpotBackend
from safetychip.envs.spot._bosdyn import BosdynBackend
from safetychip.envs.spot._env import SpotAction, SpotEnv, SpotTarget
from safetychip.envs.spot._scene import SPOT_DIR, SpotScene, load_spot_scene
from safetychip.envs.spot._tasks import SPOT_SUITES, SPOT_TASKS, load_spot_tasks

__all__ = [
    "SPOT_DIR",
    "SPOT_SUITES",
    "SPOT_TASKS",
    "BosdynBackend",
    "SimulatedBackend",
    "SpotAction",
    "SpotBackend",
    "SpotEnv",
    "SpotScene",
    "SpotTarget",
    "load_spot_scene",
    "load_spot_tasks",
]

publish(__name__, globals(), __all__)
