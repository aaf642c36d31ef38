"""`safetychip monitor` with a constraint whose formula is not picked yet."""

from __future__ import annotations

import io
import json

import pytest

from safetychip.cli import main
from safetychip.cli.monitor import prompt
from safetychip.monitor import Question

KEEP_OUT = {
    "name": "k",
    "sentence": "keep out of the kitchen",
    "candidates": [
        {"formula": 'G !"agent_at(kitchen)"', "reading": "never enter the kitchen"},
        {"formula": '!"agent_at(kitchen)" W "agent_at(bathroom)"',
         "reading": "not before the bathroom"},
    ],
}  # fmt: skip


@pytest.fixture
def files(tmp_path):
    constraints = tmp_path / "c.json"
    constraints.write_text(json.dumps([KEEP_OUT, "G !b"]))
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps([[], ["agent_at(bathroom)"], ["agent_at(kitchen)"]]))
    return constraints, trace


def lines(capsys) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_unattended_the_disputed_step_is_ambiguous_and_its_question_printed(files, capsys):
    constraints, trace = files
    before = constraints.read_text()
    assert main(["monitor", str(constraints), str(trace)]) == 1
    out = lines(capsys)
    assert [r["status"] for r in out] == ["safe", "safe", "ambiguous", "ambiguous"]
    (question,) = out[2]["questions"]
    assert question["allowing"] == [1] and question["forbidding"] == [0]
    assert constraints.read_text() == before  # nothing answered, nothing saved


def test_on_a_terminal_the_answer_is_taken_and_saved(files, capsys, monkeypatch):
    constraints, trace = files
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    assert main(["monitor", str(constraints), str(trace)]) == 0
    out = lines(capsys)
    assert [r["status"] for r in out] == ["safe", "safe", "safe", "safe"]
    saved = json.loads(constraints.read_text())
    assert saved[0]["live"] == [1] and saved[0]["answers"][0]["answer"] is True
    assert main(["monitor", "--no-ask", str(constraints), str(trace)]) == 0  # never asked again


@pytest.mark.parametrize(("reply", "expected"), [("y", True), ("No", False), ("maybe", None)])
def test_the_prompt_reads_yes_no_and_nothing_else(reply, expected, monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", lambda *_: reply)
    q = Question("k", "keep out", "go on", "The robot is about to go on", (1,), (0,), ("a", "b"))
    assert prompt(q) is expected
    assert "keep out" in capsys.readouterr().err
