"""A parse error's caret points where the input went wrong (issue 42, item 4).

A formula that leaves a "(" open goes wrong where it ends, not at the "(": the caret goes under
the end of the input and the message names the "(" still open, in the parser and in the lab
check that shows its message to a student.
"""

from __future__ import annotations

import pytest

from safetychip.errors import FormulaSyntaxError
from safetychip.labs import INVALID, check_formula
from safetychip.ltl import parse


def _caret_column(message: str) -> int:
    """The column of the caret under the echoed input (both lines are indented alike)."""
    lines = message.split("\n")
    echoed, caret = lines[-2], lines[-1]
    assert caret.strip() == "^", message
    assert echoed.startswith("  ") and caret.startswith("  "), message
    return caret.index("^") - 2


@pytest.mark.parametrize(
    ("text", "opened"),
    [("(a", 0), ('G ("agent_at(kitchen)" -> F "agent_at(hall)"', 2), ("G((a U b)", 1),
     ("((a)", 0)],
)  # fmt: skip
def test_an_unclosed_parenthesis_puts_the_caret_at_the_end_and_names_the_parenthesis(text, opened):
    with pytest.raises(FormulaSyntaxError) as info:
        parse(text)
    err = info.value
    assert err.position == len(text)
    assert f"the '(' at position {opened} is never closed" in str(err)
    assert "found end of input" in str(err)
    assert _caret_column(str(err)) == len(text)


def test_the_innermost_open_parenthesis_is_the_one_named():
    with pytest.raises(FormulaSyntaxError, match=r"the '\(' at position 9 is never closed"):
        parse("(a)&(b | (c")


def test_the_lab_check_shows_the_caret_at_the_end_on_its_own_line():
    answer = 'G ("agent_at(kitchen)" -> F "agent_at(hall)"'
    feedback = check_formula(answer, 'G("agent_at(kitchen)" -> F "agent_at(hall)")',
                             exercise="1.1")  # fmt: skip
    assert feedback.status == INVALID
    lines = feedback.message.split("\n")
    assert len(lines) == 3, feedback.message  # message, the input, the caret: line breaks kept
    assert lines[1] == "  " + answer
    assert "the '(' at position 2 is never closed" in lines[0]
    assert _caret_column(feedback.message) == len(answer)
