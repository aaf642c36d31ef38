"""The ``safetychip`` command line: every subcommand, batch mode, and every error path."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from safetychip import cli
from safetychip.cli import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_VIOLATION,
    main,
    reproduction_steps,
)
from safetychip.monitor import _files

DATA = Path(__file__).parent / "data"
VERDICTS = DATA / "verdicts.jsonl"
PHONE = 'G !"is_grabbed(phone)"'


def run(capsys, *argv: str, stdin: str | None = None, monkeypatch=None):
    """Run the CLI in-process; return (status, stdout, stderr)."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def write(tmp_path: Path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def assert_error(status: int, out: str, err: str, command: str, *fragments: str) -> None:
    assert status == EXIT_INPUT
    assert out == ""
    assert err.startswith(f"safetychip {command}: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


# ------------------------------------------------------------------------------------- check
@pytest.mark.parametrize(
    ("trace", "holds"),
    [
        ([[], []], True),
        ([[], ["is_grabbed(phone)"]], False),
        ([{"is_grabbed(phone)": False}, {"is_grabbed(phone)": True}], False),
        ([["is_grabbed( phone )"]], False),  # atom names are made canonical
        ([["other"], {"is_grabbed(phone)": False, "other": True}], True),
    ],
)
def test_check_one_trace(capsys, tmp_path, trace, holds):
    path = write(tmp_path, "trace.json", trace)
    status, out, err = run(capsys, "check", PHONE, "--trace", path)
    assert (status, err) == (EXIT_OK, "")
    assert json.loads(out) == {"formula": PHONE, "holds": holds}
    assert out.count("\n") == 1


@pytest.mark.parametrize("engine", ["auto", "dfa", "evaluate"])
def test_check_engines_and_stdin_trace(capsys, monkeypatch, engine):
    argv = ("check", "a U b", "--trace", "-", "--engine", engine)
    status, out, _ = run(capsys, *argv, stdin='[["a"], ["b"]]', monkeypatch=monkeypatch)
    assert status == EXIT_OK
    assert json.loads(out) == {"formula": "a U b", "holds": True}
    status, out, _ = run(capsys, *argv, stdin='[["a"], []]', monkeypatch=monkeypatch)
    assert json.loads(out)["holds"] is False


def test_check_prefix_syntax(capsys, tmp_path):
    formula = "W ! agent_at ( kitchen ) agent_at(bathroom)"
    path = write(tmp_path, "t.json", [[], ["agent_at(kitchen)"]])
    status, out, _ = run(capsys, "check", "--syntax", "prefix", formula, "--trace", path)
    assert status == EXIT_OK
    assert json.loads(out) == {"formula": formula, "holds": False}


def test_check_weak_and_strong_next(capsys, tmp_path):
    path = write(tmp_path, "t.json", [["a"]])
    assert json.loads(run(capsys, "check", "G(a -> X b)", "--trace", path)[1])["holds"] is True
    assert json.loads(run(capsys, "check", "G(a -> X[!] b)", "--trace", path)[1])["holds"] is False


# -------------------------------------------------------------------------------- batch mode
def test_batch_with_a_bad_line_in_the_middle(capsys, monkeypatch):
    stdin = "\n".join([
        json.dumps({"formula": "F a", "trace": [[], ["a"]]}),
        json.dumps({"formula": "a U", "trace": [[]]}),
        "",  # blank lines are skipped but keep the numbering
        json.dumps({"formula": "G a", "trace": [["a"], []], "holds": False}),
    ]) + "\n"  # fmt: skip
    status, out, err = run(capsys, "check", stdin=stdin, monkeypatch=monkeypatch)
    assert status == EXIT_INPUT
    records = lines(out)
    assert records[0] == {"line": 1, "formula": "F a", "holds": True}
    assert records[1]["line"] == 2 and set(records[1]) == {"line", "error"}
    assert "formula 'a U': cannot parse Spot formula" in records[1]["error"]
    assert records[2] == {"line": 4, "formula": "G a", "holds": False}
    assert "safetychip check: error: <stdin>:2: formula 'a U'" in err
    assert "<stdin>: 1 of 3 lines failed" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not valid JSON: Expecting property name"),
        ("[1, 2]", 'expected an object {"formula": …, "trace": […]}, got a list'),
        ('{"trace": [[]]}', "no 'formula' field"),
        ('{"formula": 3, "trace": [[]]}', "'formula' must be a string, got a number"),
        ('{"formula": "a"}', "no 'trace' field"),
        ('{"formula": "a", "trace": []}', "trace: the trace is empty"),
        ('{"formula": "a", "trace": "a"}', "trace: a trace is a JSON list of proposition states"),
        ('{"formula": "a", "trace": [3]}', "trace: position 0: a proposition state is a list"),
        ('{"formula": "a", "trace": [[1]]}', "trace: position 0: atom 1 is not a string"),
        ('{"formula": "a", "trace": [[""]]}', "position 0: an atomic proposition needs a non"),
        ('{"formula": "a", "trace": [[], {"a": 1}]}', "position 1: the value of 'a' must be true"),
        ('{"formula": "a & b", "trace": [{"a": true}]}', "position 0 gives no value for b"),
        ('{"formula": "a", "trace": ' + "[" * 100_000, "not usable JSON: nested too deeply"),
    ],
)
@pytest.mark.parametrize("engine", ["dfa", "evaluate"])
def test_batch_error_records(capsys, monkeypatch, line, message, engine):
    good = json.dumps({"formula": "a", "trace": [["a"]]})
    stdin = f"{good}\n{line}\n{good}\n"
    status, out, err = run(capsys, "check", "-", "--engine", engine, stdin=stdin,
                           monkeypatch=monkeypatch)  # fmt: skip
    assert status == EXIT_INPUT
    records = lines(out)
    assert [r["line"] for r in records] == [1, 2, 3]
    assert records[0]["holds"] is records[2]["holds"] is True
    assert message in records[1]["error"]
    assert f"<stdin>:2: {records[1]['error']}" in err


