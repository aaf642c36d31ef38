"""Finite-trace LTL to minimal DFA: known automata, stepping, analyses and networkx export."""

from __future__ import annotations

import math
import time

import pytest

from safetychip.automata import DFA, MANAGER, nnf, to_dfa
from safetychip.automata._guards import atom_var, guard_order
from safetychip.errors import FormulaTooDeepError, TraceError
from safetychip.ltl import MAX_DEPTH, XS, And, Not, U, W, X, ap, evaluate, parse

# formula: (accepting per state, dead states, guards per state); states are numbered
# breadth-first from the initial state 0, which stands for the empty trace (never accepting).
KNOWN = {
    "G !a": (
        (False, True, False),
        {2},
        [[(1, "!a"), (2, "a")], [(1, "!a"), (2, "a")], [(2, "1")]],
    ),
    "F a": (
        (False, True),
        set(),
        [[(0, "!a"), (1, "a")], [(1, "1")]],
    ),
    "G(a -> F b)": (
        (False, True, False),
        set(),
        [[(1, "!a | b"), (2, "a & !b")], [(1, "!a | b"), (2, "a & !b")], [(1, "b"), (2, "!b")]],
    ),
    "!a W b": (
        (False, True, False, True),
        {2},
        [
            [(1, "!a & !b"), (2, "a & !b"), (3, "b")],
            [(1, "!a & !b"), (2, "a & !b"), (3, "b")],
            [(2, "1")],
            [(3, "1")],
        ],
    ),  # fmt: skip
    "a U b": (
        (False, False, True),
        {1},
        [[(0, "a & !b"), (1, "!a & !b"), (2, "b")], [(1, "1")], [(2, "1")]],
    ),
    "X a": (
        (False, True, False, True),
        {2},
        [[(1, "1")], [(2, "!a"), (3, "a")], [(2, "1")], [(3, "1")]],
    ),
    "X[!] a": (
        (False, False, False, True),
        {2},
        [[(1, "1")], [(2, "!a"), (3, "a")], [(2, "1")], [(3, "1")]],
    ),
    "G(a -> X[!] b)": (
        (False, True, False, False),
        {3},
        [
            [(1, "!a"), (2, "a")],
            [(1, "!a"), (2, "a")],
            [(1, "!a & b"), (2, "a & b"), (3, "!b")],
            [(3, "1")],
        ],
    ),  # fmt: skip
    "a M b": (
        (False, False, True),
        {1},
        [[(0, "!a & b"), (1, "!b"), (2, "a & b")], [(1, "1")], [(2, "1")]],
    ),
    "true": ((False, True), set(), [[(1, "1")], [(1, "1")]]),
    "false": ((False,), {0}, [[(0, "1")]]),
}


@pytest.mark.parametrize("text", list(KNOWN))
def test_known_automata(text):
    accepting, dead, guards = KNOWN[text]
    dfa = to_dfa(parse(text))
    assert dfa.num_states == len(accepting)
    assert dfa.accepting == accepting
    assert dfa.dead_states() == dead
    assert dfa.live_states() == set(range(dfa.num_states)) - dead
    assert [dfa.guards(s) for s in range(dfa.num_states)] == guards
    assert dfa.num_edges == sum(len(g) for g in guards)
    assert dfa.initial == 0
    assert dfa.aps == tuple(sorted(parse(text).atoms()))
    assert dfa.formula is parse(text)


def test_repr():
    assert repr(to_dfa(parse("G(a -> F b)"))) == (
        "<DFA for G(a -> Fb): 3 states, 6 edges, aps=['a', 'b']>"
    )


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("X X X a", 6),  # initial, 2 waiting, "last or a", sink, accept-forever
        ("X[!] X[!] true", 4),  # 0, 1 and 2 letters read, then accepting forever
        ("G F a", 2),  # on finite traces: "a at the last position"
        ("F G a", 2),  # the same language
        ("a", 3),
        ("!a", 3),
    ],
)
def test_sizes(text, size):
    assert to_dfa(parse(text)).num_states == size


