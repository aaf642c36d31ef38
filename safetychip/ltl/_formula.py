"""Immutable, hash-consed finite-trace LTL formulas and grounded propositions.

Formulas are interned: two structurally equal formulas are the same object, so equality is
identity, hashing is O(1), and no operation on a formula recurses through ``__eq__``.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar, Union, cast

from ..errors import FormulaError, FormulaTooDeepError, PropositionError
from ._print import to_str

__all__ = [
    "MAX_DEPTH",
    "PREDICATES",
    "Formula",
    "Proposition",
    "TRUE",
    "FALSE",
    "ap",
    "canonical_atom",
    "Not",
    "And",
    "Or",
    "Implies",
    "Equiv",
    "X",
    "XS",
    "F",
    "G",
    "U",
    "W",
    "R",
    "M",
]

#: Deepest operator nesting a formula may have. Real constraints nest a few dozen levels at most;
#: the bound keeps every algorithm on formulas well inside Python's recursion limit.
MAX_DEPTH = 200

#: The grounded predicates of the design guide, with their number of arguments.
PREDICATES: Mapping[str, int] = MappingProxyType({
    "agent_at": 1, "is_open": 1, "is_switchedon": 1, "is_grabbed": 1, "is_touched": 1,
    "is_on": 2, "is_in": 2,
})  # fmt: skip

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_ARG = r"[A-Za-z0-9_.\-]+"
_PREDICATE = re.compile(rf"\s*({_IDENT})\s*\(\s*({_ARG}(?:\s*,\s*{_ARG})*)?\s*\)\s*")
_PLAIN = re.compile(rf"\s*({_IDENT})\s*")


@dataclass(frozen=True, order=True)
class Proposition:
    """A grounded predicate such as ``is_on(book, book_shelf)``, or a plain identifier.

    Parameters
    ----------
    predicate : str
        The predicate name (``"is_on"``), or the whole identifier of a plain proposition.
    args : tuple of str
        The grounded arguments, empty for a plain proposition.

    Examples
    --------
    >>> p = Proposition.parse("is_on( book , book_shelf )")
    >>> p.name, p.predicate, p.args
    ('is_on(book,book_shelf)', 'is_on', ('book', 'book_shelf'))
    >>> Proposition("agent_at", ("kitchen",))
    Proposition('agent_at(kitchen)')
    """

    predicate: str
    args: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The canonical name: no spaces, ``pred(a,b)`` or a plain identifier."""
        return f"{self.predicate}({','.join(self.args)})" if self.args else self.predicate

    @classmethod
    def parse(cls, text: str) -> Proposition:
        """Read ``pred(a, b)`` or a plain identifier, with any spacing.

        Raises
        ------
        PropositionError
            If *text* is neither form.
        """
        m = _PREDICATE.fullmatch(text)
        if m:
            args = tuple(a.strip() for a in m.group(2).split(",")) if m.group(2) else ()
            return cls(m.group(1), args)
        m = _PLAIN.fullmatch(text)
        if m:
            return cls(m.group(1))
        raise PropositionError(
            f"not a proposition: {text!r} (expected a name like 'agent_at(kitchen)' or 'a')"
        )

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Proposition({self.name!r})"


def canonical_atom(text: str) -> str:
    """Canonical name of an atom: predicate atoms lose their spaces, others are stripped.

    Examples
    --------
    >>> canonical_atom(" is_on (book,  book_shelf) ")
    'is_on(book,book_shelf)'
    >>> canonical_atom("door open")
    'door open'
    """
    m = _PREDICATE.fullmatch(text)
    if m:
        return Proposition.parse(text).name
    stripped = text.strip()
    if not stripped:
        raise PropositionError("an atomic proposition needs a non-empty name")
    if stripped.startswith("!"):
        raise PropositionError(
            f"{text!r} is not an atom name: write Not({stripped[1:]!r}) or parse({text!r})"
        )
    return stripped


# Operator table: symbol -> (arity, precedence in Spot's infix syntax; higher binds tighter).
_ARITY = {
    "true": 0, "false": 0, "ap": 0,
    "!": 1, "X": 1, "X[!]": 1, "F": 1, "G": 1,
    "&": -1, "|": -1,
    "->": 2, "<->": 2, "U": 2, "W": 2, "R": 2, "M": 2,
}  # fmt: skip

FormulaLike = Union["Formula", str, Proposition, bool]


