"""The labelled utterances, grading by language equivalence, and the translate command."""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest

from safetychip import cli
from safetychip.automata import equivalent
from safetychip.errors import DataFileError
from safetychip.experiments import scene_vocabulary
from safetychip.ltl import PATTERNS, parse
from safetychip.translate import Translator, evaluate, load_utterances
from safetychip.translate._match import match_pattern


@pytest.fixture(scope="module")
def rows():
    return load_utterances()


def test_the_set_is_large_and_covers_every_family_and_three_vocabularies(rows):
    assert len(rows) >= 150
    # next_response and absence_from name the task suites' state-predicate variants; the
    # offline readers and this set cover the other nine.
    assert {r["pattern"] for r in rows} - {None} == set(PATTERNS) - {
        "next_response",
        "absence_from",
    }
    assert {r["family"] for r in rows} == {"avoidance", "trigger", "other"}
    assert set(Counter(r["scene"] for r in rows)) == {"apartment_1", "apartment_2", "spot_demo"}
    groups = Counter(r["group"] for r in rows if r["family"] != "other")
    assert sum(n >= 2 for n in groups.values()) >= 50  # paraphrase groups
    assert len({r["id"] for r in rows}) == len(rows)


def test_labels_are_pattern_instances_over_the_scene_vocabulary(rows):
    for r in rows:
        formula = parse(r["formula"])
        scene_vocabulary(r["scene"]).check(formula)
        if r["pattern"] is not None:
            found = match_pattern(formula)
            assert found is not None and PATTERNS[found[0]].family == r["family"], r["id"]


def test_splits_keep_paraphrase_groups_together(rows):
    split_of = {}
    for r in rows:
        assert split_of.setdefault(r["group"], r["split"]) == r["split"]
    assert {r["split"] for r in rows} == {"dev", "test"}
    assert len(load_utterances(split="dev")) + len(load_utterances(split="test")) == len(rows)


