"""The thresholds and weights of retrieval and blocking, in one validated record."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ._episode import check_unit

__all__ = ["MemoryConfig"]


@dataclass(frozen=True)
class MemoryConfig:
    """How the memory scores and blocks a command.

    The episodic similarity of a command to an episode is
    ``alpha * text + (1 - alpha) * scene`` (cosine of the commands' embeddings, and
    :func:`~safetychip.memory.scene_similarity`); a command is blocked when it exceeds
    ``delta_ep``, or when a rule matches it above ``delta_sem``.

    Attributes
    ----------
    alpha : float
        Weight of the text similarity, in [0, 1].
    delta_ep : float
        Episode threshold, in [0, 1].
    delta_sem : float
        Rule threshold, in [0, 1].

    Raises
    ------
    ValueError
        If a value is not a number in [0, 1]; the message names the field.

    Examples
    --------
    >>> MemoryConfig()
    MemoryConfig(alpha=0.6, delta_ep=0.8, delta_sem=0.7)
    >>> MemoryConfig(delta_ep=1.5)
    Traceback (most recent call last):
    ...
    ValueError: MemoryConfig.delta_ep must be a number in [0, 1], got 1.5
    """

    alpha: float = 0.6
    delta_ep: float = 0.8
    delta_sem: float = 0.7

    def __post_init__(self) -> None:
        for f in fields(self):
            check_unit(f"MemoryConfig.{f.name}", getattr(self, f.name))
