"""How fast the episodic memory checks a command (issue 10's speed targets).

Run: .venv/bin/python benchmarks/bench_memory.py

A memory of 10,000 episodes: 1,000 distinct commands (verb × adjective × object × place,
encoded once by the real all-MiniLM-L6-v2), each in 10 scenes of 15–30 objects with
attributes and relations; the file is ``:memory:`` so that filling it costs no fsyncs (a
check reads no file). Then, for 100 new commands in one of those scenes:

* new command: ``memory.check(command, scene)``, MiniLM encoding included (target ≤ 25 ms
  median);
* MiniLM encoding alone, of other new texts (to separate the encoder's share);
* cached embedding: the same checks again, the embedder's cache hit (target ≤ 3 ms);
* similarity over 10,000 episodes: ``check_vector`` with the vector given (the matrix
  product, the scene similarity of the candidates, the rules), and the matrix product alone
  (target ≤ 2 ms).

Then the encoder side by side: all-MiniLM-L6-v2 on ONNX Runtime (the default when
onnxruntime is installed; exported once, the export's own time printed when it happens) and
on PyTorch: loading (the first encode, a cold process has imported neither), one new
sentence at a time, and a cached sentence; then torch again on one thread (ONNX Runtime runs
on one).

Then one consolidation of 100 episodes (the first 100 stored commands, each in one of the
10 scenes, in a fresh SQLite file so that its transaction is written and synced):
``memory.consolidate()``, clustering, patterns, rule writes and episode updates (target
≤ 1 s), five times on fresh memories.

Then the evaluation (``run_memory_evaluation``: three conditions, overrides off and on, over
the 200-interaction stream and the 50 scenarios), with the word stand-in and with MiniLM,
five times each, and MiniLM's table.

Prints the median and the worst time of each.
"""

from __future__ import annotations

import itertools
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from safetychip.experiments import memory_table
from safetychip.llm import Embedder, MiniLMEmbedder
from safetychip.memory import (
    Episode,
    EpisodicMemory,
    Rule,
    SceneGraph,
    SceneObject,
    run_memory_evaluation,
)

VERBS = ["push", "grab", "carry", "knock over", "walk past", "lift", "throw", "pour"]
ADJECTIVES = ["glass", "ceramic", "hot", "sharp", "heavy"]
OBJECTS = ["vase", "cup", "knife", "pan", "chair", "bowl", "kettle", "box", "plate", "lamp",
           "bottle", "scissors", "mug", "pot", "table", "jar", "tray", "iron", "glass", "tv",
           "bucket", "stool", "dish", "teapot", "fork"]  # fmt: skip
PLACES = ["on the shelf", "in the kitchen", "near the person", "by the stove", "off the table"]
ATTRIBUTES = ["fragile", "sharp", "hot", "human", "heavy"]
HARMS = {"fragile": "breakage", "sharp": "cut", "hot": "burn", "human": "collision",
         "heavy": "crush"}  # fmt: skip
BY_ADJECTIVE = {"glass": "breakage", "ceramic": "breakage", "hot": "burn", "sharp": "cut",
                "heavy": "crush"}  # fmt: skip
EPISODES, SCENES, QUERIES = 10_000, 10, 100


def scene(rng: random.Random) -> SceneGraph:
    names = rng.sample([*OBJECTS, "person", "shelf", "sofa", "stove", "sink"], rng.randint(15, 30))
    things = tuple(SceneObject(n, n, frozenset(rng.sample(ATTRIBUTES, rng.randint(0, 2))))
                   for n in names)  # fmt: skip
    relations = tuple((a, rng.choice(["ON", "INSIDE", "CLOSE"]), b)
                      for a, b in itertools.pairwise(names) if rng.random() < 0.5)  # fmt: skip
    return SceneGraph(things, relations)


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def report(label: str, times: list[float]) -> None:
    print(f"{label:<44} median {statistics.median(times):7.3f} ms   worst {max(times):7.3f} ms")


