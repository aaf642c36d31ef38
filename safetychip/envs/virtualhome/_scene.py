"""Scenes: VirtualHome graph dicts with unique object names and a room adjacency.

A scene file is VirtualHome's graph JSON (``nodes`` with ``id``, ``class_name``,
``category``, ``properties``, ``states``; ``edges`` with ``from_id``, ``relation_type``,
``to_id``) plus, in safetychip's own scenes, a ``room_adjacency`` list of room-name pairs.

**Unique names.** Propositions and actions name objects, not ids. A class with a single
instance in the scene is named by its class (``fridge``). A class with several instances is
named ``<room>_<class>`` when that is unique (``kitchen_sink``, ``bathroom_sink``), and
``<room>_<class>_<k>`` otherwise, numbering the instances in a room by id from 1
(``kitchen_chair_1``, ``kitchen_chair_2``). Rooms are named by their class. A generated name
that collides with another is suffixed with the node id. The room of an object is the room
it is (transitively) INSIDE in the file.

Examples
--------
>>> scene = load_scene("apartment_1")
>>> scene.rooms
('hallway', 'living_room', 'kitchen', 'bedroom', 'bathroom')
>>> scene.name_of(scene.id("fridge")), scene.route("bedroom", "bathroom")
('fridge', ['living_room', 'hallway', 'bathroom'])
>>> [n for n in scene.objects if n.endswith("sink")]
['bathroom_sink', 'kitchen_sink']
"""

from __future__ import annotations

import difflib
import html
import os
import re
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, cast

from safetychip._io import load_json
from safetychip.envs.virtualhome._predicates import VIRTUALHOME_PREDICATES
from safetychip.envs.virtualhome._simulator import evolving_graph
from safetychip.errors import ActionError, DataFileError
from safetychip.paths import DATA_DIR

__all__ = [
    "SCENE_DIR",
    "Scene",
    "load_scene",
    "load_virtualhome_graph",
    "normalize_name",
    "official_scene",
]

#: Where safetychip's own scenes live (``data/virtualhome/scenes`` in the repository).
SCENE_DIR = DATA_DIR / "virtualhome" / "scenes"

# Classes that name the same kind of thing in our scenes and in VirtualHome's own graphs.
_SYNONYMS = (
    {"television", "tv"},
    {"book_shelf", "bookshelf"},
    {"sofa", "couch"},
    {"phone", "cellphone", "cell_phone"},
    {"bedside_table", "nightstand"},
    {"mail_box", "mailbox"},
    {"coffee_machine", "coffeemaker", "coffee_maker"},
    {"fridge", "refrigerator"},
    {"living_room", "livingroom"},
    {"lamp", "tablelamp", "table_lamp"},
)
_ARTICLES = re.compile(r"\b(the|a|an)\b")


def normalize_name(phrase: str) -> str:
    """Turn an English object phrase into name form: lower case, no articles, underscores.

    Examples
    --------
    >>> normalize_name("the Book Shelf")
    'book_shelf'
    """
    return "_".join(_ARTICLES.sub(" ", phrase.lower()).split())


