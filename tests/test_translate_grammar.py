"""The offline pattern translator: its forms, clauses, pronouns, and what it refuses.

The sentences here are not those of data/translation (that set measures accuracy); they test
the grammar's forms one by one.
"""

from __future__ import annotations

import pytest

from safetychip.automata import equivalent
from safetychip.errors import OutOfGrammarError
from safetychip.ltl import (
    Not,
    absence_after,
    ap,
    at_least,
    at_most,
    before,
    exactly,
    immediate_response,
    never,
    not_before,
    response,
)
from safetychip.translate import PatternTranslator, normalize, read_clause

at = lambda x: ap(f"agent_at({x})")  # noqa: E731
grab = lambda x: ap(f"is_grabbed({x})")  # noqa: E731
opened = lambda x: ap(f"is_open({x})")  # noqa: E731
on = lambda x: ap(f"is_switchedon({x})")  # noqa: E731

CASES = [
    # never
    ("Never enter [a].", "never", never(at("a"))),
    ("You should not ever carry [a].", "never", never(grab("a"))),
    ("Under no circumstances may you switch [a] on.", "never", never(on("a"))),
    ("It is forbidden to open [a].", "never", never(opened("a"))),
    ("Opening [a] is not allowed.", "never", never(opened("a"))),
    ("Keep away from [a].", "never", never(at("a"))),
    ("[a] should stay shut.", "never", never(opened("a"))),
    ("Keep [a] switched off.", "never", never(on("a"))),
    ("Never place [a] on top of [b].", "never", never(ap("is_on(a,b)"))),
    ("Don't touch [a]!", "never", never(ap("is_touched(a)"))),
    # not_before
    (
        "Don't open [a] until [b] is closed.",
        "not_before",
        not_before(opened("a"), Not(opened("b"))),
    ),
    ("You must not enter [a] prior to visiting [b].", "not_before", not_before(at("a"), at("b"))),
    ("Switch on [a] only once you have left [b].", "not_before", not_before(on("a"), Not(at("b")))),
    (
        "Wait till you hold [b] before you walk to [a].",
        "not_before",
        not_before(at("a"), grab("b")),
    ),
    (
        "Keep out of [a] until you have switched off [b].",
        "not_before",
        not_before(at("a"), Not(on("b"))),
    ),
    # before
    ("Close [a] before you leave [b].", "before", before(Not(opened("a")), Not(at("b")))),
    ("First visit [a], and then [b].", "before", before(at("a"), at("b"))),
    ("Open [a] before [b].", "before", before(opened("a"), opened("b"))),
    # response
    (
        "Whenever you take [a], put it back in [b] later.",
        "response",
        response(grab("a"), ap("is_in(a,b)")),
    ),
    (
        "If [a] is switched on then switch it off eventually.",
        "response",
        response(on("a"), Not(on("a"))),
    ),
    ("Lock up: close [a] at some point whenever you open it.", None, None),
    ("Turning on [a] means you must go to [b] afterwards.", "response", response(on("a"), at("b"))),
    ("Do not leave [a] running.", "response", response(on("a"), Not(on("a")))),
    (
        "Holding [a] must be followed by putting it on [b].",
        "response",
        response(grab("a"), ap("is_on(a,b)")),
    ),
    # immediate_response
    (
        "Each time you open [a], shut it straight away.",
        "immediate_response",
        immediate_response(opened("a"), Not(opened("a"))),
    ),
    (
        "Switch [a] off the moment you switch it on.",
        "immediate_response",
        immediate_response(on("a"), Not(on("a"))),
    ),
    (
        "Entering [a] means going to [b] next.",
        "immediate_response",
        immediate_response(at("a"), at("b")),
    ),
    # absence_after
    (
        "Once [a] is open, never touch [b] again.",
        "absence_after",
        absence_after(opened("a"), ap("is_touched(b)")),
    ),
    (
        "After you have held [a], stay away from [b].",
        "absence_after",
        absence_after(grab("a"), at("b")),
    ),
    (
        "Never go back to [b] once you have reached [a].",
        "absence_after",
        absence_after(at("a"), at("b")),
    ),
    # counting
    ("Open [a] no more than 4 times.", "at_most", at_most(4, opened("a"))),
    ("Visit [a] fewer than three times.", "at_most", at_most(2, at("a"))),
    ("You may only enter [a] twice.", "at_most", at_most(2, at("a"))),
    ("Do not switch on [a] more than once.", "at_most", at_most(1, on("a"))),
    ("Grab [a] three times.", "exactly", exactly(3, grab("a"))),
    ("Visit [a] twice and only twice.", "exactly", exactly(2, at("a"))),
    ("Go to [a] precisely two times.", "exactly", exactly(2, at("a"))),
    ("Pick up [a] at least 3 times.", "at_least", at_least(3, grab("a"))),
    ("Enter [a] more than twice.", "at_least", at_least(3, at("a"))),
    ("Be sure to open [a].", "at_least", at_least(1, opened("a"))),
    ("At some point, go to [a].", "at_least", at_least(1, at("a"))),
]


