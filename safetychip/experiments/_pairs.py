"""Does the episodic memory tell a hazardous command from its safe twin? The 5-fold
evaluation on the paired AI2-THOR-style tasks (``data/thor/paired.jsonl``, written by
``data/thor/make_paired.py``), and the seeds-only case.

Every task's instruction is checked in its room's scene graph
(:meth:`ThorEnv.memory_scene <safetychip.envs.thor.ThorEnv.memory_scene>` at the start), as
the action frames the room's environment reads in it (:meth:`ThorEnv.action_frames
<safetychip.envs.thor.ThorEnv.action_frames>`: verb, object and target with their
affordances, state changes); learned tasks keep their frames too.
For the 5-fold, the pairs are dealt into five folds after a fixed shuffle, twins together
(so a test command's twin is never in the training memory); the memory learns the four
other folds (a hazardous task: :meth:`~safetychip.memory.EpisodicMemory.report_harm` with
its harm; a safe one: :meth:`~safetychip.memory.EpisodicMemory.record`, a harmless episode)
and checks the fifth. For the seeds-only case a memory of the ten seed violations checks
every task.

The **score** of a decision is ``min(episodic - δ_ep, episodic - harmless)``: the memory
blocks by an episode exactly when it is positive; a block by a rule raises it to a small
positive number. ROC AUC is computed from it.

Examples
--------
>>> checks = evaluate_pairs(load_pairs()[:40])
>>> len(checks), sorted({c.harm for c in checks})
(40, ['breakage'])
>>> roc_auc([True, False, True], [0.9, 0.1, 0.4])
1.0
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._io import atomic_savefig, atomic_write_text
from ..envs.thor import ThorEnv
from ..llm import Embedder
from ..memory import (
    ActionFrame,
    EpisodicMemory,
    MemoryConfig,
    MemoryDecision,
    SceneGraph,
    WordEmbedder,
)
from ..paths import DATA_DIR
from ._report import markdown_table

__all__ = [
    "ABSTRACT", "PAIRS", "PairCheck", "evaluate_abstract", "evaluate_pairs", "load_pairs",
    "pairs_table", "plot_pairs_roc", "roc_auc", "write_pairs_evaluation",
]  # fmt: skip

#: The paired tasks shipped with safetychip.
PAIRS = DATA_DIR / "thor" / "paired.jsonl"
#: The same hazards phrased abstractly, with safe twins (no room, no plan).
ABSTRACT = DATA_DIR / "thor" / "abstract.jsonl"


@dataclass(frozen=True)
class PairCheck:
    """The memory's decision on one task's instruction.

    Attributes
    ----------
    task, pair, harm : str
        The task's id, its pair's id and the pair's harm (also for the safe twin).
    hazardous, blocked : bool
    score : float
        The decision score (see the module's docstring).
    """

    task: str
    pair: str
    harm: str
    hazardous: bool
    blocked: bool
    score: float


def load_pairs(path: str | os.PathLike[str] = PAIRS) -> list[dict[str, Any]]:
    """The paired tasks of *path*, one dict a line (see ``data/thor/make_paired.py``); the
    abstract phrasings (:data:`ABSTRACT`) have no ``scene``.

    Raises
    ------
    ValueError
        If a line is not a task of a pair (the message names the file and line).
    """
    tasks = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        task = json.loads(line)
        if not isinstance(task, dict) or not {"id", "pair", "instruction",
                                               "hazardous"} <= set(task):  # fmt: skip
            raise ValueError(f"{path}, line {n}: not a paired task (id, pair, instruction, "
                             "hazardous)")  # fmt: skip
        tasks.append(task)
    return tasks


def _score(decision: MemoryDecision, config: MemoryConfig) -> float:
    episodic = decision.scores.get("episodic") or 0.0
    harmless = decision.scores.get("harmless") or 0.0
    value = min(episodic - config.delta_ep, episodic - harmless)
    return max(value, 1e-6) if decision.by == "rule" else value


def evaluate_pairs(tasks: Sequence[dict[str, Any]] | None = None, *, folds: int = 5,
                   seeds_only: bool = False, embedder: Embedder | None = None,
                   config: MemoryConfig | None = None, record_harmless: bool = True,
                   frames: bool = True) -> list[PairCheck]:  # fmt: skip
    """Check every task of *tasks* (ours by default) with a memory that did not learn it.

    Parameters
    ----------
    tasks : sequence of dict, optional
        Paired tasks (:func:`load_pairs`).
    folds : int
        How many folds (the pairs dealt after a fixed shuffle, twins together).
    seeds_only : bool
        Instead, check every task with a memory of the ten seeds alone.
    embedder : Embedder, optional
        The memory's embedder (the word stand-in by default).
    config : MemoryConfig, optional
    record_harmless : bool
        Whether the memory records the safe training tasks (off: the ablation of issue 41,
        the memory before it kept nothing of a harmless run).
    frames : bool
        Whether tasks are learned and checked with their action frames (off: the design
        before action-level episodes, the command's text and scene alone).

    Returns
    -------
    list of PairCheck
        Fold by fold, in file order within a fold.
    """
    tasks = list(load_pairs() if tasks is None else tasks)
    embedder = embedder or WordEmbedder()
    config = config or MemoryConfig()
    scenes = _scenes(tasks)
    acts = _frames(tasks) if frames else {t["id"]: [] for t in tasks}
    harm = {t["pair"]: t["harm"] for t in tasks if t["hazardous"]}
    pairs = sorted(harm)
    random.Random(0).shuffle(pairs)
    fold = {p: 0 if seeds_only else i % folds for i, p in enumerate(pairs)}
    checks = []
    for k in range(1 if seeds_only else folds):
        with EpisodicMemory(embedder=embedder, config=config) as memory:
            if seeds_only:
                memory.seed()
            _learn(memory, [t for t in tasks if fold[t["pair"]] != k], scenes, acts,
                   record_harmless)  # fmt: skip
            for t in (t for t in tasks if fold[t["pair"]] == k):
                decision = memory.check(t["instruction"], scenes[t["scene"]],
                                        frames=acts[t["id"]])  # fmt: skip
                checks.append(PairCheck(t["id"], t["pair"], harm[t["pair"]], t["hazardous"],
                                        decision.blocked, _score(decision, config)))  # fmt: skip
    return checks


def _scenes(tasks: Sequence[dict[str, Any]]) -> dict[str, SceneGraph]:
    """The scene graph of each room of *tasks*, at the start."""
    scenes = {}
    for name in sorted({t["scene"] for t in tasks}):
        env = ThorEnv(name)
        env.reset()
        scenes[name] = SceneGraph.from_dict(env.memory_scene())
    return scenes


def _frames(tasks: Sequence[dict[str, Any]]) -> dict[str, list[ActionFrame]]:
    """The action frames of each task's instruction (by task id), read in its room."""
    envs = {name: ThorEnv(name) for name in sorted({t["scene"] for t in tasks})}
    return {t["id"]: [ActionFrame.from_dict(f)
                      for f in envs[t["scene"]].action_frames(t["instruction"])]
            for t in tasks}  # fmt: skip


def _learn(memory: EpisodicMemory, tasks: Iterable[dict[str, Any]],
           scenes: Mapping[str, SceneGraph], frames: Mapping[str, list[ActionFrame]],
           record_harmless: bool = True) -> None:  # fmt: skip
    """Teach *memory* the hazardous tasks as harm reports, the safe ones as harmless runs,
    with their action frames; then consolidate (rules over affordances among them)."""
    for t in tasks:
        if t["hazardous"]:
            memory.report_harm(t["instruction"], scenes[t["scene"]], t["harm"],
                               frames=frames[t["id"]])  # fmt: skip
        elif record_harmless:
            memory.record(t["instruction"], scenes[t["scene"]], frames=frames[t["id"]])
    memory.consolidate()


def evaluate_abstract(tasks: Sequence[dict[str, Any]] | None = None,
                      abstract: Sequence[dict[str, Any]] | None = None, *,
                      embedder: Embedder | None = None,
                      config: MemoryConfig | None = None) -> list[PairCheck]:  # fmt: skip
    """Check the abstract phrasings (:data:`ABSTRACT` by default) with a memory that learned
    every paired task (:data:`PAIRS` by default); they name no object, so no scene.

    Examples
    --------
    >>> checks = evaluate_abstract()
    >>> len(checks), sum(c.hazardous for c in checks)
    (60, 30)
    """
    tasks = list(load_pairs() if tasks is None else tasks)
    abstract = list(load_pairs(ABSTRACT) if abstract is None else abstract)
    config = config or MemoryConfig()
    harm = {t["pair"]: t["harm"] for t in abstract if t["hazardous"]}
    with EpisodicMemory(embedder=embedder or WordEmbedder(), config=config) as memory:
        _learn(memory, tasks, _scenes(tasks), _frames(tasks))
        checks = []
        for t in abstract:
            decision = memory.check(t["instruction"])
            checks.append(PairCheck(t["id"], t["pair"], harm[t["pair"]], t["hazardous"],
                                    decision.blocked, _score(decision, config)))  # fmt: skip
    return checks


def roc_auc(labels: Sequence[bool], scores: Sequence[float]) -> float:
    """The ROC AUC of *scores* for *labels* (ties count half).

    Raises
    ------
    ValueError
        If the labels are all one class.
    """
    positive = np.asarray(labels, bool)
    values = np.asarray(scores, float)
    if positive.all() or not positive.any():
        raise ValueError("roc_auc needs labels of both classes")
    higher = (values[positive][:, None] > values[~positive][None, :]).mean()
    ties = (values[positive][:, None] == values[~positive][None, :]).mean()
    return float(higher + ties / 2)


def pairs_table(runs: Mapping[str, Sequence[PairCheck]]) -> str:
    """A Markdown table of each run (name → checks): refusal, false refusals and ROC AUC,
    overall and per harm."""
    rows = []
    for name, checks in runs.items():
        for harm in ["all", *sorted({c.harm for c in checks})]:
            chosen = [c for c in checks if harm in ("all", c.harm)]
            hazard = [c.blocked for c in chosen if c.hazardous]
            safe = [c.blocked for c in chosen if not c.hazardous]
            auc = roc_auc([c.hazardous for c in chosen], [c.score for c in chosen])
            rows.append([name, harm, len(hazard), f"{np.mean(hazard):.1%}", f"{np.mean(safe):.1%}",
                         f"{auc:.3f}"])  # fmt: skip
    header = ["memory", "harm", "pairs", "refusal", "false refusals", "ROC AUC"]
    return markdown_table(rows, header, "ll" + "r" * 4)


def _curve(checks: Iterable[PairCheck]) -> tuple[list[float], list[float]]:
    """False- and true-positive rates of every threshold on the scores."""
    ranked = sorted(checks, key=lambda c: -c.score)
    positives = sum(c.hazardous for c in ranked)
    negatives = len(ranked) - positives
    fpr, tpr, tp, fp = [0.0], [0.0], 0, 0
    for c in ranked:
        tp, fp = tp + c.hazardous, fp + (not c.hazardous)
        fpr.append(fp / negatives)
        tpr.append(tp / positives)
    return fpr, tpr


def plot_pairs_roc(runs: Mapping[str, Sequence[PairCheck]], *,
                   path: str | os.PathLike[str] | None = None,
                   title: str = "Paired AI2-THOR-style tasks (dot: the memory's blocks)",
                   ) -> Any:  # fmt: skip
    """The ROC curve of each run (name → checks), with its operating point (the memory's
    blocks); returns the matplotlib Figure (saved to *path* if given)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    for name, checks in runs.items():
        fpr, tpr = _curve(checks)
        auc = roc_auc([c.hazardous for c in checks], [c.score for c in checks])
        (line,) = ax.plot(fpr, tpr, label=f"{name} (AUC {auc:.3f})")
        hazard = [c.blocked for c in checks if c.hazardous]
        safe = [c.blocked for c in checks if not c.hazardous]
        ax.plot([np.mean(safe)], [np.mean(hazard)], "o", color=line.get_color())
    ax.plot([0, 1], [0, 1], ":", color="grey", linewidth=0.8)
    ax.set_xlabel("false refusals (safe twins blocked)")
    ax.set_ylabel("refusals (hazardous tasks blocked)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    if path is not None:
        atomic_savefig(fig, path, dpi=110, metadata={"Software": None})
    return fig


def write_pairs_evaluation(folder: str | os.PathLike[str], *,
                           data: str | os.PathLike[str] = DATA_DIR) -> list[Path]:  # fmt: skip
    """Evaluate the memory (word stand-in) on ``thor/paired.jsonl`` under *data* (5-fold, and
    seeds only; with action frames, and with the command's text and scene alone as before
    them) and on ``thor/abstract.jsonl`` (after learning every pair); write
    ``06_memory_pairs.md`` (the table), ``06_memory_pairs_roc.png`` (the ROC curves) and
    ``06_memory_pairs_frames.png`` (the ROC curves with frames and without) into *folder*;
    return the three paths."""
    import matplotlib.pyplot as plt

    tasks = load_pairs(Path(data) / "thor" / "paired.jsonl")
    abstract = load_pairs(Path(data) / "thor" / "abstract.jsonl")
    runs = {"5-fold": evaluate_pairs(tasks), "seeds only": evaluate_pairs(tasks, seeds_only=True),
            "abstract phrasings": evaluate_abstract(tasks, abstract)}  # fmt: skip
    text_only = {"5-fold, text alone": evaluate_pairs(tasks, frames=False),
                 "seeds only, text alone": evaluate_pairs(tasks, seeds_only=True,
                                                          frames=False)}  # fmt: skip
    hazards = sum(t["hazardous"] for t in tasks)
    text = (
        "<!-- Written by `safetychip reproduce memory_pairs`; do not edit. -->\n\n"
        f"**Episodic memory on {hazards} hazardous tasks and their safe twins (text "
        f"similarity: {WordEmbedder().name}, a deterministic stand-in for MiniLM)**\n\n"
        f"{pairs_table(runs)}\n\n"
        "The same without action frames (each command's text and scene alone, the design "
        "before them):\n\n"
        f"{pairs_table(text_only)}\n"
    )
    table = atomic_write_text(Path(folder) / "06_memory_pairs.md", text)
    figure = plot_pairs_roc(runs, path=Path(folder) / "06_memory_pairs_roc.png")
    plt.close(figure)
    compared = {"5-fold, frames": runs["5-fold"], "5-fold, text alone": text_only[
        "5-fold, text alone"], "seeds only, frames": runs["seeds only"],
        "seeds only, text alone": text_only["seeds only, text alone"]}  # fmt: skip
    figure = plot_pairs_roc(
        compared,
        path=Path(folder) / "06_memory_pairs_frames.png",
        title="With action frames and without (dot: the memory's blocks)",
    )
    plt.close(figure)
    return [table, Path(folder) / "06_memory_pairs_roc.png",
            Path(folder) / "06_memory_pairs_frames.png"]  # fmt: skip
