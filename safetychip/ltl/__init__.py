"""Finite-trace LTL: formulas, propositions, parsers, printer, patterns and a trace evaluator.

Examples
--------
>>> from safetychip import ltl
>>> f = ltl.parse("G(is_open(fridge) -> F !is_open(fridge))")
>>> f
Formula('G("is_open(fridge)" -> F!"is_open(fridge)")')
>>> ltl.evaluate(f, [[], ["is_open(fridge)"], []])
True
"""

from safetychip._public import publish

from ._evaluate import State, Trace, evaluate, normalize_trace
from ._formula import (
    FALSE,
    MAX_DEPTH,
    PREDICATES,
    TRUE,
    XS,
    And,
    Equiv,
    F,
    Formula,
    G,
    Implies,
    M,
    Not,
    Or,
    Proposition,
    R,
    U,
    W,
    X,
    ap,
    canonical_atom,
)
from ._parse import SYNTAXES, as_formula, parse, parse_prefix
from ._patterns import (
    MISSIONS,
    PATTERNS,
    Pattern,
    absence_after,
    absence_from,
    at_least,
    at_most,
    before,
    build_pattern,
    exactly,
    immediate_response,
    never,
    next_response,
    not_before,
    pattern_family,
    random_patterns,
    response,
)
from ._print import FORMATS, to_str

__all__ = [
    "FALSE", "FORMATS", "MAX_DEPTH", "MISSIONS", "PATTERNS", "PREDICATES", "SYNTAXES", "TRUE",
    "And", "Equiv", "F", "Formula", "G", "Implies", "M", "Not", "Or", "Pattern", "Proposition",
    "R", "State", "Trace", "U", "W", "X", "XS",
    "absence_after", "absence_from", "ap", "as_formula", "at_least", "at_most", "before",
    "build_pattern",
    "canonical_atom",
    "evaluate", "exactly", "immediate_response", "never", "next_response", "normalize_trace",
    "not_before", "parse", "parse_prefix", "pattern_family", "random_patterns", "response",
    "to_str",
]  # fmt: skip

publish(__name__, globals(), __all__)
