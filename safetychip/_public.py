"""The public face of a package: the module its exported classes report, and old names kept
for one release.

A package's modules are private (``safetychip/monitor/_monitor.py``); its API is its
``__all__``. :func:`publish` makes each exported class report the package as its
``__module__`` (``safetychip.monitor.Monitor``, not ``safetychip.monitor._monitor.Monitor``),
so reprs, help and pickles name the public path. :func:`deprecated_aliases` gives a package a
module ``__getattr__`` that still answers to renamed names, with a
:class:`DeprecationWarning`.

Examples
--------
>>> from safetychip.monitor import Monitor
>>> Monitor.__module__
'safetychip.monitor'
>>> import warnings
>>> from safetychip import agents
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     old = agents.Episode
>>> old is agents.AgentEpisode, str(caught[0].message)
(True, 'safetychip.agents.Episode is deprecated; use safetychip.agents.AgentEpisode')
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["deprecated_aliases", "publish"]


def publish(package: str, namespace: Mapping[str, Any], names: Iterable[str]) -> None:
    """Make each class among *names* that a private module of *package* defines report
    *package* as its module; so do the functions defined in its body.

    A class already published by a subpackage keeps that subpackage's name. The methods
    move with their class so that ``--doctest-modules`` still finds their examples (in the
    package's ``__init__``).

    Parameters
    ----------
    package : str
        The package's name (its ``__name__``).
    namespace : mapping
        Its globals.
    names : iterable of str
        Its ``__all__``.
    """
    for name in names:
        value = namespace.get(name)
        if not inspect.isclass(value):
            continue
        origin = value.__module__
        if not origin.startswith(package + "._"):
            continue
        value.__module__ = package
        for member in vars(value).values():
            for function in _functions(member):
                if getattr(function, "__module__", None) == origin:
                    function.__module__ = package


def _functions(member: Any) -> list[Any]:
    """The functions behind a class attribute (a method, static or class method, property)."""
    if isinstance(member, (staticmethod, classmethod)):
        return [member.__func__]
    if isinstance(member, property):
        return [f for f in (member.fget, member.fset, member.fdel) if f is not None]
    return [member] if inspect.isfunction(member) else []


def deprecated_aliases(package: str, renamed: Mapping[str, str],
                       namespace: Mapping[str, Any]) -> Callable[[str], Any]:  # fmt: skip
    """A module ``__getattr__`` for *package* that answers each old name of *renamed* with
    the object under its new name, warning that the old name is deprecated.

    Parameters
    ----------
    package : str
        The package's name.
    renamed : mapping of str to str
        Old name to new name.
    namespace : mapping
        The package's globals, where the new names are.

    Raises
    ------
    AttributeError
        From the returned function, for a name that is neither (as Python expects).
    """

    def __getattr__(name: str) -> Any:
        if name in renamed:
            warnings.warn(
                f"{package}.{name} is deprecated; use {package}.{renamed[name]}",
                DeprecationWarning,
                stacklevel=2,
            )
            return namespace[renamed[name]]
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
