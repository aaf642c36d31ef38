"""The Safety Chip as an overlay: the constraint monitor inside an observer, the observer in
the shield as a filter, gives the verdicts of the monitor filter used directly."""

import random

import pytest

from safetychip.envs import PropositionEnv
from safetychip.errors import ObserverError
from safetychip.monitor import Monitor
from safetychip.observer import (
    Candidate,
    Condition,
    FilterOverlay,
    Observer,
    ObserverFilter,
    ObserverState,
    PermissiveOverlay,
    extractor,
)
from safetychip.shield import Filter, Judgement, MonitorFilter, Proposal, Shield

CONSTRAINTS = [
    "G !is_open(fridge)",
    "!agent_at(kitchen) W agent_at(hall)",
    "F is_switchedon(lamp)",
    "G (is_grabbed(knife) -> F !is_grabbed(knife))",
]
ACTIONS = [
    "set is_open(fridge)", "clear is_open(fridge)", "go to kitchen", "go to hall",
    "go to bedroom", "set is_switchedon(lamp)", "clear is_switchedon(lamp)",
    "set is_grabbed(knife)", "clear is_grabbed(knife)", "done",
]  # fmt: skip


def _env():
    return PropositionEnv(["is_open(fridge)", "is_switchedon(lamp)", "is_grabbed(knife)"],
                          rooms=["bedroom", "hall", "kitchen"], initial=["agent_at(bedroom)"],
                          adjacency={"bedroom": ["hall"], "hall": ["bedroom", "kitchen"],
                                     "kitchen": ["hall"]})  # fmt: skip


def _chip_observer(*more_overlays, extractors=()):
    overlay = FilterOverlay(MonitorFilter(Monitor(CONSTRAINTS)))
    return Observer(extractors, [overlay, *more_overlays])


def _both(observer):
    direct = Shield.of(_env(), Monitor(CONSTRAINTS))
    through = Shield(_env(), [ObserverFilter(observer)])
    return direct, through


def _same(a, b):
    assert (a.action, a.outcome) == (b.action, b.outcome)
    ja, jb = a.judgement, b.judgement
    if ja is None or jb is None:
        assert ja is jb
        return
    assert (ja.admitted, ja.reason, ja.constraints, ja.state_changes, ja.pending) == (
        jb.admitted, jb.reason, jb.constraints, jb.state_changes, jb.pending)  # fmt: skip
    assert ja.verdict == jb.verdict


@pytest.mark.parametrize("seed", range(12))
def test_the_monitor_inside_the_observer_gives_the_monitors_verdicts(seed):
    """The same proposals, both ways, step by step: identical outcomes and verdicts."""
    direct, through = _both(_chip_observer())
    assert direct.reset().verdict == through.reset().verdict
    rng = random.Random(seed)
    for _ in range(25):
        if direct.finished:
            break
        action = rng.choice(ACTIONS)
        assert direct.judge(action).verdict == through.judge(action).verdict
        _same(direct.propose(action), through.propose(action))
    assert direct.trace == through.trace
    assert [s.outcome for s in direct.steps] == [s.outcome for s in through.steps]


def test_a_fixed_run_prunes_the_same_actions():
    direct, through = _both(_chip_observer())
    direct.reset(), through.reset()
    plan = ["set is_open(fridge)", "go to kitchen", "done", "set is_switchedon(lamp)",
            "set is_grabbed(knife)", "done", "clear is_grabbed(knife)", "done"]  # fmt: skip
    steps = [(direct.propose(a), through.propose(a)) for a in plan]
    for a, b in steps:
        _same(a, b)
    assert [a.outcome for a, _ in steps] == ["pruned", "executed", "pruned", "executed",
                                             "executed", "pruned", "executed", "done"]  # fmt: skip
    assert steps[0][1].violated == ("c1",)


def test_a_permission_does_not_lift_the_chip():
    """The conflict rule: the chip is a hard prohibition, so its refusal stands."""
    always = extractor("always", "a condition that always holds")(lambda c, s: 1.0)
    allow = PermissiveOverlay("allow", Condition("always", 1.0), ["monitor"])
    observer = _chip_observer(allow, extractors=[always])
    _, through = _both(observer)
    through.reset()
    step = through.propose("set is_open(fridge)")
    assert step.outcome == "pruned" and step.judgement.filter == "monitor"
    proposal = Proposal("set is_open(fridge)", ({"is_open(fridge)": True},))
    record = observer.evaluate(Candidate(proposal.action, payload=proposal), ObserverState())
    assert record.reason == "conflict" and record.conflicts == ("monitor",)


class Deny(Filter):
    """A filter refusing one action (like an episodic memory's rule)."""

    name = "deny"

    def judge(self, proposal, state, trace):
        if proposal.action == "go to hall":
            return Judgement.refuse(self.name, "the hall is wet", ("r1",), alternative="wait")
        return Judgement.admit(self.name)


def test_any_shield_filter_is_an_overlay_and_keeps_its_refusal():
    observer = _chip_observer(FilterOverlay(Deny()))
    direct = Shield.of(_env(), Monitor(CONSTRAINTS), Deny())
    through = Shield(_env(), [ObserverFilter(observer)])
    direct.reset(), through.reset()
    refused = through.judge("go to hall")
    for action in ["go to hall", "set is_switchedon(lamp)", "set is_open(fridge)", "done"]:
        _same(direct.propose(action), through.propose(action))
    assert (refused.filter, refused.constraints, refused.alternative) == ("deny", ("r1",), "wait")


def test_an_overlay_fault_refuses_the_action():
    broken = extractor("broken", "always out of range", 0, 1)(lambda c, s: 2.0)
    _, through = _both(_chip_observer(extractors=[broken]))
    through.reset()
    step = through.propose("set is_switchedon(lamp)")
    assert step.outcome == "pruned" and step.judgement.filter == "observer"
    assert "the observer failed safe" in step.judgement.reason


def test_a_filter_overlay_needs_a_proposal():
    with pytest.raises(ObserverError, match="give candidate 'hello' a shield Proposal"):
        _chip_observer().evaluate(Candidate("hello"), ObserverState())
    with pytest.raises(TypeError, match=r"needs a safetychip\.shield\.Filter"):
        FilterOverlay("monitor")  # type: ignore[arg-type]
