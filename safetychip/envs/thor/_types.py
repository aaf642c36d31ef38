"""AI2-THOR's object types and what each affords: one table, ``data/thor/object_types.csv``,
and its one loader.

Each row names a type (AI2-THOR's spelling, ``StoveBurner``), how a receptacle holds what is
put into it (``in`` or ``on``; empty for a type that is no receptacle), its affordances
(:data:`AFFORDANCES`, AI2-THOR's object properties) and our tags (:data:`TAGS`: what makes an
object a hazard or vulnerable to one). A type's snake-case name (``stove_burner``) is how
scenes, actions and propositions name its objects.

Examples
--------
>>> types = load_object_types()
>>> types["Microwave"]
ObjectType('Microwave', holds='in', affordances='openable receptacle toggleable', \
tags='electronic heat_source')
>>> types["Egg"].can("breakable"), types["Egg"].can("receptacle")
(True, False)
>>> snake_case("StoveBurner"), snake_case("CD")
('stove_burner', 'cd')
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from safetychip._io import read_text
from safetychip.errors import DataFileError
from safetychip.paths import DATA_DIR

__all__ = [
    "AFFORDANCES", "KIND_WORDS_FILE", "LIQUIDS", "TAGS", "THOR_DIR", "THOR_PREDICATES",
    "TYPES_FILE", "ObjectType", "load_kind_words", "load_object_types", "snake_case",
]  # fmt: skip

#: Where the AI2-THOR-style data lives: the type table, the scenes and the task suite.
THOR_DIR = DATA_DIR / "thor"
#: The object-type table.
TYPES_FILE = THOR_DIR / "object_types.csv"
#: The kind words: phrase -> the tag, affordance or type its objects have.
KIND_WORDS_FILE = THOR_DIR / "kind_words.tsv"

#: AI2-THOR's object properties that an action needs (``sliceable`` for slice …).
AFFORDANCES = ("pickupable", "receptacle", "openable", "toggleable", "breakable", "sliceable",
               "cookable", "dirtyable", "fillable")  # fmt: skip
#: Our tags: ``electronic`` (water on it while on is a hazard), ``heat_source`` (cooks what
#: is in or on it while on), ``coffee_source`` (fills a cup in it with coffee while on),
#: ``water_source``, ``metal``, ``sharp`` (slices), ``glass``, ``food``, ``flammable``
#: (paper, cloth, sponges: catches fire on a heat source that is on).
TAGS = ("electronic", "heat_source", "coffee_source", "water_source", "metal", "sharp",
        "glass", "food", "flammable")  # fmt: skip
#: The liquids AI2-THOR fills containers with.
LIQUIDS = ("water", "coffee", "wine")
#: The grounded predicates of the environment (:class:`~safetychip.envs.thor.ThorEnv`), with
#: their number of arguments.
THOR_PREDICATES: Mapping[str, int] = MappingProxyType({
    "agent_at": 1, "is_grabbed": 1, "is_open": 1, "is_toggled": 1, "is_broken": 1,
    "is_dirty": 1, "is_sliced": 1, "is_cooked": 1, "is_wet": 1, "is_filled": 2, "is_in": 2,
    "is_on": 2,
})  # fmt: skip


_COLUMNS = ["type", "holds", "affordances", "tags"]
_TYPE = re.compile(r"^[A-Z][A-Za-z]*$")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake_case(type_name: str) -> str:
    """The snake-case name of an AI2-THOR type: ``"CellPhone"`` → ``"cell_phone"``."""
    return _CAMEL.sub("_", type_name).lower()


@dataclass(frozen=True)
class ObjectType:
    """One AI2-THOR object type.

    Attributes
    ----------
    name : str
        AI2-THOR's name (``"Mug"``).
    holds : str or None
        ``"in"`` or ``"on"``: how a receptacle holds what is put in or on it (None otherwise).
    affordances : frozenset of str
        Of :data:`AFFORDANCES`.
    tags : frozenset of str
        Of :data:`TAGS`.
    """

    name: str
    holds: str | None
    affordances: frozenset[str]
    tags: frozenset[str]

    def can(self, affordance: str) -> bool:
        """Whether the type has *affordance* (one of :data:`AFFORDANCES`)."""
        return affordance in self.affordances

    def is_(self, tag: str) -> bool:
        """Whether the type carries *tag* (one of :data:`TAGS`)."""
        return tag in self.tags

    @property
    def snake(self) -> str:
        """The snake-case name objects of this type are called by default."""
        return snake_case(self.name)

    def __repr__(self) -> str:
        return (f"ObjectType({self.name!r}, holds={self.holds!r}, "
                f"affordances={' '.join(sorted(self.affordances))!r}, "
                f"tags={' '.join(sorted(self.tags))!r})")  # fmt: skip


def load_object_types(path: str | os.PathLike[str] = TYPES_FILE) -> Mapping[str, ObjectType]:
    """The object types of the CSV table *path* (ours by default), by name, in file order.

    Raises
    ------
    DataFileError
        If the file is missing, or a row is malformed (naming its line): wrong columns, a
        name that is not CamelCase or is repeated, an unknown affordance or tag, a receptacle
        without ``in``/``on`` (or ``in``/``on`` without the ``receptacle`` affordance).
    """
    return _load(str(Path(path)))


@lru_cache(maxsize=8)
def _load(path: str) -> Mapping[str, ObjectType]:
    try:
        text = read_text(path, DataFileError)
    except OSError as exc:
        raise DataFileError(path, f"cannot be read: {exc.strerror or exc}") from None
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    if header != _COLUMNS:
        raise DataFileError(path, f"line 1: the header must be {','.join(_COLUMNS)}")
    types: dict[str, ObjectType] = {}
    for line, row in enumerate(rows, 2):
        if not row:
            continue

        def fail(message: str, line: int = line) -> DataFileError:
            return DataFileError(path, f"line {line}: {message}")

        if len(row) != len(_COLUMNS):
            raise fail(f"{len(row)} columns, expected {len(_COLUMNS)}")
        name, holds, affordances, tags = (cell.strip() for cell in row)
        if not _TYPE.match(name) or name in types:
            raise fail(f"type {name!r} must be a new CamelCase name")
        can, tagged = frozenset(affordances.split()), frozenset(tags.split())
        for words, known, what in ((can, AFFORDANCES, "affordance"), (tagged, TAGS, "tag")):
            unknown = sorted(words - set(known))
            if unknown:
                raise fail(f"unknown {what} {unknown[0]!r}; known: {', '.join(known)}")
        if (holds in ("in", "on")) != ("receptacle" in can) or holds not in ("in", "on", ""):
            raise fail(f"holds must be 'in' or 'on' for a receptacle, empty otherwise; got "
                       f"{holds!r}")  # fmt: skip
        types[name] = ObjectType(name, holds or None, can, tagged)
    return MappingProxyType(types)


@lru_cache(maxsize=4)
def load_kind_words(path: str | os.PathLike[str] = KIND_WORDS_FILE) -> Mapping[str, str]:
    """The kind words of the tab-separated table *path* (ours by default): a phrase that
    names a kind of object -> the tag (:data:`TAGS`), affordance (:data:`AFFORDANCES`) or
    type name its objects have.

    >>> load_kind_words()["electronic device"], load_kind_words()["burner"]
    ('electronic', 'StoveBurner')

    Raises
    ------
    DataFileError
        If the file is missing, or a row is not a phrase and a known tag, affordance or type.
    """
    try:
        text = read_text(path, DataFileError)
    except OSError as exc:
        raise DataFileError(str(path), f"cannot be read: {exc.strerror or exc}") from None
    known = {*TAGS, *AFFORDANCES, *load_object_types()}
    out: dict[str, str] = {}
    for line, row in enumerate(text.splitlines(), 1):
        if not row.strip() or row.startswith("#"):
            continue
        cells = [c.strip() for c in row.split("\t")]
        if len(cells) != 2 or cells[1] not in known:
            raise DataFileError(str(path), f"line {line}: expected a phrase, a tab and a "
                                           "known tag, affordance or type")  # fmt: skip
        out[cells[0]] = cells[1]
    return MappingProxyType(out)
