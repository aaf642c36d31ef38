"""Grounded predicates, read against a scene's unique names.

The guide's seven, ``agent_at(x)``, ``is_open(x)``, ``is_switchedon(x)``, ``is_grabbed(x)``,
``is_touched(x)``, ``is_on(x,y)`` and ``is_in(x,y)``, and those of the executor's other
actions (:data:`VIRTUALHOME_PREDICATES`, defined in ``_predicates``). A proposition's
canonical name has no spaces. An argument is a unique name exactly (no synonyms), or a class
name shared by several objects, meaning any of them (``is_open(window)``: some window is
open; the rule is stated in ``_predicates``). A *literal* is a proposition or its negation,
written with a leading ``!``.

Examples
--------
>>> from safetychip.envs.virtualhome import load_scene
>>> scene = load_scene("apartment_1")
>>> parse_proposition("is_on( book , book_shelf )", scene).name
'is_on(book,book_shelf)'
>>> parse_literal("!is_open(fridge)", scene)
(SceneProposition(predicate='is_open', args=('fridge',), ids=((47,),)), False)
>>> [scene.name_of(i) for i in parse_proposition("is_open(window)", scene).ids[0]]
['living_room_window', 'bedroom_window']
>>> parse_proposition("is_open(light)", scene)
Traceback (most recent call last):
...
safetychip.errors.PropositionError: in 'is_open(light)': light is a class name, and
hallway_light, living_room_light, kitchen_light, bedroom_light, bathroom_light lack property
CAN_OPEN; name an instance that has it
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from safetychip._names import close_names
from safetychip.envs.virtualhome._predicates import PREDICATES, SUPPORT, VIRTUALHOME_PREDICATES
from safetychip.envs.virtualhome._scene import Scene, normalize_name
from safetychip.errors import ActionError, PropositionError

__all__ = [
    "PREDICATES",
    "VIRTUALHOME_PREDICATES",
    "SceneProposition",
    "class_instances",
    "parse_literal",
    "parse_proposition",
]


_SHAPE = re.compile(r"^\s*(\w+)\s*\(([^()]*)\)\s*$")


@dataclass(frozen=True)
class SceneProposition:
    """A grounded predicate bound to a scene: its arguments' node ids are resolved.

    :class:`safetychip.ltl.Proposition` is the scene-free form; both share the canonical
    :attr:`name`.

    Attributes
    ----------
    predicate : str
        One of :data:`VIRTUALHOME_PREDICATES`.
    args : tuple of str
        Unique object or room names, or class names shared by several of them.
    ids : tuple of tuple of int
        Per argument, the node ids it stands for: one for a unique name, every instance for
        a class name (the proposition holds when it holds of some instance in each position).
    """

    predicate: str
    args: tuple[str, ...]
    ids: tuple[tuple[int, ...], ...]

    @property
    def name(self) -> str:
        """The canonical name, without spaces: ``is_on(book,book_shelf)``."""
        return f"{self.predicate}({','.join(self.args)})"

    def __str__(self) -> str:
        return self.name


def class_instances(scene: Scene) -> Mapping[str, tuple[int, ...]]:
    """The class names of *scene* that name several objects: class -> their node ids.

    A class with one instance is named by its class already, and a class name that is also
    some object's unique name stays that object's name, so neither is listed.

    Examples
    --------
    >>> from safetychip.envs.virtualhome import load_scene
    >>> scene = load_scene("apartment_1")
    >>> sorted(class_instances(scene))[:4], "fridge" in class_instances(scene)
    (['chair', 'cup', 'curtains', 'faucet'], False)
    """
    members: defaultdict[str, list[int]] = defaultdict(list)
    for node_id in scene.names:
        members[scene.node(node_id)["class_name"]].append(node_id)
    unique = set(scene.names.values())
    return {c: tuple(ids) for c, ids in members.items() if len(ids) > 1 and c not in unique}


def parse_proposition(text: str, scene: Scene) -> SceneProposition:
    """Read proposition *text* against *scene*.

    Raises
    ------
    PropositionError
        If the text is not ``predicate(args)``, the predicate is unknown, the number of
        arguments is wrong, an argument is neither a unique name nor a class name of *scene*
        (the message lists the closest names), a room is given where an object is needed,
        or an instance of a class name lacks the property the predicate needs
        (:data:`~safetychip.envs.virtualhome._predicates.SUPPORT`).
    """
    match = _SHAPE.match(text)
    if match is None:
        raise PropositionError(f"{text!r} is not a proposition of the form predicate(arguments)")
    predicate, inner = match.groups()
    table = VIRTUALHOME_PREDICATES
    if predicate not in table:
        close = difflib.get_close_matches(predicate, table, n=2, cutoff=0.5)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise PropositionError(
            f"unknown predicate {predicate!r} in {text!r}{hint} (predicates: {', '.join(table)})"
        )
    args = tuple(arg.strip() for arg in inner.split(",")) if inner.strip() else ()
    if len(args) != table[predicate]:
        raise PropositionError(
            f"{predicate} takes {table[predicate]} argument(s), {text!r} has {len(args)}"
        )
    ids = []
    for position, arg in enumerate(args):
        nodes = _nodes(text, arg, scene)
        for node_id in nodes:
            if scene.is_room(node_id) and predicate != "agent_at" and position == 0:
                raise PropositionError(
                    f"in {text!r}: {predicate} needs an object, {arg!r} is a room"
                    + (" class" if len(nodes) > 1 else "")
                )
            if predicate == "is_pluggedin" and "HAS_PLUG" not in scene.node(node_id)["properties"]:
                raise PropositionError(
                    f"in {text!r}: {scene.name_of(node_id)} has no plug (no HAS_PLUG property)"
                )
        if len(nodes) > 1 and position == 0 and predicate in SUPPORT:
            needed = SUPPORT[predicate]
            lacking = [n for n in nodes if needed not in scene.node(n)["properties"]]
            if lacking:
                names = ", ".join(scene.name_of(n) for n in lacking)
                raise PropositionError(
                    f"in {text!r}: {arg} is a class name, and {names} lack"
                    f"{'s' * (len(lacking) == 1)} property {needed}; name an instance that "
                    "has it"
                )
        ids.append(nodes)
    return SceneProposition(predicate, args, tuple(ids))


def _nodes(text: str, arg: str, scene: Scene) -> tuple[int, ...]:
    """The node ids *arg* of proposition *text* stands for: its own, or its class's."""
    try:
        return (scene.id(arg),)
    except ActionError:
        pass
    classes = class_instances(scene)
    if arg in classes:
        return classes[arg]
    known = [*scene.names.values(), *classes]
    near = close_names(normalize_name(arg), known, cutoff=0.5)
    hint = f"; closest names: {', '.join(near)}" if near else "; see Scene.objects"
    raise PropositionError(
        f"in {text!r}: no object or room named {arg!r} in scene {scene.name!r}{hint}"
    )


def parse_literal(text: str, scene: Scene) -> tuple[SceneProposition, bool]:
    """Read a literal: a proposition, or its negation with a leading ``!``.

    Returns
    -------
    (SceneProposition, bool)
        The proposition and the truth value the literal asks for.
    """
    stripped = text.strip()
    if stripped.startswith("!"):
        return parse_proposition(stripped[1:], scene), False
    return parse_proposition(stripped, scene), True
