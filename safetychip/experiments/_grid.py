"""The experiment grid: suites × number of constraints × agents × reprompt variants × seeds.

One **cell** is one episode: a JSON-able dict naming the task, k, the agent, its reprompt
variant and formulas (Safety Chip only), the seed and the model. :func:`run_cell` plays it
and returns one flat row (:meth:`safetychip.agents.AgentEpisode.to_row`); :func:`run_grid` runs
many cells with :func:`run_cells` (local or Ray, resumable) and returns a tidy
:class:`pandas.DataFrame`, one row per episode.

The model of a cell is ``"offline-stand-in"`` (the default:
:class:`~safetychip.agents.OfflineAgentModel`, seeded by the cell, never an LLM),
:data:`~safetychip.llm.LOCAL_MODEL` (SmolLM2-135M-Instruct behind ``make model-server``, see
:func:`~safetychip.llm.local_model`) or the name of a model behind an OpenAI-compatible
endpoint (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``), optionally through a record/replay cache
file (``"cache"``, ``"cache_mode"``). A cell's ``"structured"`` asks the planner agents for
structured output (:func:`~safetychip.agents.action_schema`); it is on by default for the
local model only.

Examples
--------
>>> cells = grid_cells(suites=["four_room"], ks=[1], agents=["base", "chip"],
...                    reprompts=["explain"], formulas=["expert"])
>>> len(cells), cells[1]["id"]
(28, 'four_room/apartment_1/01|k=1|chip|explain|expert|seed=0|offline-stand-in')
>>> row = run_cell(cells[1])
>>> row["success"], row["safe"], row["plan"]
(True, True, 'walk to bathroom | walk to kitchen')
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import missing

__all__ = [
    "AGENT_NAMES", "COLUMNS", "DEFAULT_DEVIATION", "STAND_IN", "SUITES", "config_label",
    "grid_cells", "make_model", "run_cell", "run_grid", "write_csv",
]  # fmt: skip

#: The agents, in table order.
AGENT_NAMES = ("base", "nl", "cap", "cap_chip", "chip")

#: The task suites of the grid (``contradictions`` holds the task-abortion tests): VirtualHome's,
#: then the Spot robot demo's (:data:`~safetychip.envs.spot.SPOT_TASKS`).
SUITES = ("four_room", "mobile_manipulation", "contradictions", "spot_delivery",
          "spot_contradictions")  # fmt: skip

#: The model name that selects the offline stand-in.
STAND_IN = "offline-stand-in"

#: The stand-in's probability of an unknown turn in the grid.
DEFAULT_DEVIATION = 0.1

#: The columns of a results table, in order.
COLUMNS = (
    "id", "suite", "task", "scene", "k", "agent", "reprompt", "formulas", "config", "seed",
    "model", "stand_in", "success", "safe", "goal_reached", "end", "reason", "steps",
    "reprompts", "model_calls", "prompt_tokens", "completion_tokens", "violated",
    "untranslated", "safe_stop", "safe_without_stop", "plan", "seconds",
)  # fmt: skip


def config_label(agent: str, reprompt: str = "-", formulas: str = "-") -> str:
    """The readable name of an agent configuration, as tables show it.

    As in the paper, ``*`` marks the Safety Chip with expert-verified formulas.

    Examples
    --------
    >>> config_label("chip", "llm_explain", "expert"), config_label("nl")
    ('Safety Chip* (llm_explain)', 'NL Constraints')
    """
    names = {"base": "Base", "nl": "NL Constraints", "cap": "Code as Policies"}
    if agent == "chip":
        return f"Safety Chip{'*' if formulas == 'expert' else ''} ({reprompt})"
    if agent == "cap_chip":
        return f"Code as Policies + Safety Chip{'*' if formulas == 'expert' else ''}"
    return names.get(agent, agent)


def _check(name: str, values: Iterable[str], choices: Sequence[str]) -> list[str]:
    values = list(values)
    for v in values:
        if v not in choices:
            raise ValueError(f"unknown {name} {v!r}; choose from {', '.join(choices)}")
    return values


@lru_cache(maxsize=16)
def _tasks(path: str | None) -> tuple[Any, ...]:
    from ..envs import load_tasks
    from ..envs.spot import SPOT_TASKS
    from ..envs.virtualhome import TASK_DIR

    if path is not None:
        return tuple(load_tasks(path, check=False))
    files = [*(TASK_DIR / f"{s}.jsonl" for s in SUITES), SPOT_TASKS]
    return tuple(t for f in files if f.is_file() for t in load_tasks(f, check=False))


def grid_cells(
    *,
    suites: Iterable[str] | None = ("four_room", "mobile_manipulation"),
    ks: Iterable[int] | None = range(1, 6),
    agents: Iterable[str] = AGENT_NAMES,
    reprompts: Iterable[str] | None = None,
    formulas: Iterable[str] | None = None,
    seeds: Iterable[int] = (0,),
    model: str = STAND_IN,
    deviation: float = DEFAULT_DEVIATION,
    tasks_path: str | os.PathLike[str] | None = None,
    task_ids: Iterable[str] | None = None,
    cache: str | os.PathLike[str] | None = None,
    cache_mode: str = "auto",
    structured: bool | None = None,
    timeout: float | None = None,
) -> list[dict[str, Any]]:
    """The cells of a grid, in a stable order.

    Parameters
    ----------
    suites : iterable of str or None
        Suites of :data:`SUITES` (or those of *tasks_path*); None: every suite of the task
        files.
    ks : iterable of int or None
        Numbers of constraints (the first k of each task); ``k`` larger than a task's
        number of constraints is skipped for that task. None: all of each task's
        constraints (as for the contradiction tasks).
    agents : iterable of str
        Of :data:`AGENT_NAMES`.
    reprompts, formulas : iterable of str, optional
        The Safety Chip's variants (default: all of :data:`~safetychip.agents.REPROMPTS`
        and :data:`~safetychip.agents.FORMULAS`); the other agents get ``"-"``.
    seeds : iterable of int
    model : str
        :data:`STAND_IN` or a chat model's name.
    deviation : float
        The stand-in's probability of an unknown turn.
    tasks_path : path, optional
        A task file other than the suites' (loaded without checks: a bad task fails its
        own cells only).
    task_ids : iterable of str, optional
        Keep only these tasks.
    cache, cache_mode : optional
        A record/replay cache for a real model (see :class:`~safetychip.llm.CachedModel`).
    structured : bool, optional
        Ask the planner agents for structured output (default: only for the local model).
    timeout : float, optional
        Seconds each episode may take, end to end (default: the agents' own bound,
        ``episode_seconds``); past it the episode ends as an error that says so.

    Raises
    ------
    ValueError
        For an unknown suite, agent, variant or formula source, or a k below 1.
    """
    from ..agents import FORMULAS, REPROMPTS

    path = None if tasks_path is None else str(tasks_path)
    suites = sorted({t.suite for t in _tasks(path)}) if suites is None else list(suites)
    if tasks_path is None:
        _check("suite", suites, SUITES)
    agents = _check("agent", agents, AGENT_NAMES)
    reprompts = _check("reprompt variant", REPROMPTS if reprompts is None else reprompts,
                       REPROMPTS)  # fmt: skip
    formulas = _check("formulas", FORMULAS if formulas is None else formulas, FORMULAS)
    ks = None if ks is None else list(ks)
    if ks is not None and any(k < 1 for k in ks):
        raise ValueError(f"numbers of constraints must be at least 1, got {ks}")
    wanted = None if task_ids is None else set(task_ids)
    cells = []
    for seed in seeds:
        for task in _tasks(path):
            if task.suite not in suites or (wanted is not None and task.id not in wanted):
                continue
            for k in ks if ks is not None else [len(task.constraints)]:
                if k > len(task.constraints):
                    continue
                for agent in agents:
                    variants = ([(r, f) for f in formulas for r in reprompts] if agent == "chip"
                                else [("-", f) for f in formulas] if agent == "cap_chip"
                                else [("-", "-")])  # fmt: skip
                    for reprompt, source in variants:
                        cell = {
                            "id": f"{task.id}|k={k}|{agent}|{reprompt}|{source}|seed={seed}|"
                                  f"{model}",
                            "suite": task.suite, "task": task.id, "k": k, "agent": agent,
                            "reprompt": reprompt, "formulas": source, "seed": seed,
                            "model": model, "deviation": deviation, "tasks_path": path,
                        }  # fmt: skip
                        if cache is not None:
                            cell.update(cache=str(cache), cache_mode=cache_mode)
                        if structured is not None:
                            cell.update(structured=structured)
                        if timeout is not None:
                            cell.update(timeout=timeout)
                        cells.append(cell)
    if wanted is not None:
        found = {c["task"] for c in cells}
        missing = sorted(wanted - found)
        if missing:
            raise ValueError(f"unknown task id(s): {', '.join(missing)}")
    return cells


def make_model(cell: dict[str, Any]) -> Any:
    """The chat model a cell asks for (see the module notes)."""
    from ..agents import OfflineAgentModel

    name = cell.get("model", STAND_IN)
    if name == STAND_IN:
        deviation = float(cell.get("deviation", DEFAULT_DEVIATION))
        return OfflineAgentModel(int(cell.get("seed", 0)), deviation=deviation)
    key = (name, cell.get("cache"), cell.get("cache_mode", "auto"))
    model = _MODELS.get(key)
    if model is None:
        from ..llm import LOCAL_MODEL, CachedModel, OpenAIChatModel, local_model

        model = local_model() if name == LOCAL_MODEL else OpenAIChatModel(name)
        if cell.get("cache"):
            model = CachedModel(model, cell["cache"], mode=cell.get("cache_mode", "auto"))
        _MODELS[key] = model
    return model


# One model per name, cache file and cache mode, and one environment per kind and scene, shared
# by a process's cells: a cache file is checked whole when it is opened, once, not per episode.
# Sharing is sound: an episode counts its model calls as differences of the usage counters.
_MODELS: dict[tuple[str, Any, Any], Any] = {}
_ENVS: dict[tuple[str, str], Any] = {}


def _env(task: Any) -> Any:
    """One environment per kind and scene, reused by the cells (each run resets it)."""
    key = (task.env, task.scene)
    env = _ENVS.get(key)
    if env is None:
        env = _ENVS[key] = task.make_env()
    return env


def run_cell(cell: dict[str, Any]) -> dict[str, Any]:
    """Play one cell's episode; return its row (see :data:`COLUMNS`).

    Bad input inside the episode (an unusable reply or program, a formula that does not
    parse, a failed model call) is recorded in the row (``end="error"`` and the reason); a
    cell naming an unknown task raises ``KeyError``.
    """
    from ..agents import ActionGrounder, make_agent
    from ..llm import LOCAL_MODEL

    began = time.perf_counter()
    tasks = {t.id: t for t in _tasks(cell.get("tasks_path"))}
    try:
        task = tasks[cell["task"]]
    except KeyError:
        raise KeyError(f"no task {cell['task']!r} in the task files") from None
    model = make_model(cell)
    agent = cell["agent"]
    options: dict[str, Any] = {}
    if agent not in ("cap", "cap_chip"):
        # The stand-in writes actions verbatim: ground exactly, never load an embedder.
        embedder = None if cell.get("model", STAND_IN) == STAND_IN else "minilm"
        options["grounder"] = ActionGrounder(embedder=embedder)
        options["structured"] = bool(cell.get("structured", cell.get("model") == LOCAL_MODEL))
    # An experiment measures agents, not the machine: no wall-clock deadline on the monitor
    # (its node budget still bounds every decision), so a loaded machine gives the same rows.
    if "timeout" in cell:
        options["episode_seconds"] = float(cell["timeout"])
    if agent == "chip":
        options.update(reprompt=cell["reprompt"], formulas=cell["formulas"], deadline=None)
    elif agent == "cap_chip":
        options.update(formulas=cell["formulas"], deadline=None)
    episode = make_agent(agent, model, **options).run(task, int(cell["k"]),
                                                      env=_env(task),
                                                      seed=int(cell.get("seed", 0)))  # fmt: skip
    row = episode.to_row()
    row.update(id=cell["id"], config=config_label(agent, row["reprompt"], row["formulas"]),
               seconds=round(time.perf_counter() - began, 4))  # fmt: skip
    return {key: row.get(key) for key in COLUMNS}


def _pandas() -> Any:
    """The ``pandas`` module, or the error that says how to install it (the experiments
    extra): results are DataFrames.

    >>> _pandas().__name__
    'pandas'
    """
    try:
        import pandas as pd
    except ImportError:
        raise missing("pandas", "experiments") from None
    return pd


def run_grid(
    cells: Sequence[dict[str, Any]],
    *,
    executor: str = "local",
    results_path: str | os.PathLike[str] | None = None,
    progress: bool = True,
    desc: str | None = "episodes",
) -> Any:
    """Run *cells* with :func:`~safetychip.experiments.run_cells`; return a DataFrame.

    A cell whose function raised becomes a row with ``end="error"`` and the exception as the
    reason (the sweep goes on). Columns are :data:`COLUMNS`, one row per cell, in order.

    Parameters
    ----------
    cells : sequence of dict
        From :func:`grid_cells`.
    executor : {"local", "ray"}
    results_path : path, optional
        JSON lines of finished cells; a sweep restarted with the same file skips them.
    progress : bool
        Show a tqdm bar.
    desc : str, optional
        The bar's label.
    """
    pd = _pandas()
    from ._executors import run_cells

    results = run_cells(run_cell, cells, executor=executor, results_path=results_path,
                        progress=progress, desc=desc)  # fmt: skip
    rows = []
    for cell, result in zip(cells, results):
        if "error" in result and "success" not in result:
            row: dict[str, Any] = {key: None for key in COLUMNS}
            row.update({k: cell.get(k) for k in ("id", "suite", "task", "k", "agent", "reprompt",
                                                 "formulas", "seed", "model")})  # fmt: skip
            row.update(config=config_label(cell["agent"], cell["reprompt"], cell["formulas"]),
                       end="error", reason=result["error"], success=False,
                       stand_in=cell.get("model") == STAND_IN)  # fmt: skip
            rows.append(row)
        else:
            rows.append({key: result.get(key) for key in COLUMNS})
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame


def write_csv(frame: Any, path: str | os.PathLike[str], *, timings: bool = False) -> Path:
    """Write the results table as CSV (without the timing column unless asked), atomically."""
    from .._io import atomic_write_text

    data = frame if timings else frame.drop(columns=["seconds"], errors="ignore")
    return atomic_write_text(path, data.to_csv(index=False))
