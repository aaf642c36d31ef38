"""Feedback on one answer, and the reading of answers every checker shares.

A checker never raises on a student's answer: whatever the answer (missing, empty, of the
wrong type, unparsable, over unknown propositions, too large), it returns a :class:`Feedback`
whose message says what to do next. :func:`read_formula` turns an answer into a formula or
into that feedback; :func:`trace_words` reads a trace in the environment's words.

Examples
--------
>>> print(read_formula("G (a -> ", exercise="1.1"))
1.1 ✗ invalid: your formula does not parse: cannot parse Spot formula: expected an operand at
position 8, found end of input
  G (a ->
          ^
>>> read_formula("G !a", atoms={"a"})
Formula('G!a')
>>> trace_words([frozenset({"agent_at(kitchen)"}), frozenset({"agent_at(bathroom)"})])
'start at kitchen, walk to bathroom, DONE'
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from itertools import pairwise
from typing import Any, ParamSpec

from .._names import close_names
from ..errors import SafetyChipError
from ..explain import letter_words
from ..ltl import Formula, Proposition, parse

__all__ = [
    "CORRECT",
    "INCORRECT",
    "INVALID",
    "MAX_ANSWER_CHARS",
    "MAX_ATOMS",
    "MAX_NODES",
    "NOT_ATTEMPTED",
    "TIME_LIMIT_S",
    "Feedback",
    "OutOfTime",
    "check_answer",
    "guarded",
    "not_attempted",
    "read_formula",
    "time_limit",
    "trace_words",
]

#: The statuses of a :class:`Feedback`.
CORRECT, INCORRECT, INVALID, NOT_ATTEMPTED = "correct", "incorrect", "invalid", "not attempted"
_MARK = {CORRECT: "✓", INCORRECT: "✗", INVALID: "✗", NOT_ATTEMPTED: "…"}

#: Bounds on an answer formula: characters, operators and atoms (a checker's size and time
#: bound: automata grow with the atoms, so a larger answer gets feedback, not a long wait).
MAX_ANSWER_CHARS = 2_000
MAX_NODES = 120
MAX_ATOMS = 10
#: Seconds a checker may spend on one answer (where a timer can interrupt it: the main
#: thread, as in a notebook cell, on a system with ``SIGALRM``); beyond it, feedback says so.
TIME_LIMIT_S = 10.0


class OutOfTime(Exception):
    """A :func:`time_limit` ran out."""


class _Expired(BaseException):
    """The timer of one :func:`time_limit` fired (not an ``Exception``: nothing in between
    catches it by accident)."""

    def __init__(self, token: object) -> None:
        super().__init__("time limit")
        self.token = token


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`OutOfTime` if the block runs longer than *seconds*.

    Nests: an inner limit that would end after an enclosing one leaves the enclosing one in
    charge. Where no timer can interrupt (not the main thread, no ``SIGALRM``), the block
    runs unbounded and the checkers rely on their size bounds.

    Examples
    --------
    >>> with time_limit(5):
    ...     pass
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        yield
        return
    remaining = signal.getitimer(signal.ITIMER_REAL)[0]
    if remaining and remaining <= seconds:  # an enclosing limit ends first
        yield
        return
    token = object()

    def expire(signum: int, frame: Any) -> None:
        raise _Expired(token)

    start = time.monotonic()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _Expired as err:
        if err.token is not token:
            raise
        raise OutOfTime(f"more than {seconds:g} s") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if remaining:  # give the enclosing limit what is left of its time
            signal.setitimer(signal.ITIMER_REAL, max(remaining - (time.monotonic() - start), 1e-3))


@dataclass(frozen=True)
class Feedback:
    """What a checker says about one answer.

    Attributes
    ----------
    exercise : str
        The exercise's label (may be empty).
    status : str
        ``"correct"``, ``"incorrect"``, ``"invalid"`` (the answer could not be read) or
        ``"not attempted"``.
    message : str
        The feedback, in the environment's words.
    confusion : str or None
        The name of the confusion recognised in a wrong formula (a key of
        :data:`~safetychip.labs.CONFUSIONS`).
    witness : tuple of str
        A trace that tells the answer from the expected one, in words (empty if none).
    """

    exercise: str
    status: str
    message: str
    confusion: str | None = None
    witness: tuple[str, ...] = ()

    @property
    def correct(self) -> bool:
        """True when the answer is right."""
        return self.status == CORRECT

    @property
    def attempted(self) -> bool:
        """False while the answer is still the placeholder ``...``."""
        return self.status != NOT_ATTEMPTED

    def __str__(self) -> str:
        head = f"{self.exercise} " if self.exercise else ""
        return f"{head}{_MARK[self.status]} {self.status}: {self.message}"

    __repr__ = __str__


def not_attempted(answer: Any) -> bool:
    """Whether *answer* is the student version's placeholder (``...`` or None)."""
    return answer is ... or answer is None


def _placeholder(exercise: str) -> Feedback:
    return Feedback(exercise, NOT_ATTEMPTED, "replace the ... with your answer and run the cell")


P = ParamSpec("P")


