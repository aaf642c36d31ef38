"""Specification patterns, each checked on hand-made traces with the direct evaluator."""

from __future__ import annotations

import pytest

from safetychip.errors import FormulaError, PropositionError
from safetychip.ltl import (
    PATTERNS,
    TRUE,
    Not,
    Pattern,
    absence_after,
    at_least,
    at_most,
    before,
    evaluate,
    exactly,
    immediate_response,
    never,
    not_before,
    parse,
    response,
)

PHONE = "is_grabbed(phone)"
KITCHEN, BATHROOM, HALL = "agent_at(kitchen)", "agent_at(bathroom)", "agent_at(hallway)"


def rooms(*names):
    """A trace of the agent walking through rooms (one true atom per state)."""
    return [{n} for n in names]


def test_never():
    f = never(PHONE)
    assert f is parse('G !"is_grabbed(phone)"')
    assert evaluate(f, [set(), set()])
    assert not evaluate(f, [set(), {PHONE}, set()])
    assert not evaluate(f, [{PHONE}])


def test_not_before_and_before():
    f = not_before(KITCHEN, BATHROOM)  # do not enter the kitchen before the bathroom
    assert f is parse("!agent_at(kitchen) W agent_at(bathroom)")
    assert evaluate(f, rooms(HALL, BATHROOM, KITCHEN))
    assert evaluate(f, rooms(HALL, HALL))  # neither is required
    assert not evaluate(f, rooms(HALL, KITCHEN, BATHROOM))
    assert evaluate(f, [{KITCHEN, BATHROOM}])  # at the same time is allowed
    g = before(BATHROOM, KITCHEN)  # the bathroom before the kitchen: the same constraint
    assert g is f


def test_response_is_owed_at_done():
    f = response("is_open(fridge)", Not("is_open(fridge)"))  # if you open it, close it later
    assert f is parse("G(is_open(fridge) -> F !is_open(fridge))")
    opened, closed = {"is_open(fridge)"}, set()
    assert evaluate(f, [closed, opened, closed])
    assert not evaluate(f, [closed, opened, opened])  # still open at DONE
    assert evaluate(f, [closed])
    g = response("a", "b")
    assert evaluate(g, [{"a", "b"}])  # "at the same time or later"
    assert not evaluate(g, [{"a"}, {"b"}, {"a"}])


def test_immediate_response_uses_the_strong_next():
    f = immediate_response("a", "b")
    assert f is parse("G(a -> X[!] b)")
    assert evaluate(f, [{"a"}, {"b"}])
    assert not evaluate(f, [{"a"}, set()])
    assert not evaluate(f, [set(), {"a"}])  # the trace may not end right after a
    assert not evaluate(f, [{"a"}, set(), {"b"}])  # later is too late


def test_absence_after():
    f = absence_after("is_switchedon(stove)", "agent_at(bedroom)")
    assert f is parse("G(is_switchedon(stove) -> X G !agent_at(bedroom))")
    on, bed = "is_switchedon(stove)", "agent_at(bedroom)"
    assert evaluate(f, [{bed}, {on}, set(), set()])  # the bedroom before is fine
    assert not evaluate(f, [{on}, set(), {bed}])
    assert evaluate(f, [{on, bed}, set()])  # at the same state: "afterwards" starts next
    assert evaluate(f, [{on}])


def entries(trace, atom):
    """Rising edges of *atom*, counted by hand (position 0 counts when the atom holds)."""
    count, before_ = 0, False
    for state in trace:
        now = atom in state
        count += now and not before_
        before_ = now
    return count


HALLWAY_TRACES = {
    "never": rooms(KITCHEN, BATHROOM),
    "staying counts once": rooms(HALL, HALL, HALL, HALL, HALL),
    "in and out twice": rooms(KITCHEN, HALL, HALL, KITCHEN, HALL, BATHROOM),
    "three visits": rooms(HALL, KITCHEN, HALL, HALL, BATHROOM, HALL),
    "three visits, long stays": rooms(
        KITCHEN, HALL, HALL, HALL, KITCHEN, HALL, HALL, BATHROOM, HALL, HALL
    ),  # fmt: skip
    "four visits": rooms(HALL, KITCHEN, HALL, BATHROOM, HALL, KITCHEN, HALL),
    "five visits": rooms(HALL, KITCHEN, HALL, KITCHEN, HALL, KITCHEN, HALL, KITCHEN, HALL),
}
EXPECTED_ENTRIES = {
    "never": 0,
    "staying counts once": 1,
    "in and out twice": 2,
    "three visits": 3,
    "three visits, long stays": 3,
    "four visits": 4,
    "five visits": 5,
}


