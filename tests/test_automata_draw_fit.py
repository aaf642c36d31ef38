"""Automata pictures fit a notebook's output column and stay legible (issue 42, item 1).

JupyterLab's output column is 953 px wide in a 1,400 px window with the file browser open; a
picture is at most :data:`MAX_WIDTH_PX` wide, its text at least 9 px high, and it is the same
drawing whether or not Graphviz's ``dot`` is installed.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from safetychip._display import png_size
from safetychip.automata import to_dfa
from safetychip.automata._draw import MAX_WIDTH_PX, picture
from safetychip.ltl import at_most, parse
from safetychip.monitor import Constraint

ROOT = Path(__file__).resolve().parents[1]
DEMO = [Constraint.from_dict(e) for e in json.loads(
    (ROOT / "data" / "spot" / "demo_constraints.json").read_text())]  # fmt: skip
#: Automata of every shape the notebooks show, and larger: a long chain, wide guards.
FORMULAS = {
    **{c.name: c.formula for c in DEMO},
    "at_most_6": at_most(6, "agent_at(hallway)"),
    "wide_guards": parse(
        'G(("agent_at(living_room)" & "is_grabbed(book)") -> X[!]("is_on(book,book_shelf)" '
        '| "agent_at(bedroom)")) & !"is_switchedon(television)" W "agent_at(statue)"'
    ),
}


def _svg_size_px(svg: str) -> tuple[float, float]:
    """The SVG's width and height on screen (its width and height are given in points)."""
    head = re.search(r"<svg[^>]*>", svg)
    assert head, svg[:200]
    width = re.search(r'width="([\d.]+)pt"', head.group(0))
    height = re.search(r'height="([\d.]+)pt"', head.group(0))
    assert width and height, head.group(0)
    return float(width.group(1)) * 4 / 3, float(height.group(1)) * 4 / 3


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_a_picture_fits_the_output_column_with_legible_text(name):
    dfa = to_dfa(FORMULAS[name])
    shown = picture(dfa, highlight=dfa.initial)
    width, height = _svg_size_px(shown.data)
    assert width <= MAX_WIDTH_PX, (name, width)
    # the PNG beside it is the same drawing, about the same size on screen (the two
    # renderers measure text a little differently for the tight bounding box)
    assert shown.png is not None and shown.size is not None
    assert shown.size[0] <= MAX_WIDTH_PX, (name, shown.size)
    assert (
        abs(shown.size[0] - width) <= 0.05 * width and abs(shown.size[1] - height) <= 0.05 * height
    )
    assert png_size(shown.png)[0] > shown.size[0]  # drawn finer than shown: crisp
    # shown at its own size (it fits), so a font size in points is its height on screen
    sizes = [float(s) for s in re.findall(r"font-size: ([\d.]+)px", shown.data)]
    assert sizes and min(sizes) * 4 / 3 >= 9, (name, sorted(set(sizes)))


def test_a_long_chain_wraps_onto_rows_instead_of_shrinking():
    dfa = to_dfa(at_most(6, "agent_at(hallway)"))
    width, height = _svg_size_px(picture(dfa, png=False).data)
    one_row = _svg_size_px(picture(to_dfa(at_most(1, "agent_at(hallway)")), png=False).data)
    assert dfa.num_states >= 14
    assert width <= MAX_WIDTH_PX and height >= 2 * one_row[1]


def test_the_drawing_is_the_same_with_or_without_graphviz(tmp_path, monkeypatch):
    dfa = to_dfa(DEMO[0].formula)
    without = picture(dfa, highlight=3)
    # a `dot` on the PATH that would draw something else, were it asked
    dot = tmp_path / "dot"
    dot.write_text('#!/bin/sh\necho "<svg>drawn by dot</svg>"\n')
    dot.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    with_dot = picture(dfa, highlight=3)
    assert with_dot.data == without.data and with_dot.png == without.png
    assert "drawn by dot" not in with_dot.data


def test_the_committed_hallway_figure_is_what_reproduce_writes(tmp_path):
    """`make reproduce` is the one writer of figures/02_hallway_at_most_3.svg (notebook 02 no
    longer writes it), and the committed file is its output, byte for byte."""
    from safetychip.cli.reproduce import REPRODUCTION_STEPS

    (tmp_path / "data").symlink_to(ROOT / "data")
    step = next(s for s in REPRODUCTION_STEPS if s.name == "spot_demo_automata")
    written = {p.name: p for p in step.run(tmp_path)}
    figure = written["02_hallway_at_most_3.svg"]
    assert figure.read_bytes() == (ROOT / "figures" / figure.name).read_bytes()
    assert _svg_size_px(figure.read_text())[0] <= MAX_WIDTH_PX
    notebook = json.loads((ROOT / "notebooks" / "02_automaton_inspection.ipynb").read_text())
    code = "".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    assert "write_text" not in code and '"figures"' not in code
