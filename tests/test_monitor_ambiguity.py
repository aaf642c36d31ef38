"""Candidate sets enforced at run time: act when every reading agrees, ask when they
disagree, refuse and record the question when no one answers."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safetychip.envs import PropositionEnv
from safetychip.errors import PropositionError, SpecificationError
from safetychip.monitor import (
    CandidateMonitor,
    CandidateSet,
    Monitor,
    Question,
    Specification,
    Status,
    read_constraints,
    write_constraints,
)
from safetychip.shield import Shield

KNIFE = "keep the knife out of the kitchen"
NEVER = 'G !("is_grabbed(knife)" & "agent_at(kitchen)")'
UNTIL = '!("is_grabbed(knife)" & "agent_at(kitchen)") W "is_open(drawer)"'


def knife_set(**options) -> CandidateSet:
    return CandidateSet.parse([NEVER, UNTIL], KNIFE, name="knife",
                              readings=["never carry the knife into the kitchen",
                                        "not until the drawer has been opened"], **options)  # fmt: skip


def knife_env() -> PropositionEnv:
    return PropositionEnv(["is_grabbed(knife)", "is_open(drawer)"], rooms=["hall", "kitchen"])


class Asker:
    """A question callback that records what it was asked and answers *answer*."""

    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def __call__(self, question: Question):
        self.asked.append(question)
        if isinstance(self.answer, BaseException):
            raise self.answer
        if callable(self.answer):
            return self.answer(question)
        return self.answer


def knife_shield(ask=None, **options) -> Shield:
    env = knife_env()
    shield = Shield.of(env, CandidateMonitor([knife_set()]), ask=ask, **options)
    shield.reset(options={"initial": ["agent_at(hall)"]})
    return shield


def test_every_reading_admits_runs_without_asking():
    ask = Asker(False)
    shield = knife_shield(ask)
    assert shield.propose("set is_grabbed(knife)").outcome == "executed"
    step = shield.propose("go to kitchen")  # the drawer is closed: both readings forbid it
    assert step.outcome == "pruned" and step.judgement.verdict.status is Status.VIOLATION
    assert shield.propose("clear is_grabbed(knife)").outcome == "executed"
    assert shield.propose("go to kitchen").outcome == "executed"
    assert ask.asked == [] and shield.monitor.open_questions == []


def test_every_reading_forbids_refuses_without_asking_and_names_the_set():
    m = CandidateMonitor(["G !b", knife_set()])
    m.reset({"is_grabbed(knife)": True, "agent_at(kitchen)": False, "is_open(drawer)": False,
             "b": False})  # fmt: skip
    v = m.check({"is_grabbed(knife)": True, "agent_at(kitchen)": False, "is_open(drawer)": False,
                 "b": True})  # fmt: skip
    assert v.status is Status.VIOLATION and v.violated == ("c1",)
    v = m.check({"is_grabbed(knife)": True, "agent_at(kitchen)": True, "is_open(drawer)": False,
                 "b": False})  # fmt: skip
    assert v.status is Status.VIOLATION and v.violated == ("knife",)
    assert "under every reading" in v.reason
    assert m.question(v, "go to kitchen", {}) is None


def test_disagreement_asks_a_question_in_the_scene_words():
    ask = Asker(True)
    shield = knife_shield(ask)
    shield.propose("set is_grabbed(knife)")
    shield.propose("set is_open(drawer)")
    step = shield.propose("go to kitchen")
    assert step.outcome == "executed"
    (q,) = ask.asked
    assert q.constraint == "knife" and q.sentence == KNIFE and q.action == "go to kitchen"
    assert q.allowing == (1,) and q.forbidding == (0,)
    assert "holding the knife" in q.situation and "the drawer is open" in q.situation
    assert KNIFE in q.text and "not until the drawer" in q.if_yes
    assert "never carry the knife" in q.if_no


def test_the_answer_narrows_the_set_for_the_rest_of_the_run():
    ask = Asker(False)
    shield = knife_shield(ask)
    monitor = shield.monitor
    shield.propose("set is_grabbed(knife)")
    shield.propose("set is_open(drawer)")
    assert shield.propose("go to kitchen").outcome == "pruned"
    (s,) = monitor.candidate_sets
    assert s.picked is not None and str(s.picked.formula) == str(s.candidates[0])
    assert s.answers[0][1] is False
    assert shield.propose("go to kitchen").outcome == "pruned"
    assert len(ask.asked) == 1  # never asked twice
    verdict = shield.steps[-1].judgement.verdict
    assert verdict.status is Status.VIOLATION and verdict.violated == ("knife",)


def test_an_unattended_run_refuses_the_ambiguous_action_and_records_the_question():
    shield = knife_shield()  # no one to ask
    shield.propose("set is_grabbed(knife)")
    shield.propose("set is_open(drawer)")
    step = shield.propose("go to kitchen")
    assert step.outcome == "pruned" and step.judgement.constraints == ("knife",)
    assert step.judgement.verdict.status is Status.AMBIGUOUS
    (q,) = shield.monitor.open_questions
    assert q.action == "go to kitchen" and q.forbidding == (0,)
    assert len(shield.monitor.candidate_sets[0].live) == 2  # nothing settled
    assert not shield.state["agent_at(kitchen)"]


@pytest.mark.parametrize(
    ("answer", "seconds"),
    [(RuntimeError("the person walked away"), 5.0), ("yes", 5.0),
     (lambda q: time.sleep(2) or True, 0.05), (None, 5.0)],
    ids=["raises", "not-a-bool", "too-late", "none"],
)  # fmt: skip
def test_a_failing_callback_refuses_never_admits(answer, seconds):
    ask = Asker(answer)
    shield = knife_shield(ask, ask_seconds=seconds)
    shield.propose("set is_grabbed(knife)")
    shield.propose("set is_open(drawer)")
    started = time.perf_counter()
    assert shield.propose("go to kitchen").outcome == "pruned"
    assert time.perf_counter() - started < 1.5
    assert len(shield.monitor.open_questions) == 1
    assert len(ask.asked) == 1


def test_done_with_disputed_obligations_is_asked_and_narrowed():
    s = CandidateSet.parse(['F "is_open(drawer)"', 'G !"is_grabbed(knife)"'], "mind the drawer",
                           name="drawer")  # fmt: skip
    ask = Asker(True)
    env = knife_env()
    shield = Shield.of(env, CandidateMonitor([s]), ask=ask)
    shield.reset(options={"initial": ["agent_at(hall)"]})
    assert shield.propose("done").outcome == "done"
    (q,) = ask.asked
    assert q.action == "done" and "stop here" in q.situation
    assert shield.monitor.candidate_sets[0].live == (1,)


def test_done_unattended_refuses():
    s = CandidateSet.parse(['F "is_open(drawer)"', 'G !"is_grabbed(knife)"'], "mind the drawer")
    shield = Shield.of(knife_env(), CandidateMonitor([s]))
    shield.reset(options={"initial": ["agent_at(hall)"]})
    step = shield.propose("done")
    assert step.outcome == "pruned" and step.judgement.pending == ("c1",)
    assert len(shield.monitor.open_questions) == 1


def test_answers_persist_and_are_not_asked_again(tmp_path):
    ask = Asker(True)
    shield = knife_shield(ask)
    shield.propose("set is_grabbed(knife)")
    shield.propose("set is_open(drawer)")
    shield.propose("go to kitchen")
    path = write_constraints(tmp_path / "c.json", shield.monitor.specification())
    saved = json.loads(path.read_text())
    assert saved[0]["live"] == [1] and saved[0]["answers"][0]["answer"] is True
    (back,), _ = read_constraints(path, candidate_sets=True)
    assert back.picked is not None and back.answers[0][0].key == ask.asked[0].key
    spec = Specification.read(path)
    assert [str(c.formula) for c in spec.constraints] == [str(back.candidates[1])]
    never = Asker(AssertionError("asked twice"))
    env = knife_env()
    again = Shield.of(env, CandidateMonitor([back]), ask=never)
    again.reset(options={"initial": ["agent_at(hall)"]})
    again.propose("set is_grabbed(knife)")
    again.propose("set is_open(drawer)")
    assert again.propose("go to kitchen").outcome == "executed"
    assert never.asked == []


def test_specification_keeps_answers_and_writes_sets(tmp_path):
    spec = Specification(["G !b", knife_set()])
    assert [s.name for s in spec.candidate_sets] == ["knife"] and len(spec) == 2
    m = spec.monitor()
    assert isinstance(m, CandidateMonitor)
    state = {"is_grabbed(knife)": True, "agent_at(kitchen)": True, "is_open(drawer)": True,
             "b": False}  # fmt: skip
    m.reset({**state, "agent_at(kitchen)": False})
    q = m.question(m.check(state), "go to kitchen", state)
    m.answer(q, True)
    spec.take_answers(m)
    assert spec.candidate_sets == () and spec.constraints[-1].name == "knife"
    again = Specification.read(spec.write(tmp_path / "s.json"))
    assert [c.name for c in again.constraints] == ["c1", "knife"]


def test_old_files_still_load(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps([{"name": "p", "formula": "G !a"}, "F b"]))
    for sets in (False, True):
        constraints, _ = read_constraints(path, candidate_sets=sets)
        assert [c.name for c in constraints] == ["p", "c2"]


def test_a_set_in_a_file_read_without_sets_says_so(tmp_path):
    path = write_constraints(tmp_path / "c.json", [knife_set()])
    with pytest.raises(SpecificationError, match=r"constraint 1 \('knife'\): a candidate set"):
        read_constraints(path)


def test_an_empty_set_is_refused_at_load(tmp_path):
    with pytest.raises(SpecificationError, match="is empty"):
        CandidateSet((), "never mind")
    path = tmp_path / "c.json"
    path.write_text(json.dumps([{"name": "x", "sentence": "s", "candidates": []}]))
    with pytest.raises(SpecificationError, match=r"constraint 1 \('x'\).*is empty"):
        read_constraints(path, candidate_sets=True)


def test_candidates_over_propositions_the_scene_lacks_are_named():
    with pytest.raises(PropositionError, match=r"knife.*is_grabbed\(knife\)"):
        CandidateMonitor([knife_set()], propositions=["agent_at(kitchen)", "is_open(drawer)"])


def test_a_candidate_impossible_with_the_settled_constraints_is_dropped():
    s = CandidateSet.parse(["F a", "G !b"], "x", name="x")
    m = CandidateMonitor(["G !a", s])
    assert m.candidate_sets[0].live == (1,)
    assert m.reset({"a": False, "b": False}).safe


def test_too_many_readings_are_refused():
    sets = [CandidateSet.parse([f"G !a{i}", f"F a{i}"], name=f"s{i}") for i in range(9)]
    with pytest.raises(SpecificationError, match="512 readings"):
        CandidateMonitor(sets)


def test_bad_file_entries_name_the_field(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps([{"name": "x", "candidates": [{"formula": "G !a"}, 3]}]))
    with pytest.raises(SpecificationError, match="candidate 1 must be an object"):
        read_constraints(path, candidate_sets=True)
    path.write_text(json.dumps([{"name": "x", "candidates": [{"formula": "G !a"}], "live": [4]}]))
    with pytest.raises(SpecificationError, match="live places"):
        read_constraints(path, candidate_sets=True)


POOL = ["G !a", "F a", "!a W b", "G(a -> F b)", "F b", "G !(a & b)", "a U b", "X !a", "G(b -> X a)"]


@settings(max_examples=60, deadline=None)
@given(
    picks=st.lists(st.sampled_from(POOL), min_size=1, max_size=4, unique=True),
    settled=st.sampled_from([None, "G !c", "F c"]),
    trace=st.lists(st.sets(st.sampled_from(["a", "b", "c"])), min_size=1, max_size=5),
)
def test_the_set_verdict_is_the_per_candidate_verdicts(picks, settled, trace):
    items = [] if settled is None else [settled]
    m = CandidateMonitor([*items, CandidateSet.parse(picks, name="s")], deadline=None)
    live = m.candidate_sets[0].live
    singles = [Monitor([*items, picks[p]], deadline=None) for p in live]

    def full(monitor, letter):
        return {x: x in letter for x in monitor.atoms}

    m.reset(full(m, trace[0]))
    for single in singles:
        single.reset(full(single, trace[0]))
    for letter in trace[1:]:
        verdict = m.check(full(m, letter))
        each = [single.check(full(single, letter)).safe for single in singles]
        expected = (Status.SAFE if all(each) else Status.VIOLATION if not any(each)
                    else Status.AMBIGUOUS)  # fmt: skip
        assert verdict.status is expected
        m.commit(full(m, letter))
        for single in singles:
            single.commit(full(single, letter))
    done = m.finish()
    each = [single.finish().safe for single in singles]
    expected = Status.SAFE if all(each) else Status.VIOLATION if not any(each) else Status.AMBIGUOUS
    assert done.status is expected


def test_a_shield_names_a_candidate_proposition_its_scene_lacks():
    from safetychip.envs import VirtualHomeEnv, load_scene

    s = CandidateSet.parse(['G !"is_grabbed(unicorn)"', 'G !"agent_at(kitchen)"'], "x")
    shield = Shield.of(VirtualHomeEnv(load_scene("apartment_1")), CandidateMonitor([s]))
    with pytest.raises(PropositionError, match=r"is_grabbed\(unicorn\).*no object or room"):
        shield.reset()


def test_one_set_instead_of_a_list_is_named():
    with pytest.raises(SpecificationError, match=r"got one CandidateSet: write \[CandidateSet"):
        CandidateMonitor(knife_set())
