"""A constraint that forbids nothing is no constraint, and a misspelt trace is no trace (issue
44): a reading equivalent to ``true`` is refused naming the sentence, whatever reader gave
it; ``safetychip check`` refuses a name misspelt at any position, as the monitor does."""

from __future__ import annotations

import json

import pytest

from safetychip.cli import main
from safetychip.errors import TraceError, VacuousConstraintError
from safetychip.llm import ScriptedModel
from safetychip.ltl import parse
from safetychip.monitor import read_trace
from safetychip.translate import Translator, Vocabulary, assemble


def _llm(*replies: str) -> Translator:
    return Translator("spot_demo", model=ScriptedModel(list(replies)), embedder=None)


@pytest.mark.parametrize("reply", ["LTL: true", "LTL: G true", "LTL: F true",
                                   "LTL: | is_grabbed(a) ! is_grabbed(a)",
                                   "LTL: G | is_grabbed(a) ! is_grabbed(a)",
                                   "LTL: i F is_grabbed(a) F is_grabbed(a)"])  # fmt: skip
def test_a_model_reading_that_forbids_nothing_adds_no_candidate(reply):
    # beside the offline readers, the model's empty reading is dropped and theirs stands
    t = _llm("Expressions: the phone", reply)
    translation = t("Never pick up the phone")
    assert [str(c.formula) for c in translation.candidates] == ['G!"is_grabbed(phone)"']
    assert t.name not in translation.candidates[0].readers
    # with no other reading, the model's is refused, naming the sentence
    with pytest.raises(VacuousConstraintError) as caught:
        _llm("Expressions: the phone", reply)("Juggle the phone")
    message = str(caught.value)
    assert "'Juggle the phone'" in message and "forbids nothing" in message


@pytest.mark.parametrize(
    "formula",
    ['G("agent_at(a)" | !"agent_at(a)")', 'F"agent_at(a)" | G!"agent_at(a)"',
     '!"agent_at(a)" W "agent_at(a)" | F"agent_at(a)"', "true"],
)  # fmt: skip
def test_assembling_a_valid_formula_is_refused(formula):
    vocabulary = Vocabulary.from_names(["kitchen", "bedroom"])
    with pytest.raises(VacuousConstraintError, match="never go to the kitchen"):
        assemble(parse(formula), {"a": "kitchen"}, vocabulary,
                 sentence="never go to the kitchen")  # fmt: skip


def test_a_reading_that_forbids_something_is_kept():
    t = _llm("Expressions: the phone", "LTL: G ! is_grabbed(a)")
    assert str(t("Never pick up the phone").formula) == 'G!"is_grabbed(phone)"'


# -- safetychip check: a misspelt name at one position ----------------------------------------


@pytest.mark.parametrize(
    "trace",
    [
        [["is_grabbed(phone)"], ["is_grabbed(phnoe)"]],
        [[], ["is_grabbed(phnoe)"], ["is_grabbed(phone)"]],
        [{"is_grabbed(phone)": False}, ["is_grabbed(phnoe)"]],
    ],
)
def test_check_refuses_a_name_misspelt_at_one_position(tmp_path, capsys, trace):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(trace), encoding="utf-8")
    status = main(["check", 'F"is_grabbed(phone)" & G!"is_grabbed(phone)" | G !"is_grabbed(phone)"',
                   "--trace", str(path)])  # fmt: skip
    out, err = capsys.readouterr()
    assert status != 0 and out == ""
    assert "is_grabbed(phnoe)" in err and "did you mean is_grabbed(phone)" in err
    with pytest.raises(TraceError, match="phnoe"):
        read_trace(path, ["is_grabbed(phone)"])


