"""Constraints: an English sentence with its finite-trace LTL formula."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from ..errors import SpecificationError, TimeBudgetError
from ..ltl import Formula, parse, parse_prefix

__all__ = ["Constraint", "as_constraints"]


@dataclass(frozen=True)
class Constraint:
    """One constraint of a specification.

    Attributes
    ----------
    formula : Formula
        Its finite-trace LTL formula.
    sentence : str
        The English sentence it was stated as.
    name : str
        A short unique name used in verdicts (``c1``, ``c2``… by default).
    pattern : str or None
        The specification pattern it instantiates, when known (a key of
        :data:`safetychip.ltl.PATTERNS`).
    args : tuple of str
        The pattern's literals (``p``, then ``q``, possibly negated with ``!``), when known.
    bound : int or None
        The pattern's count (the ``n`` of ``at_most``), when it has one.

    Examples
    --------
    >>> Constraint.parse("G !is_grabbed(phone)", "never pick up the phone", name="phone")
    Constraint(name='phone', formula='G!"is_grabbed(phone)"', sentence='never pick up the phone')
    """

    formula: Formula
    sentence: str = ""
    name: str = ""
    pattern: str | None = None
    args: tuple[str, ...] = ()
    bound: int | None = None

    @classmethod
    def parse(
        cls,
        text: str,
        sentence: str = "",
        *,
        name: str = "",
        pattern: str | None = None,
        args: Iterable[str] = (),
        bound: int | None = None,
        syntax: str = "spot",
    ) -> Constraint:
        """Build a constraint from formula text in ``"spot"`` or ``"prefix"`` syntax."""
        if syntax not in ("spot", "prefix"):
            raise ValueError(f"unknown syntax {syntax!r}; choose 'spot' or 'prefix'")
        formula = parse(text) if syntax == "spot" else parse_prefix(text)
        return cls(formula, sentence, name, pattern, tuple(args), bound)

    def to_dict(self) -> dict:
        """JSON-ready form (the formula in Spot syntax; ``args`` and ``bound`` when known)."""
        out: dict[str, Any] = {
            "name": self.name,
            "formula": str(self.formula),
            "sentence": self.sentence,
            "pattern": self.pattern,
        }
        if self.args:
            out["args"] = list(self.args)
        if self.bound is not None:
            out["bound"] = self.bound
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Constraint:
        """Inverse of :meth:`to_dict`; ``formula`` is required."""
        if not isinstance(data, dict) or "formula" not in data:
            raise SpecificationError(f"a constraint needs a 'formula' field, got {data!r}")
        return cls.parse(data["formula"], data.get("sentence", ""), name=data.get("name", ""),
                         pattern=data.get("pattern"), args=data.get("args", ()),
                         bound=data.get("bound"))  # fmt: skip

    def describe(self, limit: int | None = None) -> str:
        """The name and the sentence (else the formula), cut to *limit* characters.

        >>> Constraint.parse('G !"a"', "never a", name="c1").describe()
        'c1 (never a)'
        """
        text = str(self.sentence or self.formula)
        if limit is not None and len(text) > limit:
            text = text[: limit - 1] + "…"
        return f"{self.name} ({text})"

    def __repr__(self) -> str:
        return (f"Constraint(name={self.name!r}, formula={str(self.formula)!r}, "
                f"sentence={self.sentence!r})")  # fmt: skip


def as_constraints(items: Iterable[Constraint | Formula | str], *,
                   until: float | None = None) -> tuple[Constraint, ...]:  # fmt: skip
    """Coerce formulas and formula text to constraints; unnamed ones become ``c1``, ``c2``….

    Parameters
    ----------
    items : iterable of Constraint, Formula or str
        The constraints, in order.
    until : float, optional
        A ``time.perf_counter()`` time by which reading them must be done.

    Raises
    ------
    SpecificationError
        On duplicate names, or when *items* is one constraint, formula or text, not a list.
    TimeBudgetError
        Past *until*, naming how many were read.
    """
    if isinstance(items, (str, Formula, Constraint)):
        raise SpecificationError(
            f"constraints must be a list of constraints, formulas or formula texts, got one "
            f"{type(items).__name__} {str(items)[:60]!r}: write [{str(items)[:60]!r}]"
        )
    out = []
    for i, item in enumerate(items, 1):
        if until is not None and time.perf_counter() > until:
            raise TimeBudgetError(f"reading the constraints ran past its time budget after "
                                  f"{i - 1} of them: give fewer constraints")  # fmt: skip
        if isinstance(item, str):
            item = Constraint.parse(item)
        elif isinstance(item, Formula):
            item = Constraint(item)
        elif not isinstance(item, Constraint):
            raise SpecificationError(f"not a constraint: {item!r}")
        if not item.name:
            item = replace(item, name=f"c{i}")
        out.append(item)
    dupes = sorted(n for n, k in Counter(c.name for c in out).items() if k > 1)
    if dupes:
        raise SpecificationError(f"constraint names must be unique; repeated: {', '.join(dupes)}")
    return tuple(out)
