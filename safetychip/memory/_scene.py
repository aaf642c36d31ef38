"""Scene graphs of the episodic memory and their similarity.

A :class:`SceneGraph` is a small set of objects, each with a class and attributes (fragile,
sharp, hot, human, heavy …), and relation triples between them. :func:`scene_similarity`
compares two scenes in one of two ways.

**Whole scenes** (no targets): weighted Jaccard similarity (:data:`SCENE_WEIGHTS`) of three
feature sets:

* the object classes (``{"vase", "table"}``),
* the attributed classes, one ``(class, attribute)`` pair per attribute an object carries
  (``{("vase", "fragile")}``), so that sharing an attribute on the same kind of object counts,
  and the bare attributes (``{"fragile"}``), so that a fragile cup resembles a fragile vase,
* the relation triples with ids replaced by classes (``{("vase", "ON", "table")}``).

**Object-centred** (``targets``: the objects two commands act on): what makes an action
unsafe is the object it acts on and what is around that object, not the other twenty things
in the room, so the score weighs (:data:`OBJECT_WEIGHTS`):

* ``"hazards"``: the targets' hazard attributes (:data:`HAZARDS`: human, fragile, sharp,
  hot), so that pushing a fragile cup resembles pushing a fragile vase,
* ``"object"``: the targets' classes and their other attributes (``{"vase", "glass"}``),
* ``"neighbours"``: the targets' relations, one ``(relation, class)`` and one
  ``(relation, attribute)`` per relation with another object, outgoing relations as they
  are and incoming ones marked ``"<"`` (``{("ON", "shelf"), ("ON", "heavy")}``),
* ``"scene"``: the whole-scene similarity above, for the rest of the room.

A command that acts on no object of its scene has empty target features: against a command
that acts on one it scores low, against another such command the whole scenes decide.

Examples
--------
>>> vase = SceneGraph.of({"vase": ["fragile"], "table": []}, [("vase", "ON", "table")])
>>> cup = SceneGraph.of({"cup": ["fragile"], "table": []}, [("cup", "ON", "table")])
>>> scene_similarity(vase, vase), round(scene_similarity(vase, cup), 3)
(1.0, 0.267)
>>> round(scene_similarity(vase, cup, targets=("vase", "cup")), 3)  # both act on a fragile thing
0.653
>>> round(scene_similarity(vase, cup, targets=("table", "cup")), 3)
0.053
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

__all__ = [
    "HAZARDS",
    "OBJECT_WEIGHTS",
    "SCENE_WEIGHTS",
    "SceneGraph",
    "SceneObject",
    "check_text",
    "scene_similarity",
]

#: The weights of the three feature sets of the whole-scene :func:`scene_similarity`.
SCENE_WEIGHTS: Mapping[str, float] = {"classes": 0.3, "attributes": 0.5, "relations": 0.2}

#: The weights of the object-centred :func:`scene_similarity` (see the module's docstring).
OBJECT_WEIGHTS: Mapping[str, float] = {
    "hazards": 0.4, "object": 0.2, "neighbours": 0.2, "scene": 0.2,
}  # fmt: skip

#: The attributes that make an object a hazard or vulnerable to one, in order of concern: a
#: command's target is preferably such an object (:func:`~safetychip.memory.acted_object`).
HAZARDS: tuple[str, ...] = ("human", "fragile", "sharp", "hot")

#: Control characters (tab and newline aside: NUL, the ESC of ANSI escapes, DEL …) and lone
#: surrogates, which no command, class or attribute holds.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def check_text(name: str, value: object) -> str:
    r"""*value*, if it is a non-empty string of printable text; else a ValueError naming the
    field *name*.

    Examples
    --------
    >>> check_text("SceneObject.cls", "vase")
    'vase'
    >>> check_text("a command", "push\x1b[2Jthe vase")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a command must be printable text, got 'push\x1b[2Jthe vase' ...: remove it
    """
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string, got {_short(value)}")
    bad = _UNPRINTABLE.search(value)
    if bad:
        raise ValueError(f"{name} must be printable text, got {_short(value)} (a control "
                         f"character or lone surrogate at {bad.start()}): remove it")  # fmt: skip
    return value


def _short(value: object) -> str:
    """*value*'s repr, at most 80 characters of it."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}…"


