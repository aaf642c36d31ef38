"""``safetychip reproduce`` steps of the VirtualHome environment (figures of notebook 03).

``virtualhome_rollouts`` runs the book task's example plan unmonitored and monitored, and the
safe plan the search finds, then writes the floor plans and timelines notebook 03 shows.
``virtualhome_suite`` validates both task suites and writes the table and shares (without
timings, so the file only changes when the results do).

Examples
--------
>>> [step.name for step in REPRODUCTION_STEPS]
['virtualhome_rollouts', 'virtualhome_suite']
"""

from __future__ import annotations

from pathlib import Path

from safetychip.cli import ReproductionStep, SkipStep

__all__ = ["BOOK_TASK", "COMMANDS", "REPRODUCTION_STEPS"]

#: The task notebook 03 tells the story of.
BOOK_TASK = "mobile_manipulation/apartment_1/02"

#: No subcommands of its own.
COMMANDS: tuple = ()

_INPUTS = (
    "data/virtualhome/scenes/apartment_1.json",
    "data/virtualhome/scenes/apartment_2.json",
    "data/virtualhome/tasks/four_room.jsonl",
    "data/virtualhome/tasks/mobile_manipulation.jsonl",
)


def _require(root: Path) -> None:
    missing = [p for p in _INPUTS if not (root / p).is_file()]
    if missing:
        raise SkipStep(f"{root / missing[0]} does not exist")


def _rollout_figures(root: Path) -> list[Path]:
    _require(root)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from safetychip.envs import (
        VirtualHomeEnv,
        find_safe_plan,
        load_tasks,
        plot_floor_plan,
        plot_timeline,
        run_monitored,
        task_monitor,
    )

    tasks = load_tasks(root / "data" / "virtualhome" / "tasks" / "mobile_manipulation.jsonl")
    task = next(t for t in tasks if t.id == BOOK_TASK)
    env = VirtualHomeEnv(root / "data" / "virtualhome" / "scenes" / f"{task.scene}.json",
                         task=task)  # fmt: skip
    monitor = task_monitor(task)
    watched = run_monitored(env, task.example_plan, monitor)
    safe = run_monitored(env, find_safe_plan(task, env=env).plan, monitor)
    figures = root / "figures"
    written = [
        figures / "03_floor_plan_apartment_1.png",
        figures / "03_timeline_example_monitored.png",
        figures / "03_timeline_safe_plan.png",
        figures / "03_floor_plan_safe_plan.png",
    ]
    objects = ["book", "book_shelf", "floor_lamp"]
    plot_floor_plan(env.scene, objects=[*objects, "television"], save=written[0])
    plot_timeline(watched, save=written[1])
    plot_timeline(safe, save=written[2])
    plot_floor_plan(env.scene, path=safe, objects=objects, title="apartment_1: the safe plan",
                    save=written[3])  # fmt: skip
    plt.close("all")
    return written


def _suite_table(root: Path) -> list[Path]:
    _require(root)
    from safetychip.envs import load_tasks, validate_suite
    from safetychip.envs._io import atomic_write_text

    folder = root / "data" / "virtualhome" / "tasks"
    tasks = [t for suite in ("four_room", "mobile_manipulation")
             for t in load_tasks(folder / f"{suite}.jsonl")]  # fmt: skip
    report = validate_suite(tasks)
    target = root / "figures" / "virtualhome_suite_validation.txt"
    text = (
        "# Suite validation of data/virtualhome/tasks (safetychip.envs.validate_suite).\n"
        "# Written by `python -m safetychip reproduce virtualhome_suite`; do not edit.\n\n"
        f"{report.table()}\n\n{report.summary()}\n"
    )
    return [atomic_write_text(target, text)]


REPRODUCTION_STEPS = (
    ReproductionStep(
        "virtualhome_rollouts",
        "floor plans and timelines of the book task, monitored and safe (notebook 03)",
        _rollout_figures,
        _INPUTS,
    ),
    ReproductionStep(
        "virtualhome_suite",
        "VirtualHome suite validation: example plans, safe plans, violation shares",
        _suite_table,
        _INPUTS,
    ),
)
