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
