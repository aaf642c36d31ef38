"""Referring-expression recognition, offline and by a (scripted) language model."""

from __future__ import annotations

import pytest

from safetychip.envs import load_scene
from safetychip.errors import LLMTimeoutError, TranslationReplyError
from safetychip.llm import ScriptedModel, StandInModel
from safetychip.translate import LLMRecognizer, Vocabulary, load_vocabulary, recognize
from safetychip.translate._recognize import remarks

APARTMENT_1 = Vocabulary.from_scene(load_scene("apartment_1"))


def spans(sentence, vocabulary):
    return [(e.text, e.candidates) for e in recognize(sentence, vocabulary)]


def test_multiword_names_longest_first():
    v = APARTMENT_1
    assert spans("Never put the book on the book shelf in the living room.", v) == [
        ("the book", ("book",)),
        ("the book shelf", ("book_shelf",)),
        ("the living room", ("living_room",)),
    ]
    assert spans("Switch off the living room light.", v) == [
        ("the living room light", ("living_room_light",))
    ]


def test_written_together_or_apart():
    v = load_vocabulary("spot_demo")
    assert spans("Put it in the mailbox", v) == [("the mailbox", ("mail_box",))]
    assert spans("Put it in the mail box", v) == [("the mail box", ("mail_box",))]
    assert spans("Leave the bookshelf alone", v) == [("the bookshelf", ("book_shelf",))]
    w = Vocabulary.from_names(["mailbox", "bookshelf"])
    assert spans("the mail box and the book shelf", w) == [
        ("the mail box", ("mailbox",)),
        ("the book shelf", ("bookshelf",)),
    ]


def test_plurals_articles_and_synonyms():
    v = APARTMENT_1
    assert spans("Don't touch the knives or a TV", v) == [
        ("the knives", ("knife",)),
        ("a TV", ("television",)),
    ]
    assert spans("Never use the coffee maker", v) == [("the coffee maker", ("coffee_machine",))]
    assert spans("Sit on the couch", v) == [("the couch", ("sofa",))]
    # words of other Englishes: "the CR" (comfort room) and "the sala" in the Philippines
    assert spans("Go to the CR, then the parlour, the sala and the ref", v) == [
        ("the CR", ("bathroom",)),
        ("the parlour", ("living_room",)),
        ("the sala", ("living_room",)),
        ("the ref", ("fridge",)),
    ]


def test_a_class_name_and_room_qualifier():
    v = APARTMENT_1
    assert spans("Never touch the sink", v) == [("the sink", ("sink",))]
    assert spans("Never open the windows", v) == [("the windows", ("window",))]
    assert spans("Never open the bedroom window", v) == [
        ("the bedroom window", ("bedroom_window",))
    ]
    assert spans("Never open the window in the living room", v) == [
        ("the window in the living room", ("living_room_window",))
    ]
    assert spans("Never touch the sink in the bathroom", v) == [
        ("the sink in the bathroom", ("bathroom_sink",))
    ]
    assert spans("Never touch the kitchen sink", v) == [("the kitchen sink", ("kitchen_sink",))]


def test_unknown_noun_phrases_are_returned_without_candidates():
    v = APARTMENT_1
    assert spans("Never feed the cat before the next step", v) == [("the cat", ())]
    assert spans("Keep your hands off the phone at the same time", v) == [("the phone", ("phone",))]
    assert spans("Never ever", v) == []


def test_offsets_point_into_the_sentence():
    v = load_vocabulary("spot_demo")
    sentence = "Grab the book, then the TV."
    for e in recognize(sentence, v):
        assert sentence[e.start : e.end] == e.text


def test_llm_recognizer_reads_the_reply_and_sends_our_prompt():
    llm = ScriptedModel(["Sure.\nExpressions: the tea kettle | the pantry"])
    found = LLMRecognizer(llm)("Don't switch on the tea kettle in the pantry")
    assert [(e.text, e.start) for e in found] == [("the tea kettle", 16), ("the pantry", 34)]
    system = llm.requests[0].messages[0].content
    assert "referring expression" in system and "Expressions: none" in system
    assert LLMRecognizer(ScriptedModel(["Expressions: none"]))("Be careful") == []


