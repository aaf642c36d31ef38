"""``safetychip monitor``: replay a trace through the constraint monitor, one verdict a line.

The files are read by :func:`safetychip.monitor.read_constraints` and
:func:`safetychip.monitor.read_trace`.

Examples
--------
>>> import json, tempfile
>>> from pathlib import Path
>>> from safetychip.cli import main
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "c.json").write_text(json.dumps(["G !a"]))
>>> _ = (folder / "t.json").write_text(json.dumps([[], ["a"]]))
>>> main(["monitor", str(folder / "c.json"), str(folder / "t.json")])  # doctest: +ELLIPSIS
{"step": 0, "status": "safe", ...}
{"step": 1, "status": "violation", ...}
{"step": "DONE", "status": "violation", ...}
1
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any, Literal, overload

from ..errors import SafetyChipError
from ..ltl import Formula
from ..monitor import (
    CandidateMonitor,
    CandidateSet,
    Constraint,
    Monitor,
    Question,
    Verdict,
    read_constraints,
    read_trace,
    write_constraints,
)
from ..shield import DONE, MonitorFilter, Proposal
from ._common import (
    EXIT_OK,
    EXIT_VIOLATION,
    STDIN,
    Command,
    InputError,
    add_syntax,
    dump,
    label,
    warn,
)

__all__ = ["COMMANDS", "load_constraints"]


@overload
def load_constraints(
    path: str, syntax: str = ..., *, command: str = ..., candidate_sets: Literal[False] = ...
) -> tuple[tuple[Constraint, ...], tuple[Formula, ...]]: ...
@overload
def load_constraints(
    path: str, syntax: str = ..., *, command: str = ..., candidate_sets: bool
) -> tuple[tuple[Constraint | CandidateSet, ...], tuple[Formula, ...]]: ...
def load_constraints(
    path: str, syntax: str = "spot", *, command: str = "monitor", candidate_sets: bool = False
) -> tuple[tuple[Any, ...], tuple[Formula, ...]]:
    """Read the constraint file *path* (``-``: stdin) with
    :func:`~safetychip.monitor.read_constraints` (candidate sets too with *candidate_sets*),
    printing its warnings as *command*'s."""
    source: Any = sys.stdin if path == STDIN else path
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = read_constraints(source, syntax=syntax, name=label(path),
                                 candidate_sets=candidate_sets)  # fmt: skip
    for warning in caught:
        warn(command, str(warning.message))
    return found


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("constraints", metavar="CONSTRAINTS.json", help="the constraints ('-': stdin)")
    p.add_argument("trace", metavar="TRACE.json", help="the trace ('-': stdin)")
    add_syntax(p)
    p.add_argument(
        "--deadline",
        type=float,
        metavar="MS",
        help="refuse, as the robot's monitor would, a decision taking longer than MS "
        "milliseconds (default: every decision exact, however long)",
    )
    p.add_argument(
        "--no-ask",
        action="store_true",
        help="never ask about a constraint whose candidate formulas disagree (by default a "
        "y/n question is asked when stdin is a terminal; otherwise the step is refused and "
        "the question printed)",
    )


