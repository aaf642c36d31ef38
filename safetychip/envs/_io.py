"""Atomic file writing for the environments: :mod:`safetychip._io`, its one home.

The helpers moved there so that every layer (shield records, experiment figures, the command
line) writes files the same way without importing the environments; this module re-exports
them for the imports that still name it.
"""

from __future__ import annotations

from .._io import atomic_path, atomic_savefig, atomic_write_text

__all__ = ["atomic_path", "atomic_write_text", "atomic_savefig"]
