"""The MiniGrid labeller's batched forms (label_batch, model_batch: numpy over N worlds) give
what its one-world label and model give, on random walks through worlds with lava, keys,
doors and rooms; they leave to the one-world forms what they do not know."""

from __future__ import annotations

import gymnasium as gym
import minigrid  # noqa: F401 - registers the MiniGrid environments
import numpy as np
import pytest

from safetychip.gym import MiniGridLabeller
from safetychip.gym._minigrid import label_worlds

PROPOSITIONS = ("agent_at(door)", "agent_at(floor)", "agent_at(goal)", "agent_at(green_goal)",
                "agent_at(room_0_0)", "agent_at(room_1_0)", "agent_at(yellow_door)",
                "is_carrying(ball)", "is_carrying(key)", "is_grabbed(yellow_key)",
                "on_lava")  # fmt: skip
WORLDS = ("MiniGrid-DoorKey-5x5-v0", "MiniGrid-LavaCrossingS9N1-v0",
          "MiniGrid-KeyCorridorS3R1-v0", "MiniGrid-BlockedUnlockPickup-v0")  # fmt: skip


@pytest.mark.parametrize("name", WORLDS)
def test_batched_labels_and_previews_equal_the_one_world_ones_on_random_walks(name):
    labeller, n = MiniGridLabeller(), 8
    envs = [gym.make(name) for _ in range(n)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    worlds = [env.unwrapped for env in envs]
    rng = np.random.default_rng(0)
    previewed = 0
    for _ in range(150):
        letters = labeller.label_batch(worlds, PROPOSITIONS)
        expected = [[labeller.label(None, {}, w, PROPOSITIONS)[p] for p in PROPOSITIONS]
                    for w in worlds]  # fmt: skip
        assert letters.tolist() == expected
        actions = rng.integers(7, size=n)
        ahead, known = labeller.model_batch(worlds, actions, PROPOSITIONS)
        for i in np.flatnonzero(known):
            model = labeller.model(worlds[i], int(actions[i]), PROPOSITIONS)
            assert ahead[i].tolist() == [model[p] for p in PROPOSITIONS]
            previewed += 1
        assert known[np.isin(actions, (3, 4, 5))].sum() == 0  # pick up, drop, toggle: alone
        for env, action in zip(envs, actions):
            _, _, terminated, truncated, _ = env.step(int(action))
            if terminated or truncated:
                env.reset()
    assert previewed > 500


def test_what_the_batch_does_not_know_is_left_to_the_one_world_forms():
    labeller = MiniGridLabeller()
    env = gym.make("MiniGrid-DoorKey-5x5-v0")
    env.reset(seed=0)
    world = env.unwrapped
    assert labeller.label_batch([world], ["is_open(door)"]) is None  # reads the whole grid
    assert labeller.model_batch([world], [2], ["adjacent_to(key)"]) is None
    assert label_worlds([object()], ["on_lava"]) is None  # not a MiniGrid world

    class Mine(MiniGridLabeller):  # labels otherwise: its own label must answer
        def label(self, observation, info, env, propositions):
            return dict.fromkeys(propositions, True)

    assert Mine().label_batch([world], ["on_lava"]) is None
    assert Mine().model_batch([world], [2], ["on_lava"]) is None
