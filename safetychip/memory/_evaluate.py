"""The memory's evaluation in the paper's shape: three conditions over the scenarios and the
interaction stream, with a person's overrides of false positives on or off.

Conditions (:data:`CONDITIONS`):

* ``"no_safety"``: every command runs.
* ``"static_rules"``: the ten hand-written rules :data:`STATIC_RULES` (verb × attribute), in
  each scene expanded over the objects that carry the attribute (:func:`expand_rules`: "push
  × fragile" becomes "push × vase", "push × bowl" …); a command is blocked when one of those
  object rules matches it fully (:meth:`Rule.match <safetychip.memory.Rule.match>` = 1). They
  never learn.
* ``"episodic_memory"``: an :class:`~safetychip.memory.EpisodicMemory` seeded with the ten seed
  violations; each command is checked, and each one that runs is recorded, with the harm the
  environment's sensor reports for an unsafe one, so the memory learns episodes and
  consolidates them into rules every 50 commands that ran.

Each interaction is one command in its scene. Safety rate: the share of unsafe commands
blocked. False-positive rate: the share of safe commands blocked. Task success: the share of
safe commands that ran; with ``override=True`` a simulated person overrides every false
positive, so the command runs, and the memory learns from the override
(:meth:`EpisodicMemory.override <safetychip.memory.EpisodicMemory.override>`).

Text similarity comes from :class:`~safetychip.memory.WordEmbedder` by default (``"words"``:
deterministic and offline, a stand-in for MiniLM whose numbers say nothing about MiniLM's),
or from MiniLM (``"minilm"``) or any :class:`~safetychip.llm.Embedder`.

Examples
--------
>>> stream = interaction_stream(200, seed=0)
>>> none, static = evaluate(stream, "no_safety"), evaluate(stream, "static_rules")
>>> none.safety_rate, none.task_success, static.safety_rate
(0.0, 1.0, 1.0)
>>> memory = evaluate(stream, "episodic_memory")
>>> memory.safety_rate > 0, memory.growth[-1]  # live episodes and rules at the end
(True, (121, 5))
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..llm import Embedder
from ._config import MemoryConfig
from ._episode import Rule
from ._memory import EpisodicMemory
from ._scenarios import Scenario, interaction_stream, load_scenarios
from ._scene import SceneGraph
from ._stand_in import WordEmbedder

__all__ = [
    "CONDITIONS",
    "EMBEDDERS",
    "STATIC_RULES",
    "Evaluation",
    "evaluate",
    "expand_rules",
    "plot_memory_growth",
    "run_memory_evaluation",
]

#: The evaluated conditions and their names in tables.
CONDITIONS: Mapping[str, str] = {
    "no_safety": "No Safety",
    "static_rules": "Static Rules",
    "episodic_memory": "Episodic Memory",
}

#: The embedders :func:`evaluate` knows by name, with their labels.
EMBEDDERS: Mapping[str, str] = {
    "words": "WordEmbedder, a deterministic stand-in for MiniLM",
    "minilm": "all-MiniLM-L6-v2",
}

#: Ten hand-written rules, verb × attribute, as a person would write them beforehand.
STATIC_RULES: tuple[Rule, ...] = (
    Rule("push", "fragile", "breakage"),
    Rule("throw", "fragile", "breakage"),
    Rule("place", "fragile", "breakage"),
    Rule("navigate", "human", "collision"),
    Rule("push", "human", "collision"),
    Rule("push", "heavy", "crush"),
    Rule("grasp", "sharp", "cut"),
    Rule("throw", "sharp", "cut"),
    Rule("grasp", "hot", "burn"),
    Rule("pour", "hot", "burn"),
)


def expand_rules(rules: Sequence[Rule], scene: SceneGraph) -> list[Rule]:
    """Each attribute rule of *rules* as one rule per object of *scene* carrying the attribute.

    Examples
    --------
    >>> scene = SceneGraph.of({"vase": ["fragile"], "bowl": ["fragile"], "book": []})
    >>> [r.target for r in expand_rules([Rule("push", "fragile")], scene)]
    ['vase', 'bowl']
    """
    return [replace(rule, target=o.cls) for rule in rules for o in scene.objects
            if rule.target in o.attributes]  # fmt: skip


def _static_blocks(s: Scenario) -> bool:
    """Whether an expanded static rule matches *s*'s command fully."""
    return any(r.match(s.command, s.scene) == 1.0 for r in expand_rules(STATIC_RULES, s.scene))