def main() -> None:
    rng = random.Random(0)
    commands = [f"{v} the {a} {o} {p}" for v, a, o, p in
                itertools.product(VERBS, ADJECTIVES, OBJECTS, PLACES)]  # fmt: skip
    rng.shuffle(commands)
    stored, new = commands[: EPISODES // SCENES], commands[-QUERIES:]
    scenes = [scene(rng) for _ in range(SCENES)]
    embedder = MiniLMEmbedder()
    start = time.perf_counter()
    embedder.encode(stored)
    print(f"MiniLM on {embedder.runtime}: loading and encoding {len(stored)} commands took "
          f"{time.perf_counter() - start:.1f} s")  # fmt: skip
    memory = EpisodicMemory(embedder=embedder)
    for i, command in enumerate(stored * SCENES):
        harm = HARMS[rng.choice(ATTRIBUTES)]
        memory.add(Episode(command, scenes[i % SCENES], harm, float(i), "sensor"))
    for verb, target in [("push", "fragile"), ("grasp", "sharp"), ("grasp", "hot"),
                         ("navigate", "human"), ("push", "heavy")]:  # fmt: skip
        memory.add_rule(Rule(verb, target, HARMS[target], 0.5))
    print(f"{len(memory.episodes)} episodes, {len(memory.rules)} rules, {SCENES} scenes")
    here = scenes[0]
    report("new command (MiniLM encoding included)",
           [timed(lambda c=c: memory.check(c, here)) for c in new])  # fmt: skip
    report("MiniLM encoding alone (new text)",
           [timed(lambda c=c: embedder.encode(f"please {c}")) for c in new])  # fmt: skip
    report("cached embedding", [timed(lambda c=c: memory.check(c, here)) for c in new])
    vectors = embedder.encode(new)
    report(f"similarity over {EPISODES:,} episodes (check_vector)",
           [timed(lambda c=c, v=v: memory.check_vector(c, v, here))
            for c, v in zip(new, vectors)])  # fmt: skip
    matrix = memory._vectors()
    report(f"matrix product alone ({matrix.shape[0]:,} × {matrix.shape[1]})",
           [timed(lambda v=v: matrix @ v) for v in vectors])  # fmt: skip
    blocked = sum(memory.check(c, here).blocked for c in new)
    print(f"{blocked} of {QUERIES} new commands blocked (δ_ep = 0.8, δ_sem = 0.7)")
    memory.close()
    encoders([f"then {c}" for c in new])
    consolidation(embedder, stored[:100], scenes)
    for name, model in (("word stand-in", "words"), ("MiniLM", embedder)):
        runs = [timed(lambda m=model: run_memory_evaluation(embedder=m)) for _ in range(5)]
        report(f"evaluation, {name} (10 runs of 200 or 250)", runs)
    print(memory_table(run_memory_evaluation(embedder=embedder)))


def encoders(texts: list[str]) -> None:
    """MiniLM on ONNX Runtime and on PyTorch: loading, each new text, each text again."""
    for backend in ("onnx", "torch"):
        embedder = MiniLMEmbedder(backend=backend)
        load = timed(lambda e=embedder: e.encode("load the model"))
        print(f"MiniLM on {backend}: loading and the first encode took {load / 1000:.1f} s")
        for label in ("one new sentence", "a cached sentence"):
            report(f"  {label} ({backend})",
                   [timed(lambda t=t, e=embedder: e.encode(t)) for t in texts])  # fmt: skip
    import torch  # loaded by now: torch's own threads wait for time slices on a busy machine

    torch.set_num_threads(1)
    report("  one new sentence (torch, 1 thread)",
           [timed(lambda t=t, e=embedder: e.encode(f"and {t}")) for t in texts])  # fmt: skip


def consolidation(embedder: Embedder, commands: list[str], scenes: list[SceneGraph]) -> None:
    """Time one consolidation of len(commands) episodes (harm by the command's adjective),
    five times."""
    times, rules, summarised = [], 0, 0
    with tempfile.TemporaryDirectory() as folder:
        for run in range(5):
            memory = EpisodicMemory(Path(folder) / f"{run}.db", embedder=embedder)
            with memory.store.transaction():
                for i, command in enumerate(commands):
                    harm = next(h for a, h in BY_ADJECTIVE.items() if f" {a} " in command)
                    memory.add(Episode(command, scenes[i % SCENES], harm, float(i)))
            times.append(timed(lambda m=memory: m.consolidate()))
            rules, summarised = len(memory.rules), sum(bool(e.rule) for e in memory.episodes)
            memory.close()
    report(f"one consolidation of {len(commands)} episodes", times)
    print(f"  ({rules} rules written, summarising {summarised} episodes)")


if __name__ == "__main__":
    main()