class Scene:
    """A VirtualHome graph with unique object names and the rooms' adjacency.

    Parameters
    ----------
    graph : mapping
        VirtualHome graph dict (``nodes`` and ``edges``); an optional ``room_adjacency`` list
        of room-name pairs, ``name`` and ``description`` are read too. Treat it as read-only.
    adjacency : iterable of pairs, optional
        Pairs of adjacent rooms, by name or node id; overrides ``graph["room_adjacency"]``.
        Without either, every room is adjacent to every other.
    source : str
        Where the graph came from, used in error messages.

    Raises
    ------
    DataFileError
        If the graph is malformed: duplicate node ids, edges to missing ids, unknown relation
        types, properties or states, no single character, an object in no room, or an
        adjacency naming something that is not a room. The message names *source* and the
        offending id.
    """

    def __init__(
        self,
        graph: Mapping[str, Any],
        *,
        adjacency: Iterable[tuple[str | int, str | int]] | None = None,
        source: str = "<dict>",
    ) -> None:
        self.source = source
        self.graph = graph
        self.name: str = str(graph.get("name") or Path(source).stem)
        self.description: str = str(graph.get("description", ""))
        self._nodes = _check_nodes(graph, source)
        self.character = _check_edges(graph, self._nodes, source)
        self._room = _rooms_of(graph, self._nodes, source)
        self._names = _unique_names(self._nodes, self._room, self.character)
        self._ids = {name: node_id for node_id, name in self._names.items()}
        self.rooms: tuple[str, ...] = tuple(
            self._names[i] for i, n in self._nodes.items() if n["category"] == "Rooms"
        )
        self.objects: tuple[str, ...] = tuple(
            sorted(name for name in self._ids if name not in self.rooms)
        )
        pairs = graph.get("room_adjacency") if adjacency is None else adjacency
        self.adjacency = _adjacency(self.rooms, pairs, self._names, source)

    # -- names ------------------------------------------------------------------------------

    @property
    def names(self) -> Mapping[int, str]:
        """Node id -> unique name, for every room and object (not the character)."""
        return MappingProxyType(self._names)

    def id(self, name: str) -> int:
        """Return the node id of the object or room with unique *name*.

        Raises
        ------
        ActionError
            If no object has that name; the message lists the closest names.
        """
        try:
            return self._ids[name]
        except KeyError:
            raise self._unknown(name, f"no object or room named {name!r}") from None

    def name_of(self, node_id: int) -> str:
        """Return the unique name of node *node_id* (``"character"`` for the agent)."""
        return "character" if node_id == self.character else self._names[node_id]

    def node(self, node_id: int) -> Mapping[str, Any]:
        """Return the graph node *node_id* as it is in the file."""
        return self._nodes[node_id]

    def room_of(self, node_id: int) -> int:
        """Return the id of the room node *node_id* is in, in the file (a room is its own)."""
        return self._room[node_id]

    def is_room(self, node_id: int) -> bool:
        """Whether node *node_id* is a room."""
        return self._nodes[node_id]["category"] == "Rooms"

    def resolve(self, phrase: str, *, near: Callable[[int], float] | None = None) -> int:
        """Return the node id an English *phrase* refers to.

        The phrase is normalised (:func:`normalize_name`). A unique name matches first; then
        a class name or a synonym (``tv`` for ``television``). When a class has several
        instances, *near* picks one: the instance with the smallest ``near(id)``, then the
        smallest id (the environment passes the distance in rooms from the agent).

        Raises
        ------
        ActionError
            If nothing matches (listing the closest names), or if several instances match
            and *near* is None (listing them).

        Examples
        --------
        >>> scene = load_scene("apartment_1")
        >>> scene.name_of(scene.resolve("TV")), scene.name_of(scene.resolve("book shelf"))
        ('television', 'book_shelf')
        >>> scene.name_of(scene.resolve("sink", near=lambda i: i != scene.id("kitchen_sink")))
        'kitchen_sink'
        """
        name = normalize_name(phrase)
        if name in self._ids:
            return self._ids[name]
        classes = {name}.union(*(group for group in _SYNONYMS if name in group))
        matches = [
            i for i, n in self._nodes.items() if n["class_name"] in classes and i != self.character
        ]
        if len(matches) == 1:
            return matches[0]
        if matches and near is not None:
            return min(matches, key=lambda i: (near(i), i))
        if matches:
            choices = tuple(sorted(self._names[i] for i in matches))
            raise ActionError(f"{phrase!r} is ambiguous: say one of {', '.join(choices)}", choices)
        raise self._unknown(phrase, f"no object or room called {phrase!r}")

    def closest(self, name: str, n: int = 3) -> tuple[str, ...]:
        """Return up to *n* unique names closest to *name* (difflib ratio), best first."""
        return tuple(difflib.get_close_matches(normalize_name(name), self._ids, n=n, cutoff=0.5))

    def _unknown(self, name: str, message: str) -> ActionError:
        choices = self.closest(name)
        hint = f"; closest names: {', '.join(choices)}" if choices else "; see Scene.objects"
        return ActionError(f"{message} in scene {self.name!r}{hint}", choices)

    @property
    def predicates(self) -> Mapping[str, int]:
        """The predicates a proposition over this scene may use, with their arity."""
        return VIRTUALHOME_PREDICATES

    # -- rooms ------------------------------------------------------------------------------

    def route(self, start: str, goal: str) -> list[str] | None:
        """Return the rooms entered walking from room *start* to room *goal*, or None.

        The path is a shortest one in the adjacency; ties go to the neighbour listed first.
        The list excludes *start* and ends with *goal*; it is empty when they are equal.
        """
        previous: dict[str, str | None] = {start: None}
        queue = deque([start])
        while queue:
            room = queue.popleft()
            if room == goal:
                path: list[str] = []
                while room != start:
                    path.append(room)
                    room = previous[room]  # type: ignore[assignment]
                return path[::-1]
            for neighbour in self.adjacency[room]:
                if neighbour not in previous:
                    previous[neighbour] = room
                    queue.append(neighbour)
        return None

    # -- display ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<Scene {self.name!r}: {len(self.rooms)} rooms, {len(self.objects)} objects>"

    def _repr_html_(self) -> str:
        rows = []
        for room in self.rooms:
            room_id = self._ids[room]
            inside = sorted(
                self._names[i] for i in self._names if i != room_id and self._room[i] == room_id
            )
            rows.append(
                f"<tr><th style='text-align:left'>{html.escape(room)}</th>"
                f"<td>{html.escape(', '.join(self.adjacency[room]))}</td>"
                f"<td style='text-align:left'>{html.escape(', '.join(inside))}</td></tr>"
            )
        return (
            f"<p><b>{html.escape(self.name)}</b> {html.escape(self.description)}</p>"
            "<table><tr><th>room</th><th>adjacent</th><th>objects</th></tr>"
            + "".join(rows)
            + "</table>"
        )


