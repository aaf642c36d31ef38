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


# The tests that take longest, started first so that the other workers of ``pytest -n`` run the
# rest meanwhile (their budgets are stated in their modules). ``make test`` hands out whole
# files (``--dist loadfile``): nbval runs a notebook's cells in one kernel, in order, and the
# browser tests share one JupyterLab.
FIRST = ("tests/test_reproduce.py", "tests/test_browser.py")


def pytest_collection_modifyitems(config, items):
    """Start the longest tests first."""
    rank = {path: i for i, path in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(FIRST)))
