"""How fast the Code-as-Policies sandbox stops each bomb of ``tests/test_agents_sandbox.py``.

Each bomb (a program that once ran for minutes inside one interpreter step, overflowed the
stack or exhausted memory) is run ``--repeat`` times with skills that print their arguments,
as the agent's skills do. The table gives the median and the worst wall-clock time until the
typed error, and the peak memory the run allocated (``tracemalloc``, in a run of its own since
tracing slows Python down).

Usage::

    python benchmarks/bench_sandbox.py [--repeat 20]

Target: every bomb stopped by a SandboxError within 0.25 s (the tests allow 3 s); exits 1
otherwise.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_agents_sandbox import BOMBS, printing_skills

from safetychip.agents import run_program
from safetychip.errors import SandboxError

TARGET_SECONDS = 0.25


def stop(program: str) -> tuple[float, str]:
    """Seconds until *program* is stopped, and the error's type (or 'no error')."""
    _, skills = printing_skills()
    began = time.perf_counter()
    try:
        run_program(program, skills)
    except SandboxError as exc:
        return time.perf_counter() - began, type(exc).__name__
    return time.perf_counter() - began, "no error"


def peak_bytes(program: str) -> int:
    """The peak memory Python allocated while *program* ran until it was stopped."""
    tracemalloc.start()
    try:
        stop(program)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20, help="runs per bomb")
    args = parser.parse_args()
    width = max(map(len, BOMBS))
    print(f"{'bomb':<{width}}  {'error':<12}  {'median ms':>9}  {'worst ms':>8}  {'peak KiB':>8}")
    failed = []
    for name, (program, _, _) in BOMBS.items():
        runs = [stop(program) for _ in range(args.repeat)]
        times = [seconds for seconds, _ in runs]
        errors = {error for _, error in runs}
        error = errors.pop() if len(errors) == 1 else "mixed"
        worst = max(times)
        print(f"{name:<{width}}  {error:<12}  {statistics.median(times) * 1e3:9.2f}  "
              f"{worst * 1e3:8.2f}  {peak_bytes(program) / 1024:8.0f}")  # fmt: skip
        if error == "no error" or worst > TARGET_SECONDS:
            failed.append(name)
    if failed:
        print(f"not stopped by a SandboxError within {TARGET_SECONDS} s: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
