"""Import VirtualHome's evolving-graph executor from the ``virtualhome`` wheel.

The wheel's top-level ``virtualhome/__init__.py`` imports Unity code and fails, so the
``simulation`` folder is put on ``sys.path`` and the three modules safetychip uses are
imported as ``evolving_graph.*``. Importing ``evolving_graph`` also seeds Python's global
random generator (``evolving_graph/utils.py`` calls ``random.seed``); that state is restored.

Examples
--------
>>> vh = evolving_graph()
>>> vh.environment.Relation.HOLDS_RH.name
'HOLDS_RH'
"""

from __future__ import annotations

import importlib
import importlib.util
import random
import sys
from functools import cache
from pathlib import Path
from types import SimpleNamespace

from safetychip.errors import MissingDependencyError

__all__ = ["INSTALL", "evolving_graph"]

#: The command that installs the executor (its own pins would break the environment).
INSTALL = "pip install --no-deps virtualhome==2.3.0 termcolor"


@cache
def evolving_graph() -> SimpleNamespace:
    """Return VirtualHome's ``environment``, ``execution`` and ``scripts`` modules.

    Returns
    -------
    types.SimpleNamespace
        With attributes ``environment``, ``execution`` and ``scripts``.

    Raises
    ------
    MissingDependencyError
        If the ``virtualhome`` wheel (or numpy, which it needs) is not installed; the
        message gives the install command.
    """
    spec = importlib.util.find_spec("virtualhome")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(f"the VirtualHome environment needs 'virtualhome': {INSTALL}")
    simulation = str(Path(next(iter(spec.submodule_search_locations))) / "simulation")
    if simulation not in sys.path:
        sys.path.append(simulation)
    saved = random.getstate()
    try:
        modules = {
            name: importlib.import_module(f"evolving_graph.{name}")
            for name in ("environment", "execution", "scripts")
        }
    except ImportError as exc:
        raise MissingDependencyError(
            f"VirtualHome's executor could not be imported ({exc}): pip install numpy; {INSTALL}"
        ) from exc
    finally:
        random.setstate(saved)
    return SimpleNamespace(**modules)
