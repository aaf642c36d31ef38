"""Feature extractors: callables over a candidate and the interaction state, each declaring
what it measures and its range; a value outside the range is an error (the observer fails
safe on it).

Examples
--------
>>> @extractor("exclamations", "exclamation marks in the reply", 0, 10)
... def exclamations(candidate, state):
...     return candidate.text.count("!")
>>> exclamations.measure(Candidate("Hi!"), ObserverState())
1.0
>>> exclamations.measure(Candidate("!" * 11), ObserverState())
Traceback (most recent call last):
...
safetychip.errors.ObserverError: feature 'exclamations' is 11.0, outside its declared range ...
>>> ContextValue("frustration").measure(Candidate("ok"), ObserverState(context={"frustration": 1}))
1.0
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable

from ..errors import ObserverError
from ._state import Candidate, ObserverState

__all__ = ["ContextValue", "Extractor", "FunctionExtractor", "extractor"]

_Function = Callable[[Candidate, ObserverState], float]


class Extractor(abc.ABC):
    """Base class of feature extractors: implement :meth:`compute`.

    Attributes
    ----------
    name : str
        The feature's name, which overlays read.
    measures : str
        What the feature measures, in a few words.
    low, high : float
        The declared range (``math.inf`` for unbounded).
    """

    name: str
    measures: str
    low: float = 0.0
    high: float = 1.0

    @abc.abstractmethod
    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """The feature's raw value for *candidate* in *state*."""

    def measure(self, candidate: Candidate, state: ObserverState) -> float:
        """:meth:`compute`, checked against the declared range.

        Raises
        ------
        ObserverError
            If the value is not a number within ``[low, high]``.
        """
        value = float(self.compute(candidate, state))
        if math.isnan(value) or not self.low <= value <= self.high:
            raise ObserverError(
                f"feature {self.name!r} is {value}, outside its declared range "
                f"[{self.low:g}, {self.high:g}]: fix the extractor or widen its range"
            )
        return value

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} in [{self.low:g}, {self.high:g}]>"


class FunctionExtractor(Extractor):
    """A plain function ``f(candidate, state) -> float`` as an extractor (see
    :func:`extractor`)."""

    def __init__(self, function: _Function, name: str,
                 measures: str, low: float, high: float) -> None:  # fmt: skip
        if not low <= high:
            raise ValueError(f"extractor {name!r}: low {low} exceeds high {high}; swap them")
        self.function = function
        self.name, self.measures, self.low, self.high = name, measures, low, high

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """Call the function."""
        return self.function(candidate, state)


def extractor(name: str, measures: str, low: float = 0.0,
              high: float = 1.0) -> Callable[[_Function], FunctionExtractor]:  # fmt: skip
    """Decorate ``f(candidate, state) -> float`` into a :class:`FunctionExtractor` named
    *name*, measuring *measures*, with range ``[low, high]`` (see the module's example)."""

    def wrap(function: _Function) -> FunctionExtractor:
        return FunctionExtractor(function, name, measures, low, high)

    return wrap


class ContextValue(Extractor):
    """A value of the auxiliary context (a sensed frustration, a user model's estimate) as a
    feature; a missing key is an error.

    Parameters
    ----------
    key : str
        The context key, also the feature's name.
    low, high : float
        The declared range.
    """

    def __init__(self, key: str, low: float = 0.0, high: float = 1.0) -> None:
        self.name, self.low, self.high = key, low, high
        self.measures = f"the context's {key!r}"

    def compute(self, candidate: Candidate, state: ObserverState) -> float:
        """``state.context[key]``."""
        if self.name not in state.context:
            raise ObserverError(f"the context has no {self.name!r}: set "
                                f"state.context[{self.name!r}] before the turn")  # fmt: skip
        return float(state.context[self.name])
