"""A direct evaluator of finite-trace LTL on a given trace, with no automata in it.

It is the oracle the tests and the experiments' safety metric rely on: each subformula gets a
truth vector over the positions, filled from the last position backwards by the textbook
semantics of LTLf (weak ``X`` true at the last position, strong ``X[!]`` false there).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..errors import TraceError
from ._formula import Formula
from ._parse import as_formula

__all__ = ["evaluate", "normalize_trace", "State", "Trace"]

#: One proposition state: the set of true atoms (absent atoms are false), or a mapping of atom
#: name to truth value (a mapping must give every atom the formula needs).
State = Mapping[str, bool] | Iterable[str]
Trace = Sequence[State]


def normalize_trace(trace: Trace, atoms: Iterable[str]) -> list[frozenset[str]]:
    """Turn *trace* into a list of sets of true atoms, restricted to *atoms*.

    Raises
    ------
    TraceError
        If the trace is empty, a state is neither a set nor a mapping, or a mapping lacks one
        of *atoms* (the message names the atom and the position).

    Examples
    --------
    >>> normalize_trace([{"a": True, "b": False}, ["b"]], ["a", "b"])
    [frozenset({'a'}), frozenset({'b'})]
    """
    if isinstance(trace, (str, bytes)) or not isinstance(trace, Sequence):
        raise TraceError(f"a trace is a list of proposition states, got {type(trace).__name__}")
    if not trace:
        raise TraceError("a trace must have at least one proposition state (position 0)")
    wanted = frozenset(atoms)
    out = []
    for i, state in enumerate(trace):
        if isinstance(state, Mapping):
            missing = sorted(wanted - state.keys())
            if missing:
                raise TraceError(
                    f"proposition state at position {i} has no value for {', '.join(missing)}"
                )
            out.append(frozenset(a for a in wanted if state[a]))
        elif isinstance(state, (str, bytes)) or not isinstance(state, Iterable):
            raise TraceError(
                f"proposition state at position {i} must be a set of true atoms or a mapping, "
                f"got {state!r}"
            )
        else:
            out.append(frozenset(state) & wanted)
    return out


def evaluate(formula: Formula | str, trace: Trace, position: int = 0) -> bool:
    """Whether *trace* satisfies *formula* (a Formula or its text) from *position* on
    (finite-trace semantics).

    Examples
    --------
    >>> from safetychip.ltl import parse
    >>> evaluate(parse("G(a -> X b)"), [[], ["a"]])        # weak next at the last position
    True
    >>> evaluate(parse("G(a -> X[!] b)"), [[], ["a"]])     # strong next
    False
    >>> evaluate(parse("!a W b"), [{"a": False, "b": False}, {"a": True, "b": True}])
    True
    """
    formula = as_formula(formula)
    states = normalize_trace(trace, formula.atoms())
    n = len(states)
    if not 0 <= position < n:
        raise TraceError(f"position {position} is outside a trace of length {n}")
    value: dict[Formula, list[bool]] = {}
    for f in formula.subformulas():
        kids = [value[c] for c in f.children]
        op = f.op
        if op == "ap":
            v = [f.name in s for s in states]
        elif op in ("true", "false"):
            v = [op == "true"] * n
        elif op == "!":
            v = [not x for x in kids[0]]
        elif op == "&":
            v = [all(col) for col in zip(*kids)]
        elif op == "|":
            v = [any(col) for col in zip(*kids)]
        elif op == "->":
            v = [(not a) or b for a, b in zip(*kids)]
        elif op == "<->":
            v = [a == b for a, b in zip(*kids)]
        elif op in ("X", "X[!]"):
            v = [*kids[0][1:], op == "X"]
        else:
            v = _backward(op, kids, n)
        value[f] = v
    return value[formula][position]


def _backward(op: str, kids: list[list[bool]], n: int) -> list[bool]:
    """Fill the truth vector of F, G, U, W, R or M from the end of the trace backwards."""
    # What the operator is "beyond the last position": G, W, R hold there; F, U, M do not.
    after = op in ("G", "W", "R")
    v = [False] * n
    for i in range(n - 1, -1, -1):
        if op == "F":
            after = kids[0][i] or after
        elif op == "G":
            after = kids[0][i] and after
        elif op in ("U", "W"):
            a, b = kids[0][i], kids[1][i]
            after = b or (a and after)
        else:  # R, M: b holds up to and including the first a
            a, b = kids[0][i], kids[1][i]
            after = b and (a or after)
        v[i] = after
    return v
