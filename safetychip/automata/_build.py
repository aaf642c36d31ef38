"""Finite-trace LTL to a minimal complete DFA, by symbolic progression.

A DFA state is a Boolean combination of *obligations* on the rest of the trace, kept as a BDD
over obligation variables: ``W(f)`` (the rest is empty or satisfies f) and ``S(f)`` (the rest is
non-empty and satisfies f). Reading a letter replaces each obligation by the progression of its
formula, a BDD over atom and obligation variables; splitting that BDD on the atoms yields the
successors with their guards. A state accepts (the trace may end there) when its BDD holds with
every ``W`` true and every ``S`` false. The initial state is ``S(formula)``, so the empty trace
is rejected. Moore partition refinement then makes the DFA minimal.
"""

from __future__ import annotations

from functools import cache
from typing import cast

from ..ltl import Formula, Not
from ._dfa import DFA
from ._guards import MANAGER, Guard, atom_var, guard_order

__all__ = ["to_dfa", "nnf"]

_DUAL = {"&": "|", "|": "&", "X": "X[!]", "X[!]": "X", "F": "G", "G": "F",
         "U": "R", "R": "U", "W": "M", "M": "W"}  # fmt: skip


@cache
def nnf(f: Formula, negate: bool = False) -> Formula:
    """Negation normal form without ``->`` and ``<->``.

    Examples
    --------
    >>> from safetychip.ltl import parse
    >>> nnf(parse("!(a U Xb)"))
    Formula('!a R X[!]!b')
    >>> nnf(parse("a -> G b"))
    Formula('!a | Gb')
    """
    op, kids = f.op, f.children
    if op in ("true", "false"):
        return Formula("false" if (op == "true") == negate else "true")
    if op == "ap":
        return Not(f) if negate else f
    if op == "!":
        return nnf(kids[0], not negate)
    from ..ltl import And, Or

    # -> and <-> are rewritten directly, without building the (deeper) intermediate formulas
    # !a | b and (a & b) | (!a & !b): those could exceed MAX_DEPTH for a legal formula, and
    # recursing through them costs extra stack frames per level.
    if op == "->":
        a, b = kids
        if negate:
            return And(nnf(a), nnf(b, True))
        return Or(nnf(a, True), nnf(b))
    if op == "<->":
        a, b = kids
        if a is b:  # a <-> a is a | !a
            return And(nnf(a, True), nnf(a)) if negate else Or(nnf(a), nnf(a, True))
        if negate:  # !((a & b) | (!a & !b))
            return And(Or(nnf(a, True), nnf(b, True)), Or(nnf(a), nnf(b)))
        return Or(And(nnf(a), nnf(b)), And(nnf(a, True), nnf(b, True)))
    new_op = _DUAL[op] if negate else op
    new_kids = []
    for k in kids:  # a loop, not a generator: one stack frame per level of nesting
        new_kids.append(nnf(k, negate))
    if new_op in ("&", "|"):
        return (And if new_op == "&" else Or)(*new_kids)
    return Formula(new_op, tuple(new_kids))


# Obligation variables of the construction in progress: (formula, strong) -> variable name,
# and the progressions built with them. Every construction starts afresh and reuses the names
# o0, o1, ...: its states never leave to_dfa (the DFA's guards mention atoms only). Were the
# names never reused, the shared manager would gain variables with every new formula, and dd's
# let, support and compose, whose cost grows with the number of declared variables, would make
# each construction slower than the one before (tenfold after a few thousand formulas).
_OBLIGATION: dict[tuple[Formula, bool], str] = {}
_MEANING: dict[str, tuple[Formula, bool]] = {}
_PROGRESSION: dict[Formula, Guard] = {}
_DECLARED: set[str] = set()


def _obligation(f: Formula, strong: bool) -> Guard:
    key = (f, strong)
    name = _OBLIGATION.get(key)
    if name is None:
        name = f"o{len(_OBLIGATION)}"
        if name not in _DECLARED:
            MANAGER.declare(name)
            _DECLARED.add(name)
        _OBLIGATION[key] = name
        _MEANING[name] = key
    return MANAGER.var(name)


def _prog(f: Formula) -> Guard:
    """Progression of an NNF formula through one letter, symbolic in the letter (memoised for
    the construction in progress)."""
    found = _PROGRESSION.get(f)
    if found is None:
        found = _PROGRESSION[f] = _progress(f)
    return found


def _progress(f: Formula) -> Guard:
    op, kids = f.op, f.children
    if op == "true":
        return MANAGER.true
    if op == "false":
        return MANAGER.false
    if op == "ap":
        return atom_var(cast(str, f.name))  # an atom has a name
    if op == "!":  # NNF: only on atoms
        return ~atom_var(cast(str, kids[0].name))
    if op == "&":
        out = MANAGER.true
        for k in kids:
            out &= _prog(k)
        return out
    if op == "|":
        out = MANAGER.false
        for k in kids:
            out |= _prog(k)
        return out
    if op == "X":
        return _obligation(kids[0], strong=False)
    if op == "X[!]":
        return _obligation(kids[0], strong=True)
    if op == "F":
        return _prog(kids[0]) | _obligation(f, strong=True)
    if op == "G":
        return _prog(kids[0]) & _obligation(f, strong=False)
    a = _prog(kids[0])
    b = _prog(kids[1])
    if op == "U":
        return b | (a & _obligation(f, strong=True))
    if op == "W":
        return b | (a & _obligation(f, strong=False))
    if op == "R":
        return b & (a | _obligation(f, strong=False))
    if op == "M":
        return b & (a | _obligation(f, strong=True))
    raise AssertionError(f"not in negation normal form: {f}")


