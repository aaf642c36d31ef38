"""safetychip: make LLM-driven robot agents obey safety constraints written in English.

The names notebooks use are re-exported here; heavy parts load on first use.

Examples
--------
>>> import safetychip as sc
>>> m = sc.Monitor([sc.never("is_grabbed(phone)")])
>>> m.reset(set()).safe, m.check({"is_grabbed(phone)"}).violated
(True, ('c1',))
"""

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
from .monitor import Constraint, Monitor, Status, Verdict, exactly_one

__version__ = "0.1.0"

__all__ = [
    "DFA", "PATTERNS", "Constraint", "Formula", "Monitor", "Product", "Proposition",
    "SafetyChipError", "Status", "Verdict", "absence_after", "ap", "at_least", "at_most",
    "before", "counterexample", "equivalent", "evaluate", "exactly", "exactly_one",
    "immediate_response", "includes", "never", "not_before", "parse", "parse_prefix",
    "response", "to_dfa",
]  # fmt: skip
