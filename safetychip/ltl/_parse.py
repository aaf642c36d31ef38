"""Parsers for Spot's infix syntax and the prefix syntax of Lang2LTL prompts.

Both parsers are iterative where input can nest (no ``RecursionError`` on hostile input) and
report errors with the position, a caret and what was expected. Text holding a bidirectional
control or a zero-width character (:mod:`safetychip._text`) is refused: it would not read as
what it parses to.
"""

from __future__ import annotations

import re
from collections import deque
from typing import TypeGuard

from .._text import hidden_character
from ..errors import FormulaSyntaxError, FormulaTooDeepError
from ._formula import (
    FALSE,
    MAX_DEPTH,
    TRUE,
    And,
    Formula,
    Not,
    Or,
    ap,
)
from ._print import PRECEDENCE

__all__ = ["as_formula", "parse", "parse_prefix", "SYNTAXES"]

SYNTAXES = ("spot", "prefix")

_SYMBOLS = [  # longest first
    ("<->", "<->"), ("<=>", "<->"), ("->", "->"), ("=>", "->"), ("X[!]", "X[!]"),
    ("&&", "&"), ("||", "|"), ("/\\", "&"), ("\\/", "|"), ("[]", "G"), ("<>", "F"),
    ("&", "&"), ("|", "|"), ("!", "!"), ("~", "!"), ("(", "("), (")", ")"),
]  # fmt: skip
_WORDS = {"U": "U", "W": "W", "R": "R", "M": "M", "V": "R", "true": "true", "false": "false",
          "TRUE": "true", "FALSE": "false", "0": "false", "1": "true",
          "X": "X", "F": "F", "G": "G"}  # fmt: skip
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CALL = re.compile(r"\s*\(\s*[A-Za-z0-9_.\-]+(?:\s*,\s*[A-Za-z0-9_.\-]+)*\s*\)")
_OPRUN = re.compile(r"([FGX]+)(?=$|[a-z_(\"!~\[\s])")
_SPACE = re.compile(r"\s+")
_NUMBER = re.compile(r"[01](?![A-Za-z0-9_])")

_UNARY = {"!", "X", "X[!]", "F", "G"}
_BINARY = {"&", "|", "->", "<->", "U", "W", "R", "M"}
_RIGHT_ASSOC = {"->", "<->", "U", "W", "R", "M"}


def _tokens(text: str, syntax: str) -> list[tuple[str, str, int]]:
    """Split *text* into ``(kind, value, position)``; kinds: op, atom, (, ), end."""
    hidden = hidden_character(text)
    if hidden is not None:  # even inside a quoted atom, where any other character may be
        position, name = hidden
        expected = f"visible text, not {name} (it hides or reorders what is shown: delete it)"
        raise FormulaSyntaxError(text, position, expected, syntax)
    out: list[tuple[str, str, int]] = []
    i, n = 0, len(text)
    while i < n:
        m = _SPACE.match(text, i)
        if m:
            i = m.end()
            continue
        if text[i] == '"':
            j = text.find('"', i + 1)
            if j < 0:
                raise FormulaSyntaxError(text, i, 'a closing " for this atom', syntax)
            if j == i + 1:
                raise FormulaSyntaxError(text, i, "a non-empty atom name inside quotes", syntax)
            out.append(("atom", text[i + 1 : j], i))
            i = j + 1
            continue
        for symbol, op in _SYMBOLS:
            if text.startswith(symbol, i):
                kind = op if op in "()" else "op"
                out.append((kind, op, i))
                i += len(symbol)
                break
        else:
            m = _NUMBER.match(text, i)
            if m:
                out.append(("op", _WORDS[m.group()], i))
                i = m.end()
                continue
            m = _IDENT.match(text, i)
            if not m:
                raise FormulaSyntaxError(text, i, "an operator, an atom or '('", syntax)
            word = m.group()
            call = _CALL.match(text, m.end())
            if syntax == "prefix" and word in ("i", "e") and not call:
                out.append(("op", "->" if word == "i" else "<->", i))
                i = m.end()
                continue
            if word in _WORDS:
                out.append(("op", _WORDS[word], i))
                i = m.end()
                continue
            run = _OPRUN.match(word) if syntax == "Spot" else None
            if run:
                # Spot reads GFa as G(F(a)) and Xc as X(c).
                for k, letter in enumerate(run.group(1)):
                    out.append(("op", letter, i + k))
                i += len(run.group(1))
                if i < m.end() or text.startswith("[!]", i):
                    if text.startswith("[!]", i) and out[-1][1] == "X":
                        out[-1] = ("op", "X[!]", out[-1][2])
                        i += 3
                continue
            end = call.end() if call else m.end()
            out.append(("atom", text[i:end], i))
            i = end
    out.append(("end", "", n))
    return out


