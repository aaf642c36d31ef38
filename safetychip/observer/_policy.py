"""Base policies: anything that proposes candidates for the turn, given the interaction state
and the feedback of the last turn or rejection; a chat model is one through
:class:`ChatPolicy`.

Examples
--------
>>> from safetychip.llm import ScriptedModel
>>> policy = as_policy(ScriptedModel(["Hello there."]))
>>> policy(ObserverState().say("user", "Hi"), Feedback("forced", ("too long",)))
(Candidate(text='Hello there.', confidence=1.0, payload=None),)
>>> two = as_policy(lambda state, feedback: ["a", Candidate("b", 0.4)])
>>> [c.confidence for c in two(ObserverState(), None)]
[1.0, 0.4]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import ObserverError
from ..llm import ChatModel, Message
from ._state import Candidate, Feedback, ObserverState

__all__ = ["ChatPolicy", "Policy", "as_policy"]

#: A base policy: ``policy(state, feedback)`` returns candidates (texts or
#: :class:`Candidate` objects), one candidate, or nothing.
Policy = Callable[[ObserverState, "Feedback | None"], Any]


class ChatPolicy:
    """A chat model as a base policy: the history becomes the conversation (the user's turns
    as ``user``, every other speaker's as ``assistant``) and the feedback a closing system
    message.

    Parameters
    ----------
    model : ChatModel
    system : str
        The opening system message (none if empty).
    samples : int
        Candidates per call (one completion each).
    temperature : float
        Passed to the model.
    """

    def __init__(self, model: ChatModel, *, system: str = "", samples: int = 1,
                 temperature: float = 0.0) -> None:  # fmt: skip
        if samples < 1:
            raise ValueError(f"ChatPolicy samples must be at least 1, got {samples}")
        self.model, self.system, self.samples = model, system, samples
        self.temperature = temperature

    def messages(self, state: ObserverState, feedback: Feedback | None) -> list[Message]:
        """The conversation sent to the model."""
        messages = [Message("system", self.system)] if self.system else []
        messages += [Message("user" if u.speaker == "user" else "assistant", u.text)
                     for u in state.history]  # fmt: skip
        if feedback is not None:
            messages.append(Message("system", f"Feedback on your reply ({feedback})."))
        return messages

    def __call__(self, state: ObserverState, feedback: Feedback | None) -> tuple[Candidate, ...]:
        messages = self.messages(state, feedback)
        return tuple(Candidate(self.model.complete(messages, temperature=self.temperature).text)
                     for _ in range(self.samples))  # fmt: skip


def as_policy(policy: ChatModel | Policy) -> Callable[[ObserverState, Feedback | None],
                                                       tuple[Candidate, ...]]:  # fmt: skip
    """*policy* as a callable returning a tuple of checked candidates.

    Raises
    ------
    TypeError
        If *policy* is neither a chat model nor callable.
    """
    if isinstance(policy, ChatModel):
        return ChatPolicy(policy)
    if not callable(policy):
        raise TypeError(f"a base policy must be a ChatModel or a callable (state, feedback), "
                        f"got {type(policy).__name__}")  # fmt: skip

    def propose(state: ObserverState, feedback: Feedback | None) -> tuple[Candidate, ...]:
        return _candidates(policy(state, feedback))

    return propose


def _candidates(output: Any) -> tuple[Candidate, ...]:
    """What a policy returned, as candidates (None: none).

    Raises
    ------
    ObserverError
        If an item is neither a string nor a Candidate, or a confidence is not in [0, 1].
    """
    if output is None:
        return ()
    items: Iterable[Any] = (output,) if isinstance(output, (str, Candidate)) else output
    found = []
    for item in items:
        candidate = Candidate(item) if isinstance(item, str) else item
        if not isinstance(candidate, Candidate):
            raise ObserverError(f"a base policy proposed {item!r}: return strings or "
                                "Candidate objects")  # fmt: skip
        if not (0.0 <= candidate.confidence <= 1.0) or math.isnan(candidate.confidence):
            raise ObserverError(f"candidate {candidate.text!r} has confidence "
                                f"{candidate.confidence}: give one in [0, 1]")  # fmt: skip
        found.append(candidate)
    return tuple(found)
