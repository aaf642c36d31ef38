"""Actions in the paper's language, and their VirtualHome script lines.

The paper's twelve verbs (:data:`VERBS`): walk, find, grab, open, close, put (on), put in,
switch on, switch off, touch, look at, and DONE. Beyond them, every other script action that
VirtualHome's evolving-graph executor implements (:data:`ALL_VERBS`: sit, lie, stand up,
pour, drink, wash, plug in, …). Each has one templated English form (``put salmon in
fridge``) and one script line (``[PUTIN] <salmon> (48) <fridge> (47)``); :func:`parse_action`
reads either, plus a few common variants of the English (``go to``, ``pick up``, ``turn
on``, ``into``). Objects in English are unique names with spaces for underscores (``book
shelf``), a class name or a synonym (``tv``); when a class has several instances, the
environment picks the one nearest the agent. DONE has the script line ``[DONE]``, which is
safetychip's marker and is never sent to the simulator. Script actions the executor does not
implement (``[LOOKAT_SHORT]``, ``[LOOKAT_LONG]``) are refused by name.

Examples
--------
>>> from safetychip.envs.virtualhome import load_scene
>>> scene = load_scene("apartment_1")
>>> action = parse_action("Put the salmon into the fridge.", scene)
>>> str(action), action.script
('put salmon in fridge', '[PUTIN] <salmon> (48) <fridge> (47)')
>>> str(parse_action("[PUTBACK] <book> (28) <book_shelf> (32)", scene))
'put book on book shelf'
>>> str(parse_action("[Sit] <sofa> (22)", scene)), parse_action("stand up", scene).script
('sit on sofa', '[STANDUP]')
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from safetychip.envs._lexicon import Verb, VerbLexicon
from safetychip.envs.virtualhome._scene import Scene
from safetychip.errors import ActionError

__all__ = [
    "ALL_VERBS",
    "LEXICON",
    "REFUSED_SCRIPT_ACTIONS",
    "VERBS",
    "Action",
    "Target",
    "parse_action",
]


#: VirtualHome's verb lexicon: each verb's English template, the English it reads (one group
#: per object) and its script action name; the paper's verbs first.
LEXICON = VerbLexicon({
    # the paper's verbs
    "walk": Verb("walk to {0}", (r"(?:walk|go)(?: to)? (.+)", r"move to (.+)"), "WALK"),
    "find": Verb("find {0}", (r"find (.+)",), "FIND"),
    "grab": Verb("grab {0}", (r"(?:grab|pick up|take) (.+)",), "GRAB"),
    "open": Verb("open {0}", (r"open (.+)",), "OPEN"),
    "close": Verb("close {0}", (r"close (.+)",), "CLOSE"),
    "put": Verb("put {0} on {1}", (r"(?:put|place) (.+?) (?:on top of|onto|on) (.+)",), "PUTBACK"),
    "putin": Verb("put {0} in {1}", (r"(?:put|place) (.+?) (?:into|inside|in) (.+)",), "PUTIN"),
    "switchon": Verb("switch on {0}", (r"(?:switch|turn) on (.+)",), "SWITCHON"),
    "switchoff": Verb("switch off {0}", (r"(?:switch|turn) off (.+)",), "SWITCHOFF"),
    "touch": Verb("touch {0}", (r"touch (.+)",), "TOUCH"),
    "lookat": Verb("look at {0}", (r"look at (.+)",), "LOOKAT"),
    "done": Verb("done", (r"done|finish(?:ed)?|stop",), "DONE"),
    # the executor's other actions
    "run": Verb("run to {0}", (r"run(?: to)? (.+)",), "RUN"),
    "sit": Verb("sit on {0}", (r"sit(?: down)? (?:on|in|at) (.+)",), "SIT"),
    "lie": Verb("lie on {0}", (r"lie(?: down)? (?:on|in) (.+)",), "LIE"),
    "standup": Verb("stand up", (r"stand up|get up",), "STANDUP"),
    "turnto": Verb("turn to {0}", (r"turn to(?:wards)? (.+)", r"face (.+)"), "TURNTO"),
    "pointat": Verb("point at {0}", (r"point (?:at|to) (.+)",), "POINTAT"),
    "watch": Verb("watch {0}", (r"watch (.+)",), "WATCH"),
    "read": Verb("read {0}", (r"read (.+)",), "READ"),
    "drink": Verb("drink {0}", (r"drink(?: from)? (.+)",), "DRINK"),
    "eat": Verb("eat {0}", (r"eat (.+)",), "EAT"),
    "cut": Verb("cut {0}", (r"cut (.+)",), "CUT"),
    "pour": Verb("pour {0} into {1}", (r"pour (.+?) (?:into|in|onto|on) (.+)",), "POUR"),
    "drop": Verb("drop {0}", (r"drop (.+)",), "DROP"),
    "release": Verb("release {0}", (r"release (.+)", r"let go of (.+)"), "RELEASE"),
    "putback": Verb("put back {0}", (r"put back (.+)", r"put (.+) back"), "PUTOBJBACK"),
    "puton": Verb("put on {0}", (r"put on (.+)", r"wear (.+)"), "PUTON"),
    "putoff": Verb("take off {0}", (r"take off (.+)", r"put off (.+)"), "PUTOFF"),
    "wipe": Verb("wipe {0}", (r"wipe (.+)",), "WIPE"),
    "wash": Verb("wash {0}", (r"wash (.+)",), "WASH"),
    "rinse": Verb("rinse {0}", (r"rinse (.+)",), "RINSE"),
    "scrub": Verb("scrub {0}", (r"scrub (.+)",), "SCRUB"),
    "squeeze": Verb("squeeze {0}", (r"squeeze (.+)",), "SQUEEZE"),
    "type": Verb("type on {0}", (r"type (?:on|at|in) (.+)",), "TYPE"),
    "push": Verb("push {0}", (r"push (.+)",), "PUSH"),
    "pull": Verb("pull {0}", (r"pull (.+)",), "PULL"),
    "move": Verb("move {0}", (r"move (.+)",), "MOVE"),
    "plugin": Verb("plug in {0}", (r"plug in (.+)", r"plug (.+) in"), "PLUGIN"),
    "plugout": Verb("unplug {0}", (r"unplug (.+)", r"plug out (.+)"), "PLUGOUT"),
    "greet": Verb("greet {0}", (r"greet (.+)",), "GREET"),
    "sleep": Verb("sleep", (r"sleep|go to sleep|fall asleep",), "SLEEP"),
    "wakeup": Verb("wake up", (r"wake up",), "WAKEUP"),
})  # fmt: skip
_PAPER = ("walk", "find", "grab", "open", "close", "put", "putin", "switchon", "switchoff",
          "touch", "lookat", "done")  # fmt: skip

#: The paper's verbs -> their English templates, in the paper's order (what agents are offered).
VERBS: dict[str, str] = {verb: LEXICON[verb].template for verb in _PAPER}

#: Every verb the environment accepts -> its English template: the paper's, then every other
#: script action VirtualHome's evolving-graph executor implements.
ALL_VERBS: dict[str, str] = LEXICON.templates

#: Script actions VirtualHome's ``Action`` enum names but its executor does not implement.
REFUSED_SCRIPT_ACTIONS: tuple[str, ...] = ("LOOKAT_SHORT", "LOOKAT_LONG")

# LOOKAT_MEDIUM is the executor's alias of LOOKAT.
_BY_SCRIPT = {spec.script: verb for verb, spec in LEXICON.items()} | {"LOOKAT_MEDIUM": "lookat"}
_SCRIPT_LINE = re.compile(r"^\[(\w+)\]((?:\s*<[^<>]+>\s*\(\s*\d+\s*\))*)\s*$")
_SCRIPT_ARG = re.compile(r"<([^<>]+)>\s*\(\s*(\d+)\s*\)")
_ENUMERATION = re.compile(r"^\s*(?:\d+[.):]\s*|[-*]\s+)")


class Target(NamedTuple):
    """An object an action applies to: its unique name, class name and node id."""

    name: str
    class_name: str
    id: int

    @classmethod
    def of(cls, scene: Scene, node_id: int) -> Target:
        """Return the target for node *node_id* of *scene*."""
        return cls(scene.name_of(node_id), scene.node(node_id)["class_name"], node_id)


@dataclass(frozen=True)
class Action:
    """One action: a verb of :data:`ALL_VERBS` and its targets.

    ``str(action)`` is the templated English; :attr:`script` is the VirtualHome line.
    """

    verb: str
    targets: tuple[Target, ...] = ()

    def __str__(self) -> str:
        names = (t.name.replace("_", " ") for t in self.targets)
        return ALL_VERBS[self.verb].format(*names)

    @property
    def script(self) -> str:
        """The VirtualHome script line, e.g. ``[GRAB] <salmon> (48)``."""
        args = "".join(f" <{t.class_name}> ({t.id})" for t in self.targets)
        return f"[{LEXICON[self.verb].script}]{args}"


def parse_action(
    text: str | Action, scene: Scene, *, near: Callable[[int], float] | None = None
) -> Action:
    """Read an action in templated English or as a VirtualHome script line.

    Parameters
    ----------
    text : str or Action
        ``"put book on book shelf"``, ``"[PUTBACK] <book> (28) <book_shelf> (32)"``, or an
        Action (returned as is).
    scene : Scene
        The scene whose objects the action names.
    near : callable, optional
        ``near(node_id)`` ranks instances when an English name has several (see
        :meth:`Scene.resolve`); script lines name their instance by id.

    Raises
    ------
    ActionError
        For an unknown verb (listing the valid forms), an unknown object (listing the closest
        names), an ambiguous name without *near*, or a script line whose id is absent or
        whose class does not match that node.

    Examples
    --------
    >>> from safetychip.envs.virtualhome import load_scene
    >>> parse_action("grab salmonn", load_scene("apartment_1"))
    Traceback (most recent call last):
    ...
    safetychip.errors.ActionError: cannot read 'grab salmonn': no object or room called \
