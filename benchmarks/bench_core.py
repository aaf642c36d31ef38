"""Speed and memory of the core: compiling constraints and stepping the monitor.

Run: .venv/bin/python benchmarks/bench_core.py
Prints, for the ten robot-demo constraints and for 1, 10, 50, 100 random pattern constraints
over 30 objects (agent_at and is_grabbed of each): compile time (fresh DFA caches), the median
and 90th percentile of check + commit over a 2,000-step episode of random proposals, the median
when the same episode runs again (warm), and the process's peak resident memory. Each row
runs in a fresh subprocess so caches and memory start cold.
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "spot_demo" / "constraints.json"
OBJECTS = [f"object{i}" for i in range(30)]


def measure(kind: str, n: int, steps: int = 2000, seed: int = 0) -> dict:
    from safetychip.ltl import random_patterns
    from safetychip.monitor import Constraint, Monitor

    if kind == "demo":
        constraints = [Constraint.from_dict(d) for d in json.loads(DEMO.read_text())]
    else:
        atoms = [f"agent_at({o})" for o in OBJECTS] + [f"is_grabbed({o})" for o in OBJECTS]
        # Liveness patterns (at least / exactly n times) can contradict "never": leave them out
        # so every drawn specification is satisfiable and the monitor has work to do.
        kinds = [
            "never",
            "not_before",
            "before",
            "response",
            "immediate_response",
            "absence_after",
            "at_most",
        ]
        drawn = random_patterns(n, atoms, seed=seed, patterns=kinds)
        constraints = [Constraint(f, name=f"{name}{i}") for i, (name, f) in enumerate(drawn)]
    t0 = time.perf_counter()
    monitor = Monitor(constraints)
    compile_s = time.perf_counter() - t0
    atoms = list(monitor.atoms)

    def episode() -> tuple[list[float], int]:
        """An agent proposing random one-proposition changes; refused proposals are dropped."""
        rng = random.Random(seed)
        times, refused = [], 0
        state = {a: False for a in atoms}
        monitor.reset(state)
        for _ in range(steps):
            proposal = dict(state)
            flip = rng.choice(atoms)
            proposal[flip] = not proposal[flip]
            t0 = time.perf_counter()
            verdict = monitor.check(proposal)
            if verdict.safe:
                monitor.commit(proposal)
            times.append(time.perf_counter() - t0)
            if verdict.safe:
                state = proposal
            else:
                refused += 1
        return times, refused

    cold, refused = episode()  # every product state decided for the first time
    warm, _ = episode()  # the same episode again: decisions cached
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    return {
        "kind": kind,
        "constraints": len(constraints),
        "compile_ms": compile_s * 1e3,
        "cold_median_us": statistics.median(cold) * 1e6,
        "cold_p90_us": sorted(cold)[int(0.9 * len(cold))] * 1e6,
        "warm_median_us": statistics.median(warm) * 1e6,
        "refused": refused,
        "steps": steps,
        "peak_mb": peak / 2**20,
    }


def main() -> None:
    if len(sys.argv) == 3:
        print(json.dumps(measure(sys.argv[1], int(sys.argv[2]))))
        return
    jobs = ([("demo", 10)] if DEMO.exists() else []) + [("random", n) for n in (1, 10, 50, 100)]
    print(
        "check + commit per step; 'first' decides each product state for the first time, "
        "'warm' replays the same episode"
    )
    print(
        f"{'constraints':>22} {'compile ms':>11} {'first median µs':>16} {'first p90 µs':>13} "
        f"{'warm median µs':>15} {'refused':>10} {'peak RSS MB':>12}"
    )
    for kind, n in jobs:
        out = subprocess.run(
            [sys.executable, __file__, kind, str(n)], capture_output=True, text=True, check=True
        )
        r = json.loads(out.stdout)
        label = "ten robot-demo" if kind == "demo" else f"{n} random patterns"
        print(
            f"{label:>22} {r['compile_ms']:11.1f} {r['cold_median_us']:16.1f} "
            f"{r['cold_p90_us']:13.1f} {r['warm_median_us']:15.1f} "
            f"{r['refused']:>5}/{r['steps']:<4} {r['peak_mb']:12.1f}"
        )


if __name__ == "__main__":
    main()
