"""``safetychip experiment --suite minigrid``: the shielded learning experiment from the shell,
one JSON object on stdout; it runs alone."""

from __future__ import annotations

import json

from safetychip.cli import EXIT_INPUT, EXIT_OK, main


def test_the_minigrid_suite_runs_the_shielded_learning_experiment(capsys, tmp_path):
    status = main(["experiment", "--suite", "minigrid", "--seeds", "0", "1", "--no-progress",
                   "--out", str(tmp_path / "out")])  # fmt: skip
    out, err = capsys.readouterr()
    assert (status, err) == (EXIT_OK, "")
    report = json.loads(out)
    assert report["suite"] == "minigrid" and report["world"] == "MiniGrid-LavaGapS5-v0"
    assert report["seeds"] == [0, 1] and report["episodes"] == 400
    assert report["violations"]["shielded"] == 0 and report["violations"]["unshielded"] > 0
    figure, table = (tmp_path / "out" / name for name in
                     ("08_shielded_learning.png", "08_shielded_learning.md"))  # fmt: skip
    assert report["written"] == [str(figure), str(table)]
    text = table.read_text(encoding="utf-8")
    assert text.startswith("<!-- Written by `safetychip experiment --suite minigrid`")
    assert f"| unshielded | 2 | 400 | {report['violations']['unshielded']} |" in text


def test_the_minigrid_suite_runs_alone(capsys, tmp_path):
    status = main(["experiment", "--suite", "minigrid", "four_room", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert (status, out) == (EXIT_INPUT, "")
    assert "--suite minigrid runs alone (the shielded learning experiment)" in err
    assert not any(tmp_path.iterdir())
