"""Chat models behind any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

:class:`OpenAIEndpoint` holds what the chat model and the embedder share: the server's
address and key, the timeout, and the retry policy. The ``openai`` package is imported,
and the key checked, on the first request, so a cache can replay offline without either.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Any

from safetychip.errors import (
    LLMConnectionError,
    LLMResponseError,
    LLMStatusError,
    LLMTimeoutError,
    LLMUsageError,
)
from safetychip.llm._base import ChatModel, ChatRequest, Completion, Usage, import_optional

__all__ = ["OpenAIEndpoint", "OpenAIChatModel"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"


def quote(text: str, limit: int = 200) -> str:
    """Quote the first *limit* characters of a reply for an error message.

    Examples
    --------
    >>> print(quote("<html>" + "x" * 300, limit=10))
    '<html>xxxx'…
    """
    return repr(text[:limit]) + ("…" if len(text) > limit else "")


class OpenAIEndpoint:
    """An OpenAI-compatible server: address, key, timeout and retry policy.

    Requests that get HTTP 429 or 5xx are retried up to ``max_retries`` times. Before
    retry ``k`` (from 0) the endpoint waits what the server's ``retry-after-ms`` or
    ``retry-after`` header asks, if that is a number of seconds no larger than
    ``max_retry_after``, else ``min(backoff * 2**k, max_backoff)`` seconds. Timeouts,
    unreachable servers and other statuses are not retried.

    Parameters
    ----------
    base_url : str, optional
        The API root, such as ``http://localhost:11434/v1`` for Ollama. Defaults to the
        ``OPENAI_BASE_URL`` environment variable, then to OpenAI's own.
    api_key : str, optional
        Defaults to ``OPENAI_API_KEY``. Local servers accept any non-empty value.
    timeout : float
        Seconds to wait for each reply.
    max_retries : int
        Retries after a 429 or 5xx answer; 0 sends each request once.
    backoff, max_backoff : float
        First and largest wait between retries, in seconds.
    max_retry_after : float
        The longest server-requested wait that is honoured, in seconds.

    Examples
    --------
    >>> OpenAIEndpoint("http://127.0.0.1:8000/v1", api_key="unused", timeout=5)
    OpenAIEndpoint('http://127.0.0.1:8000/v1', timeout=5, max_retries=3)
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
    ) -> None:
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_retry_after = max_retry_after
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY")
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
            self._client = openai.OpenAI(
                api_key=self._api_key, base_url=self.base_url, timeout=self.timeout, max_retries=0
            )
        return self._client

    def _call(
        self, model: str, resource: Callable[[Any], Any], params: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Send one request with retries; translate every failure into an LLMError."""
        create = resource(self._openai_client()).with_raw_response.create
        openai = import_optional("openai", "openai", "llm")
        where = self.describe(model)
        attempt = 1
        while True:
            try:
                text = create(**params).text
            except openai.APITimeoutError:
                raise LLMTimeoutError(
                    f"{where} timed out after {self.timeout:g} s; "
                    "raise OpenAIEndpoint(timeout=...) for a slow server"
                ) from None
            except openai.APIConnectionError as exc:
                reason = exc.__cause__ or exc
                raise LLMConnectionError(f"cannot reach {where}: {reason}") from None
            except openai.APIStatusError as exc:
                status = exc.status_code
                if (status == 429 or status >= 500) and attempt <= self.max_retries:
                    time.sleep(self._retry_delay(attempt - 1, exc.response.headers))
                    attempt += 1
                    continue
                raise LLMStatusError(
                    f"{where} answered HTTP {_status_text(status)} "
                    f"(after {attempt} attempt{'s' * (attempt > 1)}): {quote(exc.response.text)}",
                    status=status,
                    attempts=attempt,
                ) from None
            return _decode(text, where)

    def _retry_delay(self, attempt: int, headers: Mapping[str, str]) -> float:
        for header, seconds_per_unit in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            try:
                wait = float(headers.get(header, "")) * seconds_per_unit
            except ValueError:
                continue
            if 0 <= wait <= self.max_retry_after:
                return wait
        return min(self.backoff * 2.0**attempt, self.max_backoff)


def _status_text(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def _decode(text: str, where: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        raise LLMResponseError(f"{where} sent a reply that is not a JSON object: {quote(text)}")
    return data


class OpenAIChatModel(ChatModel):
    """A chat model served by an OpenAI-compatible endpoint.

    Parameters
    ----------
    model : str
        The server's name for the model, such as ``"gpt-4o-mini"`` or ``"llama3.1"``.
    endpoint : OpenAIEndpoint, optional
        Where to send requests; defaults to ``OpenAIEndpoint()``, configured by the
        ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` environment variables.

    Examples
    --------
    >>> llm = OpenAIChatModel("llama3.1", OpenAIEndpoint("http://localhost:11434/v1"))
    >>> llm
    OpenAIChatModel('llama3.1',
                    OpenAIEndpoint('http://localhost:11434/v1', timeout=60, max_retries=3))

    Nothing is sent until :meth:`~ChatModel.complete` is called.
    """

    def __init__(self, model: str, endpoint: OpenAIEndpoint | None = None) -> None:
        super().__init__(model)
        self.endpoint = endpoint or OpenAIEndpoint()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.endpoint!r})"

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
        data = self.endpoint.chat_completion(**params)
        try:
            text = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            text = None
        if not isinstance(text, str):
            raise LLMResponseError(
                f"{self.endpoint.describe(self.name)} sent a reply without "
                f"choices[0].message.content: {quote(json.dumps(data))}"
            )
        usage = data.get("usage") or {}
        return Completion(
            text=text,
            model=str(data.get("model") or self.name),
            usage=Usage(usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0),
        )
