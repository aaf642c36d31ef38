"""Grounding a model's reply to one action of the environment.

The reply's first non-empty line is read as an action in the environment's templated English
(``walk to kitchen``), after stripping what models like to add: a number (``3.``), a label
(``Action:``), quotes, a final period, and leading words (``I will walk to the kitchen`` is
read from ``walk``). That *exact* reading needs no model. Only when it fails is the reply
embedded (all-MiniLM-L6-v2 by default, loaded on first use) and compared with the
environment's admissible set (:meth:`VirtualHomeEnv.admissible_actions`): the nearest action
is taken if its cosine similarity reaches the threshold. Anything else is a
:class:`~safetychip.errors.ModelReplyError` naming the reply and the nearest actions.

Examples
--------
>>> from safetychip.envs import VirtualHomeEnv
>>> env = VirtualHomeEnv("apartment_1")
>>> _ = env.reset(options={"initial": ["agent_at(bedroom)"]})
>>> g = ActionGrounder(embedder=None)
>>> g.ground("3. Walk to the kitchen.", env)
GroundedAction(reply='3. Walk to the kitchen.', action='walk to kitchen', score=1.0, method='exact')
>>> g.ground("I will now open the fridge", env).action
'open fridge'
>>> g.ground("Open the fridge.", env).parsed.verb  # the environment's reading, proposed as is
'open'
>>> g.ground("", env)
Traceback (most recent call last):
...
safetychip.errors.ModelReplyError: the model returned an empty reply; expected one action \
such as 'walk to kitchen', or 'done'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ActionError, ModelReplyError

if TYPE_CHECKING:
    from ..envs import Env
    from ..llm import Embedder

__all__ = ["THRESHOLD", "ActionGrounder", "GroundedAction", "first_line"]

#: Least cosine similarity (all-MiniLM-L6-v2) for grounding a reply that is not an action.
THRESHOLD = 0.8

_LABEL = re.compile(r"^(?:(?:next )?action|answer|step \d+)\s*:\s*", re.IGNORECASE)
_NUMBER = re.compile(r"^\s*(?:\d+\s*[.):]\s*|[-*]\s+)")
_QUOTES = "\"'`"
_NEGATION = {"not", "don't", "dont", "never", "no", "shouldn't", "cannot", "can't", "won't"}


@dataclass(frozen=True)
class GroundedAction:
    """A reply and the action it was grounded to.

    Attributes
    ----------
    reply : str
        The model's text, as written.
    action : str
        The action in templated English (``"walk to kitchen"``), or ``"done"``.
    score : float
        1.0 for an exact reading, else the cosine similarity.
    method : str
        ``"exact"`` or ``"embedding"``.
    parsed : object
        The environment's reading of the action (:meth:`~safetychip.envs.Env.parse`), to be
        proposed as it is: an action is parsed once, and the parsed object travels.
    """

    reply: str
    action: str
    score: float = 1.0
    method: str = "exact"
    parsed: Any = field(default=None, repr=False, compare=False)

    @property
    def done(self) -> bool:
        """Whether the action is DONE."""
        return self.action == "done"


def first_line(reply: str) -> str:
    r"""The reply's first non-empty line, without numbering, label, quotes or final period.

    Examples
    --------
    >>> first_line('\n  2. Action: "grab salmon".\nThen I will...')
    'grab salmon'
    """
    for raw in reply.splitlines():
        line = raw.strip()
        if not line:
            continue
        line = _NUMBER.sub("", line)
        line = _LABEL.sub("", line).strip()
        line = line.strip(_QUOTES).rstrip(".!").strip().strip(_QUOTES).strip()
        if line:
            return line
    return ""


class ActionGrounder:
    """Ground model replies to actions: exact reading first, embedding similarity after.

    Parameters
    ----------
    embedder : Embedder, "minilm" or None
        Compares a reply that is not an action with the admissible set; ``"minilm"``
        (default) creates a :class:`~safetychip.llm.MiniLMEmbedder` on first need, None
        never embeds (such a reply is an error).
    threshold : float
        Least similarity for an embedding match.
    """

    def __init__(self, *, embedder: Embedder | str | None = "minilm",
                 threshold: float = THRESHOLD) -> None:  # fmt: skip
        if isinstance(embedder, str) and embedder != "minilm":
            raise ValueError(f"unknown embedder {embedder!r}; pass 'minilm', an Embedder or None")
        self._embedder = embedder
        self.threshold = threshold

    @property
    def embedder(self) -> Embedder | None:
        """The embedder (created on first access when ``"minilm"`` was asked for)."""
        if self._embedder == "minilm":
            from ..llm import MiniLMEmbedder

            self._embedder = MiniLMEmbedder()
        return self._embedder  # type: ignore[return-value]

    def __repr__(self) -> str:
        name = self._embedder if isinstance(self._embedder, str) or self._embedder is None \
            else self._embedder.name  # fmt: skip
        return f"ActionGrounder(embedder={name!r}, threshold={self.threshold})"

    def ground(self, reply: str, env: Env) -> GroundedAction:
        """Ground *reply* to an action of *env*'s current world.

        Parameters
        ----------
        reply : str
            The model's text.
        env : Env
            Reads the action (names, and the instance nearest the agent) and, for the
            embedding fallback, gives the admissible set.

        Returns
        -------
        GroundedAction

        Raises
        ------
        ModelReplyError
            If the reply is empty, or is not an action and no admissible action is similar
            enough (or embedding is off).
        """
        if not isinstance(reply, str) or not reply.strip():
            raise ModelReplyError("the model returned an empty reply; expected one action such "
                                  "as 'walk to kitchen', or 'done'", reply or "")  # fmt: skip
        line = first_line(reply)
        words = line.split()
        first_error: ActionError | None = None
        for start in range(min(len(words), 6)):
            if _NEGATION & {w.lower().strip(",") for w in words[:start]}:
                break  # "do not walk to the kitchen" is not "walk to the kitchen"
            try:
                action = env.parse(" ".join(words[start:]))
            except ActionError as exc:
                first_error = first_error or exc
                continue
            return GroundedAction(reply, str(action), parsed=action)
        return self._nearest(reply, line, env, first_error)

    def _nearest(self, reply: str, line: str, env: Env,
                 error: ActionError | None) -> GroundedAction:  # fmt: skip
        shown = _quote(reply)
        why = f" ({error})" if error is not None else ""
        embedder = self.embedder
        if embedder is None:
            raise ModelReplyError(f"cannot read the model's reply {shown} as an action{why}; "
                                  "embedding is off, so nothing else is tried", reply)  # fmt: skip
        candidates = [a for a in env.admissible_actions() if a != "done"]
        vectors = embedder.encode([line, *candidates])
        scores = vectors[1:] @ vectors[0]
        order = sorted(range(len(candidates)), key=lambda i: -float(scores[i]))
        best = order[0]
        nearest = ", ".join(f"{candidates[i]!r} ({float(scores[i]):.2f})" for i in order[:3])
        if float(scores[best]) < self.threshold:
            raise ModelReplyError(
                f"the model's reply {shown} names no admissible action: the nearest are "
                f"{nearest}, below the threshold {self.threshold:.2f}", reply)  # fmt: skip
        return GroundedAction(reply, candidates[best], round(float(scores[best]), 4), "embedding",
                              env.parse(candidates[best]))  # fmt: skip


def _quote(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat[:limit]) + ("…" if len(flat) > limit else "")
