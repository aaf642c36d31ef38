"""Scenes in AI2-THOR's FloorPlan style: one room, its objects, where each rests and its
initial object states.

A scene file is JSON (``data/thor/README.md``)::

    {"format": "safetychip.thor-scene/1", "name": "FloorPlan1", "kind": "kitchen",
     "objects": [{"name": "fridge", "type": "Fridge"},
                 {"name": "egg", "type": "Egg", "in": "fridge"},
                 {"name": "mug", "type": "Mug", "on": "counter_top",
                  "state": {"isDirty": true, "isFilledWithLiquid": "coffee"}}]}

An object's ``type`` is a row of the type table (:func:`load_object_types`); ``in`` or ``on``
names its parent receptacle (the one the receptacle's type ``holds``); ``state`` sets
AI2-THOR's state names (:data:`STATES`), each only where the type affords it. Our scenes
(``data/thor/scenes/``, written by ``data/thor/make_scenes.py``) borrow AI2-THOR's scene
names and room kinds, not its layouts.

Examples
--------
>>> scene = load_thor_scene("FloorPlan1")
>>> scene
<ThorScene 'FloorPlan1' (kitchen): 60 objects>
>>> scene.parent["egg"], scene.types["egg"].name
(('in', 'fridge'), 'Egg')
>>> scene.instances("StoveBurner")
('stove_burner', 'stove_burner_2', 'stove_burner_3', 'stove_burner_4')
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from safetychip._io import load_json
from safetychip._names import close_names
from safetychip.envs.thor._types import (
    LIQUIDS,
    THOR_DIR,
    THOR_PREDICATES,
    TYPES_FILE,
    ObjectType,
    load_kind_words,
    load_object_types,
    snake_case,
)
from safetychip.errors import ActionError, DataFileError

__all__ = [
    "CLASS_WORDS",
    "KINDS",
    "SCENE_DIR",
    "SCENE_FORMAT",
    "STATES",
    "ThorScene",
    "load_thor_scene",
]

#: Where our scenes live.
SCENE_DIR = THOR_DIR / "scenes"
#: The ``format`` a scene file declares.
SCENE_FORMAT = "safetychip.thor-scene/1"
#: The room kinds of AI2-THOR's floor plans.
KINDS = ("kitchen", "living_room", "bedroom", "bathroom")
#: What people call all the objects of a type together, when that is no object's name: a
#: scene with several objects of the type gets the word as a class name (:attr:`ThorScene.classes`).
CLASS_WORDS: Mapping[str, str] = MappingProxyType({"StoveBurner": "stove"})
#: AI2-THOR's state names a scene may set, with the affordance each needs.
STATES: Mapping[str, str] = MappingProxyType({
    "isOpen": "openable", "isToggled": "toggleable", "isBroken": "breakable",
    "isDirty": "dirtyable", "isSliced": "sliceable", "isCooked": "cookable",
    "isFilledWithLiquid": "fillable",
})  # fmt: skip

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_KEYS = {"format", "name", "kind", "objects"}
_OBJECT_KEYS = {"name", "type", "in", "on", "state"}


@dataclass(frozen=True, eq=False)
class ThorScene:
    """A room: its objects, their types, where they rest and their initial states.

    Attributes
    ----------
    name, kind : str
    objects : tuple of str
        Object names, in file order.
    types : mapping of str to ObjectType
        Each object's type.
    parent : mapping of str to (str, str)
        Where each object rests at the start: ``("in" | "on", receptacle)``.
    states : mapping of str to frozenset of str
        For each boolean name of :data:`STATES`, the objects for which it is true at the start.
    filled : mapping of str to str
        The liquid each filled object holds at the start.
    path : str
        The file read (``"<dict>"`` for data given in memory).
    """

    name: str
    kind: str
    objects: tuple[str, ...]
    types: Mapping[str, ObjectType]
    parent: Mapping[str, tuple[str, str]]
    states: Mapping[str, frozenset[str]]
    filled: Mapping[str, str]
    path: str = field(default="<dict>")

    @cached_property
    def _by_type(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        for name in self.objects:
            out.setdefault(self.types[name].snake, []).append(name)
        return {k: tuple(v) for k, v in out.items()}

    def instances(self, type_name: str) -> tuple[str, ...]:
        """The objects of the type *type_name* (``"StoveBurner"`` or ``"stove_burner"``), in
        file order (empty if the scene has none)."""
        return self._by_type.get(snake_case(type_name) if "_" not in type_name
                                 else type_name, ())  # fmt: skip

    @cached_property
    def kinds(self) -> Mapping[str, tuple[str, ...]]:
        """Kind word -> the objects of that kind here (:func:`~safetychip.envs.thor.
        load_kind_words`: their type has the tag or affordance, or is the type), for each
        kind with an object.

        >>> load_thor_scene("FloorPlan1").kinds["burner"]
        ('stove_burner', 'stove_burner_2', 'stove_burner_3', 'stove_burner_4')
        """
        out = {}
        for word, feature in load_kind_words().items():
            found = tuple(
                n
                for n in self.objects
                if feature in (self.types[n].name, *self.types[n].tags, *self.types[n].affordances)
            )
            if found:
                out[word] = found
        return MappingProxyType(out)

    @cached_property
    def floor(self) -> str | None:
        """The scene's floor, where dropped and thrown objects land (None without one)."""
        return next(iter(self.instances("Floor")), None)

    def lookup(self, phrase: str) -> tuple[str, ...]:
        """The objects *phrase* may name: the object of that name, or every object of that
        type (``"Mug"``, ``"the mug"``, ``"mug 2"``, ``"Mug_2"``).

        Raises
        ------
        ActionError
            If it names none; the message gives the closest object and type names.
        """
        words = re.split(r"[\s\-]+", snake_case(phrase.strip()).strip("_"))
        if words and words[0] in ("the", "a", "an"):
            words = words[1:]
        name = "_".join(w for w in words if w).replace("__", "_")
        if name in self.types:
            same = self._by_type.get(name)
            return same if same is not None and same[0] == name else (name,)
        if name in self._by_type:
            return self._by_type[name]
        close = close_names(name, [*self.objects, *self._by_type])
        hint = f"; nearest names: {', '.join(close)}" if close else ""
        raise ActionError(f"no object called {phrase!r} in scene {self.name!r}{hint}", close)

    # -- what a vocabulary reads (``safetychip.translate.Vocabulary.from_scene``) -----------

    #: A room has no rooms to be in: ``agent_at`` names objects.
    rooms: ClassVar[tuple[str, ...]] = ()
    #: The propositions' predicates (:data:`~safetychip.envs.thor.THOR_PREDICATES`).
    predicates: ClassVar[Mapping[str, int]] = THOR_PREDICATES

    @cached_property
    def classes(self) -> Mapping[str, tuple[str, ...]]:
        """Class name -> its objects, for each type of :data:`CLASS_WORDS` with several
        objects here: in a proposition, a class name means some object of the class
        (``is_toggled(stove)``: some burner is on).

        >>> load_thor_scene("FloorPlan1").classes["stove"]
        ('stove_burner', 'stove_burner_2', 'stove_burner_3', 'stove_burner_4')
        """
        out = {CLASS_WORDS[t]: self.instances(t) for t in CLASS_WORDS}
        return MappingProxyType({word: objects for word, objects in out.items()
                                 if len(objects) > 1 and word not in self.types})  # fmt: skip

    @cached_property
    def names(self) -> Mapping[str, str]:
        """What a proposition may name, each by itself: the objects, then the liquids
        (:data:`~safetychip.envs.thor.LIQUIDS`, the second argument of ``is_filled``)."""
        return MappingProxyType({n: n for n in (*self.objects, *LIQUIDS)})

    def node(self, name: str) -> Mapping[str, Any]:
        """A name of :attr:`names` as a scene-graph node: its ``class_name`` (its class of
        :attr:`classes`, else the type's snake-case name; a liquid's own name) and its
        ``properties`` (the type's affordances and tags; none for a liquid).

        >>> load_thor_scene("FloorPlan1").node("laptop")
        {'class_name': 'laptop', 'properties': ('breakable', 'electronic', 'openable', \
'pickupable', 'toggleable')}
        """
        kind = self.types.get(name)
        if kind is None:
            return {"class_name": name, "properties": ()}
        word = CLASS_WORDS.get(kind.name, "")
        return {"class_name": word if name in self.classes.get(word, ()) else kind.snake,
                "properties": tuple(sorted(kind.affordances | kind.tags))}  # fmt: skip

    def __repr__(self) -> str:
        return f"<ThorScene {self.name!r} ({self.kind}): {len(self.objects)} objects>"


