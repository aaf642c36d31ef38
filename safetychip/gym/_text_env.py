"""The project's own environments (VirtualHome, Spot, the proposition mock) as Gymnasium
environments, so a Gymnasium user runs them through the API they know.

Observations and actions are text (``gymnasium.spaces.Text``). ``info`` is the environment's
own: ``"states"`` lists the proposition states the action produced (walking through two
rooms gives two), ``"error"`` why an action was refused. An action the environment cannot
read is refused the same way: nothing runs, the observation is unchanged, and ``info["error"]``
names the actions it knows. To shield such an environment use
:class:`~safetychip.shield.Shield` on the environment itself: it judges every state an action
passes through.

Examples
--------
>>> from safetychip.envs import PropositionEnv
>>> env = TextEnv(PropositionEnv(["is_open(fridge)"]))
>>> observation, info = env.reset(seed=0)
>>> _, _, _, _, info = env.step("set is_open(fridge)")
>>> info["states"]
[{'is_open(fridge)': True}]
"""

from __future__ import annotations

from typing import Any

import gymnasium
from gymnasium import spaces

from ..envs import Env
from ..errors import ActionError

__all__ = ["TEXT_CHARACTERS", "TextEnv"]

#: The characters of observations and actions: tab, newline and every character from the
#: space up to the end of Unicode's General Punctuation block, letters with accents included.
TEXT_CHARACTERS = frozenset("\t\n" + "".join(chr(c) for c in range(0x20, 0x2070)))


class TextEnv(gymnasium.Env):
    """A safetychip :class:`~safetychip.envs.Env` as a ``gymnasium.Env`` over text.

    Parameters
    ----------
    env : Env
        VirtualHome, Spot, or the proposition mock.
    max_observation : int
        The longest observation, in characters (the observation space's bound).
    max_action : int
        The longest action, in characters.
    render_mode : {"ansi"} or None
        ``"ansi"``: :meth:`render` returns the environment's text.
    """

    # text frames have no natural rate; Gymnasium's checker asks for one
    metadata = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012 - as gymnasium.Env

    def __init__(self, env: Env, *, max_observation: int = 100_000, max_action: int = 200,
                 render_mode: str | None = None) -> None:  # fmt: skip
        if not isinstance(env, Env):
            raise TypeError(f"env must be a safetychip.envs.Env, got {type(env).__name__}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.env = env
        self.render_mode = render_mode
        self.observation_space = spaces.Text(max_observation, charset=TEXT_CHARACTERS)
        self.action_space = spaces.Text(max_action, min_length=1, charset=TEXT_CHARACTERS)
        self._observation = ""

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:  # fmt: skip
        """Reset the environment (its own ``reset``, with *seed* and *options*)."""
        super().reset(seed=seed)
        self._observation, info = self.env.reset(seed=seed, options=options)
        return self._observation, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Execute *action*; one the environment cannot read runs nothing and returns the
        same observation with ``info["error"]``.

        Raises
        ------
        ResetNeeded
            Before ``reset``, after DONE or after ``close``.
        """
        try:
            observation, reward, terminated, truncated, info = self.env.step(action)
        except ActionError as exc:
            info = {"action": str(action), "script": [], "states": [], "error": str(exc)}
            return self._observation, 0.0, False, False, info
        self._observation = observation
        return observation, float(reward), bool(terminated), bool(truncated), info

    def render(self) -> str | None:
        """The environment's text in ``"ansi"`` mode, else None."""
        return self.env.render() if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Close the environment."""
        self.env.close()

    def __repr__(self) -> str:
        return f"<TextEnv over {type(self.env).__name__}>"
