"""The committed figures are what ``make reproduce`` writes, offline: the reproduction runs into
a scratch checkout (``safetychip reproduce --root``) reading this checkout's data, in a fresh
process in which llama-cpp-python and the model's GGUF package cannot be imported and every
network connection fails (so the SmolLM2 grid is replayed from ``data/recordings`` alone), and
every file it writes must equal the committed one byte for byte.

This is the suite's longest test on purpose (budget: the whole reproduction, about three
minutes on an idle two-core machine); ``conftest.py`` starts it first."""

from __future__ import annotations

import re
from pathlib import Path

from _sealed import run_sealed

ROOT = Path(__file__).resolve().parents[1]

REPRODUCE = """
from safetychip.cli import main
raise SystemExit(main(["reproduce", "--root", sys.argv[1]]))
"""


def test_committed_figures_are_what_reproduce_writes_offline(tmp_path):
    (tmp_path / "data").symlink_to(ROOT / "data", target_is_directory=True)
    done = run_sealed(REPRODUCE, str(tmp_path), timeout=1500, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    # each step said its name before it ran and its time after; the last line, the whole
    started = re.findall(r"(?m)^\[\d+/(\d+)\] (\w+): ", done.stdout)
    finished = re.findall(r"(?m)^(\w+): done in [\d.]+ s|^(\w+): done in \d+ min", done.stdout)
    assert len(started) == int(started[0][0]) >= 8
    assert [name for _, name in started] == [a or b for a, b in finished]
    assert re.search(r"steps ran: .*; .* s in all\n$", done.stdout)
    written = sorted((tmp_path / "figures").iterdir())
    assert [p.name for p in written] == [
        "01_translation_scores.md", "02_hallway_at_most_3.svg",
        "03_floor_plan_apartment_1.png", "03_floor_plan_safe_plan.png",
        "03_timeline_example_monitored.png", "03_timeline_safe_plan.png",
        "04_experiment_results.csv", "04_experiment_tables.md", "04_rates_vs_constraints.png",
        "04_smollm2_experiment_results.csv", "04_smollm2_experiment_tables.md",
        "04_smollm2_rates_vs_constraints.png", "04_smollm2_stand_in_rates_vs_constraints.png",
        "05_spot_demo_results.csv", "05_spot_demo_table.md", "06_memory_growth.png",
        "06_memory_pairs.md", "06_memory_pairs_frames.png", "06_memory_pairs_roc.png", "06_memory_table.md", "08_shielded_learning.md", "08_shielded_learning.png",
        "spot_demo_automata.txt", "thor_evaluation.md", "thor_refusals.png",
        "virtualhome_suite_validation.txt",
    ]  # fmt: skip
    stale = [p.name for p in written if p.read_bytes() != (ROOT / "figures" / p.name).read_bytes()]
    assert stale == [], (
        f"re-run `make reproduce` and commit figures/ (or, for the 04_smollm2 files, re-record "
        f"with `make record-local-model`): {stale} are stale"
    )
