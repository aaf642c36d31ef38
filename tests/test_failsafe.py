"""Fail safe: no path runs an action the constraints forbid (issue 44). A monitor nested in
the observer is kept up to date, a mapping cannot invent truth values, a filter cannot change
or hide what the monitor sees, a failed commit stops the run, and concurrent proposals are
serialised."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Mapping

import pytest

from safetychip.envs import PropositionEnv
from safetychip.errors import MonitorError
from safetychip.monitor import Monitor
from safetychip.observer import (
    AdaptiveRigidity,
    Ensemble,
    FilterOverlay,
    Observer,
    ObserverFilter,
    extractor,
)
from safetychip.observer._overlay import Overlay
from safetychip.shield import Filter, Judgement, MonitorFilter, Shield

NEVER_B_AFTER_A = "G(a -> G !b)"
UNSAFE_RUN = ["set a", "clear a", "set b"]


def _env(*names: str) -> PropositionEnv:
    return PropositionEnv(list(names or ("a", "b")))


def _chip() -> FilterOverlay:
    return FilterOverlay(MonitorFilter(Monitor([NEVER_B_AFTER_A])))


@extractor("calm", "a constant negativity score", low=0.0, high=10.0)
def _calm(candidate, state):
    return 0.0


class _Hiding(Overlay):
    """A user's wrapper that keeps the chip in an attribute of its own making."""

    kind = "prohibitory"

    def __init__(self, inner: Overlay) -> None:
        self.wrapped = {"inner": [inner]}
        self.name, self.rigidity = "hiding", 0.0

    def assess(self, features, candidate, state):
        return self.wrapped["inner"][0].assess(features, candidate, state)


def _outcomes(shield: Shield, actions) -> list[str]:
    shield.reset()
    return [shield.propose(a).outcome for a in actions]


# -- class 1: a monitor nested inside the observer --------------------------------------------


@pytest.mark.parametrize(
    "observer",
    [
        pytest.param(lambda: Observer(overlays=[_chip()]), id="direct"),
        pytest.param(
            lambda: Ensemble(
                {"x": Observer(overlays=[_chip()]), "y": Observer(overlays=[_chip()])},
                "intersection",
            ),
            id="ensemble",
        ),  # fmt: skip
        pytest.param(
            lambda: Observer([_calm], [AdaptiveRigidity(_chip(), "calm", n_max=1)]),
            id="adaptive",
        ),
        pytest.param(lambda: Observer(overlays=[_Hiding(_chip())]), id="user-wrapper"),
        pytest.param(
            lambda: Ensemble(
                {
                    "x": Observer([_calm], [AdaptiveRigidity(_chip(), "calm", n_max=1)]),
                    "y": Observer(overlays=[_Hiding(_chip())]),
                },
                "intersection",
            ),
            id="ensemble-of-wrappers",
        ),  # fmt: skip
    ],
)
def test_a_nested_monitor_is_reset_and_committed(observer):
    shield = Shield(_env(), [ObserverFilter(observer())])
    assert _outcomes(shield, UNSAFE_RUN) == ["executed", "executed", "pruned"]
    assert shield.state["b"] is False
    # a second episode starts from a fresh trace: b alone is fine again
    assert _outcomes(shield, ["set b"]) == ["executed"]


def test_a_nested_filter_is_given_idle_time():
    class Deferring(Filter):
        name = "deferring"

        def __init__(self):
            self.idled = []

        def judge(self, proposal, state, trace):
            return Judgement.admit(self.name)

        def idle(self, seconds):
            self.idled.append(seconds)
            return 1

    inner = Deferring()
    wrapped = AdaptiveRigidity(FilterOverlay(inner), "calm", n_max=1)
    chip = ObserverFilter(Ensemble({"x": Observer([_calm], [wrapped]), "y": Observer()}))
    shield = Shield(_env(), [chip])
    assert shield.idle(0.5) == 1 and inner.idled == [0.5]


def test_an_observer_filter_tracks_the_nested_propositions():
    inner = Ensemble({"x": Observer(overlays=[_chip()]), "y": Observer()}, "intersection")
    assert set(ObserverFilter(inner).propositions) == {"a", "b"}


