"""*Write the formula*: a student's LTL against the reference, by language equivalence.

When they differ, the feedback shows a shortest trace one accepts and the other rejects, in
the environment's words, and names the likely confusion when the answer is equivalent to the
reference with one of the :data:`CONFUSIONS` applied (a mutation of one operator).

Examples
--------
>>> print(check_formula('!"agent_at(kitchen)" U "agent_at(bathroom)"',
...                     '!"agent_at(kitchen)" W "agent_at(bathroom)"', exercise="2.1"))
2.1 ✗ incorrect: start with nothing true, DONE: the constraint allows this, your formula
forbids it. This looks like U vs W: `a U b` demands that b happens eventually; `a W b` (weak
until) also allows b never to happen, as long as a holds throughout.
>>> check_formula('G !"agent_at(kitchen)"', 'G!"agent_at(kitchen)"').correct
True
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from ..automata import counterexample, equivalent
from ..ltl import XS, And, F, Formula, X, as_formula, at_least, evaluate, parse
from ._feedback import (
    CORRECT,
    INCORRECT,
    Feedback,
    OutOfTime,
    guarded,
    read_formula,
    time_limit,
    trace_words,
)

__all__ = ["CONFUSIONS", "CONFUSION_BUDGET_S", "Confusion", "check_formula", "confusions"]


class Confusion(NamedTuple):
    """A classic mistake: its title and what to remember."""

    title: str
    hint: str


#: The confusions :func:`check_formula` recognises, by name.
CONFUSIONS: dict[str, Confusion] = {
    "strict_ordering": Confusion(
        "strict vs non-strict ordering",
        "`F(a & F b)` lets b happen at the same step as a, `F(a & X[!] F b)` only strictly "
        "later; likewise `G(a -> G !b)` forbids b already at a's step, `G(a -> X G !b)` only "
        "afterwards, and `!b W a` lets a and b come together where `!b W (a & !b)` does not",
    ),
    "until_vs_weak_until": Confusion(
        "U vs W",
        "`a U b` demands that b happens eventually; `a W b` (weak until) also allows b never "
        "to happen, as long as a holds throughout",
    ),
    "visits_vs_steps": Confusion(
        "counting visits vs counting steps",
        "a visit is an *entry* into p (p becomes true); staying in p for several steps is "
        "one visit but several steps. The counting patterns (at_most, at_least, exactly) "
        "count visits",
    ),
    "weak_vs_strong_next": Confusion(
        "weak vs strong next at the end of a run",
        "`X a` (weak) is true at the last step of a run, whatever a; `X[!] a` (strong) "
        "demands a next step, where a holds. An obligation that must be met before DONE "
        "needs the strong next",
    ),
    "argument_order": Confusion(
        "the order of the arguments",
        "`a U b` and `a W b` are not symmetric: the left side holds *until* the right side; "
        "'p before q' is `!q W p`",
    ),
}

#: Seconds the search for a confusion may take within a check.
CONFUSION_BUDGET_S = 3.0

_SWAP = {"U": "W", "W": "U", "M": "R", "R": "M", "X": "X[!]", "X[!]": "X"}
_KIND = {"U": "until_vs_weak_until", "M": "until_vs_weak_until", "X": "weak_vs_strong_next"}
_KIND.update({"W": _KIND["U"], "R": _KIND["M"], "X[!]": _KIND["X"]})


def _steps_at_least(n: int, p: Formula) -> Formula:
    """P holds at n distinct steps (not necessarily n separate visits)."""
    f = F(p)
    for _ in range(n - 1):
        f = F(p & XS(f))
    return f


def _counting(f: Formula) -> Iterator[Formula]:
    """The step-count twin of a visit count at *f*, or the converse."""
    if f.op != "F":
        return
    for name in sorted(f.atoms()):
        p = parse(f'"{name}"')
        for n in range(2, 7):
            if f is at_least(n, p):
                yield _steps_at_least(n, p)
            elif f is _steps_at_least(n, p):
                yield at_least(n, p)


def _local(f: Formula) -> Iterator[tuple[str, Formula]]:
    """Every one-operator mutation of *f*'s top, with the confusion it stands for."""
    op, kids = f.op, f.children
    if op in _SWAP:
        yield _KIND[op], Formula(_SWAP[op], kids)
    if op in ("U", "W", "R", "M"):
        yield "argument_order", Formula(op, kids[::-1])
        if kids[0].op == "!":  # "not p before q" read as "not q before p"
            yield "argument_order", Formula(op, (Formula("!", (kids[1],)), kids[0].children[0]))
    if op in ("U", "W"):
        left, right = kids
        if right.op == "&" and left in right.children:
            rest = [c for c in right.children if c is not left]
            yield "strict_ordering", Formula(op, (left, And(*rest)))
        else:
            yield "strict_ordering", Formula(op, (left, And(right, left)))
    if op == "F":
        yield "strict_ordering", XS(f)
        yield "strict_ordering", X(f)
    if op == "G":
        yield "strict_ordering", X(f)
    if op in ("X", "X[!]") and kids[0].op in ("F", "G"):
        yield "strict_ordering", kids[0]
    for twin in _counting(f):
        yield "visits_vs_steps", twin


