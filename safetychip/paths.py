"""Where the repository's data and figures live (safetychip is used from a clone).

Examples
--------
>>> from safetychip.paths import DATA_DIR
>>> (DATA_DIR / "virtualhome" / "scenes").is_dir()
True
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["DATA_DIR", "FIGURES_DIR", "ROOT", "SPOT_DEMO_CONSTRAINTS", "SPOT_DIR"]

#: The repository's top folder.
ROOT = Path(__file__).resolve().parents[1]
#: Tasks, scenes, prompts, translation data: small, versioned files of ours.
DATA_DIR = ROOT / "data"
#: Where notebooks and ``make reproduce`` write figures.
FIGURES_DIR = ROOT / "figures"
#: The Spot robot's data, all of it: the lab scene, its tasks and the demo constraints.
SPOT_DIR = DATA_DIR / "spot"
#: The Spot demo's ten constraints; the names they mention are the ``"spot_demo"`` vocabulary.
SPOT_DEMO_CONSTRAINTS = SPOT_DIR / "demo_constraints.json"
