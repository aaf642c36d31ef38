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

from ._minigrid import _ATOM, _DIRECTIONS, _ROOM

__all__ = ["label_worlds"]

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
    """The ``(N, len(propositions))`` bool letters of the unwrapped MiniGrid *worlds* (with
    *actions*: of what each action would produce), and for each world whether it is known
    (False: label or model it alone); None when a proposition is not supported here, or a
    world is not a MiniGrid world."""
    columns = _columns(tuple(propositions))
    if columns is None:
        return None
    from minigrid.core.actions import Actions

    n = len(worlds)
    try:  # a pass per attribute: each a loop in C, the cells found with numpy
        xy = np.array([w.agent_pos for w in worlds], dtype=np.intp).reshape(n, 2)
        grids = [w.grid for w in worlds]
        width = np.array([g.width for g in grids], dtype=np.intp)
        height = np.array([g.height for g in grids], dtype=np.intp)
        cells = [g.grid for g in grids]
        held = [w.carrying for w in worlds]
        if actions is not None:
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
