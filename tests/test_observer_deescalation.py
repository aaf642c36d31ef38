"""The de-escalation case study: the supervisor's decisions follow the stand-in student's
signals, deterministically, and the mode timeline is written."""

import pytest

from safetychip.observer import (
    DECISIONS,
    DEESCALATION_ACTIVITIES,
    Activity,
    Observer,
    ObserverState,
    StandInStudent,
    Supervisor,
    deescalation_study,
    plot_deescalation,
)


def test_the_study_is_deterministic_seeded_and_labelled_a_stand_in():
    a, b = deescalation_study(turns=40, seed=3), deescalation_study(turns=40, seed=3)
    assert a.to_dicts() == b.to_dicts() and a.signals == b.signals
    assert [d.to_json() for d in a.decisions] == [d.to_json() for d in b.decisions]
    assert a.to_dicts() != deescalation_study(turns=40, seed=4).to_dicts()
    assert a.stand_in and "offline stand-in, not an LLM" in repr(a)
    assert "offline stand-in, not an LLM" in repr(StandInStudent())
    assert {d.decision for d in a.decisions} == set(DECISIONS)


@pytest.mark.parametrize("seed", range(5))
def test_the_decisions_follow_the_signals(seed):
    study = deescalation_study(turns=60, seed=seed)
    names = list(DEESCALATION_ACTIVITIES)
    current = names[0]
    for decision, signals in zip(study.decisions, study.signals):
        silence, refusal, fixation = (signals[k] for k in ("silence", "refusal", "fixation"))
        if current is None:
            expected = "silent" if silence or refusal else "engage"
            assert decision.decision == expected, decision
        elif fixation:
            assert decision.decision == "switch"
            assert decision.activity == names[(names.index(current) + 1) % len(names)]
        elif silence:
            assert decision.decision in ("silent", "end")
        elif refusal:
            assert decision.decision in ("engage", "switch", "end")
        else:
            assert decision.decision == "engage" and decision.activity == current
        assert (decision.released is not None) == (decision.decision in ("engage", "switch"))
        current = decision.activity
    # replaying the signals through a fresh supervisor makes the same decisions
    replay = Supervisor({n: Activity(Observer(), lambda s, f: "ok") for n in names})
    state = ObserverState()
    for decision, signals in zip(study.decisions, study.signals):
        state.context = dict(signals)
        again = replay.step(state)
        assert (again.decision, again.activity, again.why) == (
            decision.decision,
            decision.activity,
            decision.why,
        )


def test_the_student_reacts_to_the_activity_offered():
    refusals = {}
    for name in DEESCALATION_ACTIVITIES:
        student = StandInStudent(seed=0)
        refusals[name] = sum(student.respond(name)[1]["refusal"] for _ in range(500))
    assert refusals["small talk"] > refusals["breathing"] > refusals["creative task"]
    with pytest.raises(ValueError, match="at least 1 turn"):
        deescalation_study(turns=0)


def test_the_timeline_is_written(tmp_path):
    fig = plot_deescalation(deescalation_study(turns=30), tmp_path / "timeline.png")
    assert (tmp_path / "timeline.png").stat().st_size > 10_000
    assert "offline stand-in, not an LLM" in fig._suptitle.get_text()
    assert not list(tmp_path.glob("*.tmp"))
