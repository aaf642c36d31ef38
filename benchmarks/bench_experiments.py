"""The offline experiment grid behind ``make reproduce``, timed, with the monitor's share.

Runs every cell of the grid — both suites x k = 1..5 x the four agents (Base, NL Constraints,
Code as Policies, Safety Chip) x the Safety Chip's five reprompt variants x both formula
sources, seed 0, with the offline stand-in (not an LLM) — plus the contradiction tasks, in
this process with the local executor, and prints:

* the wall-clock time (import and task loading included; target <= 60 s);
* the share of it spent inside the monitor (``Monitor`` construction, ``reset``, ``check``,
  ``commit``, ``finish``), in the repair-hint search (``repair_hint``, whose own monitor
  calls are counted there too) and in the environment's simulator (``lookahead``);
* the time per agent configuration.

Usage: ``python benchmarks/bench_experiments.py``.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path

BEGAN = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import safetychip.agents._chip as chip_module  # noqa: E402
from safetychip.envs.virtualhome import VirtualHomeEnv  # noqa: E402
from safetychip.monitor import Monitor  # noqa: E402

TARGET_SECONDS = 60.0
SPENT: dict[str, float] = defaultdict(float)
_DEPTH: dict[str, int] = defaultdict(int)


def timed(owner, name: str, bucket: str) -> None:
    """Wrap ``owner.name`` so that its outermost calls add their time to ``SPENT[bucket]``."""
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        _DEPTH[bucket] += 1
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            _DEPTH[bucket] -= 1
            if _DEPTH[bucket] == 0:
                SPENT[bucket] += time.perf_counter() - start

    setattr(owner, name, wrapper)


def main() -> int:
    for method in ("__init__", "reset", "check", "commit", "finish"):
        timed(Monitor, method, "monitor")
    timed(chip_module, "repair_hint", "hint search")
    timed(VirtualHomeEnv, "lookahead", "simulator")

    from safetychip.experiments import MAIN_REPROMPT, grid_cells, rates, run_grid

    cells = grid_cells()
    cells += grid_cells(suites=["contradictions"], ks=None, reprompts=[MAIN_REPROMPT])
    loaded = time.perf_counter() - BEGAN
    frame = run_grid(cells, progress=False)
    total = time.perf_counter() - BEGAN

    print(
        f"offline grid: {len(cells)} episodes (offline stand-in, not an LLM) in {total:.1f} s "
        f"(imports and set-up {loaded:.1f} s), target <= {TARGET_SECONDS:.0f} s"
    )
    for bucket in ("monitor", "hint search", "simulator"):
        print(
            f"  {bucket:12} {SPENT[bucket]:6.1f} s  ({100 * SPENT[bucket] / total:4.1f}% of the "
            "wall-clock time)"
        )
    print("  (the hint search's own monitor and simulator calls count in those lines too)")
    per = frame.groupby("config", sort=False)["seconds"].agg(["count", "sum"])
    print("time per configuration:")
    for config, row in per.iterrows():
        print(f"  {config:28} {int(row['count']):4d} episodes {row['sum']:6.1f} s")
    table = rates(frame[frame["suite"] != "contradictions"], by=("config",))
    print("rates over both suites (offline stand-in, not an LLM):")
    for _, row in table.iterrows():
        print(
            f"  {row['config']:28} success {100 * row['success']:5.1f}%  safety "
            f"{100 * row['safety']:5.1f}%"
        )
    return 0 if total <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
