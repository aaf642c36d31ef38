"""The Spot robot's scene: GraphNav-style waypoints named after landmarks, the walkable
edges between them, and the objects resting on or in landmarks.

A scene file is JSON (``data/spot/README.md`` describes the format); :func:`load_spot_scene`
reads and checks it, and a malformed file raises :class:`~safetychip.errors.DataFileError`
naming the file and the entry at fault.

Examples
--------
>>> scene = load_spot_scene("lab")
>>> scene
<SpotScene 'lab': 15 landmarks, 8 objects, 17 edges>
>>> scene.route("door", "mail_box")
['door', 'hallway', 'mail_room', 'mail_box']
>>> scene.placement["book"], scene.waypoint("book")
(('on', 'book_shelf'), 'book_shelf')
>>> scene.resolve("the book shelf"), scene.resolve("Coffee-Machine")
('book_shelf', 'coffee_machine')
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import networkx as nx

from safetychip._io import load_json
from safetychip.errors import ActionError, DataFileError
from safetychip.paths import SPOT_DIR

__all__ = ["AFFORDANCES", "SCENE_FORMAT", "SPOT_DIR", "SpotScene", "load_spot_scene"]

#: The ``format`` a scene file declares.
SCENE_FORMAT = "safetychip.spot-scene/1"
#: What a landmark can afford, as its ``can`` list names it.
AFFORDANCES = ("surface", "container", "open", "switch")

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_KEYS = {"format", "name", "start", "landmarks", "edges", "objects"}
_LANDMARK_KEYS = {"can", "is_open", "is_switchedon"}
_RELATIONS = {"on": "surface", "in": "container"}


@dataclass(frozen=True, eq=False)
class SpotScene:
    """A lab for the Spot robot: landmarks (waypoints), edges and objects.

    Attributes
    ----------
    name : str
    landmarks : tuple of str
        The waypoints, in file order; each is named after its landmark.
    objects : tuple of str
        What the robot can pick up, in file order.
    edges : tuple of (str, str)
        Walkable connections (undirected).
    affordances : mapping of str to frozenset of str
        What each landmark affords (see :data:`AFFORDANCES`).
    placement : mapping of str to (str, str)
        Where each object rests: ``("on", surface)`` or ``("in", container)``.
    switched_on, opened : frozenset of str
        The landmarks switched on / open at the start.
    start : str
        The waypoint the robot starts at.
    path : str
        The file read (``"<dict>"`` for data given in memory).
    """

    name: str
    landmarks: tuple[str, ...]
    objects: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    affordances: Mapping[str, frozenset[str]]
    placement: Mapping[str, tuple[str, str]]
    switched_on: frozenset[str]
    opened: frozenset[str]
    start: str
    path: str = field(default="<dict>")

    @cached_property
    def graph(self) -> nx.Graph[str]:
        """The waypoint graph (networkx), landmarks as nodes."""
        graph: nx.Graph[str] = nx.Graph()
        graph.add_nodes_from(self.landmarks)
        graph.add_edges_from(self.edges)
        return graph

    @cached_property
    def _routes(self) -> dict[str, dict[str, list[str]]]:
        return dict(nx.all_pairs_shortest_path(self.graph))

    def route(self, source: str, target: str) -> list[str]:
        """A shortest walk from waypoint *source* to *target*, both included (computed once
        for every pair; ties go to the first edges of the file)."""
        return list(self._routes[source][target])

    def waypoint(self, name: str) -> str:
        """The waypoint of a landmark (itself) or of an object (where it rests now in the
        scene file; a :class:`~safetychip.envs.spot.SpotEnv` tracks where it goes)."""
        return self.placement[name][1] if name in self.placement else name

    def can(self, landmark: str, affordance: str) -> bool:
        """Whether *landmark* affords *affordance* (False for objects)."""
        return affordance in self.affordances.get(landmark, frozenset())

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Landmarks then objects."""
        return (*self.landmarks, *self.objects)

    def resolve(self, phrase: str) -> str:
        """The landmark or object *phrase* names (``"the Book Shelf"`` → ``book_shelf``).

        Raises
        ------
        ActionError
            If it names none; the message lists the closest names.
        """
        words = re.split(r"[\s_\-]+", phrase.strip().lower())
        if words and words[0] in ("the", "a", "an"):
            words = words[1:]
        name = "_".join(w for w in words if w)
        if name in self.placement or name in self.affordances:
            return name
        close = tuple(difflib.get_close_matches(name, self.names, n=3, cutoff=0.6))
        hint = f"; closest names: {', '.join(close)}" if close else ""
        raise ActionError(f"no landmark or object called {phrase!r} in scene {self.name!r}"
                          f"{hint}", close)  # fmt: skip

    def __repr__(self) -> str:
        return (f"<SpotScene {self.name!r}: {len(self.landmarks)} landmarks, "
                f"{len(self.objects)} objects, {len(self.edges)} edges>")  # fmt: skip


def _unreadable(path: str, problem: str) -> DataFileError:
    return DataFileError(path, f"not a readable JSON file: {problem}")


