"""The ``safetychip`` command line, for shell pipelines and other projects' CI.

Subcommands write JSON on stdout (one document, or one JSON object per line) and messages on
stderr; an error names the input (file, line, formula text) and never shows a traceback.

==========  ===============================================================================
command     does
==========  ===============================================================================
check       whether a trace satisfies a formula; batch mode reads JSON lines on stdin
automaton   the minimal DFA of a formula, as JSON or Graphviz text
monitor     replay a trace through the constraint monitor, one verdict per step, then DONE
reproduce   regenerate the files under ``figures/`` that the registered steps produce
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
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import import_module
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from .automata import DFA
from .errors import SafetyChipError
from .ltl import SYNTAXES, Formula, canonical_atom, evaluate, parse, parse_prefix
from .monitor import Constraint, Monitor, Verdict, compile_dfa

__all__ = [
    "COMMAND_MODULES",
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_VIOLATION",
    "Command",
    "ReproductionStep",
    "SkipStep",
    "automaton_json",
    "build_parser",
    "commands",
    "load_constraints",
    "main",
    "reproduction_steps",
]

EXIT_OK = 0
#: ``monitor``: some verdict was a violation or an abort.
EXIT_VIOLATION = 1
#: Bad input or usage: unreadable file, malformed JSON or trace, a formula that does not parse.
EXIT_INPUT = 2
#: An unexpected exception inside safetychip (a bug); the message asks for a report.
EXIT_INTERNAL = 3

#: Dotted names of modules that contribute subcommands (``COMMANDS``) and reproduction steps
#: (``REPRODUCTION_STEPS``).
COMMAND_MODULES: tuple[str, ...] = (
    "safetychip.translate._cli",
    "safetychip.explain._cli",
    "safetychip.envs._cli",
    "safetychip.experiments._cli",
)

_STDIN = "-"


# ---------------------------------------------------------------------------------------------
# Registration


@dataclass(frozen=True)
class Command:
    """One subcommand of ``safetychip``.

    Attributes
    ----------
    name : str
        The word typed after ``safetychip``.
    help : str
        One line for ``safetychip --help``.
    configure : callable
        ``configure(parser)`` declares the subcommand's arguments on its own parser.
    run : callable
        ``run(args) -> int`` does the work and returns the exit status.
    description : str
        Paragraphs shown by ``safetychip NAME --help`` (default: *help*).
    epilog : str
        Examples and notes shown after the arguments, printed verbatim.
    """

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str = ""
    epilog: str = ""


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


def _extension_modules() -> list[Any]:
    return [import_module(name) for name in COMMAND_MODULES]


def commands() -> list[Command]:
    """List the core subcommands, then those of every module in :data:`COMMAND_MODULES`.

    Examples
    --------
    >>> [c.name for c in commands()][:4]
    ['check', 'automaton', 'monitor', 'reproduce']
    """
    found = list(_CORE_COMMANDS)
    for module in _extension_modules():
        found.extend(getattr(module, "COMMANDS", ()))
    return found


def reproduction_steps() -> list[ReproductionStep]:
    """List the core reproduction steps, then those of the :data:`COMMAND_MODULES`.

    Examples
    --------
    >>> [s.name for s in reproduction_steps()][:1]
    ['spot_demo_automata']
    """
    found = list(_CORE_STEPS)
    for module in _extension_modules():
        found.extend(getattr(module, "REPRODUCTION_STEPS", ()))
    return found


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
        _silence_stdout()
        return 141
    except KeyboardInterrupt:
        return 130
    except (SafetyChipError, OSError, ValueError) as err:
        _error(cmd.name, _describe(err))
        return EXIT_INPUT
    except Exception as err:  # never a traceback on a user's terminal
        _error(cmd.name, f"internal error, please report it: {type(err).__name__}: {err}")
        return EXIT_INTERNAL


# ---------------------------------------------------------------------------------------------
# Input helpers


class _InputError(SafetyChipError, ValueError):
    """Bad input; the message already names the input."""


def _error(command: str, message: str) -> None:
    print(f"safetychip {command}: error: {message}", file=sys.stderr)


def _warn(command: str, message: str) -> None:
    print(f"safetychip {command}: warning: {message}", file=sys.stderr)


def _describe(err: BaseException) -> str:
    if isinstance(err, OSError) and err.filename is not None:
        return f"cannot read {err.filename}: {err.strerror or err}"
    return str(err)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout is not a real file
        pass


def _label(path: str) -> str:
    return "<stdin>" if path == _STDIN else path


def _read_text(path: str) -> str:
    """Read the whole text of *path* (``-``: stdin), with errors naming the file."""
    if path == _STDIN:
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        raise _InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise _InputError(f"{path}: is a directory, not a file") from None
    except UnicodeDecodeError as err:
        raise _InputError(f"{path}: not UTF-8 text (byte {err.start})") from None
    except OSError as err:
        raise _InputError(f"{path}: cannot read: {err.strerror or err}") from None


_TOO_DEEP = "not usable JSON: nested too deeply"


def _json_error(err: json.JSONDecodeError) -> str:
    return f"not valid JSON: {err.msg} at line {err.lineno} column {err.colno}"


def _load_json(path: str) -> Any:
    text = _read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise _InputError(f"{_label(path)}: {_json_error(err)}") from None
    except RecursionError:
        raise _InputError(f"{_label(path)}: {_TOO_DEEP}") from None


def _parse(text: str, syntax: str) -> Formula:
    return parse(text) if syntax == "spot" else parse_prefix(text)


_parsed = lru_cache(maxsize=4096)(_parse)


@lru_cache(maxsize=4096)
def _compiled(text: str, syntax: str) -> tuple[Formula, DFA]:
    """Parse *text* and build its minimal DFA, once per distinct text (errors not cached)."""
    formula = _parsed(text, syntax)
    return formula, compile_dfa(formula)


def _formula_arg(text: str, syntax: str) -> Formula:
    try:
        return _parse(text, syntax)
    except SafetyChipError as err:
        raise _InputError(f"formula {text!r}: {err}") from None


_canon = lru_cache(maxsize=1 << 16)(canonical_atom)

#: A proposition state as read from JSON: the true atoms, and the atoms given a value
#: (None for a list of true atoms, where every other atom is false).
_State = tuple[frozenset[str], frozenset[str] | None]


def _read_trace(data: Any, where: str) -> list[_State]:
    """Validate a JSON trace and make its atom names canonical.

    A trace is a non-empty list of states, each a list of true atoms or an object atom ->
    true/false.
    """
    if not isinstance(data, list):
        raise _InputError(
            f"{where}: a trace is a JSON list of proposition states, got {_json_type(data)}"
        )
    if not data:
        raise _InputError(f"{where}: the trace is empty; it needs at least position 0")
    states: list[_State] = []
    for i, state in enumerate(data):
        try:
            if isinstance(state, list):
                for atom in state:
                    if not isinstance(atom, str):
                        raise _InputError(f"atom {atom!r} is not a string")
                states.append((frozenset(_canon(a) for a in state), None))
            elif isinstance(state, dict):
                for atom, value in state.items():
                    if not isinstance(value, bool):
                        raise _InputError(
                            f"the value of {atom!r} must be true or false, got {value!r}"
                        )
                known = frozenset(_canon(a) for a in state)
                true = frozenset(_canon(a) for a, v in state.items() if v)
                states.append((true, known))
            else:
                raise _InputError(
                    "a proposition state is a list of true atoms or an object atom -> "
                    f"true/false, got {_json_type(state)}"
                )
        except SafetyChipError as err:
            raise _InputError(f"{where}: position {i}: {err}") from None
    return states


def _letters(states: list[_State], atoms: Iterable[str], where: str) -> list[frozenset[str]]:
    """Return the sets of true atoms; an object state must give a value to each of *atoms*."""
    wanted = frozenset(atoms)
    for i, (_, known) in enumerate(states):
        if known is not None and not wanted <= known:
            missing = ", ".join(sorted(wanted - known))
            raise _InputError(
                f"{where}: position {i} gives no value for {missing} (an object state must "
                "give every proposition; a list state names the true ones)"
            )
    return [true for true, _ in states]


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}  # fmt: skip
    text = json.dumps(value)
    return f"{names.get(type(value), type(value).__name__)} ({text[:40]}{'…' * (len(text) > 40)})"


def _dump(obj: Any, out: TextIO | None = None) -> None:
    (out or sys.stdout).write(json.dumps(obj, ensure_ascii=False) + "\n")


def _add_syntax(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--syntax",
        choices=SYNTAXES,
        default="spot",
        help="formula syntax: Spot infix ('G !\"is_grabbed(phone)\"', the default) or the "
        "Lang2LTL prefix syntax ('G ! is_grabbed(phone)')",
    )


# ---------------------------------------------------------------------------------------------
# check


def _configure_check(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "formula",
        nargs="?",
        default=_STDIN,
        metavar="FORMULA",
        help="the formula; omit it or give '-' for batch mode (JSON lines on --input)",
    )
    p.add_argument(
        "--trace",
        metavar="TRACE.json",
        help="the trace, a JSON list of proposition states ('-': stdin); required with FORMULA",
    )
    p.add_argument(
        "--input",
        default=_STDIN,
        metavar="FILE.jsonl",
        help="batch mode: read JSON lines from this file instead of stdin",
    )
    _add_syntax(p)
    p.add_argument(
        "--engine",
        choices=("auto", "dfa", "evaluate"),
        default="auto",
        help="'dfa' runs the cached minimal automaton, 'evaluate' the direct evaluator (the "
        "oracle); 'auto' (default) uses evaluate for one trace and the DFA in batch mode",
    )


def _holds(text: str, syntax: str, engine: str, states: list[_State], where: str) -> bool:
    if engine == "evaluate":
        formula = _parsed(text, syntax)
        return evaluate(formula, _letters(states, formula.atoms(), where))
    formula, dfa = _compiled(text, syntax)
    return dfa.accepts(_letters(states, dfa.aps, where))


def _run_check(args: argparse.Namespace) -> int:
    if args.formula == _STDIN:
        if args.trace is not None:
            raise _InputError(
                "--trace needs a FORMULA; in batch mode each input line holds its own trace"
            )
        return _check_batch(args)
    if args.input != _STDIN:
        raise _InputError("--input is for batch mode; with a FORMULA give --trace")
    if args.trace is None:
        raise _InputError("check FORMULA needs --trace TRACE.json (or omit FORMULA for batch mode)")
    formula = _formula_arg(args.formula, args.syntax)
    states = _read_trace(_load_json(args.trace), _label(args.trace))
    engine = "evaluate" if args.engine == "auto" else args.engine
    if engine == "evaluate":
        holds = evaluate(formula, _letters(states, formula.atoms(), _label(args.trace)))
    else:
        holds = _holds(args.formula, args.syntax, engine, states, _label(args.trace))
    _dump({"formula": args.formula, "holds": holds})
    return EXIT_OK


def _check_line(line: str, syntax: str, engine: str) -> tuple[str, bool]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise _InputError(_json_error(err)) from None
    except RecursionError:
        raise _InputError(_TOO_DEEP) from None
    if not isinstance(record, dict):
        raise _InputError(f'expected an object {{"formula": …, "trace": […]}}, got '
                          f"{_json_type(record)}")  # fmt: skip
    text = record.get("formula")
    if not isinstance(text, str):
        raise _InputError(f"'formula' must be a string, got {_json_type(text)}"
                          if "formula" in record else "no 'formula' field")  # fmt: skip
    if "trace" not in record:
        raise _InputError("no 'trace' field")
    try:
        if engine == "evaluate":
            _parsed(text, syntax)
        else:
            _compiled(text, syntax)
    except SafetyChipError as err:
        raise _InputError(f"formula {text!r}: {err}") from None
    states = _read_trace(record["trace"], "trace")
    return text, _holds(text, syntax, engine, states, "trace")


def _check_batch(args: argparse.Namespace) -> int:
    name = _label(args.input)
    engine = "dfa" if args.engine == "auto" else args.engine
    stream: TextIO
    if args.input == _STDIN:
        stream = sys.stdin
        if stream.isatty():
            _warn("check", "batch mode: reading JSON lines from the terminal (end with Ctrl-D)")
    else:
        try:
            stream = open(args.input, encoding="utf-8")  # closed below
        except FileNotFoundError:
            raise _InputError(f"{args.input}: no such file") from None
        except IsADirectoryError:
            raise _InputError(f"{args.input}: is a directory, not a file") from None
    out, failed, total, n = sys.stdout, 0, 0, 0
    try:
        for n, line in enumerate(stream, 1):
            if not line.strip():
                continue
            total += 1
            try:
                text, holds = _check_line(line, args.syntax, engine)
            except SafetyChipError as err:
                failed += 1
                _dump({"line": n, "error": str(err)}, out)
                _error("check", f"{name}:{n}: {err}")
                continue
            _dump({"line": n, "formula": text, "holds": holds}, out)
    except UnicodeDecodeError as err:
        raise _InputError(f"{name}: not UTF-8 text after line {n} (byte {err.start})") from None
    finally:
        if stream is not sys.stdin:
            stream.close()
    if failed:
        _error("check", f"{name}: {failed} of {total} lines failed")
        return EXIT_INPUT
    return EXIT_OK


_CHECK_EPILOG = """\
A trace is a JSON list of proposition states, position 0 first. A state is a list of the true
atoms (all others false), or an object giving every atom of the formula true or false:
  [[], ["is_open(fridge)"], {"is_open(fridge)": false}]
