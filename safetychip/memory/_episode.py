"""Episodes (unsafe commands the robot carried out) and rules (patterns that block commands).

An :class:`Episode` is ⟨command, scene, harm, time, source, confidence, action frames⟩; a
:class:`Rule` is a pattern ⟨verb, target⟩ with an action and a confidence θ. A rule matches
a command without a language model: the command's verb is read with the lexicon
:data:`VERBS`, and the target (an object class or attribute) is looked up among the objects
the command names in the scene, or among the command's words; given the command's action
frames, verb and target must be one action's. A rule over affordances ⟨state change ×
features⟩ (:attr:`Rule.effect`) matches the frames alone: an action that changes an object
having the features that way.

Examples
--------
>>> rule = Rule("push", "fragile", harm="breakage", confidence=0.6)
>>> scene = SceneGraph.of({"ceramic_cup": ["fragile"]})
>>> rule.match("Push the ceramic cup", scene), rule.match("push the ceramic cup")
(1.0, 0.5)
>>> rule.alternative
'move it slowly with both hands'
"""

from __future__ import annotations

import html
import math
import re
import time as clock
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from ..errors import ActionFrameError
from ._action import ActionFrame, effect_matches
from ._harms import ALTERNATIVES, harm_name
from ._scene import HAZARDS, SceneGraph, SceneObject, check_text

__all__ = [
    "MAX_COMMAND",
    "SOURCES",
    "VERBS",
    "VERB_WORDS",
    "FUNCTION_WORDS",
    "Episode",
    "Rule",
    "command_verb",
    "command_words",
    "check_command",
    "check_unit",
    "acted_object",
    "check_frames",
]

#: How far each detection source is trusted: the default confidence of its episodes.
SOURCES: Mapping[str, float] = {"sensor": 0.9, "person": 0.8, "model": 0.6}

#: Canonical verbs and the words that mean them (lower case, uninflected). Not an environment's
#: verb lexicon (``Env.verbs``): these are classes of harm across environments and free text
#: ("shove" and "knock" are a push; VirtualHome's ``switchon`` and AI2-THOR's ``toggleon`` are
#: one switch), and their order indexes the similarity features.
VERBS: Mapping[str, tuple[str, ...]] = {
    "push": ("push", "shove", "knock", "nudge", "press", "bump", "kick"),
    "grasp": ("grasp", "grab", "pick", "take", "hold", "lift", "get", "fetch", "carry"),
    "navigate": ("navigate", "walk", "go", "move", "drive", "run", "approach", "cross"),
    "throw": ("throw", "toss", "drop", "fling"),
    "place": ("put", "place", "set", "stack"),
    "pour": ("pour", "spill", "tip"),
    "cut": ("cut", "slice", "chop"),
    "switch": (
        "switch",
        "turn",
        "heat",
        "cook",
        "toggle",
        "toggleon",
        "toggleoff",
        "switchon",
        "switchoff",
    ),
}

#: The longest command accepted, in characters.
MAX_COMMAND = 500

_LEXICON = {word: verb for verb, words in VERBS.items() for word in words}
#: Words that say nothing of an action's object or manner (overrides never narrow by them).
FUNCTION_WORDS: frozenset[str] = frozenset(
    "a an the and or but then in on at to into onto of off by with from up down it its this "
    "that these those them they there here please now".split()
)
#: Every word of :data:`VERBS`.
VERB_WORDS: frozenset[str] = frozenset(_LEXICON)
_WORD = re.compile(r"[a-z]+")


def check_command(command: object) -> str:
    """*command* as a stripped string, or a ValueError naming what is wrong with it (empty,
    too long, or not printable text: NUL, ANSI escapes, lone surrogates)."""
    if not isinstance(command, str) or not command.strip():
        raise ValueError(f"a command must be a non-empty string, got {command!r:.80}")
    if len(command) > MAX_COMMAND:
        raise ValueError(
            f"a command must be at most {MAX_COMMAND} characters, got {len(command)}: "
            "pass one action at a time"
        )
    return check_text("a command", command).strip()


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _stem(word: str) -> str:
    for ending in ("ing", "es", "ed", "s"):
        if word.endswith(ending) and word[: -len(ending)] in _LEXICON:
            return word[: -len(ending)]
    return word


