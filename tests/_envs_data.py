"""Load the data generators under ``data/virtualhome`` as modules, for the env tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

DATA = Path(__file__).resolve().parents[1] / "data" / "virtualhome"


def load_script(name: str) -> ModuleType:
    """Import ``data/virtualhome/<name>.py``."""
    spec = importlib.util.spec_from_file_location(name, DATA / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
