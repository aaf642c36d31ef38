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
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataFileError
from ..paths import DATA_DIR

__all__ = ["NORMALIZE_TABLE", "NUMBER", "Rule", "load_rules", "normalize"]

#: A number, in digits or words, as written before normalisation ("3", "three", "twice").
NUMBER = r"(?:\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|once|twice|thrice)"
#: The normalisation table shipped with safetychip.
NORMALIZE_TABLE = DATA_DIR / "translation" / "normalize.tsv"

_KINDS = ("word", "text", "regex")


@dataclass(frozen=True)
class Rule:
    """One line of the normalisation table.

    Attributes
    ----------
    kind : str
        ``"word"`` (a whole word or phrase), ``"text"`` (a literal substring) or ``"regex"``.
    pattern : re.Pattern
        What the rule finds, compiled.
    replacement : str
        What it puts instead.
    example, expected : str
        An input the rule is for, and :func:`normalize` of it (the whole table applied).
    line : int
        Its line in the file.

    Examples
    --------
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


def _compile(kind: str, pattern: str) -> re.Pattern[str]:
    if kind == "word":
        return re.compile(rf"(?<![\w\[']){re.escape(pattern)}(?![\w\]'])")
    if kind == "text":
        return re.compile(re.escape(pattern))
    return re.compile(pattern)


@functools.lru_cache(maxsize=4)
def load_rules(path: str | os.PathLike[str] = NORMALIZE_TABLE) -> tuple[Rule, ...]:
    """The rules of a normalisation table, in order.

    Raises
    ------
    DataFileError
        If the file cannot be read, a line has not five tab-separated fields, its kind is
        unknown or its regular expression does not compile; the message names the line.

    Examples
    --------
    >>> len(load_rules()) > 50
    True
    """
    source = Path(path)
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise DataFileError(str(source), f"cannot read the normalisation table: {err}") from None
    rules = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5:
            raise DataFileError(
                str(source), f"line {number}: needs 5 tab-separated fields, has {len(fields)}"
            )
        kind, pattern, replacement, example, expected = fields
        if kind not in _KINDS:
            raise DataFileError(
                str(source), f"line {number}: kind {kind!r} is not one of {', '.join(_KINDS)}"
            )
        try:
            compiled = _compile(kind, pattern)
        except re.error as err:
            raise DataFileError(str(source), f"line {number}: {err}") from None
        rules.append(Rule(kind, compiled, replacement, example, expected, number))
    return tuple(rules)


@functools.lru_cache(maxsize=4096)
def normalize(text: str) -> str:
    """*text* lower-cased, with every rule of the normalisation table applied in order.

    Examples
    --------
    >>> normalize("Once you've opened [a], DON'T touch [b] thrice")
    'once you have opened [a], do not touch [b] 3 times'
    >>> normalize("nver go 2 [a] untill u r done")
    'never go 2 [a] until you are done'
    """
    text = text.lower()
    for rule in load_rules():
        text = rule.apply(text)
    return text
