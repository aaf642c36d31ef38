"""The guarantee at scale: 100,000 adversarial rollouts, each judged independently of the
monitor.

A random agent proposes random actions and random DONEs through the shield (the monitor as
its filter), over random specifications drawn from the task suites (see
``safetychip.experiments``'s ``run_adversarial``). The 100,000 rollouts are played at the
**proposition level** (a ``PropositionEnv``: set and clear, room moves, some through a third
room, and random jumps, under the one-room invariant), because on the scenes the simulator
costs about 20 ms a rollout; a sample is also played on the **VirtualHome scenes** for
comparison. Every rollout's trace record is judged by the referee: the direct evaluator for
accepted DONEs, a certified continuation for every other ending, and one DFA of the whole
conjunction for every refusal and ABORT.

Usage::

    python benchmarks/bench_adversarial.py [--rollouts 100000] [--scene-rollouts 2000]
        [--executor local|ray] [--chunks 20] [--results PATH]

Targets: 100,000 rollouts in at most 10 minutes, 0 violations, 0 problems. Exits 1 otherwise.
``--results`` keeps each chunk's report in a JSON-lines file, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from safetychip.experiments import adversarial_cell, run_cells

TARGET_SECONDS = 600


def play(
    level: str,
    rollouts: int,
    chunks: int,
    per_spec: int,
    executor: str,
    results: Path | None,
    seed: int,
) -> dict:
    size = -(-rollouts // chunks)
    cells = []
    for k in range(chunks):
        n = min(size, rollouts - k * size)
        if n > 0:
            cells.append(
                {
                    "id": f"{level}-{seed}-{k}",
                    "level": level,
                    "rollouts": n,
                    "seed": seed * 1000 + k,
                    "rollouts_per_spec": per_spec,
                }
            )
    path = None if results is None else results.with_name(f"{results.stem}-{level}.jsonl")
    start = time.perf_counter()
    out = run_cells(
        adversarial_cell,
        cells,
        executor=executor,
        results_path=path,
        desc=f"{level} ({len(cells)} chunks)",
    )
    wall = time.perf_counter() - start
    total = {
        "rollouts": 0,
        "specifications": 0,
        "outcomes": Counter(),
        "counts": Counter(),
        "seconds": Counter(),
        "problems": [],
        "errors": [],
        "wall": wall,
    }
    for r in out:
        if "error" in r:
            total["errors"].append(r["error"])
            continue
        total["rollouts"] += r["rollouts"]
        total["specifications"] += r["specifications"]
        total["outcomes"].update(r["outcomes"])
        total["counts"].update(r["counts"])
        total["seconds"].update(r["seconds"])
        total["problems"] += r["problems"]
    return total


def report(level: str, t: dict) -> None:
    s, c = t["seconds"], t["counts"]
    violations = sum(p["problem"].startswith("violation") for p in t["problems"])
    unjustified_aborts = sum("abort" in p["problem"] for p in t["problems"])
    print(
        f"\n== {level}: {t['rollouts']:,} shielded rollouts over {t['specifications']:,} "
        f"random specifications"
    )
    print(
        f"wall time {t['wall']:.1f} s: {t['rollouts'] / t['wall']:,.0f} rollouts/s "
        f"(checks included)"
    )
    print("outcomes: " + ", ".join(f"{k} {v:,}" for k, v in sorted(t["outcomes"].items())))
    print(
        f"executed actions {c['actions']:,}; refusals {c['refusals']:,} (justified "
        f"{c['justified_refusals']:,}, undecided {c['undecided_refusals']:,}); DONE refusals "
        f"{c['done_refusals']:,}"
    )
    print(
        f"violations found: {violations}; aborts: {t['outcomes']['abort']:,} "
        f"({c['aborting_specifications']:,} specifications, unjustified "
        f"{unjustified_aborts}); other problems: {len(t['problems']) - violations}; "
        f"failed chunks: {len(t['errors'])}"
    )
    print(
        f"time in the chunks: {s['total']:.1f} s; the monitor's share "
        f"{s['monitor'] / s['total']:.1%} ({s['monitor']:.1f} s), environment and shield "
        f"{s['world']:.1f} s, "
        f"referee {s['referee']:.1f} s, monitor set-up {s['setup']:.1f} s"
    )
    for p in t["problems"][:3]:
        print("problem:", p["problem"], "| specification:", p["specification"])
    for e in t["errors"][:3]:
        print("failed chunk:", e)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rollouts", type=int, default=100_000)
    ap.add_argument("--scene-rollouts", type=int, default=2_000)
    ap.add_argument("--chunks", type=int, default=20)
    ap.add_argument("--rollouts-per-spec", type=int, default=25)
    ap.add_argument("--executor", choices=("local", "ray"), default="local")
    ap.add_argument("--results", type=Path, default=None)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ok = True
    runs = [("propositions", args.rollouts, args.chunks, args.rollouts_per_spec)]
    if args.scene_rollouts:
        runs.append(("scenes", args.scene_rollouts, max(1, args.chunks // 5), 4))
    for level, n, chunks, per_spec in runs:
        t = play(level, n, chunks, per_spec, args.executor, args.results, args.seed)
        report(level, t)
        ok &= not t["problems"] and not t["errors"] and t["rollouts"] == n
        if level == "propositions" and n >= 100_000:
            within = t["wall"] <= TARGET_SECONDS
            print(
                f"target: {n:,} rollouts in <= {TARGET_SECONDS} s: "
                f"{'met' if within else 'MISSED'} ({t['wall']:.0f} s)"
            )
            ok &= within
    print("\nOK" if ok else "\nFAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
