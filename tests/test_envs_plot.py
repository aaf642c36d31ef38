"""Pictures: the floor plan with the agent's path, and the rollout timeline."""

from __future__ import annotations

import os

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, Rectangle

from safetychip.envs import (
    VirtualHomeEnv,
    load_scene,
    load_tasks,
    plot_floor_plan,
    plot_timeline,
    task_monitor,
)
from safetychip.envs.virtualhome import floor_plan_layout, rooms_visited
from safetychip.envs.virtualhome._plot import _greedy_layout, _layout
from safetychip.errors import ActionError
from safetychip.shield import run_monitored, run_unmonitored

TASKS = {t.id: t for t in load_tasks()}
BOOK = TASKS["mobile_manipulation/apartment_1/02"]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def rollouts():
    env = VirtualHomeEnv(task=BOOK)
    monitor = task_monitor(BOOK)
    return (run_monitored(env, BOOK.example_plan, monitor),
            run_unmonitored(env, BOOK.example_plan, monitor))  # fmt: skip


def side_by_side(a, b) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


@pytest.mark.parametrize(("scene", "apart"), [("apartment_1", 0), ("apartment_2", 1)])
def test_layout_puts_rooms_with_doors_side_by_side(scene, apart):
    s = load_scene(scene)
    cells = floor_plan_layout(s)
    assert set(cells) == set(s.rooms) and len(set(cells.values())) == len(cells)
    doors = {tuple(sorted((a, b))) for a, ns in s.adjacency.items() for b in ns}
    assert sum(not side_by_side(cells[a], cells[b]) for a, b in doors) == apart
    assert floor_plan_layout(s) == cells  # deterministic


def test_large_scenes_are_laid_out_greedily():
    rooms = tuple(f"r{i}" for i in range(8))
    doors = tuple((f"r{i}", f"r{i + 1}") for i in range(6))  # r7 has no door
    cells = dict(_layout(rooms, doors))
    assert cells == _greedy_layout(rooms, doors)
    assert len(set(cells.values())) == 8
    assert all(side_by_side(cells[a], cells[b]) for a, b in doors)
    assert cells["r7"][1] < min(y for r, (_, y) in cells.items() if r != "r7")


def test_floor_plan(tmp_path, rollouts):
    scene = load_scene("apartment_1")
    path = tmp_path / "figures" / "plan.png"
    fig = plot_floor_plan(scene, path=rollouts[1], objects=["book", "book_shelf"], save=path)
    ax = fig.axes[0]
    boxes = [p for p in ax.patches if isinstance(p, Rectangle)]
    arrows = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    assert len(boxes) == 5
    assert len(arrows) == 4 + 1  # four doors, one move (bedroom -> living room)
    texts = [t.get_text() for t in ax.texts]
    assert {"hallway", "living room", "kitchen", "bedroom", "bathroom", "book", "book shelf",
            "1"} <= set(texts)  # fmt: skip
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "start: bedroom", "end: living room"]  # fmt: skip
    assert ax.get_title() == "apartment_1"
    assert path.stat().st_size > 1000 and os.listdir(path.parent) == ["plan.png"]
    svg = tmp_path / "plan.svg"
    plot_floor_plan(scene, path=["bedroom"], save=svg)
    assert svg.read_text().lstrip().startswith("<?xml")


def test_rooms_visited(rollouts):
    assert rooms_visited(rollouts[1]) == ["bedroom", "living_room"]
    env = VirtualHomeEnv("apartment_2")
    record = run_unmonitored(env, ["walk to bathroom", "walk to kitchen", "done"], [],
                             options={"initial": ["agent_at(living_room)"]})  # fmt: skip
    assert rooms_visited(record) == ["living_room", "kitchen", "hallway", "bathroom", "hallway",
                                     "kitchen"]  # fmt: skip


def test_floor_plan_errors(rollouts):
    scene = load_scene("apartment_1")
    with pytest.raises(ValueError, match=r"not rooms of scene 'apartment_1': 'garage'; rooms: "
                       r"hallway, living_room"):  # fmt: skip
        plot_floor_plan(scene, path=["bedroom", "garage"])
    with pytest.raises(ActionError, match=r"no object or room named 'oven'.*closest names: stove"):
        plot_floor_plan(scene, objects=["oven"])
    stripped = type(rollouts[0])(**{**rollouts[0].__dict__, "scene": None})
    with pytest.raises(ValueError, match="the rollout records no room of the agent"):
        rooms_visited(stripped)


