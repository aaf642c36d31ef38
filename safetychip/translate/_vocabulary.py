"""The environment's vocabulary: the names a constraint may mention, and the predicates.

A :class:`Vocabulary` knows the unique names of a scene's objects and rooms, which of them
are rooms, the predicates with their arity, and the *phrases* a person may use for each
name: the name with spaces (``book shelf``), run together (``bookshelf``), and common
synonyms (``tv``, ``couch``, ``coffee maker``). Phrases are compared word by word after
:func:`phrase_key` (lower case, articles dropped, plurals made singular).

**Class names.** A class shared by several instances (``sink`` for ``kitchen_sink`` and
``bathroom_sink``) is a name of its own, meaning *any* instance: ``is_open(window)`` holds
when at least one window is open, and in a predicate of two arguments each argument that is
a class name means some instance of it (``is_in(knife,sink)``: the knife is in some sink).
People say "never open the window" of a flat with two windows and mean every one of them.
An environment that evaluates such atoms says so (VirtualHome does); :attr:`Vocabulary.instances`
lists each class name's instances. A predicate holds of a class name only when it can hold of
every instance (:meth:`Vocabulary.able`). A class name that is also some object's unique name
(a lone ``lamp`` beside a ``floor_lamp``) stays that object's name.

Examples
--------
>>> v = Vocabulary.from_names(["book", "book_shelf", "kitchen", "kitchen_sink",
...                            "bathroom", "bathroom_sink"], rooms=["kitchen", "bathroom"])
>>> v.lookup("the Bookshelf"), v.lookup("books"), v.lookup("sinks")
(('book_shelf',), ('book',), ('sink',))
>>> v.instances["sink"]
('bathroom_sink', 'kitchen_sink')
>>> v.arity("is_on")
2
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .._io import read_text
from ..errors import DataFileError, VocabularyError
from ..ltl import PREDICATES, Formula, Not, Proposition, ap
from ..paths import SPOT_DEMO_CONSTRAINTS

__all__ = [
    "PREDICATES",
    "SAME_STATE",
    "SYNONYMS",
    "NEEDS",
    "NAMED_VOCABULARIES",
    "Vocabulary",
    "load_vocabulary",
    "phrase_key",
    "singular",
]


#: Groups of phrases that name the same kind of thing (the first is the usual class name).
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("television", "tv", "telly"),
    ("book_shelf", "bookcase", "shelf"),
    ("sofa", "couch"),
    ("phone", "cellphone", "cell phone", "mobile phone", "telephone", "mobile", "cell_phone"),
    ("bedside_table", "nightstand", "night stand", "night table"),
    ("mail_box", "letterbox", "letter box", "postbox"),
    ("coffee_machine", "coffee maker", "coffeemaker"),
    ("fridge", "refrigerator", "ref", "icebox", "fridge freezer"),
    (
        "living_room",
        "lounge",
        "sitting room",
        "front room",
        "family room",
        "parlour",
        "parlor",
        "sala",
    ),  # "sala", "CR" (bathroom), "ref" (fridge): Philippine English
    ("lamp", "table lamp"),
    ("remote_control", "remote", "tv remote"),
    ("garbage_can", "trash can", "bin", "trash", "dustbin", "rubbish bin"),
    ("washing_machine", "washer"),
    ("front_door", "door", "entrance door"),
    ("stove", "cooker", "hob"),
    ("bathroom", "restroom", "washroom", "cr", "comfort room", "wc", "lavatory"),
    ("hallway", "corridor", "hall", "entryway", "foyer", "entrance hall"),
    ("dishwasher", "dish washer"),
    ("toilet", "loo"),
    ("bathtub", "tub", "bath"),
    ("alarm_clock", "alarm"),
    ("office_table", "desk"),
    ("faucet", "tap"),
)

#: Predicates that hold only of things with one of a scene's properties, and what they say of
#: their argument ("the sofa cannot be plugged in").
NEEDS: Mapping[str, tuple[frozenset[str], str]] = MappingProxyType({
    "is_open": (frozenset({"CAN_OPEN", "openable"}), "opened"),
    "is_switchedon": (frozenset({"HAS_SWITCH", "toggleable"}), "switched on"),
    "is_toggled": (frozenset({"toggleable"}), "turned on"),
    "is_broken": (frozenset({"breakable"}), "broken"),
    "is_sliced": (frozenset({"sliceable"}), "sliced"),
    "is_cooked": (frozenset({"cookable"}), "cooked"),
    "is_filled": (frozenset({"fillable"}), "filled"),
    "is_pluggedin": (frozenset({"HAS_PLUG"}), "plugged in"),
    "agent_sitting_on": (frozenset({"SITTABLE"}), "sat on"),
    "agent_lying_on": (frozenset({"LIEABLE"}), "lain on"),
    "is_worn": (frozenset({"CLOTHES"}), "worn"),
    "is_poured": (frozenset({"POURABLE", "DRINKABLE"}), "poured"),
})  # fmt: skip
# VirtualHome's properties are upper case (CAN_OPEN), AI2-THOR's affordances lower case
# (openable: safetychip.envs.thor); each scene's names carry only its own.

#: Predicates the clause lexicon writes, and the predicate (and its truth) that says the same
#: state in a vocabulary without them, over the last arguments: AI2-THOR's ``is_toggled`` for
#: ``is_switchedon``, clean is not dirty, and a liquid poured on a thing
#: (``is_poured_on(water,laptop)``) leaves it wet, whatever the liquid (``is_wet(laptop)``;
#: :meth:`Vocabulary.native`).
SAME_STATE: Mapping[str, tuple[str, bool]] = MappingProxyType({
    "is_switchedon": ("is_toggled", True), "is_clean": ("is_dirty", False),
    "is_poured_on": ("is_wet", True),
})  # fmt: skip

_ROOM_WORDS = frozenset(
    """
    kitchen bathroom bedroom living_room hallway corridor dining_room office garage
    laundry_room home_office hall
    """.split()
)
_DROP = re.compile(r"\b(?:the|a|an|your|my|our|that|this|these|those)\b")
_WORD = re.compile(r"[a-z0-9]+")
_INSTANCE = re.compile(r"_(\d+)$")
_IRREGULAR_PLURALS = {
    "shelves": "shelf",
    "knives": "knife",
    "loaves": "loaf",
    "halves": "half",
    "leaves": "leaf",
    "mice": "mouse",
    "feet": "foot",
    "children": "child",
    "people": "person",
    "teeth": "tooth",
    "wolves": "wolf",
}
# Words whose final s is not a plural ending.
_KEEP_S = frozenset(
    """
    glass grass dress bus gas lens pants this is was has series species news always
    perhaps towards
    """.split()
)


def singular(word: str) -> str:
    """A crude singular of an English noun, the same for both sides of a comparison.

    Examples
    --------
    >>> [singular(w) for w in ["keys", "boxes", "bananas", "glasses", "cherries", "dress"]]
    ['key', 'box', 'banana', 'glass', 'cherry', 'dress']
    """
    if len(word) <= 3 or word in _KEEP_S:
        return word
    for plural, one in _IRREGULAR_PLURALS.items():
        if word.endswith(plural):  # also compounds: bookshelves
            return word[: len(word) - len(plural)] + one
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us")):
        return word[:-1]
    return word


def phrase_key(phrase: str) -> tuple[str, ...]:
    """The words of *phrase*, lower case, without articles, each made singular.

    Underscores separate words, as in unique names.

    Examples
    --------
    >>> phrase_key("the Book_Shelves")
    ('book', 'shelf')
    """
    text = _DROP.sub(" ", phrase.lower().replace("_", " "))
    return tuple(singular(w) for w in _WORD.findall(text))


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """The names and predicates of one environment.

    :meth:`Vocabulary.of` is the one way to say "the vocabulary of this scene": it takes an
    environment, a loaded scene, a vocabulary file or ``"spot_demo"``
    (:meth:`from_scene`, :meth:`from_names`, :meth:`from_file` and :func:`load_vocabulary`
    do the work). The translator takes the vocabulary it is given: loading a scene by name is
    the environments' business (``Vocabulary.of(safetychip.envs.load_scene(name))``).

    Attributes
    ----------
    name : str
        Where it came from (a scene name, a file name).
    names : tuple of str
        Unique names of objects and rooms, and the class names shared by several of them
        (see :attr:`instances`), sorted.
    rooms : frozenset of str
        The names that are rooms (a class name whose instances are all rooms is one).
    predicates : mapping of str to int
        Predicate name -> number of arguments.
    classes : mapping of str to str
        Unique name -> its class (``kitchen_sink`` -> ``sink``).
    properties : mapping of str to frozenset of str
        Unique name -> the scene's properties of it (``HAS_PLUG``, ``SITTABLE``…), when the
        scene has them; a predicate of :data:`NEEDS` holds only of the names that have one of
        its properties (nothing is checked for a name whose properties are unknown).
    instances : mapping of str to tuple of str
        Class name -> its instances' unique names, for every class of :attr:`classes` that
        has two or more instances and is not itself a unique name; such a class name is one
        of :attr:`names` and means *any* of its instances (computed, not given).
    kinds : mapping of str to tuple of str
        Kind word -> the unique names of that kind, when the scene has them (AI2-THOR's
        ``"electronic device"``): "an electronic device" is read as each of them.
    """

    name: str
    names: tuple[str, ...]
    rooms: frozenset[str] = frozenset()
    predicates: Mapping[str, int] = field(default_factory=lambda: PREDICATES)
    classes: Mapping[str, str] = field(default_factory=dict)
    properties: Mapping[str, frozenset[str]] = field(default_factory=dict)
    kinds: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    instances: Mapping[str, tuple[str, ...]] = field(default_factory=dict, init=False, repr=False)
    _index: dict[tuple[str, ...], tuple[str, ...]] = field(
        default_factory=dict, init=False, repr=False
    )

    def __post_init__(self) -> None:
        bad = [n for n in self.names if not re.fullmatch(r"[A-Za-z0-9_.\-]+", n)]
        if bad:
            raise VocabularyError(
                f"vocabulary {self.name!r}: names must be identifiers such as 'book_shelf', "
                f"got {', '.join(map(repr, bad[:5]))}"
            )
        if not self.names:
            raise VocabularyError(f"vocabulary {self.name!r} has no names")
        by_class: dict[str, list[str]] = {}
        for n in self.names:
            if n in self.classes:
                by_class.setdefault(self.classes[n], []).append(n)
        # A class of several names is a name of its own, unless an object of that class is
        # named by it ("lamp" beside "floor_lamp"); a name given back without a class of its
        # own (a vocabulary built from another's names) is taken as the class it names.
        instances = {
            cls: tuple(sorted(members))
            for cls, members in by_class.items()
            if len(members) > 1
            and cls not in self.classes
            and re.fullmatch(r"[A-Za-z0-9_.\-]+", cls)
        }
        unique = frozenset(self.names) - set(instances)
        object.__setattr__(self, "instances", MappingProxyType(instances))
        object.__setattr__(self, "names", tuple(sorted(unique | set(instances))))
        rooms = {c for c, members in instances.items() if set(members) <= self.rooms}
        object.__setattr__(self, "rooms", frozenset(self.rooms) | rooms)
        index: dict[tuple[str, ...], set[str]] = {}

        def add(phrase: str, name: str) -> None:
            key = phrase_key(phrase)
            if key:
                index.setdefault(key, set()).add(name)

        for n in unique:
            add(n, n)
            add(n.replace("_", ""), n)  # run together: bookshelf, mailbox
            cls = self.classes.get(n) or n
            meant = cls if cls in instances else n  # "the window": any window
            add(cls, meant)
            add(cls.replace("_", ""), meant)
            for group in SYNONYMS:
                if cls in group or n in group:
                    for phrase in group:
                        add(phrase, meant)
        # An exact name always wins over a class or synonym shared with other names.
        exact = {phrase_key(n): n for n in self.names}
        final = {k: (exact[k],) if k in exact else tuple(sorted(v)) for k, v in index.items()}
        object.__setattr__(self, "_index", final)

    # -- constructors -----------------------------------------------------------------------

    @classmethod
    def of(cls, source: Any) -> Vocabulary:
        """The vocabulary of *source*: an environment (its ``scene``), a loaded scene, a
        vocabulary (as it is), ``"spot_demo"`` or a file with one name per line.

        Parameters
        ----------
        source : Env, scene, Vocabulary, str or path
            An environment with a ``scene`` attribute (a
            :class:`~safetychip.envs.VirtualHomeEnv`, a
            :class:`~safetychip.envs.thor.ThorEnv`), a scene such as
            :func:`safetychip.envs.load_scene` returns (see :meth:`from_scene`), or a name or
            path for :func:`load_vocabulary`.

        Raises
        ------
        DataFileError
            If *source* is a name or path that is neither ``"spot_demo"`` nor a vocabulary
            file (the message says how to load a scene by name).

        Examples
        --------
        >>> from safetychip.envs import VirtualHomeEnv, load_scene
        >>> Vocabulary.of(load_scene("apartment_1"))
        <Vocabulary 'apartment_1': 125 names (5 rooms, 12 class names), 17 predicates>
        >>> Vocabulary.of(VirtualHomeEnv("apartment_2")).name, Vocabulary.of("spot_demo").name
        ('apartment_2', 'spot_demo')
        >>> from safetychip.envs.thor import ThorEnv
        >>> Vocabulary.of(ThorEnv("FloorPlan1"))  # objects, liquids, the class name stove
        <Vocabulary 'FloorPlan1': 64 names (0 rooms, 1 class names), 12 predicates>
        """
        if isinstance(source, (Vocabulary, str, os.PathLike)):
            return load_vocabulary(source)
        scene = getattr(source, "scene", source)
        return cls.from_scene(scene)

    @classmethod
    def from_names(
        cls,
        names: Iterable[str],
        *,
        rooms: Iterable[str] | None = None,
        predicates: Mapping[str, int] = PREDICATES,
        name: str = "<names>",
    ) -> Vocabulary:
        """A vocabulary from unique names.

        Without *rooms*, names such as ``kitchen`` or ``living_room`` are taken as rooms. A
        name ``<room>_<class>`` or ``<room>_<class>_<k>`` gets the class ``<class>``.
        """
        unique = tuple(sorted(dict.fromkeys(names)))
        room_set = (
            frozenset(rooms)
            if rooms is not None
            else frozenset(n for n in unique if n in _ROOM_WORDS)
        )
        classes = {}
        for n in unique:
            base = _INSTANCE.sub("", n)
            for room in sorted(room_set, key=len, reverse=True):
                if base.startswith(room + "_") and base != room:
                    base = base[len(room) + 1 :]
                    break
            classes[n] = base
        return cls(
            name, unique, room_set, MappingProxyType(dict(predicates)), MappingProxyType(classes)
        )

    @classmethod
    def from_scene(cls, scene: Any) -> Vocabulary:
        """The vocabulary of a loaded scene, such as a :class:`safetychip.envs.Scene`.

        Any object with ``name``, ``rooms`` (the room names), ``names`` (a mapping node id ->
        unique name, rooms included) and ``node(id)`` (a mapping with the node's
        ``class_name``) will do, such as :class:`~safetychip.envs.thor.ThorScene`; the
        environments are not imported. A scene's ``predicates`` (name -> arity), when it has
        them, replace :data:`PREDICATES`. A node's ``properties`` say what :data:`NEEDS`
        allows of it (VirtualHome's ``CAN_OPEN``…, AI2-THOR's affordances ``openable``…).

        Raises
        ------
        TypeError
            If *scene* is a name or a path rather than a loaded scene.

        Examples
        --------
        >>> from safetychip.envs import load_scene
        >>> Vocabulary.from_scene(load_scene("apartment_1"))
        <Vocabulary 'apartment_1': 125 names (5 rooms, 12 class names), 17 predicates>
        """
        if isinstance(scene, (str, os.PathLike)):
            raise TypeError(
                f"Vocabulary.from_scene takes a loaded scene, got the name {os.fspath(scene)!r}: "
                f"load it first, e.g. Vocabulary.from_scene(safetychip.envs.load_scene("
                f"{os.fspath(scene)!r}))"
            )
        classes = {n: scene.node(i)["class_name"] for i, n in scene.names.items()}
        names = tuple(sorted(scene.names.values()))
        predicates = getattr(scene, "predicates", PREDICATES)
        properties = {
            n: frozenset(scene.node(i)["properties"])
            for i, n in scene.names.items()
            if "properties" in scene.node(i)
        }
        return cls(
            scene.name,
            names,
            frozenset(scene.rooms),
            predicates,
            MappingProxyType(classes),
            MappingProxyType(properties),
            MappingProxyType(dict(getattr(scene, "kinds", {}))),
        )

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Vocabulary:
        """Read one name per line; blank lines and ``#`` comments are skipped.

        Raises
        ------
        DataFileError
            If the file cannot be read or names nothing.
        """
        source = Path(path)
        try:
            text = read_text(source, DataFileError)
        except FileNotFoundError:
            raise DataFileError(str(source), "no such vocabulary file") from None
        except OSError as err:
            raise DataFileError(str(source), f"cannot read the vocabulary: {err}") from None
        names = []
        for number, line in enumerate(text.splitlines(), 1):
            item = line.split("#", 1)[0].strip()
            if not item:
                continue
            if not re.fullmatch(r"[A-Za-z0-9_.\-]+", item):
                raise DataFileError(
                    str(source),
                    f"line {number}: {item[:60]!r}{'…' * (len(item) > 60)} is not a name such "
                    "as 'book_shelf' "
                    "(one name per line)",
                )
            names.append(item)
        if not names:
            raise DataFileError(str(source), "the vocabulary file names nothing")
        return cls.from_names(names, name=source.stem)

    # -- queries ----------------------------------------------------------------------------

    def lookup(self, phrase: str | tuple[str, ...]) -> tuple[str, ...]:
        """The names *phrase* may mean exactly (by name, class or synonym); () if none."""
        key = phrase if isinstance(phrase, tuple) else phrase_key(phrase)
        return self._index.get(key, ())

    @property
    def phrases(self) -> Mapping[tuple[str, ...], tuple[str, ...]]:
        """Every known phrase key -> the names it may mean."""
        return MappingProxyType(self._index)

    def arity(self, predicate: str) -> int:
        """Number of arguments of *predicate*.

        Raises
        ------
        VocabularyError
            If the predicate is unknown.
        """
        try:
            return self.predicates[predicate]
        except KeyError:
            raise VocabularyError(
                f"unknown predicate {predicate!r}; {self.name} has {', '.join(self.predicates)}"
            ) from None

    def check(self, formula: Formula) -> None:
        """Check every atom of *formula*: known predicate, right arity, known names.

        Raises
        ------
        VocabularyError
            Naming the atom and what is wrong, with the closest names.

        Examples
        --------
        >>> from safetychip.ltl import parse
        >>> v = Vocabulary.from_names(["fridge", "kitchen"])
        >>> v.check(parse('G !"is_open(fridge)"'))
        >>> v.check(parse('G !"is_open(fridge, kitchen)"'))
        Traceback (most recent call last):
        ...
        safetychip.errors.VocabularyError: in 'is_open(fridge,kitchen)': is_open takes 1
        argument, got 2
        """
        for atom in sorted(formula.atoms()):
            try:
                prop = Proposition.parse(atom)
            except Exception:
                raise VocabularyError(
                    f"{atom!r} is not a proposition such as 'agent_at(kitchen)'"
                ) from None
            if not prop.args:
                raise VocabularyError(
                    f"{atom!r} is not a grounded predicate; expected one of "
                    f"{', '.join(f'{p}(…)' for p in self.predicates)}"
                )
            if prop.predicate not in self.predicates:
                import difflib

                close = difflib.get_close_matches(prop.predicate, self.predicates, n=1)
                hint = f"; did you mean {close[0]}?" if close else ""
                raise VocabularyError(
                    f"in {atom!r}: unknown predicate {prop.predicate!r}{hint} "
                    f"({self.name} has {', '.join(self.predicates)})"
                )
            want = self.predicates[prop.predicate]
            if len(prop.args) != want:
                raise VocabularyError(
                    f"in {atom!r}: {prop.predicate} takes {want} argument"
                    f"{'s' * (want != 1)}, got {len(prop.args)}"
                )
            if len(prop.args) == 2 and prop.args[0] == prop.args[1]:
                raise VocabularyError(
                    f"in {atom!r}: a thing cannot be {prop.predicate}(…) itself; check which "
                    "object each argument names"
                )
            for arg in prop.args:
                if arg not in self.names:
                    near = self.closest(arg)
                    hint = f"; closest: {', '.join(near)}" if near else ""
                    raise VocabularyError(
                        f"in {atom!r}: {arg!r} is not a name in {self.name}{hint}"
                    )
            if not self.able(prop.predicate, prop.args[0]):
                needs, what = NEEDS[prop.predicate]
                able = ", ".join(self.able_names(prop.predicate)) or "nothing"
                lacking = [n for n in self.instances.get(prop.args[0], ()) if not
                           self.able(prop.predicate, n)]  # fmt: skip
                who = f"{', '.join(lacking)} of the class {{}} has" if lacking else "it has"
                known = needs & frozenset().union(*self.properties.values())
                raise VocabularyError(
                    f"in {atom!r}: {prop.args[0]} cannot be {what} in {self.name} "
                    f"({who.format(prop.args[0])} no {' or '.join(sorted(known or needs))} "
                    "property); "
                    f"what can: {able}"
                )

    def able(self, predicate: str, name: str) -> bool:
        """Whether *predicate* can hold of *name*: true unless the predicate is one of
        :data:`NEEDS` and *name* has known properties, none of them one it needs. A class name
        (:attr:`instances`) is able when every instance is.

        Examples
        --------
        >>> v = Vocabulary("s", ("sofa", "toaster"),
        ...                properties={"sofa": frozenset({"SITTABLE"}), "toaster": frozenset()})
        >>> v.able("agent_sitting_on", "sofa"), v.able("agent_sitting_on", "toaster")
        (True, False)
        """
        if name in self.instances:
            return all(self.able(predicate, n) for n in self.instances[name])
        props = self.properties.get(name)
        return predicate not in NEEDS or props is None or bool(props & NEEDS[predicate][0])

    def able_names(self, predicate: str) -> tuple[str, ...]:
        """The names *predicate* can hold of, by their properties (see :meth:`able`); all
        names for a predicate that needs none."""
        if predicate not in NEEDS:
            return self.names
        return tuple(n for n in self.names if self.able(predicate, n))

    def closest(self, text: str, n: int = 3) -> tuple[str, ...]:
        """Up to *n* names spelled most like *text* (difflib), best first."""
        import difflib

        key = "_".join(phrase_key(text)) or text
        return tuple(difflib.get_close_matches(key, self.names, n=n, cutoff=0.4))

    def phrase(self, name: str) -> str:
        """How a name reads in English: ``book_shelf`` -> ``book shelf``."""
        return name.replace("_", " ")

    def native(self, formula: Formula) -> Formula:
        """*formula* with each atom whose predicate this vocabulary lacks but says in its own
        words (:data:`SAME_STATE`) written so; unchanged otherwise.

        Examples
        --------
        >>> from safetychip.ltl import parse
        >>> v = Vocabulary("thor", ("stove_burner", "plate", "water"),
        ...                predicates={"is_toggled": 1, "is_dirty": 1, "is_wet": 1})
        >>> v.native(parse('G!"is_switchedon(stove_burner)" & F"is_clean(plate)"'))
        Formula('G!"is_toggled(stove_burner)" & F!"is_dirty(plate)"')
        >>> v.native(parse('G!"is_poured_on(water,stove_burner)"'))
        Formula('G!"is_wet(stove_burner)"')
        """
        from ._reading import substitute

        def own(atom: Formula) -> Formula:
            prop = Proposition.parse(str(atom.name))
            same, truth = SAME_STATE.get(prop.predicate, ("", True))
            if prop.predicate in self.predicates or same not in self.predicates:
                return atom
            said = ap(Proposition(same, prop.args[len(prop.args) - self.predicates[same] :]).name)
            return said if truth else Not(said)

        return substitute(formula, own)

    def is_class(self, name: str) -> bool:
        """Whether *name* is a class name shared by several instances (see :attr:`instances`).

        Examples
        --------
        >>> v = Vocabulary.from_names(["kitchen", "bedroom", "kitchen_light", "bedroom_light"])
        >>> v.is_class("light"), v.is_class("kitchen_light")
        (True, False)
        """
        return name in self.instances

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        return (
            f"<Vocabulary {self.name!r}: {len(self.names)} names ({len(self.rooms)} rooms"
            + (f", {len(self.instances)} class names" if self.instances else "")
            + f"), {len(self.predicates)} predicates>"
        )


#: Vocabularies known by name, each the names a constraint file's formulas mention:
#: ``"spot_demo"``, the Spot demo's ten constraints (``data/spot/demo_constraints.json``).
NAMED_VOCABULARIES: Mapping[str, Path] = MappingProxyType({"spot_demo": SPOT_DEMO_CONSTRAINTS})


@lru_cache(maxsize=32)
def _load(spec: str) -> Vocabulary:
    if spec in NAMED_VOCABULARIES:
        return _mentioned(NAMED_VOCABULARIES[spec], name=spec)
    path = Path(spec)
    if path.suffix != ".json" and path.is_file():
        return Vocabulary.from_file(path)
    named = " nor ".join(repr(n) for n in NAMED_VOCABULARIES)
    raise DataFileError(
        spec,
        f"not {named} nor a vocabulary file (one name per line); the vocabulary of an "
        "environment's scene is Vocabulary.of(scene), e.g. "
        f"Vocabulary.of(safetychip.envs.load_scene({spec!r}))",
    )


def _mentioned(source: Path, *, name: str) -> Vocabulary:
    """The vocabulary of the names that the formulas of the constraint file *source* mention."""
    try:
        entries = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise DataFileError(str(source), f"cannot read the constraints: {err}") from None
    from ..ltl import parse

    names: set[str] = set()
    for entry in entries:
        for prop in parse(entry["formula"]).propositions():
            names.update(prop.args)
    return Vocabulary.from_names(sorted(names), name=name)


def load_vocabulary(spec: str | os.PathLike[str] | Vocabulary) -> Vocabulary:
    """A vocabulary: a name of :data:`NAMED_VOCABULARIES` (``"spot_demo"``: the names the
    Spot demo's constraints mention), or a text file with one name per line; loaded once per
    process. A vocabulary is returned as it is. For an environment or a scene, use
    :meth:`Vocabulary.of`.

    Raises
    ------
    DataFileError
        If *spec* is neither a named vocabulary nor a readable vocabulary file.

    Examples
    --------
    >>> v = load_vocabulary("spot_demo")
    >>> v.names
    ('book', 'book_shelf', 'coffee_machine', 'hallway', 'lamp', 'mail_box', 'phone',
     'statue', 'television')
    """
    if isinstance(spec, Vocabulary):
        return spec
    return _load(os.fspath(spec))