Atom names are made canonical ("is_on(book, shelf)" is "is_on(book,shelf)"). Semantics are
finite-trace LTL (LTLf), as Spot defines it: X is the weak next, X[!] the strong next.

Batch mode (no FORMULA): each input line is {"formula": "...", "trace": [...]} (other keys are
ignored, blank lines skipped); each answer is one line {"line": N, "formula": ..., "holds": ...}.
A bad line gives {"line": N, "error": "..."} on stdout and a message on stderr; the batch goes
on. Parsed formulas and their automata are cached per distinct formula.

exit status: 0 answered (whether or not the formula holds); 2 bad input (batch: a line failed)

examples:
  safetychip check 'G !"is_grabbed(phone)"' --trace trace.json
  echo '[["a"], ["b"]]' | safetychip check 'a U b' --trace -
  safetychip check --syntax prefix 'W ! agent_at(kitchen) agent_at(bathroom)' --trace t.json
  safetychip check < tests/data/verdicts.jsonl | jq -c 'select(.holds == false)'
"""


# ---------------------------------------------------------------------------------------------
# automaton


def _configure_automaton(p: argparse.ArgumentParser) -> None:
    p.add_argument("formula", metavar="FORMULA", help="the formula")
    _add_syntax(p)
    p.add_argument("--dot", action="store_true", help="print Graphviz text instead of JSON")
    p.add_argument(
        "--indent",
        type=int,
        metavar="N",
        help="indent the JSON by N spaces (default: one compact line)",
    )


def automaton_json(dfa: DFA) -> dict:
    """Return the JSON form of *dfa* that ``safetychip automaton`` prints.

    Examples
    --------
    >>> from safetychip.automata import to_dfa
    >>> from safetychip.ltl import parse
    >>> d = automaton_json(to_dfa(parse("G !a")))
    >>> d["states"], d["accepting"], d["dead"], d["guards"]["0"]
    ([0, 1, 2], [1], [2], [{'target': 1, 'guard': '!a'}, {'target': 2, 'guard': 'a'}])
    """
    dead = dfa.dead_states()
    guards = [[{"target": t, "guard": g} for t, g in dfa.guards(s)] for s in range(dfa.num_states)]
    return {
        "formula": None if dfa.formula is None else str(dfa.formula),
        "aps": list(dfa.aps),
        "initial": dfa.initial,
        "states": list(range(dfa.num_states)),
        "accepting": [s for s, a in enumerate(dfa.accepting) if a],
        "dead": sorted(dead),
        "edges": [{"source": s, **e} for s, out in enumerate(guards) for e in out],
        "guards": {str(s): out for s, out in enumerate(guards)},
    }


def _run_automaton(args: argparse.Namespace) -> int:
    formula = _formula_arg(args.formula, args.syntax)
    dfa = compile_dfa(formula)
    if args.dot:
        sys.stdout.write(dfa.to_dot() + "\n")
    else:
        text = json.dumps(automaton_json(dfa), indent=args.indent, ensure_ascii=False)
        sys.stdout.write(text + "\n")
    return EXIT_OK


_AUTOMATON_EPILOG = """\
The DFA is complete and minimal; a trace is accepted when it ends in an accepting state. JSON
fields: formula (Spot syntax), aps (atoms; bit i of a letter is aps[i]), initial, states,
accepting, dead (states from which no continuation is accepted), edges ({source, target,
guard}), guards (per state, as a JSON object keyed by the state number). A guard is a sum of
products over the atoms: "1" is every letter, "!a & b" the letters with a false and b true.

