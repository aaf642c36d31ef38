"""The shielded learning experiment: tabular Q-learning on a MiniGrid lava world, with and
without the shield, over several seeds (:func:`safetychip.gym.q_learning` runs each); its
table and learning curves (notebook 08, ``safetychip reproduce minigrid_learning``).

Examples
--------
>>> curves = shielded_learning(seeds=[0], episodes=5)
>>> [(c.shielded, int(c.violations.sum()) == 0) for c in curves]
[(True, True), (False, False)]
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .._io import atomic_savefig, atomic_write_text, read_json
from ..paths import DATA_DIR
from ._report import markdown_table

if TYPE_CHECKING:
    from ..gym import LearningCurve

__all__ = ["LEARNING_SETTINGS", "learning_settings", "learning_table", "plot_learning",
           "shielded_learning", "write_learning", "write_shielded_learning"]  # fmt: skip

#: The settings file of the committed experiment, below the data folder.
LEARNING_SETTINGS = Path("minigrid") / "shielded_learning.json"

#: The keys a settings file may hold (``about`` is a comment).
_KEYS = {"about", "world", "constraints", "seeds", "episodes", "alpha", "gamma", "epsilon"}


def shielded_learning(name: str = "MiniGrid-LavaGapS5-v0",
                      constraints: Sequence[str] = ('G !"on_lava"',), *,
                      seeds: Iterable[int] = range(5), episodes: int = 400,
                      progress: bool = False, alpha: float = 0.5, gamma: float = 0.95,
                      epsilon: float = 0.1) -> list[LearningCurve]:  # fmt: skip
    """Q-learn on *name* for each of *seeds*, shielded by *constraints* and then bare; the
    curves, shielded first.

    Parameters
    ----------
    name : str
        A registered MiniGrid environment.
    constraints : sequence of str
        The shield's formulas (over :class:`~safetychip.gym.MiniGridLabeller`'s
        propositions).
    seeds : iterable of int
        One run of each learner per seed.
    episodes : int
        Episodes per run.
    progress : bool
        Show a ``tqdm.auto`` bar over the runs.
    alpha, gamma, epsilon : float
        The learners' settings (:func:`~safetychip.gym.q_learning`).

    Examples
    --------
    >>> [(c.shielded, c.seed) for c in shielded_learning(seeds=[3, 4], episodes=1)]
    [(True, 3), (True, 4), (False, 3), (False, 4)]
    """
    from tqdm.auto import tqdm

    from ..gym import q_learning

    seeds = list(seeds)
    runs = [(shield, seed) for shield in (list(constraints), None) for seed in seeds]
    return [q_learning(name, shield, seed=seed, episodes=episodes,
                       alpha=alpha, gamma=gamma, epsilon=epsilon)
            for shield, seed in tqdm(runs, desc="Q-learning", disable=not progress)]  # fmt: skip


def _condition(curve: LearningCurve) -> str:
    return "shielded" if curve.shielded else "unshielded"


def _groups(curves: Sequence[LearningCurve]) -> dict[str, list[LearningCurve]]:
    groups: dict[str, list[LearningCurve]] = {}
    for curve in curves:
        groups.setdefault(_condition(curve), []).append(curve)
    return groups


def learning_table(curves: Sequence[LearningCurve], *, last: int = 50) -> str:
    """A Markdown table, one row per condition: runs, violations during training (total and
    per run), refusals, the mean return of the *last* episodes, and episodes to solve.

    Examples
    --------
    >>> print(learning_table(shielded_learning(seeds=[0], episodes=2)))  # doctest: +ELLIPSIS
    | learner | runs | episodes | violations in training | per run | ...
    | :--- | ---: | ---: | ---: | ---: | ...
    | shielded | 1 | 2 | 0 | 0 | ...
    | unshielded | 1 | 2 | ...
    """
    rows = []
    for condition, group in _groups(curves).items():
        per_run = [int(c.violations.sum()) for c in group]
        solved = [c.solved_at() for c in group]
        reached = [s for s in solved if s is not None]
        rows.append([
            condition, len(group), len(group[0].returns), sum(per_run),
            " / ".join(str(v) for v in per_run), sum(int(c.refusals.sum()) for c in group),
            f"{np.mean([c.returns[-last:].mean() for c in group]):.3f}",
            f"{len(reached)} of {len(group)}"
            + (f" (mean {np.mean(reached):.0f})" if reached else ""),
        ])  # fmt: skip
    header = ["learner", "runs", "episodes", "violations in training", "per run",
              "refusals", f"mean return, last {last} episodes",
              "solved (episodes to solve)"]  # fmt: skip
    return markdown_table(rows, header)


def plot_learning(curves: Sequence[LearningCurve], *, window: int = 20,
                  path: str | os.PathLike[str] | None = None) -> Any:  # fmt: skip
    """Two panels against the episode: the return (moving average over *window* episodes,
    the mean of the runs and their range) and the cumulative violations (each run, and their
    mean). Returns the matplotlib Figure (saved to *path* if given).

    Examples
    --------
    >>> fig = plot_learning(shielded_learning(seeds=[0], episodes=20))
    >>> [ax.get_title() for ax in fig.axes]
    ['return (moving average of 20 episodes)', 'violations during training (cumulative)']
    """
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    colours = {"shielded": "tab:blue", "unshielded": "tab:red"}
    for condition, group in _groups(curves).items():
        colour = colours[condition]
        smooth = np.array([np.convolve(c.returns, np.ones(window) / window, "valid")
                           for c in group])  # fmt: skip
        x = np.arange(window, window + smooth.shape[1])
        left.plot(x, smooth.mean(axis=0), color=colour, label=f"{condition} ({len(group)} runs)")
        left.fill_between(x, smooth.min(axis=0), smooth.max(axis=0), color=colour, alpha=0.15)
        cumulative = np.array([np.cumsum(c.violations) for c in group])
        x = np.arange(1, cumulative.shape[1] + 1)
        for run in cumulative:
            right.plot(x, run, color=colour, alpha=0.25, linewidth=0.8)
        right.plot(x, cumulative.mean(axis=0), color=colour, label=condition)
    name = curves[0].name
    left.set(title=f"return (moving average of {window} episodes)", xlabel="episode",
             ylabel="return", ylim=(-0.05, 1.05))  # fmt: skip
    right.set(title="violations during training (cumulative)", xlabel="episode",
              ylabel="steps onto lava")  # fmt: skip
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize=8)
    fig.suptitle(f"Tabular Q-learning on {name}, with and without the shield")
    fig.tight_layout()
    if path is not None:
        atomic_savefig(fig, path, dpi=110, metadata={"Software": None})
    return fig


def learning_settings(data: str | os.PathLike[str] = DATA_DIR) -> dict[str, Any]:
    """The settings of :data:`LEARNING_SETTINGS` under *data*, checked, as keyword arguments
    of :func:`shielded_learning` (``name``, ``constraints``, and any of ``seeds``,
    ``episodes``, ``alpha``, ``gamma``, ``epsilon``).

    Raises
    ------
    ValueError
        If the file is not a JSON object with ``world`` and ``constraints``, or holds a key
        it should not (the message lists those allowed).

    Examples
    --------
    >>> settings = learning_settings()
    >>> settings["name"], settings["constraints"], settings["seeds"]
    ('MiniGrid-LavaGapS5-v0', ['G !"on_lava"'], [0, 1, 2, 3, 4])
    """
    source = Path(data) / LEARNING_SETTINGS
    settings = read_json(source.read_text(encoding="utf-8"), str(source))
    if not isinstance(settings, dict):
        raise ValueError(f"{source}: the settings must be a JSON object, got "
                         f"{type(settings).__name__}")  # fmt: skip
    unknown = sorted(set(settings) - _KEYS)
    if unknown:
        raise ValueError(f"{source}: unknown keys {unknown}; allowed: {sorted(_KEYS)}")
    missing = sorted({"world", "constraints"} - set(settings))
    if missing:
        raise ValueError(f"{source}: missing keys {missing}")
    settings.pop("about", None)
    settings["name"] = settings.pop("world")
    return settings


def write_learning(curves: Sequence[LearningCurve], folder: str | os.PathLike[str], *,
                   constraints: Sequence[str], command: str) -> list[Path]:  # fmt: skip
    """Write ``08_shielded_learning.md`` (:func:`learning_table`, titled with the world and
    *constraints*, and saying that *command* wrote it) and ``08_shielded_learning.png``
    (:func:`plot_learning`) into *folder*; return both paths.

    Examples
    --------
    >>> import tempfile
    >>> curves = shielded_learning(seeds=[0], episodes=20)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = write_learning(curves, folder, constraints=['G !"on_lava"'], command="x")
    ...     print(paths[1].read_text(encoding="utf-8").splitlines()[0])
    <!-- Written by `x`; do not edit. -->
    """
    import matplotlib.pyplot as plt

    text = (
        f"<!-- Written by `{command}`; do not edit. -->\n\n"
        f"**Tabular Q-learning on {curves[0].name} under {', '.join(constraints)}: violations "
        "are steps onto lava, counted from the grid after every step**\n\n"
        f"{learning_table(curves)}\n"
    )
    table = atomic_write_text(Path(folder) / "08_shielded_learning.md", text)
    figure = plot_learning(curves, path=Path(folder) / "08_shielded_learning.png")
    plt.close(figure)
    return [Path(folder) / "08_shielded_learning.png", table]


def write_shielded_learning(folder: str | os.PathLike[str], *,
                            data: str | os.PathLike[str] = DATA_DIR,
                            progress: bool = False) -> list[Path]:  # fmt: skip
    """Run :func:`shielded_learning` with the :func:`learning_settings` under *data* and
    :func:`write_learning` its table and curves into *folder* (what ``safetychip reproduce
    minigrid_learning`` writes); return both paths.

    Raises
    ------
    ValueError
        If the settings file cannot be used (see :func:`learning_settings`).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:  # doctest: +SKIP
    ...     [p.name for p in write_shielded_learning(folder)]  # about 12 s
    ['08_shielded_learning.png', '08_shielded_learning.md']
    """
    settings = learning_settings(data)
    curves = shielded_learning(**settings, progress=progress)
    return write_learning(curves, folder, constraints=settings["constraints"],
                          command="safetychip reproduce minigrid_learning")  # fmt: skip
