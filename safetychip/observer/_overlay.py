"""Overlays: rules over features that say how far a candidate deviates. Each assessment is a
descriptor (a sentence saying what deviates) and a deviation δ ≥ 0; the overlay's rigidity ε
makes the candidate admissible iff δ ≤ ε. A small deviation (0 < δ ≤ ε) is admitted with
*implicit* feedback for the next turn; a larger one is rejected with *forced* feedback.

Examples
--------
>>> a = Assessment("empathy", "transfer", "empathy is low", 0.03, 0.05)
>>> a.admissible, a.feedback
(True, 'implicit')
>>> a._replace(rigidity=0.01).feedback
'forced'
>>> Assessment.from_dict(a.to_dict()) == a
True
>>> str(Condition("frustration", 0.7))
'frustration ≥ 0.70'
"""

from __future__ import annotations

import abc
import math
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

from ..shield import Judgement
from ._state import Candidate, ObserverState

__all__ = ["KINDS", "Assessment", "Condition", "Overlay"]

#: The kinds of overlay: exclude, shift preference between classes, admit under a condition.
KINDS = ("prohibitory", "transfer", "permissive")

Features = Mapping[str, float]


class Assessment(NamedTuple):
    """What one overlay says about one candidate.

    Attributes
    ----------
    overlay : str
        The overlay's name.
    kind : str
        One of :data:`KINDS`.
    descriptor : str
        One sentence saying what deviates (or that nothing does).
    deviation : float
        δ ≥ 0.
    rigidity : float
        ε ≥ 0: admissible iff δ ≤ ε.
    lifts : tuple of str
        For an active permissive overlay: the overlays whose rejections it lifts.
    judgement : Judgement or None
        For a shield filter as an overlay: the filter's own judgement.
    """

    overlay: str
    kind: str
    descriptor: str
    deviation: float
    rigidity: float
    lifts: tuple[str, ...] = ()
    judgement: Judgement | None = None

    @property
    def admissible(self) -> bool:
        """δ ≤ ε."""
        return self.deviation <= self.rigidity

    @property
    def feedback(self) -> str:
        """``"none"`` (δ = 0), ``"implicit"`` (0 < δ ≤ ε) or ``"forced"`` (δ > ε)."""
        if self.deviation == 0:
            return "none"
        return "implicit" if self.admissible else "forced"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "overlay": self.overlay, "kind": self.kind, "descriptor": self.descriptor,
            "deviation": self.deviation, "rigidity": self.rigidity, "lifts": list(self.lifts),
            "feedback": self.feedback,
            "judgement": self.judgement.to_dict() if self.judgement is not None else None,
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Assessment:
        """Inverse of :meth:`to_dict`."""
        judgement = data.get("judgement")
        return cls(str(data["overlay"]), str(data["kind"]), str(data["descriptor"]),
                   float(data["deviation"]), float(data["rigidity"]),
                   tuple(data.get("lifts", ())),
                   Judgement.from_dict(judgement) if judgement is not None else None)  # fmt: skip


class Condition(NamedTuple):
    """When an overlay applies: the feature *feature* is at least *at_least*."""

    feature: str
    at_least: float

    def holds(self, features: Features) -> bool:
        """Whether the condition holds for *features*."""
        return features[self.feature] >= self.at_least

    def __str__(self) -> str:
        return f"{self.feature} ≥ {self.at_least:.2f}"


class Overlay(abc.ABC):
    """Base class of overlays: implement :meth:`assess`.

    Attributes
    ----------
    name : str
        Names the overlay in assessments, permissions and records.
    kind : str
        One of :data:`KINDS`.
    rigidity : float
        ε ≥ 0, the deviation the overlay tolerates.
    reads : tuple of str
        The features it reads; the observer checks its extractors provide them.
    rejects_as : str
        The candidate's reason when this overlay alone rejects it (``"deviation"``; a
        lookahead's ``"lookahead"``).
    """

    kind: ClassVar[str]
    rejects_as: ClassVar[str] = "deviation"
    name: str
    rigidity: float = 0.0
    reads: tuple[str, ...] = ()

    @abc.abstractmethod
    def assess(self, features: Features, candidate: Candidate,
               state: ObserverState) -> Assessment:  # fmt: skip
        """The descriptor and deviation of *candidate*, whose *features* are measured, in
        *state*."""

    def _assessment(self, descriptor: str, deviation: float, **fields: Any) -> Assessment:
        return Assessment(self.name, self.kind, descriptor, deviation, self.rigidity, **fields)

    @staticmethod
    def _rigidity(name: str, rigidity: float) -> float:
        if not (rigidity >= 0 and math.isfinite(rigidity)):
            raise ValueError(f"overlay {name!r}: rigidity must be a finite number >= 0, "
                             f"got {rigidity}")  # fmt: skip
        return float(rigidity)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} ε={self.rigidity:g}>"
