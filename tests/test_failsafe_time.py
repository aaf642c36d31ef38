"""Every decision is bounded in time (issue 44): building a monitor has a budget that ends in
a clear refusal; a filter, an overlay or a policy that overruns its budget refuses the action
(or stops the run), never lets it through."""

from __future__ import annotations

import threading
import time

import pytest

from safetychip.envs import PropositionEnv
from safetychip.errors import MonitorError, TimeBudgetError
from safetychip.ltl import parse
from safetychip.monitor import Monitor, exactly_one
from safetychip.observer import (
    FilterOverlay,
    Length,
    Observer,
    ObserverFilter,
    ObserverState,
    ProhibitoryOverlay,
)
from safetychip.observer._overlay import Overlay
from safetychip.shield import Filter, Judgement, MonitorFilter, Shield

SLACK = 1.5  # seconds a loaded machine may add to a budget of a fraction of a second


def _eventually(check, seconds: float = 10.0) -> bool:
    """Whether *check()* comes true within *seconds*, asked every 10 ms."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


class _Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start


# -- construction ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("constraints", "invariants", "names"),
    [
        (["F(a & X X X X X X X X X X X X X X X X X b)"], [], "c1"),
        (["G !a", "F(a & X X X X X X X X X X X X X X X X X b)"], [], "c2"),
        ([f"G !p{i}" for i in range(200_000)], [], "reading the constraints"),
        (["G !a"], ["G(a -> X X X X X X X X X X X X X X X X X X b)"], "invariants"),
        (["G !a"], lambda: [exactly_one([f"r{i}" for i in range(300)])], "invariants"),
    ],
    ids=[
        "one-big-automaton",
        "the-second",
        "200k-constraints",
        "temporal-invariant",
        "300-rooms",
    ],  # fmt: skip
)
def test_building_a_monitor_has_a_budget(constraints, invariants, names):
    invariants = invariants() if callable(invariants) else invariants
    with _Timer() as timer, pytest.raises(TimeBudgetError) as caught:
        Monitor(constraints, invariants, build_seconds=0.1)
    assert timer.seconds < 0.1 + SLACK
    message = str(caught.value)
    assert names in message and "0.1 s construction budget" in message
    assert "build_seconds" in message


def test_a_long_constraint_is_refused_as_such():
    text = "a | " * 100_000 + "a"  # 400 kB: about half a second to read on an idle machine
    with _Timer() as reading:
        parse(text)
    with _Timer() as timer, pytest.raises(TimeBudgetError, match="reading the constraints"):
        Monitor([text], build_seconds=0.1)
    # refused once read, without building an automaton: the reading itself cannot be cut short
    assert timer.seconds < 2 * reading.seconds + SLACK


def test_a_long_formula_is_named_briefly():
    text = "F(a & X X X X X X X X X X X X X X X X X b)" + " | c" * 20_000
    with pytest.raises(TimeBudgetError) as caught:
        Monitor([text], build_seconds=0.1)
    assert len(str(caught.value)) < 600


def test_a_bad_build_budget_is_refused():
    with pytest.raises(ValueError, match="build_seconds"):
        Monitor(["F a"], build_seconds=0)


# -- shield filters --------------------------------------------------------------------------


class _Slow(Filter):
    name = "slow"

    def __init__(self, where: str, seconds: float = 5.0) -> None:
        self.where, self.seconds = where, seconds
        self.woken = threading.Event()

    def _wait(self, where: str) -> None:
        if self.where == where:
            self.woken.wait(self.seconds)

    def reset(self, initial):
        self._wait("reset")
        return Judgement.admit(self.name)

    def judge(self, proposal, state, trace):
        self._wait("judge")
        return Judgement.admit(self.name)

    def commit(self, proposal, states):
        self._wait("commit")


def _shield(slow: Filter, first: bool = True) -> Shield:
    monitor = MonitorFilter(Monitor(["G !b"]))
    filters = [slow, monitor] if first else [monitor, slow]
    return Shield(PropositionEnv(["a", "b"]), filters, filter_seconds=0.1)


@pytest.mark.parametrize("first", [True, False])
def test_a_filter_past_its_budget_refuses_the_action(first):
    slow = _Slow("judge")
    shield = _shield(slow, first)
    shield.reset()
    with _Timer() as timer:
        step = shield.propose("set a")
    assert timer.seconds < 0.1 + SLACK
    assert step.outcome == "pruned" and shield.env.steps == 0
    assert "slow" in step.judgement.reason and "100 ms budget" in step.judgement.reason
    again = shield.propose("set a")  # the late call still runs: refused at once
    assert again.outcome == "pruned" and "still running" in again.judgement.reason
    slow.woken.set()
    slow.where = ""
    # once the late call has ended (however long a loaded machine takes), the filter answers
    assert _eventually(lambda: shield.propose("set a").outcome == "executed")


def test_a_commit_past_its_budget_stops_the_run():
    slow = _Slow("commit")
    shield = _shield(slow)
    shield.reset()
    step = shield.propose("set a")
    slow.woken.set()
    assert step.outcome == "executed" and "100 ms budget" in step.error
    assert shield.finished
    with pytest.raises(MonitorError, match="slow"):
        shield.propose("clear a")


def test_a_reset_past_its_budget_raises_and_nothing_runs():
    slow = _Slow("reset")
    shield = _shield(slow)
    with pytest.raises(TimeBudgetError, match="slow"):
        shield.reset()
    slow.woken.set()
    with pytest.raises(MonitorError, match="reset"):
        shield.propose("set a")


def test_a_bad_filter_budget_is_refused():
    with pytest.raises(ValueError, match="time budget"):
        Shield(PropositionEnv(["a"]), [_Slow("")], filter_seconds=-1)


# -- observer overlays and policies ----------------------------------------------------------


class _Sleepy(Overlay):
    kind = "prohibitory"

    def __init__(self) -> None:
        self.name, self.rigidity = "sleepy", 0.0
        self.woken = threading.Event()

    def assess(self, features, candidate, state):
        self.woken.wait(5)
        return self._assessment("fine", 0.0)


def test_an_overlay_in_the_shield_past_its_budget_refuses():
    sleepy = _Sleepy()
    chip = ObserverFilter(Observer(overlays=[FilterOverlay(MonitorFilter(Monitor(["G !b"]))),
                                             sleepy]))  # fmt: skip
    shield = Shield(PropositionEnv(["a", "b"]), [chip], filter_seconds=0.1)
    shield.reset()
    with _Timer() as timer:
        step = shield.propose("set a")
    sleepy.woken.set()
    assert timer.seconds < 0.1 + SLACK
    assert step.outcome == "pruned" and shield.env.steps == 0


def test_an_overlay_in_a_turn_past_its_budget_falls_back():
    sleepy = _Sleepy()
    observer = Observer([Length()], [sleepy], call_seconds=0.1)
    with _Timer() as timer:
        record = observer.step(lambda state, feedback: ["Hello there."], ObserverState())
    sleepy.woken.set()
    assert timer.seconds < 0.1 + SLACK
    assert record.reason == "overlay_error" and record.source == "fallback"
    assert "100 ms budget" in " ".join(record.notes)


def test_a_policy_past_its_budget_falls_back():
    woken = threading.Event()

    def policy(state, feedback):
        woken.wait(5)
        return ["Hello there."]

    observer = Observer([Length()], [ProhibitoryOverlay("brief", "length", at_most=5)],
                        call_seconds=0.1)  # fmt: skip
    with _Timer() as timer:
        record = observer.step(policy, ObserverState())
    woken.set()
    assert timer.seconds < 0.1 + SLACK
    assert record.reason == "policy_error" and record.released != "Hello there."


# -- the budget's workers ----------------------------------------------------------------------


def test_budgeted_calls_reuse_their_workers_and_pass_errors_through():
    from safetychip._budget import Budget

    budget = Budget(1.0, "filter 'counting'")
    before = threading.active_count()
    assert [budget.call(pow, k, 2) for k in range(300)] == [k * k for k in range(300)]
    assert threading.active_count() <= before + 2
    with pytest.raises(ZeroDivisionError):
        budget.call(divmod, 1, 0)
    assert budget.call(len, "after an error") == 14


def test_a_late_call_blocks_only_its_own_budget():
    from safetychip._budget import Budget

    woken = threading.Event()
    slow, other = Budget(0.05, "overlay 'slow'"), Budget(0.5, "overlay 'other'")
    with pytest.raises(TimeBudgetError, match="did not answer within its 50 ms budget"):
        slow.call(woken.wait, 5)
    with pytest.raises(TimeBudgetError, match="still running"):
        slow.call(len, "x")
    assert other.call(len, "free") == 4  # another budget is not held up
    woken.set()

    def answers() -> bool:
        try:
            return slow.call(len, "again") == 5
        except TimeBudgetError:  # still ending, or a loaded machine overran 50 ms
            return False

    assert _eventually(answers)