def _check_depth(text: str, position: int, depth: int, syntax: str) -> None:
    if depth > MAX_DEPTH:
        raise FormulaTooDeepError(
            f"cannot parse {syntax} formula: nesting deeper than {MAX_DEPTH} at position "
            f"{position}\n  {text[:80]}{'…' if len(text) > 80 else ''}"
        )


class _Chain:
    """The operands of an n-ary ``&`` or ``|`` being read, built into one formula only when an
    enclosing operator or the end of input needs it (:func:`_built`).

    Building ``a & b & c …`` pair by pair would copy every operand read so far at each step
    (:func:`And` flattens its operands), which is quadratic in their number; a chain adds each
    operand in O(1) at either end, so the prefix syntax (read right to left) gains too.
    ``depth`` is the depth of the formula the chain will become.
    """

    __slots__ = ("depth", "items", "op")

    def __init__(self, op: str, items: deque[Formula], depth: int) -> None:
        self.op, self.items, self.depth = op, items, depth


Operand = Formula | _Chain


def _built(operand: Operand) -> Formula:
    if isinstance(operand, _Chain):
        return (And if operand.op == "&" else Or)(*operand.items)
    return operand


def _extends(operand: Operand, op: str) -> TypeGuard[_Chain]:
    return isinstance(operand, _Chain) and operand.op == op


def _depth(op: str, args: list[Operand]) -> int:
    """Depth of the formula that ``_apply(op, args)`` stands for."""
    return max(a.depth if _extends(a, op) else a.depth + 1 for a in args)


def _apply(op: str, args: list[Operand]) -> Operand:
    """*op* applied to *args*; ``&`` and ``|`` give (or extend) a :class:`_Chain`."""
    if op not in ("&", "|"):
        built = [_built(a) for a in args]
        return Not(built[0]) if op == "!" else Formula(op, tuple(built))
    depth = _depth(op, args)
    left, right = args
    if _extends(left, op) and _extends(right, op):
        left.items.extend(right.items)
    elif _extends(left, op):
        left.items.append(_built(right))
    elif _extends(right, op):
        right.items.appendleft(_built(left))
        left = right
    else:
        left = _Chain(op, deque([_built(left), _built(right)]), depth)
    left.depth = depth
    return left


def _atom(value: str) -> Formula:
    return ap(value)


def as_formula(value: Formula | str, name: str = "formula") -> Formula:
    """*value* as a formula: itself, or its text in Spot's syntax parsed.

    Parameters
    ----------
    value : Formula or str
        What the caller was given.
    name : str
        How messages name the argument.

    Raises
    ------
    TypeError
        If *value* is neither a Formula nor a string.
    FormulaSyntaxError
        If the text does not parse.

    Examples
    --------
    >>> as_formula("G !a")
    Formula('G!a')
    >>> as_formula(3, "f")
    Traceback (most recent call last):
    ...
    TypeError: f must be a Formula or formula text such as 'G !a', got int 3
    """
    if isinstance(value, Formula):
        return value
    if isinstance(value, str):
        return parse(value)
    raise TypeError(f"{name} must be a Formula or formula text such as 'G !a', got "
                    f"{type(value).__name__} {value!r:.60}")  # fmt: skip


