r"""Atomic file writing, and JSON reading that hostile input cannot hurt.

**Writing**: a file is either written whole or left as it was.

Everything the library writes (rollout and episode records, CSV files, tables, figures) goes
to a hidden temporary file in the target's folder first, then replaces the target with
:func:`os.replace`. A failure half-way, an exception or a ``KeyboardInterrupt``, removes the
temporary file and leaves the target as it was: never a partial file, never a stray one.
(A process killed outright, by ``SIGKILL`` or a power cut, can still leave the temporary
file, but never a partial target.)

**Reading**: :func:`read_json` is the one JSON parser of the library's input (constraint,
trace, record, scene, task, utterance, result and notebook files, batch lines); a file is
read with :func:`load_json` (one document) or :func:`load_json_lines` (one document a line).
Nesting deeper than :data:`MAX_JSON_DEPTH` is refused with the file and the line before any
parsing (so never a ``RecursionError``), invalid JSON names the line and column, and a file
that is not UTF-8 names the file and the offset of the first bad byte.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as folder:
...     path = atomic_write_text(Path(folder) / "note.txt", "hello\n")
...     print(path.name, repr(path.read_text()), sorted(p.name for p in path.parent.iterdir()))
note.txt 'hello\n' ['note.txt']
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .errors import OutputFileError

__all__ = [
    "MAX_JSON_DEPTH",
    "FileError",
    "atomic_path",
    "atomic_write_text",
    "atomic_savefig",
    "load_json",
    "load_json_lines",
    "read_json",
    "read_text",
]

#: The deepest nesting of arrays and objects :func:`read_json` accepts (the library's files
#: nest five or six levels).
MAX_JSON_DEPTH = 64

_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[{]|[\]}]')


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to *path*; when the block ends normally, it replaces *path*.

    The parent folder is created if needed, and the file gets the usual permissions of a new
    file. If anything fails after the temporary file is created (the block, or the replace
    itself), including a ``KeyboardInterrupt``, the temporary file is removed and *path* is
    untouched. An ``OSError`` (a folder that cannot be made, a full disk) is raised as
    :class:`~safetychip.errors.OutputFileError`, "cannot write PATH: ...".

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = Path(folder) / "data.csv"
    ...     _ = target.write_text("old")
    ...     try:
    ...         with atomic_path(target) as tmp:
    ...             _ = tmp.write_text("half a ta")
    ...             raise OSError("disk full")
    ...     except OSError:
    ...         pass
    ...     print(target.read_text(), [p.name for p in Path(folder).iterdir()])
    old ['data.csv']
    """
    target = Path(path)
    tmp = target.parent / f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # Created inside the try, so an interrupt right after creation still removes it; the
        # name is unique to this process, so what the cleanup removes is always ours. Made
        # like any new file (mode 0o666 less the umask), unlike mkstemp's 0o600.
        os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        yield tmp
        os.replace(tmp, target)
    except BaseException as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(err, OSError) and not isinstance(err, OutputFileError):
            raise OutputFileError(str(target), err.strerror or str(err)) from err
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write *text* (UTF-8) to *path* atomically; return the path."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def atomic_savefig(fig: Any, path: str | os.PathLike[str], **kwargs: Any) -> Path:
    """Save a matplotlib figure to *path* atomically (the format follows the suffix); return
    the path. *kwargs* go to ``fig.savefig``."""
    target = Path(path)
    fmt = kwargs.pop("format", None) or target.suffix.lstrip(".") or "png"
    with atomic_path(target) as tmp:
        fig.savefig(tmp, format=fmt, **kwargs)
    return target


def read_json(text: str, where: str = "", error: Callable[[str], Exception] = ValueError) -> Any:
    """Parse the JSON *text* of the input *where* names (a file; empty for a batch line, whose
    caller names it).

    Raises
    ------
    Exception
        ``error(message)``, the message starting with *where*: nesting deeper than
        :data:`MAX_JSON_DEPTH` (with the line where it goes deeper), or text that is not JSON
        (with the line and column).

    Examples
    --------
    >>> read_json('{"a": [1, 2]}', "a.json")
    {'a': [1, 2]}
    >>> read_json("[" * 100 + "]" * 100, "deep.json")
    Traceback (most recent call last):
    ...
    ValueError: deep.json: not usable JSON: nested too deeply (more than 64 levels, at line 1)
    >>> read_json('{"a": ]', "bad.json")
    Traceback (most recent call last):
    ...
    ValueError: bad.json: not valid JSON: Expecting value at line 1 column 7
    """
    head = f"{where}: " if where else ""
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH:  # else it cannot nest too deeply
        depth = 0
        for token in _JSON_TOKEN.finditer(text):
            mark = token.group()[0]
            if mark in "[{":
                depth += 1
                if depth > MAX_JSON_DEPTH:
                    line = text.count("\n", 0, token.start()) + 1
                    raise error(f"{head}not usable JSON: nested too deeply (more than "
                                f"{MAX_JSON_DEPTH} levels, at line {line})")  # fmt: skip
            elif mark in "]}":
                depth -= 1
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise error(
            f"{head}not valid JSON: {err.msg} at line {err.lineno} column {err.colno}"
        ) from None


def _value_error(path: str, message: str) -> Exception:
    return ValueError(f"{path}: {message}")


#: How the file readers build their error: ``error(path, message)``
#: (:class:`~safetychip.errors.DataFileError` is one).
FileError = Callable[[str, str], Exception]


def read_text(path: str | os.PathLike[str], error: FileError = _value_error) -> str:
    """The UTF-8 text of the file *path*.

    Raises
    ------
    OSError
        If the file cannot be read (its ``filename`` names it).
    Exception
        ``error(path, message)`` naming the offset of the first byte that is not UTF-8.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "scene.json"
    ...     _ = path.write_bytes(b'{"a": "' + bytes([0xD8]) + b'"}')
    ...     read_text(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../scene.json: not UTF-8 text (byte 0xd8 at offset 7): save it as UTF-8
    """
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(str(path), f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset "
                    f"{err.start}): save it as UTF-8") from None  # fmt: skip


def load_json(path: str | os.PathLike[str], error: FileError = _value_error) -> Any:
    """The JSON document of the file *path* (see :func:`read_json` and :func:`read_text` for
    what is refused, as ``error(path, message)``)."""
    return read_json(read_text(path, error), "", lambda message: error(str(path), message))


def load_json_lines(path: str | os.PathLike[str],
                    error: FileError = _value_error) -> Iterator[tuple[int, Any]]:  # fmt: skip
    r"""Each line's number and JSON document of the JSON-lines file *path* (blank lines are
    skipped); a bad line is ``error(path, message)``, the message naming the line.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = Path(folder.name) / "rows.jsonl"
    >>> _ = path.write_text('{"a": 1}\n\n[' + "[" * 99 + "]" * 100 + "\n")
    >>> rows = load_json_lines(path)
    >>> next(rows)
    (1, {'a': 1})
    >>> next(rows)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../rows.jsonl: line 3: not usable JSON: nested too deeply (...)
    >>> folder.cleanup()
    """
    for number, line in enumerate(read_text(path, error).splitlines(), 1):
        if line.strip():
            yield number, read_json(line, f"line {number}",
                                    lambda message: error(str(path), message))  # fmt: skip
