"""The library's errors shown short in IPython: the message, not a traceback.

An error of the library's tree (:class:`~safetychip.errors.SafetyChipError`) already says
what was read, why it failed and what to try; the frames of the library's internals above
it tell a student nothing more. Once :func:`use_short_errors` is on (``%load_ext
safetychip``), a cell that raises one shows its class name and message and a line saying
where the full traceback is (``%tb``, which IPython keeps). Any other error keeps IPython's
full traceback, and the cell still counts as failed (nbval, nbconvert and JupyterLab's "Run
All" see an error).

Examples
--------
>>> from safetychip.errors import TraceError
>>> print(short_error(TraceError("an empty trace: a trace has at least one state")))
TraceError: an empty trace: a trace has at least one state
(safetychip.errors.TraceError; %tb shows the full traceback)
"""

from __future__ import annotations

from typing import Any

from .errors import SafetyChipError

__all__ = ["short_error", "use_short_errors"]

#: How the name is coloured in a notebook (IPython's red for an exception's name).
_RED, _RESET = "\x1b[0;31m", "\x1b[0m"


def short_error(err: BaseException, *, color: bool = False) -> str:
    r"""*err* as a few lines: its class name and message, then where the traceback is.

    Examples
    --------
    >>> short_error(ValueError(), color=True).splitlines()[0]
    '\x1b[0;31mValueError\x1b[0m: '
    """
    cls = type(err)
    name = f"{_RED}{cls.__name__}{_RESET}" if color else cls.__name__
    return f"{name}: {err}\n({cls.__module__}.{cls.__qualname__}; %tb shows the full traceback)"


def _handler(
    shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any = None
) -> list[str]:
    """IPython's custom exception handler: keep the exception for ``%tb`` (``sys.last_*``) and
    show it short, as the cell's error (ename, evalue and a one-entry traceback)."""
    shell._get_exc_info((etype, value, tb))
    stb = [short_error(value, color=True)]
    shell._showtraceback(etype, value, stb)
    return stb


def use_short_errors(shell: Any = None) -> None:
    """In a running IPython (*shell*, default: the current one), show every
    :class:`~safetychip.errors.SafetyChipError` a cell raises as :func:`short_error`;
    elsewhere do nothing. ``%tb`` still prints the full traceback of the last one.

    Examples
    --------
    >>> use_short_errors()  # outside IPython: nothing to do
    """
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
    if shell is None:
        return
    shell.set_custom_exc((SafetyChipError,), _handler)
