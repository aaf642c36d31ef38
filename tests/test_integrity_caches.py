"""The embedding cache is stamped and checksummed as the chat cache is; a chat cache a killed
recorder left with its journal replays what was recorded; an unusable cache stops an
experiment (issue 45, class 4)."""

from __future__ import annotations

import shutil
import sqlite3

import numpy as np
import pytest

from safetychip.cli import main
from safetychip.errors import CacheFileError
from safetychip.llm import CachedModel, Embedder, ScriptedModel


class Letters(Embedder):
    """Counts of letters: a tiny deterministic embedder."""

    def __init__(self, cache_path) -> None:
        super().__init__("letters", cache_path=cache_path)

    def _embed(self, texts):
        return [[t.count(c) + 0.5 for c in "abcdefgh"] for t in texts]


TEXTS = ["push the vase", "grab the knife", "walk to the bathroom"]


@pytest.fixture
def cache(tmp_path):
    path = tmp_path / "vectors.sqlite"
    Letters(path).encode(TEXTS)
    return path


def test_vectors_survive_reopening(cache):
    again = Letters(cache)
    assert np.array_equal(again.encode(TEXTS), Letters(None).encode(TEXTS))


def _edit(path, sql, params=()):
    db = sqlite3.connect(path)
    db.execute(sql, params)
    db.commit()
    db.close()


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda p: _edit(p, "UPDATE embeddings SET vector = zeroblob(32) WHERE rowid = 1"),
         "does not match its checksum"),
        (lambda p: _edit(p, "UPDATE embeddings SET vector = ? WHERE rowid = 2",
                         (np.full(8, np.nan, np.float32).tobytes(),)),
         "does not match its checksum"),
        (lambda p: _edit(p, "UPDATE embeddings SET vector = (SELECT vector FROM embeddings "
                            "WHERE rowid = 3) WHERE rowid = 1"),
         "does not match its checksum"),
        (lambda p: _edit(p, "UPDATE embeddings SET vector = X'00', checksum = 'x'"),
         "does not match its checksum"),
    ],
    ids=["zeroed", "nan", "swapped", "cut"],
)  # fmt: skip
def test_a_damaged_vector_is_refused_naming_the_file(cache, spoil, message):
    spoil(cache)
    with pytest.raises(CacheFileError, match=message) as caught:
        Letters(cache)
    assert str(cache) in str(caught.value)


def test_a_zero_vector_with_a_matching_checksum_is_refused(cache):
    from safetychip.llm._embeddings import _checksum

    blob = np.zeros(8, np.float32).tobytes()
    _edit(cache, "UPDATE embeddings SET vector = ?, checksum = ? WHERE text = ?",
          (blob, _checksum("letters", TEXTS[0], blob), TEXTS[0]))  # fmt: skip
    with pytest.raises(CacheFileError, match="is not a row of finite numbers, not all zero"):
        Letters(cache)


def test_an_empty_or_foreign_file_is_refused_and_left_alone(tmp_path):
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    with pytest.raises(CacheFileError, match=r"is empty \(0 bytes\)"):
        Letters(empty)
    assert empty.read_bytes() == b""
    foreign = tmp_path / "notes.sqlite"
    _edit(foreign, "CREATE TABLE notes (text TEXT)")
    before = foreign.read_bytes()
    with pytest.raises(CacheFileError, match="not a safetychip embedding cache"):
        Letters(foreign)
    assert foreign.read_bytes() == before


def test_a_cache_of_the_earlier_format_is_converted_keeping_its_vectors(tmp_path):
    path = tmp_path / "old.sqlite"
    vectors = Letters(None).encode(TEXTS)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE embeddings (model TEXT NOT NULL, text TEXT NOT NULL, vector BLOB "
               "NOT NULL, PRIMARY KEY (model, text))")  # fmt: skip
    db.executemany("INSERT INTO embeddings VALUES ('letters', ?, ?)",
                   [(t, v.tobytes()) for t, v in zip(TEXTS, vectors, strict=True)])  # fmt: skip
    db.commit()
    db.close()
    assert np.array_equal(Letters(path).encode(TEXTS), vectors)
    assert np.array_equal(Letters(path).encode(TEXTS), vectors)  # stamped now, still read


def _hot_journal(tmp_path):
    """A reply cache as a recorder killed mid-write leaves it: the file and its journal."""
    path = tmp_path / "live.sqlite"
    CachedModel(ScriptedModel(["walk to bathroom"]), path, mode="record").complete("hi")
    db = sqlite3.connect(path)
    db.execute("PRAGMA cache_size=1")  # the write spills into the file before it commits
    db.execute("BEGIN")
    for i in range(2000):
        db.execute("INSERT INTO completions VALUES (?, ?, ?, ?)", (f"k{i}", "r" * 200, "c", "x"))
    killed = tmp_path / "killed.sqlite"
    shutil.copy(path, killed)
    shutil.copy(f"{path}-journal", f"{killed}-journal")
    db.rollback()
    db.close()
    return killed


def test_replay_of_a_cache_left_with_a_journal_recovers_the_recording(tmp_path):
    killed = _hot_journal(tmp_path)
    replay = CachedModel(ScriptedModel([]), killed, mode="replay")
    assert replay.complete("hi").text == "walk to bathroom"
    assert not (tmp_path / "killed.sqlite-journal").exists()


def test_a_journal_in_a_folder_that_cannot_be_written_is_a_clear_error(tmp_path, monkeypatch):
    killed = _hot_journal(tmp_path)
    monkeypatch.setattr("os.access", lambda path, mode: False)
    with pytest.raises(CacheFileError, match=r"half made by a killed process.*is kept"):
        CachedModel(ScriptedModel([]), killed, mode="replay")


@pytest.mark.parametrize("kind", ["missing", "empty", "foreign"])
def test_experiment_with_an_unusable_replay_cache_fails(tmp_path, capsys, kind):
    path = tmp_path / "cache.sqlite"
    if kind == "empty":
        path.touch()
    elif kind == "foreign":
        _edit(path, "CREATE TABLE notes (text TEXT)")
    out = tmp_path / "out"
    status = main(["experiment", "--model", "gpt-x", "--cache", str(path), "--replay",
                   "--suite", "four_room", "--constraints", "1", "--out", str(out)])  # fmt: skip
    assert status == 2
    assert str(path) in capsys.readouterr().err
    assert not out.exists()
