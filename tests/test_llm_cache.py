"""The record/replay cache never replays text that was not recorded for the request asked:
damaged, foreign, empty and truncated files are CacheFileErrors naming the file."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading

import pytest

from safetychip.errors import CacheFileError
from safetychip.llm import CachedModel, OpenAIEmbedder, OpenAIEndpoint, ScriptedModel
from safetychip.llm._base import canonical_json

MODES = ["auto", "record", "replay"]
QUESTION = "Where should the robot go?"
ANSWER = "walk to bathroom"


@pytest.fixture
def recorded(tmp_path):
    """A cache file holding the reply ANSWER to QUESTION, and one other entry."""
    path = tmp_path / "llm.sqlite"
    recorder = CachedModel(ScriptedModel([ANSWER, "open the fridge"]), path, mode="record")
    recorder.complete(QUESTION)
    recorder.complete("What next?")
    return path


def replayer(path, mode="replay"):
    return CachedModel(ScriptedModel(["a reply that was never recorded"] * 9), path, mode=mode)


def message_of(caught) -> str:
    return str(caught.value)


@pytest.mark.parametrize("mode", ["auto", "replay"])
def test_a_changed_byte_in_a_stored_reply_fails_its_checksum(recorded, mode):
    data = recorded.read_bytes()
    assert data.count(ANSWER.encode()) == 1
    recorded.write_bytes(data.replace(b"bathroom", b"bathroOm"))
    cached = replayer(recorded, mode)  # the file itself is sound
    with pytest.raises(CacheFileError) as caught:
        cached.complete(QUESTION)
    assert message_of(caught).startswith(f"cache file {recorded}: entry ")
    assert "fails its checksum: the stored reply changed after it was recorded" in str(caught.value)
    assert cached.complete("What next?").text == "open the fridge"  # other entries still serve


def test_replies_swapped_between_entries_fail_their_checksums(recorded):
    with sqlite3.connect(recorded) as db:
        rows = db.execute("SELECT key, completion, checksum FROM completions").fetchall()
        (key1, reply1, sum1), (key2, reply2, sum2) = rows
        db.execute(
            "UPDATE completions SET completion=?, checksum=? WHERE key=?", (reply2, sum2, key1)
        )
        db.execute(
            "UPDATE completions SET completion=?, checksum=? WHERE key=?", (reply1, sum1, key2)
        )
    for question in (QUESTION, "What next?"):
        with pytest.raises(CacheFileError, match="fails its checksum"):
            replayer(recorded).complete(question)


def test_a_stored_request_that_does_not_match_its_key(recorded):
    with sqlite3.connect(recorded) as db:
        db.execute("UPDATE completions SET request = replace(request, 'robot', 'robber')")
    with pytest.raises(CacheFileError) as caught:
        replayer(recorded).complete(QUESTION)
    assert message_of(caught).startswith(f"cache file {recorded}: entry ")
    assert "holds another request than the one its key was made from" in message_of(caught)


@pytest.mark.parametrize("mode", MODES)
def test_an_empty_file_is_not_a_new_cache(tmp_path, mode):
    path = tmp_path / "llm.sqlite"
    path.write_bytes(b"")
    with pytest.raises(CacheFileError) as caught:
        replayer(path, mode)
    assert message_of(caught) == (
        f"cache file {path} is empty (0 bytes), so it is not a safetychip reply cache: it was "
        "truncated or made by another program; delete it to start afresh, or restore it"
    )
    assert path.read_bytes() == b""  # left as it was


FOREIGN = {
    "users": "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)",
    "look-alike": "CREATE TABLE completions (id INTEGER PRIMARY KEY, text TEXT)",
    "empty": "",
}


@pytest.mark.parametrize("schema", FOREIGN.values(), ids=FOREIGN.keys())
@pytest.mark.parametrize("mode", MODES)
def test_a_foreign_sqlite_database_is_refused(tmp_path, mode, schema):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute(schema or "PRAGMA user_version = 7")  # a database with no table
    before = path.read_bytes()
    with pytest.raises(CacheFileError) as caught:
        replayer(path, mode)
    tables = schema.split()[2] if schema else "none"
    assert message_of(caught) == (
        f"cache file {path} is an SQLite database but not a safetychip reply cache (its "
        f"tables: {tables}); pass another path, or delete it to start afresh"
    )
    assert path.read_bytes() == before


def test_an_embedding_cache_is_not_a_reply_cache(tmp_path):
    path = tmp_path / "vectors.sqlite"
    OpenAIEmbedder("e", OpenAIEndpoint("http://127.0.0.1:9/v1"), cache_path=path)
    with pytest.raises(CacheFileError, match=r"not a safetychip reply cache \(its tables: emb"):
        replayer(path, "auto")


@pytest.fixture(scope="module")
def many_pages(tmp_path_factory) -> bytes:
    """The bytes of a cache file of 40 entries, some 50 pages."""
    path = tmp_path_factory.mktemp("cache") / "llm.sqlite"
    replies = [f"step {i}: " + "walk to bathroom " * 200 for i in range(40)]
    recorder = CachedModel(ScriptedModel(replies), path, mode="record")
    for i in range(40):
        recorder.complete(f"question {i}")
    return path.read_bytes()


@pytest.mark.parametrize("keep", [0.002, 0.25, 0.5, 0.999])
@pytest.mark.parametrize("mode", ["auto", "replay"])
def test_a_truncated_file_is_refused_when_opened(tmp_path, many_pages, mode, keep):
    path = tmp_path / "llm.sqlite"
    path.write_bytes(many_pages[: int(len(many_pages) * keep)])
    with pytest.raises(CacheFileError) as caught:
        replayer(path, mode)
    assert message_of(caught).startswith((f"cache file {path} ", f"cannot use cache file {path}:"))


@pytest.mark.parametrize("mode", MODES)
def test_a_file_of_another_format_is_refused(recorded, mode):
    with sqlite3.connect(recorded) as db:
        db.execute("PRAGMA user_version = 3")
    with pytest.raises(CacheFileError) as caught:
        replayer(recorded, mode)
    assert message_of(caught) == (
        f"cache file {recorded} is a safetychip reply cache of format 3, but this safetychip "
        "reads format 2; re-record it with mode='record' under another path"
    )


# --- files of the first format, without checksums ---------------------------------------------


def write_format_1(path, entries):
    """A cache file as safetychip wrote it before checksums: no stamp, three columns."""
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE IF NOT EXISTS completions "
            "(key TEXT PRIMARY KEY, request TEXT NOT NULL, completion TEXT NOT NULL)"
        )
        for question, answer in entries:
            request = canonical_json(
                {
                    "model": "scripted-stand-in",
                    "messages": [{"role": "user", "content": question}],
                    "temperature": 0.0,
                    "stop": [],
                    "max_tokens": None,
                }
            )
            reply = {
                "text": answer,
                "model": "scripted-stand-in",
                "usage": {"prompt_tokens": 0, "completion_tokens": 0},
                "stand_in": True,
            }
            key = hashlib.sha256(request.encode()).hexdigest()
            db.execute(
                "INSERT INTO completions VALUES (?, ?, ?)", (key, request, canonical_json(reply))
            )


def test_a_format_1_file_is_converted_when_opened_writable(tmp_path):
    path = tmp_path / "old.sqlite"
    write_format_1(path, [(QUESTION, ANSWER), ("What next?", "open the fridge")])
    with pytest.raises(CacheFileError) as caught:
        replayer(path)
    assert message_of(caught) == (
        f"cache file {path} was written by an earlier safetychip; open it once with "
        "mode='auto' to convert it in place (its entries are kept), or delete it and "
        "re-record with mode='record'"
    )
    replayer(path, "auto")
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (2,)
        assert db.execute("SELECT count(*) FROM completions").fetchone() == (2,)
    player = replayer(path)
    assert player.complete(QUESTION).text == ANSWER
    assert player.complete("What next?").text == "open the fridge"
    assert player.model.usage.calls == 0


def test_a_format_1_entry_whose_request_does_not_match_its_key(tmp_path):
    path = tmp_path / "old.sqlite"
    write_format_1(path, [(QUESTION, ANSWER)])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE completions SET request = replace(request, 'robot', 'robber')")
    with pytest.raises(CacheFileError, match="holds another request than the one its key"):
        replayer(path, "auto").complete(QUESTION)


# --- sharing one file -------------------------------------------------------------------------


def test_processes_creating_one_cache_at_once_all_succeed(tmp_path):
    path = tmp_path / "fresh" / "llm.sqlite"
    failures = []

    def worker(index):
        try:
            cached = CachedModel(ScriptedModel([f"reply {index}"]), path, mode="auto")
            cached.complete(f"question {index}")
        except Exception as exc:  # collected for the assertion below
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    player = replayer(path)
    assert [player.complete(f"question {i}").text for i in range(8)] == [
        f"reply {i}" for i in range(8)
    ]
    assert sorted(p.name for p in path.parent.iterdir()) == ["llm.sqlite"]


def test_a_recorded_entry_stores_request_and_checksum(recorded):
    with sqlite3.connect(recorded) as db:
        key, request, completion, checksum = db.execute(
            "SELECT key, request, completion, checksum FROM completions"
        ).fetchone()
        assert db.execute("PRAGMA application_id").fetchone() == (0x53434C4D,)
    assert key == hashlib.sha256(request.encode()).hexdigest()
    assert json.loads(request)["model"] == "scripted-stand-in"
    assert checksum == hashlib.sha256(f"{key}\n{completion}".encode()).hexdigest()
