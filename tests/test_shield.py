"""The shield: the one loop. A refused action never reaches env.step; filters compose; every
agent (Code as Policies included) runs through it; records round-trip and old files load."""

from __future__ import annotations

import json

import pytest
from _spies import SpyHome, SpyProps

from safetychip.agents import ActionGrounder, Chip, CodeAsPoliciesAgent, make_agent
from safetychip.envs import PropositionEnv, VirtualHomeEnv, check_env, load_tasks
from safetychip.errors import DataFileError, MonitorError, TraceError
from safetychip.llm import ScriptedModel
from safetychip.monitor import Monitor
from safetychip.shield import (
    Filter,
    Judgement,
    MonitorFilter,
    Shield,
    Step,
    TraceRecord,
    run_monitored,
)

TASKS = {t.id: t for t in load_tasks()}
KITCHEN = TASKS["four_room/apartment_1/01"]  # c1: not the kitchen before the bathroom


class RefuseB(Filter):
    name = "no-b"
    propositions = ("b",)

    def judge(self, proposal, state, trace):
        if any(s["b"] for s in proposal.states):
            return Judgement.refuse(
                self.name, "b is forbidden here", ("rule-b",), alternative="set a"
            )
        return Judgement.admit(self.name)


def test_a_refused_action_never_reaches_env_step():
    env = SpyProps(["a", "b"])
    shield = Shield.of(env, Monitor(["G !a"]), propositions=["b"])
    assert shield.reset().admitted
    pruned = shield.propose("set a")
    assert pruned.outcome == "pruned" and pruned.violated == ("c1",)
    assert env.stepped == [] and env.truth(["a"]) == {"a": False}
    assert shield.propose("set b").outcome == "executed" and env.stepped == ["set b"]
    assert shield.propose("done").outcome == "done" and env.stepped == ["set b", "done"]
    assert shield.trace == [{"a": False, "b": False}, {"a": False, "b": True}]


def test_filters_compose_in_order_and_the_first_refusal_decides():
    env = SpyProps(["a", "b"])
    shield = Shield.of(env, Monitor(["G !a"]), RefuseB())
    shield.reset()
    by_monitor, by_rule = shield.propose("set a"), shield.propose("set b")
    assert by_monitor.judgement.filter == "monitor" and by_rule.judgement.filter == "no-b"
    assert by_rule.violated == ("rule-b",) and by_rule.judgement.alternative == "set a"
    assert env.stepped == []
    record = shield.record()
    assert record.filters == ("monitor", "no-b") and [s.outcome for s in record.steps] == [
        "pruned",
        "pruned",
    ]


def test_an_environment_refusal_is_recorded_and_nothing_runs():
    env = SpyProps(["a"])
    shield = Shield(env)
    shield.reset()
    step = shield.propose("clear a")
    assert step.outcome == "not_executable" and step.error == "cannot clear a: a is already false"
    unreadable = shield.propose("fly to the moon")
    assert (
        unreadable.outcome == "not_executable"
        and "cannot read 'fly to the moon'" in unreadable.error
    )
    assert env.stepped == []


def test_abort_and_lifecycle_errors():
    env = PropositionEnv(["a"])
    shield = Shield.of(env, Monitor(["F a", "G !a"]))
    with pytest.raises(MonitorError, match=r"has not been reset: call reset\(\) first"):
        shield.propose("set a")
    start = shield.reset()
    assert start.abort and not start.admitted and set(start.constraints) == {"c1", "c2"}
    with pytest.raises(MonitorError, match="the episode is over"):
        shield.propose("set a")
    with pytest.raises(TypeError, match=r"env must be a safetychip\.envs\.Env, got str"):
        Shield("not an env")
    with pytest.raises(TypeError, match=r"filters must be safetychip\.shield\.Filter objects"):
        Shield(env, [object()])