'salmonn' in scene 'apartment_1'; closest names: salmon
    """
    if isinstance(text, Action):
        return text
    line = _ENUMERATION.sub("", text).strip().rstrip(".").strip()
    if line.startswith("["):
        return _parse_script(line, scene)
    lowered = " ".join(line.lower().split())
    first_error: ActionError | None = None
    for verb, phrases in LEXICON.matches(lowered):  # the first whose objects all resolve wins
        try:
            ids = [scene.resolve(str(phrase), near=near) for phrase in phrases]
        except ActionError as exc:
            error = ActionError(f"cannot read {text!r}: {exc}", exc.choices)
            first_error = first_error or error
            continue
        return Action(verb, tuple(Target.of(scene, i) for i in ids))
    if first_error is not None:
        raise first_error
    forms = [t.format("<object>", "<object>") for t in ALL_VERBS.values()]
    head = " ".join(lowered.split()[:2])
    close = difflib.get_close_matches(head, [f.split(" <")[0] for f in forms], n=2, cutoff=0.6)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise ActionError(f"unknown action {text!r}.{hint} Actions: {'; '.join(forms)}", tuple(close))


def _parse_script(line: str, scene: Scene) -> Action:
    match = _SCRIPT_LINE.match(line)
    if match is None:
        raise ActionError(f"{line!r} is not a script line like '[GRAB] <salmon> (48)'")
    name = match.group(1).upper()
    verb = _BY_SCRIPT.get(name)
    if verb is None:
        close = tuple(difflib.get_close_matches(name, _BY_SCRIPT, n=2))
        what = (
            "VirtualHome's executor does not implement"
            if name in REFUSED_SCRIPT_ACTIONS
            else "unknown script action"
        )
        raise ActionError(
            f"{what} [{match.group(1)}] in {line!r}; the actions it implements: "
            f"{', '.join(n for n in _BY_SCRIPT if n != 'DONE')} (and [DONE] to finish)",
            close,
        )
    targets = []
    for class_name, node in _SCRIPT_ARG.findall(match.group(2)):
        node_id = int(node)
        if node_id not in scene.names:
            raise ActionError(f"{line!r}: scene {scene.name!r} has no object with id {node_id}")
        target = Target.of(scene, node_id)
        if "_".join(class_name.lower().split()) != target.class_name:
            raise ActionError(
                f"{line!r}: node {node_id} is {target.class_name!r}, not {class_name!r}",
                (target.name,),
            )
        targets.append(target)
    arity = ALL_VERBS[verb].count("{")
    if len(targets) != arity:
        raise ActionError(f"{line!r}: [{match.group(1)}] takes {arity} object(s)")
    return Action(verb, tuple(targets))
