"""Fixtures for every test the README command collects, the doctests of ``safetychip/`` too."""

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
