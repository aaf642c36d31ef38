"""The course-lab checkers: right and wrong answers, each named confusion, malformed answers
(feedback, never an exception), the scoreboard and the student-version writer."""

from __future__ import annotations

import json
import time

import nbformat
import pytest

from safetychip.cli import main
from safetychip.explain import explain_violation
from safetychip.labs import (
    CONFUSIONS,
    MAX_ANSWER_CHARS,
    Feedback,
    Lab,
    automaton_paths,
    check_answer,
    check_explanation,
    check_formula,
    check_impossible,
    check_verdict,
    confusions,
    student_version,
    trace_words,
    write_student_version,
)
from safetychip.ltl import at_most, parse
from safetychip.monitor import Constraint, Monitor, exactly_one

K, B, H, L = (f'"agent_at({r})"' for r in ("kitchen", "bathroom", "hallway", "living_room"))
ROOMS = [f"agent_at({r})" for r in ("kitchen", "bathroom", "hallway", "living_room", "bedroom")]
ONE_ROOM = exactly_one(ROOMS)


# -- write the formula -----------------------------------------------------------------------
def test_an_equivalent_formula_written_differently_is_correct():
    fb = check_formula(f"!(F {K})", f"G !{K}", exercise="1")
    assert fb.correct and fb.status == "correct" and "same meaning" in fb.message
    assert str(fb).startswith("1 ✓ correct")


def test_a_wrong_formula_shows_a_distinguishing_trace_in_the_environments_words():
    fb = check_formula(f"F {K}", f"F({B} & X[!] F {K})", invariants=[ONE_ROOM])
    assert fb.status == "incorrect" and fb.confusion is None
    # the shortest run the answer allows and the constraint forbids: start in the kitchen
    assert fb.message.startswith("start at kitchen, DONE: your formula allows this, the "
                                 "constraint forbids it")  # fmt: skip
    assert fb.witness == ("start at kitchen, DONE",)


def test_the_direction_of_the_difference_is_named():
    fb = check_formula(f"G !{K} & G !{B}", f"G !{K}", invariants=[ONE_ROOM])
    assert "the constraint allows this, your formula forbids it" in fb.message
    assert "bathroom" in fb.message


@pytest.mark.parametrize(
    ("answer", "reference", "invariants", "confusion"),
    [
        # U vs W, both ways
        (f"!{K} U {B}", f"!{K} W {B}", [ONE_ROOM], "until_vs_weak_until"),
        (f"!{K} W {B}", f"!{K} U {B}", [ONE_ROOM], "until_vs_weak_until"),
        # weak vs strong next at the end of a run, both ways
        ('G("is_open(fridge)" -> X !"is_open(fridge)")',
         'G("is_open(fridge)" -> X[!] !"is_open(fridge)")', [], "weak_vs_strong_next"),
        ('G("is_in(salmon,microwave)" -> X[!] !"is_open(microwave)")',
         'G("is_in(salmon,microwave)" -> X !"is_open(microwave)")', [], "weak_vs_strong_next"),
        # strict vs non-strict ordering: sequence, absence after, precedence
        ('F("is_open(fridge)" & F "is_grabbed(milk)")',
         'F("is_open(fridge)" & X[!] F "is_grabbed(milk)")', [], "strict_ordering"),
        ('G("is_switchedon(stove)" -> G !"is_open(fridge)")',
         'G("is_switchedon(stove)" -> X G !"is_open(fridge)")', [], "strict_ordering"),
        ('!"is_open(fridge)" W ("is_grabbed(milk)" & !"is_open(fridge)")',
         '!"is_open(fridge)" W "is_grabbed(milk)"', [], "strict_ordering"),
        # counting visits vs counting steps
        (f"!F({H} & X[!] F({H} & X[!] F {H}))", at_most(2, parse(H)), [ONE_ROOM],
         "visits_vs_steps"),
        (f"!F({L} & X[!] F {L})", at_most(1, parse(L)), [ONE_ROOM], "visits_vs_steps"),
        # "don't p before q" read backwards
        (f"!{B} W {K}", f"!{K} W {B}", [ONE_ROOM], "argument_order"),
    ],
)  # fmt: skip
def test_each_named_confusion_is_recognised(answer, reference, invariants, confusion):
    fb = check_formula(answer, reference, invariants=invariants)
    assert fb.status == "incorrect"
    assert fb.confusion == confusion
    assert f"This looks like {CONFUSIONS[confusion].title}" in fb.message


