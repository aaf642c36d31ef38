"""The memory's SQLite file: episodes survive reopening with their vectors, a writer killed
mid-write leaves only whole episodes, and a corrupt or foreign file is a MemoryStoreError
naming the file (which is left as it was)."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from safetychip.errors import MemoryStoreError
from safetychip.memory import Episode, EpisodicMemory, Rule, SceneGraph, SQLiteStore, WordEmbedder

VASE = SceneGraph.of({"vase": ["fragile"], "table": []}, [("vase", "ON", "table")])


class CountingEmbedder(WordEmbedder):
    def __init__(self, dim: int = 256) -> None:
        super().__init__(dim)
        self.encoded: list[str] = []

    def _embed(self, texts):
        self.encoded.extend(texts)
        return super()._embed(texts)


def test_episodes_and_rules_survive_reopening_without_reencoding(tmp_path):
    path = tmp_path / "memory.db"
    with EpisodicMemory(path, embedder=WordEmbedder()) as memory:
        episode = memory.add(Episode("push the vase", VASE, "breakage", 3.0, "person"))
        rule = memory.add_rule(Rule("grasp", "sharp", "cut", 0.5))
    embedder = CountingEmbedder()
    with EpisodicMemory(path, embedder=embedder) as memory:
        assert memory.episodes == (episode,) and memory.rules == (rule,)
        assert memory.check("push the vase", VASE).blocked
        assert embedder.encoded == ["push the vase"]  # the command only, not the episode
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    db.close()


def test_a_file_of_another_embedding_model_is_refused(tmp_path):
    path = tmp_path / "memory.db"
    with EpisodicMemory(path, embedder=WordEmbedder(64)) as memory:
        memory.add(Episode("push the vase"))
    with pytest.raises(MemoryStoreError, match="holds vectors of words-64, not of words-256"):
        EpisodicMemory(path, embedder=WordEmbedder(256))


def _corrupt(path):
    path.write_bytes(b"\x00garbage, not a database" * 100)


def _foreign(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.commit()
    db.close()


def _truncated(path):
    with EpisodicMemory(path, embedder=WordEmbedder()) as memory:
        for i in range(200):
            memory.add(Episode(f"push vase number {i}", VASE))
    data = path.read_bytes()
    path.write_bytes(data[:100] + b"\xff" * (len(data) - 100))


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (_corrupt, "is not an SQLite database: pass a new path or a memory file"),
        (_foreign, "is an SQLite database but not a 'safetychip-memory 4' file"),
        (_truncated, "is corrupt"),
    ],
)
def test_a_corrupt_or_foreign_file_is_reported_and_never_replaced(tmp_path, spoil, message):
    path = tmp_path / "memory.db"
    spoil(path)
    before = path.read_bytes()
    with pytest.raises(MemoryStoreError, match=message) as caught:
        EpisodicMemory(path, embedder=WordEmbedder())
    assert caught.value.path == str(path) and str(path) in str(caught.value)
    assert path.read_bytes() == before


WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from safetychip.memory import Episode, SceneGraph, SQLiteStore

    store = SQLiteStore(sys.argv[1])
    print("ready", flush=True)
    k = int(sys.argv[2])
    while True:
        scene = SceneGraph.of({f"object{j}": ["fragile"] * (j % 2) for j in range(k % 40 + 1)})
        episode = Episode(f"push object {k}", scene, "breakage", float(k))
        store.add_episode(episode, np.full(384, k + 1, np.float32), "test")
        k += 1
    """
)


def test_a_writer_killed_mid_write_leaves_only_whole_episodes(tmp_path):
    path = tmp_path / "memory.db"
    rng = random.Random(7)
    start = 0
    for _ in range(4):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(start)],
                                  stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.2, 0.6))
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        assert writer.returncode == -signal.SIGKILL
        store = SQLiteStore(path)
        episodes, models, vectors = store.load_episodes()
        store.close()
        assert len(episodes) > start
        for episode, model, vector in zip(episodes, models, vectors, strict=True):
            k = int(episode.time)
            assert episode.command == f"push object {k}" and model == "test"
            assert len(episode.scene.objects) == k % 40 + 1
            assert vector.shape == (384,) and np.all(vector == k + 1)
        assert [int(e.time) for e in episodes] == list(range(len(episodes)))
        start = len(episodes)
