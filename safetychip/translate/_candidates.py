"""Candidate sets: every reader's readings of a sentence, pooled, scored and cut to a set
that holds the right formula with a stated probability.

A sentence is read by several readers (the offline grammar, the frame reader, the retrieval
translator, a chat model when one is configured). Each reading that assembles into a checked
constraint is a :class:`Proposal`; readings with the same meaning (language-equivalent
formulas, :func:`safetychip.automata.equivalent`) are pooled into one :class:`Candidate`,
which remembers every reader that proposed it.

**The score.** A candidate's probability of being the right formula is a logistic function
of what the readers said about it (:data:`FEATURES`): which readers proposed it, the
retrieval translator's vote share and similarity, whether its reading fits the sentence's
own words, and whether a precise reader read the sentence some other way. The weights are
fitted on the development sentences (:func:`fit`), each set by other hands read without its
own examples, as a new writer's sentences are.

**The set (split conformal prediction).** With nonconformity ``1 - p(right formula)`` (infinite
when no reader proposed the right formula), the threshold ``q`` is the
``ceil((n + 1)(1 - alpha))``-th smallest nonconformity of the *n* calibration sentences, which
were not used to fit the weights. A new sentence's set is every candidate with ``1 - p <= q``.
If the calibration sentences and a new writer's sentences are exchangeable, the set holds the
right formula with probability at least ``1 - alpha`` (Vovk et al., 2005; Angelopoulos and
Bates, 2021, section 1) -- as long as some reader proposes it: the guarantee cannot exceed
the readers' recall, which :func:`conformal_threshold` reports as an infinite ``q``. Then the
threshold is chosen for the least miscoverage the readers allow (their miss rate on the
calibration sentences plus half a point), and :attr:`Scores.alpha` says which.

A chat model's readings carry no fitted probability (there is no offline data to fit one on):
they always enter the set, with ``probability`` None, and are never accepted without a pick.

Examples
--------
>>> scores = Scores.load()
>>> p = scores.probability({"grammar": 1.0, "frames": 1.0})
>>> 0.5 < p <= 1.0, scores.keeps(p)
(True, True)
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._io import load_json
from ..errors import DataFileError
from ..ltl import Formula
from ..monitor import Constraint
from ..paths import DATA_DIR
from ._reading import LiftedTranslation

__all__ = [
    "FEATURES",
    "SCORES",
    "Candidate",
    "Proposal",
    "Scores",
    "conformal_threshold",
    "fit",
]

#: The fitted weights and the conformal threshold (JSON, written by
#: ``data/translation/calibrate.py``).
SCORES = DATA_DIR / "translation" / "candidates.json"

#: What a candidate's probability is computed from, in the order of the fitted weights:
#: which offline readers proposed it (the grammar, the frame reader, the same two with the
#: remarks that name nothing left out, the retrieval translator), the retrieval translator's
#: vote share and best similarity for it, whether it was the retrieval translator's first
#: reading and fits the sentence's own words, whether a precise reader (grammar or frames)
#: read the sentence but not as this candidate, whether a thing the sentence names is
#: nothing of the scene and was read as plain words, and whether the slot reader proposed it
#: (as its first reading).
FEATURES = (
    "grammar",
    "frames",
    "quiet",
    "retrieval",
    "share",
    "similarity",
    "first",
    "fits",
    "overruled",
    "unnamed",
    "slots",
    "slots_first",
)


@dataclass(frozen=True)
class Proposal:
    """One reader's reading of a lifted sentence, before it is checked.

    Attributes
    ----------
    reading : LiftedTranslation
        The lifted formula.
    reader : str
        ``"grammar"``, ``"frames"``, ``"slots"``, ``"retrieval"`` or ``"model"``.
    quiet : tuple
        The remarks left out to read it (:func:`~safetychip.translate._recognize.remarks`).
    share, similarity : float
        For the retrieval translator: the reading's vote share and its nearest template's
        score; 0 for the other readers.
    rank : int
        For the retrieval translator and the slot reader: 1 for the first reading, 2 for the
        next…; 0 otherwise.
    fits : bool
        False when the retrieval translator found the reading at odds with the sentence's
        own words (:meth:`~safetychip.translate.RetrievalTranslator.misfit`).
    """

    reading: LiftedTranslation
    reader: str
    quiet: tuple = ()
    share: float = 0.0
    similarity: float = 0.0
    rank: int = 0
    fits: bool = True


@dataclass(frozen=True)
class Candidate:
    """One formula of a candidate set, with what the readers said about it.

    Attributes
    ----------
    constraint : Constraint
        The grounded, checked constraint.
    lifted_formula : Formula
        Its formula over placeholders.
    pattern : str or None
        Its specification pattern, when known.
    readers : tuple of str
        The readers that proposed it (see :class:`Proposal`), first proposer first.
    probability : float or None
        The calibrated probability that it is the right formula; None for a chat model's
        reading (never fitted).
    features : dict
        The values of :data:`FEATURES` it was scored on.
    parts : tuple of Constraint
        For a sentence about a list of things, one constraint per thing.
    set_aside : tuple of (str, str)
        The clauses left out to read it.
    form : str
        How the first reader read the sentence.
    """

    constraint: Constraint
    lifted_formula: Formula
    pattern: str | None
    readers: tuple[str, ...]
    probability: float | None
    features: Mapping[str, float] = field(default_factory=dict, repr=False)
    parts: tuple[Constraint, ...] = ()
    set_aside: tuple[tuple[str, str], ...] = ()
    form: str = ""

    @property
    def formula(self) -> Formula:
        """The grounded formula."""
        return self.constraint.formula

    def to_dict(self) -> dict:
        """The candidate as JSON (formula, pattern, probability, readers)."""
        return {
            "formula": str(self.formula),
            "pattern": self.pattern,
            "probability": None if self.probability is None else round(self.probability, 4),
            "readers": list(self.readers),
            "parts": [str(c.formula) for c in self.parts],
        }


def features(
    proposals: Sequence[Proposal], overruled: bool, unnamed: bool = False
) -> dict[str, float]:
    """The :data:`FEATURES` of a candidate proposed by *proposals*; *overruled*: a precise
    reader read the sentence as another candidate; *unnamed*: the sentence names something
    that is nothing of the scene, read as plain words.

    >>> from safetychip.ltl import ap
    >>> r = LiftedTranslation(ap("a"), "never")
    >>> f = features([Proposal(r, "retrieval", share=0.7, similarity=0.8, rank=1)], False)
    >>> f["retrieval"], f["share"], f["first"], f["grammar"]
    (1.0, 0.7, 1.0, 0.0)
    """
    readers = {p.reader for p in proposals if not p.quiet}
    quiet = {p.reader for p in proposals if p.quiet}
    found = [p for p in proposals if p.reader == "retrieval"]
    return {
        "grammar": float("grammar" in readers),
        "frames": float("frames" in readers),
        "quiet": float(bool(quiet & {"grammar", "frames"}) and not readers & {"grammar", "frames"}),
        "retrieval": float(bool(found)),
        "share": max((p.share for p in found), default=0.0),
        "similarity": max((p.similarity for p in found), default=0.0),
        "first": float(any(p.rank == 1 for p in found)),
        "fits": float(any(p.fits for p in found)),
        "overruled": float(overruled),
        "unnamed": float(unnamed),
        "slots": float("slots" in readers),
        "slots_first": float(any(p.reader == "slots" and p.rank == 1 for p in proposals)),
    }


@dataclass(frozen=True)
class Scores:
    """The fitted candidate score and the conformal threshold.

    Attributes
    ----------
    weights : dict
        One weight per name of :data:`FEATURES`.
    intercept : float
    threshold : float
        The conformal threshold *q* on ``1 - p``: a candidate is in the set when
        ``1 - p <= threshold`` (infinite: every candidate is).
    alpha : float
        The miscoverage the threshold was chosen for.
    report : dict
        What the fit measured (see ``data/translation/calibrate.py``).
    """

    weights: Mapping[str, float]
    intercept: float
    threshold: float
    alpha: float = 0.05
    report: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, path: str | os.PathLike[str] = SCORES, *, retrieval: bool = True) -> Scores:
        """Read the fitted scores (default: the ones shipped, :data:`SCORES`) for a
        translator with the retrieval translator (*retrieval*) or without it (no embedder).

        Raises
        ------
        DataFileError
            If the file is missing, not JSON, or lacks a weight of :data:`FEATURES`.
        """
        key = "with_retrieval" if retrieval else "without_retrieval"
        try:
            data = load_json(Path(path), DataFileError)
        except OSError as err:
            raise DataFileError(str(path), f"cannot read the candidate scores: {err}") from None
        try:
            fitted = data[key]
            weights = {name: float(fitted["weights"][name]) for name in FEATURES}
            threshold = fitted["threshold"]
            return cls(
                weights,
                float(fitted["intercept"]),
                math.inf if threshold is None else float(threshold),
                float(fitted.get("alpha", data["alpha"])),
                fitted.get("report", {}),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise DataFileError(
                str(path), f"not a candidate score file (missing or bad {err}); rerun "
                "data/translation/calibrate.py"
            ) from None  # fmt: skip

    def to_dict(self) -> dict:
        """The scores as JSON (one entry of the file :meth:`load` reads)."""
        return {
            "alpha": self.alpha,
            "weights": dict(self.weights),
            "intercept": self.intercept,
            "threshold": None if math.isinf(self.threshold) else self.threshold,
            "report": dict(self.report),
        }

    def probability(self, values: Mapping[str, float]) -> float:
        """The calibrated probability of a candidate with these feature *values* (a missing
        feature is 0)."""
        z = self.intercept + sum(w * values.get(name, 0.0) for name, w in self.weights.items())
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def keeps(self, probability: float | None) -> bool:
        """Whether a candidate of this *probability* belongs in the set (a chat model's
        reading, None, always does)."""
        return probability is None or 1.0 - probability <= self.threshold + 1e-12


def fit(rows: Sequence[tuple[Mapping[str, float], bool]], *, c: float = 1.0) -> tuple[dict, float]:
    """Fit the candidate score by L2-regularised logistic regression.

    Parameters
    ----------
    rows : sequence of (features, right)
        One per candidate of each development sentence.
    c : float
        Inverse regularisation strength.

    Returns
    -------
    (weights, intercept)

    Examples
    --------
    >>> rows = [({"grammar": 1.0}, True)] * 9 + [({"grammar": 1.0}, False)]
    >>> rows += [({"retrieval": 1.0}, False)] * 5 + [({"retrieval": 1.0}, True)]
    >>> weights, intercept = fit(rows)
    >>> weights["grammar"] > weights["retrieval"]
    True
    """
    import numpy as np
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    x = np.array([[f.get(name, 0.0) for name in FEATURES] for f, _ in rows])
    y = np.array([bool(right) for _, right in rows])
    model = LogisticRegression(C=c, max_iter=1000).fit(x, y)
    weights = {name: round(float(w), 6) for name, w in zip(FEATURES, model.coef_[0])}
    return weights, round(float(model.intercept_[0]), 6)


def conformal_threshold(nonconformity: Sequence[float], alpha: float) -> float:
    """The split-conformal threshold: the ``ceil((n + 1)(1 - alpha))``-th smallest of the *n*
    calibration nonconformity scores, infinite when that rank exceeds *n* or the score there
    is infinite (the right formula was not among the readings).

    >>> conformal_threshold([0.1, 0.2, 0.3, 0.4], 0.25)
    0.4
    >>> conformal_threshold([0.1, 0.2, 0.3, math.inf], 0.25)
    inf
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    scores = sorted(nonconformity)
    k = math.ceil((len(scores) + 1) * (1 - alpha))
    return math.inf if k > len(scores) else scores[k - 1]
