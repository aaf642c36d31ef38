"""The memory's SQLite file: episodes with their embeddings, rules, the negative examples of
overrides, and the interaction count.

:class:`MemoryStore` holds what the backends share (the rows and their reading back);
:class:`SQLiteStore` is the default backend, :class:`~safetychip.memory.PostgresStore` the
one a fleet of robots shares, and :func:`open_store` picks one from a path or URL.

One file in WAL mode. Each episode is one row (its JSON, the embedding model's name and the
vector), written in one transaction, so an episode is stored whole or not at all, also when
the writing process is killed. A file that is not an SQLite database, is corrupt, or is an
SQLite database of something else raises :class:`~safetychip.errors.MemoryStoreError` naming
the file; it is never replaced. A file of the previous format (``safetychip-memory 1``,
without negative examples) is migrated in place, in one transaction, when opened.

Lifecycle changes that touch several rows (a consolidation, an override) run in one
:meth:`SQLiteStore.transaction`, so they too are stored whole or not at all.

Examples
--------
>>> store = SQLiteStore(":memory:")
>>> stored = store.add_episode(Episode("push the vase"), np.ones(2, np.float32), "test")
>>> stored.id, len(store.load_episodes()[0])
('e1', 1)
>>> store.close()
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import MemoryStoreError
from ._episode import Episode, Rule
from ._scene import SceneGraph

__all__ = ["FORMAT", "MemoryStore", "SQLiteStore", "open_store"]

#: The value of the ``format`` key in a memory file's ``meta`` table.
FORMAT = "safetychip-memory 2"

#: The memory's tables, in every backend.
_TABLES = ("meta", "episodes", "rules", "negatives")
_OLD = "safetychip-memory 1"
_NEGATIVES = """
CREATE TABLE negatives (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    target TEXT NOT NULL,    -- the id of the overridden rule or episode
    data TEXT NOT NULL       -- {"command": ..., "scene": SceneGraph.to_dict()} as JSON
);
"""

_HEADER = b"SQLite format 3\x00"
_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE episodes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    data TEXT NOT NULL,      -- Episode.to_dict() without the id, as JSON
    model TEXT NOT NULL,     -- the embedding model's name
    vector BLOB NOT NULL     -- little-endian float32
);
CREATE TABLE rules (id INTEGER PRIMARY KEY AUTOINCREMENT, data TEXT NOT NULL);
"""
_SCHEMA += _NEGATIVES


