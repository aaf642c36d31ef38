"""The grounded observer's extensions: lookahead, adaptive rigidity, ensembles with
arbitration, the hierarchical supervisor, and the episodic memory as an overlay."""

import json
import subprocess
import sys

import pytest

from safetychip.errors import ObserverError
from safetychip.memory import Episode, EpisodicMemory, MemoryFilter, WordEmbedder
from safetychip.observer import (
    MAX_HORIZON,
    UNSURE,
    Activity,
    AdaptiveRigidity,
    AdviceMarkers,
    Arbitration,
    Candidate,
    Condition,
    ContextValue,
    Decision,
    Ensemble,
    Fallback,
    FallbackLibrary,
    FilterOverlay,
    Length,
    Lookahead,
    Observer,
    ObserverFilter,
    ObserverState,
    Overlay,
    ProhibitoryOverlay,
    Supervisor,
    TransferOverlay,
    TurnRecord,
)
from safetychip.shield import Proposal

# -- lookahead --------------------------------------------------------------------------------


def _frustrating_user(state):
    """Grows frustrated at advice (the agent's last turn), calm otherwise."""
    state.context["frustration"] = 0.9 if "should" in state.history[-1].text else 0.1
    return "Hm."


def _calm_observer():
    return Observer([AdviceMarkers(), ContextValue("frustration")],
                    [ProhibitoryOverlay("calm", "advice", at_most=0.0,
                                        when=Condition("frustration", 0.7))])  # fmt: skip


def _lookahead_observer(rollout_policy, horizon=2):
    look = Lookahead(_calm_observer(), rollout_policy, _frustrating_user, horizon=horizon)
    return Observer([Length()], [ProhibitoryOverlay("brief", "length", at_most=12), look],
                    FallbackLibrary([Fallback("ask", "What would help?",
                                              reasons=("lookahead",))]),
                    budget=1)  # fmt: skip


def test_lookahead_refuses_a_reply_whose_rollout_turns_inadmissible():
    replies = iter([["You should just rest."], ["How was your day?"]])
    observer = _lookahead_observer(lambda state, feedback: "You should rest more.", horizon=1)
    record = observer.step(lambda state, feedback: next(replies), ObserverState())
    first, second = record.candidates
    assert (first.reason, first.admissible) == ("lookahead", False)
    assert "rollout turn 1 enters an inadmissible region: calm" in first.assessments[1].descriptor
    assert (second.reason, record.released, record.reason) == (
        "admissible",
        "How was your day?",
        "released",
    )


def test_lookahead_rejection_is_a_recorded_turn_reason_and_round_trips():
    observer = _lookahead_observer(lambda state, feedback: "You should rest more.")
    record = observer.step(lambda state, feedback: "You should rest.", ObserverState())
    assert (record.reason, record.fallback, record.released) == (
        "lookahead",
        "ask",
        "What would help?",
    )
    assert TurnRecord.from_json(record.to_json()) == record


def test_lookahead_rollout_runs_at_most_the_horizon_and_leaves_the_state_alone():
    calls = []

    def policy(state, feedback):
        calls.append(len(state.history))
        return "Tell me more?"

    state = ObserverState(context={"frustration": 0.1}).say("user", "Hi")
    look = Lookahead(_calm_observer(), policy, _frustrating_user, horizon=3)
    assessment = look.assess({}, Candidate("Hello!"), state)
    assert assessment.deviation == 0 and "3-turn rollout stays admissible" in assessment.descriptor
    assert calls == [3, 5, 7]
    assert len(state.history) == 1 and state.context == {"frustration": 0.1}


def test_a_failing_rollout_fails_safe_as_an_overlay_error():
    observer = _lookahead_observer(lambda state, feedback: None)
    record = observer.step(lambda state, feedback: "Hi.", ObserverState())
    assert (record.reason, record.source, record.fallback) == (
        "overlay_error",
        "fallback",
        "default",
    )
    assert "proposed nothing at turn 1" in record.notes[0]


@pytest.mark.parametrize("horizon", [0, MAX_HORIZON + 1])
def test_lookahead_horizon_is_bounded(horizon):
    with pytest.raises(ValueError, match=rf"horizon must be in \[1, {MAX_HORIZON}\], got"):
        Lookahead(_calm_observer(), lambda s, f: "ok", _frustrating_user, horizon=horizon)


