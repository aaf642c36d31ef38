"""The robotic mission patterns the translator reads beyond :data:`safetychip.ltl.PATTERNS`.

Menghi et al.'s catalogue of robotic mission patterns (as Lang2LTL samples it) and the
Safety Chip paper's safety patterns, in finite-trace LTL. The safety patterns the monitor
already knows keep their names in :data:`~safetychip.ltl.PATTERNS` (global avoidance is
``never``, future avoidance ``absence_after``, past avoidance ``not_before``, upper / lower /
exact restricted avoidance ``at_most`` / ``at_least`` / ``exactly``, delayed reaction
``response``, prompt reaction ``immediate_response``); this table adds the movement
patterns, waiting, bounded delay and the two state conditions:

=========================  ========================================  ===========================
pattern                    formula                                   English
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
>>> from safetychip.ltl import ap
>>> build("avoid_while", ap("agent_at(k)"), ap("is_grabbed(p)"))
Formula('G("agent_at(k)" -> !"is_grabbed(p)")')
>>> MISSIONS["sequenced_visit"].english
'{p}, and at some later step {q}'
"""

from __future__ import annotations

import itertools

from ..ltl import PATTERNS, XS, And, F, Formula, G, Implies, Not, Or, Pattern, U

__all__ = ["MISSIONS", "build", "family", "pattern_names"]


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


#: The patterns beyond :data:`safetychip.ltl.PATTERNS`, by name (same fields as
#: :class:`~safetychip.ltl.Pattern`).
MISSIONS: dict[str, Pattern] = {
    p.name: p
    for p in (
        Pattern("visit", "movement", _visit, "at some point {p}"),
        Pattern("sequenced_visit", "movement", _sequenced, "{p}, and at some later step {q}"),
        Pattern(
            "ordered_visit", "movement", _ordered, "{p}, and {q} only after that (both required)"
        ),
        Pattern(
            "strictly_ordered_visit",
            "movement",
            _strictly_ordered,
            "{p} exactly once before {q}, then {q}",
        ),
        Pattern("patrolling", "movement", _patrolling, "keep coming back to {p} until the end"),
        Pattern("wait", "trigger", _wait, "{p} until {q}, which must happen"),
        Pattern("instantaneous_reaction", "trigger", _instantaneous, "whenever {p}, also {q}"),
        Pattern("bounded_delay", "trigger", _bounded_delay, "whenever {p}, {q} within {n} steps"),
        Pattern("avoid_while", "avoidance", _avoid_while, "while {p}, never {q}"),
        Pattern("avoid_unless", "avoidance", _avoid_unless, "unless {p}, never {q}"),
    )
}


def build(name: str, *args) -> Formula:
    """The instance of pattern *name* (of :data:`MISSIONS` or :data:`~safetychip.ltl.PATTERNS`).

    Raises
    ------
    KeyError
        If no pattern has that name.
    """
    table = MISSIONS if name in MISSIONS else PATTERNS
    return table[name].build(*args)


def family(name: str | None) -> str | None:
    """The family of pattern *name* (``avoidance``, ``trigger`` or ``movement``), or None.

    >>> family("never"), family("visit"), family(None)
    ('avoidance', 'movement', None)
    """
    if name in MISSIONS:
        return MISSIONS[name].family
    return PATTERNS[name].family if name in PATTERNS else None


def pattern_names() -> tuple[str, ...]:
    """Every pattern name the translator can produce, sorted.

    >>> "visit" in pattern_names() and "never" in pattern_names()
    True
    """
    return tuple(sorted({*PATTERNS, *MISSIONS}))
