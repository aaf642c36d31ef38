"""Action frames: what an action did, not only what a command said.

An :class:`ActionFrame` is one action read in an environment's vocabulary: its verb, the
object it acts on (class and features), its target (class and features) and the state
changes that followed, from the environment's effect model. A feature is an affordance or
tag of the object's type (``breakable``, ``toggleable``, ``heat_source``, ``electronic``,
``flammable``…), a state it was in (``on``, ``open``, ``filled_with_water``…) or
``holds_<feature>`` for what rests in or on it. A state change is ``role:state`` (gained) or
``role:-state`` (lost), the role being ``object``, ``target`` or ``other``
(``object:broken``: the thrown egg broke; ``target:wet``: the laptop got wet).

Frames are compared by :func:`frame_similarity` (verb, object, target, state changes), so
"throw the bat near the lamp" and "place the bat near the lamp" differ in two of four
parts however alike the sentences are; and a rule over affordances (a
:class:`~safetychip.memory.Rule` with an ``effect``) covers every object that has the
features, whatever its class (:func:`effect_matches`).

Errors: :class:`~safetychip.errors.ActionFrameError` for a frame without a verb or with a
malformed field.

Examples
--------
>>> throw = ActionFrame("throw", "egg", ("breakable", "food"), "counter_top", ("receptacle",),
...                     ("object:broken",))
>>> put = ActionFrame("put", "egg", ("breakable", "food"), "counter_top", ("receptacle",))
>>> round(frame_similarity(throw, put), 2), frame_similarity(throw, throw)
(0.4, 1.0)
>>> [effect_matches([f], "broken", ("breakable",)) for f in (throw, put)]
[True, False]
>>> ActionFrame("")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
safetychip.errors.ActionFrameError: an action frame needs a verb ...
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ActionFrameError
from ._scene import check_text

__all__ = [
    "FRAME_WEIGHTS", "ROLES", "ActionFrame", "effect_matches", "frame_similarity",
    "frames_similarity",
]  # fmt: skip

#: The roles a state change can fall on.
ROLES = ("object", "target", "other")

#: The weights of :func:`frame_similarity`'s parts.
FRAME_WEIGHTS: Mapping[str, float] = {"verb": 0.3, "object": 0.25, "target": 0.15,
                                      "effects": 0.3}  # fmt: skip

_FIELDS = ("verb", "object", "affordances", "target", "target_affordances", "effects")


def _words(name: str, value: object) -> tuple[str, ...]:
    """*value* (a list of words) as a sorted tuple of lower-case words; a bare string is
    refused, never split into letters."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        hint = f" (write [{value!r}])" if isinstance(value, str) else ""
        raise ActionFrameError(f"ActionFrame.{name} must be a list of words, got "
                               f"{value!r:.80}{hint}", value)  # fmt: skip
    words = set()
    for word in value:
        try:
            words.add("_".join(check_text(f"ActionFrame.{name}", word).lower().split()))
        except ValueError as error:
            raise ActionFrameError(str(error), word) from None
    return tuple(sorted(words))