def test_batch_agrees_with_conformance_vectors(capsys):
    """The first 500 lines of tests/data/verdicts.jsonl, through the DFA and the evaluator."""
    head = VERDICTS.read_text(encoding="utf-8").splitlines()[:500]
    expected = [json.loads(line) for line in head]
    for engine in ("auto", "evaluate"):
        stdin = io.StringIO("\n".join(head) + "\n")
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(sys, "stdin", stdin)
            status = main(["check", "--engine", engine])
        out, err = capsys.readouterr()
        assert (status, err) == (EXIT_OK, "")
        got = lines(out)
        assert [g["line"] for g in got] == list(range(1, 501))
        assert [g["formula"] for g in got] == [e["formula"] for e in expected]
        assert [g["holds"] for g in got] == [e["holds"] for e in expected]


def test_batch_input_file(capsys, tmp_path):
    path = write(tmp_path, "cases.jsonl", '{"formula": "F a", "trace": [[]]}\n')
    status, out, _ = run(capsys, "check", "--input", path)
    assert status == EXIT_OK
    assert lines(out) == [{"line": 1, "formula": "F a", "holds": False}]
    bad = write(tmp_path, "bad.jsonl", '{"formula": "F a", "trace": [[]]}\n'
                                       '{"formula": "(a", "trace": [[]]}\n')  # fmt: skip
    status, out, err = run(capsys, "check", "--input", bad)
    assert status == EXIT_INPUT
    assert f"{bad}:2: formula '(a'" in err


def test_batch_input_not_utf8(capsys, tmp_path):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"formula": "a", "trace": [["\xe9"]]}\n')
    status, _, err = run(capsys, "check", "--input", str(path))
    assert status == EXIT_INPUT
    assert f"{path}: not UTF-8 text" in err


def test_batch_empty_input(capsys, monkeypatch):
    assert run(capsys, "check", stdin="", monkeypatch=monkeypatch) == (EXIT_OK, "", "")


