"""The Code-as-Policies sandbox: what it admits, what it refuses (type and message), budgets."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from safetychip.agents import CodeAsPoliciesAgent, check_program, run_program
from safetychip.envs import load_tasks
from safetychip.errors import ProgramBudgetError, SandboxError
from safetychip.llm import ScriptedModel

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
    assert time.perf_counter() - began < 3.0  # a 0.1 s budget; wide margin for a loaded machine


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


# Programs that once ran for minutes inside one interpreter step, overflowed the stack or
# exhausted memory: each must now stop with a typed error, the message beginning so, in
# milliseconds and a few megabytes. benchmarks/bench_sandbox.py times them.
FORTY = '"' + "x" * 40 + '"'


def doubled(seed: str, then: str) -> str:
    """Two values that double forty times (a billion elements each, sharing their parts)."""
    return (f"x = {seed}\ny = {seed}\nfor twice in {FORTY}:\n"
            f"    x = [x, x]\n    y = [y, y]\n{then}\n")  # fmt: skip


BOMBS = {
    "doubled lists compared": (
        doubled('["room"]', "x == y"), SandboxError, "line 4: the list is too big: more than "
        "10,000 list elements and characters in all (keep values small; a list that doubles in "
        "a loop outgrows any limit)"),
    "doubled list passed to a skill": (
        doubled('["room"]', "go_to(x)"), SandboxError, "line 4: the list is too big"),
    "doubled long string passed to a skill": (
        doubled('"' + "a" * 1000 + '"', "go_to(x)"), SandboxError,
        "line 4: the list is too big"),
    "string added to itself": ('x = "a"\nfor twice in ' + FORTY + ":\n    x = x + x",
                               SandboxError, "line 3: arithmetic is not allowed"),
    "list nested in a loop": (
        'x = "room"\nfor deeper in "' + "x" * 1000 + '":\n    x = [x]\ngo_to(x)',
        SandboxError, "line 3: the list nests lists more than 20 deep (keep lists flat)"),
    "not 2,000 deep": ("x = " + "not " * 2000 + "True", SandboxError,
                       "line 1: the program nests more than 50 levels deep (an expression "
                       "within an expression, a block within a block): assign inner parts to "
                       "names first"),
    "minus 2,000 deep": ("x = " + "- " * 2000 + "1", SandboxError,
                         "line 1: the program nests more than 50 levels deep"),
    "list literal 100 deep": ("x = " + "[" * 100 + "]" * 100, SandboxError,
                              "line 1: the program nests more than 50 levels deep"),
    "list literal 2,000 deep": ("x = " + "[" * 2000 + "]" * 2000, SandboxError,
                                "line 1: the program "),  # Python's parser may refuse it first
    "not 12,000 deep, past Python's parser": (
        "go_to('kitchen')\n\nx = " + "not " * 12000 + "True", SandboxError,
        "line 3: the program "),  # the parser's limit depends on the Python version
    "[0] * 10**9": ("x = [0] * 10**9", SandboxError, "line 1: arithmetic is not allowed"),
    '"a" * 10**9': ('x = "a" * 10**9', SandboxError, "line 1: arithmetic is not allowed"),
    "range(10**9)": ("for i in range(10**9):\n    pass", SandboxError,
                     "line 1: 'range' is not a skill"),
    "long string literal": ('go_to("' + "a" * 20_000 + '")', SandboxError,
                            "line 1: the literal is too big"),
    "huge hexadecimal number": ("go_to(0x" + "f" * 5000 + ")", SandboxError,
                                "line 1: the literal holds a number beyond ±2**63 (use "
                                "smaller numbers)"),
    "long program": ("go_to('kitchen')\n" * 4000, SandboxError,
                     "the program has 68,000 characters, more than the 50,000 allowed: write "
                     "it shorter (loop over a list instead of repeating lines)"),
}  # fmt: skip


def printing_skills():
    """Skills that print their arguments first, as the Code-as-Policies agent's skills do."""
    calls = []

    def skill(name):
        def call(*args):
            calls.append(f"{name}({', '.join(repr(a) for a in args)})")
            return True

        return call

    return calls, {name: skill(name) for name in SKILLS}