def load_thor_scene(source: str | os.PathLike[str] | Mapping[str, Any] = "FloorPlan1", *,
                    types: str | os.PathLike[str] = TYPES_FILE) -> ThorScene:  # fmt: skip
    """Read and check a scene.

    Parameters
    ----------
    source : str, path or mapping
        A scene name in :data:`SCENE_DIR` (``"FloorPlan1"``), a JSON file, or the data.
    types : str or path
        The object-type table.

    Raises
    ------
    DataFileError
        If the file is missing or not JSON, or an entry is malformed (naming it): an unknown
        key, type, state or liquid, a name that is not a lowercase identifier or is used
        twice, a parent that is no receptacle or holds things the other way (``on`` a
        fridge), a state the type does not afford, or receptacles inside each other in a
        cycle.

    Examples
    --------
    >>> load_thor_scene({"name": "tiny", "kind": "kitchen", "objects": [
    ...     {"name": "apple", "type": "Apple", "in": "fridge"}]})
    Traceback (most recent call last):
    ...
    safetychip.errors.DataFileError: <dict>: objects[0] (apple).in: unknown object 'fridge'
    """
    if isinstance(source, Mapping):
        return _build(source, "<dict>", load_object_types(types))
    path = Path(source)
    if not path.suffix and not path.exists() and re.match(r"^\w+$", str(source)):
        path = SCENE_DIR / f"{source}.json"
    try:
        data = load_json(path, DataFileError)
    except FileNotFoundError:
        known = ", ".join(sorted(p.stem for p in SCENE_DIR.glob("*.json")))
        raise DataFileError(str(path), f"no such scene file (scenes in {SCENE_DIR}: {known})"
                            ) from None  # fmt: skip
    except OSError as exc:
        raise DataFileError(str(path), f"cannot be read: {exc.strerror or exc}") from None
    return _build(data, str(path), load_object_types(types))


