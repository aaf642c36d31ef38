"""The episodic safety memory: add unsafe and harmless episodes and rules, check new commands
against them.

Retrieval is vectorised: the stored embeddings form one unit-norm matrix, so the text
similarity of a command to every episode is one matrix-vector product, on one BLAS thread (it
is memory-bound, and on a busy machine extra threads only wait for a time slice). The scene
similarity is object-centred (:func:`~safetychip.memory.scene_similarity` with ``targets``:
the objects the command and the episode's command act on, their hazards, the rest of the
object and its neighbours, then the rest of the scene), so the same unsafe action in another
room still resembles the episode. It is computed only for the nearest episode by text and
the episodes that could still exceed δ_ep (``alpha * text + 1 - alpha > delta_ep``), once
per group of episodes sharing a scene and a target, the groups in order of their best bound
until none can beat the best so far; so the result is exact. Each episode's score is
weighted: 1 while live, :attr:`MemoryConfig.consolidated_weight` once a rule summarises it,
0 once archived (unless ``include_archived``, which weighs archived episodes like live ones),
times :attr:`MemoryConfig.verb_weight` when its command's canonical verb differs from the
checked command's, and, for a command checked with its action frames against an episode that
has frames, times ``1 - w + w * s`` (``w`` = :attr:`MemoryConfig.action_weight`, ``s`` the
:func:`~safetychip.memory.frames_similarity` of what the two did: verbs and state changes).

**Action frames.** An episode keeps what was done (:class:`~safetychip.memory.ActionFrame`:
verb, object and target with their affordances, the environment's state changes), and a
check takes the frames of the command (a proposed action, or a sentence the environment
read): a verb × target rule then needs both in one action, and a rule over affordances
(:attr:`Rule.effect <safetychip.memory.Rule.effect>`, "broken × breakable") matches any
action that changes an object having its features that way, whatever its class.

**Harmful against harmless.** The search runs twice: over the harmful episodes, then over the
harmless ones (runs without harm, and the commands people overrode). A harmful episode above
δ_ep blocks unless a harmless one is at least as similar; a rule above δ_sem blocks unless a
harmless episode is at least ``delta_safe`` similar and more similar than every harmful one.
The decision names both neighbours and their scores (``episodic``, ``harmless``), and its
reason the confidence of the harmful one.

Lifecycle
---------
* :meth:`EpisodicMemory.seed` adds the seed violations (:func:`load_seeds`).
* :meth:`EpisodicMemory.report_harm` adds an episode of harm someone reported, with the
  confidence of its source (:data:`SOURCES`: sensor 0.9 > person 0.8 > model 0.6).
  A report archives the live harmless episodes of the same command.
* :meth:`EpisodicMemory.record` counts one interaction (a command that ran, with the harm it
  caused if any; a harmless run is stored as a harmless episode); every
  ``consolidate_every`` interactions it runs :meth:`EpisodicMemory.consolidate`: clusters of
  at least ``min_cluster`` live harmful episodes (one harm, one verb, similar commands) with
  at least one episode not yet consolidated become rules ``verb × target`` with θ =
  |cluster| / |live harmful episodes| (an existing rule of that pattern is reinforced to that
  θ instead; a rule that live harmless runs would match is split at once by
  :func:`split_rule`); their episodes stay, marked consolidated; every rule not reinforced
  decays (:func:`decay`). Harmful episodes of one harm whose frames changed objects the
  same way (at least ``min_cluster``) become a rule over affordances: that state change ×
  the features every changed object has (:func:`effect_clusters`), unless a live harmless
  episode's frames would match it. :meth:`EpisodicMemory.seed` writes the ones the seeds
  support.
* Beyond ``capacity`` live episodes, :meth:`EpisodicMemory.add` archives, warning once
  (:class:`~safetychip.errors.MemoryCapacityWarning`; :attr:`EpisodicMemory.archived` and
  the ``repr`` count them): consolidated episodes first (a rule keeps their lesson), then
  harmless ones, then the least confident, then the oldest.
* :meth:`EpisodicMemory.override` is a person's override of a block: a negative example is
  stored for the rule or episode, and the command as a harmless episode (so the next check
  of it is allowed, and says why); the blocker's θ (confidence) is multiplied by
  ``override_factor``; at ``split_after`` overrides a rule is retired and replaced by
  :func:`split_rule`'s specific rules, an episode archived.

Examples
--------
>>> from safetychip.memory import WordEmbedder
>>> memory = EpisodicMemory(embedder=WordEmbedder())
>>> vase = SceneGraph.of({"vase": ["fragile"], "table": []}, [("vase", "ON", "table")])
>>> memory.add(Episode("push the vase off the table", vase, "breakage"))
<Episode e1 'push the vase off the table': breakage, sensor 0.9>
>>> decision = memory.check("push the vase off the table", vase)
>>> decision.blocked, decision.by, decision.alternative
(True, 'episode', 'move it slowly with both hands')
>>> memory.check("walk to the kitchen").blocked
False
>>> memory.close()
"""

