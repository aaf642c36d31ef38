"""What the observer sees: the interaction state (history and auxiliary context), the
candidates a base policy proposes, and the feedback handed back to it.

Examples
--------
>>> state = ObserverState(context={"frustration": 0.8})
>>> state.say("user", "This is not working!")
ObserverState(1 turns, context: frustration)
>>> state.last("user", 1)
('This is not working!',)
>>> Candidate("Let us slow down.").confidence
1.0
>>> print(Feedback("forced", ("the reply is too long",)))
forced: the reply is too long
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = ["FEEDBACK", "Candidate", "Feedback", "ObserverState", "Utterance"]

#: What feedback a deviation earns: none, implicit (released, remembered for the next turn)
#: or forced (rejected, handed to the regeneration).
FEEDBACK = ("none", "implicit", "forced")


class Utterance(NamedTuple):
    """One turn of the interaction history: who spoke (``"user"``, ``"agent"``) and what."""

    speaker: str
    text: str


class Candidate(NamedTuple):
    """A candidate action or reply a base policy proposes.

    Attributes
    ----------
    text : str
        The reply, or the action in the environment's words.
    confidence : float
        The policy's confidence in it, in [0, 1].
    payload : object
        Anything the overlays need besides the text (a shield
        :class:`~safetychip.shield.Proposal` with its previewed states, for a robot).
    """

    text: str
    confidence: float = 1.0
    payload: Any = None


class Feedback(NamedTuple):
    """Feedback for the base policy: *kind* is ``"implicit"`` (the last reply deviated a
    little and was released) or ``"forced"`` (the candidates were rejected); *descriptors*
    say what deviated."""

    kind: str
    descriptors: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.kind}: " + "; ".join(self.descriptors)


@dataclass
class ObserverState:
    """The interaction state: the history, the auxiliary context, and (for a robot) the
    proposition trace.

    Attributes
    ----------
    history : list of Utterance
        Oldest first.
    context : dict
        Auxiliary signals (a sensed frustration, the activity, …) that extractors may read.
    trace : sequence of dict
        The executed proposition states, position 0 first (empty for a conversation); the
        shield's own list when the observer is a filter (read, never changed).
    feedback : Feedback or None
        Implicit feedback left by the last released reply, for the next turn.
    filters : frozenset of int or None
        When an :class:`~safetychip.observer.ObserverFilter` asks: the ids of the shield
        filters it resets and commits (a filter overlay whose filter is not among them
        refuses); None otherwise.
    """

    history: list[Utterance] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    trace: Sequence[Mapping[str, bool]] = ()
    feedback: Feedback | None = None
    filters: frozenset[int] | None = None

    def say(self, speaker: str, text: str) -> ObserverState:
        """Append a turn; returns ``self``."""
        self.history.append(Utterance(speaker, text))
        return self

    def last(self, speaker: str, n: int) -> tuple[str, ...]:
        """The texts of the last *n* turns by *speaker*, oldest first."""
        texts = [u.text for u in self.history if u.speaker == speaker]
        return tuple(texts[-n:]) if n > 0 else ()

    @property
    def state(self) -> Mapping[str, bool]:
        """The current proposition state (empty when there is no trace)."""
        return self.trace[-1] if self.trace else {}

    def __repr__(self) -> str:
        keys = ", ".join(sorted(self.context)) or "none"
        return f"ObserverState({len(self.history)} turns, context: {keys})"
