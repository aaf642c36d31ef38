r"""Long Markdown outputs folded: a notebook shows a summary, the detail one click away.

A report of many tables (the translation scores, one table per set of sentences) printed
whole is taller than many screens. :class:`Folded` shows its text up to the first ``##``
heading, with the first *rows* rows of each table, and folds the rest into ``<details>``
blocks: the other rows of a long table under one, each later section under its own heading
(and several sections together under one more, so that folded they take one line).
Nothing is dropped: every row is one click away, and the Markdown stays Markdown (JupyterLab,
GitHub and nbconvert render the tables inside ``<details>``).

Examples
--------
>>> text = "Scores.\n\n| set | n |\n| --- | ---: |\n| a | 1 |\n| b | 2 |\n| c | 3 |\n" \
...        "\n## `a` by pattern\n\n| pattern | n |\n| --- | ---: |\n| never | 1 |\n"
>>> report = Folded(text, rows=2)
>>> report
Folded(2 of 4 table rows shown, 1 section folded)
>>> print(report._repr_markdown_())
Scores.
<BLANKLINE>
| set | n |
| --- | ---: |
| a | 1 |
| b | 2 |
<BLANKLINE>
<details><summary>the other 1 row</summary>
<BLANKLINE>
| set | n |
| --- | ---: |
| c | 3 |
<BLANKLINE>
</details>
<BLANKLINE>
<details><summary><code>a</code> by pattern</summary>
<BLANKLINE>
| pattern | n |
| --- | ---: |
| never | 1 |
<BLANKLINE>
</details>

Two sections or more fold into one line:

>>> many = Folded(text + "\n## `b` by pattern\n\nnone\n")
>>> many
Folded(3 of 4 table rows shown, 2 sections folded)
>>> many._repr_markdown_().split("\n")[8]
'<details><summary>2 sections (the first: <code>a</code> by pattern)</summary>'
"""

from __future__ import annotations

import html
import re

__all__ = ["Folded"]

_CODE = re.compile(r"`([^`]+)`")


def _summary(text: str) -> str:
    """A heading as the HTML of a ``<summary>`` (Markdown is not read there): ``code`` kept."""
    return _CODE.sub(r"<code>\1</code>", html.escape(text.strip(), quote=False))


def _details(summary: str, body: str) -> str:
    return f"<details><summary>{_summary(summary)}</summary>\n\n{body.strip()}\n\n</details>"


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


class Folded:
    r"""Markdown *text* shown folded: its opening part with at most *rows* rows of each table,
    every ``##`` section folded under its heading.

    Parameters
    ----------
    text : str
        Markdown: paragraphs, ``|`` tables, ``##`` headings.
    rows : int, optional
        Rows (below a table's header) shown before the others are folded.

    Examples
    --------
    >>> Folded("| a |\n| - |\n| 1 |\n| 2 |", rows=1).shown_rows
    1
    >>> Folded("text", rows=0)
    Traceback (most recent call last):
    ValueError: rows must be at least 1, not 0
    """

    def __init__(self, text: str, *, rows: int = 12) -> None:
        if rows < 1:
            raise ValueError(f"rows must be at least 1, not {rows}")
        self.text, self.rows = text, rows
        head, *sections = re.split(r"^## ", text, flags=re.MULTILINE)
        #: ``##`` sections, each folded under its heading.
        self.sections = len(sections)
        opening, shown, total = self._fold_tables(head)
        folded = []
        for section in sections:
            heading, _, body = section.partition("\n")
            table, _, rows_in_section = self._fold_tables(body)
            folded.append(_details(heading, table))
            total += rows_in_section
        if len(sections) > 1:
            first = sections[0].partition("\n")[0]
            folded = [
                _details(f"{len(sections)} sections (the first: {first})", "\n\n".join(folded))
            ]
        #: Table rows (below the headers) shown unfolded, and in all.
        self.shown_rows, self.all_rows = shown, total
        parts = [opening.strip(), *folded]
        self._markdown = "\n\n".join(p for p in parts if p) + "\n"

    def _fold_tables(self, text: str) -> tuple[str, int, int]:
        """*text* with each table's rows beyond :attr:`rows` under a ``<details>``; the rows
        left unfolded, and all rows."""
        lines, out, k, shown, total = text.split("\n"), [], 0, 0, 0
        while k < len(lines):
            if not (_is_row(lines[k]) and k + 1 < len(lines) and _is_row(lines[k + 1])):
                out.append(lines[k])
                k += 1
                continue
            end = k
            while end < len(lines) and _is_row(lines[end]):
                end += 1
            header, body = lines[k : k + 2], lines[k + 2 : end]
            out += header + body[: self.rows]
            shown, total = shown + len(body[: self.rows]), total + len(body)
            rest = body[self.rows :]
            if rest:
                many = f"the other {len(rest)} row" + ("s" if len(rest) > 1 else "")
                out += ["", _details(many, "\n".join(header + rest))]
            k = end
        return "\n".join(out), shown, total

    def _repr_markdown_(self) -> str:
        return self._markdown

    def __repr__(self) -> str:
        sections = f"{self.sections} section" + ("s" if self.sections != 1 else "")
        return f"Folded({self.shown_rows} of {self.all_rows} table rows shown, {sections} folded)"
