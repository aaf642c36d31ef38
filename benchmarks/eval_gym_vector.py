"""Batched verdicts equal single verdicts: the vector shield against N single shields.

Run: .venv/bin/python benchmarks/eval_gym_vector.py [--steps 100000]

:class:`safetychip.gym.VectorShieldWrapper` (batched previews and labels, one
:class:`~safetychip.monitor.BatchMonitor` check per round) over N = 100 copies, and 100
:class:`safetychip.gym.ShieldWrapper` s (their fast path on), each copy with the same seed and
the same random actions (all seven of MiniGrid's, so that picking up and toggling take the
one-world previews), with Gymnasium's next-step autoreset; half the steps on
``MiniGrid-LavaCrossingS9N1-v0`` under ``G !"on_lava"``, half on ``MiniGrid-DoorKey-5x5-v0``
under two constraints (never carry the key; keep off the door until it is open). Every step
of every copy must agree: admitted, substituted, the action that ran, the number of refusals,
the reward and the end of the episode. Prints the counts, and exits with status 1 on the
first disagreement.
(``tests/test_gym_vector.py`` compares fewer steps on every test run.)
"""

from __future__ import annotations

import argparse
import sys
import time

import gymnasium as gym
import minigrid  # noqa: F401 - registers the MiniGrid environments
import numpy as np

from safetychip.gym import MiniGridLabeller, ShieldWrapper, VectorShieldWrapper

WORLDS = {
    "MiniGrid-LavaCrossingS9N1-v0": ['G !"on_lava"'],
    "MiniGrid-DoorKey-5x5-v0": ['G !"is_carrying(key)"', '!"agent_at(door)" U "is_open(door)"'],
}
N = 100


def compare(name: str, constraints: list[str], steps: int, seed: int = 0) -> dict[str, int]:
    """Run both ways for *steps* vector steps; the counts, or SystemExit on a disagreement."""
    labeller = MiniGridLabeller()
    vector = VectorShieldWrapper(
        gym.make_vec(name, num_envs=N, vectorization_mode="sync"),
        labeller, constraints, model=labeller.model,
    )  # fmt: skip
    singles = [ShieldWrapper(gym.make(name), labeller, constraints, model=labeller.model)
               for _ in range(N)]  # fmt: skip
    vector.reset(seed=seed)
    for i, single in enumerate(singles):
        single.reset(seed=seed + i)
    rng = np.random.default_rng(seed)
    ended = np.zeros(N, bool)
    counts = {"compared": 0, "refused": 0, "reset": 0}
    for t in range(steps):
        actions = rng.integers(7, size=N)
        _, rewards, terminated, truncated, info = vector.step(actions)
        report = info["shield"]
        for i, single in enumerate(singles):
            if ended[i]:
                single.reset()
                counts["reset"] += 1
                continue
            _, reward, done, cut, single_info = single.step(int(actions[i]))
            expected = single_info["shield"]
            got = (report.admitted[i], report.substituted[i], report.executed[i],
                   report.refusals[i], rewards[i], terminated[i], truncated[i])  # fmt: skip
            want = (expected.admitted, expected.substituted, expected.executed,
                    len(expected.refusals), reward, done, cut)  # fmt: skip
            if tuple(map(_plain, got)) != tuple(map(_plain, want)):
                sys.exit(f"{name}, step {t}, copy {i}: batched {got} != single {want}")
            counts["compared"] += 1
            counts["refused"] += not expected.admitted
        ended = terminated | truncated
    return counts


def _plain(value: object) -> object:
    """A numpy scalar as the Python value it holds."""
    return value.item() if isinstance(value, np.generic) else value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000,
                        help="copy-steps to compare in all (default 100,000)")  # fmt: skip
    options = parser.parse_args()
    start = time.perf_counter()
    total = {"compared": 0, "refused": 0, "reset": 0}
    for name, constraints in WORLDS.items():
        counts = compare(name, constraints, options.steps // len(WORLDS) // N)
        print(f"{name}: {counts}")
        total = {k: total[k] + counts[k] for k in total}
    steps = total["compared"] + total["reset"]
    print(f"batched verdicts equal single verdicts on {steps:,} random copy-steps "
          f"({total['compared']:,} proposals judged, {total['refused']:,} of them refused; "
          f"{total['reset']:,} autoresets) in {time.perf_counter() - start:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
