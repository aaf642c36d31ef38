"""The whole pipeline, its bad-input paths, language models (scripted and over loopback
HTTP), and the all-or-nothing acceptance of constraints."""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from safetychip.automata import equivalent
from safetychip.envs import load_scene
from safetychip.errors import (
    ConflictError,
    GroundingError,
    LLMStatusError,
    LLMTimeoutError,
    OutOfGrammarError,
    PickNeededError,
    SafetyChipError,
    SentenceError,
    SpecificationError,
    TranslationReplyError,
    VocabularyError,
)
from safetychip.llm import ScriptedModel
from safetychip.ltl import parse
from safetychip.monitor import Constraint, smallest_conflict
from safetychip.translate import (
    MAX_SENTENCE,
    Specification,
    Translator,
    Vocabulary,
    assemble,
    ground_formula,
    load_vocabulary,
)


@pytest.fixture(scope="module")
def offline():
    return Translator(Vocabulary.from_scene(load_scene("apartment_1")), embedder=None)


def test_offline_translation_keeps_every_step(offline):
    t = offline("If you open the fridge, you must close it later.")
    assert [e.text for e in t.expressions] == ["the fridge"]
    assert [(g.name, g.method, g.score) for g in t.groundings] == [("fridge", "exact", 1.0)]
    assert t.lifted.text == "If you open [a], you must close it later."
    assert str(t.lifted_formula) == 'G("is_open(a)" -> F!"is_open(a)")'
    assert str(t.formula) == 'G("is_open(fridge)" -> F!"is_open(fridge)")'
    assert (t.pattern, t.family, t.translator, t.stand_in) == (
        "response",
        "trigger",
        "offline-slots",
        False,
    )
    data = t.to_dict()
    assert data["lifted"] == {
        "sentence": "If you open [a], you must close it later.",
        "formula": 'G("is_open(a)" -> F!"is_open(a)")',
        "placeholders": {"a": "fridge"},
    }
    assert json.loads(json.dumps(data)) == data
    assert "<table>" in t._repr_html_()
    assert t.constraint.sentence == "If you open the fridge, you must close it later."


def test_same_thing_twice_gets_one_placeholder(offline):
    t = offline("If you open the refrigerator, close the fridge right away.")
    assert t.lifted.text == "If you open [a], close [a] right away."
    assert dict(t.lifted.placeholders) == {"a": "fridge"}
    assert t.pattern == "immediate_response"


@pytest.mark.parametrize("sentence", ["", "   ", "\n\t"])
def test_empty_sentence(offline, sentence):
    with pytest.raises(SentenceError, match=r"^the sentence is empty: write one constraint"):
        offline(sentence)


def test_overlong_sentence(offline):
    long = "Never pick up the phone " + "and the book " * 40
    with pytest.raises(SentenceError) as caught:
        offline(long)
    assert str(caught.value) == (
        f"the sentence is {len(' '.join(long.split()))} characters long;"
        f" at most {MAX_SENTENCE} are accepted: state one constraint per"
        " sentence"
    )


def test_not_a_string(offline):
    with pytest.raises(SentenceError, match="a sentence must be a string, got int"):
        offline(42)


HIDDEN = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
          "\u2069", "\u200e", "\u200f", "\u200b", "\u200c", "\u200d", "\ufeff"]  # fmt: skip


@pytest.mark.parametrize("char", HIDDEN, ids=[f"U+{ord(c):04X}" for c in HIDDEN])
def test_hidden_characters_are_refused_by_code_point_and_position(offline, char):
    """Regression: "Never enter the \u202enehctik." shows as "…the kitchen." but was
    translated as written; a sentence that reads differently from what it holds is refused."""
    sentence = f"Never enter the {char}kitchen."
    with pytest.raises(SentenceError) as caught:
        offline(sentence)
    code = f"U+{ord(char):04X}"
    assert str(caught.value).startswith(f"the sentence holds {code} ")
    assert " at position 16: it hides or reorders text on screen" in str(caught.value)
    assert str(caught.value).endswith("delete it and type the sentence again")
    with pytest.raises(SentenceError, match=re.escape(code) + " .* at position 0"):
        offline.check_sentence(char + "Never enter the kitchen.")


def test_no_known_pattern(offline):
    # the slot reader's guess, with words left out, is offered, never settled
    assert not offline("The phone is nice.").settled
    with pytest.raises(OutOfGrammarError) as caught:
        offline("Dance with the phone.")
    assert str(caught.value).startswith(
        "'Dance with the phone.' (lifted: 'Dance with [a].') is outside the offline "
        "translator's grammar: no response clause could be read."
    )


