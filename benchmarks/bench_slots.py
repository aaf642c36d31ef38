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
from safetychip.cli.translate import scene_vocabulary
from safetychip.errors import SafetyChipError
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
        lambda s: Translator(vocabulary(s), embedder=embedder, frames=True, retrieval=False),
        rows,
        name="offline-grammar+frames",
    )
    recorder = Recorder()
    asked: dict[tuple[str, str], tuple[list[str], Translator, dict | None]] = {}

    def slots(scene: str):
        t = Translator(vocabulary(scene), embedder=embedder, lifted_translator=recorder,
                       frames=False, retrieval=False)  # fmt: skip

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
    return {"old": old, "new": new, "recall": hits, "n": len(rows), "readings": counts,
            "times": times, "failed": failed}  # fmt: skip


def outcome(result) -> tuple[int, int, int]:
    right = sum(r["correct"] for r in result.rows)
    refused = sum(bool(r["error"]) and not r["correct"] for r in result.rows)
    return right, refused, len(result.rows) - right - refused


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
    header = (f"{'set':<12} {'n':>5} | {'old right':>9} {'refused':>7} {'wrong':>6} | "
              f"{'slot top1':>9} {'refused':>7} {'wrong':>6} | {'recall':>6} {'readings':>8} "
              f"{'med ms':>6} {'p90 ms':>6}")  # fmt: skip
    print(header)
    totals = Counter()
    all_counts, all_times, all_failed = [], [], Counter()
    for name, path in sets().items():
        if args.sets and name not in args.sets:
            continue
        rows = task_rows("ours") if path is None else load_utterances(path)
        r = run(name, rows, embedder, args.misses)
        o, s = outcome(r["old"]), outcome(r["new"])
        n = r["n"]
        times = sorted(r["times"])
        med = statistics.median(times) * 1000
        p90 = times[int(0.9 * (len(times) - 1))] * 1000
        mean = statistics.mean(r["readings"])
        print(f"{name:<12} {n:>5} | {o[0] / n:>9.1%} {o[1] / n:>7.1%} {o[2] / n:>6.1%} | "
              f"{s[0] / n:>9.1%} {s[1] / n:>7.1%} {s[2] / n:>6.1%} | {r['recall'] / n:>6.1%} "
              f"{mean:>8.2f} {med:>6.2f} {p90:>6.2f}", flush=True)  # fmt: skip
        if name != "tasks":
            totals.update({"n": n, "o0": o[0], "o1": o[1], "o2": o[2], "s0": s[0], "s1": s[1],
                           "s2": s[2], "recall": r["recall"]})  # fmt: skip
            all_counts += r["readings"]
            all_times += r["times"]
            all_failed.update(r["failed"])
    n = totals["n"]
    if n:
        all_times.sort()
        print(f"{'all sets':<12} {n:>5} | {totals['o0'] / n:>9.1%} {totals['o1'] / n:>7.1%} "
              f"{totals['o2'] / n:>6.1%} | {totals['s0'] / n:>9.1%} {totals['s1'] / n:>7.1%} "
              f"{totals['s2'] / n:>6.1%} | {totals['recall'] / n:>6.1%} "
              f"{statistics.mean(all_counts):>8.2f} {statistics.median(all_times) * 1000:>6.2f} "
              f"{all_times[int(0.9 * (len(all_times) - 1))] * 1000:>6.2f}")  # fmt: skip
        print("(all sets: the development sets, not the task suites)")
        print("misses of the slot reader's readings by labelled pattern (all sets):")
        for pattern, k in all_failed.most_common():
            print(f"  {pattern:<32} {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
