"""One full Spot robot demo run, offline (target: <= 30 s).

Run: .venv/bin/python benchmarks/bench_spot_demo.py

Both delivery tasks of ``data/spot/tasks.jsonl`` with k = 1..10 constraints by the NL
Constraints, Safety Chip* (llm_explain) and Code as Policies agents, plus the three
task-abortion cases, every reply from the offline stand-in (not an LLM), through
:func:`safetychip.experiments.run_spot_demo`. Prints the wall time, the episodes per second
and the demo table (:func:`safetychip.experiments.spot_demo_table`).
"""

from __future__ import annotations

import time

from safetychip.experiments import run_spot_demo, spot_demo_table


def main() -> None:
    began = time.perf_counter()
    frame = run_spot_demo()
    seconds = time.perf_counter() - began
    print(f"Spot demo, offline stand-in: {len(frame)} episodes in {seconds:.2f} s "
          f"({len(frame) / seconds:.0f} episodes/s; target: <= 30 s)\n")  # fmt: skip
    print(spot_demo_table(frame))


if __name__ == "__main__":
    main()
