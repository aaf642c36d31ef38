"""Proposition states: the one typed boundary between callers and the monitor.

A proposition state gives every proposition of a specification a truth value. Callers write
it as a mapping (``{"is_open(fridge)": True, ...}``, giving every proposition) or as a set of
the true propositions (absent ones are false). Only real booleans are truth values: ``bool``
and ``numpy.bool_``. ``bool()`` is never applied to anything else, so the string ``"false"``,
NaN, ``None`` or an array can never be read as a truth value.

A set names only propositions of the specification: in a set an absent name means *false*,
so a misspelt name (``is_grabbed(phnoe)``) would silently turn the proposition it was meant
for false; it is an error that names the closest known propositions. A mapping may carry
other propositions too (an environment usually tracks more than one specification uses):
it gives every value explicitly, so a misspelling shows up as a missing proposition, and the
error names the misspelt key. Their values must still be booleans; they are then dropped.
A mapping is read for what it holds: a ``defaultdict`` (any ``__missing__``) never answers
for a proposition it lacks, and the caller's mapping is never changed.

Examples
--------
>>> proposition_states({"b"}, ["a", "b"])
[{'a': False, 'b': True}]
>>> proposition_states({"b": "false", "a": False}, ["a", "b"])
Traceback (most recent call last):
...
safetychip.errors.TraceError: proposition state 0 gives b the value 'false' (type str), not a \
boolean: give True or False
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import itemgetter
from types import MappingProxyType
from typing import Any

from .._names import close_names, did_you_mean
from ..errors import TraceError

__all__ = ["proposition_state", "proposition_states"]

_SETS = (set, frozenset, list, tuple)


def proposition_state(
    state: Mapping[str, Any] | Iterable[str], atoms: Iterable[str]
) -> dict[str, bool]:
    """Read one proposition state over *atoms*: a mapping to booleans, or the set of true ones.

    Parameters
    ----------
    state : mapping of str to bool, or set, list or tuple of str
        A mapping must give every one of *atoms* a ``bool`` (or ``numpy.bool_``); it may give
        other propositions booleans too, which are dropped. A set (list, tuple) names the true
        propositions, all of them among *atoms*.
    atoms : iterable of str
        The propositions of the specification, in the order of the result.

    Returns
    -------
    dict of str to bool
        A new dict giving each of *atoms* a Python ``bool``.

    Raises
    ------
    TraceError
        If *state* is neither a mapping nor a set, a value is not a boolean, a proposition is
        missing from a mapping, or a set names a proposition not among *atoms* (the message
        names the closest ones).

    Examples
    --------
    >>> proposition_state({"is_grabbed(phone)": False, "agent_at(kitchen)": True},
    ...                   ["is_grabbed(phone)"])
    {'is_grabbed(phone)': False}
    >>> proposition_state({"is_grabbed(phnoe)"}, ["is_grabbed(phone)", "agent_at(kitchen)"])
    Traceback (most recent call last):
    ...
    safetychip.errors.TraceError: the proposition state names is_grabbed(phnoe), which is not \
