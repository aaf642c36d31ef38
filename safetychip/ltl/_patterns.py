"""Specification patterns of the avoidance and trigger families used by robot constraints.

Each constructor takes atoms (names, :class:`~safetychip.ltl.Proposition` values or formulas)
and returns a :class:`~safetychip.ltl.Formula`. :data:`PATTERNS` lists them by name with the
English template used to read a formula back to a person.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import FormulaError
from ._formula import F, Formula, FormulaLike, G, Implies, Not, U, W, X, XS, _coerce

__all__ = [
    "Pattern",
    "PATTERNS",
    "never",
    "not_before",
    "before",
    "response",
    "immediate_response",
    "absence_after",
    "at_least",
    "at_most",
    "exactly",
]


def never(p: FormulaLike) -> Formula:
    """``G !p``: p never holds.

    Examples
    --------
    >>> never("is_grabbed(phone)")
    Formula('G!"is_grabbed(phone)"')
    """
    return G(Not(p))


def not_before(p: FormulaLike, q: FormulaLike) -> Formula:
    """``!p W q``: "don't p before q" (p may happen once q has, or never).

    Examples
    --------
    >>> not_before("agent_at(kitchen)", "agent_at(bathroom)")
    Formula('!"agent_at(kitchen)" W "agent_at(bathroom)"')
    """
    return W(Not(p), q)


def before(p: FormulaLike, q: FormulaLike) -> Formula:
    """``!q W p``: "p before q" (q must wait for p; neither is required)."""
    return not_before(q, p)


def response(p: FormulaLike, q: FormulaLike) -> Formula:
    """``G(p -> F q)``: "if p, then q at the same time or later" (owed at DONE)."""
    return G(Implies(p, F(q)))


def immediate_response(p: FormulaLike, q: FormulaLike) -> Formula:
    """``G(p -> X[!] q)``: "if p, then q right after".

    The strong next makes the obligation binding at DONE: a trace may not end right after p.
    """
    return G(Implies(p, XS(q)))


def absence_after(p: FormulaLike, q: FormulaLike) -> Formula:
    """``G(p -> X G !q)``: "once p has happened, never q afterwards"."""
    return G(Implies(p, X(G(Not(q)))))


def _count(n: int, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise FormulaError(f"{name} needs a whole number of times >= 0, got {n!r}")
    return n


def at_least(n: int, p: FormulaLike) -> Formula:
    """p is *entered* at least n times (n rising edges of p).

    Examples
    --------
    >>> at_least(2, "a")
    Formula('F(a & (a U (!a & (!a U Fa))))')
    """
    n = _count(n, "at_least")
    p = _coerce(p)
    if n == 0:
        return _coerce(True)
    f = F(p)
    for _ in range(n - 1):
        # An entry into p, stay in p, leave it, and from outside p enter again (n-1 more times).
        f = F(p & U(p, Not(p) & U(Not(p), f)))
    return f


def at_most(n: int, p: FormulaLike) -> Formula:
    """p is entered at most n times, as in "visit the hallway at most three times".

    Examples
    --------
    >>> at_most(1, "a")
    Formula('!F(a & (a U (!a & (!a U Fa))))')
    """
    return Not(at_least(_count(n, "at_most") + 1, p))


def exactly(n: int, p: FormulaLike) -> Formula:
    """p is entered exactly n times."""
    n = _count(n, "exactly")
    return at_least(n, p) & at_most(n, p) if n else at_most(0, p)


@dataclass(frozen=True)
class Pattern:
    """A named specification pattern.

    Attributes
    ----------
    name : str
        Short name, e.g. ``"not_before"``.
    family : str
        ``"avoidance"`` or ``"trigger"``.
    build : callable
        The constructor.
    english : str
        Template that reads an instance back, with ``{p}``, ``{q}`` and ``{n}`` slots.
    """

    name: str
    family: str
    build: Callable[..., Formula]
    english: str


PATTERNS: dict[str, Pattern] = {
    p.name: p
    for p in (
        Pattern("never", "avoidance", never, "never {p}"),
        Pattern("not_before", "avoidance", not_before, "do not {p} before {q}"),
        Pattern("before", "avoidance", before, "{p} before {q}"),
        Pattern("at_most", "avoidance", at_most, "{p} at most {n} times"),
        Pattern("at_least", "trigger", at_least, "{p} at least {n} times"),
        Pattern("exactly", "avoidance", exactly, "{p} exactly {n} times"),
        Pattern("response", "trigger", response, "if {p}, then {q} at the same time or later"),
        Pattern("immediate_response", "trigger", immediate_response, "if {p}, then {q} right after"),
        Pattern("absence_after", "trigger", absence_after, "once {p}, never {q} afterwards"),
    )
}
