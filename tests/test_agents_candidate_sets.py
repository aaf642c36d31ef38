"""The Safety Chip agent with unsettled translations enforced as candidate sets."""

from __future__ import annotations

import pytest

from safetychip.agents import Chip, SafetyChipAgent, chip_constraints
from safetychip.envs import load_tasks
from safetychip.llm import ScriptedModel
from safetychip.monitor import CandidateMonitor, CandidateSet

RETURN = "four_room/apartment_2/06"  # "Never come back to the living room.", from there
MAIL = "mobile_manipulation/apartment_1/03"  # "... before you have the mail."


@pytest.fixture(scope="module")
def tasks():
    return {t.id: t for t in load_tasks()}


def test_by_default_an_unsettled_translation_is_left_out(tasks):
    task = tasks[RETURN]
    settled, left_out = chip_constraints(task, 5, "translated")
    assert "Never come back to the living room." in left_out
    assert not any(isinstance(c, CandidateSet) for c in settled)
    with_sets, none_left = chip_constraints(task, 5, "translated", candidate_sets=True)
    sets = [c for c in with_sets if isinstance(c, CandidateSet)]
    (s,) = [c for c in sets if c.sentence == "Never come back to the living room."]
    assert s.name == "c5" and len(s.candidates) == len(s.readings) >= 2
    assert none_left == tuple(x for x in left_out if x not in {c.sentence for c in sets})
    assert [c for c in with_sets if not isinstance(c, CandidateSet)] == list(settled)


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