def load_spot_scene(source: str | os.PathLike[str] | Mapping[str, Any] = "lab") -> SpotScene:
    """Read and check a Spot scene.

    Parameters
    ----------
    source : str, path or mapping
        A scene name in :data:`SPOT_DIR` (``"lab"``), a JSON file, or the data itself.

    Raises
    ------
    DataFileError
        If the file is missing or not JSON, or an entry is malformed: an unknown key or
        affordance, a name that is not a lowercase identifier or is used twice, an edge or a
        placement naming an unknown landmark, an object resting on a landmark that is not a
        surface (or in one that is not a container), or a landmark the start cannot reach.

    Examples
    --------
    >>> load_spot_scene({"name": "tiny", "start": "a", "landmarks": {"a": {}, "b": {}},
    ...                  "edges": [["a", "c"]], "objects": {}})
    Traceback (most recent call last):
    ...
    safetychip.errors.DataFileError: <dict>: edges[0]: unknown landmark 'c'; landmarks: a, b
    """
    if isinstance(source, Mapping):
        return _build(source, "<dict>")
    path = Path(source)
    if not path.suffix and not path.exists() and _NAME.match(str(source)):
        path = SPOT_DIR / f"{source}.json"
    try:
        data = load_json(path, _unreadable)
    except FileNotFoundError:
        known = ", ".join(sorted(p.stem for p in SPOT_DIR.glob("*.json")))
        raise DataFileError(str(path), f"no such scene file (scenes in {SPOT_DIR}: {known})"
                            ) from None  # fmt: skip
    except OSError as exc:
        raise DataFileError(str(path), f"cannot be read: {exc.strerror or exc}") from None
    return _build(data, str(path))


def _build(data: Any, path: str) -> SpotScene:
    def fail(message: str) -> DataFileError:
        return DataFileError(path, message)

    if not isinstance(data, Mapping):
        raise fail(f"a scene is a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise fail(f"unknown key(s) {', '.join(unknown)}; valid: {', '.join(sorted(_KEYS))}")
    if data.get("format", SCENE_FORMAT) != SCENE_FORMAT:
        raise fail(f"format {data['format']!r} is not {SCENE_FORMAT!r}")
    landmarks = _table(data, "landmarks", fail)
    objects = _table(data, "objects", fail)
    affordances: dict[str, frozenset[str]] = {}
    switched_on: set[str] = set()
    opened: set[str] = set()
    for name, entry in landmarks.items():
        where = f"landmarks.{name}"
        _check_name(name, where, fail)
        extra = sorted(set(entry) - _LANDMARK_KEYS)
        if extra:
            raise fail(f"{where}: unknown key(s) {', '.join(extra)}; "
                       f"valid: {', '.join(sorted(_LANDMARK_KEYS))}")  # fmt: skip
        can = entry.get("can", [])
        if not isinstance(can, list) or any(a not in AFFORDANCES for a in can):
            raise fail(f"{where}.can must list some of {', '.join(AFFORDANCES)}, got {can!r}")
        affordances[name] = frozenset(can)
        for key, needs, bucket in (("is_open", "open", opened),
                                   ("is_switchedon", "switch", switched_on)):  # fmt: skip
            value = entry.get(key, False)
            if not isinstance(value, bool) or (value and needs not in can):
                raise fail(f"{where}.{key} must be true or false, and true only with "
                           f"{needs!r} in its 'can' list; got {value!r}")  # fmt: skip
            if value:
                bucket.add(name)
    edges = data.get("edges", [])
    if not isinstance(edges, list):
        raise fail(f"edges must be a list of [landmark, landmark] pairs, got {edges!r:.60}")
    for i, edge in enumerate(edges):
        if not (isinstance(edge, list) and len(edge) == 2):
            raise fail(f"edges[{i}] must be a [landmark, landmark] pair, got {edge!r:.60}")
        for end in edge:
            _known(end, landmarks, f"edges[{i}]", fail)
    placement = {}
    for name, entry in objects.items():
        where = f"objects.{name}"
        _check_name(name, where, fail)
        if name in landmarks:
            raise fail(f"{where}: {name!r} is also a landmark; give the object another name")
        if len(entry) != 1 or next(iter(entry)) not in _RELATIONS:
            raise fail(f"{where} must be {{\"on\": surface}} or {{\"in\": container}}, "
                       f"got {json.dumps(entry)}")  # fmt: skip
        relation, holder = next(iter(entry.items()))
        _known(holder, landmarks, f"{where}.{relation}", fail)
        if _RELATIONS[relation] not in affordances[holder]:
            raise fail(f"{where}: {holder!r} is not a {_RELATIONS[relation]} (add "
                       f"{_RELATIONS[relation]!r} to landmarks.{holder}.can)")  # fmt: skip
        placement[name] = (relation, holder)
    start = data.get("start", next(iter(landmarks), None))
    _known(start, landmarks, "start", fail)
    scene = SpotScene(str(data.get("name", Path(path).stem)), tuple(landmarks), tuple(objects),
                      tuple((a, b) for a, b in edges), affordances, placement,
                      frozenset(switched_on), frozenset(opened), start, path)  # fmt: skip
    reached: set[str] = nx.node_connected_component(scene.graph, start)
    cut = sorted(set(scene.landmarks) - reached)
    if cut:
        raise fail(f"edges: no walk from the start {start!r} reaches {', '.join(cut)}")
    return scene


def _table(data: Mapping[str, Any], key: str, fail: Any) -> dict[str, dict[str, Any]]:
    table = data.get(key, {})
    if not isinstance(table, Mapping) or not all(isinstance(v, Mapping) for v in table.values()):
        raise fail(f"{key} must map each name to an object of properties")
    if key == "landmarks" and not table:
        raise fail("landmarks: a scene needs at least one landmark")
    return {str(k): dict(v) for k, v in table.items()}


def _check_name(name: str, where: str, fail: Any) -> None:
    if not _NAME.match(name):
        raise fail(f"{where}: {name!r} is not a lowercase identifier (like 'book_shelf')")


def _known(name: Any, landmarks: Mapping[str, Any], where: str, fail: Any) -> None:
    if not isinstance(name, str) or name not in landmarks:
        close = difflib.get_close_matches(str(name), list(landmarks), n=3, cutoff=0.6)
        hint = f"closest: {', '.join(close)}" if close else f"landmarks: {', '.join(landmarks)}"
        raise fail(f"{where}: unknown landmark {name!r}; {hint}")
