"""A sandbox for Code-as-Policies programs, built on :mod:`ast`: checked, then interpreted.

The program is parsed with :func:`ast.parse` and every node is checked against a small
language before anything runs (:func:`check_program`):

* statements: expressions, assignments to names, ``for`` over a value, ``while``, ``if``,
  ``pass``, ``break``, ``continue``;
* expressions: calls of the given skills (positional arguments only), literals (strings,
  numbers, booleans, None, lists and tuples of them), names, comparisons, ``and``/``or``/
  ``not``, unary minus.

Everything else is refused with a :class:`~safetychip.errors.SandboxError` that names the
line and the construct: imports, attributes (``x.__class__``), names with double
underscores, calls of anything but a skill (``eval``, ``exec``, ``open`` of a file,
``__import__``…), indexing, arithmetic, function and class definitions, ``with``, ``try``,
``global``, lambdas and comprehensions. The checked program is then **interpreted** node by
node (never ``exec``-ed), with a budget of interpreter steps, of skill calls and of seconds:
a program that loops forever stops with a :class:`~safetychip.errors.ProgramBudgetError`.

Budgets between steps cannot stop a single step that runs for minutes (comparing two lists
that doubled forty times, or the ``repr`` a skill takes of one), nor a recursion that
overflows the stack. So every single step is bounded too, by bounding its input:

* the program: at most :data:`MAX_PROGRAM_CHARS` characters, nested at most
  :data:`MAX_NESTING` levels (expressions in expressions, blocks in blocks), so parsing and
  interpreting recurse boundedly;
* every value the program holds (a literal, a list it builds, what a skill returns) and the
  arguments of every skill call: at most :data:`MAX_VALUE_SIZE` list elements and string
  characters in all, counting a shared part each time it occurs, with lists nested at most
  :data:`MAX_VALUE_DEPTH` deep, numbers within ±2**63, and only strings, numbers,
  booleans, None, lists and tuples.

Comparing, iterating or printing such a value costs at most about :data:`MAX_VALUE_SIZE`
elementary operations, so the checks between steps hold to within milliseconds. Every
refusal is a :class:`~safetychip.errors.SandboxError` naming the line and the fix; the
sandbox runs in the caller's process (skills call back into the environment), which is
why it bounds values rather than the process.

Examples
--------
>>> calls = []
>>> skills = {"go_to": lambda place: calls.append(place) or True}
>>> run_program('''for room in ["kitchen", "bedroom"]:
...     go_to(room)''', skills).calls
2
>>> calls
['kitchen', 'bedroom']
>>> run_program("import os", skills)
Traceback (most recent call last):
...
safetychip.errors.SandboxError: line 1: import is not allowed: a program may only call the \
skills go_to
>>> run_program('''while True:
...     pass''', skills, max_steps=100)
Traceback (most recent call last):
...
safetychip.errors.ProgramBudgetError: line 1: the program ran past its budget of 100 \
interpreter steps (an endless loop?)
>>> run_program('''rooms = ["kitchen"]
... for twice in "abcdefghijklmnopqrstuvwxyz":
...     rooms = [rooms, rooms]''', skills)
Traceback (most recent call last):
...
safetychip.errors.SandboxError: line 3: the list is too big: more than 10,000 list elements \
and characters in all (keep values small; a list that doubles in a loop outgrows any limit)
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ProgramBudgetError, SandboxError

__all__ = [
    "MAX_NESTING",
    "MAX_PROGRAM_CHARS",
    "MAX_VALUE_DEPTH",
    "MAX_VALUE_SIZE",
    "ProgramRun",
    "check_program",
    "run_program",
]

#: Characters a program may have (a model's program is a few hundred).
MAX_PROGRAM_CHARS = 50_000
#: Levels a program may nest: a node of its syntax tree within this many others.
MAX_NESTING = 50
#: List elements and string characters a value (or a skill call's arguments) may hold in all.
MAX_VALUE_SIZE = 10_000
#: Levels of lists within lists a value may have.
MAX_VALUE_DEPTH = 20

_REFUSED = {
    ast.Import: "import is not allowed",
    ast.ImportFrom: "import is not allowed",
    ast.Attribute: "attribute access ('.{attr}') is not allowed",
    ast.Subscript: "indexing is not allowed",
    ast.BinOp: "arithmetic is not allowed (loop over a list instead)",
    ast.AugAssign: "arithmetic is not allowed (loop over a list instead)",
    ast.FunctionDef: "defining functions is not allowed",
    ast.AsyncFunctionDef: "defining functions is not allowed",
    ast.Lambda: "lambda is not allowed",
    ast.ClassDef: "defining classes is not allowed",
    ast.With: "'with' is not allowed",
    ast.Try: "'try' is not allowed",
    ast.Raise: "'raise' is not allowed",
    ast.Global: "'global' is not allowed",
    ast.Nonlocal: "'nonlocal' is not allowed",
    ast.Delete: "'del' is not allowed",
    ast.Return: "'return' is not allowed outside a function",
    ast.Assert: "'assert' is not allowed",
    ast.ListComp: "comprehensions are not allowed",
    ast.SetComp: "comprehensions are not allowed",
    ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "comprehensions are not allowed",
    ast.Dict: "dictionaries are not allowed",
    ast.Set: "sets are not allowed",
    ast.JoinedStr: "f-strings are not allowed",
    ast.Starred: "'*' unpacking is not allowed",
    ast.NamedExpr: "':=' is not allowed",
    ast.Await: "'await' is not allowed",
    ast.Yield: "'yield' is not allowed",
    ast.YieldFrom: "'yield' is not allowed",
    ast.IfExp: "conditional expressions are not allowed (use an if statement)",
}
_ALLOWED = (
    ast.Module, ast.Expr, ast.Assign, ast.For, ast.While, ast.If, ast.Pass, ast.Break,
    ast.Continue, ast.Call, ast.Name, ast.Constant, ast.List, ast.Tuple, ast.Compare,
    ast.BoolOp, ast.UnaryOp, ast.Load, ast.Store, ast.And, ast.Or, ast.Not, ast.USub,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn,
)  # fmt: skip
_DANGEROUS = {"eval", "exec", "compile", "open", "__import__", "getattr", "setattr", "delattr",
              "globals", "locals", "vars", "input", "breakpoint", "exit", "quit"}  # fmt: skip
_CONSTANTS = (str, int, float, bool, type(None))
_LARGEST_NUMBER = 2**63


@dataclass(frozen=True)
class ProgramRun:
    """What a program did.

    Attributes
    ----------
    calls : int
        Skill calls made.
    steps : int
        Interpreter steps taken.
    seconds : float
        Wall-clock time.
    """

    calls: int
    steps: int
    seconds: float


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def check_program(source: str, skills: Mapping[str, Any] | Any) -> ast.Module:
    """Parse *source* and check that it uses only what the sandbox admits.

    Parameters
    ----------
    source : str
        The program.
    skills : mapping or iterable of str
        The names it may call.

    Returns
    -------
    ast.Module

    Raises
    ------
    SandboxError
        If the program is empty, too long (:data:`MAX_PROGRAM_CHARS`), does not parse, nests
        too deeply (:data:`MAX_NESTING`), has a literal beyond the value limits
        (:data:`MAX_VALUE_SIZE`) or uses a refused construct.

    Examples
    --------
    >>> check_program("go_to(" * 60 + "'kitchen'" + ")" * 60, ["go_to"])
    Traceback (most recent call last):
    ...
    safetychip.errors.SandboxError: line 1: the program nests more than 50 levels deep (an \
    expression within an expression, a block within a block): assign inner parts to names first
    """
    names = set(skills)
    listed = ", ".join(sorted(names)) or "(none)"
    if not isinstance(source, str) or not source.strip():
        raise SandboxError("the program is empty")
    if len(source) > MAX_PROGRAM_CHARS:
        raise SandboxError(f"the program has {len(source):,} characters, more than the "
                           f"{MAX_PROGRAM_CHARS:,} allowed: write it shorter (loop over a list "
                           "instead of repeating lines)")  # fmt: skip
    tree = _parse(source)
    # Depth first in source order, so that the first fault in the text is the one reported;
    # a node without a line (an operator, a context) reports its parent's.
    pending: list[tuple[ast.AST, int, int | None]] = [(tree, 0, None)]
    while pending:
        node, depth, line = pending.pop()
        line = getattr(node, "lineno", line)
        if depth > MAX_NESTING:
            raise SandboxError(f"the program nests more than {MAX_NESTING} levels deep (an "
                               "expression within an expression, a block within a block): "
                               "assign inner parts to names first", line)  # fmt: skip
        pending.extend((child, depth + 1, line)
                       for child in reversed(list(ast.iter_child_nodes(node))))  # fmt: skip
        refused = _REFUSED.get(type(node))
        if refused is not None:
            message = refused.format(attr=getattr(node, "attr", ""))
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                message += f": a program may only call the skills {listed}"
            raise SandboxError(message, line)
        if not isinstance(node, _ALLOWED):
            raise SandboxError(f"{type(node).__name__} is not allowed in the sandbox", line)
        if isinstance(node, ast.Name) and node.id.startswith("__"):
            raise SandboxError(f"the name {node.id!r} is not allowed (no dunder names)", line)
        if isinstance(node, ast.Constant):
            if not isinstance(node.value, _CONSTANTS):
                raise SandboxError(f"the literal {node.value!r} is not allowed", line)
            _bound((node.value,), "the literal", line)
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise SandboxError("only skills can be called, by name", line)
            if node.func.id not in names:
                what = "is not allowed" if node.func.id in _DANGEROUS else "is not a skill"
                raise SandboxError(f"{node.func.id!r} {what}: a program may only call the "
                                   f"skills {listed}", line)  # fmt: skip
            if node.keywords:
                raise SandboxError(f"{node.func.id}() takes positional arguments only", line)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if not isinstance(target, ast.Name):
                    raise SandboxError("only names can be assigned to", line)
        if isinstance(node, (ast.For, ast.While)) and node.orelse:
            raise SandboxError("'else' on a loop is not allowed", line)
        if isinstance(node, ast.For) and not isinstance(node.target, ast.Name):
            raise SandboxError("a for loop must assign one name", line)
    return tree


def _parse(source: str) -> ast.Module:
    try:
        return ast.parse(source, mode="exec")
    except SyntaxError as exc:
        raise SandboxError(f"the program does not parse: {exc.msg}", exc.lineno) from None
    except (RecursionError, MemoryError):
        # The parser overflowed its stack on some statement: find the first line at which a
        # prefix of the program overflows it too, by bisection.
        lines = source.split("\n")
        low, high = 1, len(lines)
        while low < high:
            middle = (low + high) // 2
            if _overflows("\n".join(lines[:middle])):
                high = middle
            else:
                low = middle + 1
        raise SandboxError("the program nests too deeply to be parsed (an expression "
                           "thousands of levels deep): assign inner parts to names first",
                           low) from None  # fmt: skip


def _overflows(source: str) -> bool:
    try:
        ast.parse(source, mode="exec")
    except (RecursionError, MemoryError):
        return True
    except SyntaxError:  # a prefix that ends inside a statement
        pass
    return False


def _bound(values: tuple[Any, ...], what: str, line: int | None) -> None:
    """Raise SandboxError unless *values* together are within the value limits.

    The walk stops as soon as a limit is passed, so it costs at most about
    ``MAX_VALUE_SIZE`` steps whatever the values (a list that shares its parts can stand
    for billions of elements in little memory).
    """
    size = 0
    pending = [(value, 1) for value in values]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, (str, list, tuple)):
            size += len(value)
            if size > MAX_VALUE_SIZE:
                raise SandboxError(f"{what} is too big: more than {MAX_VALUE_SIZE:,} list "
                                   "elements and characters in all (keep values small; a list "
                                   "that doubles in a loop outgrows any limit)", line)  # fmt: skip
        if isinstance(value, (list, tuple)):
            if depth > MAX_VALUE_DEPTH:
                raise SandboxError(f"{what} nests lists more than {MAX_VALUE_DEPTH} deep "
                                   "(keep lists flat)", line)  # fmt: skip
            pending.extend((item, depth + 1) for item in value)
        elif isinstance(value, int) and not -_LARGEST_NUMBER <= value < _LARGEST_NUMBER:
            raise SandboxError(f"{what} holds a number beyond ±2**63 (use smaller numbers)",
                               line)  # fmt: skip
        elif not isinstance(value, _CONSTANTS):
            raise SandboxError(f"{what} holds a {type(value).__name__}, which the sandbox does "
                               "not admit (only strings, numbers, booleans, None, lists and "
                               "tuples)", line)  # fmt: skip


class _Interpreter:
    def __init__(self, skills: Mapping[str, Callable[..., Any]], max_steps: int,
                 max_calls: int, time_budget: float) -> None:  # fmt: skip
        self.skills = skills
        self.max_steps, self.max_calls, self.time_budget = max_steps, max_calls, time_budget
        self.names: dict[str, Any] = {}
        self.steps = self.calls = 0
        self.began = time.perf_counter()

    def tick(self, node: ast.AST) -> None:
        self.steps += 1
        line = getattr(node, "lineno", None)
        if self.steps > self.max_steps:
            raise ProgramBudgetError(f"the program ran past its budget of {self.max_steps} "
                                     "interpreter steps (an endless loop?)", line)  # fmt: skip
        if time.perf_counter() - self.began > self.time_budget:
            raise ProgramBudgetError(f"the program ran past its time budget of "
                                     f"{self.time_budget:g} s", line)  # fmt: skip

    def block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, node: ast.stmt) -> None:
        self.tick(node)
        if isinstance(node, ast.Expr):
            self.expr(node.value)
        elif isinstance(node, ast.Assign):
            value = self.expr(node.value)
            for target in node.targets:
                self.names[target.id] = value  # type: ignore[attr-defined]
        elif isinstance(node, ast.If):
            self.block(node.body if self.expr(node.test) else node.orelse)
        elif isinstance(node, ast.For):
            values = self.expr(node.iter)
            if not isinstance(values, (list, tuple, str)):
                raise SandboxError(f"a for loop needs a list, got {type(values).__name__}",
                                   node.lineno)  # fmt: skip
            for value in values:
                self.tick(node)
                self.names[node.target.id] = value  # type: ignore[attr-defined]
                try:
                    self.block(node.body)
                except _Break:
                    break
                except _Continue:
                    continue
        elif isinstance(node, ast.While):
            while self.expr(node.test):
                self.tick(node)
                try:
                    self.block(node.body)
                except _Break:
                    break
                except _Continue:
                    continue
        elif isinstance(node, ast.Break):
            raise _Break
        elif isinstance(node, ast.Continue):
            raise _Continue
        # ast.Pass: nothing to do

    def expr(self, node: ast.expr) -> Any:
        self.tick(node)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            raise SandboxError(f"the name {node.id!r} is not defined", node.lineno)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.expr(e) for e in node.elts]
            value = items if isinstance(node, ast.List) else tuple(items)
            _bound((value,), f"the {type(value).__name__}", node.lineno)
            return value
        if isinstance(node, ast.BoolOp):
            result: Any = isinstance(node.op, ast.And)
            for operand in node.values:
                result = self.expr(operand)
                if isinstance(node.op, ast.And) and not result:
                    return result
                if isinstance(node.op, ast.Or) and result:
                    return result
            return result
        if isinstance(node, ast.UnaryOp):
            value = self.expr(node.operand)
            if isinstance(node.op, ast.Not):
                return not value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SandboxError("unary minus needs a number", node.lineno)
            return -value
        if isinstance(node, ast.Compare):
            left = self.expr(node.left)
            for op, comparator in zip(node.ops, node.comparators):
                right = self.expr(comparator)
                try:
                    ok = _compare(op, left, right)
                except TypeError as exc:
                    raise SandboxError(f"cannot compare: {exc}", node.lineno) from None
                if not ok:
                    return False
                left = right
            return True
        if isinstance(node, ast.Call):
            name = node.func.id  # type: ignore[attr-defined]
            args = tuple(self.expr(a) for a in node.args)
            _bound(args, f"the argument list of {name}()", node.lineno)
            self.calls += 1
            if self.calls > self.max_calls:
                raise ProgramBudgetError(f"the program made more than {self.max_calls} skill "
                                         "calls", node.lineno)  # fmt: skip
            result = self.skills[name](*args)
            _bound((result,), f"the value {name}() returned", node.lineno)
            return result
        raise SandboxError(f"{type(node).__name__} is not allowed in the sandbox",
                           getattr(node, "lineno", None))  # fmt: skip


def _compare(op: ast.cmpop, a: Any, b: Any) -> bool:
    if isinstance(op, ast.Eq):
        return bool(a == b)
    if isinstance(op, ast.NotEq):
        return bool(a != b)
    if isinstance(op, ast.Lt):
        return bool(a < b)
    if isinstance(op, ast.LtE):
        return bool(a <= b)
    if isinstance(op, ast.Gt):
        return bool(a > b)
    if isinstance(op, ast.GtE):
        return bool(a >= b)
    if isinstance(op, ast.Is):
        return a is b
    if isinstance(op, ast.IsNot):
        return a is not b
    if isinstance(op, ast.In):
        return a in b
    return a not in b


def run_program(source: str, skills: Mapping[str, Callable[..., Any]], *,
                max_steps: int = 10_000, max_calls: int = 50,
                time_budget: float = 2.0) -> ProgramRun:  # fmt: skip
    """Check *source* (:func:`check_program`), then interpret it, calling *skills*.

    Parameters
    ----------
    source : str
        The program.
    skills : mapping of str to callable
        The only functions it may call.
    max_steps : int
        Interpreter steps (statements and expressions evaluated) allowed.
    max_calls : int
        Skill calls allowed.
    time_budget : float
        Seconds allowed (checked at every step).

    Returns
    -------
    ProgramRun

    Raises
    ------
    SandboxError
        A refused construct (:func:`check_program`), or a run-time error of the program: an
        undefined name, or a value (a list it builds, a skill's arguments or result) beyond
        :data:`MAX_VALUE_SIZE` or :data:`MAX_VALUE_DEPTH`.
    ProgramBudgetError
        The program ran past a budget.
    Exception
        Whatever a skill raises (it stops the program).
    """
    tree = check_program(source, skills)
    interpreter = _Interpreter(skills, max_steps, max_calls, time_budget)
    try:
        interpreter.block(tree.body)
    except (_Break, _Continue):
        raise SandboxError("'break' or 'continue' outside a loop") from None
    return ProgramRun(interpreter.calls, interpreter.steps,
                      time.perf_counter() - interpreter.began)  # fmt: skip
