"""A lab's scoreboard: each exercise checked through it, a summary at the end.

Examples
--------
>>> lab = Lab("LTL basics")
>>> lab.formula("1", 'G !"a"', 'G!"a"')
1 ✓ correct: equivalent to the constraint
>>> lab.verdict("2", ..., None, None)
2 … not attempted: replace the ... with 'safe' or 'violation'
>>> print(lab.summary())
LTL basics: 1 of 2 exercises correct, 0 incorrect or invalid, 1 not attempted.
  ✓ 1  … 2
"""

from __future__ import annotations

from typing import Any

from ._explanation import check_explanation
from ._feedback import CORRECT, NOT_ATTEMPTED, Feedback, check_answer
from ._formula import check_formula
from ._impossible import check_impossible
from ._verdict import check_verdict

__all__ = ["Lab", "Summary"]


class Summary(str):
    """The scoreboard as text, with the counts as attributes."""

    correct: int
    wrong: int
    not_attempted: int

    def __new__(cls, title: str, results: dict[str, Feedback]) -> Summary:
        statuses = [f.status for f in results.values()]
        right, skipped = statuses.count(CORRECT), statuses.count(NOT_ATTEMPTED)
        wrong = len(statuses) - right - skipped
        marks = "  ".join(f"{str(f).split(' ', 2)[1]} {e}" for e, f in results.items())
        text = (
            f"{title}: {right} of {len(statuses)} exercises correct, {wrong} incorrect or "
            f"invalid, {skipped} not attempted.\n  {marks}"
        )
        self = super().__new__(cls, text)
        self.correct, self.wrong, self.not_attempted = right, wrong, skipped
        return self

    def __repr__(self) -> str:
        return str(self)


class Lab:
    """The exercises of one lab notebook: each method runs a checker, records its feedback
    under the exercise's label (a later attempt replaces an earlier one) and returns it.

    Parameters
    ----------
    title : str
        The lab's title, for the summary.
    """

    def __init__(self, title: str) -> None:
        self.title = title
        self.results: dict[str, Feedback] = {}

    def record(self, feedback: Feedback) -> Feedback:
        """Record *feedback* under its exercise and return it."""
        self.results[feedback.exercise] = feedback
        return feedback

    def formula(self, exercise: str, answer: Any, reference: Any, **options: Any) -> Feedback:
        """:func:`~safetychip.labs.check_formula`, recorded."""
        return self.record(check_formula(answer, reference, exercise=exercise, **options))

    def verdict(self, exercise: str, prediction: Any, monitor: Any, states: Any,
                **options: Any) -> Feedback:  # fmt: skip
        """:func:`~safetychip.labs.check_verdict`, recorded."""
        return self.record(check_verdict(prediction, monitor, states, exercise=exercise,
                                         **options))  # fmt: skip

    def impossible(self, exercise: str, answer: Any, constraints: Any,
                   **options: Any) -> Feedback:  # fmt: skip
        """:func:`~safetychip.labs.check_impossible`, recorded."""
        return self.record(check_impossible(answer, constraints, exercise=exercise, **options))

    def explanation(self, exercise: str, text: Any, explanation: Any, constraints: Any,
                    **options: Any) -> Feedback:  # fmt: skip
        """:func:`~safetychip.labs.check_explanation`, recorded."""
        return self.record(check_explanation(text, explanation, constraints, exercise=exercise,
                                             **options))  # fmt: skip

    def answer(self, exercise: str, answer: Any, judge: Any) -> Feedback:
        """:func:`~safetychip.labs.check_answer`, recorded."""
        return self.record(check_answer(answer, judge, exercise=exercise))

    def summary(self) -> Summary:
        """How many exercises are correct, wrong and not attempted, with one mark each."""
        return Summary(self.title, self.results)

    def __repr__(self) -> str:
        return f"<Lab {self.title!r}: {len(self.results)} exercises checked>"