# -- loading --------------------------------------------------------------------------------


def load_scene(scene: str | os.PathLike[str]) -> Scene:
    """Load one of safetychip's scenes by name, or a scene JSON file by path.

    Parameters
    ----------
    scene : str or path
        A name under :data:`SCENE_DIR` (``"apartment_1"``, ``"apartment_2"``) or a path.

    Raises
    ------
    DataFileError
        If the file is missing, is not JSON, or is not a valid scene.

    Examples
    --------
    >>> load_scene("apartment_2")
    <Scene 'apartment_2': 5 rooms, 98 objects>
    """
    path = Path(scene)
    if path.suffix != ".json" and not path.exists():
        path = SCENE_DIR / f"{scene}.json"
        if not path.exists():
            available = ", ".join(sorted(p.stem for p in SCENE_DIR.glob("*.json")))
            raise DataFileError(str(path), f"no scene named {str(scene)!r}; available: {available}")
    return Scene(read_json(path), source=str(path))


def load_virtualhome_graph(path: str | os.PathLike[str], *, start: str | None = None) -> Scene:
    """Load one of VirtualHome's own graphs (``TrimmedTestScene1_graph.json`` …).

    VirtualHome's graphs carry no room adjacency: rooms joined by a door or doorjamb (a node
    with BETWEEN edges to both) are adjacent; if there are none, every room is adjacent to
    every other. A graph without a character gets one, inside room *start* (by default the
    room with the smallest id).

    Parameters
    ----------
    path : str or path
        The graph file (the graphs are not shipped with the wheel: download them yourself).
    start : str, optional
        The room a missing character is placed in.

    Raises
    ------
    DataFileError
        If the file is missing, is not JSON, or is not a valid VirtualHome graph.
    """
    path = Path(path)
    return official_scene(read_json(path), source=str(path), start=start)


