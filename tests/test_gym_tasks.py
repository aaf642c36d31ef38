"""MiniGrid and BabyAI missions with constraints as tasks of the suite format: the "minigrid"
task environment loads and checks our task file, refuses a bad line naming what is wrong, and
runs each task under the shield with no constraint broken (a random walk without it breaks
them)."""

from __future__ import annotations

import json
import random

import pytest

from safetychip.envs import ENVIRONMENTS, Task, check_task, load_tasks, task_monitor
from safetychip.errors import DataFileError, TaskError
from safetychip.gym import MINIGRID_TASKS, GymEnv, make_minigrid_env
from safetychip.ltl import evaluate
from safetychip.shield import Shield

TASKS = load_tasks(MINIGRID_TASKS)


def test_the_task_file_loads_and_checks_as_minigrid_tasks():
    assert "minigrid" in ENVIRONMENTS
    assert len(TASKS) >= 3
    for task in TASKS:
        assert task.env == "minigrid" and task.suite == "minigrid"
        assert task.constraints and all(c.sentence for c in task.constraints)
        check_task(task)
        assert isinstance(task.make_env(), GymEnv)
    formulas = {str(c.formula) for t in TASKS for c in t.constraints}
    assert {"G!on_lava", '!"is_open(yellow_door)" W "is_carrying(yellow_key)"'} <= formulas
    patterns = {c.pattern for t in TASKS for c in t.constraints}
    assert {"never", "not_before", "at_most"} <= patterns


def _line(tmp_path, **changes) -> str:
    data = json.loads(MINIGRID_TASKS.read_text().splitlines()[0])
    data.update(changes)
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(data) + "\n")
    return str(path)


def test_a_proposition_the_labeller_does_not_know_is_refused_naming_it(tmp_path):
    constraint = {"sentence": "Never open the yelow door.", "formula": 'G !"is_open(yelow_door)"',
                  "pattern": "never", "args": ["is_open(yelow_door)"]}  # fmt: skip
    path = _line(tmp_path, constraints=[constraint])
    with pytest.raises(DataFileError, match=r"line 1.*constraint 1.*is_open\(yelow_door\)"):
        load_tasks(path)


def test_a_scene_that_is_not_a_gymnasium_id_is_refused_naming_it(tmp_path):
    path = _line(tmp_path, scene="MiniGrid-LavaCrosing-v0")
    with pytest.raises(DataFileError, match=r"line 1.*'MiniGrid-LavaCrosing-v0'.*Gymnasium"):
        load_tasks(path)
    task = TASKS[0]
    bad = Task(**{**vars(task), "scene": "NoSuchWorld-v0"})
    with pytest.raises(TaskError, match="NoSuchWorld-v0"):
        make_minigrid_env(bad)


def test_an_unregistered_minigrid_says_which_package_registers_it(tmp_path, monkeypatch):
    monkeypatch.delitem(ENVIRONMENTS, "minigrid")
    with pytest.raises(DataFileError, match=r"unknown env 'minigrid'.*import safetychip\.gym"):
        load_tasks(MINIGRID_TASKS)


def _walk(task: Task, shielded: bool, seed: int, steps: int = 250) -> list[dict[str, bool]]:
    """The executed trace of random proposals in *task*'s world, with or without its
    monitor."""
    monitor = task_monitor(task)
    env = task.make_env()
    shield = Shield.of(env, monitor if shielded else None, propositions=monitor.atoms,
                       idle_seconds=0)  # fmt: skip
    rng = random.Random(seed)
    shield.reset(seed=seed)
    actions = env.admissible_actions()
    for _ in range(steps):
        if shield.finished or env.goal_reached():
            break
        shield.propose(rng.choice(actions))
    return shield.trace


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_every_task_runs_under_the_shield_without_breaking_its_constraints(task):
    for seed in range(3):
        trace = _walk(task, shielded=True, seed=seed)
        assert len(trace) > 1
        broken = [c.name for c in task.constraints if not evaluate(c.formula, trace)]
        assert broken == [], (task.id, seed)


def test_without_the_shield_random_walks_break_the_constraints():
    broken = 0
    for task in TASKS:
        for seed in range(3):
            trace = _walk(task, shielded=False, seed=seed)
            broken += sum(not evaluate(c.formula, trace) for c in task.constraints)
    assert broken > 0
