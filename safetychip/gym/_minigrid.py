"""The labeller of MiniGrid and BabyAI environments (the ``minigrid`` package).

It reads the unwrapped environment (the agent's position, the grid, what it carries), not
the agent's partial view, so every proposition is true or false wherever the agent looks.
An object is named by its type (``key``, ``door``, ``lava``) or by colour and type
(``yellow_key``); a name with a type matches any object of that type.

================================  =====================================================
proposition                       true when
================================  =====================================================
``on_lava``                       the agent stands on lava
``agent_at(k)``                   the agent's cell holds an object named *k* (``goal``,
                                  ``lava``, ``door``, ``green_goal``); ``agent_at(floor)``
                                  when it holds nothing or plain floor
``agent_at(room_i_j)``            the agent is in room column *i*, row *j* of a BabyAI /
                                  ``RoomGrid`` environment (MiniGrid's ``room_from_pos``)
``is_carrying(x)``                the agent carries an object named *x*
``is_grabbed(x)``                 the same (the word the offline translator uses for
                                  picking up)
``is_open(d)``                    some door named *d* (``door``, ``yellow_door``) is open
``adjacent_to(x)``                one of the four cells next to the agent holds *x*
================================  =====================================================

Examples
--------
>>> import gymnasium as gym
>>> import minigrid  # registers the MiniGrid environments
>>> env = gym.make("MiniGrid-DoorKey-5x5-v0")
>>> _ = env.reset(seed=0)
>>> labeller = MiniGridLabeller()
>>> labeller.label(None, {}, env.unwrapped, ["is_carrying(key)", "is_open(door)"])
{'is_carrying(key)': False, 'is_open(door)': False}
>>> labeller.knows("is_open(yellow_door)"), labeller.knows("is_open(fridge)")
(True, False)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import missing
from ._labeller import Labeller

__all__ = ["MINIGRID_PREDICATES", "MiniGridLabeller", "minigrid_names"]

#: The predicates the MiniGrid labeller knows (and ``on_lava``, a plain proposition).
MINIGRID_PREDICATES = ("agent_at", "is_carrying", "is_grabbed", "is_open", "adjacent_to")

_ATOM = re.compile(r"(?P<predicate>\w+)\((?P<argument>\w+)\)\Z")
_ROOM = re.compile(r"room_(?P<i>\d+)_(?P<j>\d+)\Z")
_NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))
#: MiniGrid's ``DIR_TO_VEC``: the agent's direction 0 (right), 1 (down), 2 (left), 3 (up).
_DIRECTIONS = ((1, 0), (0, 1), (-1, 0), (0, -1))


class MiniGridLabeller(Labeller):
    """Label MiniGrid and BabyAI worlds with grounded propositions (see the module's table).

    Examples
    --------
    >>> MiniGridLabeller().knows("agent_at(room_1_0)")
    True
    """

    def knows(self, proposition: str) -> bool:
        """Whether *proposition* is one of the table's, over MiniGrid's object types and
        colours."""
        return _reader(proposition) is not None

    def model(self, env: Any, action: Any, propositions: Sequence[str]) -> dict[str, bool]:
        """A one-step model (``ShieldWrapper(..., model=labeller.model)``): the state
        *action* would produce, found by making the base ``MiniGridEnv.step``'s change to
        the world (move forward, pick up, drop, toggle), labelling, and undoing it; turns
        and ``done`` change no proposition. Far cheaper than stepping a deep copy.

        Exact for environments that keep MiniGrid's own ``step`` (MiniGrid's and BabyAI's
        grid worlds); one whose ``step`` changes the world otherwise (moving obstacles)
        needs the deep-copy preview (no model).
        """
        actions = env.actions
        forward, changing = _numbered(actions)
        if action == forward:  # only the agent moves, if the cell lets it
            x, y = _front(env)
            front = env.grid.get(x, y)
            if front is not None and not front.can_overlap():
                return self.label(None, {}, env, propositions)
            position, env.agent_pos = env.agent_pos, (x, y)
            try:
                return self.label(None, {}, env, propositions)
            finally:
                env.agent_pos = position
        if action not in changing:
            return self.label(None, {}, env, propositions)
        grid = env.grid
        x, y = _front(env)
        front, carrying = grid.get(x, y), env.carrying
        # a toggle may change the object in front (a door opens, a box gives its contents)
        toggled = action == actions.toggle and front is not None
        saved = (front, dict(vars(front))) if toggled else None
        try:
            if action == actions.pickup:
                if front is not None and front.can_pickup() and carrying is None:
                    env.carrying = front
                    grid.set(x, y, None)
            elif action == actions.drop:
                if front is None and carrying is not None:
                    grid.set(x, y, carrying)
                    env.carrying = None
            elif front is not None:
                front.toggle(env, (x, y))
            return self.label(None, {}, env, propositions)
        finally:
            env.carrying = carrying
            grid.set(x, y, front)
            if saved is not None:
                vars(saved[0]).clear()
                vars(saved[0]).update(saved[1])

    def label_batch(self, worlds: Sequence[Any],
                    propositions: Sequence[str]) -> np.ndarray | None:  # fmt: skip
        """The states of N unwrapped MiniGrid worlds as one ``(N, propositions)`` bool array
        (numpy over the objects the agents stand on and carry), or None when a proposition or
        a world needs :meth:`label` one by one (``is_open``, ``adjacent_to``), or a subclass
        labels otherwise.

        Examples
        --------
        >>> import gymnasium as gym
        >>> import minigrid  # registers the MiniGrid environments
        >>> env = gym.make("MiniGrid-LavaGapS5-v0")
        >>> _ = env.reset(seed=0)
        >>> MiniGridLabeller().label_batch([env.unwrapped], ["on_lava"]).tolist()
        [[False]]
        """
        if type(self).label is not MiniGridLabeller.label:
            return None
        from ._minigrid_batch import label_worlds  # which reads this module's helpers

        found = label_worlds(worlds, propositions)
        if found is None or not found[1].all():
            return None
        return found[0]

    def model_batch(self, worlds: Sequence[Any], actions: Sequence[Any],
                    propositions: Sequence[str],
                    ) -> tuple[np.ndarray, np.ndarray] | None:  # fmt: skip
        """What :meth:`model` answers for each world and its action, as one bool array,
        with whether each row is known (False: ask :meth:`model` for that world: pick up,
        drop, toggle); None when no row can be (see :meth:`label_batch`).

        Examples
        --------
        >>> import gymnasium as gym
        >>> import minigrid  # registers the MiniGrid environments
        >>> env = gym.make("MiniGrid-LavaGapS5-v0")
        >>> _ = env.reset(seed=0)
        >>> letters, known = MiniGridLabeller().model_batch([env.unwrapped] * 2, [2, 3],
        ...                                                 ["on_lava"])
        >>> letters.tolist(), known.tolist()  # forward is onto lava; pick up: ask model()
        ([[True], [False]], [True, False])
        """
        mine = type(self)
        if mine.label is not MiniGridLabeller.label or mine.model is not MiniGridLabeller.model:
            return None
        from ._minigrid_batch import label_worlds  # which reads this module's helpers

        return label_worlds(worlds, propositions, actions)

    def label(self, observation: Any, info: Mapping[str, Any], env: Any,
              propositions: Sequence[str]) -> dict[str, bool]:  # fmt: skip
        """Read each of *propositions* from the unwrapped MiniGrid *env* (the observation is
        not needed)."""
        if env is None:
            raise TypeError("the MiniGrid labeller reads the unwrapped environment, got None")
        return {p: read(env) for p, read in _readers(tuple(propositions))}


@lru_cache(maxsize=1024)
def _reader(proposition: str) -> Any:
    """A function of the unwrapped environment giving *proposition*'s truth, or None when
    the name is not one the labeller knows."""
    if proposition == "on_lava":
        return lambda env: _named(_here(env), "lava")
    match = _ATOM.match(proposition)
    if match is None or match["predicate"] not in MINIGRID_PREDICATES:
        return None
    predicate, name = match["predicate"], match["argument"]
    room = _ROOM.match(name)
    if predicate == "agent_at" and room is not None:
        i, j = int(room["i"]), int(room["j"])
        return lambda env: _room_of(env) == (i, j)
    if not _valid_name(name):
        return None
    if predicate == "agent_at":
        if name == "floor":
            return lambda env: _here(env) is None or _here(env).type == "floor"
        return lambda env: _named(_here(env), name)
    if predicate in ("is_carrying", "is_grabbed"):
        return lambda env: _named(env.carrying, name)
    if predicate == "is_open":
        return lambda env: any(o.type == "door" and o.is_open and _named(o, name)
                               for o in env.grid.grid if o is not None)  # fmt: skip
    return lambda env: any(_named(o, name) for o in _around(env))


@lru_cache(maxsize=256)
def _readers(propositions: tuple[str, ...]) -> tuple[tuple[str, Any], ...]:
    """Each of *propositions* with its :func:`_reader`.

    Raises
    ------
    KeyError
        Naming the first proposition the labeller does not know.
    """
    readers = tuple((p, _reader(p)) for p in propositions)
    for p, read in readers:
        if read is None:
            raise KeyError(f"the MiniGrid labeller does not know {p!r}")
    return readers


@lru_cache(maxsize=16)
def _numbered(actions: Any) -> tuple[int, tuple[int, ...]]:
    """The numbers of an environment's ``forward`` action and of those that change the grid
    or what the agent carries (pick up, drop, toggle): an enum's members are slow to read
    on every step."""
    return int(actions.forward), (int(actions.pickup), int(actions.drop), int(actions.toggle))


def _front(env: Any) -> tuple[int, int]:
    """The cell in front of the agent (MiniGrid's ``front_pos``, without numpy)."""
    x, y = _position(env)
    dx, dy = _DIRECTIONS[env.agent_dir]
    return x + dx, y + dy


def _position(env: Any) -> tuple[int, int]:
    """The agent's cell as Python ints (MiniGrid keeps a numpy array after a reset, a tuple
    after a move: unpacking the array is the slow part of labelling, so it is converted)."""
    position = env.agent_pos
    if type(position) is np.ndarray:
        x, y = position.tolist()
        return x, y
    x, y = position
    return int(x), int(y)


def _valid_name(name: str) -> bool:
    """Whether *name* is a MiniGrid object type, or a colour and a type."""
    try:
        from minigrid.core.constants import COLOR_NAMES, OBJECT_TO_IDX
    except ImportError as exc:
        raise missing("minigrid", "gym") from exc
    colour, _, kind = name.rpartition("_")
    types = set(OBJECT_TO_IDX) - {"unseen", "empty", "agent"}
    return kind in types and (colour == "" or colour in COLOR_NAMES)


def _named(obj: Any, name: str) -> bool:
    """Whether the world object *obj* (or None) is named *name*."""
    return obj is not None and (obj.type == name or f"{obj.color}_{obj.type}" == name)


def _here(env: Any) -> Any:
    """The object in the agent's cell (None for an empty cell)."""
    x, y = _position(env)
    return env.grid.get(x, y)


def _around(env: Any) -> list[Any]:
    """The objects in the four cells next to the agent."""
    x, y = _position(env)
    grid = env.grid
    return [grid.get(x + dx, y + dy) for dx, dy in _NEIGHBOURS
            if 0 <= x + dx < grid.width and 0 <= y + dy < grid.height]  # fmt: skip


def _room_of(env: Any) -> tuple[int, int] | None:
    """The agent's room (column, row) in a ``RoomGrid`` environment, None elsewhere."""
    size = getattr(env, "room_size", None)
    if size is None:
        return None
    x, y = _position(env)
    return x // (size - 1), y // (size - 1)


def minigrid_names(env: Any) -> list[str]:
    """The object names of a MiniGrid world (types, and colours with types, of everything
    on its grid and carried, walls and floor aside), sorted: a translator's vocabulary.

    Examples
    --------
    >>> import gymnasium as gym
    >>> import minigrid  # registers the MiniGrid environments
    >>> env = gym.make("MiniGrid-DoorKey-5x5-v0")
    >>> _ = env.reset(seed=0)
    >>> minigrid_names(env.unwrapped)
    ['door', 'goal', 'green_goal', 'key', 'yellow_door', 'yellow_key']
    """
    objects = [o for o in (*env.grid.grid, env.carrying) if o is not None]
    names = {n for o in objects if o.type not in ("wall", "floor")
             for n in (o.type, f"{o.color}_{o.type}")}  # fmt: skip
    return sorted(names)
