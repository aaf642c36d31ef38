"""safetychip: make LLM-driven robot agents obey safety constraints written in English.

The names notebooks use are re-exported here; heavy parts load on first use.

Examples
--------
>>> import safetychip as sc
>>> m = sc.Monitor([sc.never("is_grabbed(phone)")])
>>> m.reset(set()).safe, m.check({"is_grabbed(phone)"}).violated
(True, ('c1',))
"""

from typing import Any

from ._display import display_widget, use_figure_text
from ._fold import Folded
from ._public import publish
from ._short_errors import use_short_errors
from .automata import DFA, Product, counterexample, equivalent, includes, to_dfa
from .errors import SafetyChipError
from .ltl import (
    PATTERNS,
    Formula,
    Proposition,
    absence_after,
    ap,
    at_least,
    at_most,
    before,
    evaluate,
    exactly,
    immediate_response,
    never,
    not_before,
    parse,
    parse_prefix,
    response,
)
from .monitor import Constraint, Monitor, Specification, Status, Verdict, exactly_one

__version__ = "0.1.0"

# Loaded on first use (the environments, agents and translator pull in more).
_LAZY = {
    "Shield": "shield", "TraceRecord": "shield", "run_monitored": "shield",
    "run_unmonitored": "shield", "Env": "envs", "PropositionEnv": "envs",
    "VirtualHomeEnv": "envs", "load_tasks": "envs", "task_monitor": "envs",
    "Chip": "agents", "make_agent": "agents", "Translator": "translate",
}  # fmt: skip


def __getattr__(name: str) -> object:
    """Import the heavier parts of the public API on first use."""
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'safetychip' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext safetychip``: in this notebook, a matplotlib figure's plain text names what
    it shows (:func:`~safetychip._display.use_figure_text`), and an error of the library's
    tree shows as its message, not a traceback (:func:`~safetychip._short_errors.
    use_short_errors`; ``%tb`` prints the full one). ``import safetychip`` alone imports no
    IPython and installs no formatter."""
    use_figure_text(ipython)
    use_short_errors(ipython)


__all__ = [
    "DFA", "PATTERNS", "Constraint", "Formula", "Monitor", "Product", "Proposition",
    "SafetyChipError", "Specification", "Status", "Verdict", "absence_after", "ap",
    "at_least", "at_most", "before", "counterexample", "equivalent", "evaluate", "exactly",
    "exactly_one", "immediate_response", "includes", "never", "not_before", "parse",
    "parse_prefix", "response", "to_dfa", "display_widget", "Folded",
    # loaded on first use
    "Chip", "Env", "PropositionEnv", "Shield", "TraceRecord", "Translator", "VirtualHomeEnv",
    "load_tasks", "make_agent", "run_monitored", "run_unmonitored", "task_monitor",
]  # fmt: skip

publish(__name__, globals(), __all__)
