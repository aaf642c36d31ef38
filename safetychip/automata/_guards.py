"""Boolean guards over propositions, as BDDs in one shared manager.

Guards of every automaton live in the same manager, so a product conjoins them directly.
CUDD (``dd.cudd``) is used when the ``dd`` wheel ships it, else the pure-Python ``dd.autoref``.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ._limit import tick

__all__ = ["MANAGER", "Guard", "atom_var", "atom_of", "guard_of", "guard_order", "guard_str",
           "holds", "is_propositional", "pick_letter"]  # fmt: skip

_TEMPORAL = {"X", "X[!]", "F", "G", "U", "W", "R", "M"}

try:  # pragma: no cover - which one depends on the installed wheel
    from dd import cudd as _dd
except ImportError:  # pragma: no cover
    from dd import autoref as _dd

MANAGER = _dd.BDD()
# Dynamic variable reordering (sifting) on: with the declaration order, conjoining the letter
# guards of a few hundred constraints over 60 propositions built BDDs of 35,000 nodes (half a
# second per conjunction, 80 s for one monitor step); sifting keeps them under 200. Output does
# not depend on the order: guards print by atom name, letters are picked in a given atom
# order, and tables enumerate full minterms.
MANAGER.configure(reordering=True, max_swaps=20_000)
# CUDD asserts, when a manager is freed, that no node is still referenced; at interpreter exit
# objects are freed in no particular order. The shared manager lives as long as the process.
ctypes.pythonapi.Py_IncRef(ctypes.py_object(MANAGER))

if TYPE_CHECKING:
    # ``dd.cudd`` is compiled and has no stubs; ``dd._abc.Operator`` is the protocol that both
    # ``dd.cudd.Function`` and ``dd.autoref.Function`` implement.
    from dd._abc import Operator as Guard
else:
    Guard = type(MANAGER.true)

_ATOM_VAR: dict[str, str] = {}
_VAR_ATOM: dict[str, str] = {}


def atom_var(name: str) -> Guard:
    """The BDD variable of atom *name*, declared on first use.

    Examples
    --------
    >>> g = atom_var("is_open(fridge)") & ~atom_var("agent_at(kitchen)")
    >>> guard_str(g)
    '!agent_at(kitchen) & is_open(fridge)'
    """
    var = _ATOM_VAR.get(name)
    if var is None:
        var = f"p{len(_ATOM_VAR)}"
        MANAGER.declare(var)
        _ATOM_VAR[name] = var
        _VAR_ATOM[var] = name
    return MANAGER.var(var)


def atom_of(var: str) -> str | None:
    """The atom name of BDD variable *var*, or None if *var* is not an atom's."""
    return _VAR_ATOM.get(var)


class _CoverTooLarge(Exception):
    """Raised inside :func:`_isop` when the cover outgrows its limit."""


def _isop(
    lower: Guard, upper: Guard, names: list[str], limit: float = float("inf")
) -> tuple[list[dict[str, bool]], Guard]:
    """Irredundant sum of products between *lower* and *upper* (Minato-Morreale), with the
    cover it denotes; Shannon expansion on *names* in order.

    Raises :class:`_CoverTooLarge` as soon as a partial cover has more than *limit* cubes.
    Every call with a non-empty *lower* adds at least one cube, so a limit bounds the work by
    about ``4 * limit * len(names)`` calls.
    """
    if lower == MANAGER.false:
        return [], MANAGER.false
    if upper == MANAGER.true:
        return [{}], MANAGER.true
    support = MANAGER.support(lower) | MANAGER.support(upper)
    while names[0] not in support:
        names = names[1:]
    var, rest = names[0], names[1:]
    x = MANAGER.var(var)
    l0, l1 = MANAGER.let({var: False}, lower), MANAGER.let({var: True}, lower)
    u0, u1 = MANAGER.let({var: False}, upper), MANAGER.let({var: True}, upper)
    c0, f0 = _isop(l0 & ~u1, u0, rest, limit)
    c1, f1 = _isop(l1 & ~u0, u1, rest, limit)
    cs, fs = _isop((l0 & ~f0) | (l1 & ~f1), u0 & u1, rest, limit)
    cubes = [{**c, var: False} for c in c0] + [{**c, var: True} for c in c1] + cs
    if len(cubes) > limit:
        raise _CoverTooLarge
    return cubes, (~x & f0) | (x & f1) | fs


