"""The chat interface every language model in safetychip implements.

A :class:`ChatModel` turns a conversation into one :class:`Completion`. Callers use
:meth:`ChatModel.complete`; an implementation overrides only :meth:`ChatModel._complete`,
which receives a validated :class:`ChatRequest`. The base class counts calls and tokens.
"""

from __future__ import annotations

import importlib
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NamedTuple

from safetychip.errors import LLMUsageError, missing

__all__ = [
    "Message",
    "MessageLike",
    "ChatRequest",
    "Usage",
    "UsageCounter",
    "Completion",
    "ChatModel",
]


class Message(NamedTuple):
    """One turn of a conversation.

    Examples
    --------
    >>> Message("user", "Is the stove on?")
    Message(role='user', content='Is the stove on?')
    """

    role: str
    content: str


#: What :meth:`ChatModel.complete` accepts as one message: a :class:`Message`, a
#: ``(role, content)`` pair or an OpenAI-style ``{"role": ..., "content": ...}`` mapping.
MessageLike = Message | tuple[str, str] | Mapping[str, str]


def _to_message(item: MessageLike) -> Message:
    if isinstance(item, Mapping):
        if set(item) != {"role", "content"}:
            raise LLMUsageError(
                f"a message needs exactly the keys 'role' and 'content', got {sorted(item)}"
            )
        role, content = item["role"], item["content"]
    elif isinstance(item, tuple) and len(item) == 2:
        role, content = item
    else:
        raise LLMUsageError(
            f"a message is a (role, content) pair or a mapping, got {type(item).__name__}"
        )
    if not isinstance(role, str) or not role or not isinstance(content, str):
        raise LLMUsageError(
            f"a message's role must be a non-empty string and its content a string, "
            f"got role={role!r}, content of type {type(content).__name__}"
        )
    return Message(role, content)


@dataclass(frozen=True)
class ChatRequest:
    """A validated request: the conversation and the sampling parameters.

    Build one with :meth:`build`, which normalises the inputs so that equal requests have
    equal :meth:`to_dict` data (the record/replay cache hashes it).

    Attributes
    ----------
    messages : tuple of Message
        The conversation, oldest first; never empty.
    temperature : float
        Sampling temperature.
    stop : tuple of str
        Sequences at which generation stops (not included in the reply).
    max_tokens : int or None
        Upper bound on the reply's length in tokens; ``None`` leaves it to the server.
    schema : str or None
        A JSON schema the reply must follow (structured output), as canonical JSON; a
        model that supports structured output constrains its reply to it (see
        :class:`~safetychip.llm.OpenAIChatModel`), others ignore it. ``None``: free text.

    Examples
    --------
    >>> request = ChatRequest.build("Pick up the phone", stop=".")
    >>> request.messages
    (Message(role='user', content='Pick up the phone'),)
    >>> request.to_dict()
    {'messages': [{'role': 'user', 'content': 'Pick up the phone'}], 'temperature': 0.0,
     'stop': ['.'], 'max_tokens': None}

    A schema is part of the request (and of its cache key) only when given:

    >>> ChatRequest.build("Go", schema={"type": "string", "enum": ["walk to kitchen"]}).schema
    '{"enum":["walk to kitchen"],"type":"string"}'
    """

    messages: tuple[Message, ...]
    temperature: float = 0.0
    stop: tuple[str, ...] = ()
    max_tokens: int | None = None
    schema: str | None = None

    @classmethod
    def build(
        cls,
        messages: str | Sequence[MessageLike],
        *,
        temperature: float = 0.0,
        stop: str | Sequence[str] | None = None,
        max_tokens: int | None = None,
        schema: Mapping[str, Any] | None = None,
    ) -> ChatRequest:
        """Validate and normalise the arguments of :meth:`ChatModel.complete`.

        A bare string is one user message; a bare stop string is one stop sequence.

        Raises
        ------
        LLMUsageError
            If there are no messages, a message is malformed, ``max_tokens`` is not a
            positive integer, or *schema* is not a JSON object.
        """
        if isinstance(messages, str):
            messages = [Message("user", messages)]
        turns = tuple(_to_message(item) for item in messages)
        if not turns:
            raise LLMUsageError("a chat request needs at least one message")
        stops = (stop,) if isinstance(stop, str) else tuple(stop or ())
        if max_tokens is not None and (isinstance(max_tokens, bool) or max_tokens < 1):
            raise LLMUsageError(f"max_tokens must be a positive integer, got {max_tokens!r}")
        return cls(turns, float(temperature), stops, max_tokens, _schema_json(schema))

    def to_dict(self) -> dict[str, Any]:
        """Return the request as plain JSON-ready data (``schema`` only when there is one)."""
        data: dict[str, Any] = {
            "messages": [message._asdict() for message in self.messages],
            "temperature": self.temperature,
            "stop": list(self.stop),
            "max_tokens": self.max_tokens,
        }
        if self.schema is not None:
            data["schema"] = json.loads(self.schema)
        return data