def test_stepping_with_sets_and_mappings():
    dfa = to_dfa(parse("!a W b"))
    assert dfa.next_state(0, set()) == 1
    assert dfa.next_state(0, {"a": True, "b": False}) == 2
    assert dfa.next_state(0, ["b"]) == 3
    assert dfa.run([set(), {"a", "b"}]) == 3
    assert dfa.run([{"a"}], state=1) == 2
    assert dfa.accepts([set(), {"b"}, {"a"}])
    assert not dfa.accepts([{"a"}])
    assert dfa.letter_index({"b", "zzz"}) == 2  # bit i is aps[i]; unknown atoms are ignored
    with pytest.raises(TraceError, match="the proposition state has no value for b"):
        dfa.next_state(0, {"a": False})
    with pytest.raises(TraceError, match=r"at least one proposition state \(position 0\)"):
        dfa.accepts([])


def test_stepping_without_the_letter_table():
    """More than 16 atoms: the DFA steps through BDD guards instead of a letter table."""
    names = [f"p{i:02d}" for i in range(18)]
    f = U(And(*names), "q")
    dfa = to_dfa(f)
    assert len(dfa.aps) == 19 and dfa._table() is None
    everything = set(names)
    traces = [
        [everything, everything, {"q"}],
        [everything, everything - {"p07"}, {"q"}],
        [{"q"}],
        [everything],
    ]
    for trace in traces:
        assert dfa.accepts(trace) is evaluate(f, trace)


def test_shortest_traces_are_what_they_claim():
    for text in ("X[!] a", "G(a -> X[!] b)", "a U b", "!a W b", "G(a -> F b)", "F a & F !a",
                 "a M b", "G(a -> X b)", "X X false", "true", "false"):  # fmt: skip
        f = parse(text)
        dfa = to_dfa(f)
        acc = dfa.shortest_accepted()
        rej = dfa.shortest_rejected()
        bad = dfa.shortest_violating_prefix()
        if acc is not None:
            assert acc and dfa.accepts(acc) and evaluate(f, acc), text
            assert len(acc) == dfa.distances()[dfa.initial], text
        if rej is not None:
            assert rej and not dfa.accepts(rej) and not evaluate(f, rej), text
        if bad is not None:
            state = dfa.run(bad)
            assert state in dfa.dead_states(), text
            assert dfa.shortest_accepted(state) is None, text
            assert all(not evaluate(f, bad + tail) for tail in ([], [set()], [{"a", "b"}])), text
        # Letters carry as few true atoms as possible.
        assert all(len(s) <= 2 for s in (acc or []) + (rej or []) + (bad or []))


def test_shortest_traces_of_known_formulas():
    dfa = to_dfa(parse("X[!] a"))
    assert dfa.shortest_accepted() == [frozenset(), frozenset({"a"})]
    assert dfa.shortest_rejected() == [frozenset()]
    assert dfa.shortest_violating_prefix() == [frozenset(), frozenset()]
    g = to_dfa(parse("G(a -> X b)"))
    assert g.shortest_rejected() == [frozenset({"a"}), frozenset()]  # [{a}] alone is accepted
    assert to_dfa(parse("F a")).shortest_violating_prefix() is None  # a can always come later
    assert to_dfa(parse("true")).shortest_rejected() is None
    assert to_dfa(parse("false")).shortest_accepted() is None
    # Regression: a whole trace may end back in the initial state (here the only rejecting
    # state reachable in one letter is the initial one); these used to return None.
    assert to_dfa(parse("F a")).shortest_rejected() == [frozenset()]
    assert to_dfa(parse("G F a")).shortest_rejected() == [frozenset()]
    assert to_dfa(parse("false")).shortest_rejected() == [frozenset()]
    assert to_dfa(parse("false")).shortest_violating_prefix() == [frozenset()]
    assert to_dfa(parse("F a & G !a")).shortest_violating_prefix() == [frozenset()]
    # From a given state: [] when the state is already in the goal.
    assert dfa.shortest_accepted(3) == []
    assert dfa.shortest_accepted(1) == [frozenset({"a"})]
    assert dfa.shortest_accepted(2) is None


