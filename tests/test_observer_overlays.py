"""The grounded observer's overlays and extractors: the paper's worked example, each kind of
overlay, implicit against forced feedback, permissions and their conflicts."""

import math

import pytest

from safetychip.errors import ObserverError
from safetychip.observer import (
    OFFLINE,
    AdviceMarkers,
    Assessment,
    Brevity,
    Candidate,
    Condition,
    ContextValue,
    Length,
    Observer,
    ObserverState,
    PermissiveOverlay,
    ProhibitoryOverlay,
    QuestionRate,
    Repetition,
    TransferOverlay,
    extractor,
)  # fmt: skip

PHI, TAU = 0.7, 0.5


def _empathy_overlay(rigidity):
    return TransferOverlay("empathy", Condition("frustration", PHI), "empathy", TAU,
                           rigidity=rigidity)  # fmt: skip


def _assess(overlay, **features):
    return overlay.assess(features, Candidate("reply"), ObserverState())


@pytest.mark.parametrize(
    ("empathy", "rigidity", "deviation", "admissible", "feedback"),
    [(0.21, 0.05, 0.29, False, "forced"), (0.47, 0.05, 0.03, True, "implicit"),
     (0.47, 0.01, 0.03, False, "forced")],
)  # fmt: skip
def test_the_worked_example_of_the_paper(empathy, rigidity, deviation, admissible, feedback):
    """f = 0.82 ≥ φ; e against τ = 0.50: δ = 0.29 rejected at ε = 0.05; δ = 0.03 admitted
    with implicit feedback at ε = 0.05 and rejected at ε = 0.01."""
    a = _assess(_empathy_overlay(rigidity), frustration=0.82, empathy=empathy)
    assert a.deviation == pytest.approx(deviation)
    assert (a.admissible, a.feedback) == (admissible, feedback)
    assert a.kind == "transfer" and "empathy" in a.descriptor and "0.82" in a.descriptor


def test_the_worked_example_through_the_observer():
    empathy = extractor("empathy", "empathy of the reply")(
        lambda c, s: {"I hear you, that is hard.": 0.47, "Do step 3.": 0.21}[c.text]
    )
    observer = Observer([ContextValue("frustration"), empathy], [_empathy_overlay(0.05)])
    state = ObserverState(context={"frustration": 0.82})
    replies = iter([["Do step 3."], ["I hear you, that is hard."]])
    record = observer.step(lambda s, f: next(replies), state)
    assert record.released == "I hear you, that is hard." and record.reason == "released"
    forced, implicit = record.feedback
    assert forced.kind == "forced" and "0.29" in forced.descriptors[0]
    assert implicit.kind == "implicit" and "0.03" in implicit.descriptors[0]
    assert state.feedback == implicit  # handed to the next turn


def test_a_transfer_overlay_does_not_apply_below_its_condition():
    a = _assess(_empathy_overlay(0.0), frustration=0.3, empathy=0.0)
    assert a.deviation == 0 and a.feedback == "none" and "< 0.70" in a.descriptor


def test_a_transfer_overlay_moves_away_from_a_class_too():
    overlay = TransferOverlay("calm", Condition("frustration", PHI), "empathy", TAU,
                              away="advice", ceiling=0.2)  # fmt: skip
    a = _assess(overlay, frustration=0.9, empathy=0.4, advice=0.5)
    assert a.deviation == pytest.approx(0.1 + 0.3)
    assert "advice 0.50 is above 0.20 by 0.30" in a.descriptor


def test_a_prohibitory_overlay_excludes_past_its_limit():
    brief = ProhibitoryOverlay("brief", "length", at_most=20, rigidity=2)
    assert _assess(brief, length=20).feedback == "none"
    assert _assess(brief, length=22).feedback == "implicit"
    assert _assess(brief, length=23).feedback == "forced"
    floor = ProhibitoryOverlay("brevity", "brevity", at_least=0.5,
                               when=Condition("frustration", PHI))  # fmt: skip
    assert _assess(floor, brevity=0.2, frustration=0.9).deviation == pytest.approx(0.3)
    assert _assess(floor, brevity=0.2, frustration=0.1).deviation == 0


