"""Evaluating a translator on labelled utterances, by language equivalence of formulas.

A translation is correct when its formula accepts exactly the traces the label accepts
(:func:`safetychip.automata.equivalent`), never by comparing strings: ``!b W a`` and
``!(!a U b)`` are the same constraint. A sentence the translator refuses (out of its
grammar, ungroundable, …) counts as wrong and is tallied by error type.

Examples
--------
>>> rows = load_utterances()
>>> len(rows) >= 150, sorted({r["scene"] for r in rows})
(True, ['apartment_1', 'apartment_2', 'spot_demo'])
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._io import load_json_lines
from ..errors import DataFileError, SafetyChipError
from ..ltl import parse, pattern_family
from ..paths import DATA_DIR

__all__ = ["UTTERANCES", "EvaluationResult", "evaluate", "load_utterances"]

#: The labelled utterances shipped with safetychip.
UTTERANCES = DATA_DIR / "translation" / "utterances.jsonl"

_FIELDS = ("scene", "sentence", "formula")


def load_utterances(path: str | os.PathLike[str] = UTTERANCES, *, split: str = "all") -> list[dict]:
    """Read labelled utterances (JSON lines), optionally one *split*: each line needs
    ``sentence``, ``scene`` and ``formula``; ``pattern``, ``id`` (default: the line number),
    ``family`` (default: the pattern's), ``split`` and ``alternatives`` (other formulas a
    careful reader could defend, which :func:`evaluate` also accepts) are optional. A
    :class:`~safetychip.errors.DataFileError` naming the line if the file is missing, a line
    is not JSON, a field is missing or a formula does not parse.
    """
    source = Path(path)
    try:
        lines = list(load_json_lines(source, DataFileError))
    except OSError as err:
        raise DataFileError(str(source), f"cannot read the utterances: {err}") from None
    rows = []
    for number, row in lines:
        if not isinstance(row, dict):
            raise DataFileError(str(source), f"line {number}: not an object {{...}}")
        missing = [f for f in _FIELDS if f not in row]
        if missing:
            raise DataFileError(str(source), f"line {number}: missing {', '.join(missing)}")
        alternatives = row.setdefault("alternatives", [])
        if not isinstance(alternatives, list):
            raise DataFileError(str(source), f"line {number}: alternatives must be a list")
        try:
            for text in (row["formula"], *alternatives):
                parse(text)
        except SafetyChipError as err:
            raise DataFileError(str(source), f"line {number}: {err}") from None
        row.setdefault("id", f"line {number}")
        row.setdefault("pattern", None)
        row.setdefault("family", pattern_family(row["pattern"]) or "other")
        row.setdefault("split", "")
        if split == "all" or row["split"] == split:
            rows.append(row)
    return rows


@dataclass
class EvaluationResult:
    """Per-utterance outcomes of one translator (*translator*, its name), with summaries;
    *stand_in* if any answer came from an offline stand-in (never an LLM result).

    Each row: ``id``, ``scene``, ``pattern``, ``family``, ``split``, ``correct``,
    ``predicted`` (formula text or None), ``alternative`` (right by one of the row's
    ``alternatives``), ``error`` (error type or None), ``message``, ``seconds``; and the
    candidate set: ``candidates`` (each one's ``formula``, ``probability``, ``right`` and
    ``features``; for a refusal, those the readers considered), ``set_size`` (0 for a
    refusal), ``covered`` (the set holds a right formula) and ``settled`` (a set of one
    accepted without a pick, :attr:`~safetychip.translate.Translation.settled`).
    """

    translator: str
    rows: list[dict] = field(default_factory=list)
    stand_in: bool = False

    def _tally(self, key: str, *counts: Callable[[dict], int]) -> Any:
        out: dict[str, list[int]] = {}
        for r in self.rows:
            tally = out.setdefault(r.get(key) or "other", [0] * len(counts))
            for i, count in enumerate(counts):
                tally[i] += count(r)
        return {k: tuple(v) for k, v in sorted(out.items())}

    def _share(self, name: str) -> float:
        return sum(r[name] for r in self.rows) / len(self.rows) if self.rows else 0.0

    @property
    def accuracy(self) -> float:
        """Share of correct translations."""
        return self._share("correct")

    def by(self, key: str) -> dict[str, tuple[int, int]]:
        """(correct, total) per value of *key* (``pattern``, ``family``, ``scene``, ``split``)."""
        return self._tally(key, lambda r: r["correct"], lambda r: 1)

    def outcomes(self, key: str = "pattern") -> dict[str, tuple[int, int, int]]:
        """(right, refused or flagged ambiguous, silently wrong) per value of *key*."""
        return self._tally(key, lambda r: r["correct"],
                           lambda r: not r["correct"] and bool(r["error"]),
                           lambda r: not r["correct"] and not r["error"])  # fmt: skip

    def scores(self) -> str:
        """The three counts overall and per pattern, as a plain-text table."""
        lines = [f"{'pattern':<24} {'n':>4} {'right':>6} {'refused':>8} {'wrong':>6}  accuracy"]
        rows = list(self.outcomes().items())
        total = [sum(v[i] for _, v in rows) for i in range(3)]
        for value, (ok, refused, wrong) in [*rows, *([("all", total)] if self.rows else [])]:
            n = ok + refused + wrong
            lines.append(f"{value:<24} {n:>4} {ok:>6} {refused:>8} {wrong:>6}  {ok / n:7.1%}")
        if by_alternative := sum(r["alternative"] for r in self.rows):
            lines.append(f"of the right, matched by a labelled alternative: {by_alternative}")
        if rest := total[1] + total[2]:
            lines.append(f"of the rest, refused or flagged: {total[1] / rest:.1%}")
        return "\n".join(lines)

    def coverage(self) -> float:
        """Share of utterances whose candidate set holds a right formula."""
        return self._share("covered")

    def mean_set_size(self) -> float:
        """Mean number of candidates per utterance (a refusal counts 0)."""
        return self._share("set_size")

    def silent_singletons(self) -> int:
        """How many utterances got a set of one, accepted without a pick, that is wrong: the
        one outcome a person is not asked about."""
        return sum(r["settled"] and not r["correct"] for r in self.rows)

    def sets(self, key: str = "pattern") -> dict[str, tuple[int, int, int, int]]:
        """(utterances, covered, candidates in all, silently wrong singletons) per *key*."""
        return self._tally(key, lambda r: 1, lambda r: r["covered"], lambda r: r["set_size"],
                           lambda r: r["settled"] and not r["correct"])  # fmt: skip

    def set_scores(self) -> str:
        """Coverage, mean set size and silently wrong singletons overall and per pattern, as a
        plain-text table."""
        lines = [f"{'pattern':<24} {'n':>4} {'covered':>8} {'coverage':>9} {'mean size':>10} "
                 f"{'silent singletons':>18}"]  # fmt: skip
        rows = list(self.sets().items())
        n, covered, size, silent = (sum(v[i] for _, v in rows) for i in range(4))
        for value, (m, c, k, w) in [*rows, ("all", (n, covered, size, silent))]:
            if m:
                lines.append(f"{value:<24} {m:>4} {c:>8} {c / m:9.1%} {k / m:10.2f} {w:>18}")
        return "\n".join(lines)

    def markdown(self) -> str:
        """Per pattern and in all: the first candidate's right / refused or flagged / wrong
        and the candidate sets' coverage, mean size and silently wrong singletons, as one
        Markdown table (a notebook shows it with ``IPython.display.Markdown``).

        >>> r = EvaluationResult("t", [{"pattern": "never", "correct": True, "error": None,
        ...                             "covered": True, "set_size": 1, "settled": True}])
        >>> print(r.markdown().splitlines()[-1])
        | all | 1 | 1 | 0 | 0 | 100.0% | 1.00 | 0 |
        """
        sets = self.sets()
        rows: list[tuple[str, list[int]]] = [
            (p, [*counts, *sets[p]]) for p, counts in self.outcomes().items()
        ]
        if rows:
            rows.append(("all", [sum(r[i] for _, r in rows) for i in range(7)]))
        lines = ["| pattern | n | right | refused or flagged | wrong first | coverage | "
                 "mean set size | silently wrong singletons |",
                 "| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
        for p, (ok, refused, wrong, n, covered, size, silent) in rows:
            lines.append(f"| {p} | {n} | {ok} | {refused} | {wrong} | {covered / n:.1%} | "
                         f"{size / n:.2f} | {silent} |")  # fmt: skip
        return "\n".join(lines)

    def errors(self) -> dict[str, int]:
        """How many utterances failed with each error type."""
        return {k: v[0] for k, v in self._tally("error", lambda r: 1).items() if k != "other"}

    def median_ms(self) -> float:
        """Median translation time per utterance, in milliseconds."""
        return statistics.median(r["seconds"] for r in self.rows) * 1000 if self.rows else 0.0

    def table(self) -> str:
        """A plain-text table: accuracy per pattern, per family, and overall."""
        stand_in = "  [offline stand-in, not a language model]" if self.stand_in else ""
        lines = [f"translator: {self.translator}{stand_in}"]
        for key in ("pattern", "family", "split", "scene"):
            lines.append(f"  {key:<22} correct / total   accuracy")
            for value, (ok, n) in self.by(key).items():
                lines.append(f"    {value:<20} {ok:>7} / {n:<5}   {ok / n:6.1%}")
        ok = sum(r["correct"] for r in self.rows)
        lines.append(f"  {'all':<22} {ok:>7} / {len(self.rows):<5}   {self.accuracy:6.1%}")
        errors = ", ".join(f"{k} {v}" for k, v in self.errors().items()) or "none"
        lines.append(f"  refusals by error: {errors}")
        lines.append(f"  median time per utterance: {self.median_ms():.1f} ms")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """JSON-ready summary (and the rows)."""
        by = {f"by_{key}": {k: {"correct": a, "total": b} for k, (a, b) in self.by(key).items()}
              for key in ("pattern", "family", "split")}  # fmt: skip
        return {
            "translator": self.translator, "stand_in": self.stand_in,
            "accuracy": self.accuracy, "total": len(self.rows), **by, "errors": self.errors(),
            "outcomes": {k: {"right": a, "refused_or_flagged": b, "silently_wrong": c}
                         for k, (a, b, c) in self.outcomes().items()},
            "median_ms": self.median_ms(), "coverage": self.coverage(),
            "mean_set_size": self.mean_set_size(), "silent_singletons": self.silent_singletons(),
            "sets": {k: {"total": a, "covered": b, "candidates": c, "silent_singletons": d}
                     for k, (a, b, c, d) in self.sets().items()},
            "rows": self.rows,
        }  # fmt: skip


def evaluate(make_translator: Callable[[str], object], rows: Iterable[dict] | None = None, *,
             name: str = "", progress: bool = False) -> EvaluationResult:  # fmt: skip
    """Translate every utterance of *rows* (default: :func:`load_utterances`) and grade it by
    language equivalence with its label or one of the label's ``alternatives``.
    ``make_translator(scene)`` returns a translator (``translator(sentence)`` returns a
    :class:`~safetychip.translate.Translation`), called once per scene; *name* names it in
    the report; *progress* shows a progress bar.
    """
    from ..automata import equivalent

    rows = list(load_utterances() if rows is None else rows)
    translators: dict[str, object] = {}
    result = EvaluationResult(name)
    iterator: Iterable[dict] = rows
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(rows, desc="utterances")
    for scene in dict.fromkeys(row["scene"] for row in rows):
        translators[scene] = make_translator(scene)
        prepare = getattr(translators[scene], "prepare", None)
        if prepare is not None:  # embed the queries in one batch
            prepare([row["sentence"] for row in rows if row["scene"] == scene])
    for row in iterator:
        labels = [parse(row["formula"]), *(parse(text) for text in row.get("alternatives", ()))]

        def right(formula: object, labels: list = labels) -> tuple[bool, bool]:
            """Whether *formula* is right, and whether only by an alternative."""
            k = next((k for k, x in enumerate(labels) if equivalent(formula, x)), None)  # type: ignore[arg-type]
            return k is not None, bool(k)

        predicted, error, message, correct, alternative, via = None, None, "", False, False, None
        settled, found, considered = False, (), ()  # type: tuple[bool, Any, Any]
        start = time.perf_counter()
        try:
            translation = translators[row["scene"]](row["sentence"])  # type: ignore[operator]
            seconds = time.perf_counter() - start
            predicted, via = str(translation.formula), getattr(translation, "translator", None)
            correct, alternative = right(translation.formula)
            settled = bool(getattr(translation, "settled", False))
            found = getattr(translation, "candidates", ())
            result.stand_in = result.stand_in or bool(getattr(translation, "stand_in", False))
            result.translator = result.translator or getattr(translation, "translator", "")
        except SafetyChipError as err:
            seconds = time.perf_counter() - start
            error, message = type(err).__name__, str(err)
            considered = getattr(err, "considered", ())
        candidates = [{"formula": str(c.formula), "probability": c.probability,
                       "right": right(c.formula)[0], "features": dict(c.features)}
                      for c in (found or considered)]  # fmt: skip
        result.rows.append({
            "id": row.get("id", ""), "scene": row["scene"], "pattern": row.get("pattern"),
            "family": row.get("family") or pattern_family(row.get("pattern")) or "other",
            "translator": via, "split": row.get("split", ""), "sentence": row["sentence"],
            "label": row["formula"], "predicted": predicted, "correct": bool(correct),
            "alternative": alternative, "error": error, "message": message, "seconds": seconds,
            "candidates": candidates, "set_size": 0 if error else len(found),
            "covered": not error and any(c["right"] for c in candidates), "settled": settled,
        })  # fmt: skip
    return result