def _build(data: Any, path: str, table: Mapping[str, ObjectType]) -> ThorScene:
    def fail(message: str) -> DataFileError:
        return DataFileError(path, message)

    if not isinstance(data, Mapping):
        raise fail(f"a scene is a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise fail(f"unknown key(s) {', '.join(unknown)}; valid: {', '.join(sorted(_KEYS))}")
    if data.get("format", SCENE_FORMAT) != SCENE_FORMAT:
        raise fail(f"format {data['format']!r} is not {SCENE_FORMAT!r}")
    kind = data.get("kind")
    if kind not in KINDS:
        raise fail(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    entries = data.get("objects")
    if not isinstance(entries, list) or not all(isinstance(e, Mapping) for e in entries):
        raise fail('objects must be a list of objects, each {"name", "type", ...}')
    types: dict[str, ObjectType] = {}
    for i, entry in enumerate(entries):
        name, where = entry.get("name"), f"objects[{i}]"
        if not isinstance(name, str) or not _NAME.match(name) or name in types:
            raise fail(f"{where}: name {name!r} must be a new lowercase identifier")
        where = f"{where} ({name})"
        extra = sorted(set(entry) - _OBJECT_KEYS)
        if extra:
            raise fail(f"{where}: unknown key(s) {', '.join(extra)}; valid: "
                       f"{', '.join(sorted(_OBJECT_KEYS))}")  # fmt: skip
        kind_of = entry.get("type")
        if kind_of not in table:
            close = close_names(str(kind_of), table)
            raise fail(f"{where}.type: unknown type {kind_of!r}"
                       + (f"; nearest: {', '.join(close)}" if close else ""))  # fmt: skip
        types[name] = table[kind_of]
    parent: dict[str, tuple[str, str]] = {}
    states: dict[str, set[str]] = {s: set() for s in STATES if s != "isFilledWithLiquid"}
    filled: dict[str, str] = {}
    for i, entry in enumerate(entries):
        name = entry["name"]
        where = f"objects[{i}] ({name})"
        relations = [r for r in ("in", "on") if r in entry]
        if len(relations) > 1:
            raise fail(f"{where}: give 'in' or 'on', not both")
        for relation in relations:
            holder = entry[relation]
            if holder not in types:
                raise fail(f"{where}.{relation}: unknown object {holder!r}")
            if types[holder].holds != relation:
                how = (f"holds things {types[holder].holds!r}" if types[holder].holds
                       else "is no receptacle")  # fmt: skip
                raise fail(f"{where}.{relation}: {holder!r} ({types[holder].name}) {how}")
            parent[name] = (relation, holder)
        state = entry.get("state", {})
        if not isinstance(state, Mapping):
            raise fail(f"{where}.state must be an object of AI2-THOR state names")
        for key, value in state.items():
            if key not in STATES:
                raise fail(f"{where}.state: unknown state {key!r}; known: {', '.join(STATES)}")
            if value is not False and not types[name].can(STATES[key]):
                raise fail(f"{where}.state.{key}: a {types[name].name} is not {STATES[key]}")
            if key == "isFilledWithLiquid":
                if value is not False and value not in LIQUIDS:
                    raise fail(f"{where}.state.{key}: {value!r} is no liquid; liquids: "
                               f"{', '.join(LIQUIDS)} (or false)")  # fmt: skip
                if value:
                    filled[name] = value
            elif not isinstance(value, bool):
                raise fail(f"{where}.state.{key} must be true or false, got {value!r}")
            elif value:
                states[key].add(name)
    for name in parent:
        seen, cur = {name}, name
        while cur in parent:
            cur = parent[cur][1]
            if cur in seen:
                raise fail(f"objects ({name}): receptacles inside each other in a cycle")
            seen.add(cur)
    return ThorScene(str(data.get("name", Path(path).stem)), kind, tuple(types),
                     MappingProxyType(types), MappingProxyType(parent),
                     MappingProxyType({k: frozenset(v) for k, v in states.items()}),
                     MappingProxyType(filled), path)  # fmt: skip