# ---------------------------------------------------------------------------------- automaton
def test_automaton_json(capsys):
    status, out, err = run(capsys, "automaton", PHONE)
    assert (status, err) == (EXIT_OK, "")
    assert out.count("\n") == 1  # one compact JSON document
    doc = json.loads(out)
    assert doc["formula"] == 'G!"is_grabbed(phone)"'
    assert doc["aps"] == ["is_grabbed(phone)"]
    assert doc["initial"] == 0
    assert doc["states"] == [0, 1, 2]
    assert doc["accepting"] == [1]
    assert doc["dead"] == [2]
    assert doc["guards"]["0"] == [
        {"target": 1, "guard": "!is_grabbed(phone)"},
        {"target": 2, "guard": "is_grabbed(phone)"},
    ]
    assert doc["guards"]["2"] == [{"target": 2, "guard": "1"}]
    assert {"source": 1, "target": 2, "guard": "is_grabbed(phone)"} in doc["edges"]
    assert len(doc["edges"]) == sum(len(g) for g in doc["guards"].values()) == 5


def test_automaton_indent_prefix_and_dot(capsys):
    status, out, _ = run(capsys, "automaton", "U a b", "--syntax", "prefix", "--indent", "2")
    assert status == EXIT_OK
    assert out.startswith('{\n  "formula": "a U b"')
    status, out, _ = run(capsys, "automaton", "a U b", "--dot")
    assert status == EXIT_OK
    assert out.startswith("digraph DFA {") and out.rstrip().endswith("}")
    assert 'label="a U b"' in out


def test_automaton_bad_formula(capsys):
    status, out, err = run(capsys, "automaton", "G (a &")
    assert_error(status, out, err, "automaton", "formula 'G (a &'", "expected an operand", "^")


# ------------------------------------------------------------------------------------ monitor
CONSTRAINTS = [
    {"name": "phone", "sentence": "never pick up the phone", "formula": PHONE},
    {"name": "kitchen", "sentence": "do not enter the kitchen before the bathroom",
     "formula": "!agent_at(kitchen) W agent_at(bathroom)"},
]  # fmt: skip


def test_monitor_safe_trace(capsys, tmp_path):
    cons = write(tmp_path, "c.json", CONSTRAINTS)
    trace = write(tmp_path, "t.json", [[], ["agent_at(bathroom)"], ["agent_at(kitchen)"]])
    status, out, err = run(capsys, "monitor", cons, trace)
    assert (status, err) == (EXIT_OK, "")
    records = lines(out)
    assert [r["step"] for r in records] == [0, 1, 2, "DONE"]
    assert {r["status"] for r in records} == {"safe"}
    assert set(records[0]) == {
        "step",
        "status",
        "reason",
        "violated",
        "state_changes",
        "pending",
        "automaton_states",
    }


def test_monitor_violation_exits_1(capsys, tmp_path):
    cons = write(tmp_path, "c.json", CONSTRAINTS)
    trace = write(tmp_path, "t.json", [[], ["agent_at(kitchen)"], ["agent_at(bathroom)"]])
    status, out, _ = run(capsys, "monitor", cons, trace)
    assert status == EXIT_VIOLATION
    records = lines(out)
    assert [r["step"] for r in records] == [0, 1, 2, "DONE"]
    assert records[0]["status"] == "safe"
    assert records[1]["status"] == "violation" and records[1]["violated"] == ["kitchen"]
    assert records[1]["state_changes"] == ["Violated: agent_at(kitchen)"]
    assert records[-1]["status"] == "violation"


def test_monitor_pending_at_done(capsys, tmp_path):
    cons = write(tmp_path, "c.json", ["F a"])  # formula strings; named c1, c2…
    trace = write(tmp_path, "t.json", [{"a": False}])
    status, out, _ = run(capsys, "monitor", cons, trace)
    assert status == EXIT_VIOLATION
    done = lines(out)[-1]
    assert done["step"] == "DONE" and done["pending"] == ["c1"]


