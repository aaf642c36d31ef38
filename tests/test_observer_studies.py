"""The remaining offline extractors (specificity, VADER affect, trajectory aggregates, topic
drift) and the small-talk drift case study."""

import pytest

from safetychip.errors import MissingDependencyError
from safetychip.llm import Embedder, MiniLMEmbedder, ScriptedModel
from safetychip.observer import (
    AdviceMarkers,
    Affect,
    Brevity,
    Candidate,
    Consecutive,
    ObserverState,
    RunningMean,
    Specificity,
    TopicDrift,
)
from safetychip.observer._studies import (
    SMALLTALK_BOUNDS,
    plot_smalltalk,
    smalltalk_study,
)


def _measure(extractor, text, state=None):
    return extractor.measure(Candidate(text), state or ObserverState())


@pytest.mark.parametrize(("text", "expected"), [
    ("", 0.0), ("That sounds lovely! How did it go?", 0.0),
    ("I went to Paris with Anna.", 2 / 6), ("It took 3 days and 2.5 hours, 40% faster.", 3 / 9),
    ("Paris is big.", 0.0),  # a sentence-initial capital is not counted
    ("Twelve of twenty people came.", 2 / 5),
])  # fmt: skip
def test_specificity_counts_numbers_and_named_entities(text, expected):
    assert _measure(Specificity(), text) == pytest.approx(expected)


def test_affect_reads_valence_and_its_shares():
    assert _measure(Affect(), "I'm so happy for you, that's wonderful!") > 0.5
    assert _measure(Affect(), "This is terrible, I hate it.") < -0.5
    assert _measure(Affect(), "The table is in the kitchen.") == 0.0
    neg = Affect("neg")
    assert (neg.name, neg.low, neg.high) == ("affect_neg", 0.0, 1.0)
    assert 0 < _measure(neg, "This is terrible.") <= 1


def test_an_unknown_affect_score_lists_the_choices():
    with pytest.raises(ValueError, match="unknown affect score 'joy': choose one of compound"):
        Affect("joy")


def test_affect_without_vader_gives_the_install_command(monkeypatch):
    import importlib

    real = importlib.import_module

    def fake(name, *args):
        if name.startswith("vaderSentiment"):
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake)
    with pytest.raises(MissingDependencyError, match=r"pip install 'safetychip\[affect\]'"):
        _measure(Affect(), "hello")


def test_running_mean_and_consecutive_over_the_agents_last_turns():
    state = ObserverState()
    for text in ["Try this.", "You should rest.", "Nice!", "Make sure to eat.", "Do it."]:
        state.say("agent", text).say("user", "ok")
    advice = "Remember to sleep."
    assert _measure(RunningMean(AdviceMarkers(), n=4), advice, state) == pytest.approx(3 / 4)
    assert _measure(Consecutive(AdviceMarkers(), at_least=1, n=10), advice, state) == 3
    assert _measure(Consecutive(AdviceMarkers(), at_least=1, n=2), advice, state) == 2
    assert _measure(Consecutive(AdviceMarkers(), at_least=1), "Nice.", state) == 0
    long = Consecutive(Brevity(), at_most=0.5, name="long_run")
    assert (long.name, long.low, long.high) == ("long_run", 0.0, 10.0)
    assert RunningMean(Brevity()).name == "mean_brevity"


@pytest.mark.parametrize(("make", "message"), [
    (lambda: RunningMean(Brevity(), n=0), "a window of n >= 1"),
    (lambda: Consecutive(Brevity()), "exactly one of at_least and at_most"),
    (lambda: TopicDrift(n=0), "n >= 1 past turns"),
])  # fmt: skip
def test_bad_aggregates_say_what_to_fix(make, message):
    with pytest.raises(ValueError, match=message):
        make()


class Counting(Embedder):
    """Letter counts, and how many texts were embedded."""

    def __init__(self):
        super().__init__("letters")
        self.embedded = 0

    def _embed(self, texts):
        self.embedded += len(texts)
        return [[t.lower().count(c) + 0.01 for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts]


def test_topic_drift_is_a_cosine_distance_cached_per_utterance():
    embedder = Counting()
    drift = TopicDrift(embedder, n=2)
    state = ObserverState().say("user", "cats and dogs").say("agent", "dogs and cats")
    same = _measure(drift, "cats dogs and", state)
    other = _measure(drift, "zzz qqq xxx", state)
    assert 0 <= same < 0.05 < other <= 2
    _measure(drift, "cats dogs and", state)
    assert embedder.embedded == 4  # two turns and two candidates, each once


def test_topic_drift_loads_minilm_only_when_measured():
    drift = TopicDrift()
    assert drift._embedder is None
    assert isinstance(drift.embedder, MiniLMEmbedder)


def test_topic_drift_with_minilm_separates_on_and_off_topic():
    drift = TopicDrift(n=2)
    state = ObserverState().say("user", "I cooked pasta tonight.").say("agent", "Yum, what sauce?")
    on = _measure(drift, "Tomato sauce with basil sounds great.", state)
    off = _measure(drift, "The stock market fell three percent today.", state)
    assert on < off


def test_the_study_is_deterministic_and_labelled_a_stand_in():
    a, b = smalltalk_study(turns=20), smalltalk_study(turns=20)
    assert [r.to_dict() for r in a.observed.records] == [r.to_dict() for r in b.observed.records]
    assert a.baseline.features == b.baseline.features
    assert a.stand_in and "offline stand-in, not an LLM" in repr(a)


def test_the_observer_holds_the_drift_inside_the_bounds():
    study = smalltalk_study(turns=50)
    baseline, observed = study.baseline, study.observed
    assert observed.outside(SMALLTALK_BOUNDS, study.rigidity) == []
    drifted = {name for _, name, _ in baseline.outside(SMALLTALK_BOUNDS, study.rigidity)}
    assert drifted == set(SMALLTALK_BOUNDS)  # the base policy leaves every bound
    assert baseline.series("brevity")[-1] < 0.2 < observed.series("brevity")[-1]
    regenerated = [
        r for r in observed.records if len(r.feedback) and r.feedback[0].kind == "forced"
    ]
    assert regenerated and all(r.reason == "released" for r in observed.records)


def test_a_loose_rigidity_lets_some_drift_through():
    strict, loose = smalltalk_study(turns=30), smalltalk_study(turns=30, rigidity=0.5)
    mean = lambda run: sum(run.series("advice")) / len(run.features)  # noqa: E731
    assert mean(loose.observed) > mean(strict.observed) == 0
    assert loose.observed.outside(SMALLTALK_BOUNDS, 0.5) == []


def test_any_chat_model_can_drive_the_study():
    study = smalltalk_study(turns=2, model=ScriptedModel(["Hello!", "Nice.", "Hi!", "Good."]))
    assert study.model == "scripted-stand-in" and study.stand_in  # a stand-in: labelled
    assert [u.text for u in study.baseline.state.history if u.speaker == "agent"] == [
        "Hello!",
        "Nice.",
    ]
    with pytest.raises(ValueError, match="at least 1 turn"):
        smalltalk_study(turns=0)


def test_the_figure_is_written(tmp_path):
    fig = plot_smalltalk(smalltalk_study(turns=10), tmp_path / "drift.png")
    assert (tmp_path / "drift.png").stat().st_size > 10_000
    assert "offline stand-in" in fig._suptitle.get_text()