class MemoryStore:
    """What every memory backend does with its rows; a backend supplies :meth:`_run`,
    :meth:`_insert`, :meth:`_begin` and :meth:`close`.

    Ids are the rows' keys (``"e3"``, ``"r1"``); every write runs in :meth:`transaction`.

    Attributes
    ----------
    path : str
        What messages name the store by (a file, or a server's URL without its password).
    """

    #: How messages name the store's kind.
    kind = "memory file"
    #: The statement storing the interaction count (``?`` is the count).
    _STORE_COUNT = ""

    path: str
    _depth = 0

    def _run(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Execute *sql* (``?`` placeholders); a cursor with ``fetchone``, rows and
        ``rowcount``."""
        raise NotImplementedError

    def _insert(self, table: str, values: dict[str, Any]) -> int:
        """Insert one row of *values* into *table*; its new key."""
        raise NotImplementedError

    def _begin(self) -> AbstractContextManager[Any]:
        """One transaction of the backend: committed on exit, rolled back on an error."""
        raise NotImplementedError

    def close(self) -> None:
        """Close the store (what was added is already committed)."""
        raise NotImplementedError

    def error(self, problem: str) -> MemoryStoreError:
        """A :class:`~safetychip.errors.MemoryStoreError` saying the store has *problem*."""
        return MemoryStoreError(f"{self.kind} {self.path!r} {problem}", self.path)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Group the writes inside into one transaction (nested ones join the outer one).

        Examples
        --------
        >>> store = SQLiteStore(":memory:")
        >>> with store.transaction():
        ...     _ = store.add_rule(Rule("push", "vase"))
        ...     store.set_interactions(7)
        >>> len(store.load_rules()), store.interactions
        (1, 7)
        """
        if self._depth:
            yield
            return
        self._depth += 1
        try:
            with self._begin():
                yield
        finally:
            self._depth -= 1

    @property
    def interactions(self) -> int:
        """How many interactions the memory has counted (0 for a new store)."""
        row = self._run("SELECT value FROM meta WHERE key = 'interactions'").fetchone()
        return int(row[0]) if row else 0

    def set_interactions(self, count: int) -> None:
        """Store the interaction count."""
        with self.transaction():
            self._run(self._STORE_COUNT, (str(count),))

    def add_episode(self, episode: Episode, vector: np.ndarray, model: str) -> Episode:
        """Store *episode* with its embedding *vector* by *model*, in one transaction.

        Returns
        -------
        Episode
            The episode with its new id (``"e<row>"``).
        """
        blob = np.asarray(vector, dtype="<f4").tobytes()
        with self.transaction():
            row = self._insert("episodes", {"data": _json(episode), "model": model,
                                            "vector": blob})  # fmt: skip
        return replace(episode, id=f"e{row}")

    def add_rule(self, rule: Rule) -> Rule:
        """Store *rule*; returns it with its new id (``"r<row>"``)."""
        with self.transaction():
            row = self._insert("rules", {"data": _json(rule)})
        return replace(rule, id=f"r{row}")

    def update(self, item: Episode | Rule) -> None:
        """Overwrite the stored episode or rule of ``item.id`` with *item* (vector kept).

        Raises
        ------
        ValueError
            If *item* has no id of this store.
        """
        table = "episodes" if isinstance(item, Episode) else "rules"
        with self.transaction():
            cursor = self._run(f"UPDATE {table} SET data = ? WHERE id = ?",
                               (_json(item), _row(item.id)))  # fmt: skip
        if cursor.rowcount != 1:
            raise ValueError(f"{item!r} is not stored in {self.path!r}: add it first")

    def add_negative(self, target: str, command: str, scene: SceneGraph) -> None:
        """Record that a person overrode the block of *command* in *scene* by *target*."""
        data = json.dumps({"command": command, "scene": scene.to_dict()})
        with self.transaction():
            self._insert("negatives", {"target": target, "data": data})

    def load_negatives(self) -> dict[str, list[tuple[str, SceneGraph]]]:
        """The negative examples by the id of the rule or episode overridden, in order."""
        negatives: dict[str, list[tuple[str, SceneGraph]]] = {}
        for target, data in self._run("SELECT target, data FROM negatives ORDER BY id"):
            record = json.loads(data)
            negatives.setdefault(target, []).append(
                (record["command"], SceneGraph.from_dict(record["scene"]))
            )
        return negatives

    def load_episodes(self) -> tuple[list[Episode], list[str], list[np.ndarray]]:
        """Every stored episode in order, with its model's name and its vector.

        Raises
        ------
        MemoryStoreError
            If a row cannot be read back.
        """
        episodes, models, vectors = [], [], []
        rows = self._run("SELECT id, data, model, vector FROM episodes ORDER BY id")
        for row, data, model, blob in rows:
            try:
                episodes.append(Episode.from_dict({**json.loads(data), "id": f"e{row}"}))
            except (ValueError, TypeError) as error:
                raise self.error(f"has an unreadable episode row {row} ({error})") from error
            models.append(model)
            vectors.append(np.frombuffer(blob, dtype="<f4").astype(np.float32))
        return episodes, models, vectors

    def load_rules(self) -> list[Rule]:
        """Every stored rule in order."""
        rules = []
        for row, data in self._run("SELECT id, data FROM rules ORDER BY id"):
            try:
                rules.append(Rule.from_dict({**json.loads(data), "id": f"r{row}"}))
            except (ValueError, TypeError) as error:
                raise self.error(f"has an unreadable rule row {row} ({error})") from error
        return rules


class SQLiteStore(MemoryStore):
    """Episodes and rules in one SQLite file (``":memory:"`` for a throw-away store).

    Parameters
    ----------
    path : str or path-like
        The file; created with the schema when missing or empty.

    Raises
    ------
    MemoryStoreError
        If the file is not an SQLite database, is corrupt, or is not a safetychip memory.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self._depth = 0
        if self.path != ":memory:":
            self._check_header(Path(path))
        try:
            # A shield calls its filters on worker threads (time budgets), one call at a time:
            # the connection must not be tied to the thread that opened it (SQLite here is
            # built serialised, sqlite3.threadsafety == 3).
            self._db = sqlite3.connect(self.path, check_same_thread=False)
        except sqlite3.Error as error:
            raise self.error(f"cannot be opened ({error})") from error
        try:
            self._open()
        except sqlite3.DatabaseError as error:
            self._db.close()
            raise self.error(f"is corrupt ({error}); restore it from a copy") from error
        except MemoryStoreError:
            self._db.close()
            raise

    def _check_header(self, path: Path) -> None:
        try:
            with path.open("rb") as file:
                header = file.read(len(_HEADER))
        except FileNotFoundError:
            return
        except OSError as error:
            raise self.error(f"cannot be read ({error})") from error
        if header and header != _HEADER:
            raise self.error("is not an SQLite database: pass a new path or a memory file")

    def _open(self) -> None:
        db = self._db
        db.execute("PRAGMA busy_timeout=10000")
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        if not tables:
            db.executescript(
                f"BEGIN;{_SCHEMA}INSERT INTO meta VALUES ('format', '{FORMAT}');COMMIT;"
            )
            tables = {"meta"}
        form = None
        if "meta" in tables:
            form = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        if form == (_OLD,):
            db.executescript(f"BEGIN;{_NEGATIVES}UPDATE meta SET value = '{FORMAT}' "
                             "WHERE key = 'format';COMMIT;")  # fmt: skip
        elif form != (FORMAT,):
            raise self.error(f"is an SQLite database but not a {FORMAT!r} file")
        check = db.execute("PRAGMA quick_check").fetchone()
        if check != ("ok",):
            raise self.error(f"is corrupt ({check[0]}); restore it from a copy")
        db.execute("PRAGMA journal_mode=WAL")  # only once the file is known to be ours
        db.execute("PRAGMA synchronous=FULL")

    _STORE_COUNT = "INSERT OR REPLACE INTO meta VALUES ('interactions', ?)"

    def _run(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self._db.execute(sql, params)

    def _insert(self, table: str, values: dict[str, Any]) -> int:
        marks = ", ".join("?" * len(values))
        cursor = self._db.execute(f"INSERT INTO {table} ({', '.join(values)}) VALUES ({marks})",
                                  tuple(values.values()))  # fmt: skip
        return int(cursor.lastrowid or 0)

    def _begin(self) -> sqlite3.Connection:
        return self._db

    def close(self) -> None:
        """Close the file (what was added is already committed)."""
        self._db.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"


def open_store(target: str | os.PathLike[str] | MemoryStore) -> MemoryStore:
    """The store *target* names: itself if it is one, a :class:`PostgresStore
    <safetychip.memory.PostgresStore>` for a ``postgresql://`` URL, else an SQLite file.

    Examples
    --------
    >>> open_store(":memory:")
    SQLiteStore(':memory:')
    """
    if isinstance(target, MemoryStore):
        return target
    if str(target).startswith(("postgresql://", "postgres://")):
        from ._postgres import PostgresStore

        return PostgresStore(str(target))
    return SQLiteStore(target)


def _json(item: Episode | Rule) -> str:
    """*item*'s JSON without its id (the row's key is the id)."""
    return json.dumps({k: v for k, v in item.to_dict().items() if k != "id"})


def _row(item_id: str) -> int:
    if len(item_id) < 2 or not item_id[1:].isdigit():
        raise ValueError(f"an id of the store looks like 'e3' or 'r1', got {item_id!r}: add the "
                         "item to the store first")  # fmt: skip
    return int(item_id[1:])