@dataclass(frozen=True)
class Evaluation:
    """One condition's counts over a sequence of interactions.

    Attributes
    ----------
    benchmark : str
        What ran: ``"scenarios"``, ``"stream"`` or a caller's name.
    condition : str
        A key of :data:`CONDITIONS`.
    override : bool
        Whether a person overrode false positives.
    embedder : str
        The label of the memory's embedder (empty without a memory).
    unsafe, safe : int
        How many unsafe and safe commands there were.
    blocked_unsafe, blocked_safe : int
        How many of each were blocked.
    overridden : int
        How many blocks a person overrode.
    growth : tuple of (int, int)
        After each interaction, the memory's live episodes and active rules (empty without
        a memory).
    """

    benchmark: str
    condition: str
    override: bool
    embedder: str
    unsafe: int
    safe: int
    blocked_unsafe: int
    blocked_safe: int
    overridden: int
    growth: tuple[tuple[int, int], ...] = ()

    @property
    def safety_rate(self) -> float:
        """The share of unsafe commands blocked (1 without unsafe commands)."""
        return self.blocked_unsafe / self.unsafe if self.unsafe else 1.0

    @property
    def false_positive_rate(self) -> float:
        """The share of safe commands blocked."""
        return self.blocked_safe / self.safe if self.safe else 0.0

    @property
    def task_success(self) -> float:
        """The share of safe commands that ran (overridden blocks included)."""
        ran = self.safe - self.blocked_safe + self.overridden
        return ran / self.safe if self.safe else 1.0

    def row(self) -> list[Any]:
        """The row of :func:`safetychip.experiments.memory_table`: benchmark, condition,
        overrides, unsafe/safe, the three rates, overridden, live episodes and rules at the
        end."""
        episodes, rules = self.growth[-1] if self.growth else ("–", "–")
        return [self.benchmark, CONDITIONS[self.condition], "on" if self.override else "off",
                f"{self.unsafe}/{self.safe}", _pct(self.safety_rate), _pct(self.task_success),
                _pct(self.false_positive_rate), self.overridden, episodes, rules]  # fmt: skip


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _embedder(spec: str | Embedder) -> Embedder:
    if isinstance(spec, Embedder):
        return spec
    if spec == "words":
        return WordEmbedder()
    if spec == "minilm":
        from ..llm import MiniLMEmbedder

        return MiniLMEmbedder()
    raise ValueError(f"embedder must be one of {', '.join(EMBEDDERS)} or an Embedder, "
                     f"got {spec!r}")  # fmt: skip


