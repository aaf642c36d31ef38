"""Readings of stop 22 that used to be silently wrong: a hedged count, "it" for the robot,
words about the rule that are no things, "never [b] first"."""

from __future__ import annotations

import pytest

from safetychip.automata import equivalent
from safetychip.envs import load_scene
from safetychip.errors import OutOfGrammarError
from safetychip.ltl import parse
from safetychip.translate import Translator, Vocabulary
from safetychip.translate._recognize import recognize


@pytest.fixture(scope="module")
def offline():
    return Translator(Vocabulary.from_scene(load_scene("apartment_1")), embedder=None)


def test_a_hedged_count_keeps_its_negation(offline):
    t = offline("Try not to open the fridge more than 3 times.")
    assert equivalent(t.formula, offline("Open the fridge at most 3 times.").formula)


def test_it_after_the_robot_as_subject_is_the_robot(offline):
    t = offline("The robot may open the window only while it is in the bedroom.")
    assert equivalent(t.formula, parse('G(!"agent_at(bedroom)" -> !"is_open(window)")'))


@pytest.mark.parametrize(
    "sentence",
    [
        "During the shift, never enter the bathroom.",
        "The Device shall never enter the bathroom.",
        "Per the maintenance log, the bathroom is never to be entered.",
        "When you get a sec, stay out of the bathroom.",
    ],
)
def test_words_about_the_rule_are_no_things(offline, sentence):
    found = [e.text for e in recognize(sentence, offline.vocabulary)]
    assert found == ["the bathroom"]


@pytest.mark.parametrize(
    "sentence",
    ["Go to the hallway before the living room, never the living room first.",
     "Visit the kitchen first, never the bedroom first."],
)  # fmt: skip
def test_never_first_is_not_never(offline, sentence):
    # "never [b] first" is about order: reading it as "never [b]" forbade the whole visit; the
    # slot reader offers both readings, or the order alone, and none settles (or it refuses)
    try:
        assert not offline(sentence).settled
    except OutOfGrammarError:
        pass