class Formula:
    """A finite-trace LTL formula (immutable, interned, hashable).

    Build formulas with the constructors of this module (:func:`ap`, :func:`Not`, :func:`And`,
    :func:`G`, :func:`U`, …), with Python operators (``~f``, ``f & g``, ``f | g``, ``f >> g``
    for implication) or by parsing text (:func:`safetychip.ltl.parse`).

    Attributes
    ----------
    op : str
        ``"true"``, ``"false"``, ``"ap"``, ``"!"``, ``"&"``, ``"|"``, ``"->"``, ``"<->"``,
        ``"X"`` (weak next), ``"X[!]"`` (strong next), ``"F"``, ``"G"``, ``"U"``, ``"W"``,
        ``"R"`` or ``"M"``.
    children : tuple of Formula
        Operands, in order.
    name : str or None
        The canonical atom name when ``op == "ap"``.
    depth : int
        Operator nesting depth (an atom has depth 0).

    Examples
    --------
    >>> f = G(~ap("is_grabbed(phone)"))
    >>> f
    Formula('G!"is_grabbed(phone)"')
    >>> f is G(Not(ap("is_grabbed( phone )")))
    True
    >>> sorted(f.atoms())
    ['is_grabbed(phone)']
    """

    __slots__ = ("__weakref__", "_atoms", "_hash", "children", "depth", "name", "op")
    _table: ClassVar[weakref.WeakValueDictionary] = weakref.WeakValueDictionary()

    op: str
    children: tuple[Formula, ...]
    name: str | None
    depth: int
    _hash: int
    _atoms: frozenset[str] | None

    def __new__(cls, op: str, children: tuple[Formula, ...] = (), name: str | None = None):
        key = (op, children, name)
        found = cls._table.get(key)
        if found is not None:
            return found
        arity = _ARITY.get(op)
        if arity is None:
            raise FormulaError(f"unknown operator {op!r}; expected one of {sorted(_ARITY)}")
        if arity >= 0 and len(children) != arity:
            raise FormulaError(f"operator {op!r} takes {arity} operand(s), got {len(children)}")
        depth = 1 + max((c.depth for c in children), default=-1)
        if depth > MAX_DEPTH:
            raise FormulaTooDeepError(
                f"formula nests {depth} operators deep; at most {MAX_DEPTH} are supported"
            )
        self = object.__new__(cls)
        for attr, value in (("op", op), ("children", children), ("name", name), ("depth", depth)):
            object.__setattr__(self, attr, value)
        object.__setattr__(self, "_hash", hash(key))
        object.__setattr__(self, "_atoms", None)
        cls._table[key] = self
        return self

    def __setattr__(self, attr, value):
        raise AttributeError("formulas are immutable")

    def __reduce__(self):
        return (Formula, (self.op, self.children, self.name))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return self is other

    def __lt__(self, other: Formula) -> bool:
        return str(self) < str(other)

    # Python operators as formula builders.
    def __invert__(self) -> Formula:
        return Not(self)

    def __and__(self, other: FormulaLike) -> Formula:
        return And(self, other)

    def __rand__(self, other: FormulaLike) -> Formula:
        return And(other, self)

    def __or__(self, other: FormulaLike) -> Formula:
        return Or(self, other)

    def __ror__(self, other: FormulaLike) -> Formula:
        return Or(other, self)

    def __rshift__(self, other: FormulaLike) -> Formula:
        return Implies(self, other)

    def atoms(self) -> frozenset[str]:
        """Names of the atomic propositions that occur in the formula."""
        found = self._atoms
        if found is None:
            if self.op == "ap":
                found = frozenset((cast(str, self.name),))  # an atom has a name
            else:
                found = frozenset().union(*(c.atoms() for c in self.children))
            object.__setattr__(self, "_atoms", found)
        return found

    def propositions(self) -> list[Proposition]:
        """The atoms as :class:`Proposition` values, sorted by name.

        Raises
        ------
        PropositionError
            If an atom is not a predicate or a plain identifier.
        """
        return [Proposition.parse(a) for a in sorted(self.atoms())]

    @property
    def proposition(self) -> Proposition:
        """The :class:`Proposition` of an atom formula."""
        if self.op != "ap":
            raise FormulaError(f"{self} is not an atomic proposition")
        return Proposition.parse(cast(str, self.name))  # an atom has a name

    def subformulas(self) -> list[Formula]:
        """All distinct subformulas, children before parents (post-order)."""
        seen: set[Formula] = set()
        order: list[Formula] = []
        stack: list[tuple[Formula, bool]] = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif node not in seen:
                seen.add(node)
                stack.append((node, True))
                stack.extend((c, False) for c in reversed(node.children) if c not in seen)
        return order

    def to_str(self, format: str = "spot") -> str:
        """Print in ``"spot"`` infix syntax, Lang2LTL ``"prefix"`` syntax or ``"latex"``.

        Raises
        ------
        ValueError
            On an unknown format.
        """
        return to_str(self, format)

    def __format__(self, spec: str) -> str:
        return self.to_str(spec or "spot")

    def __str__(self) -> str:
        return self.to_str("spot")

    def __repr__(self) -> str:
        return f"Formula({self.to_str('spot')!r})"

    def _repr_latex_(self) -> str:
        return f"${self.to_str('latex')}$"


