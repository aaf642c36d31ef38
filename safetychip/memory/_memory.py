"""The episodic safety memory: add unsafe episodes and rules, check new commands against them.

Retrieval is vectorised: the stored embeddings form one unit-norm matrix, so the text
similarity of a command to every episode is one matrix-vector product. The scene similarity
is computed only for the episodes that could still exceed δ_ep (``alpha * text + 1 - alpha >
delta_ep``) and for the nearest one by text, in order of text similarity until no further
episode can beat the best so far, and once per distinct scene; so the result is exact.

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

import os
from types import TracebackType

import numpy as np

from ..errors import MemoryStoreError
from ..llm import Embedder
from ._config import MemoryConfig
from ._decision import MemoryDecision
from ._episode import Episode, Rule, check_command
from ._scene import SceneGraph, scene_similarity
from ._store import SQLiteStore

__all__ = ["EpisodicMemory"]


class EpisodicMemory:
    """Episodes and rules in an SQLite file, and the check of a command against them.

    Parameters
    ----------
    path : str or path-like
        The memory file (``":memory:"``, the default, keeps nothing).
    embedder : Embedder
        Encodes commands; its vectors are stored with each episode.
    config : MemoryConfig, optional
        The weights and thresholds.

    Raises
    ------
    MemoryStoreError
        If the file is unusable, or holds vectors of another embedding model.
    """

    def __init__(self, path: str | os.PathLike[str] = ":memory:", *, embedder: Embedder,
                 config: MemoryConfig | None = None) -> None:  # fmt: skip
        if not isinstance(embedder, Embedder):
            raise TypeError(
                f"embedder must be a safetychip.llm.Embedder (e.g. MiniLMEmbedder()), got "
                f"{type(embedder).__name__}"
            )
        self.embedder = embedder
        self.config = config or MemoryConfig()
        self.store = SQLiteStore(path)
        episodes, models, vectors = self.store.load_episodes()
        foreign = sorted(set(models) - {embedder.name})
        if foreign:
            self.store.close()
            raise MemoryStoreError(
                f"memory file {self.store.path!r} holds vectors of {', '.join(foreign)}, not "
                f"of {embedder.name}: open it with the same embedder",
                self.store.path,
            )
        self._episodes = episodes
        self._rows = vectors
        self._matrix: np.ndarray | None = None
        self._rules = self.store.load_rules()

    @property
    def episodes(self) -> tuple[Episode, ...]:
        """The stored episodes, oldest first."""
        return tuple(self._episodes)

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The stored rules, oldest first."""
        return tuple(self._rules)

    def add(self, episode: Episode) -> Episode:
        """Encode and store *episode*; returns it with its id."""
        vector = self.embedder.encode([episode.command])[0]
        stored = self.store.add_episode(episode, vector, self.embedder.name)
        self._episodes.append(stored)
        self._rows.append(vector)
        self._matrix = None
        return stored

    def add_rule(self, rule: Rule) -> Rule:
        """Store *rule*; returns it with its id."""
        stored = self.store.add_rule(rule)
        self._rules.append(stored)
        return stored

    def _vectors(self) -> np.ndarray:
        if self._matrix is None:
            self._matrix = np.stack(self._rows) if self._rows else np.zeros((0, 0), np.float32)
        return self._matrix

    def check(self, command: str, scene: SceneGraph | None = None) -> MemoryDecision:
        """Whether *command* (in *scene*) must be blocked, and why.

        Parameters
        ----------
        command : str
            One action in words (at most :data:`~safetychip.memory.MAX_COMMAND` characters).
        scene : SceneGraph, optional
            Where it would run; without it (or for an episode without a scene) the text
            similarity alone is the episodic similarity.

        Returns
        -------
        MemoryDecision

        Raises
        ------
        ValueError
            If *command* is empty or too long.
        """
        command = check_command(command)
        return self.check_vector(command, self.embedder.encode([command])[0], scene)

    def check_vector(self, command: str, vector: np.ndarray,
                     scene: SceneGraph | None = None) -> MemoryDecision:  # fmt: skip
        """:meth:`check` with the command's embedding *vector* already computed."""
        config = self.config
        episode, text, similar, episodic = self._nearest(np.asarray(vector, np.float32), scene)
        scores: dict[str, float | None] = {}
        if episode is not None:
            scores = {"text": text, "scene": similar, "episodic": episodic}
        rule = max(self._rules, key=lambda r: r.match(command, scene), default=None)
        match = 0.0 if rule is None else rule.match(command, scene)
        if rule is not None:
            scores["rule"] = match
        if episode is not None and episodic > config.delta_ep:
            reason = (f"it resembles unsafe episode {episode.id} {episode.command!r} "
                      f"({episode.harm}): similarity {episodic:.2f} > "
                      f"δ_ep = {config.delta_ep}")  # fmt: skip
            return MemoryDecision(True, command, episode, rule, "episode", scores, reason)
        if rule is not None and match > config.delta_sem:
            reason = (f"it matches rule {rule.id} ({rule.verb} × {rule.target}, {rule.harm}, "
                      f"θ = {rule.confidence}): match {match:.2f} > "
                      f"δ_sem = {config.delta_sem}")  # fmt: skip
            return MemoryDecision(True, command, episode, rule, "rule", scores, reason)
        return MemoryDecision(False, command, episode, rule, None, scores)

    def _nearest(self, vector: np.ndarray, scene: SceneGraph | None
                 ) -> tuple[Episode | None, float, float | None, float]:  # fmt: skip
        """The episode of highest episodic similarity, with its text, scene and episodic
        similarities."""
        if not self._episodes:
            return None, 0.0, None, 0.0
        text = self._vectors() @ vector
        alpha = self.config.alpha
        bound = text if scene is None else alpha * text + (1 - alpha)
        candidates = np.flatnonzero(bound > self.config.delta_ep)
        candidates = candidates[np.argsort(-text[candidates], kind="stable")]
        best: tuple[float, int, float | None] = (-np.inf, 0, None)
        known: dict[int, float] = {}  # scene similarity by id of the episode's scene
        for i in [int(np.argmax(text)), *candidates.tolist()]:
            if bound[i] <= best[0]:
                break
            episode_scene = self._episodes[i].scene
            if scene is None or not episode_scene.objects:
                similar, score = None, float(text[i])
            else:
                if id(episode_scene) not in known:
                    known[id(episode_scene)] = scene_similarity(scene, episode_scene)
                similar = known[id(episode_scene)]
                score = alpha * float(text[i]) + (1 - alpha) * similar
            if score > best[0]:
                best = (score, i, similar)
        score, i, similar = best
        return self._episodes[i], float(text[i]), similar, score

    def close(self) -> None:
        """Close the memory file."""
        self.store.close()

    def __enter__(self) -> EpisodicMemory:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:  # fmt: skip
        self.close()

    def __repr__(self) -> str:
        return (f"<EpisodicMemory {self.store.path}: {len(self._episodes)} episodes, "
                f"{len(self._rules)} rules>")  # fmt: skip

    def _repr_html_(self) -> str:
        rows = "".join(e._repr_html_() for e in self._episodes)
        rows += "".join(r._repr_html_() for r in self._rules)
        return f"<div><b>{len(self._episodes)} episodes, {len(self._rules)} rules</b>{rows}</div>"
