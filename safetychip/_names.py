"""Suggestions for a misspelled name: the known names closest to it by string similarity.

One home for "did you mean …?" hints, used by the monitor (an unknown proposition), the
environments (an unknown object or landmark) and the translator (a word naming nothing in
the vocabulary). String similarity only (``difflib``'s ratio), so a suggestion costs
microseconds and needs no model.

Examples
--------
>>> close_names("phnoe", ["phone", "fridge", "sofa"])
('phone',)
>>> close_names("is_grabbed(phnoe)", ["is_grabbed(phone)", "is_open(fridge)"])
('is_grabbed(phone)',)
>>> did_you_mean("fridg", ["fridge", "kitchen"])
'; did you mean fridge?'
>>> did_you_mean("zzz", ["fridge"])
''
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["close_names", "did_you_mean"]


def close_names(
    name: str, known: Iterable[str], n: int = 3, cutoff: float = 0.6
) -> tuple[str, ...]:
    """Up to *n* names of *known* whose similarity ratio to *name* is at least *cutoff*, the
    closest first (case-insensitive comparison, original spelling returned)."""
    by_folded: dict[str, str] = {}
    for candidate in known:
        by_folded.setdefault(candidate.lower(), candidate)
    close = difflib.get_close_matches(name.lower(), list(by_folded), n=n, cutoff=cutoff)
    return tuple(by_folded[c] for c in close)


def did_you_mean(name: str, known: Iterable[str], n: int = 3, cutoff: float = 0.6) -> str:
    """``"; did you mean a or b?"`` for the names of *known* closest to *name*, or ``""``."""
    close = close_names(name, known, n=n, cutoff=cutoff)
    return f"; did you mean {' or '.join(close)}?" if close else ""
