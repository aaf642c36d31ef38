"""The memory's SQLite file: episodes with their embeddings, rules, the negative examples of
overrides, and the interaction count.

:class:`MemoryStore` holds what the backends share (the rows and their reading back);
:class:`SQLiteStore` is the default backend, :class:`~safetychip.memory.PostgresStore` the
one a fleet of robots shares, and :func:`open_store` picks one from a path or URL.

One file in WAL mode. Each episode is one row (its JSON, the embedding model's name and the
vector), written in one transaction, so an episode is stored whole or not at all, also when
the writing process is killed.

A damaged memory never reads as an empty or a different one. Every row carries a checksum
of its key and its values, checked when the row is read back; a stored vector must be
finite, non-zero and as long as the others. A file that is empty (0 bytes), cut short, not
an SQLite database, corrupt, an SQLite database of something else, or that holds a row
whose checksum does not match raises :class:`~safetychip.errors.MemoryStoreError` naming
the file; it is never replaced. A file of an older format (``safetychip-memory 1``, without
negative examples; ``safetychip-memory 2``, without checksums; ``safetychip-memory 3``,
whose episodes are all harmful and whose harms are the six of its time, every one still a
harm of :data:`~safetychip.memory.HARMS`) is migrated in place, in one
transaction, when opened for writing; opened ``readonly`` it is migrated in a copy in memory,
and the file is left as it was. A read-only store never creates a file: a missing one is an
error.

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

import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import numpy as np

from .._io import atomic_path
from ..errors import MemoryStoreError
from ._episode import Episode, Rule, check_command
from ._scene import SceneGraph

__all__ = ["FORMAT", "MemoryStore", "SQLiteStore"]

_Item = TypeVar("_Item", Episode, Rule)

#: The value of the ``format`` key in a memory file's ``meta`` table.
FORMAT = "safetychip-memory 4"

#: The memory's tables, in every backend.
TABLES = ("meta", "episodes", "rules", "negatives")
#: Each table's key and the values its checksum covers, in order.
_SUMMED = {
    "meta": ("key", "value"),
    "episodes": ("id", "data", "model", "vector"),
    "rules": ("id", "data"),
    "negatives": ("id", "target", "data"),
}
#: The formats migrated when opened: without negative examples, without checksums, without
#: harmless episodes (its rows read as they are: the change is in what may be written).
_OLD, UNSUMMED_FORMAT, HARMFUL_FORMAT = (
    "safetychip-memory 1",
    "safetychip-memory 2",
    "safetychip-memory 3",
)
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
    #: What a ``SELECT`` adds to hold the rows it reads until the transaction ends.
    _HOLD = ""

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

    def backup(self, path: str | os.PathLike[str]) -> Path:
        """Write a copy of the whole memory to the SQLite memory file *path*, atomically
        (never half a file), and return its path; the store stays open.

        The copy holds every committed row with its checksum, also those of a writer still
        running; it opens as any memory file does. (Copying a memory file by hand misses
        what is still in its ``-wal`` file.)

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> store = SQLiteStore(":memory:")
        >>> _ = store.add_rule(Rule("push", "vase"))
        >>> copy = store.backup(Path(tempfile.mkdtemp()) / "backup.db")
        >>> SQLiteStore(copy, readonly=True).load_rules()
        [<Rule r1 push × vase → block (θ=1.0, breakage)>]
        """
        with atomic_path(path) as tmp:
            tmp.unlink()  # the copy is made as a new memory file
            copy = SQLiteStore(tmp)
            try:
                with self.transaction(), copy.transaction():
                    for table, columns in _SUMMED.items():
                        names = ", ".join((*columns, "checksum"))
                        rows = self._run(f"SELECT {names} FROM {table}").fetchall()
                        copy._run(f"DELETE FROM {table}")
                        copy._db.executemany(f"INSERT INTO {table} ({names}) VALUES "
                                             f"({', '.join('?' * (len(columns) + 1))})",
                                             rows)  # fmt: skip
                copy._db.execute("PRAGMA journal_mode=DELETE")  # one file, readable as it is
            finally:
                copy.close()
        return Path(path)

    def error(self, problem: str) -> MemoryStoreError:
        """A :class:`~safetychip.errors.MemoryStoreError` saying the store has *problem*."""
        return MemoryStoreError(f"{self.kind} {self.path!r} {problem}", self.path)

    def _has_checksums(self, table: str) -> bool:
        """Whether *table* has its checksum column (a memory of format 2 or older has not)."""
        raise NotImplementedError

    def _upgrade(self, form: str) -> None:
        """Migrate the tables of format *form* (inside the caller's transaction) to
        :data:`FORMAT`: the negative examples' table and the rows' checksums (a format-3
        memory only changes its format's name)."""
        if form == _OLD:
            self._run(_NEGATIVES)
        self._run("UPDATE meta SET value = ? WHERE key = 'format'", (FORMAT,))
        for table, columns in _SUMMED.items():
            if not self._has_checksums(table):
                self._run(f"ALTER TABLE {table} ADD COLUMN checksum TEXT NOT NULL DEFAULT ''")
            for row in self._run(f"SELECT {', '.join(columns)} FROM {table}").fetchall():
                self._sum(table, row)

    def _sum(self, table: str, row: Sequence[Any]) -> None:
        """Store the checksum of *row* (its key first, then the values :data:`_SUMMED`
        lists)."""
        key = _SUMMED[table][0]
        self._run(f"UPDATE {table} SET checksum = ? WHERE {key} = ?", (_digest(table, row), row[0]))

    def _read(self, table: str, extra: str = "") -> Iterator[tuple[Any, ...]]:
        """The rows of *table* (the values :data:`_SUMMED` lists), their checksums checked.

        Raises
        ------
        MemoryStoreError
            If a row's checksum does not match it (the file was damaged).
        """
        columns = _SUMMED[table]
        query = f"SELECT {', '.join(columns)}, checksum FROM {table} {extra} ORDER BY {columns[0]}"
        for *row, checksum in self._run(query).fetchall():
            if checksum != _digest(table, row):
                raise self.error(
                    f"is damaged: {table} row {row[0]!r} does not match its checksum; restore "
                    "it from a copy"
                )
            yield tuple(row)

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
        row = next(self._read("meta", "WHERE key = 'interactions'"), None)
        return int(row[1]) if row else 0

    def set_interactions(self, count: int) -> None:
        """Store the interaction count."""
        value = str(count)
        with self.transaction():
            self._run(self._STORE_COUNT, (value, _digest("meta", ("interactions", value))))

    def add_episode(self, episode: Episode, vector: np.ndarray, model: str) -> Episode:
        """Store *episode* with its embedding *vector* by *model*, in one transaction.

        Returns
        -------
        Episode
            The episode with its new id (``"e<row>"``).
        """
        array = np.asarray(vector, dtype="<f4")
        if array.ndim != 1 or not _usable(array):
            raise ValueError(
                f"the vector of {episode.command!r} must be one row of finite numbers, not all "
                "zero: an embedder that gives a command no vector (no word it knows) cannot "
                "store it"
            )
        with self.transaction():
            row = self._add("episodes", {"data": _json(episode), "model": model,
                                         "vector": array.tobytes()})  # fmt: skip
        return replace(episode, id=f"e{row}")

    def add_rule(self, rule: Rule) -> Rule:
        """Store *rule*; returns it with its new id (``"r<row>"``)."""
        with self.transaction():
            row = self._add("rules", {"data": _json(rule)})
        return replace(rule, id=f"r{row}")

    def _add(self, table: str, values: dict[str, Any]) -> int:
        """Insert a row of *values* (in :data:`_SUMMED`'s order) with its checksum; its key."""
        row = self._insert(table, values)
        self._sum(table, (row, *values.values()))
        return row

    def update(self, item: _Item, change: Callable[[_Item], _Item] | None = None) -> _Item:
        """Change the stored episode or rule of ``item.id`` (its vector kept); returns it
        as stored.

        With *change*, the row is read as it is stored now (another process may have
        changed it since *item* was read), ``change(row)`` is written in its place, in one
        transaction that holds the row: what another process did to it is kept. Without,
        *item* overwrites the row whole.

        Raises
        ------
        ValueError
            If *item* has no id of this store.

        Examples
        --------
        >>> from dataclasses import replace
        >>> store = SQLiteStore(":memory:")
        >>> rule = store.add_rule(Rule("push", "vase", confidence=0.5))
        >>> store.update(rule, lambda now: replace(now, confidence=now.confidence / 2))
        <Rule r1 push × vase → block (θ=0.25, breakage)>
        """
        table = "episodes" if isinstance(item, Episode) else "rules"
        kind, row = type(item), _row(item.id)
        with self.transaction():
            stored = self._run(f"SELECT data FROM {table} WHERE id = ?{self._HOLD}",
                               (row,)).fetchone()  # fmt: skip
            if stored is None:
                raise ValueError(f"{item!r} is not stored in {self.path!r}: add it first")
            if change is not None:
                item = change(kind.from_dict({**json.loads(stored[0]), "id": item.id}))
            self._run(f"UPDATE {table} SET data = ? WHERE id = ?", (_json(item), row))
            values = self._run(f"SELECT {', '.join(_SUMMED[table])} FROM {table} WHERE id = ?",
                               (row,)).fetchone()  # fmt: skip
            self._sum(table, values)
        return item

    def add_negative(self, target: str, command: str, scene: SceneGraph) -> None:
        """Record that a person overrode the block of *command* in *scene* by *target*."""
        data = json.dumps({"command": command, "scene": scene.to_dict()})
        with self.transaction():
            self._add("negatives", {"target": target, "data": data})

    def load_negatives(self) -> dict[str, list[tuple[str, SceneGraph]]]:
        """The negative examples by the id of the rule or episode overridden, in order."""
        negatives: dict[str, list[tuple[str, SceneGraph]]] = {}
        for row, target, data in self._read("negatives"):
            try:
                record = json.loads(data)
                example = (check_command(record["command"]),
                           SceneGraph.from_dict(record["scene"]))  # fmt: skip
            except (ValueError, TypeError, KeyError) as error:
                raise self.error(f"has an unreadable negatives row {row} ({error})") from error
            negatives.setdefault(target, []).append(example)
        return negatives

    def load_episodes(self) -> tuple[list[Episode], list[str], list[np.ndarray]]:
        """Every stored episode in order, with its model's name and its vector.

        Raises
        ------
        MemoryStoreError
            If a row cannot be read back.
        """
        episodes: list[Episode] = []
        models: list[str] = []
        vectors: list[np.ndarray] = []
        for row, data, model, blob in self._read("episodes"):
            try:
                episodes.append(Episode.from_dict({**json.loads(data), "id": f"e{row}"}))
            except (ValueError, TypeError) as error:
                raise self.error(f"has an unreadable episode row {row} ({error})") from error
            vector = np.frombuffer(bytes(blob), dtype="<f4").astype(np.float32)
            if len(blob) % 4 or not _usable(vector):
                raise self.error(f"has a damaged vector in episode row {row} (not finite "
                                 "numbers, or all zero); restore it from a backup")  # fmt: skip
            if vectors and vector.size != vectors[0].size:
                raise self.error(f"has vectors of {vectors[0].size} and {vector.size} numbers "
                                 f"(episode row {row}); restore it from a backup")  # fmt: skip
            models.append(model)
            vectors.append(vector)
        return episodes, models, vectors

    def load_rules(self) -> list[Rule]:
        """Every stored rule in order."""
        rules = []
        for row, data in self._read("rules"):
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
        The file; created with the schema when missing (unless *readonly*).
    readonly : bool
        Open the file only to read it: it must exist, and it is never created, migrated or
        written (an older format is migrated in a copy in memory).

    Raises
    ------
    MemoryStoreError
        If the file is missing (*readonly*), empty, cut short, not an SQLite database,
        corrupt, not a safetychip memory, or holds a row whose checksum does not match.
    """

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._depth = 0
        uri = f"file:{quote(self.path)}?mode=ro" if readonly else self.path
        if self.path != ":memory:":
            self._check_file(Path(path))
        try:
            # A shield calls its filters on worker threads (time budgets), one call at a time:
            # the connection must not be tied to the thread that opened it (SQLite here is
            # built serialised, sqlite3.threadsafety == 3).
            self._db = sqlite3.connect(uri, uri=readonly, check_same_thread=False)
        except sqlite3.Error as error:
            raise self.error(f"cannot be opened ({error})") from error
        try:
            self._open()
            self.load_episodes()  # every row checked once, before the store is used
            self.load_rules()
            self.load_negatives()
            _ = self.interactions
        except sqlite3.DatabaseError as error:
            self._db.close()
            raise self.error(f"is corrupt ({error}); restore it from a copy") from error
        except MemoryStoreError:
            self._db.close()
            raise

    def _check_file(self, path: Path) -> None:
        """Refuse a file that cannot be a memory: empty, not SQLite, or cut short."""
        try:
            size = path.stat().st_size
            with path.open("rb") as file:
                header = file.read(100)
        except FileNotFoundError:
            if self.readonly:
                raise self.error("does not exist: pass the path of a memory file") from None
            return
        except OSError as error:
            raise self.error(f"cannot be read ({error})") from error
        if size == 0:
            raise self.error("is empty (0 bytes), not a memory: restore it from a backup, or "
                             "remove it to start a new memory")  # fmt: skip
        if header[: len(_HEADER)] != _HEADER:
            raise self.error("is not an SQLite database: pass a new path or a memory file")
        page = int.from_bytes(header[16:18], "big") if len(header) == 100 else 0
        page = 65536 if page == 1 else page
        if page < 512 or page & (page - 1):
            raise self.error("is corrupt (its header is damaged); restore it from a copy")
        pages = int.from_bytes(header[28:32], "big") if header[24:28] == header[92:96] else 0
        wal = Path(f"{path}-wal")
        pending = wal.exists() and wal.stat().st_size > 0  # SQLite recovers from the log
        if size % page or (size < pages * page and not pending):
            raise self.error(f"is cut short ({size} bytes of {max(pages * page, size)}); "
                             "restore it from a copy")  # fmt: skip

    def _format(self) -> str:
        """The file's format; empty for a database without tables."""
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master")}
        if not tables:
            return ""
        form = None
        if "meta" in tables:
            form = self._db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        if form not in ((FORMAT,), (_OLD,), (UNSUMMED_FORMAT,), (HARMFUL_FORMAT,)):
            raise self.error(f"is an SQLite database but not a {FORMAT!r} file")
        return str(form[0])

    def _open(self) -> None:
        db = self._db
        db.execute("PRAGMA busy_timeout=10000")
        check = db.execute("PRAGMA quick_check").fetchone()
        if check != ("ok",):
            raise self.error(f"is corrupt ({check[0]}); restore it from a copy")
        if self.readonly:
            form = self._format()
            if form == "":
                raise self.error(f"holds no tables, not a {FORMAT!r} file")
            if form == FORMAT:
                return
            self._db = sqlite3.connect(":memory:")  # migrated in a copy, never in the file
            db.backup(self._db)
            db.close()
        self._db.execute("BEGIN IMMEDIATE")  # two processes creating it create it once
        try:
            form = self._format()
            if form == "":
                for statement in _SCHEMA.split(";")[:-1]:
                    self._db.execute(statement)
                self._db.execute("INSERT INTO meta VALUES ('format', ?)", (UNSUMMED_FORMAT,))
                form = UNSUMMED_FORMAT
            if form != FORMAT:
                self._upgrade(form)
            self._db.commit()
        except BaseException:
            self._db.rollback()
            raise
        if not self.readonly:  # only once the file is known to be ours
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")

    _STORE_COUNT = "INSERT OR REPLACE INTO meta VALUES ('interactions', ?, ?)"

    def _has_checksums(self, table: str) -> bool:
        return any(row[1] == "checksum" for row in self._db.execute(f"PRAGMA table_info({table})"))

    def _run(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self._db.execute(sql, params)

    def _insert(self, table: str, values: dict[str, Any]) -> int:
        marks = ", ".join("?" * len(values))
        cursor = self._db.execute(f"INSERT INTO {table} ({', '.join(values)}) VALUES ({marks})",
                                  tuple(values.values()))  # fmt: skip
        return int(cursor.lastrowid or 0)

    @contextmanager
    def _begin(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")  # the write lock first: what is read stays so
        try:
            yield
        except BaseException:
            self._db.rollback()
            raise
        self._db.commit()

    def close(self) -> None:
        """Close the file (what was added is already committed), first moving what its
        ``-wal`` file holds into it (a checkpoint), so the file alone holds the memory."""
        if not self.readonly:
            with suppress(sqlite3.Error):  # a reader of another process: it checkpoints later
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._db.close()

    def backup(self, path: str | os.PathLike[str]) -> Path:
        """Write a copy of the memory to *path* with SQLite's backup API, atomically; see
        :meth:`MemoryStore.backup`."""
        with atomic_path(path) as tmp:
            copy = sqlite3.connect(tmp)
            try:
                self._db.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # one file, readable as it is
            finally:
                copy.close()
        return Path(path)

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"


def _json(item: Episode | Rule) -> str:
    """*item*'s JSON without its id (the row's key is the id)."""
    return json.dumps({k: v for k, v in item.to_dict().items() if k != "id"})


def _digest(table: str, row: Sequence[Any]) -> str:
    """The checksum of a *table* row: its key, then its values (bytes as they are)."""
    digest = hashlib.blake2b(table.encode(), digest_size=16)
    for value in row:
        data = bytes(value) if isinstance(value, (bytes, memoryview)) else str(value).encode(
            "utf-8", "surrogatepass")  # fmt: skip
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


def _usable(vector: np.ndarray) -> bool:
    """Whether *vector* is a stored vector can be: non-empty, finite, not all zero."""
    return bool(vector.size and np.isfinite(vector).all() and vector.any())


def _row(item_id: str) -> int:
    if len(item_id) < 2 or not item_id[1:].isdigit():
        raise ValueError(f"an id of the store looks like 'e3' or 'r1', got {item_id!r}: add the "
                         "item to the store first")  # fmt: skip
    return int(item_id[1:])
