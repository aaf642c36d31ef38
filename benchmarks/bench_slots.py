"""The slot reader against the current offline readers, on every development set with labels.

For each set: (a) the current offline readers (``Translator(vocab, frames=True,
retrieval=False)``), (b) the slot reader behind the same pipeline (``Translator(vocab,
lifted_translator=SlotReader(), frames=False, retrieval=False)``), both graded by
``safetychip.translate.evaluate`` (top-1 right / refused / silently wrong), and (c) the slot
reader's recall: the share of sentences where any of its readings, grounded with the
sentence's placeholders, is language-equivalent to the label or one of its alternatives; with
the mean number of readings and the time per sentence (median / p90 ms).

The sets ``fresh_19`` and ``fresh_20`` are kept out and never read here.

    python benchmarks/bench_slots.py              # every set, no embedder (exact grounding)
    python benchmarks/bench_slots.py --embed      # ground unmatched words with MiniLM
    python benchmarks/bench_slots.py --sets fresh_18 heldout_2 --misses 20
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_translation import task_rows

from safetychip.automata import equivalent
from safetychip.errors import SafetyChipError
from safetychip.experiments import scene_vocabulary
from safetychip.ltl import parse
from safetychip.paths import DATA_DIR
from safetychip.translate import Translator, evaluate, ground_formula, load_utterances
from safetychip.translate._slots import SlotReader

TRANSLATION = DATA_DIR / "translation"
KEPT_OUT = {"fresh_19", "fresh_20"}
uncached = SlotReader._read.__wrapped__


def sets() -> dict[str, Path | None]:
    """Every labelled development set (None: the task suites), fresh_19/fresh_20 left out."""
    found: dict[str, Path | None] = {
        "utterances": TRANSLATION / "utterances.jsonl",
        "paraphrases": TRANSLATION / "paraphrases.jsonl",
    }
    names = ["dev_other", "fresh", "heldout", *(f"fresh_{k}" for k in range(2, 19)), "heldout_2"]
    for name in names:
        path = TRANSLATION / name / "sentences.jsonl"
        if name not in KEPT_OUT and path.is_file():
            found[name] = path
    found["tasks"] = None
    return found


class Recorder:
    """The slot reader, remembering every lifted sentence it was asked about."""

    name = "offline-slots"

    def __init__(self) -> None:
        self.reader = SlotReader()
        self.seen: list[str] = []

    def __call__(self, lifted: str):
        self.seen.append(lifted)
        return self.reader(lifted)


def run(name: str, rows: list[dict], embedder, misses: int) -> dict:
    vocabularies = {}

    def vocabulary(scene: str):
        if scene not in vocabularies:
            vocabularies[scene] = scene_vocabulary(scene)
        return vocabularies[scene]

    old = evaluate(
        lambda s: Translator(vocabulary(s), embedder=embedder, retrieval=False),
        rows,
        name="offline-grammar+frames",
    )
    recorder = Recorder()
    asked: dict[tuple[str, str], tuple[list[str], Translator, dict | None]] = {}

    def slots(scene: str):
        t = Translator(vocabulary(scene), embedder=embedder, lifted_translator=recorder,
                       retrieval=False)  # fmt: skip

        def call(sentence: str):
            recorder.seen = []
            placeholders = None
            try:
                translation = t(sentence)
                placeholders = dict(translation.lifted.placeholders)
                return translation
            finally:
                asked[(scene, sentence)] = (list(recorder.seen), t, placeholders)

        return call

    new = evaluate(slots, rows, name="offline-slots")
    hits, counts, times, failed = 0, [], [], Counter()
    missed = []
    for row in rows:
        texts, t, placeholders = asked.get((row["scene"], row["sentence"]), ([], None, None))
        labels = [parse(x) for x in (row["formula"], *row.get("alternatives", ()))]
        found: list = []
        start = time.perf_counter()
        for text in texts:
            found += uncached(text)[0]  # timed without the reader's cache
        times.append(time.perf_counter() - start)
        counts.append(len(found))
        right = False
        if found and t is not None:
            if placeholders is None:
                try:
                    placeholders = dict(t.lift(row["sentence"]).placeholders)
                except SafetyChipError:
                    placeholders = {}
            for reading in found:
                try:
                    grounded = ground_formula(reading.formula, placeholders)
                except SafetyChipError:
                    continue
                if any(equivalent(grounded, label) for label in labels):
                    right = True
                    break
        hits += right
        if not right:
            failed[row.get("pattern") or "other"] += 1
            missed.append((row.get("pattern"), texts[:1], [r.pattern for r in found]))
    for pattern, texts, found in missed[:misses]:
        print(f"  miss {pattern}: {texts} -> {found}")
    reached = sum(bool(asked.get((r["scene"], r["sentence"]), ([],))[0]) for r in rows)
    return {"old": old, "new": new, "recall": hits, "n": len(rows), "readings": counts,
            "times": times, "failed": failed, "reached": reached}  # fmt: skip


def outcome(result) -> tuple[int, int, int]:
    right = sum(r["correct"] for r in result.rows)
    refused = sum(bool(r["error"]) and not r["correct"] for r in result.rows)
    return right, refused, len(result.rows) - right - refused


def line(name: str, n: int, old, new, recall: int, reached: int, counts, times) -> str:
    """One row of the table: shares of *n*, the mean readings and the time per sentence."""
    times = sorted(times)
    p90 = times[int(0.9 * (len(times) - 1))] * 1000
    cells = [f"{x / n:>6.1%}" for x in (*old, *new, recall, reached)]
    of_reached = f"{recall / reached:>6.1%}" if reached else f"{'-':>6}"
    return (f"{name:<11} {n:>5} | {' '.join(cells[:3])} | {' '.join(cells[3:6])} | "
            f"{cells[6]} {cells[7]} {of_reached} {statistics.mean(counts):>5.2f} "
            f"{statistics.median(times) * 1000:>6.2f} {p90:>6.2f}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embed", action="store_true", help="ground with MiniLM (slower)")
    parser.add_argument("--sets", nargs="*", help="only these sets")
    parser.add_argument("--misses", type=int, default=0, help="print this many misses per set")
    args = parser.parse_args()
    embedder = None
    if args.embed:
        from safetychip.llm import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    print(
        "old: Translator(frames=True, retrieval=False); slots: Translator(lifted_translator="
        f"SlotReader(), frames=False, retrieval=False); embedder: {embedder is not None}"
    )
    print(
        "right / refused / wrong: top-1 by evaluate(); recall: any reading right; lifted: "
        "sentences the reader was asked about; rec/lift: recall among those; ms: readings()"
    )
    print(
        f"{'set':<11} {'n':>5} | {'old: right refused wrong':<20} | "
        f"{'slots: right refused wrong':<20} | recall lifted rec/lift  mean med ms p90 ms"
    )
    total = {"n": 0, "old": [0, 0, 0], "new": [0, 0, 0], "recall": 0, "reached": 0}
    all_counts, all_times, all_failed = [], [], Counter()
    for name, path in sets().items():
        if args.sets and name not in args.sets:
            continue
        rows = task_rows("ours") if path is None else load_utterances(path)
        r = run(name, rows, embedder, args.misses)
        old, new = outcome(r["old"]), outcome(r["new"])
        print(line(name, r["n"], old, new, r["recall"], r["reached"], r["readings"], r["times"]),
              flush=True)  # fmt: skip
        if name == "tasks":
            continue
        total["n"] += r["n"]
        total["recall"] += r["recall"]
        total["reached"] += r["reached"]
        total["old"] = [a + b for a, b in zip(total["old"], old)]
        total["new"] = [a + b for a, b in zip(total["new"], new)]
        all_counts += r["readings"]
        all_times += r["times"]
        all_failed.update(r["failed"])
    if total["n"]:
        print(line("all sets", total["n"], total["old"], total["new"], total["recall"],
                   total["reached"], all_counts, all_times))  # fmt: skip
        print("(all sets: the development sets, without the task suites)")
        print("sentences with no right reading, by labelled pattern (all sets):")
        for pattern, k in all_failed.most_common():
            print(f"  {pattern:<32} {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
