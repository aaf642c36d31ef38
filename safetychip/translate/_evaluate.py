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

from .._io import load_json_lines
from ..errors import DataFileError, SafetyChipError
from ..ltl import parse, pattern_family
from ..paths import DATA_DIR

__all__ = ["UTTERANCES", "EvaluationResult", "evaluate", "load_utterances"]

#: The labelled utterances shipped with safetychip.
UTTERANCES = DATA_DIR / "translation" / "utterances.jsonl"

_FIELDS = ("scene", "sentence", "formula")


def load_utterances(path: str | os.PathLike[str] = UTTERANCES, *, split: str = "all") -> list[dict]:
    """Read labelled utterances (JSON lines), optionally one split.

    Each line needs ``sentence``, ``scene`` and ``formula``; ``pattern``, ``id``, ``family``,
    ``split`` and ``alternatives`` are optional (an ``id`` defaults to the line number, a
    ``family`` to the pattern's; ``alternatives`` lists other formulas a careful reader could
    defend, which :func:`evaluate` also accepts).

    Raises
    ------
    DataFileError
        If the file is missing, a line is not JSON, a field is missing, or a formula does
        not parse; the message names the line.
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
    """Per-utterance outcomes of one translator, with summaries.

    Attributes
    ----------
    translator : str
        Its name.
    rows : list of dict
        Per utterance: ``id``, ``scene``, ``pattern``, ``family``, ``split``, ``correct``,
        ``predicted`` (formula text or None), ``alternative`` (True when the translation
        matched one of the row's ``alternatives`` rather than its formula), ``error`` (error
        type or None), ``message``, ``seconds``; and the candidate set: ``candidates`` (each
        candidate's ``formula``, ``probability``, ``right`` and ``features``; for a refusal,
        the candidates the readers considered), ``set_size`` (0 for a refusal), ``covered``
        (the set holds a right formula) and ``settled`` (a set of one accepted without a
        pick, :attr:`~safetychip.translate.Translation.settled`).
    stand_in : bool
        True if any answer came from an offline stand-in (never an LLM result).
    """

    translator: str
    rows: list[dict] = field(default_factory=list)
    stand_in: bool = False

    @property
    def accuracy(self) -> float:
        """Share of correct translations."""
        return sum(r["correct"] for r in self.rows) / len(self.rows) if self.rows else 0.0

    def by(self, key: str) -> dict[str, tuple[int, int]]:
        """(correct, total) per value of *key* (``pattern``, ``family``, ``scene``, ``split``)."""
        out: dict[str, list[int]] = {}
        for r in self.rows:
            value = r.get(key) or "other"
            tally = out.setdefault(value, [0, 0])
            tally[0] += r["correct"]
            tally[1] += 1
        return {k: (v[0], v[1]) for k, v in sorted(out.items())}

    def outcomes(self, key: str = "pattern") -> dict[str, tuple[int, int, int]]:
        """(right, refused or flagged ambiguous, silently wrong) per value of *key*."""
        out: dict[str, list[int]] = {}
        for r in self.rows:
            tally = out.setdefault(r.get(key) or "other", [0, 0, 0])
            tally[0 if r["correct"] else 1 if r["error"] else 2] += 1
        return {k: (v[0], v[1], v[2]) for k, v in sorted(out.items())}

    def scores(self) -> str:
        """The three counts overall and per pattern, as a plain-text table."""
        lines = [f"{'pattern':<24} {'n':>4} {'right':>6} {'refused':>8} {'wrong':>6}  accuracy"]
        total = [0, 0, 0]
        for value, (ok, refused, wrong) in self.outcomes().items():
            n = ok + refused + wrong
            total = [total[0] + ok, total[1] + refused, total[2] + wrong]
            lines.append(f"{value:<24} {n:>4} {ok:>6} {refused:>8} {wrong:>6}  {ok / n:7.1%}")
        n = sum(total)
        if n:
            lines.append(
                f"{'all':<24} {n:>4} {total[0]:>6} {total[1]:>8} {total[2]:>6}  {total[0] / n:7.1%}"
            )
            by_alternative = sum(r["alternative"] for r in self.rows)
            if by_alternative:
                lines.append(f"of the right, matched by a labelled alternative: {by_alternative}")
            rest = total[1] + total[2]
            if rest:
                lines.append(f"of the rest, refused or flagged: {total[1] / rest:.1%}")
        return "\n".join(lines)

    def coverage(self) -> float:
        """Share of utterances whose candidate set holds a right formula."""
        return sum(r["covered"] for r in self.rows) / len(self.rows) if self.rows else 0.0

    def mean_set_size(self) -> float:
        """Mean number of candidates per utterance (a refusal counts 0)."""
        return statistics.fmean(r["set_size"] for r in self.rows) if self.rows else 0.0

    def silent_singletons(self) -> int:
        """How many utterances got a set of one, accepted without a pick, that is wrong: the
        one outcome a person is not asked about."""
        return sum(r["settled"] and not r["correct"] for r in self.rows)

    def sets(self, key: str = "pattern") -> dict[str, tuple[int, int, int, int]]:
        """(utterances, covered, candidates in all, silently wrong singletons) per value of
        *key*."""
        out: dict[str, list[int]] = {}
        for r in self.rows:
            tally = out.setdefault(r.get(key) or "other", [0, 0, 0, 0])
            tally[0] += 1
            tally[1] += r["covered"]
            tally[2] += r["set_size"]
            tally[3] += r["settled"] and not r["correct"]
        return {k: (v[0], v[1], v[2], v[3]) for k, v in sorted(out.items())}

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

    def errors(self) -> dict[str, int]:
        """How many utterances failed with each error type."""
        out: dict[str, int] = {}
        for r in self.rows:
            if r["error"]:
                out[r["error"]] = out.get(r["error"], 0) + 1
        return dict(sorted(out.items()))

    def median_ms(self) -> float:
        """Median translation time per utterance, in milliseconds."""
        return statistics.median(r["seconds"] for r in self.rows) * 1000 if self.rows else 0.0

    def table(self) -> str:
        """A plain-text table: accuracy per pattern, per family, and overall."""
        lines = [
            f"translator: {self.translator}"
            + ("  [offline stand-in, not a language model]" if self.stand_in else "")
        ]
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
        return {
            "translator": self.translator,
            "stand_in": self.stand_in,
            "accuracy": self.accuracy,
            "total": len(self.rows),
            "by_pattern": {
                k: {"correct": a, "total": b} for k, (a, b) in self.by("pattern").items()
            },
            "by_family": {k: {"correct": a, "total": b} for k, (a, b) in self.by("family").items()},
            "by_split": {k: {"correct": a, "total": b} for k, (a, b) in self.by("split").items()},
            "errors": self.errors(),
            "outcomes": {
                k: {"right": a, "refused_or_flagged": b, "silently_wrong": c}
                for k, (a, b, c) in self.outcomes().items()
            },
            "median_ms": self.median_ms(),
            "coverage": self.coverage(),
            "mean_set_size": self.mean_set_size(),
            "silent_singletons": self.silent_singletons(),
            "sets": {
                k: {"total": a, "covered": b, "candidates": c, "silent_singletons": d}
                for k, (a, b, c, d) in self.sets().items()
            },
            "rows": self.rows,
        }


def evaluate(
    make_translator: Callable[[str], object],
    rows: Iterable[dict] | None = None,
    *,
    name: str = "",
    progress: bool = False,
) -> EvaluationResult:
    """Translate every utterance and grade it by language equivalence with its label or one
    of the label's ``alternatives``.

    Parameters
    ----------
    make_translator : callable
        ``make_translator(scene) -> translator`` where ``translator(sentence)`` returns a
        :class:`~safetychip.translate.Translation`; called once per scene (cache inside).
    rows : iterable of dict, optional
        Utterances (default: :func:`load_utterances`).
    name : str
        The translator's name for the report.
    progress : bool
        Show a progress bar.
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
        scene = row["scene"]
        translate = translators[scene]
        labels = [parse(row["formula"]), *(parse(text) for text in row.get("alternatives", ()))]

        def right(formula: object, labels: list = labels) -> tuple[bool, bool]:
            """Whether *formula* is right, and whether only by an alternative."""
            for k, label in enumerate(labels):
                if equivalent(formula, label):  # type: ignore[arg-type]
                    return True, k > 0
            return False, False

        predicted, error, message, correct, via = None, None, "", False, None
        alternative, settled, found = False, False, ()
        start = time.perf_counter()
        try:
            translation = translate(row["sentence"])  # type: ignore[operator]
            seconds = time.perf_counter() - start
            predicted = str(translation.formula)
            via = getattr(translation, "translator", None)
            correct, alternative = right(translation.formula)
            settled = bool(getattr(translation, "settled", False))
            found = getattr(translation, "candidates", ())
            result.stand_in = result.stand_in or bool(getattr(translation, "stand_in", False))
            if not result.translator:
                result.translator = getattr(translation, "translator", "")
        except SafetyChipError as err:
            seconds = time.perf_counter() - start
            error, message = type(err).__name__, str(err)
            considered = getattr(err, "considered", ())
        candidates = [
            {
                "formula": str(c.formula),
                "probability": c.probability,
                "right": right(c.formula)[0],
                "features": dict(c.features),
            }
            for c in (found or (considered if error else ()))
        ]
        result.rows.append(
            {
                "id": row.get("id", ""),
                "scene": scene,
                "pattern": row.get("pattern"),
                "family": row.get("family") or pattern_family(row.get("pattern")) or "other",
                "translator": via,
                "split": row.get("split", ""),
                "sentence": row["sentence"],
                "label": row["formula"],
                "predicted": predicted,
                "correct": bool(correct),
                "alternative": alternative,
                "error": error,
                "message": message,
                "seconds": seconds,
                "candidates": candidates,
                "set_size": 0 if error else len(found),
                "covered": not error and any(c["right"] for c in candidates),
                "settled": settled,
            }
        )
    return result
