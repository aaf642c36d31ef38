"""The project's own environments as Gymnasium environments (safetychip.gym.TextEnv): they
pass Gymnasium's checker, and a step means what it means on the environment itself."""

from __future__ import annotations

import warnings

import pytest
from gymnasium.utils.env_checker import check_env

from safetychip.envs import PropositionEnv, VirtualHomeEnv
from safetychip.errors import ResetNeeded
from safetychip.gym import TextEnv


@pytest.mark.parametrize("make", [lambda: VirtualHomeEnv("apartment_2"),
                                  lambda: PropositionEnv(["is_open(fridge)", "agent_at(kitchen)"])])  # fmt: skip
def test_check_env_passes_on_the_adapted_environments(make):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings are faults here, but one:
        warnings.filterwarnings("ignore", message=".*not having a spec")  # made without make()
        check_env(TextEnv(make(), render_mode="ansi"))


def test_a_step_produces_the_states_the_environment_itself_produces():
    own, adapted = VirtualHomeEnv("apartment_2"), TextEnv(VirtualHomeEnv("apartment_2"))
    props = ["agent_at(kitchen)", "agent_at(hallway)", "agent_at(bedroom)"]
    own.track(props)
    adapted.env.track(props)
    assert own.reset(seed=0)[0] == adapted.reset(seed=0)[0]
    observation, _, _, _, info = adapted.step("walk to kitchen")
    expected = own.step("walk to kitchen")
    assert observation == expected[0] and info["states"] == expected[4]["states"]
    assert info["states"][-1]["agent_at(kitchen)"] and adapted.observation_space.contains(
        observation
    )


def test_an_unreadable_action_runs_nothing_and_says_why():
    env = TextEnv(VirtualHomeEnv("apartment_2"))
    before, _ = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step("fly to the moon")
    assert (observation, reward, terminated, truncated) == (before, 0.0, False, False)
    assert info["states"] == [] and "unknown action 'fly to the moon'" in info["error"]


def test_stepping_after_done_or_before_reset_needs_a_reset():
    env = TextEnv(PropositionEnv(["a"]))
    with pytest.raises(ResetNeeded):
        env.step("set a")
    env.reset()
    env.step("done")
    with pytest.raises(ResetNeeded):
        env.step("set a")
    with pytest.raises(TypeError, match=r"must be a safetychip\.envs\.Env"):
        TextEnv("virtualhome")
