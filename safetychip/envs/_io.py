r"""Atomic file writing: a file is either written whole or left as it was.

Everything the environments write (rollout records, figures) goes to a temporary file in
the target's folder first, then replaces the target with :func:`os.replace`, so a crash or
an error half-way never leaves a partial file behind.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> path = Path(tempfile.mkdtemp()) / "note.txt"
>>> atomic_write_text(path, "hello\\n")
PosixPath('...note.txt')
>>> path.read_text()
'hello\\n'
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["atomic_path", "atomic_write_text", "atomic_savefig"]


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to *path*; on success it replaces *path*.

    The parent folder is created if needed, and the file gets the usual permissions of a new
    file. If the block raises, the temporary file is removed and *path* is untouched.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp"
    # Created like any new file (mode 0o666 less the umask), unlike mkstemp's 0o600.
    os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write *text* (UTF-8) to *path* atomically; return the path."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def atomic_savefig(fig: Any, path: str | os.PathLike[str], **kwargs: Any) -> Path:
    """Save a matplotlib figure to *path* atomically (the format follows the suffix)."""
    target = Path(path)
    fmt = kwargs.pop("format", None) or target.suffix.lstrip(".") or "png"
    with atomic_path(target) as tmp:
        fig.savefig(tmp, format=fmt, **kwargs)
    return target