a proposition of the specification; did you mean is_grabbed(phone)?
    """
    return StateReader(atoms).read(state, "the proposition state")


def proposition_states(states: Any, atoms: Iterable[str]) -> list[dict[str, bool]]:
    """Read the proposition states an action produced: one state, or a non-empty list of them.

    Parameters
    ----------
    states : mapping, set, or non-empty list or tuple of those
        One proposition state (a mapping or a set, see :func:`proposition_state`), or a list
        of them in the order they happened (a walk may pass through several rooms).
    atoms : iterable of str
        The propositions of the specification, in the order of each result.

    Returns
    -------
    list of dict of str to bool
        New dicts, one per state, each giving every one of *atoms* a Python ``bool``.

    Raises
    ------
    TraceError
        If *states* has none of these forms or a state is malformed; the message names the
        state's index, the proposition and the value.

    Examples
    --------
    >>> proposition_states([{"a"}, {"a": True, "b": True}], ["a", "b"])
    [{'a': True, 'b': False}, {'a': True, 'b': True}]
    >>> proposition_states([{"a": True}], ["a", "b"])
    Traceback (most recent call last):
    ...
    safetychip.errors.TraceError: proposition state 0 has no value for b
    """
    return StateReader(atoms).read_all(states, "proposition state {}")


class StateReader:
    """The propositions of a specification, prepared to read proposition states fast.

    The monitor keeps one and reads every state through it; :func:`proposition_state` and
    :func:`proposition_states` build one per call.

    Parameters
    ----------
    atoms : iterable of str
        The propositions, in the order of every state read.

    Examples
    --------
    >>> StateReader(["a", "b"]).read(["b"], "the state")
    {'a': False, 'b': True}
    """

    __slots__ = ("_get", "known", "names")

    def __init__(self, atoms: Iterable[str]) -> None:
        self.names: tuple[str, ...] = tuple(dict.fromkeys(atoms))
        self.known = frozenset(self.names)
        n = len(self.names)
        self._get: Callable[[Any], tuple[Any, ...]]
        if n > 1:
            self._get = itemgetter(*self.names)
        elif n == 1:
            getter = itemgetter(self.names[0])
            self._get = lambda s: (getter(s),)
        else:
            self._get = lambda s: ()

    def read_all(self, states: Any, where: str) -> list[dict[str, bool]]:
        """Read one state or a non-empty list of states; ``where.format(index)`` names a state
        in error messages."""
        kind = type(states)
        if kind is tuple or kind is list:  # the shield's and the monitor's own: no ABC check
            if states:
                return [self.read(s, where, k) for k, s in enumerate(states)]
        elif (
            kind is dict
            or kind is MappingProxyType
            or isinstance(states, (Mapping, set, frozenset))
        ):
            return [self.read(states, where)]
        if isinstance(states, (str, bytes)) or not isinstance(states, Sequence) or not states:
            raise TraceError(
                "the proposition states of an action are one mapping, one set of the true "
                f"propositions, or a non-empty list of those, got {_show(states)}"
            )
        return [self.read(s, where, k) for k, s in enumerate(states)]

    def read(self, state: Any, where: str, index: int = 0) -> dict[str, bool]:
        """Read one state; ``where.format(index)`` names it in error messages."""
        kind = type(state)
        if kind is dict or kind is MappingProxyType or isinstance(state, Mapping):
            if kind is MappingProxyType:  # a read-only view (the shield's): its mapping
                state = state.copy()
            if type(state) is not dict:  # only the names it holds: a default (``__missing__``)
                state = {key: state[key] for key in state}  # must never answer for a name
            try:
                values = self._get(state)
            except KeyError:
                raise TraceError(self._missing(state, where.format(index))) from None
            if len(state) == len(values) and {*map(type, values)} <= _BOOL:
                return dict(zip(self.names, values))  # the fast path: no other key, all bools
            return self._mapping(state, values, where.format(index))
        if isinstance(state, _SETS):
            try:
                true = state if isinstance(state, (set, frozenset)) else frozenset(state)
                unknown = true - self.known
            except TypeError:
                raise TraceError(
                    f"{where.format(index)} must name propositions, got {_show(state)}"
                ) from None
            if unknown:
                raise TraceError(self._unknown(unknown, where.format(index)))
            out = dict.fromkeys(self.names, False)
            out.update(dict.fromkeys(true, True))
            return out
        raise TraceError(
            f"{where.format(index)} must be a mapping from propositions to True or False, or a "
            f"set of the true propositions, got {_show(state)}"
        )

    def _mapping(self, state: Mapping, values: tuple, where: str) -> dict[str, bool]:
        """The slow path of :meth:`read`: other keys, or values that are not Python bools."""
        for key, value in state.items():
            if type(value) is not bool and key not in self.known:
                _boolean(value, key, where)  # another proposition: a boolean too, then dropped
        return {a: _boolean(v, a, where) for a, v in zip(self.names, values)}

    def _missing(self, state: Mapping, where: str) -> str:
        missing = [a for a in self.names if a not in state]
        text = f"{where} has no value for {', '.join(missing)}"
        strays = [k for k in state if isinstance(k, str) and k not in self.known]
        close = [k for k in strays if close_names(k, missing, 1)]
        return text + (f" (it names {', '.join(close)}: a misspelling?)" if close else "")

    def _unknown(self, unknown: Iterable[Any], where: str) -> str:
        name = sorted(map(str, unknown))[0]
        hint = did_you_mean(name, self.names)
        if hint:
            fix = hint.removeprefix("; ")
        elif self.names:
            listed = ", ".join(self.names[:8]) + (", …" if len(self.names) > 8 else "")
            fix = f"the specification's propositions are {listed}"
        else:
            fix = "the specification has no propositions"
        return f"{where} names {name}, which is not a proposition of the specification; {fix}"


_BOOL = frozenset({bool})


def _boolean(value: Any, name: str, where: str) -> bool:
    """*value* as a Python bool if it is a ``bool`` or ``numpy.bool_``, else a TraceError."""
    kind = type(value)
    if kind is bool:
        return value
    numpy = sys.modules.get("numpy")  # numpy stays optional: only loaded if the caller did
    if numpy is not None and kind is numpy.bool_:
        return bool(value)
    raise TraceError(
        f"{where} gives {name} the value {_show(value)}, not a boolean: give True or False"
    )


def _show(value: Any, limit: int = 60) -> str:
    """A short ``repr`` of *value* with its type, safe for objects whose repr fails."""
    kind = type(value).__name__
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        return f"a {kind} object whose repr fails"
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"{text} (type {kind})"
