"""The OpenAI client's limits: a total deadline per call, a size cap per reply, and typed
errors for every malformed field. Servers run on 127.0.0.1 only."""

from __future__ import annotations

import json
import threading
import time
import zlib

import pytest
from _llm_servers import completion_body, head, send

from safetychip.errors import LLMResponseError, LLMStatusError, LLMTimeoutError
from safetychip.llm import OpenAIChatModel, OpenAIEndpoint

pytest.importorskip("openai")

LIMIT = 2**20  # the reply size limit these tests configure: 1 MiB
PADDED = 64 * LIMIT  # a valid reply padded with JSON whitespace to 64 MiB


def chat_model(server, **options) -> OpenAIChatModel:
    settings = {"api_key": "test-key", "timeout": 5.0, "max_retries": 0, **options}
    return OpenAIChatModel("raw-model", OpenAIEndpoint(server.url, **settings))


# --- a total deadline per call ----------------------------------------------------------------

DRIP_INTERVAL = 0.05


@pytest.mark.parametrize("part", ["body", "headers and body"])
def test_a_dripping_server_is_stopped_at_the_deadline(serve, part):
    body = completion_body("walk to bathroom " * 10)
    whole = head(Content_Type="application/json", Content_Length=len(body)) + body
    dripped = body if part == "body" else whole
    # Each byte comes well within the 1 s read timeout, so a per-read timeout never fires:
    # without a deadline the call would last as long as the drip.
    assert len(dripped) * DRIP_INTERVAL > 10

    def drip(server, connection, request):
        if part == "body":
            connection.sendall(whole[: -len(body)])
        for byte in dripped:
            if server.stopping.wait(DRIP_INTERVAL):
                return
            connection.sendall(bytes([byte]))

    server = serve(drip)
    start = time.monotonic()
    with pytest.raises(LLMTimeoutError) as caught:
        chat_model(server, timeout=1.0).complete("Go to the bathroom")
    elapsed = time.monotonic() - start
    assert elapsed < 5
    message = str(caught.value)
    assert message.startswith(f"model 'raw-model' at {server.url} timed out: ")
    assert "budget of 1 s" in message
    reported = float(message.split(" s elapsed")[0].rsplit("(", 1)[1])
    assert 0.95 <= reported <= elapsed + 0.01


def test_retries_count_against_the_deadline(serve):
    def storm(server, connection, request):
        send(connection, b'{"error": {"message": "busy"}}', "503 Service Unavailable")

    server = serve(storm)
    llm = chat_model(server, timeout=1.0, max_retries=5, backoff=0.4, max_backoff=8)
    start = time.monotonic()
    with pytest.raises(LLMStatusError) as caught:
        llm.complete("hi")
    # waits of 0.4 and 0.8 s: the second would end past the deadline, so it is not taken
    assert time.monotonic() - start < 1.0
    assert caught.value.attempts == 2
    assert "(after 2 attempts; no time left for another within 1 s)" in str(caught.value)
    assert len(server.requests) == 2


