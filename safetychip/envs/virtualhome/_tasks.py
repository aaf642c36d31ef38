"""VirtualHome's part of the tasks (:mod:`safetychip.envs._tasks`): a task is checked against
its scene with VirtualHome's own readers of propositions and actions, and runs in a
:class:`~safetychip.envs.VirtualHomeEnv`. Registered as ``"virtualhome"``, the default
``env`` of a task.

Examples
--------
>>> from safetychip.envs import load_tasks
>>> task = load_tasks(suite="four_room")[0]
>>> task.env, type(task.make_env()).__name__
('virtualhome', 'VirtualHomeEnv')
"""

from __future__ import annotations

from safetychip.envs._tasks import Task, TaskEnvironment, register_environment
from safetychip.envs.virtualhome._actions import parse_action
from safetychip.envs.virtualhome._env import VirtualHomeEnv
from safetychip.envs.virtualhome._invariants import domain_invariants
from safetychip.envs.virtualhome._propositions import parse_literal, parse_proposition
from safetychip.envs.virtualhome._scene import Scene, load_scene
from safetychip.errors import ActionError, DataFileError, PropositionError, TaskError
from safetychip.ltl import Formula

__all__: list[str] = []


def _check(task: Task, scene: Scene | None = None) -> None:
    """:func:`~safetychip.envs.check_task` for VirtualHome: atoms and literals are read as
    the seven grounded predicates over the scene's names, plan lines as actions wherever the
    agent is; *scene* is loaded by name unless given. Raises TaskError on the first
    problem."""
    if scene is None:
        try:
            scene = load_scene(task.scene)
        except DataFileError as exc:
            raise TaskError(f"task {task.id!r}: scene {task.scene!r}: {exc}") from None
    for k, constraint in enumerate(task.constraints, 1):
        where = f"task {task.id!r}, constraint {k} ({constraint.sentence!r})"
        for atom in sorted(constraint.formula.atoms()):
            try:
                parse_proposition(atom, scene)
            except PropositionError as exc:
                raise TaskError(f"{where}: {exc}") from None
    for field_name in ("initial", "goal"):
        for literal in getattr(task, field_name):
            try:
                parse_literal(literal, scene)
            except PropositionError as exc:
                raise TaskError(f"task {task.id!r}, {field_name} {literal!r}: {exc}") from None
    for field_name in ("example_plan", "reference_plan"):
        for k, action in enumerate(getattr(task, field_name), 1):
            try:
                parse_action(action, scene, near=_anywhere)
            except ActionError as exc:
                raise TaskError(
                    f"task {task.id!r}, {field_name} action {k} {action!r}: {exc}"
                ) from None


def _anywhere(node_id: int) -> float:
    return 0.0


def _invariants(task: Task, atoms: list[str]) -> list[Formula]:
    return domain_invariants(load_scene(task.scene), atoms)


register_environment(
    "virtualhome",
    TaskEnvironment(
        make_env=lambda task: VirtualHomeEnv(task=task),
        check=_check,
        invariants=_invariants,
        load_scene=load_scene,
    ),
)
