"""Suite validation: example plans run, a safe plan exists for every (task, k), and the
example plans break constraints often enough for the benchmark to mean something."""

from __future__ import annotations

import dataclasses
import json

import pytest
from _envs_data import load_script

from safetychip.envs import VirtualHomeEnv, load_tasks, task_monitor
from safetychip.envs.virtualhome import TASK_DIR, candidate_actions, check_task
from safetychip.errors import DataFileError, NoSafePlan, ResetNeeded, TaskError
from safetychip.experiments import SuiteReport, find_safe_plan, validate_suite
from safetychip.experiments import _suite as validate_module
from safetychip.monitor import Constraint
from safetychip.shield import run_unmonitored

TASKS = load_tasks()
KS = (1, 2, 3, 4, 5)


@pytest.fixture(scope="module")
def report() -> SuiteReport:
    return validate_suite(TASKS, ks=KS)


@pytest.fixture(scope="module")
def envs():
    return {name: VirtualHomeEnv(name) for name in ("apartment_1", "apartment_2")}


def by_id(task_id: str):
    return next(t for t in TASKS if t.id == task_id)


# -- the suite ------------------------------------------------------------------------------


def test_every_example_plan_executes_and_reaches_the_goal(report):
    assert [t.task for t in report.tasks] == [t.id for t in TASKS]
    assert report.example_share == 1.0
    assert all(t.example_executes for t in report.tasks)


def test_a_verified_safe_plan_exists_for_every_task_and_k(report):
    assert report.pairs == len(TASKS) * 5 == 140
    assert report.missing() == []
    assert report.safe_plan_share == 1.0
    for t in report.tasks:
        assert t.failures == ()
        for k, plan in zip(KS, t.safe_plans, strict=True):
            assert plan is not None and plan.verified
            assert (plan.task, plan.k) == (t.task, k)
            assert plan.plan[-1] == "done" and "done" not in plan.plan[:-1]
            assert len(plan.plan) <= 25


def test_safe_plans_are_safe_by_the_evaluator_alone(report, envs):
    """Independently of the monitor: run each plan unmonitored and judge with evaluate."""
    for t in report.tasks:
        task = by_id(t.task)
        env = envs[task.scene]
        env.reset(options={"task": task})
        for k, plan in zip(KS, t.safe_plans, strict=True):
            record = run_unmonitored(env, plan.plan, [c.formula for c in task.constraints[:k]])
            assert record.goal_reached, (task.id, k)
            assert all(step.executed for step in record.steps[:-1]), (task.id, k)
            assert record.steps[-1].outcome == "done", (task.id, k)
            assert record.safe, (task.id, k, record.violated)


def test_a_meaningful_share_of_examples_violate(report):
    assert report.violating_share >= 0.4
    by_k = report.violating_share_by_k()
    assert list(by_k) == list(KS)
    # adding constraints can only add violations
    for t in report.tasks:
        assert list(t.example_violates) == sorted(t.example_violates)
    assert all(by_k[k] <= by_k[k + 1] for k in KS[:-1])
    assert by_k[5] >= 0.75


def test_example_violations_agree_with_the_pattern_semantics(report, envs):
    """The report judges with evaluate; the task generator's direct pattern semantics agree."""
    make_tasks = load_script("make_tasks")
    for t in report.tasks:
        task = by_id(t.task)
        env = envs[task.scene].track(task.propositions)
        trace, _, _ = make_tasks.run(env, list(task.initial), list(task.goal), task.example_plan)
        holds = [
            make_tasks.holds({"pattern": c.pattern, "args": list(c.args), "bound": c.bound}, trace)
            for c in task.constraints
        ]
        assert list(t.example_violates) == [not all(holds[:k]) for k in KS], task.id


def test_report_text(report):
    table = report.table().splitlines()
    assert table[0].startswith("task") and "violates (k=1,2,3,4,5)" in table[0]
    assert len(table) == len(TASKS) + 1
    assert table[1].startswith("four_room/apartment_1/01") and " ok  xxxxx " in table[1]
    summary = report.summary()
    assert "28 tasks x k=1..5 = 140 pairs" in summary
    assert "safe plan found and verified: 100% of pairs" in summary
    assert f"example plan violates a constraint: {report.violating_share:.0%} of pairs" in summary
    assert repr(report).startswith("<SuiteReport 28 tasks: safe plans 100%, violating examples ")
    assert report.seconds > 0


def test_search_respects_constraints_the_example_breaks():
    task = by_id("mobile_manipulation/apartment_1/02")  # lamp on before grabbing the book
    found = find_safe_plan(task, 2)
    assert found.verified and found.k == 2
    plan = list(found.plan)
    assert plan.index("switch on floor lamp") < plan.index("grab book")
    assert "switch on floor lamp" not in task.example_plan


