"""The experiment grid: cells, episodes as rows, failures recorded, resumable sweeps."""

from __future__ import annotations

import json

import pytest

from safetychip.errors import DataFileError
from safetychip.experiments import COLUMNS, config_label, grid_cells, run_cell, run_grid

FOUR = dict(suites=["four_room"], task_ids=["four_room/apartment_1/01"])


def test_grid_size_and_ids():
    cells = grid_cells()
    # 28 tasks x k=1..5 x (base, nl, cap + cap_chip x 2 formula sources
    #                      + chip x 5 reprompts x 2 formula sources)
    assert len(cells) == 28 * 5 * 15
    assert len({c["id"] for c in cells}) == len(cells)
    chip = [c for c in cells if c["agent"] == "chip"]
    assert {(c["reprompt"], c["formulas"]) for c in chip} == {
        (r, f)
        for r in ("mask", "generic", "explain", "llm_explain", "hint")
        for f in ("expert", "translated")
    }
    shielded_code = [c for c in cells if c["agent"] == "cap_chip"]
    assert {(c["reprompt"], c["formulas"]) for c in shielded_code} == {
        ("-", "expert"),
        ("-", "translated"),
    }
    others = [c for c in cells if c["agent"] not in ("chip", "cap_chip")]
    assert {(c["reprompt"], c["formulas"]) for c in others} == {("-", "-")}
    assert cells[0]["id"] == "four_room/apartment_1/01|k=1|base|-|-|seed=0|offline-stand-in"
    assert all(json.loads(json.dumps(c)) == c for c in cells[:50])


def test_slices_and_all_constraints():
    cells = grid_cells(
        ks=[2], agents=["chip"], reprompts=["hint"], formulas=["expert"], seeds=[0, 1], **FOUR
    )
    assert [c["id"] for c in cells] == [
        "four_room/apartment_1/01|k=2|chip|hint|expert|seed=0|offline-stand-in",
        "four_room/apartment_1/01|k=2|chip|hint|expert|seed=1|offline-stand-in",
    ]
    whole = grid_cells(suites=["contradictions"], ks=None, agents=["base"])
    assert [c["k"] for c in whole] == [2, 2, 3, 2, 2, 1]  # every constraint of each task
    real = grid_cells(ks=[1], agents=["nl"], model="gpt-4o-mini", cache="runs.sqlite", **FOUR)
    assert real[0]["cache"] == "runs.sqlite" and real[0]["cache_mode"] == "auto"


@pytest.mark.parametrize("options, message", [
    ({"suites": ["kitchen"]}, "unknown suite 'kitchen'; choose from four_room, "
                              "mobile_manipulation, contradictions, spot_delivery, "
                              "spot_contradictions"),
    ({"agents": ["gpt"]}, "unknown agent 'gpt'; choose from base, nl, cap, cap_chip, chip"),
    ({"reprompts": ["yell"]}, "unknown reprompt variant 'yell'; choose from mask, generic, "
                              "explain, llm_explain, hint"),
    ({"formulas": ["gold"]}, "unknown formulas 'gold'; choose from expert, translated"),
    ({"ks": [0, 1]}, "numbers of constraints must be at least 1, got [0, 1]"),
    ({"task_ids": ["four_room/nowhere"]}, "unknown task id(s): four_room/nowhere"),
])  # fmt: skip
def test_bad_grid_options_name_the_choices(options, message):
    with pytest.raises(ValueError) as caught:
        grid_cells(**options)
    assert str(caught.value) == message


def test_a_cell_is_one_episode_row():
    (cell,) = grid_cells(
        ks=[1], agents=["chip"], reprompts=["explain"], formulas=["expert"], **FOUR
    )
    row = run_cell(cell)
    assert list(row) == list(COLUMNS)
    assert row["id"] == cell["id"] and row["config"] == "Safety Chip* (explain)"
    assert row["success"] is True and row["safe"] is True and row["end"] == "done"
    assert row["stand_in"] is True and row["model"] == "offline-stand-in"
    assert row["plan"] == "walk to bathroom | walk to kitchen" and row["reprompts"] == 1
    assert row["prompt_tokens"] > 0 and row["seconds"] >= 0


@pytest.mark.parametrize("agent", ["chip", "cap_chip"])
def test_a_cell_runs_its_monitors_without_a_wall_clock_deadline(agent, monkeypatch):
    # A loaded machine must not change a row: a deadline refusal at the goal check would
    # abort the episode. The grid's monitors run on their node budget alone.
    from safetychip.agents._chip import _chip_monitor
    from safetychip.monitor import Monitor

    _chip_monitor.cache_clear()  # monitors are cached per task and k
    made: list = []
    init = Monitor.__init__

    def recording(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self.deadline)

    monkeypatch.setattr(Monitor, "__init__", recording)
    (cell,) = grid_cells(ks=[2], agents=[agent], reprompts=["explain"], formulas=["expert"],
                         **FOUR)  # fmt: skip
    run_cell(cell)
    assert made and all(d is None for d in made)
    assert Monitor(["G !a"]).deadline == 0.05  # the live default is unchanged


def test_config_labels():
    assert config_label("chip", "hint", "translated") == "Safety Chip (hint)"
    assert config_label("cap") == "Code as Policies" and config_label("base") == "Base"


def bad_task_file(tmp_path):
    from safetychip.envs.virtualhome import TASK_DIR

    lines = (TASK_DIR / "four_room.jsonl").read_text().splitlines()[:2]
    broken = json.loads(lines[1])
    broken["constraints"][0]["formula"] = 'G !("agent_at(kitchen)"'
    path = tmp_path / "tasks.jsonl"
    path.write_text(lines[0] + "\n" + json.dumps(broken) + "\n")
    return path, broken["id"]


def test_a_task_file_with_an_unparseable_formula_is_refused_whole(tmp_path):
    path, broken = bad_task_file(tmp_path)
    message = (rf"^{path}: line 2: task '{broken}', constraint 1 \('.*'\): the formula does not "
               r"parse: cannot parse Spot formula")  # fmt: skip
    with pytest.raises(DataFileError, match=message):
        grid_cells(suites=["four_room"], ks=[1], agents=["base"], tasks_path=path)


def test_a_cell_that_raises_becomes_an_error_row():
    cells = grid_cells(ks=[1, 2], agents=["base"], **FOUR)
    cells[0] = {**cells[0], "task": "four_room/gone", "id": "gone"}
    frame = run_grid(cells, progress=False)
    row = frame.iloc[0]
    assert row["end"] == "error" and row["id"] == "gone" and row["config"] == "Base"
    assert row["reason"] == "KeyError: \"no task 'four_room/gone' in the task files\""
    assert frame.iloc[1]["end"] == "done"


def test_sweeps_resume_from_their_results_file(tmp_path):
    results = tmp_path / "runs.jsonl"
    cells = grid_cells(ks=[1, 2], agents=["base", "nl"], **FOUR)
    first = run_grid(cells[:2], results_path=results, progress=False)
    assert len(results.read_text().splitlines()) == 2
    again = run_grid(cells, results_path=results, progress=False)
    assert len(results.read_text().splitlines()) == 4  # only the two new cells ran
    assert again.iloc[:2]["plan"].tolist() == first["plan"].tolist()
    assert again["id"].tolist() == [c["id"] for c in cells]
