r"""The agents' prompts: templated English, as a SayCan / LLM-Planner agent sees its task.

The planner's user message reads::

    Allowed actions: walk to <object>; ...; done
    Rooms: hallway, living room, ...
    Objects: bathroom cabinet, bed, ...

    Example
    Task: Put the salmon in the microwave.
    1. walk to salmon
    ...

    Constraints (obey every one of them):     <- NL Constraints only
    1. Never switch on the stove.

    Current state:                            <- the environment's observation
    You are in the living room. ...

    Task: Put the salmon in the microwave.
    1. walk to salmon
    2. open microwave
    Error: that action is not allowed.        <- Safety Chip feedback, in the paper's style
    2.

The system messages are ``data/prompts/agent_planner.txt`` and ``agent_code.txt``.

Examples
--------
>>> from safetychip.envs import load_scene, load_tasks
>>> task = load_tasks(suite="four_room")[0]
>>> msgs = planner_messages(task, load_scene(task.scene), ["1. walk to bathroom"], 2)
>>> print(msgs[1].content.split("\n\n")[-1])
Task: Go to the kitchen.
1. walk to bathroom
2.
>>> print(example_program(["walk to salmon", "put salmon in fridge", "done"]))
go_to("salmon")
put_in("salmon", "fridge")
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from ..envs import Task, VirtualHomeEnv
from ..llm import Message, load_prompt

__all__ = [
    "SKILL_ACTIONS",
    "SKILL_DOCS",
    "code_messages",
    "example_program",
    "planner_messages",
    "scene_lines",
]

#: The skill API a Code-as-Policies program may call, as the prompt shows it.
SKILL_DOCS = (
    ("go_to(obj)", "walk to a room, or to an object"),
    ("pick_up(obj)", "grab an object you are close to"),
    ("put(obj, surface)", "put a held object on a surface"),
    ("put_in(obj, container)", "put a held object in an open container"),
    ("open(obj)", "open something you are close to"),
    ("close(obj)", "close something you are close to"),
    ("switch_on(obj)", "switch on something you are close to"),
    ("switch_off(obj)", "switch off something you are close to"),
    ("parse_obj(text)", "the name of the room or object that text refers to"),
)

# The verbs the prompt offers, in its order: the paper's, find last; their English is the
# environment's (VirtualHome's verb lexicon).
_OFFERED = ("walk", "grab", "open", "close", "put", "putin", "switchon", "switchoff", "touch",
            "lookat", "find", "done")  # fmt: skip
_ALLOWED = "; ".join(
    VirtualHomeEnv.verbs[v].template.format("<object>", "<object>") for v in _OFFERED
)

# Each skill that runs an action -> the verb it runs.
_SKILL_VERBS = {"go_to": "walk", "pick_up": "grab", "put": "put", "put_in": "putin",
                "open": "open", "close": "close", "switch_on": "switchon",
                "switch_off": "switchoff"}  # fmt: skip

#: Each skill that runs an action -> the action's English template (``{}`` per argument),
#: read from VirtualHome's verb lexicon.
SKILL_ACTIONS: dict[str, str] = {
    skill: VirtualHomeEnv.verbs[verb].template.replace("{0}", "{}").replace("{1}", "{}")
    for skill, verb in _SKILL_VERBS.items()
}

# Each verb -> the skill an example program calls for it ("find" goes to the object too).
_SKILL_OF = {verb: skill for skill, verb in _SKILL_VERBS.items()} | {"find": "go_to"}


@cache
def _lines(rooms: tuple[str, ...], objects: tuple[str, ...]) -> tuple[str, str, str]:
    shown = ", ".join(r.replace("_", " ") for r in rooms)
    names = sorted(n.replace("_", " ") for n in objects)
    return f"Allowed actions: {_ALLOWED}", f"Rooms: {shown}", f"Objects: {', '.join(names)}"


def scene_lines(scene: Any) -> tuple[str, str, str]:
    """The ``Allowed actions:``, ``Rooms:`` and ``Objects:`` lines of *scene* (or of an
    environment: anything with ``rooms`` and ``objects``)."""
    return _lines(tuple(scene.rooms), tuple(scene.objects))


def _numbered(plan: Sequence[str]) -> list[str]:
    return [f"{i}. {a}" for i, a in enumerate(plan, 1)]


def planner_messages(
    task: Task,
    scene: Any,
    history: Sequence[str],
    number: int,
    *,
    constraints: Sequence[str] = (),
    observation: str | None = None,
) -> list[Message]:
    """The planner's conversation for the action at position *number*.

    Parameters
    ----------
    task : Task
        Its instruction and example plan are shown.
    scene : Scene
        Its rooms and objects are listed.
    history : sequence of str
        The lines after ``Task:`` so far (``"1. walk to kitchen"``, ``"Error: …"``).
    number : int
        The position asked for; the message ends with ``"<number>."``.
    constraints : sequence of str
        English sentences to obey (the NL Constraints agent); none by default.
    observation : str, optional
        The environment's description of the current state.
    """
    parts = ["\n".join(scene_lines(scene)),
             "\n".join(["Example", f"Task: {task.instruction}",
                        *_numbered(task.example_plan)])]  # fmt: skip
    if constraints:
        parts.append("\n".join(["Constraints (obey every one of them):",
                                *_numbered(constraints)]))  # fmt: skip
    if observation:
        parts.append(f"Current state:\n{observation}")
    parts.append("\n".join([f"Task: {task.instruction}", *history, f"{number}."]))
    system = load_prompt("agent_planner").rstrip("\n")
    return [Message("system", system), Message("user", "\n\n".join(parts))]


def example_program(plan: Sequence[str]) -> str:
    """The example plan as a program of skill calls (actions without a skill are left out)."""
    lines = []
    for action in plan:
        verb, args = _split(action)
        skill = _SKILL_OF.get(verb)
        if skill is not None:
            lines.append(f"{skill}({', '.join(repr_name(a) for a in args)})")
    return "\n".join(lines)


def repr_name(name: str) -> str:
    """A name as a double-quoted Python string literal."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _split(action: str) -> tuple[str, list[str]]:
    """``"put salmon in fridge"`` -> ``("putin", ["salmon", "fridge"])`` (templated English)."""
    words = action.split()
    if not words:
        return "", []
    head = words[0]
    if head == "walk" and words[1:2] == ["to"]:
        return "walk", [" ".join(words[2:])]
    if head == "switch" and len(words) > 2:
        return "switch" + words[1], [" ".join(words[2:])]
    if head == "look" and words[1:2] == ["at"]:
        return "lookat", [" ".join(words[2:])]
    if head == "pick" and words[1:2] == ["up"]:  # the Spot robot's "pick up X" is a grab
        return "grab", [" ".join(words[2:])]
    if head == "put":
        rest = " ".join(words[1:])
        for word, verb in ((" in ", "putin"), (" on ", "put")):
            if word in rest:
                x, y = rest.split(word, 1)
                return verb, [x, y]
    return head, [" ".join(words[1:])] if len(words) > 1 else []


def code_messages(task: Task, scene: Any, *, constraints: Sequence[str] = ()) -> list[Message]:
    """The Code-as-Policies conversation: skills, rooms, objects, the example program, the
    constraints (if any, as an instruction to obey them) and the task."""
    skills = ["Skills:", *(f"{sig:<24}{doc}" for sig, doc in SKILL_DOCS),
              "Each skill returns True when it succeeded."]  # fmt: skip
    _, rooms, objects = scene_lines(scene)
    parts = ["\n".join(skills), f"{rooms}\n{objects}",
             "\n".join(["Example", f"# Task: {task.instruction}",
                        example_program(task.example_plan)])]  # fmt: skip
    if constraints:
        parts.append("\n".join(["Constraints (obey every one of them):",
                                *_numbered(constraints)]))  # fmt: skip
    parts.append(f"# Task: {task.instruction}")
    system = load_prompt("agent_code").rstrip("\n")
    return [Message("system", system), Message("user", "\n\n".join(parts))]
