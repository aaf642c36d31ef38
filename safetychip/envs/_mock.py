"""A proposition-level environment: no simulator, only the propositions and, optionally,
rooms the agent moves between. For tests, teaching and adversarial checks of the monitor.

Actions (canonical words):

``set p`` / ``clear p``
    Make the non-room proposition *p* true / false.
``go to r``
    Move to room *r*: along a shortest path of the adjacency when one is given (each room
    entered is a proposition state), else directly. ``go to r via h`` passes through *h*.
``jump a b …``
    Become the proposition state in which exactly the listed propositions hold (with one
    room among them when there are rooms).
``done``
    End the episode.

Examples
--------
>>> env = PropositionEnv(["a"], rooms=["r1", "r2", "r3"],
...                      adjacency={"r1": ["r2"], "r2": ["r1", "r3"], "r3": ["r2"]})
>>> _, info = env.reset(options={"initial": ["agent_at(r1)"]})
>>> [s["agent_at(r2)"] for s in env.preview("go to r3", env.tracked)]
[True, False]
>>> env.step("set a")[-1]["states"][0]["a"]
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, ClassVar, NamedTuple

import networkx as nx

from safetychip._names import did_you_mean
from safetychip.envs._base import Env, Lookahead, PropositionState
from safetychip.envs._places import place_invariants
from safetychip.errors import ActionError, PropositionError

__all__ = ["PropositionEnv"]


@dataclass(frozen=True)
class _Snapshot:
    """A saved world: equal (and hashed alike) whenever the true propositions are, however
    many steps led there."""

    world: tuple[str, ...]
    steps: int = field(compare=False)


class _Target(NamedTuple):
    name: str


class _Action(NamedTuple):
    verb: str
    targets: tuple[_Target, ...]
    text: str

    def __str__(self) -> str:
        return self.text


class PropositionEnv(Env):
    """An environment whose world is a proposition state.

    Parameters
    ----------
    propositions : iterable of str
        The propositions other than the rooms'.
    rooms : iterable of str, optional
        Room names; ``agent_at(room)`` holds for exactly one at a time.
    adjacency : mapping of str to list of str, optional
        Which rooms connect (default: all of them).
    initial, goal : iterable of str, optional
        Literals (``"a"``, ``"!a"``, ``"agent_at(r1)"``) true at reset / required at the end.
    max_steps : int, optional
        Truncate the episode after this many steps.

    Attributes
    ----------
    steps : int
        How many actions ran in this episode (refusals and previews do not count).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "propositions"}

    def __init__(self, propositions: Iterable[str] = (), *, rooms: Iterable[str] = (),
                 adjacency: Mapping[str, Sequence[str]] | None = None,
                 initial: Iterable[str] = (), goal: Iterable[str] = (),
                 max_steps: int | None = None) -> None:  # fmt: skip
        self.rooms = tuple(dict.fromkeys(rooms))
        self._room_props = tuple(f"agent_at({r})" for r in self.rooms)
        self.names = tuple(p for p in dict.fromkeys(propositions) if p not in self._room_props)
        self.objects = ()
        self._tracked = (*self.names, *self._room_props)  # everything, until told otherwise
        graph: nx.Graph[str] = nx.Graph()
        graph.add_nodes_from(self.rooms)
        if adjacency is None:
            graph.add_edges_from((a, b) for a in self.rooms for b in self.rooms if a < b)
        else:
            graph.add_edges_from((a, b) for a, bs in adjacency.items() for b in bs)
            unknown = sorted(set(graph) - set(self.rooms))
            if unknown:
                raise ValueError(f"adjacency names unknown rooms: {', '.join(unknown)}")
        self._graph = graph
        self._shortest: dict[str, dict[str, list[str]]] | None = None
        self._adjacency = adjacency
        self.initial = tuple(initial)
        self.goal = tuple(goal)
        self.max_steps = max_steps
        self.steps = 0
        self._world: tuple[str, ...] | None = None  # the true propositions, sorted
        self._done = False

    # -- the protocol -----------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[str, dict[str, Any]]:  # fmt: skip
        """Start in the initial literals (``options={"initial": [...]}`` overrides them);
        with rooms and none given, in the first room."""
        self._require_open()
        options = dict(options or {})
        unknown = sorted(set(options) - {"initial", "goal"})
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; valid: initial, goal")
        true = {lit for lit in options.get("initial", self.initial) if not lit.startswith("!")}
        for name in true:
            self._known(name)
        if self.rooms and not true & set(self._room_props):
            true.add(self._room_props[0])
        if len(true & set(self._room_props)) > 1:
            raise ValueError(f"the agent can be in one room only, got {sorted(true)}")
        self.goal = tuple(options.get("goal", self.goal))
        self._world, self._done, self.steps = tuple(sorted(true)), False, 0
        return self.render(), {"states": [self.truth(self.tracked)], "error": None}

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Execute *action*; a refused one changes nothing and says why in ``info``."""
        self._require_episode()
        act = self.parse(action)
        info: dict[str, Any] = {"action": act.text, "states": [], "error": None}
        if act.verb == "done":
            self._done = True
            return self.render(), float(self.goal_reached()), True, False, info
        worlds, error = self._simulate(act)
        if error is not None:
            info["error"] = error
            return self.render(), 0.0, False, False, info
        self._world = worlds[-1]
        info["states"] = [self._truth(w, self.tracked) for w in worlds]
        self.steps += 1
        truncated = self.max_steps is not None and self.steps >= self.max_steps
        self._done = truncated
        return self.render(), 0.0, False, truncated, info

    def lookahead(self, action: Any, propositions: Iterable[str]) -> Lookahead:
        """What *action* would do; the world snapshot it leads to."""
        self._require_episode()
        act = self.parse(action)
        if act.verb == "done":
            return Lookahead([], None, None)
        worlds, error = self._simulate(act)
        if error is not None:
            return Lookahead([], None, error)
        props = tuple(propositions)
        return Lookahead([self._truth(w, props) for w in worlds],
                         _Snapshot(worlds[-1], self.steps + 1), None)  # fmt: skip

    def snapshot(self) -> _Snapshot:
        """The world (its true propositions) and the step count."""
        self._require_state()
        assert self._world is not None
        return _Snapshot(self._world, self.steps)

    def restore(self, snapshot: _Snapshot) -> PropositionEnv:
        """Go back to *snapshot*; return ``self``.

        Raises
        ------
        ValueError
            If *snapshot* was not taken by a PropositionEnv.
        """
        self._require_snapshot(snapshot, _Snapshot)
        self._world, self.steps = snapshot.world, snapshot.steps
        self._done = False
        return self

    def parse(self, action: Any) -> _Action:
        """Read *action*; see the module notes for the words.

        Raises
        ------
        ActionError
            If the verb or a proposition is unknown.
        """
        if isinstance(action, _Action):
            return action
        words = str(action).strip().rstrip(".").split()
        verb = words[0].lower() if words else ""
        if verb == "done" and len(words) == 1:
            return _Action("done", (), "done")
        if verb in ("set", "clear") and len(words) == 2 and words[1] in self.names:
            return _Action(verb, (_Target(words[1]),), f"{verb} {words[1]}")
        if words[:2] == ["go", "to"] and len(words) in (3, 5) and words[2] in self.rooms:
            via = words[4] if len(words) == 5 and words[3] == "via" else None
            if len(words) == 5 and via not in self.rooms:
                raise ActionError(f"cannot read {action!r}: 'via' names no room")
            text = f"go to {words[2]}" + (f" via {via}" if via else "")
            return _Action("go", tuple(_Target(r) for r in (words[2], via) if r), text)
        if verb == "jump":
            for name in words[1:]:
                self._known(name, action)
            targets = tuple(_Target(n) for n in sorted(set(words[1:])))
            return _Action("jump", targets, " ".join(["jump", *(t.name for t in targets)]))
        raise ActionError(f"cannot read {action!r}: the actions are 'set p', 'clear p', "
                          f"'go to room', 'jump p q …' and 'done'")  # fmt: skip

    def admissible_actions(self) -> list[str]:
        """Every set/clear that changes something, every move to a neighbouring room, DONE."""
        self._require_episode()
        assert self._world is not None
        true = set(self._world)
        out = [f"clear {p}" if p in true else f"set {p}" for p in self.names]
        here = self._here(self._world)
        if here is not None:
            out += [f"go to {r}" for r in self.rooms if r in self._graph[here]]
        return [*out, "done"]

    def truth(self, propositions: Iterable[str]) -> PropositionState:
        """The truth value of each proposition now."""
        self._require_state()
        assert self._world is not None
        return self._truth(self._world, tuple(propositions))

    def goal_reached(self) -> bool:
        """Whether every goal literal holds now."""
        state = self.truth(lit.lstrip("!") for lit in self.goal)
        return all(state[lit.lstrip("!")] is not lit.startswith("!") for lit in self.goal)

    def track(self, propositions: Iterable[str]) -> PropositionEnv:
        """Report *propositions*; an unknown one raises ``PropositionError``."""
        names = tuple(dict.fromkeys(propositions))
        for name in names:
            self._known(name)
        super().track(names)
        return self

    def render(self) -> str:
        """The true propositions, as text."""
        self._require_state()
        return "true: " + (", ".join(self._world or ()) or "nothing")

    def invariants(self, atoms: Iterable[str] = ()) -> list[Any]:
        """One room at a time, and moves only between adjacent rooms (when given)."""
        if not self.rooms:
            return []
        if self._adjacency is None:
            return place_invariants(self.rooms)
        return place_invariants(self.rooms, {r: list(self._graph[r]) for r in self.rooms})

    def __repr__(self) -> str:
        return f"<PropositionEnv {len(self.names)} propositions, {len(self.rooms)} rooms>"

    # -- internals --------------------------------------------------------------------------

    def _known(self, name: str, action: Any = None) -> None:
        if name not in self.names and name not in self._room_props:
            hint = did_you_mean(name, [*self.names, *self._room_props])
            where = f"in {action!r}: " if action is not None else ""
            error = ActionError if action is not None else PropositionError
            raise error(f"{where}unknown proposition {name!r}{hint}")

    def _routes(self) -> dict[str, dict[str, list[str]]]:
        """Shortest routes between every two rooms (computed once)."""
        if self._shortest is None:
            self._shortest = dict(nx.all_pairs_shortest_path(self._graph))
        return self._shortest

    def _here(self, world: tuple[str, ...]) -> str | None:
        return next((r for r, p in zip(self.rooms, self._room_props) if p in world), None)

    def _simulate(self, act: _Action) -> tuple[list[tuple[str, ...]], str | None]:
        assert self._world is not None
        true = set(self._world)
        if act.verb in ("set", "clear"):
            name = act.targets[0].name
            if (name in true) == (act.verb == "set"):
                value = "true" if name in true else "false"
                return [], f"cannot {act.text}: {name} is already {value}"
            (true.add if act.verb == "set" else true.discard)(name)
            return [tuple(sorted(true))], None
        if act.verb == "go":
            here = self._here(self._world)
            goal = act.targets[0].name
            if here is None or here == goal:
                return [], f"cannot {act.text}: the agent is already there"
            stops = [here, *(t.name for t in act.targets[1:]), goal]
            routes = self._routes()
            if any(b not in routes[a] for a, b in pairwise(stops)):
                return [], f"cannot {act.text}: there is no way from {here}"
            path = [here] + [r for a, b in pairwise(stops) for r in routes[a][b][1:]]
            worlds = []
            for room in path[1:]:
                true -= set(self._room_props)
                true.add(f"agent_at({room})")
                worlds.append(tuple(sorted(true)))
            return worlds, None
        chosen = {t.name for t in act.targets}
        rooms = chosen & set(self._room_props)
        if self.rooms and len(rooms) != 1:
            return [], f"cannot {act.text}: exactly one room must hold"
        return [tuple(sorted(chosen))], None

    @staticmethod
    def _truth(world: tuple[str, ...], props: Iterable[str]) -> PropositionState:
        return {p: p in world for p in props}

    def _has_world(self) -> bool:
        return self._world is not None
