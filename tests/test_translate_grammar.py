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
    build_pattern,
    exactly,
    immediate_response,
    never,
    not_before,
    parse,
    response,
)
from safetychip.translate import PatternTranslator, normalize, read_clause
from safetychip.translate._grammar import constraint_clauses, timing_cues, unaccounted_clauses

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
    # "first C1, then C2" asks for both, in that order (issue 12: read as a sequenced visit)
    (
        "First visit [a], and then [b].",
        "sequenced_visit",
        build_pattern("sequenced_visit", at("a"), at("b")),
    ),
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


def test_a_thing_that_changes_state_by_itself():
    assert str(read_clause("[a] turns off").literal) == '!"is_switchedon(a)"'
    assert str(read_clause("[a] gets switched on").literal) == '"is_switchedon(a)"'
    assert str(read_clause("[a] goes off").literal) == '!"is_switchedon(a)"'
    assert read_clause("[a] turns purple") is None
    assert str(read_clause("keep hold of [a]").literal) == '"is_grabbed(a)"'
    assert str(read_clause("hang onto [a]").literal) == '"is_grabbed(a)"'
    result = PatternTranslator()("stay in [a] until [b] comes on")
    assert equivalent(result.formula, parse('"agent_at(a)" U "is_switchedon(b)"'))


def test_a_preamble_that_states_no_rule_is_dropped():
    for preamble in ("For the last time,", "Just so it's clear:", "My use case:", "Sure"):
        result = PatternTranslator()(f"{preamble} go to [a].")
        assert equivalent(result.formula, parse('F"agent_at(a)"')), preamble


def test_pronouns():
    assert (
        normalize("If you grab [a], put it in [b] and leave it there")
        == "if you grab [a], put [a] in [b] and leave [a] to [b]"
    )
    # "it" prefers the thing acted on, not the place after a preposition
    assert normalize("Put [a] in [b] after you take it") == "put [a] in [b] after you take [a]"
    # the dummy "it" of a verdict is no pronoun; "it is forbidden to" is a plain "do not"
    assert normalize("Visit [a], the order, it is not important") == (
        "visit [a], the order, it is not important"
    )
    assert normalize("It is forbidden to open [a]") == "do not open [a]"


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


# -- precedence, timing, lists, counts and conditions said in other words ----------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # what follows "only after" / "only once" comes first, wherever the clause stands
        ("Only after you have opened [a], you may enter [b].", not_before(at("b"), opened("a"))),
        ("Only once [a] is switched off, pick up [b].", not_before(grab("b"), Not(on("a")))),
        ("Take [b] only after visiting [a].", not_before(grab("b"), at("a"))),
        ("Do not switch on [b] before you have touched [a].",
         not_before(on("b"), ap("is_touched(a)"))),
        # "first C1, then C2": C1 first, and both are asked for
        ("First fetch [a], then walk to [b].", build_pattern("sequenced_visit", grab("a"), at("b"))),
        ("Pick up [a] first and then head to [b].", build_pattern("sequenced_visit", grab("a"), at("b"))),
    ],
)  # fmt: skip
def test_precedence_puts_first_what_the_sentence_puts_first(sentence, expected):
    result = PatternTranslator()(sentence)
    assert equivalent(result.formula, expected), str(result.formula)


@pytest.mark.parametrize(
    ("sentence", "pattern", "expected"),
    [
        ("Whenever you pick up [a], after a while put it down.", "response",
         response(grab("a"), Not(grab("a")))),
        ("Each time you go into [a], sooner or later walk to [b].", "response",
         response(at("a"), at("b"))),
        ("When you enter [a], in the very next moment leave it.", "immediate_response",
         immediate_response(at("a"), Not(at("a")))),
        # no comma: the timing word still counts
        ("Right after you turn on [a] turn it off", "immediate_response",
         immediate_response(on("a"), Not(on("a")))),
        ("If [a] is switched on, switch it off at the following step.", "immediate_response",
         immediate_response(on("a"), Not(on("a")))),
        ("If you turn on [a], turn it off no later than 3 steps afterwards.", "bounded_delay",
         build_pattern("bounded_delay", 3, on("a"), Not(on("a")))),
        ("Once you open [a], shut it in 2 steps or fewer.", "bounded_delay",
         build_pattern("bounded_delay", 2, opened("a"), Not(opened("a")))),
        ("Whenever [a] is opened, it must be closed not later than one step after.",
         "bounded_delay", build_pattern("bounded_delay", 1, opened("a"), Not(opened("a")))),
    ],
)  # fmt: skip
def test_next_step_eventually_and_bounded_cues(sentence, pattern, expected):
    result = PatternTranslator()(sentence)
    assert result.pattern == pattern
    assert equivalent(result.formula, expected), str(result.formula)