def official_scene(
    graph: Mapping[str, Any], *, source: str = "<dict>", start: str | None = None
) -> Scene:
    """Make a :class:`Scene` of a graph dict in VirtualHome's own format (see
    :func:`load_virtualhome_graph`: door adjacency, a character added if missing)."""
    graph = dict(graph)
    nodes = graph.get("nodes")
    edges = graph.get("edges")
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise DataFileError(source, "expected a JSON object with 'nodes' and 'edges' lists")
    by_id: dict[Any, Any] = {n.get("id"): n for n in nodes if isinstance(n, dict)}  # raw JSON
    rooms = sorted(i for i, n in by_id.items() if n.get("category") == "Rooms")
    if not rooms:
        raise DataFileError(source, "the graph has no node of category 'Rooms'")
    if not any(n.get("class_name") == "character" for n in by_id.values()):
        names = {by_id[i].get("class_name"): i for i in rooms}
        if start is not None and start not in names:
            raise DataFileError(source, f"no room {start!r}; rooms: {', '.join(names)}")
        room = names[start] if start is not None else rooms[0]
        character = max(i for i in by_id if isinstance(i, int)) + 1
        graph["nodes"] = [
            *nodes,
            {"id": character, "class_name": "character", "category": "Characters",
             "properties": [], "states": []},
        ]  # fmt: skip
        graph["edges"] = [*edges, {"from_id": character, "relation_type": "INSIDE", "to_id": room}]
    doors: dict[Any, list[int]] = {}
    for edge in edges:
        if isinstance(edge, dict) and edge.get("relation_type") == "BETWEEN":
            if edge.get("to_id") in rooms and edge["to_id"] not in doors.get(
                edge.get("from_id"), []
            ):
                doors.setdefault(edge.get("from_id"), []).append(edge["to_id"])
    pairs = [(sides[0], sides[1]) for sides in doors.values() if len(sides) >= 2]
    graph.setdefault("name", Path(source).stem)
    return Scene(graph, adjacency=pairs or None, source=source)


def read_json(path: Path) -> Mapping[str, Any]:
    try:
        data = load_json(path, DataFileError)
    except FileNotFoundError:
        raise DataFileError(str(path), "no such file") from None
    if not isinstance(data, dict):
        raise DataFileError(str(path), "expected a JSON object with 'nodes' and 'edges' lists")
    return data


# -- validation -----------------------------------------------------------------------------


def _check_nodes(graph: Mapping[str, Any], source: str) -> dict[int, Mapping[str, Any]]:
    env = evolving_graph().environment
    nodes, edges = graph.get("nodes"), graph.get("edges")
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise DataFileError(source, "expected a JSON object with 'nodes' and 'edges' lists")
    by_id: dict[int, Mapping[str, Any]] = {}
    for k, node in enumerate(nodes):
        if not isinstance(node, dict) or type(node.get("id")) is not int:
            raise DataFileError(source, f"node #{k} has no integer 'id': {node!r}")
        node_id = node["id"]
        if node_id in by_id:
            raise DataFileError(source, f"duplicate node id {node_id}")
        if not isinstance(node.get("class_name"), str) or not node["class_name"]:
            raise DataFileError(source, f"node {node_id} has no 'class_name'")
        for key, enum in (("properties", env.Property), ("states", env.State)):
            values = node.get(key, [])
            bad = [v for v in values if not isinstance(v, str) or v.upper() not in enum.__members__]
            if not isinstance(values, list) or bad:
                raise DataFileError(
                    source,
                    f"node {node_id} ({node['class_name']}) has unknown {key} {bad or values!r}; "
                    f"valid: {', '.join(enum.__members__)}",
                )
        by_id[node_id] = node
    return by_id


