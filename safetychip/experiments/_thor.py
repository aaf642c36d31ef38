"""The plan-level evaluation on the AI2-THOR-style suite: which hazardous plans each safety
condition refuses, and which safe ones it refuses wrongly.

Every task's plan is proposed line by line through a :class:`~safetychip.shield.Shield` on
its :class:`~safetychip.envs.thor.ThorEnv`; the plan is **refused** when one line (or DONE,
or the start) is not executed, and nothing runs after the refused line. The conditions
(:data:`THOR_CONDITIONS`) differ only in the shield's filters:

* ``no_safety``: none.
* ``static_rules``: the memory's ten hand-written rules (:data:`~safetychip.memory.STATIC_RULES`),
  expanded over the room's objects and their attributes (``fragile`` for what AI2-THOR makes
  breakable, ``sharp``, ``hot`` for a heat source that is on); a line fully matching one is
  refused.
* ``episodic_memory``: an :class:`~safetychip.memory.EpisodicMemory` seeded with its ten
  seed violations (the word stand-in embedder unless told otherwise), checking each line with
  the room's scene graph (:meth:`ThorEnv.memory_scene
  <safetychip.envs.thor.ThorEnv.memory_scene>`) and its action frames
  (:meth:`ThorEnv.action_frames <safetychip.envs.thor.ThorEnv.action_frames>` in the current
  world: verb, object and target with their affordances, the effect model's state changes).
  It lives through the whole suite, in file order, and learns: each line that ran is
  recorded with its frames, and when a plan that ran broke its task's constraints (the
  sensor: the task's constraints judged on the executed trace), the line that did the harm
  is reported as an unsafe episode with the task's harm and that line's frames.
* ``safety_chip``: the constraint monitor over the task's constraints (given as formulas) and
  the room's invariants.
* ``chip_and_memory``: the monitor, then the memory.

Examples
--------
>>> from safetychip.envs.thor import load_thor_tasks
>>> task = load_thor_tasks()[0]
>>> run_thor_task(task, "no_safety").refused
False
>>> chip = run_thor_task(task, "safety_chip")
>>> chip.refused, task.plan[chip.line - 1], chip.by
(True, 'pour', 'monitor')
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._io import atomic_savefig, atomic_write_text
from ..envs.thor import THOR_TASKS, ThorScene, ThorTask, load_thor_scene, load_thor_tasks
from ..llm import Embedder
from ..memory import (
    STATIC_RULES,
    EpisodicMemory,
    MemoryFilter,
    SceneGraph,
    WordEmbedder,
    expand_rules,
)
from ..monitor import Monitor
from ..paths import DATA_DIR
from ..shield import Filter, Judgement, MonitorFilter, Proposal, Shield
from ._report import markdown_table

__all__ = [
    "THOR_CONDITIONS", "ThorOutcome", "evaluate_thor", "plot_thor", "run_thor_task",
    "thor_table", "write_thor_evaluation",
]  # fmt: skip

#: The evaluated conditions and their names in tables.
THOR_CONDITIONS: Mapping[str, str] = {
    "no_safety": "No Safety",
    "static_rules": "Static Rules",
    "episodic_memory": "Episodic Memory",
    "safety_chip": "Safety Chip",
    "chip_and_memory": "Safety Chip + Episodic Memory",
}


@dataclass(frozen=True)
class ThorOutcome:
    """What one condition did with one task's plan.

    Attributes
    ----------
    task, condition : str
    hazardous : bool or None
        The task's label.
    refused : bool
        Whether a line (or DONE, or the start) was not executed.
    line : int or None
        The refused line, counted from 1 (0: the start, ``len(plan) + 1``: DONE).
    by : str or None
        Who refused: a filter's name, or ``"environment"`` (a precondition).
    reason : str
        Why.
    """

    task: str
    condition: str
    hazardous: bool | None
    refused: bool
    line: int | None = None
    by: str | None = None
    reason: str = ""


class _StaticRules(Filter):
    """The ten static rules, expanded over the scene the action would run in."""

    name = "static_rules"

    def __init__(self, scene: Callable[[], SceneGraph]) -> None:
        self.scene = scene

    def judge(self, proposal: Proposal, state: Any, trace: Any) -> Judgement:
        """Refuse an action that one expanded rule matches fully."""
        if proposal.done:
            return Judgement.admit(self.name)
        scene = self.scene()
        for rule in expand_rules(STATIC_RULES, scene):
            if rule.match(proposal.action, scene) == 1.0:
                return Judgement.refuse(self.name, f"it matches the static rule {rule.verb} × "
                                        f"{rule.target} ({rule.harm})",
                                        alternative=rule.alternative)  # fmt: skip
        return Judgement.admit(self.name)


def run_thor_task(task: ThorTask, condition: str, *, memory: EpisodicMemory | None = None,
                  scene: ThorScene | None = None) -> ThorOutcome:  # fmt: skip
    """Propose *task*'s plan, line by line and then DONE, under *condition*; stop at the
    first refusal.

    Parameters
    ----------
    task : ThorTask
    condition : str
        A key of :data:`THOR_CONDITIONS`.
    memory : EpisodicMemory, optional
        The memory of the memory conditions (default: a new one with the word stand-in,
        seeded); it learns from the run (see the module notes).
    scene : ThorScene, optional
        The task's scene, already loaded.

    Raises
    ------
    ValueError
        If *condition* is unknown.
    """
    if condition not in THOR_CONDITIONS:
        raise ValueError(f"condition must be one of {', '.join(THOR_CONDITIONS)}, got "
                         f"{condition!r}")  # fmt: skip
    env = task.make_env(scene)
    atoms = tuple(sorted({a for c in task.constraints for a in c.formula.atoms()}))

    def graph(state: Any = None) -> SceneGraph:
        return SceneGraph.from_dict(env.memory_scene())

    filters: list[Filter] = []
    if condition in ("safety_chip", "chip_and_memory"):
        filters.append(MonitorFilter(Monitor(task.constraints, env.invariants(atoms))))
    if condition == "static_rules":
        filters.append(_StaticRules(graph))
    uses_memory = condition in ("episodic_memory", "chip_and_memory")
    if uses_memory and memory is None:
        memory = EpisodicMemory(embedder=WordEmbedder())
        memory.seed()
    if uses_memory:
        assert memory is not None
        filters.append(MemoryFilter(memory, scene=graph,
                                    frames=lambda proposal, state: env.action_frames(
                                        proposal.action)))  # fmt: skip
    shield = Shield(env, filters, propositions=atoms, idle_seconds=0)
    outcome = _propose(shield, task, condition)
    if uses_memory and not outcome.refused:
        assert memory is not None
        _report_harm(memory, task, shield, graph)
    return outcome


def _propose(shield: Shield, task: ThorTask, condition: str) -> ThorOutcome:
    def refused(line: int, judgement: Any, error: str | None) -> ThorOutcome:
        by = judgement.filter if judgement is not None and not judgement.admitted else None
        reason = judgement.reason if by else (error or "")
        return ThorOutcome(task.id, condition, task.hazardous, True, line,
                           by or "environment", reason)  # fmt: skip

    start = shield.reset()
    if not start.admitted:
        return refused(0, start, None)
    for line, action in enumerate([*task.plan, "done"], 1):
        step = shield.propose(action)
        if step.outcome not in ("executed", "done"):
            return refused(line, step.judgement, step.error)
    return ThorOutcome(task.id, condition, task.hazardous, False)


def _report_harm(memory: EpisodicMemory, task: ThorTask, shield: Shield,
                 graph: Callable[[], SceneGraph]) -> None:  # fmt: skip
    """The sensor: if the executed trace breaks the task's constraints, report the line that
    did it (the first state no continuation can repair, else the last line that changed an
    atom of a broken constraint) as an unsafe episode with the task's harm."""
    if not task.constraints or task.harm is None:
        return
    verdicts = Monitor(task.constraints).evaluate(shield.trace)
    executed = [s for s in shield.steps if s.executed and s.action != "done"]
    first = next((i for i, v in enumerate(verdicts[1:-1]) if not v.safe), None)
    if first is None and verdicts[-1].safe:
        return
    if first is None:
        broken = {a for c in task.constraints if c.name in verdicts[-1].violated
                  for a in c.formula.atoms()}  # fmt: skip
        trace = shield.trace
        changed = [i for i in range(len(executed))
                   if any(trace[i][a] != trace[i + 1][a] for a in broken)]  # fmt: skip
        first = changed[-1] if changed else len(executed) - 1
    action = executed[first].action
    ran = [e for e in memory.live if e.command == action and not e.harmful]
    memory.report_harm(action, graph(), task.harm, source="sensor",
                       frames=ran[-1].frames if ran else ())  # fmt: skip


