"""Recognising which specification pattern a formula instantiates, from its shape.

Used to name the pattern of a formula an LLM wrote or a person edited, and to pick the
English template of the back-translation. Patterns are matched structurally (formulas are
interned, so a candidate instance is compared by identity).

Examples
--------
>>> from safetychip.ltl import parse, at_most
>>> match_pattern(parse('!"agent_at(k)" W "agent_at(b)"'))
('not_before', (Formula('"agent_at(k)"'), Formula('"agent_at(b)"')))
>>> match_pattern(at_most(2, "a"))
('at_most', (2, Formula('a')))
>>> match_pattern(parse("G(a -> (b | c))")) is None
True
"""

from __future__ import annotations

from itertools import permutations

from ..ltl import MISSIONS, PATTERNS, Formula, Not
from ._reading import no_double_negation

__all__ = ["match_pattern"]

_MAX_COUNT = 9


def _literals(f: Formula) -> list[Formula]:
    """Atoms and negated atoms of *f*, in order of first appearance."""
    literal = [
        s for s in f.subformulas() if s.op == "ap" or (s.op == "!" and s.children[0].op == "ap")
    ]
    return list(dict.fromkeys(literal))


def match_pattern(formula: Formula) -> tuple[str, tuple] | None:
    """The pattern and arguments of *formula*, or None."""
    literals = _literals(formula)
    atoms = [x for x in literals if x.op == "ap"]
    candidates = literals + [Not(a) for a in atoms if Not(a) not in literals]
    for name in ("never", "at_most", "at_least", "exactly"):
        build = PATTERNS[name].build
        for p in candidates:
            if name == "never":
                if build(p) is formula:
                    return name, (p,)
                continue
            for n in range(0 if name == "at_most" else 1, _MAX_COUNT + 1):
                if build(n, p) is formula:
                    return name, (n, p)
    for name in ("not_before", "before", "response", "immediate_response", "absence_after"):
        build = PATTERNS[name].build
        for p, q in permutations(candidates, 2):
            if build(p, q) is formula:
                return name, (p, q)
        for p in candidates:
            if build(p, p) is formula:
                return name, (p, p)
    # the state conditions before G(p -> q), which reads "!q" as "while p, not q"
    for name in sorted(MISSIONS, key=lambda n: n == "instantaneous_reaction"):
        build = MISSIONS[name].build
        if name in ("visit", "patrolling"):
            if any(build(p) is formula for p in candidates):
                return name, (next(p for p in candidates if build(p) is formula),)
        elif name != "bounded_delay":
            for p, q in permutations(candidates, 2):
                if name.startswith("avoid_") and "!" in (p.op, q.op):
                    continue  # "unless c", not "while not c"; a state to avoid, not to keep
                if name == "instantaneous_reaction" and q.op == "!":
                    continue
                if no_double_negation(build(p, q)) is formula:
                    return name, (p, q)
    return None
