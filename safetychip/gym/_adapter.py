"""A Gymnasium environment seen through safetychip's :class:`~safetychip.envs.Env` protocol,
so that the one :class:`~safetychip.shield.Shield` loop judges its actions.

The proposition states come from a :class:`~safetychip.gym.Labeller`. An action is previewed
in one of two ways, chosen at construction:

* **snapshot** (the default): ``copy.deepcopy(env.unwrapped)`` is stepped with the action
  and labelled; the copy carries the random generator, so the real step that follows
  produces the same world. The environment must be deep-copyable (MiniGrid's are).
* **one-step model**: a callable ``model(env, action, propositions)`` that returns the
  proposition state *action* would produce from the unwrapped *env*, without changing it.

Examples
--------
>>> import gymnasium as gym
>>> import minigrid  # registers the MiniGrid environments
>>> from safetychip.gym import MiniGridLabeller
>>> env = GymEnv(gym.make("MiniGrid-LavaCrossingS9N1-v0"), MiniGridLabeller())
>>> env.track(["on_lava"]).reset(seed=1)[1]["states"]
[{'on_lava': False}]
>>> env.lookahead(env.parse(2), ["on_lava"]).error is None
True
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..envs import Env, Lookahead, PropositionState
from ..errors import ActionError, LabellerError, PreviewError, PropositionError, ResetNeeded
from ._labeller import Labeller, checked_state, label_state

__all__ = ["GymAction", "GymEnv", "OneStepModel", "check_preview", "preview"]

#: A one-step model: ``model(unwrapped_env, action, propositions) -> proposition state``.
OneStepModel = Callable[[Any, Any, Sequence[str]], Mapping[str, bool]]


class GymAction:
    """A Gymnasium action read by :meth:`GymEnv.parse`: its ``str()`` is the action's text,
    its :attr:`value` what the environment is stepped with.

    Examples
    --------
    >>> a = GymAction(2)
    >>> str(a), a.verb, a.targets
    ('2', 'act', ())
    """

    __slots__ = ("text", "value")
    verb = "act"
    targets: tuple[Any, ...] = ()

    def __init__(self, value: Any) -> None:
        self.value = value
        self.text = str(value)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"GymAction({self.value!r})"


class GymEnv(Env):
    """The :class:`~safetychip.envs.Env` protocol over a Gymnasium environment.

    Parameters
    ----------
    env : gymnasium.Env
        Stepped for real by :meth:`step`; its ``unwrapped`` is copied to preview.
    labeller : Labeller
        Produces the proposition states.
    model : callable, optional
        A one-step model (:data:`OneStepModel`) used instead of snapshots.

    Attributes
    ----------
    last : tuple
        The last ``(observation, reward, terminated, truncated, info)`` of the real
        environment (reset: reward 0, and not ended).

    Raises
    ------
    PreviewError
        If no *model* is given and ``env.unwrapped`` cannot be deep-copied.
    """

    def __init__(self, env: Any, labeller: Labeller, model: OneStepModel | None = None) -> None:
        if not isinstance(labeller, Labeller):
            raise TypeError(f"labeller must be a safetychip.gym.Labeller, got "
                            f"{type(labeller).__name__}")  # fmt: skip
        check_preview(env.unwrapped, model)
        self.gym_env = env
        self._world = env.unwrapped  # read on every step: not through the wrappers each time
        self.labeller = labeller
        self.model = model
        self.last: tuple[Any, float, bool, bool, dict[str, Any]] | None = None
        # why the episode cannot go on (an action ran but could not be labelled), or None
        self._stale: str | None = None
        self._discrete = discrete_size(env.action_space)
        # a discrete space's actions, read once (parse is on every step's path)
        self._actions = tuple(GymAction(a) for a in range(self._discrete or 0))

    def track(self, propositions: Iterable[str]) -> GymEnv:
        """Track *propositions*; each must be one the labeller knows.

        Raises
        ------
        PropositionError
            Naming the propositions the labeller cannot produce.
        """
        names = tuple(dict.fromkeys(propositions))
        unknown = [p for p in names if not self.labeller.knows(p)]
        if unknown:
            raise PropositionError(
                f"labeller {type(self.labeller).__name__} cannot produce {unknown}: write the "
                "constraints over the propositions it knows, or extend its knows()/label()"
            )
        self._tracked = names
        return self

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:  # fmt: skip
        """Reset the Gymnasium environment; ``info["states"]`` holds the labelled state.

        Raises
        ------
        LabellerError
            If the labeller cannot label the initial observation.
        """
        observation, info = self.gym_env.reset(seed=seed, options=options)
        self.last, self._stale = (observation, 0.0, False, False, info), None
        state = label_state(self.labeller, observation, info, self._world,
                            self._tracked)  # fmt: skip
        return observation, {"states": [state]}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the Gymnasium environment with *action* (a :class:`GymAction` or a member of
        its action space); ``info["states"]`` holds the labelled state.

        Raises
        ------
        LabellerError
            If the labeller cannot label what the step produced: the action ran, so the
            episode cannot go on (every later step and preview raises ``ResetNeeded``).
        ResetNeeded
            Before ``reset``, or after such a failure.
        """
        self._check_going()
        value = self.parse(action).value
        observation, reward, terminated, truncated, info = self.gym_env.step(value)
        self.last = (observation, float(reward), bool(terminated), bool(truncated), info)
        state = self.label_ran(observation, info)
        return observation, float(reward), bool(terminated), bool(truncated), {"states": [state]}

    def label_ran(self, observation: Any, info: Mapping[str, Any]) -> dict[str, bool]:
        """The labelled state of what a step that ran produced (*observation*, *info*).

        Raises
        ------
        LabellerError
            If the labeller cannot label it: the action ran, so the episode cannot go on
            (every later step and preview raises ``ResetNeeded``).
        """
        try:
            return label_state(self.labeller, observation, info, self._world, self._tracked)
        except LabellerError as exc:
            self._stale = (f"an action ran but what it produced could not be labelled ({exc}), "
                           "so the monitor no longer knows the world: call reset()")  # fmt: skip
            raise

    def _check_going(self) -> None:
        """Raise ResetNeeded before reset, or after an action ran unlabelled."""
        if self._stale is not None:
            raise ResetNeeded(self._stale)
        if self.last is None:
            raise ResetNeeded("the Gymnasium environment was not reset: call reset() first")

    def lookahead(self, action: Any, propositions: Iterable[str]) -> Lookahead:
        """The state *action* would produce: the one-step model's, or the label of a stepped
        copy of the unwrapped environment. A labeller or model that fails, raises or answers
        something else makes the action not executable (``error`` says why).

        Raises
        ------
        ActionError
            If *action* is not in the action space.
        ResetNeeded
            Before ``reset``, or after an action ran but could not be labelled.
        """
        self._check_going()
        value = self.parse(action).value
        return preview(self._world, value, self.labeller, self.model,
                       tuple(propositions))  # fmt: skip

    def snapshot(self) -> Any:
        """A deep copy of the unwrapped environment and the last step's result."""
        return copy.deepcopy((self.gym_env.unwrapped, self.last))

    def restore(self, snapshot: Any) -> GymEnv:
        """Copy a :meth:`snapshot` back into the unwrapped environment (its attributes)."""
        world, last = copy.deepcopy(snapshot)
        self.gym_env.unwrapped.__dict__.update(world.__dict__)
        self.last = last
        return self

    def parse(self, action: Any) -> GymAction:
        """Read *action*: a :class:`GymAction`, a member of the action space, or, for a
        discrete space, its number as text.

        Raises
        ------
        ActionError
            If *action* is not in the action space (the message gives the space).
        """
        if isinstance(action, GymAction):
            return action
        if type(action) is int and 0 <= action < len(self._actions):
            return self._actions[action]
        if self._discrete is not None and isinstance(action, str) and action.isdigit():
            action = int(action)
        space = self.gym_env.action_space
        if not space.contains(action):
            raise ActionError(f"{action!r} is not an action of {space}: propose one of its "
                              "members")  # fmt: skip
        return GymAction(action)

    def admissible_actions(self) -> list[str]:
        """Every action of a discrete action space, as text (none for other spaces)."""
        return [str(a) for a in range(self._discrete or 0)]

    def truth(self, propositions: Iterable[str]) -> PropositionState:
        """The labelled state of the last observation."""
        if self.last is None:
            raise ResetNeeded("the Gymnasium environment was not reset: call reset() first")
        observation, *_, info = self.last
        return label_state(self.labeller, observation, info, self._world,
                           tuple(propositions))  # fmt: skip

    def goal_reached(self) -> bool:
        """Whether the last step ended the episode with a positive reward."""
        return self.last is not None and self.last[2] and self.last[1] > 0

    def render(self) -> str:
        """The environment's ``"ansi"`` rendering if it has one, else its repr."""
        return str(self.gym_env.unwrapped)

    def __repr__(self) -> str:
        return f"<GymEnv {type(self.gym_env.unwrapped).__name__} labelled by {self.labeller!r}>"