def test_hallway_traces_have_the_entries_they_claim():
    for name, trace in HALLWAY_TRACES.items():
        assert entries(trace, HALL) == EXPECTED_ENTRIES[name], name


@pytest.mark.parametrize("name", list(HALLWAY_TRACES))
def test_at_most_three_times_of_the_hallway(name):
    f = at_most(3, HALL)
    assert evaluate(f, HALLWAY_TRACES[name]) is (EXPECTED_ENTRIES[name] <= 3)


@pytest.mark.parametrize("n", range(6))
def test_counting_patterns_count_rising_edges(n):
    for name, trace in HALLWAY_TRACES.items():
        k = EXPECTED_ENTRIES[name]
        assert evaluate(at_least(n, HALL), trace) is (k >= n), (n, name)
        assert evaluate(at_most(n, HALL), trace) is (k <= n), (n, name)
        assert evaluate(exactly(n, HALL), trace) is (k == n), (n, name)


def test_counting_pattern_formulas():
    assert at_least(0, "a") is TRUE
    assert at_least(1, "a") is parse("F a")
    assert at_most(0, "a") is parse("!F a")
    assert exactly(0, "a") is at_most(0, "a")
    assert at_least(2, "a") is parse("F(a & (a U (!a & (!a U Fa))))")
    assert exactly(2, "a") is parse(
        "F(a & (a U (!a & (!a U Fa)))) & !F(a & (a U (!a & (!a U F(a & (a U (!a & (!a U Fa))))))))"
    )


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2", None])
def test_counting_patterns_reject_bad_counts(bad):
    for build, name in ((at_least, "at_least"), (at_most, "at_most"), (exactly, "exactly")):
        with pytest.raises(FormulaError, match=rf"{name} needs a whole number of times >= 0, got"):
            build(bad, "a")


def test_pattern_registry():
    assert set(PATTERNS) == {"never", "not_before", "before", "response", "immediate_response",
                             "next_response", "absence_after", "absence_from", "at_least",
                             "at_most", "exactly"}  # fmt: skip
    for name, pattern in PATTERNS.items():
        assert isinstance(pattern, Pattern)
        assert pattern.name == name
        assert pattern.family in ("avoidance", "trigger")
        assert "{0" in pattern.english
    assert PATTERNS["not_before"].build is not_before
    assert PATTERNS["not_before"].read("enter the kitchen", "you are at the bathroom") == (
        "do not enter the kitchen until you are at the bathroom"
        " (if that never happens, never enter the kitchen)"
    )
    assert PATTERNS["at_most"].read(3, "visit the hallway") == (
        "visit the hallway at most 3 times (each time it starts to hold counts once)"
    )
    said = PATTERNS["response"].read("a", "b", say=lambda value, mood: f"{value}/{mood}")
    assert said == "whenever a/state, b/must then or at some later step, before you finish"
    assert PATTERNS["at_most"].build(3, HALL) is at_most(3, HALL)


def test_next_response_is_weak_and_absence_from_includes_the_moment():
    from safetychip.ltl import absence_from, next_response

    f = next_response("p", "q")
    assert evaluate(f, [[], ["p"]])  # the trace may end while p holds
    assert not evaluate(f, [["p"], []])
    assert evaluate(f, [["p"], ["q"]])
    g = absence_from("p", "q")
    assert not evaluate(g, [["p", "q"]])  # q at p's own moment is forbidden
    assert evaluate(absence_after("p", "q"), [["p", "q"]])
    assert not evaluate(g, [["p"], [], ["q"]])


def test_a_negated_atom_name_is_refused_with_the_fix():
    with pytest.raises(PropositionError, match=r"write Not\('q'\) or parse\('!q'\)"):
        response("p", "!q")
