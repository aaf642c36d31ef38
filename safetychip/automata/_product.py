"""A lazily explored product of DFAs, with the joint-satisfiability search the monitor uses.

The product is never built up front: successors of a product state are enumerated on demand by
conjoining the component guards (and the invariant), and the question "can every component
still accept at the same time?" is answered by a greedy witness search that usually finishes in
a few letters, backed by exact symbolic fixpoints (:class:`LiveSet`) on growing cones of
components.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence

from ..errors import SafetyChipError, TraceError
from ._dfa import DFA
from ._guards import MANAGER, Guard, atom_of, pick_letter
from ._symbolic import LiveSet

__all__ = ["Product", "SearchBudgetExceeded"]

ProductState = tuple[int, ...]


class SearchBudgetExceeded(SafetyChipError):
    """A symbolic live set outgrew its budget of BDD nodes before the answer was known."""


class Product:
    """The synchronous product of *dfas* restricted to letters inside *invariant*.

    Parameters
    ----------
    dfas : sequence of DFA
        The components.
    invariant : Guard, optional
        A Boolean guard every letter must satisfy (e.g. "the agent is in one room").
    budget : int, optional
        BDD nodes a symbolic live set may have before the search gives up (callers then fail
        safe).

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
        self, dfas: Sequence[DFA], invariant: Guard | None = None, budget: int = 1_000_000
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
        self._witnesses: dict[ProductState, tuple[frozenset[str], ...]] = {}
        self._live_sets: dict[tuple[int, ...], LiveSet] = {}
        self._fast: list | None = None
        #: After :meth:`witness` returns None: components that cannot all accept together.
        self.core: tuple[int, ...] | None = None

    def __repr__(self) -> str:
        sizes = "x".join(str(d.num_states) for d in self.dfas) or "1"
        restricted = "" if self.invariant == MANAGER.true else ", letters restricted"
        decided = len(self._live)
        return (f"<Product of {len(self.dfas)} automata ({sizes} states) over "
                f"{len(self.atoms)} propositions{restricted}; {decided} decided>")  # fmt: skip

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
        """The product state after reading *letter* (true atoms, or a mapping giving every
        atom of the components)."""
        fast = self._fast
        if fast is None:
            fast = self._fast = [(d._table(), tuple((1 << i, a) for i, a in enumerate(d.aps)))
                                 for d in self.dfas]  # fmt: skip
        if isinstance(letter, Mapping):
            get = letter.__getitem__
        else:
            get = (letter if isinstance(letter, (set, frozenset)) else set(letter)).__contains__
        out = []
        for (table, bits), d, q in zip(fast, self.dfas, state):
            if table is None:
                out.append(d.next_state(q, letter))
                continue
            index = 0
            try:
                for bit, a in bits:
                    if get(a):
                        index |= bit
            except KeyError as err:
                raise TraceError(f"the proposition state has no value for {err.args[0]}") from None
            out.append(table[q][index])
        return tuple(out)

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
            assert letter is not None, "g is not empty"
            state = self.next_state(state, letter)
            path.append(letter)
            # Acceptance before the loop check: with no components the state never changes.
            if self.accepting(state):
                return path
            if state in seen:
                return None
            seen.add(state)
        return None

    def live_set(self, members: Sequence[int] | None = None) -> LiveSet:
        """The symbolic live set of the components in *members* (default: all), cached."""
        key = tuple(range(len(self.dfas))) if members is None else tuple(members)
        found = self._live_sets.get(key)
        if found is None:
            found = LiveSet([self.dfas[i] for i in key], self.invariant, self.budget)
            self._live_sets[key] = found
        return found

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
        exact symbolic search runs on growing *cones*: the components that do not accept yet, then
        those sharing atoms with them, and so on; a cone without a witness proves the whole
        product has none (:attr:`core` then names it), and the last cone is the whole product.

        Raises
        ------
        SearchBudgetExceeded
            If a live set needs more than ``budget`` BDD nodes (callers fail safe).
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
            live = self.live_set(members)
            sub = tuple(state[i] for i in members)
            if not live.contains(sub) or (state == self.initial and live.distance(sub) == 0):
                self.core = tuple(members)
                return None
            if len(cone) == n:
                return live.path(sub)
            grown = cone.union(*(nbrs[i] for i in cone))
            cone = grown if len(grown) > len(cone) else set(range(n))

    def is_live(self, state: ProductState, hint: ProductState | None = None) -> bool:
        """Whether some continuation from *state* is accepted by every component (cached).

        *hint* is a state known to be live that *state* was reached from: its witness is tried
        first, and only on the components that moved, which usually settles the question in a
        few table look-ups.
        """
        found = self._live.get(state)
        if found is None:
            if state != self.initial and self.accepting(state):
                found = True
                self._witnesses[state] = ()
            else:
                path = self._reuse(state, hint)
                if path is None:
                    path = self.witness(state)
                found = path is not None
                if found:
                    self._witnesses[state] = tuple(path)
                else:
                    self._cores[state] = self.core
            self._live[state] = found
        return found

    def _reuse(self, state: ProductState, hint: ProductState | None):
        """The witness of *hint*, if it also leads every moved component of *state* to
        acceptance (the others follow the same path as before)."""
        if hint is None:
            return None
        path = self._witnesses.get(hint)
        if not path:
            return None
        for d, q, old in zip(self.dfas, state, hint):
            if q != old and not d.accepting[d.run(path, q)]:
                return None
        return path

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