def test_check_still_allows_names_the_formula_does_not_mention(tmp_path, capsys):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps([["is_grabbed(phone)"], ["agent_at(kitchen)"]]), encoding="utf-8")
    assert main(["check", 'F"is_grabbed(phone)"', "--trace", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["holds"] is True


# -- the offline readers: sentences that forbid nothing ---------------------------------------


@pytest.fixture(scope="module")
def offline():
    from safetychip.envs import load_scene

    return Translator(Vocabulary.from_scene(load_scene("apartment_1")), embedder=None)


@pytest.mark.parametrize(
    "sentence",
    [
        "Never go to the kitchen before you go to the kitchen.",
        "Don't open the fridge before you open the fridge.",
    ],
)
def test_a_sentence_that_reads_as_true_is_refused(offline, sentence):
    with pytest.raises(VacuousConstraintError) as caught:
        offline(sentence)
    assert repr(sentence) in str(caught.value) and "forbids nothing" in str(caught.value)


def test_a_reading_as_true_is_no_candidate_beside_other_readings(offline):
    # a reading that forbids nothing is dropped; the slot reader's other reading (the
    # strong until) is offered alone, below the confidence: a person decides
    t = offline("Do not enter the bathroom until you have entered the bathroom.")
    assert [c.readers for c in t.candidates] == [("offline-slots",)]
    assert not t.settled


@pytest.mark.parametrize(
    "sentence",
    [
        "You may turn on the stove.",
        "You can open the fridge.",
        "You are allowed to go to the kitchen.",
        "Feel free to open the fridge.",
        "It is fine to turn on the stove.",
    ],
)
def test_a_sentence_that_only_permits_yields_no_constraint(offline, sentence):
    with pytest.raises(VacuousConstraintError) as caught:
        offline(sentence)
    message = str(caught.value)
    assert repr(sentence) in message and "only permits" in message
    assert "yields no constraint" in message


@pytest.mark.parametrize(
    ("sentence", "formula"),
    [
        ("You may go into the kitchen only after the bathroom.",
         '!"agent_at(kitchen)" W "agent_at(bathroom)"'),
        ("You may not open the fridge.", 'G!"is_open(fridge)"'),
        ("Could you open the fridge?", 'F"is_open(fridge)"'),
    ],
)  # fmt: skip
def test_a_permission_that_restricts_or_a_request_is_read(offline, sentence, formula):
    assert str(offline(sentence).formula) == formula


# -- every gate that accepts a constraint -----------------------------------------------------


@pytest.mark.parametrize("formula", ["true", "G true", "G(a | !a)", "!a W a", "F a | G !a"])
def test_a_specification_does_not_accept_a_vacuous_constraint(formula):
    from safetychip.monitor import Specification

    spec = Specification()
    with pytest.raises(VacuousConstraintError, match="forbids nothing"):
        spec.accept(formula, sentence="never pick up the phone")
    assert spec.constraints == ()
    spec.accept("G !a")  # a real one is still accepted


def test_a_reviewer_cannot_edit_a_constraint_into_one_that_forbids_nothing():
    from safetychip.translate import prepare_review
    from safetychip.translate._review import edit_constraint

    card = prepare_review('G!"is_grabbed(phone)"')
    with pytest.raises(VacuousConstraintError, match="forbids nothing"):
        edit_constraint(card, 'G("is_grabbed(phone)" | !"is_grabbed(phone)")')


@pytest.mark.parametrize(
    "entry",
    ["G true", {"name": "phone", "sentence": "never pick up the phone", "formula": "true"}],
)
def test_a_constraint_file_with_a_vacuous_constraint_is_refused(tmp_path, capsys, entry):
    from safetychip.monitor import read_constraints

    path = tmp_path / "constraints.json"
    path.write_text(json.dumps(["G !a", entry]), encoding="utf-8")
    with pytest.raises(VacuousConstraintError, match=r"constraint 2: .*forbids nothing"):
        read_constraints(path)
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps([[], ["a"]]), encoding="utf-8")
    assert main(["monitor", str(path), str(trace)]) == 2
    assert "forbids nothing" in capsys.readouterr().err
