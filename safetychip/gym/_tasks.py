"""MiniGrid and BabyAI missions with constraints, as tasks of the suite format.

A task line whose ``env`` is ``"minigrid"`` names a Gymnasium environment id as its
``scene`` (``"MiniGrid-LavaCrossingS9N1-v0"``, ``"BabyAI-OpenRedDoor-v0"``), the mission as
its ``instruction``, and constraints over the propositions of :class:`MiniGridLabeller`
(``on_lava``, ``agent_at(room_1_0)``, ``is_open(yellow_door)`` …); ``initial``, ``goal`` and
the plans are as in every suite (a plan action is an action number of the environment's
``Discrete`` space, as text). Importing :mod:`safetychip.gym` registers ``"minigrid"`` in
:data:`safetychip.envs.ENVIRONMENTS`, so :func:`~safetychip.envs.load_tasks` reads such a file
and :func:`~safetychip.envs.check_task` checks each proposition against the labeller and
each scene against Gymnasium's registry. :data:`MINIGRID_TASKS` is our small suite
(``data/minigrid/README.md``).

A task's environment (:meth:`Task.make_env <safetychip.envs.Task.make_env>`) is a
:class:`GymEnv` labelled by :class:`MiniGridLabeller` and previewed by its one-step model, so
the one shield loop runs it like any other environment.

Examples
--------
>>> from safetychip.envs import load_tasks, task_monitor
>>> tasks = load_tasks(MINIGRID_TASKS)
>>> task = tasks[0]
>>> task.env, task.scene, task.instruction
('minigrid', 'MiniGrid-LavaCrossingS9N1-v0', 'avoid the lava and get to the green goal square')
>>> print(task.constraints[0].formula)
G!on_lava
>>> env = task.make_env()
>>> env.track(task_monitor(task).atoms).reset(seed=0)[1]["states"]
[{'on_lava': False}]
"""

from __future__ import annotations

import gymnasium

from ..envs import Task, TaskEnvironment, register_environment
from ..errors import TaskError, missing
from ..paths import DATA_DIR
from ._adapter import GymEnv
from ._minigrid import MiniGridLabeller

__all__ = ["MINIGRID_TASKS", "make_minigrid_env"]

#: Our MiniGrid and BabyAI tasks: missions with constraints, each with its English sentence.
MINIGRID_TASKS = DATA_DIR / "minigrid" / "tasks.jsonl"


def make_minigrid_env(task: Task) -> GymEnv:
    """The environment of a ``"minigrid"`` *task*: ``gymnasium.make(task.scene)`` labelled by
    :class:`MiniGridLabeller`, actions previewed by its one-step model.

    Raises
    ------
    TaskError
        If the scene is not the id of a registered Gymnasium environment (the message names
        the task, the id and Gymnasium's reason).

    Examples
    --------
    >>> from safetychip.envs import load_tasks
    >>> make_minigrid_env(load_tasks(MINIGRID_TASKS)[0])
    <GymEnv CrossingEnv labelled by <MiniGridLabeller>>
    """
    try:
        import minigrid  # noqa: F401 - registers the MiniGrid and BabyAI environments
    except ImportError as exc:
        raise missing("minigrid", "gym") from exc
    try:
        env = gymnasium.make(task.scene)
    except gymnasium.error.Error as exc:
        raise TaskError(f"task {task.id!r}: scene {task.scene!r} is not a registered "
                        f"Gymnasium environment ({exc}); give a MiniGrid or BabyAI id such as "
                        "'MiniGrid-LavaCrossingS9N1-v0'") from None  # fmt: skip
    labeller = MiniGridLabeller()
    return GymEnv(env, labeller, labeller.model)


# MiniGrid guarantees no domain invariant over its propositions: none, without making a world.
register_environment("minigrid", TaskEnvironment(make_env=make_minigrid_env,
                                                 invariants=lambda task, atoms: []))  # fmt: skip
