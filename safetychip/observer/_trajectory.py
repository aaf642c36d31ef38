"""Extractors over the trajectory: running means and counts of consecutive events over the
last *n* turns (the candidate included), and topic drift by embedding distance.

The aggregates wrap another extractor and measure it on the speaker's past turns as if each
were the candidate, in the current state: meant for extractors of the text alone (brevity,
advice, affect), not for ones that read the history. Topic drift embeds each utterance once
(the embedder caches it) with all-MiniLM-L6-v2 by default, loaded on the first measurement
from the optional extra ``embeddings``.

Examples
--------
>>> from safetychip.observer import AdviceMarkers
>>> state = ObserverState().say("agent", "You should rest.").say("agent", "Nice!")
>>> advice = Candidate("Make sure to drink water.")
>>> RunningMean(AdviceMarkers(), n=3).measure(advice, state)  # (1 + 0 + 1) / 3
0.6666666666666666
>>> Consecutive(AdviceMarkers(), at_least=0.5).measure(advice, state)  # "Nice!" breaks it
1.0

Drift with a toy embedder (counts of vowels) instead of MiniLM:

>>> from safetychip.llm import Embedder
>>> class Vowels(Embedder):
...     def _embed(self, texts):
...         return [[t.count(v) + 0.1 for v in "aeiou"] for t in texts]
>>> drift = TopicDrift(Vowels("vowels"), n=2)
>>> drift.measure(Candidate("Nice!"), ObserverState())  # no history, no topic
0.0
>>> [round(drift.measure(Candidate(t), state), 2) for t in ["You should!", "a aa aaa"]]
[0.34, 0.91]
"""

from __future__ import annotations

import math

import numpy as np

from ..llm import Embedder, MiniLMEmbedder
from ._features import Extractor
from ._state import Candidate, ObserverState

__all__ = ["Consecutive", "RunningMean", "TopicDrift"]


class _Window(Extractor):
    """An aggregate of *inner* over the speaker's last ``n - 1`` turns and the candidate."""

    def __init__(self, inner: Extractor, n: int, speaker: str, name: str) -> None:
        if n < 1:
            raise ValueError(f"{type(self).__name__} needs a window of n >= 1 turns, got {n}")
        self.inner, self.n, self.speaker, self.name = inner, n, speaker, name

    def window(self, candidate: Candidate, state: ObserverState) -> list[float]:
        """The inner feature of the last ``n - 1`` turns then of the candidate, oldest
        first."""
        past = [Candidate(text) for text in state.last(self.speaker, self.n - 1)]
        return [self.inner.measure(c, state) for c in (*past, candidate)]


class RunningMean(_Window):
    """The mean of an extractor over the speaker's last ``n - 1`` turns and the candidate.

    Parameters
    ----------
    inner : Extractor
        The feature averaged (its range is the mean's).
    n : int
        The window, the candidate included.
    speaker : str
        Whose past turns.
    name : str, optional
        Default ``"mean_<inner>"``.
    """

    def __init__(self, inner: Extractor, n: int = 5, speaker: str = "agent",
                 name: str | None = None) -> None:  # fmt: skip
        super().__init__(inner, n, speaker, name or f"mean_{inner.name}")
        self.low, self.high = inner.low, inner.high
        self.measures = f"mean {inner.name} over the last {n} turns"

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """The mean over the window."""
        values = self.window(candidate, state)
        return sum(values) / len(values)


class Consecutive(_Window):
    """How many turns in a row, ending with the candidate, an extractor's value meets a
    bound (at most *n*): a run of advice, of long replies, of negative ones.

    Parameters
    ----------
    inner : Extractor
        The feature tested.
    at_least, at_most : float
        The bound (exactly one).
    n : int
        The longest run counted, the candidate included.
    speaker : str
        Whose past turns.
    name : str, optional
        Default ``"consecutive_<inner>"``.
    """

    def __init__(self, inner: Extractor, *, at_least: float | None = None,
                 at_most: float | None = None, n: int = 10, speaker: str = "agent",
                 name: str | None = None) -> None:  # fmt: skip
        if (at_least is None) == (at_most is None):
            raise ValueError(f"Consecutive({inner.name}): give exactly one of at_least and "
                             "at_most")  # fmt: skip
        super().__init__(inner, n, speaker, name or f"consecutive_{inner.name}")
        self.at_least, self.at_most = at_least, at_most
        self.low, self.high = 0.0, float(n)
        bound = f"≥ {at_least:g}" if at_least is not None else f"≤ {at_most:g}"
        self.measures = f"turns in a row with {inner.name} {bound}"

    def _meets(self, value: float) -> bool:
        if self.at_least is not None:
            return value >= self.at_least
        return value <= self.at_most  # type: ignore[operator]

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """The length of the run that ends with the candidate (0 if it breaks it)."""
        run = 0
        for value in reversed(self.window(candidate, state)):
            if not self._meets(value):
                break
            run += 1
        return float(run)


class TopicDrift(Extractor):
    """Topic drift: the cosine distance between the candidate and the mean embedding of the
    last *n* turns (either speaker), in [0, 2]; 0 with no history.

    Parameters
    ----------
    embedder : Embedder, optional
        Default: a :class:`~safetychip.llm.MiniLMEmbedder`, created on the first measurement
        (loading it takes a few seconds; each utterance is embedded once).
    n : int
        How many past turns make the topic.

    Raises
    ------
    MissingDependencyError
        On the first measurement with the default embedder, if the ``embeddings`` extra is
        not installed.
    """

    name, measures, low, high = "drift", "cosine distance to the last turns' topic", 0.0, 2.0

    def __init__(self, embedder: Embedder | None = None, n: int = 4) -> None:
        if n < 1:
            raise ValueError(f"TopicDrift needs n >= 1 past turns, got {n}")
        self._embedder, self.n = embedder, n

    @property
    def embedder(self) -> Embedder:
        """The embedder (the default one is created here, on first use)."""
        if self._embedder is None:
            self._embedder = MiniLMEmbedder()
        return self._embedder

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """``1 − cos(candidate, mean of the last n turns)``, clipped to [0, 2]."""
        past = [u.text for u in state.history[-self.n :]]
        if not past:
            return 0.0
        vectors = self.embedder.encode([*past, candidate.text])
        topic = np.mean(vectors[:-1], axis=0)
        norm = float(np.linalg.norm(topic))
        if norm == 0 or not math.isfinite(norm):
            return 1.0  # opposite turns cancel out: no topic to stay on
        cosine = float(vectors[-1] @ topic) / norm
        return min(2.0, max(0.0, 1.0 - cosine))
