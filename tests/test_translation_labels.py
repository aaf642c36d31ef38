"""The labelled translation sets pass the one label checker, and the checker catches bad lines."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKER = ROOT / "data" / "translation" / "check_labels.py"
SETS = ("heldout", "heldout_2", "dev_other", "fresh")


def _load_checker():
    spec = importlib.util.spec_from_file_location("check_labels", CHECKER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


check_labels = _load_checker()


def _line(**changes: object) -> str:
    row: dict[str, object] = {
        "id": "t-1",
        "scene": "apartment_1",
        "sentence": "Never open the fridge.",
        "formula": 'G !"is_open(fridge)"',
        "pattern": "global_avoidance",
        "style": "plain",
    }
    row.update(changes)
    return json.dumps(row)


@pytest.mark.parametrize("name", SETS)
def test_every_labelled_set_is_valid(name: str) -> None:
    path = ROOT / "data" / "translation" / name / "sentences.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    report = check_labels.validate(path)
    assert report.errors == []
    assert len(report.rows) >= 300
    assert {r["pattern"] for r in report.rows} == set(check_labels.FAMILIES)


def test_a_good_line_passes() -> None:
    report = check_labels.validate_lines([_line()])
    assert (report.errors, len(report.rows)) == ([], 1)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"formula": 'G !"is_open(sofa)"'}, "'sofa' is not a CAN_OPEN"),
        ({"formula": 'G !"is_open(spaceship)"'}, "'spaceship' is not a CAN_OPEN"),
        ({"formula": "G !is_open(fridge)"}, "not double-quoted"),
        ({"formula": 'G !"is_open(fridge)" &'}, "does not parse"),
        ({"alternatives": ['G !"is_open(fridge)" U']}, "alternative 1 does not parse"),
        ({"formula": 'F "agent_at(kitchen)" | !F "agent_at(kitchen)"'}, "always true"),
        ({"pattern": "global_avoid"}, "unknown pattern"),
        ({"scene": "apartment_9"}, "unknown scene"),
        ({"sentence": ""}, "missing or non-str field(s) sentence"),
        ({"colour": "red"}, "unknown field 'colour'"),
        (
            {
                "pattern": "lower_restricted_avoidance",
                "formula": 'F("agent_at(kitchen)" & X "agent_at(kitchen)")',
            },
            "counts states, not entries",
        ),
        (
            {
                "pattern": "upper_restricted_avoidance",
                "formula": 'F("agent_at(kitchen)" & F(!"agent_at(kitchen)" & F "agent_at(kitchen)"))',
            },
            "not an at_most set",
        ),
        (
            {"pattern": "exact_restricted_avoidance", "formula": 'G !"agent_at(kitchen)" | true'},
            "no real bound",
        ),
    ],
)
def test_a_bad_line_is_reported(changes: dict, expected: str) -> None:
    report = check_labels.validate_lines([_line(**changes)])
    assert report.rows == []
    assert any(expected in error for error in report.errors), report.errors


def test_repeated_ids_and_sentences_are_errors() -> None:
    report = check_labels.validate_lines([_line(), _line(sentence="never OPEN the fridge. ")])
    assert any("same id as line 1" in e for e in report.errors)
    assert any("same sentence as line 1" in e for e in report.errors)
    assert check_labels.validate_lines(["{not json"]).errors[0].startswith("line 1: not JSON")


def test_patrolling_unsatisfiable_on_finite_traces_is_a_note() -> None:
    line = _line(
        pattern="patrolling",
        formula='G F "agent_at(kitchen)" & G F "agent_at(bedroom)"',
    )
    report = check_labels.validate_lines([line])
    assert report.errors == []
    assert report.notes == ["line 1 (t-1): formula is never true on 600 runs"]


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check_labels.main([]) == 2
    assert check_labels.main([str(tmp_path / "missing.jsonl")]) == 2
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text(_line() + "\n")
    bad.write_text(_line(formula='G !"is_open(sofa)"') + "\n")
    assert check_labels.main([str(good)]) == 0
    assert check_labels.main([str(bad)]) == 1
    out = capsys.readouterr().out
    assert "Never open the fridge." not in out  # the checker never prints a sentence
    assert "FAILED" in out