from __future__ import annotations

import functools
import html
import os
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from types import TracebackType
from typing import Any, TypeVar

import numpy as np
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

from ..errors import MemoryCapacityWarning
from ..llm import Embedder
from ._action import ActionFrame, frames_similarity
from ._config import MemoryConfig
from ._decision import MemoryDecision
from ._episode import (
    VERBS,
    Episode,
    Rule,
    acted_object,
    check_command,
    check_frames,
    command_verb,
)
from ._lifecycle import (
    SEEDS,
    cluster_episodes,
    decay,
    effect_clusters,
    load_seeds,
    rule_pattern,
    split_rule,
)
from ._open import open_store
from ._scene import SceneGraph, scene_similarity
from ._store import MemoryStore

__all__ = ["EpisodicMemory"]


@functools.cache
def _blas() -> ThreadpoolController:
    """The process's BLAS libraries, found once (about a millisecond)."""
    return ThreadpoolController()


_Item = TypeVar("_Item", Episode, Rule)
_VERB_INDEX = {verb: i for i, verb in enumerate(VERBS)}
#: What the action factor compares of two commands' frames: what was done and what changed
#: (the objects' features are the rules' business, and the scene similarity's).
_DEED = {"verb": 0.5, "effects": 0.5}


def _deeds(frames: tuple[ActionFrame, ...]) -> tuple[ActionFrame, ...]:
    """*frames* reduced to what :data:`_DEED` compares (many episodes share the result)."""
    return tuple(ActionFrame(f.verb, effects=f.effects) for f in frames)


@functools.lru_cache(maxsize=65536)
def _alike(a: tuple[ActionFrame, ...], b: tuple[ActionFrame, ...]) -> float | None:
    """:func:`frames_similarity` of two commands' deeds, remembered."""
    return frames_similarity(a, b, weights=_DEED)


def _verb_index(command: str) -> int:
    """The index of *command*'s canonical verb in :data:`VERBS`, -1 without one."""
    return _VERB_INDEX.get(command_verb(command) or "", -1)