def test_llm_recognizer_retries_then_quotes_the_reply():
    llm = ScriptedModel(["the kettle", "Expressions: the teapot", "I think: the kettle"])
    with pytest.raises(TranslationReplyError) as caught:
        LLMRecognizer(llm, max_attempts=3)("Never touch the kettle")
    err = caught.value
    assert err.attempts == 3 and err.reply == "I think: the kettle"
    assert "in 3 attempts; last reply: 'I think: the kettle'" in str(err)
    assert "'the teapot' does not occur in the utterance" in llm.requests[2].messages[-1].content
    assert len(llm.requests) == 3


def test_llm_recognizer_recovers_after_a_bad_reply():
    llm = ScriptedModel(["no idea", "Expressions: the kettle"])
    rec = LLMRecognizer(llm)
    assert [e.text for e in rec("Never touch the kettle")] == ["the kettle"]
    assert rec.stand_in is True


def test_llm_recognizer_passes_api_errors_through():
    def hang(messages):
        raise LLMTimeoutError("model 'x' at http://127.0.0.1:9/v1 timed out after 1 s")

    with pytest.raises(LLMTimeoutError, match="timed out"):
        LLMRecognizer(StandInModel(hang))("Never touch the kettle")


def test_bad_max_attempts():
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        LLMRecognizer(ScriptedModel([]), max_attempts=0)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The agent shall reach the hallway.", ["the hallway"]),
        ("The robot is to remain in the living room.", ["the living room"]),
        (
            "When the agent is in the bedroom, it shall not switch on the lamp.",
            ["the bedroom", "the lamp"],
        ),
        ("The number of visits to the bedroom shall be exactly three.", ["the bedroom"]),
        ("Take a trip to the living room.", ["the living room"]),
        ("Check the bedroom during the round.", ["the bedroom"]),
        ("Keep doing laps of the hallway, that's the job.", ["the hallway"]),
        ("From the moment the front door is opened, stay out.", ["the front door"]),
        (
            "Each activation of the radio shall be followed by its deactivation within two steps.",
            ["the radio"],
        ),
        ("You're allowed in the kitchen, just not more than a couple of times.", ["the kitchen"]),
        ("Don't open the microwave again, twice is the absolute max.", ["the microwave"]),
        ("Never go in the bathroom, if that's alright.", ["the bathroom"]),
        ("Stay out of the bedroom for the remainder of the run.", ["the bedroom"]),
        ("Enter the kitchen, and never again after its departure therefrom.", ["the kitchen"]),
        ("If you switch on the kettle, switch it off in the 3 next steps.", ["the kettle"]),
        ("Keep your mitts off the candle.", ["the candle"]),
        ("Make the patrol between the bedroom and the hallway.", ["the bedroom", "the hallway"]),
        ("Never go in the kitchen. That is the rule. #rules", ["the kitchen"]),
        ("Switch the stove off within four steps at the latest.", ["the stove"]),
        ("Don't go back to the kitchen in the middle.", ["the kitchen"]),
        ("Keep returning to the bathroom, on a continuous basis.", ["the bathroom"]),
        (
            "Keep a hold of the umbrella till you're in the bathroom.",
            ["the umbrella", "the bathroom"],
        ),
        ("Doing rounds of the hallway the entire time.", ["the hallway"]),
        (
            "If you opened the fridge, after that please never open the microwave.",
            ["the fridge", "the microwave"],
        ),
    ],
)
def test_words_that_refer_to_nothing_are_left_alone(sentence, expected):
    v = Vocabulary.from_scene(load_scene("apartment_2"))
    assert [e.text for e in recognize(sentence, v)] == expected


