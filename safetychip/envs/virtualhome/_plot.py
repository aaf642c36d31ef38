"""Pictures of scenes and rollouts (matplotlib): a floor plan, and a timeline.

:func:`plot_floor_plan` draws the rooms of a scene as boxes laid out from the room
adjacency, doors as links, chosen objects as dots in their rooms, and the agent's path
through the rooms. :func:`plot_timeline` draws a rollout: the truth value of each
proposition at each position of the trace, the state of each constraint's automaton
(accepting, pending or dead), and the actions the monitor pruned.

Both return the figure and, given ``save``, write it atomically (the format follows the
suffix). Drawing is deterministic: the layout depends on the scene only.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from safetychip.envs import load_scene
>>> fig = plot_floor_plan(load_scene("apartment_1"), path=["bedroom", "living_room", "kitchen"])
>>> [t.get_text() for t in fig.axes[0].texts][:4]
['hallway', '14 objects', 'living room', '25 objects']
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from safetychip.envs._io import atomic_savefig
from safetychip.envs.virtualhome._scene import Scene
from safetychip.monitor import compile_dfa

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["EXACT_LAYOUT", "floor_plan_layout", "plot_floor_plan", "plot_timeline", "rooms_visited"]

_BOX = 0.76  # box side, in grid cells
_STEPS = ((1, 0), (0, -1), (-1, 0), (0, 1))  # where neighbours go: right, below, left, above
_COLOURS = {
    "room": "#f4f1ea",
    "edge": "#5d5d5d",
    "door": "#8d6e63",
    "path": "#1565c0",
    "start": "#2e7d32",
    "end": "#c62828",
    "object": "#6d4c41",
    "true": "#1565c0",
    "false": "#eceff1",
    "accepting": "#a5d6a7",
    "pending": "#ffe082",
    "dead": "#ef9a9a",
    "pruned": "#c62828",
    "refused": "#9e9e9e",
}


def floor_plan_layout(scene: Scene) -> dict[str, tuple[int, int]]:
    """Grid cells for the rooms of *scene*, rooms joined by a door side by side where possible.

    Up to :data:`EXACT_LAYOUT` rooms, every placement on a compact grid is tried and the
    best kept: fewest doors between rooms that are not side by side, then the shortest
    longest side, then the smallest area, then the first found in a fixed order (rooms in
    :attr:`Scene.rooms` order, cells row by row from the top left). Larger scenes are laid
    out greedily: a
    breadth-first walk of the adjacency puts each newly reached room in the first free cell
    right of, below, left of or above the room it was reached from.

    Examples
    --------
    >>> from safetychip.envs import load_scene
    >>> floor_plan_layout(load_scene("apartment_1"))
    {'hallway': (0, 0), 'living_room': (1, 0), 'kitchen': (2, 0), 'bedroom': (1, -1), \
'bathroom': (0, -1)}
    """
    rooms = tuple(scene.rooms)
    doors = tuple(sorted({tuple(sorted((a, b))) for a, ns in scene.adjacency.items() for b in ns}))
    return dict(_layout(rooms, doors))


#: Scenes with at most this many rooms get the best grid layout (an exhaustive search).
EXACT_LAYOUT = 6


@lru_cache(maxsize=64)
def _layout(
    rooms: tuple[str, ...], doors: tuple[tuple[str, str], ...]
) -> tuple[tuple[str, tuple[int, int]], ...]:
    if not rooms:
        return ()
    if len(rooms) > EXACT_LAYOUT:
        return tuple(_greedy_layout(rooms, doors).items())
    n = len(rooms)
    index = {r: i for i, r in enumerate(rooms)}
    pairs = [(index[a], index[b]) for a, b in doors]
    best: tuple[tuple[int, int, int], tuple[tuple[int, int], ...]] | None = None
    shapes = sorted(
        {(w, h) for w in range(1, n + 1) for h in range(1, n + 1) if n <= w * h < n + max(w, h)},
        key=lambda wh: (max(wh), wh[0] * wh[1], -wh[0]),
    )
    for w, h in shapes:
        cells = [(x, -y) for y in range(h) for x in range(w)]
        for placement in itertools.permutations(cells, n):
            apart = sum(
                abs(placement[i][0] - placement[j][0]) + abs(placement[i][1] - placement[j][1]) != 1
                for i, j in pairs
            )
            score = (apart, max(w, h), w * h)
            if best is None or score < best[0]:
                best = (score, placement)
                if apart == 0:
                    break
        if best is not None and best[0][0] == 0:
            break
    assert best is not None
    return tuple(zip(rooms, best[1]))


def _greedy_layout(
    rooms: tuple[str, ...], doors: tuple[tuple[str, str], ...]
) -> dict[str, tuple[int, int]]:
    adjacency: dict[str, list[str]] = {r: [] for r in rooms}
    for a, b in doors:
        adjacency[a].append(b)
        adjacency[b].append(a)
    start = max(rooms, key=lambda r: (len(adjacency[r]), -rooms.index(r)))
    cells: dict[str, tuple[int, int]] = {start: (0, 0)}
    taken = {(0, 0)}
    queue = deque([start])
    while queue:
        room = queue.popleft()
        x, y = cells[room]
        for neighbour in adjacency[room]:
            if neighbour in cells:
                continue
            free = [(x + dx, y + dy) for dx, dy in _STEPS if (x + dx, y + dy) not in taken]
            cell = free[0] if free else _nearest_free(taken, (x, y))
            cells[neighbour] = cell
            taken.add(cell)
            queue.append(neighbour)
    bottom = min(y for _, y in taken)
    for k, room in enumerate(r for r in rooms if r not in cells):
        cells[room] = (k, bottom - 2)
    return cells


def _nearest_free(taken: set[tuple[int, int]], around: tuple[int, int]) -> tuple[int, int]:
    for radius in range(1, 64):
        ring = sorted(
            ((around[0] + dx, around[1] + dy) for dx in range(-radius, radius + 1)
             for dy in range(-radius, radius + 1) if max(abs(dx), abs(dy)) == radius),
            key=lambda c: (abs(c[0] - around[0]) + abs(c[1] - around[1]), -c[1], c[0]),
        )  # fmt: skip
        for cell in ring:
            if cell not in taken:
                return cell
    raise AssertionError("no free cell")  # pragma: no cover - 64 rings always have one


def rooms_visited(rollout: Any) -> list[str]:
    """The rooms the agent was in along a record's executed trace, repeats collapsed.

    *rollout* is a :class:`~safetychip.shield.TraceRecord` (anything with ``trace``,
    ``propositions`` and ``scene``).

    Raises
    ------
    ValueError
        If the rollout did not record ``agent_at`` of the rooms.
    """
    props = _room_props(rollout)
    path: list[str] = []
    for state in rollout.trace:
        here = [p[len("agent_at(") : -1] for p in props if state.get(p)]
        if len(here) == 1 and (not path or path[-1] != here[0]):
            path.append(here[0])
    if not path:
        raise ValueError("the rollout records no room of the agent: track agent_at(<room>)")
    return path


def _room_props(rollout: Any) -> list[str]:
    """The recorded ``agent_at`` propositions of the rollout's scene's rooms."""
    if rollout.scene is None:
        return []
    from safetychip.envs.virtualhome._scene import load_scene

    rooms = load_scene(rollout.scene).rooms
    return [f"agent_at({r})" for r in rooms if f"agent_at({r})" in rollout.propositions]


def plot_floor_plan(
    scene: Scene,
    *,
    path: Any = None,
    objects: Iterable[str] = (),
    ax: Any = None,
    title: str | None = None,
    save: str | os.PathLike[str] | None = None,
) -> Figure:
    """Draw *scene*'s rooms as boxes, doors as links, and the agent's *path*.

    Parameters
    ----------
    scene : Scene
    path : TraceRecord or sequence of str, optional
        Rooms in the order visited, or a rollout (its :func:`rooms_visited`). Drawn as
        numbered arrows from a green start to a red end.
    objects : iterable of str, optional
        Unique object names to mark as dots in their rooms (as placed in the scene file).
    ax : matplotlib Axes, optional
        Draw there; by default a new figure is made.
    title : str, optional
        Default: the scene's name.
    save : str or path, optional
        Write the figure there (atomically).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If *path* names something that is not a room of *scene*.
    ActionError
        If *objects* names an object the scene lacks (with the closest names).
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle

    cells = floor_plan_layout(scene)
    recorded = path is not None and hasattr(path, "trace")
    rooms = rooms_visited(path) if recorded else list(path if path is not None else ())
    unknown = [r for r in rooms if r not in cells]
    if unknown:
        raise ValueError(
            f"not rooms of scene {scene.name!r}: {', '.join(map(repr, unknown))}; "
            f"rooms: {', '.join(scene.rooms)}"
        )
    if ax is None:
        width = max(x for x, _ in cells.values()) - min(x for x, _ in cells.values()) + 1
        height = max(y for _, y in cells.values()) - min(y for _, y in cells.values()) + 1
        fig, ax = plt.subplots(figsize=(2.3 * width + 1, 2.1 * height + 0.8))
    else:
        fig = ax.figure
    half = _BOX / 2
    counts = {room: 0 for room in scene.rooms}
    for name in scene.objects:
        counts[scene.name_of(scene.room_of(scene.id(name)))] += 1
    # doors first, under the boxes
    drawn = set()
    for room, neighbours in scene.adjacency.items():
        for other in neighbours:
            pair = tuple(sorted((room, other)))
            if pair in drawn:
                continue
            drawn.add(pair)
            (x1, y1), (x2, y2) = cells[pair[0]], cells[pair[1]]
            touching = abs(x1 - x2) + abs(y1 - y2) == 1
            ax.add_patch(FancyArrowPatch(
                (x1, y1), (x2, y2), arrowstyle="-", linewidth=7 if touching else 2.5,
                color=_COLOURS["door"], linestyle="-" if touching else "--",
                connectionstyle="arc3,rad=0" if touching else "arc3,rad=0.25", zorder=1,
            ))  # fmt: skip
    for room, (x, y) in cells.items():
        ax.add_patch(Rectangle((x - half, y - half), _BOX, _BOX, facecolor=_COLOURS["room"],
                               edgecolor=_COLOURS["edge"], linewidth=1.5, zorder=2))  # fmt: skip
        ax.text(x, y + half - 0.08, room.replace("_", " "), ha="center", va="top",
                fontsize=10, fontweight="bold", zorder=5)  # fmt: skip
        ax.text(x, y - half + 0.05, f"{counts[room]} objects", ha="center", va="bottom",
                fontsize=7, color="#757575", zorder=5)  # fmt: skip
    # objects, in a small grid inside their room
    placed: dict[str, int] = {}
    for name in dict.fromkeys(objects):
        room = scene.name_of(scene.room_of(scene.id(name)))
        k = placed.get(room, 0)
        placed[room] = k + 1
        x, y = cells[room]
        ox, oy = x - half + 0.12 + (k % 2) * 0.36, y + 0.14 - (k // 2) * 0.12
        ax.plot(ox, oy, "o", color=_COLOURS["object"], markersize=4, zorder=6)
        ax.text(ox + 0.03, oy, name.replace("_", " "), fontsize=6.5, va="center", zorder=6)
    # the path: one arrow per move, offset so that back-and-forth moves stay apart
    if rooms:
        seen: dict[tuple[str, str], int] = {}
        for k, (a, b) in enumerate(itertools.pairwise(rooms), 1):
            key = tuple(sorted((a, b)))
            repeat = seen.get(key, 0)  # type: ignore[arg-type]
            seen[key] = repeat + 1  # type: ignore[index]
            (x1, y1), (x2, y2) = cells[a], cells[b]
            rad = 0.18 + 0.14 * repeat
            arrow = FancyArrowPatch(
                (x1, y1 - 0.1), (x2, y2 - 0.1), arrowstyle="-|>", mutation_scale=14,
                linewidth=2, color=_COLOURS["path"], connectionstyle=f"arc3,rad={rad}",
                shrinkA=9, shrinkB=9, zorder=7,
            )  # fmt: skip
            ax.add_patch(arrow)
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2 - 0.1
            nx, ny = y2 - y1, x1 - x2  # arc3 bends towards this side
            badge = {"boxstyle": "circle,pad=0.2", "fc": _COLOURS["path"], "ec": "none"}
            ax.text(mx + rad * nx * 0.5, my + rad * ny * 0.5, str(k), fontsize=8,
                    color="white", ha="center", va="center", zorder=8, bbox=badge)  # fmt: skip
        (sx, sy), (ex, ey) = cells[rooms[0]], cells[rooms[-1]]
        ax.plot(sx, sy - 0.1, "o", color=_COLOURS["start"], markersize=11, zorder=9,
                label=f"start: {rooms[0].replace('_', ' ')}")  # fmt: skip
        ax.plot(ex, ey - 0.1, "s", color=_COLOURS["end"], markersize=9, zorder=9,
                label=f"end: {rooms[-1].replace('_', ' ')}")  # fmt: skip
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    xs = [x for x, _ in cells.values()]
    ys = [y for _, y in cells.values()]
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(scene.name if title is None else title)
    fig.tight_layout()
    if save is not None:
        atomic_savefig(fig, save, dpi=120, bbox_inches="tight")
    return fig


def plot_timeline(
    rollout: Any,
    *,
    propositions: Sequence[str] | None = None,
    title: str | None = None,
    save: str | os.PathLike[str] | None = None,
) -> Figure:
    """Draw a rollout over time: proposition truth values and each automaton's state.

    The x axis is the position in the executed trace (0 is the state before the first
    action); each executed action is labelled where its first state begins. The upper panel
    shows each proposition as a row, filled where it is true. The lower panel shows, per
    constraint, its automaton's state at each position (the number), coloured green when
    accepting, yellow when an obligation is pending, red when dead. Actions the monitor
    pruned are red dashed lines between the positions where they were tried, with the
    attributed constraints marked by a cross on their rows; actions the environment refused
    are grey dotted lines. The actions are named along the top.

    Parameters
    ----------
    rollout : TraceRecord
    propositions : sequence of str, optional
        Rows of the upper panel (default: the constraints' propositions, then the rooms).
    title : str, optional
        Default: the task and whether the rollout was monitored.
    save : str or path, optional
        Write the figure there (atomically).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If a proposition was not recorded by the rollout.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from safetychip.envs import VirtualHomeEnv, load_tasks, task_monitor
    >>> from safetychip.shield import run_monitored
    >>> task = load_tasks(suite="four_room")[0]
    >>> r = run_monitored(VirtualHomeEnv(task=task), ["walk to bathroom", "walk to kitchen",
    ...                   "done"], task_monitor(task))
    >>> fig = plot_timeline(r)
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['propositions', 'automata']
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    trace = rollout.trace
    if propositions is None:
        mentioned = sorted(set().union(*(c.formula.atoms() for c in rollout.constraints)))
        propositions = list(dict.fromkeys([*mentioned, *_room_props(rollout)]))
    missing = [p for p in propositions if p not in rollout.propositions]
    if missing:
        raise ValueError(f"the rollout did not record {', '.join(missing)}; it recorded "
                         f"{', '.join(rollout.propositions)}")  # fmt: skip
    constraints = rollout.constraints
    n = len(trace)
    # positions where each executed step starts; steps that did not run go between the
    # positions where they were tried, spread out when several were tried there
    labels: list[tuple[float, str]] = []
    waiting: list[Any] = []
    pruned: list[tuple[float, str, tuple[str, ...]]] = []
    refused: list[tuple[float, str]] = []
    position = 1

    def place(before: int) -> None:
        for k, step in enumerate(waiting):
            x = before - 0.5 + (k - (len(waiting) - 1) / 2) * min(0.6 / len(waiting), 0.3)
            if step.pruned:
                pruned.append((x, step.action, step.violated))
            else:
                refused.append((x, step.action))
        waiting.clear()

    for step in rollout.steps:
        if step.outcome == "done":
            continue
        if step.executed:
            place(position)
            labels.append((position, step.action))
            position += len(step.states)
        else:
            waiting.append(step)
    place(position)
    heights = [max(len(propositions), 1), max(len(constraints), 1)]
    fig, (top, bottom) = plt.subplots(
        2, 1, sharex=True, figsize=(max(6.5, 0.62 * n + 4.0), 0.32 * sum(heights) + 3.2),
        gridspec_kw={"height_ratios": heights}, layout="constrained",
    )  # fmt: skip
    for row, prop in enumerate(propositions):
        for i, state in enumerate(trace):
            colour = _COLOURS["true"] if state.get(prop) else _COLOURS["false"]
            top.add_patch(Rectangle((i - 0.45, row - 0.4), 0.9, 0.8, color=colour, lw=0))
    top.set_yticks(range(len(propositions)), list(propositions), fontsize=8)
    top.set_ylim(len(propositions) - 0.5, -0.5)
    top.set_ylabel("propositions")
    for row, c in enumerate(constraints):
        dfa = compile_dfa(c.formula)
        dead = dfa.dead_states()
        q = dfa.initial
        for i, state in enumerate(trace):
            q = dfa.next_state(q, state)
            kind = "accepting" if dfa.accepting[q] else "dead" if q in dead else "pending"
            bottom.add_patch(Rectangle((i - 0.45, row - 0.4), 0.9, 0.8, color=_COLOURS[kind],
                                       lw=0))  # fmt: skip
            bottom.text(i, row, str(q), ha="center", va="center", fontsize=8)
    names = [c.name for c in constraints]
    bottom.set_yticks(range(len(constraints)), names, fontsize=8)
    bottom.set_ylim(len(constraints) - 0.5, -0.5)
    bottom.set_ylabel("automata")
    for x, _, violated in pruned:
        for ax in (top, bottom):
            ax.axvline(x, color=_COLOURS["pruned"], linestyle="--", linewidth=1.2)
        for name in violated:
            if name in names:
                bottom.plot(x, names.index(name), "X", color=_COLOURS["pruned"], markersize=9)
    ticks = list(range(n))
    bottom.set_xticks(ticks, [str(t) for t in ticks], fontsize=8)
    bottom.set_xlim(-0.6, n - 0.4)
    bottom.set_xlabel("position in the trace")
    # the actions, along the top: executed ones where their first state is, pruned in red
    for x, _ in refused:
        top.axvline(x, color=_COLOURS["refused"], linestyle=":", linewidth=1.2)
    marks = sorted(
        [(x, action, "black") for x, action in labels]
        + [(x, f"pruned: {action}", _COLOURS["pruned"]) for x, action, _ in pruned]
        + [(x, f"refused: {action}", _COLOURS["refused"]) for x, action in refused]
    )
    actions = top.secondary_xaxis("top")
    actions.set_xticks([m[0] for m in marks], [m[1] for m in marks], rotation=40, ha="left",
                       fontsize=7.5)  # fmt: skip
    for label, (_, _, colour) in zip(actions.get_xticklabels(), marks):
        label.set_color(colour)
    done = ""
    if rollout.finish is not None and rollout.monitored:
        done = f"; DONE {'safe' if rollout.finish.admitted else 'violation'}"
    kind = "monitored" if rollout.monitored else "unmonitored"
    fig.suptitle(title or f"{rollout.task or rollout.scene or 'rollout'} ({kind}{done})",
                 fontsize=11)  # fmt: skip
    legend = [Patch(color=_COLOURS[k], label=k) for k in ("accepting", "pending", "dead")]
    bottom.legend(handles=legend, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7.5,
                  frameon=False)  # fmt: skip
    if save is not None:
        atomic_savefig(fig, save, dpi=120, bbox_inches="tight")
    return fig
