"""The lazy product of DFAs: successors, joint satisfiability witnesses and invariants."""

from __future__ import annotations

import pytest

from safetychip.automata import MANAGER, Product, to_dfa
from safetychip.automata._guards import atom_var, holds
from safetychip.automata._product import SearchBudgetExceeded
from safetychip.errors import SafetyChipError
from safetychip.ltl import parse


def dfas(*texts):
    return [to_dfa(parse(t)) for t in texts]


def check_witness(product: Product, state, path) -> None:
    """*path* is a non-empty continuation every component accepts, inside the invariant."""
    assert path, "a witness is non-empty"
    for letter in path:
        assert holds(product.invariant, letter, product.atoms), letter
    for d, q in zip(product.dfas, state):
        assert d.accepting[d.run(path, state=q)]
    assert product.accepting(_run(product, state, path))


def _run(product, state, path):
    for letter in path:
        state = product.next_state(state, letter)
    return state


def test_conflicting_components_have_no_witness():
    p = Product(dfas("F a", "G !a"))
    assert p.initial == (0, 0)
    assert p.atoms == ("a",)
    assert p.witness(p.initial) is None
    assert not p.is_live(p.initial)


def test_compatible_components_have_a_witness():
    p = Product(dfas("F a", "!a W b"))
    path = p.witness(p.initial)
    check_witness(p, p.initial, path)
    assert p.is_live(p.initial)
    assert path == [frozenset({"a", "b"})]


def test_witness_needs_several_letters():
    p = Product(dfas("X[!] X[!] a", "G(a -> X[!] b)", "F c"))
    path = p.witness(p.initial)
    check_witness(p, p.initial, path)
    assert len(path) >= 4  # a at 2, then b at 3


def test_invariant_restricts_letters():
    not_both = ~(atom_var("a") & atom_var("b"))
    p = Product(dfas("F a", "F b"), invariant=not_both)
    path = p.witness(p.initial)
    check_witness(p, p.initial, path)
    assert len(path) == 2  # a and b cannot happen together
    # Without the invariant one letter does it.
    q = Product(dfas("F a", "F b"))
    assert q.witness(q.initial) == [frozenset({"a", "b"})]
    # And the invariant can make a single component unsatisfiable.
    r = Product(dfas("F(a & b)"), invariant=not_both)
    assert r.witness(r.initial) is None and not r.is_live(r.initial)
    assert Product(dfas("F(a & b)")).is_live((0,))


def test_invariant_with_exactly_one_room():
    k, b = atom_var("agent_at(kitchen)"), atom_var("agent_at(bedroom)")
    one_room = (k | b) & ~(k & b)
    p = Product(dfas("G !agent_at(kitchen)", "F !agent_at(bedroom)"), invariant=one_room)
    assert not p.is_live(p.initial)
    assert Product(dfas("G !agent_at(kitchen)", "F !agent_at(bedroom)")).is_live((0, 0))


def test_is_live_after_letters():
    p = Product(dfas("!a W b", "F a"))
    s = p.next_state(p.initial, {"b"})
    assert p.is_live(s)
    dead = p.next_state(p.initial, {"a"})
    assert p.dead_components(dead) == [0]
    assert not p.is_live(dead)
    assert p.witness(dead) is None
    # An accepting non-initial state is live with the empty continuation.
    done = p.next_state(s, {"a"})
    assert p.accepting(done) and p.is_live(done)
    assert p._live[done] is True  # answers are cached


def test_joint_violation_without_dead_components():
    p = Product(dfas("a -> X[!] b", "G !b"))
    after_a = p.next_state(p.initial, {"a"})
    assert p.dead_components(after_a) == []  # each alone can still be satisfied
    assert not p.is_live(after_a)  # but not together
    assert p.is_live(p.next_state(p.initial, set()))


def test_successors():
    p = Product(dfas("G !a"))
    live = list(p.successors(p.initial))
    assert [s for s, _ in live] == [(1,)]
    assert live[0][1] == ~atom_var("a")
    everything = dict(p.successors(p.initial, live_only=False))
    assert set(everything) == {(1,), (2,)}
    assert everything[(2,)] == atom_var("a")
    # Guards of the successors of one state are disjoint.
    q = Product(dfas("!a W b", "F a"))
    guards = [g for _, g in q.successors(q.initial, live_only=False)]
    for i, g in enumerate(guards):
        for h in guards[i + 1 :]:
            assert g & h == MANAGER.false


def test_reachable():
    p = Product(dfas("!a W b", "F a"))
    states = list(p.reachable())
    assert states[0] == p.initial
    assert len(states) == len(set(states))
    # The same set by brute force over the four letters.
    letters = [set(), {"a"}, {"b"}, {"a", "b"}]
    seen, todo = {p.initial}, [p.initial]
    while todo:
        s = todo.pop()
        for letter in letters:
            t = p.next_state(s, letter)
            if t not in seen:
                seen.add(t)
                todo.append(t)
    assert set(states) == seen
    assert len(states) > 3


def test_search_budget_is_enforced():
    long = dfas("X[!] " * 30 + "a")  # 31 letters needed: beyond the greedy search
    assert Product(long).witness((0,)) is not None
    tight = Product(long, budget=5)
    with pytest.raises(
        SearchBudgetExceeded, match="search of 1 automata explored more than 5 product states"
    ):
        tight.witness(tight.initial)
    assert issubclass(SearchBudgetExceeded, SafetyChipError)
