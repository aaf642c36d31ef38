"""The Python API takes formula text where it takes formulas, as Monitor does, and says what
it expects otherwise; a bare string is never read as a list of constraints (issue 45,
class 6)."""

from __future__ import annotations

import pytest

from safetychip import Monitor
from safetychip.automata import counterexample, equivalent, includes, to_dfa
from safetychip.errors import SpecificationError
from safetychip.ltl import evaluate, parse


def test_the_automata_and_evaluate_take_formula_text():
    assert to_dfa("a U b").formula == parse("a U b")
    assert to_dfa("a U b").num_states == to_dfa(parse("a U b")).num_states
    assert equivalent("G a", "!F !a") and not equivalent("F a", "G a")
    assert includes("F a", "G a") and not includes("G a", "F a")
    assert counterexample("a", "a & b") == counterexample(parse("a"), parse("a & b"))
    assert evaluate("F a", [[], ["a"]]) and not evaluate("G a", [[], ["a"]])


@pytest.mark.parametrize(
    "call",
    [lambda: to_dfa(3), lambda: equivalent("a", None), lambda: includes(["a"], "a"),
     lambda: counterexample(b"a", "a"), lambda: evaluate({"a"}, [[]])],
)  # fmt: skip
def test_what_is_neither_a_formula_nor_text_is_a_type_error_saying_what_is_expected(call):
    with pytest.raises(TypeError, match="must be a Formula or formula text such as 'G !a'"):
        call()


@pytest.mark.parametrize("one", ["never", "G !a", parse("G !a")])
def test_one_constraint_given_bare_is_refused_not_split(one):
    with pytest.raises(SpecificationError, match=r"must be a list of constraints.*write \["):
        Monitor(one)


def test_a_list_of_one_formula_text_is_one_constraint():
    assert [c.name for c in Monitor(["G !a"]).constraints] == ["c1"]
