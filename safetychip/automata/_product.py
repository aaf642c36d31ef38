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
from ._guards import MANAGER, Guard, atom_of, pick_letter

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
        self._nbrs: list[set[int]] | None = None
        self._cores: dict[ProductState, tuple[int, ...] | None] = {}
        #: After :meth:`witness` returns None: components that cannot all accept together.
        self.core: tuple[int, ...] | None = None

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

    def successors(
        self, state: ProductState, live_only: bool = True, members: Sequence[int] | None = None
    ):
        """Yield ``(successor, guard)`` pairs; with *live_only*, skip successors in which some
        component is dead. With *members*, only those components move (the others keep their
        state and their guards are ignored)."""
        dfas = self.dfas
        order = range(len(dfas)) if members is None else members

        def rec(k: int, guard: Guard, acc: list[int]):
            if k == len(order):
                yield tuple(acc), guard
                return
            i = order[k]
            d = dfas[i]
            dead = d.dead_states() if live_only else ()
            for t, g in d.edges[state[i]]:
                if t in dead:
                    continue
                h = guard & g
                if h != MANAGER.false:
                    saved = acc[i]
                    acc[i] = t
                    yield from rec(k + 1, h, acc)
                    acc[i] = saved

        yield from rec(0, self.invariant, list(state))

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
            g = self.invariant
            for i, q in enumerate(state):
                g &= self._alive_guard(i, q)
                if g == MANAGER.false:
                    return None
            if g == MANAGER.false:  # a product without components: only the invariant counts
                return None
            for i in sorted(range(len(state)), key=lambda i: -dists[i][state[i]]):
                h = g & self._better_guard(i, state[i])
                if h != MANAGER.false:
                    g = h
            letter = pick_letter(g, self.atoms)
            state = self.next_state(state, letter)
            path.append(letter)
            # Acceptance before the loop check: with no components the state never changes.
            if self.accepting(state):
                return path
            if state in seen:
                return None
            seen.add(state)
        return None

    def _exhaustive(
        self, state: ProductState, members: Sequence[int]
    ) -> list[frozenset[str]] | None:
        """Breadth-first search over the components in *members* for a state where they all
        accept; None proves that no continuation satisfies those components together."""

        def accepting(t: ProductState) -> bool:
            return all(self.dfas[i].accepting[t[i]] for i in members)

        parent: dict[ProductState, tuple[ProductState, Guard] | None] = {state: None}
        todo = deque([state])
        while todo:
            s = todo.popleft()
            for t, g in self.successors(s, members=members):
                if t in parent:
                    continue
                parent[t] = (s, g)
                if accepting(t):
                    path = []
                    while parent[t] is not None:
                        t, g2 = parent[t]
                        path.append(pick_letter(g2, self.atoms))
                    return path[::-1]
                if len(parent) > self.budget:
                    raise SearchBudgetExceeded(
                        f"joint satisfiability undecided after {self.budget} product states "
                        f"of {len(members)} automata"
                    )
                todo.append(t)
        return None

    def _neighbours(self) -> list[set[int]]:
        """Components that share an atom with each component (the invariant's atoms count as
        one atom, since it couples them)."""
        found = self._nbrs
        if found is None:
            coupled = {atom_of(v) for v in MANAGER.support(self.invariant)}
            by_atom: dict[str, set[int]] = {}
            for i, d in enumerate(self.dfas):
                for a in d.aps:
                    by_atom.setdefault("(invariant)" if a in coupled else a, set()).add(i)
            key = {a: "(invariant)" if a in coupled else a for d in self.dfas for a in d.aps}
            found = [set().union(*(by_atom[key[a]] for a in d.aps)) - {i} if d.aps else set()
                     for i, d in enumerate(self.dfas)]  # fmt: skip
            self._nbrs = found
        return found

    def witness(self, state: ProductState) -> list[frozenset[str]] | None:
        """A non-empty continuation from *state* that every component accepts, or None if
        there is none.

        A greedy search finds a witness in a few letters in the usual case. Otherwise the
        exhaustive search runs on growing *cones*: the components that do not accept yet, then
        those sharing atoms with them, and so on; a cone without a witness proves the whole
        product has none (:attr:`core` then names it), and the last cone is the whole product.

        Raises
        ------
        SearchBudgetExceeded
            If the answer needs more than ``budget`` product states (callers fail safe).
        """
        self.core = None
        dead = self.dead_components(state)
        if dead:
            self.core = tuple(dead)
            return None
        path = self._greedy(state)
        if path is not None:
            return path
        n = len(self.dfas)
        cone = {i for i, (d, q) in enumerate(zip(self.dfas, state)) if not d.accepting[q]}
        if not cone:
            cone = set(range(n))
        nbrs = self._neighbours()
        while True:
            members = sorted(cone)
            path = self._exhaustive(state, members)
            if path is None:
                self.core = tuple(members)
                return None
            if len(cone) == n:
                return path
            grown = cone.union(*(nbrs[i] for i in cone))
            cone = grown if len(grown) > len(cone) else set(range(n))

    def is_live(self, state: ProductState) -> bool:
        """Whether some continuation from *state* is accepted by every component (cached)."""
        found = self._live.get(state)
        if found is None:
            if state != self.initial and self.accepting(state):
                found = True
            else:
                found = self.witness(state) is not None
                if not found:
                    self._cores[state] = self.core
            self._live[state] = found
        return found

    def core_of(self, state: ProductState) -> tuple[int, ...] | None:
        """Components proven unable to accept together from *state* (after :meth:`is_live`
        answered False), or None."""
        return self._cores.get(state)

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
