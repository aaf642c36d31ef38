"""SQLite cache files: one transaction per use, stamped formats, and clear errors for bad files.

A cache described by a :class:`CacheFormat` is stamped with SQLite's ``application_id`` and
``user_version`` header fields, so that a foreign database, an empty or truncated file, or a
file of another format is refused, never silently taken for a new cache. Such a file is
created whole (written aside, then linked into place), so no process can see it half made.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from safetychip.errors import CacheFileError

__all__ = ["CacheFormat", "transaction"]


@dataclass(frozen=True)
class CacheFormat:
    """The layout and stamp of one kind of cache file.

    Attributes
    ----------
    title : str
        What the file is, for messages (``"LLM reply cache"``).
    application_id : int
        The 32-bit stamp in the SQLite header that marks the kind of file.
    version : int
        The layout's version, stored as ``user_version``.
    schema : str
        One ``CREATE TABLE`` statement.
    upgrade : callable, optional
        ``upgrade(db, write)`` tells whether the unstamped file open on *db* was written
        by an earlier release in a layout it can convert; with *write* true it also
        converts it, in the caller's write transaction (which then stamps the file). It
        may raise :class:`~safetychip.errors.CacheFileError` for a damaged file.
    """

    title: str
    application_id: int
    version: int
    schema: str
    upgrade: Callable[[sqlite3.Connection, bool], bool] | None = None


@contextmanager
def transaction(
    path: Path, layout: str | CacheFormat, *, readonly: bool = False, verify: bool = False
) -> Iterator[sqlite3.Connection]:
    """Open the cache file *path* and run the block in one transaction.

    The transaction commits when the block ends normally and rolls back otherwise, so a
    crash never leaves half a write. A read-only file must exist; if a process was killed
    while writing it (its rollback journal, ``-journal``, is left), the half-made write is
    rolled back first, as any writable open does, so the file reads as it was last
    committed.

    *layout* is either a script of ``CREATE ... IF NOT EXISTS`` statements, run on every
    writable open (a missing file is created, with its folder), or a :class:`CacheFormat`.
    A file of a format is created whole when it is missing and writable; one that exists
    must be non-empty and carry the format's stamp, or be upgraded by ``layout.upgrade``
    (writable only). With *verify*, SQLite's ``quick_check`` also reads the whole file.

    Raises
    ------
    CacheFileError
        If the file is missing (read-only), empty, not an SQLite database, damaged, of
        another format, or lacks the tables and columns the block uses. The message
        names the file and says what to do.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "cache.sqlite"
    >>> with transaction(path, "CREATE TABLE IF NOT EXISTS t (x)") as db:
    ...     _ = db.execute("INSERT INTO t VALUES (1)")
    >>> with transaction(path, "", readonly=True) as db:
    ...     db.execute("SELECT x FROM t").fetchall()
    [(1,)]

    A file of one format is refused as another:

    >>> squares = CacheFormat("table of squares", 0x5351, 1, "CREATE TABLE squares (n, sq)")
    >>> with transaction(path, squares) as db:
    ...     pass
    Traceback (most recent call last):
    ...
    safetychip.errors.CacheFileError: cache file ...cache.sqlite is an SQLite database but not
    a table of squares (its tables: t); pass another path, or delete it to start afresh
    """
    stamped = isinstance(layout, CacheFormat)
    if not path.is_file():
        if readonly:
            raise CacheFileError(
                f"no cache file at {path}: run once with mode='record' or 'auto' to create it"
            )
        if isinstance(layout, CacheFormat):  # as stamped, narrowed for the type checker
            _create(path, layout)
    if stamped and path.stat().st_size == 0:
        raise CacheFileError(
            f"cache file {path} is empty (0 bytes), so it is not a {layout.title}: it was "
            "truncated or made by another program; delete it to start afresh, or restore it"
        )
    try:
        if readonly and Path(f"{path}-journal").is_file():
            _recover(path)
        if readonly or stamped:
            access = "ro" if readonly else "rw"  # never create a stamped file here
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode={access}", uri=True, timeout=30)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, timeout=30)
        try:
            if isinstance(layout, CacheFormat):  # as stamped
                _check(db, path, layout, readonly=readonly, verify=verify)
            elif not readonly:
                db.executescript(layout)
            with db:
                yield db
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise CacheFileError(
            f"cannot use cache file {path}: {exc}; move it aside or delete it to start afresh"
        ) from None


def _recover(path: Path) -> None:
    """Roll back the write a killed process left half made in *path* (SQLite does it when a
    connection that may write reads the file)."""
    if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
        raise CacheFileError(
            f"cache file {path} holds a write left half made by a killed process (its "
            f"{path.name}-journal), which only a process that may write the file can roll "
            "back: make the file and its folder writable and run again; what was recorded "
            "before is kept"
        )
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True, timeout=30)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    finally:
        db.close()


def _stamp(db: sqlite3.Connection) -> tuple[int, int]:
    (application_id,) = db.execute("PRAGMA application_id").fetchone()
    (version,) = db.execute("PRAGMA user_version").fetchone()
    return application_id, version


def _create(path: Path, layout: CacheFormat) -> None:
    """Write an empty, stamped file aside and link it into place, unless one appeared."""
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(f".{path.name}.{uuid.uuid4().hex}.new")
    try:
        db = sqlite3.connect(aside)
        try:
            with db:
                db.execute(layout.schema)
                db.execute(f"PRAGMA application_id = {int(layout.application_id)}")
                db.execute(f"PRAGMA user_version = {int(layout.version)}")
        finally:
            db.close()
        try:
            os.link(aside, path)  # fails if another process created the file meanwhile
        except FileExistsError:
            pass
    finally:
        aside.unlink(missing_ok=True)


def _check(
    db: sqlite3.Connection, path: Path, layout: CacheFormat, *, readonly: bool, verify: bool
) -> None:
    """Refuse a file that is not of *layout* (upgrading an earlier one if writable)."""
    if verify:
        problems = [row[0] for row in db.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise CacheFileError(
                f"cache file {path} is damaged ({'; '.join(problems[:3])}); delete it and "
                "re-record with mode='record', or restore it from a copy"
            )
        (page,) = db.execute("PRAGMA page_size").fetchone()
        size = path.stat().st_size
        if size % page:  # SQLite itself only notices missing whole pages
            raise CacheFileError(
                f"cache file {path} is truncated: its {size:,} bytes are not a whole number "
                f"of {page:,}-byte pages; delete it and re-record with mode='record', or "
                "restore it from a copy"
            )
    application_id, version = _stamp(db)
    if (application_id, version) == (layout.application_id, layout.version):
        return
    if application_id == layout.application_id:
        raise CacheFileError(
            f"cache file {path} is a {layout.title} of format {version}, but this safetychip "
            f"reads format {layout.version}; re-record it with mode='record' under another "
            "path"
        )
    if application_id == 0 and layout.upgrade is not None:
        if not readonly:
            if _upgrade(db, layout):
                return
        elif layout.upgrade(db, False):
            raise CacheFileError(
                f"cache file {path} was written by an earlier safetychip; open it once with "
                "mode='auto' to convert it in place (its entries are kept), or delete it and "
                "re-record with mode='record'"
            )
    tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    raise CacheFileError(
        f"cache file {path} is an SQLite database but not a {layout.title} (its tables: "
        f"{', '.join(tables) or 'none'}); pass another path, or delete it to start afresh"
    )


def _upgrade(db: sqlite3.Connection, layout: CacheFormat) -> bool:
    """Convert and stamp a file of an earlier release in one write transaction.

    Another process may have done it meanwhile: the stamp is read again once the write
    lock is held.
    """
    assert layout.upgrade is not None
    db.execute("BEGIN IMMEDIATE")
    try:
        done = _stamp(db) == (layout.application_id, layout.version)
        if not done and layout.upgrade(db, True):
            db.execute(f"PRAGMA application_id = {int(layout.application_id)}")
            db.execute(f"PRAGMA user_version = {int(layout.version)}")
            done = True
    except BaseException:
        db.rollback()
        raise
    if done:
        db.commit()
    else:
        db.rollback()
    return done