@dataclass(frozen=True)
class ActionFrame:
    """One action: verb, object, target and the state changes it caused.

    Attributes
    ----------
    verb : str
        The environment's verb (``"throw"``, ``"toggleon"``, ``"pour"``); required.
    object : str
        The class of the object acted on (``"egg"``); empty for none.
    affordances : tuple of str
        The object's features (see the module notes), sorted.
    target : str
        The class of the target (``"counter_top"``: what is thrown at, poured onto, put in
        or on); empty for none.
    target_affordances : tuple of str
        The target's features, sorted.
    effects : tuple of str
        The state changes, ``role:state`` or ``role:-state``, sorted.

    Raises
    ------
    ActionFrameError
        If the verb is missing or empty, or a field is malformed (the message names it).
    """

    verb: str
    object: str = ""
    affordances: tuple[str, ...] = ()
    target: str = ""
    target_affordances: tuple[str, ...] = ()
    effects: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.verb, str) or not self.verb.strip():
            raise ActionFrameError(
                f"an action frame needs a verb (what was done, e.g. 'throw'), got "
                f"{self.verb!r:.80}", self.verb)  # fmt: skip
        for name in ("verb", "object", "target"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise ActionFrameError(f"ActionFrame.{name} must be a string, got "
                                       f"{value!r:.80}", value)  # fmt: skip
            if value.strip():
                try:
                    value = "_".join(check_text(f"ActionFrame.{name}", value).lower().split())
                except ValueError as error:
                    raise ActionFrameError(str(error), value) from None
            object.__setattr__(self, name, value.strip())
        for name in ("affordances", "target_affordances", "effects"):
            object.__setattr__(self, name, _words(name, getattr(self, name)))
        for effect in self.effects:
            role = effect.split(":", 1)[0]
            if ":" not in effect or role not in ROLES or not effect.split(":", 1)[1].strip("-"):
                raise ActionFrameError(
                    f"ActionFrame.effects: {effect!r} is not 'role:state' or 'role:-state' "
                    f"with a role of {', '.join(ROLES)}", effect, ROLES)  # fmt: skip

    def features(self, role: str) -> frozenset[str]:
        """The class and features of the object in *role* (``object`` or ``target``; empty
        for ``other`` and for a role the frame does not fill)."""
        if role == "object" and self.object:
            return frozenset((self.object, *self.affordances))
        if role == "target" and self.target:
            return frozenset((self.target, *self.target_affordances))
        return frozenset()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (lists for the tuples).

        Examples
        --------
        >>> f = ActionFrame("pour", "mug", ("fillable",), "laptop", ("electronic", "on"),
        ...                 ("target:wet",))
        >>> ActionFrame.from_dict(f.to_dict()) == f
        True
        """
        return {name: list(v) if isinstance(v := getattr(self, name), tuple) else v
                for name in _FIELDS}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ActionFrame:
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        ActionFrameError
            If *data* is not a mapping, lacks the verb or has unknown keys.
        """
        if not isinstance(data, Mapping):
            raise ActionFrameError(f"an action frame must be a mapping with a 'verb', got "
                                   f"{data!r:.80}", data)  # fmt: skip
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            raise ActionFrameError(f"an action frame has unknown {', '.join(unknown)}: its "
                                   f"fields are {', '.join(_FIELDS)}", unknown[0],
                                   _FIELDS)  # fmt: skip
        if "verb" not in data:
            raise ActionFrameError(f"an action frame needs a verb, got {dict(data)!r:.120}",
                                   None, ("verb",))  # fmt: skip
        return cls(**data)

    def __str__(self) -> str:
        parts = [self.verb, self.object]
        if self.target:
            parts += ["→", self.target]
        changes = f" [{', '.join(self.effects)}]" if self.effects else ""
        return " ".join(p for p in parts if p) + changes


def _jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def frame_similarity(a: ActionFrame, b: ActionFrame, *,
                     weights: Mapping[str, float] = FRAME_WEIGHTS) -> float:  # fmt: skip
    """How alike two frames are, in [0, 1]: the :data:`FRAME_WEIGHTS`-weighted mean of the
    verbs' equality and the Jaccard indices of the objects' and targets' class and features
    and of the state changes (two frames without state changes agree on them).

    Examples
    --------
    >>> vase = ActionFrame("throw", "vase", ("breakable", "glass"), effects=("object:broken",))
    >>> bowl = ActionFrame("throw", "bowl", ("breakable", "receptacle"),
    ...                    effects=("object:broken",))
    >>> round(frame_similarity(vase, bowl), 2)
    0.8
    """
    parts = {
        "verb": float(a.verb == b.verb),
        "object": _jaccard(a.features("object"), b.features("object")),
        "target": _jaccard(a.features("target"), b.features("target")),
        "effects": _jaccard(set(a.effects), set(b.effects)),
    }
    return sum(weights.get(k, 0.0) * v for k, v in parts.items()) / sum(weights.values())


def frames_similarity(a: Sequence[ActionFrame], b: Sequence[ActionFrame], *,
                      weights: Mapping[str, float] = FRAME_WEIGHTS) -> float | None:  # fmt: skip
    """How alike two commands' frames are: each frame's best match on the other side,
    averaged over both sides; None when either side has no frame.

    Examples
    --------
    >>> on = ActionFrame("toggleon", "microwave", ("heat_source",), effects=("object:on",))
    >>> put = ActionFrame("put", "fork", ("metal",), "microwave", ("heat_source",))
    >>> frames_similarity([put, on], [put, on]), frames_similarity([on], []) is None
    (1.0, True)
    """
    if not a or not b:
        return None
    forward = sum(max(frame_similarity(x, y, weights=weights) for y in b) for x in a) / len(a)
    backward = sum(max(frame_similarity(y, x, weights=weights) for x in a) for y in b) / len(b)
    return (forward + backward) / 2


def effect_matches(frames: Iterable[ActionFrame], effect: str,
                   features: Iterable[str]) -> bool:  # fmt: skip
    """Whether one of *frames* caused the state change *effect* (a state, any role; or
    ``role:state``) to an object that has every one of *features*.

    Examples
    --------
    >>> pour = ActionFrame("pour", "cup", ("fillable",), "laptop", ("electronic", "on"),
    ...                    ("target:wet",))
    >>> effect_matches([pour], "wet", ("electronic", "on")), effect_matches([pour], "wet",
    ...     ("electronic", "on", "breakable"))
    (True, False)
    """
    needed = frozenset(features)
    for frame in frames:
        for change in frame.effects:
            role, state = change.split(":", 1)
            if (effect == state or effect == change) and needed <= frame.features(role):
                return True
    return False