def test_distances():
    dfa = to_dfa(parse("X[!] a"))
    assert dfa.distances() == (2.0, 1.0, math.inf, 0.0)
    assert to_dfa(parse("F a")).distances() == (1.0, 0.0)


def test_minimality_merges_equivalent_formulations():
    for left, right in [("a U b", "b | (a & X[!](a U b))"), ("G a", "a & X G a"),
                        ("F a", "!G !a"), ("a W b", "(a U b) | G a")]:  # fmt: skip
        d1, d2 = to_dfa(parse(left)), to_dfa(parse(right))
        assert d1.num_states == d2.num_states
        assert d1.accepting == d2.accepting
        assert [d1.guards(s) for s in range(d1.num_states)] == [
            d2.guards(s) for s in range(d2.num_states)
        ]


def test_guards_partition_the_letters():
    for text in ("G(a -> F b) & (c U !a)", "!a W (b M c)", "X[!](a <-> b) R c"):
        dfa = to_dfa(parse(text))
        letters = [{x for i, x in enumerate("abc") if n >> i & 1} for n in range(8)]
        for s in range(dfa.num_states):
            targets = [dfa.next_state(s, letter) for letter in letters]
            assert set(targets) == {t for t, _ in dfa.edges[s]}  # every edge is used


def test_nnf():
    assert nnf(parse("!(a U X b)")) is parse("!a R X[!]!b")
    assert nnf(parse("a -> G b")) is parse("!a | G b")
    assert nnf(parse("!(a -> b)")) is parse("a & !b")
    assert nnf(parse("a <-> b")) is parse("(a & b) | (!a & !b)")
    assert nnf(parse("!(a <-> b)")) is parse("(!a | !b) & (a | b)")
    assert nnf(parse("a <-> a")) is parse("a | !a")
    assert nnf(parse("!(F a & G b)")) is parse("G !a | F !b")
    assert nnf(parse("!(a W b)")) is parse("!a M !b")
    assert nnf(parse("!(a M b)")) is parse("!a W !b")
    assert nnf(parse("!!X[!] true")) is parse("X[!] true")
    assert nnf(parse("!true")) is parse("false")
    for f in (nnf(parse("!(G(a -> X[!] !b) <-> (c W !a))")),):
        ops = {s.op for s in f.subformulas()}
        assert not ops & {"->", "<->"}
        assert all(s.children[0].op == "ap" for s in f.subformulas() if s.op == "!")


def _chain(ops: str, depth: int):
    f = ap("a")
    for i in range(depth):
        op = ops[i % len(ops)]
        if op == "!":
            f = Not(f)
        elif op == "X":
            f = X(f)
        elif op == "S":
            f = XS(f)
        elif op == "U":
            f = U(f, "b")
        elif op == "W":
            f = W(f, "b")
        elif op == "i":
            f = f >> ap("b")
    return f


@pytest.mark.parametrize("ops", ["!U", "XW", "S!", "UW", "U!W"])
def test_deepest_formulas_compile_without_recursion_error(ops):
    f = _chain(ops, MAX_DEPTH)
    assert f.depth == MAX_DEPTH
    dfa = to_dfa(f)
    for trace in ([{"a"}], [set(), {"b"}], [{"a", "b"}, set(), {"a"}]):
        assert dfa.accepts(trace) is evaluate(f, trace)


@pytest.mark.parametrize("ops", ["i", "iU"])
def test_deepest_implications_raise_too_deep_not_recursion_error(ops):
    # Their negation normal form puts a negation on a leaf, one level deeper than MAX_DEPTH.
    f = _chain(ops, MAX_DEPTH)
    assert f.depth == MAX_DEPTH
    with pytest.raises(FormulaTooDeepError, match="at most 200 are supported"):
        to_dfa(f)
    shallower = _chain(ops, MAX_DEPTH - 1)
    assert to_dfa(shallower).accepts([{"a"}, {"b"}]) is evaluate(shallower, [{"a"}, {"b"}])


