"""A lazily explored product of DFAs, with the exact joint-satisfiability decision the monitor
uses.

The product is never built up front. The question "can every component still accept at the
same time?" is answered by a sequence of steps, cheapest first, each exact where it answers:

1. a component that cannot accept on its own (no);
2. the witness of the state this one was reached from, on the components that moved (yes);
3. a greedy witness search that usually finishes in a few letters (yes);
4. the *usable letters*: the letters each component could still use on a way to acceptance,
   intersected over the components until nothing changes (a sound over-approximation of the
   letters of any joint witness); a component with no usable letter left refutes (no);
5. pairwise products under those letters, for the pairs with a component that moved, then
   small connected sets grown from each moved component (no);
6. the components split into independent groups (sharing no proposition the usable letters
   leave free), each searched exactly (best-first over its product states, cached per
   group), and the group witnesses joined when their lengths can be padded to one (yes / no).

Every loop checks an optional *deadline* (:class:`DeadlineExceeded`) and the *budget* of
product states an exact search may explore (:class:`SearchBudgetExceeded`); callers fail safe
on both. Nothing recurses on the number of components.
"""

from __future__ import annotations

import heapq
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence

from ..errors import SafetyChipError, TraceError
from ._dfa import DFA
from ._guards import MANAGER, Guard, atom_of, pick_letter

__all__ = ["DeadlineExceeded", "Product", "SearchBudgetExceeded"]

ProductState = tuple[int, ...]
Path = list[frozenset[str]]


class SearchBudgetExceeded(SafetyChipError):
    """An exact search explored more product states than its budget before the answer was
    known."""


class DeadlineExceeded(SearchBudgetExceeded):
    """The decision ran past its deadline; :attr:`members` are the components it was deciding
    (indices into the product's components)."""

    def __init__(self, message: str, members: Sequence[int] = ()) -> None:
        super().__init__(message)
        self.members = tuple(members)