# -- adaptive rigidity ------------------------------------------------------------------------


def _adaptive(floor=0.0):
    brief = ProhibitoryOverlay("brief", "length", at_most=20, rigidity=10)
    return AdaptiveRigidity(brief, "negativity", n_max=4, floor=floor)


@pytest.mark.parametrize(
    ("score", "expected"),
    [(-1, 10.0), (0, 10.0), (1, 7.5), (4, 0.0), (9, 0.0)],
)
def test_adaptive_rigidity_follows_the_margin_and_clips_at_both_ends(score, expected):
    assert _adaptive().rigidity_at(score) == pytest.approx(expected)


def test_adaptive_rigidity_keeps_its_floor_once_the_margin_is_spent():
    adaptive = _adaptive(floor=2)
    assert adaptive.rigidity_at(0) == 10 and adaptive.rigidity_at(4) == adaptive.rigidity_at(8) == 2


def test_adaptive_rigidity_admits_then_refuses_the_same_reply_as_negativity_rises():
    observer = Observer([Length(), ContextValue("negativity", high=10)], [_adaptive()])
    reply = Candidate("one two three four five six seven eight nine ten " * 2 + "a b c d e")
    calm = observer.evaluate(reply, ObserverState(context={"negativity": 0}))
    tense = observer.evaluate(reply, ObserverState(context={"negativity": 3}))
    assert calm.admissible and calm.assessments[0].feedback == "implicit"
    assert not tense.admissible and tense.assessments[0].rigidity == 2.5
    assert tense.assessments[0].descriptor.endswith("(margin 1.00 of 4.00: ε 2.50)")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"n_max": 0}, "n_max must be a finite number > 0, got 0"),
     ({"n_max": 4, "floor": 11}, r"floor must be in \[0, 10\] \(the overlay's rigidity\)")],
)  # fmt: skip
def test_adaptive_rigidity_checks_its_parameters(kwargs, message):
    brief = ProhibitoryOverlay("brief", "length", at_most=20, rigidity=10)
    with pytest.raises(ValueError, match=message):
        AdaptiveRigidity(brief, "negativity", **kwargs)


def test_adaptive_transfer_overlay_keeps_its_kind_and_name():
    empathy = TransferOverlay("empathy", Condition("frustration", 0.7), "empathy", 0.5,
                              rigidity=0.05)  # fmt: skip
    adaptive = AdaptiveRigidity(empathy, "frustration", n_max=1)
    a = adaptive.assess({"frustration": 0.82, "empathy": 0.47}, Candidate("…"), ObserverState())
    assert (adaptive.kind, a.overlay, a.kind) == ("transfer", "empathy", "transfer")
    assert a.rigidity == pytest.approx(0.009) and not a.admissible


# -- ensembles --------------------------------------------------------------------------------

FIVE = Candidate("one two three four five")


def _members():
    """Three observers that bound the reply's length at 3, 6 and 9 words."""
    return {name: Observer([Length()], [ProhibitoryOverlay(name, "length", at_most=words)])
            for name, words in (("short", 3), ("medium", 6), ("long", 9))}  # fmt: skip


@pytest.mark.parametrize(
    ("arbitration", "weights", "quota", "admitted"),
    [("majority", None, 0.5, True), ("MAJ", {"medium": 0.1, "long": 0.1}, 0.5, True),
     ("weighted", {"short": 3}, 0.5, False), ("weighted", {"short": 0.5}, 0.5, True),
     ("weighted", None, 0.7, False), ("intersection", None, 0.5, False)],
)  # fmt: skip
def test_arbitrations_combine_the_same_votes(arbitration, weights, quota, admitted):
    ensemble = Ensemble(_members(), arbitration, weights=weights, quota=quota, tolerance=1)
    record = ensemble.evaluate(FIVE, ObserverState())
    assert ensemble.votes(record) == {"short": False, "medium": True, "long": True}
    assert record.admissible is admitted
    assert record.reason == ("admissible" if admitted else "deviation")
    assert [a.overlay for a in record.assessments] == ["short.short", "medium.medium",
                                                       "long.long"]  # fmt: skip
    assert set(record.features) == {"short.length", "medium.length", "long.length"}


