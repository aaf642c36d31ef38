"""The grounded observer's loop: release, regeneration within a budget, fallbacks chosen by
their conditions, every rejection reason, every fail-safe path, and the JSON record."""

import json

import pytest

from safetychip.errors import ObserverError
from safetychip.llm import ScriptedModel
from safetychip.observer import (
    Candidate,
    Condition,
    ContextValue,
    Fallback,
    FallbackLibrary,
    Length,
    Observer,
    ObserverState,
    Overlay,
    PermissiveOverlay,
    ProhibitoryOverlay,
    TurnRecord,
    extractor,
)

LIBRARY = FallbackLibrary(
    [Fallback("unsure", "I'm not sure.", reasons=("low_confidence",)),
     Fallback("rephrase", "Let me put that differently.", reasons=("empty",),
              when=lambda state: state.context.get("rephrase", True))],
    default=Fallback("pause", "Let's pause for a moment."),
)  # fmt: skip


def _observer(**options):
    brief = ProhibitoryOverlay("brief", "length", at_most=4, rigidity=1)
    return Observer([Length()], [brief], LIBRARY, **options)


class Scripted:
    """A base policy replying from a script, keeping the feedback it was given."""

    def __init__(self, *rounds):
        self.rounds, self.feedback = list(rounds), []

    def __call__(self, state, feedback):
        self.feedback.append(feedback)
        return self.rounds.pop(0)


LONG = "this reply is far too long to pass"


def test_an_admissible_candidate_is_released():
    state = ObserverState().say("user", "hi")
    record = _observer().step(Scripted(["hello there"]), state)
    assert (record.released, record.source, record.reason) == ("hello there", "policy", "released")
    assert state.history[-1].text == "hello there" and state.feedback is None


def test_a_small_deviation_is_released_with_implicit_feedback_for_the_next_turn():
    state = ObserverState()
    policy = Scripted(["one two three four five"], ["ok"])
    observer = _observer()
    first = observer.step(policy, state)
    assert first.reason == "released" and first.feedback[-1].kind == "implicit"
    observer.step(policy, state)
    assert policy.feedback[1].kind == "implicit" and "above 4.00 by 1.00" in str(policy.feedback[1])


def test_regeneration_gives_forced_feedback_within_the_budget():
    policy = Scripted([LONG], [LONG], ["short"])
    record = _observer(budget=2).step(policy, ObserverState())
    assert record.released == "short" and [c.round for c in record.candidates] == [0, 1, 2]
    assert [f.kind for f in policy.feedback[1:]] == ["forced", "forced"]
    assert "brief: length 8.00 is above 4.00 by 4.00" in policy.feedback[1].descriptors


def test_a_spent_budget_falls_back_by_condition():
    policy = Scripted([LONG], [LONG], ["short"])
    record = _observer(budget=1).step(policy, ObserverState())
    assert (record.source, record.reason, record.fallback) == ("fallback", "empty", "rephrase")
    assert record.released == "Let me put that differently." and len(policy.rounds) == 1


def test_no_applicable_fallback_yields_the_default_and_says_so():
    state = ObserverState(context={"rephrase": False})
    record = _observer(budget=0).step(Scripted([LONG]), state)
    assert (record.reason, record.fallback) == ("empty", "pause")
    assert record.notes == ("no fallback applies to 'empty': the default fallback",)


def test_low_confidence_is_a_rejection():
    policy = Scripted([Candidate("sure", 0.3), Candidate("maybe", 0.2)], [Candidate("yes", 0.9)])
    record = _observer(budget=1, confidence=0.5).step(policy, ObserverState())
    assert record.released == "yes"
    assert policy.feedback[1].descriptors == ("confidence 0.30 is below 0.50",)
    record = _observer(budget=0, confidence=0.5).step(Scripted([Candidate("sure", 0.3)]),
                                                      ObserverState())  # fmt: skip
    assert (record.reason, record.fallback) == ("low_confidence", "unsure")


def test_the_best_admissible_candidate_is_the_most_confident_then_least_deviating():
    policy = Scripted([Candidate("one two three four five", 0.9), Candidate("a b", 0.9),
                       Candidate("a", 0.5), Candidate(LONG, 1.0)])  # fmt: skip
    assert _observer().step(policy, ObserverState()).released == "a b"