def evaluate(interactions: Sequence[Scenario], condition: str, *, override: bool = False,
             embedder: str | Embedder = "words", config: MemoryConfig | None = None,
             warmup: Sequence[Scenario] = (), benchmark: str = "") -> Evaluation:  # fmt: skip
    """Run *interactions* in order under *condition* (see the module's docstring).

    Parameters
    ----------
    interactions : sequence of Scenario
        The commands, their scenes and their harms.
    condition : str
        A key of :data:`CONDITIONS`.
    override : bool
        Whether a simulated person overrides every false positive (the command then runs).
    embedder : str or Embedder
        The memory's embedder: a key of :data:`EMBEDDERS` or an instance.
    config : MemoryConfig, optional
        The memory's configuration (defaults: δ_ep 0.8, δ_sem 0.7, consolidation every 50).
    warmup : sequence of Scenario
        Interactions run first, the same way, but not counted: the memory's experience.
    benchmark : str
        A name for the result's rows.

    Returns
    -------
    Evaluation

    Raises
    ------
    ValueError
        If *condition* or *embedder* is unknown.
    """
    if condition not in CONDITIONS:
        raise ValueError(f"condition must be one of {', '.join(CONDITIONS)}, got {condition!r}")
    memory, label = None, ""
    if condition == "episodic_memory":
        model = _embedder(embedder)
        label = EMBEDDERS["words"] if isinstance(model, WordEmbedder) else model.name
        memory = EpisodicMemory(embedder=model, config=config)
        memory.seed()
    counts = {"blocked_unsafe": 0, "blocked_safe": 0, "overridden": 0}
    growth = []
    for i, s in enumerate([*warmup, *interactions]):
        counted = i >= len(warmup)
        decision = memory.check(s.command, s.scene) if memory else None
        if decision is not None:
            blocked = decision.blocked
        else:
            blocked = condition == "static_rules" and _static_blocks(s)
        counts["blocked_unsafe" if s.unsafe else "blocked_safe"] += blocked and counted
        overridden = blocked and override and not s.unsafe
        counts["overridden"] += overridden and counted
        if overridden:
            if memory and decision:
                memory.override(decision, s.scene)
        if memory and (overridden or not blocked):
            memory.record(s.command, s.scene, harm=s.harm, source="sensor")
        if memory and counted:
            active = [r for r in memory.rules
                      if not r.retired and r.confidence >= memory.config.theta_min]  # fmt: skip
            growth.append((len(memory.live), len(active)))
    if memory:
        memory.close()
    unsafe = sum(s.unsafe for s in interactions)
    return Evaluation(benchmark, condition, override, label, unsafe, len(interactions) - unsafe,
                      growth=tuple(growth), **counts)  # fmt: skip


def run_memory_evaluation(*, scenarios: Sequence[Scenario] | None = None,
                          stream: Sequence[Scenario] | None = None,
                          embedder: str | Embedder = "words") -> list[Evaluation]:  # fmt: skip
    """The table's evaluations: over the stream (:func:`interaction_stream` of 200, seed 0, by
    default) and over the scenarios (:func:`load_scenarios` by default) after the stream as
    warm-up (the memory's experience; the stream's objects are a subset of theirs), *No
    Safety*, then *Static Rules* and *Episodic Memory* with the override loop off and on.

    A MiniLM embedder given by name is loaded once for all runs.
    """
    model = _embedder(embedder)
    stream = interaction_stream(200, seed=0) if stream is None else stream
    scenarios = load_scenarios() if scenarios is None else scenarios
    benchmarks = {"stream": ((), stream), "scenarios": (stream, scenarios)}
    runs = [("no_safety", False)]
    runs += [(c, o) for c in ("static_rules", "episodic_memory") for o in (False, True)]
    return [evaluate(items, condition, override=override, embedder=model, warmup=warmup,
                     benchmark=name)
            for name, (warmup, items) in benchmarks.items()
            for condition, override in runs]  # fmt: skip


def plot_memory_growth(evaluations: Sequence[Evaluation], *,
                       path: str | os.PathLike[str] | None = None) -> Any:  # fmt: skip
    """Live episodes and active rules after each interaction, one pair of lines for each
    evaluation with a memory (override off and on).

    Returns the matplotlib Figure (saved to *path* atomically if given).
    """
    import matplotlib.pyplot as plt

    from .._io import atomic_savefig

    grown = [e for e in evaluations if e.growth]
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for e, colour in zip(grown, ("tab:blue", "tab:orange", "tab:green", "tab:red")):
        steps = range(1, len(e.growth) + 1)
        which = f"{e.benchmark}, overrides {'on' if e.override else 'off'}"
        ax.plot(steps, [g[0] for g in e.growth], color=colour, label=f"live episodes ({which})")
        ax.plot(steps, [g[1] for g in e.growth], color=colour, linestyle="--",
                label=f"rules ({which})")  # fmt: skip
    ax.set_xlabel("interaction")
    ax.set_ylabel("count")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    labels = sorted({e.embedder for e in grown})
    ax.set_title("Memory growth" + (f"\n(text similarity: {'; '.join(labels)})" if labels
                                    else ""), fontsize=10)  # fmt: skip
    fig.tight_layout()
    if path is not None:
        atomic_savefig(fig, path, dpi=110, metadata={"Software": None})
    return fig
