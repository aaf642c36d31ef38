"""Ensembles: several observers judge each candidate independently and an arbitration combines
their votes; a split raises a risk signal that ends the turn in a conservative fallback.

With weights w_i (all 1 unless the arbitration is ``weighted``) and s the weighted share of
observers that admit a candidate:

* ``majority``: admitted iff more than half of the observers admit it (s > 1/2, unweighted);
* ``weighted``: admitted iff s > *quota*;
* ``intersection``: admitted iff every observer admits it (s = 1), the conservative choice.

The disagreement is d = 1 − |2s − 1| (0 when unanimous, 1 on an even split); above the
*tolerance* the candidate is refused with reason ``"disagreement"`` whatever the arbitration
says, and a round with one such candidate ends as ``"disagreement"``: the ensemble
regenerates within its budget (0 by default), then releases the fallback answering
``"disagreement"`` (default: :data:`UNSURE`, "I'm not sure").

An :class:`Ensemble` is an :class:`Observer` (same loop, records and fail-safe): its
features are every member's, named ``member.feature``, and its assessments every member's
overlays, named ``member.overlay``. The members' own budgets, fallbacks and confidence
thresholds are not used.

Examples
--------
>>> from safetychip.observer import Length, ProhibitoryOverlay
>>> def brief(name, words):
...     return Observer([Length()], [ProhibitoryOverlay(name, "length", at_most=words)])
>>> members = {"a": brief("short", 3), "b": brief("medium", 6), "c": brief("long", 9)}
>>> lenient = Ensemble(members, "maj", tolerance=1)
>>> lenient.arbitration
<Arbitration.MAJORITY: 'majority'>
>>> record = lenient.evaluate(Candidate("one two three four five"), ObserverState())
>>> record.admissible, record.reason, lenient.votes(record)
(True, 'admissible', {'a': False, 'b': True, 'c': True})

At the default tolerance (1/2) a two-to-one split is a disagreement:

>>> step = Ensemble(members, "maj").step(lambda state, feedback: "one two three four five",
...                                      ObserverState())
>>> step.reason, step.released
('disagreement', "I'm not sure; could you tell me more?")
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

from ..errors import ObserverError
from ._fallback import Fallback, FallbackLibrary
from ._observer import Observer
from ._record import CandidateRecord
from ._state import Candidate, Feedback, ObserverState

__all__ = ["UNSURE", "Arbitration", "Ensemble"]

#: The conservative fallback an ensemble releases when its observers disagree.
UNSURE = Fallback("unsure", "I'm not sure; could you tell me more?", reasons=("disagreement",))


class Arbitration(enum.Enum):
    """How an ensemble combines its observers' votes (see the module)."""

    MAJORITY = "majority"
    WEIGHTED = "weighted"
    INTERSECTION = "intersection"

    @classmethod
    def of(cls, option: Arbitration | str) -> Arbitration:
        """*option* as an Arbitration: a member, or its value in any case or a unique prefix.

        Raises
        ------
        ValueError
            If *option* names none or several, listing the choices.

        Examples
        --------
        >>> Arbitration.of("Inter")
        <Arbitration.INTERSECTION: 'intersection'>
        >>> Arbitration.of("vote")
        Traceback (most recent call last):
        ...
        ValueError: unknown arbitration 'vote': choose one of majority, weighted, intersection
        """
        if isinstance(option, cls):
            return option
        key = str(option).lower()
        found = [a for a in cls if key and a.value.startswith(key)]
        if len(found) != 1:
            choices = ", ".join(a.value for a in cls)
            raise ValueError(f"unknown arbitration {option!r}: choose one of {choices}")
        return found[0]


