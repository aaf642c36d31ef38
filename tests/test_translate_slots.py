"""The slot reader: each slot, each pattern, ambiguity kept, lists, counts, refusals."""

from __future__ import annotations

import re

import pytest

from safetychip.automata import equivalent
from safetychip.errors import DataFileError, OutOfGrammarError
from safetychip.ltl import PATTERNS, parse
from safetychip.translate import Translator, Vocabulary
from safetychip.translate._slots import SIGNATURES, SlotReader, load_cues

READER = SlotReader()
A, B = '"agent_at(a)"', '"agent_at(b)"'


def patterns(sentence: str) -> list[str]:
    return [r.pattern for r in READER.readings(sentence)]


def first(sentence: str) -> str:
    return str(READER(sentence).formula)


def holds(sentence: str, formula: str) -> bool:
    """Whether some reading of *sentence* is the same constraint as *formula*."""
    return any(equivalent(r.formula, parse(formula)) for r in READER.readings(sentence))


# -- one pattern per row: the first reading -------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "pattern", "formula"),
    [
        ("Never go into [a].", "never", f"G!{A}"),
        ("Do not pick up [a].", "never", 'G!"is_grabbed(a)"'),
        ("Keep [a] closed.", "never", 'G!"is_open(a)"'),
        ("Don't go to [a] before you have been to [b].", "not_before", f"!{A} W {B}"),
        ("Open [a] before you go to [b].", "before", f'!{B} W "is_open(a)"'),
        ("Enter [a] at most 2 times.", "at_most", None),
        ("Open [a] at least twice.", "at_least", None),
        ("Go to [a] exactly three times.", "exactly", None),
        ("If you open [a], close it eventually.", "response", 'G("is_open(a)" -> F!"is_open(a)")'),
        (
            "Whenever you open [a], close it immediately.",
            "immediate_response",
            'G("is_open(a)" -> X[!]!"is_open(a)")',
        ),
        (
            "Once you have opened [a], never enter [b] again.",
            "absence_after",
            f'G("is_open(a)" -> XG!{B})',
        ),
        ("Go to [a].", "visit", f"F{A}"),
        ("Go to [a], then [b].", "sequenced_visit", f"F({A} & F{B})"),
        ("Keep coming back to [a].", "patrolling", f"GF{A}"),
        ("Stay in [a] until [b] is switched on.", "wait", f'{A} U "is_switchedon(b)"'),
        ("While you are in [a], hold [b].", "instantaneous_reaction", f'G({A} -> "is_grabbed(b)")'),
        (
            "If [a] is opened, close it within 2 steps.",
            "bounded_delay",
            'G("is_open(a)" -> (!"is_open(a)" | X[!](!"is_open(a)" | X[!]!"is_open(a)")))',
        ),
        ("While you are in [a], never touch [b].", "avoid_while", f'G({A} -> !"is_touched(b)")'),
        ("Never touch [b] unless you are in [a].", "avoid_unless", f'G(!{A} -> !"is_touched(b)")'),
        ("Only touch [b] when you are in [a].", "avoid_unless", f'G(!{A} -> !"is_touched(b)")'),
        ("Only open [a] after you have been in [b].", "not_before", f'!"is_open(a)" W {B}'),
    ],
)
def test_first_reading(sentence, pattern, formula):
    reading = READER(sentence)
    assert reading.pattern == pattern
    assert reading.form
    if formula is not None:
        assert equivalent(reading.formula, parse(formula)), str(reading.formula)


def test_counts_mean_entries():
    at_most = READER("Don't enter [a] more than 3 times.")
    assert (at_most.pattern, at_most.args[0]) == ("at_most", 3)
    assert READER("Open [a] twice at most.").args[0] == 2
    assert READER("Open [a] no fewer than 4 times.").args[0] == 4
    assert READER("Open [a] more than 1 time.").args[:1] == (2,)
    assert READER("Do not open [a] twice.").args[:1] == (1,)