# --- a size limit per reply -------------------------------------------------------------------


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    """A valid completion padded to 64 MiB with spaces, gzipped to about 64 KiB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [packer.compress(completion_body())]
    parts += [packer.compress(b" " * LIMIT) for _ in range(PADDED // LIMIT)]
    return b"".join(parts) + packer.flush()


@pytest.mark.parametrize("limit", [LIMIT, None])
def test_a_gzip_bomb_is_refused_while_decompressing(serve, gzip_bomb, limit):
    assert len(gzip_bomb) < LIMIT // 4

    def bomb(server, connection, request):
        send(connection, gzip_bomb, Content_Encoding="gzip")

    server = serve(bomb)
    options = {} if limit is None else {"max_reply_bytes": limit}
    with pytest.raises(LLMResponseError) as caught:
        chat_model(server, **options).complete("hi")
    shown = f"{limit or OpenAIEndpoint().max_reply_bytes:,}"
    assert str(caught.value) == (
        f"model 'raw-model' at {server.url} sent a reply larger than the limit of {shown} "
        "bytes (once decompressed); raise OpenAIEndpoint(max_reply_bytes=...) if replies "
        "this large are expected"
    )


def test_a_small_gzip_reply_is_decoded(serve):
    def small(server, connection, request):
        send(connection, zlib.compress(completion_body(), wbits=31), Content_Encoding="gzip")

    server = serve(small)
    assert chat_model(server, max_reply_bytes=LIMIT).complete("hi").text == "walk to bathroom"
    assert server.requests[0].headers["accept-encoding"] == "gzip"


@pytest.mark.parametrize(
    ("encoding", "body", "message"),
    [
        ("br", b"\x0b\x02\x80{}\x03", "in Content-Encoding 'br'; only gzip was asked for"),
        ("gzip", b"\x1f\x8b\x08" + bytes(7) + b"\xff" * 20, "that is not valid gzip: "),
        ("gzip", zlib.compress(completion_body(), wbits=31)[:-12], "not a single complete gzip"),
    ],
)
def test_an_undecodable_reply_is_a_response_error(serve, encoding, body, message):
    def answer(server, connection, request):
        send(connection, body, Content_Encoding=encoding)

    server = serve(answer)
    with pytest.raises(LLMResponseError, match=message):
        chat_model(server).complete("hi")


@pytest.mark.parametrize("declared", [True, False])
def test_a_huge_body_is_refused_at_the_default_limit(serve, declared):
    limit = OpenAIEndpoint().max_reply_bytes
    assert limit < PADDED // 2
    reply = completion_body()
    sent = []
    finished = threading.Event()

    def huge(server, connection, request):
        try:
            answer_huge(connection)
        finally:
            finished.set()

    def answer_huge(connection):
        if declared:
            connection.sendall(head(Content_Type="application/json", Content_Length=PADDED))
        else:  # no length: the body ends when the connection closes
            connection.sendall(head(Content_Type="application/json", Connection="close"))
        connection.sendall(reply)
        for _ in range((PADDED - len(reply)) // LIMIT):
            connection.sendall(b" " * LIMIT)
            sent.append(LIMIT)

    server = serve(huge)
    start = time.monotonic()
    with pytest.raises(LLMResponseError) as caught:
        chat_model(server).complete("hi")
    assert time.monotonic() - start < 5
    how = f"it declares {PADDED:,} bytes" if declared else "as sent"
    assert f"sent a reply larger than the limit of {limit:,} bytes ({how})" in str(caught.value)
    assert finished.wait(5)  # the client hung up
    assert sum(sent) < PADDED // 2


def test_the_size_limit_and_timeout_are_checked():
    with pytest.raises(ValueError, match="max_reply_bytes must be a positive integer, got 0"):
        OpenAIEndpoint("http://127.0.0.1:9/v1", max_reply_bytes=0)
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds, got inf"):
        OpenAIEndpoint("http://127.0.0.1:9/v1", timeout=float("inf"))


# --- every malformed field is a typed error ---------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field", "shown"),
    [
        ({"usage": "lots"}, "usage", "'\"lots\"'"),
        ({"usage": [3, 3]}, "usage", "'[3, 3]'"),
        ({"usage": {"prompt_tokens": "12"}}, "usage.prompt_tokens", "'\"12\"'"),
        ({"usage": {"completion_tokens": -1}}, "usage.completion_tokens", "'-1'"),
        ({"usage": {"completion_tokens": 2.5}}, "usage.completion_tokens", "'2.5'"),
        ({"usage": {"prompt_tokens": True}}, "usage.prompt_tokens", "'true'"),
        ({"usage": {"prompt_tokens": "9" * 500}}, "usage.prompt_tokens", f"'\"{'9' * 59}'…"),
        ({"model": 5}, "model", "'5'"),
    ],
)
def test_a_malformed_field_is_named_with_its_value(serve, fields, field, shown):
    def answer(server, connection, request):
        send(connection, completion_body(**fields))

    server = serve(answer)
    with pytest.raises(LLMResponseError) as caught:
        chat_model(server).complete("hi")
    assert str(caught.value).startswith(
        f"model 'raw-model' at {server.url} sent a reply whose field '{field}' is {shown}, not "
    )


def test_absent_or_null_usage_counts_nothing(serve):
    bodies = [completion_body(usage=None), completion_body(usage={"prompt_tokens": None})]

    def answer(server, connection, request):
        send(connection, bodies[len(server.requests) - 1])

    llm = chat_model(serve(answer))
    for _ in bodies:
        assert llm.complete("hi").usage.prompt_tokens == 0
    assert llm.usage.total_tokens == 0


@pytest.mark.parametrize(
    "body",
    [
        b'{"usage": {"prompt_tokens": 1' + b"0" * 5000 + b"}}",  # beyond int's digit limit
        b"[" * 100_000 + b"]" * 100_000,  # beyond the recursion limit
        b'"just a string"',
    ],
    ids=["huge-number", "deep-nesting", "not-an-object"],
)
def test_json_that_python_cannot_take_is_a_response_error(serve, body):
    def answer(server, connection, request):
        send(connection, body)

    server = serve(answer)
    with pytest.raises(LLMResponseError, match="sent a reply that is not a JSON object: "):
        chat_model(server).complete("hi")


def test_choices_of_the_wrong_shape_are_a_response_error(serve):
    def answer(server, connection, request):
        send(connection, json.dumps({"choices": [{"message": {"content": 7}}]}).encode())

    with pytest.raises(LLMResponseError, match=r"without choices\[0\]\.message\.content: "):
        chat_model(serve(answer)).complete("hi")
