"""SQLite cache files: one transaction per use, and clear errors for bad files."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from safetychip.errors import CacheFileError

__all__ = ["transaction"]


@contextmanager
def transaction(path: Path, schema: str, *, readonly: bool = False) -> Iterator[sqlite3.Connection]:
    """Open the cache file *path* and run the block in one transaction.

    The transaction commits when the block ends normally and rolls back otherwise, so a
    crash never leaves half a write. A writable file is created, with its folder, and given
    *schema* (a script of ``CREATE ... IF NOT EXISTS`` statements); a read-only one must
    exist.

    Raises
    ------
    CacheFileError
        If the file is missing (read-only), not an SQLite database, or lacks the tables
        and columns the block uses.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "cache.sqlite"
    >>> with transaction(path, "CREATE TABLE IF NOT EXISTS t (x)") as db:
    ...     _ = db.execute("INSERT INTO t VALUES (1)")
    >>> with transaction(path, "", readonly=True) as db:
    ...     db.execute("SELECT x FROM t").fetchall()
    [(1,)]
    """
    if readonly and not path.is_file():
        raise CacheFileError(
            f"no cache file at {path}: run once with mode='record' or 'auto' to create it"
        )
    try:
        if readonly:
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, timeout=30)
        try:
            if not readonly:
                db.executescript(schema)
            with db:
                yield db
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise CacheFileError(
            f"cannot use cache file {path}: {exc}; move it aside or delete it to start afresh"
        ) from None
