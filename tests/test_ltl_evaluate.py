"""The direct trace evaluator: finite-trace semantics of every operator, and trace errors."""

from __future__ import annotations

import pytest

from safetychip.errors import TraceError
from safetychip.ltl import evaluate, normalize_trace, parse

# (formula, trace, holds): traces are lists of sets of true atoms; position 0 first.
CASES = [
    # atoms and constants look at position 0 only
    ("a", [{"a"}, set()], True),
    ("a", [set(), {"a"}], False),
    ("true", [set()], True),
    ("false", [{"a"}], False),
    ("!a", [set()], True),
    ("a & b", [{"a", "b"}], True),
    ("a & b", [{"a"}], False),
    ("a | b", [{"b"}], True),
    ("a -> b", [set()], True),
    ("a -> b", [{"a"}], False),
    ("a <-> b", [set()], True),
    ("a <-> b", [{"b"}], False),
    # weak and strong next
    ("X a", [set()], True),  # weak next holds at the last position
    ("X[!] a", [set()], False),  # strong next does not
    ("X a", [set(), {"a"}], True),
    ("X a", [set(), set()], False),
    ("X[!] a", [set(), {"a"}], True),
    ("X false", [set()], True),  # "the trace ends here"
    ("X false", [set(), set()], False),
    ("X X false", [set(), set()], True),
    ("X[!] true", [set()], False),  # "the trace goes on"
    ("X[!] true", [set(), set()], True),
    # eventually and globally range over the trace itself
    ("F a", [set(), set(), {"a"}], True),
    ("F a", [set(), set()], False),
    ("G a", [{"a"}, {"a"}], True),
    ("G a", [{"a"}, set()], False),  # fails when the last state lacks a
    ("G a", [{"a"}], True),
    # until, weak until, release, strong release
    ("a U b", [{"a"}, {"a"}, {"b"}], True),
    ("a U b", [{"b"}], True),
    ("a U b", [{"a"}, {"a"}], False),  # b never happens
    ("a U b", [{"a"}, set(), {"b"}], False),  # a breaks before b
    ("a W b", [{"a"}, {"a"}], True),  # a to the end is enough
    ("a W b", [{"a"}, set(), {"b"}], False),
    ("a W b", [set(), {"a"}], False),
    ("a R b", [{"b"}, {"b"}], True),  # b to the end
    ("a R b", [{"b"}, {"a", "b"}, set()], True),  # b up to and including the first a
    ("a R b", [{"b"}, {"a"}], False),  # b must hold where a releases it
    ("a M b", [{"b"}, {"b"}], False),  # the release must happen
    ("a M b", [{"b"}, {"a", "b"}, set()], True),
    # the paper's avoidance pattern
    ("!a W b", [set(), {"a", "b"}], True),
    ("!a W b", [{"a"}], False),
    ("!a W b", [set(), set(), set()], True),
    # the README's reminders
    ("G(a -> X b)", [set(), {"a"}], True),
    ("G(a -> X[!] b)", [set(), {"a"}], False),
    ("G(a -> X[!] b)", [{"a"}, {"b"}], True),
    ("G(a -> F b)", [{"a"}, set(), {"b"}, {"a", "b"}], True),
    ("G(a -> F b)", [{"a"}, {"b"}, {"a"}], False),
    ("GF a", [set(), {"a"}], True),  # on finite traces: a at the last position
    ("GF a", [{"a"}, set()], False),
    ("FG a", [set(), {"a"}], True),
]


@pytest.mark.parametrize(
    ("text", "trace", "holds"),
    CASES,
    ids=[f"{t}|{[sorted(s) for s in tr]}" for t, tr, _ in CASES],
)
def test_semantics(text, trace, holds):
    assert evaluate(parse(text), trace) is holds


def test_position_argument_evaluates_a_suffix():
    f = parse("a U b")
    trace = [set(), {"a"}, {"b"}]
    assert [evaluate(f, trace, i) for i in range(3)] == [False, True, True]
    assert evaluate(parse("X false"), trace, 2) is True
    with pytest.raises(TraceError, match="position 3 is outside a trace of length 3"):
        evaluate(f, trace, 3)
    with pytest.raises(TraceError, match="position -1 is outside"):
        evaluate(f, trace, -1)


def test_mapping_states_and_extra_atoms():
    f = parse("G(agent_at(kitchen) -> !is_open(fridge))")
    ok = [{"agent_at(kitchen)": True, "is_open(fridge)": False, "unrelated": True}]
    bad = [{"agent_at(kitchen)": True, "is_open(fridge)": True}]
    assert evaluate(f, ok) is True
    assert evaluate(f, bad) is False
    # Sets, frozensets, lists and tuples of true atoms all work; extra atoms are ignored.
    assert evaluate(parse("a U b"), [["a", "z"], ("b",)]) is True
    assert evaluate(parse("a U b"), [frozenset({"a"}), {"b"}]) is True


def test_trace_errors_name_the_problem():
    f = parse("a U b")
    with pytest.raises(TraceError, match=r"at least one proposition state \(position 0\)"):
        evaluate(f, [])
    with pytest.raises(TraceError, match="a trace is a list of proposition states, got str"):
        evaluate(f, "ab")
    with pytest.raises(TraceError, match="a trace is a list of proposition states, got int"):
        evaluate(f, 7)
    with pytest.raises(TraceError, match="position 1 has no value for b"):
        evaluate(f, [{"a": True, "b": False}, {"a": True}])
    with pytest.raises(TraceError, match="position 0 has no value for a, b"):
        evaluate(f, [{}])
    with pytest.raises(
        TraceError, match=r"position 1 must be a set of true atoms or a mapping, got 3"
    ):
        evaluate(f, [{"a"}, 3])
    with pytest.raises(TraceError, match="position 0 must be a set"):
        evaluate(f, ["ab"])  # a string is not a set of atoms
    assert issubclass(TraceError, ValueError)


def test_normalize_trace():
    assert normalize_trace([{"a": 1, "b": 0}, ["b", "c"]], ["a", "b"]) == [
        frozenset({"a"}),
        frozenset({"b"}),
    ]