# -- each slot ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("When you are in [a], do not touch [b].", "avoid_while"),
        ("As long as you are in [a], do not touch [b].", "avoid_while"),
        ("Unless you are in [a], do not touch [b].", "avoid_unless"),
        ("Do not touch [b] except when you are in [a].", "avoid_unless"),
        ("After you enter [a], do not touch [b].", "absence_after"),
        ("As soon as you open [a], close it.", "immediate_response"),
    ],
)
def test_condition_slot(sentence, expected):
    assert patterns(sentence)[0] == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("If you open [a], close it right away.", "immediate_response"),
        ("If you open [a], close it at the next step.", "immediate_response"),
        ("If you open [a], close it within 4 steps.", "bounded_delay"),
        ("If you open [a], close it later.", "response"),
        ("If you open [a], never enter [b] again.", "absence_after"),
        ("Visit [a] again and again.", "patrolling"),
    ],
)
def test_timing_slot(sentence, expected):
    assert patterns(sentence)[0] == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Until you have been in [b], do not open [a].", '!"is_open(a)" W "agent_at(b)"'),
        ("Do not open [a] before you go to [b].", '!"is_open(a)" W "agent_at(b)"'),
        ("Not until you are in [b] may you open [a].", '!"is_open(a)" W "agent_at(b)"'),
    ],
)
def test_scope_slot(sentence, expected):
    assert equivalent(READER(sentence).formula, parse(expected))


def test_polarity_slot():
    assert first("Make sure you open [a].") == 'F"is_open(a)"'
    assert first("You must never open [a].") == 'G!"is_open(a)"'
    assert first("Keep [a] switched off.") == 'G!"is_switchedon(a)"'


def test_the_bound_of_within_is_read():
    reading = READER("Whenever [a] is opened, close it within 3 steps.")
    assert reading.args[0] == 3


# -- ambiguity is kept -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("After you open [a], never enter [b].", ["absence_after", "avoid_while"]),
        ("First go to [a], then go to [b].", ["sequenced_visit", "ordered_visit"]),
        ("If [a] is opened, close it within 3 steps.", ["bounded_delay", "immediate_response"]),
        ("Keep hold of [a] until you are in [b].", ["wait", "not_before"]),
        ("If you are in [a], do not open [b].", ["avoid_while", "absence_after"]),
        ("If you open [a], close it.", ["response", "instantaneous_reaction"]),
    ],
)
def test_several_readings(sentence, expected):
    found = patterns(sentence)
    assert found[: len(expected)] == expected
    formulas = [str(r.formula) for r in READER.readings(sentence)]
    assert len(set(formulas)) == len(formulas)


def test_order_restated_in_another_clause():
    found = patterns("Go to [a] and [b], but not [b] before [a].")
    assert found[0] == "ordered_visit"
    strict = patterns("[a] once, then [b]. Do not go back to [a] in between.")
    assert strict[0] == "strictly_ordered_visit"


def test_no_reading_drops_a_placeholder():
    for sentence in ("Never enter [a]. I like [b].", "Open [a] because [b] thinks so"):
        assert READER.readings(sentence) == ()
    for reading in READER.readings("After you open [a], never enter [b]."):
        assert {"is_open(a)", "agent_at(b)"} <= set(reading.formula.atoms())


# -- lists --------------------------------------------------------------------------------------------


def test_list_of_things_one_part_each():
    reading = READER("Never enter [a], [b] or [c].")
    assert [str(p) for p in reading.parts] == ['G!"agent_at(a)"', 'G!"agent_at(b)"',
                                                'G!"agent_at(c)"']  # fmt: skip
    assert equivalent(reading.formula, parse(f'G!{A} & G!{B} & G!"agent_at(c)"'))


def test_list_of_clauses():
    reading = READER("At some point go to [a] and take [b].")
    assert reading.pattern == "visit"
    assert len(reading.parts) == 2
    assert holds("Go to [a], [b] and [c] in any order.", f'F{A} & F{B} & F"agent_at(c)"')


def test_condition_list_and_separate_prohibitions():
    assert holds(
        "Don't pick up [a]. Don't touch [b] either.", 'G!"is_grabbed(a)" & G!"is_touched(b)"'
    )
    assert holds("When you are in [a], do not touch [b] or [c].",
                 f'G({A} -> !"is_touched(b)") & G({A} -> !"is_touched(c)")')  # fmt: skip


