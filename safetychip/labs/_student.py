r"""Student versions of lab notebooks, written from the instructor's source.

A lab notebook is written once, with its solutions. Cells tagged ``solution`` (cell metadata
``tags``) hold the answers: in the student version each such code cell keeps its leading
comments and every top-level assignment with its value replaced by ``...`` (the placeholder
the checkers report as *not attempted*); a ``solution`` markdown cell and any cell tagged
``instructor`` are dropped. Every other cell (the exercise, its check) is kept as it is.
Outputs, execution counts and execution timings are cleared.

Examples
--------
>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_code_cell("# Hint: use W\nanswer_1 = 'a W b'  # weak until",
...                               metadata={"tags": ["solution"]}),
...     nbformat.v4.new_code_cell("lab.formula('1', answer_1, 'a W b')")])
>>> [c.source for c in student_version(nb).cells]
['# Hint: use W\nanswer_1 = ...  # your answer', "lab.formula('1', answer_1, 'a W b')"]
"""

from __future__ import annotations

import ast
import copy
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._io import atomic_write_text, read_json, read_text
from ..errors import MissingDependencyError

if TYPE_CHECKING:
    from nbformat import NotebookNode

__all__ = ["SOLUTION", "INSTRUCTOR", "student_version", "write_student_version"]

#: The tag of a solution cell, and of a cell only the instructor's version shows.
SOLUTION, INSTRUCTOR = "solution", "instructor"


def _placeholder(source: str, where: str) -> str:
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        raise ValueError(f"{where}: a solution cell must be Python: {err}") from None
    lines = source.splitlines()
    first = tree.body[0].lineno - 1 if tree.body else len(lines)
    out = [line for line in lines[:first] if line.strip().startswith("#")]
    targets = [
        ast.get_source_segment(source, t) or ""
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
    ]
    if not targets:
        raise ValueError(f"{where}: a solution cell must assign the answer (answer_1 = ...)")
    out += [f"{t} = ...  # your answer" for t in targets]
    return "\n".join(out)


def _nbformat() -> Any:
    try:
        import nbformat
    except ImportError:
        raise MissingDependencyError(
            "student versions need nbformat: pip install 'safetychip[notebooks]'"
        ) from None
    return nbformat


def student_version(notebook: NotebookNode) -> NotebookNode:
    """The student version of an instructor's lab *notebook* (a new notebook).

    Raises
    ------
    ValueError
        If a solution code cell is not Python or assigns nothing.
    """
    out = copy.deepcopy(notebook)
    cells = []
    for i, cell in enumerate(out.cells):
        tags = cell.get("metadata", {}).get("tags", [])
        if INSTRUCTOR in tags or (SOLUTION in tags and cell.cell_type != "code"):
            continue
        if cell.cell_type == "code":
            if SOLUTION in tags:
                cell.source = _placeholder(cell.source, f"cell {i}")
                cell.metadata["tags"] = [t for t in tags if t != SOLUTION] + ["answer"]
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)  # the instructor run's timings
        cells.append(cell)
    out.cells = cells
    return out


def write_student_version(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> Path:
    """Read the instructor's notebook *source*, write its student version to *target*
    (atomically) and return *target*'s path.

    *target* is never the instructor's notebook: a *target* that is *source* itself, or a
    notebook holding solution cells (the arguments swapped, say), is refused and left as it
    was.

    Raises
    ------
    OSError
        If *source* cannot be read or *target* written.
    ValueError
        If *source* is not a notebook, a solution cell is malformed, or *target* is
        *source* or holds solutions.
    """
    nb = _read_notebook(source)
    if Path(target).exists():
        if os.path.samefile(source, target):
            raise ValueError(f"{target}: is the instructor's notebook {source} itself; refusing "
                             "to overwrite it: pass another destination")  # fmt: skip
        solutions = _solutions(target)
        if solutions:
            raise ValueError(f"{target}: holds {solutions} solution cells (an instructor's "
                             "notebook); refusing to overwrite it: pass another "
                             "destination")  # fmt: skip
    text = _nbformat().writes(student_version(nb))
    return atomic_write_text(target, text if text.endswith("\n") else text + "\n")


def _read_notebook(path: str | os.PathLike[str]) -> NotebookNode:
    """The notebook of the file *path* as version 4, validated.

    Raises
    ------
    ValueError
        If the file is not UTF-8, not JSON, nested too deeply or not a notebook; the
        message names the file.
    """
    nbformat = _nbformat()
    text = read_text(path)
    # First the guarded reader: nbformat's parser would recurse too deep on nested JSON.
    read_json(text, "", lambda message: ValueError(f"{path}: not a Jupyter notebook ({message})"))
    try:
        nb = nbformat.reads(text, as_version=4)
        nbformat.validate(nb)
    except (nbformat.reader.NotJSONError, nbformat.ValidationError, KeyError, TypeError,
            AttributeError) as err:  # fmt: skip
        raise ValueError(f"{path}: not a Jupyter notebook ({err})") from None
    return nb


def _solutions(path: str | os.PathLike[str]) -> int:
    """How many solution cells the existing file *path* holds (0 if it is no notebook)."""
    try:
        nb = _read_notebook(path)
    except ValueError:
        return 0
    return sum(SOLUTION in c.get("metadata", {}).get("tags", []) for c in nb.cells)
