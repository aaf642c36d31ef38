"""Wall time of ``safetychip reproduce``, whole and per step, over fresh processes.

Each run is a new ``python -m safetychip reproduce --root DIR`` into a scratch checkout whose
``data/`` is this checkout's (so the committed figures are left alone), as ``make reproduce``
runs it after set-up. Prints the median and the worst of each step and of the whole (issue 36:
the whole within 5 minutes on an idle two-core machine).

Usage: ``python benchmarks/bench_reproduce.py [RUNS]`` (default 1; a run takes minutes).
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DONE = re.compile(r"^(\w+): done in (?:(\d+) min )?([\d.]+) s$", re.MULTILINE)


def one_run() -> tuple[float, dict[str, float]]:
    """Wall seconds of one reproduction and of each of its steps (as it printed them)."""
    with tempfile.TemporaryDirectory(prefix="bench-reproduce-") as scratch:
        (Path(scratch) / "data").symlink_to(ROOT / "data", target_is_directory=True)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "safetychip", "reproduce", "--root", scratch],
            capture_output=True, text=True, check=True, env={**os.environ, "MPLBACKEND": "Agg"},
        )  # fmt: skip
        wall = time.perf_counter() - start
    steps = {name: 60 * int(m or 0) + float(s) for name, m, s in DONE.findall(done.stdout)}
    return wall, steps


def main(runs: int) -> None:
    walls, steps = [], {}
    for _ in range(runs):
        wall, times = one_run()
        walls.append(wall)
        for name, seconds in times.items():
            steps.setdefault(name, []).append(seconds)
    print(f"safetychip reproduce, {runs} fresh run(s) on {os.cpu_count()} cores")
    print(f"{'step':<26} {'median s':>9} {'worst s':>9}")
    for name, seconds in steps.items():
        print(f"{name:<26} {statistics.median(seconds):>9.1f} {max(seconds):>9.1f}")
    print(f"{'whole (process)':<26} {statistics.median(walls):>9.1f} {max(walls):>9.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
