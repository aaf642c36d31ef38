"""The files ``safetychip reproduce`` writes from the VirtualHome data under ``figures/``.

Each function reads the task suites and scenes under *data* (default: the repository's
``data/``), writes into *folder*, and returns the paths it wrote, in a fixed order. The files
are deterministic: they only change when the results do.

==============================  ===========================================================
function                        writes
==============================  ===========================================================
:func:`write_rollout_figures`   notebook 03's floor plans and timelines of :data:`BOOK_TASK`
:func:`write_suite_validation`  the suite validation table and shares, without timings
:func:`write_offline_grid`      notebook 04's grid (offline stand-in): CSV, tables, figure
:func:`write_local_model_grid`  notebook 04's grid with SmolLM2-135M-Instruct, replayed from
                                the recordings under ``data/recordings/``: CSV, tables, figure,
                                and the stand-in's figure on the same cells
:func:`write_memory_evaluation` notebook 06's episodic-memory table (:func:`memory_table`)
                                and growth figure
==============================  ===========================================================
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._io import atomic_write_text
from ..envs import VirtualHomeEnv, load_tasks, plot_floor_plan, plot_timeline, task_monitor
from ..errors import ReplayMissError
from ..paths import DATA_DIR
from ..shield import run_monitored
from ._grid import grid_cells, run_grid
from ._report import (
    MAIN_REPROMPT,
    by_k_table,
    markdown_table,
    paper_table,
    plot_rates,
    write_report,
)
from ._suite import find_safe_plan, validate_suite

if TYPE_CHECKING:
    from ..memory import Evaluation

__all__ = [
    "BOOK_TASK",
    "LOCAL_GRID_CACHE",
    "memory_table",
    "write_memory_evaluation",
    "local_model_cells",
    "write_local_model_grid",
    "write_offline_grid",
    "write_rollout_figures",
    "write_suite_validation",
]

#: The task notebook 03 tells the story of.
BOOK_TASK = "mobile_manipulation/apartment_1/02"


def write_rollout_figures(
    folder: str | os.PathLike[str], *, data: str | os.PathLike[str] = DATA_DIR
) -> list[Path]:
    """Run :data:`BOOK_TASK`'s example plan under its monitor, and the safe plan the search
    finds; draw the floor plan and both timelines as notebook 03 does.

    Parameters
    ----------
    folder : str or path
        Where to write ``03_floor_plan_apartment_1.png``,
        ``03_timeline_example_monitored.png``, ``03_timeline_safe_plan.png`` and
        ``03_floor_plan_safe_plan.png`` (created if needed).
    data : str or path
        The folder holding ``virtualhome/tasks`` and ``virtualhome/scenes``.

    Returns
    -------
    list of Path
        The four figures, in that order.
    """
    import matplotlib.pyplot as plt

    virtualhome = Path(data) / "virtualhome"
    tasks = load_tasks(virtualhome / "tasks" / "mobile_manipulation.jsonl")
    task = next(t for t in tasks if t.id == BOOK_TASK)
    env = VirtualHomeEnv(virtualhome / "scenes" / f"{task.scene}.json", task=task)
    monitor = task_monitor(task)
    watched = run_monitored(env, task.example_plan, monitor)
    safe = run_monitored(env, find_safe_plan(task, env=env).plan, monitor)
    written = [
        Path(folder) / name
        for name in (
            "03_floor_plan_apartment_1.png",
            "03_timeline_example_monitored.png",
            "03_timeline_safe_plan.png",
            "03_floor_plan_safe_plan.png",
        )
    ]
    objects = ["book", "book_shelf", "floor_lamp"]
    figures = [
        plot_floor_plan(env.scene, objects=[*objects, "television"], save=written[0]),
        plot_timeline(watched, save=written[1]),
        plot_timeline(safe, save=written[2]),
        plot_floor_plan(env.scene, path=safe, objects=objects, title="apartment_1: the safe plan",
                        save=written[3]),
    ]  # fmt: skip
    for figure in figures:
        plt.close(figure)
    return written


def write_suite_validation(
    folder: str | os.PathLike[str], *, data: str | os.PathLike[str] = DATA_DIR
) -> list[Path]:
    """Validate both task suites (:func:`validate_suite`) and write the table and shares to
    ``virtualhome_suite_validation.txt`` in *folder*; return ``[that path]``.

    Parameters
    ----------
    folder : str or path
        Where to write (created if needed).
    data : str or path
        The folder holding ``virtualhome/tasks`` and ``virtualhome/scenes``.
    """
    suites = Path(data) / "virtualhome" / "tasks"
    tasks = [t for suite in ("four_room", "mobile_manipulation")
             for t in load_tasks(suites / f"{suite}.jsonl")]  # fmt: skip
    report = validate_suite(tasks)
    text = (
        "# Suite validation of data/virtualhome/tasks (safetychip.envs.validate_suite).\n"
        "# Written by `safetychip reproduce virtualhome_suite`; do not edit.\n\n"
        f"{report.table()}\n\n{report.summary()}\n"
    )
    return [atomic_write_text(Path(folder) / "virtualhome_suite_validation.txt", text)]


def write_offline_grid(
    folder: str | os.PathLike[str],
    *,
    data: str | os.PathLike[str] = DATA_DIR,
    progress: bool = False,
) -> list[Path]:
    """Run the offline grid and write its report with the prefix ``04_``.

    The grid: both suites × k = 1..5 × the four agents × the Safety Chip's five reprompt
    variants × both formula sources, seed 0, plus the contradiction tasks (main reprompt
    variant, every k), all answered by the offline stand-in model.

    Parameters
    ----------
    folder : str or path
        Where to write ``04_experiment_results.csv``, ``04_experiment_tables.md`` and
        ``04_rates_vs_constraints.png`` (:func:`write_report`).
    data : str or path
        The folder holding ``virtualhome/tasks`` and ``virtualhome/scenes``.
    progress : bool
        Show a progress bar.

    Returns
    -------
    list of Path
        The CSV, the tables and the figure.
    """
    frame = run_grid(_grid(data), progress=progress)
    return write_report(frame, folder, prefix="04_")


def _grid(data: str | os.PathLike[str], **model: Any) -> list[dict[str, Any]]:
    """The cells of :func:`write_offline_grid`'s grid; *model* goes to :func:`grid_cells`
    (``model``, ``cache``, ``cache_mode``)."""
    tasks = Path(data) / "virtualhome" / "tasks"
    cells = []
    for suite in ("four_room", "mobile_manipulation"):
        cells += grid_cells(suites=[suite], tasks_path=tasks / f"{suite}.jsonl", **model)
    cells += grid_cells(suites=["contradictions"], ks=None, reprompts=[MAIN_REPROMPT],
                        tasks_path=tasks / "contradictions.jsonl", **model)  # fmt: skip
    return cells


#: The recorded replies of :data:`~safetychip.llm.LOCAL_MODEL` in the grid, under the data
#: folder.
LOCAL_GRID_CACHE = Path("recordings") / "04_smollm2_135m_grid.sqlite"


def local_model_cells(
    *, data: str | os.PathLike[str] = DATA_DIR, mode: str = "replay", model: str | None = None
) -> list[dict[str, Any]]:
    """The cells of the grid recorded with the local model (:data:`~safetychip.llm.LOCAL_MODEL`,
    structured output), through its record/replay cache :data:`LOCAL_GRID_CACHE`.

    The grid is :func:`write_offline_grid`'s, cell for cell: both suites × k = 1..5 × the
    five agents, the Safety Chip with each of its five reprompt variants and both formula
    sources (expert, translated), seed 0, and the contradiction tasks. Recording it takes
    0.4 s a call on two idle cores (2 s or more on loaded ones), 10 to 20 calls an episode.

    Parameters
    ----------
    data : str or path
        The folder holding ``virtualhome/tasks`` and :data:`LOCAL_GRID_CACHE`.
    mode : str
        ``"replay"`` (offline, no server: the committed recordings) or ``"auto"`` (record
        what is missing, with ``make model-server`` running).
    model : str, optional
        Another model for the same cells (:data:`~safetychip.experiments.STAND_IN`: the
        offline stand-in, to compare; no cache then).

    Examples
    --------
    >>> cells = local_model_cells()
    >>> len(cells), sorted({c["reprompt"] for c in cells if c["agent"] == "chip"})
    (2142, ['explain', 'generic', 'hint', 'llm_explain', 'mask'])
    >>> cells[0]["id"]
    'four_room/apartment_1/01|k=1|base|-|-|seed=0|SmolLM2-135M-Instruct'
    >>> sorted({c["suite"] for c in cells})
    ['contradictions', 'four_room', 'mobile_manipulation']
    """
    from ..llm import LOCAL_MODEL

    cache = None if model is not None else Path(data) / LOCAL_GRID_CACHE
    return _grid(data, model=model or LOCAL_MODEL, cache=cache, cache_mode=mode)


def write_local_model_grid(
    folder: str | os.PathLike[str],
    *,
    data: str | os.PathLike[str] = DATA_DIR,
    mode: str = "replay",
    progress: bool = False,
) -> list[Path]:
    """Run :func:`local_model_cells` and write its report with the prefix ``04_smollm2_``;
    return the CSV, the tables, the figure and the offline stand-in's figure on the same cells.

    The tables put the stand-in's rates (overall and against k) beside the model's; the model's
    figure (``04_smollm2_rates_vs_constraints.png``) and the stand-in's
    (``04_smollm2_stand_in_rates_vs_constraints.png``) are drawn by the same function, each
    titled with its source.

    Parameters
    ----------
    folder : str or path
        Where to write.
    data, mode
        As for :func:`local_model_cells`.
    progress : bool
        Show a progress bar.

    Raises
    ------
    ReplayMissError
        If an episode asked for a reply the recordings lack: nothing is written.
    """
    import matplotlib.pyplot as plt

    from ..agents import STAND_IN_LABEL
    from ..llm import LOCAL_MODEL
    from ._grid import STAND_IN

    cells = local_model_cells(data=data, mode=mode)
    frame = run_grid(cells, progress=progress, desc=LOCAL_MODEL)
    missed = frame[frame["reason"].fillna("").str.startswith("ReplayMissError")]
    if len(missed):
        raise ReplayMissError(
            f"{len(missed)} of {len(frame)} episodes asked {LOCAL_MODEL} for replies that "
            f"{Path(data) / LOCAL_GRID_CACHE} lacks (the first: {missed['id'].iloc[0]}): the "
            "prompts, scenes or tasks changed since the recording; record again with "
            "`make record-local-model` (the local model; it records only what is missing)"
        )
    stand_in = run_grid(local_model_cells(data=data, model=STAND_IN), progress=False)
    tasks = ", ".join(f"`{suite}` ({len({c['task'] for c in cells if c['suite'] == suite})})"
                      for suite in sorted({c["suite"] for c in cells}))  # fmt: skip
    by_k = by_k_table(stand_in, reprompt=MAIN_REPROMPT).replace(
        "constraints**", f"constraints ({STAND_IN_LABEL})**"
    )
    cap = frame[frame["agent"].isin(["cap", "cap_chip"])]
    refused = int(cap["reason"].fillna("").str.startswith("SandboxError").sum())
    about = (
        f"**A real language model: {LOCAL_MODEL}** (135M parameters, Q4_1 GGUF, llama.cpp on "
        "127.0.0.1, greedy decoding, each action asked as structured output over the admissible "
        "actions), replayed from `data/recordings/`. The offline grid, cell for cell (tasks: "
        f"{tasks}; {len(cells)} episodes, {int(frame['model_calls'].sum())} model calls): "
        "the five agents at k = 1..5, the Safety Chip's five reprompt variants with expert "
        "and translated formulas, and the contradiction tasks, seed 0. Beside it, the offline "
        "stand-in (not a language model) on the same episodes, its figure "
        "`04_smollm2_stand_in_rates_vs_constraints.png`:\n\n"
        f"{paper_table(stand_in, reprompt=MAIN_REPROMPT)}\n\n{by_k}\n\n"
        f"Read the Code as Policies rows with care: {refused} of the model's {len(cap)} "
        "programs (with and without the chip) were refused by the sandbox before any action "
        "ran (a function definition, a syntax error, an unknown skill), so most of their "
        "safety is the safety of doing nothing."
    )
    paths = write_report(frame, folder, prefix="04_smollm2_", step="local_model_grid",
                         about=about)  # fmt: skip
    stand_in_figure = Path(folder) / "04_smollm2_stand_in_rates_vs_constraints.png"
    plt.close(plot_rates(stand_in, reprompt=MAIN_REPROMPT, path=stand_in_figure))
    return [*paths, stand_in_figure]


def memory_table(evaluations: Sequence[Evaluation]) -> str:
    """The memory's evaluations (:func:`~safetychip.memory.run_memory_evaluation`) as a
    Markdown table, titled with the memory's embedder.

    Examples
    --------
    >>> from safetychip.memory import evaluate, interaction_stream
    >>> table = memory_table([evaluate(interaction_stream(10), "no_safety", benchmark="s")])
    >>> for line in table.splitlines()[::4]:
    ...     print(line)
    **Episodic memory: safety, task success and false positives**
    | s | No Safety | off | 3/7 | 0.0% | 100.0% | 0.0% | 0 | – | – |
    """
    labels = sorted({e.embedder for e in evaluations if e.embedder})
    title = "Episodic memory: safety, task success and false positives"
    title += f" (text similarity: {'; '.join(labels)})" if labels else ""
    header = ["benchmark", "condition", "overrides", "unsafe/safe", "safety", "task success",
              "false positives", "overridden", "live episodes", "rules"]  # fmt: skip
    return f"**{title}**\n\n" + markdown_table([e.row() for e in evaluations], header,
                                               "lll" + "r" * 7)  # fmt: skip


def write_memory_evaluation(
    folder: str | os.PathLike[str], *, data: str | os.PathLike[str] = DATA_DIR,
    embedder: str = "words",
) -> list[Path]:  # fmt: skip
    """Evaluate the episodic memory (:func:`~safetychip.memory.run_memory_evaluation`: the
    200-interaction stream, then the scenarios of ``memory/scenarios.jsonl`` under *data*) and
    write ``06_memory_table.md`` and ``06_memory_growth.png`` (the stream's memories) into
    *folder*; return both paths.

    Parameters
    ----------
    folder : str or path
        Where to write (created if needed).
    data : str or path
        The folder holding ``memory/scenarios.jsonl``.
    embedder : str
        ``"words"`` (the deterministic stand-in, the committed files) or ``"minilm"``.
    """
    import matplotlib.pyplot as plt

    from ..memory import load_scenarios, plot_memory_growth, run_memory_evaluation

    scenarios = load_scenarios(Path(data) / "memory" / "scenarios.jsonl")
    evaluations = run_memory_evaluation(scenarios=scenarios, embedder=embedder)
    text = (
        "<!-- Written by `safetychip reproduce memory_evaluation`; do not edit. -->\n\n"
        f"{memory_table(evaluations)}\n"
    )
    table = atomic_write_text(Path(folder) / "06_memory_table.md", text)
    figure = plot_memory_growth([e for e in evaluations if e.benchmark == "stream"],
                                path=Path(folder) / "06_memory_growth.png")  # fmt: skip
    plt.close(figure)
    return [Path(folder) / "06_memory_growth.png", table]
