"""Agent queries: the deterministic explanation, the paper's prompt, trace records, the
command."""

from __future__ import annotations

import io
import json
import re

import pytest

from safetychip import cli
from safetychip.errors import DataFileError
from safetychip.explain import (
    agent_query_messages,
    ask_agent_query,
    explain_rollout,
    explain_violation,
)
from safetychip.llm import CachedModel, ScriptedModel
from safetychip.monitor import Constraint, Monitor
from safetychip.shield import TraceRecord

K, B, H = "agent_at(kitchen)", "agent_at(bathroom)", "agent_at(hallway)"


def monitor(*constraints):
    m = Monitor(list(constraints))
    m.reset({a: False for a in m.atoms})
    return m


def test_explanation_names_constraint_change_and_remedy():
    m = monitor(
        Constraint.parse(
            f'!"{K}" W "{B}"', "Don't go to the kitchen before the bathroom", name="order"
        )
    )
    # walking through the hallway (not a proposition of the constraints) into the kitchen
    e = explain_violation(
        m, [{K: False, B: False, H: True}, {K: True, B: False}], action="walk to kitchen"
    )
    assert e.status == "violation" and e.violated == ("order",)
    assert e.state_changes == ("Violated: (no change)", "Violated: agent_at(kitchen)")
    assert e.remedy == {"order": "walk to bathroom"} and e.owed == {"order": ""}
    assert e.text == (
        "'walk to kitchen' is refused: it would break order (Don't go to the "
        "kitchen before the bathroom). The action makes agent_at(kitchen) true "
        "(Violated: (no change); Violated: agent_at(kitchen)). To keep order, first: "
        "walk to bathroom; after that the action is allowed."
    )
    assert m.history == [{K: False, B: False}]  # nothing was committed


def test_explanation_when_nothing_helps_and_what_is_owed():
    m = monitor(
        Constraint.parse('G!"is_grabbed(phone)"', "Never pick up the phone", name="p"),
        Constraint.parse(
            'G("is_open(fridge)" -> F!"is_open(fridge)")', "Close the fridge", name="f"
        ),
    )
    m.commit({"is_grabbed(phone)": False, "is_open(fridge)": True})
    e = explain_violation(
        m, {"is_grabbed(phone)": True, "is_open(fridge)": True}, action="grab phone"
    )
    assert e.violated == ("p",) and e.remedy == {"p": None}
    assert "No later actions make this allowed under p: choose another action." in e.text
    assert e.to_dict()["remedy"] == {"p": None}


def test_joint_conflict_is_explained_as_such():
    m = monitor(
        Constraint.parse(f'G("{K}" -> F"{B}")', "after the kitchen, the bathroom", name="a"),
        Constraint.parse(f'G("{K}" -> XG!"{B}")', "after the kitchen, no bathroom", name="b"),
    )
    e = explain_violation(m, {K: True, B: False}, action="walk to kitchen")
    assert set(e.violated) == {"a", "b"}
    assert "these constraints could no longer all be met together" in e.text
    assert e.remedy == {"a": "", "b": ""}  # each alone would allow it


def test_safe_actions_are_said_to_be_safe():
    m = monitor(f'!"{K}" W "{B}"')
    e = explain_violation(m, {B: True, K: False}, action="walk to bathroom")
    assert (e.status, e.violated, e.text) == (
        "safe",
        (),
        "'walk to bathroom' is safe: every constraint can still be satisfied.",
    )


def test_paper_prompt_layout():
    messages = agent_query_messages(
        [
            Constraint.parse(f'!"{K}" W "{B}"', "Don't enter the kitchen before the bathroom"),
            "Never pick up the phone",
        ],
        [("walk to hallway", ["Safe: agent_at(hallway)"])],
        ("walk to kitchen", ["Violated: !agent_at(hallway) & agent_at(kitchen)"]),
    )
    assert messages[0].role == "system" and "Reason of violation:" in messages[0].content
    assert messages[1].content.splitlines() == [
        "Constraints:",
        "1. Don't enter the kitchen before the bathroom",
        "2. Never pick up the phone",
        "Valid actions:",
        "walk to hallway. Safe: agent_at(hallway)",
        "Invalid action:",
        "walk to kitchen. Violated: !agent_at(hallway) & agent_at(kitchen)",
        "Reason of violation:",
    ]
    empty = agent_query_messages(["c"], [], ("a", []))[1].content
    assert "Valid actions:\n(none yet)\nInvalid action:\na." in empty


def test_llm_answer_is_labelled_when_a_stand_in_wrote_it():
    answer = ask_agent_query(
        ScriptedModel(["Reason of violation: the kitchen comes first."]),
        ["c"],
        [],
        ("walk to kitchen", ["Violated: agent_at(kitchen)"]),
    )
    assert answer.to_dict() == {
        "text": "the kitchen comes first.",
        "model": "scripted-stand-in",
        "stand_in": True,
    }


ROLLOUT = {
    "constraints": [
        {
            "name": "order",
            "sentence": "Don't go to the kitchen before the bathroom",
            "formula": f'!"{K}" W "{B}"',
        }
    ],
    "initial": {K: False, B: False},
    "steps": [
        {"action": "walk to hallway", "states": [{K: False, B: False}]},
        {"action": "walk to kitchen", "states": [{K: True, B: False}]},
        {"action": "walk to bathroom", "states": [[B]]},
        {"action": "walk to kitchen", "states": [[K]]},
    ],
}


def test_explain_rollout_finds_the_first_violation():
    q = explain_rollout(TraceRecord.from_dict(ROLLOUT))
    assert (q.step, q.action, q.explanation.violated) == (2, "walk to kitchen", ("order",))
    assert q.valid == [("walk to hallway", ["Safe: (no change)"])]
    assert q.messages()[1].content.endswith(
        "walk to kitchen. Violated: agent_at(kitchen)\nReason of violation:"
    )
    assert json.loads(json.dumps(q.to_dict()))["verdict"]["status"] == "violation"