def test_an_unreachable_monitor_refuses_to_start():
    class Opaque:  # not an overlay, a container, or an observer: the filter cannot see inside
        def __init__(self, overlay):
            self.overlay = overlay

    class Sealed(Overlay):
        kind = "prohibitory"

        def __init__(self, inner):
            self.box, self.name, self.rigidity = Opaque(inner), "sealed", 0.0

        def assess(self, features, candidate, state):
            return self.box.overlay.assess(features, candidate, state)

    chip = ObserverFilter(Observer(overlays=[Sealed(_chip())]))
    shield = Shield(_env(), [chip])
    start = shield.reset()  # found out at the first judgement, which it refuses
    assert start.admitted
    step = shield.propose("set a")
    assert step.outcome == "pruned"
    assert "overlay 'monitor'" in step.judgement.reason
    assert "never reset" in step.judgement.reason


# -- class 2: a mapping that invents values ---------------------------------------------------


class _Inventive(Mapping):
    """A mapping answering False for any name it was not given (like ``defaultdict``)."""

    def __init__(self, data):
        self.data = dict(data)

    def __getitem__(self, key):
        return self.data.get(key, False)

    def __iter__(self):
        return iter(self.data)

    def __len__(self):
        return len(self.data)


@pytest.mark.parametrize("kind", ["defaultdict", "inventive", "read-only-defaultdict"])
def test_a_missing_proposition_is_not_filled_in(kind):
    from types import MappingProxyType

    monitor = Monitor(["G !b"])
    monitor.reset({"b": False})
    state = _Inventive({"B": True}) if kind == "inventive" else defaultdict(bool, {"B": True})
    if kind == "read-only-defaultdict":
        state = MappingProxyType(state)
    verdict = monitor.check(state)
    assert not verdict.safe and "no value for b" in verdict.reason
    assert dict(state.items()) == {"B": True}  # the caller's mapping is untouched
    assert not monitor.commit(state).safe
    assert dict(state.items()) == {"B": True}


def test_a_misspelt_preview_in_a_defaultdict_is_refused():
    class Misspelling(PropositionEnv):
        def lookahead(self, action, propositions):
            ahead = super().lookahead(action, propositions)
            wrong = [defaultdict(bool, {k.replace("b", "bb"): v for k, v in s.items()})
                     for s in ahead.states]  # fmt: skip
            return ahead._replace(states=wrong)

    shield = Shield.of(Misspelling(["a", "b"]), Monitor(["G !b"]))
    shield.reset()
    step = shield.propose("set b")
    assert step.outcome == "pruned" and shield.env.steps == 0


def test_a_defaultdict_initial_state_is_not_filled_in():
    from safetychip.errors import TraceError

    state = defaultdict(bool, {"a": True})
    with pytest.raises(TraceError, match="no value for b"):
        Monitor(["G !b", "F a"]).reset(state)
    assert dict(state) == {"a": True}


# -- class 3: filters that change or hide what the monitor sees -------------------------------


class _Tamper(Filter):
    """A filter before the monitor that tries to clear b in what it is shown."""

    name = "tamper"

    def __init__(self, where: str) -> None:
        self.where = where

    def judge(self, proposal, state, trace):
        targets = {"states": proposal.states, "state": [state], "trace": trace}[self.where]
        for s in targets:
            try:
                s["b"] = False
            except TypeError:
                pass
        if self.where == "trace":
            try:
                trace.clear()
            except AttributeError:
                pass
        return Judgement.admit(self.name)

    def commit(self, proposal, states):
        for s in states:
            try:
                s["b"] = False
            except TypeError:
                pass


@pytest.mark.parametrize("where", ["states", "state", "trace"])
def test_a_filter_cannot_change_what_the_monitor_sees(where):
    shield = Shield(_env(), [_Tamper(where), MonitorFilter(Monitor([NEVER_B_AFTER_A]))])
    assert _outcomes(shield, [*UNSAFE_RUN, "done"]) == ["executed", "executed", "pruned", "done"]
    assert [s["b"] for s in shield.trace] == [False] * 3


def test_a_committed_state_cannot_be_rewritten_for_the_next_filter():
    shield = Shield(_env(), [_Tamper("states"), MonitorFilter(Monitor(["G !b", "F a"]))])
    shield.reset()
    shield.propose("set a")
    assert shield.monitor.history[-1]["a"] is True