def parse(text: str) -> Formula:
    """Parse a formula in Spot's infix syntax.

    Accepts ``! & | -> <-> X X[!] F G U W R M``, ``true``/``false`` (also ``1``/``0``),
    parentheses, double-quoted atoms, and predicate atoms written bare. ``GFa`` reads as
    ``G(F(a))``, as in Spot.

    Raises
    ------
    FormulaSyntaxError
        With the position, a caret and what was expected.
    FormulaTooDeepError
        If the input nests deeper than :data:`MAX_DEPTH`.

    Examples
    --------
    >>> parse("G !is_grabbed(phone)")
    Formula('G!"is_grabbed(phone)"')
    >>> parse('G("is_on(book, book_shelf)" -> Fb)')
    Formula('G("is_on(book,book_shelf)" -> Fb)')
    >>> parse("a U")
    Traceback (most recent call last):
    ...
    safetychip.errors.FormulaSyntaxError: cannot parse Spot formula: expected an operand at
    position 3, found end of input
      a U
         ^
    """
    if not isinstance(text, str):
        raise FormulaSyntaxError(str(text), 0, "formula text (a string)")
    if not text.strip():
        raise FormulaSyntaxError(text, 0, "a formula")
    tokens = _tokens(text, "Spot")
    # Shunting-yard with explicit stacks: operands, and operators with their position.
    operands: list[Operand] = []
    operators: list[tuple[str, int]] = []  # op or "(" ; position
    depth = 0
    expect_operand = True

    def reduce_once() -> None:
        op, _ = operators.pop()
        if op in _UNARY:
            operands.append(_apply(op, [operands.pop()]))
        else:
            right = operands.pop()
            operands.append(_apply(op, [operands.pop(), right]))

    for kind, value, pos in tokens:
        if expect_operand:
            if kind == "atom":
                operands.append(_atom(value))
                expect_operand = False
            elif kind == "op" and value in ("true", "false"):
                operands.append(TRUE if value == "true" else FALSE)
                expect_operand = False
            elif kind == "op" and value in _UNARY:
                operators.append((value, pos))
                depth += 1
                _check_depth(text, pos, depth, "Spot")
            elif kind == "(":
                operators.append(("(", pos))
                depth += 1
                _check_depth(text, pos, depth, "Spot")
            else:
                raise FormulaSyntaxError(text, pos, "an operand")
            if not expect_operand:
                # An operand closes every pending unary operator right before it.
                while operators and operators[-1][0] in _UNARY:
                    reduce_once()
                    depth -= 1
            continue
        if kind == "op" and value in _BINARY:
            prec = PRECEDENCE[value]
            while operators and operators[-1][0] != "(":
                top = operators[-1][0]
                top_prec = PRECEDENCE[top]
                if top_prec > prec or (top_prec == prec and value not in _RIGHT_ASSOC):
                    reduce_once()
                else:
                    break
            operators.append((value, pos))
            expect_operand = True
        elif kind == ")":
            while operators and operators[-1][0] != "(":
                reduce_once()
            if not operators:
                raise FormulaSyntaxError(text, pos, "an operator or end of input (unbalanced ')')")
            operators.pop()
            depth -= 1
            while operators and operators[-1][0] in _UNARY:
                reduce_once()
                depth -= 1
        elif kind == "end":
            while operators:
                if operators[-1][0] == "(":  # the caret at the end, the '(' named
                    opened = operators[-1][1]
                    expected = f"')' (the '(' at position {opened} is never closed)"
                    raise FormulaSyntaxError(text, len(text), expected)
                reduce_once()
            return _built(operands[0])
        else:
            raise FormulaSyntaxError(text, pos, "a binary operator, ')' or end of input")
    raise AssertionError("unreachable: the token list ends with 'end'")


def parse_prefix(text: str) -> Formula:
    """Parse the prefix syntax of Lang2LTL prompts.

    Operators come before their operands: ``! X F G`` take one, ``& | i e U W R M`` (also
    ``-> <->``) take two; ``i`` is implication and ``e`` equivalence. Predicate atoms may be
    spaced as the paper prints them.

    Examples
    --------
    >>> parse_prefix("W ! agent_at (bedside_table) agent_at ( book_shelf)")
    Formula('!"agent_at(bedside_table)" W "agent_at(book_shelf)"')
    >>> parse_prefix("G i a F b")
    Formula('G(a -> Fb)')
    """
    if not isinstance(text, str):
        raise FormulaSyntaxError(str(text), 0, "formula text (a string)", "prefix")
    if not text.strip():
        raise FormulaSyntaxError(text, 0, "a formula", "prefix")
    tokens = _tokens(text, "prefix")[:-1]
    for kind, _, pos in tokens:
        if kind in "()":
            raise FormulaSyntaxError(text, pos, "an operator or an atom (no parentheses)", "prefix")
    # Read right to left: operands are pushed, operators pop their arity.
    stack: list[Operand] = []
    for kind, value, pos in reversed(tokens):
        if kind == "atom":
            stack.append(_atom(value))
        elif value in ("true", "false"):
            stack.append(TRUE if value == "true" else FALSE)
        else:
            arity = 1 if value in _UNARY else 2
            if len(stack) < arity:
                raise FormulaSyntaxError(text, pos, f"{arity} operand(s) after {value!r}", "prefix")
            args = [stack.pop() for _ in range(arity)]
            _check_depth(text, pos, _depth(value, args), "prefix")
            stack.append(_apply(value, args))
    if len(stack) != 1:
        # The second formula from the left starts where the first complete one ends.
        extra = _first_extra(tokens)
        raise FormulaSyntaxError(text, extra, "end of input (one formula only)", "prefix")
    return _built(stack[0])


def _first_extra(tokens: list[tuple[str, str, int]]) -> int:
    need = 1
    for kind, value, pos in tokens:
        if need == 0:
            return pos
        need += (
            -1 if kind == "atom" or value in ("true", "false") else (0 if value in _UNARY else 1)
        )
    return tokens[-1][2] if tokens else 0