def test_monitor_abort_and_invariants(capsys, tmp_path):
    cons = write(tmp_path, "c.json", {"constraints": ["F a", "G !a"], "invariants": []})
    trace = write(tmp_path, "t.json", [[]])
    status, out, _ = run(capsys, "monitor", cons, trace)
    assert status == EXIT_VIOLATION
    (record,) = lines(out)  # nothing follows an abort
    assert record["step"] == 0 and record["status"] == "abort"
    assert record["violated"] == ["c1", "c2"]
    # Invariants: the agent is always in the kitchen or the bathroom.
    spec = {
        "constraints": ["G !(agent_at(kitchen) & agent_at(bathroom))", "F agent_at(bathroom)"],
        "invariants": ["G(agent_at(kitchen) | agent_at(bathroom))"],
    }
    cons = write(tmp_path, "c2.json", spec)
    trace = write(tmp_path, "t2.json", [["agent_at(kitchen)"], ["agent_at(bathroom)"]])
    status, out, _ = run(capsys, "monitor", cons, trace)
    assert status == EXIT_OK
    trace = write(tmp_path, "t3.json", [["agent_at(kitchen)"], []])  # breaks the invariant
    status, out, _ = run(capsys, "monitor", cons, trace)
    assert status == EXIT_VIOLATION
    assert "domain invariant" in lines(out)[1]["reason"]


def test_monitor_prefix_syntax_and_stdin(capsys, tmp_path, monkeypatch):
    cons = write(tmp_path, "c.json", [{"formula": "G ! is_grabbed(phone)", "name": "phone"}])
    argv = ("monitor", "--syntax", "prefix", cons, "-")
    status, out, _ = run(capsys, *argv, stdin='[[], ["is_grabbed(phone)"]]',
                         monkeypatch=monkeypatch)  # fmt: skip
    assert status == EXIT_VIOLATION
    assert lines(out)[1]["violated"] == ["phone"]


def test_monitor_warns_on_unknown_keys(capsys, tmp_path):
    cons = write(tmp_path, "c.json", {"constraints": ["F a"], "invariant": ["G a"]})
    trace = write(tmp_path, "t.json", [["a"]])
    status, _, err = run(capsys, "monitor", cons, trace)
    assert status == EXIT_OK
    assert err == f"safetychip monitor: warning: {cons}: ignoring unknown keys 'invariant'\n"


@pytest.mark.parametrize(
    ("constraints", "fragments"),
    [
        ("[", ["not valid JSON: Expecting value at line 1 column 2"]),
        ('"G a"', ["expected a list of constraints", "got a string"]),
        ("[]", ["the list of constraints is empty"]),
        ({"invariants": []}, ["the object has no 'constraints' list"]),
        ({"constraints": ["a"], "invariants": "G a"}, ["'invariants' must be a list"]),
        ({"constraints": ["a"], "invariants": [3]}, ["invariant 1 must be a formula string"]),
        ({"constraints": ["a"], "invariants": ["G ("]}, ["invariant 1 'G ('", "cannot parse"]),
        ([{"name": "x"}], ["constraint 1 ('x'): no 'formula' field"]),
        ([{"formula": ["a"]}], ["constraint 1: 'formula' must be a string, got a list"]),
        ([{"formula": "a", "name": 3}], ["constraint 1: 'name' must be a string"]),
        ([{"formula": "a", "sentence": None}], ["constraint 1: 'sentence' must be a string"]),
        ([{"formula": "a", "pattern": 1}], ["constraint 1: 'pattern' must be a string or null"]),
        (["a", 7], ["constraint 2: expected an object or a formula string, got a number"]),
        (["a", {"name": "b2", "formula": "b U"}], ["constraint 2 ('b2'): formula 'b U'", "^"]),
        ([{"name": "x", "formula": "a"}, {"name": "x", "formula": "b"}],
         ["constraint names must be unique; repeated: x"]),
    ],
)  # fmt: skip
def test_monitor_bad_constraints(capsys, tmp_path, constraints, fragments):
    cons = write(tmp_path, "c.json", constraints)
    trace = write(tmp_path, "t.json", [[]])
    status, out, err = run(capsys, "monitor", cons, trace)
    assert_error(status, out, err, "monitor", f"error: {cons}: ", *fragments)


def test_monitor_bad_trace(capsys, tmp_path):
    cons = write(tmp_path, "c.json", CONSTRAINTS)
    trace = write(tmp_path, "t.json", [[], {"agent_at(kitchen)": True}])
    status, out, err = run(capsys, "monitor", cons, trace)
    missing = "agent_at(bathroom), is_grabbed(phone)"
    assert_error(status, out, err, "monitor", f"{trace}: position 1 gives no value for {missing}")
    status, out, err = run(capsys, "monitor", cons, str(tmp_path / "missing.json"))
    assert_error(status, out, err, "monitor", "missing.json: no such file")