class Ensemble(Observer):
    """Observers that judge independently, combined by an arbitration.

    Parameters
    ----------
    observers : mapping of str to Observer
        The members by name (at least two; names without dots).
    arbitration : Arbitration or str
        ``"majority"`` (default), ``"weighted"`` or ``"intersection"``.
    weights : mapping of str to float, optional
        Each member's weight (> 0) for ``"weighted"``; default 1 each.
    quota : float
        The weighted share a candidate must pass under ``"weighted"``, in [0, 1).
    tolerance : float
        The disagreement above which a candidate is refused as ``"disagreement"``: 1/2
        (default) lets three to one pass and stops two to one; 1 never stops.
    fallbacks : FallbackLibrary, optional
        Default: :data:`UNSURE` for disagreements, then the default fallback.
    budget, confidence, call_seconds
        As for :class:`Observer` (default budget 0: a disagreement falls back at once).

    Raises
    ------
    ObserverError
        If there are fewer than two members, a name holds a dot, or the weights name
        unknown members or are not > 0.
    ValueError
        If *arbitration* is unknown or *quota* is outside [0, 1).
    """

    def __init__(self, observers: Mapping[str, Observer], arbitration: Arbitration | str =
                 Arbitration.MAJORITY, *, weights: Mapping[str, float] | None = None,
                 quota: float = 0.5, tolerance: float = 0.5,
                 fallbacks: FallbackLibrary | None = None, budget: int = 0,
                 confidence: float = 0.0, call_seconds: float | None = 10.0) -> None:  # fmt: skip
        super().__init__(fallbacks=fallbacks if fallbacks is not None
                         else FallbackLibrary([UNSURE]), budget=budget,
                         confidence=confidence, call_seconds=call_seconds)  # fmt: skip
        self.observers, self.arbitration = dict(observers), Arbitration.of(arbitration)
        if len(self.observers) < 2 or any("." in name for name in self.observers):
            raise ObserverError(f"an ensemble needs at least two observers named without dots, "
                                f"got {sorted(self.observers)}")  # fmt: skip
        weights = dict(weights or {})
        unknown = sorted(set(weights) - set(self.observers))
        if unknown or any(not w > 0 for w in weights.values()):
            raise ObserverError(f"ensemble weights {weights} must be > 0 and name members "
                                f"({', '.join(self.observers)})")  # fmt: skip
        if not 0 <= quota < 1:
            raise ValueError(f"the ensemble quota must be in [0, 1), got {quota}")
        self.weights = {name: weights.get(name, 1.0) for name in self.observers}
        self.quota, self.tolerance = quota, tolerance

    def features(self, candidate: Candidate, state: ObserverState) -> dict[str, float]:
        """Every member's features, named ``member.feature``."""
        return {f"{name}.{key}": value for name, o in self.observers.items()
                for key, value in o.features(candidate, state).items()}  # fmt: skip

    def assess(self, candidate: Candidate, features: Mapping[str, float],
               state: ObserverState, round: int = 0) -> CandidateRecord:  # fmt: skip
        """Every member's decision, combined by the arbitration (see the module)."""
        records = {}
        for name, o in self.observers.items():
            own = {key.partition(".")[2]: value for key, value in features.items()
                   if key.startswith(f"{name}.")}  # fmt: skip
            records[name] = o.assess(candidate, own, state, round)
        admitting = [name for name, r in records.items() if r.admissible]
        weighted = self.arbitration is Arbitration.WEIGHTED
        weight = {name: self.weights[name] if weighted else 1.0 for name in records}
        share = sum(weight[name] for name in admitting) / sum(weight.values())
        disagreement = 1 - abs(2 * share - 1)
        admitted = {Arbitration.MAJORITY: share > 0.5, Arbitration.WEIGHTED: share > self.quota,
                    Arbitration.INTERSECTION: share == 1}[self.arbitration]  # fmt: skip
        if disagreement > self.tolerance:
            admitted, reason = False, "disagreement"
        else:
            reason = "admissible" if admitted else "deviation"
        return CandidateRecord(
            candidate.text, candidate.confidence, round, features,
            tuple(a._replace(overlay=f"{name}.{a.overlay}")
                  for name, r in records.items() for a in r.assessments),
            admitted, reason,
            tuple(f"{name}.{o}" for name, r in records.items() for o in r.lifted),
            tuple(f"{name}.{o}" for name, r in records.items() for o in r.conflicts),
        )  # fmt: skip

    def votes(self, record: CandidateRecord) -> dict[str, bool]:
        """Each member's vote on an evaluated candidate, read back from *record*."""
        return {name: all(a.admissible or a.overlay.partition(".")[2] in _lifted(record, name)
                          for a in record.assessments if a.overlay.startswith(f"{name}."))
                for name in self.observers}  # fmt: skip

    def _rejection(self, batch: list[CandidateRecord],
                   best: CandidateRecord | None) -> tuple[str, Feedback]:  # fmt: skip
        reason, feedback = super()._rejection(batch, best)
        if best is None and any(r.reason == "disagreement" for r in batch):
            return "disagreement", Feedback("forced", (*feedback.descriptors,
                                                        "the observers disagree"))  # fmt: skip
        return reason, feedback

    def __repr__(self) -> str:
        return (f"<Ensemble {self.arbitration.value} of {', '.join(self.observers)}, "
                f"budget {self.budget}>")  # fmt: skip


def _lifted(record: CandidateRecord, name: str) -> set[str]:
    return {o.partition(".")[2] for o in record.lifted if o.startswith(f"{name}.")}
