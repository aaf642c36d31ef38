"""The grid recorded with SmolLM2-135M-Instruct: its committed tables name the model, and a
request never recorded is a replay miss, never a call. That the grid replays offline, byte for
byte, without llama-cpp-python, the GGUF file or any server is tested with the whole
reproduction (``tests/test_reproduce.py``), which runs sealed off the same way."""

from __future__ import annotations

import re

import pytest

from safetychip.agents import STAND_IN_LABEL
from safetychip.experiments import LOCAL_GRID_CACHE, local_model_cells
from safetychip.llm import LOCAL_MODEL
from safetychip.paths import DATA_DIR, FIGURES_DIR

NAMES = ("04_smollm2_experiment_results.csv", "04_smollm2_experiment_tables.md",
         "04_smollm2_rates_vs_constraints.png",
         "04_smollm2_stand_in_rates_vs_constraints.png")  # fmt: skip


def test_every_committed_table_names_its_model_or_says_it_is_the_stand_in():
    text = (FIGURES_DIR / NAMES[1]).read_text()
    first_model_table = text.index(f"(model: {LOCAL_MODEL})**")
    stand_in, model = text[:first_model_table], text[first_model_table:]
    titles = re.compile(r"(?m)^\*\*(.*)\*\*$")
    assert len(titles.findall(stand_in)) >= 2, "the stand-in's rates, overall and by k"
    assert all(STAND_IN_LABEL in title for title in titles.findall(stand_in))
    assert STAND_IN_LABEL not in model
    by_k = "by number of constraints"  # one group of tables, named by model after the last
    assert all(f"model: {LOCAL_MODEL}" in title or title.endswith(by_k)
               for title in titles.findall(model))  # fmt: skip
    assert f"\n\n(model: {LOCAL_MODEL})\n" in model
    rows = (FIGURES_DIR / NAMES[0]).read_text().splitlines()
    assert len(rows) == len(local_model_cells()) + 1
    assert all(LOCAL_MODEL in row and ",False," in row for row in rows[1:])


def test_the_tables_show_the_model_and_the_stand_in_against_every_recorded_k():
    cells = [c for c in local_model_cells() if c["suite"] != "contradictions"]  # all their ks
    ks, suites = sorted({c["k"] for c in cells}), {c["suite"] for c in cells}
    assert len(ks) >= 2, "rates against the number of constraints need more than one k"
    header = "| Agent | " + " | ".join(f"k={k}" for k in ks) + " |"
    text = (FIGURES_DIR / NAMES[1]).read_text()
    by_k = [s for s in re.split(r"(?m)^(?=\*\*[^\n]*\*\*$)", text) if header in s]
    assert len(by_k) == 2 * len(suites), "a table by k per suite for the model and the stand-in"
    assert sum(s.splitlines()[0].count(STAND_IN_LABEL) for s in by_k) == len(suites)


def test_a_request_that_was_never_recorded_is_a_replay_miss_not_a_call(tmp_path):
    from safetychip.errors import ReplayMissError
    from safetychip.llm import CachedModel, local_model

    player = CachedModel(local_model(port=9), DATA_DIR / LOCAL_GRID_CACHE, mode="replay")
    with pytest.raises(ReplayMissError, match=LOCAL_MODEL):
        player.complete("a request nobody recorded")


def test_recordings_that_lack_replies_stop_the_report_with_the_way_to_record_them(tmp_path):
    from safetychip.errors import ReplayMissError
    from safetychip.experiments import write_local_model_grid
    from safetychip.llm import CachedModel, ScriptedModel

    (tmp_path / "virtualhome").symlink_to(DATA_DIR / "virtualhome", target_is_directory=True)
    (tmp_path / LOCAL_GRID_CACHE).parent.mkdir()
    CachedModel(ScriptedModel([]), tmp_path / LOCAL_GRID_CACHE, mode="record")  # empty
    n = len(local_model_cells())
    # every episode but those that end before the model is asked (a contradiction found)
    with pytest.raises(
        ReplayMissError, match=rf"[1-9]\d* of {n} episodes.*make record-local-model"
    ):
        write_local_model_grid(tmp_path / "figures", data=tmp_path)
    assert not (tmp_path / "figures").exists()
