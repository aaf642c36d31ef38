"""The committed notebooks read well unopened and untrusted: every figure has a PNG, and a
text that says what it shows (``%load_ext safetychip`` in a notebook's first cell gives
matplotlib figures their titles as text, :func:`safetychip._display.use_figure_text`).

JupyterLab shows a fresh clone's notebook untrusted: it renders no SVG, strips SVG out of
HTML, and cannot show a widget whose kernel is gone. What it always shows is a PNG. So every
code cell that displays a figure (an automaton, a matplotlib figure, a widget) must carry one,
which means the notebook is committed executed, in a kernel with the inline backend. A
widget whose stand-in is HTML without SVG (a panel of questions, a card of text) needs none:
that HTML is shown untrusted as it is.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))

WIDGET = "application/vnd.jupyter.widget-view+json"
# Calls that draw: the library's plot_* functions, pyplot, an automaton's picture, widgets.
DRAWS = re.compile(
    r"\b(plot_\w+|plt\.(plot|subplots|figure|show)|\w+\.show|interact\w*|"
    r"SliceExplorer|\w+\.widget)\("
)


def _has_picture(data: dict) -> bool:
    html = data.get("text/html", "")
    if WIDGET in data and html and "<svg" not in html:
        return True  # a widget whose stand-in is HTML without SVG: shown untrusted as it is
    return "image/png" in data or ("data:image/png;base64," in html and "<svg" not in html)


def _shows_a_figure(data: dict) -> bool:
    plain = data.get("text/plain", "")
    return (
        "image/svg+xml" in data
        or "<svg" in data.get("text/html", "")
        or WIDGET in data
        or plain.startswith("<Figure size")
    )


def problems(nb) -> list[str]:
    """Each code cell that shows a figure without a PNG, or that draws and shows no picture
    (a real-model cell, which draws only when a key is set, excepted)."""
    found = []
    for number, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        bundles = [
            o.get("data", {})
            for o in cell.get("outputs", [])
            if o.get("output_type") in ("display_data", "execute_result")
        ]
        for data in bundles:
            if _shows_a_figure(data) and not _has_picture(data):
                kinds = ", ".join(sorted(data))
                found.append(f"cell {number}: a figure without a PNG ({kinds})")
            if data.get("text/plain", "").startswith("<Figure size"):
                found.append(f"cell {number}: a figure whose text says only its size")
        real_model = "OPENAI_API_KEY" in cell.source  # draws only with a key; offline it skips
        if DRAWS.search(cell.source) and not real_model and not any(map(_has_picture, bundles)):
            state = "not run" if cell.get("execution_count") is None else "no picture"
            found.append(f"cell {number}: draws a figure but shows none ({state})")
    return found


def test_the_check_finds_what_an_untrusted_notebook_cannot_show():
    cell = nbformat.v4.new_code_cell("dfa", execution_count=1, outputs=[
        nbformat.v4.new_output("execute_result", {"image/svg+xml": "<svg/>", "text/plain": "x"},
                               execution_count=1)])  # fmt: skip
    fig = nbformat.v4.new_code_cell("fig = plot_timeline(t)", execution_count=2, outputs=[
        nbformat.v4.new_output("display_data", {"text/plain": "<Figure size 1000x340 with 2 Axes>"})
    ])  # fmt: skip
    unrun = nbformat.v4.new_code_cell("explorer = SliceExplorer()\nexplorer")
    sized = nbformat.v4.new_code_cell("fig = plot_rates(grid)", execution_count=4, outputs=[
        nbformat.v4.new_output("display_data", {"image/png": "iVBO",
                                                "text/plain": "<Figure size 10x10 with 1 Axes>"})
    ])  # fmt: skip
    good = nbformat.v4.new_code_cell("dfa.show()", execution_count=3, outputs=[
        nbformat.v4.new_output("display_data", {"image/svg+xml": "<svg/>", "image/png": "iVBO",
                                                "text/plain": "x"})])  # fmt: skip
    panel = nbformat.v4.new_code_cell("panel", execution_count=5, outputs=[
        nbformat.v4.new_output("display_data", {WIDGET: "{}", "text/html": "<p>Yes or no?</p>",
                                                "text/plain": "x"})])  # fmt: skip
    drawn = nbformat.v4.new_code_cell("panel", execution_count=6, outputs=[
        nbformat.v4.new_output("display_data", {WIDGET: "{}", "text/html": "<svg/>",
                                                "text/plain": "x"})])  # fmt: skip
    nb = nbformat.v4.new_notebook(cells=[cell, fig, unrun, good, sized, panel, drawn])
    assert problems(nb) == [
        "cell 0: a figure without a PNG (image/svg+xml, text/plain)",
        "cell 1: a figure without a PNG (text/plain)",
        "cell 1: a figure whose text says only its size",
        "cell 1: draws a figure but shows none (no picture)",
        "cell 2: draws a figure but shows none (not run)",
        "cell 4: a figure whose text says only its size",
        "cell 6: a figure without a PNG (application/vnd.jupyter.widget-view+json, text/html, "
        "text/plain)",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_of_a_committed_notebook_has_a_png(path):
    found = problems(nbformat.read(path, as_version=4))
    assert found == [], (
        f"{path.name} would show these cells without a picture in a fresh clone; execute it "
        "in a kernel with matplotlib's inline backend (not MPLBACKEND=Agg) and commit it:\n  "
        + "\n  ".join(found)
    )