def test_monitor_two_stdins(capsys):
    status, out, err = run(capsys, "monitor", "-", "-")
    assert_error(status, out, err, "monitor", "only one of CONSTRAINTS.json and TRACE.json")


# ---------------------------------------------------------------------------------- reproduce
def test_reproduce_without_inputs(capsys, tmp_path):
    status, out, err = run(capsys, "reproduce", "--root", str(tmp_path))
    assert (status, err) == (EXIT_OK, "")
    assert "skipped spot_demo_automata: " in out
    assert "data/spot/demo_constraints.json does not exist yet" in out
    # every registered step skips (extension modules register steps of their own)
    n = len(reproduction_steps())
    assert re.search(
        rf"reproduce: 0 of {n} steps ran \(nothing to reproduce yet\); \d+\.\d s in all\n$", out
    )
    # every step says its name and number before it starts
    names = [step.name for step in reproduction_steps()]
    assert re.findall(r"(?m)^\[(\d+)/(\d+)\] (\w+): ", out) == [
        (str(i), str(n), name) for i, name in enumerate(names, 1)
    ]
    assert not (tmp_path / "figures").exists()


def test_reproduce_spot_demo(capsys, tmp_path):
    demo = tmp_path / "data" / "spot"
    demo.mkdir(parents=True)
    write(demo, "demo_constraints.json", CONSTRAINTS)
    status, out, err = run(capsys, "reproduce", "spot_demo_automata", "--root", str(tmp_path))
    assert (status, err) == (EXIT_OK, "")
    target = tmp_path / "figures" / "spot_demo_automata.txt"
    assert f"spot_demo_automata: wrote {target}" in out
    assert out.startswith("[1/1] spot_demo_automata: formula, DFA size and guards")
    assert re.search(r"(?m)^spot_demo_automata: done in \d+\.\d s$", out)
    text = target.read_text(encoding="utf-8")
    assert "[phone] never pick up the phone" in text
    assert 'formula:   G!"is_grabbed(phone)"' in text
    assert "automaton: 3 states, 5 edges, initial 0, accepting [1], dead [2]" in text
    assert "  0 -> 2: is_grabbed(phone)" in text
    run(capsys, "reproduce", "--root", str(tmp_path))
    assert target.read_text(encoding="utf-8") == text  # deterministic


def test_reproduce_list_and_errors(capsys, tmp_path):
    status, out, _ = run(capsys, "reproduce", "--list")
    assert status == EXIT_OK
    assert out.startswith("spot_demo_automata: ")
    assert "(reads data/spot/demo_constraints.json)" in out
    status, out, err = run(capsys, "reproduce", "nope")
    assert_error(
        status,
        out,
        err,
        "reproduce",
        "unknown step nope; choose from local_model_grid, memory_evaluation, memory_pairs, minigrid_learning, "
        "spot_demo",
    )
    status, out, err = run(capsys, "reproduce", "--root", str(tmp_path / "none"))
    assert_error(status, out, err, "reproduce", "no such directory")
    demo = tmp_path / "data" / "spot"
    demo.mkdir(parents=True)
    write(demo, "demo_constraints.json", "[1]")
    status, out, err = run(capsys, "reproduce", "--root", str(tmp_path))
    assert status == EXIT_INPUT
    assert "step spot_demo_automata: " in err and "constraint 1: expected an object" in err
    assert re.search(
        rf"reproduce: 0 of {len(reproduction_steps())} steps ran; 1 failed; \S+ s in all\n$", out
    )