@pytest.mark.parametrize("name", BOMBS)
def test_a_bomb_stops_with_a_typed_error_in_milliseconds(name):
    program, error, message = BOMBS[name]
    calls, skills = printing_skills()
    tracemalloc.start()
    began = time.perf_counter()
    try:
        with pytest.raises(error) as caught:
            run_program(program, skills)
    finally:
        elapsed = time.perf_counter() - began
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert str(caught.value).startswith(message)
    assert calls == []
    # Each stops in milliseconds; 3 s leaves room for a loaded machine under tracemalloc.
    assert elapsed < 3.0, f"{name}: {elapsed:.3f} s"
    assert peak < 32 * 2**20, f"{name}: peak {peak / 2**20:.1f} MiB"


@pytest.mark.parametrize("name", ["doubled lists compared", "doubled list passed to a skill",
                                  "not 2,000 deep", "not 12,000 deep, past Python's parser",
                                  "huge hexadecimal number"])  # fmt: skip
def test_a_bomb_ends_the_agents_episode_in_error_with_nothing_executed(name):
    program, error, message = BOMBS[name]
    task = load_tasks(suite="four_room")[0]
    began = time.perf_counter()
    episode = CodeAsPoliciesAgent(ScriptedModel([program])).run(task, k=1)
    assert time.perf_counter() - began < 3.0
    assert episode.end == "error" and episode.executed == ()
    assert episode.reason.startswith(f"{error.__name__}: {message}")


def test_a_bomb_after_an_action_stops_the_episode_there():
    program = "go_to('kitchen')\n" + doubled('["room"]', "go_to('bathroom')")
    task = load_tasks(suite="four_room")[0]
    episode = CodeAsPoliciesAgent(ScriptedModel([program])).run(task, k=1)
    assert episode.end == "error" and episode.executed == ("walk to kitchen",)
    assert episode.reason.startswith("SandboxError: line 5: the list is too big")


def test_a_value_at_the_limits_is_admitted_and_one_past_them_is_refused():
    calls, skills = printing_skills()
    flat = '"' + "a" * 9_999 + '"'
    deep = "[" * 20 + "]" * 20
    run_program(f"x = {flat}\ngo_to([x])\ny = {deep}\ngo_to(y)", skills)
    assert len(calls) == 2 and calls[1] == f"go_to({deep})"
    with pytest.raises(SandboxError, match="line 2: the list is too big"):
        run_program(f"x = {flat}\ngo_to([x, 'b'])", skills)
    with pytest.raises(SandboxError, match="line 1: the list nests lists more than 20 deep"):
        run_program(f"x = [{deep}]", skills)


def test_a_skill_gets_arguments_within_the_limits_together():
    calls, skills = printing_skills()
    half = '"' + "a" * 6_000 + '"'
    with pytest.raises(SandboxError) as caught:
        run_program(f"x = {half}\ngo_to(x)\ngo_to(x, x)", skills)
    assert str(caught.value).startswith("line 3: the argument list of go_to() is too big")
    assert len(calls) == 1  # the first call, with one of them, ran


@pytest.mark.parametrize("result, message", [
    (list(range(100_000)), "line 1: the value fetch() returned is too big"),
    ({"kitchen": 1}, "line 1: the value fetch() returned holds a dict, which the sandbox "
                     "does not admit (only strings, numbers, booleans, None, lists and tuples)"),
])  # fmt: skip
def test_a_skill_result_beyond_the_limits_stops_the_program(result, message):
    calls, skills = printing_skills()
    skills["fetch"] = lambda: result
    with pytest.raises(SandboxError) as caught:
        run_program("x = fetch()\ngo_to(x)", skills)
    assert str(caught.value).startswith(message) and calls == []


def test_legitimate_programs_near_the_nesting_limit_still_run():
    calls, skills = printing_skills()
    rooms = ", ".join(f'"room {i}"' for i in range(200))
    program = (f"rooms = [{rooms}]\nfor room in rooms:\n    for again in [1, 2]:\n"
               "        if room != 'room 3' and not again == 2:\n"
               "            go_to(room)\n")  # fmt: skip
    run = run_program(program, skills, max_calls=500)
    assert run.calls == 199 and calls[-1] == "go_to('room 199')"
    # Module > Expr > 47 calls > the innermost callee's name > its Load context: 50 levels
    nested = "go_to(" * 47 + "'kitchen'" + ")" * 47
    run_program(nested, skills, max_calls=500)
    with pytest.raises(SandboxError, match="line 1: the program nests more than 50 levels"):
        run_program("go_to(" + nested + ")", skills)