class _FailingCommit(Filter):
    name = "memory"

    def judge(self, proposal, state, trace):
        return Judgement.admit(self.name)

    def commit(self, proposal, states):
        raise OSError("disk full")


@pytest.mark.parametrize("first", [True, False])
def test_a_failing_commit_stops_the_run_and_every_filter_commits(first):
    monitor = MonitorFilter(Monitor([NEVER_B_AFTER_A]))
    filters = [_FailingCommit(), monitor] if first else [monitor, _FailingCommit()]
    shield = Shield(_env(), filters)
    shield.reset()
    step = shield.propose("set a")
    assert step.outcome == "executed"  # it ran: the record says so, and why the run stops
    assert "memory" in step.error and "disk full" in step.error
    assert shield.finished
    assert len(monitor.monitor.history) == 2  # the monitor recorded the step all the same
    with pytest.raises(MonitorError, match="memory"):
        shield.propose("clear a")
    assert shield.env.steps == 1


def test_a_failing_commit_of_done_is_reported():
    shield = Shield(_env(), [MonitorFilter(Monitor(["G !b"])), _FailingCommit()])
    shield.reset()
    step = shield.propose("done")
    assert step.outcome == "done" and "disk full" in step.error


def test_a_failing_reset_leaves_the_shield_stopped():
    class BadReset(_FailingCommit):
        def reset(self, initial):
            raise RuntimeError("no connection")

    shield = Shield(_env(), [BadReset(), MonitorFilter(Monitor(["G !b"]))])
    with pytest.raises(RuntimeError, match="no connection"):
        shield.reset()
    with pytest.raises(MonitorError):
        shield.propose("set b")
    assert shield.env.steps == 0


def test_a_raising_judge_refuses_naming_the_filter():
    class Broken(_FailingCommit):
        def judge(self, proposal, state, trace):
            raise KeyError("b")

    shield = Shield(_env(), [Broken(), MonitorFilter(Monitor(["G !b"]))])
    shield.reset()
    step = shield.propose("set a")
    assert step.outcome == "pruned" and "memory" in step.judgement.reason
    assert shield.env.steps == 0


# -- class 4: concurrency ---------------------------------------------------------------------


class _SlowEnv(PropositionEnv):
    """Steps slowly, so that a second proposal would be judged while the first runs."""

    def step(self, action):
        time.sleep(0.01)
        return super().step(action)


def _race(constraint: str, actions: list[str]) -> tuple[Shield, list[str]]:
    """Propose *actions* at once, one thread each."""
    shield = Shield.of(_SlowEnv(["a", "b", "c"]), Monitor([constraint]))
    shield.reset()
    barrier = threading.Barrier(len(actions))
    outcomes: list[str] = []

    def run(action):
        barrier.wait()
        outcomes.append(shield.propose(action).outcome)

    threads = [threading.Thread(target=run, args=(a,)) for a in actions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return shield, outcomes


@pytest.mark.parametrize(
    ("constraint", "actions"),
    [
        ("G !(a & b)", ["set a", "set b"]),
        ("G !((a & b) | (a & c) | (b & c))", ["set a", "set b", "set c"]),
        ("G(a -> G !b) & G(b -> G !a)", ["set b", "set a", "clear b"]),
    ],
)
def test_concurrent_proposals_are_serialised(constraint, actions):
    from safetychip.ltl import evaluate, parse

    for _ in range(3):
        shield, outcomes = _race(constraint, actions)
        assert len(outcomes) == len(actions)
        assert evaluate(parse(constraint), shield.trace)  # no state broke it
        assert shield.propose("done").outcome == "done"


def test_the_shield_documents_its_threading():
    assert "thread" in (Shield.propose.__doc__ or "").lower()


def test_a_memory_on_disk_judges_and_commits_from_the_shields_workers(tmp_path):
    from safetychip.memory import Episode, EpisodicMemory, MemoryFilter, WordEmbedder

    with EpisodicMemory(tmp_path / "memory.sqlite", embedder=WordEmbedder()) as memory:
        memory.add(Episode("set a", harm="collision"))
        shield = Shield(_env(), [MemoryFilter(memory)])
        shield.reset()
        step = shield.propose("set b")
        assert step.outcome == "executed" and step.error is None and not shield.finished
        assert shield.propose("set a").outcome == "pruned"