def test_candidate_actions():
    task = by_id("mobile_manipulation/apartment_1/01")
    actions = candidate_actions(task, VirtualHomeEnv(task=task))
    assert actions[:5] == [f"walk to {r}" for r in ("hallway", "living room", "kitchen",
                                                    "bedroom", "bathroom")]  # fmt: skip
    assert {"grab salmon", "open fridge", "close microwave", "switch on stove",
            "put salmon in microwave", "put salmon in fridge"} <= set(actions)  # fmt: skip
    assert "grab fridge" not in actions and "open salmon" not in actions
    assert len(actions) == len(set(actions))


# -- error paths ----------------------------------------------------------------------------


def test_no_safe_plan_when_the_goal_is_forbidden():
    task = dataclasses.replace(
        by_id("four_room/apartment_1/01"),
        constraints=(
            Constraint.parse(
                'G!"agent_at(kitchen)"', "Never enter the kitchen.", name="c1", pattern="never"
            ),
        ),  # fmt: skip
    )
    with pytest.raises(NoSafePlan, match=r"^task 'four_room/apartment_1/01', k=1: no safe plan "
                       r"reaches the goal \(every safe continuation explored; \d+ nodes") as err:  # fmt: skip
        find_safe_plan(task)
    assert err.value.expanded > 0
    with pytest.raises(NoSafePlan, match=r"search bound reached; 2 nodes expanded, "
                       r"max_expansions=2, max_depth=24\)"):  # fmt: skip
        find_safe_plan(task, max_expansions=2)


def test_no_safe_plan_when_the_start_breaks_a_constraint():
    task = dataclasses.replace(
        by_id("four_room/apartment_1/01"),
        initial=("agent_at(bathroom)",),
        constraints=(
            Constraint.parse(
                'G!"agent_at(bathroom)"', "Never enter the bathroom.", name="c1", pattern="never"
            ),
        ),  # fmt: skip
    )
    with pytest.raises(NoSafePlan, match="the initial state already breaks the constraints"):
        find_safe_plan(task)


def test_validate_suite_records_search_failures(monkeypatch):
    def give_up(task, k, *_, **__):
        raise NoSafePlan(f"task {task.id!r}, k={k}: gave up")

    monkeypatch.setattr(validate_module, "_search", give_up)
    report = validate_suite(TASKS[:1], ks=(1, 2))
    assert report.missing() == [(TASKS[0].id, 1), (TASKS[0].id, 2)]
    assert report.safe_plan_share == 0.0
    assert report.tasks[0].failures[1] == f"task {TASKS[0].id!r}, k=2: gave up"
    assert report.table().splitlines()[1].endswith("-- --")


def test_task_naming_an_object_the_scene_lacks():
    task = by_id("mobile_manipulation/apartment_1/01")
    bad = dataclasses.replace(
        task,
        constraints=(
            *task.constraints[:2],
            Constraint.parse(
                'G!"is_open(oven)"', "Never open the oven.", name="c3", pattern="never"
            ),
        ),  # fmt: skip
    )
    message = (r"^task 'mobile_manipulation/apartment_1/01', constraint 3 \('Never open the "
               r"oven\.'\): in 'is_open\(oven\)': no object or room named 'oven' in scene "
               r"'apartment_1'; closest names: stove")  # fmt: skip
    with pytest.raises(TaskError, match=message):
        check_task(bad)
    with pytest.raises(TaskError, match=message):
        find_safe_plan(bad)


def test_validate_suite_checks_every_task_before_running_any(monkeypatch):
    task = by_id("four_room/apartment_2/01")
    bad = dataclasses.replace(task, id="mine/01", goal=("agent_at(garage)",))

    def must_not_run(*args, **kwargs):
        raise AssertionError("nothing may run before every task is checked")

    monkeypatch.setattr(validate_module, "run_unmonitored", must_not_run)
    monkeypatch.setattr(validate_module, "_search", must_not_run)
    with pytest.raises(TaskError, match=r"^task 'mine/01', goal 'agent_at\(garage\)': .*no object "
                       r"or room named 'garage' in scene 'apartment_2'"):  # fmt: skip
        validate_suite([task, bad])


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("formula", 'G!"is_open(oven)"',
         r"constraint 2 \('Never switch on the stove\.'\): in 'is_open\(oven\)': no object or "
         r"room named 'oven' in scene 'apartment_1'"),
        ("formula", 'G(!"is_open(fridge)"',
         r"constraint 2 \('Never switch on the stove\.'\): the formula does not parse: cannot "
         r"parse Spot formula: expected '\)' \(the '\(' at position 1 is never closed\)"),
        ("formula", 'G!"is_hot(stove)"',
         r"constraint 2 \('Never switch on the stove\.'\): unknown predicate 'is_hot'"),
    ],
)  # fmt: skip
def test_task_file_errors_name_file_line_task_and_object(tmp_path, field, value, message):
    lines = (TASK_DIR / "mobile_manipulation.jsonl").read_text().splitlines()[:3]
    data = json.loads(lines[0])
    data["constraints"][1][field] = value
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join([lines[1], lines[2], json.dumps(data)]) + "\n")
    pattern = rf"^{path}: line 3: task 'mobile_manipulation/apartment_1/01', {message}"
    with pytest.raises(DataFileError, match=pattern):
        load_tasks(path)
    # nothing partial: the two good lines before it are not returned either
    if "does not parse" in message:  # formulas are read at load, checked or not
        with pytest.raises(DataFileError, match=pattern):
            load_tasks(path, check=False)
    else:
        assert len(load_tasks(path, check=False)) == 3


