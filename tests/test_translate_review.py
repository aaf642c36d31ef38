"""Verification by a person: back-translation, witness traces, the review function and the
Jupyter widget."""

from __future__ import annotations

import pytest

from safetychip.envs import load_scene
from safetychip.errors import ConflictError
from safetychip.llm import ScriptedModel
from safetychip.ltl import (
    absence_after,
    at_least,
    at_most,
    before,
    exactly,
    immediate_response,
    never,
    not_before,
    parse,
    response,
)
from safetychip.translate import (
    Specification,
    Translator,
    Vocabulary,
    back_translate,
    describe,
    match_pattern,
    prepare_review,
    review,
    witnesses,
)

K, B = "agent_at(kitchen)", "agent_at(bathroom)"


@pytest.mark.parametrize(
    ("formula", "text"),
    [
        (never("is_grabbed(phone)"), "Never pick up the phone."),
        (
            not_before(K, B),
            "Do not go to the kitchen until you are at the bathroom (if that never "
            "happens, never go to the kitchen).",
        ),
        (
            before(B, K),
            "Do not go to the kitchen until you are at the bathroom (if that never "
            "happens, never go to the kitchen).",
        ),
        (
            response("is_switchedon(stove)", parse('!"is_switchedon(stove)"')),
            "Whenever the stove is switched on, the stove must be switched off then or at some later "
            "step, before you finish.",
        ),
        (
            immediate_response(B, parse(f'!"{B}"')),
            "Whenever you are at the bathroom, you must not be at the bathroom at the very next step "
            "(so you may not finish right then).",
        ),
        (
            absence_after("is_grabbed(book)", "agent_at(television)"),
            "Once you are holding the book, from the next step on never go to the television.",
        ),
        (
            at_most(2, K),
            "Go to the kitchen at most twice (each time it starts to hold counts once).",
        ),
        (
            at_least(1, "is_in(book,mail_box)"),
            "Put the book in the mail box at least once before you finish.",
        ),
        (
            exactly(3, "is_open(fridge)"),
            "Open the fridge exactly 3 times (each time it starts to hold counts once).",
        ),
    ],
)
def test_template_back_translation(formula, text):
    result = back_translate(formula)
    assert (result.text, result.source, result.stand_in) == (text, "template", False)


def test_each_pattern_has_one_english_its_slots_the_arguments():
    """A pattern reads back as its own English (``Pattern.english``): ``readback.tsv`` holds
    only predicates, and each template names every argument of the pattern's constructor."""
    import inspect
    import re

    from safetychip.ltl import MISSIONS, PATTERNS
    from safetychip.translate._backtranslate import READBACK

    assert set(READBACK) == {"predicate"}
    for name, pattern in {**PATTERNS, **MISSIONS}.items():
        slots = {int(k) for k in re.findall(r"\{(\d)", pattern.english)}
        params = inspect.signature(pattern.build).parameters.values()
        if any(p.kind is p.VAR_POSITIONAL for p in params):  # missions over a list: p, q
            assert slots <= {0, 1}, name
        else:
            assert slots == set(range(len(params))), name
    assert PATTERNS["never"].english == "never {0}"