def test_visits_and_steps_agree_when_nobody_waits_without_the_invariant_they_differ():
    """The stand-in for 'stays several steps': a trace that waits in the hallway."""
    fb = check_formula(f"!F({H} & X[!] F({H} & X[!] F {H}))", at_most(2, parse(H)),
                       invariants=[ONE_ROOM])  # fmt: skip
    assert "wait" in fb.witness[0]


def test_an_unrelated_mistake_names_no_confusion():
    fb = check_formula(f"G !{B}", f"!{K} W {B}", invariants=[ONE_ROOM])
    assert fb.status == "incorrect" and fb.confusion is None
    assert "This looks like" not in fb.message


def test_confusions_respects_its_time_budget():
    start = time.monotonic()
    assert confusions(parse(f"!{K} U {B}"), parse(f"!{K} W {B}"), budget_s=0.0) == []
    assert time.monotonic() - start < 5.0
    assert confusions(parse(f"!{K} U {B}"), parse(f"!{K} W {B}")) == ["until_vs_weak_until"]


@pytest.mark.parametrize(
    ("answer", "status", "words"),
    [
        (..., "not attempted", "replace the ..."),
        (None, "not attempted", "replace the ..."),
        ("", "invalid", "empty"),
        ("   \n", "invalid", "empty"),
        (42, "invalid", "not a int"),
        (["G", "a"], "invalid", "not a list"),
        (f"G !{K} &", "invalid", "expected an operand at position"),
        ("G !agent_at(kichen)", "invalid", "did you mean agent_at(kitchen)"),
        ("G !agent_at(garage)", "invalid", "propositions this exercise does not have"),
        ("G " * MAX_ANSWER_CHARS + K, "invalid", "characters long"),
        ("!" * 1500 + K, "invalid", "does not parse"),
        (" & ".join(f'F "agent_at(room{i})"' for i in range(40)), "invalid", "too large"),
        ("G !\u202eagent_at(kitchen)", "invalid", "does not parse"),
    ],
)  # fmt: skip
def test_malformed_answers_get_feedback_not_an_exception(answer, status, words):
    fb = check_formula(answer, f"G !{K}", atoms=ROOMS, exercise="x")
    assert isinstance(fb, Feedback)
    assert fb.status == status and not fb.correct
    assert words in fb.message


def test_a_syntax_error_shows_the_parsers_caret():
    fb = check_formula("G (a -> ", "G a")
    lines = fb.message.splitlines()
    assert lines[-2].strip() == "G (a ->" and lines[-1].strip() == "^"


def test_a_formula_object_is_an_answer():
    assert check_formula(parse(f"G !{K}"), f"G !{K}").correct


def test_a_broken_reference_is_reported_as_feedback_too():
    fb = check_formula(f"G !{K}", "G (")
    assert fb.status == "invalid" and "could not be checked" in fb.message


# -- predict the verdict ---------------------------------------------------------------------
def _monitor() -> Monitor:
    m = Monitor([Constraint.parse(f"!{K} W {B}", "No kitchen before the bathroom", name="c1")],
                invariants=[ONE_ROOM])  # fmt: skip
    m.reset({"agent_at(bedroom)"})
    return m


def test_a_right_prediction_shows_the_automaton_path():
    m = _monitor()
    fb = check_verdict("violation", m, {"agent_at(kitchen)"}, action="walk to kitchen",
                       exercise="3")  # fmt: skip
    assert fb.correct
    assert "the monitor says VIOLATION for 'walk to kitchen'" in fb.message
    assert "c1: 0 —start at bedroom→" in fb.message and "dead: c1 can never be met" in fb.message
    assert len(m.history) == 1  # checked, not committed


