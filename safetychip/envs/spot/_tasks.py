"""The Spot robot demo's tasks: two deliveries with ten constraints each, and three
task-abortion cases whose constraints contradict each other (``data/spot/tasks.jsonl``).

The file has the line format of the VirtualHome suites (see :mod:`safetychip.envs._tasks`)
with ``"env": "spot"``, so :func:`~safetychip.envs.load_tasks` reads it into the same
:class:`~safetychip.envs.Task` objects, whose ``make_env()`` is a
:class:`~safetychip.envs.spot.SpotEnv`: this module registers the robot as ``"spot"``.

Examples
--------
>>> tasks = load_spot_tasks(suite="spot_delivery")
>>> [(t.id, len(t.constraints)) for t in tasks]
[('spot_delivery/lab/01', 10), ('spot_delivery/lab/02', 10)]
>>> tasks[0].make_env()
<SpotEnv scene='lab' backend='simulated'>
"""

from __future__ import annotations

from safetychip.envs._tasks import Task, TaskEnvironment, load_tasks, register_environment
from safetychip.envs.spot._env import SpotEnv
from safetychip.envs.spot._scene import SPOT_DIR

__all__ = ["SPOT_SUITES", "SPOT_TASKS", "load_spot_tasks"]

#: The Spot demo's task file.
SPOT_TASKS = SPOT_DIR / "tasks.jsonl"

#: Its suites: the deliveries and the task-abortion cases.
SPOT_SUITES = ("spot_delivery", "spot_contradictions")


def load_spot_tasks(*, suite: str | None = None, check: bool = True) -> list[Task]:
    """The tasks of :data:`SPOT_TASKS` (of one suite of :data:`SPOT_SUITES` if given),
    checked against the lab scene unless *check* is false.

    Raises
    ------
    ValueError
        If *suite* is not one of :data:`SPOT_SUITES`.
    DataFileError
        If the file or a task in it is malformed (naming the line, task and name).
    """
    if suite is not None and suite not in SPOT_SUITES:
        raise ValueError(f"unknown Spot suite {suite!r}; choose one of {', '.join(SPOT_SUITES)}")
    return load_tasks(SPOT_TASKS, suite=suite, check=check)


register_environment("spot", TaskEnvironment(make_env=lambda task: SpotEnv(task.scene, task=task)))