class _Clock:
    """An optional absolute deadline (``time.perf_counter()`` seconds), checked cheaply."""

    __slots__ = ("deadline", "members")

    def __init__(self, deadline: float | None, members: Sequence[int] = ()) -> None:
        self.deadline = deadline
        self.members: Sequence[int] = members

    def check(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise DeadlineExceeded("the decision ran past its deadline", self.members)


class Product:
    """The synchronous product of *dfas* restricted to letters inside *invariant*.

    Parameters
    ----------
    dfas : sequence of DFA
        The components.
    invariant : Guard, optional
        A Boolean guard every letter must satisfy (e.g. "the agent is in one room").
    budget : int, optional
        Product states one exact search may explore before it gives up (callers then fail
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
        self._loops: list[dict[int, Guard]] = [{} for _ in self.dfas]
        self._usables: dict[tuple[int, int, Guard], Guard] = {}
        self._pairs: dict[tuple[int, int, int, int, Guard], bool] = {}
        self._groups: dict[tuple[tuple[int, ...], ProductState, Guard], Path | None] = {}
        self._cores: dict[ProductState, tuple[int, ...] | None] = {}
        self._witnesses: dict[ProductState, tuple[frozenset[str], ...]] = {}
        self._fast: list | None = None
        self._clock: _Clock | None = None  # checked while enumerating, during a search
        #: After :meth:`witness` returns None: components that cannot all accept together.
        self.core: tuple[int, ...] | None = None

    def __repr__(self) -> str:
        sizes = "x".join(str(d.num_states) for d in self.dfas[:8]) or "1"
        sizes += "x…" if len(self.dfas) > 8 else ""
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
        self,
        state: ProductState,
        live_only: bool = True,
        members: Sequence[int] | None = None,
        letters: Guard | None = None,
    ) -> Iterator[tuple[ProductState, Guard]]:
        """Yield ``(successor, guard)`` pairs; with *live_only*, skip successors in which some
        component is dead. With *members*, only those components move (the others keep their
        state and their guards are ignored); *letters* restricts the letters further.

        The enumeration is iterative (a stack of partial successors), so any number of
        components is fine.
        """
        dfas = self.dfas
        order = range(len(dfas)) if members is None else members
        start = self.invariant if letters is None else self.invariant & letters
        stack: list[tuple[int, Guard, tuple[int, ...]]] = [(0, start, ())]
        clock, popped = self._clock, 0
        while stack:
            popped += 1
            if clock is not None and popped % 256 == 0:
                clock.check()
            k, guard, acc = stack.pop()
            if k == len(order):
                target = list(state)
                for i, t in zip(order, acc):
                    target[i] = t
                yield tuple(target), guard
                continue
            i = order[k]
            d = dfas[i]
            dead = d.dead_states() if live_only else ()
            for t, g in reversed(d.edges[state[i]]):
                if t in dead:
                    continue
                h = guard & g
                if h != MANAGER.false:
                    stack.append((k + 1, h, (*acc, t)))

    # -- joint satisfiability -------------------------------------------------------------
    def is_live(
        self,
        state: ProductState,
        hint: ProductState | None = None,
        *,
        deadline: float | None = None,
    ) -> bool:
        """Whether some continuation from *state* is accepted by every component (cached).

        *hint* is a state known to be live that *state* was reached from: its witness is tried
        first, and only on the components that moved, which usually settles the question in a
        few table look-ups. *deadline* is a ``time.perf_counter()`` time past which the
        decision gives up (:class:`DeadlineExceeded`); nothing is cached then.
        """
        found = self._live.get(state)
        if found is None:
            if state != self.initial and self.accepting(state):
                found = True
                self._witnesses[state] = ()
            else:
                path = self._reuse(state, hint)
                if path is None:
                    path = self.witness(state, hint=hint, deadline=deadline)
                found = path is not None
                if found:
                    self._witnesses[state] = tuple(path or ())
                else:
                    self._cores[state] = self.core
            self._live[state] = found
        return found

    def witness(
        self,
        state: ProductState,
        *,
        hint: ProductState | None = None,
        deadline: float | None = None,
    ) -> Path | None:
        """A non-empty continuation from *state* that every component accepts, or None if
        there is none (see the module's steps; :attr:`core` then names components that cannot
        accept together). *hint*, a state this one was reached from, orders the pairwise
        checks by the components that moved.

        Raises
        ------
        SearchBudgetExceeded
            If an exact search explores more than ``budget`` product states.
        DeadlineExceeded
            If the decision runs past *deadline* (a ``time.perf_counter()`` time).
        """
        self.core = None
        n = len(self.dfas)
        if n == 0:  # nothing to accept together: one letter the invariant allows is a witness
            letter = pick_letter(self.invariant, self.atoms)
            return None if letter is None else [letter]
        everyone = range(n)
        clock = _Clock(deadline, [i for i in everyone if not self.dfas[i].accepting[state[i]]])
        dead = self.dead_components(state)
        if dead:
            self.core = tuple(dead)
            return None
        path = self._greedy(state, clock)
        if path is not None:
            return path
        letters, blamed = self._restrict(state, clock)
        if letters is None:
            self.core = self._cone(blamed[-1:], blamed[:-1])
            return None
        moved = set(everyone) if hint is None else {i for i in everyone if state[i] != hint[i]}
        small: tuple[int, ...] | None = self._pair_conflict(state, letters, moved, clock)
        if small is None:
            small = self._chain_conflict(state, letters, moved, clock)
        if small is not None:
            self.core = self._cone(small, blamed)
            return None
        path, group = self._grouped(state, letters, clock)
        if path is None:
            self.core = self._cone(group, blamed)
        return path

    def _cone(self, seed: Sequence[int], blamed: Sequence[int]) -> tuple[int, ...]:
        """*seed* with the components of *blamed* (those that narrowed the usable letters)
        connected to it through shared propositions: the components a refutation used."""
        atoms = {a for i in seed for a in self.dfas[i].aps}
        core, rest = set(seed), [i for i in dict.fromkeys(blamed) if i not in seed]
        grown = True
        while grown:
            grown = False
            for i in rest:
                if i not in core and atoms.intersection(self.dfas[i].aps):
                    core.add(i)
                    atoms.update(self.dfas[i].aps)
                    grown = True
        return tuple(sorted(core))

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

    def _loop_guard(self, i: int, q: int) -> Guard:
        """Letters that keep component i in state q."""
        found = self._loops[i].get(q)
        if found is None:
            found = MANAGER.false
            for t, g in self.dfas[i].edges[q]:
                if t == q:
                    found |= g
            self._loops[i][q] = found
        return found

    def _greedy(self, state: ProductState, clock: _Clock) -> Path | None:
        dists = [d.distances() for d in self.dfas]
        path: Path = []
        seen = {state}
        for _ in range(4 * len(self.dfas) + 16):
            clock.check()
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

    def _usable(self, i: int, q: int, letters: Guard) -> Guard:
        """The letters component i can read, from q, on some way to acceptance that reads only
        *letters* (cached)."""
        key = (i, q, letters)
        found = self._usables.get(key)
        if found is not None:
            return found
        d = self.dfas[i]
        edges = [[(t, g & letters) for t, g in out] for out in d.edges]
        preds: list[list[int]] = [[] for _ in d.accepting]
        for s, out in enumerate(edges):
            for t, g in out:
                if g != MANAGER.false:
                    preds[t].append(s)
        live = {s for s, a in enumerate(d.accepting) if a}
        todo = list(live)
        while todo:
            for p in preds[todo.pop()]:
                if p not in live:
                    live.add(p)
                    todo.append(p)
        found = MANAGER.false
        seen, todo = {q}, [q]
        while todo:
            for t, g in edges[todo.pop()]:
                if t in live and g != MANAGER.false:
                    found |= g
                    if t not in seen:
                        seen.add(t)
                        todo.append(t)
        if len(self._usables) > 50_000:
            self._usables.clear()
        self._usables[key] = found
        return found

    def _restrict(self, state: ProductState, clock: _Clock) -> tuple[Guard | None, tuple[int, ...]]:
        """The usable letters of the whole product at *state* (a witness, which is non-empty
        here, reads only those), and the components that restricted them in order; None and
        the blamed components, the last one left without a usable letter, if there is none."""
        letters = self.invariant
        blamed: list[int] = []
        changed = True
        while changed:
            changed = False
            for i, q in enumerate(state):
                clock.check()
                usable = self._usable(i, q, letters)
                if usable == MANAGER.false:
                    return None, (*blamed, i)
                narrower = letters & usable
                if narrower != letters:
                    letters = narrower
                    blamed.append(i)
                    changed = True
        return letters, tuple(blamed)

    def _pair_conflict(
        self, state: ProductState, letters: Guard, moved: set[int], clock: _Clock
    ) -> tuple[int, int] | None:
        """Two components sharing a free proposition, one of them in *moved*, with no joint
        witness under *letters*, or None. A pair of components that did not move had one at
        the state this one was reached from; the exact search settles what this misses."""
        forced = self._forced(letters)
        by_atom: dict[str, list[int]] = {}
        for i, d in enumerate(self.dfas):
            for a in d.aps:
                if a not in forced:
                    by_atom.setdefault(a, []).append(i)
        pairs = {(i, j) for members in by_atom.values()
                 for x, i in enumerate(members) for j in members[x + 1:]
                 if i in moved or j in moved}  # fmt: skip
        for i, j in sorted(pairs):
            key = (i, j, state[i], state[j], letters)
            found = self._pairs.get(key)
            if found is None:
                clock.members = (i, j)
                path = self._search((i, j), (state[i], state[j]), letters, clock)
                if len(self._pairs) > 50_000:
                    self._pairs.clear()
                found = self._pairs[key] = path is not None
            if not found:
                return i, j
        return None

    def _chain_conflict(
        self, state: ProductState, letters: Guard, moved: set[int], clock: _Clock, size: int = 6
    ) -> tuple[int, ...] | None:
        """Small connected sets with no joint witness under *letters*: from each component in
        *moved* (those still owing something first), grow a set one component at a time, the
        one sharing the most free propositions with it, up to *size*, checking each set."""
        forced = self._forced(letters)
        free = [frozenset(d.aps) - forced.keys() for d in self.dfas]
        owing = sorted(moved, key=lambda i: (self.dfas[i].accepting[state[i]], i))
        for start in owing:
            members, atoms = [start], set(free[start])
            while len(members) < size:
                scores = [(len(atoms & free[j]), -j) for j in range(len(self.dfas))
                          if j not in members and atoms & free[j]]  # fmt: skip
                if not scores:
                    break
                best = -max(scores)[1]
                members.append(best)
                atoms |= free[best]
                chosen = tuple(sorted(members))
                clock.members = chosen
                if len(chosen) > 2 and self._search(chosen, tuple(state[i] for i in chosen),
                                                    letters, clock) is None:  # fmt: skip
                    return chosen
        return None

    def _forced(self, letters: Guard) -> dict[str, bool]:
        """Propositions that *letters* fix, with their value."""
        out = {}
        for v in MANAGER.support(letters):
            a = atom_of(v)
            if a is None:
                continue
            x = MANAGER.var(v)
            if letters & x == MANAGER.false:
                out[a] = False
            elif letters & ~x == MANAGER.false:
                out[a] = True
        return out

    def _grouped(
        self, state: ProductState, letters: Guard, clock: _Clock
    ) -> tuple[Path | None, tuple[int, ...]]:
        """Decide the components in independent groups, then join the group witnesses; the
        witness, or None and the group without one."""
        forced = self._forced(letters)
        coupled = {a for v in MANAGER.support(self.invariant)
                   if (a := atom_of(v)) is not None and a not in forced}  # fmt: skip
        parent = list(range(len(self.dfas)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        owner: dict[str, int] = {}
        for i, d in enumerate(self.dfas):
            for a in d.aps:
                if a in forced:
                    continue
                key = "(invariant)" if a in coupled else a
                j = owner.setdefault(key, i)
                parent[find(i)] = find(j)
        groups: dict[int, list[int]] = {}
        for i in range(len(self.dfas)):
            groups.setdefault(find(i), []).append(i)
        paths = []
        for members in sorted(groups.values(), key=len):
            sub = tuple(state[i] for i in members)
            atoms = {a for i in members for a in self.dfas[i].aps} - set(forced)
            if coupled & atoms:
                atoms |= coupled
            keep = atoms | set(forced)
            own = MANAGER.exist({v for v in MANAGER.support(letters)
                                 if atom_of(v) not in keep}, letters)  # fmt: skip
            clock.members = members
            path = self._search(tuple(members), sub, own, clock)
            if path is None:
                return None, tuple(members)
            paths.append((members, sub, own, path))
        joined = self._join(paths, forced)
        if joined is None and len(paths) > 1:  # lengths that cannot be padded: all at once
            clock.members = range(len(self.dfas))
            path = self._search(tuple(range(len(self.dfas))), state, letters, clock)
            if path is None:
                return None, tuple(range(len(self.dfas)))
            return path, ()
        return joined, ()

    def _join(self, paths: list, forced: dict[str, bool]) -> Path | None:
        """One witness from group witnesses of different lengths, padding each shorter one by
        a letter that keeps its (accepting) end state; None if one cannot be padded."""
        length = max((len(p) for *_, p in paths), default=0)
        true = frozenset(a for a, v in forced.items() if v)
        out: list[set[str]] = [set(true) for _ in range(length)]
        for members, sub, own, path in paths:
            if len(path) < length:
                end = sub
                for letter in path:
                    end = tuple(self.dfas[i].next_state(q, letter)
                                for i, q in zip(members, end))  # fmt: skip
                stay = own
                for i, q in zip(members, end):
                    stay &= self._loop_guard(i, q)
                pad = pick_letter(stay, sorted({a for i in members for a in self.dfas[i].aps}))
                if pad is None:
                    return None
                path = [*path, *[pad] * (length - len(path))]
            for k, letter in enumerate(path):
                out[k] |= letter
        return [frozenset(letter) for letter in out]

    def _search(
        self,
        members: tuple[int, ...],
        sub: ProductState,
        letters: Guard,
        clock: _Clock,
    ) -> Path | None:
        """An exact best-first search of the product of *members* from *sub* under *letters*
        for a state where they all accept after at least one letter: the letters
        of a shortest-found path, or None (cached per group)."""
        key = (members, sub, letters)
        if key in self._groups:
            return self._groups[key]
        dfas = [self.dfas[i] for i in members]
        dists = [d.distances() for d in dfas]
        atoms = sorted({a for d in dfas for a in d.aps})
        view = Product(dfas, self.invariant)
        view._clock = clock
        parent: dict[ProductState, tuple[ProductState, Guard] | None] = {sub: None}
        heap = [(0.0, 0, sub)]
        count = 0
        found: Path | None = None
        while heap and found is None:
            _, _, u = heapq.heappop(heap)
            for v, g in view.successors(u, letters=letters):
                count += 1
                if count % 64 == 0:
                    clock.check()
                if all(d.accepting[q] for d, q in zip(dfas, v)):
                    found = self._path(parent, u, g, atoms)
                    break
                if v in parent:
                    continue
                parent[v] = (u, g)
                if len(parent) > self.budget:
                    raise SearchBudgetExceeded(
                        f"joint satisfiability undecided: the search of {len(members)} automata "
                        f"explored more than {self.budget} product states"
                    )
                h = sum(dist[q] for dist, q in zip(dists, v))
                heapq.heappush(heap, (h, count, v))
        if len(self._groups) > 50_000:
            self._groups.clear()
        self._groups[key] = found
        return found

    @staticmethod
    def _path(parent: dict, u: ProductState, last: Guard, atoms: list[str]) -> Path:
        guards = [last]
        while (step := parent[u]) is not None:
            u, g = step
            guards.append(g)
        letters = [pick_letter(g, atoms) for g in reversed(guards)]
        assert all(letter is not None for letter in letters), "an edge's guard is not empty"
        return [letter for letter in letters if letter is not None]

    def _reuse(self, state: ProductState, hint: ProductState | None) -> Path | None:
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
        return list(path)

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
