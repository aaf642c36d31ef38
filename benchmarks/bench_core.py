"""Speed and memory of the core: compiling constraints and stepping the monitor.

Run: .venv/bin/python benchmarks/bench_core.py [--seeds 0,1,2] [--cap 60] [--quick]

Three tables, each row in a fresh subprocess so caches and memory start cold:

1. *Safety patterns*: the ten robot-demo constraints and 1, 10, 50, 100 random safety
   patterns over 60 propositions: compile time, the median and 90th percentile of check +
   commit over a 2,000-step episode of random proposals, the median when the same episode
   runs again (warm), and peak resident memory; the demo row also times the original Safety
   Chip's edge scan (evaluate every outgoing guard of every automaton per step).
2. *The hard cases*: random pattern sets **with** liveness patterns (at least / exactly n
   times, where "at least once" is "eventually", and response) at 10, 50, 100, 200, 500 and
   1,000 constraints over 40 and 60 propositions, several seeds, plus the safety-only
   generator at 200, 500 and 1,000 over 60: compile time (every DFA), the abort check (the
   monitor's start, exact: is the whole specification satisfiable?), then a 1,000-step
   episode of random one-proposition proposals under the default 50 ms deadline: median, p99
   and maximum check + commit time, and the decisions refused because they hit the deadline.
   An unsatisfiable set is first repaired by dropping the constraints the monitor names in
   its conflicts (the row says how many were kept). A row that exceeds its time cap
   (``--cap`` seconds) is cut and says where.
3. *One automaton for a whole specification*: ``to_dfa`` of the conjunction of 10 random
   patterns, and Spot's monolithic translation in the same run when Spot is importable.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "spot" / "demo_constraints.json"
SAFETY = ["never", "not_before", "before", "response", "immediate_response", "absence_after",
          "at_most"]  # fmt: skip
# Liveness patterns that never contradict each other: a trace alternating all-true and
# all-false states, long enough, satisfies any set of them.
LIVENESS = ["at_least", "response", "not_before", "before"]
FAMILIES = {"safety": SAFETY, "liveness": LIVENESS, "mixed": None}


def _atoms(props: int) -> list[str]:
    objects = [f"object{i}" for i in range(props // 2)]
    return [f"agent_at({o})" for o in objects] + [f"is_grabbed({o})" for o in objects]


def _constraints(kind: str, n: int, props: int, seed: int) -> list:
    from safetychip.ltl import random_patterns
    from safetychip.monitor import Constraint

    if kind == "demo":
        return [Constraint.from_dict(d) for d in json.loads(DEMO.read_text())]
    # "safety" and "liveness": patterns that cannot contradict each other; "mixed": every
    # pattern (at_least / exactly / response / never ...), which can.
    drawn = random_patterns(n, _atoms(props), seed=seed, patterns=FAMILIES[kind])
    return [Constraint(f, name=f"{name}{i}") for i, (name, f) in enumerate(drawn)]


def _edge_scan(monitor, letter: dict[str, bool], states: list[int]) -> list[int]:
    """The original Safety Chip's step: per automaton, evaluate each outgoing guard in turn."""
    from safetychip.automata import holds

    out = []
    for d, q in zip(monitor.dfas, states):
        out.append(next(t for t, g in d.edges[q] if holds(g, letter, d.aps)))
    return out


def measure_safety(kind: str, n: int, steps: int = 2000, seed: int = 0) -> dict:
    """Table 1: the established rows (safety patterns only), first and warm episodes."""
    from safetychip.monitor import Monitor

    constraints = _constraints(kind, n, 60, seed)
    t0 = time.perf_counter()
    monitor = Monitor(constraints)
    compile_s = time.perf_counter() - t0
    atoms = list(monitor.atoms)

    def episode(scan: bool = False) -> tuple[list[float], int]:
        """An agent proposing random one-proposition changes; refused proposals are dropped."""
        rng = random.Random(seed)
        times, refused = [], 0
        state = {a: False for a in atoms}
        monitor.reset(state)
        qs = list(monitor.automaton_states.values())
        for _ in range(steps):
            proposal = dict(state)
            flip = rng.choice(atoms)
            proposal[flip] = not proposal[flip]
            t0 = time.perf_counter()
            if scan:
                qs = _edge_scan(monitor, proposal, qs)
                times.append(time.perf_counter() - t0)
                state = proposal
                continue
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
    scan = episode(scan=True)[0] if kind == "demo" else []
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    return {
        "compile_ms": compile_s * 1e3,
        "cold_median_us": statistics.median(cold) * 1e6,
        "cold_p90_us": sorted(cold)[int(0.9 * len(cold))] * 1e6,
        "warm_median_us": statistics.median(warm) * 1e6,
        "scan_median_us": statistics.median(scan) * 1e6 if scan else None,
        "refused": refused,
        "steps": steps,
        "peak_mb": peak / 2**20,
    }


def _emit(record: dict) -> None:
    print(json.dumps(record), flush=True)