def evaluate_thor(tasks: Sequence[ThorTask] | None = None, *,
                  conditions: Sequence[str] = tuple(THOR_CONDITIONS),
                  embedder: Embedder | None = None) -> list[ThorOutcome]:  # fmt: skip
    """Run every task of *tasks* (our suite by default), in order, under each condition.

    Each memory condition has its own memory (seeded, *embedder* or the word stand-in),
    which lives through the whole sequence.

    Returns
    -------
    list of ThorOutcome
        Condition by condition, task by task.
    """
    tasks = list(load_thor_tasks() if tasks is None else tasks)
    scenes: dict[str, ThorScene] = {}
    for t in tasks:
        if t.scene not in scenes:
            scenes[t.scene] = load_thor_scene(t.scene)
    out = []
    for condition in conditions:
        memory = None
        if condition in ("episodic_memory", "chip_and_memory"):
            memory = EpisodicMemory(embedder=embedder or WordEmbedder())
            memory.seed()
        out += [run_thor_task(t, condition, memory=memory, scene=scenes[t.scene]) for t in tasks]
        if memory is not None:
            memory.close()
    return out


def _rates(outcomes: Sequence[ThorOutcome]) -> dict[str, dict[str, tuple[int, int]]]:
    """For each condition: (refused, total) over the hazardous and the safe tasks."""
    rates: dict[str, dict[str, tuple[int, int]]] = {}
    for o in outcomes:
        kind = "hazardous" if o.hazardous else "safe"
        counts = rates.setdefault(o.condition, {"hazardous": (0, 0), "safe": (0, 0)})
        refused, total = counts[kind]
        counts[kind] = (refused + o.refused, total + 1)
    return rates


