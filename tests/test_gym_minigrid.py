"""The MiniGrid / BabyAI labeller: each proposition of its table read on real ``minigrid``
worlds, the names it knows, and a BabyAI task with a constraint, shielded."""

from __future__ import annotations

import re

import gymnasium as gym
import minigrid  # noqa: F401 - registers the MiniGrid and BabyAI environments
import numpy as np
import pytest
from minigrid.core.world_object import Ball, Key, Lava

from safetychip.errors import LabellerError
from safetychip.gym import MiniGridLabeller, ShieldWrapper, label_state

LABELLER = MiniGridLabeller()


def _world(name: str, seed: int = 0):
    env = gym.make(name)
    env.reset(seed=seed)
    return env.unwrapped


def _label(world, *names):
    return label_state(LABELLER, None, {}, world, names)


def _cells(world, kind):
    return [(x, y) for x in range(world.width) for y in range(world.height)
            if (o := world.grid.get(x, y)) is not None and o.type == kind]  # fmt: skip


def test_on_lava_and_agent_at_follow_the_agents_cell():
    world = _world("MiniGrid-LavaCrossingS9N1-v0")
    names = ("on_lava", "agent_at(lava)", "agent_at(goal)", "agent_at(floor)")
    assert _label(world, *names) == dict.fromkeys(names[:3], False) | {"agent_at(floor)": True}
    world.agent_pos = _cells(world, "lava")[0]
    assert _label(world, *names) == {"on_lava": True, "agent_at(lava)": True,
                                     "agent_at(goal)": False, "agent_at(floor)": False}  # fmt: skip
    world.agent_pos = _cells(world, "goal")[0]
    assert _label(world, "agent_at(goal)", "agent_at(green_goal)", "agent_at(red_goal)") == {
        "agent_at(goal)": True,
        "agent_at(green_goal)": True,
        "agent_at(red_goal)": False,
    }


def test_is_carrying_reads_type_and_colour():
    world = _world("MiniGrid-DoorKey-5x5-v0")
    names = ("is_carrying(key)", "is_carrying(yellow_key)", "is_carrying(red_key)",
             "is_carrying(ball)")  # fmt: skip
    assert not any(_label(world, *names).values())
    world.carrying = Key("yellow")
    assert _label(world, *names) == {
        "is_carrying(key)": True,
        "is_carrying(yellow_key)": True,
        "is_carrying(red_key)": False,
        "is_carrying(ball)": False,
    }
    world.carrying = Ball("red")
    assert [n for n, v in _label(world, *names).items() if v] == ["is_carrying(ball)"]
    # is_grabbed, the offline translator's word for picking up, means the same
    assert _label(world, "is_grabbed(red_ball)", "is_grabbed(key)") == {
        "is_grabbed(red_ball)": True,
        "is_grabbed(key)": False,
    }


def test_is_open_is_true_when_some_door_of_that_name_is_open():
    world = _world("MiniGrid-DoorKey-5x5-v0")
    (door,) = [world.grid.get(*c) for c in _cells(world, "door")]
    names = ("is_open(door)", f"is_open({door.color}_door)", "is_open(purple_door)"
             if door.color != "purple" else "is_open(red_door)")  # fmt: skip
    assert not any(_label(world, *names).values())
    door.is_open = True
    assert list(_label(world, *names).values()) == [True, True, False]


def test_adjacent_to_looks_at_the_four_neighbouring_cells():
    world = _world("MiniGrid-Empty-5x5-v0")
    world.agent_pos = (2, 2)  # the middle: no wall around
    assert _label(world, "adjacent_to(wall)", "adjacent_to(ball)") == {
        "adjacent_to(wall)": False,
        "adjacent_to(ball)": False,
    }
    world.grid.set(3, 3, Ball("blue"))  # diagonal: not adjacent
    assert not _label(world, "adjacent_to(ball)")["adjacent_to(ball)"]
    world.grid.set(2, 3, Ball("blue"))
    assert _label(world, "adjacent_to(blue_ball)", "adjacent_to(red_ball)") == {
        "adjacent_to(blue_ball)": True,
        "adjacent_to(red_ball)": False,
    }
    world.agent_pos = (1, 1)
    assert _label(world, "adjacent_to(wall)")["adjacent_to(wall)"]


def test_agent_at_room_agrees_with_minigrids_room_of_every_cell():
    world = _world("MiniGrid-BlockedUnlockPickup-v0")
    rooms = [(i, j) for i in range(world.num_cols) for j in range(world.num_rows)]
    names = [f"agent_at(room_{i}_{j})" for i, j in rooms]
    for x in range(world.width - 1):
        for y in range(world.height - 1):
            world.agent_pos = (x, y)
            room = world.room_from_pos(x, y)
            truth = _label(world, *names)
            assert [n for n, v in truth.items() if v] == [
                f"agent_at(room_{i}_{j})" for i, j in rooms if world.get_room(i, j) is room
            ]
    assert len(rooms) == 2
    plain = _world("MiniGrid-Empty-5x5-v0")
    assert _label(plain, "agent_at(room_0_0)") == {"agent_at(room_0_0)": False}


@pytest.mark.parametrize("name", ["on_lava", "agent_at(goal)", "agent_at(room_2_1)",
                                  "is_carrying(purple_box)", "is_open(door)",
                                  "adjacent_to(grey_wall)", "agent_at(floor)"])  # fmt: skip
