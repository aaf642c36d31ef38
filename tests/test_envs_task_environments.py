"""Tasks in the environment-neutral format, hosted by the environment their ``env`` names."""

from __future__ import annotations

import dataclasses
import json

import pytest

from safetychip.envs import (
    ENVIRONMENTS,
    SpotEnv,
    VirtualHomeEnv,
    check_task,
    load_spot_tasks,
    load_tasks,
    task_monitor,
)
from safetychip.envs.thor import ThorEnv
from safetychip.errors import DataFileError, TaskError

THOR_LINE = {
    "id": "thor_common/FloorPlan1/01",
    "scene": "FloorPlan1",
    "suite": "thor_common",
    "env": "thor",
    "instruction": "Turn on the laptop.",
    "description": "",
    "initial": [],
    "goal": ["is_toggled(laptop)"],
    "example_plan": ["find Laptop", "turn on Laptop"],
    "example_script": [],
    "reference_plan": ["find Laptop", "turn on Laptop"],
    "constraints": [
        {"sentence": "Never turn on the laptop.", "formula": 'G !"is_toggled(laptop)"',
         "pattern": "never", "args": ["is_toggled(laptop)"]}
    ],
}  # fmt: skip


def test_each_environment_registers_itself():
    # "minigrid" too once safetychip.gym (an extra) is imported: tests/test_gym_tasks.py
    assert set(ENVIRONMENTS) - {"minigrid"} == {"spot", "thor", "virtualhome"}
    assert isinstance(load_tasks(suite="four_room")[0].make_env(), VirtualHomeEnv)
    assert isinstance(load_spot_tasks()[0].make_env(), SpotEnv)


def test_a_task_file_may_name_thor(tmp_path):
    path = tmp_path / "thor.jsonl"
    path.write_text(json.dumps(THOR_LINE) + "\n", encoding="utf-8")
    [task] = load_tasks(path)
    env = task.make_env()
    assert isinstance(env, ThorEnv) and env.task is task
    assert [c.name for c in task_monitor(task).constraints] == ["c1"]


def test_a_thor_task_is_checked_against_its_scene(tmp_path):
    path = tmp_path / "thor.jsonl"
    bad = {**THOR_LINE, "reference_plan": ["find Laptop", "turn on Lapdog"]}
    path.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(DataFileError, match=r"line 1: task 'thor_common/FloorPlan1/01', "
                       r"reference_plan action 2 'turn on Lapdog': .*lapdog"):  # fmt: skip
        load_tasks(path)


def test_an_unknown_environment_is_named():
    task = dataclasses.replace(load_tasks(suite="four_room")[0], env="mars")
    valid = r"valid: (minigrid, )?spot, thor, virtualhome"  # minigrid: once safetychip.gym is
    with pytest.raises(TaskError, match=rf"unknown env 'mars'; {valid}"):
        check_task(task)
    with pytest.raises(TaskError, match=r"unknown env 'mars'"):
        task.make_env()