def test_pronoun_and_topic():
    assert holds("If you open [a], close it.", 'G("is_open(a)" -> F!"is_open(a)")')
    assert holds(
        "[a], exactly 2 times you must enter.", str(PATTERNS["exactly"].build(2, "agent_at(a)"))
    )


def test_sequence_three_steps():
    reading = READER("Go to [a], then [b], then [c].")
    assert reading.args == (parse(A), parse(B), parse('"agent_at(c)"'))


# -- refusals and bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        ("Dance with [a].", "no response clause could be read"),
        ("", "the sentence is empty"),
        ("   ", "the sentence is empty"),
        ("Never go there.", r"no placeholder \(\[a\], \[b\]…\) names a thing"),
        ("Never open [a]\x00.", "control character"),
        ("never open [a] " * 700, "characters long"),
    ],
)
def test_refusal_names_sentence_and_slot(sentence, why):
    assert READER.readings(sentence) == ()
    with pytest.raises(OutOfGrammarError, match=why) as caught:
        READER(sentence)
    assert "outside the offline translator's grammar" in str(caught.value)
    assert caught.value.sentence == sentence


@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        ("If you dance with [a], sing.", "the condition cue 'if' was found, but not the condition"),
        ("Juggle [a] until [b] is on.", "the scope cue 'until' was found, but not the response"),
        ("Juggle [a], then [b].", "the sequence cue 'then' was found, but not the steps"),
    ],
)
def test_refusal_names_the_cue_and_its_slots(sentence, why):
    with pytest.raises(OutOfGrammarError, match=re.escape(why)):
        READER(sentence)


def test_not_a_string():
    assert READER.readings(None) == ()  # type: ignore[arg-type]
    with pytest.raises(OutOfGrammarError, match="the sentence is empty"):
        READER(42)  # type: ignore[arg-type]


def test_deterministic():
    sentence = "After you open [a], never enter [b]."
    assert [str(r.formula) for r in READER.readings(sentence)] == [
        str(r.formula) for r in SlotReader().readings(sentence)
    ]


# -- tables ------------------------------------------------------------------------------------------------


def test_signature_rows_name_known_patterns_and_arguments():
    from safetychip.ltl import MISSIONS

    for key, recipes in SIGNATURES.items():
        assert recipes, key
        for recipe in recipes:
            name, *tokens = recipe.split()
            assert name in PATTERNS or name in MISSIONS, recipe
            assert set(tokens) <= {"c", "~c", "r", "R", "~r", "~R", "n", "n-1", "1", "*R", "c&r",
                                   "~(c&r)"}, recipe  # fmt: skip


def test_cue_table_slots():
    slots = {c.slot for c in load_cues()}
    assert slots == {"condition", "scope", "sequence", "timing", "count", "order", "polarity",
                     "only", "filler", "kept", "reentry", "bound", "together"}  # fmt: skip
    counts = [c for c in load_cues() if c.slot == "count"]
    assert all(c.pattern.groups >= 1 for c in counts)


