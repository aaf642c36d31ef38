"""The Spot demo constraints in data/spot_demo, and attribution of joint conflicts."""

import json
from pathlib import Path

import pytest

import safetychip as sc
from safetychip.automata import MANAGER, Product

DATA = Path(__file__).resolve().parents[1] / "data" / "spot" / "demo_constraints.json"


@pytest.fixture(scope="module")
def entries():
    return json.loads(DATA.read_text(encoding="utf-8"))


def test_ten_named_constraints_with_sentences(entries):
    assert len(entries) == 10
    names = [e["name"] for e in entries]
    assert len(set(names)) == 10
    assert all(e["sentence"].strip() for e in entries)


def test_formula_is_its_pattern_instance(entries):
    for e in entries:
        constraint = sc.Constraint.from_dict(e)
        assert constraint.formula is sc.PATTERNS[e["pattern"]].build(*e["args"]), e["name"]
        assert constraint.pattern == e["pattern"]


def test_hallway_visited_at_most_three_times(entries):
    formulas = [sc.Constraint.from_dict(e).formula for e in entries]
    assert sc.at_most(3, "agent_at(hallway)") in formulas


def test_jointly_satisfiable(entries):
    monitor = sc.Monitor([sc.Constraint.from_dict(e) for e in entries])
    assert monitor.reset().safe


def test_conflicting_pair_is_named_at_reset(entries):
    constraints = [sc.Constraint.from_dict(e) for e in entries]
    fetch = sc.Constraint.parse('F "is_grabbed(phone)"', "Bring me the phone.", name="fetch_phone")
    verdict = sc.Monitor([*constraints, fetch]).reset()
    assert verdict.status is sc.Status.ABORT
    assert verdict.violated == ("no_phone", "fetch_phone")


def test_joint_conflict_of_three_is_attributed():
    verdict = sc.Monitor(["F a", "!a W b", "G !b"]).reset()
    assert verdict.status is sc.Status.ABORT
    assert verdict.violated == ("c1", "c2", "c3")


def test_product_without_components_is_live():
    empty = Product([])
    assert empty.is_live(empty.initial)
    assert not Product([], MANAGER.false).is_live(())