def test_a_pattern_row_in_the_read_back_table_is_a_data_file_error(tmp_path):
    from safetychip.errors import DataFileError
    from safetychip.translate._backtranslate import _row
    from safetychip.translate._normalize import read_table

    table = tmp_path / "readback.tsv"
    table.write_text("pattern\tnever\tnever {0}\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="line 1: a row of kind 'pattern'"):
        read_table(table, "read-back table", _row)


def test_formulas_of_no_pattern_are_read_operator_by_operator():
    f = parse('G("is_switchedon(stove)" -> ("is_open(fridge)" | "agent_at(kitchen)"))')
    assert match_pattern(f) is None
    result = back_translate(f)
    assert result.source == "literal"
    assert result.text == (
        "Always (if the stove is switched on, then the fridge is open or you are at the kitchen)."
    )
    # With the consequent negated it is a state condition, read by its template.
    state = back_translate(parse('G("is_switchedon(stove)" -> !"is_open(fridge)")'))
    assert state.text == "Never open the fridge while the stove is switched on."
    assert (
        describe(parse("a U (b | X[!] c)"))
        == "(a) until (b or at the next step (c)), which must happen"
    )


def test_llm_back_translation_is_labelled_when_a_stand_in_writes_it():
    llm = ScriptedModel(["Never hold the phone."])
    result = back_translate(never("is_grabbed(phone)"), model=llm)
    assert (result.text, result.source, result.stand_in) == (
        "Never hold the phone.",
        "scripted-stand-in",
        True,
    )
    assert str(result).endswith("[offline stand-in, not a language model]")
    assert llm.requests[0].messages[-1].content == 'Formula: G!"is_grabbed(phone)"\nEnglish:'


def test_witnesses_in_the_environments_words():
    good, bad = witnesses(parse('G("is_grabbed(book)" -> F"is_in(book,mail_box)")'))
    assert str(good) == "start with nothing true: satisfies"
    assert str(bad) == "start holding book: violates (it ends there)"
    good, bad = witnesses(not_before(K, B))
    assert bad.trace == (frozenset({K}),) and not bad.accepted
    good, bad = witnesses(at_least(2, K))
    assert str(good) == (
        "start at kitchen, then walk away from kitchen, then walk to kitchen: satisfies"
    )
    assert witnesses(parse("a & !a"))[0] is None
    assert witnesses(parse("a | !a"))[1] is None


def test_card_shows_formula_automaton_back_translation_and_witnesses():
    apartment = Vocabulary.from_scene(load_scene("apartment_1"))
    t = Translator(apartment, embedder=None)("Don't enter the kitchen before the bathroom.")
    card = prepare_review(t)
    text = card.text()
    for expected in (
        "sentence:         Don't enter the kitchen before the bathroom.",
        'formula:          !"agent_at(kitchen)" W "agent_at(bathroom)"',
        "pattern:          not_before",
        "reads back as:    Do not go to the kitchen",
        "automaton:        4 states",
        "shortest accepted: start with nothing true",
        "shortest rejected: start at kitchen: violates",
    ):
        assert expected in text
    assert '<img style="max-width:100%' in card._repr_html_()  # the automaton, as a PNG
    assert "data:image/png;base64," in card._repr_html_()


def answers(*items):
    it = iter(items)
    return lambda prompt: next(it)


def test_review_accept_reject_and_edit():
    spec = Specification()
    shown = []
    outcome = review(
        never("is_grabbed(phone)"), specification=spec, ask=answers("a"), show=shown.append
    )
    assert outcome.accepted and outcome.constraint.name == "c1" and len(spec) == 1
    assert shown[-1] == 'accepted: c1 G!"is_grabbed(phone)"'

    outcome = review(
        never("is_grabbed(book)"), specification=spec, ask=answers("r"), show=shown.append
    )
    assert outcome.decision == "rejected" and outcome.constraint is None and len(spec) == 1

    outcome = review(
        never("is_grabbed(book)"),
        specification=spec,
        show=shown.append,
        ask=answers(
            "maybe", "e", "G !(", "e", 'F"is_grabbed(phone)"', "e", 'G!"is_touched(book)"', "a"
        ),
    )
    assert outcome.accepted and str(outcome.constraint.formula) == 'G!"is_touched(book)"'
    assert outcome.edits == ["G !(", 'F"is_grabbed(phone)"', 'G!"is_touched(book)"']
    assert len(outcome.cards) == 2
    assert "please answer a, e or r (got 'maybe')" in shown
    refused = [s for s in shown if s.startswith("edit refused")]
    assert refused[0].startswith("edit refused: cannot parse Spot formula")
    assert refused[1].startswith('edit refused: F"is_grabbed(phone)" contradicts c1')
    assert [c.name for c in spec] == ["c1", "c2"]


def test_review_checks_edits_against_the_vocabulary():
    t = Translator("spot_demo", embedder=None)("Never pick up the phone.")
    shown = []
    outcome = review(t, ask=answers("e", 'G!"is_grabbed(cat)"', "r"), show=shown.append)
    assert outcome.decision == "rejected"
    assert any("'cat' is not a name in spot_demo" in s for s in shown)


def test_review_gives_up_without_a_decision():
    outcome = review(never("a"), ask=lambda _: "?", show=lambda _: None, max_rounds=3)
    assert outcome.decision == "rejected"


def test_widget_drives_like_the_buttons():
    pytest.importorskip("ipywidgets")
    from safetychip.translate import ReviewWidget

    spec = Specification([parse('F"agent_at(kitchen)"')])
    decided = []
    w = ReviewWidget(parse('G!"agent_at(kitchen)"'), specification=spec, on_decision=decided.append)
    w.accept_button.click()  # contradicts c1: refused, still pending
    assert w.outcome.decision == "pending" and "cannot accept" in w.status.value
    w.formula_box.value = "G !("
    w.edit_button.click()
    assert "edit refused" in w.status.value
    w.edit('G!"agent_at(bathroom)"')
    assert "agent_at(bathroom)" in w._view.value and w.formula_box.value == 'G!"agent_at(bathroom)"'
    w.accept_button.click()
    assert w.outcome.accepted and [str(c.formula) for c in spec][-1] == 'G!"agent_at(bathroom)"'
    assert decided == [w.outcome] and w.accept_button.disabled
    w.reject()
    assert w.outcome.decision == "accepted" and "already accepted" in w.status.value


def test_widget_reject():
    pytest.importorskip("ipywidgets")
    from safetychip.translate import ReviewWidget

    spec = Specification()
    w = ReviewWidget(never("a"), specification=spec).reject()
    assert w.outcome.decision == "rejected" and len(spec) == 0
    assert repr(w) == "<ReviewWidget G!a (rejected)>"


def test_conflict_error_type():
    spec = Specification(["F a"])
    with pytest.raises(ConflictError):
        spec.accept("G !a")
