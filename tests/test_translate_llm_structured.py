"""The translator's LLM path asks for structured output: the recogniser for
``{"expressions": [spans of the sentence]}``, the lifted translator for ``{"formula": …}``
restricted to the known pattern shapes over the sentence's predicates and letters. Against
the fake OpenAI-compatible server on 127.0.0.1 (``tests/_llm_servers.py``); a model that
still answers prose or invalid JSON ends in a clear refusal."""

from __future__ import annotations

import json
import re
from itertools import permutations

import pytest

from safetychip.errors import TranslationReplyError
from safetychip.llm import OpenAIChatModel, OpenAIEndpoint
from safetychip.ltl import PATTERNS, Not, ap, to_str
from safetychip.translate import LLMRecognizer, LLMTranslator
from safetychip.translate._llm import _COUNTED, _COUNTS, _SHAPES, MAX_TOKENS, formula_schema
from safetychip.translate._vocabulary import PREDICATES
from tests._llm_servers import RawServer, completion_body, send

pytest.importorskip("openai")


@pytest.fixture
def endpoint():
    """``endpoint(*texts)``: a llama-cpp-python-style model whose fake server answers the
    texts in turn (the last one repeated); yields ``(model, requests)``."""
    servers: list[RawServer] = []

    def start(*texts: str):
        replies = list(texts)

        def answer(server, connection, request):
            send(connection, completion_body(replies.pop(0) if len(replies) > 1 else replies[0]))

        servers.append(RawServer(answer))
        server = servers[-1]
        llm = OpenAIChatModel("tiny", OpenAIEndpoint(server.url, api_key="k"),
                              structured="json_object")  # fmt: skip

        def requests() -> list[dict]:
            return [json.loads(r.body) for r in server.requests]

        return llm, requests

    yield start
    for server in servers:
        server.stop()


def test_the_lifted_translator_sends_the_schema_and_reads_the_json_formula(endpoint):
    llm, requests = endpoint('{"formula": "W ! agent_at(a) agent_at(b)"}')
    result = LLMTranslator(llm)("do not enter [a] before [b]")
    assert str(result.formula) == '!"agent_at(a)" W "agent_at(b)"'
    assert result.pattern == "not_before"
    (request,) = requests()
    assert request["max_tokens"] == MAX_TOKENS
    assert request["response_format"] == {
        "type": "json_object",
        "schema": formula_schema({"a", "b"}, PREDICATES),
    }


def test_a_prose_reply_is_retried_with_the_schema_then_refused(endpoint):
    llm, requests = endpoint("Sure! The robot should never pick it up.")
    with pytest.raises(TranslationReplyError, match=r"tiny gave no readable formula.*never pick"):
        LLMTranslator(llm, max_attempts=2)("never pick up [a]")
    sent = requests()
    assert len(sent) == 2 and all("schema" in r["response_format"] for r in sent)


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ('{"formula": "G ! is_grabbed(', "not valid JSON"),  # cut at max_tokens
        ('{"ltl": "G ! is_grabbed(a)"}', 'without a "formula" string'),
        ('{"formula": "G ! is_grabbed(b)"}', "not a placeholder"),
    ],
)
def test_invalid_json_is_a_clear_refusal(endpoint, reply, why):
    llm, _ = endpoint(reply)
    with pytest.raises(TranslationReplyError, match=re.escape(why)) as caught:
        LLMTranslator(llm, max_attempts=1)("never pick up [a]")
    assert caught.value.reply == reply


def test_the_recognizer_asks_for_spans_of_the_sentence_and_reads_them(endpoint):
    llm, requests = endpoint('{"expressions": ["the fridge", "the kitchen"]}')
    found = LLMRecognizer(llm)("Open the fridge before the kitchen")
    assert [(e.text, e.start) for e in found] == [("the fridge", 5), ("the kitchen", 23)]
    (request,) = requests()
    schema = request["response_format"]["schema"]["properties"]["expressions"]
    assert {"the fridge", "the kitchen", "Open the fridge before"} <= set(schema["items"]["enum"])
    assert all(s in "Open the fridge before the kitchen" for s in schema["items"]["enum"])


@pytest.mark.parametrize("reply", ["The fridge and the kitchen.", '{"expressions": "fridge"}'])
def test_the_recognizer_refuses_prose_and_malformed_json(endpoint, reply):
    llm, requests = endpoint(reply)
    with pytest.raises(TranslationReplyError, match="no usable list of referring expressions"):
        LLMRecognizer(llm, max_attempts=2)("Open the fridge")
    assert len(requests()) == 2


def test_the_schema_admits_every_pattern_shape_over_the_letters_and_nothing_else():
    shape = formula_schema({"a", "b"})["properties"]["formula"]["pattern"]
    atoms = [ap("agent_at(a)"), ap("is_in(b,a)"), Not(ap("is_open(b)"))]
    instances = [PATTERNS["never"].build(p) for p in atoms]
    instances += [PATTERNS[n].build(p, q) for n in _SHAPES[1:] for p, q in permutations(atoms, 2)]
    instances += [PATTERNS[n].build(k, p) for n in _COUNTED for k in _COUNTS for p in atoms]
    assert all(re.fullmatch(shape, to_str(f, "prefix")) for f in instances)
    for outside in ("G ! agent_at(c)", "G ! holds(a)", "G agent_at(a)", "never agent_at(a)",
                    "G ! agent_at(a) and more"):  # fmt: skip
        assert re.fullmatch(shape, outside) is None, outside


def test_llama_cpp_compiles_both_schemas_to_grammars():
    grammar = pytest.importorskip("llama_cpp.llama_grammar")
    from safetychip.translate._recognize import _schema

    for schema in (formula_schema({"a", "b"}), _schema("Open the fridge, then the door.")):
        text = grammar.json_schema_to_gbnf(json.dumps(schema))
        assert "root ::=" in text and "\\ " not in text  # an escaped space breaks the server


def test_a_span_named_twice_is_one_expression_but_a_phrase_written_twice_is_two(endpoint):
    llm, _ = endpoint('{"expressions": ["the phone", "the phone"]}')
    assert [e.start for e in LLMRecognizer(llm)("Never pick up the phone.")] == [14]
    assert [e.start for e in LLMRecognizer(llm)("Put the phone by the phone")] == [4, 17]