@pytest.mark.parametrize("idle_seconds", [None, 0])
def test_a_refusal_for_want_of_time_is_settled_while_the_agent_thinks_again(idle_seconds):
    env = PropositionEnv(["a", "b", "c"])
    monitor = Monitor(["F a", "G(a -> F b)", "G(c -> X !a)"], deadline=None)
    shield = Shield.of(env, monitor, idle_seconds=idle_seconds)
    assert shield.reset().admitted
    monitor.deadline = 1e-9  # no search can finish in a nanosecond
    step = shield.propose("set c")
    assert step.outcome == "pruned" and env.truth(["c"]) == {"c": False}
    assert step.judgement.reason.startswith("cannot decide in time, so the action is refused")
    assert monitor.deadline_refusals == 1
    if idle_seconds == 0:  # the shield left it queued: only an explicit idle settles it
        assert shield.propose("set c").outcome == "pruned"
        assert shield.idle() == 1
    again = shield.propose("set c")  # the same state now has its real answer
    assert again.outcome == "executed", again.judgement.reason
    assert monitor.deadline_refusals == 1  # a state still queued is refused, not re-counted


def test_done_refused_by_the_monitor_keeps_the_episode_going():
    env = PropositionEnv(["a"])
    shield = Shield.of(env, Monitor(["F a"]))
    shield.reset()
    refused = shield.propose("done")
    assert refused.outcome == "pruned" and refused.judgement.pending == ("c1",)
    assert shield.propose("set a").executed and shield.propose("done").outcome == "done"


def test_the_mock_environment_keeps_the_protocol():
    check_env(PropositionEnv(["a", "b"], rooms=["r1", "r2", "r3"],
                             adjacency={"r1": ["r2"], "r2": ["r1", "r3"], "r3": ["r2"]}),
              refused="go to r1")  # fmt: skip
    check_env(PropositionEnv(["a"]), refused="clear a")


def test_code_as_policies_is_shielded():
    program = 'go_to("kitchen")\ngo_to("bathroom")\ngo_to("kitchen")'
    env = SpyHome(task=KITCHEN)
    shielded = CodeAsPoliciesAgent(ScriptedModel([program]), chip=Chip()).run(KITCHEN, 1, env=env)
    assert shielded.agent == "cap_chip"
    assert [s.outcome for s in shielded.steps] == ["pruned", "executed", "executed", "done"]
    assert "walk to kitchen" not in env.stepped[:1] and shielded.safe and shielded.success
    env = SpyHome(task=KITCHEN)
    bare = CodeAsPoliciesAgent(ScriptedModel([program])).run(KITCHEN, 1, env=env)
    assert env.stepped[0] == "walk to kitchen" and bare.safe is False


def test_every_agent_runs_through_the_shield():
    for name in ("base", "nl", "chip", "cap", "cap_chip"):
        options = {} if name.startswith("cap") else {"grounder": ActionGrounder(embedder=None)}
        reply = 'go_to("bathroom")' if name.startswith("cap") else "walk to bathroom"
        episode = make_agent(name, ScriptedModel([reply, "done"]), **options).run(KITCHEN, 1)
        assert episode.record is not None and episode.record.steps[0].action == "walk to bathroom"
        assert episode.record.filters == (("monitor", "chip") if "chip" in name else ())