def test_ungroundable_referent_without_embedder(offline):
    with pytest.raises(GroundingError) as caught:
        offline("Never feed the goldfish.")
    assert str(caught.value).startswith("'the goldfish' is not a name in apartment_1")
    assert caught.value.expression == "the goldfish"


def test_a_class_name_means_any_instance(offline):
    # "the sink" in a flat with two sinks: any sink (is_touched(sink)), not a refusal
    assert offline("Never touch the sink.").formula == parse('G !"is_touched(sink)"')
    assert offline("Never touch the kitchen sink.").formula == parse(
        'G !"is_touched(kitchen_sink)"'
    )


def test_conflict_with_accepted_constraints(offline):
    spec = Specification()
    spec.accept(offline("Stay out of the kitchen."))
    with pytest.raises(ConflictError) as caught:
        offline("Make sure you visit the kitchen.", accepted=spec.constraints)
    assert caught.value.conflict == ("c1", "new")
    assert (
        "contradicts the constraints already accepted: no finite trace satisfies it "
        "together with c1 (Stay out of the kitchen.)" in str(caught.value)
    )
    assert len(spec) == 1


def test_unsatisfiable_alone(offline):
    with pytest.raises(ConflictError, match="is unsatisfiable on its own") as caught:
        assemble(
            parse('G!"agent_at(a)" & F"agent_at(a)"'),
            {"a": "kitchen"},
            offline.vocabulary,
        )
    assert caught.value.conflict == ("new",)


def test_assemble_checks_the_vocabulary():
    v = load_vocabulary("spot_demo")
    with pytest.raises(
        VocabularyError,
        match="placeholder 'b' stands for nothing in the "
        r"sentence \(bound: a=book\)",
    ):
        assemble(parse('G!"is_on(a,b)"'), {"a": "book"}, v)
    with pytest.raises(VocabularyError, match="unknown predicate 'is_broken'"):
        assemble(parse('G!"is_broken(a)"'), {"a": "book"}, v)
    with pytest.raises(VocabularyError, match="is_on takes 2 arguments, got 1"):
        assemble(parse('G!"is_on(a)"'), {"a": "book"}, v)
    with pytest.raises(VocabularyError, match="not a predicate over placeholders"):
        ground_formula(parse("G!a"), {"a": "book"})


def test_specification_accepts_whole_constraints_only():
    spec = Specification()
    c1 = spec.accept(parse('!"agent_at(kitchen)" W "agent_at(bathroom)"'), sentence="k after b")
    c2 = spec.accept(Constraint(parse('F"agent_at(kitchen)"'), "visit the kitchen", "visit"))
    assert (c1.name, c2.name) == ("c1", "visit")
    with pytest.raises(ConflictError):
        spec.accept('G!"agent_at(bathroom)"')
    with pytest.raises(SpecificationError, match="a constraint named 'visit' is already accepted"):
        spec.accept(Constraint(parse("F a"), name="visit"))
    with pytest.raises(ConflictError, match="unsatisfiable on its own"):
        spec.accept("a & !a")
    with pytest.raises(SpecificationError, match="cannot accept 3"):
        spec.accept(3)
    assert [c.name for c in spec] == ["c1", "visit"]
    assert spec.remove("visit").name == "visit"
    assert json.loads(spec.to_json())[0]["formula"] == '!"agent_at(kitchen)" W "agent_at(bathroom)"'
    assert spec.monitor().reset(set()).safe
    with pytest.raises(KeyError, match="no constraint named 'x'"):
        spec.remove("x")
    assert smallest_conflict(["G!a", "F a"]) == ("c1", "c2")


def test_invariants_take_part_in_the_checks():
    rooms = ["agent_at(kitchen)", "agent_at(bathroom)"]
    from safetychip.monitor import exactly_one

    spec = Specification(invariants=[exactly_one(rooms)])
    spec.accept('G!"agent_at(kitchen)"')
    with pytest.raises(ConflictError):  # never in the kitchen, so always in the bathroom
        spec.accept('F!"agent_at(bathroom)"')


# -- language models ------------------------------------------------------------------------


def llm_translator(replies, **options):
    return Translator("spot_demo", model=ScriptedModel(replies), embedder=None, **options)


def test_llm_pipeline_is_labelled_a_stand_in():
    t = llm_translator(
        ["Expressions: the book | the TV", "LTL: G i is_grabbed(a) X G ! agent_at(b)"]
    )
    result = t("Once you have the book, keep clear of the TV")
    assert str(result.formula) == 'G("is_grabbed(book)" -> XG!"agent_at(television)")'
    assert result.pattern == "absence_after"
    assert result.stand_in is True and result.translator == "scripted-stand-in"
    prompt = t.model.requests[1].messages
    assert "Operators:" in prompt[0].content and "agent_at(a)" in prompt[0].content
    assert prompt[-1].content == "Utterance: Once you have [a], keep clear of [b]\nLTL:"


