"""The labeller: the one environment-specific piece a user writes to shield a Gymnasium
environment. It maps what the environment shows (its observation, its ``info``, and the
unwrapped environment itself) to a proposition state.

Examples
--------
A labeller for a one-dimensional walk, whose observation is the agent's position:

>>> class Cliff(Labeller):
...     propositions = ("at_edge",)
...     def label(self, observation, info, env, propositions):
...         return {"at_edge": observation == 0}
>>> label_state(Cliff(), 0, {}, None, ("at_edge",))
{'at_edge': True}
>>> label_state(Cliff(), 3, {}, None, ("at_cliff",))
Traceback (most recent call last):
...
safetychip.errors.LabellerError: labeller Cliff answered no truth value for 'at_cliff' ...
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import LabellerError

__all__ = ["Labeller", "checked_state", "exact_values", "label_state"]


class Labeller(abc.ABC):
    """Base class of labellers: declare :attr:`propositions` (or override :meth:`knows`)
    and implement :meth:`label`.

    Attributes
    ----------
    propositions : tuple of str
        The propositions the labeller can produce, in canonical spelling
        (``is_open(door)``); a specification over others is refused at wrap time.
    """

    propositions: tuple[str, ...] = ()

    def knows(self, proposition: str) -> bool:
        """Whether the labeller can produce *proposition* (default: it is declared in
        :attr:`propositions`)."""
        return proposition in self.propositions

    @abc.abstractmethod
    def label(self, observation: Any, info: Mapping[str, Any], env: Any,
              propositions: Sequence[str]) -> Mapping[str, bool]:  # fmt: skip
        """The truth value of each of *propositions* in the world that produced
        *observation* and *info*; *env* is that world's unwrapped environment (the real one,
        or the copy a preview stepped), or None when there is none to read."""

    def label_batch(self, worlds: Sequence[Any],
                    propositions: Sequence[str]) -> np.ndarray | None:  # fmt: skip
        """The states of N unwrapped environments at once, from the environments alone: an
        ``(N, len(propositions))`` bool array, or None (the default) when the labeller has
        no batched form; then :class:`~safetychip.gym.VectorShieldWrapper` labels each copy
        with :meth:`label`. Override it only with the answers :meth:`label` gives.

        Examples
        --------
        >>> class Cliff(Labeller):
        ...     def label(self, observation, info, env, propositions):
        ...         return {"at_edge": observation == 0}
        >>> Cliff().label_batch([None], ["at_edge"]) is None
        True
        """
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


def label_state(labeller: Labeller, observation: Any, info: Mapping[str, Any], env: Any,
                propositions: Sequence[str]) -> dict[str, bool]:  # fmt: skip
    """Ask *labeller* for *propositions* and check its answer: one bool (or numpy bool) for
    each proposition asked, and no name the labeller does not know (names it knows but that
    were not asked are ignored).

    Raises
    ------
    LabellerError
        If the labeller raised, or answered something else (the message says what, and
        names the labeller).
    """
    return checked_state(f"labeller {type(labeller).__name__}",
                         lambda: labeller.label(observation, info, env, propositions),
                         propositions, labeller.knows)  # fmt: skip


def checked_state(who: str | Callable[[], str], ask: Callable[[], Any],
                  propositions: Sequence[str],
                  knows: Callable[[str], bool]) -> dict[str, bool]:  # fmt: skip
    """Call *ask* and check that it answered one bool for each of *propositions*, and no
    name *knows* rejects; *who* names the answerer in the error (or is a callable giving
    that name, called only for an error: a step's path formats nothing).

    Raises
    ------
    LabellerError
        If *ask* raised, or answered something else.
    """
    try:
        answer = ask()
    except Exception as exc:
        who = _name(who)
        raise LabellerError(f"{who} raised {type(exc).__name__}: {exc}") from exc
    values = exact_values(answer, propositions)
    if values is not None:  # the common answer: exactly the bools asked for
        return dict(zip(propositions, values))
    if type(answer) is not dict and not isinstance(answer, Mapping):
        who = _name(who)
        raise LabellerError(f"{who} answered a {type(answer).__name__}, not a mapping from "
                            "proposition names to bools: return a dict")  # fmt: skip
    state: dict[str, bool] = {}
    for p in propositions:
        value = answer.get(p)
        if value is None:
            who = _name(who)
            raise LabellerError(f"{who} answered no truth value for {p!r} (it gave "
                                f"{sorted(answer)}): label every proposition asked")  # fmt: skip
        if not isinstance(value, (bool, np.bool_)):
            who = _name(who)
            raise LabellerError(f"{who} answered {value!r} for {p!r}, not a bool: return True "
                                "or False")  # fmt: skip
        state[p] = bool(value)
    if len(answer) != len(state):
        unknown = sorted(str(p) for p in answer if p not in state and not knows(p))
        if unknown:
            raise LabellerError(f"{_name(who)} answered unknown propositions {unknown} (asked for "
                                f"{list(propositions)}): label only propositions it "
                                "declares")  # fmt: skip
    return state


def exact_values(answer: Any, propositions: Sequence[str]) -> tuple[bool, ...] | None:
    """The values of *answer*, a labeller's, in the order of *propositions* when it is a dict
    of exactly those names to plain bools; None for anything else (which
    :func:`checked_state` reads, or refuses with its reason). Fast paths take this check.

    Examples
    --------
    >>> exact_values({"b": False, "a": True}, ("a", "b"))
    (True, False)
    >>> exact_values({"a": 1}, ("a",)) is None, exact_values({"a": True}, ("a", "b")) is None
    (True, True)
    """
    if type(answer) is not dict or len(answer) != len(propositions):
        return None
    try:
        values = tuple([answer[p] for p in propositions])
    except (KeyError, TypeError):
        return None
    for value in values:
        if type(value) is not bool:
            return None
    return values


def _name(who: str | Callable[[], str]) -> str:
    """The answerer's name for an error: *who*, or what it gives when it is a callable."""
    return who if isinstance(who, str) else who()
