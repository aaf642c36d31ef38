"""A lazily explored product of DFAs, with the joint-satisfiability search the monitor uses.

The product is never built up front: successors of a product state are enumerated on demand by
conjoining the component guards (and the invariant), and the question "can every component
still accept at the same time?" is answered by a greedy witness search that usually finishes in
a few letters, backed by an exhaustive breadth-first search with a state budget.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from ..errors import SafetyChipError
from ._dfa import DFA
from ._guards import MANAGER, Guard, pick_letter

__all__ = ["Product", "SearchBudgetExceeded"]

ProductState = tuple[int, ...]


class SearchBudgetExceeded(SafetyChipError):
    """The exhaustive search visited its budget of product states without an answer."""


class Product:
    """The synchronous product of *dfas* restricted to letters inside *invariant*.

    Parameters
    ----------
    dfas : sequence of DFA
        The components.
    invariant : Guard, optional
        A Boolean guard every letter must satisfy (e.g. "the agent is in one room").
    budget : int, optional
        Product states the exhaustive search may visit before giving up.

    Examples
    --------
    >>> from safetychip.automata import to_dfa
    >>> from safetychip.ltl import parse
    >>> p = Product([to_dfa(parse("F a")), to_dfa(parse("G !a"))])
    >>> p.witness(p.initial) is None
    True
    >>> q = Product([to_dfa(parse("F a")), to_dfa(parse("!a W b"))])
    >>> [sorted(letter) for letter in q.witness(q.initial)]
    [['a', 'b']]
    """

    def __init__(
        self, dfas: Sequence[DFA], invariant: Guard | None = None, budget: int = 20_000
    ) -> None:
        self.dfas = tuple(dfas)
        self.invariant = MANAGER.true if invariant is None else invariant
        self.budget = budget
        atoms: set[str] = set()
        for d in self.dfas:
            atoms.update(d.aps)
        self.atoms = tuple(sorted(atoms))
        self._live: dict[ProductState, bool] = {}
        self._alive: list[dict[int, Guard]] = [{} for _ in self.dfas]
        self._better: list[dict[int, Guard]] = [{} for _ in self.dfas]

    @property
    def initial(self) -> ProductState:
        """The product state before any letter."""
        return tuple(d.initial for d in self.dfas)

    def accepting(self, state: ProductState) -> bool:
        """Whether every component accepts in *state*."""
        return all(d.accepting[q] for d, q in zip(self.dfas, state))

    def dead_components(self, state: ProductState) -> list[int]:
        """Indices of the components that cannot accept any more on their own."""
        return [i for i, (d, q) in enumerate(zip(self.dfas, state)) if q in d.dead_states()]

    def next_state(self, state: ProductState, letter) -> ProductState:
        """The product state after reading *letter*."""
        return tuple(d.next_state(q, letter) for d, q in zip(self.dfas, state))

    def successors(self, state: ProductState, live_only: bool = True):
        """Yield ``(successor, guard)`` pairs; with *live_only*, skip successors in which some
        component is dead."""
        dfas = self.dfas

        def rec(i: int, guard: Guard, acc: list[int]):
            if i == len(dfas):
                yield tuple(acc), guard
                return
            d = dfas[i]
            dead = d.dead_states() if live_only else ()
            for t, g in d.edges[state[i]]:
                if t in dead:
                    continue
                h = guard & g
                if h != MANAGER.false:
                    acc.append(t)
                    yield from rec(i + 1, h, acc)
                    acc.pop()

        yield from rec(0, self.invariant, [])

    # -- joint satisfiability -------------------------------------------------------------
    def _alive_guard(self, i: int, q: int) -> Guard:
        found = self._alive[i].get(q)
        if found is None:
            d = self.dfas[i]
            live = d.live_states()
            found = MANAGER.false
            for t, g in d.edges[q]:
                if t in live:
                    found |= g
            self._alive[i][q] = found
        return found

    def _better_guard(self, i: int, q: int) -> Guard:
        """Letters that bring component i closer to acceptance, or keep it accepting."""
        found = self._better[i].get(q)
        if found is None:
            d = self.dfas[i]
            dist = d.distances()
            found = MANAGER.false
            for t, g in d.edges[q]:
                if (dist[t] == 0) if dist[q] == 0 else (dist[t] < dist[q]):
                    found |= g
            self._better[i][q] = found
        return found

    def _greedy(self, state: ProductState) -> list[frozenset[str]] | None:
        dists = [d.distances() for d in self.dfas]
        path: list[frozenset[str]] = []
        seen = {state}
        for _ in range(4 * len(self.dfas) + 16):
            if path and self.accepting(state):
                return path
            g = self.invariant
            for i, q in enumerate(state):
                g &= self._alive_guard(i, q)
                if g == MANAGER.false:
                    return None
            for i in sorted(range(len(state)), key=lambda i: -dists[i][state[i]]):
                h = g & self._better_guard(i, state[i])
                if h != MANAGER.false:
                    g = h
            letter = pick_letter(g, self.atoms)
            state = self.next_state(state, letter)
            path.append(letter)
            if state in seen:
                return None
            seen.add(state)
        return None

    def _exhaustive(self, state: ProductState) -> list[frozenset[str]] | None:
        parent: dict[ProductState, tuple[ProductState, Guard] | None] = {state: None}
        todo = deque([state])
        while todo:
            s = todo.popleft()
            for t, g in self.successors(s):
                if t in parent:
                    continue
                parent[t] = (s, g)
                if self.accepting(t):
                    path = []
                    while parent[t] is not None:
                        t, g2 = parent[t]
                        path.append(pick_letter(g2, self.atoms))
                    return path[::-1]
                if len(parent) > self.budget:
                    raise SearchBudgetExceeded(
                        f"joint satisfiability undecided after {self.budget} product states "
                        f"of {len(self.dfas)} automata"
                    )
                todo.append(t)
        return None

    def witness(self, state: ProductState) -> list[frozenset[str]] | None:
        """A shortest-effort non-empty continuation from *state* that every component accepts,
        or None if there is none.

        Raises
        ------
        SearchBudgetExceeded
            If the answer needs more than ``budget`` product states (callers fail safe).
        """
        if self.dead_components(state):
            return None
        return self._greedy(state) or self._exhaustive(state)

    def is_live(self, state: ProductState) -> bool:
        """Whether some continuation from *state* is accepted by every component (cached)."""
        found = self._live.get(state)
        if found is None:
            if state != self.initial and self.accepting(state):
                found = True
            else:
                found = self.witness(state) is not None
            self._live[state] = found
        return found

    def reachable(self, state: ProductState | None = None) -> Iterable[ProductState]:
        """Breadth-first enumeration of the product states reachable from *state*."""
        start = self.initial if state is None else state
        seen = {start}
        todo = deque([start])
        while todo:
            s = todo.popleft()
            yield s
            for t, _ in self.successors(s, live_only=False):
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
