"""Printing formulas in Spot's infix syntax, the Lang2LTL prefix syntax and LaTeX."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:  # the formula class imports this module to print itself
    from ._formula import Formula

__all__ = ["to_str", "FORMATS", "PRECEDENCE"]

#: Binding strength in Spot's infix syntax (higher binds tighter).
PRECEDENCE = {
    "->": 1, "<->": 1, "|": 2, "&": 3, "U": 4, "W": 4, "R": 4, "M": 4,
    "!": 5, "X": 5, "X[!]": 5, "F": 5, "G": 5, "ap": 6, "true": 6, "false": 6,
}  # fmt: skip

FORMATS = ("spot", "prefix", "latex")

_BARE = re.compile(r"[a-z_][a-zA-Z0-9_]*")
_RESERVED = {"true", "false", "xor", "i", "e"}

_PREFIX_OPS = {"->": "i", "<->": "e"}
# An atom prints bare in prefix syntax when it reads back as that atom: an identifier or a
# predicate call whose name is not an operator or constant word of the prefix parser.
_PREFIX_BARE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\([A-Za-z0-9_.\-]+(?:,[A-Za-z0-9_.\-]+)*\))?")
_PREFIX_WORDS = {"i", "e", "U", "W", "R", "M", "V", "X", "F", "G", "true", "false", "TRUE",
                 "FALSE"}  # fmt: skip
_LATEX_OPS = {
    "!": r"\neg ", "X": r"\mathsf{X}\,", "X[!]": r"\mathsf{X}^{!}\,", "F": r"\mathsf{F}\,",
    "G": r"\mathsf{G}\,", "&": r" \land ", "|": r" \lor ", "->": r" \rightarrow ",
    "<->": r" \leftrightarrow ", "U": r" \mathbin{\mathsf{U}} ", "W": r" \mathbin{\mathsf{W}} ",
    "R": r" \mathbin{\mathsf{R}} ", "M": r" \mathbin{\mathsf{M}} ",
}  # fmt: skip


def _atom_spot(name: str) -> str:
    if _BARE.fullmatch(name) and name not in _RESERVED:
        return name
    return '"' + name + '"'


def _atom_prefix(name: str) -> str:
    m = _PREFIX_BARE.fullmatch(name)
    if m and m.group(1) not in _PREFIX_WORDS:
        return name
    return '"' + name + '"'


def _atom_latex(name: str) -> str:
    return r"\mathit{" + name.replace("_", r"\_").replace(",", ",\\,") + "}"


def _infix(f: Formula, latex: bool) -> str:
    if f.op == "ap":
        name = cast(str, f.name)  # an atom has a name
        return _atom_latex(name) if latex else _atom_spot(name)
    if f.op in ("true", "false"):
        return (r"\top" if f.op == "true" else r"\bot") if latex else f.op
    parts = []
    for child in f.children:
        text = _infix(child, latex)
        # As Spot prints: an operand is bare only if it is an atom or starts with a unary
        # operator, so a & (b U c) and a U (b U c) read without knowing the precedences.
        parts.append(text if PRECEDENCE[child.op] >= 5 else f"({text})")
    if len(parts) == 1:
        symbol = _LATEX_OPS[f.op] if latex else f.op
        return symbol + parts[0]
    symbol = _LATEX_OPS[f.op] if latex else f" {f.op} "
    return symbol.join(parts)


def _prefix(f: Formula) -> str:
    out: list[str] = []
    stack = [f]
    while stack:
        node = stack.pop()
        if node.op == "ap":
            out.append(_atom_prefix(cast(str, node.name)))  # an atom has a name
        elif node.op in ("true", "false"):
            out.append(node.op)
        else:
            symbol = _PREFIX_OPS.get(node.op, node.op)
            # n-ary & and | print as nested binary operators.
            out.extend([symbol] * max(1, len(node.children) - 1))
            stack.extend(reversed(node.children))
    return " ".join(out)


def to_str(f: Formula, format: str = "spot") -> str:
    """Print *f* as ``"spot"`` (infix), ``"prefix"`` (Lang2LTL) or ``"latex"``.

    Examples
    --------
    >>> from safetychip.ltl import parse
    >>> f = parse('!agent_at(bedside_table) W agent_at(book_shelf)')
    >>> to_str(f)
    '!"agent_at(bedside_table)" W "agent_at(book_shelf)"'
    >>> to_str(f, "prefix")
    'W ! agent_at(bedside_table) agent_at(book_shelf)'
    >>> to_str(parse("a U (b U c)"))
    'a U (b U c)'
    """
    key = format.lower() if isinstance(format, str) else format
    if key == "spot":
        return _infix(f, latex=False)
    if key == "latex":
        return _infix(f, latex=True)
    if key == "prefix":
        return _prefix(f)
    raise ValueError(f"unknown formula format {format!r}; choose one of {', '.join(FORMATS)}")
