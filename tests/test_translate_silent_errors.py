"""Readings that used to be silently wrong, each now right or refused: a list's tail taken
for a remark, a condition before a colon kept for one rule of two, a count off by one in the
retrieval translator, a reaction read the wrong way round, and the like. The sentences are
our own phrasings of the kinds of error the sets by other hands showed."""

from __future__ import annotations

import pytest

from safetychip.automata import equivalent
from safetychip.envs import load_scene
from safetychip.errors import OutOfGrammarError
from safetychip.ltl import ap, at_least, at_most, parse
from safetychip.translate import Translator, Vocabulary
from safetychip.translate._slots import modifiers

#: Read by the deleted grammar and frame reader only (issue 34).
NOT_READ_NOW = {
    "If the television is on: don't open the window, don't touch the lamp.",
    "When in the bedroom: don't touch the lamp, don't open the window.",
    "Once you opened the fridge, the stove is forbidden to switch on.",
    "When you pick up the knife, put it down immediately, in next step.",
}


@pytest.fixture(scope="module")
def offline():
    """The slot reader (no embedder, so no retrieval)."""
    return Translator(Vocabulary.from_scene(load_scene("apartment_1")), embedder=None)


@pytest.fixture(scope="module")
def grounded():
    """The slot reader, grounding with MiniLM (no retrieval)."""
    return Translator(Vocabulary.from_scene(load_scene("apartment_1")), retrieval=False)


def test_the_tail_of_a_list_is_never_set_aside_as_a_remark(grounded):
    # ", the microwave or the garbage can — …" goes on with the list: were it a remark, two of
    # the three things would be dropped without a word
    t = grounded("never open the fridge, the microwave or the garbage can — an experiment on temps")
    assert t.formula.atoms() == {"is_open(fridge)", "is_open(microwave)", "is_open(garbage_can)"}
    assert ("unnamed", "an experiment") in t.set_aside and not t.settled
    # a statement after a comma that names a thing of the scene is still a remark
    t = grounded("Don't open the stove more than twice, the bread needs the heat.")
    assert [kind for kind, _ in t.set_aside] == ["remark"]
    assert t.formula.atoms() == {"is_open(stove)"}


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # a condition said once before a colon holds for every rule after it
        (
            "If the television is on: don't open the window, don't touch the lamp.",
            'G("is_switchedon(television)" -> !"is_open(window)") & '
            'G("is_switchedon(television)" -> !"is_touched(lamp)")',
        ),
        (
            "When in the bedroom: don't touch the lamp, don't open the window.",
            'G("agent_at(bedroom)" -> !"is_touched(lamp)") & '
            'G("agent_at(bedroom)" -> !"is_open(window)")',
        ),
        # "after some time" orders the two steps
        (
            "Switch on the television, and after a while open the fridge.",
            'F("is_switchedon(television)" & F"is_open(fridge)")',
        ),
        # what is forbidden of a thing, said after it
        ("The television is forbidden to switch on.", 'G!"is_switchedon(television)"'),
        (
            "Once you opened the fridge, the stove is forbidden to switch on.",
            'G("is_open(fridge)" -> XG!"is_switchedon(stove)")',
        ),
        # a place forbidden until something happens: the place waits, not the other way round
        (
            "The kitchen is forbidden before you go to the bathroom.",
            '!"agent_at(kitchen)" W "agent_at(bathroom)"',
        ),
        # a trigger asked with its verb first
        (
            "Opened the fridge? Close it at some point.",
            'G("is_open(fridge)" -> F!"is_open(fridge)")',
        ),
        # the thing first, then its count, then the verb
        ("Stove — at most 2 time switch on.", at_most(2, ap("is_switchedon(stove)"))),
        # "not later" beside "right away" says again that it is due at once
        (
            "When you open the fridge, close it right away, not later.",
            'G("is_open(fridge)" -> X[!]!"is_open(fridge)")',
        ),
        # "any time you are in" is a state condition, not a trigger for ever after
        (
            "Keep the fridge shut any time you're in the kitchen.",
            'G("agent_at(kitchen)" -> !"is_open(fridge)")',
        ),
        # a tag question negates nothing
        (
            "Keep the lamp on until you go to the kitchen, no?",
            '"is_switchedon(lamp)" U "agent_at(kitchen)"',
        ),
        # "in next step" is the next step, not a visit
        (
            "When you pick up the knife, put it down immediately, in next step.",
            'G("is_grabbed(knife)" -> X[!]!"is_grabbed(knife)")',
        ),
    ],
)
def test_phrasings_once_misread_now_read_as_meant(offline, sentence, expected):
    # the reading is the first candidate, or among those of a set that waits for a pick; the
    # phrasings only the deleted readers read are refused or offered unsettled
    if sentence in NOT_READ_NOW:
        try:
            assert not offline(sentence).settled
        except OutOfGrammarError:
            pass
        return
    t = offline(sentence)
    want = parse(expected) if isinstance(expected, str) else expected
    if not equivalent(t.formula, want):
        assert not t.settled, (sentence, str(t.formula))
        assert any(equivalent(c.formula, want) for c in t.candidates), sentence


def test_a_count_read_by_the_slot_reader_and_by_retrieval_alike(offline):
    # the slot reader's reading is the reference for "more than once"
    twice = at_least(2, ap("agent_at(bedroom)"))
    assert equivalent(offline("Visit the bedroom more than once.").formula, twice)
    from safetychip.translate._retrieve import _with_counts

    a = ap("agent_at(a)")
    found = modifiers("look in on [a] more than once, would you")
    assert equivalent(_with_counts("at_least", a, {"a": a}, found, False), at_least(2, a))
    found = modifiers("enter [a] fewer than three times")
    assert equivalent(_with_counts("at_most", a, {"a": a}, found, False), at_most(2, a))
    found = modifiers("never enter [a] more than twice")
    assert equivalent(_with_counts("at_most", a, {"a": a}, found, True), at_most(2, a))
