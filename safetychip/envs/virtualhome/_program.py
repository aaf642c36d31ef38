"""VirtualHome's own programs: read them, prepare a graph for them as the dataset does, run them.

A program file in the dataset's format holds a title line, a description, then one script
line per action with **script-local** ids (``[Walk] <tv> (1)``: the first tv the program
mentions, not node 1). Its initial state is a JSON list beside it (the dataset's
``initstate`` files): relations ``{"atreach": [["character", "1"], ["tv", "1"]]}``
(CLOSE both ways), ``inside`` (INSIDE), ``in`` (ON); states ``is_on``, ``is_off``,
``open``, ``closed``, ``dirty``, ``clean``, ``plugged``, ``unplugged``, ``sitting``,
``lying``; ``free`` / ``occupied`` for seats; ``location`` names an object's room.

:func:`prepare_program` turns a graph in the official TrimmedTestScene format and a program
into a scene whose graph holds the program's initial state, and the program's lines with
graph ids, following ``check_programs.check_one_program`` in the ``virtualhome`` wheel
(``utils.graph_dict_helper``) step by step:

1. defaults for every node: CAN_OPEN closed (doors open), HAS_PLUG plugged in, clean,
   lights and lamps on;
2. rooms the program names are mapped to the graph's (``home_office`` is ``living_room`` …),
   and the prepared lines name the mapped room (``[WALK] <living_room> (335)``);
3. the character starts in a room other than the first room the program names (or, if it
   names none, in the room holding most of its objects), standing, close to nothing;
4. each script object is the first unused node of its class directly INSIDE its room (its
   ``location``, else the start room), or a node added with ids from 1000 (placed INSIDE
   that room, with the properties of its class);
5. defaults again for the script's objects; then the initial state's relations and states;
   doors open, lights on.

The dataset picks rooms and floors at random, orders a program's objects by Python's set
order, and scatters random extra objects (ids from 2000) over the scene; here every choice
is the first in the graph's order, objects are taken in the order the program first names
them, and no extra objects are added. The dataset's property, placement and name tables
(``resources/*.json``) are not in the wheel: pass ``properties`` for classes the graph does
not have; without it, an added object gets the properties the program's actions need,
and the prepared program says so in :attr:`PreparedProgram.notes`.

Examples
--------
>>> program = read_program(PROGRAM_DIR / "watch_tv.txt")
>>> program.title, program.lines[:2]
('Watch TV', ('[Walk] <living_room> (1)', '[Walk] <tv> (1)'))
>>> prepared = prepare_program(OFFICIAL_GRAPH, program)
>>> prepared.start, prepared.lines[4], prepared.ids[("couch", 1)]
('bathroom', '[SIT] <couch> (373)', 373)
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from safetychip.envs.virtualhome._scene import Scene, official_scene, read_json
from safetychip.envs.virtualhome._simulator import evolving_graph
from safetychip.errors import DataFileError
from safetychip.paths import DATA_DIR

__all__ = [
    "OFFICIAL_GRAPH",
    "PROGRAM_DIR",
    "PreparedProgram",
    "Program",
    "prepare_program",
    "read_program",
]

#: Programs safetychip wrote in the dataset's format (``data/virtualhome/programs``).
PROGRAM_DIR = DATA_DIR / "virtualhome" / "programs"
#: A 300-plus-object graph in the official TrimmedTestScene format, built by safetychip.
OFFICIAL_GRAPH = DATA_DIR / "virtualhome" / "graphs" / "TrimmedTestHouse_graph.json"

# utils.graph_dict_helper's tables.
_POSSIBLE_ROOMS = ("home_office", "kitchen", "living_room", "bathroom", "dining_room",
                   "bedroom", "kids_bedroom", "entrance_hall")  # fmt: skip
_EQUIVALENT_ROOMS = {"kitchen": "dining_room", "dining_room": "kitchen",
                     "entrance_hall": "living_room", "home_office": "living_room",
                     "living_room": "home_office", "kids_bedroom": "bedroom"}  # fmt: skip
_RELATIONS = {"inside": "INSIDE", "atreach": "CLOSE", "in": "ON"}
_STATES = {"dirty": "DIRTY", "clean": "CLEAN", "open": "OPEN", "closed": "CLOSED",
           "plugged": "PLUGGED_IN", "unplugged": "PLUGGED_OUT", "is_on": "ON", "is_off": "OFF",
           "sitting": "SITTING", "lying": "LYING"}  # fmt: skip
_PAIRS = (("OPEN", "CLOSED"), ("ON", "OFF"), ("CLEAN", "DIRTY"), ("PLUGGED_IN", "PLUGGED_OUT"))
_FIRST_ADDED = 1000


@dataclass(frozen=True)
class Program:
    """A program in the dataset's format: script lines with script-local ids.

    Attributes
    ----------
    title, description : str
    lines : tuple of str
        Script lines as written (``[Walk] <tv> (1)``).
    initial : tuple of dict
        The initial state, as in the dataset's ``initstate`` files.
    source : str
    """

    title: str
    description: str
    lines: tuple[str, ...]
    initial: tuple[Mapping[str, Any], ...] = ()
    source: str = "<text>"

    @classmethod
    def parse(
        cls, text: str, *, initial: Iterable[Mapping[str, Any]] = (), source: str = "<text>"
    ) -> Program:
        """Read a program's text: title, description, then lines holding ``[``.

        Raises
        ------
        DataFileError
            If a script line does not parse (the message names the line number).
        """
        scripts = evolving_graph().scripts
        head: list[str] = []
        lines: list[str] = []
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if "[" not in line:
                if not lines and line:
                    head.append(line)
                continue
            if line.startswith("#"):
                continue
            try:
                scripts.parse_script_line(line, number)
            except scripts.ScriptParseException as exc:
                raise DataFileError(source, f"line {number} {line!r}: {exc}") from None
            lines.append(line)
        title = head[0] if head else ""
        return cls(title, " ".join(head[1:]), tuple(lines), tuple(initial), source)


def read_program(
    path: str | os.PathLike[str], *, initial: str | os.PathLike[str] | None = None
) -> Program:
    """Read a program file; its initial state is *initial*, else the JSON file beside it.

    The dataset keeps programs under ``withoutconds/`` and initial states under
    ``initstate/`` with the same relative path; a ``.json`` with the program's stem in the
    same folder is read too. A program without either starts from the defaults.

    Raises
    ------
    DataFileError
        If a file is missing or malformed.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFileError(str(path), "no such program file") from None
    if initial is None:
        for candidate in (
            path.with_suffix(".json"),
            Path(str(path).replace("withoutconds", "initstate")).with_suffix(".json"),
        ):
            if candidate.exists():
                initial = candidate
                break
    state: list[Mapping[str, Any]] = []
    if initial is not None:
        try:
            data = json.loads(Path(initial).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise DataFileError(str(initial), f"cannot read the initial state: {exc}") from None
        if not isinstance(data, list) or not all(isinstance(p, dict) for p in data):
            raise DataFileError(str(initial), "an initial state is a JSON list of objects")
        state = data
    return Program.parse(text, initial=state, source=str(path))


@dataclass(frozen=True)
class PreparedProgram:
    """A program made ready to run on a graph: its scene and its lines with graph ids.

    Attributes
    ----------
    program : Program
    scene : Scene
        The graph with the program's initial state (and added objects).
    lines : tuple of str
        The program's lines with graph ids (``[WALK] <tv> (264)``).
    ids : dict
        Script object ``(class, local id)`` -> node id.
    added : tuple of int
        Nodes added for objects the graph lacked (ids from 1000).
    start : str
        The room the character starts in.
    notes : tuple of str
        Where the preparation could not do what the dataset does, and why.
    """

    program: Program
    scene: Scene
    lines: tuple[str, ...]
    ids: Mapping[tuple[str, int], int]
    added: tuple[int, ...] = ()
    start: str = ""
    notes: tuple[str, ...] = field(default=())

    def __repr__(self) -> str:
        return (
            f"<PreparedProgram {self.program.title!r} on {self.scene.name!r}: "
            f"{len(self.lines)} lines, {len(self.added)} objects added>"
        )


def prepare_program(
    graph: Mapping[str, Any] | str | os.PathLike[str],
    program: Program | str | os.PathLike[str],
    *,
    properties: Mapping[str, Sequence[str]] | None = None,
    start: str | None = None,
) -> PreparedProgram:
    """Prepare *graph* for *program* the way VirtualHome's dataset does (see the module).

    Parameters
    ----------
    graph : dict or path
        A graph in the official TrimmedTestScene format; it is not changed.
    program : Program or path
    properties : mapping, optional
        Class -> properties, for objects the graph has no instance of (the dataset's
        ``properties_data.json`` fits).
    start : str, optional
        The character's start room (the dataset picks one at random among those allowed).

    Raises
    ------
    DataFileError
        If the graph is malformed, a room cannot be mapped, the initial state names an
        object the program does not use, or *start* is not a room of the graph.
    """
    if not isinstance(program, Program):
        program = read_program(program)
    source = str(graph) if not isinstance(graph, Mapping) else program.source
    data = copy.deepcopy(dict(graph if isinstance(graph, Mapping) else read_json(Path(graph))))
    return _Preparation(data, program, properties or {}, source).run(start)


class _Preparation:
    """The steps of ``check_one_program``, on a copy of the graph dict."""

    def __init__(
        self, graph: dict[str, Any], program: Program, properties: Mapping[str, Sequence[str]],
        source: str,
    ) -> None:  # fmt: skip
        self.graph, self.program, self.properties, self.source = graph, program, properties, source
        if not isinstance(graph.get("nodes"), list) or not isinstance(graph.get("edges"), list):
            raise DataFileError(source, "expected a JSON object with 'nodes' and 'edges' lists")
        self.nodes: list[dict[str, Any]] = graph["nodes"]
        self.edges: list[dict[str, Any]] = graph["edges"]
        self.notes: list[str] = []
        scripts = evolving_graph().scripts
        self.script = [scripts.parse_script_line(line, k) for k, line in enumerate(program.lines)]

    def run(self, start: str | None) -> PreparedProgram:
        character = self._character()
        rooms = [n for n in self.nodes if n.get("category") == "Rooms"]
        names = [n["class_name"] for n in rooms]
        for node in self.nodes:
            self._defaults(node)
        mapping = self._room_mapping(names)
        parameters = [p for line in self.script for p in line.parameters]
        objects = list(dict.fromkeys((mapping.get(p.name, p.name), p.instance) for p in parameters))
        located = {}
        for entry in self.program.initial:
            if "location" in entry:
                (obj, k), (room, _) = entry["location"]
                located[(_key(obj), int(k))] = mapping.get(_key(room), _key(room))
        first = next((name for name, _ in objects if name in _POSSIBLE_ROOMS), None)
        start_room = start if start is not None else self._start(first, names, objects)
        if start_room not in names:
            raise DataFileError(self.source, f"no room {start_room!r}; rooms: {', '.join(names)}")
        ids, added = self._map_objects(objects, located, start_room, character)
        script_ids = set(ids.values())
        for node in self.nodes:
            if node["id"] in script_ids:
                self._defaults(node, start=start_room if node["id"] == character else None)
        self._check_binary()
        self._initial_state(ids)
        for node in self.nodes:
            if node.get("category") == "Doors":
                _set(node, "OPEN")
            if _is_light(node) and node["id"] not in script_ids:
                _set(node, "ON")
        self._check_binary()
        # a room the graph lacks is written as the room it maps to, as the dataset does
        lines = tuple(
            f"[{line.action.name}]"
            + "".join(f" <{name}> ({ids[(name, p.instance)]})"
                      for p in line.parameters for name in [mapping.get(p.name, p.name)])
            for line in self.script
        )  # fmt: skip
        # one name per prepared world, so snapshots of two programs never mix
        graph_name = self.graph.get("name") or Path(self.source).stem
        self.graph["name"] = f"{graph_name}/{Path(self.program.source).stem.strip('<>')}"
        scene = official_scene(self.graph, source=self.source)
        return PreparedProgram(
            self.program, scene, lines, ids, tuple(added), start_room, tuple(self.notes)
        )

    # -- steps ------------------------------------------------------------------------------

    def _character(self) -> int:
        found = [n["id"] for n in self.nodes if n.get("class_name") == "character"]
        if found:
            return int(found[0])
        rooms = [n["id"] for n in self.nodes if n.get("category") == "Rooms"]
        if not rooms:
            raise DataFileError(self.source, "the graph has no node of category 'Rooms'")
        new = max(int(n["id"]) for n in self.nodes) + 1
        self.nodes.append({"id": new, "class_name": "character", "category": "Characters",
                           "properties": [], "states": []})  # fmt: skip
        self.edges.append({"from_id": new, "relation_type": "INSIDE", "to_id": rooms[0]})
        return new

    def _defaults(self, node: dict[str, Any], start: str | None = None) -> None:
        """``set_to_default_state``: closed, plugged in, clean, lights on, doors open."""
        properties = node.get("properties", [])
        node["states"] = list(node.get("states", []))
        if "CAN_OPEN" in properties:
            _set(node, "OPEN" if node["class_name"] == "door" else "CLOSED")
        if "HAS_PLUG" in properties:
            _set(node, "PLUGGED_IN")
        _set(node, "CLEAN")
        if node["class_name"] == "character" and start is not None:
            here = node["id"]
            self.edges[:] = [e for e in self.edges if here not in (e["from_id"], e["to_id"])]
            room = next(n["id"] for n in self.nodes if n["class_name"] == start)
            self.edges.append({"from_id": here, "relation_type": "INSIDE", "to_id": room})
            node["states"] = []
        if _is_light(node):
            _set(node, "ON")
        if node.get("category") == "Doors":
            _set(node, "OPEN")

    def _room_mapping(self, names: list[str]) -> dict[str, str]:
        mapping = {}
        for room in _POSSIBLE_ROOMS:
            tried, current = [], room
            while current not in names and current not in tried:
                tried.append(current)
                current = _EQUIVALENT_ROOMS.get(current, current)
            if current in names:
                mapping[room] = current
        return mapping

    def _start(self, first: str | None, names: list[str], objects: list[tuple[str, int]]) -> str:
        if first is not None:  # "any room except" the first one the program names
            return next(n for n in names if n != first)
        classes = {name for name, _ in objects if name != "character"}
        rooms = {n["id"]: n["class_name"] for n in self.nodes if n.get("category") == "Rooms"}
        counts = dict.fromkeys(names, 0)
        by_id = {n["id"]: n for n in self.nodes}
        for edge in self.edges:
            node = by_id.get(edge["from_id"])
            if edge["relation_type"] == "INSIDE" and edge["to_id"] in rooms and node is not None:
                if node["class_name"] in classes:
                    counts[rooms[edge["to_id"]]] += 1
        return max(names, key=lambda n: counts[n])  # ties: the first in the graph

    def _map_objects(
        self, objects: list[tuple[str, int]], located: Mapping[tuple[str, int], str],
        start: str, character: int,
    ) -> tuple[dict[tuple[str, int], int], list[int]]:  # fmt: skip
        by_class: dict[str, list[dict[str, Any]]] = {}
        for node in self.nodes:
            by_class.setdefault(node["class_name"], []).append(node)
        inside = {(e["from_id"], e["to_id"]) for e in self.edges if e["relation_type"] == "INSIDE"}
        used: set[int] = set()
        ids: dict[tuple[str, int], int] = {("character", 1): character}
        taken = [int(n["id"]) for n in self.nodes if _FIRST_ADDED <= int(n["id"]) < 2000]
        next_id = max(taken) + 1 if taken else _FIRST_ADDED
        added: list[int] = []
        for obj in objects:
            name = obj[0]
            if obj in ids:
                continue
            room_name = located.get(obj, start)
            room = next((n["id"] for n in self.nodes if n["class_name"] == room_name), None)
            if room is None:
                raise DataFileError(self.program.source, f"{name} ({obj[1]}) is in {room_name!r}, "
                                    "which is not a room of the graph")  # fmt: skip
            if name in _POSSIBLE_ROOMS:
                found = next((n["id"] for n in self.nodes if n["class_name"] == name), None)
                if found is None:  # no room of the graph stands for it
                    rooms = sorted({n["class_name"] for n in self.nodes
                                    if n.get("category") == "Rooms"})  # fmt: skip
                    raise DataFileError(self.program.source, f"the program names the room "
                                        f"{name!r}, which the graph lacks and no room of it "
                                        f"stands for (rooms: {', '.join(rooms)})")  # fmt: skip
                ids[obj] = found
                continue
            same = [n for n in by_class.get(name, []) if n["id"] not in used]
            match = next((n for n in same if (n["id"], room) in inside), None)
            if match is not None:
                ids[obj] = match["id"]
                used.add(match["id"])
                continue
            if name in by_class:
                category = by_class[name][0]["category"]
                properties = list(self.properties.get(name, by_class[name][0]["properties"]))
            else:
                category, properties = "placable_objects", self._properties_of(name)
            self.nodes.append({"id": next_id, "class_name": name, "category": category,
                               "properties": properties, "states": []})  # fmt: skip
            self.edges.append({"from_id": next_id, "relation_type": "INSIDE", "to_id": room})
            ids[obj] = next_id
            added.append(next_id)
            next_id += 1
        return ids, added

    def _properties_of(self, name: str) -> list[str]:
        if name in self.properties:
            return list(self.properties[name])
        valid = evolving_graph().environment.Property.__members__  # PUTOFF asks for "CLOHES"
        needed: dict[str, None] = {}
        for line in self.script:
            requirements = line.action.value[2] if len(line.action.value) > 2 else []
            for parameter, required in zip(line.parameters, requirements, strict=False):
                if parameter.name == name:
                    needed.update(dict.fromkeys(p for p in required[:1] if p in valid))
        self.notes.append(
            f"{name!r} is not in the graph and no properties were given: it was added with "
            f"the properties its actions need ({', '.join(needed) or 'none'})"
        )
        return list(needed)

    def _check_binary(self) -> None:
        """``check_binary``: a pair of states with neither or both gets its default."""
        for node in self.nodes:
            properties = node.get("properties", [])
            for needed, default in (("CAN_OPEN", "CLOSED"), ("HAS_PLUG", "PLUGGED_IN")):
                if needed in properties and not _one_of(node, default):
                    _set(node, default)
            if _is_light(node) and not _one_of(node, "ON"):
                _set(node, "ON")
            if node.get("category") == "Doors" and not _one_of(node, "OPEN"):
                _set(node, "OPEN")

    def _initial_state(self, ids: Mapping[tuple[str, int], int]) -> None:
        """``prepare_from_precondition``: relations and states of the initial state."""
        by_id = {n["id"]: n for n in self.nodes}

        def lookup(name: str, number: Any) -> int:
            key = (_key(name), int(number))
            if key not in ids:
                raise DataFileError(
                    self.program.source, f"the initial state names {name} ({number}), "
                    "which the program does not use"
                )  # fmt: skip
            return ids[key]

        for entry in self.program.initial:
            for kind, value in entry.items():
                if kind == "location":
                    continue
                if kind in _RELATIONS:
                    a, b = lookup(*value[0]), lookup(*value[1])
                    relation = _RELATIONS[kind]
                    self.edges.append({"from_id": a, "relation_type": relation, "to_id": b})
                    if kind == "atreach":
                        self.edges.append({"from_id": b, "relation_type": relation, "to_id": a})
                elif kind in _STATES:
                    node = by_id[lookup(*value)]
                    state = _STATES[kind]
                    if state in ("SITTING", "LYING"):
                        if state not in node["states"]:
                            node["states"].append(state)
                    else:
                        _set(node, state)
                elif kind == "free":
                    self._free(by_id[lookup(*value)])
                elif kind == "occupied":
                    self._occupied(by_id[lookup(*value)])
                else:
                    self.notes.append(f"initial state {kind!r} is ignored, as the dataset does")

    def _free(self, node: dict[str, Any]) -> None:
        """``_change_to_totally_free``: what is ON a seat moves ON a floor."""
        if not _is_seat(node):
            return
        here = node["id"]
        on = [e["from_id"] for e in self.edges if e["relation_type"] == "ON" and e["to_id"] == here]
        self.edges[:] = [
            e for e in self.edges
            if not ((e["from_id"] in on and e["to_id"] == here)
                    or (e["from_id"] == here and e["to_id"] in on))
        ]  # fmt: skip
        floors = [n["id"] for n in self.nodes if n["class_name"] == "floor"]
        room = self._room_of(here)
        floor = next((f for f in floors if self._room_of(f) == room), floors[0] if floors else None)
        if on and floor is not None:
            self.notes.append("free: objects moved to the floor of the seat's room (the "
                              "dataset picks any floor at random)")  # fmt: skip
        for obj in on if floor is not None else ():
            self.edges += [
                {"from_id": obj, "relation_type": "ON", "to_id": floor},
                {"from_id": obj, "relation_type": "CLOSE", "to_id": floor},
                {"from_id": floor, "relation_type": "CLOSE", "to_id": obj},
            ]

    def _occupied(self, node: dict[str, Any]) -> None:
        if not _is_seat(node):
            return
        limits = _occupancy()
        on = sum(1 for e in self.edges if e["relation_type"] == "ON" and e["to_id"] == node["id"])
        if on < max(limits[node["class_name"]] - 1, 1):
            self.notes.append(
                f"occupied: {node['class_name']} ({node['id']}) was left as it is (the dataset "
                "puts objects on it from its placing table, which the wheel does not ship)"
            )

    def _room_of(self, node_id: int) -> int | None:
        rooms = {n["id"] for n in self.nodes if n.get("category") == "Rooms"}
        for edge in self.edges:
            if edge["from_id"] == node_id and edge["relation_type"] == "INSIDE":
                if edge["to_id"] in rooms:
                    return int(edge["to_id"])
        return None


def _key(name: str) -> str:
    return name.lower().replace(" ", "_")


def _is_light(node: Mapping[str, Any]) -> bool:
    return "light" in node["class_name"] or "lamp" in node["class_name"]


def _occupancy() -> dict[str, int]:
    execution = evolving_graph().execution
    sit, lie = execution.SitExecutor._MAX_OCCUPANCIES, execution.LieExecutor._MAX_OCCUPANCIES
    return {**lie, **sit}  # the dataset reads the sitting limit first


def _is_seat(node: Mapping[str, Any]) -> bool:
    return node["class_name"] in _occupancy()


def _pair(state: str) -> tuple[str, str]:
    return next(p for p in _PAIRS if state in p)


def _set(node: dict[str, Any], state: str) -> None:
    """``BinaryVariable.set_node_state``: *state* on, its opposite off."""
    other = next(s for s in _pair(state) if s != state)
    node["states"] = [s for s in node["states"] if s != other]
    if state not in node["states"]:
        node["states"].append(state)


def _one_of(node: Mapping[str, Any], state: str) -> bool:
    a, b = _pair(state)
    return (a in node["states"]) != (b in node["states"])
