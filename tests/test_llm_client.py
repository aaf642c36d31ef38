"""The OpenAI client, record/replay cache and OpenAI embedder against a loopback server."""

from __future__ import annotations

import hashlib
import json
import socket
import sqlite3
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from safetychip.errors import (
    CacheFileError,
    LLMConnectionError,
    LLMResponseError,
    LLMStatusError,
    LLMTimeoutError,
    LLMUsageError,
    MissingDependencyError,
    ReplayMissError,
)
from safetychip.llm import (
    CachedModel,
    Completion,
    OpenAIChatModel,
    OpenAIEmbedder,
    OpenAIEndpoint,
    Usage,
)

pytest.importorskip("openai")

MODEL = "stub-model"


@dataclass
class Reply:
    """One scripted answer; the default is a well-formed reply to the request."""

    status: int = 200
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    hang: bool = False


@dataclass
class Received:
    path: str
    body: dict
    headers: dict[str, str]
    at: float


class StubServer:
    """An OpenAI-compatible server on 127.0.0.1 answering ``/v1/chat/completions`` and
    ``/v1/embeddings`` from ``script``, then with well-formed replies."""

    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.received: list[Received] = []
        self.text = "Hello from the stub."
        self.release = threading.Event()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def endpoint(self, **options) -> OpenAIEndpoint:
        settings = {"api_key": "test-key", "timeout": 2.0, "max_retries": 2, "backoff": 0.001}
        return OpenAIEndpoint(self.url, **{**settings, **options})

    def chat_model(self, **options) -> OpenAIChatModel:
        return OpenAIChatModel(MODEL, self.endpoint(**options))

    def _answer(self, path: str, body: dict) -> Reply:
        reply = self.script.popleft() if self.script else Reply()
        if reply.body is not None or reply.hang:
            return reply
        if path == "/v1/chat/completions":
            words = sum(len(message["content"].split()) for message in body["messages"])
            data = {
                "id": "chatcmpl-stub",
                "object": "chat.completion",
                "model": body["model"] + "-2026",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": self.text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": words, "completion_tokens": len(self.text.split())},
            }
        elif path == "/v1/embeddings":
            items = [
                {"object": "embedding", "index": i, "embedding": stub_vector(text)}
                for i, text in enumerate(body["input"])
            ]
            data = {"object": "list", "data": items[::-1], "model": body["model"]}
        else:
            return Reply(404, json.dumps({"error": {"message": f"no route {path}"}}))
        return Reply(reply.status, json.dumps(data, ensure_ascii=False), reply.headers)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                body = json.loads(raw)
                headers = {name.lower(): value for name, value in self.headers.items()}
                stub.received.append(Received(self.path, body, headers, time.monotonic()))
                reply = stub._answer(self.path, body)
                if reply.hang:
                    stub.release.wait(5)
                    return
                data = reply.body.encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler


def stub_vector(text: str) -> list[float]:
    """A deterministic, deliberately unnormalised 4-d vector."""
    return [float(len(text)), float(text.count("a")), float(text.count("e")), 1.0]


@pytest.fixture
def server():
    stub = StubServer()
    yield stub
    stub.stop()


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- the chat client ------------------------------------------------------------------------


