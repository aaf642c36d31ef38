"""Offline stand-ins: deterministic chat models that are never mistaken for an LLM.

Every :class:`Completion` a stand-in returns has ``stand_in=True`` and the stand-in's name
(``"offline-stand-in"`` unless told otherwise) as its model, so a table or a plot built
from it can say so. Rule-based stand-ins are :class:`StandInModel` with a function.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence

from safetychip.errors import LLMUsageError
from safetychip.llm._base import ChatModel, ChatRequest, Completion, Message, first_words

__all__ = ["StandInModel", "ScriptedModel"]


def _cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """Cut *text* before the earliest stop sequence, as a server would."""
    cuts = [text.find(sequence) for sequence in stop if sequence and sequence in text]
    return text[: min(cuts)] if cuts else text


class StandInModel(ChatModel):
    """A chat model whose replies come from a Python function.

    The function gets the conversation and returns the reply. It should be deterministic;
    the temperature and ``max_tokens`` are ignored, stop sequences cut the reply as a
    server would, and usage is counted as calls with zero tokens.

    Parameters
    ----------
    respond : callable
        ``respond(messages) -> str``, where *messages* is a tuple of :class:`Message`,
        oldest first.
    name : str
        The model name every completion carries.

    Examples
    --------
    >>> def shout(messages):
    ...     return messages[-1].content.upper()
    >>> echo = StandInModel(shout)
    >>> echo.complete("walk to the kitchen")
    Completion(text='WALK TO THE KITCHEN', model='offline-stand-in',
               usage=Usage(prompt_tokens=0, completion_tokens=0), stand_in=True)
    >>> echo.complete("open the fridge. then grab the milk", stop=".").text
    'OPEN THE FRIDGE'
    """

    def __init__(
        self, respond: Callable[[tuple[Message, ...]], str], name: str = "offline-stand-in"
    ) -> None:
        super().__init__(name)
        self.respond = respond

    def _complete(self, request: ChatRequest) -> Completion:
        text = self.respond(request.messages)
        if not isinstance(text, str):
            raise LLMUsageError(
                f"stand-in {self.name!r} must return a str, its function returned "
                f"{type(text).__name__}"
            )
        return Completion(_cut_at_stop(text, request.stop), self.name, stand_in=True)


class ScriptedModel(StandInModel):
    """A stand-in that replies with the given texts in order; for tests.

    Parameters
    ----------
    replies : iterable of str
        The replies, consumed one per call.
    name : str
        The model name every completion carries.

    Attributes
    ----------
    requests : list of ChatRequest
        Every request received, in order, so a test can check the prompts.

    Examples
    --------
    >>> llm = ScriptedModel(["[walk] <kitchen> (1)", "DONE"])
    >>> llm.complete("first step?").text
    '[walk] <kitchen> (1)'
    >>> llm.complete("next step?").text
    'DONE'
    >>> llm.requests[1].messages[-1].content
    'next step?'
    >>> llm.complete("and then?")
    Traceback (most recent call last):
    ...
    safetychip.errors.LLMUsageError: scripted-stand-in ran out after 2 replies (asked 'and then?')
    """

    def __init__(self, replies: Iterable[str], name: str = "scripted-stand-in") -> None:
        super().__init__(self._next_reply, name)
        self._pending = deque(replies)
        self.requests: list[ChatRequest] = []

    def _complete(self, request: ChatRequest) -> Completion:
        self.requests.append(request)
        return super()._complete(request)

    def _next_reply(self, messages: tuple[Message, ...]) -> str:
        if not self._pending:
            raise LLMUsageError(
                f"{self.name} ran out after {len(self.requests) - 1} replies "
                f"(asked {first_words(messages[-1].content)!r})"
            )
        return self._pending.popleft()
