"""Record and replay: a chat model wrapper that stores replies in an SQLite file.

A notebook run once against a real model with ``mode="record"`` (or ``"auto"``) leaves a
cache file; run again with ``mode="replay"`` it gets the same replies, byte for byte,
with no network and no API key.

Replay never returns text that was not recorded for the very request asked. Each entry
holds the request's canonical JSON (its key is that JSON's SHA-256) and a SHA-256 checksum
of the key and the reply, both checked on every read; the file is stamped as a safetychip
reply cache and checked whole (SQLite's ``quick_check``) when a :class:`CachedModel` opens
it. An empty, truncated or foreign file, or an entry that fails a check, is a
:class:`~safetychip.errors.CacheFileError` naming the file, in every mode. The checksum
detects accidental damage and edits, not forgery: whoever can write the file can
recompute it.

Files written before checksums existed (format 1: the same table without the checksum
column, and no stamp) are converted in place the first time a writable
(``"record"`` or ``"auto"``) :class:`CachedModel` opens them: every reply is kept, and
checksummed as it then is. A replay-only :class:`CachedModel` refuses such a file, with a
message saying to open it once in ``"auto"`` mode.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from contextlib import AbstractContextManager
from enum import Enum
from pathlib import Path

from safetychip.errors import CacheFileError, LLMUsageError, ReplayMissError
from safetychip.llm._base import (
    ChatModel,
    ChatRequest,
    Completion,
    canonical_json,
    first_words,
)
from safetychip.llm._sqlite import CacheFormat, transaction

__all__ = ["CacheMode", "CachedModel"]

_TABLE = """
CREATE TABLE completions (
    key TEXT PRIMARY KEY,      -- SHA-256 of the request's canonical JSON
    request TEXT NOT NULL,     -- that JSON: model, messages and parameters
    completion TEXT NOT NULL,  -- the reply's canonical JSON
    checksum TEXT NOT NULL     -- SHA-256 of the key, a newline and the completion
)
"""


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _checksum(key: str, completion: str) -> str:
    return _sha256(f"{key}\n{completion}")


def _from_format_1(db: sqlite3.Connection, write: bool) -> bool:
    """Recognise a cache file of format 1 and, if *write*, add the checksums."""
    tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    columns = [row[1] for row in db.execute("PRAGMA table_info(completions)")]
    if tables != ["completions"] or columns != ["key", "request", "completion"]:
        return False
    if write:
        rows = db.execute("SELECT key, request, completion FROM completions").fetchall()
        db.execute("DROP TABLE completions")
        db.execute(_TABLE)
        db.executemany(
            "INSERT INTO completions VALUES (?, ?, ?, ?)",
            [(key, request, reply, _checksum(key, reply)) for key, request, reply in rows],
        )
    return True


_FORMAT = CacheFormat(
    title="safetychip reply cache",
    application_id=0x53434C4D,  # "SCLM"
    version=2,
    schema=_TABLE,
    upgrade=_from_format_1,
)


class CacheMode(Enum):
    """What :class:`CachedModel` does with a request.

    RECORD
        Always call the model, and store (or overwrite) the reply.
    REPLAY
        Only answer from the cache; a request it never saw raises
        :class:`~safetychip.errors.ReplayMissError`, never a silent call.
    AUTO
        Answer from the cache when it can, else call the model and store the reply.
    """

    RECORD = "record"
    REPLAY = "replay"
    AUTO = "auto"

    @classmethod
    def parse(cls, value: CacheMode | str) -> CacheMode:
        """Read a mode from its name, in any case, or a unique prefix of it.

        Examples
        --------
        >>> CacheMode.parse("Replay"), CacheMode.parse("a")
        (<CacheMode.REPLAY: 'replay'>, <CacheMode.AUTO: 'auto'>)
        >>> CacheMode.parse("re")
        Traceback (most recent call last):
        ...
        safetychip.errors.LLMUsageError: unknown cache mode 're': choose one of record, replay, auto
        """
        if isinstance(value, cls):
            return value
        matches = [mode for mode in cls if mode.value.startswith(str(value).lower())]
        if len(matches) != 1 or not value:
            choices = ", ".join(mode.value for mode in cls)
            raise LLMUsageError(f"unknown cache mode {value!r}: choose one of {choices}")
        return matches[0]


class CachedModel(ChatModel):
    """Wrap a chat model with a record/replay cache in an SQLite file.

    Requests are keyed by the model's name, the messages and the parameters, the reply's
    schema included when there is one (a SHA-256 of their canonical JSON). Each write is one
    transaction, so an interrupted run never leaves a partial row. The file is checked whole
    when the wrapper is made, and each entry when it is read (see :mod:`safetychip.llm._cache`).

    Parameters
    ----------
    model : ChatModel
        The model to call on a miss. In replay mode it is never called, so an
        :class:`OpenAIChatModel` without an API key will do.
    path : str or path-like
        The cache file; created in record and auto modes.
    mode : CacheMode or str
        ``"record"``, ``"replay"`` or ``"auto"`` (see :class:`CacheMode`).

    Attributes
    ----------
    usage : UsageCounter
        Counts every reply served, replayed ones included, with the tokens they cost when
        recorded; ``model.usage`` counts only real calls.

    Raises
    ------
    CacheFileError
        If the file is empty, damaged, not a safetychip reply cache, or missing in replay
        mode; later, from :meth:`complete`, if the entry asked for fails its checks.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from safetychip.llm import ScriptedModel
    >>> path = Path(tempfile.mkdtemp()) / "llm.sqlite"
    >>> recorder = CachedModel(ScriptedModel(["Yes."]), path, mode="record")
    >>> recorder.complete("Is the stove off?").text
    'Yes.'
    >>> player = CachedModel(ScriptedModel([]), path, mode="replay")
    >>> player.complete("Is the stove off?").text
    'Yes.'
    >>> player.complete("Is the door open?")
    Traceback (most recent call last):
    ...
    safetychip.errors.ReplayMissError: ...llm.sqlite holds no reply of model 'scripted-stand-in' ...
    """

    def __init__(
        self, model: ChatModel, path: str | os.PathLike[str], mode: CacheMode | str = "auto"
    ) -> None:
        super().__init__(model.name)
        self.model = model
        self.path = Path(path)
        self.mode = CacheMode.parse(mode)
        with self._transaction(verify=True) as db:
            db.execute("SELECT count(*) FROM completions").fetchone()

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}({self.model!r}, {str(self.path)!r}, mode={self.mode.value!r})"

    def _transaction(self, verify: bool = False) -> AbstractContextManager[sqlite3.Connection]:
        readonly = self.mode is CacheMode.REPLAY
        return transaction(self.path, _FORMAT, readonly=readonly, verify=verify)

    def _complete(self, request: ChatRequest) -> Completion:
        key_json = canonical_json({"model": self.name, **request.to_dict()})
        key = _sha256(key_json)
        if self.mode is not CacheMode.RECORD:
            with self._transaction() as db:
                row = db.execute(
                    "SELECT request, completion, checksum FROM completions WHERE key = ?", (key,)
                )
                found = row.fetchone()
            if found is not None:
                return self._checked(key, key_json, *found)
            if self.mode is CacheMode.REPLAY:
                raise ReplayMissError(
                    f"replay cache {self.path} holds no reply of model {self.name!r} to a "
                    f"request whose last message begins "
                    f"{first_words(request.messages[-1].content)!r}; run with mode='auto' "
                    "or 'record' and a reachable model to record it"
                )
        completion = self.model.complete(
            request.messages,
            temperature=request.temperature,
            stop=request.stop,
            max_tokens=request.max_tokens,
            schema=None if request.schema is None else json.loads(request.schema),
        )
        stored = canonical_json(completion.to_dict())
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO completions VALUES (?, ?, ?, ?)",
                (key, key_json, stored, _checksum(key, stored)),
            )
        return completion

    def _checked(
        self, key: str, key_json: str, request: str, stored: str, checksum: str
    ) -> Completion:
        """Return the completion of an entry that passes every check."""
        entry = f"cache file {self.path}: entry {key[:12]}…"
        fix = "re-record it with mode='record', or delete the file to start afresh"
        if request != key_json:
            raise CacheFileError(
                f"{entry} holds another request than the one its key was made from, so "
                f"the file was edited or damaged; {fix}"
            )
        if checksum != _checksum(key, stored):
            raise CacheFileError(
                f"{entry} fails its checksum: the stored reply changed after it was recorded; {fix}"
            )
        try:
            return Completion.from_dict(json.loads(stored))
        except (ValueError, KeyError, TypeError):
            raise CacheFileError(
                f"{entry} holds a malformed reply: {stored[:200]!r}; {fix}"
            ) from None