def test_reply_text_usage_and_request_parameters(server):
    llm = server.chat_model()
    conversation = [
        {"role": "system", "content": "You are a careful robot."},
        {"role": "user", "content": "Pick up the phone"},
    ]
    reply = llm.complete(conversation, temperature=0.7, stop=["\n", "DONE"], max_tokens=20)
    assert reply == Completion("Hello from the stub.", "stub-model-2026", Usage(9, 4))
    assert not reply.stand_in
    sent = server.received[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer test-key"
    assert sent.body == {
        "model": MODEL,
        "messages": conversation,
        "temperature": 0.7,
        "stop": ["\n", "DONE"],
        "max_tokens": 20,
    }
    llm.complete("Put it down")
    assert "stop" not in server.received[1].body
    assert "max_tokens" not in server.received[1].body
    assert (llm.usage.calls, llm.usage.prompt_tokens, llm.usage.completion_tokens) == (2, 12, 8)


def test_configured_from_environment(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    assert OpenAIChatModel(MODEL).complete("hi").text == server.text
    assert server.received[0].headers["authorization"] == "Bearer env-key"


@pytest.mark.parametrize(("header", "value"), [("retry-after-ms", "200"), ("retry-after", "0.2")])
def test_429_then_success_honours_retry_after(server, header, value):
    server.script.append(Reply(429, '{"error": {"message": "slow down"}}', {header: value}))
    assert server.chat_model().complete("hi").text == server.text
    first, second = server.received
    assert second.at - first.at >= 0.2


def test_unreasonable_retry_after_falls_back_to_backoff(server):
    server.script.append(Reply(429, "{}", {"retry-after": "3600"}))
    start = time.monotonic()
    assert server.chat_model().complete("hi").text == server.text
    assert time.monotonic() - start < 1


def test_500_storm_exhausts_retries_with_exponential_backoff(server):
    server.script.extend(Reply(500, '{"error": {"message": "boom"}}') for _ in range(3))
    with pytest.raises(LLMStatusError) as caught:
        server.chat_model(max_retries=2, backoff=0.05).complete("hi")
    error = caught.value
    assert (error.status, error.attempts) == (500, 3)
    message = str(error)
    assert message.startswith(f"model 'stub-model' at {server.url} answered HTTP 500")
    assert "Internal Server Error (after 3 attempts)" in message
    assert "boom" in message
    gaps = np.diff([received.at for received in server.received])
    assert len(gaps) == 2
    assert gaps[0] >= 0.05
    assert gaps[1] >= 0.1


def test_client_error_is_not_retried(server):
    server.script.append(Reply(400, '{"error": {"message": "unknown model"}}'))
    with pytest.raises(LLMStatusError, match=r"HTTP 400 Bad Request \(after 1 attempt\)") as caught:
        server.chat_model().complete("hi")
    assert caught.value.attempts == 1
    assert "unknown model" in str(caught.value)
    assert len(server.received) == 1


def test_hang_hits_the_timeout(server):
    server.script.append(Reply(hang=True))
    start = time.monotonic()
    with pytest.raises(LLMTimeoutError) as caught:
        server.chat_model(timeout=0.3).complete("hi")
    assert time.monotonic() - start < 1.5
    assert isinstance(caught.value, TimeoutError)
    assert str(caught.value).startswith(
        f"model 'stub-model' at {server.url} timed out: no complete reply within its budget "
        "of 0.3 s for connecting, reading and retrying ("
    )
    assert len(server.received) == 1


def test_malformed_json_is_quoted(server):
    body = "<html>" + "x" * 500 + "</html>"
    server.script.append(Reply(body=body))
    with pytest.raises(LLMResponseError) as caught:
        server.chat_model().complete("hi")
    message = str(caught.value)
    assert message.startswith(f"model 'stub-model' at {server.url} sent a reply that is not a JSON")
    assert repr(body[:200]) + "…" in message
    assert body[:201] not in message


def test_json_without_a_message_is_malformed(server):
    server.script.append(Reply(body='{"choices": []}'))
    with pytest.raises(LLMResponseError, match=r"without choices\[0\]\.message\.content: "):
        server.chat_model().complete("hi")


def test_unreachable_endpoint():
    url = f"http://127.0.0.1:{unused_port()}/v1"
    llm = OpenAIChatModel(MODEL, OpenAIEndpoint(url, api_key="k", timeout=2))
    with pytest.raises(LLMConnectionError, match=f"^cannot reach model 'stub-model' at {url}: "):
        llm.complete("hi")


def test_missing_key_fails_at_first_call_not_before(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    llm = OpenAIChatModel(MODEL, OpenAIEndpoint(server.url))
    with pytest.raises(LLMUsageError, match=f"^no API key for {server.url}: set OPENAI_API_KEY"):
        llm.complete("hi")
    assert server.received == []


def test_missing_openai_package_names_the_install_command(server, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "openai", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'safetychip\[llm\]'"):
        server.chat_model().complete("hi")


# --- record / replay --------------------------------------------------------------------------


def test_record_then_replay_offline_byte_for_byte(server, tmp_path, monkeypatch):
    server.text = '  Línea 1\r\n\tΔ ✓ \u0000 "quoted" \\ trailing  \n'
    path = tmp_path / "notebook" / "llm.sqlite"
    recorder = CachedModel(server.chat_model(), path, mode="record")
    recorded = recorder.complete("Plan the task", temperature=0.2, stop="END")
    assert recorded.text == server.text
    url = server.url
    server.stop()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    offline = OpenAIChatModel(MODEL, OpenAIEndpoint(url))  # no key, no server
    player = CachedModel(offline, path, mode="replay")
    replayed = player.complete("Plan the task", temperature=0.2, stop="END")
    assert replayed == recorded
    assert replayed.text.encode() == server.text.encode()
    assert (player.usage.calls, offline.usage.calls) == (1, 0)


def test_replay_miss_names_model_and_message(server, tmp_path):
    path = tmp_path / "llm.sqlite"
    CachedModel(server.chat_model(), path, mode="record").complete("hi")
    player = CachedModel(server.chat_model(), path, mode="replay")
    with pytest.raises(ReplayMissError) as caught:
        player.complete("Put the salmon in the fridge and then close the door", temperature=0.0)
    message = str(caught.value)
    assert message.startswith(f"replay cache {path} holds no reply of model 'stub-model'")
    assert "'Put the salmon in the fridge and then…'" in message
    assert isinstance(caught.value, LookupError)
    assert len(server.received) == 1


def test_auto_mode_calls_once_per_distinct_request(server, tmp_path):
    llm = server.chat_model()
    cached = CachedModel(llm, tmp_path / "llm.sqlite", mode="AUTO")
    first = cached.complete("hi")
    assert cached.complete("hi") == first
    cached.complete("hi", temperature=0.5)
    cached.complete([("user", "hi")], max_tokens=5)
    assert len(server.received) == 3
    assert (cached.usage.calls, llm.usage.calls) == (4, 3)


def test_record_mode_always_calls_and_overwrites(server, tmp_path):
    path = tmp_path / "llm.sqlite"
    recorder = CachedModel(server.chat_model(), path, mode="record")
    recorder.complete("hi")
    server.text = "A newer answer."
    recorder.complete("hi")
    assert len(server.received) == 2
    assert CachedModel(recorder.model, path, mode="replay").complete("hi").text == server.text


def test_failed_call_leaves_no_row(server, tmp_path):
    path = tmp_path / "llm.sqlite"
    server.script.append(Reply(400, "{}"))
    with pytest.raises(LLMStatusError):
        CachedModel(server.chat_model(), path, mode="auto").complete("hi")
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM completions").fetchone() == (0,)


@pytest.mark.parametrize("mode", ["auto", "record", "replay"])
def test_corrupt_cache_file_is_named(server, tmp_path, mode):
    path = tmp_path / "llm.sqlite"
    path.write_bytes(b"not an sqlite database, just bytes\n" * 100)
    with pytest.raises(CacheFileError) as caught:
        CachedModel(server.chat_model(), path, mode=mode)
    assert str(caught.value).startswith(f"cannot use cache file {path}: file is not a database")


def test_malformed_row_is_named(server, tmp_path):
    path = tmp_path / "llm.sqlite"
    cached = CachedModel(server.chat_model(), path, mode="auto")
    cached.complete("hi")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE completions SET completion = '{\"text\": 1'")
        (key,) = db.execute("SELECT key FROM completions").fetchone()
        checksum = hashlib.sha256(f'{key}\n{{"text": 1'.encode()).hexdigest()
        db.execute("UPDATE completions SET checksum = ?", (checksum,))
    with pytest.raises(
        CacheFileError, match=f"^cache file {path}: entry {key[:12]}… holds a malformed reply"
    ):
        cached.complete("hi")


def test_replay_without_cache_file(server, tmp_path):
    path = tmp_path / "absent.sqlite"
    with pytest.raises(CacheFileError, match=f"^no cache file at {path}: run once with mode="):
        CachedModel(server.chat_model(), path, mode="replay")
    assert not path.exists()


# --- OpenAI embeddings ------------------------------------------------------------------------


def expected_rows(texts):
    rows = np.array([stub_vector(text) for text in texts], dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_openai_embedder_batches_normalises_and_caches(server, tmp_path):
    texts = ["salmon", "fridge", "salmon", "kitchen table"]
    path = tmp_path / "vectors.sqlite"
    embedder = OpenAIEmbedder("stub-embed", server.endpoint(), batch_size=2, cache_path=path)
    vectors = embedder.encode(texts)
    assert vectors.shape == (4, 4)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1, rtol=1e-6)
    np.testing.assert_allclose(vectors, expected_rows(texts), rtol=1e-6)
    assert [len(received.body["input"]) for received in server.received] == [2, 1]
    assert server.received[0].body["model"] == "stub-embed"

    assert embedder.encode("fridge").shape == (1, 4)
    reopened = OpenAIEmbedder("stub-embed", server.endpoint(), cache_path=path)
    np.testing.assert_array_equal(reopened.encode(texts), vectors)
    assert reopened.encode([]).shape == (0, 4)
    assert len(server.received) == 2


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"data": [{"index": 0}]}', r"stub-embed' at .* without data\[i\]\.embedding: "),
        (
            '{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 1, "embedding": [3]}]}',
            r"^OpenAIEmbedder\('stub-embed'\) did not return one vector of a common length for "
            r"each of 2 texts$",
        ),
    ],
)
def test_openai_embedder_malformed_reply(server, body, message):
    server.script.append(Reply(body=body))
    embedder = OpenAIEmbedder("stub-embed", server.endpoint())
    with pytest.raises(LLMResponseError, match=message):
        embedder.encode(["salmon", "fridge"])


def test_embedder_with_corrupt_cache_file(server, tmp_path):
    path = tmp_path / "vectors.sqlite"
    path.write_text("garbage " * 200)
    with pytest.raises(
        CacheFileError, match=f"^cannot use cache file {path}: file is not a database"
    ):
        OpenAIEmbedder("stub-embed", server.endpoint(), cache_path=path)