def test_a_conflict_between_overlays_is_a_rejection():
    hard = ProhibitoryOverlay("hard", "length", at_most=2)
    allow = PermissiveOverlay("allow", Condition("asked", 1), ["hard"])
    observer = Observer([Length(), ContextValue("asked")], [hard, allow], LIBRARY, budget=0)
    record = observer.step(Scripted(["one two three"]), ObserverState(context={"asked": 1}))
    assert (record.reason, record.fallback) == ("conflict", "pause")
    assert record.candidates[0].conflicts == ("hard",)


class Raising(Overlay):
    kind, name = "prohibitory", "raising"

    def assess(self, features, candidate, state):
        raise RuntimeError("broken overlay")


class Negative(Overlay):
    kind, name = "prohibitory", "negative"

    def assess(self, features, candidate, state):
        return self._assessment("nonsense", -1.0)


def _fail_safe(observer, policy):
    state = ObserverState()
    record = observer.step(policy, state)
    assert (record.source, record.fallback, record.released) == ("fallback", "pause",
                                                                  LIBRARY.default.text)  # fmt: skip
    assert state.history[-1].text == LIBRARY.default.text
    assert len(record.notes) == 1
    return record


@pytest.mark.parametrize(
    ("overlay", "note"), [(Raising(), "broken overlay"), (Negative(), "returned deviation -1.0")]
)
def test_an_overlay_fault_fails_safe(overlay, note):
    record = _fail_safe(Observer([], [overlay], LIBRARY), Scripted(["hello"]))
    assert record.reason == "overlay_error" and note in record.notes[0]
    assert record.candidates == ()  # nothing half-evaluated is recorded as admissible


def test_a_feature_out_of_range_fails_safe():
    wild = extractor("wild", "out of range", 0, 1)(lambda c, s: 2.0)
    record = _fail_safe(Observer([wild], [], LIBRARY), Scripted(["hello"]))
    assert record.reason == "feature_error" and "outside its declared range" in record.notes[0]


@pytest.mark.parametrize("nothing", [None, [], ()])
def test_a_policy_that_returns_nothing_fails_safe(nothing):
    record = _fail_safe(_observer(), Scripted(nothing))
    assert record.reason == "no_candidate" and "proposed nothing" in record.notes[0]


@pytest.mark.parametrize(
    ("output", "note"), [([42], "proposed 42"), ([Candidate("x", 1.5)], "confidence 1.5")]
)
def test_a_policy_that_returns_garbage_or_raises_fails_safe(output, note):
    record = _fail_safe(_observer(), Scripted(output))
    assert record.reason == "policy_error" and note in record.notes[0]

    def raising(state, feedback):
        raise TimeoutError("model down")

    assert _fail_safe(_observer(), raising).reason == "policy_error"


def test_a_fail_safe_after_a_regeneration_keeps_the_rounds_before():
    record = _fail_safe(_observer(), Scripted([LONG], None))
    assert record.reason == "no_candidate" and len(record.candidates) == 1
    assert [f.kind for f in record.feedback] == ["forced"]


def test_a_fallback_condition_that_raises_does_not_apply():
    def broken(state):
        raise KeyError("x")

    library = FallbackLibrary([Fallback("b", "b", when=broken)])
    assert library.choose("empty", ObserverState())[0].name == "default"


def test_a_chat_model_is_a_base_policy():
    model = ScriptedModel([LONG, "hello"])
    state = ObserverState().say("user", "hi")
    record = _observer().step(model, state)
    assert record.released == "hello"
    last = model.requests[1].messages
    assert last[0].role == "user" and last[-1].role == "system" and "forced" in last[-1].content


def test_the_record_round_trips_through_json():
    state = ObserverState()
    record = _observer(budget=1).step(Scripted([LONG], ["one two three four five"]), state)
    text = record.to_json()
    data = json.loads(text)
    assert data["candidates"][0]["assessments"][0]["feedback"] == "forced"
    assert data["candidates"][0]["features"] == {"length": 8.0}
    assert TurnRecord.from_json(text) == record
    with pytest.raises(ObserverError, match="lacks the field 'released'"):
        TurnRecord.from_dict({"reason": "empty", "candidates": []})
    with pytest.raises(ObserverError, match="unknown turn reason 'bored'"):
        TurnRecord.from_dict({**data, "reason": "bored"})


def test_options_are_checked():
    with pytest.raises(ValueError, match="budget must be >= 0, got -1"):
        Observer(budget=-1)
    with pytest.raises(TypeError, match="ChatModel or a callable"):
        _observer().step("not a policy", ObserverState())  # type: ignore[arg-type]
    with pytest.raises(ObserverError, match="extractor names must be unique"):
        Observer([Length(), Length()])