def test_llm_reply_that_does_not_parse_is_retried_then_quoted():
    t = llm_translator(
        ["Expressions: the phone", "never grab it", "LTL: G ! (", "LTL: G ! holds(a)"],
        offline_readers=False,
    )
    with pytest.raises(TranslationReplyError) as caught:
        t("Never pick up the phone")
    err = caught.value
    assert err.attempts == 3 and err.reply == "LTL: G ! holds(a)"
    assert str(err).startswith(
        "scripted-stand-in gave no readable formula for 'Never pick up [a]'"
        " in 3 attempts; last reply: 'LTL: G ! holds(a)' (unknown "
        "predicate 'holds'"
    )
    feedback = [r.messages[-1].content for r in t.model.requests[2:]]
    assert feedback[0].startswith("I cannot use that reply: 'never grab it' is not a formula")
    assert feedback[1].startswith("I cannot use that reply: 'G ! (' is not a formula")
    assert len(t.model.requests) == 4  # one recognition, three translation attempts


def test_llm_reply_recovers_on_retry():
    t = llm_translator(
        ["Expressions: the phone", "LTL: G ! is_grabbed(b)", "```\nLTL: G ! is_grabbed(a)\n```"]
    )
    assert str(t("Never pick up the phone").formula) == 'G!"is_grabbed(phone)"'
    assert (
        "'is_grabbed(b)' uses b, which is not a placeholder"
        in t.model.requests[2].messages[-1].content
    )


def test_llm_translation_can_be_accepted():
    t = llm_translator(["Expressions: the phone", "LTL: G ! is_grabbed(a)"], max_attempts=1)
    spec = Specification()
    spec.accept(t("Never pick up the phone"))
    assert len(spec) == 1


