"""The retrieval translator: a lifted sentence read by its nearest paraphrase templates.

:class:`RetrievalTranslator` embeds the lifted sentence with all-MiniLM-L6-v2 and lets its
nearest templates of ``data/translation/templates.jsonl`` (lifted paraphrases with their lifted
formulas, written by us with ``make_templates.py``) and examples of
``data/translation/examples.jsonl`` (the labelled sentences by other hands that are development
data, lifted by ``make_examples.py``) vote, each with weight ``exp((score - best) /
temperature)``, where a template's score is its cosine similarity plus a small bonus per cue
word class it shares with the sentence (:func:`cues`); only templates over the same
placeholders take part. A template votes for its formula's *shape*, with each placeholder's
literal taken from the sentence's own clause where the clause lexicon reads one
(:func:`clause_literals`). Counts ("twice") and step bounds ("within 3 steps") are read from
the sentence itself (:func:`~safetychip.translate._slots.modifiers`), never from the template.
A prohibition is never read into a sentence that forbids nothing. :meth:`candidates` gives
the most voted readings, with their vote share and similarity, to the candidate set.

Examples
--------
>>> RetrievalTranslator(embedder=None).candidates("Kindly keep yourself well away from [a].")
()
"""

from __future__ import annotations

import collections
import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._io import atomic_write_text
from ..errors import DataFileError
from ..llm import Embedder
from ..ltl import Formula, Not, ap, build_pattern, parse
from ..paths import DATA_DIR
from ._assemble import misused_room, placed_at_thing
from ._clauses import read_clause
from ._normalize import normalize, phrases
from ._reading import PLACEHOLDER, LiftedTranslation, no_double_negation, substitute
from ._slots import Mods, modifiers

__all__ = ["CUES", "EXAMPLES", "TEMPLATES", "Reading", "RetrievalTranslator",
           "clause_literals", "cues", "write_library"]  # fmt: skip

#: The lifted paraphrase templates (JSON lines: text, formula, pattern).
TEMPLATES = DATA_DIR / "translation" / "templates.jsonl"
#: Sentences by other hands from the development sets, lifted, with their lifted labels
#: (JSON lines as the templates, plus ``set`` and ``id``; written by ``make_examples.py``).
EXAMPLES = DATA_DIR / "translation" / "examples.jsonl"


@dataclass(frozen=True)
class Reading:
    """One candidate reading of a lifted sentence: the lifted *formula* and its *pattern*,
    its *share* of the neighbours' votes, the score of its nearest template (*example*):
    cosine *similarity* plus the cue agreement, and the share of the sentence's placeholders
    whose own clause the clause lexicon did not read (*unread*: their literal then comes from
    the template, "never drink [a]")."""

    formula: Formula
    pattern: str
    share: float
    similarity: float
    example: str
    unread: float = 0.0

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"formula": str(self.formula), "pattern": self.pattern,
                "share": round(self.share, 3), "similarity": round(self.similarity, 3),
                "example": self.example, "unread": round(self.unread, 3)}  # fmt: skip


def _skeleton(formula: Formula, roles: dict[str, str]) -> Formula:
    """*formula* with each placeholder's literal replaced by an atom ``_x`` (so that "never
    open [a]" and "never enter [a]" share the skeleton ``G!_a``)."""
    literals = {x: parse(lit) for x, lit in roles.items()}

    def abstract(atom: Formula) -> Formula:
        for x, lit in literals.items():
            if lit is atom:
                return ap(f"_{x}")
            if lit.op == "!" and lit.children[0] is atom:
                return Not(ap(f"_{x}"))
        return atom

    return no_double_negation(substitute(formula, abstract)) if roles else formula


def _fill(skeleton: Formula, literals: dict[str, Formula]) -> Formula:
    """The skeleton with each ``_x`` replaced by the literal of placeholder x."""

    def concrete(atom: Formula) -> Formula:
        name = atom.name or ""
        return literals.get(name[1:], atom) if name.startswith("_") else atom

    return no_double_negation(substitute(skeleton, concrete))


