"""The shield wrapper's fast path (safetychip.gym._fast) decides exactly as the shield's
checked loop: on random walks the two give the same reports, steps, traces and monitor
histories; and it stays fail safe (a model or labeller answering anything but one bool per
proposition, or raising, makes the checked path refuse or stop, with its reason)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safetychip.errors import LabellerError, ResetNeeded
from safetychip.gym import MiniGridLabeller, ShieldWrapper
from safetychip.gym._fast import FastPath

pytest.importorskip("minigrid")
import minigrid  # noqa: F401 - registers the MiniGrid environments

WORLDS = {
    "MiniGrid-LavaGapS5-v0": ['G !"on_lava"'],
    "MiniGrid-DoorKey-5x5-v0": ['!"is_open(door)" W "is_carrying(key)"',
                                'G ("agent_at(goal)" -> "is_carrying(key)")'],
}  # fmt: skip


def pair(name: str, **options):
    """A wrapper on the fast path and one with the fast path off, over the same world."""
    labeller = MiniGridLabeller()
    fast = ShieldWrapper(gym.make(name), labeller, WORLDS[name], model=labeller.model, **options)
    checked = ShieldWrapper(gym.make(name), labeller, WORLDS[name], model=labeller.model,
                            **options)  # fmt: skip
    checked._fast = None
    assert isinstance(fast._fast, FastPath)
    return fast, checked


def walk(env, seed: int, actions: list[int]) -> list:
    """What the wrapper reports along a walk (resetting when an episode ends)."""
    _, info = env.reset(seed=seed)
    out = [info["shield"].to_dict()]
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        out.append((info["shield"].to_dict(), reward, terminated, truncated,
                    observation["direction"], observation["image"].tobytes()))  # fmt: skip
        if terminated or truncated:
            env.reset()
    shield = env.shield
    out.append(([s.to_dict() for s in shield.steps], shield.trace, shield.monitor.history))
    return out


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(sorted(WORLDS)), seed=st.integers(0, 50),
       actions=st.lists(st.integers(0, 6), min_size=1, max_size=60))  # fmt: skip
def test_the_fast_path_reports_what_the_checked_loop_does(name, seed, actions):
    fast, checked = pair(name)
    assert walk(fast, seed, actions) == walk(checked, seed, actions)


def test_on_long_random_walks_most_steps_take_the_fast_path_with_the_same_verdicts():
    for name in WORLDS:
        fast, checked = pair(name)
        actions = [int(a) for a in np.random.default_rng(1).integers(7, size=1500)]
        taken = [0]
        propose = fast._fast.propose

        def counted(action, propose=propose, taken=taken):
            step = propose(action)
            taken[0] += step is not None
            return step

        fast._fast.propose = counted
        assert walk(fast, 3, actions) == walk(checked, 3, actions)
        assert taken[0] > 1000  # the cache warms up within a few steps


def test_the_fast_path_is_off_where_the_loop_must_decide():
    labeller = MiniGridLabeller()
    name = "MiniGrid-LavaGapS5-v0"
    assert ShieldWrapper(gym.make(name), labeller, WORLDS[name])._fast is None  # no model
    other = ShieldWrapper(gym.make(name), labeller, WORLDS[name], model=labeller.model,
                          filters=[ShieldWrapper(gym.make(name), labeller, WORLDS[name]).shield
                                   .filters[0]])  # fmt: skip
    assert other._fast is None  # another filter


class Flaky(MiniGridLabeller):
    """A MiniGrid labeller whose model or labels go wrong when told to."""

    fault: str | None = None
    in_label = False  # the fault is in the labels of real steps, not in the model

    def answer(self, state):
        if self.fault == "raise":
            raise RuntimeError("sensor down")
        if self.fault == "unknown":
            return {**state, "is_wet(floor)": True}
        if self.fault == "numpy":
            return {p: np.float64(v) for p, v in state.items()}
        return state

    def model(self, env, action, propositions):
        state = super().model(env, action, propositions)
        return state if self.in_label else self.answer(state)

    def label(self, observation, info, env, propositions):
        state = super().label(observation, info, env, propositions)
        real = observation is not None  # the model labels with no observation
        return self.answer(state) if self.in_label and real else state


@pytest.mark.parametrize(("fault", "reason"), [
    ("raise", "raised RuntimeError: sensor down"),
    ("unknown", "answered unknown propositions ['is_wet(floor)']"),
    ("numpy", "not a bool"),
])  # fmt: skip
def test_a_model_answering_wrong_after_the_cache_is_warm_is_refused_with_its_reason(fault, reason):
    labeller = Flaky()
    env = ShieldWrapper(gym.make("MiniGrid-LavaGapS5-v0"), labeller, ['G !"on_lava"'],
                        model=labeller.model, fallback="none")  # fmt: skip
    env.reset(seed=0)
    for _ in range(3):  # the same safe turn, met and then looked up
        *_, info = env.step(0)
        assert info["shield"].admitted
    labeller.fault = fault
    *_, info = env.step(0)
    assert not info["shield"].admitted and info["shield"].executed is None
    assert reason in info["shield"].reason


def test_a_labeller_failing_on_what_a_fast_admitted_action_produced_stops_the_episode():
    labeller = Flaky()
    env = ShieldWrapper(gym.make("MiniGrid-LavaGapS5-v0"), labeller, ['G !"on_lava"'],
                        model=labeller.model, fallback="none")  # fmt: skip
    env.reset(seed=0)
    for _ in range(3):
        env.step(0)
    labeller.fault, labeller.in_label = "unknown", True
    steps = len(env.shield.steps)
    with pytest.raises(LabellerError, match="unknown propositions"):
        env.step(0)
    assert len(env.shield.steps) == steps  # nothing recorded, as on the checked path
    with pytest.raises(ResetNeeded):
        env.step(0)
