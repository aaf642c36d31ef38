"""The environment protocol shared by VirtualHome and the Spot robot.

It copies Gymnasium's shapes — ``reset(*, seed, options) -> (obs, info)``,
``step(action) -> (obs, reward, terminated, truncated, info)``, ``close()`` and ``with`` —
and adds what a constraint monitor needs: the truth of grounded propositions, and a
side-effect-free :meth:`Env.preview` of the proposition states an action would produce.

Observations and actions are text. ``info["states"]`` lists the proposition states an
action produced (one per state: walking through two rooms produces two), each a
``dict[str, bool]`` over the propositions given to :meth:`Env.track`; reset's info holds
the single initial state. A refused action produces no state, leaves the world unchanged,
and explains itself in ``info["error"]`` (``None`` otherwise). DONE ends the episode;
stepping afterwards, or after ``close()``, raises :class:`~safetychip.errors.ResetNeeded`.
:func:`safetychip.envs.check_env` tests these rules on any environment.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable
from typing import Any, ClassVar

__all__ = ["Env", "PropositionState"]

#: One proposition state: the truth value of each proposition, by name.
PropositionState = dict[str, bool]


class Env(abc.ABC):
    """Base class of safetychip's environments.

    Subclasses implement :meth:`reset`, :meth:`step`, :meth:`admissible_actions`,
    :meth:`preview`, :meth:`truth` and :meth:`goal_reached`. :meth:`track` and the context
    manager are provided.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    _tracked: tuple[str, ...] = ()

    @abc.abstractmethod
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode; return the observation and ``info`` (with ``"states"``)."""

    @abc.abstractmethod
    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Execute *action*; return ``(obs, reward, terminated, truncated, info)``."""

    @abc.abstractmethod
    def admissible_actions(self) -> list[str]:
        """Return the actions the environment would accept now, as text."""

    @abc.abstractmethod
    def preview(self, action: Any, propositions: Iterable[str]) -> list[PropositionState]:
        """Return the proposition states *action* would produce, without changing the world.

        An action the environment would refuse produces no state: the list is empty.
        """

    @abc.abstractmethod
    def truth(self, propositions: Iterable[str]) -> PropositionState:
        """Return the truth value of each proposition in the current world."""

    @abc.abstractmethod
    def goal_reached(self) -> bool:
        """Whether the current world satisfies the goal conditions."""

    @property
    def tracked(self) -> tuple[str, ...]:
        """The propositions whose states ``info["states"]`` reports."""
        return self._tracked

    def track(self, propositions: Iterable[str]) -> Env:
        """Report the states of *propositions* in ``info["states"]``; return ``self``.

        Subclasses check the names here, so that an unknown proposition raises
        ``PropositionError`` at once rather than in the middle of an episode.
        """
        self._tracked = tuple(dict.fromkeys(propositions))
        return self

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release resources; the environment cannot be stepped afterwards."""

    def __enter__(self) -> Env:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