examples:
  safetychip automaton 'G(is_open(fridge) -> F !is_open(fridge))'
  safetychip automaton 'a U b' --dot | dot -Tsvg > a_until_b.svg
"""


# ---------------------------------------------------------------------------------------------
# monitor


def _configure_monitor(p: argparse.ArgumentParser) -> None:
    p.add_argument("constraints", metavar="CONSTRAINTS.json", help="the constraints ('-': stdin)")
    p.add_argument("trace", metavar="TRACE.json", help="the trace ('-': stdin)")
    _add_syntax(p)


def load_constraints(
    path: str, syntax: str = "spot", *, command: str = "monitor"
) -> tuple[list[Constraint], list[Formula]]:
    """Read a constraints file: constraints and domain invariants.

    The file holds a JSON list whose items are constraint objects
    ``{"name", "sentence", "formula"}`` (only ``formula`` is required; ``pattern`` is kept and
    other keys are ignored) or formula strings; or an object ``{"constraints": [...],
    "invariants": [...]}`` whose invariants are formula strings.

    Raises
    ------
    SafetyChipError
        With the file name, the item number and name, and the formula text.
    """
    where = _label(path)
    data = _load_json(path)
    invariants: list[Formula] = []
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"constraints", "invariants"})
        if unknown:
            _warn(command, f"{where}: ignoring unknown keys {', '.join(map(repr, unknown))}")
        if "constraints" not in data:
            raise _InputError(f"{where}: the object has no 'constraints' list")
        raw_inv = data.get("invariants", [])
        if not isinstance(raw_inv, list):
            raise _InputError(f"{where}: 'invariants' must be a list of formula strings")
        for i, text in enumerate(raw_inv, 1):
            if not isinstance(text, str):
                raise _InputError(f"{where}: invariant {i} must be a formula string, "
                                  f"got {_json_type(text)}")  # fmt: skip
            try:
                invariants.append(_parse(text, syntax))
            except SafetyChipError as err:
                raise _InputError(f"{where}: invariant {i} {text!r}: {err}") from None
        data = data["constraints"]
    if not isinstance(data, list):
        raise _InputError(f"{where}: expected a list of constraints (or an object with "
                          f"'constraints'), got {_json_type(data)}")  # fmt: skip
    if not data:
        raise _InputError(f"{where}: the list of constraints is empty")
    constraints = []
    for i, item in enumerate(data, 1):
        label = f"{where}: constraint {i}"
        if isinstance(item, str):
            text, sentence, name, pattern = item, "", "", None
        elif isinstance(item, dict):
            text, sentence = item.get("formula"), item.get("sentence", "")
            name, pattern = item.get("name", ""), item.get("pattern")
            if isinstance(name, str) and name:
                label += f" ({name!r})"
            if "formula" not in item:
                raise _InputError(f"{label}: no 'formula' field")
            if not isinstance(text, str):
                raise _InputError(f"{label}: 'formula' must be a string, got {_json_type(text)}")
            for key, value in (("name", name), ("sentence", sentence)):
                if not isinstance(value, str):
                    raise _InputError(f"{label}: {key!r} must be a string, "
                                      f"got {_json_type(value)}")  # fmt: skip
            if pattern is not None and not isinstance(pattern, str):
                raise _InputError(f"{label}: 'pattern' must be a string or null")
        else:
            raise _InputError(f"{label}: expected an object or a formula string, "
                              f"got {_json_type(item)}")  # fmt: skip
        try:
            constraints.append(Constraint(_parse(text, syntax), sentence, name, pattern))
        except SafetyChipError as err:
            raise _InputError(f"{label}: formula {text!r}: {err}") from None
    return constraints, invariants


def _run_monitor(args: argparse.Namespace) -> int:
    if args.constraints == _STDIN and args.trace == _STDIN:
        raise _InputError("only one of CONSTRAINTS.json and TRACE.json can be read from stdin")
    constraints, invariants = load_constraints(args.constraints, args.syntax)
    trace_name = _label(args.trace)
    states = _read_trace(_load_json(args.trace), trace_name)
    try:
        monitor = Monitor(constraints, invariants)
    except SafetyChipError as err:
        raise _InputError(f"{_label(args.constraints)}: {err}") from None
    letters = _letters(states, monitor.atoms, trace_name)

    safe = True

    def emit(step: int | str, verdict: Verdict) -> None:
        nonlocal safe
        safe = safe and verdict.safe
        _dump({"step": step, **verdict.to_dict()})

    first = monitor.reset(letters[0])
    emit(0, first)
    if first.status.value == "abort":
        return EXIT_VIOLATION
    for i, letter in enumerate(letters[1:], 1):
        emit(i, monitor.commit([letter]))
    emit("DONE", monitor.finish())
    return EXIT_OK if safe else EXIT_VIOLATION


_MONITOR_EPILOG = """\
CONSTRAINTS.json is a JSON list of constraint objects {"name", "sentence", "formula"} (only
"formula" is required; unnamed constraints are called c1, c2, ...) or of formula strings; or
an object {"constraints": [...], "invariants": [...]} where invariants are formulas every
satisfiability question honours, e.g. "the agent is in one room at a time". TRACE.json is a
trace as for `safetychip check`; an object state must give every proposition of the
constraints and invariants.

