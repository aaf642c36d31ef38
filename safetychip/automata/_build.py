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

from ..errors import FormulaError
from ..ltl import Formula, Not, as_formula
from ._dfa import DFA
from ._guards import MANAGER, Guard, atom_var
from ._limit import tick
from ._minimize import minimize

__all__ = ["MAX_ATOMS", "nnf", "to_dfa"]

#: Propositions one automaton may read: its alphabet has ``2**n`` letters, and splitting or
#: printing a guard takes a step (a stack frame, when printing) per proposition.
MAX_ATOMS = 256

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
    """Map each successor state to its guard, by splitting on the atom variables (Shannon
    expansion on the first atom in name order, with an explicit stack: no recursion)."""
    subst = {v: _prog(_MEANING[v][0]) for v in MANAGER.support(state)}
    after = MANAGER.let(subst, state) if subst else state
    memo: dict[Guard, dict[Guard, Guard]] = {}
    halves: dict[Guard, tuple[Guard, Guard, Guard]] = {}  # g -> (atom, g if true, g if false)
    stack = [after]
    while stack:
        tick()
        g = stack[-1]
        if g in memo:
            stack.pop()
            continue
        split = halves.get(g)
        if split is None:
            atoms = sorted(v for v in MANAGER.support(g) if v[0] == "p")
            if not atoms:
                memo[g] = {g: MANAGER.true}
                stack.pop()
                continue
            v = atoms[0]
            split = halves[g] = (MANAGER.var(v), MANAGER.let({v: True}, g),
                                 MANAGER.let({v: False}, g))  # fmt: skip
        x, high, low = split
        todo = [h for h in (high, low) if h not in memo]
        if todo:
            stack.extend(todo)
            continue
        out: dict[Guard, Guard] = {}
        for lit, half in ((x, high), (~x, low)):
            for target, guard in memo[half].items():
                out[target] = out.get(target, MANAGER.false) | (lit & guard)
        memo[g] = out
        stack.pop()
    return memo[after]


def to_dfa(formula: Formula | str, *, backend: str = "native") -> DFA:
    """The minimal complete DFA accepting the non-empty finite traces that satisfy *formula*
    (a Formula or its text in Spot's syntax).

    Its alphabet is every valuation of ``formula.atoms()``; the rejecting sink, where there is
    one, is a state like any other. A conjunction is built as the product of its conjuncts'
    minimal DFAs (a state with a dead component is the one rejecting sink), then minimised.
    ``backend="spot"`` builds it with Spot instead (needs Spot's Python bindings); both give
    the same minimal DFA.

    Raises
    ------
    FormulaError
        If the formula has more than :data:`MAX_ATOMS` propositions (the message gives the
        number); :func:`~safetychip.ltl.evaluate` decides a trace without an automaton.

    Examples
    --------
    >>> from safetychip.ltl import parse
    >>> dfa = to_dfa(parse("!a W b"))
    >>> dfa.num_states, dfa.accepts([[], ["a", "b"], ["a"]]), dfa.accepts([["a"]])
    (4, True, False)
    """
    formula = as_formula(formula)
    n = len(formula.atoms())
    if n > MAX_ATOMS:
        raise FormulaError(
            f"the formula has {n:,} propositions; an automaton reads at most {MAX_ATOMS} "
            "(evaluate(formula, trace) decides a trace without one)"
        )
    _OBLIGATION.clear()
    _MEANING.clear()
    _PROGRESSION.clear()
    if backend != "native":
        if backend == "spot":
            from ._spot import spot_dfa

            return spot_dfa(formula)
        raise ValueError(f"unknown backend {backend!r}; choose 'native' or 'spot'")
    if formula.op == "&" and len(formula.children) > 1:
        return _conjunction(formula)
    # The construction's BDDs stay small in declaration order; sifting them would only cost.
    MANAGER.configure(reordering=False)
    try:
        return _construct(formula)
    finally:
        MANAGER.configure(reordering=True)


def _conjunction(formula: Formula) -> DFA:
    """The minimal DFA of a conjunction: the reachable product of the conjuncts' minimal
    DFAs, every state with a dead component merged into one sink, minimised."""
    parts = [to_dfa(k) for k in formula.children]
    dead = [d.dead_states() for d in parts]
    sink: tuple[int, ...] = ()  # the product's rejecting sink
    start = tuple(d.initial for d in parts)
    index = {start: 0}
    states = [start]
    edges: list[list[tuple[int, Guard]]] = []
    i = 0
    while i < len(states):
        tick()
        here = states[i]
        out: dict[tuple[int, ...], Guard] = {}
        if here == sink:
            out[sink] = MANAGER.true
        stack: list[tuple[int, Guard, tuple[int, ...]]] = []
        if here != sink:
            stack.append((0, MANAGER.true, ()))
        while stack:  # the successors, one component at a time
            k, guard, acc = stack.pop()
            if k == len(parts):
                out[acc] = out.get(acc, MANAGER.false) | guard
                continue
            for t, g in parts[k].edges[here[k]]:
                h = guard & g
                if h == MANAGER.false:
                    continue
                if t in dead[k]:
                    out[sink] = out.get(sink, MANAGER.false) | h
                else:
                    stack.append((k + 1, h, (*acc, t)))
        row = []
        for target, guard in out.items():
            if target not in index:
                index[target] = len(states)
                states.append(target)
            row.append((index[target], guard))
        edges.append(row)
        i += 1
    accepting = [s != sink and all(d.accepting[q] for d, q in zip(parts, s)) for s in states]
    return minimize(formula, accepting, edges)


def _construct(formula: Formula) -> DFA:
    init = _obligation(nnf(formula), strong=True)
    index: dict[Guard, int] = {init: 0}
    states = [init]
    edges: list[list[tuple[int, Guard]]] = []
    i = 0
    while i < len(states):
        tick()
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
