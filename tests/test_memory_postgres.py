"""The memory in a real PostgreSQL server: a throw-away cluster on 127.0.0.1 (GUIDE §7).

Round trip, two writer processes at once, the server stopped mid-run and restarted (a clear
error naming it, nothing lost after the retry), and a foreign or broken schema refused. If
PostgreSQL is not installed these tests fail, saying how to install it: CI must run them.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import uuid

import psycopg
import pytest

from safetychip.errors import MemoryStoreError
from safetychip.memory import (
    Episode,
    EpisodicMemory,
    PostgresStore,
    Rule,
    SceneGraph,
    WordEmbedder,
    open_store,
)

VASE = SceneGraph.of({"vase": ["fragile"], "table": []}, [("vase", "ON", "table")])
INSTALL = (
    "PostgreSQL is not installed, and the PostgreSQL memory tests need its server: "
    "`apt-get install -y postgresql` (Debian/Ubuntu; .ci/run does it) or put initdb and "
    "pg_ctl on PATH"
)


def _bin() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    initdb = found[-1] if found else shutil.which("initdb")
    if initdb is None or shutil.which("pg_ctl", path=os.path.dirname(initdb)) is None:
        pytest.fail(INSTALL)
    return os.path.dirname(initdb)


class Cluster:
    """A throw-away PostgreSQL cluster (trust authentication, loopback only)."""

    def __init__(self) -> None:
        self.bin, self.port = _bin(), _free_port()
        self.root = tempfile.mkdtemp(prefix="safetychip-pg-")
        self.data = os.path.join(self.root, "data")
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # initdb refuses root: run the server as postgres
            shutil.chown(self.root, "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync")

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run([*self.as_user, os.path.join(self.bin, tool), *args],
                              capture_output=True, text=True, timeout=180)  # fmt: skip
        assert done.returncode == 0, f"{tool} {' '.join(args)} failed:\n{done.stderr}"

    def start(self) -> None:
        options = f"-k {self.root} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", self.data, "-o", options, "-l",
                  os.path.join(self.root, "log"), "-w", "-t", "120", "start")  # fmt: skip

    def stop(self) -> None:
        self._run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "-t", "120", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres:s3cret@127.0.0.1:{self.port}/{database}"

    def database(self) -> str:
        """A new empty database's URL."""
        name = f"memory_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def cluster():
    server = Cluster()
    try:
        server.start()
        yield server
    finally:
        subprocess.run([*server.as_user, os.path.join(server.bin, "pg_ctl"), "-D", server.data,
                        "-m", "immediate", "-w", "stop"], capture_output=True)  # fmt: skip
        shutil.rmtree(server.root, ignore_errors=True)


@pytest.fixture
def url(cluster):
    return cluster.database()


def test_round_trip_through_the_server(url):
    with EpisodicMemory(url, embedder=WordEmbedder()) as memory:
        assert isinstance(memory.store, PostgresStore)
        episode = memory.add(Episode("push the vase", VASE, "breakage", 3.0, "person"))
        rule = memory.add_rule(Rule("grasp", "sharp", "cut", 0.5))
        memory.record("walk to the kitchen")
        decision = memory.check("push the vase", VASE)
        assert memory.override(decision, VASE)[0].confidence == pytest.approx(0.56)
    with EpisodicMemory(url, embedder=WordEmbedder()) as memory:
        assert [(e.id, e.harm) for e in memory.episodes] == [
            (episode.id, "breakage"), ("e2", None), ("e3", None)]  # fmt: skip
        assert memory.episodes[0].confidence == pytest.approx(0.56)
        assert memory.rules == (rule,) and memory.interactions == 1
        assert memory.negatives(episode.id) == [("push the vase", VASE)]
        again = memory.check("push the vase", VASE)  # the override is a harmless episode
        assert not again.blocked and again.harmless.id == "e3"
    assert repr(open_store(url)).startswith("PostgresStore('postgresql://127.0.0.1:")


