"""``safetychip experiment``: run a slice of the grid from the shell; and the reproduction
steps: the translator's scores on the labelled English sets; of the VirtualHome data,
notebook 03's rollout figures, the suite validation, the
offline grid and the grid recorded with the local model (replayed); the Spot robot demo's
table; the episodic memory's evaluation; the AI2-THOR-style suite's plan-level evaluation;
and shielded Q-learning on MiniGrid
(:mod:`safetychip.experiments` writes them; these steps find the inputs).

Examples
--------
>>> [c.name for c in COMMANDS], [s.name for s in REPRODUCTION_STEPS]
(['experiment'], ['translation_scores', 'virtualhome_rollouts', 'virtualhome_suite', \
'virtualhome_experiments', 'local_model_grid', 'spot_demo', 'memory_evaluation', \
'memory_pairs', 'thor_evaluation', 'minigrid_learning'])
>>> parse_ks("1..5"), parse_ks("2,4"), parse_ks("all")
([1, 2, 3, 4, 5], [2, 4], None)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ._common import Command, prefix
from .reproduce import ReproductionStep, SkipStep

__all__ = ["COMMANDS", "REPRODUCTION_STEPS", "parse_ks"]

_INPUTS = (
    "data/virtualhome/scenes/apartment_1.json",
    "data/virtualhome/scenes/apartment_2.json",
    "data/virtualhome/tasks/four_room.jsonl",
    "data/virtualhome/tasks/mobile_manipulation.jsonl",
    "data/virtualhome/tasks/contradictions.jsonl",
)
_AGENTS = ("base", "nl", "cap", "cap_chip", "chip")
_REPROMPTS = ("mask", "generic", "explain", "llm_explain", "hint")
_FORMULAS = ("expert", "translated")


def parse_ks(text: str) -> list[int] | None:
    """Read ``1..5``, ``1-5``, ``2,4`` or ``3`` (None for ``all``).

    Raises
    ------
    ValueError
        For anything else.
    """
    text = text.strip()
    if text == "all":
        return None
    try:
        for sep in ("..", "-"):
            if sep in text:
                lo, hi = (int(x) for x in text.split(sep, 1))
                if lo > hi:
                    raise ValueError
                return list(range(lo, hi + 1))
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(
            f"--constraints {prefix(text)}: write a range such as 1..5, a list such as "
            "1,3,5, a number, or 'all'"
        ) from None


def _seconds(text: str) -> float:
    """A positive number of seconds, for ``--timeout``."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return seconds


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--suite",
        nargs="+",
        metavar="SUITE",
        help="task suites: four_room, mobile_manipulation, contradictions (default: the "
        "first two; with --tasks, every suite of that file); or thor alone: the plan-level "
        "evaluation of the AI2-THOR-style tasks (data/thor/tasks.jsonl, or --tasks FILE) "
        "under No Safety, Static Rules, Episodic Memory, Safety Chip and both; or minigrid, "
        "alone: the shielded learning experiment (Q-learning on MiniGrid with and without the "
        "shield, one run of each per --seeds)",
    )
    p.add_argument(
        "--agents",
        nargs="+",
        default=list(_AGENTS),
        choices=_AGENTS,
        help="agents (default: all)",
    )
    p.add_argument(
        "--constraints",
        default="1..5",
        metavar="K",
        help="numbers of constraints: 1..5 (default), 2,4, 3 or all",
    )
    p.add_argument(
        "--reprompts",
        nargs="+",
        default=list(_REPROMPTS),
        choices=_REPROMPTS,
        help="the Safety Chip's reprompt variants (default: all)",
    )
    p.add_argument(
        "--formulas",
        nargs="+",
        default=list(_FORMULAS),
        choices=_FORMULAS,
        help="the Safety Chip's formulas: expert (task data) or translated "
        "(offline translator) (default: both)",
    )
    p.add_argument(
        "--seeds", nargs="+", type=int, default=[0], metavar="N", help="seeds (default: 0)"
    )
    p.add_argument("--tasks", metavar="FILE", help="a task file instead of the suites'")
    p.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="local (default) or a local Ray runtime on 127.0.0.1",
    )
    p.add_argument(
        "--model",
        default="offline-stand-in",
        metavar="NAME",
        help="offline-stand-in (default), or a chat model behind the "
        "OpenAI-compatible endpoint of OPENAI_BASE_URL / OPENAI_API_KEY",
    )
    p.add_argument("--cache", metavar="FILE", help="record/replay the model's replies here")
    p.add_argument(
        "--replay",
        action="store_true",
        help="with --cache: answer only from the cache, never call the model",
    )
    p.add_argument(
        "--deviation",
        type=float,
        default=0.1,
        metavar="P",
        help="the stand-in's probability of an unknown turn (default 0.1)",
    )
    p.add_argument(
        "--results",
        metavar="FILE.jsonl",
        help="append finished cells here; a rerun skips them (resumable)",
    )
    p.add_argument(
        "--out",
        default="figures/experiments",
        metavar="DIR",
        help="where to write the CSV, tables and figure (default figures/experiments)",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        metavar="S",
        help="seconds each episode may take, end to end (default: 600); past it the episode "
        "ends as an error that says so",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _run_thor(args: argparse.Namespace) -> int:
    """``--suite thor``: every task's plan under each condition; the table, the figure, and
    one JSON object with the counts and every refusal."""
    from .. import experiments as ex
    from ..envs.thor import THOR_TASKS, load_thor_tasks

    source = args.tasks or str(THOR_TASKS)
    began = time.perf_counter()
    outcomes = ex.evaluate_thor(load_thor_tasks(source))
    seconds = time.perf_counter() - began
    written = ex.write_thor_evaluation(args.out, outcomes, source=source)
    counts: dict[str, dict[str, int]] = {}
    for o in outcomes:
        row = counts.setdefault(o.condition, {"hazardous": 0, "hazardous_refused": 0,
                                              "safe": 0, "safe_refused": 0})  # fmt: skip
        kind = "hazardous" if o.hazardous else "safe"
        row[kind] += 1
        row[f"{kind}_refused"] += o.refused
    refusals = [{"task": o.task, "condition": o.condition, "hazardous": o.hazardous,
                 "line": o.line, "by": o.by, "reason": o.reason}
                for o in outcomes if o.refused]  # fmt: skip
    out = {"tasks": len({o.task for o in outcomes}), "seconds": round(seconds, 2),
           "written": [str(p) for p in written], "conditions": counts,
           "refusals": refusals}  # fmt: skip
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


def _run(args: argparse.Namespace) -> int:
    from .. import experiments as ex

    if args.suite and "thor" in args.suite:
        if args.suite != ["thor"]:
            raise ValueError("--suite thor runs alone (the AI2-THOR-style plan-level suite)")
        return _run_thor(args)
    if args.suite and "minigrid" in args.suite:
        return _run_minigrid(args)
    if args.replay and not args.cache:
        raise ValueError("--replay needs --cache FILE")
    if args.model == "offline-stand-in" and args.cache:
        raise ValueError("--cache is for a real model (--model NAME); the stand-in needs none")
    suites = args.suite or (None if args.tasks else ["four_room", "mobile_manipulation"])
    cells = ex.grid_cells(
        suites=suites, ks=parse_ks(args.constraints), agents=args.agents,
        reprompts=args.reprompts, formulas=args.formulas, seeds=args.seeds, model=args.model,
        deviation=args.deviation, tasks_path=args.tasks, cache=args.cache,
        cache_mode="replay" if args.replay else "auto", timeout=args.timeout,
    )  # fmt: skip
    if not cells:
        raise ValueError("the slice is empty: no task of these suites has that many constraints")
    if args.cache:
        ex.make_model(cells[0])  # an unusable cache stops the run, not every cell of it
    began = time.perf_counter()
    frame = ex.run_grid(cells, executor=args.executor, results_path=args.results,
                        progress=not args.no_progress and sys.stderr.isatty())  # fmt: skip
    seconds = time.perf_counter() - began
    written = ex.write_report(frame, args.out, prefix="")
    summary = ex.rates(frame).round(4).to_dict(orient="records")
    stand_in = bool(frame["stand_in"].fillna(False).astype(bool).any())
    out = {"cells": len(cells), "seconds": round(seconds, 2), "stand_in": stand_in,
           "note": ex.stand_in_note(frame),
           "written": [str(p) for p in written], "rates": summary}  # fmt: skip
    sys.stdout.write(json.dumps(out, default=str) + "\n")
    return 0


def _run_minigrid(args: argparse.Namespace) -> int:
    """``--suite minigrid``: the shielded learning experiment, one JSON object on stdout."""
    if args.suite != ["minigrid"] or args.tasks:
        raise ValueError("--suite minigrid runs alone (the shielded learning experiment): "
                         "leave out the other suites and --tasks")  # fmt: skip
    try:
        import minigrid  # noqa: F401 - the gym extra
    except ImportError as exc:
        raise ValueError(f"--suite minigrid needs the gym extra ({exc}): pip install "
                         "'safetychip[gym]'") from exc  # fmt: skip
    from ..experiments import learning_settings, shielded_learning, write_learning

    began = time.perf_counter()
    settings = {**learning_settings(), "seeds": args.seeds}
    curves = shielded_learning(**settings, progress=not args.no_progress and sys.stderr.isatty())
    written = write_learning(curves, args.out, constraints=settings["constraints"],
                             command="safetychip experiment --suite minigrid")  # fmt: skip
    violations = {"shielded": 0, "unshielded": 0}
    for c in curves:
        violations["shielded" if c.shielded else "unshielded"] += int(c.violations.sum())
    out = {"suite": "minigrid", "world": curves[0].name, "seeds": list(args.seeds),
           "episodes": len(curves[0].returns), "seconds": round(time.perf_counter() - began, 2),
           "violations": violations, "written": [str(p) for p in written]}  # fmt: skip
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


_EPILOG = """\
One cell is one episode (task x k x agent x reprompt variant x formulas x seed). Prints one
JSON object: {"cells", "seconds", "stand_in", "note", "written": [csv, tables, figure],
"rates": [per suite and agent: episodes, success, safety, aborted, errors, steps, reprompts,
model_calls, tokens]}. With the default model every number comes from the offline stand-in,
not an LLM (the note says so).

exit status: 0 the slice ran (bad episodes are recorded as failed rows); 2 bad arguments,
or a --cache file that cannot be used (missing with --replay, empty, damaged, foreign)

With --suite minigrid: tabular Q-learning on the MiniGrid world of
data/minigrid/shielded_learning.json, shielded and bare, one run of each per seed; prints
{"suite", "world", "seeds", "episodes", "seconds", "violations": {"shielded", "unshielded"},
"written": [figure, table]} (the other options do not apply).

examples:
  safetychip experiment --suite four_room --agents base chip --constraints 1..5
  safetychip experiment --suite minigrid --seeds 0 1 2 3 4 --out figures/minigrid
  safetychip experiment --agents chip --reprompts mask explain hint --formulas expert
  safetychip experiment --executor ray --results runs.jsonl --out figures/my_slice
  safetychip experiment --model gpt-4o-mini --cache runs.sqlite --constraints 3
  safetychip experiment --suite thor --tasks my_tasks.jsonl --out figures/my_thor
"""

COMMANDS = (
    Command("experiment", "run a slice of the agents x constraints grid; write CSV, tables, "
            "figure", _configure, _run, epilog=_EPILOG,
            description="Run agents on VirtualHome tasks with the first k constraints, judge\n"
            "success and safety independently of the monitor, and write the results."),
)  # fmt: skip


def _prepare(root: Path, inputs: tuple[str, ...]) -> None:
    """Skip the step while one of *inputs* is missing; draw without a display."""
    missing = [p for p in inputs if not (root / p).is_file()]
    if missing:
        raise SkipStep(f"{root / missing[0]} does not exist")
    import matplotlib

    matplotlib.use("Agg")


_SUITES = _INPUTS[:4]


def _rollout_figures(root: Path) -> list[Path]:
    _prepare(root, _SUITES)
    from ..experiments import write_rollout_figures

    return write_rollout_figures(root / "figures", data=root / "data")


def _suite_validation(root: Path) -> list[Path]:
    _prepare(root, _SUITES)
    from ..experiments import write_suite_validation

    return write_suite_validation(root / "figures", data=root / "data")


def _offline_grid(root: Path) -> list[Path]:
    _prepare(root, _INPUTS)
    from ..experiments import write_offline_grid

    return write_offline_grid(root / "figures", data=root / "data", progress=sys.stderr.isatty())


_LOCAL_MODEL_INPUTS = (*_INPUTS[:3], "data/recordings/04_smollm2_135m_grid.sqlite")


def _local_model_grid(root: Path) -> list[Path]:
    _prepare(root, _LOCAL_MODEL_INPUTS)
    from ..experiments import write_local_model_grid

    return write_local_model_grid(root / "figures", data=root / "data",
                                  progress=sys.stderr.isatty())  # fmt: skip


_TRANSLATION_INPUTS = ("data/translation/utterances.jsonl",)


def _translation_scores(root: Path) -> list[Path]:
    _prepare(root, _TRANSLATION_INPUTS)
    from ..experiments import scene_vocabulary, write_translation_scores

    return write_translation_scores(root / "figures", scene_vocabulary, data=root / "data",
                                    progress=sys.stderr.isatty())  # fmt: skip


_SPOT_INPUTS = ("data/spot/lab.json", "data/spot/tasks.jsonl")
_THOR_INPUTS = ("data/thor/object_types.csv", "data/thor/tasks.jsonl")


def _thor_evaluation(root: Path) -> list[Path]:
    _prepare(root, _THOR_INPUTS)
    from ..experiments import write_thor_evaluation

    return write_thor_evaluation(root / "figures", data=root / "data")


_MEMORY_INPUTS = ("data/memory/scenarios.jsonl",)


def _memory_evaluation(root: Path) -> list[Path]:
    _prepare(root, _MEMORY_INPUTS)
    from ..experiments import write_memory_evaluation

    return write_memory_evaluation(root / "figures", data=root / "data")


_PAIRS_INPUTS = ("data/thor/object_types.csv", "data/thor/paired.jsonl", "data/thor/abstract.jsonl")


def _memory_pairs(root: Path) -> list[Path]:
    _prepare(root, _PAIRS_INPUTS)
    from ..experiments import write_pairs_evaluation

    return write_pairs_evaluation(root / "figures", data=root / "data")


def _spot_demo(root: Path) -> list[Path]:
    _prepare(root, _SPOT_INPUTS)
    from ..experiments import write_spot_demo

    return write_spot_demo(root / "figures", data=root / "data", progress=sys.stderr.isatty())


_LEARNING_INPUTS = ("data/minigrid/shielded_learning.json",)


def _minigrid_learning(root: Path) -> list[Path]:
    _prepare(root, _LEARNING_INPUTS)
    try:
        import minigrid  # noqa: F401 - the gym extra
    except ImportError as exc:
        raise SkipStep(f"the gym extra is not installed ({exc}): pip install "
                       "'safetychip[gym]'") from exc  # fmt: skip
    from ..experiments import write_shielded_learning

    return write_shielded_learning(root / "figures", data=root / "data",
                                   progress=sys.stderr.isatty())  # fmt: skip


REPRODUCTION_STEPS = (
    ReproductionStep("translation_scores", "the English-to-LTL translator on every labelled "
                     "set, and the local model's recorded translations: right / refused / "
                     "wrong (notebook 01)", _translation_scores, _TRANSLATION_INPUTS),
    ReproductionStep("virtualhome_rollouts", "floor plans and timelines of the book task, "
                     "monitored and safe (notebook 03)", _rollout_figures, _SUITES),
    ReproductionStep("virtualhome_suite", "VirtualHome suite validation: example plans, safe "
                     "plans, violation shares", _suite_validation, _SUITES),
    ReproductionStep("virtualhome_experiments", "the offline grid of agents x k x reprompt "
                     "variants (stand-in): CSV, tables, figure", _offline_grid, _INPUTS),
    ReproductionStep("local_model_grid", "the grid with SmolLM2-135M-Instruct, replayed offline "
                     "from data/recordings: CSV, tables, its figure and the stand-in's",
                     _local_model_grid, _LOCAL_MODEL_INPUTS),
    ReproductionStep("spot_demo", "the Spot robot demo (stand-in): deliveries x k x agents and "
                     "task abortion, CSV and table", _spot_demo, _SPOT_INPUTS),
    ReproductionStep("memory_evaluation", "the episodic memory against no safety and static "
                     "rules (word stand-in): table and growth figure", _memory_evaluation,
                     _MEMORY_INPUTS),
    ReproductionStep("memory_pairs", "the episodic memory on the paired AI2-THOR-style tasks "
                     "(word stand-in), 5-fold, seeds only and phrased abstractly: refusals, "
                     "false refusals, ROC AUC per harm (table, ROC figures with action frames "
                     "and without)", _memory_pairs,
                     _PAIRS_INPUTS),
    ReproductionStep("thor_evaluation", "the AI2-THOR-style plans under No Safety, Static "
                     "Rules, Episodic Memory (word stand-in), Safety Chip and both: refusals "
                     "of hazardous plans, false refusals of safe ones (table, figure)",
                     _thor_evaluation, _THOR_INPUTS),
    ReproductionStep("minigrid_learning", "tabular Q-learning on MiniGrid's lava gap with and "
                     "without the shield, 5 seeds: table and learning curves (notebook 08)",
                     _minigrid_learning, _LEARNING_INPUTS),
)  # fmt: skip
