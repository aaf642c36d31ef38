"""The Spot robot demo: the paper's Table II over our lab tasks, offline by default.

The two delivery tasks of :data:`~safetychip.envs.spot.SPOT_TASKS` run with k = 1..10
constraints by the NL Constraints, Safety Chip (expert formulas) and Code as Policies agents,
and the three task-abortion cases with all their constraints, through the same grid as
VirtualHome (:func:`grid_cells`, :func:`run_grid`): each cell's task makes a
:class:`~safetychip.envs.spot.SpotEnv` on the simulated backend.

Examples
--------
>>> cells = spot_demo_cells(ks=[1])
>>> len(cells), cells[1]["id"]
(15, 'spot_delivery/lab/01|k=1|chip|llm_explain|expert|seed=0|offline-stand-in')
>>> frame = run_spot_demo(ks=[1], agents=["chip"])
>>> frame[["task", "k", "end"]].values.tolist()[-1]
['spot_contradictions/lab/03', 3, 'aborted']
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._io import atomic_write_text
from ..agents import STAND_IN_LABEL
from ..paths import DATA_DIR
from ._grid import STAND_IN, grid_cells, run_grid, write_csv
from ._report import abort_table, by_k_table, paper_table, stand_in_note

__all__ = ["SPOT_AGENTS", "run_spot_demo", "spot_demo_cells", "spot_demo_table",
           "write_spot_demo"]  # fmt: skip

#: The agents of the robot demo, as in the paper's Table II.
SPOT_AGENTS = ("nl", "chip", "cap")


def spot_demo_cells(*, ks: Iterable[int] = range(1, 11), agents: Iterable[str] = SPOT_AGENTS,
                    reprompt: str = "llm_explain", model: str = STAND_IN,
                    tasks_path: str | os.PathLike[str] | None = None,
                    seeds: Iterable[int] = (0,)) -> list[dict[str, Any]]:  # fmt: skip
    """The demo's cells: both deliveries × *ks* × *agents*, then the task-abortion cases
    with all their constraints; the Safety Chip uses expert formulas and *reprompt*.

    Parameters
    ----------
    ks : iterable of int
        Numbers of constraints of the deliveries (default 1..10).
    agents : iterable of str
        Of :data:`~safetychip.experiments.AGENT_NAMES` (default :data:`SPOT_AGENTS`).
    reprompt : str
        The Safety Chip's reprompt variant (``"llm_explain"``, the paper's, by default).
    model : str
        :data:`~safetychip.experiments.STAND_IN` (the default) or a chat model's name.
    tasks_path : path, optional
        The task file (default ``data/spot/tasks.jsonl``).
    seeds : iterable of int
    """
    path = Path(tasks_path) if tasks_path is not None else DATA_DIR / "spot" / "tasks.jsonl"
    agents, seeds = list(agents), list(seeds)
    common: dict[str, Any] = dict(agents=agents, reprompts=[reprompt], formulas=["expert"],
                                  seeds=seeds, model=model, tasks_path=path)  # fmt: skip
    return [*grid_cells(suites=["spot_delivery"], ks=ks, **common),
            *grid_cells(suites=["spot_contradictions"], ks=None, **common)]  # fmt: skip


def run_spot_demo(*, progress: bool = False, **options: Any) -> Any:
    """Run :func:`spot_demo_cells` (*options* are its keywords); return the DataFrame of
    :func:`~safetychip.experiments.run_grid`."""
    return run_grid(spot_demo_cells(**options), progress=progress, desc="spot demo")


def spot_demo_table(frame: Any, *, reprompt: str = "llm_explain") -> str:
    """The demo's Markdown: success and safety per agent (the shape of the paper's Table II),
    the same by number of constraints, and the task-abortion cases; every table names the
    offline stand-in when it answered."""
    note = stand_in_note(frame)
    parts = ["# The Spot robot demo: lab deliveries and task abortion", "",
             "Written by `safetychip reproduce spot_demo` "
             "(`safetychip.experiments.write_spot_demo`); do not edit."]  # fmt: skip
    if note == STAND_IN_LABEL:
        parts += ["", f"**Every number below comes from the {STAND_IN_LABEL}**: it follows "
                  "the in-context example (which breaks several constraints) and measures the "
                  "machinery, not a language model."]  # fmt: skip
    parts += ["", paper_table(frame, reprompt=reprompt, suites=["spot_delivery"]), "",
              by_k_table(frame[frame["suite"] == "spot_delivery"], reprompt=reprompt), "",
              abort_table(frame, suites=["spot_contradictions"])]  # fmt: skip
    return "\n".join(parts) + "\n"


def write_spot_demo(
    folder: str | os.PathLike[str],
    *,
    data: str | os.PathLike[str] = DATA_DIR,
    progress: bool = False,
) -> list[Path]:
    """Run the offline demo and write ``05_spot_demo_results.csv`` and
    ``05_spot_demo_table.md`` into *folder*; return both paths.

    Parameters
    ----------
    folder : str or path
        Where to write (created if needed).
    data : str or path
        The folder holding ``spot/tasks.jsonl`` and ``spot/lab.json``.
    progress : bool
        Show a progress bar.
    """
    frame = run_spot_demo(tasks_path=Path(data) / "spot" / "tasks.jsonl", progress=progress)
    folder = Path(folder)  # made by the first file written (or "cannot write" it)
    csv = write_csv(frame, folder / "05_spot_demo_results.csv")
    table = atomic_write_text(folder / "05_spot_demo_table.md", spot_demo_table(frame))
    return [csv, table]
