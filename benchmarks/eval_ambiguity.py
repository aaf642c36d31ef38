"""Four policies for an unsettled translation, against the gold formulas.

Run: PYTHONPATH=. .venv/bin/python benchmarks/eval_ambiguity.py [--rollouts N] [--sets A B …]

Prints :func:`safetychip.experiments.ambiguity_table` for the VirtualHome task suite (28
tasks, five sentences each, the example plan then safe replanning) and for labelled sentence
sets (each sentence whose translation is unsettled, N seeded random agents in a
proposition-level environment), then the questions the run-time policy asked against the
picks pick-first needs. See :mod:`safetychip.experiments._ambiguity` for the policies and
what is counted.
"""

from __future__ import annotations

import argparse
import time

from safetychip.experiments import ambiguity_table, policy_rows

SETS = ("heldout/sentences.jsonl", "heldout_2/sentences.jsonl", "fresh_21/sentences.jsonl",
        "fresh_22/sentences.jsonl")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=10, help="random agents per sentence")
    parser.add_argument("--sets", nargs="*", default=list(SETS), help="under data/translation")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = policy_rows("tasks")
    rows += policy_rows("sentences", sets=args.sets, rollouts=args.rollouts)
    print(ambiguity_table(rows))
    print()
    for setting in ("tasks", "sentences"):
        by = {r.policy: r for r in rows if r.setting == setting}
        runtime, first = by["runtime"], by["pick_first"]
        print(f"{setting}: {runtime.units} units, {runtime.ambiguous} with an unsettled "
              f"translation ({runtime.uncovered} whose set misses the gold formula); run time "
              f"asked {runtime.questions} questions in {runtime.episodes} episodes "
              f"({runtime.questions / max(runtime.episodes, 1):.2f} per episode, about "
              f"{len(runtime.asked_units)} units ever asked) against {first.picks} picks "
              "pick-first needs up front")  # fmt: skip
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
