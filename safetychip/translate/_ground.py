"""Grounding: from a referring expression to one unique name of the environment.

An expression that matches a phrase of the vocabulary exactly (a name, a class, a synonym,
see :class:`~safetychip.translate.Vocabulary`) is grounded without any model: score 1. A
class shared by several instances is a name of its own meaning *any* of them: "the window"
grounds to ``window`` (``is_open(window)``: some window is open), while "the bedroom window"
grounds to ``bedroom_window``.
Otherwise a misspelling is tried first, by string similarity alone
(:func:`safetychip._names.close_names`, no model: "the phnoe" is ``phone``, method
``"spelling"``) when one name is clearly the closest; then its embedding is compared, by
cosine similarity, with the embeddings of the names read as English (``book shelf``); the
best name is taken when its score reaches the threshold and no other name is within
:data:`MARGIN` of it. Anything else is a
:class:`~safetychip.errors.GroundingError` that lists the nearest names with their scores,
so a person can rephrase. The embedder is created on first use: a sentence whose
expressions all match exactly never imports torch.

Examples
--------
>>> from safetychip.translate import Vocabulary, recognize
>>> v = Vocabulary.from_names(["fridge", "kitchen", "bathroom", "kitchen_sink",
...                            "bathroom_sink"])
>>> g = Grounder(v)
>>> g.ground("the refrigerator")
Grounding(expression='the refrigerator', name='fridge', score=1.0, method='exact')
>>> g.ground("the sink").name, g.ground("the kitchen sink").name
('sink', 'kitchen_sink')
>>> Grounder(Vocabulary.from_names(["television", "telly"]), None).ground("the TV")
Traceback (most recent call last):
...
safetychip.errors.GroundingError: 'the TV' is ambiguous in <names>: it could be
television or telly; name one of them
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._names import close_names
from ..errors import GroundingError
from ..llm import Embedder
from ._recognize import Expression
from ._spelling import english_words
from ._vocabulary import Vocabulary, phrase_key

__all__ = ["Grounder", "Grounding"]

#: Default similarity a name needs (all-MiniLM-L6-v2 cosine) to ground an expression.
THRESHOLD = 0.65
#: Default gap below the best score within which a second name makes the expression ambiguous.
MARGIN = 0.02
#: Least string similarity (difflib ratio) at which a misspelt expression is read as a name.
SPELLING = 0.8


@dataclass(frozen=True)
class Grounding:
    """An *expression* (as written) and the unique *name* it denotes, found by *method*
    ``"exact"`` (*score* 1.0), ``"spelling"`` (a misspelling, by string similarity) or
    ``"embedding"`` (cosine similarity; *candidates*: the nearest names with their scores,
    best first)."""

    expression: str
    name: str
    score: float
    method: str
    candidates: tuple[tuple[str, float], ...] = ()

    def to_dict(self) -> dict:
        """JSON-ready form."""
        near = [{"name": n, "score": round(s, 4)} for n, s in self.candidates]
        return {"expression": self.expression, "name": self.name, "score": round(self.score, 4),
                "method": self.method, "candidates": near}  # fmt: skip

    def __repr__(self) -> str:
        return (f"Grounding(expression={self.expression!r}, name={self.name!r}, "
                f"score={round(self.score, 4)!r}, method={self.method!r})")  # fmt: skip


class Grounder:
    """Ground referring expressions in one *vocabulary*. Expressions that match no phrase
    exactly are compared by *embedder* (an :class:`~safetychip.llm.Embedder`, ``"minilm"``
    created on first use, or None: such expressions are errors listing the names spelled most
    alike): a name needs cosine similarity *threshold*, and a second one within
    :data:`MARGIN` of the best makes the expression ambiguous; an error or a grounding lists
    the three nearest.
    """

    def __init__(self, vocabulary: Vocabulary, embedder: Embedder | str | None = "minilm", *,
                 threshold: float = THRESHOLD) -> None:  # fmt: skip
        if isinstance(embedder, str) and embedder != "minilm":
            raise ValueError(f"embedder must be an Embedder, 'minilm' or None, got {embedder!r}")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be within [0, 1], got {threshold}")
        self.vocabulary, self._embedder = vocabulary, embedder
        self.threshold = threshold
        self._matrix: Any = None

    @property
    def embedder(self) -> Embedder | None:
        """The embedder, created on first access when it was given as ``"minilm"``."""
        if self._embedder == "minilm":
            from ..llm import MiniLMEmbedder

            self._embedder = MiniLMEmbedder()
        return self._embedder  # type: ignore[return-value]

    def ground(self, expression: Expression | str) -> Grounding:
        """The name *expression* denotes; a GroundingError (its message and ``candidates``
        list the nearest names) if it is ambiguous between exact matches, or no name is
        similar enough, or two are about equally similar."""
        if isinstance(expression, Expression):
            text, names = expression.text, expression.candidates
        else:
            text, names = expression, ()
        if not names:
            names = self.vocabulary.lookup(text)
        where = self.vocabulary.name
        if len(names) == 1:
            return Grounding(text, names[0], 1.0, "exact")
        if len(names) > 1:
            raise GroundingError(f"{text!r} is ambiguous in {where}: it could be "
                                 f"{_either(names)}; name one of them", text,
                                 tuple((n, 1.0) for n in names))  # fmt: skip
        key = " ".join(phrase_key(text))
        if not key:
            raise GroundingError(f"{text!r} names nothing", text)
        spelt = self._spelling(text, key)
        if spelt is not None:
            return spelt
        embedder = self.embedder
        if embedder is None:
            near = self.vocabulary.closest(text)
            hint = f"; spelled most alike: {', '.join(near)}" if near else ""
            raise GroundingError(f"{text!r} is not a name in {where} and no embedder is "
                                 f"configured to find the nearest{hint}", text,
                                 tuple((n, 0.0) for n in near))  # fmt: skip
        if self._matrix is None:
            phrases = [self.vocabulary.phrase(n) for n in self.vocabulary.names]
            self._matrix = embedder.encode(phrases)
        scores = self._matrix @ embedder.encode([key])[0]
        order = sorted(range(len(scores)), key=lambda i: (-float(scores[i]), i))
        ranked = tuple((self.vocabulary.names[i], float(scores[i])) for i in order[:3])
        best_name, best = ranked[0]
        listing = ", ".join(f"{n} ({s:.2f})" for n, s in ranked)
        if best < self.threshold:
            raise GroundingError(f"cannot ground {text!r} in {where}: no name is similar enough "
                                 f"(nearest: {listing}; threshold {self.threshold:.2f}); rephrase "
                                 "with one of these names", text, ranked)  # fmt: skip
        close = [n for n, s in ranked[1:] if best - s <= MARGIN]
        if close:
            raise GroundingError(f"{text!r} is ambiguous in {where}: "
                                 f"{_either([best_name, *close])} are about equally similar "
                                 f"(nearest: {listing}); name one of them",
                                 text, ranked)  # fmt: skip
        return Grounding(text, best_name, best, "embedding", ranked)

    def names_nothing(self, error: GroundingError) -> bool:
        """Whether *error* (from :meth:`ground`) says its expression names nothing of the
        vocabulary, rather than several names about equally well: no candidate reaches
        the threshold ("the kids", "a fire hazard"), where an ambiguous expression ("the
        room": bedroom or living room) or a near misspelling has candidates that do.

        >>> from safetychip.errors import GroundingError
        >>> g = Grounder(Vocabulary.from_names(["bedroom", "kitchen"]), embedder=None)
        >>> try:
        ...     g.ground("the goldfish")
        ... except GroundingError as err:
        ...     print(g.names_nothing(err))
        True
        """
        return all(score < self.threshold for _, score in error.candidates)

    def _spelling(self, text: str, key: str) -> Grounding | None:
        """A misspelt name, when one name is clearly the closest by string similarity and
        the expression is not made of English words that name nothing in the scene."""
        import difflib

        names = self.vocabulary.names
        scene = {w for phrase in self.vocabulary.phrases for w in phrase}
        if all(w in english_words() and w not in scene for w in key.split()):
            return None  # "the cat" is a cat, never a misspelt coat
        near = close_names(key.replace(" ", "_"), names, n=3, cutoff=SPELLING)
        if not near:
            return None

        def ratio(name: str) -> float:
            return difflib.SequenceMatcher(None, key.replace(" ", "_"), name.lower()).ratio()

        ranked = tuple((n, ratio(n)) for n in near)
        if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < 0.05:
            raise GroundingError(f"{text!r} is not a name in {self.vocabulary.name}; did you mean "
                                 f"{_either([n for n, _ in ranked])}?", text, ranked)  # fmt: skip
        return Grounding(text, ranked[0][0], ranked[0][1], "spelling", ranked)


def _either(names) -> str:
    names = list(names)
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
