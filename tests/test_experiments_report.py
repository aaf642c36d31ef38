"""Tables, the figure, ``safetychip experiment`` and the reproduction step."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import matplotlib.figure
import pytest

from safetychip.cli import main, reproduction_steps
from safetychip.cli.experiment import parse_ks
from safetychip.experiments import (
    ablation_table,
    abort_table,
    by_k_table,
    grid_cells,
    paper_table,
    plot_rates,
    rates,
    run_grid,
    write_report,
)

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def frame():
    cells = []
    for suite, task in (
        ("four_room", "four_room/apartment_1/01"),
        ("mobile_manipulation", "mobile_manipulation/apartment_1/01"),
    ):
        cells += grid_cells(suites=[suite], task_ids=[task], ks=[1, 2],
                            reprompts=["explain", "llm_explain"])  # fmt: skip
    cells += grid_cells(suites=["contradictions"], ks=None, reprompts=["llm_explain"],
                        task_ids=["contradictions/apartment_1/01"])  # fmt: skip
    return run_grid(cells, progress=False)


def test_rates_per_suite_and_agent(frame):
    table = rates(frame)
    assert {
        "suite",
        "config",
        "episodes",
        "success",
        "safety",
        "aborted",
        "errors",
        "steps",
        "reprompts",
        "model_calls",
        "tokens",
    } <= set(table.columns)
    base = table[(table["suite"] == "four_room") & (table["config"] == "Base")].iloc[0]
    assert base["episodes"] == 2 and base["success"] == 1.0 and base["safety"] == 0.0
    chip = table[
        (table["suite"] == "four_room") & (table["config"] == "Safety Chip* (explain)")
    ].iloc[0]
    assert chip["safety"] == 1.0 and chip["reprompts"] >= 1
    aborted = table[table["suite"] == "contradictions"]
    assert aborted[aborted["config"] == "Safety Chip* (llm_explain)"]["aborted"].iloc[0] == 1


def test_the_papers_table_shape_says_stand_in(frame):
    text = paper_table(frame)
    lines = text.splitlines()
    assert lines[0] == "**Success and safety rates, k = 1–2 (offline stand-in, not an LLM)**"
    assert lines[2] == (
        "| Agent | Four Room success | Four Room safety | Mobile Manipulation "
        "success | Mobile Manipulation safety |"
    )
    agents = [line.split(" | ")[0].lstrip("| ") for line in lines[4:]]
    assert agents == [
        "Base",
        "NL Constraints",
        "Code as Policies",
        "Code as Policies + Safety Chip*",
        "Safety Chip (llm_explain)",
        "Safety Chip* (llm_explain)",
    ]
    assert "| Base | 100.0% | 0.0% |" in text


def test_ablation_by_k_and_abort_tables(frame):
    ablation = ablation_table(frame)
    assert "offline stand-in, not an LLM" in ablation.splitlines()[0]
    assert "| explain | expert |" in ablation and "| llm_explain | translated |" in ablation
    assert "| mask |" not in ablation  # not run
    by_k = by_k_table(frame)
    assert "| Agent | k=1 | k=2 |" in by_k and by_k.endswith("(offline stand-in, not an LLM)")
    aborts = abort_table(frame)
    assert "| contradictions/apartment_1/01 |" in aborts
    assert "aborted, 0 actions" in aborts and "UNSAFE (c2)" in aborts


def test_the_figure_and_the_report(frame, tmp_path):
    fig = plot_rates(frame, path=tmp_path / "rates.png")
    assert (tmp_path / "rates.png").stat().st_size > 10_000
    assert "offline stand-in, not an LLM" in fig._suptitle.get_text()
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == [
        "Four Room: safety rate",
        "Four Room: success rate",
        "Mobile Manipulation: safety rate",
        "Mobile Manipulation: success rate",
    ]
    written = write_report(frame, tmp_path / "out", prefix="x_")
    assert [p.name for p in written] == [
        "x_experiment_results.csv",
        "x_experiment_tables.md",
        "x_rates_vs_constraints.png",
    ]
    csv = written[0].read_text().splitlines()
    assert csv[0].startswith("id,suite,task,scene,k,agent,reprompt,formulas,config,seed,model")
    assert "seconds" not in csv[0]  # no timings in files meant to be compared
    assert (
        "Every number below comes from the offline stand-in, not an LLM" in written[1].read_text()
    )


def test_parse_ks():
    assert parse_ks("1..5") == [1, 2, 3, 4, 5] and parse_ks("2-3") == [2, 3]
    assert parse_ks("1,3") == [1, 3] and parse_ks("4") == [4] and parse_ks("all") is None
    with pytest.raises(ValueError, match=r"--constraints 'five': write a range such as 1\.\.5"):
        parse_ks("five")
    with pytest.raises(ValueError, match=r"--constraints '5\.\.1'"):
        parse_ks("5..1")


def test_the_experiment_command(tmp_path, capsys):
    status = main(
        [
            "experiment",
            "--suite",
            "four_room",
            "--agents",
            "base",
            "chip",
            "--constraints",
            "1",
            "--reprompts",
            "hint",
            "--formulas",
            "expert",
            "--out",
            str(tmp_path),
            "--results",
            str(tmp_path / "runs.jsonl"),
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and out["cells"] == 28 and out["stand_in"] is True
    assert out["note"] == "offline stand-in, not an LLM"
    assert [p.rsplit("/", 1)[1] for p in out["written"]] == [
        "experiment_results.csv",
        "experiment_tables.md",
        "rates_vs_constraints.png",
    ]
    configs = {r["config"]: r for r in out["rates"]}
    assert configs["Safety Chip* (hint)"]["safety"] == 1.0
    assert len((tmp_path / "runs.jsonl").read_text().splitlines()) == 28


@pytest.mark.parametrize("argv, message", [
    (["--constraints", "x"], "--constraints 'x': write a range such as 1..5"),
    (["--replay"], "--replay needs --cache FILE"),
    (["--cache", "c.sqlite"], "--cache is for a real model (--model NAME)"),
    (["--suite", "contradictions", "--constraints", "4"], "the slice is empty"),
])  # fmt: skip
def test_bad_experiment_arguments_exit_2(argv, message, capsys):
    assert main(["experiment", *argv, "--out", "/nonexistent/never"]) == 2
    assert message in capsys.readouterr().err


def test_the_reproduction_step_is_registered():
    step = next(s for s in reproduction_steps() if s.name == "virtualhome_experiments")
    assert "data/virtualhome/tasks/contradictions.jsonl" in step.inputs


def test_the_experiment_command_on_a_task_file(tmp_path, capsys):
    from safetychip.envs.virtualhome import TASK_DIR

    status = main(["experiment", "--tasks", str(TASK_DIR / "contradictions.jsonl"),
                   "--constraints", "all", "--agents", "chip", "--reprompts", "explain",
                   "--formulas", "expert", "--out", str(tmp_path)])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and out["cells"] == 6
    (chip,) = out["rates"]
    assert chip["suite"] == "contradictions" and chip["aborted"] == 5


def test_an_unknown_suite_is_refused(capsys):
    assert main(["experiment", "--suite", "garden", "--out", "/nonexistent/never"]) == 2
    assert (
        "unknown suite 'garden'; choose from four_room, mobile_manipulation"
        in capsys.readouterr().err
    )


def test_an_interrupted_figure_write_leaves_the_previous_figure(frame, tmp_path, monkeypatch):
    """Regression: the figure was written in place while the CSV and tables were written
    atomically, so a run stopped half-way left a truncated (often empty) PNG beside new
    tables. It now goes through the same atomic helper, and leaves no temporary file."""
    written = write_report(frame, tmp_path, prefix="x_")
    figure = written[2]
    previous = figure.read_bytes()

    def interrupted(fig, fname, *args, **kwargs):
        Path(fname).write_bytes(b"\x89PNG")  # the file is opened and partly written...
        raise KeyboardInterrupt  # ...when the run is stopped

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_report(frame, tmp_path, prefix="x_")
    assert figure.read_bytes() == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in written)
