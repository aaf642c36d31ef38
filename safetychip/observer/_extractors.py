"""Offline text extractors: length, brevity, question rate, advice and instruction markers,
repetition against the last turns. Symbolic, deterministic, a few microseconds each.

Examples
--------
>>> state = ObserverState().say("agent", "How was your day?")
>>> reply = Candidate("You should rest. How was your day?")
>>> [round(e.measure(reply, state), 2) for e in OFFLINE]
[7.0, 0.74, 0.5, 0.5, 0.57]
"""

from __future__ import annotations

import math
import re

from ._features import Extractor
from ._state import Candidate, ObserverState

__all__ = ["OFFLINE", "AdviceMarkers", "Brevity", "Length", "QuestionRate", "Repetition"]

_WORD = re.compile(r"[a-z0-9']+")
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
#: Phrases that mark advice or an instruction (matched at word boundaries, any case).
_ADVICE = re.compile(
    r"\b(you should|you could|you need to|you must|you might want to|i recommend|"
    r"i suggest|make sure|try to|don't forget|remember to|it's best to|consider)\b"
    r"|^\s*(try|go|take|do|don't|stop|start|avoid|use|remember|keep)\b"
)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


class Length(Extractor):
    """The candidate's length in words."""

    name, measures, low, high = "length", "words in the candidate", 0.0, math.inf

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """Count the words."""
        return float(len(_words(candidate.text)))


class Brevity(Extractor):
    """How brief the candidate is: ``scale / (scale + words)``, 1 for an empty reply and 0.5
    at *scale* words.

    Parameters
    ----------
    scale : int
        The length, in words, at which brevity is one half.
    """

    name, measures = "brevity", "brevity, scale / (scale + words)"

    def __init__(self, scale: int = 20) -> None:
        if scale <= 0:
            raise ValueError(f"Brevity scale must be a positive number of words, got {scale}")
        self.scale = scale

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """``scale / (scale + words)``."""
        return self.scale / (self.scale + len(_words(candidate.text)))


class QuestionRate(Extractor):
    """The share of the candidate's sentences that are questions (0 for no sentence)."""

    name, measures = "question_rate", "share of sentences that are questions"

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """Sentences ending in ``?`` over all sentences."""
        sentences = _sentences(candidate.text)
        return sum(s.endswith("?") for s in sentences) / len(sentences) if sentences else 0.0


class AdviceMarkers(Extractor):
    """The share of the candidate's sentences that give advice or an instruction ("you
    should", "make sure", an imperative opening such as "try" or "avoid")."""

    name, measures = "advice", "share of sentences with advice or instruction markers"

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """Sentences with a marker over all sentences."""
        sentences = _sentences(candidate.text.lower())
        if not sentences:
            return 0.0
        return sum(_ADVICE.search(s) is not None for s in sentences) / len(sentences)


class Repetition(Extractor):
    """The largest word overlap (Jaccard) between the candidate and any of the speaker's last
    *n* turns: 1 repeats a turn word for word, 0 shares no word.

    Parameters
    ----------
    n : int
        How many past turns to compare with.
    speaker : str
        Whose turns (the agent's own, by default).
    """

    name, measures = "repetition", "word overlap with the last turns"

    def __init__(self, n: int = 3, speaker: str = "agent") -> None:
        if n < 1:
            raise ValueError(f"Repetition needs n >= 1 past turns, got {n}")
        self.n, self.speaker = n, speaker

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """The maximum Jaccard similarity of word sets."""
        words = set(_words(candidate.text))
        best = 0.0
        for past in state.last(self.speaker, self.n):
            other = set(_words(past))
            union = words | other
            if union:
                best = max(best, len(words & other) / len(union))
        return best


#: One of each offline extractor, with default parameters.
OFFLINE: tuple[Extractor, ...] = (Length(), Brevity(), QuestionRate(), AdviceMarkers(),
                                  Repetition())  # fmt: skip
