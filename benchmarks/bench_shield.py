"""What the shield costs over doing its work by hand.

Run: .venv/bin/python benchmarks/bench_shield.py

The ten robot-demo constraints over a proposition-level environment
(:class:`safetychip.envs.PropositionEnv`): an agent proposes random one-proposition changes
for 2,000 steps. The same proposals are played three ways:

* monitor alone: ``monitor.check`` of the proposal's state, ``monitor.commit`` when SAFE;
* by hand: ``env.lookahead``, ``monitor.check``, then ``env.step`` and ``monitor.commit``
  when SAFE (the work the loop has to do);
* shielded: ``shield.propose(action)`` (the same work, plus the judgement and the record).

Prints the median and worst (99th percentile and maximum) time per proposal, and the
shield's overhead over the by-hand loop. Each way runs five times; the best run counts. Then
the same comparison on VirtualHome (the book task's constraints, 300 random candidate actions
per run), where the environment's own simulation dominates.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path

from safetychip.envs import PropositionEnv
from safetychip.monitor import Constraint, Monitor
from safetychip.shield import Shield

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "spot" / "demo_constraints.json"
STEPS, REPEATS = 2000, 5


def proposals(atoms: list[str], seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(atoms) for _ in range(STEPS)]


def action(env: PropositionEnv, name: str) -> str:
    return f"clear {name}" if env.truth([name])[name] else f"set {name}"


def monitor_alone(monitor: Monitor, flips: list[str]) -> list[float]:
    state = dict.fromkeys(monitor.atoms, False)
    monitor.reset(state)
    times = []
    for name in flips:
        proposal = {**state, name: not state[name]}
        t0 = time.perf_counter()
        if monitor.check(proposal).safe:
            monitor.commit(proposal)
            state = proposal
        times.append(time.perf_counter() - t0)
    return times


def by_hand(env: PropositionEnv, monitor: Monitor, flips: list[str]) -> list[float]:
    props = monitor.atoms
    env.track(props)
    _, info = env.reset()
    monitor.reset(info["states"][0])
    times = []
    for name in flips:
        text = action(env, name)
        t0 = time.perf_counter()
        ahead = env.lookahead(text, props)
        if monitor.check(ahead.states).safe:
            *_, info = env.step(text)
            monitor.commit(info["states"])
        times.append(time.perf_counter() - t0)
    return times


def shielded(env: PropositionEnv, monitor: Monitor, flips: list[str]) -> list[float]:
    shield = Shield.of(env, monitor)
    shield.reset()
    times = []
    for name in flips:
        text = action(env, name)
        t0 = time.perf_counter()
        shield.propose(text)
        times.append(time.perf_counter() - t0)
    return times


def virtualhome() -> tuple[float, float]:
    """Median microseconds per proposal, by hand and shielded, on the book task."""
    from safetychip.envs import VirtualHomeEnv, load_tasks, task_monitor

    task = next(t for t in load_tasks() if t.id == "mobile_manipulation/apartment_1/02")
    env, monitor = VirtualHomeEnv(task=task), task_monitor(task)
    rng = random.Random(0)
    actions = env.candidate_actions(task)
    plan = [rng.choice(actions) for _ in range(300)]

    def hand() -> list[float]:
        props = monitor.atoms
        env.track(props)
        _, info = env.reset()
        monitor.reset(info["states"][0])
        times = []
        for text in plan:
            t0 = time.perf_counter()
            ahead = env.lookahead(text, props)
            if ahead.error is None and monitor.check(ahead.states).safe:
                *_, info = env.step(text)
                monitor.commit(info["states"])
            times.append(time.perf_counter() - t0)
        return times

    def shield_run() -> list[float]:
        shield = Shield.of(env, monitor)
        shield.reset()
        times = []
        for text in plan:
            t0 = time.perf_counter()
            shield.propose(text)
            times.append(time.perf_counter() - t0)
        return times

    by = min(statistics.median(hand()) for _ in range(REPEATS))
    sh = min(statistics.median(shield_run()) for _ in range(REPEATS))
    return by * 1e6, sh * 1e6


def summary(times: list[float]) -> tuple[float, float, float]:
    ordered = sorted(times)
    p99 = ordered[int(0.99 * (len(ordered) - 1))]
    return statistics.median(times) * 1e6, p99 * 1e6, ordered[-1] * 1e6


def main() -> None:
    constraints = [Constraint.from_dict(d) for d in json.loads(DEMO.read_text())]
    monitor = Monitor(constraints)
    atoms = list(monitor.atoms)
    env = PropositionEnv(atoms)
    flips = proposals(atoms)
    rows = {}
    for label, run in (
        ("monitor check + commit alone", lambda: monitor_alone(monitor, flips)),
        ("by hand (lookahead, check, step, commit)", lambda: by_hand(env, monitor, flips)),
        ("shielded (shield.propose)", lambda: shielded(env, monitor, flips)),
    ):
        best = min((run() for _ in range(REPEATS)), key=statistics.median)
        rows[label] = summary(best)
    print(
        f"ten robot-demo constraints, {len(atoms)} propositions, {STEPS} proposals, "
        f"best of {REPEATS} runs (microseconds per proposal)"
    )
    print(f"{'':44}{'median':>9}{'p99':>9}{'max':>9}")
    for label, (median, p99, worst) in rows.items():
        print(f"{label:44}{median:9.1f}{p99:9.1f}{worst:9.1f}")
    hand = rows["by hand (lookahead, check, step, commit)"][0]
    shield = rows["shielded (shield.propose)"][0]
    print(
        f"shield overhead over the by-hand loop: {shield - hand:+.1f} us, "
        f"{100 * (shield / hand - 1):+.1f}% (median)"
    )
    by, sh = virtualhome()
    print(
        f"VirtualHome book task, median per proposal: by hand {by:.0f} us, shielded {sh:.0f} us "
        f"({100 * (sh / by - 1):+.1f}%)"
    )


if __name__ == "__main__":
    main()
