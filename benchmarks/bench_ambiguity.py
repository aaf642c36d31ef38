"""What judging an action under a candidate set costs over judging it under one formula.

Run: PYTHONPATH=. .venv/bin/python benchmarks/bench_ambiguity.py

The first task of the four-room suite: its constraints c2…c5 are settled, and its first
sentence ("Don't go to the kitchen before you have been to the bathroom.") is a candidate set
of k = 1…4 readings over the same propositions (``!k W b``, ``!k U b``, ``G !k``,
``G(k -> b)``). An agent proposes random one-proposition changes (one room at a time) for
2,000 steps, with a fresh monitor every 200 steps so that cold decisions count too; each
check is timed, and a SAFE proposal is committed. The same proposals are judged three ways:

* one formula: a :class:`~safetychip.monitor.Monitor` over c2…c5 and the first reading;
* the set: a :class:`~safetychip.monitor.CandidateMonitor` (one product, every reading
  decided on its sub-product, cached per state);
* side by side: k monitors, one per reading, each checked.

Prints the median, 99th percentile and maximum time per check (best of three runs) and the
ratio of the set's median to the one formula's (the issue's target: at most 2 for k ≤ 4).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from safetychip.envs import load_tasks
from safetychip.monitor import CandidateMonitor, CandidateSet, Constraint, Monitor, Status

STEPS, FRESH, REPEATS = 2000, 200, 3
K, B = '"agent_at(kitchen)"', '"agent_at(bathroom)"'
READINGS = [f"!{K} W {B}", f"!{K} U {B}", f"G !{K}", f"G({K} -> {B})"]


def proposals(atoms: list[str], rooms: list[str], seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(atoms) for _ in range(STEPS)]


def flip(state: dict[str, bool], name: str, rooms: list[str]) -> dict[str, bool]:
    """The state with *name* flipped (a room: the agent moves there)."""
    if name in rooms:
        return {**state, **dict.fromkeys(rooms, False), name: True}
    return {**state, name: not state[name]}


def run(make: Callable[[], list[Monitor]], flips: list[str], atoms: list[str],
        rooms: list[str]) -> tuple[list[float], list[str]]:  # fmt: skip
    """Time each check (all monitors of *make*); returns the times and the verdicts."""
    times: list[float] = []
    verdicts: list[str] = []
    start = {a: False for a in atoms} | {rooms[0]: True}
    for i, name in enumerate(flips):
        if i % FRESH == 0:
            monitors, state = make(), start
            for m in monitors:
                m.reset({a: state[a] for a in m.atoms})
        proposal = flip(state, name, rooms)
        t0 = time.perf_counter()
        found = [m.check({a: proposal[a] for a in m.atoms}) for m in monitors]
        times.append(time.perf_counter() - t0)
        if len(found) == 1:
            status = found[0].status
        else:  # side by side: the readings' verdicts combined as the set combines them
            safe = [v.safe for v in found]
            status = (Status.SAFE if all(safe) else Status.VIOLATION if not any(safe)
                      else Status.AMBIGUOUS)  # fmt: skip
        verdicts.append(status.value)
        if status is Status.SAFE:
            for m in monitors:
                m.commit({a: proposal[a] for a in m.atoms})
            state = proposal
    return times, verdicts


def monitors(kind: type[Monitor], settled: list[Any], invariants: list[Any],
             extras: list[list[Any]]) -> list[Monitor]:  # fmt: skip
    """One fresh monitor of *kind* per item of *extras*, over *settled* and that item."""
    return [kind([*settled, *extra], invariants, deadline=None) for extra in extras]


def summary(times: list[float]) -> tuple[float, float, float]:
    ordered = sorted(times)
    return (statistics.median(ordered) * 1e6, ordered[int(0.99 * len(ordered))] * 1e6,
            ordered[-1] * 1e6)  # fmt: skip


def main() -> None:
    task = load_tasks(suite="four_room")[0]
    settled = list(task.constraints[1:])
    env = task.make_env()
    invariants = env.invariants(sorted({a for c in task.constraints for a in c.formula.atoms()}))
    atoms = sorted(CandidateMonitor([*settled, CandidateSet.parse(READINGS, name="c1")],
                                    invariants).atoms)  # fmt: skip
    rooms = [a for a in atoms if a.startswith("agent_at(") and a[9:-1] in env.rooms]
    flips = proposals(atoms, rooms)
    print(
        f"{task.id}: {len(settled)} settled constraints, {len(atoms)} propositions, "
        f"{STEPS} checks, fresh monitors every {FRESH}; times in microseconds"
    )
    print(f"{'k':>2} {'way':<13} {'median':>8} {'p99':>9} {'max':>9} {'ratio':>6}")
    single = None
    for k in range(1, 5):
        texts = READINGS[:k]
        one = [Constraint.parse(texts[0], name="c1")]
        readings = [[Constraint.parse(t, name="c1")] for t in texts]
        s = [CandidateSet.parse(texts, "kitchen after bathroom", name="c1")]
        ways: list[tuple[str, Callable[[], list[Monitor]]]] = [
            ("one formula", partial(monitors, Monitor, settled, invariants, [one])),
            ("set", partial(monitors, CandidateMonitor, settled, invariants, [s])),
            ("side by side", partial(monitors, Monitor, settled, invariants, readings)),
        ]
        verdicts_of = {}
        for label, make in ways:
            if (k == 1) != (label == "one formula"):
                continue
            best = None
            for _ in range(REPEATS):
                times, verdicts = run(make, flips, atoms, rooms)
                found = summary(times)
                best = found if best is None or found[0] < best[0] else best
            verdicts_of[label] = verdicts
            assert best is not None
            if label == "one formula" and k == 1:
                single = best[0]
            ratio = best[0] / single if single else float("nan")
            print(f"{k:>2} {label:<13} {best[0]:>8.1f} {best[1]:>9.1f} {best[2]:>9.1f} "
                  f"{ratio:>6.2f}")  # fmt: skip
        if k > 1:  # the side-by-side way is the reference the set must agree with
            same = verdicts_of["set"] == verdicts_of["side by side"]
            share = verdicts_of["set"].count("ambiguous") / STEPS
            print(f"   the set's verdicts equal the side-by-side ones: {same}; "
                  f"ambiguous: {share:.1%}")  # fmt: skip


if __name__ == "__main__":
    main()