def check_preview(world: Any, model: OneStepModel | None) -> None:
    """Check that actions on the unwrapped environment *world* can be previewed: by the
    callable *model*, or else by deep-copying *world*.

    Raises
    ------
    PreviewError
        If there is no *model* and *world* cannot be deep-copied (the message says what to
        pass).
    TypeError
        If *model* is not callable.

    Examples
    --------
    >>> import threading
    >>> check_preview(threading.Lock(), None)
    Traceback (most recent call last):
    ...
    safetychip.errors.PreviewError: cannot preview actions on lock: ...
    """
    if model is None:
        try:
            copy.deepcopy(world)
        except Exception as exc:
            raise PreviewError(
                f"cannot preview actions on {type(world).__name__}: "
                f"copy.deepcopy(env.unwrapped) raised {type(exc).__name__}: {exc}; pass a "
                "one-step model (model=callable(env, action, propositions) returning the "
                "proposition state the action would produce)"
            ) from exc
    elif not callable(model):
        raise TypeError(f"model must be callable(env, action, propositions), got {model!r}")


def preview(world: Any, value: Any, labeller: Labeller, model: OneStepModel | None,
            names: Sequence[str]) -> Lookahead:  # fmt: skip
    """The proposition state (of *names*) that stepping the unwrapped environment *world*
    with the action *value* would produce: *model*'s answer, or the label of a stepped deep
    copy of *world* (then ``Lookahead.world`` is that copy). *world* is left as it was. A
    labeller or model that raises or answers anything but one bool per name gives no state
    and an ``error`` saying why (the action must be refused).

    Examples
    --------
    >>> import gymnasium as gym
    >>> import minigrid  # registers the MiniGrid environments
    >>> from safetychip.gym import MiniGridLabeller
    >>> env = gym.make("MiniGrid-LavaGapS5-v0")
    >>> _ = env.reset(seed=0)
    >>> labeller = MiniGridLabeller()
    >>> preview(env.unwrapped, 2, labeller, labeller.model, ["on_lava"]).states  # forward
    [{'on_lava': True}]
    """
    try:
        if model is not None:
            state = checked_state(lambda: f"one-step model {model!r}",
                                  lambda: model(world, value, names), names,
                                  labeller.knows)  # fmt: skip
            return Lookahead([state], None, None)
        copied = copy.deepcopy(world)
        observation, _, _, _, info = copied.step(value)
        state = label_state(labeller, observation, info, copied, names)
    except LabellerError as exc:
        return Lookahead([], None, f"the action's effect cannot be labelled, so it is "
                         f"refused: {exc}")  # fmt: skip
    except Exception as exc:  # a preview that fails never lets the action through
        return Lookahead([], None, f"the preview of the action raised "
                         f"{type(exc).__name__}: {exc}, so it is refused")  # fmt: skip
    return Lookahead([state], copied, None)


def discrete_size(space: Any) -> int | None:
    """The number of actions of a ``Discrete`` space starting at 0, else None."""
    n, start = getattr(space, "n", None), getattr(space, "start", 0)
    return int(n) if n is not None and start == 0 and not hasattr(space, "nvec") else None
