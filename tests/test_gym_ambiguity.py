"""The Gymnasium shield wrapper with a constraint whose formula is not picked yet."""

from __future__ import annotations

from test_gym_shield import AtEdge, Line

from safetychip.gym import ShieldWrapper
from safetychip.monitor import CandidateMonitor, CandidateSet

READINGS = ['G !"at_edge"', 'F !"at_edge"']


def wrapper(**options) -> ShieldWrapper:
    s = CandidateSet.parse(READINGS, "keep away from the edge", name="edge",
                           readings=["never reach the edge", "do not stay at the edge"])  # fmt: skip
    return ShieldWrapper(Line(), AtEdge(), [s], fallback="none", **options)


def test_unattended_the_disputed_step_is_refused_and_its_question_kept():
    env = wrapper()
    env.reset()
    assert env.step(0)[-1]["shield"].admitted  # to position 1: both readings admit it
    report = env.step(0)[-1]["shield"]  # to the edge: they disagree
    assert not report.admitted and report.executed is None
    assert report.refusals[0].judgement.constraints == ("edge",)
    monitor = env.shield.monitor
    assert isinstance(monitor, CandidateMonitor)
    (question,) = monitor.open_questions
    assert question.forbidding == (0,) and question.allowing == (1,)


def test_an_answer_lets_it_run_and_narrows_the_set():
    asked = []
    env = wrapper(ask=lambda q: asked.append(q) or True)
    env.reset()
    env.step(0)
    assert env.step(0)[-1]["shield"].admitted
    assert len(asked) == 1
    (s,) = env.shield.monitor.candidate_sets
    assert str(s.picked.formula) == str(s.candidates[1])


def test_a_recreated_wrapper_keeps_the_set_not_the_conjunction_of_its_candidates():
    env = wrapper()
    recorded = env._saved_kwargs["constraints"]  # what gymnasium.make(env.spec) rebuilds from
    (s,) = recorded
    assert isinstance(s, CandidateSet) and s.name == "edge"
    again = ShieldWrapper(Line(), AtEdge(), recorded, fallback="none")
    again.reset()
    again.step(0)
    assert not again.step(0)[-1]["shield"].admitted  # still asked about, not forbidden outright
    assert len(again.shield.monitor.open_questions) == 1