Output: one JSON line per position of the trace, {"step": i, "status": "safe" | "violation" |
"abort", "reason", "violated", "state_changes", "pending"}, then the DONE verdict with
"step": "DONE". A violation at step i means the action that produced position i should not
have run; the replay goes on. After an abort (the constraints contradict each other) nothing
else is printed.

exit status: 0 every verdict was safe (DONE included); 1 some verdict was a violation or an
abort; 2 bad input

example:
  safetychip monitor constraints.json trace.json | jq -r 'select(.status != "safe") | .reason'
"""


# ---------------------------------------------------------------------------------------------
# reproduce


def _spot_demo_automata(root: Path) -> list[Path]:
    source = root / "data" / "spot_demo" / "constraints.json"
    if not source.is_file():
        raise SkipStep(f"{source} does not exist yet")
    constraints, _ = load_constraints(str(source), command="reproduce")
    lines = [
        "# The automata of the Spot demo constraints (data/spot_demo/constraints.json).",
        "# Written by `python -m safetychip reproduce`; do not edit.",
        "",
    ]
    for i, c in enumerate(constraints, 1):
        dfa = compile_dfa(c.formula)
        dead = sorted(dfa.dead_states())
        accepting = [s for s, a in enumerate(dfa.accepting) if a]
        lines += [
            f"[{c.name or f'c{i}'}] {c.sentence}".rstrip(),
            f"formula:   {c.formula}",
            f"automaton: {dfa.num_states} states, {dfa.num_edges} edges, initial {dfa.initial}, "
            f"accepting {accepting}, dead {dead}",
        ]
        lines += [f"  {s} -> {t}: {g}" for s in range(dfa.num_states) for t, g in dfa.guards(s)]
        lines.append("")
    target = root / "figures" / "spot_demo_automata.txt"
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".txt.tmp")
    tmp.write_text("\n".join(lines), encoding="utf-8")
    tmp.replace(target)
    return [target]


_CORE_STEPS = (
    ReproductionStep(
        "spot_demo_automata",
        "formula, DFA size and guards of each Spot demo constraint",
        _spot_demo_automata,
        ("data/spot_demo/constraints.json",),
    ),
)


def _configure_reproduce(p: argparse.ArgumentParser) -> None:
    p.add_argument("steps", nargs="*", metavar="STEP", help="run only these steps (default: all)")
    p.add_argument(
        "--root",
        default=".",
        metavar="DIR",
        help="the checkout holding data/ and figures/ (default: the current directory)",
    )
    p.add_argument("--list", action="store_true", help="list the steps and exit")


def _run_reproduce(args: argparse.Namespace) -> int:
    steps = reproduction_steps()
    if args.list:
        for s in steps:
            reads = f" (reads {', '.join(s.inputs)})" if s.inputs else ""
            print(f"{s.name}: {s.description}{reads}")
        return EXIT_OK
    known = {s.name for s in steps}
    unknown = [name for name in args.steps if name not in known]
    if unknown:
        raise _InputError(f"unknown step {', '.join(unknown)}; choose from "
                          f"{', '.join(sorted(known))}")  # fmt: skip
    root = Path(args.root)
    if not root.is_dir():
        raise _InputError(f"--root {args.root}: no such directory")
    chosen = [s for s in steps if not args.steps or s.name in args.steps]
    ran, failed = [], 0
    for step in chosen:
        try:
            written = step.run(root)
        except SkipStep as why:
            print(f"skipped {step.name}: {why}")
            continue
        except (SafetyChipError, OSError, ValueError) as err:
            failed += 1
            _error("reproduce", f"step {step.name}: {_describe(err)}")
            continue
        ran.append(step.name)
        for path in written:
            print(f"{step.name}: wrote {path}")
    summary = f"reproduce: {len(ran)} of {len(chosen)} steps ran"
    if ran:
        summary += f": {', '.join(ran)}"
    if failed:
        summary += f"; {failed} failed"
    elif not ran:
        summary += " (nothing to reproduce yet)"
    print(summary)
    return EXIT_INPUT if failed else EXIT_OK


_REPRODUCE_EPILOG = """\
Each step regenerates files under figures/ from data/; a step whose inputs do not exist yet is
skipped with a message. The Makefile's `make reproduce` runs this command.

