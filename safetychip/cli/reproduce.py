"""``safetychip reproduce``: regenerate the files under ``figures/`` from ``data/``.

A :class:`ReproductionStep` writes some files below a checkout and returns them. The core
step, ``spot_demo_automata``, is here; the modules of :data:`safetychip.cli.COMMAND_MODULES`
register theirs in ``REPRODUCTION_STEPS`` (the VirtualHome figures and the experiment grid:
:mod:`safetychip.cli.experiment`), and ``reproduce`` runs them all, in that order.

Examples
--------
>>> [step.name for step in REPRODUCTION_STEPS]
['spot_demo_automata']
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .._io import atomic_write_text
from ..automata import to_svg
from ..errors import SafetyChipError
from ..monitor import compile_dfa
from ._common import EXIT_INPUT, EXIT_OK, Command, InputError, describe, error
from .monitor import load_constraints

__all__ = ["COMMANDS", "REPRODUCTION_STEPS", "ReproductionStep", "SkipStep"]


class SkipStep(Exception):
    """Raised by a reproduction step whose inputs do not exist yet; ``reproduce`` says so."""


@dataclass(frozen=True)
class ReproductionStep:
    """One step of ``safetychip reproduce``.

    Attributes
    ----------
    name : str
        Short name, used to select the step on the command line.
    description : str
        One line for ``reproduce --list``.
    run : callable
        ``run(root) -> list of Path`` writes its files below the checkout *root* and returns
        them; raises :class:`SkipStep` when its inputs are absent.
    inputs : tuple of str
        Paths, relative to the root, that the step reads (for ``--list``).
    """

    name: str
    description: str
    run: Callable[[Path], list[Path]]
    inputs: tuple[str, ...] = field(default=())


#: The demo constraint whose automaton notebook 02 studies: its picture is a figure too.
_PICTURED = "hallway_at_most_3"


def _spot_demo_automata(root: Path) -> list[Path]:
    source = root / "data" / "spot" / "demo_constraints.json"
    if not source.is_file():
        raise SkipStep(f"{source} does not exist yet")
    constraints, _ = load_constraints(str(source), command="reproduce")
    written = []
    lines = [
        "# The automata of the Spot demo constraints (data/spot/demo_constraints.json).",
        "# Written by `safetychip reproduce`; do not edit.",
        "",
    ]
    for c in constraints:
        dfa = compile_dfa(c.formula)
        dead = sorted(dfa.dead_states())
        accepting = [s for s, a in enumerate(dfa.accepting) if a]
        lines += [
            f"[{c.name}] {c.sentence}".rstrip(),
            f"formula:   {c.formula}",
            f"automaton: {dfa.num_states} states, {dfa.num_edges} edges, initial {dfa.initial}, "
            f"accepting {accepting}, dead {dead}",
        ]
        lines += [f"  {s} -> {t}: {g}" for s in range(dfa.num_states) for t, g in dfa.guards(s)]
        lines.append("")
        if c.name == _PICTURED:
            written.append(atomic_write_text(root / "figures" / f"02_{c.name}.svg", to_svg(dfa)))
    text = "\n".join(lines)
    return [atomic_write_text(root / "figures" / "spot_demo_automata.txt", text), *written]


REPRODUCTION_STEPS = (
    ReproductionStep(
        "spot_demo_automata",
        "formula, DFA size and guards of each Spot demo constraint; notebook 02's picture",
        _spot_demo_automata,
        ("data/spot/demo_constraints.json",),
    ),
)


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("steps", nargs="*", metavar="STEP", help="run only these steps (default: all)")
    p.add_argument(
        "--root",
        default=".",
        metavar="DIR",
        help="the checkout holding data/ and figures/ (default: the current directory)",
    )
    p.add_argument("--list", action="store_true", help="list the steps and exit")


def _run(args: argparse.Namespace) -> int:
    # Every module's steps, from the parser (safetychip.cli.build_parser), so that this module
    # does not import the package that imports it.
    steps = args._reproduction_steps()
    if args.list:
        for s in steps:
            reads = f" (reads {', '.join(s.inputs)})" if s.inputs else ""
            print(f"{s.name}: {s.description}{reads}")
        return EXIT_OK
    known = {s.name for s in steps}
    unknown = [name for name in args.steps if name not in known]
    if unknown:
        raise InputError(f"unknown step {', '.join(unknown)}; choose from "
                         f"{', '.join(sorted(known))}")  # fmt: skip
    root = Path(args.root)
    if not root.is_dir():
        raise InputError(f"--root {args.root}: no such directory")
    chosen = [s for s in steps if not args.steps or s.name in args.steps]
    ran, failed = [], 0
    began = time.perf_counter()
    for number, step in enumerate(chosen, 1):
        print(f"[{number}/{len(chosen)}] {step.name}: {step.description}", flush=True)
        start = time.perf_counter()
        try:
            written = step.run(root)
        except SkipStep as why:
            print(f"skipped {step.name}: {why}", flush=True)
            continue
        except (SafetyChipError, OSError, ValueError) as err:
            failed += 1
            error("reproduce", f"step {step.name}: {describe(err)}")
            continue
        ran.append(step.name)
        for path in written:
            print(f"{step.name}: wrote {path}")
        print(f"{step.name}: done in {_seconds(time.perf_counter() - start)}", flush=True)
    summary = f"reproduce: {len(ran)} of {len(chosen)} steps ran"
    if ran:
        summary += f": {', '.join(ran)}"
    if failed:
        summary += f"; {failed} failed"
    elif not ran:
        summary += " (nothing to reproduce yet)"
    print(f"{summary}; {_seconds(time.perf_counter() - began)} in all")
    return EXIT_INPUT if failed else EXIT_OK


def _seconds(elapsed: float) -> str:
    """A duration as a person reads it.

    >>> _seconds(3.14159), _seconds(192.5)
    ('3.1 s', '3 min 12 s')
    """
    if elapsed < 60:
        return f"{elapsed:.1f} s"
    minutes, seconds = divmod(round(elapsed), 60)
    return f"{minutes} min {seconds} s"


_EPILOG = """\
Each step regenerates files under figures/ from data/; a step whose inputs do not exist yet is
skipped with a message. Each step prints its name before it starts and its time when it ends
(with a progress bar on a terminal where it loops); the last line gives the time of the whole.
The Makefile's `make reproduce` runs this command.

exit status: 0 every chosen step ran or was skipped; 2 a step failed (the others still ran)

examples:
  safetychip reproduce --list
  safetychip reproduce spot_demo_automata
"""

COMMANDS = (
    Command("reproduce", "regenerate the files under figures/ from data/",
            _configure, _run, epilog=_EPILOG),
)  # fmt: skip
