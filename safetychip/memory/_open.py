"""Opening the store a path or URL names: the one place that knows both backends (so the
SQLite store and the PostgreSQL store, which builds on it, do not import each other)."""

from __future__ import annotations

import os

from ._postgres import PostgresStore
from ._store import MemoryStore, SQLiteStore

__all__ = ["open_store"]


def open_store(target: str | os.PathLike[str] | MemoryStore, *,
               readonly: bool = False) -> MemoryStore:  # fmt: skip
    """The store *target* names: itself if it is one, a :class:`PostgresStore
    <safetychip.memory.PostgresStore>` for a ``postgresql://`` URL, else an SQLite file
    (*readonly*: see either).

    Examples
    --------
    >>> open_store(":memory:")
    SQLiteStore(':memory:')
    """
    if isinstance(target, MemoryStore):
        return target
    if str(target).startswith(("postgresql://", "postgres://")):
        return PostgresStore(str(target), readonly=readonly)
    return SQLiteStore(target, readonly=readonly)
