"""The committed notebooks' outputs as a student sees them (issue 42), read statically: no output
is taller than about one and a half screens, no cell shows an error it does not mean to, nor a
picture twice, and no cell writes into ``figures/`` (``make reproduce`` alone does).

Heights are measured in a browser (``tests/test_browser.py``, ``TALL_PX``); here lines stand in
for them: the lines of a text output, the lines of Markdown and the rows of an HTML table left
outside ``<details>`` (a folded block counts as the one line of its summary). An error output is
allowed only in a cell tagged ``raises-exception``, and an error of the library's tree shows as
its short message (``%load_ext safetychip``), never as a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from safetychip import errors

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").rglob("*.ipynb"))
#: About 1,500 px of text at JupyterLab's 17-20 px a line.
MAX_TEXT_LINES = 75
#: Markdown lines and HTML table rows are taller (a table row is 25-40 px; a folded block's
#: summary line about 25 px): 27 folded sections under 17 lines measured 1,737 px.
MAX_MARKDOWN_LINES = 40
OURS = {
    name
    for name in errors.__all__
    if isinstance(getattr(errors, name), type)
    and issubclass(getattr(errors, name), errors.SafetyChipError)
}
# An innermost <details> block (they nest: a folded section holds a table's folded rows).
# A line that writes a file (a figure saved, a file written) into the checkout's figures/.
_WRITES_FIGURES = re.compile(
    r"(\bsave\w*\(|\bsave=|\.write_\w+\(|\bplot_\w+\()"
    r".*(FIGURES_DIR|\bFIGURES\b|[\"']figures[\"'])"
)
_DETAILS = re.compile(r"<details>(?:(?!<details>).)*?</details>", re.DOTALL)


def _unfolded(text: str) -> str:
    """*text* with each ``<details>`` block, nested ones included, as the one line of its
    summary."""
    while True:
        text, found = _DETAILS.subn("(folded)", text)
        if not found:
            return text


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _height(output) -> tuple[str, int, int]:
    """The kind of an output, its lines (or rows) left unfolded, and the most allowed."""
    if output["output_type"] == "stream":
        return "text", _text(output["text"]).count("\n"), MAX_TEXT_LINES
    data = output.get("data", {})
    if "text/markdown" in data:
        shown = _unfolded(_text(data["text/markdown"]))
        return "Markdown", shown.strip().count("\n") + 1, MAX_MARKDOWN_LINES
    if "text/html" in data:
        shown = _unfolded(_text(data["text/html"]))
        return "HTML table", shown.count("<tr"), MAX_MARKDOWN_LINES
    if data.keys() <= {"text/plain"} and "text/plain" in data:
        return "text", _text(data["text/plain"]).count("\n") + 1, MAX_TEXT_LINES
    return "picture", 0, 1


def problems(nb) -> list[str]:
    """Each output of *nb* too tall to read, and each error it should not show."""
    found = []
    for number, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            if _WRITES_FIGURES.search(line) and not line.lstrip().startswith("#"):
                found.append(f"cell {number}: writes into figures/: {line.strip()}")
        pictures = [o["data"]["image/png"] for o in cell.get("outputs", [])
                    if "image/png" in o.get("data", {})]  # fmt: skip
        if len(set(pictures)) < len(pictures):
            found.append(f"cell {number}: a picture shown twice")
        expected = "raises-exception" in cell.get("metadata", {}).get("tags", [])
        for output in cell.get("outputs", []):
            if output["output_type"] == "error":
                ename, shown = output["ename"], "\n".join(output.get("traceback", []))
                if not expected:
                    found.append(f"cell {number}: {ename}: {output['evalue']}")
                elif ename in OURS and (
                    "Traceback (most recent call last)" in shown
                    or "%tb shows the full traceback" not in shown
                ):
                    found.append(f"cell {number}: {ename} shown with a traceback")
                continue
            kind, lines, most = _height(output)
            if lines > most:
                found.append(f"cell {number}: {kind} of {lines} lines (at most {most})")
    return found


def _run(source: str, outputs: list, tags: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    return nbformat.v4.new_code_cell(source, execution_count=1, outputs=outputs,
                                     metadata={"tags": list(tags)} if tags else {})  # fmt: skip


def test_the_check_finds_tall_outputs_and_errors_shown_wrong():
    out = nbformat.v4.new_output
    table = "| a |\n| - |\n" + "| 1 |\n" * 60
    folded = "| a |\n| - |\n| 1 |\n\n<details><summary>more</summary>\n\n" + table + "</details>"
    short = "\x1b[0;31mTraceError\x1b[0m: empty\n(safetychip.errors.TraceError; %tb shows the full traceback)"
    nb = nbformat.v4.new_notebook(cells=[
        _run("print", [out("stream", name="stdout", text="line\n" * 80)]),
        _run("report", [out("execute_result", {"text/markdown": table, "text/plain": "x"},
                            execution_count=1)]),
        _run("folded", [out("execute_result", {"text/markdown": folded, "text/plain": "x"},
                            execution_count=1)]),
        _run("1 / 0", [out("error", ename="ZeroDivisionError", evalue="division by zero",
                           traceback=["Traceback (most recent call last)"])]),
        _run("ours", [out("error", ename="TraceError", evalue="empty", traceback=[short])],
             tags=("raises-exception",)),
        _run("ours, long", [out("error", ename="TraceError", evalue="empty",
                                traceback=["Traceback (most recent call last)", "..."])],
             tags=("raises-exception",)),
        _run('fig = plot_smalltalk(study, FIGURES_DIR / "07_smalltalk_drift.png")\n'
             'fig.savefig(SAVED / "a.png")\n'
             'card.dfa.show().save(ROOT / "figures" / "01_kitchen.svg")', []),
        _run("fig", [out("display_data", {"image/png": "iVBO", "text/plain": "x"}),
                     out("execute_result", {"image/png": "iVBO", "text/plain": "x"},
                         execution_count=1)]),
    ])  # fmt: skip
    assert problems(nb) == [
        "cell 0: text of 80 lines (at most 75)",
        "cell 1: Markdown of 62 lines (at most 40)",
        "cell 3: ZeroDivisionError: division by zero",
        "cell 5: TraceError shown with a traceback",
        'cell 6: writes into figures/: fig = plot_smalltalk(study, FIGURES_DIR / "07_smalltalk_drift.png")',
        'cell 6: writes into figures/: card.dfa.show().save(ROOT / "figures" / "01_kitchen.svg")',
        "cell 7: a picture shown twice",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_a_committed_notebook_reads_well_and_writes_no_figure(path):
    found = problems(nbformat.read(path, as_version=4))
    assert found == [], (
        f"{path.name}: fold a long table (safetychip.Folded) or show a figure, tag a cell that "
        "raises on purpose `raises-exception`, show a picture once, and save figures to a "
        "temporary folder:\n  " + "\n  ".join(found)
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_a_notebook_loads_the_extension_first(path):
    """``%load_ext safetychip`` in the first code cell: the library's errors show short."""
    nb = nbformat.read(path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert "%load_ext safetychip" in first.source.splitlines(), first.source[:200]