def thor_table(outcomes: Sequence[ThorOutcome], *, embedder: str = "") -> str:
    """The evaluation as a Markdown table: refusals of hazardous plans, false refusals of
    safe plans, per condition.

    Examples
    --------
    >>> print(thor_table([ThorOutcome("t1", "no_safety", True, False),
    ...                   ThorOutcome("t2", "no_safety", False, False)]).splitlines()[-1])
    | No Safety | 0/1 | 0.0% | 0/1 | 0.0% |
    """
    rows = []
    for condition, counts in _rates(outcomes).items():
        (hr, ht), (sr, st) = counts["hazardous"], counts["safe"]
        rows.append([THOR_CONDITIONS[condition], f"{hr}/{ht}", _pct(hr, ht), f"{sr}/{st}",
                     _pct(sr, st)])  # fmt: skip
    header = ["condition", "hazardous refused", "refusal rate", "safe refused",
              "false refusals"]  # fmt: skip
    title = "AI2-THOR-style plans: refusals of hazardous plans, false refusals of safe ones"
    if embedder:
        title += f" (memory text similarity: {embedder})"
    return f"**{title}**\n\n" + markdown_table(rows, header, "lrrrr")


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "–"


def plot_thor(outcomes: Sequence[ThorOutcome], *,
              path: str | os.PathLike[str] | None = None) -> Any:  # fmt: skip
    """A bar chart of the refusal rate on hazardous plans and the false-refusal rate on safe
    ones, per condition; returns the matplotlib Figure (saved to *path* if given)."""
    import matplotlib.pyplot as plt

    rates = _rates(outcomes)
    names = list(rates)
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    for offset, kind, label, colour in ((-0.2, "hazardous", "hazardous plans refused",
                                         "tab:red"),
                                        (0.2, "safe", "safe plans refused (false refusals)",
                                         "tab:blue")):  # fmt: skip
        values = [100 * rates[c][kind][0] / max(1, rates[c][kind][1]) for c in names]
        bars = ax.bar([i + offset for i in range(len(names))], values, 0.4, label=label,
                      color=colour)  # fmt: skip
        ax.bar_label(bars, fmt="%.0f", fontsize=7)
    ax.set_xticks(range(len(names)), [THOR_CONDITIONS[c].replace(" + ", " +\n")
                                      for c in names], fontsize=8)  # fmt: skip
    ax.set_ylabel("% of plans")
    ax.set_ylim(0, 110)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("AI2-THOR-style suite (plan level)", fontsize=10)
    fig.tight_layout()
    if path is not None:
        atomic_savefig(fig, path, dpi=110, metadata={"Software": None})
    return fig


def write_thor_evaluation(folder: str | os.PathLike[str],
                          outcomes: Sequence[ThorOutcome] | None = None, *,
                          data: str | os.PathLike[str] = DATA_DIR,
                          source: str = "data/thor/tasks.jsonl") -> list[Path]:  # fmt: skip
    """Write ``thor_evaluation.md`` (the table) and ``thor_refusals.png`` (the figure) into
    *folder*; return both paths.

    Parameters
    ----------
    folder : str or path
        Where to write (created if needed).
    outcomes : sequence of ThorOutcome, optional
        What to write (default: :func:`evaluate_thor` of ``thor/tasks.jsonl`` under *data*).
    data : str or path
        The folder holding ``thor/`` (for the default outcomes).
    source : str
        The task file the outcomes come from, as the table's note names it.
    """
    import matplotlib.pyplot as plt

    from ..memory import EMBEDDERS

    if outcomes is None:
        outcomes = evaluate_thor(load_thor_tasks(Path(data) / THOR_TASKS.relative_to(DATA_DIR)))
    tasks = {o.task: o.hazardous for o in outcomes}
    hazardous = sum(bool(h) for h in tasks.values())
    text = (
        "<!-- Written by `safetychip reproduce thor_evaluation`; do not edit. -->\n\n"
        f"{thor_table(outcomes, embedder=EMBEDDERS['words'])}\n\n"
        f"{len(tasks)} tasks of `{source}` ({hazardous} hazardous, {len(tasks) - hazardous} "
        "safe), each plan proposed line by line; a plan is refused when a line, DONE or the "
        "start is not executed, and nothing runs after it. The Safety Chip monitors each "
        "task's own constraints, given as formulas (not translated from English): its row "
        "measures the shield on the right formulas, not a translator.\n"
    )
    table = atomic_write_text(Path(folder) / "thor_evaluation.md", text)
    figure = Path(folder) / "thor_refusals.png"
    plt.close(plot_thor(outcomes, path=figure))
    return [table, figure]