def test_a_prohibitory_overlay_needs_exactly_one_limit():
    with pytest.raises(ValueError, match="exactly one of at_most and at_least"):
        ProhibitoryOverlay("x", "length")
    with pytest.raises(ValueError, match="rigidity must be a finite number >= 0"):
        ProhibitoryOverlay("x", "length", at_most=1, rigidity=-1)


def _advice_observer(brief_rigidity):
    return Observer(
        [Length(), ContextValue("asked")],
        [ProhibitoryOverlay("brief", "length", at_most=3, rigidity=brief_rigidity),
         TransferOverlay("no_advice", Condition("asked", 0.0), "asked", 2.0),
         PermissiveOverlay("asked_for_it", Condition("asked", 1.0), ["brief", "no_advice"])],
    )  # fmt: skip


def test_a_permission_lifts_soft_rejections_under_its_condition():
    observer = _advice_observer(brief_rigidity=0.5)
    reply = Candidate("You could try a short walk outside.")
    lifted = observer.evaluate(reply, ObserverState(context={"asked": 1.0}))
    assert lifted.admissible and set(lifted.lifted) == {"brief", "no_advice"}
    refused = observer.evaluate(reply, ObserverState(context={"asked": 0.5}))
    assert not refused.admissible and refused.reason == "deviation"


def test_a_permission_never_lifts_a_hard_prohibition():
    """The conflict rule: a prohibitory overlay with ε = 0 wins over a permission."""
    record = _advice_observer(brief_rigidity=0.0).evaluate(
        Candidate("You could try a short walk outside."), ObserverState(context={"asked": 1.0})
    )
    assert not record.admissible and record.reason == "conflict"
    assert record.conflicts == ("brief",) and record.lifted == ("no_advice",)


def test_a_permission_names_overlays_of_its_observer():
    with pytest.raises(ObserverError, match="lifts unknown overlays ghost"):
        Observer(
            [ContextValue("asked")], [PermissiveOverlay("p", Condition("asked", 1), ["ghost"])]
        )
    with pytest.raises(ValueError, match="name the overlays it lifts"):
        PermissiveOverlay("p", Condition("asked", 1), [])


def test_an_overlay_reading_a_missing_feature_is_refused_at_construction():
    with pytest.raises(ObserverError, match="reads length, which no extractor provides"):
        Observer([], [ProhibitoryOverlay("brief", "length", at_most=3)])


def test_assessments_round_trip():
    a = Assessment("p", "permissive", "on", 0.0, 0.0, ("brief",))
    assert Assessment.from_dict(a.to_dict()) == a


def test_the_offline_extractors():
    state = ObserverState().say("agent", "the weather is nice today")
    reply = Candidate("You should take a walk. Is it sunny? The weather is nice today.")
    values = {e.name: e.measure(reply, state) for e in OFFLINE}
    assert values["length"] == 13
    assert values["brevity"] == pytest.approx(20 / 33)
    assert values["question_rate"] == pytest.approx(1 / 3)
    assert values["advice"] == pytest.approx(1 / 3)
    assert values["repetition"] == pytest.approx(5 / 12)  # "is" twice: 12 distinct words
    empty = Candidate("")
    assert [e.measure(empty, ObserverState()) for e in OFFLINE] == [0, 1, 0, 0, 0]
    assert AdviceMarkers().measure(Candidate("Avoid the stairs."), state) == 1
    assert QuestionRate().high == 1 and math.isinf(Length().high)


@pytest.mark.parametrize("bad", [lambda: Brevity(0), lambda: Repetition(0)])
def test_extractor_parameters_are_checked(bad):
    with pytest.raises(ValueError, match="got 0"):
        bad()


def test_a_feature_outside_its_range_is_an_error():
    score = extractor("score", "a score", 0, 1)(lambda c, s: 1.5)
    with pytest.raises(ObserverError, match=r"'score' is 1.5, outside its declared range \[0, 1\]"):
        score.measure(Candidate("x"), ObserverState())
    nan = extractor("nan", "not a number")(lambda c, s: float("nan"))
    with pytest.raises(ObserverError, match="'nan' is nan"):
        nan.measure(Candidate("x"), ObserverState())
    with pytest.raises(ObserverError, match=r"set state.context\['mood'\]"):
        ContextValue("mood").measure(Candidate("x"), ObserverState())
