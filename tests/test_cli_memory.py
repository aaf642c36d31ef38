"""``safetychip memory``: check (one command, or JSON lines on stdin), add, consolidate,
override; JSON on stdout, errors on stderr with exit status 2."""

from __future__ import annotations

import io
import json
import sys

import pytest

from safetychip.cli import main

VASE = {"objects": [{"id": "vase", "class": "vase", "attributes": ["fragile"]},
                    {"id": "table", "class": "table", "attributes": []}],
        "relations": [["vase", "ON", "table"]]}  # fmt: skip


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(["memory", *argv])
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines()], err


@pytest.fixture
def db(tmp_path, capsys):
    path = str(tmp_path / "memory.db")
    assert main(["memory", "add", "--seeds", "--db", path]) == 0
    capsys.readouterr()
    return path


@pytest.fixture
def scene(tmp_path):
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(VASE))
    return str(path)


def test_check_prints_the_decision_with_scores_and_the_stand_in_label(capsys, db, scene):
    status, [out], err = run(capsys, "check", "push the glass vase off the shelf", "--db", db)
    assert status == 0 and err == ""
    assert out["blocked"] is True and out["by"] == "episode"
    assert out["episode"]["command"] == "push the glass vase off the shelf"
    assert out["scores"]["episodic"] == pytest.approx(1.0) and out["scores"]["scene"] is None
    assert out["alternative"] == "move it slowly with both hands" and out["reason"]
    assert out["embedder"] == {"name": "words-256", "stand_in": True}
    status, [out], _ = run(capsys, "check", "walk to the kitchen", "--scene", scene, "--db", db)
    assert status == 0 and out["blocked"] is False and out["alternative"] is None
    assert set(out["scores"]) >= {"text", "scene", "episodic"}


def test_batch_mode_answers_each_line_and_reports_bad_ones(capsys, monkeypatch, db):
    lines = ('"push the glass vase off the shelf"\n\n'
             + json.dumps({"command": "walk to the sofa", "scene": VASE}) + "\n"
             + "[1]\n" + '{"command": ""}\n')  # fmt: skip
    status, out, err = run(capsys, "check", "--db", db, stdin=lines, monkeypatch=monkeypatch)
    assert status == 2
    assert [o["line"] for o in out] == [1, 3, 4, 5]
    assert out[0]["blocked"] is True and out[1]["blocked"] is False
    assert "a line must be a JSON string or" in out[2]["error"]
    assert "a command must be a non-empty string" in out[3]["error"]
    assert "<stdin>:4:" in err and "<stdin>:5:" in err


def test_add_consolidate_and_override_lifecycle(capsys, tmp_path):
    db = str(tmp_path / "m.db")
    for thing in ("vase", "bowl", "glass"):
        path = tmp_path / f"{thing}.json"
        path.write_text(json.dumps({"objects": [{"id": thing, "class": thing,
                                                 "attributes": ["fragile"]}]}))  # fmt: skip
        status, [out], _ = run(capsys, "add", f"push the {thing} off the table", "--harm",
                               "breakage", "--scene", str(path), "--source", "person",
                               "--db", db)  # fmt: skip
        assert status == 0 and out["added"][0]["confidence"] == 0.8
    status, [out], _ = run(capsys, "consolidate", "--db", db)
    assert status == 0 and out["episodes"] == 3
    [rule] = out["rules"]
    assert (rule["verb"], rule["target"], rule["id"]) == ("push", "fragile", "r1")
    cup = tmp_path / "cup.json"
    cup.write_text(
        json.dumps({"objects": [{"id": "cup", "class": "cup", "attributes": ["fragile"]}]})
    )
    status, [out], _ = run(capsys, "override", "nudge the cup", "--scene", str(cup), "--db", db)
    assert status == 0 and out["decision"]["by"] == "rule"
    assert out["changed"][0]["id"] == "r1" and out["changed"][0]["confidence"] < rule["confidence"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "push", "--db", "missing.db"], "missing.db: no such memory file; create it"),
        (["add", "push the vase", "--db", "{db}"], "--harm is required"),
        (["add", "--db", "{db}"], "give either COMMAND (with --harm or --harmless) or --seeds"),
        (["add", "push the vase", "--harm", "fier", "--db", "{db}"], "did you mean fire"),
        (["check", "push", "--scene", "{bad}", "--db", "{db}"], "not valid JSON"),
        (["override", "walk to the kitchen", "--db", "{db}"], "is not blocked by"),
        (["check", "push", "--db", "{junk}"], "is not an SQLite database"),
    ],
)
def test_errors_go_to_stderr_with_exit_status_2(capsys, tmp_path, db, argv, message):
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "junk.db").write_text("not a database at all")
    names = {"db": db, "bad": str(tmp_path / "bad.json"), "junk": str(tmp_path / "junk.db")}
    status = main(["memory", *(a.format(**names) for a in argv)])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.startswith("safetychip memory: error: ") and message in err


def test_the_command_runs_as_a_program(tmp_path):
    import subprocess

    db = str(tmp_path / "m.db")
    done = subprocess.run([sys.executable, "-m", "safetychip.cli", "memory", "add", "--seeds",
                           "--db", db], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0 and len(json.loads(done.stdout)["added"]) == 10
    done = subprocess.run([sys.executable, "-m", "safetychip.cli", "memory", "check", "--db", db],
                          input='"grab the kitchen knife by the blade"\n', capture_output=True,
                          text=True)  # fmt: skip
    assert done.returncode == 0 and json.loads(done.stdout)["blocked"] is True
