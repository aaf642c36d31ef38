"""Cached transitions of the VirtualHome environment, shared by the agents and the hint search.

The environment is deterministic, and :meth:`VirtualHomeEnv.lookahead` returns the world an
action leads to as a :class:`~safetychip.envs.virtualhome.WorldSnapshot` whose key is the
world's content. So an action from a world is simulated once per process: agents that
follow the same plan from the same initial state (every agent of a sweep does, until they
differ) reuse the simulation, and executing an action is restoring the world its lookahead
produced — the very world ``step`` would produce.

Examples
--------
>>> from safetychip.envs import VirtualHomeEnv
>>> env = VirtualHomeEnv("apartment_1").track(["agent_at(kitchen)"])
>>> _ = env.reset(options={"initial": ["agent_at(bedroom)"]})
>>> world = env.snapshot()
>>> ahead = transition(env, world, "walk to kitchen", ("agent_at(kitchen)",))
>>> [s["agent_at(kitchen)"] for s in ahead.states]
[False, True]
>>> transition(env, world, "walk to kitchen", ("agent_at(kitchen)",)) is ahead
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["clear_caches", "task_propositions", "transition"]

_TRANSITIONS: dict[tuple, Any] = {}
_LIMIT = 200_000


def transition(env: Any, world: Any, action: str, props: tuple[str, ...]) -> Any:
    """What *action* does from *world*: the environment's
    :class:`~safetychip.envs.virtualhome.Lookahead`, cached.

    The environment is left in *world*.
    """
    key = (id(env), world.key, action, props)
    cached = _TRANSITIONS.get(key)
    if cached is not None and cached[0] is env:  # the same environment, not a reused id
        env.restore(world)
        return cached[1]
    env.restore(world)
    found = env.lookahead(action, props)
    if len(_TRANSITIONS) >= _LIMIT:
        _TRANSITIONS.clear()
    _TRANSITIONS[key] = (env, found)
    return found


def clear_caches() -> None:
    """Forget every cached transition (they are kept per process, up to a bound)."""
    _TRANSITIONS.clear()
    task_propositions.cache_clear()


@lru_cache(maxsize=256)
def task_propositions(task: Any) -> tuple[str, ...]:
    """Every proposition any agent needs on *task*: the atoms of its constraints (those that
    parse; as written and as the offline translator reads them), its goal, and ``agent_at``
    of every room. One tuple per task, so all agents share the cached transitions.

    Atoms that name nothing in the scene are left out (a monitor needing one then fails
    safe: it cannot decide, so it refuses).
    """
    from ..envs import load_scene
    from ..envs.virtualhome import parse_proposition
    from ..errors import FormulaError, PropositionError, SafetyChipError
    from ..ltl import parse

    scene = load_scene(task.scene)
    names: list[str] = []
    for c in task.constraints:
        try:
            names += sorted(parse(c.formula).atoms())
        except FormulaError:
            continue
    names += [lit.lstrip("!") for lit in task.goal]
    try:
        from ._chip import chip_constraints

        translated, _ = chip_constraints(task, len(task.constraints), "translated")
        names += [a for c in translated for a in sorted(c.formula.atoms())]
    except SafetyChipError:  # translation is optional here
        pass
    names += [f"agent_at({room})" for room in scene.rooms]
    out = []
    for name in dict.fromkeys(names):
        try:
            parse_proposition(name, scene)
        except PropositionError:
            continue
        out.append(name)
    return tuple(out)
