"""Minimising a complete DFA: Moore partition refinement and a deterministic renumbering,
shared by the native construction (:mod:`._build`) and the Spot backend (:mod:`._spot`), so
both return comparable automata."""

from __future__ import annotations

from ..ltl import Formula
from ._dfa import DFA
from ._guards import MANAGER, Guard, guard_order
from ._limit import tick

__all__ = ["minimize"]


def minimize(
    formula: Formula | None, accepting: list[bool], edges: list[list[tuple[int, Guard]]]
) -> DFA:
    """Moore partition refinement of a complete DFA with initial state 0, then a deterministic
    breadth-first renumbering (new targets numbered in the :func:`guard_order` of their
    guards)."""
    block = [int(a) for a in accepting]
    while True:
        signatures: dict[tuple, int] = {}
        new_block = []
        for s, out in enumerate(edges):
            tick()
            merged: dict[int, Guard] = {}
            for t, g in out:
                merged[block[t]] = merged.get(block[t], MANAGER.false) | g
            sig = (block[s], tuple(sorted((b, int(g)) for b, g in merged.items())))
            new_block.append(signatures.setdefault(sig, len(signatures)))
        if len(signatures) == len(set(block)):
            break
        block = new_block
    # Quotient, renumbered breadth-first from the initial state.
    quotient: dict[int, dict[int, Guard]] = {}
    for s, out in enumerate(edges):
        if block[s] in quotient:
            continue
        merged = {}
        for t, g in out:
            merged[block[t]] = merged.get(block[t], MANAGER.false) | g
        quotient[block[s]] = merged
    accept_of = {block[s]: a for s, a in enumerate(accepting)}
    atoms = (
        formula.atoms()
        if formula is not None
        else _support_atoms(merged.items() for merged in quotient.values())
    )
    names = sorted(atoms)
    order = [block[0]]
    number = {block[0]: 0}
    for b in order:
        new = [(t, g) for t, g in quotient[b].items() if t not in number]
        if len(new) > 1:
            new.sort(key=lambda tg: guard_order(tg[1], names))
        for t, _ in new:
            number[t] = len(order)
            order.append(t)
    new_edges = [
        tuple(sorted(((number[t], g) for t, g in quotient[b].items()), key=lambda e: e[0]))
        for b in order
    ]
    return DFA(
        aps=tuple(names),
        initial=0,
        accepting=tuple(accept_of[b] for b in order),
        edges=tuple(new_edges),
        formula=formula,
    )


def _support_atoms(edges) -> frozenset[str]:
    from ._guards import atom_of

    found: set[str] = set()
    for out in edges:
        for _, g in out:
            for v in MANAGER.support(g):
                atom = atom_of(v)
                assert atom is not None, f"an edge's guard mentions only atoms, not {v}"
                found.add(atom)
    return frozenset(found)
