"""The committed lab notebooks: each student version is what ``safetychip labs student``
writes from its instructor source (outputs aside), each lab has 8-12 exercises, each with a
solution and a check, and the committed runs show every instructor check passing and every
student exercise *not attempted*. nbval (``pytest --nbval notebooks/labs``) re-runs both
versions and compares these outputs."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from safetychip.labs import INSTRUCTOR, SOLUTION, student_version

LABS = Path(__file__).resolve().parents[1] / "notebooks" / "labs"
SOURCES = sorted((LABS / "instructor").glob("*.ipynb"))


def _text(cell) -> str:
    out = []
    for o in cell.get("outputs", []):
        out.append(o.get("text", "") if o.output_type == "stream" else "")
        out.append(o.get("data", {}).get("text/plain", ""))
    return "".join(out)


def _bare(nb: nbformat.NotebookNode) -> list[tuple[str, str, list[str], str]]:
    return [(c.cell_type, c.source, c.metadata.get("tags", []), c.get("id", "")) for c in nb.cells]


def test_there_are_four_labs_each_with_its_student_version():
    assert [p.name for p in SOURCES] == [
        "01_ltl_basics.ipynb",
        "02_english_to_formulas.ipynb",
        "03_monitoring_and_reprompting.ipynb",
        "04_memory_thresholds.ipynb",
    ]
    assert sorted(p.name for p in LABS.glob("*.ipynb")) == [p.name for p in SOURCES]


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_the_student_version_is_what_the_command_writes(source):
    written = student_version(nbformat.read(source, as_version=4))
    committed = nbformat.read(LABS / source.name, as_version=4)
    assert _bare(committed) == _bare(written)
    assert not any(SOLUTION in tags or INSTRUCTOR in tags for _, _, tags, _ in _bare(committed))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_each_lab_has_8_to_12_exercises_each_with_a_solution_and_a_check(source):
    nb = nbformat.read(source, as_version=4)
    cells = nb.cells
    solutions = [i for i, c in enumerate(cells) if SOLUTION in c.metadata.get("tags", [])]
    assert 8 <= len(solutions) <= 12
    for i in solutions:
        names = re.findall(r"^(answer_\w+)\s*=", cells[i].source, re.M)
        assert names, cells[i].source
        check = next(c for c in cells[i + 1 :] if c.cell_type == "code")
        assert "lab." in check.source and names[0] in check.source
    assert cells[-1].source == "lab.summary()"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_the_committed_runs_pass_in_the_instructor_version_and_wait_in_the_students(source):
    instructor = nbformat.read(source, as_version=4)
    student = nbformat.read(LABS / source.name, as_version=4)
    n = sum(SOLUTION in c.metadata.get("tags", []) for c in instructor.cells)
    for nb in (instructor, student):
        assert all(c.execution_count for c in nb.cells if c.cell_type == "code"), "executed"
        assert not any(o.output_type == "error" for c in nb.cells for o in c.get("outputs", []))
    assert f"{n} of {n} exercises correct, 0 incorrect or invalid, 0 not attempted" in _text(
        instructor.cells[-1]
    )
    assert f"0 of {n} exercises correct, 0 incorrect or invalid, {n} not attempted" in _text(
        student.cells[-1]
    )


def test_the_instructor_guide_names_every_lab():
    guide = (LABS / "README.md").read_text(encoding="utf-8")
    for source in SOURCES:
        assert source.name in guide
    assert "JupyterHub" in guide and "safetychip labs student" in guide
