"""Run a sweep of independent cells, locally or on Ray, resumably.

A *cell* is a JSON-able dict with a unique ``"id"``; a *cell function* is a picklable
top-level function that takes one cell and returns a JSON-able dict. :func:`run_cells` runs
the function on every cell and appends each result to a JSON-lines file as soon as it is
known, so a sweep that crashes can be restarted and only the missing cells run again.

Executors
---------
``"local"``
    In this process, one cell after another, with a ``tqdm.auto`` progress bar.
``"processes"``
    On a pool of new processes, one per core this process may use (no more than there are
    cells), each started afresh (``spawn``), so a cell function's module-level caches are
    built once per process. One core, or one cell, runs locally.
``"ray"``
    On Ray (the ``experiments`` extra: ``pip install 'safetychip[experiments]'``). If Ray is
    not initialised yet, a local runtime is started on loopback only
    (``_node_ip_address="127.0.0.1"``, no dashboard, ``RAY_USAGE_STATS_ENABLED=0``) and shut
    down afterwards. Starting one takes 10-16 s, longer on a loaded machine: its GCS server
    gets :data:`RAY_GCS_WAIT` seconds to start (Ray's own default is 30 s; Ray's wait for
    its raylet is a fixed 30 s), and a failed start is cleaned up and tried again, up to
    :data:`RAY_START_ATTEMPTS` times in all, before :class:`~safetychip.errors.ExecutorStartError`
    says what did not start. To use a cluster, call ``ray.init(address=...)`` first: an
    existing runtime is used as it is and left running.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .._io import read_json
from ..errors import ExecutorStartError, MissingDependencyError, OutputFileError

__all__ = ["EXECUTORS", "run_cells"]

#: The executors :func:`run_cells` accepts.
EXECUTORS = ("local", "processes", "ray")

#: Seconds a local Ray runtime's GCS server may take to start (``RAY_gcs_server_port_wait_time_s``
#: unless the caller set it; Ray's default, 30 s, is too short on a loaded machine).
RAY_GCS_WAIT = 120

#: Starts of a local Ray runtime tried before giving up: a start that timed out under load
#: usually succeeds the second time.
RAY_START_ATTEMPTS = 2

CellFunction = Callable[[dict[str, Any]], dict[str, Any]]


def run_cells(
    fn: CellFunction,
    cells: Iterable[Mapping[str, Any]],
    *,
    executor: str = "local",
    results_path: str | os.PathLike[str] | None = None,
    progress: bool = True,
    desc: str | None = None,
) -> list[dict[str, Any]]:
    """Run *fn* on every cell; return the results in the order of *cells*.

    Parameters
    ----------
    fn : callable
        A picklable top-level function taking one cell and returning a JSON-able dict. An
        exception inside it becomes the result ``{"id": ..., "error": "<type>: <message>"}``
        and the sweep goes on; so does a result that is not a JSON-able dict.
    cells : iterable of dict
        JSON-able dicts, each with an ``"id"`` (str or int) unique among them.
    executor : {"local", "processes", "ray"}, optional
        Where to run the cells (see the module notes).
    results_path : str or path, optional
        A JSON-lines file. Results already in it (by ``"id"``) are not computed again, error
        results included (delete their lines to retry them); new results are appended, one
        whole line each, flushed as soon as its cell finishes. A truncated last line (a crash
        in the middle of a write) is dropped from the file with a warning.
    progress : bool, optional
        Show a ``tqdm.auto`` progress bar.
    desc : str, optional
        The bar's label.

    Returns
    -------
    list of dict
        One result per cell, in the order of *cells*. Each has the cell's ``"id"``; results
        are returned as read back from JSON (tuples become lists), resumed or not.

    Raises
    ------
    ValueError
        If *executor* is unknown, a cell is not a dict with an ``"id"``, ids repeat, a cell
        is not JSON-able, or a line of *results_path* other than the last is not a JSON
        object with an ``"id"``.
    MissingDependencyError
        If the ``"ray"`` executor is asked for and Ray is not installed.
    ExecutorStartError
        If a local Ray runtime did not start in :data:`RAY_START_ATTEMPTS` attempts.

    Examples
    --------
    >>> from safetychip.experiments import run_cells
    >>> run_cells(_example_square, [{"id": "a", "x": 3}, {"id": "b", "x": "?"}],
    ...           progress=False)
    [{'id': 'a', 'y': 9}, {'id': 'b', 'error': "TypeError: unsupported operand type(s) for \
** or pow(): 'str' and 'int'"}]
    """
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}; choose one of {', '.join(EXECUTORS)}")
    cells = _check_cells(cells)
    path = Path(results_path) if results_path is not None else None
    results = _load_results(path) if path is not None else {}
    pending = [c for c in cells if c["id"] not in results]
    sink = _Sink(path)
    try:
        if pending:
            runner = {"local": _run_local, "processes": _run_processes, "ray": _run_ray}[executor]
            bar = _bar(len(cells), len(cells) - len(pending), progress, desc)
            try:
                for record in runner(fn, pending):
                    record = sink.write(record)
                    results[record["id"]] = record
                    bar.update(1)
            finally:
                bar.close()
    finally:
        sink.close()
    return [results[c["id"]] for c in cells]


# -- cells and results ----------------------------------------------------------------------


def _check_cells(cells: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    seen: set[Any] = set()
    for k, cell in enumerate(cells):
        if not isinstance(cell, Mapping) or "id" not in cell:
            raise ValueError(f"cell {k} must be a dict with an 'id' key, got {cell!r}")
        cid = cell["id"]
        if isinstance(cid, bool) or not isinstance(cid, (str, int)):
            raise ValueError(f"cell {k}: the id must be a str or an int, got {cid!r}")
        if cid in seen:
            raise ValueError(f"cell ids must be unique; {cid!r} repeats (cell {k})")
        seen.add(cid)
        try:
            json.dumps(dict(cell))
        except (TypeError, ValueError) as err:
            raise ValueError(f"cell {cid!r} is not JSON-able: {err}") from None
        out.append(dict(cell))
    return out


def _load_results(path: Path) -> dict[Any, dict[str, Any]]:
    """Results already in *path* by id; a broken last line without its newline (left by a
    crash) is cut off the file."""
    if not path.exists():
        return {}
    data = path.read_bytes()
    results: dict[Any, dict[str, Any]] = {}
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    offset = 0
    for number, line in enumerate(lines, 1):
        last = number == len(lines)
        try:
            record = _parse_line(line)
        except ValueError as err:
            if not last or data.endswith(b"\n"):  # a crash leaves a line without its end
                raise ValueError(
                    f"{path}, line {number}: not a JSON object with an 'id' ({err}); only the "
                    "last line may be broken (by a crash): fix or delete this line"
                ) from None
            warnings.warn(
                f"{path}: ignoring a truncated last line ({len(line)} bytes), probably left "
                "by a crash; its cell will run again",
                RuntimeWarning,
                stacklevel=3,
            )
            with path.open("r+b") as fh:
                fh.truncate(offset)
            break
        if last and not data.endswith(b"\n"):
            # A complete object without its newline: keep it, and end the line.
            with path.open("ab") as fh:
                fh.write(b"\n")
        results[record["id"]] = record
        offset += len(line) + 1
    return results


def _parse_line(line: bytes) -> dict[str, Any]:
    """The record of a results line, or a ValueError saying what it is instead."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"not UTF-8 text (byte 0x{line[err.start]:02x} at offset "
                         f"{err.start})") from None  # fmt: skip
    record = read_json(text)
    if not isinstance(record, dict) or "id" not in record:
        raise ValueError("no 'id'" if isinstance(record, dict) else f"a {type(record).__name__}")
    return record


