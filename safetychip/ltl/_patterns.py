"""Specification patterns: the safety patterns robot constraints use, and the robotic
mission patterns.

Each constructor takes atoms (names, :class:`~safetychip.ltl.Proposition` values or formulas)
and returns a :class:`~safetychip.ltl.Formula`. :data:`PATTERNS` lists the avoidance and
trigger patterns by name with their English (:attr:`Pattern.english`), the one reading of each
pattern: :meth:`Pattern.read` fills it in, and the back-translator reads formulas with it.

:data:`MISSIONS` adds Menghi et al.'s robotic mission patterns (as Lang2LTL samples them) and
the state conditions, in finite-trace LTL. The mission patterns the monitor already knew keep
their names in :data:`PATTERNS` (global avoidance is ``never``, future avoidance
``absence_after``, past avoidance ``not_before``, upper / lower / exact restricted avoidance
``at_most`` / ``at_least`` / ``exactly``, delayed reaction ``response``, prompt reaction
``immediate_response``):

=========================  ========================================  ===========================
pattern                    formula                                   meaning
=========================  ========================================  ===========================
visit                      ``F p``                                   go to p (at some point)
sequenced_visit            ``F(p & F q)``                            p, and later q
ordered_visit              ``F(p & F q) & (!q U p)``                 p, and q only after it
strictly_ordered_visit     ordered, and ``!p U (p U (!p U q))``      p once, then q
patrolling                 ``G F p``                                 keep coming back to p
wait                       ``p U q``                                 p until q, which must come
instantaneous_reaction     ``G(p -> q)``                             while p, q
bounded_delay              ``G(p -> (q | X[!](q | …)))``             q within n steps of p
avoid_while                ``G(c -> !p)``                            never p while c holds
avoid_unless               ``G(!c -> !p)``                           never p unless c holds
=========================  ========================================  ===========================

A state condition (``while you are in X``, ``when you are holding X``, ``unless you are in
X``) is about the current state, never about the past: ``avoid_while`` is not
``absence_after`` ("once you have been in X, never …") and ``avoid_unless`` is not
``not_before`` ("not before you have been in X").

Examples
--------
>>> build_pattern("avoid_while", "agent_at(k)", "is_grabbed(p)")
Formula('G("agent_at(k)" -> !"is_grabbed(p)")')
>>> MISSIONS["sequenced_visit"].english, pattern_family("never"), pattern_family("visit")
('{0}, and at some later step {1} (both before you finish)', 'avoidance', 'movement')
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import FormulaError
from ._formula import XS, And, F, Formula, FormulaLike, G, Implies, Not, Or, U, W, X, coerce

__all__ = [
    "Pattern",
    "PATTERNS",
    "MISSIONS",
    "build_pattern",
    "pattern_family",
    "never",
    "not_before",
    "before",
    "response",
    "immediate_response",
    "absence_after",
    "absence_from",
    "next_response",
    "at_least",
    "at_most",
    "exactly",
    "random_patterns",
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


def next_response(p: FormulaLike, q: FormulaLike) -> Formula:
    """``G(p -> X q)``: "whenever p holds, q holds at the next position, if there is one".

    The weak next suits state predicates that may persist to the end of the trace (a salmon
    left in the microwave); :func:`immediate_response` is its binding form.

    Examples
    --------
    >>> next_response("is_in(salmon,microwave)", Not("is_open(microwave)"))
    Formula('G("is_in(salmon,microwave)" -> X!"is_open(microwave)")')
    """
    return G(Implies(p, X(q)))


def absence_from(p: FormulaLike, q: FormulaLike) -> Formula:
    """``G(p -> G !q)``: "from the moment p holds, never q" (q is forbidden at p's moment too)."""
    return G(Implies(p, G(Not(q))))


def absence_after(p: FormulaLike, q: FormulaLike) -> Formula:
    """``G(p -> X G !q)``: "once p has happened, never q afterwards"."""
    return G(Implies(p, X(G(Not(q)))))


def _count(n: int, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise FormulaError(f"{name} needs a whole number of times >= 0, got {n!r}")
    return n


def at_least(n: int, p: FormulaLike) -> Formula:
    """P is *entered* at least n times (n rising edges of p).

    Examples
    --------
    >>> at_least(2, "a")
    Formula('F(a & (a U (!a & (!a U Fa))))')
    """
    n = _count(n, "at_least")
    p = coerce(p)
    if n == 0:
        return coerce(True)
    f = F(p)
    for _ in range(n - 1):
        # An entry into p, stay in p, leave it, and from outside p enter again (n-1 more times).
        f = F(p & U(p, Not(p) & U(Not(p), f)))
    return f


def at_most(n: int, p: FormulaLike) -> Formula:
    """P is entered at most n times, as in "visit the hallway at most three times".

    Examples
    --------
    >>> at_most(1, "a")
    Formula('!F(a & (a U (!a & (!a U Fa))))')
    """
    return Not(at_least(_count(n, "at_most") + 1, p))


def exactly(n: int, p: FormulaLike) -> Formula:
    """P is entered exactly n times."""
    n = _count(n, "exactly")
    return at_least(n, p) & at_most(n, p) if n else at_most(0, p)


def _count_words(n: object) -> str:
    """A count in words: ``once``, ``twice``, ``3 times`` (``n times`` for a symbol)."""
    if isinstance(n, int) and not isinstance(n, bool):
        return {0: "no times", 1: "once", 2: "twice"}.get(n, f"{n} times")
    return f"{n} times"


def _as_given(value: object, mood: str) -> str:
    return str(value)


_SLOT = re.compile(r"\{(\d)(?::(\w+))?\}")


@dataclass(frozen=True)
class Pattern:
    """A named specification pattern.

    Attributes
    ----------
    name : str
        Short name, e.g. ``"not_before"``.
    family : str
        ``"avoidance"``, ``"trigger"`` or (missions) ``"movement"``.
    build : callable
        The constructor.
    english : str
        The one English of the pattern, read by :meth:`read`: ``{0}``, ``{1}`` are the
        constructor's arguments by position, a literal as an imperative ("go to the
        kitchen"); ``{0:state}`` as a state ("you are at the kitchen"), ``{0:must}`` as an
        obligation ("you must be at the kitchen"), ``{0:times}`` a count ("twice").
    """

    name: str
    family: str
    build: Callable[..., Formula]
    english: str

    def read(self, *args: Any, say: Callable[[Any, str], str] = _as_given) -> str:
        """:attr:`english` with *args* in its slots: a count in words, each other argument
        as ``say(argument, mood)``, *mood* ``"imperative"``, ``"state"`` or ``"must"``. By
        default an argument reads as given, whatever the mood; the back-translator
        (:func:`~safetychip.translate.back_translate`) says literals in their moods.

        Examples
        --------
        >>> PATTERNS["at_most"].read(2, "open the fridge")
        'open the fridge at most twice (each time it starts to hold counts once)'
        >>> PATTERNS["never"].read("p")
        'never p'
        """

        def slot(m: re.Match) -> str:
            value, mood = args[int(m.group(1))], m.group(2) or "imperative"
            return _count_words(value) if mood == "times" else say(value, mood)

        return _SLOT.sub(slot, self.english)


PATTERNS: dict[str, Pattern] = {
    p.name: p
    for p in (
        Pattern("never", "avoidance", never, "never {0}"),
        Pattern(
            "not_before",
            "avoidance",
            not_before,
            "do not {0} until {1:state} (if that never happens, never {0})",
        ),
        Pattern(
            "before",
            "avoidance",
            before,
            "do not {1} until {0:state} (if that never happens, never {1})",
        ),
        Pattern(
            "at_most",
            "avoidance",
            at_most,
            "{1} at most {0:times} (each time it starts to hold counts once)",
        ),
        Pattern("at_least", "trigger", at_least, "{1} at least {0:times} before you finish"),
        Pattern(
            "exactly",
            "avoidance",
            exactly,
            "{1} exactly {0:times} (each time it starts to hold counts once)",
        ),
        Pattern(
            "response",
            "trigger",
            response,
            "whenever {0:state}, {1:must} then or at some later step, before you finish",
        ),
        Pattern(
            "immediate_response",
            "trigger",
            immediate_response,
            "whenever {0:state}, {1:must} at the very next step (so you may not finish right then)",
        ),
        Pattern(
            "next_response",
            "trigger",
            next_response,
            "whenever {0}, then {1} at the next step (if any)",
        ),
        Pattern(
            "absence_after",
            "trigger",
            absence_after,
            "once {0:state}, from the next step on never {1}",
        ),
        Pattern("absence_from", "trigger", absence_from, "from the moment {0}, never {1}"),
    )
}


def _visit(*ps: Formula) -> Formula:
    return And(*(F(p) for p in ps))


def _sequenced(*ps: Formula) -> Formula:
    f = F(ps[-1])
    for p in reversed(ps[:-1]):
        f = F(And(p, f))
    return f


def _ordered(*ps: Formula) -> Formula:
    return And(_sequenced(*ps), *(U(Not(q), p) for p, q in itertools.pairwise(ps)))


def _strictly_ordered(*ps: Formula) -> Formula:
    once = (U(Not(p), U(p, U(Not(p), q))) for p, q in itertools.pairwise(ps))
    return And(_ordered(*ps), *once)


def _patrolling(*ps: Formula) -> Formula:
    return And(*(G(F(p)) for p in ps))


def _wait(p: Formula, q: Formula) -> Formula:
    return U(p, q)


def _instantaneous(p: Formula, q: Formula) -> Formula:
    return G(Implies(p, q))


def _bounded_delay(n: int, p: Formula, q: Formula) -> Formula:
    within: Formula = q
    for _ in range(n):
        within = Or(q, XS(within))
    return G(Implies(p, within))


def _avoid_while(condition: Formula, p: Formula) -> Formula:
    return G(Implies(condition, Not(p)))


def _avoid_unless(condition: Formula, p: Formula) -> Formula:
    return G(Implies(Not(condition), Not(p)))


#: The robotic mission patterns and state conditions beyond :data:`PATTERNS`, by name.
MISSIONS: dict[str, Pattern] = {
    p.name: p
    for p in (
        Pattern("visit", "movement", _visit, "at some point before you finish, {0}"),
        Pattern(
            "sequenced_visit",
            "movement",
            _sequenced,
            "{0}, and at some later step {1} (both before you finish)",
        ),
        Pattern(
            "ordered_visit",
            "movement",
            _ordered,
            "{0}, and {1} only after that (both before you finish)",
        ),
        Pattern(
            "strictly_ordered_visit",
            "movement",
            _strictly_ordered,
            "{0} exactly once, then {1} (both before you finish)",
        ),
        Pattern("patrolling", "movement", _patrolling, "{0} again and again: at the end {0:state}"),
        Pattern(
            "wait", "trigger", _wait, "keep it so that {0:state} until {1:state}, which must happen"
        ),
        Pattern(
            "instantaneous_reaction",
            "trigger",
            _instantaneous,
            "whenever {0:state}, {1:must} at that same step",
        ),
        Pattern("bounded_delay", "trigger", _bounded_delay, "whenever {1}, {2} within {0} steps"),
        Pattern("avoid_while", "avoidance", _avoid_while, "never {1} while {0:state}"),
        Pattern("avoid_unless", "avoidance", _avoid_unless, "never {1} unless {0:state}"),
    )
}


def build_pattern(name: str, *args) -> Formula:
    """The instance of pattern *name* (of :data:`MISSIONS` or :data:`PATTERNS`); atoms may be
    names, propositions or formulas.

    Raises
    ------
    KeyError
        If no pattern has that name.
    """
    table = MISSIONS if name in MISSIONS else PATTERNS
    return table[name].build(*(a if isinstance(a, int) else coerce(a) for a in args))


def pattern_family(name: str | None) -> str | None:
    """The family of pattern *name* (``avoidance``, ``trigger`` or ``movement``), or None."""
    if name in MISSIONS:
        return MISSIONS[name].family
    return PATTERNS[name].family if name in PATTERNS else None


def random_patterns(
    n: int,
    atoms: list[str],
    *,
    seed: int = 0,
    max_count: int = 3,
    patterns: list[str] | None = None,
) -> list[tuple[str, Formula]]:
    """*n* random instances of *patterns* (default: all of :data:`PATTERNS`) over *atoms*,
    reproducible under *seed*.

    Used by benchmarks and adversarial tests; the instances need not be jointly satisfiable.

    Examples
    --------
    >>> [name for name, _ in random_patterns(3, ["a", "b", "c"], seed=1)]
    ['at_least', 'absence_from', 'never']
    """
    import random

    if len(atoms) < 2:
        raise FormulaError("random_patterns needs at least two atoms")
    rng = random.Random(seed)
    names = sorted(PATTERNS if patterns is None else patterns)
    unknown = [p for p in names if p not in PATTERNS]
    if unknown:
        raise ValueError(f"unknown patterns {unknown}; choose from {sorted(PATTERNS)}")
    out = []
    for _ in range(n):
        name = rng.choice(names)
        p, q = rng.sample(atoms, 2)
        if name in ("at_most", "at_least", "exactly"):
            f = PATTERNS[name].build(rng.randint(1, max_count), p)
        elif name == "never":
            f = never(p)
        else:
            f = PATTERNS[name].build(p, q)
        out.append((name, f))
    return out
