"""Candidate sets: every reader's readings of a sentence, pooled, scored and cut to a set
that holds the right formula with a stated probability.

A sentence is read by several readers (the slot reader, the retrieval translator, a chat
model when one is configured). Each reading that assembles into a checked
constraint is a :class:`Proposal`; readings with the same meaning (language-equivalent
formulas, :func:`safetychip.automata.equivalent`) are pooled into one :class:`Candidate`,
which remembers every reader that proposed it.

**The score.** A candidate's probability of being the right formula is a logistic function
of what the readers said about it (:data:`FEATURES`): which readers proposed it, how the slot
reader ranked it, the retrieval translator's vote share and similarity, and whether its
pattern is one the sentence's slots defend. The weights are
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
>>> p = scores.probability({"slots": 1.0, "slots_first": 1.0, "slots_exact": 1.0, "fits": 1.0})
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

__all__ = ["FEATURES", "SCORES", "Candidate", "Proposal", "Scores", "conformal_threshold", "fit"]

#: The fitted weights and the conformal threshold (JSON, written by
#: ``data/translation/calibrate_candidates.py``).
SCORES = DATA_DIR / "translation" / "candidates.json"

#: What a candidate's probability is computed from, in the order of the fitted weights:
#: whether the slot reader proposed it, as its first reading, as its first reading of a
#: sentence it read without leaving a word out (:meth:`SlotReader.exact
#: <safetychip.translate.SlotReader.exact>`), and whether it read the sentence so at all
#: (``exact``, for every candidate); whether the
#: retrieval translator proposed it, its vote share and best similarity, whether as its first
#: reading, the share of placeholders whose own clause it did not read (``unread``); whether
#: its pattern is one the slot reader's fills defend (``fits``); whether the
#: slot reader read the sentence but not as this candidate (``overruled``); and whether a
#: thing the sentence names is nothing of the scene and was read as plain words.
FEATURES = ("slots", "slots_first", "slots_exact", "exact", "retrieval", "share", "similarity",
            "first", "unread", "fits", "overruled", "unnamed")  # fmt: skip


@dataclass(frozen=True)
class Proposal:
    """One *reader*'s (``"slots"``, ``"retrieval"`` or ``"model"``) *reading* of a lifted
    sentence, before it is checked; *rank* 1 for a reader's first reading, 2 for the next…
    (0 for a model). The retrieval translator's *share* of the votes, its nearest template's
    *similarity*, and the share of placeholders whose own clause was *unread*
    (:attr:`~safetychip.translate.Reading.unread`); the slot reader's *exact* (it read the
    sentence without leaving a word out)."""

    reading: LiftedTranslation
    reader: str
    share: float = 0.0
    similarity: float = 0.0
    rank: int = 0
    exact: bool = False
    unread: float = 0.0


@dataclass(frozen=True)
class Candidate:
    """One formula of a candidate set: the grounded, checked *constraint*, its
    *lifted_formula* and *pattern*, the *readers* that proposed it (first proposer first),
    the calibrated *probability* that it is the right formula (None for a chat model's
    reading, never fitted), the *features* it was scored on, its *parts* (one constraint per
    thing of a list) and the clauses *set_aside* to read it."""

    constraint: Constraint
    lifted_formula: Formula
    pattern: str | None
    readers: tuple[str, ...]
    probability: float | None
    features: Mapping[str, float] = field(default_factory=dict, repr=False)
    parts: tuple[Constraint, ...] = ()
    set_aside: tuple[tuple[str, str], ...] = ()

    @property
    def formula(self) -> Formula:
        """The grounded formula."""
        return self.constraint.formula

    def to_dict(self) -> dict:
        """The candidate as JSON (formula, pattern, probability, readers)."""
        p = self.probability
        return {"formula": str(self.formula), "pattern": self.pattern,
                "probability": None if p is None else round(p, 4), "readers": list(self.readers),
                "parts": [str(c.formula) for c in self.parts]}  # fmt: skip


def features(
    proposals: Sequence[Proposal], patterns: frozenset[str | None] = frozenset(),
    unnamed: bool = False, exact: bool = False,
) -> dict[str, float]:  # fmt: skip
    """The :data:`FEATURES` of a candidate proposed by *proposals*; *patterns*: those of the
    slot reader's readings of the sentence; *unnamed*: the sentence names something that is
    nothing of the scene, read as plain words; *exact*: the slot reader read the sentence
    without leaving a word out.

    >>> from safetychip.ltl import ap
    >>> r = LiftedTranslation(ap("a"), "never")
    >>> f = features([Proposal(r, "retrieval", 0.7, 0.8, rank=1)], frozenset({"never"}))
    >>> f["retrieval"], f["share"], f["first"], f["fits"], f["overruled"], f["slots"]
    (1.0, 0.7, 1.0, 1.0, 1.0, 0.0)
    """
    slots = [p for p in proposals if p.reader == "slots"]
    found = [p for p in proposals if p.reader == "retrieval"]
    return {
        "slots": float(bool(slots)),
        "slots_first": float(any(p.rank == 1 for p in slots)),
        "slots_exact": float(any(p.rank == 1 and p.exact for p in slots)),
        "exact": float(exact),
        "retrieval": float(bool(found)),
        "share": max((p.share for p in found), default=0.0),
        "similarity": max((p.similarity for p in found), default=0.0),
        "first": float(any(p.rank == 1 for p in found)),
        "unread": min((p.unread for p in found), default=0.0),
        "fits": float(proposals[0].reading.pattern in patterns),
        "overruled": float(bool(patterns) and not slots),
        "unnamed": float(unnamed),
    }


@dataclass(frozen=True)
class Scores:
    """The fitted candidate score (*weights*, one per name of :data:`FEATURES`, and
    *intercept*), the conformal *threshold* on ``1 - p`` (a candidate is in the set when
    ``1 - p <= threshold``; infinite: every one is), the miscoverage *alpha* it was chosen for,
    and the *report* of the fit (``data/translation/calibrate_candidates.py``)."""

    weights: Mapping[str, float]
    intercept: float
    threshold: float
    alpha: float = 0.05
    report: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, path: str | os.PathLike[str] = SCORES, *, retrieval: bool = True) -> Scores:
        """Read the fitted scores (default: :data:`SCORES`) for a translator with the
        retrieval translator (*retrieval*) or without it (no embedder); a
        :class:`~safetychip.errors.DataFileError` if the file is missing, not JSON, or lacks
        a weight of :data:`FEATURES`."""
        key = "with_retrieval" if retrieval else "without_retrieval"
        try:
            data = load_json(Path(path), DataFileError)
        except OSError as err:
            raise DataFileError(str(path), f"cannot read the candidate scores: {err}") from None
        try:
            fitted = data[key]
            weights = {name: float(fitted["weights"][name]) for name in FEATURES}
            threshold = fitted["threshold"]
            alpha = float(fitted.get("alpha", data["alpha"]))
            return cls(weights, float(fitted["intercept"]),
                       math.inf if threshold is None else float(threshold), alpha,
                       fitted.get("report", {}))  # fmt: skip
        except (KeyError, TypeError, ValueError) as err:
            raise DataFileError(
                str(path), f"not a candidate score file (missing or bad {err}); rerun "
                "data/translation/calibrate_candidates.py"
            ) from None  # fmt: skip

    def to_dict(self) -> dict:
        """The scores as JSON (one entry of the file :meth:`load` reads)."""
        return {"alpha": self.alpha, "weights": dict(self.weights), "intercept": self.intercept,
                "threshold": None if math.isinf(self.threshold) else self.threshold,
                "report": dict(self.report)}  # fmt: skip

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
    """(weights, intercept) of the candidate score, fitted by L2-regularised logistic
    regression (inverse strength *c*) on *rows*, one (features, right) per candidate of each
    development sentence.

    >>> rows = [({"slots": 1.0}, True)] * 9 + [({"slots": 1.0}, False)]
    >>> rows += [({"retrieval": 1.0}, False)] * 5 + [({"retrieval": 1.0}, True)]
    >>> weights, intercept = fit(rows)
    >>> weights["slots"] > weights["retrieval"]
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
