"""The review widget shows a refused edit's parse error with its caret on a line of its own."""

from __future__ import annotations

import html
import re

import pytest

from safetychip.errors import SafetyChipError
from safetychip.ltl import parse


def test_a_refused_edit_keeps_the_caret_under_the_place_it_points_at():
    pytest.importorskip("ipywidgets")
    from safetychip.translate import ReviewWidget

    with pytest.raises(SafetyChipError) as caught:
        parse('G !("agent_at(kitchen)"')
    message = str(caught.value)
    assert "\n" in message and "^" in message  # the error itself is several lines

    w = ReviewWidget(parse('G!"agent_at(kitchen)"'))
    w.edit('G !("agent_at(kitchen)"')
    shown = w.status.value
    assert re.search(r"white-space:\s*pre-wrap", shown)
    text = html.unescape(re.sub(r"<[^>]+>", "", shown))
    lines = text.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.strip() == "^"]
    formula_line = lines[at - 1]
    assert formula_line.strip() == 'G !("agent_at(kitchen)"'
    assert lines[at].index("^") == len(formula_line)  # at the end: the "(" is never closed