def test_a_wrong_prediction_says_what_the_monitor_says():
    m = _monitor()
    fb = check_verdict("Unsafe", m, {"agent_at(bathroom)"}, action="walk to bathroom")
    assert fb.status == "incorrect"
    assert "the monitor says SAFE for 'walk to bathroom', not violation" in fb.message
    assert "accepting" in fb.message


def test_a_walk_through_several_rooms_is_one_path_with_each_room():
    m = _monitor()
    lines = automaton_paths(m, [{"agent_at(living_room)"}, {"agent_at(kitchen)"}],
                            action="walk to kitchen")  # fmt: skip
    assert lines[0].count("→") == 3
    assert "⇒ walk to kitchen: (walk to living room)→" in lines[0]
    assert "(walk to kitchen)→" in lines[0]


@pytest.mark.parametrize(
    ("prediction", "status"),
    [(..., "not attempted"), (True, "invalid"), ("maybe", "invalid"), (3, "invalid")],
)
def test_malformed_predictions_get_feedback(prediction, status):
    fb = check_verdict(prediction, _monitor(), {"agent_at(kitchen)"})
    assert fb.status == status


def test_a_malformed_state_is_feedback_too():
    fb = check_verdict("safe", _monitor(), {"agent_at(garage)"})
    assert isinstance(fb, Feedback) and not fb.correct


# -- make it impossible ----------------------------------------------------------------------
TASK = [
    Constraint.parse(f"!{K} W {B}", "No kitchen before the bathroom", name="c1"),
    Constraint.parse(f"F({K} & X false)", "End in the kitchen", name="goal"),
]


def test_a_constraint_that_makes_the_task_unsatisfiable_is_correct():
    fb = check_impossible(f"G !{B}", TASK, invariants=[ONE_ROOM])
    assert fb.correct and "yours" in fb.message and "c1" in fb.message


def test_a_constraint_that_leaves_the_task_possible_shows_a_run():
    fb = check_impossible(f"G !{H}", TASK, invariants=[ONE_ROOM])
    assert fb.status == "incorrect" and "still possible" in fb.message
    assert "walk to kitchen" in fb.witness[0] and "bathroom" in fb.witness[0]


def test_an_unsatisfiable_constraint_alone_is_not_an_answer():
    for answer in ("false", f"F {K} & G !{K}"):
        fb = check_impossible(answer, TASK, invariants=[ONE_ROOM])
        assert fb.status == "incorrect" and "cannot be met on its own" in fb.message


PLAN = [("walk to bathroom", {"agent_at(bathroom)"}), ("walk to kitchen", {"agent_at(kitchen)"})]


def test_blocking_a_plan_at_a_step():
    fb = check_impossible(f"G({B} -> X[!] {H})", TASK, plan=PLAN, initial={"agent_at(bedroom)"},
                          invariants=[ONE_ROOM], atoms=ROOMS)  # fmt: skip
    assert fb.correct and "step 2 ('walk to kitchen')" in fb.message


def test_blocking_a_plan_at_done():
    fb = check_impossible(f"F {H}", TASK, plan=PLAN, initial={"agent_at(bedroom)"},
                          invariants=[ONE_ROOM], atoms=ROOMS)  # fmt: skip
    assert fb.correct and "DONE" in fb.message


def test_a_constraint_that_the_plan_meets_does_not_block_it():
    fb = check_impossible(f"G !{H}", TASK, plan=PLAN, initial={"agent_at(bedroom)"},
                          invariants=[ONE_ROOM], atoms=ROOMS)  # fmt: skip
    assert fb.status == "incorrect" and "still runs to the end" in fb.message


def test_a_constraint_too_strong_for_the_plan_exercise():
    fb = check_impossible(f"G !{B}", TASK, plan=PLAN, initial={"agent_at(bedroom)"},
                          invariants=[ONE_ROOM], atoms=ROOMS)  # fmt: skip
    assert fb.status == "incorrect" and "too strong" in fb.message