def test_task_file_with_unknown_scene_or_plan_object(tmp_path):
    line = (TASK_DIR / "four_room.jsonl").read_text().splitlines()[0]
    data = json.loads(line)
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({**data, "scene": "castle"}) + "\n")
    with pytest.raises(DataFileError, match=rf"^{path}: line 1: task 'four_room/apartment_1/01':"
                       r" .*castle.json: no scene named 'castle'; available: apartment_1, "
                       r"apartment_2"):  # fmt: skip
        load_tasks(path)
    path.write_text(json.dumps({**data, "example_plan": ["walk to kitchn", "done"]}) + "\n")
    with pytest.raises(DataFileError, match=rf"^{path}: line 1: task 'four_room/apartment_1/01',"
                       r" example_plan action 1 'walk to kitchn': cannot read 'walk to kitchn': "
                       r"no object or room called 'kitchn'.*closest names: kitchen"):  # fmt: skip
        load_tasks(path)


def test_task_monitor():
    task = by_id("mobile_manipulation/apartment_1/01")
    monitor = task_monitor(task)
    assert [c.name for c in monitor.constraints] == ["c1", "c2", "c3", "c4", "c5"]
    assert monitor.constraints[0].sentence == task.constraints[0].sentence
    assert monitor.constraints[0].pattern == "response"
    assert "agent_at(hallway)" in monitor.atoms
    assert task_monitor(task, 0, invariants=False).constraints == ()
    assert task_monitor(task, invariants=False).invariants == ()
    with pytest.raises(ValueError, match=r"k must be between 0 and 5 for task "
                       r"'mobile_manipulation/apartment_1/01', got 6"):  # fmt: skip
        task_monitor(task, 6)


# -- world snapshots, used by the search ----------------------------------------------------


def test_snapshots_compare_worlds_not_histories():
    env = VirtualHomeEnv("apartment_1").track(["is_open(fridge)", "agent_at(fridge)"])
    env.reset(options={"initial": ["agent_at(kitchen)"]})
    start = env.snapshot()
    env.step("walk to fridge")
    near = env.snapshot()
    env.step("open fridge")
    env.step("close fridge")
    assert env.snapshot() == near and hash(env.snapshot()) == hash(near)
    assert env.snapshot() != start
    env.step("walk to bathroom")
    env.step("walk to fridge")  # back by another way: same world
    assert env.snapshot() == near
    assert env.restore(start).truth(["agent_at(fridge)"]) == {"agent_at(fridge)": False}
    ahead = env.lookahead("walk to fridge", ["agent_at(fridge)"])
    assert ahead.world == near and ahead.error is None
    assert env.snapshot() == start  # lookahead changes nothing
    assert env.lookahead("done", []) == ([], None, None)
    refused = env.lookahead("grab salmon", ["is_grabbed(salmon)"])
    assert refused == ([], None, "cannot grab salmon: the agent is not close to it")


def test_restore_errors():
    env = VirtualHomeEnv("apartment_1")
    env.reset()
    other = VirtualHomeEnv("apartment_2")
    other.reset()
    with pytest.raises(ValueError, match="cannot restore a snapshot of 'apartment_2' in scene "
                       "'apartment_1'"):  # fmt: skip
        env.restore(other.snapshot())
    with pytest.raises(ValueError, match="cannot restore a snapshot of 'x' in scene"):
        env.restore("x")  # type: ignore[arg-type]
    saved = env.snapshot()
    env.close()
    with pytest.raises(ResetNeeded, match="the environment is closed"):
        env.restore(saved)
    with pytest.raises(ResetNeeded, match="the environment is closed"):
        env.snapshot()
