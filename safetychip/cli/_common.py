"""What the subcommands share: the exit statuses, :class:`Command`, messages on stderr, JSON
on stdout, and the arguments several commands take (``--syntax``, ``--model`` …).

Examples
--------
>>> parse_formula("U a b", "prefix")
Formula('a U b')
>>> json_type([1, 2])
'a list ([1, 2])'
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from ..errors import SafetyChipError
from ..ltl import SYNTAXES, Formula, parse, parse_prefix

__all__ = [
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_VIOLATION",
    "STDIN",
    "Command",
    "InputError",
    "add_model_arguments",
    "add_syntax",
    "describe",
    "dump",
    "error",
    "file_error",
    "formula_arg",
    "json_type",
    "label",
    "model_from_args",
    "parse_formula",
    "prefix",
    "silence_stdout",
    "warn",
]

EXIT_OK = 0
#: ``monitor``: some verdict was a violation or an abort.
EXIT_VIOLATION = 1
#: Bad input or usage: unreadable file, malformed JSON or trace, a formula that does not parse.
EXIT_INPUT = 2
#: An unexpected exception inside safetychip (a bug); the message asks for a report.
EXIT_INTERNAL = 3

#: The file name that means standard input.
STDIN = "-"


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


class InputError(SafetyChipError, ValueError):
    """Bad input; the message already names the input."""


def file_error(path: str, message: str) -> InputError:
    """The error of the input file *path* (for :func:`safetychip._io.load_json`)."""
    return InputError(f"{path}: {message}")


def error(command: str, message: str) -> None:
    """Print ``safetychip COMMAND: error: MESSAGE`` on stderr."""
    print(f"safetychip {command}: error: {message}", file=sys.stderr)


def warn(command: str, message: str) -> None:
    """Print ``safetychip COMMAND: warning: MESSAGE`` on stderr."""
    print(f"safetychip {command}: warning: {message}", file=sys.stderr)


def describe(err: BaseException) -> str:
    """The message for *err*: an ``OSError`` names its file."""
    if isinstance(err, OSError) and err.filename is not None:
        return f"cannot read {err.filename}: {err.strerror or err}"
    return str(err)


def silence_stdout() -> None:
    """Point stdout at the null device (the reader of a pipe went away)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout is not a real file
        pass


def label(path: str) -> str:
    """How messages name the file *path* (``<stdin>`` for ``-``)."""
    return "<stdin>" if path == STDIN else path


def parse_formula(text: str, syntax: str) -> Formula:
    """Parse *text* in *syntax* (``"spot"`` or ``"prefix"``)."""
    return parse(text) if syntax == "spot" else parse_prefix(text)


def formula_arg(text: str, syntax: str) -> Formula:
    """Parse a formula given on the command line; the error quotes it."""
    try:
        return parse_formula(text, syntax)
    except SafetyChipError as err:
        raise InputError(f"formula {prefix(text)}: {err}") from None


def prefix(text: str, limit: int = 60) -> str:
    """*text* quoted for a message: its first *limit* characters (``…`` marks a cut).

    Examples
    --------
    >>> prefix("G a & " * 100, limit=12)
    "'G a & G a & '…"
    """
    return repr(text[:limit]) + "…" * (len(text) > limit)


def json_type(value: Any) -> str:
    """Name the JSON type of *value* and show its start, for messages."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}  # fmt: skip
    text = json.dumps(value)
    return f"{names.get(type(value), type(value).__name__)} ({text[:40]}{'…' * (len(text) > 40)})"


def dump(obj: Any, out: TextIO | None = None) -> None:
    """Write *obj* as one line of JSON on *out* (default: stdout)."""
    (out or sys.stdout).write(json.dumps(obj, ensure_ascii=False) + "\n")


def add_syntax(p: argparse.ArgumentParser) -> None:
    """Declare ``--syntax``."""
    p.add_argument(
        "--syntax",
        choices=SYNTAXES,
        default="spot",
        help="formula syntax: Spot infix ('G !\"is_grabbed(phone)\"', the default) or the "
        "Lang2LTL prefix syntax ('G ! is_grabbed(phone)')",
    )


def add_model_arguments(p: argparse.ArgumentParser) -> None:
    """Declare ``--model``, ``--cache``, ``--replay`` and ``--timeout`` (``translate``,
    ``explain``)."""
    p.add_argument(
        "--model",
        metavar="NAME",
        help="use this chat model (an OpenAI-compatible endpoint configured by "
        "OPENAI_API_KEY and OPENAI_BASE_URL) instead of the offline translator",
    )
    p.add_argument(
        "--cache",
        metavar="FILE",
        help="with --model: record/replay the model's replies in this SQLite file",
    )
    p.add_argument(
        "--replay",
        action="store_true",
        help="with --model and --cache: answer only from the cache, never call",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="with --model: seconds to wait for each reply (default 60)",
    )


def model_from_args(args: argparse.Namespace) -> Any:
    """The chat model :func:`add_model_arguments` asks for, or None.

    Raises
    ------
    LLMUsageError
        If ``--cache`` or ``--replay`` come without what they need.
    """
    from ..errors import LLMUsageError

    if args.model is None:
        if args.cache or args.replay:
            raise LLMUsageError("--cache and --replay need --model NAME")
        return None
    from ..llm import CachedModel, OpenAIChatModel, OpenAIEndpoint

    model = OpenAIChatModel(args.model, OpenAIEndpoint(timeout=args.timeout))
    if args.cache:
        return CachedModel(model, args.cache, mode="replay" if args.replay else "auto")
    if args.replay:
        raise LLMUsageError("--replay needs --cache FILE")
    return model
