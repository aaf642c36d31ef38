"""The translator on the predicates of VirtualHome's other actions (issue 16): sitting, lying,
facing, holding in one hand, wearing, clean and dirty, plugged in, pouring.

The slot reader's readings, their English read-back, and refusals where the scene's thing
cannot be what the sentence says.
"""

from __future__ import annotations

import pytest

from safetychip.automata import equivalent
from safetychip.envs import load_scene
from safetychip.errors import OutOfGrammarError, VocabularyError
from safetychip.explain._words import action_words
from safetychip.ltl import Formula, Not, ap, never, parse, response
from safetychip.translate import (
    SlotReader,
    Translator,
    Vocabulary,
    back_translate,
    literal_text,
    read_clause,
)


def avoid_while(condition: Formula, p: Formula) -> Formula:
    """G(condition -> !p): never p while condition."""
    return parse(f"G(({condition}) -> !({p}))")


@pytest.fixture(scope="module")
def apartment():
    return Translator(Vocabulary.from_scene(load_scene("apartment_1")), embedder=None)


LIFTED = [
    ("never sit on [a]", never(ap("agent_sitting_on(a)"))),
    ("Don't lie down on [a].", never(ap("agent_lying_on(a)"))),
    ("do not face [a]", never(ap("agent_facing(a)"))),
    ("never turn towards [a]", never(ap("agent_facing(a)"))),
    ("never plug in [a]", never(ap("is_pluggedin(a)"))),
    ("You must never plug [a] in.", never(ap("is_pluggedin(a)"))),
    ("Keep [a] unplugged.", never(ap("is_pluggedin(a)"))),
    ("never wear [a]", never(ap("is_worn(a)"))),
    ("Don't put on [a].", never(ap("is_worn(a)"))),
    ("never pour [a]", never(ap("is_poured(a)"))),
    ("[a] must never be sat on", never(ap("agent_sitting_on(a)"))),
    ("[a] should not be plugged in", never(ap("is_pluggedin(a)"))),
    ("never pick up [a] with your left hand", never(ap("is_grabbed_lh(a)"))),
    # left dirty at the end: whenever dirty, clean later (on a finite run: clean at the end)
    ("Don't leave [a] dirty.", response(ap("is_dirty(a)"), Not(ap("is_dirty(a)")))),
    ("Do not leave [a] plugged in.", response(ap("is_pluggedin(a)"), Not(ap("is_pluggedin(a)")))),
    ("keep [a] clean", never(ap("is_dirty(a)"))),
    (
        "never switch on [a] while you are sitting on [b]",
        avoid_while(ap("agent_sitting_on(b)"), ap("is_switchedon(a)")),
    ),
    ("never pour [a] near [b]", avoid_while(ap("agent_at(b)"), ap("is_poured(a)"))),
    (
        "do not pour [a] while you are at [b]",
        avoid_while(ap("agent_at(b)"), ap("is_poured(a)")),
    ),
]


@pytest.mark.parametrize(("sentence", "expected"), LIFTED)
def test_the_slot_reader_reads_the_new_actions(sentence, expected):
    assert equivalent(SlotReader()(sentence).formula, expected)


@pytest.mark.parametrize(
    ("clause", "literal"),
    [
        ("you are lying on [a]", "agent_lying_on(a)"),
        ("stand up from [a]", "!agent_sitting_on(a)"),
        ("take off [a]", "!is_worn(a)"),
        ("wash [a]", "is_clean(a)"),
        ("[a] is dirty", "is_dirty(a)"),
        ("unplug [a]", "!is_pluggedin(a)"),
        ("[a] is plugged in", "is_pluggedin(a)"),
        ("carry [a] in your right hand", "is_grabbed_rh(a)"),
    ],
)
def test_clauses_of_the_new_actions(clause, literal):
    found = read_clause(clause)
    assert found is not None and found.literal == parse(literal)


@pytest.mark.parametrize(
    ("clause", "literal"),
    [
        ("put [a] on [b]", "is_on(a,b)"),
        ("turn [a] on", "is_switchedon(a)"),
        ("hold [a]", "is_grabbed(a)"),
    ],
)
def test_the_old_clauses_keep_their_predicates(clause, literal):
    found = read_clause(clause)
    assert found is not None and found.literal == parse(literal)