@pytest.mark.parametrize(
    "sentence",
    [
        "As soon as you open [a], close it eventually.",
        "Right after you switch on [a], switch it off within 2 steps.",
        "When you open [a], shut it at once, or later.",
        "If you open [a], close it withn 3 steps.",  # a number of steps it cannot read
    ],
)
def test_conflicting_or_unread_timing_words_are_refused(sentence):
    with pytest.raises(OutOfGrammarError):
        PatternTranslator()(sentence)


def test_timing_cues():
    assert timing_cues("straight away after you open [a], close it") == {"next"}
    assert timing_cues("close [a] at some point") == {"later"}
    assert timing_cues("close [a] no later than 2 steps after") == {"bounded"}
    assert timing_cues("close [a] right after, or within 2 steps") == {"next", "bounded"}


def test_a_pronoun_after_a_list_names_each_thing_of_the_list():
    t = PatternTranslator()
    result = t("Each time you switch on [a] or [b], switch it off later.")
    assert len(result.parts) == 2
    assert equivalent(result.parts[0], response(on("a"), Not(on("a"))))
    assert equivalent(result.parts[1], response(on("b"), Not(on("b"))))
    result = t("Immediately after you open [a] or [b], shut it.")
    expected = [immediate_response(opened(x), Not(opened(x))) for x in "ab"]
    assert [equivalent(p, e) for p, e in zip(result.parts, expected, strict=True)] == [True] * 2
    # no pronoun: an "or" in a condition stays one formula with the alternatives
    result = t("After you visit [a] or [b], go to [c].")
    assert equivalent(result.formula, response(ap("agent_at(a)") | ap("agent_at(b)"), at("c")))


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # "if you are not in [b]": a state condition, negated (unless)
        ("Never pick up [a] when you are not in [b].", build_pattern("avoid_unless", at("b"), grab("a"))),
        ("Don't even open [a] if you're not inside [b].",
         build_pattern("avoid_unless", at("b"), opened("a"))),
        ("Do not switch on [a] while [b] is not open.",
         build_pattern("avoid_unless", opened("b"), on("a"))),
        ("As long as you are not in [b], do not touch [a].",
         build_pattern("avoid_unless", at("b"), ap("is_touched(a)"))),
        ("When you aren't inside [b], keep [a] closed.", build_pattern("avoid_unless", at("b"), opened("a"))),
        # "only when" + a state, first or second: unless, never precedence
        ("Only when you are inside [b], open [a].", build_pattern("avoid_unless", at("b"), opened("a"))),
        ("Only when you are in [b] may you pick up [a].",
         build_pattern("avoid_unless", at("b"), grab("a"))),
        # count words
        ("Trips into [a] must not exceed three.", at_most(3, at("a"))),
        ("You open [a] just one time, not zero and not more.", exactly(1, opened("a"))),
        ("Visit [a] twice, not fewer.", at_least(2, at("a"))),
        # passive visits are being somewhere
        ("Whenever [a] is switched on, [b] must be entered afterwards.", response(on("a"), at("b"))),
        # "do not stop C1 until C2": keep C1 until C2, which must come
        ("Don't let go of [a] until you reach [b].", build_pattern("wait", grab("a"), at("b"))),
        ("Do not leave [a] until [b] is closed.", build_pattern("wait", at("a"), Not(opened("b")))),
        ("Keep [a] switched on until you reach [b].", build_pattern("wait", on("a"), at("b"))),
        ("Keep holding [a] until [b] is open.", build_pattern("wait", grab("a"), opened("b"))),
    ],
)  # fmt: skip
def test_unless_counts_passive_visits_and_waiting(sentence, expected):
    result = PatternTranslator()(sentence)
    assert equivalent(result.formula, expected), str(result.formula)


def test_after_before_a_bare_verb_is_not_a_trigger():
    t = PatternTranslator()
    # "after go to [b]" is "afterwards": not "whenever you go to [b], go to [a]"
    with pytest.raises(OutOfGrammarError):
        t("Go to [a], after go to [b].")
    # "do not stay in [b]" after a trigger is not "never again"
    with pytest.raises(OutOfGrammarError):
        t("If you go into [b], don't stay there.")
    # with a subject or a gerund it is a trigger
    assert equivalent(t("Go to [a] after you visit [b].").formula, response(at("b"), at("a")))
    assert equivalent(t("Go to [a] after visiting [b].").formula, response(at("b"), at("a")))