class Loopback:
    """An OpenAI-compatible server on 127.0.0.1: each request takes the next behaviour."""

    def __init__(self):
        self.script = deque()
        self.release = threading.Event()
        loop = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers["Content-Length"]))
                kind, text = loop.script.popleft() if loop.script else ("ok", "none")
                if kind == "hang":
                    loop.release.wait(5)
                    return
                if kind == "500":
                    body, status = b'{"error": {"message": "boom"}}', 500
                else:
                    body = json.dumps(
                        {
                            "id": "x",
                            "object": "chat.completion",
                            "model": "m",
                            "choices": [
                                {
                                    "index": 0,
                                    "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text},
                                }
                            ],
                            "usage": {"prompt_tokens": 1, "completion_tokens": 1},
                        }
                    )
                    body, status = body.encode(), 200
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()

    def model(self):
        from safetychip.llm import OpenAIChatModel, OpenAIEndpoint

        return OpenAIChatModel(
            "m", OpenAIEndpoint(self.url, api_key="k", timeout=0.5, max_retries=1, backoff=0.001)
        )

    def stop(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def loopback():
    pytest.importorskip("openai")
    server = Loopback()
    yield server
    server.stop()


def test_real_client_over_loopback(loopback):
    loopback.script.extend(
        [("ok", "Expressions: the statue | the TV"), ("ok", "LTL: W ! agent_at(b) agent_at(a)")]
    )
    t = Translator("spot_demo", model=loopback.model(), embedder=None)
    result = t("See the statue before the TV")
    assert equivalent(result.formula, parse('!"agent_at(television)" W "agent_at(statue)"'))
    assert result.stand_in is False and result.translator == "m"


def test_api_timeout_leaves_nothing_accepted(loopback):
    spec = Specification()
    loopback.script.extend([("hang", "")] * 2)
    t = Translator("spot_demo", model=loopback.model(), embedder=None)
    with pytest.raises(LLMTimeoutError, match=r"model 'm' at http://127\.0\.0\.1:\d+/v1 timed out"):
        spec.accept(t("Never pick up the phone"))
    assert len(spec) == 0


def test_api_error_after_retries(loopback):
    loopback.script.extend([("500", "")] * 2)
    t = Translator("spot_demo", model=loopback.model(), embedder=None)
    with pytest.raises(LLMStatusError) as caught:
        t("Never pick up the phone")
    assert caught.value.status == 500 and caught.value.attempts == 2


def test_cli_translate_with_a_model_over_loopback(loopback, monkeypatch, capsys):
    from safetychip import cli

    monkeypatch.setenv("OPENAI_BASE_URL", loopback.url)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    loopback.script.extend([("ok", "Expressions: the phone"), ("ok", "LTL: G ! is_grabbed(a)")])
    code = cli.main(
        [
            "translate",
            "Never pick up the phone",
            "--scene",
            "spot_demo",
            "--model",
            "m",
            "--timeout",
            "2",
        ]
    )
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert code == 0, err
    assert (data["formula"], data["translator"], data["stand_in"]) == (
        'G!"is_grabbed(phone)"',
        "m",
        False,
    )
    loopback.script.extend([("ok", "Expressions: the phone")] + [("ok", "no idea")] * 3)
    code = cli.main(
        ["translate", "Juggle the phone", "--scene", "spot_demo", "--model", "m", "--no-embed"]
    )
    out, err = capsys.readouterr()
    assert code == 2 and out == ""  # no offline reader reads it either: the model's error
    assert err.startswith(
        "safetychip translate: error: m gave no readable formula for "
        "'Juggle [a]' in 3 attempts; last reply: 'no idea'"
    )


def test_not_first_after_a_route_keeps_both_visits_in_order(offline):
    t = offline("Go to the hallway and then the kitchen, not the kitchen first.", keep_all=True)
    expected = parse(
        'F("agent_at(hallway)" & F"agent_at(kitchen)") & !"agent_at(kitchen)" W "agent_at(hallway)"'
    )
    assert any(equivalent(c.formula, expected) for c in t.candidates)


def test_when_every_reader_fails_the_first_failure_is_raised():
    from safetychip.translate import LiftedTranslation

    def unsatisfiable(lifted: str) -> LiftedTranslation:
        return LiftedTranslation(parse('G!"agent_at(a)" & F"agent_at(a)"'))

    t = Translator(
        Vocabulary.from_scene(load_scene("apartment_1")),
        embedder=None,
        lifted_translator=unsatisfiable,
    )
    with pytest.raises(ConflictError, match="unsatisfiable on its own") as caught:
        t("Blorp the kitchen zzyx.")  # the slot reader refuses it
    assert caught.value.conflict == ("new",)


def test_a_conflict_with_accepted_constraints_never_falls_through(offline):
    spec = Specification()
    spec.accept(offline("Stay out of the kitchen."))
    with pytest.raises(ConflictError) as caught:
        offline("Go to the hallway and then the kitchen.", accepted=spec.constraints)
    assert caught.value.conflict == ("c1", "new")


@pytest.mark.parametrize(
    ("sentence", "without", "kind", "clause"),
    [
        ("Stay out of the bedroom because the kids are asleep.", "Stay out of the bedroom.",
         "reason", "because the kids are asleep"),
        ("Because the kids are asleep, stay out of the bedroom.", "Stay out of the bedroom.",
         "reason", "Because the kids are asleep"),
        ("Go to the living room twice to check on the baby.", "Go to the living room twice.",
         "reason", "to check on the baby"),
        ("Never enter the bathroom, the floor is wet.", "Never enter the bathroom.",
         "remark", "the floor is wet"),
        ("Close the fridge right after you open it, since the kids are around.",
         "Close the fridge right after you open it.", "reason", "since the kids are around"),
        ("Stay out of the bedroom (the kids are asleep) and the bathroom.",
         "Stay out of the bedroom and the bathroom.", "remark", "the kids are asleep"),
        ("My sister is visiting on Sunday, so never open the fridge.", "Never open the fridge.",
         "preamble", "My sister is visiting on Sunday"),
        ("I know it's dull, the cat agrees, but anyway, stay in the kitchen until the tv is off.",
         "Stay in the kitchen until the tv is off.", "preamble",
         "I know it's dull, the cat agrees"),
        ("Never enter the bedroom. That is the tenant's own space.", "Never enter the bedroom.",
         "remark", "That is the tenant's own space"),
        ("A small favour: never open the fridge.", "Never open the fridge.", "preamble",
         "A small favour"),
        ("The cat sleeps in the bedroom, so never open the fridge.", "Never open the fridge.",
         "preamble", "The cat sleeps in the bedroom"),
        ("Never open the front door, otherwise the dog runs off.", "Never open the front door.",
         "reason", "otherwise the dog runs off"),
        # a thing of the scene as a clause's subject is no list's end
        ("Never go into the bedroom, the cot is in there and the door creaks.",
         "Never go into the bedroom.", "remark", "the cot is in there and the door creaks"),
        ("NEVER open the front door. the twins wil be straight out", "Never open the front door.",
         "remark", "the twins wil be straight out"),
    ],
)  # fmt: skip
def test_a_reason_naming_nothing_of_the_scene_is_set_aside(offline, sentence, without, kind,
                                                           clause):  # fmt: skip
    t = offline(sentence)
    assert t.formula == offline(without).formula
    assert t.set_aside == ((kind, clause),)
    answer = t.to_dict()["set_aside"]
    assert [(a["kind"], a["text"]) for a in answer] == [(kind, clause)]
    assert "outside the scene and states no rule" in answer[0]["note"]
    assert t.sentence == sentence and t.constraint.sentence == sentence
    assert offline(without).set_aside == ()


@pytest.mark.parametrize(
    ("sentence", "unknown"),
    [("Never touch the baby.", "the baby"), ("Because the kids are asleep.", "the kids")],
)
def test_the_only_clause_naming_nothing_of_the_scene_is_refused(offline, sentence, unknown):
    with pytest.raises(GroundingError) as caught:
        offline(sentence)
    assert caught.value.expression == unknown


@pytest.mark.parametrize(
    ("sentence", "unknown"),
    [
        ("Go to the kitchen so that you don't wake the baby.", "the baby"),  # a negation
        ("Go to the kitchen because you must feed the goldfish.", "the goldfish"),  # must
        ("Go to the kitchen, and never feed the goldfish.", "the goldfish"),  # no marker
        ("Go to the kitchen, the goldfish should never be fed.", "the goldfish"),
        ("Stay out of the bedroom until the baby is asleep.", "the baby"),  # a rule's cue
        ("If the baby is asleep, so never open the fridge.", "the baby"),  # a condition first
        ("Ah, the baby must sleep, so never open the fridge.", "the baby"),  # an obligation
        ("Never open the fridge. Keep the baby in mind.", "the baby"),  # a rule of its own
        ("Never open the fridge. The baby must not be woken.", "The baby"),
        ("Stay out of the kitchen. Keep off the settee.", "the settee"),  # a name missed?
        ("Stay out of the kitchen. The settee is off limits.", "The settee"),
    ],
)
def test_a_clause_naming_nothing_of_the_scene_is_never_read_silently(offline, sentence, unknown):
    # beside things of the scene, it stays as words; a reading without it is offered, said so,
    # and never enforced without a person's pick (or the sentence is refused)
    try:
        t = offline(sentence)
    except OutOfGrammarError:
        return
    assert ("unnamed", unknown) in t.set_aside and not t.settled
    assert "names nothing in the scene" in t.to_dict()["set_aside"][-1]["note"]
    with pytest.raises(PickNeededError):
        Specification().accept(t)


def test_a_list_the_reason_may_have_swallowed_is_no_reason(offline):
    # a thing of the scene that ends a list stays: "the kitchen" is not dropped with the reason
    t = offline("Stay out of the bedroom because the kids are asleep and the kitchen.")
    assert "[b]" in t.lifted.text and not t.settled


def test_a_reason_naming_a_thing_of_the_scene_is_kept(offline):
    # "the milk" grounds: the reason is not set aside, so the sentence is read whole
    # (refused today) rather than shortened to "don't open the fridge"
    try:
        t = offline("Don't open the fridge because the milk is in the fridge.")
    except OutOfGrammarError as err:
        assert "[b] is in [a]" in str(err)
    else:
        assert t.set_aside == ()
        assert "milk" in str(t.formula)


@pytest.mark.parametrize(
    ("sentence", "without", "context"),
    [
        ("Check on the bedroom at least twice while I sleep.",
         "Check on the bedroom at least twice.", "while I sleep"),
        ("During the party, stay out of the bathroom.", "Stay out of the bathroom.",
         "During the party"),
        # a reason beside the context is set aside with it
        ("Keep going back to the kitchen to check on the kids while I sit with Mr Patel.",
         "Keep going back to the kitchen.", "while I sit with Mr Patel"),
    ],
)  # fmt: skip
def test_a_context_naming_nothing_is_set_aside(offline, sentence, without, context):
    t = offline(sentence)
    assert t.formula == offline(without).formula
    assert ("context", context) in t.set_aside
    note = next(a["note"] for a in t.to_dict()["set_aside"] if a["kind"] == "context")
    assert "the rule always holds" in note


def test_a_context_naming_a_thing_of_the_scene_is_a_condition(offline):
    t = offline("While the front door is open, don't go into the living room, the cat follows.")
    assert t.set_aside == (("remark", "the cat follows"),)
    assert equivalent(
        t.formula, offline("If the front door is open, never enter the living room").formula
    )
    # a context that swallowed a room of the scene is never set aside: its words stay, and
    # no reading of what is left settles without a pick
    tour = offline("During the tour our guide sees the living room, then visit the kitchen.")
    assert ("unnamed", "our guide sees") in tour.set_aside and not tour.settled


def test_cli_reads_back_what_was_set_aside(capsys):
    from safetychip.cli.translate import _human

    t = Translator(Vocabulary.from_scene(load_scene("apartment_1")), embedder=None)(
        "Stay out of the bedroom because the kids are asleep."
    )
    answer = {**t.to_dict(), "back_translation": "", "accepted_trace": "", "rejected_trace": ""}
    assert "set aside     as a reason: 'because the kids are asleep'" in _human(answer)


def test_the_notebook_card_shows_what_was_set_aside(offline):
    card = offline("Never enter the bathroom, the floor is wet.")._repr_html_()
    assert "set aside" in card and "as a remark: &#x27;the floor is wet&#x27;" in card
    assert "set aside" not in offline("Never enter the bathroom.")._repr_html_()


def test_lift_alone_sets_nothing_aside(offline):
    # no read-back would say so: the unknown thing of a reason is a grounding error
    with pytest.raises(GroundingError, match="the kids"):
        offline.lift("Will you stay out of the bedroom because the kids are asleep?")
    assert offline.lift("Will you stay out of the bedroom?").text == "Will you stay out of [a]?"


def test_an_emoji_joined_by_a_zero_width_joiner_is_no_hidden_text(offline):
    t = offline(
        "once you've been in the kitchen never go to the bedroom after \U0001f645\u200d\u2640\ufe0f"
    )
    assert (
        t.formula
        == offline("once you've been in the kitchen never go to the bedroom after").formula
    )
    with pytest.raises(SentenceError, match="ZERO WIDTH JOINER"):
        offline("never go to the kitch\u200den")


def test_a_list_is_read_one_thing_at_a_time(offline):
    t = offline(
        "The robot shall not open the fridge or the microwave prior to having entered the kitchen."
    )
    expected = (
        '(!"is_open(fridge)" W "agent_at(kitchen)") & (!"is_open(microwave)" W "agent_at(kitchen)")'
    )
    assert t.translator == "offline-slots"
    assert equivalent(t.formula, parse(expected)), str(t.formula)
    assert [str(c.formula) for c in t.parts] == [
        '!"is_open(fridge)" W "agent_at(kitchen)"',
        '!"is_open(microwave)" W "agent_at(kitchen)"',
    ]


def test_a_polite_question_is_no_permission(offline):
    # "can you shut it later?" asks for a reaction; it does not permit shutting once opened
    t = offline("If you ever open the fridge, can you shut it again later?")
    assert equivalent(t.formula, parse('G("is_open(fridge)" -> F!"is_open(fridge)")'))


def test_open_said_of_a_thing_with_a_switch_means_switch_on(offline):
    # the television has a switch and cannot be opened: "open the TV" can only mean one thing
    t = offline("If you open the TV, close it right away.")
    assert t.formula == parse('G("is_switchedon(television)" -> X[!]!"is_switchedon(television)")')
    assert t.corrections == (("open the television", "switch on the television"),)
    # what can be opened is opened
    assert offline("Never open the fridge.").formula == parse('G!"is_open(fridge)"')
    # what can be neither is refused by name
    with pytest.raises(VocabularyError, match="milk cannot be opened"):
        offline("Never open the milk.")


def test_a_remark_naming_nothing_is_left_out_when_the_whole_sentence_is_refused(offline):
    t = offline("While you're in the kitchen don't open the fridge, she's resting.")
    assert t.formula == offline("While you're in the kitchen, don't open the fridge.").formula
    assert not t.settled  # words left out to read it: a person checks
    # a remark that still asks something of the route is never left out
    route = offline(
        "Route: kitchen, bathroom, hallway. Any order you like, as long as you hit all three."
    )
    assert route.set_aside == () and not route.settled


#: Phrasings the former grammar and frame reader read that the slot reader does not (issue 34:
#: the rule pile was deleted): refused, or offered without settling, never enforced unpicked.
NOT_READ_NOW = {
    "The bathroom's out until you've been to the kitchen.",
    "Without going to the hallway first, don't go to the bedroom.",
    "Both the kitchen and the bedroom are compulsory. Bedroom only after kitchen, not before.",
    "Do the hallway and the bathroom on this round, both of them. Bathroom's not to be done "
    "ahead of the hallway.",
    "Sit in the living room till the television is on.",
    "Only in the bedroom you can open the wardrobe, anywhere else no.",
    "When you in the bedroom, don't on the computer.",
    "Leave the toaster alone until you've looked in on the bedroom.",
    "The kitchen's closed to you until you've cleared the hallway.",
    "Rotate: bathroom, bedroom, kitchen, repeat.",
    "Proceed hallway, then bedroom. Hallway one time only before bedroom, no re-entry. Negative "
    "bedroom first.",
    "No more than two trips into the bedroom please, I've just put the blanket on the bed.",
}


def _unsettled_or_refused(offline, sentence: str) -> bool:
    try:
        return not offline(sentence).settled
    except SafetyChipError:
        return True


@pytest.mark.parametrize(
    ("sentence", "plain"),
    [
        # no time asked for
        ("Pop into the bedroom at some point, whenever you like.", "Go to the bedroom."),
        ("Sometime you must go to the living room, when does not matter.", "Go to the living room."),
        ("Please go to the kitchen sometime in the day, it is not important when.",
         "Go to the kitchen."),
        ("Both the kitchen and the bathroom have to be visited before you're done; the sequence "
         "is immaterial.", "Go to the kitchen and the bathroom."),
        ("By home time I'd like you to have visited the hallway.", "Go to the hallway."),
        # counts as other Englishes say them
        ("Minimal two times you must go to the kitchen.", "Go to the kitchen at least twice."),
        ("Hit the kitchen twice at minimum.", "Go to the kitchen at least twice."),
        ("Go through the hallway a couple of times at least.", "Go to the hallway at least twice."),
        ("In the maximum 3 times you can enter in the bathroom.",
         "Enter the bathroom at most 3 times."),
        ("You can enter in the bathroom until 2 times only.", "Enter the bathroom at most twice."),
        ("Unless your in the kitchen, don't open the fridge.",
         "Unless you're in the kitchen, don't open the fridge."),
        # a thing with a switch named with "on" / "off" alone is its state
        ("Toaster on three times at most.", "Switch on the toaster at most three times."),
        ("When the stove's on, keep away from the kitchen.",
         "When the stove is switched on, don't go to the kitchen."),
        ("Leave the computer on until you are in the hallway.",
         "Keep the computer switched on until you are in the hallway."),
        # the door or lid of a thing that opens is the thing
        ("If you open the microwave door, shut the door again right after.",
         "If you open the microwave, close it immediately."),
        # a place that is "out" is off limits
        ("The bathroom's out until you've been to the kitchen.",
         "Don't go to the bathroom before you have been to the kitchen."),
        # the place, or the condition, put first
        ("Into the bedroom you may go only after the hallway.",
         "Don't go to the bedroom before you have been to the hallway."),
        ("In the living room you stay until the lamp is on.",
         "Stay in the living room until the lamp is switched on."),
        ("Without going to the hallway first, don't go to the bedroom.",
         "Don't go to the bedroom before you have been to the hallway."),
        ("Except in the bathroom, don't touch the hair dryer anywhere.",
         "Don't touch the hair dryer unless you are in the bathroom."),
        # other slips: "then" for "than", "maximally", "any sequence"
        ("Go to the kitchen more then twice.", "Go to the kitchen at least three times."),
        ("Maximally 2 times open the fridge.", "Open the fridge at most twice."),
        ("Go to the kitchen and the bedroom (any sequence).", "Go to the kitchen and the bedroom."),
    ],
)  # fmt: skip
def test_ordinary_phrasings_read_as_their_plain_forms(offline, sentence, plain):
    if sentence in NOT_READ_NOW:
        assert _unsettled_or_refused(offline, sentence)
        return
    # the plain form's reading is the first candidate, or among those of a set that waits
    want = offline(plain).formula
    t = offline(sentence, keep_all=True)
    assert any(equivalent(c.formula, want) for c in t.candidates), sentence
    assert equivalent(t.formula, want) or not t.settled


def test_a_remark_naming_things_of_the_scene_is_never_dropped_silently(offline):
    sentence = (
        "No more than two trips into the bedroom please, I've just put the blanket on the bed."
    )
    assert _unsettled_or_refused(offline, sentence)


@pytest.mark.parametrize(
    ("sentence", "plain", "aside"),
    [
        ("Never switch the hair dryer on, its got a loose wire.", "Never switch on the hair dryer.",
         ("remark", "its got a loose wire")),
        ("Open the fridge twice at least so I know the seal works.",
         "Open the fridge at least twice.", ("reason", "so I know the seal works")),
        ("Switch on the television exactly twice, for the news and for the match.",
         "Switch on the television exactly twice.", ("reason", "for the news and for the match")),
        ("Don't leave the kitchen before the toaster is on; my sister needs to eat.",
         "Don't leave the kitchen before the toaster is switched on.",
         ("remark", "my sister needs to eat")),
    ],
)  # fmt: skip
def test_remarks_of_purpose_and_of_others_are_set_aside(offline, sentence, plain, aside):
    t = offline(sentence)
    assert equivalent(t.formula, offline(plain).formula)
    assert aside in t.set_aside


@pytest.mark.parametrize(
    ("sentence", "plain"),
    [
        # an ordered visit told in pieces
        ("Both the kitchen and the bedroom are compulsory. Bedroom only after kitchen, not before.",
         "Visit the kitchen and the bedroom, but not the bedroom before the kitchen."),
        ("Do the hallway and the bathroom on this round, both of them. Bathroom's not to be done "
         "ahead of the hallway.",
         "Visit the hallway and the bathroom, but not the bathroom before the hallway."),
        ("The kitchen must be visited before the bedroom; I need both.",
         "Visit the kitchen and the bedroom, but not the bedroom before the kitchen."),
        ("You are to visit the hallway and the kitchen, but on no account the kitchen before the "
         "hallway.", "Visit the hallway and the kitchen, but not the kitchen before the hallway."),
        # a strictly ordered visit with its "once" said other ways
        ("Visit the bathroom exactly once before the kitchen, and the kitchen is forbidden before "
         "the bathroom.",
         "Go to the bathroom once, then the kitchen; not the kitchen first, and don't go back "
         "into the bathroom in between."),
        ("Proceed hallway, then bedroom. Hallway one time only before bedroom, no re-entry. "
         "Negative bedroom first.",
         "Go to the hallway once, then the bedroom; not the bedroom first, and don't go back "
         "into the hallway in between."),
        # a count said again for a second thing with its verb left out
        ("Go to the kitchen at least 2 times and to the bathroom at least once.",
         "Go to the kitchen at least twice, and go to the bathroom at least once."),
        ("Enter the bedroom no fewer than two times, the hallway no fewer than three.",
         "Enter the bedroom at least twice, and enter the hallway at least three times."),
        # waiting and holding
        ("Sit in the living room till the television is on.",
         "Stay in the living room until the television is switched on."),
        ("Hang onto the mug till you're in the kitchen, don't put it down.",
         "Keep holding the mug until you are in the kitchen."),
        # state conditions and "only"
        ("Only in the bedroom you can open the wardrobe, anywhere else no.",
         "Don't open the wardrobe unless you are in the bedroom."),
        ("During you are in the bathroom, it is forbidden to open the bathroom cabinet.",
         "While you are in the bathroom, don't open the bathroom cabinet."),
        ("When robot holds the knife, do not enter the living room.",
         "While you are holding the knife, don't go into the living room."),
        ("When you in the bedroom, don't on the computer.",
         "While you are in the bedroom, don't switch on the computer."),
        # precedence said other ways
        ("Leave the toaster alone until you've looked in on the bedroom.",
         "Don't touch the toaster before you have been to the bedroom."),
        ("First when you have been in the bathroom, you may switch on the hair dryer.",
         "Don't switch on the hair dryer before you have been to the bathroom."),
        ("The kitchen's closed to you until you've cleared the hallway.",
         "Don't go to the kitchen before you have been to the hallway."),
        # a door that stays shut is a state, never a room put off limits
        ("The front door stays shut until you've checked the bedroom.",
         "Keep the front door closed until you have been to the bedroom."),
        # responses told tersely, and bounds of steps said other ways
        ("Front door opened, front door closed within two steps.",
         "Whenever the front door is opened, close it within two steps."),
        ("Toaster on, toaster off within 3 steps.",
         "Whenever the toaster is switched on, switch it off within 3 steps."),
        ("When you switch on the hair dryer, in not more than 3 steps switch it off.",
         "Whenever the hair dryer is switched on, switch it off within 3 steps."),
        # patrols, and a prohibition said again for emphasis
        ("Rotate: bathroom, bedroom, kitchen, repeat.",
         "Keep visiting the bathroom, the bedroom and the kitchen."),
        ("Never pick up the knife. Not once, not ever.", "Never pick up the knife."),
    ],
)  # fmt: skip
def test_phrasings_of_other_writers_read_as_their_plain_forms(offline, sentence, plain):
    if sentence in NOT_READ_NOW:
        assert _unsettled_or_refused(offline, sentence)
        return
    # the plain form's reading is the first candidate, or among those of a set that waits
    want = offline(plain).formula
    t = offline(sentence, keep_all=True)
    assert any(equivalent(c.formula, want) for c in t.candidates), sentence
    assert equivalent(t.formula, want) or not t.settled


def test_a_likeness_naming_nothing_of_the_scene_is_set_aside(offline):
    t = offline("Come back to the bedroom at least twice, like returning to your mat.")
    assert equivalent(t.formula, offline("Go to the bedroom at least twice.").formula)
    assert ("unnamed", "your mat") in t.set_aside and not t.settled