def _accepts(state: Guard) -> bool:
    values = {v: not _MEANING[v][1] for v in MANAGER.support(state)}
    return (MANAGER.let(values, state) if values else state) == MANAGER.true


def _successors(state: Guard) -> dict[Guard, Guard]:
    """Map each successor state to its guard, by splitting on the atom variables."""
    subst = {v: _prog(_MEANING[v][0]) for v in MANAGER.support(state)}
    after = MANAGER.let(subst, state) if subst else state
    memo: dict[Guard, dict[Guard, Guard]] = {}

    def split(g: Guard) -> dict[Guard, Guard]:
        found = memo.get(g)
        if found is not None:
            return found
        atoms = sorted(v for v in MANAGER.support(g) if v[0] == "p")
        if not atoms:
            out = {g: MANAGER.true}
        else:
            v = atoms[0]
            x = MANAGER.var(v)
            out = {}
            for value, lit in ((True, x), (False, ~x)):
                for target, guard in split(MANAGER.let({v: value}, g)).items():
                    out[target] = out.get(target, MANAGER.false) | (lit & guard)
        memo[g] = out
        return out

    result = split(after)
    # Break the cycle split -> memo -> BDDs (split refers to itself): left to Python's cyclic
    # garbage collector, these BDDs would be freed at an arbitrary allocation, possibly inside
    # dd between a CUDD call and the reference it takes on the (still unreferenced) result,
    # which corrupts CUDD's reference counts (Cudd_DebugCheck errors, then an abort in
    # cuddGarbageCollect). Freed here, by reference counting, they are released at a safe point.
    memo.clear()
    return result


def to_dfa(formula: Formula, *, backend: str = "native") -> DFA:
    """The minimal complete DFA accepting the non-empty finite traces that satisfy *formula*.

    Its alphabet is every valuation of ``formula.atoms()``; the rejecting sink, where there is
    one, is a state like any other. ``backend="spot"`` builds it with Spot instead (needs
    Spot's Python bindings); both give the same minimal DFA.

    Examples
    --------
    >>> from safetychip.ltl import parse
    >>> dfa = to_dfa(parse("!a W b"))
    >>> dfa.num_states, dfa.accepts([[], ["a", "b"], ["a"]]), dfa.accepts([["a"]])
    (4, True, False)
    """
    _OBLIGATION.clear()
    _MEANING.clear()
    _PROGRESSION.clear()
    if backend != "native":
        if backend == "spot":
            from ._spot import spot_dfa

            return spot_dfa(formula)
        raise ValueError(f"unknown backend {backend!r}; choose 'native' or 'spot'")
    # The construction's BDDs stay small in declaration order; sifting them would only cost.
    MANAGER.configure(reordering=False)
    try:
        return _construct(formula)
    finally:
        MANAGER.configure(reordering=True)


def _construct(formula: Formula) -> DFA:
    init = _obligation(nnf(formula), strong=True)
    index: dict[Guard, int] = {init: 0}
    states = [init]
    edges: list[list[tuple[int, Guard]]] = []
    i = 0
    while i < len(states):
        out = []
        for target, guard in _successors(states[i]).items():
            if target not in index:
                index[target] = len(states)
                states.append(target)
            out.append((index[target], guard))
        edges.append(out)
        i += 1
    accepting = [_accepts(s) for s in states]
    return minimize(formula, accepting, edges)


def minimize(
    formula: Formula | None, accepting: list[bool], edges: list[list[tuple[int, Guard]]]
) -> DFA:
    """Moore partition refinement of a complete DFA with initial state 0, then a deterministic
    breadth-first renumbering (new targets numbered in the :func:`guard_order` of their
    guards)."""
    block = [int(a) for a in accepting]
    while True:
        signatures: dict[tuple, int] = {}
        new_block = []
        for s, out in enumerate(edges):
            merged: dict[int, Guard] = {}
            for t, g in out:
                merged[block[t]] = merged.get(block[t], MANAGER.false) | g
            sig = (block[s], tuple(sorted((b, int(g)) for b, g in merged.items())))
            new_block.append(signatures.setdefault(sig, len(signatures)))
        if len(signatures) == len(set(block)):
            break
        block = new_block
    # Quotient, renumbered breadth-first from the initial state.
    quotient: dict[int, dict[int, Guard]] = {}
    for s, out in enumerate(edges):
        if block[s] in quotient:
            continue
        merged = {}
        for t, g in out:
            merged[block[t]] = merged.get(block[t], MANAGER.false) | g
        quotient[block[s]] = merged
    accept_of = {block[s]: a for s, a in enumerate(accepting)}
    atoms = (
        formula.atoms()
        if formula is not None
        else _support_atoms(merged.items() for merged in quotient.values())
    )
    names = sorted(atoms)
    order = [block[0]]
    number = {block[0]: 0}
    for b in order:
        new = [(t, g) for t, g in quotient[b].items() if t not in number]
        if len(new) > 1:
            new.sort(key=lambda tg: guard_order(tg[1], names))
        for t, _ in new:
            number[t] = len(order)
            order.append(t)
    new_edges = [
        tuple(sorted(((number[t], g) for t, g in quotient[b].items()), key=lambda e: e[0]))
        for b in order
    ]
    return DFA(
        aps=tuple(names),
        initial=0,
        accepting=tuple(accept_of[b] for b in order),
        edges=tuple(new_edges),
        formula=formula,
    )


def _support_atoms(edges) -> frozenset[str]:
    from ._guards import atom_of

    found: set[str] = set()
    for out in edges:
        for _, g in out:
            for v in MANAGER.support(g):
                atom = atom_of(v)
                assert atom is not None, f"an edge's guard mentions only atoms, not {v}"
                found.add(atom)
    return frozenset(found)
