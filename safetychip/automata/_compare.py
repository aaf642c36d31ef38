"""Language inclusion and equivalence of finite-trace LTL formulas (used to grade translations)."""

from __future__ import annotations

from collections import deque

from ..ltl import Formula, as_formula
from ._build import to_dfa
from ._guards import Guard, pick_letter
from ._product import Product, ProductState

__all__ = ["counterexample", "includes", "equivalent"]


def counterexample(
    f: Formula | str, g: Formula | str, *, direction: str = "both"
) -> list[frozenset[str]] | None:
    """A shortest trace on which *f* and *g* (Formulas or their text) disagree, or None.

    ``direction="left"`` looks only for traces satisfying f but not g (so None means
    L(f) ⊆ L(g)); ``"right"`` the converse; ``"both"`` either.

    Examples
    --------
    >>> from safetychip.ltl import parse
    >>> [sorted(s) for s in counterexample(parse("G(a -> X b)"), parse("G(a -> X[!] b)"))]
    [['a']]
    """
    if direction not in ("both", "left", "right"):
        raise ValueError(f"direction must be 'both', 'left' or 'right', got {direction!r}")
    a, b = to_dfa(as_formula(f, "f")), to_dfa(as_formula(g, "g"))
    product = Product([a, b])

    def differs(s) -> bool:
        fa, fb = a.accepting[s[0]], b.accepting[s[1]]
        return {"both": fa != fb, "left": fa and not fb, "right": fb and not fa}[direction]

    start = product.initial
    parent: dict[ProductState, tuple[ProductState, Guard] | None] = {start: None}
    todo = deque([start])
    while todo:
        s = todo.popleft()
        for t, guard in product.successors(s, live_only=False):
            if t in parent:
                continue
            parent[t] = (s, guard)
            if differs(t):
                path: list[frozenset[str]] = []
                while (step := parent[t]) is not None:
                    t, g2 = step
                    letter = pick_letter(g2, product.atoms)
                    assert letter is not None, "a product's edge has a non-empty guard"
                    path.append(letter)
                return path[::-1]
            todo.append(t)
    return None


def includes(f: Formula | str, g: Formula | str) -> bool:
    """Whether every trace satisfying *g* satisfies *f* (L(g) ⊆ L(f))."""
    return counterexample(g, f, direction="left") is None


def equivalent(f: Formula | str, g: Formula | str) -> bool:
    """Whether *f* and *g* (Formulas or their text) accept exactly the same non-empty finite
    traces."""
    if f is g:
        return True
    return counterexample(f, g) is None
