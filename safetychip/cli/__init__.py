"""The ``safetychip`` command line, for shell pipelines and other projects' CI.

Subcommands write JSON on stdout (one document, or one JSON object per line) and messages on
stderr; an error names the input (file, line, formula text) and never shows a traceback. The
command line sits on top of the library: it imports the library, and nothing in the library
imports it.

==========  ===============================================================================
command     does
==========  ===============================================================================
check       whether a trace satisfies a formula; batch mode reads JSON lines on stdin
automaton   the minimal DFA of a formula, as JSON or Graphviz text
monitor     replay a trace through the constraint monitor, one verdict per step, then DONE
reproduce   regenerate the files under ``figures/`` that the registered steps produce
translate   English constraints to grounded formulas (:mod:`safetychip.cli.translate`)
explain     why a recorded rollout's action was refused (:mod:`safetychip.cli.explain`)
experiment  a slice of the agents' grid (:mod:`safetychip.cli.experiment`)
memory      episodic safety memory: check, add, consolidate, override (:mod:`safetychip.cli.memory`)
labs        a course lab's student version, from the instructor's (:mod:`safetychip.cli.labs`)
==========  ===============================================================================

Exit status: 0 success; 1 ``monitor`` only, some verdict was a violation or an abort; 2 bad
input or usage (for ``check`` in batch mode: some line failed, the others were answered);
3 an internal error, which is a bug.

Adding a subcommand: write a :class:`Command` in its own module, list it in that module's
``COMMANDS``, and add the module's dotted name to :data:`COMMAND_MODULES`. A module may also
list :class:`ReproductionStep` objects in ``REPRODUCTION_STEPS``; ``reproduce`` runs them after
the core ones. Listed modules are imported whenever the parser is built, so they must import
heavy dependencies inside ``run``. To report bad input, a command raises any
:class:`~safetychip.errors.SafetyChipError`, ``OSError`` or ``ValueError`` subclass it likes:
:func:`main` prints ``safetychip COMMAND: error: MESSAGE`` and returns 2.

Examples
--------
>>> main(["automaton", "F a", "--dot"])  # doctest: +ELLIPSIS
digraph DFA {
...
  0 -> 1 [label="a"];
  1 -> 1 [label="1"];
}
0
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib import import_module
from types import ModuleType

from .. import __version__
from .._public import publish
from ..errors import SafetyChipError
from . import automaton, check, monitor, reproduce
from ._common import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_VIOLATION,
    Command,
    describe,
    error,
    silence_stdout,
)
from .reproduce import ReproductionStep, SkipStep

__all__ = [
    "COMMAND_MODULES",
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_VIOLATION",
    "Command",
    "ReproductionStep",
    "SkipStep",
    "build_parser",
    "commands",
    "main",
    "reproduction_steps",
]

#: Dotted names of modules that contribute subcommands (``COMMANDS``) and reproduction steps
#: (``REPRODUCTION_STEPS``) after the core ones.
COMMAND_MODULES: tuple[str, ...] = (
    "safetychip.cli.translate",
    "safetychip.cli.explain",
    "safetychip.cli.experiment",
    "safetychip.cli.memory",
    "safetychip.cli.labs",
)

#: The core: always there, light to import.
_CORE_MODULES: tuple[ModuleType, ...] = (check, automaton, monitor, reproduce)


def _modules() -> list[ModuleType]:
    return [*_CORE_MODULES, *(import_module(name) for name in COMMAND_MODULES)]


def commands() -> list[Command]:
    """List the core subcommands, then those of every module in :data:`COMMAND_MODULES`.

    Examples
    --------
    >>> [c.name for c in commands()][:4]
    ['check', 'automaton', 'monitor', 'reproduce']
    """
    return [c for module in _modules() for c in getattr(module, "COMMANDS", ())]


def reproduction_steps() -> list[ReproductionStep]:
    """List the core reproduction steps, then those of the :data:`COMMAND_MODULES`.

    Examples
    --------
    >>> [s.name for s in reproduction_steps()][:1]
    ['spot_demo_automata']
    """
    return [s for module in _modules() for s in getattr(module, "REPRODUCTION_STEPS", ())]


def build_parser(commands_: Sequence[Command] | None = None) -> argparse.ArgumentParser:
    """Build the argument parser, one subparser per command (default: :func:`commands`).

    Raises
    ------
    ValueError
        If two commands share a name.
    """
    parser = argparse.ArgumentParser(
        prog="safetychip",
        description="Finite-trace LTL constraints for robot agents: check traces, inspect\n"
        "automata, monitor traces, reproduce figures. Output is JSON on stdout; errors go to\n"
        "stderr.",
        epilog=_MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"safetychip {__version__}")
    parser.set_defaults(_reproduction_steps=reproduction_steps)  # for `reproduce`
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    seen: set[str] = set()
    for cmd in commands() if commands_ is None else commands_:
        if cmd.name in seen:
            raise ValueError(f"two subcommands are named {cmd.name!r}")
        seen.add(cmd.name)
        p = sub.add_parser(
            cmd.name,
            help=cmd.help,
            description=cmd.description or cmd.help,
            epilog=cmd.epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        cmd.configure(p)
        p.set_defaults(_command=cmd)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``safetychip`` with *argv* (default: ``sys.argv[1:]``) and return the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name.

    Returns
    -------
    int
        0, 1 (``monitor``: not every verdict was safe), 2 (bad input or usage) or 3 (a bug).

    Examples
    --------
    >>> main(["automaton", "G !a", "--dot"])  # doctest: +ELLIPSIS
    digraph DFA {
    ...
    0
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help and --version (0), usage errors (2)
        return stop.code if isinstance(stop.code, int) else EXIT_INPUT
    cmd: Command = args._command
    try:
        return cmd.run(args)
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as other Unix tools do.
        silence_stdout()
        return 141
    except KeyboardInterrupt:
        return 130
    except (SafetyChipError, OSError, ValueError) as err:
        error(cmd.name, describe(err))
        return EXIT_INPUT
    except Exception as err:  # never a traceback on a user's terminal
        error(cmd.name, f"internal error, please report it: {type(err).__name__}: {err}")
        return EXIT_INTERNAL


_MAIN_EPILOG = """\
exit status: 0 success; 1 `monitor` found a violation or an abort; 2 bad input or usage;
3 internal error (a bug: please report it). Run `safetychip COMMAND --help` for details.

examples:
  safetychip check 'G !"is_grabbed(phone)"' --trace trace.json
  safetychip check < cases.jsonl > answers.jsonl
  safetychip automaton 'a U b' --dot | dot -Tpng > a_until_b.png
  safetychip monitor constraints.json trace.json
"""


publish(__name__, globals(), __all__)