def clause_literals(lifted: str) -> dict[str, Formula]:
    """The literal of each placeholder's own clause, where the clause lexicon reads one around
    it ("pick up [a]", "[b] is open", "you are in [c]"): the longest run of words about it
    alone, within its clause.

    >>> {x: str(f) for x, f in clause_literals("kindly pick up [a] while [b] is open").items()}
    {'a': '"is_grabbed(a)"', 'b': '"is_open(b)"'}
    >>> {x: str(f) for x, f in clause_literals("stay [a] until [b] off").items()}
    {'b': '!"is_switchedon(b)"'}
    """
    words = re.findall(r"\[[a-z]\]|[^\s,.;:!?]+|[,.;:!?]", normalize(lifted))
    windows = sorted(((n, k) for n in range(5) for k in range(4) if n or k), key=lambda w: -sum(w))
    out: dict[str, Formula] = {}
    for i, word in enumerate(words):
        m = re.fullmatch(r"\[([a-z])\]", word)
        if m is None or m.group(1) in out:
            continue
        x = m.group(1)
        for n, k in windows:
            window = words[max(0, i - n) : i + k + 1]
            if i - n < 0 or i + k >= len(words) or any(w in ",.;:!?" for w in window):
                continue  # a clause ends at a punctuation mark
            if i + k + 1 < len(words) and words[i + k + 1] == "alone":
                continue  # "leave [a] alone" is no leaving of a place
            clause = read_clause(" ".join(window))
            literal = clause.literal if clause is not None else None
            atom = literal.children[0] if literal is not None and literal.op == "!" else literal
            if atom is not None and (atom.name or "").endswith(f"({x})"):
                out[x] = literal  # type: ignore[assignment]
                break
        state, after = ([*words[i + 1 : i + 3], ".", "."])[:2]
        if x not in out and state in ("on", "off", "open", "closed", "shut") and (
                after in ",.;:!?" or after in ("then", "and", "before", "again")):  # fmt: skip
            # "until [b] on": a state, its verb left out
            clause = read_clause(f"[{x}] is {state}")
            if clause is not None and clause.literal is not None:
                out[x] = clause.literal
    return out


#: The cue classes (``phrases.tsv``, use ``retrieval``): words that decide between readings an
#: embedding finds alike ("at most" and "at least"); a template sharing them ranks higher.
CUES = {name: re.compile(rf"\b(?:{p})\b") for name, p in phrases("retrieval").items()}
# "don't forget to" asks for something; "in any order" orders nothing.
_ASKS = re.compile(r"\b(?:do not|never) (?:forget|skip|miss|neglect|fail)\b")
_ANY_ORDER = re.compile(r"\b(?:in )?(?:any|whatever|whichever|either|no particular) order\b|"
                        r"\border (?:does not matter|is not important|is up to you)\b")  # fmt: skip

# Readings that forbid something need a sentence that restricts; movement needs one that
# does not forbid.
_PROHIBITIONS = frozenset({"never", "avoid_while", "avoid_unless", "absence_after", "not_before"})
_MISSIONS_ONLY = frozenset({"visit", "sequenced_visit", "ordered_visit", "patrolling"})
_RESTRICTIVE = re.compile(
    r"\b(?:only|unlocks?|no longer|no more|off the table|no-go|banned|forbidden|prohibited|"
    r"not allowed|refrain|hands off|(?:keep|steer|stay)(?: \w+)? (?:clear|away|out))\b"
)
_COUNTS = frozenset({"at_most", "at_least", "exactly"})


def cues(text: str) -> frozenset[str]:
    """The cue classes of *text* (negation, count bounds, order, timing, state…).

    >>> sorted(cues("never go to [a] more than twice"))
    ['count', 'negation', 'upper']
    >>> "order" in cues("visit [a] and [b] in any order")
    False
    >>> "negation" in cues("just don't skip [a]")
    False
    """
    t = _ANY_ORDER.sub("", _ASKS.sub("remember", normalize(text)))
    return frozenset(name for name, pattern in CUES.items() if pattern.search(t))


def _text(lifted: str) -> str:
    return " ".join(lifted.lower().replace("’", "'").split()).rstrip(".!?;: ")


