"""The guarantee, tested adversarially: a random agent under the monitor, over random
specifications from the task suites, judged independently of the monitor.

The main test plays 1,000 shielded rollouts on the VirtualHome scenes of the suites (about
30 s here). The harness is itself tested: monitors broken on purpose must be caught.
"""

from __future__ import annotations

import random
import time

import pytest

from safetychip.experiments import (
    ROLLOUT_OUTCOMES,
    AdversarialReport,
    PropositionAgent,
    RandomSpecification,
    Referee,
    adversarial_cell,
    adversarial_rollout,
    check_rollout,
    random_specification,
    rollout_outcome,
    run_adversarial,
    run_cells,
)
from safetychip.ltl import parse
from safetychip.monitor import Constraint, Monitor, Status, Verdict
from safetychip.shield import DONE, TraceRecord

R1, R2 = "agent_at(r1)", "agent_at(r2)"

SCENE_ROLLOUTS = 1000


def _explain(report: AdversarialReport) -> str:
    first = report.problems[0] if report.problems else None
    return f"{report.summary()}\nfirst problem: {first}"


@pytest.fixture(scope="module")
def scene_report():
    start = time.perf_counter()
    report = run_adversarial(SCENE_ROLLOUTS, level="scenes", seed=2026, progress=False)
    report.wall = time.perf_counter() - start
    print(f"\n{report.summary()}\nwall time {report.wall:.1f} s")
    return report


def test_no_executed_trace_violates_a_constraint_on_the_scenes(scene_report):
    r = scene_report
    assert r.rollouts == SCENE_ROLLOUTS
    assert r.violations == 0, _explain(r)
    assert r.problems == [], _explain(r)


def test_the_scene_rollouts_exercise_every_outcome(scene_report):
    r = scene_report
    for outcome in ROLLOUT_OUTCOMES:
        assert r.outcomes[outcome] > 0, (outcome, r.summary())
    assert sum(r.outcomes.values()) == SCENE_ROLLOUTS
    assert r.counts["aborting_specifications"] >= 10
    assert r.counts["rollouts_with_refusals"] >= SCENE_ROLLOUTS // 3
    assert r.counts["done_refusals"] >= 100
    assert r.counts["actions"] >= 3 * SCENE_ROLLOUTS


def test_every_refusal_and_abort_on_the_scenes_is_justified(scene_report):
    c = scene_report.counts
    assert c["refusals"] >= 2 * SCENE_ROLLOUTS
    assert c["justified_refusals"] + c["undecided_refusals"] == c["refusals"]
    assert c["undecided_refusals"] == 0
    assert not [p for p in scene_report.problems if "abort" in p["problem"]]


def test_the_guarantee_at_the_proposition_level():
    r = run_adversarial(600, level="propositions", seed=7, rollouts_per_spec=3, progress=False)
    assert r.problems == [], _explain(r)
    assert r.outcomes["done"] and r.outcomes["step_limit"] and r.outcomes["abort"]
    assert r.counts["justified_refusals"] == r.counts["refusals"] > 600


def test_the_report_reads_and_serialises():
    r = run_adversarial(6, level="propositions", seed=1, progress=False)
    text = r.summary()
    assert "level: propositions; 6 monitored rollouts" in text and "violations: 0" in text
    d = r.to_dict()
    assert d["rollouts"] == 6 and d["violations"] == 0 and d["problems"] == []
    assert set(d["seconds"]) >= {"total", "monitor", "world", "referee", "setup"}
    assert 0 <= r.monitor_share <= 1 and r.rate > 0


def test_runs_as_cells():
    cells = [{"id": k, "rollouts": 5, "level": "propositions", "seed": k} for k in range(2)]
    results = run_cells(adversarial_cell, cells, progress=False)
    assert [r["rollouts"] for r in results] == [5, 5]
    assert all(r["violations"] == 0 and not r["problems"] for r in results)
    again = adversarial_cell({"id": "x", "rollouts": 5, "level": "propositions", "seed": 0})
    assert again["outcomes"] == results[0]["outcomes"]  # reproducible under the seed


def test_unknown_level():
    with pytest.raises(
        ValueError, match=r"unknown level 'grid'; choose one of scenes, propositions"
    ):
        run_adversarial(1, level="grid")


# -- the harness has teeth: monitors broken on purpose are caught ----------------------------


class Permissive(Monitor):
    """Says SAFE to every action (and tracks the trace as usual)."""

    def check(self, states):
        super().check(states)
        return Verdict(Status.SAFE, "permissive")

    def commit(self, states):
        super().commit(states)
        return Verdict(Status.SAFE, "permissive")


class AcceptsEveryDone(Monitor):
    def finish(self):
        return Verdict(Status.SAFE, "sloppy DONE")


class RefusesEveryDone(Monitor):
    def finish(self):
        return Verdict(Status.VIOLATION, "never done")


class Strict(Monitor):
    def check(self, states):
        return Verdict(Status.VIOLATION, "it would break c1")


class AlwaysAborts(Monitor):
    def reset(self, initial=None):
        super().reset(initial)
        return Verdict(Status.ABORT, "unsatisfiable", ("c1",))


def _broken(cls):
    return lambda spec: cls(spec.constraints, [spec.invariant])


