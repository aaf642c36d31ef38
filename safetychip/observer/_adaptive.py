"""Adaptive rigidity: an overlay whose tolerance tightens as a safety margin shrinks.

The margin is ``m = n_max − n_t`` over a running negativity score ``n_t`` (a feature: the
user's consecutive negative turns, a running mean of negative affect, …). The wrapped
overlay's nominal rigidity ε₀ is scaled by the margin's share, down to a floor::

    ε_t = ε_min + (ε₀ − ε_min) · clip(m / n_max, 0, 1)

so ε_t = ε₀ while nothing is negative (n_t ≤ 0), and ε_t = ε_min once the score reaches
n_max (m ≤ 0). The wrapped overlay's deviation, kind and name are kept; only ε changes.

Examples
--------
>>> from safetychip.observer import ProhibitoryOverlay
>>> brief = AdaptiveRigidity(ProhibitoryOverlay("brief", "length", at_most=20, rigidity=10),
...                          "negativity", n_max=4)
>>> [brief.rigidity_at(n) for n in (0, 2, 4, 6)]
[10.0, 5.0, 0.0, 0.0]
>>> a = brief.assess({"length": 26, "negativity": 2}, Candidate("…"), ObserverState())
>>> a.rigidity, a.admissible, a.descriptor
(5.0, False, 'length 26.00 is above 20.00 by 6.00 (margin 2.00 of 4.00: ε 5.00)')
"""

from __future__ import annotations

import math

from ._overlay import Assessment, Features, Overlay
from ._state import Candidate, ObserverState

__all__ = ["AdaptiveRigidity"]


class AdaptiveRigidity(Overlay):
    """Wrap *overlay* so that its rigidity follows the margin ``n_max − n_t`` (see the
    module's formula).

    Parameters
    ----------
    overlay : Overlay
        Its rigidity is the nominal ε₀; its name names this overlay too.
    score : str
        The feature holding the running negativity score n_t.
    n_max : float
        The score at which the margin is spent (> 0).
    floor : float
        ε_min, the rigidity once the margin is spent (0 ≤ ε_min ≤ ε₀).

    Raises
    ------
    ValueError
        If *n_max* is not > 0 or *floor* is outside ``[0, ε₀]``.
    """

    def __init__(self, overlay: Overlay, score: str, *, n_max: float,
                 floor: float = 0.0) -> None:  # fmt: skip
        if not (n_max > 0 and math.isfinite(n_max)):
            raise ValueError(f"adaptive rigidity of {overlay.name!r}: n_max must be a finite "
                             f"number > 0, got {n_max}")  # fmt: skip
        if not 0 <= floor <= overlay.rigidity:
            raise ValueError(f"adaptive rigidity of {overlay.name!r}: floor must be in "
                             f"[0, {overlay.rigidity:g}] (the overlay's rigidity), "
                             f"got {floor}")  # fmt: skip
        self.overlay, self.score, self.n_max, self.floor = overlay, score, float(n_max), floor
        self.name, self.rigidity = overlay.name, overlay.rigidity
        self.reads = tuple(dict.fromkeys((*overlay.reads, score)))
        # the wrapped overlay's class attributes, per instance
        self.kind = overlay.kind  # type: ignore[misc]
        self.rejects_as = overlay.rejects_as  # type: ignore[misc]

    def rigidity_at(self, score: float) -> float:
        """ε_t for the running score *score*."""
        share = min(1.0, max(0.0, (self.n_max - score) / self.n_max))
        return self.floor + (self.rigidity - self.floor) * share

    def assess(self, features: Features, candidate: Candidate,
               state: ObserverState) -> Assessment:  # fmt: skip
        """The wrapped overlay's assessment with ε_t in place of ε₀."""
        score = features[self.score]
        rigidity = self.rigidity_at(score)
        a = self.overlay.assess(features, candidate, state)
        margin = self.n_max - score
        return a._replace(rigidity=rigidity, descriptor=f"{a.descriptor} (margin {margin:.2f} "
                          f"of {self.n_max:.2f}: ε {rigidity:.2f})")  # fmt: skip

    def __repr__(self) -> str:
        return f"<AdaptiveRigidity {self.overlay!r} over {self.score}, n_max={self.n_max:g}>"
