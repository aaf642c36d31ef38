"""What the memory says about a command: blocked or not, by which episode or rule, with the
scores and a safe alternative."""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._action import ActionFrame
from ._episode import Episode, Rule, check_frames

__all__ = ["MemoryDecision"]


@dataclass(frozen=True)
class MemoryDecision:
    """The answer of :meth:`EpisodicMemory.check <safetychip.memory.EpisodicMemory.check>`.

    Attributes
    ----------
    blocked : bool
        Whether the command must not run.
    command : str
        The command checked.
    episode : Episode or None
        The most similar episode (the one that blocked, when an episode blocked).
    rule : Rule or None
        The best-matching rule (the one that blocked, when a rule blocked); None when no
        rule matches at all.
    by : str or None
        ``"episode"`` or ``"rule"``: what blocked.
    scores : dict
        ``text``, ``scene`` (None without a scene), ``episodic`` of :attr:`episode`, and
        ``rule`` of :attr:`rule` (absent when there is none).
    reason : str
        One sentence saying why the command was blocked, or, when a harmless episode
        outweighed a harmful episode or a rule, why it was not (else empty).
    harmless : Episode or None
        The most similar harmless episode weighed against :attr:`episode` (its score is
        ``scores["harmless"]``).
    frames : tuple of ActionFrame
        The command's action frames the check used (empty: the text and scene alone).

    Examples
    --------
    >>> MemoryDecision(False, "walk to the kitchen")
    <MemoryDecision allowed 'walk to the kitchen'>
    """

    blocked: bool
    command: str
    episode: Episode | None = None
    rule: Rule | None = None
    by: str | None = None
    scores: Mapping[str, float | None] = field(default_factory=dict)
    reason: str = ""
    harmless: Episode | None = None
    frames: tuple[ActionFrame, ...] = ()

    @property
    def matched(self) -> Episode | Rule | None:
        """The episode or rule that blocked the command."""
        return {"episode": self.episode, "rule": self.rule}.get(self.by or "")

    @property
    def alternative(self) -> str | None:
        """The safe alternative for the harm of what blocked the command."""
        matched = self.matched
        return None if matched is None else matched.alternative

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "blocked": self.blocked, "command": self.command, "by": self.by,
            "episode": self.episode.to_dict() if self.episode else None,
            "rule": self.rule.to_dict() if self.rule else None,
            "scores": dict(self.scores), "reason": self.reason,
            "alternative": self.alternative,
            "harmless": self.harmless.to_dict() if self.harmless else None,
            "frames": [f.to_dict() for f in self.frames],
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MemoryDecision:
        """Inverse of :meth:`to_dict`."""
        episode, rule, safe = data.get("episode"), data.get("rule"), data.get("harmless")
        return cls(bool(data["blocked"]), data["command"],
                   Episode.from_dict(episode) if episode else None,
                   Rule.from_dict(rule) if rule else None, data.get("by"),
                   dict(data.get("scores") or {}), data.get("reason", ""),
                   Episode.from_dict(safe) if safe else None,
                   check_frames(data.get("frames") or [], "MemoryDecision.frames"))  # fmt: skip

    def __repr__(self) -> str:
        if not self.blocked:
            why = f": {self.reason}" if self.reason else ""
            return f"<MemoryDecision allowed {self.command!r}{why}>"
        return f"<MemoryDecision blocked {self.command!r}: {self.reason}>"

    def _repr_html_(self) -> str:
        colour, word = ("#c62828", "blocked") if self.blocked else ("#2e7d32", "allowed")
        scores = ", ".join(f"{k} {v:.3f}" for k, v in self.scores.items() if v is not None)
        extra = f"<br>{html.escape(self.reason)}" if self.reason else ""
        if self.blocked:
            extra = (f"<br>{html.escape(self.reason)}<br>try instead: "
                     f"<i>{html.escape(self.alternative or '')}</i>")  # fmt: skip
        return (f'<div><b style="color:{colour}">{word}</b> '
                f"<code>{html.escape(self.command)}</code> ({scores}){extra}</div>")  # fmt: skip