def _words_of(name: str, value: object) -> frozenset[str]:
    """The words of the collection *value* (a list, tuple or set of strings: a bare string
    is refused, never split into letters)."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        hint = f" (write [{value!r}])" if isinstance(value, str) else ""
        raise ValueError(f"{name} must be a list of words, got {_short(value)}{hint}")
    return frozenset(_word(check_text(name, word)) for word in value)


@dataclass(frozen=True)
class SceneObject:
    """One object of a scene.

    Attributes
    ----------
    id : str
        Unique within its scene; relations refer to it.
    cls : str
        The object's class (``"vase"``), lower case.
    attributes : frozenset of str
        Its safety-relevant attributes (``"fragile"``, ``"sharp"``, ``"hot"``, ``"human"``,
        ``"heavy"`` …), lower case.
    """

    id: str
    cls: str
    attributes: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        check_text("SceneObject.id", self.id)
        object.__setattr__(self, "cls", _word(check_text("SceneObject.cls", self.cls)))
        object.__setattr__(self, "attributes", _words_of("SceneObject.attributes",
                                                         self.attributes))  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"id": self.id, "class": self.cls, "attributes": sorted(self.attributes)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SceneObject:
        """Inverse of :meth:`to_dict` (``class`` and ``attributes`` as there)."""
        if not isinstance(data, Mapping) or "id" not in data or "class" not in data:
            raise ValueError(f"a scene object needs 'id' and 'class' (and a list "
                             f"'attributes'): got {_short(data)}")  # fmt: skip
        return cls(data["id"], data["class"], data.get("attributes", ()))


@dataclass(frozen=True)
class SceneGraph:
    """Objects and the relations between them: ``(subject id, relation, object id)``.

    Raises
    ------
    ValueError
        If two objects share an id, or a relation names an id no object has.
    """

    objects: tuple[SceneObject, ...] = ()
    relations: tuple[tuple[str, str, str], ...] = ()

    def __post_init__(self) -> None:
        if not all(isinstance(o, SceneObject) for o in self.objects):
            raise ValueError(f"SceneGraph.objects must be SceneObjects, got {_short(self.objects)}")
        ids = [o.id for o in self.objects]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"scene object ids must be unique: {', '.join(twice)} repeated")
        relations = tuple(
            (check_text("a relation's subject", s), check_text("a relation", r).upper(),
             check_text("a relation's object", o))
            for s, r, o in self.relations
        )  # fmt: skip
        dangling = sorted({x for s, _, o in relations for x in (s, o) if x not in ids})
        if dangling:
            raise ValueError(
                f"scene relations name ids no object has: {', '.join(dangling)}; add those "
                "objects or drop the relations"
            )
        object.__setattr__(self, "relations", relations)

    @classmethod
    def of(cls, objects: Mapping[str, Iterable[str]],
           relations: Sequence[tuple[str, str, str]] = ()) -> SceneGraph:  # fmt: skip
        """A scene from ``{id: attributes}``, each object's class being its id.

        Examples
        --------
        >>> SceneGraph.of({"vase": ["fragile"]})
        SceneGraph(vase[fragile])
        """
        things = tuple(SceneObject(i, i, a) for i, a in objects.items())  # type: ignore[arg-type]
        return cls(things, tuple(relations))

    @property
    def classes(self) -> frozenset[str]:
        """The object classes."""
        return frozenset(o.cls for o in self.objects)

    @cached_property
    def features(self) -> dict[str, frozenset[Any]]:
        """The three feature sets :func:`scene_similarity` compares (computed once)."""
        cls = {o.id: o.cls for o in self.objects}
        attributes = {(o.cls, a) for o in self.objects for a in o.attributes}
        return {
            "classes": self.classes,
            "attributes": frozenset(attributes | {a for _, a in attributes}),
            "relations": frozenset((cls[s], r, cls[o]) for s, r, o in self.relations),
        }

    def around(self, target: str | None) -> dict[str, frozenset[Any]]:
        """The object-centred feature sets of the object *target* (an id; None: no object)
        that :func:`scene_similarity` compares (see the module's docstring).

        Raises
        ------
        ValueError
            If *target* is not the id of an object of the scene.

        Examples
        --------
        >>> vase = SceneGraph.of({"vase": ["fragile", "glass"], "shelf": ["heavy"]},
        ...                      [("vase", "ON", "shelf")])
        >>> for name, features in vase.around("vase").items():
        ...     print(name, sorted(features))
        hazards ['fragile']
        object ['glass', 'vase']
        neighbours [('ON', 'heavy'), ('ON', 'shelf')]
        """
        if target is None:
            return {"hazards": frozenset(), "object": frozenset(), "neighbours": frozenset()}
        things = {o.id: o for o in self.objects}
        if target not in things:
            raise ValueError(f"{target!r} is not an object of {self!r}")
        acted = things[target]
        neighbours = set()
        for s, r, o in self.relations:
            if target in (s, o) and s != o:
                other, relation = (things[o], r) if s == target else (things[s], "<" + r)
                neighbours |= {(relation, other.cls)} | {(relation, a) for a in other.attributes}
        hazards = acted.attributes & set(HAZARDS)
        return {"hazards": frozenset(hazards),
                "object": frozenset(acted.attributes - hazards | {acted.cls}),
                "neighbours": frozenset(neighbours)}  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"objects": [o.to_dict() for o in self.objects],
                "relations": [list(r) for r in self.relations]}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SceneGraph:
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        ValueError
            If an object or relation is malformed, or a relation's id is dangling.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f'a scene must be {{"objects": [...], "relations": [...]}}, got '
                             f"{_short(data)}")  # fmt: skip
        objects, triples = data.get("objects", ()), data.get("relations", ())
        for name, value in (("objects", objects), ("relations", triples)):
            if not isinstance(value, (list, tuple)):
                raise ValueError(f"a scene's {name!r} must be a list, got {_short(value)}")
        if not all(isinstance(t, (list, tuple)) and len(t) == 3 for t in triples):
            raise ValueError("scene relations must be [subject id, relation, object id] "
                             f"triples, got {_short(triples)}")  # fmt: skip
        relations = tuple((s, r, o) for s, r, o in triples)
        return cls(tuple(SceneObject.from_dict(o) for o in objects), relations)

    def __repr__(self) -> str:
        things = ", ".join(
            o.cls + (f"[{','.join(sorted(o.attributes))}]" if o.attributes else "")
            for o in self.objects
        )
        return f"SceneGraph({things}" + (f"; {len(self.relations)} relations)" if self.relations
                                         else ")")  # fmt: skip

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(o.id)}</td><td>{html.escape(o.cls)}</td>"
            f"<td>{html.escape(', '.join(sorted(o.attributes)))}</td></tr>"
            for o in self.objects
        )
        relations = "".join(f"<li>{html.escape(' '.join(r))}</li>" for r in self.relations)
        return (f"<table><tr><th>id</th><th>class</th><th>attributes</th></tr>{rows}</table>"
                f"<ul>{relations}</ul>")  # fmt: skip


def _word(text: str) -> str:
    return "_".join(text.lower().split())


def scene_similarity(a: SceneGraph, b: SceneGraph, *,
                     targets: tuple[str | None, str | None] | None = None,
                     weights: Mapping[str, float] | None = None) -> float:  # fmt: skip
    """Weighted Jaccard similarity of two scenes, in [0, 1]: of the whole scenes, or centred
    on the objects two commands act on (see the module's docstring).

    For each feature set the Jaccard index ``|A ∩ B| / |A ∪ B|`` is taken; the result is
    their weighted mean over the feature sets that are not empty in both scenes (two scenes
    without relations are compared on classes and attributes alone). Two empty scenes are
    identical (1.0). The measure is symmetric, 1 for equal feature sets and 0 when the
    scenes share no class, attribute or relation.

    Parameters
    ----------
    a, b : SceneGraph
    targets : pair of str or None, optional
        The ids of the objects the two commands act on (None for a command acting on no
        object of its scene); without it, the whole scenes are compared.
    weights : mapping, optional
        The weight of each feature set: :data:`SCENE_WEIGHTS` or :data:`OBJECT_WEIGHTS` by
        default.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If a target id is not an object of its scene.

    Examples
    --------
    >>> knife = SceneGraph.of({"knife": ["sharp"]})
    >>> scene_similarity(knife, SceneGraph.of({"sofa": []}))
    0.0
    >>> scene_similarity(SceneGraph(), SceneGraph())
    1.0
    >>> scene_similarity(knife, knife, targets=("knife", None))
    0.25
    """
    if targets is None:
        return _weighted_jaccard(a.features, b.features, weights or SCENE_WEIGHTS)
    fa, fb = a.around(targets[0]), b.around(targets[1])
    whole = scene_similarity(a, b)
    return _weighted_jaccard(fa, fb, weights or OBJECT_WEIGHTS, {"scene": whole})


def _weighted_jaccard(fa: Mapping[str, frozenset[Any]], fb: Mapping[str, frozenset[Any]],
                      weights: Mapping[str, float],
                      given: Mapping[str, float] | None = None) -> float:  # fmt: skip
    """The weighted mean of the Jaccard indices of the feature sets not empty in both (and
    of the *given* similarities), 1.0 when there are none."""
    total = score = 0.0
    for name, weight in weights.items():
        if given and name in given:
            similarity = given[name]
        elif union := fa[name] | fb[name]:
            similarity = len(fa[name] & fb[name]) / len(union)
        else:
            continue
        total += weight
        score += weight * similarity
    return min(score / total, 1.0) if total else 1.0
