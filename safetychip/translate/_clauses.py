"""The clause lexicon: one clause about placeholders read as a literal.

The lexicon is data, ``data/translation/clauses.tsv``, one row a line: the irregular verbs,
named pieces of patterns (``{GO}``: the verbs of going; ``<open>``: every form of *open*),
the clause patterns, each with what it says of its placeholders (``pos is_open``: ``[a]`` is
open; ``avoid agent_at``: keep out of ``[a]``), and the words dropped around a clause (``you
must``, ``again``). :func:`read_clause` reads one clause with the first pattern that matches
it whole. To read a new verb or phrasing, add a row.

Examples
--------
>>> read_clause("you have been to [b]").literal
Formula('"agent_at(b)"')
>>> read_clause("[a] must stay closed")
Clause(literal=Formula('"is_open(a)"'), avoid=True, letters=('a',), left=False)
>>> read_clause("putting [a] back on [b] later").literal
Formula('"is_on(a,b)"')
>>> read_clause("juggle [a]") is None
True
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataFileError
from ..ltl import Formula, Not, ap
from ..paths import DATA_DIR

__all__ = ["CLAUSE_TABLE", "Clause", "Lexicon", "load_lexicon", "read_clause", "verb_forms"]

#: The clause lexicon shipped with safetychip.
CLAUSE_TABLE = DATA_DIR / "translation" / "clauses.tsv"

_KINDS = ("verb", "word", "clause", "lead", "trail")
_BUILDS = ("pos", "neg", "avoid", "left", "bare")


@dataclass(frozen=True)
class Clause:
    """One clause read as a literal over a placeholder.

    Attributes
    ----------
    literal : Formula or None
        An atom or a negated atom; None for a bare placeholder (``[a]`` alone), whose
        predicate comes from a neighbouring clause (``go to [a] before [b]``).
    avoid : bool
        True when the clause itself says "never" (``stay out of [a]``, ``keep [a] shut``):
        the literal is what must not happen.
    letters : tuple of str
        The placeholders it mentions.
    left : bool
        True when the literal is how a thing is left (``leave [a] open``).
    """

    literal: Formula | None
    avoid: bool = False
    letters: tuple[str, ...] = ()
    left: bool = False


@dataclass(frozen=True)
class Lexicon:
    """A loaded clause lexicon: (pattern, build, predicate) per clause row, in order, and the
    words dropped before (*lead*) and after (*trail*) a clause."""

    clauses: tuple[tuple[re.Pattern[str], str, str], ...]
    lead: re.Pattern[str]
    trail: re.Pattern[str]


def verb_forms(verb: str, irregular: dict[str, str] | None = None) -> list[str]:
    """The forms of *verb*: from *irregular* (verb -> forms) if there, else made regularly.

    >>> verb_forms("carry"), verb_forms("close")
    (['carry', 'carries', 'carrying', 'carried'], ['close', 'closes', 'closing', 'closed'])
    """
    if irregular and verb in irregular:
        return irregular[verb].split()
    if verb.endswith("e") and not verb.endswith("ee"):
        return [verb, verb + "s", verb[:-1] + "ing", verb + "d"]
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return [verb, verb[:-1] + "ies", verb + "ing", verb[:-1] + "ied"]
    s = verb + ("es" if verb.endswith(("s", "sh", "ch", "x", "z")) else "s")
    return [verb, s, verb + "ing", verb + "ed"]


@functools.lru_cache(maxsize=4)
def load_lexicon(path: str | os.PathLike[str] = CLAUSE_TABLE) -> Lexicon:
    """The clause lexicon of a table (default: the one shipped).

    Raises
    ------
    DataFileError
        If the file cannot be read, or a row has not three tab-separated fields, an unknown
        kind, build or name, or a pattern that does not compile; the message names the line.
    """
    source = Path(path)
    try:
        lines = source.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise DataFileError(str(source), f"cannot read the clause lexicon: {err}") from None
    irregular: dict[str, str] = {}
    words: dict[str, str] = {}
    clauses: list[tuple[re.Pattern[str], str, str]] = []
    lead: list[str] = []
    trail: list[str] = []

    def verbs(m: re.Match[str]) -> str:
        forms = {f for v in m.group(1).split() for f in verb_forms(v, irregular)}
        return "(?:" + "|".join(sorted(forms, key=lambda f: (-len(f), f))) + ")"

    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            kind, name, text = line.split("\t")
            if kind not in _KINDS:
                raise ValueError(f"kind {kind!r} is not one of {', '.join(_KINDS)}")
            text = re.sub(r"\{([A-Z]+)\}", lambda m: words[m.group(1)], text)
            text = re.sub(r"(?<![?P])<([a-z][a-z ]*)>", verbs, text)
            if kind == "verb":
                irregular[name] = text
            elif kind == "word":
                words[name] = text
            elif kind == "clause":
                build, predicate = name.split()
                if build not in _BUILDS:
                    raise ValueError(f"build {build!r} is not one of {', '.join(_BUILDS)}")
                clauses.append((re.compile(text), build, predicate))
            else:
                re.compile(text)
                (lead if kind == "lead" else trail).append(text)
        except KeyError as err:
            raise DataFileError(str(source), f"line {number}: no word {err}") from None
        except (ValueError, re.error) as err:
            raise DataFileError(str(source), f"line {number}: {err}") from None
    return Lexicon(
        tuple(clauses),
        re.compile(rf"^(?:{'|'.join(lead)})\s+"),
        re.compile(rf"\s*,?\s+(?:{'|'.join(trail)})$"),
    )


def read_clause(text: str, lexicon: Lexicon | None = None) -> Clause | None:
    """Read one clause about placeholders, or None.

    Leading subjects, modals and fillers (``you must``, ``make sure you have``) and trailing
    adverbs (``again``, ``later``) are dropped first.
    """
    lexicon = lexicon or load_lexicon()
    text = text.strip(" ,;:")
    while True:
        before = text
        text = lexicon.lead.sub("", text).strip(" ,")
        text = lexicon.trail.sub("", text).strip(" ,")
        if text == before:
            break
    for pattern, build, predicate in lexicon.clauses:
        m = pattern.fullmatch(text)
        if m:
            letters = tuple(g for g in m.groups() if g is not None)
            if build == "bare":
                return Clause(None, False, letters)
            atom = ap(f"{predicate}({','.join(letters)})")
            literal = Not(atom) if build == "neg" else atom
            return Clause(literal, build == "avoid", letters, build == "left")
    return None