def command_words(command: str) -> set[str]:
    """The lower-case words of *command*, verbs uninflected.

    Examples
    --------
    >>> sorted(command_words("Pushes the vase, by the handle"))
    ['by', 'handle', 'push', 'the', 'vase']
    """
    return set(map(_stem, _words(command)))


def command_verb(command: str) -> str | None:
    """The canonical verb of *command*: its first word the lexicon :data:`VERBS` knows.

    Examples
    --------
    >>> command_verb("please shove the vase"), command_verb("walks past Bob")
    ('push', 'navigate')
    >>> command_verb("hello") is None
    True
    """
    return next((_LEXICON[w] for w in map(_stem, _words(command)) if w in _LEXICON), None)


def acted_object(command: str, scene: SceneGraph | None) -> SceneObject | None:
    """The object *command* acts on: of the scene's objects whose class words all occur in
    it, the first named that carries a hazard attribute (:data:`HAZARDS`: "walk past the
    person in the hallway" acts on the person, "carry the kettle past the person" on the
    hot kettle), else the first named (the longer class on a tie).

    Examples
    --------
    >>> shelf = SceneGraph.of({"shelf": ["heavy"], "cup": [], "ceramic_cup": ["fragile"]})
    >>> acted_object("push the ceramic cup off the shelf", shelf)
    SceneObject(id='ceramic_cup', cls='ceramic_cup', attributes=frozenset({'fragile'}))
    >>> acted_object("push it", shelf) is None
    True
    >>> hall = SceneGraph.of({"hallway": [], "person": ["human"]})
    >>> acted_object("walk through the hallway past the person", hall).cls
    'person'
    """
    words = _words(command)
    named = [o for o in (scene.objects if scene else ()) if set(o.cls.split("_")) <= set(words)]
    return min(named, key=lambda o: (not o.attributes & set(HAZARDS),
                                     words.index(o.cls.split("_")[0]), -len(o.cls)),
               default=None)  # fmt: skip