def test_disagreement_is_a_risk_signal_that_falls_back_to_unsure():
    ensemble = Ensemble(_members())
    record = ensemble.step(lambda state, feedback: FIVE, ObserverState())
    assert (record.reason, record.fallback, record.released) == ("disagreement", "unsure",
                                                                 UNSURE.text)  # fmt: skip
    assert record.candidates[0].reason == "disagreement"
    assert TurnRecord.from_json(record.to_json()) == record


def test_disagreement_regenerates_within_the_budget_and_unanimity_is_released():
    replies = iter([FIVE, "Hi there."])
    record = Ensemble(_members(), budget=1).step(lambda s, f: next(replies), ObserverState())
    assert (record.reason, record.released) == ("released", "Hi there.")
    assert record.feedback[0].descriptors[-1] == "the observers disagree"


def test_a_weighted_three_to_one_split_passes_the_default_tolerance():
    ensemble = Ensemble(_members(), "weighted", weights={"medium": 2})
    record = ensemble.step(lambda state, feedback: FIVE, ObserverState())
    assert (record.reason, record.released) == ("released", FIVE.text)


def test_an_ensemble_member_that_raises_fails_safe():
    class Broken(Overlay):
        kind, name = "prohibitory", "broken"

        def assess(self, features, candidate, state):
            raise RuntimeError("boom")

    members = {**_members(), "broken": Observer(overlays=[Broken()])}
    record = Ensemble(members).step(lambda state, feedback: FIVE, ObserverState())
    assert (record.reason, record.fallback) == ("overlay_error", "default")
    assert "RuntimeError('boom')" in record.notes[0]


def test_bad_arbitrations_and_ensembles_are_refused_with_the_choices():
    with pytest.raises(ValueError, match="unknown arbitration 'vote': choose one of majority, "
                                         "weighted, intersection"):  # fmt: skip
        Ensemble(_members(), "vote")
    with pytest.raises(ValueError, match="unknown arbitration ''"):
        Arbitration.of("")
    with pytest.raises(ObserverError, match="at least two observers named without dots"):
        Ensemble({"only": Observer()})
    with pytest.raises(ObserverError, match=r"must be > 0 and name members \(short, medium"):
        Ensemble(_members(), "weighted", weights={"tiny": 1})
    with pytest.raises(ObserverError, match="must be > 0"):
        Ensemble(_members(), "weighted", weights={"short": 0})
    with pytest.raises(ValueError, match=r"quota must be in \[0, 1\), got 1"):
        Ensemble(_members(), "weighted", quota=1)


# -- hierarchy --------------------------------------------------------------------------------


def _supervisor(**kwargs):
    """Small talk, breathing and a creative task, each replying with its own line."""
    return Supervisor({name: Activity(Observer(), lambda state, feedback, line=line: line)
                       for name, line in (("small_talk", "How was lunch?"),
                                          ("breathing", "Breathe in with me."),
                                          ("creative", "Shall we draw a dragon?"))},
                      **kwargs)  # fmt: skip


def _run(supervisor, signals):
    state = ObserverState()
    for given in signals:
        state.context = dict(given)
        supervisor.step(state)
    return [(d.decision, d.activity) for d in supervisor.records]


SILENCE, REFUSAL, FIXATION = {"silence": True}, {"refusal": True}, {"fixation": True}


@pytest.mark.parametrize(
    ("signals", "expected"),
    [
        ([{}, SILENCE, SILENCE, SILENCE, SILENCE, {}],
         [("engage", "small_talk"), ("silent", "small_talk"), ("silent", "small_talk"),
          ("end", None), ("silent", None), ("engage", "small_talk")]),
        ([REFUSAL, REFUSAL, REFUSAL, {}, REFUSAL, REFUSAL, REFUSAL, REFUSAL],
         [("engage", "small_talk"), ("switch", "breathing"), ("engage", "breathing"),
          ("engage", "breathing"), ("engage", "breathing"), ("switch", "creative"),
          ("engage", "creative"), ("switch", "small_talk")]),
        ([REFUSAL, REFUSAL, REFUSAL, REFUSAL, REFUSAL, REFUSAL, REFUSAL],
         [("engage", "small_talk"), ("switch", "breathing"), ("engage", "breathing"),
          ("switch", "creative"), ("engage", "creative"), ("end", None), ("silent", None)]),
        ([FIXATION, FIXATION, FIXATION, {**SILENCE, **FIXATION}],
         [("switch", "breathing"), ("switch", "creative"), ("switch", "small_talk"),
          ("switch", "breathing")]),
    ],
    ids=["silences-end-then-resume", "refusals-switch", "all-refused-end", "fixation-cycles"],
)  # fmt: skip
def test_the_supervisor_is_a_deterministic_state_machine(signals, expected):
    assert _run(_supervisor(), signals) == expected
    assert _run(_supervisor(), signals) == expected


