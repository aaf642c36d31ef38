"""The construction budget: automata (and guards) built inside :func:`build_within` stop
with a :class:`~safetychip.errors.TimeBudgetError` once it is spent, instead of running on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import TimeBudgetError

__all__ = ["build_within"]

_BUDGET = threading.local()  # this thread's construction budget: (end time, seconds)


@contextmanager
def build_within(seconds: float | None) -> Iterator[None]:
    """Let the automata built inside the block (on this thread) take at most *seconds* in all
    (None: no limit; a budget already running still applies).

    Raises
    ------
    TimeBudgetError
        From the construction that ran past the budget.

    Examples
    --------
    >>> from safetychip.automata import to_dfa
    >>> from safetychip.ltl import parse
    >>> with build_within(1e-9):
    ...     to_dfa(parse(" & ".join(f"F q{i}" for i in range(7))))
    Traceback (most recent call last):
    ...
    safetychip.errors.TimeBudgetError: building an automaton ran past its 1e-09 s budget
    """
    previous = getattr(_BUDGET, "limit", None)
    limit = previous
    if seconds is not None:
        end = time.perf_counter() + seconds
        if previous is None or end < previous[0]:
            limit = (end, seconds)
    _BUDGET.limit = limit
    try:
        yield
    finally:
        _BUDGET.limit = previous


def tick() -> None:
    """Raise TimeBudgetError once the running construction budget is spent."""
    limit = getattr(_BUDGET, "limit", None)
    if limit is not None and time.perf_counter() > limit[0]:
        raise TimeBudgetError(f"building an automaton ran past its {limit[1]:g} s budget")
