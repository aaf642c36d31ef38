"""Time budgets for calls into code the chip does not control (filters, overlays, policies):
the call runs on a worker thread, and the caller waits at most the budget.

A call past its budget raises :class:`~safetychip.errors.TimeBudgetError` in the caller,
which then fails safe (refuses the action, stops the run). Python cannot stop a thread, so
the late call runs on in the background, abandoned; its :class:`Budget` stays busy until it
ends and refuses any further call meanwhile, so the same code is never run twice at once.

Examples
--------
>>> budget = Budget(0.5, "filter 'memory'")
>>> budget.call(sum, [1, 2, 3])
6
>>> import time
>>> Budget(0.01, "overlay 'slow'").call(time.sleep, 1)
Traceback (most recent call last):
...
safetychip.errors.TimeBudgetError: overlay 'slow' did not answer within its 10 ms budget: \
give it a larger budget, or make it faster
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from .errors import TimeBudgetError

__all__ = ["Budget"]

T = TypeVar("T")


class Budget:
    """Run calls of one piece of code within *seconds* each (None: no limit, in the caller's
    thread).

    Parameters
    ----------
    seconds : float or None
        The budget of each call.
    what : str
        Names the code in messages (``"filter 'memory'"``).

    Raises
    ------
    ValueError
        If *seconds* is neither None nor a positive number.
    """

    def __init__(self, seconds: float | None, what: str) -> None:
        if seconds is not None and not seconds > 0:
            raise ValueError(f"the time budget of {what} must be a positive number of seconds "
                             f"or None, got {seconds!r}")  # fmt: skip
        self.seconds, self.what = seconds, what
        self._late: threading.Thread | None = None

    def call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` within the budget: its result, or its exception re-raised.

        Raises
        ------
        TimeBudgetError
            If it did not return within the budget, or an earlier call that overran is
            still running.
        """
        if self.seconds is None:
            return function(*args)
        late = self._late
        if late is not None:
            if late.is_alive():
                raise TimeBudgetError(f"{self.what} is still running a call that overran its "
                                      f"{_ms(self.seconds)} budget, so it cannot answer now: "
                                      "make it faster or give it a larger budget")  # fmt: skip
            self._late = None
        outcome: list[Any] = []

        def run() -> None:
            try:
                outcome.append((True, function(*args)))
            except BaseException as exc:  # handed to the caller
                outcome.append((False, exc))

        worker = threading.Thread(target=run, name=f"budget: {self.what}", daemon=True)
        worker.start()
        worker.join(self.seconds)
        if worker.is_alive():
            self._late = worker
            raise TimeBudgetError(f"{self.what} did not answer within its {_ms(self.seconds)} "
                                  "budget: give it a larger budget, or make it faster")  # fmt: skip
        ok, value = outcome[0]
        if not ok:
            raise value
        return value

    def __repr__(self) -> str:
        limit = "no limit" if self.seconds is None else _ms(self.seconds)
        return f"<Budget {self.what}: {limit}>"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:g} ms" if seconds < 1 else f"{seconds:g} s"