def _mutations(f: Formula) -> Iterator[tuple[str, Formula]]:
    yield from _local(f)
    for i, child in enumerate(f.children):
        for kind, variant in _mutations(child):
            yield kind, Formula(f.op, (*f.children[:i], variant, *f.children[i + 1 :]), f.name)


def confusions(
    answer: Formula,
    reference: Formula,
    *,
    invariants: Iterable[Formula] = (),
    budget_s: float = 5.0,
) -> list[str]:
    """The names of the :data:`CONFUSIONS` that turn *reference* into a formula equivalent
    to *answer* (under *invariants*), by one mutation, in the order of :data:`CONFUSIONS`.

    Examples
    --------
    >>> confusions(parse("G(a -> X b)"), parse("G(a -> X[!] b)"))
    ['weak_vs_strong_next']
    """
    inv = list(invariants)
    target = And(*inv, answer)
    found: set[str] = set()
    try:
        with time_limit(budget_s):
            deadline = time.monotonic() + budget_s  # where no timer can interrupt
            for kind, variant in _mutations(reference):
                if time.monotonic() > deadline:
                    break
                if kind not in found and equivalent(target, And(*inv, variant)):
                    found.add(kind)
    except OutOfTime:
        pass  # the confusions found so far
    return [k for k in CONFUSIONS if k in found]


@guarded
def check_formula(
    answer: Any,
    reference: Formula | str,
    *,
    atoms: Iterable[str] | None = None,
    invariants: Iterable[Formula | str] = (),
    exercise: str = "",
) -> Feedback:
    """Check a formula the student wrote against the *reference* constraint.

    Parameters
    ----------
    answer : str or Formula
        The student's formula (Spot syntax); ``...`` or None is *not attempted*.
    reference : Formula or str
        The expected formula.
    atoms : iterable of str, optional
        The propositions the answer may use (default: the reference's and the invariants').
    invariants : iterable of Formula or str
        Facts of the domain both formulas are compared under, e.g.
        :func:`~safetychip.monitor.exactly_one` over the rooms.
    exercise : str
        The exercise's label, shown in the feedback.

    Returns
    -------
    Feedback
        Correct when the two accept the same finite traces (under the invariants); else a
        shortest trace that tells them apart, which side allows it, and the recognised
        confusion, if any.
    """
    ref = as_formula(reference)
    inv = [as_formula(i) for i in invariants]
    allowed = set(ref.atoms()).union(*(i.atoms() for i in inv)) if atoms is None else set(atoms)
    f = read_formula(answer, atoms=allowed, exercise=exercise)
    if isinstance(f, Feedback):
        return f
    mine, theirs = And(*inv, f), And(*inv, ref)
    witness = counterexample(mine, theirs)
    if witness is None:
        same = "" if f is ref else f" (written differently from `{ref}`, same meaning)"
        return Feedback(exercise, CORRECT, f"equivalent to the constraint{same}")
    words = trace_words(witness)
    if evaluate(mine, [sorted(s) for s in witness]):
        side = "your formula allows this, the constraint forbids it"
    else:
        side = "the constraint allows this, your formula forbids it"
    found = confusions(f, ref, invariants=inv, budget_s=CONFUSION_BUDGET_S)
    message = f"{words}: {side}."
    if found:
        c = CONFUSIONS[found[0]]
        message += f" This looks like {c.title}: {c.hint}."
    return Feedback(exercise, INCORRECT, message, found[0] if found else None, (words,))
