"""Property tests: random formulas over a, b, c (every operator, depth <= 5) and random traces.

The DFA, the direct evaluator and the monitor are independent implementations of the same
semantics; they must agree everywhere. Hypothesis runs derandomized, so CI is deterministic.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safetychip.automata import counterexample, equivalent, nnf, to_dfa
from safetychip.ltl import (
    FALSE,
    TRUE,
    XS,
    And,
    Equiv,
    F,
    G,
    Implies,
    M,
    Not,
    Or,
    R,
    U,
    W,
    X,
    ap,
    evaluate,
    parse,
    parse_prefix,
    to_str,
)
from safetychip.monitor import Monitor

ATOMS = ("a", "b", "c")
UNARY = (Not, X, XS, F, G)
BINARY = (And, Or, Implies, Equiv, U, W, R, M)
LETTERS = [frozenset(x for i, x in enumerate(ATOMS) if n >> i & 1) for n in range(8)]

LEAVES = st.sampled_from([ap("a"), ap("b"), ap("c"), TRUE, FALSE])


@st.composite
def formulas(draw, depth: int = 5):
    """Random formulas with every operator, nesting at most *depth* operators.

    Below the top, a subformula is a leaf one time in five, so most formulas have structure;
    shrinking goes towards leaves and towards the first operator of each list.
    """
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        return draw(LEAVES)
    if draw(st.booleans()):
        return draw(st.sampled_from(UNARY))(draw(formulas(depth - 1)))
    op = draw(st.sampled_from(BINARY))
    return op(draw(formulas(depth - 1)), draw(formulas(depth - 1)))


FORMULAS = formulas()
TRACES = st.lists(st.frozensets(st.sampled_from(ATOMS)), min_size=1, max_size=7)
SOME_TRACES = st.lists(TRACES, min_size=1, max_size=4)


def _settings(n: int) -> settings:
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])  # fmt: skip


FAST, SLOW = _settings(500), _settings(200)


@given(FORMULAS)
@FAST
def test_strategy_respects_the_bounds(f):
    assert f.depth <= 5
    assert f.atoms() <= set(ATOMS)


@_settings(400)
@given(FORMULAS, SOME_TRACES)
def test_dfa_evaluator_and_monitor_agree(monitor_holds, f, traces):
    dfa = to_dfa(f)
    monitor = Monitor([f])
    for trace in traces:
        expected = evaluate(f, trace)
        assert dfa.accepts(trace) is expected, (str(f), trace)
        assert monitor_holds(monitor, trace) is expected, (str(f), trace)


@FAST
@given(FORMULAS)
def test_spot_syntax_round_trip(f):
    text = to_str(f)
    assert parse(text) is f, text


@FAST
@given(FORMULAS)
def test_prefix_syntax_round_trip(f):
    text = to_str(f, "prefix")
    assert parse_prefix(text) is f, text


@FAST
@given(FORMULAS)
def test_latex_is_balanced(f):
    text = to_str(f, "latex")
    assert text.count("(") == text.count(")")
    assert text.count("{") == text.count("}")


@FAST
@given(FORMULAS, SOME_TRACES)
def test_nnf_is_equivalent(f, traces):
    g = nnf(f)
    for s in g.subformulas():
        assert s.op not in ("->", "<->")
        if s.op == "!":
            assert s.children[0].op == "ap"
    assert nnf(g) is g  # idempotent
    for trace in traces:
        assert evaluate(g, trace) is evaluate(f, trace), (str(f), str(g), trace)
    assert nnf(f, True) is nnf(Not(f))


@SLOW
@given(FORMULAS)
def test_nnf_has_the_same_automaton(f):
    assert equivalent(nnf(f), f)
    assert equivalent(nnf(Not(f)), Not(f))


@FAST
@given(FORMULAS, SOME_TRACES)
def test_shortest_traces_are_checked_by_the_evaluator(f, traces):
    dfa = to_dfa(f)
    accepted = dfa.shortest_accepted()
    rejected = dfa.shortest_rejected()
    if accepted is None:  # unsatisfiable: nothing is accepted
        assert not any(evaluate(f, t) for t in traces)
    else:
        assert accepted and evaluate(f, accepted), (str(f), accepted)
    if rejected is None:  # valid: everything is accepted
        assert all(evaluate(f, t) for t in traces)
    else:
        assert rejected and not evaluate(f, rejected), (str(f), rejected)
    prefix = dfa.shortest_violating_prefix()
    if prefix is not None:
        assert not any(evaluate(f, prefix + t) for t in [[]] + traces if prefix + t)


def _minimal_size(dfa) -> int:
    """Number of classes of the reachable states under Myhill-Nerode, computed from scratch."""
    reach, todo = {dfa.initial}, [dfa.initial]
    while todo:
        s = todo.pop()
        for letter in LETTERS:
            t = dfa.next_state(s, letter)
            if t not in reach:
                reach.add(t)
                todo.append(t)
    block = {s: dfa.accepting[s] for s in reach}
    while True:
        signature = {s: (block[s], *(block[dfa.next_state(s, x)] for x in LETTERS)) for s in reach}
        if len(set(signature.values())) == len(set(block.values())):
            return len(set(block.values()))
        block = signature


@FAST
@given(FORMULAS)
def test_dfa_is_complete_reachable_and_minimal(f):
    dfa = to_dfa(f)
    assert not dfa.accepting[dfa.initial]  # the empty trace is never accepted
    for s in range(dfa.num_states):
        targets = {t for t, _ in dfa.edges[s]}
        assert targets == {dfa.next_state(s, x) for x in LETTERS}  # complete, no useless edge
    assert _minimal_size(dfa) == dfa.num_states


@SLOW
@given(FORMULAS, FORMULAS, SOME_TRACES)
def test_counterexamples(f, g, traces):
    trace = counterexample(f, g)
    if trace is None:
        assert all(evaluate(f, t) is evaluate(g, t) for t in traces)
    else:
        assert trace and evaluate(f, trace) is not evaluate(g, trace), (str(f), str(g), trace)
