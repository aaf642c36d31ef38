"""Questions kept by an unattended shield, answered later with buttons (QuestionPanel)."""

from __future__ import annotations

import pytest

from safetychip.envs import PropositionEnv
from safetychip.errors import MonitorError
from safetychip.monitor import CandidateMonitor, CandidateSet, Monitor
from safetychip.shield import QuestionPanel, Shield

FRIDGE = ['G !"is_open(fridge)"', 'F !"is_open(fridge)"']


def fridge_shield(initial=()) -> Shield:
    s = CandidateSet.parse(FRIDGE, "don't leave the fridge open", name="fridge",
                           readings=["never open it", "close it again"])  # fmt: skip
    shield = Shield.of(PropositionEnv(["is_open(fridge)", "is_on(milk,table)"]),
                       CandidateMonitor([s]))  # fmt: skip
    shield.reset(options={"initial": list(initial)})
    return shield


def test_a_question_is_kept_once_however_often_the_action_is_proposed():
    shield = fridge_shield()
    for _ in range(3):
        assert shield.propose("set is_open(fridge)").outcome == "pruned"
    assert len(QuestionPanel(shield).questions) == 1


def test_a_yes_click_runs_the_action_and_clears_the_question():
    shield = fridge_shield()
    shield.propose("set is_open(fridge)")
    panel = QuestionPanel(shield)
    box = panel.widget
    yes = box.children[1].children[0]
    assert "Yes" in yes.description and "never open it" in box.children[0].value
    yes.click()
    assert panel.questions == [] and shield.executed == ("set is_open(fridge)",)
    assert "fridge: yes: set is_open(fridge) executed" in box.children[-1].value


def test_a_no_keeps_it_refused_for_good():
    shield = fridge_shield()
    shield.propose("set is_open(fridge)")
    panel = QuestionPanel(shield)
    assert panel.answer(panel.questions[0], False) is None
    assert shield.executed == () and panel.questions == []
    step = shield.propose("set is_open(fridge)")
    assert step.outcome == "pruned" and step.judgement.verdict.status.value == "violation"
    assert panel.questions == []


def test_a_question_about_the_start_resets_after_a_yes():
    shield = fridge_shield(initial=["is_open(fridge)"])
    assert not shield.start.admitted
    panel = QuestionPanel(shield)
    (question,) = panel.questions
    assert question.action == "start here"
    assert panel.answer(question, True) is None
    assert shield.start.admitted and not shield.finished


def test_a_plain_monitor_has_nothing_to_ask():
    shield = Shield.of(PropositionEnv(["a"]), Monitor(["G !a"]))
    with pytest.raises(MonitorError, match="asks nothing"):
        QuestionPanel(shield)
