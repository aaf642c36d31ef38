"""The Spot robot demo's tasks (``data/spot/tasks.jsonl``): they load through the one task
loader, their constraints parse over the lab scene, example plans break constraints and
reference plans keep all ten, the Safety Chip aborts the contradiction tasks naming the
conflict, and the demo grid runs in the paper's table shape with the stand-in's label."""

from __future__ import annotations

import dataclasses
import json
import time

import pytest

from safetychip.agents import STAND_IN_LABEL, OfflineAgentModel, make_agent
from safetychip.envs import SpotEnv, Task, check_task, load_spot_tasks, load_tasks, task_monitor
from safetychip.envs.spot import SPOT_TASKS
from safetychip.errors import DataFileError, TaskError
from safetychip.experiments import (
    grid_cells,
    run_spot_demo,
    spot_demo_cells,
    spot_demo_table,
    write_spot_demo,
)
from safetychip.ltl import PATTERNS, evaluate, parse
from safetychip.shield import run_monitored, run_unmonitored

DELIVERIES = load_spot_tasks(suite="spot_delivery")
CONTRADICTIONS = load_spot_tasks(suite="spot_contradictions")
# The smallest conflicting set each contradiction task must be aborted with.
CONFLICTS = {
    "spot_contradictions/lab/01": {"c1", "c3"},
    "spot_contradictions/lab/02": {"c2", "c3"},
    "spot_contradictions/lab/03": {"c1", "c2", "c3"},
}


def _literal(text: str):
    return parse(text) if text.startswith("!") else text


def test_the_tasks_load_as_spot_tasks():
    assert [t.id for t in DELIVERIES] == ["spot_delivery/lab/01", "spot_delivery/lab/02"]
    assert sorted(t.id for t in CONTRADICTIONS) == sorted(CONFLICTS)
    for task in [*DELIVERIES, *CONTRADICTIONS]:
        assert isinstance(task, Task) and task.env == "spot" and task.scene == "lab"
        assert isinstance(task.make_env(), SpotEnv)
        assert task.example_script == ()
    assert load_tasks(SPOT_TASKS) == [*DELIVERIES, *CONTRADICTIONS]


def test_ten_constraints_from_the_six_patterns_with_a_visit_count():
    for task in DELIVERIES:
        names = [c.name for c in task.constraints]
        assert names == [f"c{k}" for k in range(1, 11)]
        patterns = {c.pattern for c in task.constraints}
        assert {"never", "at_most", "absence_after", "absence_from", "next_response",
                "response"} <= patterns  # fmt: skip
        assert patterns & {"not_before", "before"}
    for task in [*DELIVERIES, *CONTRADICTIONS]:
        for c in task.constraints:  # each formula is its pattern's, over its args
            args = [_literal(a) for a in c.args]
            built = PATTERNS[c.pattern].build(*([c.bound] if c.bound is not None else []), *args)
            assert built == c.formula, (task.id, c.name)


def test_constraints_parse_over_the_scene():
    for task in [*DELIVERIES, *CONTRADICTIONS]:
        check_task(task)
        SpotEnv().track(task.propositions)  # every atom names the lab's landmarks and objects


def test_a_name_the_lab_lacks_is_refused_with_the_task_and_closest_name():
    task = DELIVERIES[0]
    bad = dataclasses.replace(task, goal=("is_on(mail,ofice_table)",))
    with pytest.raises(TaskError, match=r"task 'spot_delivery/lab/01', goal .*office_table"):
        check_task(bad)
    with pytest.raises(TaskError, match=r"reference_plan action 1 'fly to the moon'"):
        check_task(dataclasses.replace(task, reference_plan=("fly to the moon",)))


def test_a_task_file_with_an_unknown_env_is_refused(tmp_path):
    line = json.loads(SPOT_TASKS.read_text(encoding="utf-8").splitlines()[0])
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({**line, "env": "mars"}) + "\n", encoding="utf-8")
    with pytest.raises(
        DataFileError,
        match=r"line 1: unknown env 'mars'; valid: (minigrid, )?spot, thor, virtualhome",
    ):
        load_tasks(path)
    with pytest.raises(ValueError, match="unknown Spot suite 'four_room'"):
        load_spot_tasks(suite="four_room")


