"""Constraints that forbid nothing: a formula that holds on every trace (equivalent to
``true``) is never a constraint, whatever produced it (a model's reply, a grammar's reading
of "never go to the kitchen before you go to the kitchen", a reviewer's edit, a file)."""

from __future__ import annotations

from ..errors import VacuousConstraintError
from ..ltl import Formula
from ._monitor import compile_dfa

__all__ = ["refuse_vacuous"]


def refuse_vacuous(formula: Formula, sentence: str = "") -> None:
    """Refuse *formula* as a constraint if it holds on every trace (it is equivalent to
    ``true``): it forbids nothing, so it is no constraint.

    Raises
    ------
    VacuousConstraintError
        Naming *sentence* (else the formula) and the fix.

    Examples
    --------
    >>> from safetychip.ltl import parse
    >>> refuse_vacuous(parse("G !a"))
    >>> refuse_vacuous(parse("!a W a"), "Never do a before you do a.")
    Traceback (most recent call last):
    ...
    safetychip.errors.VacuousConstraintError: 'Never do a before you do a.' reads as !a W a, \
which holds on every trace: it forbids nothing, so it is no constraint; say what must not \
happen (or what must), or leave it out
    """
    if compile_dfa(formula).shortest_rejected() is None:
        said = f"{sentence!r} reads as" if sentence else "the formula"
        raise VacuousConstraintError(
            f"{said} {formula}, which holds on every trace: it forbids nothing, so it is no "
            "constraint; say what must not happen (or what must), or leave it out"
        )