def _normalize(cell_id: Any, result: Any) -> dict[str, Any]:
    """The JSON-able record of a cell's result (an error record if it is not one)."""
    if not isinstance(result, Mapping):
        return {"id": cell_id,
                "error": f"TypeError: the cell function returned {type(result).__name__}, "
                         "not a dict"}  # fmt: skip
    record = {"id": cell_id, **{k: v for k, v in result.items() if k != "id"}}
    try:
        return json.loads(json.dumps(record, allow_nan=True))
    except (TypeError, ValueError) as err:
        return {"id": cell_id, "error": f"TypeError: the result is not JSON-able: {err}"}


def _call(fn: CellFunction, cell: dict[str, Any]) -> dict[str, Any]:
    """Run *fn* on *cell*, turning an exception into an error record."""
    try:
        result = fn(cell)
    except Exception as err:  # the sweep goes on; the record says what went wrong
        return {"id": cell["id"], "error": f"{type(err).__name__}: {err}"}
    return _normalize(cell["id"], result)


class _Sink:
    """Appends records to the results file, one whole line each, flushed at once."""

    def __init__(self, path: Path | None) -> None:
        self._fh = None
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = path.open("a", encoding="utf-8")
            except OSError as err:
                raise OutputFileError(str(path), err.strerror or str(err)) from None

    def write(self, record: dict[str, Any]) -> dict[str, Any]:
        line = json.dumps(record, ensure_ascii=False)
        if self._fh is not None:
            self._fh.write(line + "\n")
            self._fh.flush()
        return json.loads(line)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()


