r"""``safetychip check``: whether a finite trace satisfies a formula, once or in batch mode.

Examples
--------
>>> import io, sys
>>> stdin, sys.stdin = sys.stdin, io.StringIO('{"formula": "F a", "trace": [[], ["a"]]}\n')
>>> from safetychip.cli import main
>>> main(["check"])
{"line": 1, "formula": "F a", "holds": true}
0
>>> sys.stdin = stdin
"""

from __future__ import annotations

import argparse
import sys
from functools import lru_cache
from typing import Any, TextIO

from .._io import read_json
from ..automata import DFA
from ..errors import SafetyChipError
from ..ltl import Formula, evaluate
from ..monitor import compile_dfa, read_trace, trace_from_json
from ._common import (
    EXIT_INPUT,
    EXIT_OK,
    STDIN,
    Command,
    InputError,
    add_syntax,
    dump,
    error,
    formula_arg,
    json_type,
    label,
    parse_formula,
    prefix,
    warn,
)

__all__ = ["COMMANDS"]

_parsed = lru_cache(maxsize=4096)(parse_formula)


@lru_cache(maxsize=4096)
def _compiled(text: str, syntax: str) -> tuple[Formula, DFA]:
    """Parse *text* and build its minimal DFA, once per distinct text (errors not cached)."""
    formula = _parsed(text, syntax)
    return formula, compile_dfa(formula)


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "formula",
        nargs="?",
        default=STDIN,
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
        default=STDIN,
        metavar="FILE.jsonl",
        help="batch mode: read JSON lines from this file instead of stdin",
    )
    add_syntax(p)
    p.add_argument(
        "--engine",
        choices=("auto", "dfa", "evaluate"),
        default="auto",
        help="'dfa' runs the cached minimal automaton, 'evaluate' the direct evaluator (the "
        "oracle); 'auto' (default) uses evaluate for one trace and the DFA in batch mode",
    )


def _holds(text: str, syntax: str, engine: str, trace: Any) -> bool:
    """Decide the formula *text* on the JSON *trace* of a batch line (formulas and automata
    cached per distinct text)."""
    if engine == "evaluate":
        formula = _parsed(text, syntax)
        return evaluate(formula, trace_from_json(trace, formula.atoms(), name="trace"))
    _, dfa = _compiled(text, syntax)
    return dfa.accepts(trace_from_json(trace, dfa.aps, name="trace"))


def _run(args: argparse.Namespace) -> int:
    if args.formula == STDIN:
        if args.trace is not None:
            raise InputError(
                "--trace needs a FORMULA; in batch mode each input line holds its own trace"
            )
        return _check_batch(args)
    if args.input != STDIN:
        raise InputError("--input is for batch mode; with a FORMULA give --trace")
    if args.trace is None:
        raise InputError("check FORMULA needs --trace TRACE.json (or omit FORMULA for batch mode)")
    formula = formula_arg(args.formula, args.syntax)
    trace = sys.stdin if args.trace == STDIN else args.trace
    if args.engine == "dfa":
        dfa = compile_dfa(formula)
        holds = dfa.accepts(read_trace(trace, dfa.aps, name=label(args.trace)))
    else:
        holds = evaluate(formula, read_trace(trace, formula.atoms(), name=label(args.trace)))
    dump({"formula": args.formula, "holds": holds})
    return EXIT_OK


def _check_line(line: str, syntax: str, engine: str) -> tuple[str, bool]:
    record = read_json(line, "", InputError)
    if not isinstance(record, dict):
        raise InputError(f'expected an object {{"formula": …, "trace": […]}}, got '
                         f"{json_type(record)}")  # fmt: skip
    text = record.get("formula")
    if not isinstance(text, str):
        raise InputError(f"'formula' must be a string, got {json_type(text)}"
                         if "formula" in record else "no 'formula' field")  # fmt: skip
    if "trace" not in record:
        raise InputError("no 'trace' field")
    try:
        if engine == "evaluate":
            _parsed(text, syntax)
        else:
            _compiled(text, syntax)
    except SafetyChipError as err:
        raise InputError(f"formula {prefix(text)}: {err}") from None
    return text, _holds(text, syntax, engine, record["trace"])


def _check_batch(args: argparse.Namespace) -> int:
    name = label(args.input)
    engine = "dfa" if args.engine == "auto" else args.engine
    stream: TextIO
    if args.input == STDIN:
        stream = sys.stdin
        if stream.isatty():
            warn("check", "batch mode: reading JSON lines from the terminal (end with Ctrl-D)")
    else:
        try:
            stream = open(args.input, encoding="utf-8")  # closed below
        except FileNotFoundError:
            raise InputError(f"{args.input}: no such file") from None
        except IsADirectoryError:
            raise InputError(f"{args.input}: is a directory, not a file") from None
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
                dump({"line": n, "error": str(err)}, out)
                error("check", f"{name}:{n}: {err}")
                continue
            dump({"line": n, "formula": text, "holds": holds}, out)
    except UnicodeDecodeError as err:
        raise InputError(f"{name}: not UTF-8 text after line {n} (byte {err.start})") from None
    finally:
        if stream is not sys.stdin:
            stream.close()
    if failed:
        error("check", f"{name}: {failed} of {total} lines failed")
        return EXIT_INPUT
    return EXIT_OK


_EPILOG = """\
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

COMMANDS = (
    Command("check", "whether a trace satisfies a formula (batch mode: JSON lines on stdin)",
            _configure, _run, epilog=_EPILOG,
            description="Decide whether a finite trace satisfies a finite-trace LTL formula and\n"
            "print {\"formula\": ..., \"holds\": true|false}. Without FORMULA, answer JSON\n"
            "lines read from stdin, one answer per line."),
)  # fmt: skip
