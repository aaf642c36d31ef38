"""The chat interface itself: requests, usage, offline stand-ins and the cache modes."""

from __future__ import annotations

import pytest

from safetychip.errors import LLMUsageError
from safetychip.llm import (
    CacheMode,
    ChatRequest,
    Completion,
    Message,
    ScriptedModel,
    StandInModel,
    Usage,
)


def test_request_normalises_equal_inputs_equally():
    forms = [
        "Open the fridge",
        [("user", "Open the fridge")],
        [{"role": "user", "content": "Open the fridge"}],
        [Message("user", "Open the fridge")],
    ]
    requests = {repr(ChatRequest.build(form, temperature=0, stop="x")) for form in forms}
    assert len(requests) == 1
    assert ChatRequest.build("a", temperature=1).temperature == 1.0


@pytest.mark.parametrize(
    ("messages", "options", "message"),
    [
        ([], {}, "a chat request needs at least one message"),
        ([{"role": "user"}], {}, "exactly the keys 'role' and 'content', got ['role']"),
        ([{"role": "user", "content": "x", "name": "bob"}], {}, "got ['content', 'name', 'role']"),
        ([("", "x")], {}, "role must be a non-empty string and its content a string, got role=''"),
        ([("user", None)], {}, "content of type NoneType"),
        (["user"], {}, "a message is a (role, content) pair or a mapping, got str"),
        ("hi", {"max_tokens": 0}, "max_tokens must be a positive integer, got 0"),
    ],
)
def test_malformed_requests_are_refused(messages, options, message):
    with pytest.raises(LLMUsageError) as caught:
        StandInModel(lambda _: "").complete(messages, **options)
    assert message in str(caught.value)


def test_stand_in_labels_every_completion_and_counts_calls():
    seen = []

    def rules(messages):
        seen.append(messages)
        return "no" if "knife" in messages[-1].content else "yes"

    llm = StandInModel(rules, name="rule-based-stand-in")
    replies = [llm.complete(text, temperature=1.5) for text in ["grab the knife", "grab the cup"]]
    assert replies == [
        Completion("no", "rule-based-stand-in", Usage(0, 0), stand_in=True),
        Completion("yes", "rule-based-stand-in", Usage(0, 0), stand_in=True),
    ]
    assert seen[0] == (Message("user", "grab the knife"),)
    assert (llm.usage.calls, llm.usage.total_tokens) == (2, 0)
    llm.usage.reset()
    assert llm.usage.calls == 0


def test_stand_in_cuts_at_the_earliest_stop_sequence():
    llm = StandInModel(lambda _: "walk; grab. done")
    assert llm.complete("go", stop=[".", ";"]).text == "walk"
    assert llm.complete("go", stop=["!"]).text == "walk; grab. done"


def test_stand_in_function_must_return_text():
    with pytest.raises(
        LLMUsageError, match=r"^stand-in 'offline-stand-in' must return a str, its "
    ):
        StandInModel(lambda _: 42).complete("go")


def test_scripted_model_records_requests_and_runs_out():
    llm = ScriptedModel(["one"])
    assert llm.complete([("system", "be brief"), ("user", "count")], max_tokens=3).stand_in
    assert llm.requests == [
        ChatRequest((Message("system", "be brief"), Message("user", "count")), max_tokens=3)
    ]
    with pytest.raises(LLMUsageError, match=r"^scripted-stand-in ran out after 1 replies"):
        llm.complete("again")


@pytest.mark.parametrize("value", ["", "r", "play", 3])
def test_unknown_cache_mode_lists_the_choices(value):
    with pytest.raises(LLMUsageError, match=r"choose one of record, replay, auto$"):
        CacheMode.parse(value)
