"""The Safety Chip agent with unsettled translations enforced as candidate sets."""

from __future__ import annotations

from dataclasses import replace

import pytest

from safetychip.agents import Chip, SafetyChipAgent, chip_constraints, simulated_pick
from safetychip.agents._chip import _translator
from safetychip.envs import load_tasks
from safetychip.llm import ScriptedModel
from safetychip.ltl import parse
from safetychip.monitor import CandidateMonitor, CandidateSet

RETURN = "four_room/apartment_2/06"  # "Never come back to the living room.", from there
MAIL = "mobile_manipulation/apartment_1/03"  # "... before you have the mail."


@pytest.fixture(scope="module")
def tasks():
    return {t.id: t for t in load_tasks()}


def test_by_default_a_simulated_person_picks_the_reading_the_task_means(tasks):
    task = tasks[RETURN]
    meant = task.constraints[4]
    t = _translator(task.scene).translate(meant.sentence)
    assert not t.settled and len(t.candidates) >= 2
    picked, left_out = chip_constraints(task, 5, "translated")
    assert left_out == () and not any(isinstance(c, CandidateSet) for c in picked)
    (c5,) = [c for c in picked if c.name == "c5"]
    index = simulated_pick(task, t, meant.formula)
    assert index is not None and c5.formula == t.candidates[index].formula
    with_sets, none_left = chip_constraints(task, 5, "translated", candidate_sets=True)
    sets = {c.name: c for c in with_sets if isinstance(c, CandidateSet)}
    assert sets["c5"].sentence == meant.sentence and none_left == ()
    assert len(sets["c5"].candidates) == len(sets["c5"].readings) >= 2
    settled = [c for c in with_sets if not isinstance(c, CandidateSet)]
    assert settled == [c for c in picked if c.name not in sets]


def test_a_set_with_no_reading_the_task_means_is_left_out(tasks):
    task = tasks[RETURN]
    odd = replace(task.constraints[4], formula=parse('G !"agent_at(kitchen)"'))
    task = replace(task, constraints=(*task.constraints[:4], odd))
    picked, left_out = chip_constraints(task, 5, "translated")
    assert left_out == (odd.sentence,) and [c.name for c in picked] == ["c1", "c2", "c3", "c4"]


def test_the_chip_builds_a_candidate_monitor_of_its_own(tasks):
    task = tasks[MAIL]
    env = task.make_env()
    a, b = Chip(formulas="translated", candidate_sets=True), Chip(formulas="translated")
    monitor = a.monitor(task, 5, env)
    assert isinstance(monitor, CandidateMonitor) and a.monitor(task, 5, env) is monitor
    assert not isinstance(b.monitor(task, 5, env), CandidateMonitor)
    assert Chip(formulas="translated", candidate_sets=True).monitor(task, 5, env) is not monitor


def test_an_unattended_agent_refuses_what_the_readings_dispute(tasks):
    task = tasks[RETURN]
    agent = SafetyChipAgent(ScriptedModel(list(task.example_plan)), formulas="translated",
                            candidate_sets=True, deadline=None)  # fmt: skip
    episode = agent.run(task, k=5)
    assert episode.end == "aborted" and episode.safe
    monitor = agent.chip.monitor(task, 5, task.make_env())
    (question,) = monitor.open_questions
    assert question.sentence == "Never come back to the living room."
    assert "at the living room" in question.situation


def test_an_answered_agent_runs_the_task(tasks):
    task = tasks[RETURN]
    asked = []

    def ask(question):
        asked.append(question)
        return True

    agent = SafetyChipAgent(ScriptedModel(list(task.example_plan)), formulas="translated",
                            candidate_sets=True, ask=ask, deadline=None)  # fmt: skip
    episode = agent.run(task, k=5)
    assert asked and episode.end != "aborted"
    sets = agent.chip.monitor(task, 5, task.make_env()).candidate_sets
    (s,) = [c for c in sets if c.sentence == "Never come back to the living room."]
    assert s.picked is not None and s.answers[0][1] is True


def test_agreeing_readings_never_ask(tasks):
    task = tasks[MAIL]
    asked = []
    agent = SafetyChipAgent(ScriptedModel(list(task.example_plan)), formulas="translated",
                            candidate_sets=True, ask=asked.append, deadline=None)  # fmt: skip
    episode = agent.run(task, k=5)
    assert episode.success and episode.safe and episode.reprompts == 0 and asked == []
