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

import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from .errors import TimeBudgetError

__all__ = ["Budget"]

T = TypeVar("T")

#: Seconds an idle worker waits for another call before it ends.
_LINGER = 2.0


class _Job:
    """One call handed to a worker, and its outcome once ``done`` is set."""

    __slots__ = ("args", "done", "function", "ok", "value")

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.function, self.args = function, args
        self.done = threading.Event()
        self.ok = False
        self.value: Any = None

    def run(self) -> None:
        try:
            self.value, self.ok = self.function(*self.args), True
        except BaseException as exc:  # handed to the caller
            self.value = exc
        self.done.set()


class _Workers:
    """Daemon threads that run calls, started when none is idle and ending after
    :data:`_LINGER` idle seconds (a call that never returns keeps its thread, nothing else).
    A caller claims an idle worker before it hands its job over, so a worker that ends never
    leaves a job behind."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.idle = 0  # idle workers nobody has claimed

    def submit(self, job: _Job) -> None:
        with self.lock:
            claimed = self.idle > 0
            self.idle -= claimed
        self.jobs.put(job)
        if not claimed:
            threading.Thread(target=self._work, name="safetychip budget", daemon=True).start()

    def _work(self) -> None:
        while True:
            try:
                job = self.jobs.get(timeout=_LINGER)
            except queue.Empty:
                with self.lock:
                    if self.idle > 0:  # unclaimed: end (else a job is on its way to us)
                        self.idle -= 1
                        return
                continue
            job.run()
            with self.lock:
                self.idle += 1


_WORKERS = _Workers()


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
        self._late: _Job | None = None

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
            if not late.done.is_set():
                raise TimeBudgetError(f"{self.what} is still running a call that overran its "
                                      f"{_ms(self.seconds)} budget, so it cannot answer now: "
                                      "make it faster or give it a larger budget")  # fmt: skip
            self._late = None
        job = _Job(function, args)
        _WORKERS.submit(job)
        if not job.done.wait(self.seconds):
            self._late = job
            raise TimeBudgetError(f"{self.what} did not answer within its {_ms(self.seconds)} "
                                  "budget: give it a larger budget, or make it faster")  # fmt: skip
        if not job.ok:
            raise job.value
        result: T = job.value
        return result

    def __repr__(self) -> str:
        limit = "no limit" if self.seconds is None else _ms(self.seconds)
        return f"<Budget {self.what}: {limit}>"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:g} ms" if seconds < 1 else f"{seconds:g} s"
