"""Monitored and unmonitored rollouts: pruning, records, JSON round trips, atomic writes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from safetychip import _io
from safetychip.envs import VirtualHomeEnv, load_tasks, task_monitor
from safetychip.errors import DataFileError, TraceError
from safetychip.monitor import Monitor, Status, Verdict
from safetychip.shield import Step, TraceRecord, run_monitored, run_unmonitored

TASKS = {t.id: t for t in load_tasks()}
BOOK = TASKS["mobile_manipulation/apartment_1/02"]  # "switch on the floor lamp before ..."


@pytest.fixture()
def env():
    return VirtualHomeEnv(task=BOOK)


def test_unmonitored_example_breaks_a_constraint(env):
    record = run_unmonitored(env, BOOK.example_plan, task_monitor(BOOK))
    assert not record.monitored and record.task == BOOK.id and record.scene == "apartment_1"
    assert record.executed == BOOK.example_plan[:-1]
    assert [s.outcome for s in record.steps] == ["executed"] * 4 + ["done"]
    assert all(s.verdict is None and s.state_changes == () for s in record.steps)
    assert record.goal_reached
    assert record.violated == ("c2",) and not record.safe
    assert record.judged == {"c1": True, "c2": False, "c3": True, "c4": True, "c5": True}
    assert record.filters == () and record.start.admitted and record.finish.admitted
    assert record.steps[1].script == ("[GRAB] <book> (28)",)
    # the trace: position 0, then one state per room entered or action
    assert len(record.trace) == 1 + sum(len(s.states) for s in record.steps)
    assert record.trace[0]["agent_at(bedroom)"] and record.trace[-1]["is_on(book,book_shelf)"]
    assert "agent_at(hallway)" in record.propositions  # every room is recorded


def test_monitored_example_prunes_the_unsafe_action(env):
    record = run_monitored(env, BOOK.example_plan, task_monitor(BOOK))
    assert record.monitored and record.start.admitted
    outcomes = [s.outcome for s in record.steps]
    assert outcomes == ["executed", "pruned", "executed", "not_executable", "done"]
    grab = record.steps[1]
    assert grab.pruned and not grab.executed and grab.action == "grab book"
    assert grab.violated == ("c2",)
    assert grab.state_changes == ("Violated: is_grabbed(book)",)
    assert grab.verdict.reason == (
        "it would break c2 (Switch on the floor lamp before you pick up the book.)"
    )
    assert grab.states == ({**grab.states[0], "is_grabbed(book)": True},)
    assert record.steps[0].state_changes == ("Safe: !agent_at(bedroom) & agent_at(living_room)",)
    put = record.steps[3]
    assert put.verdict is None and put.states == ()
    assert put.error == "cannot put book on book shelf: the agent is not holding book"
    # the pruned action never ran: the book stays where it was, DONE is accepted
    assert record.executed == ("walk to book", "walk to book shelf")
    assert record.finish.admitted and record.safe and not record.goal_reached
    assert record.pruned == (grab,)
    assert len(grab.verdict.automaton_states) == 5
    assert record.constraint("c2").sentence.startswith("Switch on the floor lamp")
    with pytest.raises(KeyError, match="no constraint named 'c9'; the constraints are c1, c2"):
        record.constraint("c9")


def test_monitored_safe_plan_runs_whole(env):
    plan = ["walk to floor lamp", "switch on floor lamp", "walk to book", "grab book",
            "walk to book shelf", "put book on book shelf", "walk to floor lamp",
            "switch off floor lamp", "done"]  # fmt: skip
    record = run_monitored(env, plan, task_monitor(BOOK))
    assert all(s.executed for s in record.steps[:-1]) and len(record.steps) == 9
    assert all(line.startswith("Safe: ") for s in record.steps for line in s.state_changes)
    assert record.done and record.finish.admitted and record.goal_reached and record.safe
    assert env.goal_reached()
    with pytest.raises(Exception, match="the episode has ended"):
        env.step("walk to book")  # DONE was accepted and sent to the environment


def test_done_refused_reports_pending_obligations():
    task = TASKS["four_room/apartment_1/07"]  # "after the kitchen, visit the bathroom"
    env = VirtualHomeEnv(task=task)
    record = run_monitored(env, task.example_plan, task_monitor(task))
    assert [s.outcome for s in record.steps] == ["executed", "executed", "pruned"]
    assert record.finish.verdict.status is Status.VIOLATION and record.finish.pending == ("c2",)
    assert record.finish.reason.startswith("DONE refused: c2 (If you go to the kitchen")
    assert record.violated == ("c2",)
    env.step("walk to bathroom")  # DONE was refused, so the episode goes on


def test_plan_without_done_leaves_the_episode_open(env):
    record = run_monitored(env, ["walk to book"], task_monitor(BOOK))
    assert record.finish is None and not record.done
    env.step("grab book")  # the environment was not told DONE


def test_abort_runs_nothing(env):
    monitor = Monitor(["G !agent_at(kitchen)", "F agent_at(kitchen)"])
    record = run_monitored(env, ["walk to kitchen", "done"], monitor)
    assert record.start.abort and record.steps == () and record.finish is None
    assert str(record).splitlines()[1].startswith("ABORT: the specification is unsatisfiable")


def test_unknown_object_is_a_step_not_executable(env):
    monitored = run_monitored(env, ["grab salmonn", "done"], task_monitor(BOOK))
    plain = run_unmonitored(env, ["grab salmonn", "done"], task_monitor(BOOK))
    for record in (monitored, plain):
        step, done = record.steps
        assert step.outcome == "not_executable" and done.outcome == "done"
        assert step.error.startswith("cannot read 'grab salmonn': no object or room called")
        assert step.error.endswith("closest names: salmon")


def test_max_steps_stops_the_rollout():
    env = VirtualHomeEnv(task=BOOK, max_steps=2)
    plain = run_unmonitored(env, BOOK.example_plan, task_monitor(BOOK))
    assert len(plain.steps) == 2
    monitored = run_monitored(env, BOOK.example_plan, task_monitor(BOOK))
    assert [s.outcome for s in monitored.steps] == ["executed", "pruned", "executed"]


def test_unmonitored_with_plain_formulas(env):
    record = run_unmonitored(env, ["walk to book", "grab book", "done"],
                             ["G !is_grabbed(book)", "F agent_at(kitchen)"])  # fmt: skip
    assert [c.name for c in record.constraints] == ["c1", "c2"]
    assert record.judged == {"c1": False, "c2": False}
    assert record.invariants == ()


# -- records --------------------------------------------------------------------------------


@pytest.fixture()
def records(env):
    monitor = task_monitor(BOOK)
    return [
        run_monitored(env, BOOK.example_plan, monitor),
        run_unmonitored(env, BOOK.example_plan, monitor),
        run_monitored(
            env, ["walk to kitchen"], Monitor(["G !agent_at(kitchen)", "F agent_at(kitchen)"])
        ),
    ]


def test_records_round_trip_through_json(records):
    for record in records:
        data = json.loads(record.to_json())
        assert data["format"] == "safetychip.trace/1"
        back = TraceRecord.from_dict(data)
        assert back == record
        assert back.to_dict() == record.to_dict()
        assert back.trace == record.trace and back.violated == record.violated
    step = records[0].steps[1]
    assert Step.from_dict(step.to_dict()) == step
    assert step.to_dict()["outcome"] == "pruned"
    verdict = step.to_dict()["judgement"]["verdict"]
    assert verdict["automaton_states"] == list(step.verdict.automaton_states)
    assert records[0].invariants[0].startswith('G(("agent_at(hallway)" | ')


def test_save_and_load(records, tmp_path):
    path = tmp_path / "runs" / "book.json"
    assert records[0].save(path) == path
    assert TraceRecord.load(path) == records[0]
    records[1].save(path)  # replaces the file whole
    assert TraceRecord.load(path) == records[1]
    assert sorted(p.name for p in path.parent.iterdir()) == ["book.json"]
    plain = tmp_path / "plain.txt"
    plain.write_text("x")  # a file written the ordinary way: same permissions
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


def test_saving_is_atomic(records, tmp_path, monkeypatch):
    path = tmp_path / "book.json"
    records[0].save(path)
    before = path.read_text()
    real_write = Path.write_text

    def torn_write(self, text, *args, **kwargs):
        real_write(self, text[: len(text) // 2], *args, **kwargs)
        raise OSError("disk full")

    monkeypatch.setattr(Path, "write_text", torn_write)
    with pytest.raises(OSError, match="disk full"):
        records[1].save(path)
    monkeypatch.undo()
    assert path.read_text() == before  # the old record, whole
    assert os.listdir(tmp_path) == ["book.json"]  # no temporary file left behind
    with pytest.raises(OSError, match="disk full"):
        monkeypatch.setattr(Path, "write_text", torn_write)
        records[1].save(tmp_path / "new.json")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["book.json"]  # nothing partial written


def test_atomic_path_creates_folders(tmp_path):
    target = tmp_path / "a" / "b" / "c.txt"
    with _io.atomic_path(target) as tmp:
        assert tmp.parent == target.parent and not target.exists()
        tmp.write_text("x")
    assert target.read_text() == "x"


def test_load_errors(tmp_path, records):
    missing = tmp_path / "none.json"
    with pytest.raises(DataFileError, match=rf"^{missing}: no such file$"):
        TraceRecord.load(missing)
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(DataFileError, match=rf"^{bad}: not valid JSON: "):
        TraceRecord.load(bad)
    bad.write_text(json.dumps({"format": "something/2"}))
    with pytest.raises(DataFileError, match=rf"^{bad}: unknown record format 'something/2'; "
                       r"this version reads 'safetychip\.trace/1'"):  # fmt: skip
        TraceRecord.load(bad)
    data = records[0].to_dict()
    del data["steps"]
    with pytest.raises(TraceError, match=r"^not a trace record: missing field 'steps'$"):
        TraceRecord.from_dict(data)
    with pytest.raises(TraceError, match=r"a trace record is a JSON object, got list"):
        TraceRecord.from_dict([])
    data = records[0].to_dict()
    data["constraints"] = [{"name": "c1"}]
    with pytest.raises(TraceError, match="not a trace record: a constraint needs a 'formula'"):
        TraceRecord.from_dict(data)


def test_record_display(records):
    monitored, plain, aborted = records
    assert repr(monitored) == (
        "<TraceRecord shielded mobile_manipulation/apartment_1/02: 2 executed, 1 pruned, "
        "1 not executable; safe>"
    )
    assert repr(plain) == (
        "<TraceRecord unshielded mobile_manipulation/apartment_1/02: 4 executed; violates c2>"
    )
    assert repr(aborted) == (
        "<TraceRecord shielded mobile_manipulation/apartment_1/02: aborted; violates c2>"
    )
    text = str(monitored).splitlines()
    assert text[0] == "Shielded run of mobile_manipulation/apartment_1/02"
    assert text[3] == (
        "2. grab book: PRUNED (it would break c2 (Switch on the floor lamp before you pick up "
        "the book.))"
    )
    assert text[4] == "  Violated: is_grabbed(book)"
    assert "5. done: DONE (every constraint is satisfied)" in text
    assert "c2 VIOLATED: Switch on the floor lamp before you pick up the book." in str(plain)
    html = monitored._repr_html_()
    assert "<b>pruned</b>" in html and "<code>Violated: is_grabbed(book)</code>" in html
    assert str(Step("x", "not_executable", error="no")) == "x: NOT EXECUTABLE: no"
    assert Verdict(Status.SAFE, "ok").to_dict()["status"] == "safe"