def _check_edges(graph: Mapping[str, Any], nodes: Mapping[int, Any], source: str) -> int:
    relations = evolving_graph().environment.Relation.__members__
    for k, edge in enumerate(graph["edges"]):
        if not isinstance(edge, dict):
            raise DataFileError(source, f"edge #{k} is not an object: {edge!r}")
        text = f"{edge.get('from_id')} {edge.get('relation_type')} {edge.get('to_id')}"
        relation = edge.get("relation_type")
        if not isinstance(relation, str) or relation.upper() not in relations:
            raise DataFileError(
                source,
                f"edge #{k} ({text}) has unknown relation_type {relation!r}; "
                f"valid: {', '.join(relations)}",
            )
        for end in ("from_id", "to_id"):
            if edge.get(end) not in nodes:
                raise DataFileError(
                    source,
                    f"edge #{k} ({text}) refers to node id {edge.get(end)!r}, which is absent",
                )
    characters = [i for i, n in nodes.items() if n["class_name"] == "character"]
    if len(characters) != 1:
        raise DataFileError(
            source, f"expected exactly one 'character' node, found {len(characters)}: {characters}"
        )
    return characters[0]


def _rooms_of(graph: Mapping[str, Any], nodes: Mapping[int, Any], source: str) -> dict[int, int]:
    """Map every node to the room it is transitively INSIDE (a room maps to itself)."""
    parents: dict[int, list[int]] = {}
    for edge in graph["edges"]:
        if edge["relation_type"].upper() == "INSIDE":
            parents.setdefault(edge["from_id"], []).append(edge["to_id"])
    room: dict[int, int] = {i: i for i, n in nodes.items() if n.get("category") == "Rooms"}
    if not room:
        raise DataFileError(source, "the graph has no node of category 'Rooms'")

    def find(node_id: int, seen: frozenset[int]) -> int | None:
        if node_id in room:
            return room[node_id]
        for parent in parents.get(node_id, []):
            if parent not in seen and (found := find(parent, seen | {parent})) is not None:
                room[node_id] = found
                return found
        return None

    for node_id, node in nodes.items():
        if find(node_id, frozenset({node_id})) is None:
            raise DataFileError(
                source, f"node {node_id} ({node['class_name']}) is not INSIDE any room"
            )
    return room


def _unique_names(
    nodes: Mapping[int, Mapping[str, Any]], room: Mapping[int, int], character: int
) -> dict[int, str]:
    ids = sorted(i for i in nodes if i != character)
    cls = {i: nodes[i]["class_name"] for i in ids}
    in_scene = Counter(cls.values())
    in_room = Counter((room[i], cls[i]) for i in ids)
    seen: Counter[tuple[int, str]] = Counter()  # rooms count under key (0, class)
    names: dict[int, str] = {}
    for i in sorted(ids, key=lambda i: (i != room[i], i)):  # rooms first: objects use their names
        key = (0 if i == room[i] else room[i], cls[i])
        seen[key] += 1
        if in_scene[cls[i]] == 1:
            names[i] = cls[i]
        elif i == room[i]:
            names[i] = f"{cls[i]}_{seen[key]}"
        else:
            prefix = f"{names[room[i]]}_{cls[i]}"
            names[i] = prefix if in_room[key] == 1 else f"{prefix}_{seen[key]}"
    counts = Counter(names.values())
    return {i: f"{n}_{i}" if counts[n] > 1 else n for i, n in names.items()}


def _adjacency(
    rooms: tuple[str, ...], pairs: Iterable[Any] | None, names: Mapping[int, str], source: str
) -> dict[str, tuple[str, ...]]:
    if pairs is None:
        return {r: tuple(o for o in rooms if o != r) for r in rooms}
    neighbours: dict[str, list[str]] = {r: [] for r in rooms}
    for entry in pairs:
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            raise DataFileError(source, f"room_adjacency entry {entry!r} is not a pair of rooms")
        pair = [names.get(room, room) if type(room) is int else room for room in entry]
        for room in pair:
            if room not in neighbours:
                raise DataFileError(
                    source,
                    f"room_adjacency names {room!r}, which is not a room; "
                    f"rooms: {', '.join(rooms)}",
                )
        a, b = cast("list[str]", pair)  # both are rooms, checked above
        neighbours[a].append(b)
        neighbours[b].append(a)
    return {r: tuple(n) for r, n in neighbours.items()}
