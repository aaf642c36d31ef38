"""The three kinds of overlay over features: prohibitory (exclude what passes a limit),
transfer (under a condition, shift preference from one class of reply to another) and
permissive (under a condition, lift the rejections of named overlays).

A permission never lifts a *hard* prohibition (a prohibitory overlay with ε = 0, such as the
Safety Chip): when one meets the other the prohibition wins, the candidate is refused and the
observer records a conflict.

Examples
--------
The worked example of the Grounded Observer: the user's frustration f = 0.82 passes φ, so
the reply's empathy e must reach τ = 0.50.

>>> empathy = TransferOverlay("empathy", Condition("frustration", 0.7), "empathy", 0.5,
...                           rigidity=0.05)
>>> a = empathy.assess({"frustration": 0.82, "empathy": 0.21}, Candidate("…"), ObserverState())
>>> round(a.deviation, 2), a.admissible
(0.29, False)
>>> a.descriptor
'frustration 0.82 ≥ 0.70: empathy 0.21 is below 0.50 by 0.29'
>>> long = ProhibitoryOverlay("long", "length", at_most=30, rigidity=5)
>>> long.assess({"length": 33}, Candidate("…"), ObserverState()).feedback
'implicit'
"""

from __future__ import annotations

from collections.abc import Iterable

from ._overlay import Assessment, Condition, Features, Overlay
from ._state import Candidate, ObserverState

__all__ = ["PermissiveOverlay", "ProhibitoryOverlay", "TransferOverlay"]


def _shortfall(feature: str, value: float, bound: float, *, below: bool) -> tuple[str, float]:
    """The sentence and deviation of *value* against a lower (*below*) or upper bound."""
    gap = max(0.0, bound - value) if below else max(0.0, value - bound)
    if gap == 0:
        return f"{feature} {value:.2f} is within {bound:.2f}", 0.0
    word = "below" if below else "above"
    return f"{feature} {value:.2f} is {word} {bound:.2f} by {gap:.2f}", gap


def _inactive(condition: Condition, features: Features) -> str:
    return f"{condition.feature} {features[condition.feature]:.2f} < {condition.at_least:.2f}"


class ProhibitoryOverlay(Overlay):
    """Exclude candidates whose feature passes a limit: δ is how far past it.

    Parameters
    ----------
    name : str
    feature : str
        The feature read.
    at_most, at_least : float
        The limit (exactly one).
    rigidity : float
        ε.
    when : Condition, optional
        Apply only when it holds (δ = 0 otherwise).
    """

    kind = "prohibitory"

    def __init__(self, name: str, feature: str, *, at_most: float | None = None,
                 at_least: float | None = None, rigidity: float = 0.0,
                 when: Condition | None = None) -> None:  # fmt: skip
        if (at_most is None) == (at_least is None):
            raise ValueError(f"overlay {name!r}: give exactly one of at_most and at_least")
        self.name, self.feature, self.when = name, feature, when
        self.limit = float(at_most if at_most is not None else at_least)  # type: ignore[arg-type]
        self.below = at_least is not None
        self.rigidity = self._rigidity(name, rigidity)
        self.reads = (feature, *((when.feature,) if when else ()))

    def assess(self, features: Features, candidate: Candidate,
               state: ObserverState) -> Assessment:  # fmt: skip
        """δ = how far the feature passes the limit (0 when the condition does not hold)."""
        if self.when is not None and not self.when.holds(features):
            return self._assessment(_inactive(self.when, features), 0.0)
        descriptor, gap = _shortfall(self.feature, features[self.feature], self.limit,
                                     below=self.below)  # fmt: skip
        return self._assessment(descriptor, gap)


class TransferOverlay(Overlay):
    """Under a condition, shift preference toward a class of reply (its feature must reach a
    target) and, optionally, away from another (its feature must stay under a ceiling); δ is
    the sum of the shortfalls.

    Parameters
    ----------
    name : str
    when : Condition
        When the transfer applies (the user's frustration is at least φ).
    toward : str
        The feature of the preferred class (empathy).
    target : float
        τ: the level *toward* must reach.
    away : str, optional
        The feature of the class to move away from (advice).
    ceiling : float
        The level *away* must stay under.
    rigidity : float
        ε.
    """

    kind = "transfer"

    def __init__(self, name: str, when: Condition, toward: str, target: float, *,
                 away: str | None = None, ceiling: float = 1.0,
                 rigidity: float = 0.0) -> None:  # fmt: skip
        self.name, self.when, self.toward, self.target = name, when, toward, float(target)
        self.away, self.ceiling = away, float(ceiling)
        self.rigidity = self._rigidity(name, rigidity)
        self.reads = (when.feature, toward, *((away,) if away else ()))

    def assess(self, features: Features, candidate: Candidate,
               state: ObserverState) -> Assessment:  # fmt: skip
        """δ = max(0, τ − toward) + max(0, away − ceiling) when the condition holds."""
        when = self.when
        if not when.holds(features):
            return self._assessment(_inactive(when, features), 0.0)
        parts = [_shortfall(self.toward, features[self.toward], self.target, below=True)]
        if self.away is not None:
            parts.append(_shortfall(self.away, features[self.away], self.ceiling, below=False))
        head = f"{when.feature} {features[when.feature]:.2f} ≥ {when.at_least:.2f}: "
        return self._assessment(head + "; ".join(d for d, _ in parts), sum(g for _, g in parts))


class PermissiveOverlay(Overlay):
    """Under a condition, admit what the named overlays would exclude (δ is always 0).

    Parameters
    ----------
    name : str
    when : Condition
        When the permission holds (the user asked for advice).
    lifts : iterable of str
        The overlays whose rejections it lifts (never a hard prohibition: see the module).
    """

    kind = "permissive"

    def __init__(self, name: str, when: Condition, lifts: Iterable[str]) -> None:
        self.name, self.when, self.lifts = name, when, tuple(lifts)
        if not self.lifts:
            raise ValueError(f"overlay {name!r}: name the overlays it lifts (lifts=[...])")
        self.reads = (when.feature,)

    def assess(self, features: Features, candidate: Candidate,
               state: ObserverState) -> Assessment:  # fmt: skip
        """Active (``lifts`` set) when the condition holds."""
        if not self.when.holds(features):
            return self._assessment(_inactive(self.when, features), 0.0)
        lifted = ", ".join(self.lifts)
        return self._assessment(f"{self.when} holds: {lifted} may be exceeded", 0.0,
                                lifts=self.lifts)  # fmt: skip
