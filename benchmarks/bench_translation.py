"""Accuracy and speed of the English-to-LTL translator.

Accuracy is measured on ``data/translation/utterances.jsonl`` (written before the offline
translator, split into dev and test by paraphrase group) by *language equivalence* of the
translated and labelled formulas (``safetychip.automata.equivalent``), per pattern and per
family. As an independent check it also translates the constraint sentences of the
VirtualHome task suites (written by another session for the environment), against their
formulas. Refusals (no reading, ungroundable) count as wrong.

Speed: the median and worst time to translate one constraint offline, after the vocabulary is
loaded: without an embedder (the slot reader by itself, target < 1 ms, and the whole
candidate set of the slot reader on a first pass with cold caches and a second), and,
unless ``--no-embed``, the whole candidate set with the retrieval translator once MiniLM is
loaded (target: median <= 20 ms, p90 <= 50 ms), with the time to find the distinguishing
trace of each pair of candidates (target <= 10 ms a pair). Then the
cost of grounding by embedding: importing torch and loading MiniLM once, and the median time
to ground one unseen phrase.

Accuracy with the retrieval step: the three counts (right / refused or flagged ambiguous /
silently wrong) per pattern on ``utterances.jsonl`` and on ``paraphrases.jsonl`` (issue 12's
development sentences).

With ``--model NAME`` (an OpenAI-compatible endpoint configured by OPENAI_API_KEY and
OPENAI_BASE_URL; ``--cache FILE`` to record and replay), the same evaluation is run with the
language model doing recognition and lifted translation.

Usage: ``python benchmarks/bench_translation.py [--split test] [--no-embed] [--model NAME]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from safetychip.experiments import scene_vocabulary
from safetychip.translate import Translator, evaluate, load_utterances


def offline(scene: str) -> Translator:
    return Translator(scene_vocabulary(scene), embedder=None)


def _ours(c) -> str:
    """A suite constraint's formula under safetychip.ltl's pattern conventions (strong next
    for immediate_response; absence_after for the suite's absence_from)."""
    from safetychip.ltl import PATTERNS, Not, ap

    lits = [Not(ap(a[1:])) if a.startswith("!") else ap(a) for a in c.args]
    name = {"absence_from": "absence_after"}.get(c.pattern, c.pattern)
    args = [c.bound, *lits] if c.bound is not None else lits
    return str(PATTERNS[name].build(*args))


def task_rows(conventions: str = "suite") -> list[dict]:
    """The task suites' constraints as labelled utterances (pattern names as in the suites);
    with ``conventions="ours"``, labels rebuilt with safetychip.ltl's patterns."""
    from safetychip.envs import load_tasks

    rows = []
    for task in load_tasks():
        for k, c in enumerate(task.constraints, 1):
            rows.append(
                {
                    "id": f"{task.id}/{k}",
                    "scene": task.scene,
                    "sentence": c.sentence,
                    "formula": str(c.formula) if conventions == "suite" else _ours(c),
                    "pattern": c.pattern,
                    "family": "tasks",
                    "split": "tasks",
                }
            )
    return rows


def _report(label: str, times: list[float]) -> None:
    times = sorted(times)
    print(
        f"  {label}: median {statistics.median(times) * 1e3:.2f} ms, "
        f"p90 {times[int(0.9 * len(times))] * 1e3:.2f} ms, worst {times[-1] * 1e3:.2f} ms "
        f"over {len(times)} sentences"
    )


def speed(rows: list[dict]) -> None:
    from safetychip.translate import SlotReader

    translators = {scene: offline(scene) for scene in {r["scene"] for r in rows}}
    reader = SlotReader()
    lifted = []
    for r in rows:
        try:
            lifted.append(translators[r["scene"]].lift(r["sentence"]).text)
        except Exception:
            pass
    times = []
    _cold()
    for text in lifted:
        start = time.perf_counter()
        reader.readings(text)
        times.append(time.perf_counter() - start)
    _report("the slot reader alone (lifted sentence -> its readings)", times)
    for label in ("whole pipeline, first pass (cold caches)", "second pass"):
        if label.startswith("whole"):
            _cold()
        times = []
        for r in rows:
            start = time.perf_counter()
            try:
                translators[r["scene"]](r["sentence"])
            except Exception:
                pass
            times.append(time.perf_counter() - start)
        _report(label, times)


def _cold() -> None:
    """Forget the sentences read and normalised, so that a timed pass pays for reading as a
    new sentence does (the slot reader and the normaliser cache them)."""
    from safetychip.translate import SlotReader, normalize

    SlotReader._read.cache_clear()
    normalize.cache_clear()


def retrieval_speed(rows: list[dict]) -> None:
    """The slot reader and retrieval, with MiniLM and the template vectors loaded; each sentence
    seen once (the embedder caches vectors by text, so a second pass would flatter it)."""
    from safetychip.llm import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    start = time.perf_counter()
    translators = {
        scene: Translator(scene_vocabulary(scene), embedder=embedder)
        for scene in {r["scene"] for r in rows}
    }
    warm = translators["apartment_1"]
    for s in ("Steer well clear of the cellar.", "Kindly keep away from the kitchen."):
        try:
            warm(s)
        except Exception:
            pass
    print(f"  load MiniLM and the template vectors: {time.perf_counter() - start:.1f} s (once)")
    _cold()
    every, retrieved, pairs, sets = [], [], [], []
    for r in rows:
        start = time.perf_counter()
        try:
            found = translators[r["scene"]](r["sentence"])
        except Exception:
            found = None
        seconds = time.perf_counter() - start
        every.append(seconds)
        if found is not None and "retrieval" in found.translator:
            retrieved.append(seconds)
        if found is not None and len(found.candidates) > 1:
            sets.append(found)
    _report("the candidate set (every reader, with retrieval), every sentence", every)
    if retrieved:
        _report("the sentences whose first candidate is retrieval's alone", retrieved)
    for found in sets:
        n = len(found.candidates) * (len(found.candidates) - 1) // 2
        start = time.perf_counter()
        found.distinctions()
        pairs += [(time.perf_counter() - start) / n] * n
    if pairs:
        _report(f"a distinguishing trace, per pair (target <= 10 ms; {len(sets)} sets)", pairs)


def embedding_speed() -> None:
    from safetychip.translate import Grounder

    vocabulary = scene_vocabulary("apartment_1")
    start = time.perf_counter()
    grounder = Grounder(vocabulary)
    grounder.ground("the cellular telephone")  # imports torch, loads MiniLM, embeds the names
    print(
        f"  import torch + load MiniLM + embed {len(vocabulary)} names: "
        f"{time.perf_counter() - start:.1f} s (once per process)"
    )
    phrases = [
        "the refrigerator",
        "the cellular phone",
        "the couch cushion",
        "the oven door",
        "the laptop computer",
        "the bath tub",
        "the night stand",
        "the door mat",
        "the front entrance",
        "the coffee pot",
        "the paper towels",
        "the wash basin",
    ]
    times = []
    for phrase in phrases:
        start = time.perf_counter()
        try:
            grounder.ground(phrase)
        except Exception:
            pass
        times.append(time.perf_counter() - start)
    print(
        f"  ground one unseen phrase by embedding: median "
        f"{statistics.median(times) * 1e3:.1f} ms over {len(times)} phrases"
    )
    translator = Translator(vocabulary, embedder=grounder.embedder)
    times = []
    for s in [  # phrases not embedded before
        "Never touch the hot plate.",
        "Do not pick up the smartphone.",
        "Stay away from the bath mat.",
        "Open the freezer at most twice.",
    ]:
        start = time.perf_counter()
        try:
            translator(s)
        except Exception:
            pass
        times.append(time.perf_counter() - start)
    print(
        f"  translate a sentence whose expression needs embedding: median "
        f"{statistics.median(times) * 1e3:.1f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="all", help="all, dev or test")
    parser.add_argument("--no-embed", action="store_true", help="skip the embedding timings")
    parser.add_argument("--no-tasks", action="store_true", help="skip the task-suite check")
    parser.add_argument("--model", help="also evaluate this chat model")
    parser.add_argument("--cache", help="record/replay file for --model")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the failures")
    args = parser.parse_args()

    from safetychip.translate._evaluate import UTTERANCES

    paraphrases = load_utterances(UTTERANCES.with_name("paraphrases.jsonl"))
    print("== offline translation speed, the slot reader (vocabulary loaded; target: < 1 ms)")
    speed(load_utterances() + paraphrases)
    if not args.no_embed:
        print(
            "\n== with the retrieval translator beside the slot reader (target: median <= 20 ms, "
            "p90 <= 50 ms)"
        )
        retrieval_speed(load_utterances() + paraphrases)

    rows = load_utterances(split=args.split)
    print(
        f"\n== offline translator on data/translation/utterances.jsonl ({args.split}, "
        f"{len(rows)} utterances)"
    )
    result = evaluate(offline, rows, name="offline-slots")
    print(result.table())
    if args.verbose:
        for r in result.rows:
            if not r["correct"]:
                print(f"    x {r['id']}: {r['sentence']!r} -> {r['predicted'] or r['error']}")

    if not args.no_tasks:
        tasks = task_rows()
        print(
            f"\n== offline translator on the task suites' constraints ({len(tasks)} sentences; "
            "their immediate_response uses the weak X, absence_from is G(p -> G!q))"
        )
        found = evaluate(offline, tasks, name="offline-slots")
        for value, (ok, n) in found.by("pattern").items():
            print(f"    {value:<20} {ok:>4} / {n:<4} {ok / n:6.1%}")
        print(
            f"    {'all':<20} {sum(r['correct'] for r in found.rows):>4} / "
            f"{len(found.rows):<4} {found.accuracy:6.1%}"
        )
        mapped = evaluate(offline, task_rows("ours"), name="offline-slots")
        print(
            f"    with the labels rebuilt under safetychip.ltl's conventions (strong next; "
            f"absence_after): {sum(r['correct'] for r in mapped.rows)} / {len(mapped.rows)} "
            f"{mapped.accuracy:6.1%}"
        )
        if args.verbose:
            for r in found.rows:
                if not r["correct"]:
                    print(f"    x {r['id']}: {r['sentence']!r} -> {r['predicted'] or r['error']}")

    if not args.no_embed:

        def with_retrieval(scene: str) -> Translator:
            return Translator(scene_vocabulary(scene))

        for label, labelled in (("utterances.jsonl", rows), ("paraphrases.jsonl", paraphrases)):
            print(f"\n== slot reader + retrieval on {label} ({len(labelled)} sentences)")
            print(evaluate(with_retrieval, labelled).scores())
        print("\n== grounding by embedding (all-MiniLM-L6-v2, CPU)")
        embedding_speed()

    model = args.model or (
        os.environ.get("SAFETYCHIP_MODEL") if os.environ.get("OPENAI_API_KEY") else None
    )
    if model:
        from safetychip.llm import CachedModel, ChatModel, OpenAIChatModel

        llm: ChatModel = OpenAIChatModel(model)
        if args.cache:
            llm = CachedModel(llm, args.cache, mode="auto")
        print(f"\n== language model {model} (recognition and lifted translation)")
        found = evaluate(
            lambda scene: Translator(scene_vocabulary(scene), model=llm), rows, name=model
        )
        print(found.table())
    else:
        print("\n(no language model configured: pass --model NAME with OPENAI_API_KEY set)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
