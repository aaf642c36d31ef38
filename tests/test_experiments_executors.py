"""run_cells: local and Ray executors, resuming after a crash, error cells, ordering."""

from __future__ import annotations

import json
import os
import sys
import time
import types
import warnings

import pytest

from safetychip.errors import ExecutorStartError, MissingDependencyError
from safetychip.experiments import EXECUTORS, run_cells
from safetychip.experiments._executors import RAY_GCS_WAIT, RAY_START_ATTEMPTS

# -- cell functions (top level, so that they pickle) -----------------------------------------


def square(cell):
    if cell.get("fail"):
        raise RuntimeError(f"cell {cell['id']} was told to fail")
    return {"y": cell["x"] ** 2, "pid": os.getpid()}


def slow_square(cell):
    time.sleep(cell.get("sleep", 0))
    return {"y": cell["x"] ** 2, "pid": os.getpid()}


def not_a_dict(cell):
    return [cell["id"]]


def not_json(cell):
    return {"value": object()}


def counted(cell):
    counted.calls.append(cell["id"])
    return {"y": cell["x"] + 1}


counted.calls = []


def _tree(pid):
    import psutil

    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def network_report(cell):
    """Every inet socket of the driver's process tree (the Ray daemons and workers)."""
    import psutil

    sockets, dashboard_proxies = [], []
    for proc in _tree(cell["driver"]):
        try:
            conns = proc.net_connections(kind="inet")
            if any("dashboard.py" in part for part in proc.cmdline()):
                dashboard_proxies.append(proc.environ().get("http_proxy"))
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        for c in conns:
            sockets.append(
                [
                    proc.pid,
                    c.status,
                    c.laddr.ip if c.laddr else None,
                    c.raddr.ip if c.raddr else None,
                ]
            )
    return {
        "y": cell["x"] ** 2,
        "pid": os.getpid(),
        "sockets": sockets,
        "http_proxy": os.environ.get("http_proxy", ""),
        "dashboard_proxies": dashboard_proxies,
    }


def square_where(cell):
    """The square of ``x`` and the process that computed it."""
    return {"y": cell["x"] ** 2, "pid": os.getpid()}


def _loopback(ip):
    return ip is None or ip in ("127.0.0.1", "::1", "::ffff:127.0.0.1")


def _cells(n, **extra):
    return [{"id": f"c{i}", "x": i, **extra} for i in range(n)]


# -- local ----------------------------------------------------------------------------------


def test_local_runs_every_cell_in_order():
    cells = _cells(5)[::-1]
    results = run_cells(square, cells, progress=False)
    assert [r["id"] for r in results] == [c["id"] for c in cells]
    assert [r["y"] for r in results] == [c["x"] ** 2 for c in cells]
    assert {r["pid"] for r in results} == {os.getpid()}


def test_results_are_written_one_line_each(tmp_path):
    path = tmp_path / "sub" / "results.jsonl"
    results = run_cells(square, _cells(3), results_path=path, progress=False)
    lines = path.read_text().splitlines()
    assert [json.loads(line) for line in lines] == results
    assert path.read_text().endswith("\n")


def test_error_cells_are_recorded_and_the_sweep_goes_on(tmp_path):
    cells = _cells(4)
    cells[1]["fail"] = True
    path = tmp_path / "r.jsonl"
    results = run_cells(square, cells, results_path=path, progress=False)
    assert results[1] == {"id": "c1", "error": "RuntimeError: cell c1 was told to fail"}
    assert [r.get("y") for r in results] == [0, None, 4, 9]
    assert len(path.read_text().splitlines()) == 4


def test_results_that_are_not_json_dicts_become_errors():
    [bad_type] = run_cells(not_a_dict, _cells(1), progress=False)
    assert bad_type == {
        "id": "c0",
        "error": "TypeError: the cell function returned list, not a dict",
    }
    [bad_json] = run_cells(not_json, _cells(1), progress=False)
    assert bad_json["id"] == "c0"
    assert bad_json["error"].startswith("TypeError: the result is not JSON-able")


