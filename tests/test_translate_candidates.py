"""Candidate sets: pooling, calibrated scores, the conformal cut, distinguishing traces, the
pick, and what refuses an unpicked translation."""

from __future__ import annotations

import json
import math
import random

import pytest

from safetychip.automata import equivalent
from safetychip.errors import DataFileError, PickNeededError, TranslationError
from safetychip.ltl import evaluate as holds
from safetychip.ltl import parse, random_patterns
from safetychip.monitor import Specification
from safetychip.translate import Translator, Vocabulary, distinguish
from safetychip.translate._candidates import FEATURES, Scores, conformal_threshold

NAMES = ["kitchen", "bathroom", "bedroom", "fridge", "knife"]


@pytest.fixture(scope="module")
def offline():
    """The offline readers without an embedder (the slot reader only)."""
    return Translator(Vocabulary.from_names(NAMES), embedder=None)


def open_scores(**weights: float) -> Scores:
    """Scores that keep every candidate (an infinite threshold)."""
    return Scores({n: weights.get(n, 0.0) for n in FEATURES}, 0.0, math.inf)


def test_the_conformal_threshold_covers_new_draws_at_the_stated_rate():
    # exchangeable calibration and test scores: averaged over calibration draws, the share of
    # new scores under the threshold is at least 1 - alpha (the guarantee is marginal)
    rng = random.Random(7)
    for alpha in (0.05, 0.1, 0.2):
        covered = []
        for _ in range(300):
            q = conformal_threshold([rng.random() ** 2 for _ in range(100)], alpha)
            covered += [rng.random() ** 2 <= q for _ in range(200)]
        assert sum(covered) / len(covered) >= 1 - alpha - 0.005


def test_the_threshold_is_infinite_when_the_readers_miss_too_often():
    assert conformal_threshold([0.1] * 90 + [math.inf] * 10, 0.05) == math.inf
    assert conformal_threshold([0.1] * 98 + [math.inf] * 2, 0.05) == 0.1
    with pytest.raises(ValueError, match="alpha"):
        conformal_threshold([0.1], 1.5)