# ------------------------------------------------------------------------ errors and options
def test_check_input_errors(capsys, tmp_path):
    trace = write(tmp_path, "t.json", [[]])
    cases = [
        (("check", "a U", "--trace", trace), ["formula 'a U': cannot parse Spot formula",
                                               "expected an operand at position 3", "     ^"]),
        (("check", "U a", "--syntax", "prefix", "--trace", trace),
         ["formula 'U a': cannot parse prefix formula"]),
        (("check", "a"), ["check FORMULA needs --trace TRACE.json"]),
        (("check", "--trace", trace), ["--trace needs a FORMULA"]),
        (("check", "a", "--trace", trace, "--input", trace), ["--input is for batch mode"]),
        (("check", "a", "--trace", str(tmp_path / "no.json")), ["no.json: no such file"]),
        (("check", "a", "--trace", str(tmp_path)), [f"{tmp_path}: is a directory"]),
        (("check", "--input", str(tmp_path / "no.jsonl")), ["no.jsonl: no such file"]),
        (("check", "--input", str(tmp_path)), ["is a directory"]),
        (("check", "a", "--trace", write(tmp_path, "b.json", "[[],")),
         ["b.json: not valid JSON: Expecting value at line 1 column 5"]),
        (("check", "a", "--trace", write(tmp_path, "e.json", "[]")),
         ["e.json: the trace is empty"]),
        (("check", "a", "--trace", write(tmp_path, "o.json", '{"a": true}')),
         ["o.json: a trace is a JSON list of proposition states, got an object"]),
        (("check", "a & b", "--trace", write(tmp_path, "m.json", '[{"a": true}]')),
         ["m.json: position 0 gives no value for b"]),
        (("check", "a", "--trace", write(tmp_path, "d.json", "[" * 100_000)),
         ["d.json: not usable JSON: nested too deeply"]),
    ]  # fmt: skip
    for argv, fragments in cases:
        status, out, err = run(capsys, *argv)
        assert_error(status, out, err, "check", *fragments)


def test_not_utf8_trace(capsys, tmp_path):
    path = tmp_path / "t.json"
    path.write_bytes(b'[["\xff"]]')
    status, out, err = run(capsys, "check", "a", "--trace", str(path))
    assert_error(status, out, err, "check", f"{path}: not UTF-8 text (byte 3)")


def test_unreadable_file(capsys, tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text("[[]]")

    def refuse(file, *args, **kwargs):  # chmod would not stop root
        raise PermissionError(13, "Permission denied", str(file))

    monkeypatch.setattr(_files, "open", refuse, raising=False)  # the trace file's reader
    status, out, err = run(capsys, "check", "a", "--trace", str(path))
    assert_error(status, out, err, "check", f"{path}: cannot read: Permission denied")


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        ((), "the following arguments are required: COMMAND"),
        (("bogus",), "invalid choice: 'bogus'"),
        (("check", "a", "--syntax", "lisp"), "invalid choice: 'lisp'"),
        (("automaton",), "the following arguments are required: FORMULA"),
        (("monitor", "c.json"), "the following arguments are required: TRACE.json"),
        (("automaton", "a", "--indent", "x"), "invalid int value: 'x'"),
    ],
)
def test_usage_errors(capsys, argv, fragment):
    status, out, err = run(capsys, *argv)
    assert status == EXIT_INPUT
    assert out == ""
    assert err.startswith("usage: safetychip")
    assert fragment in err


def test_help_and_version(capsys):
    status, out, _ = run(capsys, "--help")
    assert status == EXIT_OK
    for word in ("check", "automaton", "monitor", "reproduce", "exit status", "examples"):
        assert word in out
    for command, fragment in [
        ("check", "Batch mode (no FORMULA)"),
        ("automaton", "dead (states from which no continuation is accepted)"),
        ("monitor", "exit status: 0 every verdict was safe"),
        ("reproduce", "safetychip reproduce --list"),
    ]:
        status, out, _ = run(capsys, command, "--help")
        assert status == EXIT_OK and fragment in out
    status, out, _ = run(capsys, "--version")
    assert (status, out) == (EXIT_OK, "safetychip 0.1.0\n")


# ------------------------------------------------------------------------------ registration
def _extension(monkeypatch, tmp_path) -> types.ModuleType:
    module = types.ModuleType("safetychip_test_extension")

    def configure(parser):
        parser.add_argument("word")

    def hello(args):
        if args.word == "crash":
            raise RuntimeError("boom")
        if args.word == "bad":
            raise ValueError("bad word")
        print(f"hello {args.word}")
        return EXIT_OK

    def step(root):
        target = root / "figures" / "hello.txt"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("hello\n")
        return [target]

    module.COMMANDS = [cli.Command("hello", "say hello", configure, hello)]
    module.REPRODUCTION_STEPS = [cli.ReproductionStep("hello", "write hello.txt", step)]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(cli, "COMMAND_MODULES", (module.__name__,))
    return module


