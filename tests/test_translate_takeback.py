"""Self-corrections ("the living room, sorry, I meant the bedroom"), and the readings of
stop 22 that used to be silently wrong: a hedged count, "it" for the robot, a pronoun that
names the opposite of a thing's own clause."""

from __future__ import annotations

import pytest

from safetychip.automata import equivalent
from safetychip.envs import load_scene
from safetychip.errors import OutOfGrammarError
from safetychip.ltl import parse
from safetychip.translate import Translator, Vocabulary
from safetychip.translate._recognize import recognize
from safetychip.translate._retrieve import _both_ways, clause_literals
from safetychip.translate._takeback import take_back


@pytest.fixture(scope="module")
def offline():
    return Translator(Vocabulary.from_scene(load_scene("apartment_1")), embedder=None)


@pytest.mark.parametrize(
    ("sentence", "meant"),
    [
        ("Never go into the living room, sorry, I meant the bedroom. Never the bedroom.",
         "Never go into the bedroom."),
        ("Go to the bedroom, no wait, the bathroom.", "Go to the bathroom."),
        ("Go to the bedroom then the kitchen, sorry I mean the bathroom then the kitchen.",
         "Go to the bathroom then the kitchen."),
        ("Don't go into the living room before the kitchen. Actually, make that before the "
         "bathroom.", "Don't go into the living room before the bathroom."),
        ("Enter the living room exactly three times. Hmm, no, make it exactly twice.",
         "Enter the living room exactly twice."),
        ("No more than four visits to the bedroom, no sorry, three.",
         "No more than three visits to the bedroom."),
        ("Stay in the bathroom until the light is off, no, until the toaster is off.",
         "Stay in the bathroom until the toaster is off."),
    ],
)  # fmt: skip
def test_a_self_correction_is_read_as_corrected(offline, sentence, meant):
    t = offline(sentence)
    assert equivalent(t.formula, offline(meant).formula)
    ((kind, said),) = t.set_aside
    assert kind == "correction" and said in sentence
    assert "self-correction" in t.to_dict()["set_aside"][0]["note"]
    assert "self-correction" in t._repr_html_()


@pytest.mark.parametrize(
    "lifted",
    [
        "Never enter [a], no exceptions.",
        "Visit [a], no matter what.",
        "Go to [a], no, not there, [b].",
        "No, never open [a].",
        "Stay in [a], no, don't leave.",
    ],
)
def test_no_correction_without_a_marker_and_a_shape(lifted):
    assert take_back(lifted) is None


def test_a_correction_names_only_what_is_kept(offline):
    t = offline("When you switch on the television, sorry, the toaster, switch it off later.")
    assert dict(t.lifted.placeholders) == {"a": "toaster"}
    assert equivalent(
        t.formula, parse('G("is_switchedon(toaster)" -> F !"is_switchedon(toaster)")')
    )


def test_a_hedged_count_keeps_its_negation(offline):
    t = offline("Try not to open the fridge more than 3 times.")
    assert equivalent(t.formula, offline("Open the fridge at most 3 times.").formula)


def test_it_after_the_robot_as_subject_is_the_robot(offline):
    t = offline("The robot may open the window only while it is in the bedroom.")
    assert equivalent(t.formula, parse('G(!"agent_at(bedroom)" -> !"is_open(window)")'))


def test_a_pronoun_naming_the_undoing_keeps_the_templates_arrangement():
    lifted = "Put [a] down within two steps of picking it up."
    assert _both_ways(lifted, clause_literals(lifted)) == {"a"}
    plain = "Put [a] down within two steps."
    assert _both_ways(plain, clause_literals(plain)) == frozenset()


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