def measure_hard(kind: str, n: int, props: int, seed: int, steps: int) -> None:
    """Table 2, printed as JSON lines as it goes, so a row cut by its time cap still says how
    far it got: the phase, then the step statistics so far every 25 steps.

    The abort check runs exact (no deadline). A specification it finds unsatisfiable is
    repaired for the episode, at most 20 times: the last constraint of each conflict the
    monitor names is dropped until the rest is satisfiable (how many were kept is printed).
    """
    from safetychip.monitor import Monitor, Status, compile_dfa

    constraints = _constraints(kind, n, props, seed)
    _emit({"phase": "compile"})
    t0 = time.perf_counter()
    for c in constraints:
        compile_dfa(c.formula)
    _emit({"compile_ms": (time.perf_counter() - t0) * 1e3, "phase": "abort check"})
    t0 = time.perf_counter()
    exact = {"deadline": None} if "deadline" in _parameters(Monitor) else {}  # older trees
    monitor = Monitor(constraints, **exact)  # the DFAs are cached: the abort check
    _emit({"abort_ms": (time.perf_counter() - t0) * 1e3, "phase": "repair"})
    start = monitor.reset()
    if start.status is Status.ABORT:
        _emit({"conflict": len(start.violated)})
    for _ in range(20):
        if start.status is not Status.ABORT:
            break
        drop = start.violated[-1] if start.violated else constraints[-1].name
        constraints = [c for c in constraints if c.name != drop]
        monitor = Monitor(constraints, **exact)
        start = monitor.reset()
    if start.status is Status.ABORT:
        _emit({"phase": "done", "unrepaired": True})
        return
    _emit({"kept": len(constraints)})
    monitor.deadline = 0.05  # the default deadline, for the episode
    atoms = list(monitor.atoms)
    rng = random.Random(seed)
    state = {a: False for a in atoms}
    times: list[float] = []
    refused = undecided = 0
    t0 = time.perf_counter()
    monitor.commit(state)
    times.append(time.perf_counter() - t0)
    for k in range(steps):
        proposal = dict(state)
        flip = rng.choice(atoms)
        proposal[flip] = not proposal[flip]
        if k % 25 == 0:
            _emit({"phase": f"step {k}", **_stats(times, refused, undecided, monitor)})
        t0 = time.perf_counter()
        verdict = monitor.check(proposal)
        if verdict.safe:
            monitor.commit(proposal)
        times.append(time.perf_counter() - t0)
        if verdict.safe:
            state = proposal
        else:
            refused += 1
            undecided += verdict.reason.startswith("cannot decide")
    _emit({"phase": "done", **_stats(times, refused, undecided, monitor)})


def _parameters(cls: type) -> set[str]:
    import inspect

    return set(inspect.signature(cls).parameters)


def _stats(times: list[float], refused: int, undecided: int, monitor) -> dict:
    ordered = sorted(times)
    return {
        "steps": len(times),
        "median_ms": statistics.median(ordered) * 1e3,
        "p99_ms": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1e3,
        "max_ms": ordered[-1] * 1e3,
        "refused": refused,
        # The monitor's own count when it keeps one, else the undecided refusals.
        "deadline": getattr(monitor, "deadline_refusals", undecided),
    }


