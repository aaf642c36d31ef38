"""The observer's record of a turn: every candidate with its features, assessments and
decision, what was released and why; JSON in and out.

Examples
--------
>>> record = TurnRecord((), "Let's take a short pause.", "fallback", "no_candidate",
...                     fallback="default", notes=("the policy proposed nothing",))
>>> TurnRecord.from_json(record.to_json()) == record
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..errors import ObserverError
from ._overlay import Assessment
from ._state import Feedback

__all__ = ["CANDIDATE_REASONS", "FAIL_SAFE", "REASONS", "CandidateRecord", "TurnRecord"]

#: Why a candidate was or was not admissible: ``lookahead`` when only a rollout refused it,
#: ``disagreement`` when an ensemble's observers split on it.
CANDIDATE_REASONS = ("admissible", "deviation", "conflict", "lookahead", "disagreement")
#: The turn's reasons that yield the default fallback at once (nothing was evaluated fully).
FAIL_SAFE = ("no_candidate", "policy_error", "feature_error", "overlay_error")
#: Why a turn ended as it did: released, or a rejection reason.
REASONS = ("released", "empty", "low_confidence", "conflict", "lookahead", "disagreement",
           *FAIL_SAFE)  # fmt: skip


class CandidateRecord(NamedTuple):
    """One evaluated candidate.

    Attributes
    ----------
    text : str
    confidence : float
    round : int
        0 for the first proposal, then one per regeneration.
    features : dict of str to float
    assessments : tuple of Assessment
        One per overlay, in the observer's order.
    admissible : bool
    reason : str
        One of :data:`CANDIDATE_REASONS`.
    lifted : tuple of str
        Overlays whose rejections a permission lifted.
    conflicts : tuple of str
        Hard prohibitions a permission met (the prohibition won).
    """

    text: str
    confidence: float
    round: int
    features: Mapping[str, float]
    assessments: tuple[Assessment, ...]
    admissible: bool
    reason: str
    lifted: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()

    @property
    def deviation(self) -> float:
        """The total deviation over the overlays."""
        return sum(a.deviation for a in self.assessments)

    @property
    def rejections(self) -> tuple[Assessment, ...]:
        """The assessments with δ > ε."""
        return tuple(a for a in self.assessments if not a.admissible)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "text": self.text, "confidence": self.confidence, "round": self.round,
            "features": dict(self.features),
            "assessments": [a.to_dict() for a in self.assessments],
            "admissible": self.admissible, "reason": self.reason,
            "lifted": list(self.lifted), "conflicts": list(self.conflicts),
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CandidateRecord:
        """Inverse of :meth:`to_dict`."""
        return cls(str(data["text"]), float(data["confidence"]), int(data["round"]),
                   {str(k): float(v) for k, v in data["features"].items()},
                   tuple(Assessment.from_dict(a) for a in data["assessments"]),
                   bool(data["admissible"]), str(data["reason"]),
                   tuple(data.get("lifted", ())), tuple(data.get("conflicts", ())))  # fmt: skip


class TurnRecord(NamedTuple):
    """Everything the observer decided in one turn.

    Attributes
    ----------
    candidates : tuple of CandidateRecord
        Every candidate evaluated, round by round.
    released : str
        What was released.
    source : str
        ``"policy"`` (an admissible candidate) or ``"fallback"``.
    reason : str
        One of :data:`REASONS`.
    fallback : str or None
        The fallback's name, when one was released.
    feedback : tuple of Feedback
        The forced feedback given to each regeneration, then the implicit feedback left
        for the next turn, if any.
    notes : tuple of str
        Why the turn failed safe, or why the default fallback was chosen.
    """

    candidates: tuple[CandidateRecord, ...]
    released: str
    source: str
    reason: str
    fallback: str | None = None
    feedback: tuple[Feedback, ...] = ()
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "candidates": [c.to_dict() for c in self.candidates], "released": self.released,
            "source": self.source, "reason": self.reason, "fallback": self.fallback,
            "feedback": [{"kind": f.kind, "descriptors": list(f.descriptors)}
                         for f in self.feedback],
            "notes": list(self.notes),
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TurnRecord:
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        ObserverError
            If a field is missing or the reason is unknown.
        """
        try:
            reason = str(data["reason"])
            if reason not in REASONS:
                raise ObserverError(f"unknown turn reason {reason!r}: expected one of "
                                    f"{', '.join(REASONS)}")  # fmt: skip
            return cls(tuple(CandidateRecord.from_dict(c) for c in data["candidates"]),
                       str(data["released"]), str(data["source"]), reason,
                       data.get("fallback"),
                       tuple(Feedback(str(f["kind"]), tuple(f["descriptors"]))
                             for f in data.get("feedback", ())),
                       tuple(data.get("notes", ())))  # fmt: skip
        except KeyError as exc:
            raise ObserverError(f"a turn record lacks the field {exc}: write it with "
                                "TurnRecord.to_dict()") from exc  # fmt: skip

    def to_json(self) -> str:
        """The record as a JSON document."""
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TurnRecord:
        """Inverse of :meth:`to_json`."""
        return cls.from_dict(json.loads(text))