def _run(args: argparse.Namespace) -> int:
    if args.constraints == STDIN and args.trace == STDIN:
        raise InputError("only one of CONSTRAINTS.json and TRACE.json can be read from stdin")
    constraints, invariants = load_constraints(args.constraints, args.syntax,
                                               candidate_sets=True)  # fmt: skip
    if args.deadline is not None and not args.deadline > 0:
        raise InputError(f"--deadline must be a positive number of milliseconds, "
                         f"got {args.deadline:g}")  # fmt: skip
    deadline = None if args.deadline is None else args.deadline / 1e3
    monitor: Monitor
    try:
        if any(isinstance(c, CandidateSet) for c in constraints):
            monitor = CandidateMonitor(constraints, invariants, deadline=deadline)
        else:
            settled = [c for c in constraints if isinstance(c, Constraint)]  # all of them
            monitor = Monitor(settled, invariants, deadline=deadline)
    except SafetyChipError as err:
        raise InputError(f"{label(args.constraints)}: {err}") from None
    interactive = STDIN not in (args.trace, args.constraints) and sys.stdin.isatty()
    judge = MonitorFilter(monitor, ask=prompt if interactive and not args.no_ask else None,
                          ask_seconds=None)  # fmt: skip
    trace = sys.stdin if args.trace == STDIN else args.trace
    letters = read_trace(trace, monitor.atoms, name=label(args.trace))
    known = set(monitor.atoms)
    for i, letter in enumerate(letters):  # the monitor cannot decide a state naming others
        unknown = sorted(letter - known)
        if unknown:
            raise InputError(
                f"{label(args.trace)}: position {i} names {', '.join(unknown)}, not a "
                f"proposition of the specification (its propositions: {', '.join(sorted(known))}"
                "); fix the name, or add a constraint that speaks of it"
            )

    safe = True
    asked = 0

    def emit(step: int | str, verdict: Verdict) -> None:
        nonlocal safe, asked
        safe = safe and verdict.safe
        record: dict[str, Any] = {"step": step, **verdict.to_dict()}
        questions = getattr(monitor, "open_questions", [])
        if len(questions) > asked:
            record["questions"] = [q.to_dict() for q in questions[asked:]]
            asked = len(questions)
        dump(record)

    def full(letter: frozenset[str]) -> dict[str, bool]:
        return {a: a in letter for a in monitor.atoms}

    first = judge.reset(full(letters[0]))
    emit(0, first.verdict or monitor.reset(letters[0]))
    if first.abort:
        return EXIT_VIOLATION
    for i, letter in enumerate(letters[1:], 1):  # asked (if need be), then recorded
        judge.judge(Proposal(f"go on to position {i} of the trace", (full(letter),)),
                    full(letters[i - 1]), ())  # fmt: skip
        emit(i, monitor.commit([letter]))
    judge.judge(Proposal(DONE), full(letters[-1]), ())
    emit("DONE", monitor.finish())
    if (
        isinstance(monitor, CandidateMonitor)
        and args.constraints != STDIN
        and any(s.answers for s in monitor.candidate_sets)
    ):
        write_constraints(args.constraints, monitor.specification(), invariants)
        warn("monitor", f"the answers were saved in {args.constraints}")
    return EXIT_OK if safe else EXIT_VIOLATION


def prompt(question: Question) -> bool | None:
    """Ask *question* on the terminal (y/n, on stderr: stdout is the verdicts); None for any
    other reply or end of input."""
    print(f"\n{question}\nIs that allowed? [y/n] ", end="", file=sys.stderr, flush=True)
    try:
        reply = input().strip().lower()
    except EOFError:
        return None
    return True if reply in ("y", "yes") else False if reply in ("n", "no") else None


_EPILOG = """\
CONSTRAINTS.json is a JSON list of constraint objects {"name", "sentence", "formula"} (only
"formula" is required; unnamed constraints are called c1, c2, ...) or of formula strings; or
an object {"constraints": [...], "invariants": [...]} where invariants are formulas every
satisfiability question honours, e.g. "the agent is in one room at a time". A constraint
whose formula is not picked yet is an object {"name", "sentence", "candidates": [{"formula",
"reading"}, ...]}: it is enforced as its candidate set. TRACE.json is a trace as for
`safetychip check`; an object state must give every proposition of the constraints and
invariants.

Output: one JSON line per position of the trace, {"step": i, "status": "safe" | "violation" |
"abort" | "ambiguous", "reason", "violated", "state_changes", "pending"}, then the DONE verdict
with "step": "DONE". A violation at step i means the action that produced position i should
not have run; the replay goes on. After an abort (the constraints contradict each other)
nothing else is printed. "ambiguous": the candidates of a set disagree about the step. When
stdin is a terminal (and --no-ask is not given) the question is asked as a y/n prompt on
stderr and the answer narrows the set; the answers are saved in CONSTRAINTS.json, so no
question is asked twice. Otherwise the step counts as refused and its question is printed in
the line's "questions".

exit status: 0 every verdict was safe (DONE included); 1 some verdict was a violation or an
abort; 2 bad input (also a trace naming a proposition the specification does not have)

example:
  safetychip monitor constraints.json trace.json | jq -r 'select(.status != "safe") | .reason'
"""

COMMANDS = (
    Command("monitor", "replay a trace through the constraint monitor; exit 1 on a violation",
            _configure, _run, epilog=_EPILOG,
            description="Replay TRACE.json through the Safety Chip monitor built from\n"
            "CONSTRAINTS.json and print its verdict for every position, then at DONE."),
)  # fmt: skip
