"""The MiniGrid labeller for N worlds at once (a ``gymnasium.vector`` environment's copies).

One pass over the worlds reads what the propositions depend on (the object in the agent's
cell, the one it carries, its cell), as small integers (each object's kind: its type and
colour); numpy then gives every proposition of every world from a table per proposition.
With actions, the cell is the one each action would put the agent in, as
:meth:`MiniGridLabeller.model <safetychip.gym.MiniGridLabeller.model>` finds it (turns and
``done`` stay, ``forward`` moves when the cell lets it); the other actions (pick up, drop,
toggle), and worlds that are not plain MiniGrid grids, are left to the one-world model
(``known`` is False there).

Supported: ``on_lava``, ``agent_at(...)`` (objects, ``floor`` and rooms), ``is_carrying``
and ``is_grabbed``; a specification over ``is_open`` or ``adjacent_to`` gets None (label
the worlds one by one).

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

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ._minigrid import _ATOM, _DIRECTIONS, _ROOM, _position

__all__ = ["label_worlds"]

#: Each object kind met, ``(type, colour)``, by number (0 is no object).
_KINDS: dict[tuple[str, str], int] = {}
_KIND_LIST: list[tuple[str, str]] = [("", "")]
#: MiniGrid's action numbers (``MiniGridEnv.Actions``): those that leave the agent's cell,
#: what it carries and the grid as they are, and forward.
_STAY, _FORWARD = frozenset({0, 1, 6}), 2


def label_worlds(worlds: Sequence[Any], propositions: Sequence[str],
                 actions: Sequence[Any] | None = None,
                 ) -> tuple[np.ndarray, np.ndarray] | None:  # fmt: skip
    """The ``(N, len(propositions))`` bool letters of the unwrapped MiniGrid *worlds* (with
    *actions*: of what each action would produce), and for each world whether it is known
    (False: label or model it alone); None when a proposition is not supported here."""
    columns = _columns(tuple(propositions))
    if columns is None:
        return None
    n = len(worlds)
    cell, carried = np.zeros(n, np.intp), np.zeros(n, np.intp)
    xs, ys = np.zeros(n, np.intp), np.zeros(n, np.intp)
    known = np.ones(n, bool)
    rooms = any(source == "room" for source, _ in columns)
    sizes = np.zeros(n, np.intp) if rooms else None
    kinds = _KINDS
    from minigrid.core.actions import Actions

    for i, world in enumerate(worlds):
        try:
            x, y = _position(world)
            grid = world.grid
            cells, width, height = grid.grid, grid.width, grid.height
            if actions is not None and world.actions is not Actions:
                raise TypeError("not MiniGrid's actions")
        except (AttributeError, TypeError, ValueError):  # not a plain MiniGrid world
            known[i] = False
            continue
        obj = cells[y * width + x]
        if actions is not None:
            action = actions[i]
            if action == _FORWARD:
                dx, dy = _DIRECTIONS[world.agent_dir]
                fx, fy = x + dx, y + dy
                if not (0 <= fx < width and 0 <= fy < height):
                    known[i] = False
                    continue
                front = cells[fy * width + fx]
                if front is None or front.can_overlap():
                    obj, x, y = front, fx, fy
            elif action not in _STAY:
                known[i] = False
                continue
        if obj is not None:
            kind = kinds.get((obj.type, obj.color))
            cell[i] = kind if kind is not None else _kind(obj)
        held = world.carrying
        if held is not None:
            kind = kinds.get((held.type, held.color))
            carried[i] = kind if kind is not None else _kind(held)
        xs[i], ys[i] = x, y
        if sizes is not None:
            sizes[i] = getattr(world, "room_size", None) or 0
            known[i] = sizes[i] != 1  # the one-world labeller raises there
    letters = np.zeros((n, len(columns)), bool)
    for k, (source, what) in enumerate(columns):
        if source == "room":
            i, j = what
            inside = sizes > 1  # type: ignore[operator]
            span = np.where(inside, sizes - 1, 1)  # type: ignore[operator]
            letters[:, k] = inside & (xs // span == i) & (ys // span == j)
        else:
            table = _table(what, len(_KIND_LIST))
            letters[:, k] = table[cell if source == "cell" else carried]
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