def _schema_json(schema: Mapping[str, Any] | None) -> str | None:
    """*schema* as canonical JSON, or None; anything but a JSON object is an error."""
    if schema is None:
        return None
    if not isinstance(schema, Mapping):
        raise LLMUsageError(f"a schema is a JSON object (a mapping), got {type(schema).__name__}")
    try:
        return canonical_json(dict(schema))
    except (TypeError, ValueError) as exc:
        raise LLMUsageError(f"the schema is not JSON data: {exc}") from None


@dataclass(frozen=True)
class Usage:
    """Tokens spent by one call, as the server reported them (0 when it did not)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class UsageCounter:
    """Running totals of calls and tokens for one model.

    Examples
    --------
    >>> counter = UsageCounter()
    >>> counter.add(Usage(prompt_tokens=12, completion_tokens=3))
    >>> counter
    UsageCounter(calls=1, prompt_tokens=12, completion_tokens=3)
    >>> counter.total_tokens
    15
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def add(self, usage: Usage) -> None:
        """Count one call that spent *usage*."""
        self.calls += 1
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens

    def reset(self) -> None:
        """Set every total back to zero."""
        self.calls = self.prompt_tokens = self.completion_tokens = 0


@dataclass(frozen=True)
class Completion:
    """A model's reply.

    Attributes
    ----------
    text : str
        The generated text.
    model : str
        The model that produced it, as the server named it.
    usage : Usage
        Tokens spent.
    stand_in : bool
        True when an offline stand-in wrote the text, never a language model: such
        output must not be reported as an LLM result.
    """

    text: str
    model: str
    usage: Usage = Usage()
    stand_in: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Return the completion as plain JSON-ready data."""
        return {
            "text": self.text,
            "model": self.model,
            "usage": {
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
            },
            "stand_in": self.stand_in,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Completion:
        """Rebuild a completion from :meth:`to_dict` output.

        Examples
        --------
        >>> reply = Completion("ok", "gpt-4o-mini", Usage(5, 1))
        >>> Completion.from_dict(reply.to_dict()) == reply
        True
        """
        return cls(data["text"], data["model"], Usage(**data["usage"]), data["stand_in"])


class ChatModel(ABC):
    """Base class of chat models: one method to implement, :meth:`_complete`.

    Parameters
    ----------
    name : str
        The model's name; the record/replay cache keys requests by it.

    Attributes
    ----------
    name : str
        As given.
    usage : UsageCounter
        Calls and tokens spent through :meth:`complete` since creation or the last
        ``usage.reset()``.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.usage = UsageCounter()

    def complete(
        self,
        messages: str | Sequence[MessageLike],
        *,
        temperature: float = 0.0,
        stop: str | Sequence[str] | None = None,
        max_tokens: int | None = None,
        schema: Mapping[str, Any] | None = None,
    ) -> Completion:
        """Send a conversation and return the reply.

        Parameters
        ----------
        messages : str or sequence of MessageLike
            The conversation, oldest first; a bare string is one user message.
        temperature : float
            Sampling temperature; 0 asks for the most likely reply.
        stop : str or sequence of str, optional
            Generation stops before any of these sequences.
        max_tokens : int, optional
            Upper bound on the reply's length in tokens.
        schema : mapping, optional
            A JSON schema for the reply (structured output), honoured by models that
            support it and ignored by the others: a caller must still check the reply.

        Returns
        -------
        Completion
            The reply, with the tokens it cost.

        Raises
        ------
        LLMError
            A subclass saying what went wrong (see :mod:`safetychip.errors`).
        """
        request = ChatRequest.build(
            messages, temperature=temperature, stop=stop, max_tokens=max_tokens, schema=schema
        )
        completion = self._complete(request)
        self.usage.add(completion.usage)
        return completion

    @abstractmethod
    def _complete(self, request: ChatRequest) -> Completion:
        """Answer a validated request; implementations override only this."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def canonical_json(data: Any) -> str:
    """Serialise *data* the one way: sorted keys, no spaces, non-ASCII kept as is.

    Examples
    --------
    >>> print(canonical_json({"b": [1.0, None], "a": "é"}))
    {"a":"é","b":[1.0,null]}
    """
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def first_words(text: str, count: int = 8) -> str:
    """Return the first *count* words of *text*, with an ellipsis if there are more.

    Examples
    --------
    >>> first_words("Put the salmon in the fridge and close it", count=4)
    'Put the salmon in…'
    """
    words = text.split()
    return " ".join(words[:count]) + ("…" if len(words) > count else "")


def import_optional(module: str, package: str, extra: str) -> ModuleType:
    """Import an optional dependency, or raise the error that gives its install command.

    Raises
    ------
    MissingDependencyError
        If *module* cannot be imported.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise missing(package, extra) from None
