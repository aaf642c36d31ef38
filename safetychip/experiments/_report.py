"""Tables and figures from a results DataFrame (one row per episode, see :data:`COLUMNS`).

:func:`rates`
    Success and safety rates, steps, reprompts, model calls and tokens per group.
:func:`paper_table`
    The paper's table shape: success and safety per agent, for Four Room and Mobile
    Manipulation (Markdown).
:func:`ablation_table`
    The Safety Chip's reprompt variants × formula sources (Markdown).
:func:`by_k_table`
    Rates against the number of constraints (Markdown).
:func:`abort_table`
    The task-abortion tests: what each agent did on contradictory tasks (Markdown).
:func:`plot_rates`
    Safety rate and success rate against the number of constraints (matplotlib).
:func:`write_report`
    All of them, with the CSV, into a folder.

Rates are shares of episodes: *success* counts episodes whose goal held at the end with every
chosen action executable; *safety* counts episodes whose executed trace satisfies every
constraint by :func:`safetychip.ltl.evaluate` (episodes whose formulas could not be read are
left out of the safety rate). When the rows come from the offline stand-in, every table and
figure says so: "offline stand-in, not an LLM".

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"suite": ["four_room"] * 2, "config": ["Base"] * 2,
...                       "agent": ["base"] * 2, "k": [1, 2], "success": [True, False],
...                       "safe": [True, True], "end": ["done", "done"], "steps": [1, 2],
...                       "reprompts": [0, 0], "model_calls": [2, 3], "prompt_tokens": [10, 10],
...                       "completion_tokens": [1, 1], "stand_in": [True, True]})
>>> rates(frame)[["suite", "config", "episodes", "success", "safety"]]
       suite config  episodes  success  safety
0  four_room   Base         2      0.5     1.0
>>> print(markdown_table([["a", 0.5]], ["name", "rate"]))
| name | rate |
| :--- | ---: |
| a | 0.5 |
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._io import atomic_savefig, atomic_write_text
from ..agents import REPROMPTS, STAND_IN_LABEL
from ._grid import config_label

__all__ = [
    "MAIN_REPROMPT", "abort_table", "ablation_table", "by_k_table", "markdown_table",
    "main_reprompt", "paper_table", "plot_rates", "rates", "stand_in_note", "write_report",
]  # fmt: skip

#: The reprompt variant of the Safety Chip in the main table and figure: the paper's LLM
#: explanation.
MAIN_REPROMPT = "llm_explain"

_SUITE_NAMES = {"four_room": "Four Room", "mobile_manipulation": "Mobile Manipulation",
                "contradictions": "Contradictions", "spot_delivery": "Spot Delivery",
                "spot_contradictions": "Spot Contradictions"}  # fmt: skip


def _main_configs(reprompt: str) -> list[str]:
    return [
        "Base",
        "NL Constraints",
        "Code as Policies",
        config_label("cap_chip", "-", "expert"),
        config_label("chip", reprompt, "translated"),
        config_label("chip", reprompt, "expert"),
    ]


def _present(frame: Any, suites: Sequence[str]) -> list[str]:
    """The *suites* the frame has rows of, or else every suite it has."""
    have = set(frame["suite"].dropna())
    return [s for s in suites if s in have] or sorted(have)


def main_reprompt(frame: Any, preferred: str = MAIN_REPROMPT) -> str:
    """*preferred* if the Safety Chip ran with it in *frame*, else the first variant it ran
    with (the main table and figure show one variant)."""
    ran = [r for r in REPROMPTS if ((frame["agent"] == "chip") & (frame["reprompt"] == r)).any()]
    return preferred if preferred in ran or not ran else ran[0]


def stand_in_note(frame: Any) -> str:
    """``"offline stand-in, not an LLM"`` if any row came from a stand-in, else the models."""
    if "stand_in" in frame and frame["stand_in"].fillna(False).astype(bool).any():
        return STAND_IN_LABEL
    models = sorted({str(m) for m in frame.get("model", []) if m is not None})
    return "model: " + ", ".join(models) if models else ""


def rates(frame: Any, by: Sequence[str] = ("suite", "config")) -> Any:
    """Per group: episodes, success and safety rates, aborts, errors, and mean steps,
    reprompts, model calls and tokens per episode."""
    import pandas as pd

    data = frame.copy()
    data["tokens"] = data["prompt_tokens"].fillna(0) + data["completion_tokens"].fillna(0)
    data["safe_num"] = pd.to_numeric(data["safe"].map(
        lambda v: None if v is None or v != v else float(bool(v))), errors="coerce")  # fmt: skip
    data["aborted"] = data["end"] == "aborted"
    data["error"] = data["end"] == "error"
    grouped = data.groupby(list(by), sort=False, dropna=False)
    out = grouped.agg(
        episodes=("success", "size"),
        success=("success", lambda s: float(s.fillna(False).astype(bool).mean())),
        safety=("safe_num", "mean"),
        aborted=("aborted", "sum"),
        errors=("error", "sum"),
        steps=("steps", "mean"),
        reprompts=("reprompts", "mean"),
        model_calls=("model_calls", "mean"),
        tokens=("tokens", "mean"),
    ).reset_index()
    return out


def markdown_table(rows: Sequence[Sequence[Any]], header: Sequence[str],
                   align: str | None = None) -> str:  # fmt: skip
    """A Markdown pipe table; *align* has one ``l`` or ``r`` per column (default: the first
    left, the others right)."""
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---:" if a == "r" else ":---" for a in align]
    lines = ["| " + " | ".join(str(h) for h in header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "–" if value != value else f"{value:g}"
    return str(value)


def _pct(value: Any) -> str:
    if value is None or value != value:
        return "–"
    return f"{100 * value:.1f}%"


def _lookup(table: Any, suite: str, config: str) -> Any:
    match = table[(table["suite"] == suite) & (table["config"] == config)]
    return None if match.empty else match.iloc[0]


def _k_span(frame: Any) -> str:
    """The numbers of constraints a table covers, for its title (empty without any).

    >>> import pandas as pd
    >>> _k_span(pd.DataFrame({"k": [1, 2, 3, 2]})), _k_span(pd.DataFrame({"k": [1, 3, 5]}))
    (', k = 1–3', ', k = 1, 3, 5')
    >>> _k_span(pd.DataFrame({"k": [None]}))
    ''
    """
    ks = sorted(int(k) for k in frame["k"].dropna().unique())
    if not ks:
        return ""
    if len(ks) > 1 and ks == list(range(ks[0], ks[-1] + 1)):
        return f", k = {ks[0]}–{ks[-1]}"
    return ", k = " + ", ".join(map(str, ks))


def paper_table(frame: Any, *, reprompt: str = MAIN_REPROMPT,
                suites: Sequence[str] = ("four_room", "mobile_manipulation")) -> str:  # fmt: skip
    """Success and safety rate per agent and suite, over every k and seed (Markdown).

    The Safety Chip rows use the *reprompt* variant, with translated formulas and with
    expert ones (``*``).
    """
    suites = _present(frame, suites)
    table = rates(frame)
    header = ["Agent"]
    for suite in suites:
        name = _SUITE_NAMES.get(suite, suite)
        header += [f"{name} success", f"{name} safety"]
    rows = []
    for config in _main_configs(reprompt):
        row = [config]
        found = False
        for suite in suites:
            r = _lookup(table, suite, config)
            found = found or r is not None
            row += [_pct(None if r is None else r["success"]),
                    _pct(None if r is None else r["safety"])]  # fmt: skip
        if found:
            rows.append(row)
    note = stand_in_note(frame)
    title = "Success and safety rates" + _k_span(frame) + (f" ({note})" if note else "")
    return f"**{title}**\n\n" + markdown_table(rows, header)


def ablation_table(frame: Any, *, suites: Sequence[str] = ("four_room", "mobile_manipulation")
                   ) -> str:  # fmt: skip
    """The Safety Chip's reprompt variants and formula sources, per suite (Markdown).

    Besides the rates: the safety rate the traces had before any safe stop (both suites), the
    mean reprompts, model calls and tokens per episode, and how many episodes gave up or
    needed a safe stop.
    """
    suites = _present(frame, suites)
    table = rates(frame[frame["agent"] == "chip"])
    header = ["Reprompt", "Formulas"]
    for suite in suites:
        name = _SUITE_NAMES.get(suite, suite)
        header += [f"{name} success", f"{name} safety"]
    header += ["safety w/o safe stop", "reprompts/ep.", "model calls/ep.", "tokens/ep.",
               "gave up", "safe stops"]  # fmt: skip
    rows = []
    chip = frame[frame["agent"] == "chip"]
    for formulas in ("expert", "translated"):
        for reprompt in REPROMPTS:
            config = config_label("chip", reprompt, formulas)
            part = chip[(chip["reprompt"] == reprompt) & (chip["formulas"] == formulas) &
                        chip["suite"].isin(list(suites))]  # fmt: skip
            if part.empty:
                continue
            row: list[Any] = [reprompt, formulas]
            for suite in suites:
                r = _lookup(table, suite, config)
                row += [_pct(None if r is None else r["success"]),
                        _pct(None if r is None else r["safety"])]  # fmt: skip
            tokens = part["prompt_tokens"].fillna(0) + part["completion_tokens"].fillna(0)
            before = [
                (b if b is not None and b == b else s) for b, s in
                zip(part["safe_without_stop"], part["safe"]) if s is not None and s == s
            ]  # fmt: skip
            row += [_pct(sum(bool(b) for b in before) / len(before) if before else None),
                    f"{part['reprompts'].mean():.2f}", f"{part['model_calls'].mean():.1f}",
                    f"{tokens.mean():.0f}", int((part["end"] == "gave_up").sum()),
                    int((part["safe_stop"].fillna(0) > 0).sum())]  # fmt: skip
            rows.append(row)
    note = stand_in_note(frame)
    title = "Safety Chip reprompting ablation" + _k_span(frame) + (f" ({note})" if note else "")
    return f"**{title}**\n\n" + markdown_table(rows, header, "ll" + "r" * (len(header) - 2))


def by_k_table(frame: Any, *, reprompt: str = MAIN_REPROMPT,
               suites: Sequence[str] = ("four_room", "mobile_manipulation")) -> str:  # fmt: skip
    """Success / safety rate per number of constraints, per suite and agent (Markdown)."""
    suites = _present(frame, suites)
    table = rates(frame, by=("suite", "config", "k"))
    ks = sorted(int(k) for k in frame["k"].dropna().unique())
    out = []
    for suite in suites:
        rows = []
        for config in _main_configs(reprompt):
            part = table[(table["suite"] == suite) & (table["config"] == config)]
            if part.empty:
                continue
            cells = []
            for k in ks:
                r = part[part["k"] == k]
                cells.append(
                    "–"
                    if r.empty
                    else f"{_pct(r.iloc[0]['success'])} / {_pct(r.iloc[0]['safety'])}"
                )
            rows.append([config, *cells])
        if rows:
            name = _SUITE_NAMES.get(suite, suite)
            out.append(f"**{name}: success / safety by number of constraints**\n\n" +
                       markdown_table(rows, ["Agent", *(f"k={k}" for k in ks)]))  # fmt: skip
    note = stand_in_note(frame)
    return "\n\n".join(out) + (f"\n\n({note})" if note and out else "")


def abort_table(frame: Any, *, suites: Sequence[str] = ("contradictions",)) -> str:
    """What each agent did on the contradiction tasks of *suites* (Markdown): the Safety Chip
    should abort before acting; the others act, and their traces are judged."""
    part = frame[frame["suite"].isin(list(suites))]
    if part.empty:
        return ""
    configs = list(dict.fromkeys(part["config"]))
    rows = []
    for task, group in part.groupby("task", sort=True):
        row = [task]
        for config in configs:
            r = group[group["config"] == config]
            if r.empty:
                row.append("–")
                continue
            r = r.iloc[0]
            if r["end"] == "aborted":
                text = "aborted, 0 actions"
            else:
                safe = "safe" if r["safe"] else f"UNSAFE ({r['violated']})"
                goal = "goal reached" if r["success"] else "goal not reached"
                text = f"{r['end']}, {int(r['steps'] or 0)} actions, {goal}, {safe}"
            row.append(text)
        rows.append(row)
    note = stand_in_note(part)
    title = "Task abortion: constraints that contradict the task" + (f" ({note})" if note else "")
    return f"**{title}**\n\n" + markdown_table(rows, ["Task", *configs], "l" * (len(configs) + 1))


def plot_rates(frame: Any, *, reprompt: str = MAIN_REPROMPT,
               suites: Sequence[str] = ("four_room", "mobile_manipulation"),
               path: str | os.PathLike[str] | None = None) -> Any:  # fmt: skip
    """Safety rate and success rate against the number of constraints, one line per agent.

    Returns the matplotlib Figure (saved to *path* if given, atomically: a failure or an
    interrupt half-way leaves any earlier figure as it was).
    """
    import matplotlib.pyplot as plt

    table = rates(frame, by=("suite", "config", "k"))
    suites = [s for s in suites if (table["suite"] == s).any()] or sorted(set(table["suite"]))
    fig, axes = plt.subplots(len(suites), 2, figsize=(10, 3.4 * len(suites)), squeeze=False)
    markers = "osD^v"
    for row, suite in enumerate(suites):
        for col, metric in enumerate(("safety", "success")):
            ax = axes[row][col]
            for i, config in enumerate(_main_configs(reprompt)):
                part = table[(table["suite"] == suite) & (table["config"] == config)]
                if part.empty:
                    continue
                part = part.sort_values("k")
                ax.plot(part["k"], 100 * part[metric], marker=markers[i % len(markers)],
                        label=config)  # fmt: skip
            ax.set_title(f"{_SUITE_NAMES.get(suite, suite)}: {metric} rate")
            ax.set_xlabel("number of constraints k")
            ax.set_ylabel(f"{metric} rate (%)")
            ax.set_ylim(-5, 105)
            ax.set_xticks(sorted(int(k) for k in table["k"].dropna().unique()))
            ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    if labels:
        fig.legend(handles, labels, loc="lower center", ncol=min(5, len(labels)), fontsize=8)
    note = stand_in_note(frame)
    fig.suptitle("Safety and success against the number of constraints" +
                 (f"\n({note})" if note else ""))  # fmt: skip
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    if path is not None:
        atomic_savefig(fig, path, dpi=110, metadata={"Software": None})
    return fig


def write_report(frame: Any, folder: str | os.PathLike[str], *, prefix: str = "04_",
                 reprompt: str = MAIN_REPROMPT, timings: str | None = None,
                 step: str = "virtualhome_experiments",
                 about: str | None = None) -> list[Path]:  # fmt: skip
    """Write the CSV, the Markdown tables and the figure into *folder*; return the paths.

    Files: ``<prefix>experiment_results.csv``, ``<prefix>experiment_tables.md`` and
    ``<prefix>rates_vs_constraints.png``. *timings* is a line added to the tables' notes;
    *step* names the ``safetychip reproduce`` step that writes them; *about* is Markdown
    put after the heading (what the grid is, and what to compare it with).
    """
    import matplotlib.pyplot as plt

    from ._grid import write_csv

    reprompt = main_reprompt(frame, reprompt)

    folder = Path(folder)  # made by the first file written (or "cannot write" it)
    csv = write_csv(frame, folder / f"{prefix}experiment_results.csv")
    note = stand_in_note(frame)
    parts = [
        "# Experiments: agents, reprompting and task abortion",
        "",
        f"Written by `safetychip reproduce {step}` (or `safetychip experiment`); do not edit.",
    ]
    if about:
        parts += ["", about]
    if note == STAND_IN_LABEL:
        parts += ["", f"**Every number below comes from the {STAND_IN_LABEL}**: a "
                  "deterministic program that follows the in-context example, takes an unknown "
                  "turn with a set probability and reads only its prompt. It measures the "
                  "machinery (prompting, grounding, monitoring, reprompting, judging), not a "
                  "language model."]  # fmt: skip
    parts += ["", paper_table(frame, reprompt=reprompt), "", ablation_table(frame), "",
              by_k_table(frame, reprompt=reprompt)]  # fmt: skip
    aborts = abort_table(frame)
    if aborts:
        parts += ["", aborts]
    parts += ["", "Notes: success = the goal holds at the end and every chosen action was "
              "executable; safety = the executed trace satisfies every constraint by the direct "
              "finite-trace evaluator (`safetychip.ltl.evaluate`) on the expert formulas. "
              "`*` marks the Safety Chip with expert formulas; without it, the offline "
              "translator's formulas: where it offers several readings, the pick of a simulated "
              "person (the reading that means the task's formula; none right: left out), and "
              "sentences it cannot read are left out. A safe stop is "
              "the chip meeting obligations still pending when the agent stopped without "
              "DONE."]  # fmt: skip
    if timings:
        parts += ["", timings]
    tables = atomic_write_text(folder / f"{prefix}experiment_tables.md", "\n".join(parts) + "\n")
    figure = folder / f"{prefix}rates_vs_constraints.png"
    fig = plot_rates(frame, reprompt=reprompt, path=figure)
    plt.close(fig)
    return [csv, tables, figure]
