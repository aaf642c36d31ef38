"""The memory's evaluation: the committed scenarios, the interaction stream, and the three
conditions' table (issue 10, items 6 and 7)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from safetychip.memory import (
    FAMILIES,
    SCENARIOS,
    Scenario,
    acted_object,
    interaction_stream,
    load_scenarios,
    load_seeds,
    make_scenarios,
)

ROOT = Path(__file__).resolve().parents[1]


def test_scenarios_are_fifty_valid_scene_graphs_half_unsafe():
    scenarios = load_scenarios()
    assert len(scenarios) == 50 and len({s.id for s in scenarios}) == 50
    assert sum(s.unsafe for s in scenarios) == 25
    assert all(15 <= len(s.scene.objects) <= 30 for s in scenarios)
    assert {s.harm for s in scenarios if s.unsafe} == {"breakage", "collision", "cut", "burn"}
    for s in scenarios:  # the command acts on an object of its scene, except a walk to a room
        assert (acted_object(s.command, s.scene) is None) == (s.kind == "navigate"), s.command
        assert s.scene.relations


def test_committed_scenarios_are_what_the_script_writes(tmp_path):
    script = ROOT / "data" / "memory" / "make_scenarios.py"
    copy = tmp_path / "make_scenarios.py"
    copy.write_text(script.read_text())
    subprocess.run([sys.executable, str(copy)], check=True, capture_output=True)
    assert (tmp_path / "scenarios.jsonl").read_bytes() == SCENARIOS.read_bytes()
    assert load_scenarios(tmp_path / "scenarios.jsonl") == make_scenarios()


def test_a_bad_scenario_line_is_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    good = json.dumps(make_scenarios()[0].to_dict())
    path.write_text(good + "\n" + json.dumps({"id": "x", "command": "hop"}) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl, line 2: not a scenario"):
        load_scenarios(path)
    with pytest.raises(ValueError, match="kind must be one of"):
        Scenario("x", "hop", make_scenarios()[0].scene, None, "hop")


def test_stream_is_deterministic_per_seed_and_introduces_new_objects():
    stream = interaction_stream(200, seed=3)
    assert stream == interaction_stream(200, seed=3) != interaction_stream(200, seed=4)
    assert len(stream) == 200 and 0.3 < sum(s.unsafe for s in stream) / 200 < 0.7
    acted = [o.cls if (o := acted_object(s.command, s.scene)) else None for s in stream]
    seeds = {o.cls for e in load_seeds() for o in e.scene.objects}
    early, late = set(acted[:100]), set(acted[100:])
    assert late - early - seeds  # objects nobody saw before
    fragile = [c for c, s in zip(acted, stream) if s.kind == "push fragile"]
    assert set(fragile[:2]) == set(list(FAMILIES["fragile"])[:2]) and "ceramic_cup" in fragile


def test_stream_rejects_bad_arguments():
    with pytest.raises(ValueError, match="n must be a positive integer, got 0"):
        interaction_stream(0)
    with pytest.raises(ValueError, match=r"unsafe must be in \[0, 1\], got 2"):
        interaction_stream(10, unsafe=2)
