"""One normalisation table, as data: generic English made regular before the slot reader.

The rules live in ``data/translation/normalize.tsv``, one a line (kind, pattern,
replacement, an example and what the whole table makes of it). They cover what is generic
English, never a phrasing: contractions (*don't*, *won't*, *'ll*, *'ve*), number words
(*three* → ``3``, *twice* → ``2 times``), chat spellings that carry meaning (*u*, *ur*, *b4*,
*dont*), typos of the cue words (*nver*, *befor*, *untill*), quotes, dashes, arrows and
spaces. :func:`normalize` lower-cases the text and applies the rules in order.

Examples
--------
>>> normalize("U can't open [a] more than TWICE b4 ur in [b]!!")
'you cannot open [a] more than 2 times before you are in [b]!'
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..errors import DataFileError
from ..paths import DATA_DIR

__all__ = ["NORMALIZE_TABLE", "NUMBER", "PHRASE_TABLE", "Rule", "load_rules", "normalize",
           "phrases", "read_table"]  # fmt: skip

#: A number, in digits or words, as written before normalisation ("3", "three", "twice").
NUMBER = r"(?:\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|once|twice|thrice)"
#: The normalisation table shipped with safetychip.
NORMALIZE_TABLE = DATA_DIR / "translation" / "normalize.tsv"
#: The phrase classes by which readers decide, by use (:func:`phrases`).
PHRASE_TABLE = DATA_DIR / "translation" / "phrases.tsv"

_KINDS = ("word", "text", "regex")
T = TypeVar("T")


@dataclass(frozen=True)
class Rule:
    """One line (*line*) of the normalisation table: its *kind* (``"word"``, a whole word or
    phrase; ``"text"``, a literal substring; or ``"regex"``), the compiled *pattern*, its
    *replacement*, and an *example* input with what the whole table makes of it (*expected*).

    >>> rule = load_rules()[0]
    >>> rule.kind, rule.apply("don’t")
    ('text', "don't")
    """

    kind: str
    pattern: re.Pattern[str]
    replacement: str
    example: str
    expected: str
    line: int

    def apply(self, text: str) -> str:
        """*text* with every match of the rule replaced."""
        if self.kind == "regex":
            return self.pattern.sub(self.replacement, text)
        return self.pattern.sub(lambda _: self.replacement, text)


def read_table(path: str | os.PathLike[str], what: str, read: Callable[[int, list[str]], T],
               fields: int | None = None) -> list[T]:  # fmt: skip
    """``read(line number, fields)`` of each row of the tab-separated table of *what* at
    *path*, without blank and comment lines: a :class:`~safetychip.errors.DataFileError`
    naming the line if the file cannot be read, a row has not *fields* fields, or *read*
    raises a KeyError (an unknown name), a ValueError or an ``re.error``.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise DataFileError(str(path), f"cannot read the {what}: {err}") from None
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        row = line.split("\t")
        try:
            if fields is not None and len(row) != fields:
                raise ValueError(f"needs {fields} tab-separated fields, has {len(row)}")
            out.append(read(number, row))
        except KeyError as err:
            raise DataFileError(str(path), f"line {number}: no word {err}") from None
        except (ValueError, re.error) as err:
            raise DataFileError(str(path), f"line {number}: {err}") from None
    return out


def _rule(line: int, row: list[str]) -> Rule:
    kind, pattern, replacement, example, expected = row
    if kind not in _KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(_KINDS)}")
    compiled = re.compile(rf"(?<![\w\[']){re.escape(pattern)}(?![\w\]'])" if kind == "word"
                          else re.escape(pattern) if kind == "text" else pattern)  # fmt: skip
    return Rule(kind, compiled, replacement, example, expected, line)


@functools.lru_cache(maxsize=4)
def load_rules(path: str | os.PathLike[str] = NORMALIZE_TABLE) -> tuple[Rule, ...]:
    """The rules of a normalisation table, in order (a DataFileError naming the line if one
    has not five fields, an unknown kind or a regular expression that does not compile).

    >>> len(load_rules()) > 50
    True
    """
    return tuple(read_table(path, "normalisation table", _rule, 5))


@functools.cache
def phrases(use: str) -> dict[str, str]:
    """The phrase classes of one *use* in :data:`PHRASE_TABLE`: class -> a regular expression
    of its phrases (alternatives).

    >>> "permits" in phrases("permission")
    True
    """
    found: dict[str, list[str]] = {}
    for row in read_table(PHRASE_TABLE, "phrase table", lambda _, row: row, 3):
        if row[0] == use:
            found.setdefault(row[1], []).append(re.compile(row[2]).pattern)
    return {name: "|".join(alternatives) for name, alternatives in found.items()}


@functools.lru_cache(maxsize=4096)
def normalize(text: str) -> str:
    """*text* lower-cased, with every rule of the normalisation table applied in order.

    >>> normalize("Once you've opened [a], DON'T touch [b] thrice")
    'once you have opened [a], do not touch [b] 3 times'
    >>> normalize("nver go 2 [a] untill u r done")
    'never go 2 [a] until you are done'
    """
    text = text.lower()
    for rule in load_rules():
        text = rule.apply(text)
    return text