def _run_capped(args: list[str], cap: float) -> tuple[list[dict], bool, float]:
    """Run this script on *args* for at most *cap* seconds: its JSON lines, whether it was
    cut, and the wall time."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE, text=True)
    try:
        out, _ = proc.communicate(timeout=cap)
        cut = False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        cut = True
    if not cut and proc.returncode:
        raise SystemExit(f"benchmark row {args} failed with status {proc.returncode}")
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return lines, cut, time.perf_counter() - t0


def _hard_row(kind: str, n: int, props: int, seed: int, steps: int, cap: float) -> str:
    lines, cut, wall = _run_capped(["hard", kind, str(n), str(props), str(seed), str(steps)], cap)
    r: dict = {}
    for line in lines:
        r.update(line)

    def ms(key: str) -> str:
        return f"{r[key]:.1f}" if key in r else "-"

    label = f"{n} {kind} / {props} props / seed {seed}"
    head = f"{label:>36} {ms('compile_ms'):>11} {ms('abort_ms'):>11}"
    if "median_ms" in r:
        stats = (f" {r['median_ms']:10.3f} {r['p99_ms']:9.2f} {r['max_ms']:10.1f} "
                 f"{r['deadline']:>5}/{r['steps']:<5}")  # fmt: skip
    else:
        stats = ""
    if "conflict" in r:
        kept = f"{r['kept']} kept" if "kept" in r else "not repaired in 20 drops"
        stats += f"   unsatisfiable ({r['conflict']} in the first conflict; {kept})"
    if cut:
        return f"{head}{stats}   CUT after {wall:.0f} s in {r.get('phase', 'start-up')}"
    return head + stats


def _conjunction_row(seed: int, cap: float) -> str:
    lines, cut, _ = _run_capped(["conjunction", str(seed)], cap)
    r: dict = {}
    for line in lines:
        r.update(line)
    native = f"{r['native_ms']:.0f} ms ({r['states']} states)" if "native_ms" in r else "-"
    if cut:
        native = f"CUT after {cap:.0f} s"
    spot = (f"{r['spot_ms']:.0f} ms ({r['spot_states']} states)" if r.get("spot_ms") is not None
            else "not importable here")  # fmt: skip
    return f"{'10 random patterns / seed ' + str(seed):>36}   native {native:>22}   Spot {spot}"


def measure_conjunction(seed: int) -> None:
    """Table 3: one DFA for the conjunction of 10 random patterns over 40 propositions."""
    from safetychip.automata import spot_available, to_dfa
    from safetychip.ltl import And, random_patterns

    formula = And(*(f for _, f in random_patterns(10, _atoms(40), seed=seed)))
    t0 = time.perf_counter()
    dfa = to_dfa(formula)
    record: dict = {"native_ms": (time.perf_counter() - t0) * 1e3, "states": dfa.num_states}
    record["spot_ms"] = record["spot_states"] = None
    if spot_available():
        t0 = time.perf_counter()
        spot = to_dfa(formula, backend="spot")
        record["spot_ms"] = (time.perf_counter() - t0) * 1e3
        record["spot_states"] = spot.num_states
    _emit(record)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "safety":
        print(json.dumps(measure_safety(sys.argv[2], int(sys.argv[3]))))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "hard":
        kind, n, props, seed, steps = sys.argv[2], *map(int, sys.argv[3:7])
        measure_hard(kind, n, props, seed, steps)
        return
    if len(sys.argv) > 1 and sys.argv[1] == "conjunction":
        measure_conjunction(int(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1", help="seeds of the hard rows (default 0,1)")
    parser.add_argument("--cap", type=float, default=60.0, help="seconds per row (default 60)")
    parser.add_argument("--steps", type=int, default=1000, help="proposals per hard row")
    parser.add_argument("--sizes", default="10,50,100,200,500,1000", help="constraint counts")
    parser.add_argument("--only", choices=("safety", "hard", "conjunction"), help="one table")
    opts = parser.parse_args()
    seeds = [int(s) for s in opts.seeds.split(",")]
    sizes = [int(s) for s in opts.sizes.split(",")]
    if opts.only in (None, "safety"):
        _safety_table(opts.cap)
    if opts.only in (None, "hard"):
        print(
            "\nThe hard cases: random pattern sets with liveness ('liveness': at least n "
            "times, eventually, response, (not) before; 'mixed': every pattern, often "
            "unsatisfiable) and without ('safety'); "
            f"{opts.steps} proposals a row, at most {opts.cap:.0f} s a row"
        )
        print(f"{'constraints':>36} {'compile ms':>11} {'abort ms':>11} {'median ms':>10} "
              f"{'p99 ms':>9} {'max ms':>10} {'deadline':>11}")  # fmt: skip
        rows = [(kind, n, p) for kind in ("liveness", "mixed") for p in (40, 60) for n in sizes]
        rows += [("safety", n, 60) for n in sizes if n >= 200]
        for kind, n, props in rows:
            for seed in seeds:
                print(_hard_row(kind, n, props, seed, opts.steps, opts.cap), flush=True)
    if opts.only in (None, "conjunction"):
        print("\nOne automaton for a whole specification: to_dfa of a conjunction")
        for seed in seeds:
            print(_conjunction_row(seed, opts.cap), flush=True)


def _safety_table(cap: float) -> None:
    jobs = ([("demo", 10)] if DEMO.exists() else []) + [("safety", n) for n in (1, 10, 50, 100)]
    print(
        "check + commit per step; 'first' decides each product state for the first time, "
        "'warm' replays the same episode"
    )
    print(
        f"{'constraints':>22} {'compile ms':>11} {'first median µs':>16} {'first p90 µs':>13} "
        f"{'warm median µs':>15} {'refused':>10} {'peak RSS MB':>12}"
    )
    scan = None
    for kind, n in jobs:
        lines, cut, _ = _run_capped(["safety", kind, str(n)], cap)
        label = "ten robot-demo" if kind == "demo" else f"{n} random patterns"
        if cut or not lines:
            print(f"{label:>22}   CUT after {cap:.0f} s")
            continue
        r = lines[-1]
        scan = r["scan_median_us"] if kind == "demo" else scan
        print(
            f"{label:>22} {r['compile_ms']:11.1f} {r['cold_median_us']:16.1f} "
            f"{r['cold_p90_us']:13.1f} {r['warm_median_us']:15.1f} "
            f"{r['refused']:>5}/{r['steps']:<4} {r['peak_mb']:12.1f}"
        )
    if scan is not None:
        print(f"{'ten demo, edge scan':>22} {'':11} {scan:16.1f}   (the original Safety Chip's "
              "step: every outgoing guard of every automaton evaluated)")  # fmt: skip


if __name__ == "__main__":
    main()
