"""The thresholds, weights and lifecycle settings of the memory, in one validated record."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ._episode import check_unit

__all__ = ["MemoryConfig"]

_COUNTS = ("consolidate_every", "min_cluster", "capacity", "split_after", "half_life")


@dataclass(frozen=True)
class MemoryConfig:
    """How the memory scores and blocks a command, and how it learns and forgets.

    The episodic similarity of a command to an episode is
    ``alpha * text + (1 - alpha) * scene`` (cosine of the commands' embeddings, and
    :func:`~safetychip.memory.scene_similarity` centred on the objects the two commands act
    on), times ``consolidated_weight`` for an
    episode already summarised by a rule; a command is blocked when it exceeds ``delta_ep``,
    or when a rule of confidence θ ≥ ``theta_min`` matches it above ``delta_sem``.

    Attributes
    ----------
    alpha : float
        Weight of the text similarity, in [0, 1].
    delta_ep : float
        Episode threshold, in [0, 1].
    delta_sem : float
        Rule threshold, in [0, 1].
    delta_safe : float
        A harmless episode at least this similar to a command (and more than every harmful
        one) overrules a matching rule, in [0, 1]; a harmful episode is overruled by any
        harmless one at least as similar.
    verb_weight : float
        The factor of the episodic similarity of a command to an episode whose canonical
        verbs (:data:`~safetychip.memory.VERBS`) differ, in [0, 1]: MiniLM gives "place the
        bat near the lamp" and "throw the bat near the lamp" a cosine of 0.97.
    action_weight : float
        How much the action frames weigh in the episodic similarity of a command checked
        with frames to an episode that has them, in [0, 1]: the similarity is multiplied by
        ``1 - action_weight + action_weight * frames_similarity`` (see
        :func:`~safetychip.memory.frames_similarity`).
    consolidate_every : int
        Consolidate after this many interactions (commands that ran).
    min_cluster : int
        The fewest episodes a cluster needs to become a rule.
    cluster_similarity : float
        Two episodes of one harm and verb cluster together when the cosine of their
        commands' embeddings is at least this (single linkage), in [0, 1]; MiniLM gives
        0.43–0.48 for "push the glass vase off the shelf", "knock the ceramic bowl off the
        table" and "push the plate off the counter".
    consolidated_weight : float
        The retrieval weight of a consolidated episode, in [0, 1].
    capacity : int
        The most live (not archived) episodes, harmful and harmless; beyond it the memory
        archives, and says so once (:class:`~safetychip.errors.MemoryCapacityWarning`).
        1000 by measurement (``benchmarks/bench_memory_paired.py --capacity N``, word
        stand-in, 5-fold over 526 training episodes a fold): false refusals 49.5% at 100,
        6.4% at 300, 3.0% at 1000, at refusal rates of 97.3%, 94.8% and 96.4%.
    override_factor : float
        An override multiplies θ (or an episode's confidence) by this, in [0, 1].
    split_after : int
        After this many overrides a rule is split into specific ones (an episode archived).
    half_life : int
        A rule not reinforced for this many interactions loses half its θ.
    theta_min : float
        Rules of lower θ no longer block, in [0, 1].

    Raises
    ------
    ValueError
        If a weight or threshold is not a number in [0, 1], or a count not a positive
        integer; the message names the field.

    Examples
    --------
    >>> MemoryConfig().delta_ep, MemoryConfig().consolidate_every
    (0.8, 50)
    >>> MemoryConfig(delta_ep=1.5)
    Traceback (most recent call last):
    ...
    ValueError: MemoryConfig.delta_ep must be a number in [0, 1], got 1.5
    >>> MemoryConfig(capacity=0)
    Traceback (most recent call last):
    ...
    ValueError: MemoryConfig.capacity must be a positive integer, got 0
    """

    alpha: float = 0.6
    delta_ep: float = 0.8
    delta_sem: float = 0.7
    delta_safe: float = 0.9
    verb_weight: float = 0.5
    action_weight: float = 0.5
    consolidate_every: int = 50
    min_cluster: int = 3
    cluster_similarity: float = 0.4
    consolidated_weight: float = 0.9
    capacity: int = 1000
    override_factor: float = 0.7
    split_after: int = 3
    half_life: int = 500
    theta_min: float = 0.05

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name not in _COUNTS:
                check_unit(f"MemoryConfig.{f.name}", value)
            elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"MemoryConfig.{f.name} must be a positive integer, got {value!r}")
