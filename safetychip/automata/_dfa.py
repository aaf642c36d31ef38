"""The deterministic finite automaton of a constraint."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import TraceError
from ._guards import MANAGER, Guard, atom_var, guard_str, pick_letter

__all__ = ["DFA"]

_TABLE_LIMIT = 16  # atoms up to which the transition function is tabulated per letter


@dataclass(frozen=True, eq=False)
class DFA:
    """A complete DFA over the valuations of ``aps``; edges carry BDD guards.

    Attributes
    ----------
    aps : tuple of str
        Atom names, sorted; bit i of a letter index is the value of ``aps[i]``.
    initial : int
        The initial state (before any letter: the empty trace).
    accepting : tuple of bool
        Whether a trace may end in each state.
    edges : tuple of tuple of (int, Guard)
        Per state, its ``(target, guard)`` edges; guards of one state partition the letters.
    formula : Formula or None
        The formula it was built from.

    Examples
    --------
    >>> from safetychip.automata import to_dfa
    >>> from safetychip.ltl import parse
    >>> dfa = to_dfa(parse('G!"is_grabbed(phone)"'))
    >>> dfa.num_states, dfa.live_states()
    (3, frozenset({0, 1}))
    >>> dfa.guards(0)
    [(1, '!is_grabbed(phone)'), (2, 'is_grabbed(phone)')]
    """

    aps: tuple[str, ...]
    initial: int
    accepting: tuple[bool, ...]
    edges: tuple[tuple[tuple[int, Guard], ...], ...]
    formula: object = None
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def num_states(self) -> int:
        """Number of states, the rejecting sink included."""
        return len(self.accepting)

    @property
    def num_edges(self) -> int:
        """Number of edges (one per pair of states joined by some letter)."""
        return sum(len(out) for out in self.edges)

    def guards(self, state: int) -> list[tuple[int, str]]:
        """The edges of *state* with readable guards."""
        return [(t, guard_str(g)) for t, g in self.edges[state]]

    # -- stepping -------------------------------------------------------------------------
    def letter_index(self, letter: Mapping[str, bool] | Iterable[str]) -> int:
        """Index of *letter* (true atoms, or a mapping giving every atom of ``aps``).

        Raises
        ------
        TraceError
            If a mapping lacks one of ``aps``.
        """
        index = 0
        if isinstance(letter, Mapping):
            for i, a in enumerate(self.aps):
                try:
                    if letter[a]:
                        index |= 1 << i
                except KeyError:
                    raise TraceError(f"the proposition state has no value for {a}") from None
        else:
            true = letter if isinstance(letter, (set, frozenset)) else set(letter)
            for i, a in enumerate(self.aps):
                if a in true:
                    index |= 1 << i
        return index

    def _table(self) -> list[list[int]] | None:
        table = self._cache.get("table")
        if table is None and len(self.aps) <= _TABLE_LIMIT:
            names = [atom_var(a).var for a in self.aps]
            table = []
            for out in self.edges:
                row = [0] * (1 << len(self.aps))
                for target, g in out:
                    for cube in MANAGER.pick_iter(g, care_vars=set(names)):
                        row[sum(1 << i for i, v in enumerate(names) if cube[v])] = target
                table.append(row)
            self._cache["table"] = table
        return table

    def next_state(self, state: int, letter: Mapping[str, bool] | Iterable[str]) -> int:
        """The state reached from *state* by reading *letter*."""
        index = self.letter_index(letter)
        table = self._table()
        if table is not None:
            return table[state][index]
        values = {atom_var(a).var: bool(index >> i & 1) for i, a in enumerate(self.aps)}
        for target, g in self.edges[state]:
            if (MANAGER.let(values, g) if values else g) == MANAGER.true:
                return target
        raise AssertionError("a complete DFA has an edge for every letter")

    def run(self, trace: Sequence, state: int | None = None) -> int:
        """The state reached after reading *trace* from *state* (default: initial)."""
        q = self.initial if state is None else state
        for letter in trace:
            q = self.next_state(q, letter)
        return q

    def accepts(self, trace: Sequence) -> bool:
        """Whether the (non-empty) *trace* satisfies the formula."""
        if not trace:
            raise TraceError("a trace must have at least one proposition state (position 0)")
        return self.accepting[self.run(trace)]

    # -- analysis -------------------------------------------------------------------------
    def live_states(self) -> frozenset[int]:
        """States from which some continuation reaches acceptance."""
        found = self._cache.get("live")
        if found is None:
            preds: list[list[int]] = [[] for _ in self.accepting]
            for s, out in enumerate(self.edges):
                for t, _ in out:
                    preds[t].append(s)
            todo = [s for s, a in enumerate(self.accepting) if a]
            seen = set(todo)
            while todo:
                for p in preds[todo.pop()]:
                    if p not in seen:
                        seen.add(p)
                        todo.append(p)
            found = self._cache["live"] = frozenset(seen)
        return found

    def dead_states(self) -> frozenset[int]:
        """States from which no continuation is accepted (a violation is certain)."""
        found = self._cache.get("dead")
        if found is None:
            found = self._cache["dead"] = frozenset(range(self.num_states)) - self.live_states()
        return found

    def distances(self) -> tuple[float, ...]:
        """Fewest letters from each state to an accepting state (``inf`` if dead)."""
        found = self._cache.get("dist")
        if found is None:
            preds: list[list[int]] = [[] for _ in self.accepting]
            for s, out in enumerate(self.edges):
                for t, _ in out:
                    preds[t].append(s)
            dist = [0.0 if a else float("inf") for a in self.accepting]
            todo = deque(s for s, a in enumerate(self.accepting) if a)
            while todo:
                t = todo.popleft()
                for p in preds[t]:
                    if dist[p] == float("inf"):
                        dist[p] = dist[t] + 1
                        todo.append(p)
            found = self._cache["dist"] = tuple(dist)
        return found

    def shortest_path(self, goal: Iterable[int], state: int | None = None):
        """Shortest list of letters from *state* into a state of *goal*, or None.

        Letters are frozensets of true atoms, each with as few true atoms as possible.
        """
        start = self.initial if state is None else state
        goal = set(goal)
        if state is not None and start in goal:
            return []
        parent: dict[int, tuple[int, Guard] | None] = {start: None}

        def letter_of(g: Guard) -> frozenset[str]:
            letter = pick_letter(g, self.aps)
            assert letter is not None, "an edge's guard is not empty"
            return letter

        def path_to(t: int, last: list[frozenset[str]]) -> list[frozenset[str]]:
            path = last
            while (step := parent[t]) is not None:
                s2, g2 = step
                path.append(letter_of(g2))
                t = s2
            return path[::-1]

        todo = deque([start])
        while todo:
            s = todo.popleft()
            for t, g in self.edges[s]:
                if t in parent:
                    # A whole trace is non-empty: it may end back in the initial state.
                    if t == start and t in goal:
                        return path_to(s, [letter_of(g)])
                    continue
                parent[t] = (s, g)
                if t in goal:
                    return path_to(t, [])
                todo.append(t)
        return None

    def shortest_accepted(self, state: int | None = None) -> list[frozenset[str]] | None:
        """Shortest continuation from *state* (default: a whole trace) that is accepted."""
        return self.shortest_path([s for s, a in enumerate(self.accepting) if a], state)

    def shortest_rejected(self, state: int | None = None) -> list[frozenset[str]] | None:
        """Shortest continuation from *state* (default: a whole trace) that is rejected."""
        return self.shortest_path([s for s, a in enumerate(self.accepting) if not a], state)

    def shortest_violating_prefix(self, state: int | None = None):
        """Shortest continuation from *state* after which no trace can be accepted."""
        return self.shortest_path(self.dead_states(), state)

    # -- export and display ---------------------------------------------------------------
    def to_networkx(self):
        """A ``networkx.DiGraph``: nodes carry ``accepting``, ``initial`` and ``dead``; edges
        carry ``guard`` (text)."""
        import networkx as nx

        g: nx.DiGraph[int] = nx.DiGraph(
            formula=str(self.formula) if self.formula is not None else None
        )
        dead = self.dead_states()
        for s, acc in enumerate(self.accepting):
            g.add_node(s, accepting=acc, initial=s == self.initial, dead=s in dead)
        for s in range(self.num_states):
            for t, label in self.guards(s):
                g.add_edge(s, t, guard=label)
        return g

    def to_dot(self, highlight: int | None = None) -> str:
        """Graphviz text; *highlight* marks one state (e.g. the monitor's current state)."""
        from ._draw import to_dot

        return to_dot(self, highlight=highlight)

    def show(self, highlight: int | None = None):
        """A picture for Jupyter, SVG with a PNG beside it, drawn with matplotlib (the same
        on every machine; :meth:`to_dot` gives Graphviz text)."""
        from ._draw import picture

        return picture(self, highlight=highlight)

    def _repr_mimebundle_(self, include=None, exclude=None):
        data, meta = self.show()._repr_mimebundle_(include, exclude)
        return {**data, "text/plain": repr(self)}, meta

    def __repr__(self) -> str:
        f = f" for {self.formula}" if self.formula is not None else ""
        return f"<DFA{f}: {self.num_states} states, {self.num_edges} edges, aps={list(self.aps)}>"