def test_explain_rollout_step_errors():
    r = TraceRecord.from_dict(ROLLOUT)
    with pytest.raises(DataFileError, match=r"r\.json: step 3 \('walk to bathroom'\) is safe"):
        explain_rollout(r, step=3, source="r.json")
    with pytest.raises(DataFileError, match="there is no step 9; the rollout has 4"):
        explain_rollout(r, step=9)
    calm = dict(ROLLOUT, steps=ROLLOUT["steps"][:1])
    with pytest.raises(DataFileError, match="no step of the rollout is a violation"):
        explain_rollout(TraceRecord.from_dict(calm))
    clash = {"constraints": [{"formula": "G!a"}, {"formula": "F a"}], "initial": [], "steps": []}
    with pytest.raises(DataFileError, match="the chip aborts before the first action"):
        explain_rollout(TraceRecord.from_dict(clash))


def test_explain_rollout_skips_what_the_monitor_was_not_asked():
    refused = {"action": "walk to garden", "error": "there is no garden"}
    steps = [refused, *ROLLOUT["steps"][1:2], {"action": "done", "outcome": "done"}]
    r = TraceRecord.from_dict(dict(ROLLOUT, steps=steps))
    assert r.steps[0].outcome == "not_executable"
    assert explain_rollout(r).step == 2
    with pytest.raises(
        DataFileError,
        match=r"<rollout>: step 1 \('walk to garden'\) was "
        r"refused by the environment \(there is no garden\); nothing",
    ):
        explain_rollout(r, step=1)
    with pytest.raises(DataFileError, match=r"step 3 \('done'\) is DONE; nothing to explain"):
        explain_rollout(r, step=3)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"steps": [{"action": "x", "states": []}]}, "step 1 ('x') has no proposition states"),
        ({"invariants": ["G ("]}, "invariant 1: cannot parse Spot formula"),
    ],
)
def test_explain_rollout_of_a_malformed_record(change, message):
    with pytest.raises(DataFileError, match=re.escape(f"r.json: {message}")):
        explain_rollout(TraceRecord.from_dict(dict(ROLLOUT, **change)), source="r.json")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "a trace record is a JSON object, got list"),
        ({"constraints": [], "initial": []}, "not a trace record: missing field 'steps'"),
        (dict(ROLLOUT, initial=3), "the proposition state must be a mapping"),
    ],
)
def test_a_malformed_rollout_file_is_named(tmp_path, data, message):
    f = tmp_path / "r.json"
    f.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataFileError, match=re.escape(f"{f}: ") + ".*" + re.escape(message)):
        TraceRecord.load(f)


def test_load_rollout_errors(tmp_path):
    with pytest.raises(DataFileError, match=r"none\.json: no such file"):
        TraceRecord.load(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(DataFileError, match=r"bad\.json: not valid JSON"):
        TraceRecord.load(bad)


def run(args):
    import contextlib

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(args)
    return code, out.getvalue(), err.getvalue()


def test_cli_explain(tmp_path):
    f = tmp_path / "rollout.json"
    f.write_text(json.dumps(ROLLOUT), encoding="utf-8")
    code, out, err = run(["explain", str(f), "--prompt"])
    data = json.loads(out)
    assert code == 0 and err == ""
    assert data["step"] == 2 and data["explanation"]["remedy"] == {"order": "walk to bathroom"}
    assert data["prompt"][1]["content"].endswith("Reason of violation:")
    code, out, err = run(["explain", str(f), "--step", "2", "--indent", "2"])
    assert code == 0 and json.loads(out)["explanation"]["violated"] == ["order"]
    code, out, err = run(["explain", str(f), "--step", "4"])  # safe once the bathroom was visited
    assert code == 2 and out == "" and "step 4 ('walk to kitchen') is safe" in err
    code, out, err = run(["explain", str(tmp_path / "nothing.json")])
    assert code == 2 and err.startswith("safetychip explain: error: ")


def test_cli_explain_with_a_replayed_model(tmp_path):
    pytest.importorskip("openai")
    f = tmp_path / "rollout.json"
    f.write_text(json.dumps(ROLLOUT), encoding="utf-8")
    cache = tmp_path / "llm.sqlite"
    q = explain_rollout(TraceRecord.load(f))
    recorder = CachedModel(
        ScriptedModel(["Reason of violation: bathroom first."], name="gpt-x"), cache, mode="record"
    )
    recorder.complete(q.messages(), temperature=0.0, max_tokens=200)
    code, out, err = run(["explain", str(f), "--model", "gpt-x", "--cache", str(cache), "--replay"])
    assert code == 0, err
    assert json.loads(out)["llm"] == {"text": "bathroom first.", "model": "gpt-x", "stand_in": True}


def test_explains_a_rollout_recorded_by_the_environment(tmp_path):
    from safetychip.envs import VirtualHomeEnv, load_tasks, task_monitor
    from safetychip.shield import run_monitored

    task = load_tasks(suite="four_room")[0]
    watched = run_monitored(VirtualHomeEnv(task=task), task.example_plan, task_monitor(task))
    assert watched.steps[0].pruned
    q = explain_rollout(watched)
    assert q.step == 1 and q.explanation.violated == watched.steps[0].violated
    assert "walk to bathroom" in q.explanation.text  # don't enter the kitchen before it
    path = watched.save(tmp_path / "rollout.json")
    code, out, err = run(["explain", str(path)])
    assert code == 0, err
    assert json.loads(out)["explanation"]["text"] == q.explanation.text
