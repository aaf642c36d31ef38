"""Grounded predicates, read against a scene's unique names.

The guide's seven, ``agent_at(x)``, ``is_open(x)``, ``is_switchedon(x)``, ``is_grabbed(x)``,
``is_touched(x)``, ``is_on(x,y)`` and ``is_in(x,y)``, and those of the executor's other
actions (:data:`VIRTUALHOME_PREDICATES`, defined in ``_predicates``). A proposition's
canonical name has no spaces. Arguments must be unique names exactly (no synonyms, no
instance selection): a constraint names one thing. A *literal* is a proposition or its
negation, written with a leading ``!``.

Examples
--------
>>> from safetychip.envs.virtualhome import load_scene
>>> scene = load_scene("apartment_1")
>>> parse_proposition("is_on( book , book_shelf )", scene).name
'is_on(book,book_shelf)'
>>> parse_literal("!is_open(fridge)", scene)
(SceneProposition(predicate='is_open', args=('fridge',), ids=(47,)), False)
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from safetychip.envs.virtualhome._predicates import PREDICATES, VIRTUALHOME_PREDICATES
from safetychip.envs.virtualhome._scene import Scene
from safetychip.errors import ActionError, PropositionError

__all__ = [
    "PREDICATES",
    "VIRTUALHOME_PREDICATES",
    "SceneProposition",
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
        Unique object or room names.
    ids : tuple of int
        The node ids of *args*.
    """

    predicate: str
    args: tuple[str, ...]
    ids: tuple[int, ...]

    @property
    def name(self) -> str:
        """The canonical name, without spaces: ``is_on(book,book_shelf)``."""
        return f"{self.predicate}({','.join(self.args)})"

    def __str__(self) -> str:
        return self.name


def parse_proposition(text: str, scene: Scene) -> SceneProposition:
    """Read proposition *text* against *scene*.

    Raises
    ------
    PropositionError
        If the text is not ``predicate(args)``, the predicate is unknown, the number of
        arguments is wrong, an argument is not a unique name of *scene* (the message lists
        the closest names), or a room is given where an object is needed.
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
        try:
            node_id = scene.id(arg)
        except ActionError as exc:
            raise PropositionError(f"in {text!r}: {exc}") from None
        if scene.is_room(node_id) and predicate != "agent_at" and position == 0:
            raise PropositionError(f"in {text!r}: {predicate} needs an object, {arg!r} is a room")
        if predicate == "is_pluggedin" and "HAS_PLUG" not in scene.node(node_id)["properties"]:
            raise PropositionError(f"in {text!r}: {arg} has no plug (no HAS_PLUG property)")
        ids.append(node_id)
    return SceneProposition(predicate, args, tuple(ids))


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
