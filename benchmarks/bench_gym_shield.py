"""What the Gymnasium shield wrapper costs per step over the bare MiniGrid step.

Run: .venv/bin/python benchmarks/bench_gym_shield.py [--quick]

``MiniGrid-LavaCrossingS9N1-v0`` under ``G !"on_lava"``; a random walk (turn left, turn right,
move forward) of 3,000 steps, the same actions for every way:

* bare: ``env.step(action)`` of the environment as ``gymnasium.make`` returns it;
* shielded, deep-copy preview: ``ShieldWrapper(env, MiniGridLabeller(), ...)``;
* shielded, one-step model: ``ShieldWrapper(..., model=labeller.model)`` (its steps take the
  wrapper's fast path once the monitor has met their moves).

A refused action makes the wrapper try substitutes (each a preview), so the walks differ in
where they go; the bare walk's lava steps end episodes, the shielded ones' never do. Prints
the median, 99th percentile and maximum time per step, and the median overhead of each
shielded way over the bare median. Each way runs three times; the best run counts.

Since the walks differ, the shield's own time is also measured directly, step by step: the
shielded step's time minus the time the environment it wraps spent in its own ``step``
(timed inside the wrapper), on the same walk; its median, 99th percentile and maximum. And
the one-step model's walk is replayed on a bare environment (the actions that ran, resets
where it reset): the difference of the two medians is the overhead on the same trajectory,
the shield's own time plus what its work costs the environment's step (caches).

Then batched monitoring (:class:`safetychip.monitor.BatchMonitor`) of N = 1,024 traces under
``G !"on_lava"`` and the DoorKey ordering constraint: one ``commit`` of N random letters per
step (labelling the N environments is not included), median time per environment per step.

Last, the whole batched shield: :class:`safetychip.gym.VectorShieldWrapper` (one-step model,
so batched previews and labels) over a ``SyncVectorEnv`` of N = 1,024 copies of the same
world, against the bare vector environment, the same random actions, their steps
interleaved: the median step time of each, the difference per environment, and the shield's
own time (the shielded step minus the inner vector step), in wall-clock and in CPU time (a
loaded machine inflates the first).

The last two lines compare with the targets of issue 35, each by two measures: the single
environment (one-step model) ≤ 10 µs a step, by its own time and by its overhead on the same
walk; the batched shield ≤ 2 µs per environment per step at N = 1,024, by its own CPU time
and by the difference of the interleaved medians (the shield's reads of the copies warm the
caches for their step, so the difference can be the smaller). ``--quick``: one run of each
way, 1,000 single steps, 256 copies.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import gymnasium as gym
import minigrid  # noqa: F401 - registers the MiniGrid environments
import numpy as np

from safetychip.gym import MiniGridLabeller, ShieldWrapper, VectorShieldWrapper
from safetychip.monitor import BatchMonitor, Monitor

NAME, STEPS, REPEATS = "MiniGrid-LavaCrossingS9N1-v0", 3000, 3
CONSTRAINTS = ['G !"on_lava"']


def walk(env: gym.Env, actions: list[int]) -> list[float]:
    env.reset(seed=0)
    times = []
    for action in actions:
        start = time.perf_counter()
        _, _, terminated, truncated, _ = env.step(action)
        times.append(time.perf_counter() - start)
        if terminated or truncated:
            env.reset()
    return times


def own_time(env: ShieldWrapper, actions: list[int]) -> list[float]:
    """Per step: the shielded step's time minus the inner environment's ``step`` time."""
    inner = env.adapter.gym_env
    step, spent = inner.step, [0.0]

    def timed(action: int) -> tuple:
        start = time.perf_counter()
        try:
            return step(action)
        finally:
            spent[0] += time.perf_counter() - start

    inner.step = timed
    env.reset(seed=0)
    times = []
    for action in actions:
        spent[0] = 0.0
        start = time.perf_counter()
        _, _, terminated, truncated, _ = env.step(action)
        times.append(time.perf_counter() - start - spent[0])
        if terminated or truncated:
            env.reset()
    return times


def summary(times: list[float]) -> tuple[float, float, float]:
    us = sorted(t * 1e6 for t in times)
    return statistics.median(us), us[int(0.99 * len(us))], us[-1]


def main() -> tuple[float, float]:
    """Returns the one-step model's own median time per step, and its overhead over the bare
    environment on the same walk (µs)."""
    actions = [int(a) for a in np.random.default_rng(0).integers(3, size=STEPS)]
    labeller = MiniGridLabeller()
    ways = {
        "bare": lambda: gym.make(NAME),
        "shielded, deep-copy preview": lambda: ShieldWrapper(gym.make(NAME), labeller, CONSTRAINTS),
        "shielded, one-step model": lambda: ShieldWrapper(
            gym.make(NAME), labeller, CONSTRAINTS, model=labeller.model
        ),
    }
    results = {}
    for way, make in ways.items():
        runs = [summary(walk(make(), actions)) for _ in range(REPEATS)]
        results[way] = min(runs)
    bare = results["bare"][0]
    print(f"{NAME}, {STEPS} random steps, best of {REPEATS} runs (µs per step)")
    print(f"{'':32} {'median':>9} {'p99':>9} {'max':>9} {'overhead':>10}")
    for way, (median, p99, worst) in results.items():
        overhead = "" if way == "bare" else f"{median - bare:+10.1f}"
        print(f"{way:32} {median:9.1f} {p99:9.1f} {worst:9.1f} {overhead:>10}")
    print("the shield's own time per step (shielded step minus the inner step, same walk):")
    for way, make in list(ways.items())[1:]:
        median, p99, worst = min(summary(own_time(make(), actions)) for _ in range(REPEATS))
        print(f"{way:32} {median:9.1f} {p99:9.1f} {worst:9.1f}")
    shielded, bare_walk = min(same_walk(ways["shielded, one-step model"], actions)
                              for _ in range(REPEATS))  # fmt: skip
    print(f"one-step model against the bare environment walking the shielded walk (the "
          f"actions that ran): medians {shielded:.1f} and {bare_walk:.1f}, overhead "
          f"{shielded - bare_walk:+.1f}")  # fmt: skip
    return median, shielded - bare_walk


def same_walk(make: Any, actions: list[int]) -> tuple[float, float]:
    """The median step times of a shielded walk and of the bare environment replaying the
    actions that ran in it (resetting where it did)."""
    shielded = make()
    shielded.reset(seed=0)
    times, ran = [], []
    for action in actions:
        start = time.perf_counter()
        _, _, terminated, truncated, info = shielded.step(action)
        times.append(time.perf_counter() - start)
        ran.append((info["shield"].executed, terminated or truncated))
        if terminated or truncated:
            shielded.reset()
    bare = gym.make(NAME)
    bare.reset(seed=0)
    replayed = []
    for action, ended in ran:
        if action is None:  # nothing ran: the shielded step returned without stepping
            continue
        start = time.perf_counter()
        bare.step(action)
        replayed.append(time.perf_counter() - start)
        if ended:
            bare.reset()
    return summary(times)[0], summary(replayed)[0]


def batched(n: int = 1024, steps: int = 300) -> None:
    monitor = Monitor(['G !"on_lava"', '!"is_open(door)" W "is_carrying(key)"'])
    batch = BatchMonitor(monitor, n)
    rng = np.random.default_rng(0)
    batch.reset(np.zeros((n, len(batch.atoms)), bool))
    letters = rng.random((steps, n, len(batch.atoms))) < 0.05
    times = []
    for row in letters:
        start = time.perf_counter()
        safe = batch.check(row)
        batch.commit(row, safe)
        times.append(time.perf_counter() - start)
    median, p99, worst = summary(times)
    print(
        f"BatchMonitor, N = {n}, check + commit of {steps} steps: {median / n:.2f} µs per "
        f"environment per step (median; p99 {p99 / n:.2f}, max {worst / n:.2f})"
    )


def timed_inner(env: Any, clock: Any) -> list[float]:
    """Time the inner environment's ``step`` of the wrapper *env* by *clock*: the list holds
    the time it spent since the list was last cleared."""
    inner = env.env
    step, spent = inner.step, [0.0]

    def timed(actions: Any) -> tuple:
        start = clock()
        try:
            return step(actions)
        finally:
            spent[0] += clock() - start

    inner.step = timed
    return spent


def vector(n: int = 1024, steps: int = 30) -> tuple[float, float]:
    """Returns the shield's own median CPU time per environment per step, and the difference
    of the shielded and bare median steps per environment (µs)."""
    labeller = MiniGridLabeller()
    actions = np.random.default_rng(0).integers(3, size=(steps, n))

    def make() -> gym.vector.VectorEnv:
        return gym.make_vec(NAME, num_envs=n, vectorization_mode="sync")

    # bare and shielded steps interleaved, so that the load of the machine falls on both
    walls: dict[str, list[float]] = {"bare": [], "shielded": []}
    own: dict[Any, list[float]] = {time.perf_counter: [], time.process_time: []}
    for clock, times in own.items():
        shielded = VectorShieldWrapper(make(), labeller, CONSTRAINTS, model=labeller.model)
        spent = timed_inner(shielded, clock)
        bare = make()
        shielded.reset(seed=0)
        bare.reset(seed=0)
        for row in actions:
            spent[0] = 0.0
            start, started = time.perf_counter(), clock()
            shielded.step(row)
            walls["shielded"].append(time.perf_counter() - start)
            times.append(clock() - started - spent[0])
            start = time.perf_counter()
            bare.step(row)
            walls["bare"].append(time.perf_counter() - start)
    medians = {way: statistics.median(wall) * 1e6 for way, wall in walls.items()}
    extra = (medians["shielded"] - medians["bare"]) / n
    print(
        f"VectorShieldWrapper, N = {n}, {steps} steps: bare {medians['bare'] / n:.1f} µs, "
        f"shielded {medians['shielded'] / n:.1f} µs per environment per step (median); "
        f"the shield adds {extra:.1f} µs per environment"
    )
    for clock, name in ((time.perf_counter, "wall-clock"), (time.process_time, "CPU")):
        median, _, worst = summary(own[clock])
        print(
            f"  the shield's own {name} time (shielded step minus the inner vector step): "
            f"{median / n:.2f} µs per environment per step (median; max {worst / n:.2f})"
        )
    return median / n, extra


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="one run of each way, 1,000 single steps, 256 copies"
    )
    options = parser.parse_args()
    if options.quick:
        STEPS, REPEATS = 1000, 1
    single, same = main()
    batched()
    per_env, adds = vector(256 if options.quick else 1024)
    print(
        f"target, single environment ≤ 10 µs a step: the shield's own time {single:.1f} µs "
        f"(median, one-step model: {'met' if single <= 10 else 'NOT met'}), +{same:.1f} µs over "
        f"the bare environment on the same walk ({'met' if same <= 10 else 'NOT met'})\n"
        f"target, batched ≤ 2 µs per environment per step: the shield's own {per_env:.2f} µs "
        f"of CPU ({'met' if per_env <= 2 else 'NOT met'}), {adds:+.2f} µs over the bare vector "
        f"step, interleaved ({'met' if adds <= 2 else 'NOT met'})"
    )