@pytest.mark.parametrize(
    ("sentence", "formula", "english"),
    [
        ("never plug in the toaster", 'G!"is_pluggedin(toaster)"', "Never plug in the toaster."),
        ("never sit on the bed", 'G!"agent_sitting_on(bed)"', "Never sit on the bed."),
        ("don't lie on the sofa", 'G!"agent_lying_on(sofa)"', "Never lie on the sofa."),
        ("don't face the TV", 'G!"agent_facing(television)"', "Never face the television."),
        ("never wear the shoes", 'G!"is_worn(shoes)"', "Never wear the shoes."),
    ],
)
def test_scene_sentences_and_their_read_back(apartment, sentence, formula, english):
    t = apartment(sentence)
    assert t.formula == parse(formula)
    assert str(back_translate(t.formula)) == english


def test_pouring_anything_is_refused():
    names = Vocabulary.from_names(["laptop", "milk", "office"], predicates=_with_poured())
    with pytest.raises(OutOfGrammarError, match="outside the offline translator's grammar"):
        Translator(names, embedder=None)("Do not pour anything near the laptop.")


def _with_poured():
    from safetychip.envs.virtualhome import VIRTUALHOME_PREDICATES

    return VIRTUALHOME_PREDICATES


@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        ("never plug in the sofa", r"sofa cannot be plugged in .*HAS_PLUG.* toaster"),
        ("never sit on the fridge", r"fridge cannot be sat on .*SITTABLE.* sofa"),
        ("never wear the fridge", r"fridge cannot be worn .*CLOTHES.* shoes"),
        ("never pour the sofa", r"sofa cannot be poured"),
    ],
)
def test_a_thing_without_the_property_is_refused_by_name(apartment, sentence, why):
    with pytest.raises(VocabularyError, match=why):
        apartment(sentence)


def test_a_scene_without_the_predicates_refuses_them():
    spot = Translator("spot_demo", embedder=None)
    name = spot.vocabulary.names[0]
    with pytest.raises(VocabularyError, match="unknown predicate 'agent_sitting_on'"):
        spot(f"never sit on the {name.replace('_', ' ')}")


# -- the retrieval translator: no verb on the wrong predicate ------------------------------------


# -- English of the new predicates ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "mood", "english"),
    [
        ("agent_sitting_on(bed)", "imperative", "sit on the bed"),
        ("is_grabbed_rh(cup)", "state", "you are holding the cup in your right hand"),
        ("is_dirty(plate)", "state", "the plate is dirty"),
        ("is_pluggedin(toaster)", "state", "the toaster is plugged in"),
        ("!is_pluggedin(toaster)", "imperative", "unplug the toaster"),
        ("is_worn(shoes)", "state", "you are wearing the shoes"),
        ("agent_lying_on(sofa)", "state", "you are lying on the sofa"),
        ("agent_facing(tv)", "imperative", "face the tv"),
        ("is_clean(plate)", "imperative", "clean the plate"),
        ("is_poured(milk)", "imperative", "pour the milk"),
    ],
)
def test_back_translation_reads_each_new_predicate(literal, mood, english):
    assert literal_text(parse(literal), mood) == english


def test_no_predicate_of_the_scene_is_read_generically():
    from safetychip.envs.virtualhome import VIRTUALHOME_PREDICATES

    for predicate, arity in VIRTUALHOME_PREDICATES.items():
        atom = f"{predicate}({','.join(['fridge', 'kitchen'][:arity])})"
        assert predicate.replace("_", " ") not in literal_text(parse(atom))
        assert not action_words(atom).startswith("make ")


def test_explanation_actions_of_the_new_predicates():
    assert action_words("agent_sitting_on(bed)") == "sit on bed"
    assert action_words("!is_pluggedin(toaster)") == "unplug toaster"
    assert action_words("is_grabbed_rh(cup)") == "grab cup with the right hand"


def test_questions_about_the_plan_read_the_new_actions(apartment):
    from safetychip.explain import question_formula

    assert question_formula("Will you sit on the bed?", apartment) == parse(
        'F"agent_sitting_on(bed)"'
    )
    assert question_formula("Are you going to wear the shoes?", apartment) == parse(
        'F"is_worn(shoes)"'
    )


def test_leaving_a_thing_dirty_reads_back_as_cleaning_it_later():
    text = str(back_translate(response(ap("is_dirty(plate)"), Not(ap("is_dirty(plate)")))))
    assert "the plate must not be dirty then or at some later step" in text