def _with_counts(pattern: str, formula: Formula, literals: dict[str, Formula], mods: Mods,
                 negative: bool) -> Formula | None:  # fmt: skip
    """*formula* rebuilt with the count or step bound of the sentence's modifier slots *mods*
    (None if they say none).

    >>> a = parse("agent_at(a)")
    >>> mods = modifiers("visit [a] more than once")
    >>> str(_with_counts("at_least", a, {"a": a}, mods, False))
    'F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))'
    """
    if pattern in _COUNTS:
        if not mods.count or len(literals) != 1:
            return None
        # "never more than twice" (at least 3): at most 2
        n = mods.n - (negative and pattern == "at_most" and mods.count in ("at_least", "exactly"))
        if n < 0 or (n == 0 and pattern != "at_most"):
            return None
        return no_double_negation(build_pattern(pattern, n, *literals.values()))
    if pattern == "bounded_delay":
        if not mods.steps or formula.op != "G" or formula.children[0].op != "->":
            return None
        p, q = formula.children[0].children  # G(p -> (q | X[!](q | …)))
        while q.op == "|":
            q = next(k for k in q.children if k.op != "X[!]")
        return no_double_negation(build_pattern(pattern, mods.steps, p, q))
    return formula


class RetrievalTranslator:
    """Read a lifted sentence by voting among its *k* nearest paraphrase templates.

    The sentence encoder *embedder* is created on first use for ``"minilm"`` (None reads
    nothing). Vote weights fall by a factor e for each *temperature* of similarity below the
    best; *cue_weight* is added to a template's similarity for each cue class (:func:`cues`)
    it shares with the sentence, and taken off for each it does not. The *library* holds the
    templates and examples (JSON lines: :data:`TEMPLATES`, written by us, and
    :data:`EXAMPLES`, by other hands; a missing file is a DataFileError); a file's vectors are
    read from the ``.npy`` file beside it when its hash matches (the ``.json`` beside it),
    else embedded at first use. Example sets (a row's ``set``) in *without* are left out, to
    score a set by other hands with none of its own sentences voting.
    """

    name = "offline-retrieval-minilm"

    def __init__(self, embedder: Embedder | str | None = "minilm", *, k: int = 20,
                 temperature: float = 0.1, cue_weight: float = 0.08,
                 library: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (
                     TEMPLATES, EXAMPLES), without: Iterable[str] = ()) -> None:  # fmt: skip
        if isinstance(embedder, str) and embedder != "minilm":
            raise ValueError(f"embedder must be an Embedder, 'minilm' or None, got {embedder!r}")
        self._embedder = embedder
        self.k, self.temperature, self.cue_weight = k, temperature, cue_weight
        paths = [library] if isinstance(library, (str, os.PathLike)) else list(library)
        self.libraries = tuple(Path(p) for p in paths)
        self.without = frozenset(without)
        self.rows = [row for p in self.libraries for row in _load_templates(p)]

    def leaving_out(self, ids: Iterable[str]) -> RetrievalTranslator:
        """The same translator with every example set that holds one of *ids* left out, so
        that a labelled set is scored with none of its own writer's sentences voting.

        >>> r = RetrievalTranslator(embedder=None)
        >>> sorted(r.leaving_out(["fr-001", "not-an-example"]).without)
        ['fresh']
        """
        wanted = set(ids)
        sets = {row["set"] for row in self.rows if row.get("id") in wanted}
        return RetrievalTranslator(self._embedder, k=self.k, temperature=self.temperature,
                                   cue_weight=self.cue_weight, library=self.libraries,
                                   without=self.without | sets)  # fmt: skip

    @property
    def embedder(self) -> Embedder | None:
        """The encoder, created on first access when given as ``"minilm"``."""
        if self._embedder == "minilm":
            from ..llm import MiniLMEmbedder

            self._embedder = MiniLMEmbedder()
        return self._embedder  # type: ignore[return-value]

    def _vectors(self) -> Any:
        """The library's vectors by placeholder letters, without the example sets left out;
        shared by every translator over the same files."""
        key = (tuple((str(p.resolve()), p.stat().st_mtime_ns) for p in self.libraries),
               tuple(sorted(self.without)))  # fmt: skip
        if key not in _VECTORS:
            import numpy as np

            matrix = np.concatenate([self._matrix(p) for p in self.libraries])
            groups: dict[str, list[int]] = {}
            for i, row in enumerate(self.rows):
                if row.get("set") not in self.without:
                    groups.setdefault(row["letters"], []).append(i)
            cue_matrix = np.array([[name in row["cues"] for name in CUES] for row in self.rows],
                                  dtype=np.int8)  # fmt: skip
            _VECTORS[key] = {g: (np.array(ix), matrix[ix], cue_matrix[ix],
                                 cue_matrix[ix].sum(axis=1))
                             for g, ix in groups.items()}  # fmt: skip
        return _VECTORS[key]

    def _matrix(self, path: Path) -> Any:
        """The vectors of one library file's texts (stored, or embedded once)."""
        key = (str(path.resolve()), path.stat().st_mtime_ns)
        if key not in _MATRICES:
            import numpy as np

            texts = [r["text"] for r in _load_templates(path)]
            stored, summary = path.with_suffix(".npy"), path.with_suffix(".json")
            digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()
            matrix = None
            if stored.is_file() and summary.is_file():
                if json.loads(summary.read_text(encoding="utf-8")).get("sha256") == digest:
                    matrix = np.load(stored).astype(np.float32)
            _MATRICES[key] = matrix if matrix is not None else self.embedder.encode(texts)  # type: ignore[union-attr]
        return _MATRICES[key]

    def prefetch(self, lifted: Iterable[str]) -> None:
        """Embed the queries of many *lifted* sentences in one batch (the embedder keeps the
        vectors for :meth:`readings`)."""
        if self.embedder is not None:
            self.embedder.encode(sorted({_text(text) for text in lifted}))

    def readings(self, lifted: str) -> tuple[Reading, ...]:
        """The candidate readings of *lifted*, most votes first (empty without an embedder
        or a template over the same placeholders)."""
        embedder = self.embedder
        if embedder is None:
            return ()
        import numpy as np

        letters = "".join(sorted(set(PLACEHOLDER.findall(lifted))))
        group = self._vectors().get(letters)
        text = _text(lifted)
        if group is None:
            return ()
        rows, vectors, cue_rows, cue_counts = group
        own = clause_literals(lifted)
        found = cues(lifted)
        negative = "negation" in found or bool(_RESTRICTIVE.search(text))
        mods = modifiers(lifted)
        mine = np.array([name in found for name in CUES], dtype=np.int8)
        # shared cues minus cues in one only: 3 * shared - |mine| - |theirs|
        agreement = 3 * (cue_rows @ mine) - int(mine.sum()) - cue_counts
        scores = vectors @ embedder.encode([text])[0] + self.cue_weight * agreement
        k = min(self.k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        best = float(scores[top[0]])
        votes: dict[str, list] = {}
        total = 0.0
        for j in top:
            row, s = self.rows[rows[j]], float(scores[j])
            weight = math.exp((s - best) / self.temperature)
            total += weight
            pattern = row["pattern"]
            if (pattern in _PROHIBITIONS and not negative) or (
                    pattern in _MISSIONS_ONLY and "negation" in found):  # fmt: skip
                continue  # a prohibition from a sentence that forbids nothing, or the reverse
            literals = dict(row["literals"])
            literals.update((x, f) for x, f in own.items() if x in literals)
            formula = _fill(row["skeleton"], literals) if literals else row["parsed"]
            formula = _with_counts(row["pattern"], formula, literals, mods, negative)
            if formula is None:
                continue  # a count pattern, but the sentence says no count
            votes.setdefault(str(formula), [0.0, s, row, formula, pattern])[0] += weight
        unread = 1.0 - len(own) / max(1, len(letters))
        out = [Reading(formula, pattern, weight / total, s, row["text"], unread)
               for weight, s, row, formula, pattern in votes.values()]  # fmt: skip
        return tuple(sorted(out, key=lambda r: -r.share))

    def _usable(self, lifted: str, rooms: frozenset[str], things: frozenset[str]
                ) -> tuple[Reading, ...]:  # fmt: skip
        """:meth:`readings` of *lifted* without those that say more of a room in *rooms* than
        being there, or put the robot at a thing of *things* its clause does not place it at."""
        own = clause_literals(lifted)
        return tuple(r for r in self.readings(lifted) if misused_room(r.formula, rooms) is None
                     and placed_at_thing(r.formula, things, own) is None)  # fmt: skip

    def candidates(self, lifted: str, rooms: Iterable[str] = (), things: Iterable[str] = (),
                   limit: int | None = None
                   ) -> tuple[tuple[LiftedTranslation, float, float, float], ...]:  # fmt: skip
        """The readings of *lifted*, most voted first, at most *limit*, as (lifted
        translation, vote share, similarity, unread): a reading that says more of a room in *rooms*
        than being there (``is_grabbed(a)``), or puts the robot at a thing of *things* its own
        clause does not place it at (:func:`~safetychip.translate._assemble.placed_at_thing`),
        is left out. Empty without an embedder.

        >>> RetrievalTranslator(embedder=None).candidates("Never open [a].")
        ()
        """
        if self.embedder is None:
            return ()
        readings = self._usable(lifted, frozenset(rooms), frozenset(things))
        read = [(r, f"retrieval (like {r.example!r})") for r in readings[:limit]]
        return tuple((LiftedTranslation(r.formula, r.pattern, (), form), r.share, r.similarity,
                      r.unread) for r, form in read)  # fmt: skip


# Loaded libraries and their vectors, by (path, modification time): shared by translators.
_LIBRARIES: dict[tuple[str, int], list[dict]] = {}
_MATRICES: dict[tuple[str, int], Any] = {}
_VECTORS: dict[tuple[Any, ...], dict[str, tuple[Any, Any, Any, Any]]] = {}


def _load_templates(path: Path) -> list[dict]:
    try:
        key = (str(path.resolve()), path.stat().st_mtime_ns)
        lines = path.read_text(encoding="utf-8").splitlines() if key not in _LIBRARIES else []
    except OSError as err:
        raise DataFileError(str(path), f"cannot read the templates: {err}") from None
    if key in _LIBRARIES:
        return _LIBRARIES[key]
    rows = []
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            row["letters"] = "".join(sorted(set(PLACEHOLDER.findall(row["text"]))))
            row.setdefault("roles", {})
            row["cues"] = cues(row["text"])
            row["parsed"] = parse(row["formula"])
            row["literals"] = {x: parse(lit) for x, lit in row["roles"].items()}
            row["skeleton"] = _skeleton(row["parsed"], row["roles"])
        except (json.JSONDecodeError, KeyError, TypeError):
            raise DataFileError(str(path), f"line {number}: not a template") from None
        rows.append(row)
    _LIBRARIES[key] = rows
    return rows


def write_library(rows: Sequence[dict], path: str | os.PathLike[str]) -> dict[str, Any]:
    """Write a retrieval library: *rows* (each with ``text``, ``formula``, ``pattern``, maybe
    ``roles``; other fields are kept) as JSON lines at *path*, their all-MiniLM-L6-v2 vectors
    (float16) in the ``.npy`` file beside it and, in the ``.json`` beside it, the hash that
    ties the vectors to the texts, with counts by pattern (returned)."""
    import numpy as np

    from ..llm import MiniLMEmbedder

    target = Path(path)
    texts = [r["text"] for r in rows]
    vectors = MiniLMEmbedder().encode(texts).astype(np.float16)
    counts = dict(collections.Counter(row["pattern"] for row in rows))
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()
    summary = {"count": len(rows), "sha256": digest, "by_pattern": counts}
    atomic_write_text(target, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    with open(target.with_suffix(".npy"), "wb") as out:
        np.save(out, vectors)
    atomic_write_text(target.with_suffix(".json"), json.dumps(summary, indent=1) + "\n")
    return summary
