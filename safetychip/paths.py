"""Where the repository's data and figures live (safetychip is used from a clone).

Examples
--------
>>> from safetychip.paths import DATA_DIR
>>> (DATA_DIR / "virtualhome" / "scenes").is_dir()
True
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["DATA_DIR", "FIGURES_DIR", "ROOT"]

#: The repository's top folder.
ROOT = Path(__file__).resolve().parents[1]
#: Tasks, scenes, prompts, translation data: small, versioned files of ours.
DATA_DIR = ROOT / "data"
#: Where notebooks and ``make reproduce`` write figures.
FIGURES_DIR = ROOT / "figures"
