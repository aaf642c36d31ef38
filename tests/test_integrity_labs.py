"""A lab checker never lets an answer escape as an exception (issue 45, class 7)."""

from __future__ import annotations

import pytest

from safetychip.labs import check_answer


def _close_to_half(answer):
    return abs(answer - 0.5) < 0.01, "the score is 0.5"


@pytest.mark.parametrize(
    ("answer", "judge"),
    [(10**5000, _close_to_half), (-(10**5000), _close_to_half),
     (10**400, lambda a: (float(a) > 1, "")), (0, lambda a: (1 / a > 1, ""))],
    ids=["huge", "huge negative", "float overflow", "division by zero"],
)  # fmt: skip
def test_an_answer_out_of_range_is_invalid_feedback_not_an_exception(answer, judge):
    feedback = check_answer(answer, judge, exercise="4.3")
    assert feedback.status == "invalid"
    assert "could not be checked" in feedback.message and "small number" in feedback.message


def _refusal():
    from safetychip.explain import explain_violation
    from safetychip.monitor import Constraint, Monitor

    rule = Constraint.parse('!"agent_at(kitchen)" W "agent_at(bathroom)"',
                            "Don't go to the kitchen before the bathroom", name="c1")  # fmt: skip
    m = Monitor([rule, Constraint.parse('G !"agent_at(hallway)"', "Avoid the hallway",
                                        name="c2")])  # fmt: skip
    m.reset(set())
    return explain_violation(m, {"agent_at(kitchen)"}, action="walk to kitchen"), m.constraints


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("Walking to the kitchen at step 1 does not break c1.", "breaks no constraint"),
        ("At step 1 walking to the kitchen doesn't violate c1.", "breaks no constraint"),
        ("Walking to the kitchen at step 1 is safe: c1 is not broken.", "breaks no constraint"),
        ("Walking to the kitchen at step 1 is allowed by c1.", "breaks no constraint"),
        ("c1 kitchen step 1 walk", "say that the action breaks a constraint"),
        ("Walking to the kitchen at step 1 breaks c1 and c2.", "does not break c2"),
        ("c1 c2 kitchen bathroom hallway steps 1 2 3 break", "does not break c2"),
        ("Walking to the kitchen at step 1, or the second or third, breaks c1.",
         "name the one step"),
        ("At step 1, walking to the kitchen breaks c1 because it makes agent_at(bathroom) true.",
         "does not change agent_at(bathroom)"),
    ],
)  # fmt: skip
def test_a_negated_wrong_or_stuffed_explanation_is_incorrect(text, says):
    from safetychip.labs import check_explanation

    explanation, constraints = _refusal()
    feedback = check_explanation(text, explanation, constraints, step=1, exercise="3.4")
    assert feedback.status == "incorrect" and says in feedback.message, feedback.message


@pytest.mark.parametrize(
    "text",
    ["At step 1, walking to the kitchen would make agent_at(kitchen) true before the "
     "bathroom, which breaks c1.",
     "Walking to the kitchen at step 1 is not allowed by c1: it says don't go to the kitchen "
     "before the bathroom.",
     # an ordinal that counts something else names no step
     "Step 1: a first trip to the kitchen before the second bathroom visit breaks c1."],
)  # fmt: skip
def test_a_right_explanation_is_still_correct(text):
    from safetychip.labs import check_explanation

    explanation, constraints = _refusal()
    feedback = check_explanation(text, explanation, constraints, step=1, exercise="3.4")
    assert feedback.correct, feedback.message