def test_timeline(tmp_path, rollouts):
    monitored, plain = rollouts
    path = tmp_path / "timeline.png"
    fig = plot_timeline(monitored, save=path)
    top, bottom = fig.axes[:2]
    assert (top.get_ylabel(), bottom.get_ylabel()) == ("propositions", "automata")
    rows = [t.get_text() for t in top.get_yticklabels()]
    assert rows[:5] == ["agent_at(living_room)", "is_grabbed(book)", "is_on(book,book_shelf)",
                        "is_switchedon(floor_lamp)", "is_touched(television)"]  # fmt: skip
    assert "agent_at(hallway)" in rows and len(rows) == len(set(rows))
    assert [t.get_text() for t in bottom.get_yticklabels()] == ["c1", "c2", "c3", "c4", "c5"]
    # one cell per proposition and per automaton at each of the 3 positions of the trace
    cells = [p for ax in (top, bottom) for p in ax.patches if isinstance(p, Rectangle)]
    assert len(cells) == 3 * (len(rows) + 5)
    (actions,) = top.child_axes  # the action names along the top
    labels = [(t.get_text(), t.get_color()) for t in actions.get_xticklabels()]
    assert labels == [("walk to book", "black"), ("pruned: grab book", "#c62828"),
                      ("walk to book shelf", "black"),
                      ("refused: put book on book shelf", "#9e9e9e")]  # fmt: skip
    crosses = [line for line in bottom.lines if line.get_marker() == "X"]
    assert [tuple(c.get_ydata()) for c in crosses] == [(1,)]  # on c2's row
    assert fig._suptitle.get_text() == ("mobile_manipulation/apartment_1/02 (monitored; DONE safe)")
    assert path.stat().st_size > 1000
    fig = plot_timeline(plain, propositions=["is_grabbed(book)"], title="plain")
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["is_grabbed(book)"]
    assert fig._suptitle.get_text() == "plain"
    automaton_texts = [t.get_text() for t in fig.axes[1].texts]
    assert len(automaton_texts) == 5 * len(plain.trace)


def test_timeline_errors(rollouts):
    with pytest.raises(ValueError, match=r"the rollout did not record is_open\(fridge\); it "
                       r"recorded "):  # fmt: skip
        plot_timeline(rollouts[0], propositions=["is_open(fridge)"])


def test_failed_save_leaves_nothing(tmp_path, rollouts, monkeypatch):
    fig = plot_timeline(rollouts[0])

    def broken(*args, **kwargs):
        raise RuntimeError("renderer crashed")

    monkeypatch.setattr(fig, "savefig", broken)
    from safetychip.envs._io import atomic_savefig

    with pytest.raises(RuntimeError, match="renderer crashed"):
        atomic_savefig(fig, tmp_path / "t.png")
    assert os.listdir(tmp_path) == []


def test_reproduction_steps(tmp_path):
    import shutil
    from pathlib import Path

    from safetychip.cli import SkipStep, reproduction_steps
    from safetychip.cli.experiment import REPRODUCTION_STEPS

    assert set(REPRODUCTION_STEPS) <= set(reproduction_steps())
    rollouts = next(s for s in REPRODUCTION_STEPS if s.name == "virtualhome_rollouts")
    with pytest.raises(SkipStep, match=r"apartment_1\.json does not exist"):
        rollouts.run(tmp_path)
    repo = Path(__file__).resolve().parents[1]
    for name in rollouts.inputs:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(repo / name, tmp_path / name)
    written = rollouts.run(tmp_path)
    assert [p.name for p in written] == [
        "03_floor_plan_apartment_1.png", "03_timeline_example_monitored.png",
        "03_timeline_safe_plan.png", "03_floor_plan_safe_plan.png"]  # fmt: skip
    assert all(p.parent == tmp_path / "figures" and p.stat().st_size > 1000 for p in written)