def test_bad_utterance_files(tmp_path):
    f = tmp_path / "u.jsonl"
    f.write_text('{"id": "x"}\n', encoding="utf-8")
    with pytest.raises(DataFileError, match="line 1: missing scene, sentence, formula"):
        load_utterances(f)
    f.write_text("nope\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="line 1: not valid JSON"):
        load_utterances(f)
    f.write_text(
        '{"sentence": "Never go to the kitchen", "scene": "apartment_1", '
        '"formula": "G!\\"agent_at(kitchen)\\"", "pattern": "never"}\n'
    )
    (row,) = load_utterances(f)  # only sentence, scene and formula are required
    assert (row["id"], row["family"], row["split"]) == ("line 1", "avoidance", "")


class Fake:
    """Returns a fixed formula text for every sentence."""

    def __init__(self, text):
        self.text = text

    def __call__(self, sentence):
        class T:  # a Translation, as far as evaluate() looks
            formula = parse(self.text)
            translator = "fake"
            stand_in = True

        return T()


def test_grading_is_by_language_equivalence_not_strings():
    row = {
        "id": "r",
        "scene": "spot_demo",
        "sentence": "s",
        "pattern": "before",
        "family": "avoidance",
        "split": "test",
        "formula": '!"agent_at(television)" W "agent_at(statue)"',
    }
    same = '!(!"agent_at(statue)" U ("agent_at(television)" & !"agent_at(statue)"))'
    assert equivalent(parse(same), parse(row["formula"]))
    result = evaluate(lambda scene: Fake(same), [row])
    assert result.rows[0]["correct"] and result.accuracy == 1.0 and result.stand_in
    wrong = evaluate(lambda scene: Fake('!"agent_at(statue)" W "agent_at(television)"'), [row])
    assert not wrong.rows[0]["correct"]
    assert "before" in wrong.table() and "0 / 1" in wrong.table()


def test_a_labelled_alternative_counts_as_right_and_is_reported():
    row = {
        "scene": "spot_demo",
        "sentence": "s",
        "formula": '!"agent_at(television)" W "agent_at(statue)"',
        "alternatives": ['!"agent_at(television)" U "agent_at(statue)"'],
    }
    strict = evaluate(lambda scene: Fake('!"agent_at(television)" U "agent_at(statue)"'), [row])
    assert strict.rows[0]["correct"] and strict.rows[0]["alternative"]
    assert "matched by a labelled alternative: 1" in strict.scores()
    label = evaluate(lambda scene: Fake(row["formula"]), [row])
    assert label.rows[0]["correct"] and not label.rows[0]["alternative"]
    other = evaluate(lambda scene: Fake('G !"agent_at(television)"'), [row])
    assert not other.rows[0]["correct"] and not other.rows[0]["alternative"]


def test_alternatives_must_be_a_list_of_formulas(tmp_path):
    f = tmp_path / "u.jsonl"
    f.write_text(
        '{"scene": "spot_demo", "sentence": "s", "formula": "F a", "alternatives": "G a"}\n'
    )
    with pytest.raises(DataFileError, match="line 1: alternatives must be a list"):
        load_utterances(f)
    f.write_text(
        '{"scene": "spot_demo", "sentence": "s", "formula": "F a", "alternatives": ["G ("]}\n'
    )
    with pytest.raises(DataFileError, match="line 1"):
        load_utterances(f)


def test_refusals_count_as_wrong_and_are_tallied():
    rows = [
        {
            "id": "r",
            "scene": "apartment_1",
            "sentence": "Juggle the kitchen.",
            "formula": 'F"agent_at(kitchen)"',
            "pattern": "at_least",
            "family": "trigger",
            "split": "dev",
        }
    ]
    result = evaluate(lambda scene: Translator(scene_vocabulary(scene), embedder=None), rows)
    assert result.errors() == {"OutOfGrammarError": 1}
    assert result.accuracy == 0.0 and result.to_dict()["by_pattern"]["at_least"] == {
        "correct": 0,
        "total": 1,
    }


def run(args, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    import contextlib
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(args)
    finally:
        sys.stdin = old
    return code, out.getvalue(), err.getvalue()


def test_cli_translate_one_sentence():
    code, out, err = run(["translate", "Never pick up the phone", "--scene", "apartment_1"])
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["formula"] == 'G!"is_grabbed(phone)"' and data["pattern"] == "never"
    assert data["grounding"][0] == {
        "expression": "the phone",
        "name": "phone",
        "score": 1.0,
        "method": "exact",
        "candidates": [],
    }


def test_cli_translate_with_a_vocabulary_file(tmp_path):
    f = tmp_path / "lab.txt"
    f.write_text("fume_hood\nlab\n", encoding="utf-8")
    code, out, _ = run(["translate", "Keep the fume hood closed", "--vocabulary", str(f)])
    assert code == 0 and json.loads(out)["formula"] == 'G!"is_open(fume_hood)"'


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["translate", "Dance with the phone", "--scene", "apartment_1", "--no-embed"],
            "safetychip translate: error: 'Dance with the phone' (lifted: 'Dance with [a]') is outside",
        ),
        (
            ["translate", "", "--scene", "apartment_1"],
            "safetychip translate: error: the sentence is empty",
        ),
        (
            ["translate", "Never touch the goldfish", "--scene", "apartment_1", "--no-embed"],
            "safetychip translate: error: 'the goldfish' is not a name in apartment_1",
        ),
        (
            ["translate", "Never pick up the phone"],
            "safetychip translate: error: say which names to ground in: --scene SCENE or --vocabulary",
        ),
        (
            ["translate", "Never pick up the phone", "--scene", "apartment_7"],
            "safetychip translate: error: apartment_7: no such scene or vocabulary file",
        ),
        (
            ["translate", "x", "--scene", "spot_demo", "--cache", "c.sqlite"],
            "safetychip translate: error: --cache and --replay need --model NAME",
        ),
    ],
)
def test_cli_translate_errors_exit_2(args, message):
    code, out, err = run(args)
    assert code == 2 and out == ""
    assert err.startswith(message), err


def test_cli_translate_batch():
    lines = "\n".join(
        [
            json.dumps({"sentence": "Visit the statue before the TV"}),
            "[1]",
            json.dumps({"sentence": "Never open the mailbox"}),
            "",
        ]
    )
    code, out, err = run(["translate", "--scene", "spot_demo"], stdin=lines)
    answers = [json.loads(x) for x in out.splitlines()]
    assert code == 2
    assert answers[0]["line"] == 1 and answers[0]["pattern"] == "before"
    assert answers[1] == {
        "line": 2,
        "error": 'expected an object {"sentence": "..."}',
        "type": "ValueError",
    }
    assert answers[2]["formula"] == 'G!"is_open(mail_box)"'
    assert (
        err.strip() == 'safetychip translate: error: line 2: expected an object {"sentence": "..."}'
    )


def test_cli_translate_replay_miss_is_an_error(tmp_path):
    pytest.importorskip("openai")
    from safetychip.llm import CachedModel, ScriptedModel

    path = tmp_path / "c.sqlite"
    CachedModel(ScriptedModel([]), path, mode="record")  # an empty cache file
    code, _, err = run(
        [
            "translate",
            "Never pick up the phone",
            "--scene",
            "spot_demo",
            "--model",
            "gpt-x",
            "--cache",
            str(path),
            "--replay",
        ]
    )
    assert code == 2 and "holds no reply of model 'gpt-x'" in err


def test_cli_evaluate_on_a_small_file(tmp_path):
    rows = load_utterances(split="dev")[:6]
    f = tmp_path / "few.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run(["translate", "--evaluate", str(f), "--no-embed"])
    summary = json.loads(out)
    assert code == 0 and summary["total"] == 6
    assert summary["translator"] == "offline-slots" and summary["stand_in"] is False
    assert "correct / total" in err
