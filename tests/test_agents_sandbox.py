"""The Code-as-Policies sandbox: what it admits, what it refuses (type and message), budgets."""

from __future__ import annotations

import time

import pytest

from safetychip.agents import check_program, run_program
from safetychip.errors import ProgramBudgetError, SandboxError

SKILLS = ("go_to", "open", "pick_up")


def recorder():
    calls = []

    def skill(name):
        def call(*args):
            calls.append((name, *args))
            return True

        return call

    return calls, {name: skill(name) for name in SKILLS}


def test_admitted_constructs_run_in_order():
    calls, skills = recorder()
    program = (
        'places = ["kitchen", "bedroom"]\n'
        "done_once = False\n"
        "for place in places:\n"
        "    if place == 'bedroom' and not done_once:\n"
        "        continue\n"
        "    go_to(place)\n"
        "while not done_once:\n"
        "    done_once = open('fridge')\n"
        "    break\n"
        "if done_once or -1 < 0:\n"
        "    pick_up('salmon')\n"
        "else:\n"
        "    pass\n"
    )
    run = run_program(program, skills)
    assert calls == [("go_to", "kitchen"), ("open", "fridge"), ("pick_up", "salmon")]
    assert run.calls == 3 and run.steps > 10 and run.seconds >= 0


@pytest.mark.parametrize("program, message", [
    ("import os", "line 1: import is not allowed: a program may only call the skills go_to, "
                  "open, pick_up"),
    ("from subprocess import run", "line 1: import is not allowed: a program may only call the "
                                   "skills go_to, open, pick_up"),
    ("x = 'a'.__class__", "line 1: attribute access ('.__class__') is not allowed"),
    ("go_to.__globals__", "line 1: attribute access ('.__globals__') is not allowed"),
    ("__builtins__", "line 1: the name '__builtins__' is not allowed (no dunder names)"),
    ("__import__('os')", "line 1: '__import__' is not allowed: a program may only call the "
                         "skills go_to, open, pick_up"),
    ("eval('1 + 1')", "line 1: 'eval' is not allowed: a program may only call the skills go_to, "
                      "open, pick_up"),
    ("exec('x = 1')", "line 1: 'exec' is not allowed: a program may only call the skills go_to, "
                      "open, pick_up"),
    ("print('hi')", "line 1: 'print' is not a skill: a program may only call the skills go_to, "
                    "open, pick_up"),
    ("x = [1][0]", "line 1: indexing is not allowed"),
    ("x = 1 + 1", "line 1: arithmetic is not allowed (loop over a list instead)"),
    ("def f():\n    pass", "line 1: defining functions is not allowed"),
    ("f = lambda: 1", "line 1: lambda is not allowed"),
    ("with x:\n    pass", "line 1: 'with' is not allowed"),
    ("try:\n    pass\nexcept Exception:\n    pass", "line 1: 'try' is not allowed"),
    ("x = [p for p in 'ab']", "line 1: comprehensions are not allowed"),
    ("go_to(place='kitchen')", "line 1: go_to() takes positional arguments only"),
    ("go_to('a'\n", "line 1: the program does not parse: '(' was never closed"),
    ("   ", "the program is empty"),
    ("x = b'bytes'", "line 1: the literal b'bytes' is not allowed"),
    ("for i in 'ab':\n    pass\nelse:\n    pass", "line 1: 'else' on a loop is not allowed"),
])  # fmt: skip
def test_refused_constructs_name_the_line_and_the_construct(program, message):
    calls, skills = recorder()
    with pytest.raises(SandboxError) as caught:
        run_program(program, skills)
    assert str(caught.value) == message
    assert calls == []  # checked before anything runs


def test_a_refusal_after_valid_calls_still_runs_nothing():
    calls, skills = recorder()
    with pytest.raises(SandboxError, match="line 2: import is not allowed"):
        run_program("go_to('kitchen')\nimport os", skills)
    assert calls == []


def test_an_endless_loop_stops_at_the_step_budget():
    _, skills = recorder()
    with pytest.raises(ProgramBudgetError) as caught:
        run_program("while True:\n    pass", skills, max_steps=500)
    assert str(caught.value) == (
        "line 1: the program ran past its budget of 500 interpreter steps (an endless loop?)"
    )
    assert isinstance(caught.value, SandboxError) and isinstance(caught.value, TimeoutError)


def test_an_endless_loop_of_skill_calls_stops_at_the_call_budget():
    calls, skills = recorder()
    with pytest.raises(
        ProgramBudgetError, match="line 2: the program made more than 7 skill calls"
    ):
        run_program("while True:\n    go_to('kitchen')", skills, max_calls=7)
    assert len(calls) == 7


def test_a_slow_program_stops_at_the_time_budget():
    def slow(place):
        time.sleep(0.02)
        return True

    began = time.perf_counter()
    with pytest.raises(ProgramBudgetError, match=r"the program ran past its time budget of 0\.1 s"):
        run_program(
            "while True:\n    go_to('x')", {"go_to": slow}, time_budget=0.1, max_calls=10_000
        )
    assert time.perf_counter() - began < 1.0


def test_run_time_errors_are_sandbox_errors():
    _, skills = recorder()
    with pytest.raises(SandboxError, match="line 1: the name 'kitchen' is not defined"):
        run_program("go_to(kitchen)", skills)
    with pytest.raises(SandboxError, match="'break' or 'continue' outside a loop"):
        run_program("break", skills)
    with pytest.raises(SandboxError, match="line 1: a for loop needs a list, got bool"):
        run_program("for x in True:\n    pass", skills)


def test_check_program_returns_the_tree():
    tree = check_program("go_to('kitchen')", ["go_to"])
    assert type(tree).__name__ == "Module"
