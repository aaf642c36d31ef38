"""The domain invariants of a VirtualHome scene: facts the executor guarantees, which a
monitor may rely on when it asks whether the constraints can still be met."""

from __future__ import annotations

from collections.abc import Iterable

from safetychip.envs._places import place_invariants
from safetychip.envs.virtualhome._scene import Scene
from safetychip.ltl import Equiv, Formula, G, Implies, Not, X, ap

__all__ = ["domain_invariants"]


def domain_invariants(scene: Scene, atoms: Iterable[str] = ()) -> list[Formula]:
    """The invariants of *scene* over its rooms and the *atoms* a specification uses.

    * the agent is in exactly one room at a time;
    * from one proposition state to the next it stays or moves to an adjacent room (walking
      yields every room entered);
    * for each ``is_open(x)`` or ``is_switchedon(x)`` among *atoms* whose object cannot be
      carried: the value changes only with the agent in x's room (it must be close to x).

    Examples
    --------
    >>> from safetychip.envs import load_scene
    >>> invariants = domain_invariants(load_scene("apartment_2"), ["is_open(fridge)"])
    >>> len(invariants), str(invariants[-1])
    (7, 'G(("is_open(fridge)" <-> X!"is_open(fridge)") -> X"agent_at(kitchen)")')
    """
    out = place_invariants(scene.rooms, scene.adjacency)
    for atom in atoms:
        predicate, _, rest = atom.partition("(")
        name = rest.rstrip(")")
        if predicate not in ("is_open", "is_switchedon") or name not in scene.objects:
            continue
        node = scene.id(name)
        if "GRABBABLE" in scene.node(node)["properties"]:
            continue
        room = scene.name_of(scene.room_of(node))
        out.append(G(Implies(Equiv(ap(atom), X(Not(ap(atom)))), X(ap(f"agent_at({room})")))))
    return out