def guarded(check: Callable[P, Feedback]) -> Callable[P, Feedback]:
    """Make a checker total and bounded: an error it did not turn into feedback, or a check
    longer than :data:`TIME_LIMIT_S`, becomes an ``invalid`` feedback saying so (so a
    notebook cell never shows a traceback, nor hangs)."""

    @wraps(check)
    def run(*args: P.args, **kwargs: P.kwargs) -> Feedback:
        exercise = str(kwargs.get("exercise", "") or "")
        try:
            with time_limit(TIME_LIMIT_S):
                return check(*args, **kwargs)
        except OutOfTime:
            return Feedback(
                exercise,
                INVALID,
                f"this answer is too complex to check in {TIME_LIMIT_S:g} s: every exercise "
                "here has a short answer",
            )
        except ArithmeticError as err:  # 10**5000 compared with a float, a division by 0
            return Feedback(exercise, INVALID, f"this answer could not be checked ({err}): "
                            "every answer here is a small number")  # fmt: skip
        except (SafetyChipError, ValueError, TypeError, RecursionError, MemoryError) as err:
            return Feedback(exercise, INVALID, f"this answer could not be checked: {err}")

    return run


@guarded
def check_answer(
    answer: Any, judge: Callable[[Any], tuple[bool, str]], *, exercise: str = ""
) -> Feedback:
    """Check an answer that is not a formula (a number, a choice) with *judge*, a function
    returning whether the answer is right and the feedback that teaches why.

    Examples
    --------
    >>> judge = lambda n: (n == 3, "three entries into the hallway" if n == 3 else "count entries")
    >>> print(check_answer(3, judge, exercise="4.2"))
    4.2 ✓ correct: three entries into the hallway
    >>> print(check_answer(..., judge))
    … not attempted: replace the ... with your answer and run the cell
    """
    if not_attempted(answer):
        return _placeholder(exercise)
    right, message = judge(answer)
    return Feedback(exercise, CORRECT if right else INCORRECT, message)


def read_formula(
    answer: Any,
    *,
    atoms: Iterable[str] | None = None,
    exercise: str = "",
    what: str = "your formula",
) -> Formula | Feedback:
    """Read *answer* (Spot syntax, or a :class:`~safetychip.ltl.Formula`) as a formula, or
    return the feedback that says why it cannot be: not attempted, not text, empty, too long,
    a syntax error (the parser's caret message), too large, or propositions outside *atoms*
    (with the closest known names)."""
    if not_attempted(answer):
        return _placeholder(exercise)

    def invalid(message: str) -> Feedback:
        return Feedback(exercise, INVALID, message)

    if isinstance(answer, Formula):
        f = answer
    elif not isinstance(answer, str):
        return invalid(
            f"{what} should be text such as 'G !\"agent_at(kitchen)\"', not a "
            f"{type(answer).__name__} ({answer!r:.60})"
        )
    elif not answer.strip():
        return invalid(f"{what} is empty: write a formula between the quotes")
    elif len(answer) > MAX_ANSWER_CHARS:
        return invalid(
            f"{what} is {len(answer):,} characters long; answers here fit in "
            f"{MAX_ANSWER_CHARS:,}: look for a shorter formula"
        )
    else:
        try:
            f = parse(answer)
        except SafetyChipError as err:
            return invalid(f"{what} does not parse: {err}")
    nodes = len(f.subformulas())
    if nodes > MAX_NODES or len(f.atoms()) > MAX_ATOMS:
        return invalid(
            f"{what} is too large to check ({nodes} operators and atoms over "
            f"{len(f.atoms())} propositions; at most {MAX_NODES} over {MAX_ATOMS}): every "
            "exercise here has a short answer"
        )
    if atoms is not None:
        known = sorted(set(atoms))
        unknown = sorted(f.atoms() - set(known))
        if unknown:
            hints = [
                f"{u} (did you mean {' or '.join(close)}?)"
                if (close := close_names(u, known))
                else u
                for u in unknown
            ]
            return invalid(
                f"{what} uses propositions this exercise does not have: {', '.join(hints)}. "
                f"Use: {', '.join(known)}"
            )
    return f


def _room(atom: str) -> str | None:
    try:
        prop = Proposition.parse(atom)
    except SafetyChipError:
        return None
    return prop.args[0] if prop.predicate == "agent_at" and len(prop.args) == 1 else None


def _literal_words(literal: str) -> str:
    atom = literal.lstrip("!")
    if literal.startswith("!"):
        return letter_words([frozenset()], frozenset({atom}))
    return letter_words([frozenset({atom})])


def step_words(before: frozenset[str], after: frozenset[str]) -> str:
    gained = sorted(after - before)
    lost = sorted(before - after)
    if any(_room(a) for a in gained):  # walking in says we left the other room
        lost = [a for a in lost if not _room(a)]
    words = [_literal_words(f"!{a}") for a in lost] + [_literal_words(a) for a in gained]
    return " and ".join(words) if words else "wait"


def trace_words(trace: Sequence[Iterable[str]], *, done: bool = True) -> str:
    """A trace (the true atoms of each proposition state) as the environment's actions:
    where it starts, one action per later state, then DONE.

    Examples
    --------
    >>> trace_words([set(), {"is_open(fridge)"}, {"is_open(fridge)"}])
    'start with nothing true, open fridge, wait, DONE'
    """
    letters = [frozenset(s) for s in trace]
    if not letters:
        return "the empty trace"
    first = sorted(letters[0])
    rooms = [r for a in first if (r := _room(a))]
    others = [a for a in first if not _room(a)]
    start = []
    if rooms:
        start.append(f"at {' and '.join(r.replace('_', ' ') for r in rooms)}")
    if others:
        start.append(f"with {', '.join(others)} true")
    parts = [f"start {' '.join(start) if start else 'with nothing true'}"]
    parts += [step_words(a, b) for a, b in pairwise(letters)]
    if done:
        parts.append("DONE")
    return ", ".join(parts)