def test_bad_cue_table(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("# slots\ncondition\twhen\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="line 2: needs 3 tab-separated fields, has 2"):
        load_cues(path)
    path.write_text("timing\tnext\t(\n", encoding="utf-8")
    with pytest.raises(DataFileError, match=re.escape("line 1: missing )")):
        load_cues(path)


# -- in the pipeline -----------------------------------------------------------------------------------------


def test_plugs_into_the_translator():
    t = Translator(Vocabulary.from_names(["kitchen", "bathroom", "fridge"]), embedder=None,
                   lifted_translator=SlotReader(), retrieval=False)  # fmt: skip
    tr = t("Once you have opened the fridge, never enter the bathroom again.")
    assert tr.translator == "offline-slots"
    assert tr.pattern == "absence_after"
    assert str(tr.formula) == 'G("is_open(fridge)" -> XG!"agent_at(bathroom)")'
    with pytest.raises(OutOfGrammarError, match="no response clause"):
        t("Dance with the fridge.")


# -- reading around chat, ellipsis and restatements ---------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "pattern"),
    [
        ("Hey robot, when the robot is in [a] it must not open [b], ok?", "avoid_while"),
        ("Keep out of [a] the whole time.", "never"),
        ("If possible, do not open [a] unless you are in [b].", "avoid_unless"),
        ("Inspection route: [a], then [b].", "sequenced_visit"),
        ("The robot shall not, at any time, enter [a].", "never"),
    ],
)
def test_chat_around_the_clauses(sentence, pattern):
    assert patterns(sentence)[0] == pattern


def test_clause_found_inside_chat_keeps_state_words():
    # "leave [a] open" never loses "open" to read as "leave [a]": it is undone at the end
    assert first("Never leave [a] open, mate.") == 'G("is_open(a)" -> F!"is_open(a)")'
    assert READER.readings("Hold position near [a] somehow.") == ()


def test_elided_object_and_subject():
    assert holds("Open [a], then close within 2 steps.",
                 'G("is_open(a)" -> (!"is_open(a)" | X[!](!"is_open(a)" | X[!]!"is_open(a)")))')  # fmt: skip
    assert holds("Carry [a] until it gets to [b].", '"is_grabbed(a)" U "agent_at(b)"')


def test_question_then_instruction_is_a_condition():
    assert patterns("In [a]? Do not open [b].")[0] == "avoid_while"
    assert patterns("Could you go to [a] at some point? Thanks.") == ["visit"]


def test_one_reading_per_thing_of_a_condition_list():
    reading = READER("Whenever you open [a] or [b], close it within 2 steps.")
    assert reading.pattern == "bounded_delay"
    assert [str(p.atoms()) for p in reading.parts] == [
        "frozenset({'is_open(a)'})",
        "frozenset({'is_open(b)'})",
    ]


def test_restated_order_in_a_comma_clause():
    assert patterns("Go to [a] and then [b], not [b] first.")[0] == "ordered_visit"
    assert (
        patterns("Visit [a] exactly once before [b], and do not enter [b] before [a].")[0]
        == "strictly_ordered_visit"
    )


def test_patrol_names_places():
    reading = READER("Keep doing rounds of [a] and [b], all night.")
    assert reading.pattern == "patrolling"
    assert equivalent(reading.formula, parse(f"GF{A} & GF{B}"))


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Enter [a] only once.", ["at_most", "exactly"]),
        ("Do not come back to [a].", ["at_most", "never"]),
        ("[a]: twice, max.", ["at_most"]),
        ("Open [a] three or more times.", ["at_least"]),
        ("Go to [a] exactly 2 times, no more, no less.", ["exactly", "at_least"]),
    ],
)
def test_count_bounds(sentence, expected):
    assert patterns(sentence) == expected


def test_pronoun_prefers_a_thing_not_after_a_preposition():
    assert holds("Once [a] is on [b], never pick it up again.",
                 'G("is_on(a,b)" -> XG!"is_grabbed(a)")')  # fmt: skip


def test_words_that_complete_a_clause_are_never_dropped():
    # "switch [a] on" is not "switch [a]"; "get out of [a]" is not a visit to [a]
    for reading in READER.readings("Switch [a] on at least twice in the day."):
        assert reading.formula.atoms() == {"is_switchedon(a)"}
    assert all(
        "agent_at(a)" not in str(r.formula) or "!" in str(r.formula)
        for r in READER.readings("Get out of [a] at some point.")
    )


def test_form_describes_the_fill():
    reading = READER("If [a] is opened, close it within 3 steps.")
    assert reading.form == 'when; condition "is_open(a)"; !"is_open(a)"; timing within 3'


def test_word_soup_never_raises_and_never_drops_a_placeholder():
    import random

    rng = random.Random(7)
    words = (
        "never not if when while after before until then once twice at most least exactly "
        "times steps within immediately open close go to in into the and or , . ? ! : ; "
        "[a] [b] [c] it there them keep stay leave switch on off pick up put 3 2 only unless "
        "except first later again back ( ) -> 🙂 é —"
    ).split()
    for _ in range(300):
        sentence = " ".join(rng.choice(words) for _ in range(rng.randint(0, 30)))
        wanted = set(re.findall(r"\[([a-z])\]", sentence))
        for reading in READER.readings(sentence):
            letters = {x for a in reading.formula.atoms() for x in re.findall(r"[(,]([a-z])", a)}
            assert wanted <= letters, (sentence, str(reading.formula))
        try:
            READER(sentence)
        except OutOfGrammarError as err:
            assert repr(sentence) in str(err)
