"""A damaged memory never reads as an empty or a different one, and a read-only command
never creates, migrates or rewrites the memory file (issue 45, class 1)."""

from __future__ import annotations

import random
import sqlite3

import numpy as np
import pytest

from safetychip.cli import main
from safetychip.errors import MemoryStoreError
from safetychip.memory import Episode, EpisodicMemory, Rule, SceneGraph, SQLiteStore, WordEmbedder
from safetychip.memory._store import _digest

VASE = SceneGraph.of({"vase": ["fragile"], "table": []}, [("vase", "ON", "table")])


def _filled(path):
    with EpisodicMemory(path, embedder=WordEmbedder()) as memory:
        for i in range(12):
            memory.add(Episode(f"push the vase number {i} off the table", VASE, time=float(i)))
        memory.add_rule(Rule("grasp", "sharp", "cut", 0.5))
        memory.store.set_interactions(3)
    return path


def _content(path):
    with EpisodicMemory(path, embedder=WordEmbedder()) as memory:
        return (memory.episodes, [v.tobytes() for v in memory._rows], memory.rules,
                memory.interactions)  # fmt: skip


def _files(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("readonly", [False, True])
def test_an_empty_file_is_refused_and_left_empty(tmp_path, readonly):
    path = tmp_path / "memory.db"
    path.touch()
    with pytest.raises(MemoryStoreError, match=r"is empty \(0 bytes\), not a memory"):
        SQLiteStore(path, readonly=readonly)
    assert path.read_bytes() == b"" and _files(tmp_path) == ["memory.db"]


@pytest.mark.parametrize("action", [["check", "push the vase"], ["consolidate"],
                                    ["add", "push the vase", "--harm", "breakage"]])  # fmt: skip
def test_the_cli_refuses_an_empty_memory_file(tmp_path, capsys, action):
    path = tmp_path / "memory.db"
    path.touch()
    assert main(["memory", *action, "--db", str(path)]) == 2
    assert "is empty (0 bytes)" in capsys.readouterr().err
    assert path.read_bytes() == b""


def test_a_read_only_store_never_creates_a_file(tmp_path):
    with pytest.raises(MemoryStoreError, match="does not exist"):
        SQLiteStore(tmp_path / "missing.db", readonly=True)
    assert _files(tmp_path) == []


def test_memory_check_leaves_the_file_byte_identical(tmp_path, capsys):
    path = _filled(tmp_path / "memory.db")
    before = path.read_bytes()
    assert main(["memory", "check", "push the vase number 3 off the table", "--db", str(path)]) == 0
    assert '"blocked": true' in capsys.readouterr().out
    assert path.read_bytes() == before


def _format_2(path):
    """Turn *path* into a file of the format before checksums."""
    db = sqlite3.connect(path)
    for table in ("meta", "episodes", "rules", "negatives"):
        db.execute(f"ALTER TABLE {table} DROP COLUMN checksum")
    db.execute("UPDATE meta SET value = 'safetychip-memory 2' WHERE key = 'format'")
    db.commit()
    db.close()


def test_a_format_2_file_is_read_only_migrated_in_memory_and_for_writing_in_place(tmp_path):
    path = _filled(tmp_path / "memory.db")
    content = _content(path)
    _format_2(path)
    before = path.read_bytes()
    store = SQLiteStore(path, readonly=True)
    with EpisodicMemory(store, embedder=WordEmbedder()) as memory:
        assert memory.episodes == content[0] and memory.rules == content[2]
        assert memory.check("push the vase number 3 off the table", VASE).blocked
    assert path.read_bytes() == before
    assert _content(path) == content  # opened for writing: migrated in place
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == (
        "safetychip-memory 4",
    )
    assert db.execute("SELECT count(*) FROM episodes WHERE checksum = ''").fetchone() == (0,)
    db.close()


@pytest.mark.parametrize("keep", [0.5, 0.9, 0.99])
def test_a_file_cut_short_is_refused(tmp_path, keep):
    path = _filled(tmp_path / "memory.db")
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    cut = path.read_bytes()
    with pytest.raises(MemoryStoreError, match="is cut short"):
        EpisodicMemory(path, embedder=WordEmbedder())
    assert path.read_bytes() == cut


def test_a_file_cut_at_a_page_boundary_is_refused(tmp_path):
    path = _filled(tmp_path / "memory.db")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 4096])
    with pytest.raises(MemoryStoreError, match="is cut short"):
        EpisodicMemory(
            path,
            embedder=WordEmbedder(),
        )


