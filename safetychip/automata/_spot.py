"""A second DFA backend through Spot's Python bindings (the conda route), for cross-checks.

Spot builds the automaton with ``from_ltlf``, ``translate(..., "deterministic", "sbacc")`` and
``to_finite``; the result is completed with a rejecting sink and minimised with the same
partition refinement as the native construction, so both backends return comparable DFAs.
"""

from __future__ import annotations

from ..errors import MissingDependencyError
from ..ltl import Formula, parse
from ._dfa import DFA
from ._guards import MANAGER, Guard, guard_of
from ._minimize import minimize

__all__ = ["spot_available", "spot_dfa"]


def _spot():
    try:
        import spot
    except ImportError:
        raise MissingDependencyError(
            "the Spot backend needs Spot's Python bindings: conda install -c conda-forge spot "
            "(see environment.yml)"
        ) from None
    return spot


def spot_available() -> bool:
    """Whether the ``spot`` module can be imported."""
    try:
        _spot()
    except MissingDependencyError:
        return False
    return True


def spot_dfa(formula: Formula) -> DFA:
    """The minimal complete DFA of *formula*, with the automaton built by Spot.

    Raises
    ------
    MissingDependencyError
        Without Spot's Python bindings.
    """
    spot = _spot()
    aut = spot.to_finite(
        spot.translate(spot.from_ltlf(spot.formula(str(formula))), "deterministic", "sbacc")
    )
    bdict = aut.get_dict()
    init = aut.get_init_state_number()
    order = [init] + [s for s in range(aut.num_states()) if s != init]
    number = {s: i for i, s in enumerate(order)}
    sink = len(order)
    edges: list[list[tuple[int, Guard]]] = []
    for s in order:
        out: dict[int, Guard] = {}
        for e in aut.out(s):
            text = spot.bdd_format_formula(bdict, e.cond)
            g = guard_of(parse(text))
            out[number[e.dst]] = out.get(number[e.dst], MANAGER.false) | g
        covered = MANAGER.false
        for g in out.values():
            covered |= g
        if covered != MANAGER.true:
            out[sink] = out.get(sink, MANAGER.false) | ~covered
        edges.append(list(out.items()))
    accepting = [bool(aut.state_is_accepting(s)) for s in order]
    if any(t == sink for out in edges for t, _ in out):
        edges.append([(sink, MANAGER.true)])
        accepting.append(False)
    return minimize(formula, accepting, edges)