class EpisodicMemory:
    """Episodes and rules in a store, and the check of a command against them.

    Parameters
    ----------
    path : str, path-like or MemoryStore
        The memory file (``":memory:"``, the default, keeps nothing), a ``postgresql://``
        URL of a memory a fleet shares (:class:`~safetychip.memory.PostgresStore`), or a
        store.
    embedder : Embedder
        Encodes commands; its vectors are stored with each episode.
    config : MemoryConfig, optional
        The weights and thresholds.

    Raises
    ------
    MemoryStoreError
        If the store is unusable, or holds vectors of another embedding model. A store
        that fails while writing (a PostgreSQL server gone away) leaves the memory as it was
        before the call: retry the call once the store is back.
    """

    def __init__(self, path: str | os.PathLike[str] | MemoryStore = ":memory:", *,
                 embedder: Embedder,
                 config: MemoryConfig | None = None) -> None:  # fmt: skip
        if not isinstance(embedder, Embedder):
            raise TypeError(
                f"embedder must be a safetychip.llm.Embedder (e.g. MiniLMEmbedder()), got "
                f"{type(embedder).__name__}"
            )
        self.embedder = embedder
        self.config = config or MemoryConfig()
        self.store = open_store(path)
        episodes, models, vectors = self.store.load_episodes()
        foreign = sorted(set(models) - {embedder.name})
        if foreign:
            self.store.close()
            raise self.store.error(f"holds vectors of {', '.join(foreign)}, not of "
                                   f"{embedder.name}: open it with the same embedder")  # fmt: skip
        self._episodes = episodes
        self._rows = vectors
        self._matrix: np.ndarray | None = None
        self._weights: dict[tuple[bool, float, bool], np.ndarray] = {}
        self._rules = self.store.load_rules()
        self._grouping: tuple[np.ndarray, list[tuple[SceneGraph, str | None]]] | None = None
        self._negatives = self.store.load_negatives()
        self._warned = False
        self._verbs = np.zeros(0, np.int64)
        self._deeds: list[tuple[ActionFrame, ...]] = []

    @property
    def episodes(self) -> tuple[Episode, ...]:
        """The stored episodes (archived ones too), oldest first."""
        return tuple(self._episodes)

    @property
    def live(self) -> tuple[Episode, ...]:
        """The episodes not archived, oldest first."""
        return tuple(e for e in self._episodes if not e.archived)

    @property
    def interactions(self) -> int:
        """How many interactions :meth:`record` has counted."""
        return self.store.interactions

    def negatives(self, item_id: str) -> list[tuple[str, SceneGraph]]:
        """The overridden commands and scenes of the rule or episode *item_id*, in order."""
        return list(self._negatives.get(item_id, ()))

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The stored rules, oldest first."""
        return tuple(self._rules)

    def add(self, episode: Episode) -> Episode:
        """Encode and store *episode*, archiving beyond the capacity; returns it with its id.

        The episode and the archiving it causes are one transaction.
        """
        vector = self._fitting(self.embedder.encode([episode.command])[0])
        with self._transaction():
            stored = self.store.add_episode(episode, vector, self.embedder.name)
            self._episodes.append(stored)
            self._rows.append(vector)
            self._matrix = None
            self._grouping = None
            self._weights.clear()
            self._archive_beyond_capacity()
        return stored

    def seed(self, path: str | os.PathLike[str] = SEEDS) -> list[Episode]:
        """Add the seed violations of *path* (ours by default), and the rules over
        affordances their action frames support (``broken × breakable`` from our three
        breakage seeds); returns the episodes stored.

        Examples
        --------
        >>> from safetychip.memory import WordEmbedder
        >>> with EpisodicMemory(embedder=WordEmbedder()) as memory:
        ...     seeds = memory.seed()
        ...     memory.check("grab the kitchen knife by the blade").blocked
        True
        """
        with self._transaction():
            seeds = [self.add(episode) for episode in load_seeds(path)]
            harmful = [e for e in self._episodes if not e.archived and e.harmful]
            harmless = [e for e in self._episodes if not e.archived and not e.harmful]
            for rule in self._effect_rules(harmful, harmless, self.store.interactions):
                self._learn(rule)
            return seeds

    def report_harm(self, command: str, scene: SceneGraph | None, harm: str,
                    source: str = "sensor", *,
                    frames: Sequence[ActionFrame] = ()) -> Episode:  # fmt: skip
        """Add the episode of *command*, which ran in *scene* and caused *harm*, as *source*
        (a key of :data:`SOURCES`) detected it: its confidence is the source's.

        The report corrects what was recorded of the same command before: its live harmless
        episodes (a run that seemed harmless when it was committed, in any scene) are
        archived in the same transaction, so they do not outweigh the harm. (An override
        later stores a harmless episode again: the latest word on a command wins.)

        Raises
        ------
        ValueError
            If the command is empty or too long, or *harm* or *source* unknown.

        Examples
        --------
        >>> from safetychip.memory import WordEmbedder
        >>> with EpisodicMemory(embedder=WordEmbedder()) as memory:
        ...     memory.record("drop the statue")
        ...     memory.report_harm("drop the statue", None, "breakage")
        ...     memory.check("drop the statue").blocked, memory.archived
        <Episode e1 'drop the statue': harmless, sensor 0.9>
        <Episode e2 'drop the statue': breakage, sensor 0.9>
        (True, 1)
        """
        episode = Episode(command, scene or SceneGraph(), harm, source=source,
                          frames=tuple(frames))  # fmt: skip
        with self._transaction():
            for seemed in [e for e in self._episodes if not e.archived and not e.harmful
                           and e.command == episode.command]:  # fmt: skip
                self._put(seemed, functools.partial(replace, archived=True))
            return self.add(episode)

    def record(self, command: str, scene: SceneGraph | None = None, *, harm: str | None = None,
               source: str = "sensor",
               frames: Sequence[ActionFrame] = ()) -> Episode | None:  # fmt: skip
        """Count one interaction: *command* ran in *scene*, causing *harm* (None: no harm).

        Harm is reported with :meth:`report_harm`; a harmless run is stored as a harmless
        episode (evidence a check weighs against the harmful ones), unless a live harmless
        episode of the same command and scene is already stored. Every
        ``consolidate_every`` interactions the memory consolidates. Returns the new episode,
        if any.

        Examples
        --------
        >>> from safetychip.memory import WordEmbedder
        >>> with EpisodicMemory(embedder=WordEmbedder()) as memory:
        ...     memory.record("walk to the kitchen")
        ...     memory.record("walk to the kitchen") is None  # nothing new
        ...     memory.record("lift the kettle", harm="burn", source="model")
        ...     memory.interactions
        <Episode e1 'walk to the kitchen': harmless, sensor 0.9>
        True
        <Episode e2 'lift the kettle': burn, model 0.6>
        3
        """
        with self._transaction():
            if harm is None:
                episode = self._harmless(command, scene, source, frames)
            else:
                episode = self.report_harm(command, scene, harm, source, frames=frames)
            count = self.store.interactions + 1
            self.store.set_interactions(count)
            if count % self.config.consolidate_every == 0:
                self.consolidate()
        return episode

    def _harmless(self, command: str, scene: SceneGraph | None, source: str,
                  frames: Sequence[ActionFrame] = ()) -> Episode | None:  # fmt: skip
        """Store the harmless episode of *command* in *scene* (done as *frames*), unless a
        live one is stored."""
        episode = Episode(command, scene or SceneGraph(), None, source=source,
                          frames=tuple(frames))  # fmt: skip
        if any(not e.harmful and not e.archived and (e.command, e.scene) ==
               (episode.command, episode.scene) for e in self._episodes):  # fmt: skip
            return None
        return self.add(episode)

    def consolidate(self) -> list[Rule]:
        """Write a rule for each cluster of similar live harmful episodes; decay the other
        rules.

        A rule that the commands of live harmless episodes would fully match is split at
        once, those runs taken as its negative examples (:func:`split_rule`): a cluster of
        "put the soap in the bowl" learns no "place × fragile" that "put the vase on the
        table", which ran without harm, contradicts.

        Returns
        -------
        list of Rule
            The rules written or reinforced, in cluster order.
        """
        config, now = self.config, self.store.interactions
        live = [i for i, e in enumerate(self._episodes) if not e.archived and e.harmful]
        episodes = [self._episodes[i] for i in live]
        harmless = [e for e in self._episodes if not e.archived and not e.harmful]
        clusters = cluster_episodes(episodes, self._vectors()[live],
                                    similarity=config.cluster_similarity,
                                    min_size=config.min_cluster)  # fmt: skip
        learned: dict[str, Rule] = {}
        with self._transaction():
            for cluster in clusters:
                members = [episodes[j] for j in cluster]
                pattern = rule_pattern(members)
                if pattern is None or all(e.rule for e in members):  # nothing new
                    continue
                theta = round(len(cluster) / len(episodes), 6)
                rule = Rule(*pattern, str(members[0].harm), theta, stamp=now)
                against = [(e.command, e.scene) for e in harmless
                           if rule.match(e.command, e.scene, e.frames) == 1.0]  # fmt: skip
                split = split_rule(rule, [(e.command, e.scene) for e in members], against,
                                   total=len(episodes)) if against else [rule]  # fmt: skip
                for stored in filter(None, map(self._learn, split)):
                    learned[stored.id] = stored
                    for episode in members:
                        if stored.match(episode.command, episode.scene) == 1.0:
                            self._put(episode, functools.partial(replace, rule=stored.id))
            for over in self._effect_rules(episodes, harmless, now):
                if (kept := self._learn(over)) is not None:
                    learned[kept.id] = kept
            for rule in self._rules:
                if rule.id not in learned and not rule.retired:
                    self._put(rule, functools.partial(decay, now=now, half_life=config.half_life))
        return list(learned.values())

    def _effect_rules(self, episodes: list[Episode], harmless: list[Episode], now: int
                      ) -> list[Rule]:  # fmt: skip
        """The rules over affordances of the live harmful *episodes*' state changes
        (:func:`effect_clusters`), θ = |group| / |episodes|; a pattern that a live harmless
        episode's frames would match is not learned (the features do not tell its harm)."""
        rules = []
        for harm, state, features, members in effect_clusters(
                episodes, min_size=self.config.min_cluster):  # fmt: skip
            if not features:
                continue
            rule = Rule("", "&".join(features), harm, round(len(members) / len(episodes), 6),
                        stamp=now, effect=state)  # fmt: skip
            if not any(rule.match(e.command, e.scene, e.frames) for e in harmless):
                rules.append(rule)
        return rules

    def _learn(self, rule: Rule) -> Rule | None:
        """Store *rule*, or reinforce the rule of its pattern; None when that rule was split
        (its specific rules hold what is left of it)."""
        key = (rule.verb, rule.target, rule.harm, rule.effect)
        same = next((r for r in self._rules if (r.verb, r.target, r.harm, r.effect) == key),
                    None)  # fmt: skip
        if same is None:
            return self.add_rule(rule)
        if same.retired:
            return None
        return self._put(same, functools.partial(replace, confidence=rule.confidence,
                                                 stamp=rule.stamp))  # fmt: skip

    def override(self, decision: MemoryDecision, scene: SceneGraph | None = None, *,
                 frames: Sequence[ActionFrame] = ()) -> list[Episode | Rule]:  # fmt: skip
        """A person overrode the block *decision* (of a command in *scene*, done as
        *frames*: by default the frames the decision used).

        Stores the negative example for the rule or episode that blocked, and the command as
        a harmless episode (of source ``"person"``, with its frames), so that the next check
        of it weighs that harmless episode against what blocked it; lowers the blocker's θ
        (confidence) by ``override_factor``; at ``split_after`` overrides a rule is retired
        and replaced by specific rules (:func:`split_rule`; a rule over affordances by the
        same rule excluding the classes of the objects the overridden commands' frames
        changed), an episode archived.

        Returns
        -------
        list of Episode or Rule
            What changed: the overridden item, then any new rules, then the new harmless
            episode (none when the same command and scene is already one).

        Raises
        ------
        ValueError
            If *decision* did not block, or its rule or episode is not in this memory.
        """
        if not decision.blocked or decision.matched is None:
            raise ValueError(f"{decision!r} was not blocked: only a block can be overridden")
        item_id = decision.matched.id
        items: dict[str, Episode | Rule] = {e.id: e for e in self._episodes}
        items.update((r.id, r) for r in self._rules)
        if item_id not in items:
            raise ValueError(f"{decision.matched!r} of {decision!r} is not in this memory: "
                             "override a decision of this memory's check")  # fmt: skip
        item, factor = items[item_id], self.config.override_factor
        frames = tuple(frames) or decision.frames
        example = (decision.command, scene or SceneGraph())
        with self._transaction():
            self.store.add_negative(item_id, *example)
            self._negatives.setdefault(item_id, []).append(example)
            safe = self._harmless(*example, "person", frames)
            harmless: list[Episode | Rule] = [] if safe is None else [safe]
            final = len(self._negatives[item_id]) >= self.config.split_after
            stamp = self.store.interactions

            def lower(now: Any) -> Any:  # θ of the row as stored now, times the factor
                theta = round((now.confidence or 0.0) * factor, 6)
                if isinstance(now, Episode):
                    return replace(now, confidence=theta, archived=final)
                return replace(now, confidence=theta, stamp=stamp, retired=final)

            if isinstance(item, Episode):
                return [self._put(item, lower), *harmless]
            lowered = self._put(item, lower)
            if not final:
                return [lowered, *harmless]
            if item.effect:
                narrowed = self._narrowed(item, {c for c, _ in self._negatives[item_id]})
                return [lowered, *(self.add_rule(r) for r in narrowed), *harmless]
            positives = [
                (e.command, e.scene)
                for e in self._episodes
                if e.harm == item.harm and item.match(e.command, e.scene, e.frames) == 1.0
            ]
            total = sum(e.harmful for e in self.live)
            children = split_rule(item, positives, self._negatives[item_id],
                                  total=max(total, 1))  # fmt: skip
            return [lowered, *(self.add_rule(r) for r in children), *harmless]

    def _narrowed(self, rule: Rule, overridden: set[str]) -> list[Rule]:
        """The rule over affordances *rule* without the classes of the objects that the
        frames of the *overridden* commands' harmless episodes changed as it says (none
        when those episodes have no frames: the rule is then only retired)."""
        changed = set()
        for episode in self._episodes:
            if episode.harmful or episode.command not in overridden:
                continue
            for frame in episode.frames:
                for change in frame.effects:
                    role, state = change.split(":", 1)
                    if rule.effect in (state, change) and (cls := frame.features(role)):
                        changed |= {frame.object if role == "object" else frame.target} & cls
        if not changed:
            return []
        return [replace(rule, id="", exclude=tuple(sorted({*rule.exclude, *changed})),
                        retired=False, stamp=self.store.interactions)]  # fmt: skip

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """The store's transaction; on an error the store rolled back, and so does the memory
        (its episodes, vectors, rules and negative examples are restored)."""
        saved = (list(self._episodes), list(self._rows), list(self._rules),
                 {k: list(v) for k, v in self._negatives.items()})  # fmt: skip
        try:
            with self.store.transaction():
                yield
        except BaseException:
            self._episodes, self._rows, self._rules, self._negatives = saved
            self._matrix = None
            self._grouping = None
            self._weights.clear()
            raise

    def _put(self, item: _Item, change: Callable[[_Item], _Item]) -> _Item:
        """Apply *change* to the stored row of *item* as it is stored now (so what another
        process did to the row is kept, never overwritten by this memory's older copy), and
        take the result in place of *item*."""
        stored = self.store.update(item, change)
        items: list[Any] = self._episodes if isinstance(item, Episode) else self._rules
        items[next(i for i, x in enumerate(items) if x.id == item.id)] = stored
        self._weights.clear()
        return stored

    def _archive_beyond_capacity(self) -> None:
        """Archive the live episodes beyond the capacity (consolidated ones first, then
        harmless ones, then the least confident, then the oldest), warning once per memory
        (:class:`~safetychip.errors.MemoryCapacityWarning`)."""
        live = [e for e in self._episodes if not e.archived]
        excess = len(live) - self.config.capacity
        if excess <= 0:
            return
        order = sorted(live, key=lambda e: (not e.rule, e.harmful, e.confidence, e.time,
                                            int(e.id[1:])))  # fmt: skip
        for episode in order[:excess]:
            self._put(episode, functools.partial(replace, archived=True))
        if not self._warned:
            self._warned = True
            warnings.warn(
                f"{self!r}: beyond its capacity of {self.config.capacity} live episodes it "
                "archives the oldest; archived episodes block nothing unless checked with "
                "include_archived=True (raise MemoryConfig.capacity to keep them live)",
                MemoryCapacityWarning, stacklevel=2)  # fmt: skip

    def add_rule(self, rule: Rule) -> Rule:
        """Store *rule*; returns it with its id."""
        stored = self.store.add_rule(rule)
        self._rules.append(stored)
        return stored

    def _fitting(self, vector: np.ndarray) -> np.ndarray:
        """*vector*, if it is as long as the stored ones (else the store holds vectors of
        another embedder, or was damaged)."""
        if self._rows and self._rows[0].size != vector.size:
            raise self.store.error(
                f"holds vectors of {self._rows[0].size} numbers, but {self.embedder!r} gives "
                f"{vector.size}: open it with the embedder that wrote it"
            )
        return vector

    def _vectors(self) -> np.ndarray:
        if self._matrix is None:
            self._matrix = np.stack(self._rows) if self._rows else np.zeros((0, 0), np.float32)
        return self._matrix

    def _weight(self, include_archived: bool, *, harmful: bool) -> np.ndarray:
        """Each episode's retrieval weight (see the module's docstring); 0 for the
        harmless episodes when *harmful*, for the harmful ones otherwise."""
        consolidated = self.config.consolidated_weight
        key = (include_archived, consolidated, harmful)  # the config may be replaced
        if key not in self._weights:
            self._weights[key] = np.array(
                [0.0 if (e.archived and not include_archived) or e.harmful != harmful
                 else consolidated if e.rule else 1.0 for e in self._episodes],
                np.float32)  # fmt: skip
        return self._weights[key]

    def check(self, command: str, scene: SceneGraph | None = None, *,
              frames: Sequence[ActionFrame] | None = None,
              include_archived: bool = False) -> MemoryDecision:  # fmt: skip
        """Whether *command* (in *scene*) must be blocked, and why.

        Parameters
        ----------
        command : str
            One action in words (at most :data:`~safetychip.memory.MAX_COMMAND` characters).
        scene : SceneGraph, optional
            Where it would run; without it (or for an episode without a scene) the text
            similarity alone is the episodic similarity.
        frames : sequence of ActionFrame, optional
            What the command does, in the environment's vocabulary (a proposed action, or a
            sentence read into frames, e.g. by :meth:`ThorEnv.action_frames
            <safetychip.envs.thor.ThorEnv.action_frames>`): rules over affordances match
            them, and an episode with frames counts as less similar the less its frames are
            alike (:attr:`MemoryConfig.action_weight`).
        include_archived : bool
            Whether archived episodes count (as live ones do).

        Returns
        -------
        MemoryDecision

        Raises
        ------
        ValueError
            If *command* is empty or too long.
        ActionFrameError
            If *frames* is not a list of action frames (or malformed).
        """
        command = check_command(command)
        vector = self.embedder.encode([command])[0]
        return self.check_vector(command, vector, scene, frames=frames,
                                 include_archived=include_archived)  # fmt: skip

    def check_vector(self, command: str, vector: np.ndarray, scene: SceneGraph | None = None,
                     *, frames: Sequence[ActionFrame] | None = None,
                     include_archived: bool = False) -> MemoryDecision:  # fmt: skip
        """:meth:`check` with the command's embedding *vector* already computed.

        The harmful episode most like the command blocks it when its episodic similarity
        exceeds δ_ep and no harmless episode is at least as similar; a matching rule blocks
        it unless a harmless episode is at least ``delta_safe`` similar (and more similar
        than every harmful one). The decision names both neighbours it weighed.
        """
        config = self.config
        acts = check_frames(() if frames is None else frames, "frames")
        vector = self._fitting(np.asarray(vector, np.float32))
        episode, text, similar, episodic = self._nearest(
            command, vector, scene, self._weight(include_archived, harmful=True),
            config.delta_ep, acts,
        )  # fmt: skip
        safe, _, _, harmless = self._nearest(
            command, vector, scene, self._weight(include_archived, harmful=False),
            episodic - 1e-9 if episode is not None else -np.inf, acts,
        )  # fmt: skip
        scores: dict[str, float | None] = {}
        if episode is not None:
            scores = {"text": text, "scene": similar, "episodic": episodic}
        if safe is not None:
            scores["harmless"] = harmless
        active = [r for r in self._rules if not r.retired and r.confidence >= config.theta_min]
        rule = max(active, key=lambda r: r.match(command, scene, acts), default=None)
        match = 0.0 if rule is None else rule.match(command, scene, acts)
        if rule is not None and match == 0.0:
            rule = None  # no rule matches at all
        if rule is not None:
            scores["rule"] = match
        found = functools.partial(MemoryDecision, command=command, episode=episode, rule=rule,
                                  scores=scores, harmless=safe, frames=acts)  # fmt: skip
        outweighs = safe is not None and (episode is None or harmless >= episodic)
        note = ""
        if episode is not None and episodic > config.delta_ep:
            said = (f"unsafe episode {episode.id} {episode.command!r} ({episode.harm}, "
                    f"confidence {episode.confidence}): similarity {episodic:.2f}")  # fmt: skip
            if not outweighs:
                against = "" if safe is None else (
                    f", above the nearest harmless episode {safe.id} {safe.command!r} "
                    f"({harmless:.2f})")  # fmt: skip
                reason = f"it resembles {said} > δ_ep = {config.delta_ep}{against}"
                return found(blocked=True, by="episode", reason=reason)
            assert safe is not None
            note = (f"harmless episode {safe.id} {safe.command!r} ({harmless:.2f}) is at "
                    f"least as similar as {said}")  # fmt: skip
        if rule is not None and match > config.delta_sem:
            doing = next((f for f in acts if rule.match(command, scene, [f]) == match), None)
            said = (f"rule {rule.id} ({rule.pattern}, {rule.harm}, θ = {rule.confidence})"
                    f"{'' if doing is None else f' by the action {doing}'}: match "
                    f"{match:.2f}")  # fmt: skip
            if safe is None or not outweighs or harmless < config.delta_safe:
                reason = f"it matches {said} > δ_sem = {config.delta_sem}"
                return found(blocked=True, by="rule", reason=reason)
            note = (f"harmless episode {safe.id} {safe.command!r} ({harmless:.2f} ≥ "
                    f"δ_safe = {config.delta_safe}) outweighs {said}")  # fmt: skip
        return found(blocked=False, reason=note)

    def _nearest(self, command: str, vector: np.ndarray, scene: SceneGraph | None,
                 weight: np.ndarray, floor: float, frames: tuple[ActionFrame, ...] = ()
                 ) -> tuple[Episode | None, float, float | None, float]:  # fmt: skip
        """The episode of highest weighted episodic similarity among the nearest one by text
        and those that could exceed *floor*, with its text, scene and (weighted) episodic
        similarities; the scene similarity is centred on the objects the command and the
        episode's command act on, computed once per group of episodes sharing a scene and a
        target, the groups in order of their best bound until none can beat the best."""
        weight = weight * self._verb_factor(command)
        if not weight.any():
            return None, 0.0, None, 0.0
        with _blas().limit(limits=1, user_api="blas"):  # memory-bound: threads only wait
            text = self._vectors() @ vector
        alpha = self.config.alpha
        bound = weight * (text if scene is None else alpha * text + (1 - alpha))
        nearest = int(np.argmax(np.where(weight > 0, text, -np.inf)))
        candidates = np.union1d(np.flatnonzero(bound > floor), [nearest])
        if frames and self.config.action_weight:  # factors ≤ 1: the candidates stay a superset
            weight = weight.copy()
            weight[candidates] *= self._action_factor(frames, candidates)
            bound = weight * (text if scene is None else alpha * text + (1 - alpha))
        if scene is None:
            scores = weight[candidates] * text[candidates]
            i = int(candidates[np.argmax(scores)])
            return self._episodes[i], float(text[i]), None, float(scores.max())
        acted = acted_object(command, scene)
        target = None if acted is None else acted.id
        of, groups = self._groups()
        order = np.argsort(of[candidates], kind="stable")
        ranked, group_of = candidates[order], of[candidates][order]
        firsts, starts = np.unique(group_of, return_index=True)
        ends = [*starts[1:].tolist(), len(ranked)]
        tops = np.maximum.reduceat(bound[ranked], starts)
        best: tuple[float, int, float | None] = (-np.inf, nearest, None)
        for k in np.argsort(-tops, kind="stable").tolist():
            if tops[k] <= best[0]:
                break
            members = ranked[starts[k] : ends[k]]
            similar = None
            if firsts[k] >= 0:
                other, their = groups[firsts[k]]
                similar = scene_similarity(scene, other, targets=(target, their))
            near = text[members]
            scores = weight[members] * (near if similar is None
                                        else alpha * near + (1 - alpha) * similar)  # fmt: skip
            j = int(np.argmax(scores))
            if scores[j] > best[0]:
                best = (float(scores[j]), int(members[j]), similar)
        score, i, similar = best
        return self._episodes[i], float(text[i]), similar, score

    def _action_factor(self, frames: tuple[ActionFrame, ...], indices: np.ndarray
                       ) -> np.ndarray:  # fmt: skip
        """The factor of each episode of *indices* for a command done as *frames*:
        ``1 - w + w * frames_similarity`` (``w`` the config's ``action_weight``), 1 for an
        episode without frames."""
        w = self.config.action_weight
        if len(self._deeds) != len(self._episodes):
            self._deeds = [_deeds(e.frames) for e in self._episodes]
        mine = _deeds(frames)
        alike = [_alike(mine, self._deeds[i]) for i in indices.tolist()]
        return np.array([1.0 if a is None else 1 - w + w * a for a in alike], np.float32)

    def _verb_factor(self, command: str) -> np.ndarray:
        """Each episode's factor for *command*: ``verb_weight`` when both have a canonical
        verb (:func:`~safetychip.memory.command_verb`) and the two differ, else 1 ("throw
        the bat" is not "place the bat", however alike the sentences)."""
        if len(self._verbs) != len(self._episodes):  # the verbs' indices, -1 for none
            self._verbs = np.array([_verb_index(e.command) for e in self._episodes], np.int64)
        verb = _verb_index(command)
        differs = (self._verbs != verb) & (self._verbs >= 0) & (verb >= 0)
        return np.where(differs, np.float32(self.config.verb_weight), np.float32(1.0))

    def _groups(self) -> tuple[np.ndarray, list[tuple[SceneGraph, str | None]]]:
        """Each episode's group, -1 for an episode without a scene, and the groups: the
        distinct pairs of a scene and the id of the object the command acts on there."""
        if self._grouping is None:
            index: dict[tuple[SceneGraph, str | None], int] = {}
            of = np.full(len(self._episodes), -1, np.int64)
            for i, episode in enumerate(self._episodes):
                if episode.scene.objects:
                    acted = acted_object(episode.command, episode.scene)
                    key = (episode.scene, None if acted is None else acted.id)
                    of[i] = index.setdefault(key, len(index))
            self._grouping = (of, list(index))
        return self._grouping

    def close(self) -> None:
        """Close the memory file."""
        self.store.close()

    def __enter__(self) -> EpisodicMemory:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:  # fmt: skip
        self.close()

    @property
    def archived(self) -> int:
        """How many stored episodes are archived (beyond capacity, or overridden)."""
        return sum(e.archived for e in self._episodes)

    def _summary(self) -> str:
        harmless = sum(not e.harmful for e in self._episodes)
        return (f"{len(self._episodes)} episodes ({harmless} harmless, {self.archived} "
                f"archived), {len(self._rules)} rules")  # fmt: skip

    def __repr__(self) -> str:
        return f"<EpisodicMemory {self.store.path}: {self._summary()}>"

    def _repr_html_(self) -> str:
        rows = "".join(e._repr_html_() for e in self._episodes)
        rows += "".join(r._repr_html_() for r in self._rules)
        return f"<div><b>{html.escape(self._summary())}</b>{rows}</div>"