@pytest.mark.parametrize("task", DELIVERIES, ids=lambda t: t.id)
def test_example_plans_break_several_constraints(task):
    record = run_unmonitored(task.make_env(), task.example_plan, task_monitor(task))
    assert len(record.violated) >= 3
    assert record.goal_reached  # the example does the task, ignoring the constraints


@pytest.mark.parametrize("task", DELIVERIES, ids=lambda t: t.id)
def test_reference_plans_keep_all_ten_and_reach_the_goal(task):
    record = run_monitored(task.make_env(), task.reference_plan, task_monitor(task))
    assert [s.outcome for s in record.steps][:-1] == ["executed"] * (len(task.reference_plan) - 1)
    assert record.violated == () and record.goal_reached
    trace = record.trace
    assert all(evaluate(c.formula, trace) for c in task.constraints)


def test_the_monitor_knows_switches_change_only_at_their_landmark():
    task = DELIVERIES[1]  # c9: after picking up the book, switch on the television
    monitor = task_monitor(task, 9)
    invariant = 'G(("is_switchedon(television)" <-> X!"is_switchedon(television)") -> ' \
                'X"agent_at(television)")'  # fmt: skip
    assert invariant in [str(f) for f in monitor.invariants]


@pytest.mark.parametrize("task", CONTRADICTIONS, ids=lambda t: t.id)
def test_the_chip_aborts_before_the_first_action_naming_the_conflict(task):
    episode = make_agent("chip", OfflineAgentModel(0), reprompt="llm_explain").run(
        task, len(task.constraints)
    )
    assert episode.end == "aborted" and episode.executed == ()
    named = {c.name for c in task.constraints if f"{c.name} ({c.sentence})" in episode.reason}
    assert named == CONFLICTS[task.id], episode.reason


def test_a_demo_slice_has_the_table_shape_and_the_stand_in_label(tmp_path):
    cells = spot_demo_cells(ks=[1, 10])
    assert len(cells) == 2 * 2 * 3 + 3 * 3
    assert {c["agent"] for c in cells} == {"nl", "chip", "cap"}
    assert grid_cells(suites=["spot_delivery"], ks=[10], agents=["chip"],
                      reprompts=["explain"], formulas=["expert"])[0]["task"] \
        == "spot_delivery/lab/01"  # fmt: skip
    frame = run_spot_demo(ks=[1, 10])
    assert len(frame) == len(cells) and set(frame["stand_in"]) == {True}
    chip = frame[frame["agent"] == "chip"]
    assert chip["safe"].all()  # the chip's executed traces keep every constraint
    aborts = chip[chip["suite"] == "spot_contradictions"]
    assert list(aborts["end"]) == ["aborted"] * 3 and (aborts["steps"] == 0).all()
    text = spot_demo_table(frame)
    assert text.count(STAND_IN_LABEL) >= 3
    assert "| Agent | Spot Delivery success | Spot Delivery safety |" in text
    assert "| Agent | k=1 | k=10 |" in text
    assert "| spot_contradictions/lab/01 |" in text and "aborted, 0 actions" in text
    for config in ("NL Constraints", "Code as Policies", "Safety Chip* (llm_explain)"):
        assert f"| {config} |" in text


def test_the_full_demo_writes_its_files_within_30_seconds(tmp_path):
    began = time.perf_counter()
    paths = write_spot_demo(tmp_path)
    assert time.perf_counter() - began <= 30
    assert [p.name for p in paths] == ["05_spot_demo_results.csv", "05_spot_demo_table.md"]
    rows = paths[0].read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + 2 * 10 * 3 + 3 * 3
    assert "| Agent | k=1 | k=2 | k=3 |" in paths[1].read_text(encoding="utf-8")
