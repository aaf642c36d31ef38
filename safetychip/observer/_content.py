"""Offline extractors of what a reply says: its specificity (numbers, named entities, factual
density) and its affect (VADER's valence lexicon).

Specificity is a documented heuristic, not a tagger: a word is *specific* when it is a number
(``3``, ``2.5``, ``40%``, or a number word from "two" up) or a named entity (a capitalised
word that does not open a sentence, other than "I"); the feature is the share of specific
words. Affect is VADER (Hutto and Gilbert, 2014), a well-kept sentiment lexicon with rules for
negation, intensifiers and punctuation, from the optional extra ``affect``; it is imported
on the first measurement.

Examples
--------
>>> specificity = Specificity()
>>> round(specificity.measure(Candidate("That sounds lovely!"), ObserverState()), 2)
0.0
>>> round(specificity.measure(Candidate("We saw Kyoto in May with 3 friends."),
...                           ObserverState()), 3)  # Kyoto, May, 3 of 8 words
0.375
>>> tone = Affect()
>>> tone.measure(Candidate("That sounds lovely, I'm so glad!"), ObserverState()) > 0.5
True
>>> tone.measure(Candidate("That is awful and sad."), ObserverState()) < -0.5
True
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from ..errors import missing
from ._features import Extractor
from ._state import Candidate, ObserverState

__all__ = ["AFFECT_SCORES", "Affect", "Specificity"]

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")  # not inside "2.5"
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d,.]*%?")
_NUMBER_WORDS = frozenset(
    "two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty "
    "hundred hundreds thousand thousands million millions billion percent half dozen".split()
)

#: VADER's scores: the normalised ``compound`` valence in [-1, 1], and the ``pos``, ``neu``
#: and ``neg`` shares of the text in [0, 1].
AFFECT_SCORES = {"compound": (-1.0, 1.0), "pos": (0.0, 1.0), "neu": (0.0, 1.0),
                 "neg": (0.0, 1.0)}  # fmt: skip


def _specific(token: str, opens: bool) -> bool:
    """Whether *token* is a number or (not opening a sentence) a named entity."""
    if token[0].isdigit() or token.lower() in _NUMBER_WORDS:
        return True
    return not opens and token[0].isupper() and token != "I"


class Specificity(Extractor):
    """The factual density of the candidate: the share of its words that are numbers or named
    entities (see the module for the heuristic); 0 for small talk, about 0.3 and up for a
    reply dense with facts."""

    name, measures = "specificity", "share of words that are numbers or named entities"

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """Specific words over all words (0 for no word)."""
        words = specific = 0
        for sentence in _SENTENCE_BREAK.split(candidate.text):
            for i, token in enumerate(_TOKEN.findall(sentence)):
                words += 1
                specific += _specific(token, i == 0)
        return specific / words if words else 0.0


class Affect(Extractor):
    """The candidate's affect by VADER: the ``compound`` valence (−1 negative … +1 positive)
    by default, or the share of positive, neutral or negative words.

    Parameters
    ----------
    score : str
        One of :data:`AFFECT_SCORES`.
    name : str, optional
        Default ``"affect"`` for the compound valence, else ``"affect_<score>"``.

    Raises
    ------
    ValueError
        If *score* is unknown.
    MissingDependencyError
        On the first measurement, if ``vaderSentiment`` is not installed (the message gives
        ``pip install 'safetychip[affect]'``).
    """

    def __init__(self, score: str = "compound", name: str | None = None) -> None:
        if score not in AFFECT_SCORES:
            raise ValueError(f"unknown affect score {score!r}: choose one of "
                             f"{', '.join(AFFECT_SCORES)}")  # fmt: skip
        self.score = score
        self.name = name or ("affect" if score == "compound" else f"affect_{score}")
        self.low, self.high = AFFECT_SCORES[score]
        self.measures = f"VADER's {score} sentiment score"
        self._analyzer: Any = None

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """VADER's score of the candidate's text."""
        if self._analyzer is None:
            self._analyzer = _vader().SentimentIntensityAnalyzer()
        return float(self._analyzer.polarity_scores(candidate.text)[self.score])


def _vader() -> Any:
    try:
        return importlib.import_module("vaderSentiment.vaderSentiment")
    except ImportError:
        raise missing("vaderSentiment", "affect") from None