def test_an_unknown_object_is_still_an_expression():
    # the closed set of non-referring heads does not swallow real things
    assert spans("Never touch the baby.", APARTMENT_1) == [("the baby", ())]
    assert spans("The robot must not touch the baby.", APARTMENT_1) == [("the baby", ())]
    # a counting word before the head is no reason to drop the phrase: its head is "wire"
    assert spans("Never touch the trip wire.", APARTMENT_1) == [("the trip wire", ())]
    assert spans("Go to the kitchen, and do that", APARTMENT_1) == [("the kitchen", ("kitchen",))]


def test_an_event_that_ends_is_no_thing():
    assert spans("Loop [a] until the game ends.".replace("[a]", "the kitchen"), APARTMENT_1) == [
        ("the kitchen", ("kitchen",))
    ]
    assert spans("Never touch the game board.", APARTMENT_1) == [("the game board", ())]


def test_non_referring_heads_are_a_small_closed_set():
    from safetychip.translate._recognize import NON_REFERRING

    assert set(NON_REFERRING) == {"agent", "counting", "time", "order"}
    assert {"robot", "agent", "system", "it", "you"} <= NON_REFERRING["agent"]
    words = set().union(*NON_REFERRING.values())
    assert len(words) < 150
    # no name of either scene is a non-referring head
    for scene in ("apartment_1", "apartment_2"):
        names = Vocabulary.from_scene(load_scene(scene)).names
        assert not words & {w for n in names for w in n.split("_")}


@pytest.mark.parametrize(
    ("sentence", "kind", "clause"),
    [
        ("Stay out of the bedroom because the kids are asleep.", "reason",
         "because the kids are asleep"),
        ("Go into the bathroom once, 'cause the floor was just mopped.", "reason",
         "'cause the floor was just mopped"),
        ("Keep the window shut so that the cat stays in", "reason", "so that the cat stays in"),
        ("Don't touch the stove, it's a fire hazard.", "remark", "it's a fire hazard"),
        ("Don't touch the stove — my grandmother hates that.", "remark",
         "my grandmother hates that"),
        ("Check the bedroom twice to see how the baby is doing.", "reason",
         "to see how the baby is doing"),
        ("Stay out of the bedroom (the kids are asleep) and the hall.", "remark",
         "the kids are asleep"),
        # the first clause after a comma holds the rule; the second is the remark
        ("If the front door's opened, it's to be shut within 2 steps, the dog's an escape "
         "artist.", "remark", "the dog's an escape artist"),
        # a question the speaker asks is no condition
        ("Pop into the bathroom at least twice, I want to know if the floor's still wet.",
         "remark", "I want to know if the floor's still wet"),
    ],
)  # fmt: skip
def test_remarks_are_found_with_their_spans(sentence, kind, clause):
    (found,) = remarks(sentence)
    assert (found.kind, found.text) == (kind, clause)
    assert clause in sentence[found.start : found.end]


@pytest.mark.parametrize(
    "sentence",
    [
        "Never touch the baby.",
        "Go to the kitchen because you must feed the cat.",
        "Go to the kitchen so that you don't wake the baby.",
        "Go to the kitchen, the bedroom must be avoided.",
        "Go to the kitchen, then the bedroom.",
        "Close the door as soon as you open it.",
        "Go to the kitchen to get the milk.",
        "Stay out of the bedroom since you have been in the bathroom.",
        "Stay in the hall, the kids are asleep until 9.",
        "Because the kids are asleep.",
        "Don't touch the stove — turn the baby monitor off.",  # an instruction after a dash
        "Don't touch the stove, switch the baby monitor off.",
        "Since the guests left, go to the kitchen.",  # a leading "since" is a time
        "Stay out of the bedroom (the kids must not be woken).",
    ],
)
def test_no_clause_with_a_rule_is_a_remark(sentence):
    assert remarks(sentence) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "Opening the fridge means you have to close it later.",  # an obligation, not a purpose
        "You need to check the kids.",
        "Go to the kitchen to close it later.",  # a timing
        "Go to the kitchen to switch it off right away.",
    ],
)
def test_to_of_an_obligation_or_with_a_timing_is_no_purpose(sentence):
    assert remarks(sentence) == []
