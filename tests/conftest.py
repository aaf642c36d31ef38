"""Shared fixtures: the monitor's offline verdict (core tests) and raw test servers (llm)."""

from __future__ import annotations

import pytest

from safetychip.monitor import Monitor


def offline_holds(monitor: Monitor, trace) -> bool:
    """The monitor's offline verdict on *trace* (sets of true atoms, over any atoms: those the
    monitor does not know are left out, as it refuses them): whether ``evaluate``'s final
    verdict is SAFE (an aborting specification ends with its ABORT verdict, which is not SAFE)."""
    return monitor.evaluate([set(s) & set(monitor.atoms) for s in trace])[-1].safe


@pytest.fixture(scope="session")
def monitor_holds():
    """``offline_holds`` as a fixture (session-scoped, so Hypothesis tests may use it)."""
    return offline_holds


@pytest.fixture
def serve():
    """``serve(answer)`` starts a raw test server on 127.0.0.1 (``_llm_servers.RawServer``);
    every server is stopped when the test ends."""
    from _llm_servers import RawServer

    servers = []

    def start(answer):
        servers.append(RawServer(answer))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()
