"""``safetychip labs``: course labs; ``labs student SRC DST`` writes a lab's student version.

Registered in :data:`safetychip.cli.COMMAND_MODULES`; nbformat is imported in ``run``.

Examples
--------
>>> import os, tempfile, nbformat
>>> from safetychip.cli import main
>>> d = tempfile.mkdtemp()
>>> src, dst = os.path.join(d, "lab.ipynb"), os.path.join(d, "lab_student.ipynb")
>>> nb = nbformat.v4.new_notebook(cells=[
...     nbformat.v4.new_code_cell("answer_1 = 'G !a'", metadata={"tags": ["solution"]})])
>>> nbformat.write(nb, src)
>>> main(["labs", "student", src, dst])  # doctest: +ELLIPSIS
{"solutions": 1, "source": "...lab.ipynb", "student": "...lab_student.ipynb"}
0
>>> nbformat.read(dst, as_version=4).cells[0].source
'answer_1 = ...  # your answer'
"""

from __future__ import annotations

import argparse
import json
import sys

from ._common import EXIT_OK, Command

__all__ = ["COMMANDS"]


def _configure(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    student = sub.add_parser(
        "student",
        help="write the student version of an instructor's lab notebook",
        description="Copy SRC to DST with every cell tagged 'solution' replaced by its\n"
        "placeholder (answer_1 = ...) and every cell tagged 'instructor' dropped; outputs\n"
        "are cleared. DST is written atomically.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    student.add_argument("source", metavar="SRC", help="the instructor's notebook")
    student.add_argument("target", metavar="DST", help="where to write the student notebook")


def _run(args: argparse.Namespace) -> int:
    import nbformat

    from ..labs import SOLUTION, write_student_version

    path = write_student_version(args.source, args.target)
    source = nbformat.read(args.source, as_version=4)
    solutions = sum(SOLUTION in c.get("metadata", {}).get("tags", []) for c in source.cells)
    out = {"solutions": solutions, "source": str(args.source), "student": str(path)}
    sys.stdout.write(json.dumps(out, sort_keys=True) + "\n")
    return EXIT_OK


COMMANDS = (
    Command(
        "labs",
        "course labs: write a lab notebook's student version",
        _configure,
        _run,
        epilog="example:\n  safetychip labs student notebooks/labs/instructor/01_ltl_basics.ipynb "
        "notebooks/labs/01_ltl_basics.ipynb\n\nexit status: 0 written; 2 bad input "
        "(unreadable file, not a notebook, a malformed solution cell)",
    ),
)
