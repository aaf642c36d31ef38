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

from ..ltl import Formula, Not, ap
from ..paths import DATA_DIR
from ._normalize import read_table

__all__ = ["CLAUSE_TABLE", "Clause", "Lexicon", "load_lexicon", "read_clause", "verb_forms"]

#: The clause lexicon shipped with safetychip.
CLAUSE_TABLE = DATA_DIR / "translation" / "clauses.tsv"

_KINDS = ("verb", "word", "clause", "lead", "trail")
_BUILDS = ("pos", "neg", "avoid", "left", "bare")


@dataclass(frozen=True)
class Clause:
    """One clause read as a *literal* (an atom or a negated atom) over the placeholders it
    mentions (*letters*); the literal is None for a bare placeholder (``[a]`` alone, its
    predicate from a neighbouring clause: ``go to [a] before [b]``). *avoid*: the clause
    itself says "never" (``stay out of [a]``, ``keep [a] shut``); *left*: the literal is how
    a thing is left (``leave [a] open``)."""

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
    """The clause lexicon of a table (default: the one shipped); a DataFileError naming the
    line if a row has not three fields, an unknown kind, build or name, or a pattern that does
    not compile."""
    irregular: dict[str, str] = {}
    words: dict[str, str] = {}
    clauses: list[tuple[re.Pattern[str], str, str]] = []
    edges: dict[str, list[str]] = {"lead": [], "trail": []}

    def verbs(m: re.Match[str]) -> str:
        forms = {f for v in m.group(1).split() for f in verb_forms(v, irregular)}
        return "(?:" + "|".join(sorted(forms, key=lambda f: (-len(f), f))) + ")"

    def read(_: int, row: list[str]) -> None:
        kind, name, text = row
        if kind not in _KINDS:
            raise ValueError(f"kind {kind!r} is not one of {', '.join(_KINDS)}")
        text = re.sub(r"\{([A-Z]+)\}", lambda m: words[m.group(1)], text)
        text = re.sub(r"(?<![?P])<([a-z][a-z ]*)>", verbs, text)
        if kind in ("verb", "word"):
            (irregular if kind == "verb" else words)[name] = text
        elif kind == "clause":
            build, predicate = name.split()
            if build not in _BUILDS:
                raise ValueError(f"build {build!r} is not one of {', '.join(_BUILDS)}")
            clauses.append((re.compile(text), build, predicate))
        else:
            edges[kind].append(re.compile(text).pattern)

    read_table(path, "clause lexicon", read, 3)
    return Lexicon(tuple(clauses), re.compile(rf"^(?:{'|'.join(edges['lead'])})\s+"),
                   re.compile(rf"\s*,?\s+(?:{'|'.join(edges['trail'])})$"))  # fmt: skip


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
