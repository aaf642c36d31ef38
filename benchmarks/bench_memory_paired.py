"""Issue 41: does the episodic memory tell a hazardous command from its safe twin, and how
fast does it check one?

Run: .venv/bin/python benchmarks/bench_memory_paired.py [--embedder words|minilm|both]
     [--capacity N] [--ablation]

The evaluation is :func:`safetychip.experiments.evaluate_pairs` on ``data/thor/paired.jsonl``
(``data/thor/make_paired.py``): 5-fold with twins in the same fold, and seeds only; printed
as :func:`~safetychip.experiments.pairs_table` (refusal, false refusals, ROC AUC, per harm).
Then the same hazards phrased abstractly (``data/thor/abstract.jsonl``: 30 and their safe
twins), checked by a memory that learned every paired task (``evaluate_abstract``).
``--ablation`` adds the 5-fold with the safe training tasks not recorded (the memory before
issue 41 kept nothing of a harmless run).

Speed: the median ``check`` of a new command (one the embedder has not encoded yet, so its
encoding is included: MiniLM's target ≤ 10 ms), with its action frames, against a memory of
one fold's training set (about 526 episodes, with their frames); and the median time the
room's environment takes to read a command into frames (``ThorEnv.action_frames``). Numbers
are printed, never written: they come from this run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import warnings

from safetychip.experiments import evaluate_abstract, evaluate_pairs, load_pairs, pairs_table
from safetychip.llm import Embedder
from safetychip.memory import EpisodicMemory, MemoryConfig, WordEmbedder, load_seeds


def check_times(
    embedder: Embedder, config: MemoryConfig
) -> tuple[list[float], list[float], list[float]]:
    """Seconds of each check of a new command against a memory of four fifths of the pairs
    (commands of the fifth that no training task shares), with *embedder* (give a fresh
    one: an embedder caches the vectors of the texts it encoded); seconds of the memory's
    part of each (``check_vector``: the command already encoded); and seconds of reading
    each command into action frames."""
    from safetychip.envs.thor import ThorEnv
    from safetychip.memory import ActionFrame, SceneGraph

    tasks = load_pairs()
    pairs = sorted({t["pair"] for t in tasks})
    random.Random(1).shuffle(pairs)
    test = set(pairs[: len(pairs) // 5])
    scenes = {}
    for name in sorted({t["scene"] for t in tasks}):
        env = ThorEnv(name)
        env.reset()
        scenes[name] = SceneGraph.from_dict(env.memory_scene())
    envs = {name: ThorEnv(name) for name in scenes}
    reading: list[float] = []
    retrieval: list[float] = []

    def frames(t: dict) -> list[ActionFrame]:
        start = time.perf_counter()
        read = envs[t["scene"]].action_frames(t["instruction"])
        reading.append(time.perf_counter() - start)
        return [ActionFrame.from_dict(f) for f in read]

    seen = {t["instruction"] for t in tasks if t["pair"] not in test}
    times = []
    with EpisodicMemory(embedder=embedder, config=config) as memory:
        for t in tasks:
            if t["pair"] in test:
                continue
            if t["hazardous"]:
                memory.report_harm(t["instruction"], scenes[t["scene"]], t["harm"],
                                   frames=frames(t))  # fmt: skip
            else:
                memory.record(t["instruction"], scenes[t["scene"]], frames=frames(t))
        memory.consolidate()
        for t in tasks:
            if t["pair"] in test and t["instruction"] not in seen:
                seen.add(t["instruction"])
                acts = frames(t)
                start = time.perf_counter()
                memory.check(t["instruction"], scenes[t["scene"]], frames=acts)
                times.append(time.perf_counter() - start)
                vector = embedder.encode([t["instruction"]])[0]  # cached now
                start = time.perf_counter()
                memory.check_vector(t["instruction"], vector, scenes[t["scene"]], frames=acts)
                retrieval.append(time.perf_counter() - start)
    return times, retrieval, reading


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation and the timing for the embedders asked for."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--embedder", choices=("words", "minilm", "both"), default="both")
    parser.add_argument("--capacity", type=int, default=None,
                        help="the memory's capacity (default: MemoryConfig's)")  # fmt: skip
    parser.add_argument(
        "--ablation",
        action="store_true",
        help="also the 5-fold without recording the safe training tasks",
    )
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # capacity warnings: the table says what happened
    config = MemoryConfig() if args.capacity is None else MemoryConfig(capacity=args.capacity)
    tasks = load_pairs()
    hazards = sum(t["hazardous"] for t in tasks)
    print(f"{hazards} hazardous tasks, {len(tasks) - hazards} safe twins; capacity "
          f"{config.capacity}")  # fmt: skip
    embedders: list[Embedder] = []
    if args.embedder in ("words", "both"):
        embedders.append(WordEmbedder())
    if args.embedder in ("minilm", "both"):
        from safetychip.llm import MiniLMEmbedder

        embedders.append(MiniLMEmbedder())
    for embedder in embedders:
        runs = {"5-fold": evaluate_pairs(tasks, embedder=embedder, config=config),
                "seeds only": evaluate_pairs(tasks, seeds_only=True, embedder=embedder,
                                             config=config)}  # fmt: skip
        runs["abstract phrasings"] = evaluate_abstract(tasks, embedder=embedder, config=config)
        if args.ablation:
            runs["5-fold, harmless not recorded"] = evaluate_pairs(
                tasks, embedder=embedder, config=config, record_harmless=False
            )
        print(f"\n{embedder.name}\n\n{pairs_table(runs)}")
        named = {e.harm for e in load_seeds()}
        seeded = runs["seeds only"]
        hits = [c.blocked for c in seeded if c.hazardous and c.harm in named]
        false = [c.blocked for c in seeded if not c.hazardous]
        harms = {c.harm for c in seeded}
        print(
            f"\nseeds only, the harms the seeds name ({', '.join(sorted(named & harms))}): "
            f"refusal {sum(hits) / max(len(hits), 1):.1%} of {len(hits)} at "
            f"{sum(false) / len(false):.1%} false refusals over all {len(false)} twins"
        )
        times, retrieval, reading = check_times(type(embedder)(), config)  # fresh: no cache
        print(
            f"\ncheck of a new command with its frames: median "
            f"{statistics.median(times) * 1e3:.2f} ms over {len(times)} checks (the memory's "
            f"part, the command already encoded: {statistics.median(retrieval) * 1e3:.2f} ms); "
            f"reading a command into frames: median {statistics.median(reading) * 1e3:.2f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