def _text(g: Guard, limit: float = float("inf")) -> str:
    """:func:`guard_str`, giving up (:class:`_CoverTooLarge`) beyond *limit* products."""
    if g == MANAGER.true:
        return "1"
    if g == MANAGER.false:
        return "0"
    names = sorted(MANAGER.support(g), key=lambda v: _VAR_ATOM.get(v, v))
    terms = []
    for cube in _isop(g, g, names, limit)[0]:
        lits = [("" if cube[v] else "!") + _VAR_ATOM.get(v, v) for v in names if v in cube]
        terms.append(" & ".join(lits) if lits else "1")
    if len(terms) == 1:
        return terms[0]
    return " | ".join(f"({t})" if " & " in t else t for t in sorted(terms))


def guard_str(g: Guard) -> str:
    """Readable sum of products, literals sorted by atom name; ``1`` and ``0`` for constants.

    A guard can need exponentially many products (the parity of n atoms needs ``2**(n-1)``):
    print one to show it, never to compare or sort guards (:func:`guard_order` does that).
    """
    return _text(g)


#: Products above which :func:`guard_order` stops printing a guard to rank it.
ORDER_PRODUCTS = 64


def guard_order(g: Guard, atoms: Sequence[str]) -> tuple[int, str | tuple[bool, ...]]:
    """A deterministic sort key for disjoint guards (those of one state's edges).

    A guard of at most :data:`ORDER_PRODUCTS` products ranks by its :func:`guard_str` text. A
    larger one ranks after those, by its least letter (a tuple of truth values of *atoms*,
    false first, which must include the guard's atoms): cheap, independent of the BDD
    variable order, and distinct for disjoint guards. Either way the cost stays polynomial,
    where printing the parity of 18 atoms takes tens of seconds.

    Examples
    --------
    >>> a, b = atom_var("a"), atom_var("b")
    >>> guard_order(a & ~b, ["a", "b"])
    (0, 'a & !b')
    >>> names = [f"x{i}" for i in range(18)]
    >>> odd = MANAGER.false
    >>> for name in names:
    ...     odd = (odd & ~atom_var(name)) | (~odd & atom_var(name))
    >>> guard_order(odd, names)[0], sum(guard_order(odd, names)[1])
    (1, 1)
    """
    try:
        return (0, _text(g, ORDER_PRODUCTS))
    except _CoverTooLarge:
        letter = pick_letter(g, atoms)
        assert letter is not None, "a cover too large to print is not empty"
        return (1, tuple(a in letter for a in atoms))


def pick_letter(g: Guard, atoms: Iterable[str]) -> frozenset[str] | None:
    """A letter (set of true atoms among *atoms*) inside *g*, with as few true atoms as possible
    in the order given; None if *g* is empty."""
    if g == MANAGER.false:
        return None
    true: set[str] = set()
    for name in atoms:
        v = _ATOM_VAR.get(name)
        if v is None:
            continue
        lo = MANAGER.let({v: False}, g)
        if lo != MANAGER.false:
            g = lo
        else:
            g = MANAGER.let({v: True}, g)
            true.add(name)
    return frozenset(true)


def holds(g: Guard, letter: Mapping[str, bool] | Iterable[str], atoms: Iterable[str]) -> bool:
    """Whether *letter* (true atoms, or a mapping) satisfies *g*; *atoms* lists the atoms that
    *g* may mention."""
    true = {a for a, v in letter.items() if v} if isinstance(letter, Mapping) else set(letter)
    values = {atom_var(a).var: a in true for a in atoms}
    return (MANAGER.let(values, g) if values else g) == MANAGER.true


def is_propositional(f) -> bool:
    """Whether formula *f* has no temporal operator."""
    return not any(s.op in _TEMPORAL for s in f.subformulas())


def guard_of(f) -> Guard:
    """The guard of a propositional formula *f*.

    Examples
    --------
    >>> from safetychip.ltl import parse
    >>> guard_str(guard_of(parse("a -> (b <-> c)")))
    '!a | (!b & !c) | (b & c)'
    """
    tick()
    op, kids = f.op, f.children
    if op == "true":
        return MANAGER.true
    if op == "false":
        return MANAGER.false
    if op == "ap":
        return atom_var(f.name)
    if op in _TEMPORAL:
        raise ValueError(f"a guard cannot contain the temporal operator {op}: {f}")
    parts = [guard_of(k) for k in kids]
    if op == "!":
        return ~parts[0]
    if op in ("&", "|"):
        out = parts[0]
        for p in parts[1:]:
            tick()
            out = (out & p) if op == "&" else (out | p)
        return out
    if op == "->":
        return ~parts[0] | parts[1]
    return (parts[0] & parts[1]) | (~parts[0] & ~parts[1])  # <->
