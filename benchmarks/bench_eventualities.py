"""A mission of n eventualities in one constraint (``F q0 & … & F q(n-1)``, "visit these n
rooms"): seconds until the monitor is ready and has given its first verdict.

Run: .venv/bin/python benchmarks/bench_eventualities.py [--sizes 10,12,16] [--repeat 7]

Each run starts cold (the automaton cache is cleared), builds ``Monitor([mission])``,
resets it in the state where no room is visited, and checks the first visit. The table gives
the median and the worst case over the runs, and how many automata the monitor runs (a
conjunction this large is kept factored, conjunct by conjunct). Targets (issue 44): n = 12
within 0.2 s, n = 16 within 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import time

from safetychip.monitor import Monitor, compile_dfa


def decide(n: int) -> tuple[float, int]:
    """Seconds from nothing to the first verdict on the n-eventuality mission, and how many
    automata the monitor runs."""
    compile_dfa.cache_clear()
    start = time.perf_counter()
    monitor = Monitor([" & ".join(f"F q{i}" for i in range(n))])
    monitor.reset({f"q{i}": False for i in range(n)})
    verdict = monitor.check({f"q{i}": i == 0 for i in range(n)})
    seconds = time.perf_counter() - start
    if not verdict.safe:
        raise AssertionError(f"the first visit of the {n}-room mission was refused: {verdict}")
    return seconds, len(monitor.automata)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,12,16", help="mission sizes (default 10,12,16)")
    parser.add_argument("--repeat", type=int, default=7, help="cold runs per size (default 7)")
    opts = parser.parse_args()
    print(f"{'n':>4} {'median ms':>10} {'worst ms':>10} {'automata':>9}")
    for n in (int(s) for s in opts.sizes.split(",")):
        runs = [decide(n) for _ in range(opts.repeat)]
        times = [t for t, _ in runs]
        print(f"{n:>4} {statistics.median(times) * 1e3:>10.2f} {max(times) * 1e3:>10.2f} "
              f"{runs[0][1]:>9}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
