"""Fallbacks: what the observer releases when no candidate may be, chosen from a library by
their conditions; the default fallback closes every gap (and every fail-safe turn).

Examples
--------
>>> library = FallbackLibrary(
...     [Fallback("unsure", "I'm not sure; could you say more?", reasons=("low_confidence",))],
...     default=Fallback("pause", "Let's take a short pause."))
>>> library.choose("low_confidence", ObserverState())[0].name
'unsure'
>>> fallback, note = library.choose("empty", ObserverState())
>>> fallback.name, note
('pause', "no fallback applies to 'empty': the default fallback")
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from ._state import ObserverState

__all__ = ["DEFAULT", "Fallback", "FallbackLibrary"]


class Fallback(NamedTuple):
    """A fallback action or reply.

    Attributes
    ----------
    name : str
    text : str
        What is released.
    reasons : tuple of str
        The rejection reasons it answers (empty: any).
    when : callable, optional
        ``when(state) -> bool``: a further condition on the interaction state.
    """

    name: str
    text: str
    reasons: tuple[str, ...] = ()
    when: Callable[[ObserverState], bool] | None = None

    def applies(self, reason: str, state: ObserverState) -> bool:
        """Whether it answers *reason* in *state* (a condition that raises does not)."""
        if self.reasons and reason not in self.reasons:
            return False
        if self.when is None:
            return True
        try:
            return bool(self.when(state))
        except Exception:  # a broken condition must not break the fail-safe path
            return False


#: The default fallback of a library that is given none.
DEFAULT = Fallback("default", "I'd rather not answer that.")


class FallbackLibrary:
    """Fallbacks in order of preference, and the default.

    Parameters
    ----------
    fallbacks : iterable of Fallback
        Tried in order; the first that applies is chosen.
    default : Fallback
        Default: :data:`DEFAULT`. Chosen when none applies, and for every fail-safe turn.
    """

    def __init__(self, fallbacks: Iterable[Fallback] = (), *,
                 default: Fallback = DEFAULT) -> None:  # fmt: skip
        self.fallbacks, self.default = tuple(fallbacks), default

    def choose(self, reason: str, state: ObserverState) -> tuple[Fallback, str | None]:
        """The first fallback that applies to *reason* in *state*, or the default with a note
        saying why."""
        for fallback in self.fallbacks:
            if fallback.applies(reason, state):
                return fallback, None
        return self.default, f"no fallback applies to {reason!r}: the default fallback"

    def __repr__(self) -> str:
        names = ", ".join(f.name for f in self.fallbacks)
        return f"<FallbackLibrary [{names}] default {self.default.name}>"
