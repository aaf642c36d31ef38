"""Speed of the VirtualHome environment: step and preview medians on a 100-object scene.

Runs every task's reference plan in its scene (apartment_1 has 108 objects, apartment_2
has 98) and times each action three ways: ``preview`` on a world it has not seen the
action in, ``step`` without a preview before it, and ``step`` right after ``preview`` of the
same action (which reuses the preview's simulation). It then times VirtualHome's own
deep-copying step (``in_place=False``) against the shallow fork the environment uses.

It then times ``step`` on an official-size scene: our 324-node house in the TrimmedTestScene
format, each of our twelve programs in the dataset's format prepared on it and run line by
line in literal mode (every line of each program up to where it stops), fresh worlds only
(the simulation cache is cleared before each program run).

Usage: ``python benchmarks/bench_virtualhome.py`` (target: medians <= 2 ms).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from safetychip.envs import VirtualHomeEnv, load_tasks
from safetychip.envs.virtualhome import (
    OFFICIAL_GRAPH,
    PROGRAM_DIR,
    VIRTUALHOME_PREDICATES,
    prepare_program,
    read_program,
)

REPEATS = 5


def ms(seconds: float) -> float:
    return seconds * 1e3


def timed(call, *args, **kwargs):
    start = time.perf_counter()
    result = call(*args, **kwargs)
    return time.perf_counter() - start, result


def main() -> int:
    envs = {name: VirtualHomeEnv(name) for name in ("apartment_1", "apartment_2")}
    times: dict[str, list[float]] = defaultdict(list)
    by_verb: dict[str, list[float]] = defaultdict(list)
    for _ in range(REPEATS):
        for task in load_tasks():
            env = envs[task.scene].track(task.propositions)
            options = {"initial": list(task.initial), "goal": list(task.goal)}
            actions = [a for a in task.reference_plan if a != "done"]
            # step, without a preview before it
            env.reset(options=options)
            for action in actions:
                seconds, (*_, info) = timed(env.step, action)
                assert info["error"] is None, (task.id, action, info["error"])
                times["step"].append(seconds)
                by_verb[env.parse(action).verb].append(seconds)
            # preview (a fresh simulation), then step (reusing it)
            env.reset(options=options)
            for action in actions:
                seconds, _ = timed(env.preview, action, env.tracked)
                times["preview"].append(seconds)
                seconds, _ = timed(env.step, action)
                times["step after preview"].append(seconds)
            times["reset"].append(timed(env.reset, options=options)[0])
            times["admissible_actions"].append(timed(env.admissible_actions)[0])

    print("VirtualHome environment, reference plans of all tasks "
          f"({len(times['step']) // REPEATS} actions, x{REPEATS})")  # fmt: skip
    print(f"{'operation':<22}{'median ms':>10}{'p90 ms':>10}{'max ms':>10}")
    for name, values in times.items():
        values = sorted(values)
        p90 = values[int(0.9 * (len(values) - 1))]
        print(f"{name:<22}{ms(statistics.median(values)):>10.3f}{ms(p90):>10.3f}"
              f"{ms(values[-1]):>10.3f}")  # fmt: skip
    print("step median by verb (ms): " + ", ".join(
        f"{verb} {ms(statistics.median(v)):.2f}" for verb, v in sorted(by_verb.items())
    ))  # fmt: skip
    copy_versus_fork(envs["apartment_1"])
    official_scene_steps()
    return 0


def official_scene_steps() -> None:
    """Time step, preview and lookahead on the 324-node official-format house."""
    times: dict[str, list[float]] = defaultdict(list)
    programs = [prepare_program(OFFICIAL_GRAPH, read_program(p))
                for p in sorted(PROGRAM_DIR.glob("*.txt"))]  # fmt: skip
    nodes = len(programs[0].scene.graph["nodes"])
    for _ in range(REPEATS):
        for prepared in programs:
            scene = prepared.scene
            objects = sorted({i for i in prepared.ids.values() if i != scene.character})
            props = [f"{p}({scene.name_of(i)})" for i in objects for p in VIRTUALHOME_PREDICATES
                     if VIRTUALHOME_PREDICATES[p] == 1 and p != "is_pluggedin"
                     and not (scene.is_room(i) and p != "agent_at")]  # fmt: skip
            env = VirtualHomeEnv(scene, mode="literal").track(props)
            for how in ("step", "preview then step"):
                env.reset()
                env._outcomes.clear()  # fresh simulations only
                for line in prepared.lines:
                    if how == "step":
                        seconds, (*_, info) = timed(env.step, line)
                        times["step (literal)"].append(seconds)
                    else:
                        seconds, _ = timed(env.preview, line, props)
                        times["preview"].append(seconds)
                        seconds, (*_, info) = timed(env.step, line)
                        times["step after preview"].append(seconds)
                    if info["error"] is not None:
                        break
    lines = len(times["step (literal)"]) // REPEATS
    print(f"\nOfficial-size scene: {OFFICIAL_GRAPH.name} ({nodes} nodes after preparation), "
          f"{len(programs)} programs, {lines} lines, x{REPEATS}, "
          f"{len(props)} propositions tracked in the last")  # fmt: skip
    print(f"{'operation':<22}{'median ms':>10}{'p90 ms':>10}{'max ms':>10}")
    for name, values in times.items():
        values = sorted(values)
        p90 = values[int(0.9 * (len(values) - 1))]
        print(f"{name:<22}{ms(statistics.median(values)):>10.3f}{ms(p90):>10.3f}"
              f"{ms(values[-1]):>10.3f}")  # fmt: skip


def copy_versus_fork(env: VirtualHomeEnv) -> None:
    """Time one executor step with VirtualHome's deep copy and with the environment's fork."""
    task = next(t for t in load_tasks(scene="apartment_1") if t.suite == "mobile_manipulation")
    env.reset(options={"initial": list(task.initial)})
    for action in task.reference_plan[:-2]:
        env.step(action)
    last = env.parse(task.reference_plan[-2])
    script, executor = env._script(last.script), env._executor
    deep, fork = [], []
    for _ in range(200):
        deep.append(timed(executor.execute_one_step, script, env._state, False)[0])
        start = time.perf_counter()
        executor.execute_one_step(script, env._fork(env._state), True)
        fork.append(time.perf_counter() - start)
    print(f"one '{last}' after {len(task.reference_plan) - 2} actions: executor deep copy "
          f"{ms(statistics.median(deep)):.3f} ms, shallow fork + in place "
          f"{ms(statistics.median(fork)):.3f} ms")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
