"""The retrieval examples by other hands: where they come from, that the stored vectors
belong to them, and that a set is scored without its own sentences voting."""

from __future__ import annotations

import hashlib
import json

import pytest

from safetychip.paths import DATA_DIR
from safetychip.translate import RetrievalTranslator
from safetychip.translate._retrieve import EXAMPLES, TEMPLATES

FOLDER = DATA_DIR / "translation"
ROWS = [json.loads(line) for line in EXAMPLES.read_text(encoding="utf-8").splitlines()]
# Sets scored once and read since, but not examples (data/translation/README.md says why).
KEPT_OUT = ("heldout_2", "fresh_17", "fresh_18")


def test_examples_come_only_from_development_sets_by_other_hands():
    sets = {row["set"] for row in ROWS}
    assert sets == {"dev_other", "fresh", "heldout", "fresh_2", "fresh_3", "fresh_4", "fresh_5",
                    "fresh_6", "fresh_7", "fresh_8", "fresh_9", "fresh_10", "fresh_11", "fresh_12",
                    "fresh_13", "fresh_14", "fresh_15", "fresh_16"}  # fmt: skip
    for name in sets:
        ids = {json.loads(line)["id"] for line in
               (FOLDER / name / "sentences.jsonl").read_text(encoding="utf-8").splitlines()}  # fmt: skip
        assert {row["id"] for row in ROWS if row["set"] == name} <= ids
    for name in KEPT_OUT:
        path = FOLDER / name / "sentences.jsonl"
        if path.is_file():
            texts = {json.loads(line)["id"] for line in path.read_text().splitlines()}
            assert not texts & {row["id"] for row in ROWS}


@pytest.mark.parametrize("library", [TEMPLATES, EXAMPLES])
def test_stored_vectors_belong_to_the_texts(library):
    # the translator re-embeds a library whose hash does not match: slow at first use
    texts = [json.loads(line)["text"] for line in library.read_text().splitlines()]
    summary = json.loads(library.with_suffix(".json").read_text())
    assert summary["sha256"] == hashlib.sha256("\n".join(texts).encode()).hexdigest()
    assert summary["count"] == len(texts)


def test_a_set_is_read_without_its_own_examples():
    retrieval = RetrievalTranslator()
    example = next(row for row in ROWS if row["set"] == "fresh" and row["text"].count("[") == 1)
    nearest = retrieval.readings(example["text"])
    assert max(r.similarity for r in nearest) > 0.99  # it finds itself
    fresh = {row["text"] for row in ROWS if row["set"] == "fresh"}
    left_out = retrieval.leaving_out([example["id"]])
    assert left_out.without == {"fresh"}
    readings = left_out.readings(example["text"])
    assert readings and not {r.example for r in readings} & fresh


@pytest.mark.parametrize("argument", ["library"])
def test_a_missing_file_is_an_error_naming_it(tmp_path, argument):
    from safetychip.errors import DataFileError

    missing = tmp_path / "gone.json"
    with pytest.raises(DataFileError, match=r"gone\.json"):
        RetrievalTranslator(None, **{argument: missing})


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        ("if ur in my room dont turn on the lamp", False),  # "my room" names nothing
        ("dont pick up the fone if ur in the kitchen", False),
        ("If possible, switch the television on at least two times.", True),  # politeness
        ("I'd really rather you didn't go in the bathroom at all, if that's alright", True),
    ],
)
def test_a_condition_the_retrieval_reading_leaves_out_never_settles(sentence, kept):
    from safetychip.experiments import scene_vocabulary
    from safetychip.translate import Translator

    translator = Translator(scene_vocabulary("apartment_1"))
    t = translator(sentence)
    if kept:
        assert "->" not in str(t.formula)
    else:  # a reading without the condition, if any, never settles
        assert not t.settled
