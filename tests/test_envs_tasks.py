"""The task suites: shape, formulas, and plans executed on the real executor."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from _envs_data import load_script

from safetychip.envs import SUITES, VirtualHomeEnv, load_tasks, parse_action
from safetychip.envs.virtualhome import TASK_DIR, load_scene
from safetychip.errors import DataFileError
from safetychip.ltl import PATTERNS, parse

TASKS = load_tasks()
ROOMS = {"agent_at(kitchen)", "agent_at(bathroom)", "agent_at(bedroom)", "agent_at(living_room)"}
OBJECT_PREDICATES = {"is_open", "is_switchedon", "is_grabbed", "is_touched", "is_on", "is_in"}


@pytest.fixture(scope="module")
def make_tasks():
    return load_script("make_tasks")


@pytest.fixture(scope="module")
def envs():
    return {name: VirtualHomeEnv(name) for name in ("apartment_1", "apartment_2")}


def test_suites_cover_both_scenes_with_enough_tasks():
    assert len(TASKS) >= 24
    assert len({t.id for t in TASKS}) == len(TASKS)
    counts = Counter((t.suite, t.scene) for t in TASKS)
    assert set(counts) == {(s, n) for s in SUITES for n in ("apartment_1", "apartment_2")}
    assert min(counts.values()) >= 6
    for suite in SUITES:
        assert all(t.suite == suite for t in load_tasks(suite=suite))
    assert all(t.scene == "apartment_2" for t in load_tasks(scene="apartment_2"))


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_task_shape(task):
    assert task.instruction and task.description
    assert len(task.constraints) == 5
    assert len(task.example_plan) == len(task.example_script)
    assert task.example_plan[-1] == task.reference_plan[-1] == "done"
    for constraint in task.constraints:
        assert constraint.pattern in PATTERNS
        assert constraint.sentence.endswith(".")
        assert " " not in "".join(constraint.formula.atoms())
        assert (constraint.bound is not None) == (constraint.pattern == "at_most")
    atoms = {p for c in task.constraints for p in c.formula.atoms()}
    if task.suite == "four_room":
        assert atoms <= ROOMS
    else:
        assert {p.split("(")[0] for p in atoms} & OBJECT_PREDICATES


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_formulas_are_their_patterns_in_spot_syntax(task, make_tasks):
    for c in task.constraints:
        assert c.formula is parse(make_tasks.formula(c.pattern, list(c.args), c.bound))
        assert c.formula.atoms() == {a.lstrip("!") for a in c.args}


def test_formula_rendering_matches_spot_printing(make_tasks):
    assert make_tasks.formula("never", ["is_grabbed(phone)"]) == 'G!"is_grabbed(phone)"'
    assert make_tasks.formula("not_before", ["agent_at(kitchen)", "agent_at(bathroom)"]) == (
        '!"agent_at(kitchen)" W "agent_at(bathroom)"'
    )
    assert make_tasks.formula("response", ["is_open(fridge)", "!is_open(fridge)"]) == (
        'G("is_open(fridge)" -> F!"is_open(fridge)")'
    )
    assert make_tasks.formula("at_most", ["a"], 2) == (
        '!F("a" & ("a" U (!"a" & (!"a" U F("a" & ("a" U (!"a" & (!"a" U F"a"))))))))'
    )


@pytest.mark.parametrize(
    ("pattern", "args", "bound", "trace", "expected"),
    [
        ("never", ["a"], None, [{"a": False}, {"a": True}], False),
        ("not_before", ["a", "b"], None, [{"a": False, "b": True}, {"a": True, "b": False}], True),
        ("not_before", ["a", "b"], None, [{"a": True, "b": True}], True),
        ("before", ["a", "b"], None, [{"a": False, "b": True}], False),
        ("response", ["a", "!a"], None, [{"a": True}, {"a": True}], False),
        (
            "next_response",
            ["a", "b"],
            None,
            [{"a": False, "b": False}, {"a": True, "b": False}],
            True,
        ),
        ("absence_after", ["a", "a"], None, [{"a": True}, {"a": False}, {"a": True}], False),
        ("absence_from", ["a", "b"], None, [{"a": True, "b": True}], False),
        ("absence_after", ["a", "b"], None, [{"a": True, "b": True}], True),
        ("at_most", ["a"], 1, [{"a": True}, {"a": True}, {"a": False}], True),
        ("at_most", ["a"], 1, [{"a": True}, {"a": False}, {"a": True}], False),
    ],
)
def test_pattern_semantics_used_for_checking(make_tasks, pattern, args, bound, trace, expected):
    constraint = {"pattern": pattern, "args": args, "bound": bound}
    assert make_tasks.holds(constraint, trace) is expected


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_plans_execute_reach_the_goal_and_the_reference_is_safe(task, envs, make_tasks):
    env = envs[task.scene].track(task.propositions)
    _, script, reached = make_tasks.run(env, list(task.initial), list(task.goal), task.example_plan)
    assert reached and script == list(task.example_script)
    scene = load_scene(task.scene)
    for english, line in zip(task.example_plan, task.example_script, strict=True):
        assert str(parse_action(line, scene)) == english
    safe, _, reached = make_tasks.run(env, list(task.initial), list(task.goal), task.reference_plan)
    assert reached
    constraints = [
        {"pattern": c.pattern, "args": list(c.args), "bound": c.bound} for c in task.constraints
    ]
    # A plan satisfying all five constraints satisfies every prefix of the list.
    assert all(make_tasks.holds(c, safe) for c in constraints)


def test_most_example_plans_break_a_constraint(envs, make_tasks):
    broken = 0
    for task in TASKS:
        env = envs[task.scene].track(task.propositions)
        trace, _, _ = make_tasks.run(env, list(task.initial), list(task.goal), task.example_plan)
        constraints = [
            {"pattern": c.pattern, "args": list(c.args), "bound": c.bound} for c in task.constraints
        ]
        broken += not all(make_tasks.holds(c, trace) for c in constraints)
    assert broken >= len(TASKS) * 3 // 4
    assert broken < len(TASKS)  # some control tasks, whose example is already safe


def test_task_files_match_their_generator(make_tasks, capsys):
    built = make_tasks.build()
    capsys.readouterr()
    for suite, lines in built.items():
        expected = "".join(json.dumps(line) + "\n" for line in lines)
        assert (TASK_DIR / f"{suite}.jsonl").read_text() == expected


def test_task_helpers():
    task = TASKS[0]
    assert repr(task) == f"<Task {task.id}: {task.instruction!r}>"
    assert "<table>" in task._repr_html_()
    assert set(task.propositions) >= {p for c in task.constraints for p in c.formula.atoms()}


# -- error paths ----------------------------------------------------------------------------


def test_unknown_suite():
    with pytest.raises(ValueError, match="unknown suite 'kitchen'; choose one of four_room"):
        load_tasks(suite="kitchen")


def test_missing_task_file(tmp_path):
    with pytest.raises(DataFileError, match=r"no_tasks.jsonl: no such file"):
        load_tasks(tmp_path / "no_tasks.jsonl")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("goal"), r"line 2: field 'goal' is missing or not a list"),
        (lambda d: d.update(instruction=3), r"line 2: field 'instruction' is missing or not a str"),
        (
            lambda d: d["constraints"][1].update(pattern="eventually"),
            r"line 2, constraint 2: unknown pattern 'eventually'; valid: never, not_before",
        ),
        (
            lambda d: d["constraints"][0].pop("formula"),
            r"line 2, constraint 1: field 'formula' is missing or not a str",
        ),
    ],
)
def test_malformed_task_lines_name_file_and_line(tmp_path, mutate, message):
    lines = (TASK_DIR / "four_room.jsonl").read_text().splitlines()[:2]
    data = json.loads(lines[1])
    mutate(data)
    path = tmp_path / "tasks.jsonl"
    path.write_text(lines[0] + "\n" + json.dumps(data) + "\n")
    with pytest.raises(DataFileError, match=rf"^{path}: {message}"):
        load_tasks(path)
    path.write_text(lines[0] + "\n{not json\n")
    with pytest.raises(DataFileError, match=rf"^{path}: line 2: not valid JSON"):
        load_tasks(path)