@dataclass(frozen=True)
class Episode:
    """An experience: a command the robot carried out and the harm it caused, if any.

    A harmless episode (``harm=None``) is evidence too: a check weighs the harmful episodes
    most like a command against the harmless ones (an override stores the overridden
    command as one).

    Attributes
    ----------
    command : str
        The command as given (``"push the vase"``).
    scene : SceneGraph
        The scene it was carried out in.
    harm : str or None
        The harm type, a name of :data:`~safetychip.memory.HARMS` or a free-text name
        :func:`~safetychip.memory.harm_name` reads (stored as the canonical name); None for
        a harmless run.
    time : float
        When it happened (seconds since the epoch; now by default).
    source : str
        Who detected the harm: a key of :data:`SOURCES`.
    confidence : float or None
        How sure the memory is of the harm, in [0, 1]; ``None`` takes the source's default.
    id : str
        Given by the store (``"e1"``, ``"e2"`` …); empty until stored.
    rule : str
        The id of the rule that consolidated it (empty while it is not consolidated).
    archived : bool
        Whether it was archived: it then blocks nothing unless asked for.
    frames : tuple of ActionFrame
        What was done, action by action, in the environment's vocabulary (verb, object and
        target with their features, state changes; see
        :class:`~safetychip.memory.ActionFrame`); empty when only the command is known.
    """

    command: str
    scene: SceneGraph = field(default_factory=SceneGraph)
    harm: str | None = "breakage"
    time: float = field(default_factory=clock.time)
    source: str = "sensor"
    confidence: float | None = None
    id: str = ""
    rule: str = ""
    archived: bool = False
    frames: tuple[ActionFrame, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "command", check_command(self.command))
        object.__setattr__(self, "frames", check_frames(self.frames, "Episode.frames"))
        if self.harm is not None:
            object.__setattr__(self, "harm", harm_name(self.harm, "Episode.harm"))
        _check_choice("Episode.source", self.source, SOURCES)
        if not isinstance(self.scene, SceneGraph):
            raise TypeError(f"Episode.scene must be a SceneGraph, got {type(self.scene).__name__}")
        if isinstance(self.time, bool) or not isinstance(self.time, (int, float)) or not (
                math.isfinite(self.time)):  # fmt: skip
            raise ValueError(f"Episode.time must be seconds since the epoch (a finite number), "
                             f"got {self.time!r:.80}")  # fmt: skip
        _check_flags(self, ("id", "rule"), ("archived",))
        if self.confidence is None:
            object.__setattr__(self, "confidence", SOURCES[self.source])
        check_unit("Episode.confidence", self.confidence)

    @property
    def harmful(self) -> bool:
        """Whether the run caused harm."""
        return self.harm is not None

    @property
    def alternative(self) -> str:
        """The safe alternative for the episode's harm (empty for a harmless episode)."""
        return "" if self.harm is None else ALTERNATIVES[self.harm]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form.

        Examples
        --------
        >>> e = Episode("push the vase", SceneGraph.of({"vase": ["fragile"]}))
        >>> Episode.from_dict(e.to_dict()) == e
        True
        """
        return {**asdict(self), "scene": self.scene.to_dict(),
                "frames": [f.to_dict() for f in self.frames]}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Episode:
        """Inverse of :meth:`to_dict` (an episode without ``frames`` has none)."""
        values = _known_fields(cls, data)
        values["scene"] = SceneGraph.from_dict(values.get("scene") or {})
        return cls(**values)

    def __repr__(self) -> str:
        name = f"{self.id} " if self.id else ""
        harm = self.harm or "harmless"
        return f"<Episode {name}{self.command!r}: {harm}, {self.source} {self.confidence}>"

    def _repr_html_(self) -> str:
        return (f"<div><b>{html.escape(self.id or 'episode')}</b> "
                f"<code>{html.escape(self.command)}</code>: {html.escape(self.harm or 'harmless')} "
                f"({html.escape(self.source)}, confidence {self.confidence})"
                f"{''.join(f'<div><i>{html.escape(str(f))}</i></div>' for f in self.frames)}"
                f"{self.scene._repr_html_()}</div>")  # fmt: skip


@dataclass(frozen=True)
class Rule:
    """A pattern that blocks commands: a verb done to an object class or attribute.

    Attributes
    ----------
    verb : str
        A canonical verb, a key of :data:`VERBS`.
    target : str
        An object class (``"vase"``) or attribute (``"fragile"``).
    harm : str
        The harm it prevents, a name of :data:`~safetychip.memory.HARMS` (or a free-text
        name :func:`~safetychip.memory.harm_name` reads).
    confidence : float
        θ, in [0, 1].
    action : str
        What a match does: ``"block"``.
    id : str
        Given by the store (``"r1"`` …); empty until stored.
    exclude : tuple of str
        Classes, attributes and command words the pattern no longer covers (narrowed by
        overrides): an object with one of them does not count as the target, nor does
        anything in a command naming one.
    stamp : int
        The interaction at which θ was last set (learned, reinforced, decayed or lowered).
    retired : bool
        Whether it was split into specific rules: it then blocks nothing.
    effect : str
        For a rule over affordances: the state change it is about (``"broken"``,
        ``"wet"``); it then matches the action frames in which an object having every
        feature of :attr:`features` undergoes that change, whatever the verb (``verb`` may
        be empty) and the object's class: "broken × breakable" learned from a vase covers a
        bowl. Empty for a verb × target rule.
    """

    verb: str
    target: str
    harm: str = "breakage"
    confidence: float = 1.0
    action: str = "block"
    id: str = ""
    exclude: tuple[str, ...] = ()
    stamp: int = 0
    retired: bool = False
    effect: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.effect, str):
            raise ValueError(f"Rule.effect must be a state name, got {self.effect!r:.80}")
        object.__setattr__(self, "effect", "_".join(self.effect.lower().split()))
        if not (self.effect and self.verb == ""):
            _check_choice("Rule.verb", self.verb, VERBS)
        _check_choice("Rule.action", self.action, ("block",))
        object.__setattr__(self, "harm", harm_name(self.harm, "Rule.harm"))
        if not isinstance(self.target, str) or not self.target.strip():
            raise ValueError(f"Rule.target must be a class or attribute, got {self.target!r:.80}")
        target = check_text("Rule.target", self.target)
        object.__setattr__(self, "target", "_".join(target.lower().split()))
        if isinstance(self.exclude, str) or not isinstance(self.exclude, (list, tuple)):
            raise ValueError(f"Rule.exclude must be a list of words, got {self.exclude!r:.80}")
        exclude = {"_".join(check_text("Rule.exclude", x).lower().split()) for x in self.exclude}
        object.__setattr__(self, "exclude", tuple(sorted(exclude)))
        _check_flags(self, ("id",), ("retired",))
        check_unit("Rule.confidence", self.confidence)
        if isinstance(self.stamp, bool) or not isinstance(self.stamp, int) or self.stamp < 0:
            raise ValueError(f"Rule.stamp must be an interaction count >= 0, got {self.stamp!r}")

    @property
    def alternative(self) -> str:
        """The safe alternative for the rule's harm."""
        return ALTERNATIVES[self.harm]

    @property
    def features(self) -> tuple[str, ...]:
        """The features an object needs for the rule to cover it (the target, split at
        ``&``: ``"electronic&on"`` is ``("electronic", "on")``)."""
        return tuple(self.target.split("&"))

    def match(self, command: str, scene: SceneGraph | None = None,
              frames: Sequence[ActionFrame] = ()) -> float:  # fmt: skip
        """How well *command* (in *scene*, done as *frames*) matches the pattern, in
        {0, 0.5, 1}.

        With *frames*, the verb and the target must be one action's: the best frame counts
        (its verb, and its object's class, features or attributes in *scene*). A rule over
        affordances (:attr:`effect`) matches 1 when one of *frames* changes an object that
        has every feature of :attr:`features` (and none of :attr:`exclude`) in that way,
        else 0 (also without frames).

        Half for the verb (the command's canonical verb is the rule's), half for the target
        (the object the command acts on in *scene*, see :func:`acted_object`, has the target
        as class or attribute, or the target is one of the command's words); an object
        whose class or attribute is in :attr:`exclude` is no target, and a command naming
        an excluded word (a class, an attribute, or a word such as "handle" that overrides
        taught the rule) hits no target.

        Examples
        --------
        >>> chair = SceneGraph.of({"chair": ["heavy", "wooden"]})
        >>> rule = Rule("push", "heavy")
        >>> rule.match("push the chair", chair), Rule("push", "heavy", exclude=("wooden",)
        ...     ).match("push the chair", chair)
        (1.0, 0.5)
        >>> broken = Rule("", "breakable", effect="broken")
        >>> throw = ActionFrame("throw", "bowl", ("breakable",), effects=("object:broken",))
        >>> broken.match("throw the bowl", None, [throw]), broken.match("throw the bowl")
        (1.0, 0.0)
        """
        if self.effect:
            kept = [
                f
                for f in frames
                if not set(self.exclude) & (f.features("object") | f.features("target"))
            ]
            return float(effect_matches(kept, self.effect, self.features))
        words = command_words(command)
        if frames:  # verb and target of one action
            said = not any(set(x.split("_")) <= words for x in self.exclude)
            return max(0.5 * (command_verb(f.verb) == self.verb)
                       + 0.5 * (said and self._names(f, scene)) for f in frames)  # fmt: skip
        verb = 0.5 if command_verb(command) == self.verb else 0.0
        return verb + (0.5 if self.covers(command, scene) else 0.0)

    def _names(self, frame: ActionFrame, scene: SceneGraph | None) -> bool:
        """Whether the object *frame* acts on is the target: by class, by its features, or
        by the attributes of the objects of its class in *scene*; excluded ones are not."""
        features = frame.features("object").union(
            *(o.attributes for o in (scene.objects if scene else ()) if o.cls == frame.object)
        )
        return self.target in features and not set(self.exclude) & features

    def covers(self, command: str, scene: SceneGraph | None = None) -> bool:
        """Whether *command* (in *scene*) names the rule's target (see :meth:`match`)."""
        words = command_words(command)
        excluded = set(self.exclude)
        if any(set(x.split("_")) <= words for x in excluded):
            return False
        acted = acted_object(command, scene)
        hit = acted is not None and not excluded & ({acted.cls} | acted.attributes) and (
            self.target == acted.cls or self.target in acted.attributes)  # fmt: skip
        return hit or set(self.target.split("_")) <= words

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form.

        Examples
        --------
        >>> Rule.from_dict(Rule("grasp", "sharp", "cut").to_dict())
        <Rule grasp × sharp → block (θ=1.0, cut)>
        """
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rule:
        """Inverse of :meth:`to_dict`."""
        return cls(**_known_fields(cls, data))

    def __repr__(self) -> str:
        name = f"{self.id} " if self.id else ""
        but = "".join(f" − {x}" for x in self.exclude)
        retired = " retired" if self.retired else ""
        return (f"<Rule {name}{self.pattern}{but} → {self.action}{retired} "
                f"(θ={self.confidence}, {self.harm})>")  # fmt: skip

    @property
    def pattern(self) -> str:
        """The pattern in words: ``push × fragile``, or ``broken × breakable`` for a rule
        over affordances (``throw: broken × breakable`` when it keeps a verb)."""
        if self.effect:
            verb = f"{self.verb}: " if self.verb else ""
            return f"{verb}{self.effect} × {' & '.join(self.features)}"
        return f"{self.verb} × {self.target}"

    def _repr_html_(self) -> str:
        return (
            f"<div><b>{html.escape(self.id or 'rule')}</b> {html.escape(self.pattern)} "
            f"→ {self.action} (θ={self.confidence}, {html.escape(self.harm)})</div>"
        )


def _known_fields(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """*data* as keyword arguments of the dataclass *cls*, or a ValueError naming the keys
    it lacks or does not know."""
    names = [f.name for f in fields(cls)]
    unknown = sorted(set(data) - set(names))
    missing = [f.name for f in fields(cls) if f.name not in data
               and f.default is MISSING and f.default_factory is MISSING]  # fmt: skip
    if unknown or missing:
        raise ValueError(
            f"{cls.__name__} data {'lacks ' + ', '.join(missing) if missing else ''}"
            f"{' and ' if unknown and missing else ''}"
            f"{'has unknown ' + ', '.join(unknown) if unknown else ''}: its fields are "
            f"{', '.join(names)}"
        )
    return dict(data)


def _check_flags(item: Episode | Rule, texts: tuple[str, ...], flags: tuple[str, ...]) -> None:
    """Raise a ValueError naming the first field of *texts* that is not a string, or of
    *flags* that is not true or false (``"no"`` is not false)."""
    name = type(item).__name__
    for field_name in texts:
        if not isinstance(getattr(item, field_name), str):
            raise ValueError(f"{name}.{field_name} must be a string, got "
                             f"{getattr(item, field_name)!r:.80}")  # fmt: skip
    for field_name in flags:
        if not isinstance(getattr(item, field_name), bool):
            raise ValueError(f"{name}.{field_name} must be true or false, got "
                             f"{getattr(item, field_name)!r:.80}")  # fmt: skip


def _check_choice(name: str, value: object, choices: Any) -> None:
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")


def check_frames(frames: object, name: str) -> tuple[ActionFrame, ...]:
    """*frames* (action frames, or their :meth:`~ActionFrame.to_dict` forms) as a tuple of
    :class:`ActionFrame`; an :class:`~safetychip.errors.ActionFrameError` naming *name* and
    the frame at fault otherwise."""
    if isinstance(frames, (str, bytes, Mapping, ActionFrame)) or not isinstance(
            frames, (list, tuple)):  # fmt: skip
        raise ActionFrameError(f"{name} must be a list of action frames, got {frames!r:.80}",
                               frames)  # fmt: skip
    out = []
    for i, frame in enumerate(frames):
        try:
            out.append(frame if isinstance(frame, ActionFrame) else ActionFrame.from_dict(frame))
        except ActionFrameError as error:
            raise ActionFrameError(f"{name}[{i}]: {error}", error.name, error.nearest) from None
    return tuple(out)


def check_unit(name: str, value: object) -> None:
    """Raise a ValueError naming *name* unless *value* is a number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