def test_a_missing_or_broken_score_file_names_itself(tmp_path):
    with pytest.raises(DataFileError, match=r"nothing\.json"):
        Scores.load(tmp_path / "nothing.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"alpha": 0.05, "with_retrieval": {"weights": {}}}))
    with pytest.raises(DataFileError, match=r"calibrate_candidates\.py"):
        Scores.load(bad)


def test_the_shipped_scores_rank_agreeing_readers_above_a_lone_retrieval_reading():
    scores = Scores.load()
    agreed = scores.probability({"slots": 1, "slots_first": 1, "slots_exact": 1, "retrieval": 1,
                                 "share": 0.9, "similarity": 0.9, "first": 1, "fits": 1})  # fmt: skip
    lone = scores.probability({"retrieval": 1, "share": 0.2, "similarity": 0.6, "fits": 0,
                               "overruled": 1})  # fmt: skip
    assert 0 <= lone < agreed <= 1
    assert scores.report["check"]["sentences"] > 500  # measured on sets the fit never saw


def test_equivalent_readings_pool_into_one_candidate_that_remembers_its_readers(offline):
    t = offline("Never go to the kitchen.")
    assert len(t.candidates) == 1
    first = t.candidates[0]
    assert first.readers == ("offline-slots",)
    assert first.features["slots"] == first.features["slots_exact"] == 1.0
    assert equivalent(t.formula, parse('G!"agent_at(kitchen)"'))


def test_every_candidate_is_a_distinct_language_and_the_first_is_the_translation():
    t = Translator(Vocabulary.from_names(NAMES), embedder="minilm", scores=open_scores())
    found = t("Go to the kitchen, then the bathroom.").candidates
    assert len(found) >= 2
    for i, a in enumerate(found):
        for b in found[i + 1 :]:
            assert not equivalent(a.formula, b.formula)


def test_a_pick_settles_the_translation_and_a_bad_pick_is_a_clear_error(offline):
    t = Translator(Vocabulary.from_names(NAMES), embedder="minilm", scores=open_scores())
    translation = t("Go to the kitchen, then the bathroom.")
    assert not translation.settled  # several candidates, nobody picked
    with pytest.raises(PickNeededError, match="choose"):
        Specification().accept(translation)
    chosen = translation.choose(1)
    assert chosen.settled and chosen.picked == 1
    assert chosen.formula == translation.candidates[1].formula
    assert str(Specification().accept(chosen).formula) == str(chosen.formula)
    with pytest.raises(TranslationError, match="pick one of 0 to"):
        translation.choose(len(translation.candidates))


def test_a_set_of_one_is_settled_only_above_the_confidence(offline):
    sure = offline("Never go to the kitchen.")
    assert sure.settled and sure.candidates[0].probability >= sure.confidence
    doubtful = Translator(Vocabulary.from_names(NAMES), embedder=None, confidence=1.0)
    assert not doubtful("Never go to the kitchen.").settled


def test_no_probable_candidate_is_a_refusal_that_lists_what_to_pick(offline):
    strict = Translator(Vocabulary.from_names(NAMES), embedder=None,
                        scores=Scores(dict.fromkeys(FEATURES, 0.0), -5.0, 0.01))  # fmt: skip
    with pytest.raises(TranslationError, match="no reading is probable enough") as caught:
        strict("Never go to the kitchen.")
    assert "--pick" in str(caught.value) and caught.value.considered
    kept = strict.translate("Never go to the kitchen.", keep_all=True)
    assert str(kept.choose(0).formula) == 'G!"agent_at(kitchen)"'


@pytest.mark.parametrize("seed", range(6))
def test_a_distinguishing_trace_is_accepted_by_exactly_one_of_the_two(seed):
    atoms = ["agent_at(kitchen)", "agent_at(bathroom)", "is_open(fridge)"]
    (_, f), (_, g) = random_patterns(2, atoms, seed=seed)
    d = distinguish(f, g, rooms=("kitchen", "bathroom"))
    if equivalent(f, g):
        assert d is None
        return
    assert d is not None
    trace = [frozenset(s) for s in d.trace]
    assert holds(f, trace) == d.first_allows != holds(g, trace)
    for letter in trace:  # one room at a time
        assert len(letter & {"agent_at(kitchen)", "agent_at(bathroom)"}) <= 1


def test_the_translation_tells_its_candidates_apart_in_its_json():
    t = Translator(Vocabulary.from_names(NAMES), embedder="minilm", scores=open_scores())
    data = t("Go to the kitchen, then the bathroom.").to_dict()
    found = data["candidates"]
    assert [c["number"] for c in found] == list(range(1, len(found) + 1))
    assert all(c["back_translation"] for c in found)
    apart = found[0]["distinguishing"]
    assert apart and "allows it" in apart[0]["trace"] and "forbids it" in apart[0]["trace"]
    assert data["settled"] is False and data["picked"] is None


def test_beside_a_model_the_slot_reader_reads_too_and_can_be_left_out():
    from safetychip.llm import ScriptedModel

    vocabulary = Vocabulary.from_names(NAMES)

    def model():
        return ScriptedModel(["Expressions: the kitchen", "LTL: G ! agent_at(a)"] * 2)

    t = Translator(vocabulary, model=model(), embedder=None)("Never go to the kitchen.")
    assert "offline-slots" in t.candidates[0].readers
    assert t.candidates[0].features["slots"] == t.candidates[0].features["slots_first"] == 1.0
    alone = Translator(vocabulary, model=model(), embedder=None, offline_readers=False)
    assert all(
        "offline-slots" not in c.readers for c in alone("Never go to the kitchen.").candidates
    )


def _cli(args):
    import contextlib
    import io

    from safetychip.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_numbers_the_candidates_and_takes_a_pick():
    sentence = ["translate", "Go to the kitchen, then the bathroom.", "--scene", "apartment_1"]
    code, out, _ = _cli([*sentence, "--json"])
    found = json.loads(out)["candidates"]
    assert code == 0 and len(found) >= 2
    code, out, _ = _cli([*sentence, "--json", "--pick", "2"])
    picked = json.loads(out)
    assert code == 0 and picked["formula"] == found[1]["formula"] and picked["picked"] == 1
    assert picked["settled"] is True
    code, out, err = _cli([*sentence, "--json", "--pick", str(len(found) + 1)])
    assert code == 2 and out == "" and f"pick one of 1 to {len(found)}" in err


def test_the_review_widget_lists_the_candidates_and_accepting_one_is_the_pick():
    t = Translator(Vocabulary.from_names(NAMES), embedder="minilm", scores=open_scores())
    translation = t("Go to the kitchen, then the bathroom.")
    spec = Specification()
    widget = translation.widget(specification=spec)
    assert widget.choices is not None
    assert [k for _, k in widget.choices.options] == list(range(len(translation.candidates)))
    assert "allows it" in widget._repr_html_()  # the traces that tell them apart
    widget.choices.value = 1  # a click on the second radio button
    assert widget.formula_box.value == str(translation.candidates[1].formula)
    widget.accept_button.click()
    assert widget.outcome.decision == "accepted"
    assert [str(c.formula) for c in spec] == [str(translation.candidates[1].formula)]
    assert widget.choices.disabled
