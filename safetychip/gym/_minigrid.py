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

For N worlds at once (a ``gymnasium.vector`` environment's copies),
:meth:`MiniGridLabeller.label_batch` and :meth:`MiniGridLabeller.model_batch` give the same
answers as one numpy array (:func:`label_worlds`).

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

__all__ = ["MINIGRID_PREDICATES", "MiniGridLabeller", "label_worlds", "minigrid_names"]

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


#: Each object kind met, ``(type, colour)``, by number (0 is no object).
_KINDS: dict[tuple[str, str], int] = {}
_KIND_LIST: list[tuple[str, str]] = [("", "")]
#: MiniGrid's action numbers (``MiniGridEnv.Actions``): those that leave the agent's cell,
#: what it carries and the grid as they are, and forward.
_STAY, _FORWARD = (0, 1, 6), 2
#: The cell ahead of an agent facing each direction, as an array.
_STEPS = np.array(_DIRECTIONS, dtype=np.intp)


def label_worlds(worlds: Sequence[Any], propositions: Sequence[str],
                 actions: Sequence[Any] | None = None,
                 ) -> tuple[np.ndarray, np.ndarray] | None:  # fmt: skip
    """The labeller for N worlds at once: the ``(N, len(propositions))`` bool letters of the
    unwrapped MiniGrid *worlds* (with *actions*: of what each action would produce), and for
    each world whether it is known (False: label or model it alone); None when a proposition
    is not supported here, or a world is not a MiniGrid world.

    A pass over the worlds per attribute reads what the propositions depend on (the object in
    the agent's cell, the one it carries, its cell), objects as small integers (their kind:
    type and colour); numpy then gives every proposition of every world from a table per
    proposition. With actions, the cell is the one each action would put the agent in, as
    :meth:`MiniGridLabeller.model` finds it (turns and ``done`` stay, ``forward`` moves when
    the cell lets it); the other actions (pick up, drop, toggle) are left to the one-world
    model. Supported: ``on_lava``, ``agent_at(...)`` (objects, ``floor`` and rooms),
    ``is_carrying`` and ``is_grabbed``; ``is_open`` and ``adjacent_to`` get None.

    Examples
    --------
    >>> import gymnasium as gym
    >>> import minigrid  # registers the MiniGrid environments
    >>> worlds = [gym.make("MiniGrid-LavaGapS5-v0").unwrapped for _ in range(2)]
    >>> for world in worlds:
    ...     _ = world.reset(seed=0)
    >>> letters, known = label_worlds(worlds, ("on_lava",), [2, 0])  # forward, turn left
    >>> letters.tolist(), known.tolist()
    ([[True], [False]], [True, True])
    >>> label_worlds(worlds, ("is_open(door)",)) is None
    True
    """
    columns = _columns(tuple(propositions))
    if columns is None:
        return None
    from minigrid.core.actions import Actions

    n = len(worlds)
    try:  # a pass per attribute: each a loop in C, the cells found with numpy
        xy = np.array([w.agent_pos for w in worlds], dtype=np.intp).reshape(n, 2)
        grids = [w.grid for w in worlds]
        width = np.array([g.width for g in grids], dtype=np.intp)
        cells = [g.grid for g in grids]
        carrying = any(source == "carried" for source, _ in columns)
        held = [w.carrying for w in worlds] if carrying else []
        if actions is not None:
            height = np.array([g.height for g in grids], dtype=np.intp)
            directions = np.array([w.agent_dir for w in worlds], dtype=np.intp)
            plain = np.array([w.actions is Actions for w in worlds], dtype=bool)
    except (AttributeError, TypeError, ValueError):  # not MiniGrid worlds
        return None
    x, y = xy[:, 0], xy[:, 1]
    known = np.ones(n, bool)
    if actions is not None:
        action = np.asarray(actions).reshape(n)
        forward = plain & (action == _FORWARD)
        known = plain & (forward | np.isin(action, _STAY))
        step = _STEPS[directions % 4]
        fx, fy = x + step[:, 0], y + step[:, 1]
        inside = (0 <= fx) & (fx < width) & (0 <= fy) & (fy < height)
        known &= ~forward | inside
        rows = np.flatnonzero(forward & inside).tolist()
        fronts = (fy * width + fx).tolist()
        moves = [k for k in rows
                 if (f := cells[k][fronts[k]]) is None or f.can_overlap()]  # fmt: skip
        x, y = x.copy(), y.copy()
        x[moves], y[moves] = fx[moves], fy[moves]
    index = (y * width + x).tolist()
    kinds = _KINDS
    here = [0 if (o := c[k]) is None else kinds.get((o.type, o.color)) or _kind(o)
            for c, k in zip(cells, index)]  # fmt: skip
    carried = [0 if o is None else kinds.get((o.type, o.color)) or _kind(o) for o in held]
    read = {"cell": np.array(here, np.intp), "carried": np.array(carried, np.intp)}
    letters = np.zeros((n, len(columns)), bool)
    for k, (source, what) in enumerate(columns):
        if source == "room":
            i, j = what
            size = np.array([getattr(w, "room_size", None) or 0 for w in worlds], np.intp)
            known &= size != 1  # the one-world labeller raises there
            span = np.where(size > 1, size - 1, 1)
            letters[:, k] = (size > 1) & (x // span == i) & (y // span == j)
        else:
            letters[:, k] = _table(what, len(_KIND_LIST))[read[source]]
    letters[~known] = False
    return letters, known


def _kind(obj: Any) -> int:
    """The number of *obj*'s kind (registering a new one)."""
    key = (obj.type, obj.color)
    _KINDS[key] = len(_KIND_LIST)
    _KIND_LIST.append(key)
    return _KINDS[key]


@lru_cache(maxsize=1024)
def _table(name: str, size: int) -> np.ndarray:
    """Whether each of the first *size* kinds is named *name* (``floor``: also no object)."""
    table = np.array([kind == name or f"{colour}_{kind}" == name
                      for kind, colour in _KIND_LIST[:size]])  # fmt: skip
    table[0] = name == "floor"
    return table


@lru_cache(maxsize=256)
def _columns(propositions: tuple[str, ...]) -> tuple[tuple[str, Any], ...] | None:
    """What each proposition reads: ``("cell", name)``, ``("carried", name)`` or
    ``("room", (i, j))``; None if one is not supported here."""
    columns: list[tuple[str, Any]] = []
    for p in propositions:
        if p == "on_lava":
            columns.append(("cell", "lava"))
            continue
        match = _ATOM.match(p)
        if match is None:
            return None
        predicate, name = match["predicate"], match["argument"]
        room = _ROOM.match(name)
        if predicate == "agent_at" and room is not None:
            columns.append(("room", (int(room["i"]), int(room["j"]))))
        elif predicate == "agent_at":
            columns.append(("cell", name))
        elif predicate in ("is_carrying", "is_grabbed"):
            columns.append(("carried", name))
        else:
            return None
    return tuple(columns)


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
