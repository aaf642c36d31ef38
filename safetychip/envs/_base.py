"""The environment protocol shared by VirtualHome and the Spot robot.

It copies Gymnasium's shapes — ``reset(*, seed, options) -> (obs, info)``,
``step(action) -> (obs, reward, terminated, truncated, info)``, ``close()`` and ``with`` —
and adds what a constraint monitor needs: the truth of grounded propositions, and a
side-effect-free :meth:`Env.preview` of the proposition states an action would produce.

Observations and actions are text. For agents and the shield an environment also offers
:meth:`Env.lookahead` (the states an action would produce and the world it would lead to),
:meth:`Env.snapshot` / :meth:`Env.restore`, :meth:`Env.parse` (the canonical form of an
action), the names of its rooms and objects, :meth:`Env.candidate_actions` for planners and
:meth:`Env.invariants`, the domain facts a monitor may rely on.

``info["states"]`` lists the proposition states an action produced (one per state: walking
through two rooms produces two), each a ``dict[str, bool]`` over the propositions given to
:meth:`Env.track`; reset's info holds the single initial state. A refused action produces no
state, leaves the world unchanged, and explains itself in ``info["error"]`` (``None``
otherwise). DONE ends the episode; stepping afterwards, or after ``close()``, raises
:class:`~safetychip.errors.ResetNeeded`.
:func:`safetychip.envs.check_env` tests these rules on any environment.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable
from typing import Any, ClassVar, NamedTuple

from ..errors import ActionError, ResetNeeded

__all__ = ["Env", "Lookahead", "PropositionState"]

#: One proposition state: the truth value of each proposition, by name.
PropositionState = dict[str, bool]


class Lookahead(NamedTuple):
    """What :meth:`Env.lookahead` foresees for an action.

    Attributes
    ----------
    states : list of dict
        The proposition states the action would produce (empty if refused, or DONE).
    world : object or None
        A snapshot of the world it would lead to, for :meth:`Env.restore` (None if refused,
        or DONE).
    error : str or None
        Why the environment would refuse it.
    """

    states: list[PropositionState]
    world: Any
    error: str | None


class Env(abc.ABC):
    """Base class of safetychip's environments.

    Subclasses implement :meth:`reset`, :meth:`step`, :meth:`admissible_actions`,
    :meth:`lookahead`, :meth:`snapshot`, :meth:`restore`, :meth:`parse`, :meth:`truth`,
    :meth:`goal_reached` and :meth:`render`. :meth:`preview`, :meth:`track`,
    :meth:`is_done`, :meth:`candidate_actions`, :meth:`invariants` and the context manager
    are provided.
    """

    #: Names of the places the agent can be (``agent_at(room)``), for prompts.
    rooms: tuple[str, ...] = ()
    #: Names of the objects, for prompts.
    objects: tuple[str, ...] = ()

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    _tracked: tuple[str, ...] = ()
    _closed: bool = False
    _done: bool = False
    #: What :class:`~safetychip.errors.ResetNeeded` says when the environment is used before
    #: :meth:`reset`, and when it is stepped after its episode ended.
    _not_reset: ClassVar[str] = "call reset() first"
    _episode_over: ClassVar[str] = "the episode is over: call reset()"

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
    def lookahead(self, action: Any, propositions: Iterable[str]) -> Lookahead:
        """Return what *action* would do, without changing the world.

        A following :meth:`step` of the same action produces the same states.

        Raises
        ------
        ActionError
            If *action* cannot be read (an unknown verb or object).
        """

    def preview(self, action: Any, propositions: Iterable[str]) -> list[PropositionState]:
        """Return the proposition states *action* would produce, without changing the world.

        An action the environment would refuse produces no state: the list is empty.
        """
        return self.lookahead(action, propositions).states

    @abc.abstractmethod
    def snapshot(self) -> Any:
        """Save the current world (and the episode's progress) for :meth:`restore`."""

    @abc.abstractmethod
    def restore(self, snapshot: Any) -> Env:
        """Go back to a world saved by :meth:`snapshot`; return ``self``."""

    @abc.abstractmethod
    def parse(self, action: Any) -> Any:
        """Read *action*: an object whose ``str()`` is the action's canonical text, with a
        ``verb`` (``"done"`` for DONE) and ``targets`` (each with a ``name``). An object this
        method returned is returned as it is, so that an action is parsed once and the parsed
        object travels (grounder, shield, :meth:`lookahead`, :meth:`step`).

        Raises
        ------
        ActionError
            If *action* cannot be read; the message says what is known.
        """

    @abc.abstractmethod
    def render(self) -> str:
        """Return the current observation text (Gymnasium's ``"ansi"`` mode)."""

    def is_done(self, action: Any) -> bool:
        """Whether *action* reads as DONE (an unreadable action is not)."""
        try:
            return self.parse(action).verb == "done"
        except ActionError:
            return False

    def candidate_actions(self, task: Any = None) -> list[str]:
        """The actions a planner should try (default: :meth:`admissible_actions` now);
        environments with large vocabularies narrow them to what *task* mentions."""
        return self.admissible_actions()

    def invariants(self, atoms: Iterable[str] = ()) -> list[Any]:
        """Domain invariants the environment guarantees, as LTLf formulas over *atoms* and
        its own propositions (e.g. one room at a time); none by default."""
        return []

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

    def close(self) -> None:
        """Release resources; the environment cannot be stepped afterwards."""
        self._closed = True

    # -- the guards every environment shares ---------------------------------------------------

    def _has_world(self) -> bool:
        """Whether :meth:`reset` has made a world (subclasses that keep one say how)."""
        return True

    def _require_open(self) -> None:
        """Raise ResetNeeded once the environment is closed."""
        if self._closed:
            raise ResetNeeded("the environment is closed; create a new one")

    def _require_state(self) -> None:
        """Raise ResetNeeded if closed, or not reset yet."""
        self._require_open()
        if not self._has_world():
            raise ResetNeeded(self._not_reset)

    def _require_episode(self) -> None:
        """Raise ResetNeeded if closed, not reset, or the episode is over."""
        self._require_state()
        if self._done:
            raise ResetNeeded(self._episode_over)

    def _require_snapshot(self, snapshot: Any, kind: type) -> None:
        """Raise ResetNeeded if closed, and ValueError if *snapshot* is not a *kind*."""
        self._require_open()
        if not isinstance(snapshot, kind):
            raise ValueError(f"not a {type(self).__name__} snapshot: {snapshot!r:.80}")

    def __enter__(self) -> Env:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
