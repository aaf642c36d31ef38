"""Throughput of ``safetychip check`` batch mode on tests/data/verdicts.jsonl.

Prints lines per second, end to end (a fresh ``python -m safetychip.cli check`` process, so parsing
and DFA construction for every distinct formula are included) and warm (in process, automata
already cached), for the DFA engine (the batch default) and the direct evaluator.
"""

from __future__ import annotations

import contextlib
import io
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

VERDICTS = Path(__file__).resolve().parent.parent / "tests" / "data" / "verdicts.jsonl"


def cold(engine: str) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh process answering the whole file."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with VERDICTS.open("rb") as stdin:
        subprocess.run([sys.executable, "-m", "safetychip.cli", "check", "--engine", engine],
                       stdin=stdin, stdout=subprocess.DEVNULL, check=True)  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def warm(engine: str, text: str) -> float:
    """Seconds for the in-process CLI to answer *text* once its caches are filled."""
    from safetychip.cli import main

    best = float("inf")
    for _ in range(3):
        sys.stdin = io.StringIO(text)
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["check", "--engine", engine]) == 0
        best = min(best, time.perf_counter() - start)
    sys.stdin = sys.__stdin__
    return best


def main() -> None:
    text = VERDICTS.read_text(encoding="utf-8")
    n = len(text.splitlines())
    distinct = len({json.loads(line)["formula"] for line in text.splitlines()})
    print(f"safetychip check, batch mode: {n} lines, {distinct} distinct formulas")
    for engine in ("dfa", "evaluate"):
        wall, cpu = cold(engine)
        print(f"  {engine:8s} cold process: {wall:6.2f} s wall, {cpu:6.2f} s CPU, "
              f"{n / cpu:8.0f} lines/s (CPU)")  # fmt: skip
    for engine in ("dfa", "evaluate"):
        seconds = warm(engine, text)
        print(f"  {engine:8s} warm caches:  {seconds:6.3f} s, {n / seconds:8.0f} lines/s")


if __name__ == "__main__":
    main()
