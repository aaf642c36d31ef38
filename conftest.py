"""Fixtures and collection order for every test the README command collects, the doctests of
``safetychip/`` and the notebooks too."""

from __future__ import annotations

import tempfile

import pytest


@pytest.fixture(autouse=True)
def _doctest_temporary_folder(request):
    """Give each doctest a temporary folder of its own, removed after it, as the default of
    :mod:`tempfile`: examples call ``tempfile.mkdtemp()`` as a reader would, and each run
    used to leave their folders behind."""
    if not isinstance(request.node, pytest.DoctestItem):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="safetychip-doctest-") as folder:
        default, tempfile.tempdir = tempfile.tempdir, folder
        try:
            yield
        finally:
            tempfile.tempdir = default


# The tests that take longest, started first so that the other worker of ``pytest -n 2`` runs
# the rest meanwhile (their budgets are stated in their modules).
FIRST = ("tests/test_reproduce.py", "tests/test_browser.py")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Keep what must share one process together under ``--dist loadgroup`` (each notebook's
    cells, which nbval runs in one kernel in order, and the browser tests, which share one
    JupyterLab), and start the longest tests first."""
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        if path.endswith(".ipynb"):
            item.add_marker(pytest.mark.xdist_group(path))
        elif path == "tests/test_browser.py":
            item.add_marker(pytest.mark.xdist_group("browser"))
    rank = {path: i for i, path in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(FIRST)))
