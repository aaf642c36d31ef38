"""Language equivalence, inclusion and counterexamples between formulas."""

from __future__ import annotations

import pytest

from safetychip.automata import counterexample, equivalent, includes
from safetychip.ltl import evaluate, parse

EQUIVALENT = [
    ("!(a U b)", "!b W (!a & !b)"),
    ("!(a W b)", "!b U (!a & !b)"),
    ("a R b", "!(!a U !b)"),
    ("a M b", "b U (a & b)"),
    ("!X a", "X[!] !a"),  # weak and strong next are dual
    ("X true", "true"),
    ("X[!] true", "!X false"),  # "the trace goes on"
    ("F a", "true U a"),
    ("G a", "false R a"),
    ("GF a", "F(a & X false)"),  # on finite traces: a at the last position
    ("GF a", "FG a"),
    ("G(is_open(fridge) -> F !is_open(fridge))", 'G("is_open( fridge )" -> F!"is_open(fridge)")'),
    ("a -> b", "!a | b"),
    ("a <-> b", "(a & b) | (!a & !b)"),
]

DIFFERENT = [
    ("G(a -> X b)", "G(a -> X[!] b)"),
    ("F a", "GF a"),
    ("a U b", "a W b"),
    ("X a", "X[!] a"),
    ("G !a", "!a W b"),
    ("a", "b"),
]


@pytest.mark.parametrize(("left", "right"), EQUIVALENT)
def test_equivalent_pairs(left, right):
    f, g = parse(left), parse(right)
    assert equivalent(f, g)
    assert equivalent(g, f)
    assert includes(f, g) and includes(g, f)
    assert counterexample(f, g) is None


@pytest.mark.parametrize(("left", "right"), DIFFERENT)
def test_different_pairs_have_a_checked_counterexample(left, right):
    f, g = parse(left), parse(right)
    assert not equivalent(f, g)
    trace = counterexample(f, g)
    assert trace, "a counterexample is a non-empty trace"
    assert evaluate(f, trace) != evaluate(g, trace)


def test_weak_and_strong_next_differ_on_a_single_state():
    weak, strong = parse("G(a -> X b)"), parse("G(a -> X[!] b)")
    assert counterexample(weak, strong) == [frozenset({"a"})]
    assert counterexample(weak, strong, direction="left") == [frozenset({"a"})]
    assert counterexample(weak, strong, direction="right") is None
    assert includes(weak, strong)  # every trace of the strong one satisfies the weak one
    assert not includes(strong, weak)


def test_directions():
    f, g = parse("F a"), parse("GF a")
    left = counterexample(f, g, direction="left")  # satisfies f, not g
    assert evaluate(f, left) and not evaluate(g, left)
    assert counterexample(f, g, direction="right") is None  # GF a implies F a
    assert includes(f, g) and not includes(g, f)
    assert counterexample(f, g) == left  # shortest in either direction


def test_counterexamples_are_shortest():
    assert len(counterexample(parse("X[!] X[!] a"), parse("X[!] X[!] (a & b)"))) == 3
    assert len(counterexample(parse("a U b"), parse("a W b"))) == 1


def test_equivalent_of_the_same_formula():
    f = parse("G(a -> F b)")
    assert equivalent(f, f)
    assert counterexample(f, f) is None


def test_bad_direction():
    with pytest.raises(ValueError, match="direction must be 'both', 'left' or 'right', got 'up'"):
        counterexample(parse("a"), parse("b"), direction="up")
