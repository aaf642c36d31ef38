"""MiniGridLabeller.model's shortcuts: the front cell without numpy, and a toggle undone."""

from __future__ import annotations

import gymnasium as gym
import minigrid  # noqa: F401 - registers the MiniGrid environments
from minigrid.core.constants import DIR_TO_VEC

from safetychip.gym import MiniGridLabeller


def test_the_front_cell_is_minigrids_front_pos_in_every_direction():
    env = gym.make("MiniGrid-Empty-5x5-v0")
    env.reset(seed=0)
    world = env.unwrapped
    labeller = MiniGridLabeller()
    for direction in range(len(DIR_TO_VEC)):
        world.agent_dir = direction
        x, y = (int(v) for v in world.front_pos)
        # with the goal in front (and only there), forward is onto the goal
        was = world.grid.get(x, y)
        world.grid.set(x, y, world.grid.get(3, 3))
        world.grid.set(3, 3, None)
        foreseen = labeller.model(world, world.actions.forward, ["agent_at(goal)"])
        assert foreseen == {"agent_at(goal)": True}, direction
        world.grid.set(3, 3, world.grid.get(x, y))
        world.grid.set(x, y, was)


def test_a_foreseen_toggle_leaves_the_door_as_it_was():
    env = gym.make("MiniGrid-DoorKey-5x5-v0")
    env.reset(seed=0)
    world = env.unwrapped
    door = next(o for o in world.grid.grid if o is not None and o.type == "door")
    door.is_locked = False
    world.agent_pos, world.agent_dir = (door.cur_pos[0] - 1, door.cur_pos[1]), 0
    before = dict(vars(door))
    labeller = MiniGridLabeller()
    assert labeller.model(world, world.actions.toggle, ["is_open(door)"]) == {
        "is_open(door)": True}  # fmt: skip
    assert vars(door) == before and not door.is_open
    assert world.grid.get(*door.cur_pos) is door