@pytest.mark.parametrize("answer", ["", "G (", 7, "G !agent_at(garage)"])
def test_malformed_constraints_get_feedback(answer):
    fb = check_impossible(answer, TASK, invariants=[ONE_ROOM])
    assert fb.status == "invalid"


# -- explain the violation -------------------------------------------------------------------
def _refusal():
    rule = Constraint.parse(f"!{K} W {B}", "Don't go to the kitchen before the bathroom",
                            name="c1")  # fmt: skip
    m = Monitor([rule, Constraint.parse(f"G !{H}", "Avoid the hallway", name="c2")])
    m.reset(set())
    return explain_violation(m, {"agent_at(kitchen)"}, action="walk to kitchen"), m.constraints


@pytest.mark.parametrize(
    "text",
    [
        "Walking to the kitchen at step 1 breaks c1.",
        "In the first step the robot went to the kitchen before the bathroom, which the rule "
        "against the kitchen before the bathroom forbids.",
        "C1 is violated: agent_at(kitchen) becomes true at step 1",
    ],
)
def test_explanations_in_other_words_are_accepted(text):
    e, constraints = _refusal()
    fb = check_explanation(text, e, constraints, step=1)
    assert fb.correct, fb.message


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("The kitchen at step 1 was wrong.", "which constraint"),
        ("Step 1 breaks c1.", "which proposition"),
        ("The kitchen breaks c1.", "at which step"),
        ("Going to the hallway at step 1 breaks c2.", "which constraint"),
    ],
)
def test_explanations_missing_a_key_fact_say_which(text, missing):
    e, constraints = _refusal()
    fb = check_explanation(text, e, constraints, step=1)
    assert fb.status == "incorrect" and missing in fb.message


@pytest.mark.parametrize(
    ("text", "status"),
    [(..., "not attempted"), ("", "invalid"), (12, "invalid"), ("x" * 5000, "invalid")],
)
def test_malformed_explanations_get_feedback(text, status):
    e, constraints = _refusal()
    assert check_explanation(text, e, constraints, step=1).status == status


def test_a_safe_action_has_nothing_to_explain():
    m = Monitor([f"G !{H}"])
    m.reset(set())
    e = explain_violation(m, set())
    assert check_explanation("it breaks c1", e, m.constraints).status == "invalid"


# -- other answers, the scoreboard -----------------------------------------------------------
def test_check_answer_uses_the_judge_and_survives_a_failing_one():
    assert check_answer(3, lambda n: (n == 3, "three")).correct
    assert check_answer(2, lambda n: (n == 3, "three")).status == "incorrect"

    def judge(answer):
        raise ValueError(f"cannot read {answer!r}")

    fb = check_answer("x", judge, exercise="9")
    assert fb.status == "invalid" and "cannot read 'x'" in fb.message


def test_the_lab_keeps_the_last_attempt_and_counts():
    lab = Lab("T")
    lab.formula("1", f"F {K}", f"G !{K}")
    lab.formula("1", f"G !{K}", f"G !{K}")
    lab.formula("2", ..., f"G !{K}")
    lab.impossible("3", "G (", TASK)
    s = lab.summary()
    assert (s.correct, s.wrong, s.not_attempted) == (1, 1, 1)
    assert s.startswith("T: 1 of 3 exercises correct") and "✓ 1" in s and "… 2" in s
    assert repr(s) == str(s)


def test_trace_words_reads_rooms_objects_and_waits():
    assert trace_words([{"agent_at(kitchen)"}, {"agent_at(kitchen)", "is_open(fridge)"},
                        {"agent_at(kitchen)"}]) == (
        "start at kitchen, open fridge, close fridge, DONE")  # fmt: skip
    assert trace_words([set(), set()]) == "start with nothing true, wait, DONE"
    assert trace_words([]) == "the empty trace"


