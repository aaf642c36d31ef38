"""The actions a planner tries on a VirtualHome task: the task's vocabulary applied to every
verb its objects allow."""

from __future__ import annotations

from typing import Any

from safetychip.envs._tasks import Task
from safetychip.envs.virtualhome._actions import Action, Target, parse_action
from safetychip.envs.virtualhome._propositions import parse_literal

__all__ = ["candidate_actions"]


def candidate_actions(task: Task, env: Any) -> list[str]:
    """The actions the safe-plan search tries: the task's vocabulary applied to every verb.

    The objects are those the goal, the initial conditions, the constraints and the
    example plan name. Each gets the verbs its properties allow (walk to; grab if
    GRABBABLE; open and close if CAN_OPEN; switch on and off if HAS_SWITCH; touch if a
    constraint mentions touching it); every room can be walked to; every grabbable object
    can be put on each SURFACES object and in each CONTAINERS object of the vocabulary.
    Whether an action is possible in a given world is the executor's business.

    Examples
    --------
    >>> from safetychip.envs import VirtualHomeEnv, load_tasks
    >>> task = load_tasks(suite="mobile_manipulation")[0]
    >>> actions = candidate_actions(task, VirtualHomeEnv(task=task))
    >>> len(actions), actions[:3]
    (26, ['walk to hallway', 'walk to living room', 'walk to kitchen'])
    """
    scene = env.scene
    names: dict[str, None] = {}
    literals = [*task.initial, *task.goal]
    atoms = [a for c in task.constraints for a in sorted(c.formula.atoms())]
    touched = set()
    for text in (*literals, *atoms):
        prop, _ = parse_literal(text, scene)
        # a class name (is_open(window)) stands for each of its instances
        instances = [[scene.name_of(i) for i in ids] for ids in prop.ids]
        names.update(dict.fromkeys(n for arg in instances for n in arg))
        if prop.predicate == "is_touched":
            touched.update(instances[0])
    for text in task.example_plan:
        parsed = parse_action(text, scene, near=lambda i: 0.0)
        names.update(dict.fromkeys(t.name for t in parsed.targets))
    objects = [n for n in names if n not in scene.rooms]

    def props(name: str) -> set[str]:
        return set(scene.node(scene.id(name))["properties"])

    def act(verb: str, *targets: str) -> str:
        return str(Action(verb, tuple(Target.of(scene, scene.id(t)) for t in targets)))

    actions = [act("walk", room) for room in scene.rooms]
    for name in objects:
        p = props(name)
        actions.append(act("walk", name))
        if "GRABBABLE" in p:
            actions.append(act("grab", name))
        if "CAN_OPEN" in p:
            actions += [act("open", name), act("close", name)]
        if "HAS_SWITCH" in p:
            actions += [act("switchon", name), act("switchoff", name)]
        if name in touched:
            actions.append(act("touch", name))
    for x in objects:
        if "GRABBABLE" not in props(x):
            continue
        for y in objects:
            if y != x and "SURFACES" in props(y):
                actions.append(act("put", x, y))
            if y != x and "CONTAINERS" in props(y):
                actions.append(act("putin", x, y))
    return list(dict.fromkeys(actions))