def test_no_bit_flip_opens_as_a_different_memory(tmp_path):
    original = _filled(tmp_path / "memory.db")
    data = original.read_bytes()
    content = _content(original)
    rng = random.Random(45)
    # Flips everywhere, and as many again in the rows' bytes (the end of the file).
    positions = [rng.randrange(len(data)) for _ in range(40)]
    positions += [rng.randrange(len(data) - 8192, len(data)) for _ in range(40)]
    silent = []
    for n, position in enumerate(positions):
        path = tmp_path / f"flip{n}.db"
        flipped = bytearray(data)
        flipped[position] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(flipped))
        try:
            opened = _content(path)
        except MemoryStoreError:
            continue
        if opened != content:
            silent.append(position)
    assert silent == []


def _spoil_vector(path, vector):
    db = sqlite3.connect(path)
    blob = np.asarray(vector, "<f4").tobytes()
    row = db.execute("SELECT id, data, model FROM episodes WHERE id = 2").fetchone()
    db.execute("UPDATE episodes SET vector = ?, checksum = ? WHERE id = 2",
               (blob, _digest("episodes", (*row, blob))))  # fmt: skip
    db.commit()
    db.close()


@pytest.mark.parametrize(
    ("vector", "message"),
    [(np.full(256, np.nan), "has a damaged vector in episode row 2"),
     (np.zeros(256), "has a damaged vector in episode row 2"),
     (np.full(256, np.inf), "has a damaged vector in episode row 2"),
     (np.ones(128), "has vectors of 256 and 128 numbers")],
)  # fmt: skip
def test_a_stored_vector_that_cannot_be_right_is_refused(tmp_path, vector, message):
    path = _filled(tmp_path / "memory.db")
    _spoil_vector(path, vector)
    with pytest.raises(MemoryStoreError, match=message):
        EpisodicMemory(path, embedder=WordEmbedder())


class Narrow(WordEmbedder):
    """An embedder of the same name as WordEmbedder() but shorter vectors."""

    def __init__(self) -> None:
        super().__init__(64)
        self.name = "words-256"


def test_vectors_of_another_length_than_the_embedders_are_an_error(tmp_path):
    path = _filled(tmp_path / "memory.db")
    with EpisodicMemory(path, embedder=Narrow()) as memory:
        with pytest.raises(MemoryStoreError, match="holds vectors of 256 numbers, but"):
            memory.check("push the vase")
        with pytest.raises(MemoryStoreError, match="holds vectors of 256 numbers, but"):
            memory.add(Episode("push the cup"))
    assert len(_content(path)[0]) == 12


@pytest.mark.parametrize("vector", [np.full(8, np.nan), np.zeros(8), np.ones((2, 4))])
def test_a_vector_that_cannot_be_right_is_never_stored(vector):
    store = SQLiteStore(":memory:")
    with pytest.raises(ValueError, match="must be one row of finite numbers, not all zero"):
        store.add_episode(Episode("push the vase"), vector, "test")
    assert store.load_episodes() == ([], [], [])


def test_memory_add_refused_leaves_no_new_file(tmp_path):
    path = tmp_path / "memory.db"
    assert main(["memory", "add", "push the vase", "--harm", "nope", "--db", str(path)]) == 2
    assert main(["memory", "add", "!!!", "--harm", "breakage", "--db", str(path)]) == 2
    assert _files(tmp_path) == []