@pytest.mark.parametrize(
    ("cls", "kind"),
    [
        (Permissive, "violation"),
        (AcceptsEveryDone, "violation: DONE accepted"),
        (RefusesEveryDone, "unjustified DONE refusal"),
        (Strict, "unjustified refusal"),
        (AlwaysAborts, "unjustified abort"),
    ],
)
def test_a_broken_monitor_is_caught(cls, kind):
    r = run_adversarial(
        200, level="propositions", seed=3, progress=False, monitor_factory=_broken(cls)
    )
    assert any(p["problem"].startswith(kind) for p in r.problems), r.summary()
    assert all({"problem", "specification", "rollout"} <= set(p) for p in r.problems)


def test_a_missed_abort_is_caught():
    spec = _spec("F a", "G !a")
    lenient = RandomSpecification("s", spec.constraints[:1], spec.rooms)
    agent = PropositionAgent(["a", R1, R2], spec.rooms)
    record = adversarial_rollout(agent, lenient.monitor(), random.Random(0), max_steps=3)
    problems, _ = check_rollout(record, Referee(spec))
    assert problems == ["missed abort: the specification is unsatisfiable"]


# -- parts ----------------------------------------------------------------------------------


def _spec(*formulas):
    cs = tuple(Constraint(parse(f), name=f"c{i}") for i, f in enumerate(formulas, 1))
    return RandomSpecification("s", cs, (R1, R2))


def test_referee_judges_by_the_evaluator_and_certifies_continuations():
    ref = Referee(_spec("G(a -> F b)", "!b W a"))
    assert not ref.unsatisfiable()
    trace = [{"a": True, "b": False, R1: True, R2: False}]
    assert ref.violated(trace) == ["c1"]
    path = ref.continuation(trace)
    assert path and any("b" in letter for letter in path)
    assert ref.violated([*trace, *path]) == []
    dead = [{"a": False, "b": True, R1: True, R2: False}]
    assert ref.dead(ref.run(dead)[-1]) and ref.continuation(dead) is None


def test_referee_finds_unsatisfiable_sets_and_honours_the_invariant():
    ref = Referee(_spec("F a", "G !a", "F b"))
    assert ref.unsatisfiable() and ref.unsatisfiable(["c1", "c2"])
    assert not ref.unsatisfiable(["c1", "c3"])
    # Being in both rooms at once breaks the invariant, so this is unsatisfiable.
    assert Referee(_spec(f'F("{R1}" & "{R2}")')).unsatisfiable()


def test_random_specifications_are_reproducible_and_drawn_from_the_suites():
    a = random_specification("apartment_2", random.Random(11))
    b = random_specification("apartment_2", random.Random(11))
    assert [str(c.formula) for c in a.constraints] == [str(c.formula) for c in b.constraints]
    assert a.rooms == (
        "agent_at(hallway)",
        "agent_at(kitchen)",
        "agent_at(living_room)",
        "agent_at(bedroom)",
        "agent_at(bathroom)",
    )
    specs = [random_specification("apartment_1", random.Random(k)) for k in range(40)]
    sentences = [c.sentence for s in specs for c in s.constraints]
    assert any(s.startswith("random ") for s in sentences)
    assert any(not s.startswith(("random ", "not: ")) for s in sentences)
    assert all(
        1 <= len(s.constraints) <= 5
        for s in specs
        if not any(c.sentence.startswith("not: ") for c in s.constraints)
    )
    negated = random_specification("apartment_1", random.Random(0), p_negation=1.0)
    assert negated.constraints[-1].sentence.startswith("not: ")
    assert Referee(negated).unsatisfiable()
    with pytest.raises(ValueError, match="no task of the suites is set in scene 'nowhere'"):
        random_specification("nowhere", random.Random(0))


def test_a_rollout_record():
    spec = _spec("G !a", "F b")
    agent = PropositionAgent(["a", "b", R1, R2], spec.rooms, jumps=2)
    record = adversarial_rollout(agent, spec.monitor(), random.Random(4), max_steps=4, p_done=0.0)
    assert isinstance(record, TraceRecord) and record.filters == ("monitor",)
    assert rollout_outcome(record) in ("done", "step_limit", "stuck", "initial_violation")
    assert len(record.executed) <= 4 and record.pruned
    assert all(not s["a"] for s in record.trace[1:])
    assert all(s.violated == ("c1",) for s in record.pruned if s.action != DONE)
    problems, counts = check_rollout(record, Referee(spec))
    assert problems == [] and counts["justified_refusals"] == counts["refusals"] > 0
    again = TraceRecord.from_dict(record.to_dict())  # the record survives JSON
    assert check_rollout(again, Referee(spec)) == (problems, counts)


def test_rollout_outcomes_are_read_from_the_record():
    spec = _spec("F a", "G !a")
    agent = PropositionAgent(["a", R1, R2], spec.rooms)
    record = adversarial_rollout(agent, spec.monitor(), random.Random(0))
    assert rollout_outcome(record) == "abort" and record.start.constraints == ("c1", "c2")
    assert check_rollout(record, Referee(spec)) == ([], {})
    stopped = adversarial_rollout(agent, _spec("G !a").monitor(), random.Random(0), max_steps=0)
    assert rollout_outcome(stopped) == "step_limit" and stopped.steps == ()


def test_a_room_must_be_an_agent_at_proposition():
    with pytest.raises(ValueError, match="a room is an agent_at\\(room\\) proposition, got 'r1'"):
        PropositionAgent(["a", "r1"], ["r1"])
