"""Shielded learning: tabular Q-learning on a MiniGrid world, with or without the shield.

The learner sees the agent's view (its direction and the partial-view image, a table key),
chooses among turn left, turn right and move forward (epsilon-greedy, ties broken at
random), and learns from the action that ran: under the shield, a refused proposal is
replaced by the wrapper's fallback (the first admitted action) and the learner updates the
value of that substitute, which is what happened. Violations are counted by a referee that
reads the real world after every step (by default: the agent stands on lava), apart from
the shield and its labeller.

Examples
--------
>>> curve = q_learning("MiniGrid-LavaGapS5-v0", ['G !"on_lava"'], seed=0, episodes=3)
>>> curve.shielded, len(curve.returns), int(curve.violations.sum())
(True, 3, 0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np

from ._minigrid import MiniGridLabeller
from ._wrapper import ShieldWrapper

__all__ = ["LearningCurve", "Referee", "on_lava", "q_learning"]

#: A referee: ``referee(unwrapped_env)`` says whether the world the last step produced is
#: unsafe (read from the real world, not from the shield).
Referee = Callable[[Any], bool]

#: MiniGrid's turn left, turn right and move forward: the actions the learner chooses among.
_MOVES = (0, 1, 2)


def on_lava(world: Any) -> bool:
    """Whether the agent of the unwrapped MiniGrid *world* stands on lava (the referee of the
    lava worlds, read from the grid itself).

    Examples
    --------
    >>> import minigrid  # registers the MiniGrid environments
    >>> env = gymnasium.make("MiniGrid-LavaGapS5-v0")
    >>> _ = env.reset(seed=0)
    >>> on_lava(env.unwrapped)
    False
    """
    cell = world.grid.get(*(int(v) for v in world.agent_pos))
    return cell is not None and cell.type == "lava"


@dataclass(frozen=True)
class LearningCurve:
    """What one Q-learning run did, episode by episode.

    Attributes
    ----------
    name : str
        The environment's registered name.
    shielded : bool
        Whether the learner ran under the shield.
    seed : int
        The run's seed (the environment's first reset and the learner's random choices).
    returns : numpy.ndarray
        The return (sum of rewards) of each episode.
    violations : numpy.ndarray
        The number of steps of each episode after which the referee found the world unsafe.
    steps : numpy.ndarray
        The number of steps of each episode.
    refusals : numpy.ndarray
        The number of proposals the shield refused in each episode (0 without the shield).

    Examples
    --------
    >>> curve = q_learning("MiniGrid-LavaGapS5-v0", None, seed=1, episodes=4)
    >>> curve.name, curve.seed, curve.refusals.tolist()
    ('MiniGrid-LavaGapS5-v0', 1, [0, 0, 0, 0])
    """

    name: str
    shielded: bool
    seed: int
    returns: np.ndarray
    violations: np.ndarray
    steps: np.ndarray
    refusals: np.ndarray

    def solved_at(self, window: int = 20, share: float = 0.9) -> int | None:
        """The number of episodes after which, for the first time, at least *share* of the
        last *window* episodes reached the goal (a positive return); None if never.

        Examples
        --------
        >>> import numpy as np
        >>> curve = LearningCurve("x", False, 0, np.array([0, 1, 1, 1.0]), *[np.zeros(4)] * 3)
        >>> curve.solved_at(window=2, share=1.0)
        3
        """
        reached = np.convolve(self.returns > 0, np.ones(window), "valid") >= share * window
        found = np.flatnonzero(reached)
        return int(found[0]) + window if len(found) else None


def q_learning(name: str, constraints: Sequence[str] | None, *, seed: int,
               episodes: int = 300, alpha: float = 0.5, gamma: float = 0.95,
               epsilon: float = 0.1, referee: Referee = on_lava) -> LearningCurve:  # fmt: skip
    """Train a tabular Q-learner for *episodes* episodes on the MiniGrid environment *name*,
    shielded by *constraints* (formulas over :class:`MiniGridLabeller`'s propositions, with
    its one-step model), or bare when *constraints* is None.

    Parameters
    ----------
    name : str
        A registered MiniGrid environment (``import minigrid`` registers them).
    constraints : sequence of str or None
        The shield's formulas, or None for the unshielded learner.
    seed : int
        Seeds the environment's first reset and the learner's random generator.
    episodes : int
        How many episodes to learn for.
    alpha, gamma, epsilon : float
        Learning rate, discount, and the share of random actions.
    referee : callable
        Counts a violation for each step after which ``referee(env.unwrapped)`` is true.

    Returns
    -------
    LearningCurve

    Examples
    --------
    >>> curve = q_learning("MiniGrid-LavaGapS5-v0", None, seed=0, episodes=5)
    >>> curve.shielded, len(curve.steps)
    (False, 5)
    """
    import minigrid  # noqa: F401 - registers the MiniGrid environments

    env: gymnasium.Env = gymnasium.make(name)
    if constraints is not None:
        labeller = MiniGridLabeller()
        env = ShieldWrapper(env, labeller, constraints, model=labeller.model,
                            fallback=lambda observation, action: _MOVES)  # fmt: skip
    rng = np.random.default_rng(seed)
    table: dict[tuple[int, bytes], np.ndarray] = {}

    def values(observation: dict[str, Any]) -> np.ndarray:
        key = (int(observation["direction"]), observation["image"].tobytes())
        row = table.get(key)
        if row is None:
            row = table[key] = np.zeros(len(_MOVES))
        return row

    columns = np.zeros((4, episodes))  # returns, violations, steps, refusals
    observation, _ = env.reset(seed=seed)
    for episode in range(episodes):
        if episode:
            observation, _ = env.reset()
        done = False
        while not done:
            q = values(observation)
            if rng.random() < epsilon:
                move = int(rng.integers(len(_MOVES)))
            else:
                move = int(rng.choice(np.flatnonzero(q == q.max())))
            observation, reward, terminated, truncated, info = env.step(_MOVES[move])
            report = info.get("shield")
            if report is not None:
                columns[3, episode] += len(report.refusals)
                if report.executed is None:  # no move is admitted: the episode ends
                    break
                move = _MOVES.index(report.executed)
            target = reward if terminated else reward + gamma * values(observation).max()
            q[move] += alpha * (target - q[move])
            columns[:3, episode] += (float(reward), float(referee(env.unwrapped)), 1.0)
            done = terminated or truncated
    env.close()
    returns, violations, steps, refusals = columns
    return LearningCurve(name, constraints is not None, seed, returns,
                         violations.astype(int), steps.astype(int),
                         refusals.astype(int))  # fmt: skip
