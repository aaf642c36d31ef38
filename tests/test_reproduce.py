"""The committed figures are what ``make reproduce`` writes: the reproduction runs into a
scratch checkout (``safetychip reproduce --root``) reading this checkout's data, and every file
it writes must equal the committed one byte for byte."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_committed_figures_are_what_reproduce_writes(tmp_path):
    (tmp_path / "data").symlink_to(ROOT / "data", target_is_directory=True)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, "-m", "safetychip.cli", "reproduce", "--root", str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=900, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = sorted((tmp_path / "figures").iterdir())
    assert [p.name for p in written] == [
        "01_translation_scores.md",
        "03_floor_plan_apartment_1.png", "03_floor_plan_safe_plan.png",
        "03_timeline_example_monitored.png", "03_timeline_safe_plan.png",
        "04_experiment_results.csv", "04_experiment_tables.md", "04_rates_vs_constraints.png",
        "04_smollm2_experiment_results.csv", "04_smollm2_experiment_tables.md",
        "04_smollm2_rates_vs_constraints.png", "04_smollm2_stand_in_rates_vs_constraints.png",
        "05_spot_demo_results.csv", "05_spot_demo_table.md", "06_memory_growth.png",
        "06_memory_table.md",
        "spot_demo_automata.txt", "virtualhome_suite_validation.txt",
    ]  # fmt: skip
    stale = [p.name for p in written if p.read_bytes() != (ROOT / "figures" / p.name).read_bytes()]
    assert stale == [], f"re-run `make reproduce` and commit figures/: {stale} are stale"
