"""Backups that work: `memory backup` copies what a running writer's -wal file holds, a closed
memory file holds everything by itself, and a backup never overwrites a file that is not a
memory (issue 45, class 2)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from safetychip.cli import main
from safetychip.memory import Episode, EpisodicMemory, SceneGraph, SQLiteStore, WordEmbedder

VASE = SceneGraph.of({"vase": ["fragile"], "table": []}, [("vase", "ON", "table")])

WRITER = textwrap.dedent(
    """
    import sys, time
    from safetychip.memory import Episode, EpisodicMemory, WordEmbedder

    memory = EpisodicMemory(sys.argv[1], embedder=WordEmbedder())
    for k in range(int(sys.argv[2])):
        memory.add(Episode(f"push vase number {k}"))
    print("added", flush=True)
    time.sleep(60)  # still running: its episodes are in memory.db-wal
    """
)


def _episodes(path):
    store = SQLiteStore(path, readonly=True)
    try:
        return len(store.load_episodes()[0])
    finally:
        store.close()


def test_a_backup_holds_every_episode_of_a_running_writer(tmp_path, capsys):
    db, out = tmp_path / "memory.db", tmp_path / "backup.db"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db), "200"],
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "added\n"
        assert main(["memory", "backup", str(out), "--db", str(db)]) == 0
        assert '"episodes": 200' in capsys.readouterr().out
    finally:
        writer.kill()
        writer.wait()
    assert _episodes(out) == 200
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("backup")) == [
        "backup.db"
    ]


def test_a_closed_memory_file_holds_everything_by_itself(tmp_path):
    db = tmp_path / "memory.db"
    with EpisodicMemory(db, embedder=WordEmbedder()) as memory:
        memory.add(Episode("push the vase"))
    reader = sqlite3.connect(db)  # another process's idle connection keeps the -wal alive
    try:
        with EpisodicMemory(db, embedder=WordEmbedder()) as memory:
            for k in range(50):
                memory.add(Episode(f"push vase number {k}", VASE))
        alone = tmp_path / "alone" / "memory.db"
        alone.parent.mkdir()
        shutil.copy(db, alone)  # the file only, without its -wal
        assert _episodes(alone) == 51
    finally:
        reader.close()


def test_a_backup_replaces_an_earlier_backup(tmp_path):
    db, out = tmp_path / "memory.db", tmp_path / "backup.db"
    with EpisodicMemory(db, embedder=WordEmbedder()) as memory:
        memory.add(Episode("push the vase"))
    assert main(["memory", "backup", str(out), "--db", str(db)]) == 0
    with EpisodicMemory(db, embedder=WordEmbedder()) as memory:
        memory.add(Episode("push the cup"))
    assert main(["memory", "backup", str(out), "--db", str(db)]) == 0
    assert _episodes(out) == 2


@pytest.mark.parametrize("kind", ["itself", "notes", "empty"])
def test_a_backup_never_overwrites_the_memory_or_another_file(tmp_path, capsys, kind):
    db = tmp_path / "memory.db"
    with EpisodicMemory(db, embedder=WordEmbedder()) as memory:
        memory.add(Episode("push the vase"))
    out = {"itself": db, "notes": tmp_path / "notes.txt", "empty": tmp_path / "x.db"}[kind]
    if kind == "notes":
        out.write_text("my notes")
    elif kind == "empty":
        out.touch()
    before = out.read_bytes()
    assert main(["memory", "backup", str(out), "--db", str(db)]) == 2
    assert "pass" in capsys.readouterr().err
    assert out.read_bytes() == before


def test_backup_is_read_only(tmp_path):
    db = tmp_path / "memory.db"
    with EpisodicMemory(db, embedder=WordEmbedder()) as memory:
        memory.add(Episode("push the vase"))
    before = db.read_bytes()
    assert main(["memory", "backup", str(tmp_path / "b.db"), "--db", str(db)]) == 0
    assert db.read_bytes() == before


@pytest.fixture(scope="module")
def postgres():
    """A throw-away PostgreSQL server; ``postgres()`` is a new empty database's URL."""
    pytest.importorskip("psycopg")
    from test_memory_postgres import Cluster

    server = Cluster()
    server.start()
    try:
        yield server.database
    finally:
        server.stop()
        shutil.rmtree(server.root, ignore_errors=True)


def test_a_postgresql_memory_backs_up_to_a_memory_file(tmp_path, capsys, postgres):
    url, out = postgres(), tmp_path / "backup.db"
    with EpisodicMemory(url, embedder=WordEmbedder()) as memory:
        memory.add(Episode("push the vase", VASE))
        memory.record("walk to the kitchen")
        state = (memory.episodes, memory.rules, memory.interactions)
    assert main(["memory", "backup", str(out), "--db", url]) == 0
    assert "s3cret" not in capsys.readouterr().out
    with EpisodicMemory(SQLiteStore(out, readonly=True), embedder=WordEmbedder()) as copy:
        assert (copy.episodes, copy.rules, copy.interactions) == state
        assert copy.check("push the vase", VASE).blocked


def _two(db, **config):
    from safetychip.memory import MemoryConfig

    def open_one():
        return EpisodicMemory(db, embedder=WordEmbedder(), config=MemoryConfig(**config))

    return open_one(), open_one()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_an_out_of_date_copy_keeps_another_process_change_to_a_rule(tmp_path, request, backend):
    from safetychip.memory import Rule

    db = tmp_path / "memory.db" if backend == "sqlite" else request.getfixturevalue("postgres")()
    with EpisodicMemory(db, embedder=WordEmbedder()) as memory:
        memory.add_rule(Rule("push", "vase", confidence=1.0))
    a, b = _two(db, split_after=5, override_factor=0.5)  # b's copy: θ = 1.0
    try:
        a.override(a.check("push the vase", VASE), VASE)  # θ 1.0 → 0.5
        b.override(b.check("push the vase", VASE), VASE)  # of the stored 0.5 → 0.25
    finally:
        a.close()
        b.close()
    with EpisodicMemory(db, embedder=WordEmbedder()) as memory:
        assert [r.confidence for r in memory.rules] == [0.25]


def test_an_out_of_date_copy_keeps_another_process_archiving_an_episode(tmp_path):
    db = tmp_path / "memory.db"
    with EpisodicMemory(db, embedder=WordEmbedder()) as memory:
        for surface in ("table", "shelf", "desk"):
            memory.add(Episode(f"push the vase off the {surface}", VASE))
    a, b = _two(db, split_after=1, min_cluster=2)
    try:
        decision = a.check("push the vase off the table", VASE)
        a.override(decision, VASE)  # the episode that blocked is archived
        assert b.consolidate()  # b's copy still has it live: it sets its rule
    finally:
        a.close()
        b.close()
    with EpisodicMemory(db, embedder=WordEmbedder()) as memory:
        episode = next(e for e in memory.episodes if e.id == decision.matched.id)
        assert episode.archived and episode.rule


def test_memory_check_never_creates_a_postgresql_memory(postgres, capsys):
    import psycopg

    url = postgres()
    assert main(["memory", "check", "push the vase", "--db", url]) == 2
    assert "holds no safetychip memory" in capsys.readouterr().err
    with psycopg.connect(url) as db:
        tables = db.execute("SELECT table_name FROM information_schema.tables "
                            "WHERE table_schema = current_schema()").fetchall()  # fmt: skip
    assert tables == []
    with EpisodicMemory(url, embedder=WordEmbedder()) as memory:
        memory.add(Episode("push the vase", VASE))
    assert main(["memory", "check", "push the vase", "--db", url]) == 0
    assert '"blocked": true' in capsys.readouterr().out