def test_records_round_trip_and_old_rollout_files_load(tmp_path):
    env = VirtualHomeEnv(task=KITCHEN)
    record = run_monitored(env, KITCHEN.example_plan, Monitor(["G !agent_at(kitchen)"]))
    path = record.save(tmp_path / "r.json")
    assert TraceRecord.load(path) == record
    old = {
        "format": "safetychip.rollout/1", "monitored": True, "scene": "apartment_1",
        "task": None, "plan": ["walk to kitchen", "done"],
        "constraints": [{"name": "c1", "formula": 'G!"agent_at(kitchen)"', "sentence": "",
                         "pattern": None}],
        "invariants": [], "propositions": ["agent_at(kitchen)"],
        "initial": {"agent_at(kitchen)": False}, "start": None,
        "steps": [{"action": "walk to kitchen", "outcome": "pruned",
                   "states": [{"agent_at(kitchen)": True}],
                   "verdict": {"status": "violation", "reason": "it would break c1",
                               "violated": ["c1"], "state_changes": ["Violated: agent_at(kitchen)"]},
                   "executed": False, "error": None, "script": []}],
        "finish": {"status": "safe", "reason": "every constraint is satisfied"},
        "judged": {"c1": True}, "goal_reached": False,
    }  # fmt: skip
    loaded = TraceRecord.from_dict(old)
    assert [s.outcome for s in loaded.steps] == ["pruned", "done"]
    assert loaded.steps[0].violated == ("c1",) and loaded.finish.admitted and loaded.monitored
    (tmp_path / "bad.json").write_text(json.dumps({"format": "safetychip.trace/9"}))
    with pytest.raises(DataFileError, match=r"unknown record format 'safetychip\.trace/9'"):
        TraceRecord.load(tmp_path / "bad.json")
    with pytest.raises(TraceError, match=r"gives a the value 'yes' \(type str\), not a boolean"):
        TraceRecord.from_dict({"constraints": [], "initial": {"a": "yes"}, "steps": []})
    with pytest.raises(ValueError, match="unknown outcome 'skipped'"):
        Step("x", "skipped")


def test_the_minimal_record_form_takes_formula_text():
    record = TraceRecord.from_dict(
        {"constraints": ["G !a"], "initial": [], "steps": [{"action": "set a", "states": [["a"]]}]}
    )
    assert record.constraints[0].name == "c1" and record.trace[-1] == {"a": True}


def test_monitor_filter_takes_back_a_done_check():
    monitor = Monitor(["F a"])
    f = MonitorFilter(monitor)
    f.reset({"a": True})
    from safetychip.shield import Proposal

    assert f.judge(Proposal("done"), {"a": True}, ()).admitted
    assert monitor.check({"a": False}).safe  # the monitor is not finished by a judgement


class OwesA(Filter):
    """Owes ``a`` at the end: its finish hook names the continuation that sets it."""

    name = "owes-a"
    propositions = ("a",)

    def judge(self, proposal, state, trace):
        return Judgement.admit(self.name)

    def finish(self, state, trace):
        return None if state["a"] else ("set a",)


def test_finish_runs_what_a_filter_still_owes_and_nothing_once_the_episode_is_over():
    env = SpyProps(["a", "b"])
    shield = Shield(env, [OwesA()])
    shield.reset()
    assert shield.finish() == ("set a",)
    assert env.stepped == ["set a"]
    assert [(s.action, s.source, s.reply) for s in shield.steps] == [
        ("set a", "safe_stop", "(safe stop)")
    ]
    assert shield.finish() is None  # nothing owed any more
    shield.propose("done")
    assert shield.finish() is None and env.stepped == ["set a", "done"]


def test_an_action_is_parsed_once_and_the_parsed_object_travels(monkeypatch):
    """The grounder reads the reply; the shield, the preview and the step take its object."""
    read: list[object] = []
    parse = VirtualHomeEnv.parse

    def counting(self, action):
        if isinstance(action, str):
            read.append(action)
        return parse(self, action)

    monkeypatch.setattr(VirtualHomeEnv, "parse", counting)
    agent = make_agent("chip", ScriptedModel(["walk to bathroom", "done"]),
                       grounder=ActionGrounder(embedder=None))  # fmt: skip
    episode = agent.run(KITCHEN, 1)
    assert episode.executed == ("walk to bathroom",)
    assert read.count("walk to bathroom") == 1 and read.count("done") == 1


def test_the_chip_aborts_at_the_shields_start_when_the_goal_cannot_be_reached():
    task = TASKS["four_room/apartment_1/01"]
    env = VirtualHomeEnv(task=task)
    impossible = Chip().filters(task, 1, env)
    hooks = impossible[-1]
    hooks.goal = Monitor(["G !agent_at(kitchen)", "F agent_at(kitchen)"])
    shield = Shield(env, impossible)
    start = shield.reset(options={"task": task})
    assert not start.admitted and start.abort and start.filter == "chip"
    assert start.reason.startswith("the task's goal cannot be reached under the constraints")
    assert shield.finished and shield.finish() is None