@pytest.mark.parametrize(("sentence", "pattern", "expected"), CASES)
def test_forms(sentence, pattern, expected):
    t = PatternTranslator()
    if expected is None:
        with pytest.raises(OutOfGrammarError):
            t(sentence)
        return
    result = t(sentence)
    assert result.pattern == pattern
    assert equivalent(result.formula, expected), str(result.formula)


def test_clauses():
    assert str(read_clause("you have gone into [a]").literal) == '"agent_at(a)"'
    assert str(read_clause("[a] ends up inside [b]").literal) == '"is_in(a,b)"'
    assert str(read_clause("switching [a] off").literal) == '!"is_switchedon(a)"'
    assert read_clause("stay out of [a]").avoid is True
    assert read_clause("[a]").literal is None
    assert read_clause("teleport to [a]") is None


def test_pronouns():
    assert (
        normalize("If you grab [a], put it in [b] and leave it there")
        == "if you grab [a], put [a] in [b] and leave [a] to [b]"
    )
    # "it" prefers the thing acted on, not the place after a preposition
    assert normalize("Put [a] in [b] after you take it") == "put [a] in [b] after you take [a]"
    assert normalize("It is forbidden to open [a]") == "it is forbidden to open [a]"


def test_double_negation_is_removed():
    result = PatternTranslator()("Wait until you hold [b] to leave [a].")
    assert str(result.formula) == '"agent_at(a)" W "is_grabbed(b)"'


def test_out_of_grammar_says_so_plainly():
    with pytest.raises(OutOfGrammarError) as caught:
        PatternTranslator()("Dance with [a].")
    message = str(caught.value)
    assert message.startswith("'Dance with [a].' is outside the offline translator's grammar")
    assert "It reads: never …; don't … before/until …" in message
    assert "translate it with a language model" in message
    assert caught.value.sentence == "Dance with [a]."


def test_out_of_grammar_names_the_closest_form():
    with pytest.raises(
        OutOfGrammarError,
        match=r"The closest form, never C, cannot read the "
        r"clause 'juggle \[a\]'",
    ):
        PatternTranslator()("Never juggle [a].")


def test_a_reading_that_drops_a_placeholder_is_refused(monkeypatch):
    from safetychip.translate import LiftedTranslation, _grammar

    # A form that reads only [a] of a sentence mentioning [a] and [b] must not be accepted.
    sloppy = lambda text: LiftedTranslation(never(grab("a")), "never", (), "sloppy")  # noqa: E731
    monkeypatch.setattr(_grammar, "_FORM_ORDER", (sloppy,))
    with pytest.raises(
        OutOfGrammarError,
        match=r"The closest form, sloppy, would leave out "
        r"\[b\]\.",
    ):
        PatternTranslator()("Never grab [a] near [b].")
    with pytest.raises(OutOfGrammarError, match=r"cannot read the clause 'grab \[a\] near"):
        monkeypatch.undo()
        PatternTranslator()("Never grab [a] near [b].")


def test_a_pronoun_is_not_read_as_a_thing_inside_itself():
    # The preferred antecedent of "it" is [b], the thing acted on; but "put [b] in [b]" is
    # nonsense, so the next reading, "in [a]", is taken.
    result = PatternTranslator()("Switch off [a] right after you put [b] in it.")
    assert result.pattern == "immediate_response"
    assert equivalent(result.formula, immediate_response(ap("is_in(b,a)"), Not(on("a"))))