def coerce(f: FormulaLike) -> Formula:
    if isinstance(f, Formula):
        return f
    if isinstance(f, bool):
        return TRUE if f else FALSE
    if isinstance(f, Proposition):
        return ap(f.name)
    if isinstance(f, str):
        return ap(f)
    raise FormulaError(f"cannot use {f!r} ({type(f).__name__}) as a formula")


TRUE = Formula("true")
FALSE = Formula("false")


def ap(name: str | Proposition) -> Formula:
    """Atomic proposition; predicate spacing is normalised.

    Examples
    --------
    >>> ap("agent_at( kitchen )").name
    'agent_at(kitchen)'
    """
    text = name.name if isinstance(name, Proposition) else name
    if not isinstance(text, str):
        raise FormulaError(f"an atom name must be a string, got {text!r}")
    return Formula("ap", (), canonical_atom(text))


def Not(f: FormulaLike) -> Formula:
    """Negation ``!f``."""
    return Formula("!", (coerce(f),))


def _nary(op: str, operands: tuple[FormulaLike, ...]) -> Formula:
    flat: list[Formula] = []
    for f in map(coerce, operands):
        flat.extend(f.children if f.op == op else (f,))
    if not flat:
        return TRUE if op == "&" else FALSE
    if len(flat) == 1:
        return flat[0]
    return Formula(op, tuple(flat))


def And(*operands: FormulaLike) -> Formula:
    """Conjunction; nested conjunctions are flattened, operand order is kept.

    Examples
    --------
    >>> And("a", And("b", "c"))
    Formula('a & b & c')
    >>> And()
    Formula('true')
    """
    return _nary("&", operands)


def Or(*operands: FormulaLike) -> Formula:
    """Disjunction; nested disjunctions are flattened, operand order is kept."""
    return _nary("|", operands)


def _binary(op: str):
    def build(left: FormulaLike, right: FormulaLike) -> Formula:
        return Formula(op, (coerce(left), coerce(right)))

    return build


def _unary(op: str):
    def build(f: FormulaLike) -> Formula:
        return Formula(op, (coerce(f),))

    return build


Implies = _binary("->")
Implies.__doc__ = "Implication ``a -> b``."
Equiv = _binary("<->")
Equiv.__doc__ = "Equivalence ``a <-> b``."
U = _binary("U")
U.__doc__ = "Strong until ``a U b``: b happens, and a holds at every position before."
W = _binary("W")
W.__doc__ = "Weak until ``a W b``: ``a U b``, or a holds to the end of the trace."
R = _binary("R")
R.__doc__ = "Release ``a R b``: b holds up to and including the first a, or to the end."
M = _binary("M")
M.__doc__ = "Strong release ``a M b``: ``a R b`` and a happens."
X = _unary("X")
X.__doc__ = "Weak next ``X f``: true at the last position, else f at the next one."
XS = _unary("X[!]")
XS.__doc__ = "Strong next ``X[!] f``: false at the last position, else f at the next one."
F = _unary("F")
F.__doc__ = "Eventually ``F f``: f at some position from here to the end."
G = _unary("G")
G.__doc__ = "Globally ``G f``: f at every position from here to the end."
for _fn, _name in ((Implies, "Implies"), (Equiv, "Equiv"), (U, "U"), (W, "W"), (R, "R"),
                   (M, "M"), (X, "X"), (XS, "XS"), (F, "F"), (G, "G")):  # fmt: skip
    _fn.__name__ = _fn.__qualname__ = _name
