"""The invariants of an agent that is in one place at a time and moves along a map's edges,
one proposition state per place entered: the same facts for rooms and for waypoints.

Examples
--------
>>> for f in place_invariants(["a", "b"], {"a": ["b"], "b": ["a"]}):
...     print(f)
G(("agent_at(a)" | "agent_at(b)") & !("agent_at(a)" & "agent_at(b)"))
G("agent_at(a)" -> X("agent_at(a)" | "agent_at(b)"))
G("agent_at(b)" -> X("agent_at(b)" | "agent_at(a)"))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from safetychip.ltl import Formula, G, Implies, Or, X, ap
from safetychip.monitor import exactly_one

__all__ = ["place_invariants"]


def place_invariants(
    places: Iterable[str], neighbours: Mapping[str, Iterable[str]] | None = None
) -> list[Formula]:
    """``agent_at`` holds for exactly one of *places*; with *neighbours*, from one state to
    the next the agent stays or moves to a neighbour of its place.

    Parameters
    ----------
    places : iterable of str
    neighbours : mapping of str to iterable of str, optional
        Each place's neighbours (a networkx graph will do).
    """
    names = list(places)
    out = [exactly_one(f"agent_at({p})" for p in names)]
    if neighbours is not None:
        out += [G(Implies(ap(f"agent_at({p})"),
                          X(Or(*(ap(f"agent_at({n})") for n in (p, *neighbours[p]))))))
                for p in names]  # fmt: skip
    return out
