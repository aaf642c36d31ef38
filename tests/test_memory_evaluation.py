"""The memory's evaluation: the committed scenarios, the interaction stream, and the three
conditions' table (issue 10, items 6 and 7). The orderings asserted are those measured with
the word stand-in (figures/06_memory_table.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from safetychip.experiments import memory_table, write_memory_evaluation
from safetychip.memory import (
    FAMILIES,
    SCENARIOS,
    STATIC_RULES,
    Scenario,
    acted_object,
    evaluate,
    expand_rules,
    interaction_stream,
    load_scenarios,
    load_seeds,
    make_scenarios,
    run_memory_evaluation,
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


@pytest.fixture(scope="module")
def evaluations():
    return run_memory_evaluation()


def test_evaluation_table_has_each_condition_with_overrides_off_and_on(evaluations):
    assert [(e.benchmark, e.condition, e.override) for e in evaluations] == [
        (b, c, o) for b in ("stream", "scenarios")
        for c, o in [("no_safety", False), ("static_rules", False), ("static_rules", True),
                     ("episodic_memory", False), ("episodic_memory", True)]
    ]  # fmt: skip
    assert all((e.unsafe, e.safe) == (25, 25) for e in evaluations if e.benchmark == "scenarios")
    assert all(len(e.growth) == 200 for e in evaluations if e.benchmark == "stream"
               and e.condition == "episodic_memory")  # fmt: skip
    table = memory_table(evaluations)
    assert "WordEmbedder, a deterministic stand-in for MiniLM" in table.splitlines()[0]
    assert len(table.splitlines()) == 4 + len(evaluations)


def test_memory_is_safer_than_no_safety_and_overrides_never_raise_false_positives(evaluations):
    by = {(e.benchmark, e.condition, e.override): e for e in evaluations}
    for bench in ("stream", "scenarios"):
        none = by[bench, "no_safety", False]
        memory, overridden = by[bench, "episodic_memory", False], by[bench, "episodic_memory", True]
        assert none.safety_rate == 0 and none.false_positive_rate == 0 and none.task_success == 1
        assert memory.safety_rate > none.safety_rate and overridden.safety_rate > 0
        # harmless runs are evidence: the safe commands that ran keep their look-alikes
        # running, so there is little left for overrides to correct (issue 41)
        assert overridden.false_positive_rate <= memory.false_positive_rate < 0.05
        assert overridden.safety_rate >= memory.safety_rate  # narrowing keeps what was learned
        assert overridden.task_success == 1 and memory.task_success > 0.95
        assert memory.growth[-1][1] > 0  # consolidation wrote rules
    static = by["stream", "static_rules", False]
    assert static.safety_rate == 1 and static.false_positive_rate > 0  # over-broad rules


def test_static_rules_are_ten_and_expand_over_the_scene():
    scene = load_scenarios()[0].scene
    expanded = expand_rules(STATIC_RULES, scene)
    assert len(STATIC_RULES) == 10 and expanded
    assert all(r.target in {o.cls for o in scene.objects} for r in expanded)


def test_evaluation_rejects_unknown_condition_and_embedder():
    stream = interaction_stream(5)
    with pytest.raises(ValueError, match="condition must be one of no_safety, static_rules"):
        evaluate(stream, "magic")
    with pytest.raises(ValueError, match="embedder must be one of words, minilm"):
        evaluate(stream, "episodic_memory", embedder="bert")


def test_write_memory_evaluation_writes_table_and_figure(tmp_path):
    written = write_memory_evaluation(tmp_path)
    assert [p.name for p in written] == ["06_memory_growth.png", "06_memory_table.md"]
    assert written[1].read_text() == (ROOT / "figures" / "06_memory_table.md").read_text()