def test_the_labeller_knows_the_tables_propositions(name):
    assert LABELLER.knows(name)


@pytest.mark.parametrize("name", ["is_open(fridge)", "on_fire", "agent_at(pink_key)",
                                  "is_touched(key)", "is_carrying(key", "adjacent_to(agent)",
                                  "is_on(key,box)"])  # fmt: skip
def test_the_labeller_rejects_other_names(name):
    assert not LABELLER.knows(name)
    with pytest.raises(LabellerError, match=re.escape(f"does not know {name!r}")):
        _label(_world("MiniGrid-Empty-5x5-v0"), name)


def test_the_labeller_needs_the_unwrapped_environment():
    with pytest.raises(LabellerError, match="reads the unwrapped environment, got None"):
        label_state(LABELLER, None, {}, None, ("on_lava",))


def test_a_babyai_mission_with_a_constraint_is_shielded():
    # a BabyAI mission ("go to the red ball") with a constraint ("never carry a ball")
    env = ShieldWrapper(gym.make("BabyAI-GoToLocal-v0"), LABELLER,
                        ['G !"is_carrying(ball)"'])  # fmt: skip
    bare = gym.make("BabyAI-GoToLocal-v0")
    carried = {"shielded": 0, "bare": 0}
    for wrapped, key in ((env, "shielded"), (bare, "bare")):
        rng = np.random.default_rng(0)
        for episode in range(8):
            obs, _ = wrapped.reset(seed=episode)
            assert isinstance(obs["mission"], str)
            world = wrapped.unwrapped
            for _ in range(80):
                x, y = world.front_pos
                # walk at random, and pick up whatever is in front of the agent
                front = world.grid.get(int(x), int(y))
                action = 3 if front is not None and front.can_pickup() else int(rng.integers(3))
                *_, terminated, truncated, _ = wrapped.step(action)
                carried[key] += world.carrying is not None and world.carrying.type == "ball"
                if world.carrying is not None:
                    world.carrying = None  # put it away, so the walk goes on
                if terminated or truncated:
                    break
    assert carried["bare"] > 0 and carried["shielded"] == 0


def test_lava_placed_in_front_is_refused_whatever_the_colour():
    env = ShieldWrapper(gym.make("MiniGrid-Empty-5x5-v0"), LABELLER, ['G !"on_lava"'],
                        fallback="none")  # fmt: skip
    env.reset(seed=0)
    world = env.unwrapped
    world.grid.set(*world.front_pos, Lava())
    *_, info = env.step(world.actions.forward)
    assert info["shield"].executed is None and info["shield"].refusals[0].outcome == "pruned"


@pytest.mark.parametrize("name", ["MiniGrid-LavaCrossingS9N1-v0", "MiniGrid-DoorKey-5x5-v0",
                                  "MiniGrid-Unlock-v0", "BabyAI-GoToLocal-v0",
                                  "MiniGrid-KeyCorridorS3R1-v0"])  # fmt: skip
def test_the_one_step_model_foresees_the_real_step_and_leaves_the_world_alone(name):
    env = gym.make(name)
    world = env.unwrapped
    env.reset(seed=1)
    names = [p for p in _vocabulary(world) if LABELLER.knows(p)]
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(250):
        x, y = world.front_pos
        front = world.grid.get(int(x), int(y))
        # act on what is in front (pick up, toggle, drop) often, else walk at random
        action = (
            int(rng.choice([3, 4, 5]))
            if front is not None and rng.random() < 0.7
            else (int(rng.integers(7)))
        )
        before = (
            label_state(LABELLER, None, {}, world, names),
            tuple(world.agent_pos),
            world.carrying,
        )
        foreseen = LABELLER.model(world, action, names)
        assert before == (label_state(LABELLER, None, {}, world, names), tuple(world.agent_pos),
                          world.carrying)  # fmt: skip
        _, _, terminated, truncated, _ = env.step(action)
        now = label_state(LABELLER, None, {}, world, names)
        assert foreseen == now, (action, {n for n in names if foreseen[n] != now[n]})
        seen.update(n for n, v in now.items() if v)
        if terminated or truncated:
            env.reset()
    assert len(seen) >= 3  # the walk made several propositions true


def _vocabulary(world) -> list[str]:
    """Every proposition over the objects of *world*, by type and by colour and type."""
    objects = {o.type for o in world.grid.grid if o is not None}
    objects |= {f"{o.color}_{o.type}" for o in world.grid.grid if o is not None}
    rooms = [f"agent_at(room_{i}_{j})" for i in range(getattr(world, "num_cols", 0))
             for j in range(getattr(world, "num_rows", 0))]  # fmt: skip
    return ["on_lava", *rooms, "agent_at(floor)",
            *(f"{p}({o})" for p in ("agent_at", "is_carrying", "is_open", "adjacent_to")
              for o in sorted(objects))]  # fmt: skip


def test_the_shield_with_the_one_step_model_keeps_a_random_walk_off_the_lava():
    env = ShieldWrapper(gym.make("MiniGrid-LavaCrossingS9N1-v0"), LABELLER, ['G !"on_lava"'],
                        model=LABELLER.model)  # fmt: skip
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    refused = 0
    for _ in range(600):
        *_, terminated, truncated, info = env.step(int(rng.integers(3)))
        refused += bool(info["shield"].refusals)
        world = env.unwrapped
        assert _label(world, "on_lava") == {"on_lava": False}
        if terminated or truncated:
            env.reset()
    assert refused > 0