def test_results_come_back_as_json_reads_them():
    def tuples(cell):  # local functions are fine for the local executor
        return {"pair": (1, 2), "id": "ignored"}

    assert run_cells(tuples, [{"id": 7}], progress=False) == [{"id": 7, "pair": [1, 2]}]


def test_resume_skips_finished_cells(tmp_path):
    path = tmp_path / "r.jsonl"
    counted.calls.clear()
    run_cells(counted, _cells(3), results_path=path, progress=False)
    assert counted.calls == ["c0", "c1", "c2"]
    counted.calls.clear()
    results = run_cells(counted, _cells(5), results_path=path, progress=False)
    assert counted.calls == ["c3", "c4"]
    assert [r["y"] for r in results] == [1, 2, 3, 4, 5]
    assert len(path.read_text().splitlines()) == 5


def test_resume_after_a_crash_ignores_the_truncated_last_line(tmp_path):
    path = tmp_path / "r.jsonl"
    run_cells(square, _cells(3), results_path=path, progress=False)
    # A crash in the middle of writing the fourth line.
    with path.open("a") as fh:
        fh.write('{"id": "c3", "y": 9, "pi')
    counted.calls.clear()
    with pytest.warns(RuntimeWarning, match="truncated last line"):
        results = run_cells(counted, _cells(5), results_path=path, progress=False)
    assert counted.calls == ["c3", "c4"]
    assert [r["y"] for r in results] == [0, 1, 4, 4, 5]
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["id"] for r in records] == ["c0", "c1", "c2", "c3", "c4"]
    # The file is whole again: a third run has nothing to do and no warning.
    counted.calls.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = run_cells(counted, _cells(5), results_path=path, progress=False)
    assert counted.calls == [] and again == results