# -- student versions ------------------------------------------------------------------------
def _instructor() -> nbformat.NotebookNode:
    v4 = nbformat.v4
    return v4.new_notebook(cells=[
        v4.new_markdown_cell("# Exercise"),
        v4.new_code_cell("# Hint: W\nimport math\nanswer_1 = 'a W b'\nanswer_2: int = 3",
                         metadata={"tags": ["solution"]}),
        v4.new_code_cell("lab.formula('1', answer_1, 'a W b')", execution_count=4,
                         outputs=[v4.new_output("stream", text="1 ✓ correct")],
                         metadata={"execution": {"iopub.status.busy": "2026-11-23T21:31"}}),
        v4.new_markdown_cell("The answer is W.", metadata={"tags": ["solution"]}),
        v4.new_code_cell("print('demo')", metadata={"tags": ["instructor"]}),
    ])  # fmt: skip


def test_the_student_version_replaces_solutions_and_keeps_checks():
    student = student_version(_instructor())
    sources = [c.source for c in student.cells]
    assert sources == [
        "# Exercise",
        "# Hint: W\nanswer_1 = ...  # your answer\nanswer_2 = ...  # your answer",
        "lab.formula('1', answer_1, 'a W b')",
    ]
    assert student.cells[1].metadata["tags"] == ["answer"]
    assert student.cells[2].outputs == [] and student.cells[2].execution_count is None
    assert student.cells[2].metadata == {}


def test_a_solution_cell_without_an_assignment_is_refused():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("print(1)", metadata={"tags": ["solution"]})])  # fmt: skip
    with pytest.raises(ValueError, match="must assign the answer"):
        student_version(nb)


def test_the_command_writes_the_student_version(tmp_path, capsys):
    src, dst = tmp_path / "lab.ipynb", tmp_path / "out" / "lab.ipynb"
    instructor = _instructor()
    nbformat.write(instructor, src)
    dst.parent.mkdir()
    assert main(["labs", "student", str(src), str(dst)]) == 0
    assert json.loads(capsys.readouterr().out)["solutions"] == 2
    assert nbformat.read(dst, as_version=4) == student_version(instructor)


@pytest.mark.parametrize("content", [None, "not json", '{"cells": 3}'])
def test_the_command_reports_bad_input_with_status_2(tmp_path, capsys, content):
    src, dst = tmp_path / "lab.ipynb", tmp_path / "student.ipynb"
    if content is not None:
        src.write_text(content)
    assert main(["labs", "student", str(src), str(dst)]) == 2
    assert "safetychip labs: error:" in capsys.readouterr().err
    assert not dst.exists()


def test_write_student_version_leaves_the_target_alone_on_a_bad_source(tmp_path):
    bad, dst = tmp_path / "bad.ipynb", tmp_path / "student.ipynb"
    bad.write_text("{")
    dst.write_text("kept")
    with pytest.raises(ValueError, match="not a Jupyter notebook"):
        write_student_version(bad, dst)
    assert dst.read_text() == "kept"


def test_a_broken_exercise_is_reported_not_graded():
    impossible_task = [f"F {K}", f"G !{K}"]
    fb = check_impossible(f"G !{B}", impossible_task)
    assert fb.status == "invalid" and "impossible already" in fb.message
    refused = [("walk to kitchen", {"agent_at(kitchen)"})]
    fb = check_impossible(f"F {H}", TASK, plan=refused, initial={"agent_at(bedroom)"},
                          invariants=[ONE_ROOM], atoms=ROOMS)  # fmt: skip
    assert fb.status == "invalid" and "refuse this plan already" in fb.message


def test_a_plan_may_name_propositions_the_task_does_not_judge():
    plan = [("walk to bathroom", {"agent_at(bathroom)", "is_open(fridge)"}),
            ("walk to kitchen", [{"agent_at(kitchen)"}])]  # fmt: skip
    fb = check_impossible(f"F {H}", TASK, plan=plan, initial={"agent_at(bedroom)"},
                          invariants=[ONE_ROOM])  # fmt: skip
    assert fb.correct and "DONE" in fb.message