def _bar(total: int, done: int, progress: bool, desc: str | None):
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=done, disable=not progress, desc=desc, unit="cell")


# -- executors ------------------------------------------------------------------------------


def _run_local(fn: CellFunction, cells: list[dict[str, Any]]):
    for cell in cells:
        yield _call(fn, cell)


def _cores() -> int:
    """The number of cores this process may run on.

    >>> _cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _run_processes(fn: CellFunction, cells: list[dict[str, Any]]):
    workers = min(len(cells), _cores())
    if workers <= 1:
        yield from _run_local(fn, cells)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        owner = {pool.submit(_call, fn, cell): cell["id"] for cell in cells}
        for future in as_completed(owner):
            try:
                yield future.result()
            except Exception as err:  # a worker died: record it and go on
                yield {"id": owner[future], "error": f"{type(err).__name__}: {err}"}


def _run_ray(fn: CellFunction, cells: list[dict[str, Any]]):
    try:
        import ray
    except ImportError:
        raise MissingDependencyError(
            "the 'ray' executor needs Ray: pip install 'safetychip[experiments]'"
        ) from None
    started = not ray.is_initialized()
    if started:
        _start_ray(ray, num_cpus=max(1, min(len(cells), os.cpu_count() or 1)))
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(_call)
        remote_fn = ray.put(fn)
        owner = {task.remote(remote_fn, cell): cell["id"] for cell in cells}
        waiting = list(owner)
        while waiting:
            ready, waiting = ray.wait(waiting, num_returns=1)
            for ref in ready:
                try:
                    yield ray.get(ref)
                except Exception as err:  # a worker died: record it and go on
                    yield {"id": owner[ref], "error": f"{type(err).__name__}: {err}"}
    finally:
        if started:
            ray.shutdown()


def _start_ray(ray: Any, num_cpus: int) -> None:
    """Start a local Ray runtime on loopback, trying again after a failed start.

    Raises
    ------
    ExecutorStartError
        After :data:`RAY_START_ATTEMPTS` failed starts, chained to the last one's error.
    """
    began = time.monotonic()
    gcs_wait = os.environ.get(_GCS_WAIT_VAR, str(RAY_GCS_WAIT))
    for attempt in range(1, RAY_START_ATTEMPTS + 1):
        try:
            with _loopback_only() as worker_env:
                ray.init(
                    num_cpus=num_cpus,
                    _node_ip_address="127.0.0.1",
                    include_dashboard=False,
                    configure_logging=False,
                    log_to_driver=False,
                    runtime_env={"env_vars": {**worker_env, "PYTHONPATH": _driver_path()}},
                )
            return
        except Exception as err:  # Ray raises a bare Exception when its node times out
            _stop_failed_start(ray, err)
            if attempt == RAY_START_ATTEMPTS:
                raise ExecutorStartError(
                    f"the 'ray' executor could not start a local Ray runtime on 127.0.0.1: "
                    f"{attempt} attempts failed in {time.monotonic() - began:.0f} s (each waits "
                    f"up to {gcs_wait} s for Ray's GCS server and 30 s for its raylet); "
                    f"last error: {type(err).__name__}: {err}. The machine is probably too "
                    "busy: try again when it is idle, run the sweep with executor='local', or "
                    "call ray.init yourself first",
                    executor="ray",
                    attempts=attempt,
                ) from err


def _stop_failed_start(ray: Any, err: BaseException) -> None:
    """Stop the processes a failed ``ray.init`` left running, before the next attempt.

    ``ray.shutdown`` stops only a node that finished starting; when the node's constructor
    raised (its GCS server or raylet did not start in time), those processes run on, so the
    node is found in the traceback and its processes are killed.
    """
    node_class = getattr(getattr(getattr(ray, "_private", None), "node", None), "Node", None)
    tb = err.__traceback__
    while tb is not None and node_class is not None:
        node = tb.tb_frame.f_locals.get("self")
        if isinstance(node, node_class):
            node.kill_all_processes(check_alive=False, allow_graceful=False)
            break
        tb = tb.tb_next
    ray.shutdown()


# A local Ray runtime must send nothing to any address but 127.0.0.1. Two things in Ray 2.x
# do otherwise, whatever ray.init is told:
# * ``_node_ip_address="127.0.0.1"`` is replaced by the machine's routable address unless
#   RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 (read when ray is imported; the module constant is
#   set too in case ray was imported already);
# * with ``include_dashboard=False`` the dashboard process still runs its usage-stats module,
#   which probes the cloud metadata service (169.254.169.254) even when usage stats are off.
#   While ray.init starts the daemons, HTTP proxies point at a closed loopback port (loopback
#   itself bypasses them), so such probes fail at once; the workers that run the cells get
#   the caller's proxy settings back.
_PROXY_VARS = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY")
_DEAD_PROXY = "http://127.0.0.1:9"
_GCS_WAIT_VAR = "RAY_gcs_server_port_wait_time_s"


def _driver_path() -> str:
    """The driver's import path, for the workers: a cell function is pickled by reference to
    its module, which must import there too (e.g. a test module or a script's neighbour)."""
    dirs = [os.path.abspath(p or os.curdir) for p in sys.path]
    return os.pathsep.join(dict.fromkeys(p for p in dirs if os.path.isdir(p)))


@contextmanager
def _loopback_only():
    """Environment (and Ray constant) under which ``ray.init`` stays on loopback; yields the
    workers' proxy settings (the caller's)."""
    import ray._private.ray_constants as constants

    saved = {
        name: os.environ.get(name)
        for name in (*_PROXY_VARS, "RAY_USAGE_STATS_ENABLED", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER",
                     _GCS_WAIT_VAR)
    }  # fmt: skip
    patch = hasattr(constants, "ENABLE_RAY_CLUSTER")
    saved_constant = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    os.environ.update({
        "RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
        "http_proxy": _DEAD_PROXY, "HTTP_PROXY": _DEAD_PROXY,
        "https_proxy": _DEAD_PROXY, "HTTPS_PROXY": _DEAD_PROXY,
        "no_proxy": "127.0.0.1,localhost,::1", "NO_PROXY": "127.0.0.1,localhost,::1",
    })  # fmt: skip
    os.environ.setdefault(_GCS_WAIT_VAR, str(RAY_GCS_WAIT))
    if patch:
        constants.ENABLE_RAY_CLUSTER = False
    try:
        yield {name: saved[name] or "" for name in _PROXY_VARS}
    finally:
        if patch:
            constants.ENABLE_RAY_CLUSTER = saved_constant
        for name, value in saved.items():
            if name == "RAY_USAGE_STATS_ENABLED":
                continue  # keep usage stats off for this process's later Ray calls
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _example_square(cell: dict[str, Any]) -> dict[str, Any]:
    """A cell function for the examples: the square of ``cell["x"]``."""
    return {"y": cell["x"] ** 2}