exit status: 0 every chosen step ran or was skipped; 2 a step failed (the others still ran)

examples:
  safetychip reproduce --list
  safetychip reproduce spot_demo_automata
"""


# ---------------------------------------------------------------------------------------------

_MAIN_EPILOG = """\
exit status: 0 success; 1 `monitor` found a violation or an abort; 2 bad input or usage;
3 internal error (a bug: please report it). Run `safetychip COMMAND --help` for details.

examples:
  safetychip check 'G !"is_grabbed(phone)"' --trace trace.json
  safetychip check < cases.jsonl > answers.jsonl
  safetychip automaton 'a U b' --dot | dot -Tpng > a_until_b.png
  safetychip monitor constraints.json trace.json
"""

_CORE_COMMANDS = (
    Command("check", "whether a trace satisfies a formula (batch mode: JSON lines on stdin)",
            _configure_check, _run_check, epilog=_CHECK_EPILOG,
            description="Decide whether a finite trace satisfies a finite-trace LTL formula and\n"
            "print {\"formula\": ..., \"holds\": true|false}. Without FORMULA, answer JSON\n"
            "lines read from stdin, one answer per line."),
    Command("automaton", "the minimal DFA of a formula, as JSON or Graphviz text",
            _configure_automaton, _run_automaton, epilog=_AUTOMATON_EPILOG),
    Command("monitor", "replay a trace through the constraint monitor; exit 1 on a violation",
            _configure_monitor, _run_monitor, epilog=_MONITOR_EPILOG,
            description="Replay TRACE.json through the Safety Chip monitor built from\n"
            "CONSTRAINTS.json and print its verdict for every position, then at DONE."),
    Command("reproduce", "regenerate the files under figures/ from data/",
            _configure_reproduce, _run_reproduce, epilog=_REPRODUCE_EPILOG),
)  # fmt: skip