def test_extension_modules_register_commands_and_steps(capsys, monkeypatch, tmp_path):
    _extension(monkeypatch, tmp_path)
    assert [c.name for c in cli.commands()] == ["check", "automaton", "monitor", "reproduce",
                                                "hello"]  # fmt: skip
    assert run(capsys, "hello", "world") == (EXIT_OK, "hello world\n", "")
    status, out, _ = run(capsys, "reproduce", "--root", str(tmp_path))
    assert status == EXIT_OK
    assert "hello: wrote" in out and (tmp_path / "figures" / "hello.txt").exists()
    assert re.search(r"reproduce: 1 of 2 steps ran: hello; \S+ s in all\n$", out)


def test_internal_and_value_errors_never_show_a_traceback(capsys, monkeypatch, tmp_path):
    _extension(monkeypatch, tmp_path)
    status, out, err = run(capsys, "hello", "crash")
    assert status == EXIT_INTERNAL
    assert err == "safetychip hello: error: internal error, please report it: RuntimeError: boom\n"
    status, out, err = run(capsys, "hello", "bad")
    assert_error(status, out, err, "hello", "bad word")


def test_duplicate_command_names():
    cmd = cli.commands()[0]
    with pytest.raises(ValueError, match="two subcommands are named 'check'"):
        cli.build_parser([cmd, cmd])


# -------------------------------------------------------------------------------- subprocess
def test_python_dash_m(tmp_path):
    trace = write(tmp_path, "t.json", [[], ["is_grabbed(phone)"]])
    proc = subprocess.run(
        [sys.executable, "-m", "safetychip.cli", "check", PHONE, "--trace", trace],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (proc.returncode, proc.stderr) == (EXIT_OK, "")
    assert json.loads(proc.stdout) == {"formula": PHONE, "holds": False}
    stdin = '{"formula": "F a", "trace": [["a"]]}\n{"formula": "F", "trace": [[]]}\n'
    proc = subprocess.run(
        [sys.executable, "-m", "safetychip.cli", "check"],
        input=stdin, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == EXIT_INPUT
    assert lines(proc.stdout)[0] == {"line": 1, "formula": "F a", "holds": True}
    assert lines(proc.stdout)[1]["line"] == 2 and "error" in lines(proc.stdout)[1]
    assert "<stdin>:2: formula 'F'" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "args",
    [["--help"], ["translate", "--help"], ["check", PHONE, "--trace", "TRACE"], ["check", "F"]],
)
def test_python_dash_m_safetychip_is_the_console_script(tmp_path, args):
    """``python -m safetychip`` and the ``safetychip`` script answer alike, byte for byte."""
    script = Path(sys.executable).with_name("safetychip")
    if not script.is_file():
        pytest.skip(f"no console script beside {sys.executable} (package not installed)")
    trace = write(tmp_path, "t.json", [[], ["is_grabbed(phone)"]])
    args = [trace if a == "TRACE" else a for a in args]
    answers = [
        subprocess.run([*command, *args], capture_output=True, text=True, timeout=120, check=False)
        for command in ([sys.executable, "-m", "safetychip"], [str(script)])
    ]
    module, console = ((a.returncode, a.stdout, a.stderr) for a in answers)
    assert module == console
    assert module[1] or module[2]


def test_closed_pipe_is_quiet():
    with VERDICTS.open("rb") as stdin:
        proc = subprocess.Popen(
            [sys.executable, "-m", "safetychip.cli", "check", "--engine", "evaluate"],
            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        first = proc.stdout.readline()
        proc.stdout.close()  # like `| head -1`
        err = proc.stderr.read()
        proc.wait(timeout=60)
        proc.stderr.close()
    assert json.loads(first)["line"] == 1
    assert b"Traceback" not in err and b"Exception ignored" not in err