WRITER = textwrap.dedent("""
    import sys, time
    from safetychip.memory import Episode, EpisodicMemory, WordEmbedder
    url, name, start = sys.argv[1], sys.argv[2], float(sys.argv[3])
    time.sleep(max(start - time.time(), 0))
    with EpisodicMemory(url, embedder=WordEmbedder()) as memory:
        for i in range(40):
            memory.add(Episode(f"{name} pushes vase {i}"))
""")


def test_two_writer_processes_at_once_lose_nothing(url):
    import time

    start = str(time.time() + 3)  # both open the empty database, then write, together
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, url, name, start], stderr=subprocess.PIPE, text=True
        )  # fmt: skip
        for name in ("alpha", "beta")
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=180)
        assert writer.returncode == 0, err
    with EpisodicMemory(url, embedder=WordEmbedder()) as memory:
        commands = {e.command for e in memory.episodes}
        ids = [e.id for e in memory.episodes]
    assert commands == {f"{n} pushes vase {i}" for n in ("alpha", "beta") for i in range(40)}
    assert len(ids) == len(set(ids)) == 80


def test_a_server_gone_mid_run_is_a_clear_error_and_the_retry_loses_nothing(cluster, url):
    memory = EpisodicMemory(url, embedder=WordEmbedder())
    first = memory.add(Episode("push the vase", VASE))
    cluster.stop()
    try:
        with pytest.raises(MemoryStoreError) as caught:
            memory.add(Episode("knock the bowl off the table"))
        with pytest.raises(MemoryStoreError):
            memory.record("push the bowl", harm="breakage")
    finally:
        cluster.start()
    message = str(caught.value)
    assert f"memory database 'postgresql://127.0.0.1:{cluster.port}/" in message
    assert "retry it once the server is back" in message and "s3cret" not in message
    assert memory.episodes == (first,) and memory.interactions == 0  # the memory rolled back
    second = memory.add(Episode("knock the bowl off the table"))  # the caller's retry
    memory.record("push the bowl", harm="breakage")
    memory.close()
    with EpisodicMemory(url, embedder=WordEmbedder()) as reopened:
        assert [e.command for e in reopened.episodes] == [
            "push the vase", "knock the bowl off the table", "push the bowl"]  # fmt: skip
        assert reopened.episodes[1] == second and reopened.interactions == 1


def _foreign(db):
    db.execute("CREATE TABLE episodes (title TEXT)")


def _other_format(db):
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('format', 'someone else 7')")


def _missing_table(db):
    PostgresStore(db.info.dsn).close()
    db.execute("DROP TABLE negatives")


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (_foreign, "has tables episodes that are not a 'safetychip-memory 4' memory"),
        (_other_format, "has tables meta that are not a 'safetychip-memory 4' memory"),
        (_missing_table, r"are not a 'safetychip-memory 4' memory \(it lacks negatives\)"),
    ],
)
def test_a_foreign_or_broken_schema_is_refused_and_left_alone(url, spoil, message):
    with psycopg.connect(url, autocommit=True) as db:
        spoil(db)
        before = sorted(r[0] for r in db.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"))  # fmt: skip
    with pytest.raises(MemoryStoreError, match=message) as caught:
        EpisodicMemory(url, embedder=WordEmbedder())
    assert "pass another database" in str(caught.value) and "s3cret" not in str(caught.value)
    with psycopg.connect(url, autocommit=True) as db:
        after = sorted(r[0] for r in db.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"))  # fmt: skip
    assert after == before


def test_an_unreachable_server_names_it_without_the_password(cluster):
    url = f"postgresql://postgres:s3cret@127.0.0.1:{_free_port()}/fleet"
    with pytest.raises(
        MemoryStoreError, match=r"'postgresql://127.0.0.1:\d+/fleet' is unreachable"
    ) as caught:
        PostgresStore(url, connect_timeout=5)
    assert "s3cret" not in str(caught.value)