def test_coming_back_is_not_read_as_a_first_visit():
    t = PatternTranslator()
    # "do not return to [a] before [b]" is about a second visit: no precedence reading
    with pytest.raises(OutOfGrammarError):
        t("Do not return to [a] before you have been to [b].")
    with pytest.raises(OutOfGrammarError):
        t("Go to [a] and then [b]; never [b] before [a], and do not come back to [a] before [b].")


def test_whole_sentence_accounting():
    assert constraint_clauses("Go to [a]; then, thanks a lot") == [
        "go to [a]",
        "then, thanks a lot",
    ]
    assert constraint_clauses("Open [a], but not before [b] is closed") == [
        "open [a], but not before [b] is closed"
    ]
    assert unaccounted_clauses("Visit [a] — and never go back there", "visit [a]") == (
        "and never go back there",
    )
    assert unaccounted_clauses("Visit [a], and do not forget to close [b]", "visit [a]") == ()
    assert unaccounted_clauses("Enter [a]. Then leave it.", "enter [a]") == ()


@pytest.mark.parametrize(
    ("lifted", "expected"),
    [
        # another thing's state under a condition on the current state: a state condition
        ("When in [a], [b] must be off.", 'G("agent_at(a)" -> !"is_switchedon(b)")'),
        ("While in [a], [b] has to be off.", 'G("agent_at(a)" -> !"is_switchedon(b)")'),
        ("Whenever you're in [a], [b] should be switched off.",
         'G("agent_at(a)" -> !"is_switchedon(b)")'),
        ("If [a] is open, [b] should be closed.", 'G("is_open(a)" -> !"is_open(b)")'),
        # the same with a time said, or about the thing of the condition: a reaction
        ("When in [a], [b] must be off later.", 'G("agent_at(a)" -> F!"is_switchedon(b)")'),
        ("Whenever [a] is opened, it must be closed.", 'G("is_open(a)" -> F!"is_open(a)")'),
        # having, holding, carrying a thing is a current state, never "once you have had it"
        ("If you have [a], don't go into [b].", 'G("is_grabbed(a)" -> !"agent_at(b)")'),
        ("When you carry [a], stay out of [b].", 'G("is_grabbed(a)" -> !"agent_at(b)")'),
        ("If you've got [a], keep out of [b].", 'G("is_grabbed(a)" -> !"agent_at(b)")'),
        ("While you hold [a], never enter [b].", 'G("is_grabbed(a)" -> !"agent_at(b)")'),
        ("If you have been in [a], don't go into [b].",
         'G("agent_at(a)" -> XG!"agent_at(b)")'),
        # a precondition said with "requires … first": precedence
        ("[b] requires [a] first.", '!"agent_at(b)" W "agent_at(a)"'),
        ("[b] requires a visit to [a] first.", '!"agent_at(b)" W "agent_at(a)"'),
        ("Entering [b] requires that you have been to [a] first.",
         '!"agent_at(b)" W "agent_at(a)"'),
        ("Opening [b] requires [a] beforehand.", '!"is_open(b)" W "agent_at(a)"'),
        ("Going into [b] presupposes having been to [a] beforehand.",
         '!"agent_at(b)" W "agent_at(a)"'),
    ],
)  # fmt: skip
def test_state_conditions_and_preconditions_of_new_phrasings(lifted, expected):
    assert equivalent(PatternTranslator()(lifted).formula, parse(expected))


def test_a_route_told_in_the_present_is_a_sequence_and_an_instruction_a_response():
    t = PatternTranslator()
    assert t("After you enter [a], you head to [b].").pattern == "sequenced_visit"
    assert t("After you enter [a], head to [b].").pattern == "response"
    assert t("After you enter [a], you must head to [b].").pattern == "response"


def test_running_a_thing_operates_it_and_running_somewhere_needs_to_or_into():
    t = PatternTranslator()
    assert t("Never run [a].").formula == parse('G !"is_switchedon(a)"')
    assert t("Do not operate [a] while you are in [b].").formula == parse(
        'G("agent_at(b)" -> !"is_switchedon(a)")'
    )
    assert t("Never run to [a].").formula == parse('G !"agent_at(a)"')
    assert t("Don't run into [a].").formula == parse('G !"agent_at(a)"')
