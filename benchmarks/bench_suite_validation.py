"""Whole-suite validation: every task x k = 1..5, safe-plan search included, timed.

For every task of both suites: the example plan runs unmonitored (it must execute and reach
the goal); for each k the example's trace is judged by ``evaluate`` against the first k
constraints; and a safe plan is searched for over the environment x monitor product, then
verified by a monitored rollout. Prints the shares, a per-task table and the timings.

Usage: ``python benchmarks/bench_suite_validation.py`` (target: whole suite <= 60 s).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from safetychip.envs import load_tasks
from safetychip.experiments import validate_suite

TARGET_SECONDS = 60.0


def main() -> int:
    began = time.perf_counter()
    tasks = load_tasks()
    loaded = time.perf_counter() - began
    report = validate_suite(tasks)
    total = time.perf_counter() - began

    print(report.table())
    print()
    print(report.summary())
    lengths = [len(p.plan) - 1 for t in report.tasks for p in t.safe_plans if p is not None]
    expanded = [p.expanded for t in report.tasks for p in t.safe_plans if p is not None]
    print(f"safe plans: {statistics.median(lengths):.0f} actions median (max {max(lengths)}), "
          f"{statistics.median(expanded):.0f} nodes expanded median "
          f"(max {max(expanded)})")  # fmt: skip
    for t in report.tasks:
        for failure in t.failures:
            print("FAILED:", failure)
    print(f"\nload_tasks (with scene checks): {loaded:.2f} s")
    print(f"validate_suite: {report.seconds:.1f} s for {report.pairs} (task, k) pairs")
    print(f"total: {total:.1f} s (target <= {TARGET_SECONDS:.0f} s)")
    ok = report.safe_plan_share == 1.0 and report.example_share == 1.0 and total <= TARGET_SECONDS
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
