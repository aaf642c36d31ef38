"""Symbolic joint satisfiability: the states of a product from which every component can
accept together, as a least fixpoint over BDDs with partitioned transition relations.

Component i's state is binary-coded in variables ``s{i}_{k}`` (current) and ``t{i}_{k}``
(next); its relation ``T_i(s, letter, t)`` is the disjunction of its edges. Layer 0 is the set
where every component accepts; layer k+1 adds the states with a letter into layer k. The
pre-image conjoins the relations one at a time and quantifies each component's next-state
variables, and each atom, right after the last relation that mentions it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from ._dfa import DFA
from ._guards import MANAGER, Guard, atom_var, pick_letter

__all__ = ["LiveSet"]


def _bits(dfa: DFA) -> int:
    return math.ceil(math.log2(dfa.num_states)) if dfa.num_states > 1 else 0


def _names(prefix: str, slot: int, bits: int) -> list[str]:
    names = [f"{prefix}{slot}_{k}" for k in range(bits)]
    for name in names:
        if name not in MANAGER.vars:
            MANAGER.declare(name)
    return names


def _code(names: list[str], value: int) -> Guard:
    f = MANAGER.true
    for k, name in enumerate(names):
        f &= MANAGER.var(name) if value >> k & 1 else ~MANAGER.var(name)
    return f


class LiveSet:
    """The live states of the product of *dfas* under the letter constraint *invariant*.

    Examples
    --------
    >>> from safetychip.automata import to_dfa
    >>> from safetychip.ltl import parse
    >>> live = LiveSet([to_dfa(parse("F a")), to_dfa(parse("!a W b"))])
    >>> live.contains((0, 0)), live.distance((0, 0))
    (True, 1)
    >>> LiveSet([to_dfa(parse("F a")), to_dfa(parse("G !a"))]).contains((0, 0))
    False
    """

    def __init__(
        self, dfas: Sequence[DFA], invariant: Guard | None = None, budget: int | None = None
    ) -> None:
        self.dfas = tuple(dfas)
        self.invariant = MANAGER.true if invariant is None else invariant
        self.cur = [_names("s", i, _bits(d)) for i, d in enumerate(self.dfas)]
        self.nxt = [_names("t", i, _bits(d)) for i, d in enumerate(self.dfas)]
        self.relations = []
        goal = MANAGER.true
        for i, d in enumerate(self.dfas):
            rel, acc = MANAGER.false, MANAGER.false
            for s, out in enumerate(d.edges):
                here = _code(self.cur[i], s)
                if d.accepting[s]:
                    acc |= here
                for t, g in out:
                    rel |= here & g & _code(self.nxt[i], t)
            self.relations.append(rel)
            goal &= acc
        last: dict[str, int] = {}
        for i, d in enumerate(self.dfas):
            for a in d.aps:
                last[cast(str, atom_var(a).var)] = i  # a variable's node names it
        self._quantify = [
            set(self.nxt[i]) | {v for v, j in last.items() if j == i} for i in range(len(self.dfas))
        ]
        self._to_next = {c: MANAGER.var(n) for cs, ns in zip(self.cur, self.nxt)
                         for c, n in zip(cs, ns)}  # fmt: skip
        self.layers = [goal]
        while True:
            grown = self.layers[-1] | self._pre(self.layers[-1])
            if grown == self.layers[-1]:
                break
            if budget is not None and grown.dag_size > budget:
                from ._product import SearchBudgetExceeded

                raise SearchBudgetExceeded(
                    f"joint satisfiability undecided: the live set of {len(self.dfas)} automata "
                    f"outgrew {budget} BDD nodes"
                )
            self.layers.append(grown)

    def _pre(self, target: Guard) -> Guard:
        img = MANAGER.let(self._to_next, target) if self._to_next else target
        img &= self.invariant
        for rel, gone in zip(self.relations, self._quantify):
            img = MANAGER.exist(gone, img & rel) if gone else img & rel
        return MANAGER.exist(set(MANAGER.support(img)) - self._cur_vars(), img)

    def _cur_vars(self) -> set[str]:
        return {c for cs in self.cur for c in cs}

    def _assignment(self, state: Sequence[int]) -> dict[str, bool]:
        return {name: bool(q >> k & 1) for names, q in zip(self.cur, state)
                for k, name in enumerate(names)}  # fmt: skip

    def _member(self, layer: Guard, state: Sequence[int]) -> bool:
        values = self._assignment(state)
        return (MANAGER.let(values, layer) if values else layer) == MANAGER.true

    def contains(self, state: Sequence[int]) -> bool:
        """Whether every component can still accept together from *state* (a state that
        accepts already counts: the trace may end there)."""
        return self._member(self.layers[-1], state)

    def distance(self, state: Sequence[int]) -> int | None:
        """Fewest letters to a state where every component accepts, or None."""
        for k, layer in enumerate(self.layers):
            if self._member(layer, state):
                return k
        return None

    def path(self, state: Sequence[int]) -> list[frozenset[str]] | None:
        """A shortest continuation from *state* into a jointly accepting state, or None."""
        k = self.distance(state)
        if k is None:
            return None
        atoms = sorted({a for d in self.dfas for a in d.aps})
        every_next = {n for ns in self.nxt for n in ns}
        state = tuple(state)
        out: list[frozenset[str]] = []
        while k > 0:
            guard = self.invariant
            for i, (d, q) in enumerate(zip(self.dfas, state)):
                step = MANAGER.false
                for t, g in d.edges[q]:
                    step |= g & _code(self.nxt[i], t)
                guard &= step
            closer = self.layers[k - 1]
            closer = MANAGER.let(self._to_next, closer) if self._to_next else closer
            letter = pick_letter(MANAGER.exist(every_next, guard & closer), atoms)
            assert letter is not None, "a state at distance k has a successor at distance k - 1"
            out.append(letter)
            state = tuple(d.next_state(q, letter) for d, q in zip(self.dfas, state))
            k -= 1
        return out
