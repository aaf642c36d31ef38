"""A monitored action on the Spot robot's simulated backend (target: median <= 5 ms).

Run: .venv/bin/python benchmarks/bench_spot.py

The ten robot-demo constraints (``data/spot/demo_constraints.json``) under the lab scene's
invariants, through ``Shield.of(env, Monitor(...))``: each proposal is a random admissible
action of the current world (walks pass several waypoints), proposed through the shield
(lookahead, the monitor's judgement, and the step on a :class:`SimulatedBackend` when
admitted). An episode restarts after 30 proposals (DONE is not proposed). Prints the
median, 99th percentile and worst time per proposal over 1,000 proposals.
"""

from __future__ import annotations

import json
import random
import statistics
import time

from safetychip.envs import SpotEnv
from safetychip.monitor import Constraint, Monitor
from safetychip.paths import DATA_DIR
from safetychip.shield import Shield

PROPOSALS = 1_000


def main() -> None:
    entries = json.loads((DATA_DIR / "spot" / "demo_constraints.json").read_text("utf-8"))
    constraints = [Constraint.from_dict(e) for e in entries]
    env = SpotEnv()
    atoms = sorted({a for c in constraints for a in c.formula.atoms()})
    shield = Shield.of(env, Monitor(constraints, env.invariants(atoms)))
    rng = random.Random(0)
    times: list[float] = []
    outcomes: dict[str, int] = {}
    while len(times) < PROPOSALS:
        shield.reset()
        for _ in range(30):
            action = rng.choice([a for a in env.admissible_actions() if a != "done"])
            start = time.perf_counter()
            step = shield.propose(action)
            times.append(time.perf_counter() - start)
            outcomes[step.outcome] = outcomes.get(step.outcome, 0) + 1
    times.sort()
    ms = [t * 1000 for t in times]
    print(f"Spot, simulated backend, {len(constraints)} constraints, {len(ms)} proposals "
          f"({', '.join(f'{k} {v}' for k, v in sorted(outcomes.items()))})")  # fmt: skip
    print(f"  median {statistics.median(ms):.3f} ms, p99 {ms[int(0.99 * len(ms))]:.3f} ms, "
          f"worst {ms[-1]:.3f} ms (target: median <= 5 ms)")  # fmt: skip


if __name__ == "__main__":
    main()
