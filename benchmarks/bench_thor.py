"""A step of the AI2-THOR-style environment on an 80-object scene (target: median <= 0.5 ms).

Run: .venv/bin/python benchmarks/bench_thor.py

``ThorEnv("FloorPlan2")`` (80 objects) tracking 12 propositions of every kind; each step is a
random admissible action of the current world (drawn before the clock starts), timed around
``env.step`` alone (which also renders the observation); an episode restarts after 40 steps
(DONE is not stepped). Prints the median, 99th percentile and worst time of 5,000 steps, then
the same for ``env.preview`` of the same actions.
"""

from __future__ import annotations

import random
import statistics
import time

from safetychip.envs.thor import ThorEnv

STEPS = 5_000
PROPS = [
    "agent_at(fridge)", "agent_at(laptop)", "is_grabbed(vase)", "is_open(fridge)",
    "is_toggled(stove_burner)", "is_broken(vase)", "is_dirty(plate)", "is_sliced(apple)",
    "is_cooked(egg)", "is_filled(mug,water)", "is_in(egg,fridge)", "is_on(pan,stove_burner)",
]  # fmt: skip


def summary(name: str, times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    return (f"  {name}: median {statistics.median(ms):.3f} ms, p99 "
            f"{ms[int(0.99 * len(ms))]:.3f} ms, worst {ms[-1]:.3f} ms")  # fmt: skip


def main() -> None:
    env = ThorEnv("FloorPlan2").track(PROPS)
    rng = random.Random(0)
    steps: list[float] = []
    previews: list[float] = []
    while len(steps) < STEPS:
        env.reset()
        for _ in range(40):
            action = rng.choice([a for a in env.admissible_actions() if a != "done"])
            start = time.perf_counter()
            env.preview(action, PROPS)
            previews.append(time.perf_counter() - start)
            start = time.perf_counter()
            env.step(action)
            steps.append(time.perf_counter() - start)
    print(f"ThorEnv FloorPlan2 ({len(env.objects)} objects), {len(PROPS)} tracked propositions, "
          f"{len(steps)} random admissible actions")  # fmt: skip
    print(summary("step", steps) + " (target: median <= 0.5 ms)")
    print(summary("preview", previews))


if __name__ == "__main__":
    main()
