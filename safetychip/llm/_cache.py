"""Record and replay: a chat model wrapper that stores replies in an SQLite file.

A notebook run once against a real model with ``mode="record"`` (or ``"auto"``) leaves a
cache file; run again with ``mode="replay"`` it gets the same replies, byte for byte,
with no network and no API key.
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
from safetychip.llm._sqlite import transaction

__all__ = ["CacheMode", "CachedModel"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS completions (
    key TEXT PRIMARY KEY,   -- SHA-256 of the request's canonical JSON
    request TEXT NOT NULL,  -- that JSON: model, messages and parameters
    completion TEXT NOT NULL
);
"""


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

    Requests are keyed by the model's name, the messages and the parameters (a SHA-256
    of their canonical JSON). Each write is one transaction, so an interrupted run never
    leaves a partial row. The file is checked when the wrapper is made.

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
        If the file is corrupt, or missing in replay mode.

    Examples
    --------
    >>> import tempfile
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
        with self._transaction() as db:
            db.execute("SELECT count(*) FROM completions").fetchone()

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}({self.model!r}, {str(self.path)!r}, mode={self.mode.value!r})"

    def _transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self.path, _SCHEMA, readonly=self.mode is CacheMode.REPLAY)

    def _complete(self, request: ChatRequest) -> Completion:
        key_json = canonical_json({"model": self.name, **request.to_dict()})
        key = hashlib.sha256(key_json.encode()).hexdigest()
        if self.mode is not CacheMode.RECORD:
            with self._transaction() as db:
                row = db.execute("SELECT completion FROM completions WHERE key = ?", (key,))
                found = row.fetchone()
            if found is not None:
                return self._decode(found[0], key)
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
        )
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO completions VALUES (?, ?, ?)",
                (key, key_json, canonical_json(completion.to_dict())),
            )
        return completion

    def _decode(self, stored: str, key: str) -> Completion:
        try:
            return Completion.from_dict(json.loads(stored))
        except (ValueError, KeyError, TypeError):
            raise CacheFileError(
                f"cache file {self.path} has a malformed row {key[:12]}…: {stored[:200]!r}"
            ) from None
