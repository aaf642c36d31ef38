"""Shielded learning (safetychip.gym.q_learning and the experiment around it): the shielded
Q-learner never steps onto lava while it learns, the bare one does, as counted by a referee
that reads the grid; runs are deterministic; the table, figure and reproduction step."""

from __future__ import annotations

import json

import gymnasium as gym
import minigrid  # noqa: F401 - registers the MiniGrid environments
import numpy as np
import pytest
from minigrid.core.world_object import Lava

from safetychip.experiments import (
    LEARNING_SETTINGS,
    learning_settings,
    learning_table,
    plot_learning,
    shielded_learning,
    write_shielded_learning,
)
from safetychip.gym import LearningCurve, on_lava, q_learning
from safetychip.paths import DATA_DIR

WORLD = "MiniGrid-LavaGapS5-v0"


@pytest.fixture(scope="module")
def curves() -> list[LearningCurve]:
    return shielded_learning(WORLD, ['G !"on_lava"'], seeds=[0, 1], episodes=60)


def test_the_shielded_learner_never_steps_on_lava_and_the_bare_one_does(curves):
    shielded = [c for c in curves if c.shielded]
    bare = [c for c in curves if not c.shielded]
    assert [c.seed for c in shielded] == [c.seed for c in bare] == [0, 1]
    assert all(c.violations.sum() == 0 for c in shielded)
    assert all(c.refusals.sum() > 0 for c in shielded)  # the shield had work to do
    assert all(c.violations.sum() >= 10 for c in bare)
    assert all(c.refusals.sum() == 0 for c in bare)
    # a lava step ends the bare episode with no reward: each episode has at most one
    for c in bare:
        assert set(np.unique(c.violations)) <= {0, 1}
        assert (c.returns[c.violations == 1] == 0).all()


def test_both_learners_learn_to_reach_the_goal(curves):
    for c in curves:
        assert len(c.returns) == len(c.steps) == 60
        assert (c.returns > 0).sum() > 0  # some episodes reached the goal
        assert (c.steps >= 1).all() and (c.steps <= 100).all()  # LavaGapS5's step limit


def test_a_run_is_deterministic_and_the_seed_matters():
    one = q_learning(WORLD, ['G !"on_lava"'], seed=3, episodes=15)
    two = q_learning(WORLD, ['G !"on_lava"'], seed=3, episodes=15)
    other = q_learning(WORLD, ['G !"on_lava"'], seed=4, episodes=15)
    assert one.returns.tolist() == two.returns.tolist()
    assert one.steps.tolist() == two.steps.tolist()
    assert one.steps.tolist() != other.steps.tolist()


def test_the_referee_reads_the_grid():
    env = gym.make(WORLD)
    env.reset(seed=0)
    world = env.unwrapped
    assert not on_lava(world)
    world.grid.set(*world.agent_pos, Lava())
    assert on_lava(world)


def test_a_custom_referee_counts_what_it_is_told():
    curve = q_learning(WORLD, None, seed=0, episodes=4, referee=lambda world: True)
    assert curve.violations.tolist() == curve.steps.tolist()


def test_solved_at_is_the_end_of_the_first_window_that_reaches_the_share():
    zeros = np.zeros(6)
    curve = LearningCurve("x", True, 0, np.array([0, 1, 0, 1, 1, 1.0]), zeros, zeros, zeros)
    assert curve.solved_at(window=2, share=1.0) == 5
    assert curve.solved_at(window=3, share=0.6) == 4
    assert curve.solved_at(window=6, share=1.0) is None


def test_the_table_has_a_row_per_learner(curves):
    lines = learning_table(curves, last=10).splitlines()
    assert lines[0].startswith("| learner | runs | episodes | violations in training |")
    shielded, bare = lines[2].split(" | "), lines[3].split(" | ")
    assert shielded[:5] == ["| shielded", "2", "60", "0", "0 / 0"]
    per_run = [int(c.violations.sum()) for c in curves if not c.shielded]
    assert bare[:5] == ["| unshielded", "2", "60", str(sum(per_run)),
                        " / ".join(map(str, per_run))]  # fmt: skip


def test_the_figure_has_the_curves(curves):
    import matplotlib

    matplotlib.use("Agg")
    figure = plot_learning(curves)
    left, right = figure.axes
    assert [line.get_label() for line in left.get_lines()] == [
        "shielded (2 runs)", "unshielded (2 runs)"]  # fmt: skip
    mean_bare = right.get_lines()[-1].get_ydata()
    assert mean_bare[-1] == np.mean([c.violations.sum() for c in curves if not c.shielded])


def test_the_committed_settings_are_the_reproduction_steps_input():
    settings = json.loads((DATA_DIR / LEARNING_SETTINGS).read_text(encoding="utf-8"))
    assert settings["world"] == WORLD and len(settings["seeds"]) == 5
    read = learning_settings()
    assert read["name"] == WORLD and "world" not in read and "about" not in read
    assert {k: v for k, v in read.items() if k != "name"} == {
        k: v for k, v in settings.items() if k not in ("world", "about")}  # fmt: skip


@pytest.mark.parametrize(("settings", "message"), [
    ({"world": WORLD, "episods": 3}, r"unknown keys \['episods'\]; allowed: "),
    ({"world": WORLD}, r"missing keys \['constraints'\]"),
    ([WORLD], "the settings must be a JSON object, got list"),
])  # fmt: skip
def test_write_refuses_bad_settings(tmp_path, settings, message):
    (tmp_path / LEARNING_SETTINGS).parent.mkdir(parents=True)
    (tmp_path / LEARNING_SETTINGS).write_text(json.dumps(settings))
    with pytest.raises(ValueError, match=message):
        write_shielded_learning(tmp_path / "figures", data=tmp_path)
    assert not (tmp_path / "figures").exists()


def test_write_writes_the_table_and_the_figure(tmp_path):
    (tmp_path / LEARNING_SETTINGS).parent.mkdir(parents=True)
    settings = {"world": WORLD, "constraints": ['G !"on_lava"'], "seeds": [0], "episodes": 20}
    (tmp_path / LEARNING_SETTINGS).write_text(json.dumps(settings))
    figure, table = write_shielded_learning(tmp_path / "figures", data=tmp_path)
    assert figure.read_bytes().startswith(b"\x89PNG")
    text = table.read_text(encoding="utf-8")
    assert "| shielded | 1 | 20 | 0 | 0 |" in text