def test_to_networkx():
    dfa = to_dfa(parse("!a W b"))
    g = dfa.to_networkx()
    assert g.graph["formula"] == "!a W b"
    assert sorted(g.nodes) == [0, 1, 2, 3]
    assert g.nodes[0] == {"accepting": False, "initial": True, "dead": False}
    assert g.nodes[1] == {"accepting": True, "initial": False, "dead": False}
    assert g.nodes[2] == {"accepting": False, "initial": False, "dead": True}
    assert g.nodes[3]["accepting"] and not g.nodes[3]["dead"]
    assert g.edges[0, 2]["guard"] == "a & !b"
    assert g.edges[2, 2]["guard"] == "1"
    assert g.number_of_edges() == dfa.num_edges
    unnamed = DFA(aps=(), initial=0, accepting=(True,), edges=(((0, MANAGER.true),),))
    assert unnamed.to_networkx().graph["formula"] is None
    assert repr(unnamed) == "<DFA: 1 states, 1 edges, aps=[]>"


def _random_formulas(n: int, seed: int) -> list:
    import random

    from safetychip.ltl import FALSE, TRUE, Equiv, F, G, Implies, M, Or, R

    rng = random.Random(seed)
    leaves = (ap("a"), ap("b"), ap("c"), TRUE, FALSE)
    unary = (Not, X, XS, F, G)
    binary = (And, Or, Implies, Equiv, U, W, R, M)

    def draw(depth: int, top: bool = False):
        if depth == 0 or rng.random() < (0.05 if top else 0.2):
            return rng.choice(leaves)
        if rng.random() < 0.5:
            return rng.choice(unary)(draw(depth - 1))
        return rng.choice(binary)(draw(depth - 1), draw(depth - 1))

    return [draw(5, top=True) for _ in range(n)]


def test_many_constructions_keep_cudd_consistent():
    """Regression: BDDs kept in a reference cycle were freed by Python's cyclic collector in the
    middle of dd calls, corrupting CUDD's reference counts (and, later, aborting the process)."""
    for i, f in enumerate(_random_formulas(1500, seed=0)):
        to_dfa(f)
        if i % 20 == 19:
            MANAGER.assert_consistent()


def test_constructions_do_not_accumulate_bdd_variables():
    """Regression: every new formula used to declare fresh obligation variables in the shared
    manager, and dd's per-call cost grows with the number of variables: after a few thousand
    formulas each construction was ten times slower."""
    formulas = _random_formulas(1200, seed=1)
    for f in formulas[:200]:
        to_dfa(f)
    before = len(MANAGER.vars)
    for f in formulas[200:]:
        to_dfa(f)
    assert len(MANAGER.vars) - before <= 10  # a few more for the deepest formula, not thousands


def test_parity_of_many_atoms_compiles_in_well_under_a_second():
    """Regression: minimisation ranked the edges by their printed guards, and the parity of n
    atoms prints as 2**(n-1) products: a0 <-> … <-> a17 (3 states) took 30-50 s."""
    text = " <-> ".join(f"a{i}" for i in range(18))
    start = time.perf_counter()
    dfa = to_dfa(parse(text))
    elapsed = time.perf_counter() - start
    assert dfa.num_states == 3
    assert dfa.accepts([set()]) and not dfa.accepts([{"a0"}])  # 17 equivalences of false
    assert dfa.accepts([{"a0", "a5"}, {"a3"}])
    assert elapsed < 2.0, f"to_dfa took {elapsed:.1f} s"


def test_large_guards_rank_after_printable_ones_by_their_least_letter():
    odd = MANAGER.false
    names = [f"q{i}" for i in range(10)]  # 2**9 products each way, beyond ORDER_PRODUCTS
    for name in names:
        odd = (odd & ~atom_var(name)) | (~odd & atom_var(name))
    small = atom_var("q0") & atom_var("q1")
    keys = sorted([guard_order(odd, names), guard_order(~odd, names), guard_order(small, names)])
    assert keys[0] == (0, "q0 & q1")
    assert keys[1] == (1, (False,) * 10)  # the least even letter: every atom false
    assert keys[2] == (1, (False,) * 9 + (True,))  # the least odd one: only the last true
