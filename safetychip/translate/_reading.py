"""A reader's reading of a lifted sentence, and the formula edits readers share.

Examples
--------
>>> from safetychip.ltl import parse
>>> print(no_double_negation(parse('G!!"is_open(a)"')))
G"is_open(a)"
>>> print(renamed(parse('G!"is_open(a)"'), "a", "b"))
G!"is_open(b)"
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..ltl import And, Formula, Or, ap

__all__ = ["PLACEHOLDER", "LiftedTranslation", "letters", "no_double_negation", "renamed",
           "substitute"]  # fmt: skip

#: A placeholder of a lifted sentence, ``[a]``; group 1 is its letter.
PLACEHOLDER = re.compile(r"\[([a-z])\]")


@dataclass(frozen=True)
class LiftedTranslation:
    """A lifted formula, with the pattern and the form that produced it.

    Attributes
    ----------
    formula : Formula
        Over atoms such as ``is_grabbed(a)``.
    pattern : str or None
        The specification pattern (a key of :data:`~safetychip.ltl.PATTERNS`), when known.
    args : tuple
        The pattern's arguments (the count first, for counting patterns).
    form : str
        How the reader read the sentence, or the translator's name.
    parts : tuple of Formula
        For a sentence about a list of things ("never enter [a], [b] or [c]"), one formula per
        thing, whose conjunction is *formula*; empty otherwise.
    """

    formula: Formula
    pattern: str | None = None
    args: tuple = ()
    form: str = ""
    parts: tuple[Formula, ...] = ()


def _rebuilt(s: Formula, kids: tuple[Formula, ...]) -> Formula:
    if kids == s.children:
        return s
    return And(*kids) if s.op == "&" else Or(*kids) if s.op == "|" else Formula(s.op, kids)


def substitute(f: Formula, replace: Callable[[Formula], Formula]) -> Formula:
    """*f* with every atom ``x`` replaced by ``replace(x)``."""
    memo: dict[Formula, Formula] = {}
    for s in f.subformulas():
        memo[s] = replace(s) if s.op == "ap" else _rebuilt(s, tuple(memo[c] for c in s.children))
    return memo[f]


def no_double_negation(f: Formula) -> Formula:
    """*f* with every ``!!g`` replaced by ``g`` (from negating a negative clause)."""
    memo: dict[Formula, Formula] = {}
    for s in f.subformulas():
        kids = tuple(memo[c] for c in s.children)
        memo[s] = kids[0].children[0] if s.op == "!" and kids[0].op == "!" else _rebuilt(s, kids)
    return memo[f]


def renamed(f: Formula, old: str, new: str) -> Formula:
    """*f* with placeholder *old* (an argument of its atoms) renamed *new*."""
    return substitute(f, lambda a: ap(re.sub(rf"(?<=[(,]){old}(?=[),])", new, a.name or "")))


def letters(f: Formula) -> set[str]:
    """The arguments of *f*'s atoms (its placeholders, for a lifted formula)."""
    return {x.strip() for a in f.atoms() for x in a.split("(", 1)[-1].rstrip(")").split(",")}