def test_resume_keeps_a_complete_last_line_without_its_newline(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": "c0", "y": 100}')
    counted.calls.clear()
    results = run_cells(counted, _cells(2), results_path=path, progress=False)
    assert counted.calls == ["c1"]
    assert [r["y"] for r in results] == [100, 2]
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == ["c0", "c1"]


def test_a_broken_line_before_the_last_is_an_error(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": "c0", "y": 0}\nnot json\n{"id": "c1", "y": 1}\n')
    with pytest.raises(ValueError, match=r"r.jsonl, line 2: not a JSON object with an 'id'"):
        run_cells(square, _cells(2), results_path=path, progress=False)


def test_error_results_in_the_file_are_not_retried(tmp_path):
    path = tmp_path / "r.jsonl"
    cells = _cells(2)
    cells[0]["fail"] = True
    run_cells(square, cells, results_path=path, progress=False)
    counted.calls.clear()
    results = run_cells(counted, _cells(2), results_path=path, progress=False)
    assert counted.calls == [] and "error" in results[0]


def test_bad_executor_and_bad_cells():
    with pytest.raises(
        ValueError, match=r"unknown executor 'dask'; choose one of local, processes, ray"
    ):
        run_cells(square, _cells(1), executor="dask")
    assert EXECUTORS == ("local", "processes", "ray")
    with pytest.raises(ValueError, match=r"cell 1 must be a dict with an 'id' key"):
        run_cells(square, [{"id": 1}, {"x": 2}])
    with pytest.raises(ValueError, match=r"cell ids must be unique; 'a' repeats \(cell 2\)"):
        run_cells(square, [{"id": "a"}, {"id": "b"}, {"id": "a"}])
    with pytest.raises(ValueError, match=r"cell 0: the id must be a str or an int"):
        run_cells(square, [{"id": 1.5}])
    with pytest.raises(ValueError, match=r"cell 'a' is not JSON-able"):
        run_cells(square, [{"id": "a", "x": object()}])


def test_no_cells():
    assert run_cells(square, [], progress=False) == []


def test_progress_bar_is_labelled(capsys):
    run_cells(square, _cells(2), desc="squares")
    assert "squares" in capsys.readouterr().err


def test_missing_ray_names_the_extra(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray" or name.startswith("ray."):
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(MissingDependencyError, match=r"pip install 'safetychip\[experiments\]'"):
        run_cells(square, _cells(1), executor="ray", progress=False)


# -- Ray ------------------------------------------------------------------------------------

_TIMED_OUT = (
    "The current node timed out during startup. This could happen because some of the raylet "
    "failed to startup or the GCS has become overloaded."
)


class _Ref:
    def __init__(self, value):
        self.value = value


class _FakeRay(types.ModuleType):
    """Just enough of Ray for run_cells: ``init`` fails as Ray does on a loaded machine for
    the first *failures* calls, then tasks run in this process."""

    def __init__(self, failures):
        super().__init__("ray")
        self.failures, self.inits, self.shutdowns, self.up = failures, [], 0, False
        self._private = types.ModuleType("ray._private")
        self._private.ray_constants = types.ModuleType("ray._private.ray_constants")

    def install(self, monkeypatch):
        monkeypatch.setitem(sys.modules, "ray", self)
        monkeypatch.setitem(sys.modules, "ray._private", self._private)
        monkeypatch.setitem(sys.modules, "ray._private.ray_constants", self._private.ray_constants)
        return self

    def is_initialized(self):
        return self.up

    def init(self, **options):
        self.inits.append(
            {"gcs_wait": os.environ.get("RAY_gcs_server_port_wait_time_s"), **options}
        )
        if len(self.inits) <= self.failures:
            raise Exception(_TIMED_OUT)
        self.up = True

    def shutdown(self):
        self.shutdowns += 1
        self.up = False

    def remote(self, **options):
        return lambda fn: types.SimpleNamespace(remote=lambda *args: _Ref(fn(*args)))

    def put(self, value):
        return value

    def wait(self, refs, num_returns):
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref):
        return ref.value


def test_ray_start_that_times_out_is_tried_again(monkeypatch):
    """Regression: on a loaded machine the first start of a local Ray runtime can time out;
    it is cleaned up and started again, with a generous wait for Ray's GCS server."""
    monkeypatch.delenv("RAY_gcs_server_port_wait_time_s", raising=False)
    ray = _FakeRay(failures=1).install(monkeypatch)
    results = run_cells(square, _cells(3), executor="ray", progress=False)
    assert [r["y"] for r in results] == [0, 1, 4]
    assert len(ray.inits) == 2 and ray.shutdowns == 2  # after the failed start, and at the end
    assert [i["gcs_wait"] for i in ray.inits] == [str(RAY_GCS_WAIT)] * 2 == ["120"] * 2
    assert all(i["_node_ip_address"] == "127.0.0.1" for i in ray.inits)
    assert "RAY_gcs_server_port_wait_time_s" not in os.environ  # restored


def test_ray_start_keeps_the_callers_gcs_wait_and_names_it(monkeypatch):
    monkeypatch.setenv("RAY_gcs_server_port_wait_time_s", "300")
    ray = _FakeRay(failures=2).install(monkeypatch)
    with pytest.raises(ExecutorStartError, match="up to 300 s for Ray's GCS server"):
        run_cells(square, _cells(1), executor="ray", progress=False)
    assert [i["gcs_wait"] for i in ray.inits] == ["300", "300"]


def test_ray_that_never_starts_raises_a_typed_error_naming_it(monkeypatch, tmp_path):
    ray = _FakeRay(failures=RAY_START_ATTEMPTS).install(monkeypatch)
    path = tmp_path / "results.jsonl"
    with pytest.raises(ExecutorStartError) as info:
        run_cells(square, _cells(2), executor="ray", results_path=path, progress=False)
    err = info.value
    assert isinstance(err, RuntimeError)
    assert (err.executor, err.attempts) == ("ray", RAY_START_ATTEMPTS) == ("ray", 2)
    message = str(err)
    assert message.startswith(
        "the 'ray' executor could not start a local Ray runtime on 127.0.0.1: 2 attempts failed"
    )
    assert "up to 120 s for Ray's GCS server and 30 s for its raylet" in message
    assert f"last error: Exception: {_TIMED_OUT}" in message
    assert "executor='local'" in message
    assert str(err.__cause__) == _TIMED_OUT
    assert len(ray.inits) == 2 and ray.shutdowns == 2
    assert path.read_text() == ""


def test_processes_run_the_cells_elsewhere_and_keep_order_errors_and_resume(tmp_path, monkeypatch):
    """The ``processes`` executor: one spawned process per core, results in cell order."""
    from safetychip.experiments import _executors

    monkeypatch.setattr(_executors, "_cores", lambda: 2)
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "c0", "y": 0, "resumed": true}\n')
    cells = _cells(5)
    cells[2]["x"] = "two"  # TypeError inside the cell function
    results = run_cells(
        square_where, cells[::-1], executor="processes", results_path=path, progress=False
    )
    assert [r["id"] for r in results] == ["c4", "c3", "c2", "c1", "c0"]
    assert [r.get("y") for r in results] == [16, 9, None, 1, 0]
    assert results[2]["error"].startswith("TypeError: unsupported operand type(s) for ** or pow()")
    ran = [r for r in results if "pid" in r]
    assert len(ran) == 3 and all(r["pid"] != os.getpid() for r in ran)
    assert len({r["pid"] for r in ran}) <= 2
    assert sorted(json.loads(line)["id"] for line in path.read_text().splitlines()) == [
        f"c{i}" for i in range(5)
    ]


def test_processes_on_one_core_run_here(monkeypatch):
    from safetychip.experiments import _executors

    monkeypatch.setattr(_executors, "_cores", lambda: 1)
    results = run_cells(square_where, _cells(2), executor="processes", progress=False)
    assert {r["pid"] for r in results} == {os.getpid()}


def test_ray_sweep_on_loopback(tmp_path):
    """One small sweep on a local Ray runtime: results, errors, order, resume, and every
    socket of Ray's processes on 127.0.0.1."""
    ray = pytest.importorskip("ray")
    pytest.importorskip("psutil")
    assert not ray.is_initialized()
    path = tmp_path / "ray.jsonl"
    # Two cells are already done (a resumed sweep); one fails; the rest report the sockets.
    path.write_text(
        '{"id": "c0", "y": 0, "resumed": true}\n{"id": "c1", "y": 1, "resumed": true}\n'
    )
    cells = _cells(6, driver=os.getpid())
    cells[3]["x"] = "three"  # TypeError inside the cell function
    results = run_cells(
        network_report, cells[::-1], executor="ray", results_path=path, progress=False
    )
    assert not ray.is_initialized()  # it started the runtime, so it shut it down
    assert [r["id"] for r in results] == ["c5", "c4", "c3", "c2", "c1", "c0"]
    assert [r.get("y") for r in results] == [25, 16, None, 4, 1, 0]
    assert results[2]["error"].startswith("TypeError: unsupported operand type(s) for ** or pow()")
    assert results[-1]["resumed"] and results[-2]["resumed"]
    ran = [r for r in results if "sockets" in r]
    assert len(ran) == 3 and all(r["pid"] != os.getpid() for r in ran)
    assert all(r["http_proxy"] == os.environ.get("http_proxy", "") for r in ran)
    sockets = [s for r in ran for s in r["sockets"]]
    assert sockets, "Ray's processes should hold some sockets"
    off_loopback = [s for s in sockets if not (_loopback(s[2]) and _loopback(s[3]))]
    assert off_loopback == []
    # Ray's dashboard probes cloud metadata services even with usage stats off: its HTTP
    # goes to a closed port on loopback instead.
    proxies = {p for r in ran for p in r["dashboard_proxies"]}
    assert proxies == {"http://127.0.0.1:9"}
    lines = path.read_text().splitlines()
    assert sorted(json.loads(line)["id"] for line in lines) == [f"c{i}" for i in range(6)]
    assert os.environ.get("RAY_USAGE_STATS_ENABLED") == "0"
