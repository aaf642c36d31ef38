"""The one safe-plan search: best-first over the product of an environment and a monitor.

A node is a world (the environment's snapshot) with the monitor's position; its children
are the candidate actions the environment accepts and the monitor admits; nodes are
deduplicated by (world, automaton states). A node whose last proposition state meets the
goal literals and where the monitor would accept DONE ends the plan. The priority is
``g + weight * (h + gap)``: g counts actions, h estimates what the goal still needs (by
default the number of goal literals still false), gap is the most letters a constraint's
automaton still needs to accept. The repair hint of the Safety Chip and the validation of
the task suites both use it.

Examples
--------
>>> from safetychip.envs import PropositionEnv
>>> from safetychip.monitor import Monitor
>>> env, monitor = PropositionEnv(["a", "b"]), Monitor(["!a W b"])
>>> _, info = env.reset()
>>> _ = monitor.reset(info["states"][0])
>>> search_safe_plan(env, monitor, ["set a", "set b"], goal=["a"]).plan
('set b', 'set a', 'done')
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..envs import Env
from ..monitor import Monitor
from ._judgement import DONE

__all__ = ["SearchResult", "search_safe_plan"]

_E = TypeVar("_E", bound=Env)


@dataclass(frozen=True)
class SearchResult:
    """What :func:`search_safe_plan` found.

    Attributes
    ----------
    plan : tuple of str or None
        The actions, ending with ``done``; None when no plan was found.
    expanded : int
        Nodes expanded.
    exhausted : bool
        The search ran out of nodes (no plan exists within the depth bound) rather than
        out of its expansion budget.
    """

    plan: tuple[str, ...] | None
    expanded: int
    exhausted: bool


def search_safe_plan(env: _E, monitor: Monitor, actions: Sequence[str], *,
                     goal: Sequence[str] = (), propositions: Sequence[str] | None = None,
                     estimate: Callable[[_E], float] | None = None, weight: float = 1.0,
                     max_expansions: int = 300, max_depth: int = 12) -> SearchResult:  # fmt: skip
    """Search a safe continuation from *env*'s current world and *monitor*'s position.

    Both are left as they were.

    Parameters
    ----------
    env : Env
    monitor : Monitor
        At the position of the current world.
    actions : sequence of str
        The candidate actions (e.g. :meth:`~safetychip.envs.Env.candidate_actions`).
    goal : sequence of str
        Literals the last state must satisfy (``"!is_open(fridge)"``); none: only DONE must
        be accepted.
    propositions : sequence of str, optional
        The propositions the monitor reads (default: its atoms); the goal's are added.
    estimate : callable, optional
        ``estimate(env)`` with *env* restored to a world: the actions the goal still needs
        (default: the number of goal literals still false in the last state).
    weight : float
        Weight of the estimate in the priority.
    max_expansions, max_depth : int
        Search bounds.
    """
    literals = [(g.lstrip("!"), not g.startswith("!")) for g in goal]
    props = tuple(dict.fromkeys([*(propositions or monitor.atoms), *(a for a, _ in literals)]))
    dfas = monitor.automata
    root, root_position = env.snapshot(), monitor.snapshot()

    def reached(state: dict[str, bool]) -> bool:
        return all(state.get(a) is v for a, v in literals)

    def gap(q: tuple[int, ...]) -> float:
        return max((d.distances()[s] for d, s in zip(dfas, q)), default=0.0)

    def h(world: Hashable, state: dict[str, bool]) -> float:
        if estimate is None:
            return float(sum(state.get(a) is not v for a, v in literals))
        env.restore(world)
        return estimate(env)

    counter = itertools.count()
    parents: list[tuple[int, str]] = [(-1, "")]
    state0 = env.truth([a for a, _ in literals]) if literals else {}
    q0 = monitor.position
    best = {(root, q0): 0}
    frontier = [(weight * (h(root, state0) + gap(q0)), next(counter), 0, root, root_position,
                 q0, 0, reached(state0))]  # fmt: skip
    expanded = 0
    try:
        while frontier:
            _, _, g, world, position, q, index, done = heapq.heappop(frontier)
            if best.get((world, q), g) < g:
                continue
            monitor.restore(position)
            if done and monitor.accepts_done:
                plan: list[str] = []
                while index > 0:
                    index, action = parents[index]
                    plan.append(action)
                return SearchResult((*plan[::-1], DONE), expanded, False)
            if expanded >= max_expansions:
                return SearchResult(None, expanded, False)
            expanded += 1
            if g >= max_depth:
                continue
            for action in actions:
                env.restore(world)
                ahead = env.lookahead(action, props)
                if ahead.world is None:
                    continue
                monitor.restore(position)
                if not monitor.check(ahead.states).safe:
                    continue
                monitor.commit(ahead.states)
                child_q = monitor.position
                key = (ahead.world, child_q)
                if best.get(key, max_depth + 1) <= g + 1:
                    continue
                best[key] = g + 1
                parents.append((index, action))
                last = ahead.states[-1]
                priority = g + 1 + weight * (h(ahead.world, last) + gap(child_q))
                heapq.heappush(frontier, (priority, next(counter), g + 1, ahead.world,
                                          monitor.snapshot(), child_q, len(parents) - 1,
                                          reached(last)))  # fmt: skip
        return SearchResult(None, expanded, True)
    finally:
        env.restore(root)
        monitor.restore(root_position)