def test_supervisor_decisions_are_recorded_with_the_activity_turn():
    supervisor = _supervisor(silences=1)
    _run(supervisor, [{}, REFUSAL, REFUSAL, SILENCE])
    decisions = supervisor.records
    assert [d.released for d in decisions] == ["How was lunch?", "How was lunch?",
                                               "Breathe in with me.", None]  # fmt: skip
    assert [d.why for d in decisions] == ["the student engages", "the student engages",
                                          "2 refusals", "1 silences"]  # fmt: skip
    assert all(Decision.from_dict(json.loads(d.to_json())) == d for d in decisions)
    assert repr(supervisor) == ("<Supervisor small_talk → breathing → creative: at None, "
                                "4 decisions>")  # fmt: skip
    assert supervisor.reset().records == [] and supervisor.current == "small_talk"


def test_a_bad_signal_keeps_the_supervisor_silent_and_says_why():
    decision = _supervisor().step(ObserverState(context={"refusal": "maybe"}))
    assert (decision.decision, decision.activity, decision.released) == (
        "silent",
        "small_talk",
        None,
    )
    assert decision.why.startswith("fail safe: signal 'refusal' is 'maybe': set state.context")


def test_an_engaged_activity_fails_safe_inside_its_observer():
    supervisor = Supervisor({"chat": Activity(Observer(), lambda state, feedback: None)})
    decision = supervisor.step(ObserverState())
    assert decision.decision == "engage" and decision.record.reason == "no_candidate"


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [({}, {}, "at least one activity"),
     ({"a": None}, {"silences": 0}, "silences and refusals must be at least 1, got 0 and 2")],
)  # fmt: skip
def test_bad_supervisors_are_refused(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Supervisor(args, **kwargs)


# -- the episodic memory as an overlay (item 6) ---------------------------------------------


def test_the_memory_inside_the_observer_refuses_as_the_memory_filter_directly():
    with EpisodicMemory(embedder=WordEmbedder()) as memory:
        memory.add(Episode("walk to hallway", harm="collision"))
        memory.add(Episode("push the vase", harm="breakage"))
        direct = MemoryFilter(memory)
        observer = Observer(overlays=[FilterOverlay(MemoryFilter(memory))])
        through, refused = ObserverFilter(observer), []
        for action in ["walk to hallway", "push the vase", "walk to kitchen", "open fridge",
                       "done"]:  # fmt: skip
            proposal = Proposal(action)
            expected, got = direct.judge(proposal, {}, ()), through.judge(proposal, {}, ())
            assert got.admitted is expected.admitted
            assert got == expected if not expected.admitted else got.filter == "observer"
            refused += [] if expected.admitted else [action]
            record = observer.evaluate(Candidate(action, payload=proposal), ObserverState())
            assert record.admissible is expected.admitted
            assert record.assessments[0].judgement == expected
        assert refused == ["walk to hallway", "push the vase"]
        turn = observer.step(lambda state, feedback: Candidate("push the vase",
                                                               payload=Proposal("push the vase")),
                             ObserverState())  # fmt: skip
        assert (turn.reason, turn.source) == ("empty", "fallback")
        refusal = turn.candidates[0].assessments[0]
        assert refusal.overlay == "memory" and refusal.judgement.constraints == ("e2",)
        assert refusal.descriptor == refusal.judgement.reason


def test_the_observer_package_does_not_import_the_memory():
    code = "import sys, safetychip.observer; print('safetychip.memory' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert done.stdout.strip() == "False"
