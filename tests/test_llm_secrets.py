"""No secret of the OpenAI client reaches a message, a repr or a traceback, and redirects are
not followed unless asked. Servers run on 127.0.0.1 only."""

from __future__ import annotations

import json
import traceback

import pytest
from _llm_servers import completion_body, send

from safetychip.errors import LLMConnectionError, LLMError, LLMStatusError, LLMTimeoutError
from safetychip.llm import CachedModel, OpenAIChatModel, OpenAIEndpoint

pytest.importorskip("openai")

KEY = "sk-test-" + "Q7" * 16  # an OpenAI-style key
TOKEN = "corp-gateway-token-4242"  # a key of another shape, caught only verbatim
PASSWORD = "pa55-w0rd-hidden"


def everything_shown(error: BaseException, *objects: object) -> str:
    """All the text an error and some objects can show: message, repr, traceback."""
    shown = [str(error), repr(error), *map(repr, objects)]
    shown += traceback.format_exception(error)
    return "\n".join(shown)


def echo_headers(status: str):
    """An answer that echoes the request's headers, Authorization first, as proxies do."""

    def echo(server, connection, request):
        lines = request.head.split("\r\n")
        first = sorted(lines[1:], key=lambda line: not line.lower().startswith("authorization"))
        message = {
            "error": {
                "message": "upstream refused the request",
                "request": "\r\n".join(first),
                "key": request.headers["authorization"].split()[-1],
            }
        }
        send(connection, json.dumps(message).encode(), status)

    return echo


@pytest.mark.parametrize("key", [KEY, TOKEN])
@pytest.mark.parametrize("status", ["400 Bad Request", "502 Bad Gateway"])
def test_an_echoed_key_never_reaches_the_error(serve, key, status):
    server = serve(echo_headers(status))
    llm = OpenAIChatModel("m", OpenAIEndpoint(server.url, api_key=key, max_retries=1, backoff=0))
    with pytest.raises(LLMStatusError) as caught:
        llm.complete("hi")
    error = caught.value
    assert key in server.requests[0].head  # it was sent, and echoed
    shown = everything_shown(error, llm, llm.endpoint)
    assert key not in shown
    assert "sk-" not in shown
    assert "upstream refused the request" in str(error)  # still quoted, but redacted:
    assert "authorization: bearer ***" in str(error).lower()
    assert error.__cause__ is None and error.__context__ is None  # no openai error inside
    assert not any(key in str(arg) for arg in error.args)


def test_a_quoted_server_body_is_short(serve):
    def verbose(server, connection, request):
        send(connection, json.dumps({"error": {"message": "x" * 10_000}}).encode(), "400 Bad")

    llm = OpenAIChatModel("m", OpenAIEndpoint(serve(verbose).url, api_key="k"))
    with pytest.raises(LLMStatusError) as caught:
        llm.complete("hi")
    assert len(str(caught.value)) < 400
    assert str(caught.value).endswith("…")


def test_credentials_in_the_base_url_are_not_shown(serve, tmp_path):
    def refuse(server, connection, request):
        send(connection, b'{"error": "no"}', "403 Forbidden")

    server = serve(refuse)
    url = server.url.replace("http://", f"http://alice:{PASSWORD}@")
    endpoint = OpenAIEndpoint(url, api_key=KEY, timeout=2)
    llm = CachedModel(OpenAIChatModel("m", endpoint), tmp_path / "c.sqlite", mode="record")
    assert endpoint.base_url == server.url.replace("http://", "http://***@")
    with pytest.raises(LLMStatusError) as caught:
        llm.complete("hi")
    assert server.requests  # the request was sent with its credentials
    shown = everything_shown(caught.value, llm, endpoint, endpoint.describe("m"))
    assert PASSWORD not in shown
    assert "alice" not in shown
    assert f"model 'm' at {endpoint.base_url} answered HTTP 403 Forbidden" in shown


@pytest.mark.parametrize(
    ("answer", "error"),
    [(None, LLMConnectionError), ("hang", LLMTimeoutError)],
    ids=["unreachable", "timeout"],
)
def test_url_credentials_are_not_shown_by_other_failures(serve, answer, error):
    if answer is None:
        server = serve(lambda *_: None)
        server.stop()  # nothing listens any more
    else:
        server = serve(lambda server, *_: server.stopping.wait(5))
    url = server.url.replace("http://", f"http://alice:{PASSWORD}@")
    llm = OpenAIChatModel("m", OpenAIEndpoint(url, api_key=KEY, timeout=0.5))
    with pytest.raises(error) as caught:
        llm.complete("hi")
    assert PASSWORD not in everything_shown(caught.value, llm)


@pytest.mark.parametrize("status", ["301 Moved Permanently", "307 Temporary Redirect"])
def test_a_redirect_is_not_followed(serve, status):
    def moved(server, connection, request):
        target = f"http://bob:{PASSWORD}@127.0.0.1:{server.port}/v2/chat/completions"
        send(connection, b"", status, Location=target)

    server = serve(moved)
    llm = OpenAIChatModel("m", OpenAIEndpoint(server.url, api_key=KEY))
    with pytest.raises(LLMStatusError) as caught:
        llm.complete("hi")
    error = caught.value
    assert error.status == int(status[:3])
    assert str(error) == (
        f"model 'm' at {server.url} answered HTTP {status} (after 1 attempt): a redirect to "
        f"'http://***@127.0.0.1:{server.port}/v2/chat/completions', which is not followed; "
        "point base_url at the final address, or pass OpenAIEndpoint(follow_redirects=True)"
    )
    assert [request.path for request in server.requests] == ["/v1/chat/completions"]


def test_a_redirect_is_followed_when_asked(serve):
    def moved_once(server, connection, request):
        if request.path.startswith("/v1/"):
            location = f"http://127.0.0.1:{server.port}/v2/chat/completions"
            send(connection, b"", "307 Temporary Redirect", Location=location)
        else:
            send(connection, completion_body("moved and answered"))

    server = serve(moved_once)
    endpoint = OpenAIEndpoint(server.url, api_key=KEY, follow_redirects=True)
    assert OpenAIChatModel("m", endpoint).complete("hi").text == "moved and answered"
    assert [request.path for request in server.requests] == [
        "/v1/chat/completions",
        "/v2/chat/completions",
    ]


def test_every_llm_error_is_raised_without_a_chained_exception(serve):
    def garbage(server, connection, request):
        send(connection, f"<html>proxy error for Bearer {KEY}</html>".encode())

    llm = OpenAIChatModel("m", OpenAIEndpoint(serve(garbage).url, api_key=KEY))
    with pytest.raises(LLMError) as caught:
        llm.complete("hi")
    assert caught.value.__context__ is None
    assert KEY not in everything_shown(caught.value)
