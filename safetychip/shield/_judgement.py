"""What a filter says about a proposed action: admit it, or refuse it with a structured
reason (the constraints, the literals, the pending obligations) from which a reprompt is
rendered."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..monitor import Status, Verdict

__all__ = ["DONE", "Judgement", "Proposal"]

#: The action text of DONE.
DONE = "done"


class Proposal(NamedTuple):
    """An action an agent proposes, with the proposition states it would produce.

    Attributes
    ----------
    action : str
        The action in the environment's canonical words (``"walk to kitchen"``), or
        :data:`DONE`.
    states : tuple of dict
        The proposition states the environment's preview foresees (none for DONE).
    """

    action: str
    states: tuple[Mapping[str, bool], ...] = ()

    @property
    def done(self) -> bool:
        """Whether the proposal is DONE."""
        return self.action == DONE


class Judgement(NamedTuple):
    """A filter's answer for one proposal (or for the start of an episode): an immutable
    record, cheap to make (one per proposal and filter).

    Attributes
    ----------
    admitted : bool
        Whether the action may run.
    filter : str
        The name of the filter that answered.
    reason : str
        One readable sentence.
    constraints : tuple of str
        The constraints (or rules) a refusal is attributed to.
    state_changes : tuple of str
        The paper's ``Safe:`` / ``Violated:`` lines of the proposal's states.
    pending : tuple of str
        At DONE: the constraints whose obligations are still owed.
    abort : bool
        The specification cannot be met at all: nothing may run.
    verdict : Verdict or None
        The monitor's verdict, when the filter is the constraint monitor.
    alternative : str or None
        A safe alternative the filter suggests for the reprompt.
    details : dict
        Anything else the filter wants recorded (JSON-ready).

    Examples
    --------
    >>> Judgement.refuse("memory", "it resembles an unsafe episode", ("e12",))
    <Judgement refused by memory: it resembles an unsafe episode>
    """

    admitted: bool
    filter: str
    reason: str = ""
    constraints: tuple[str, ...] = ()
    state_changes: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()
    abort: bool = False
    verdict: Verdict | None = None
    alternative: str | None = None
    details: Mapping[str, Any] | None = None

    @classmethod
    def admit(cls, filter: str, reason: str = "", **fields: Any) -> Judgement:
        """An admitting judgement by *filter*."""
        return cls(True, filter, reason, **fields)

    @classmethod
    def refuse(cls, filter: str, reason: str, constraints: tuple[str, ...] = (),
               **fields: Any) -> Judgement:  # fmt: skip
        """A refusal by *filter*, attributed to *constraints*."""
        return cls(False, filter, reason, tuple(constraints), **fields)

    @classmethod
    def of_verdict(cls, verdict: Verdict, filter: str = "monitor") -> Judgement:
        """The judgement a monitor verdict amounts to (SAFE admits)."""
        return cls(verdict.safe, filter, verdict.reason, verdict.violated,
                   verdict.state_changes, verdict.pending, verdict.status is Status.ABORT,
                   verdict)  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "admitted": self.admitted, "filter": self.filter, "reason": self.reason,
            "constraints": list(self.constraints), "state_changes": list(self.state_changes),
            "pending": list(self.pending), "abort": self.abort,
            "verdict": self.verdict.to_dict() if self.verdict is not None else None,
            "alternative": self.alternative, "details": dict(self.details or {}),
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Judgement:
        """Inverse of :meth:`to_dict`.

        Examples
        --------
        >>> j = Judgement.refuse("monitor", "it would break c1", ("c1",))
        >>> Judgement.from_dict(j.to_dict()) == j
        True
        """
        verdict = data.get("verdict")
        return cls(
            bool(data["admitted"]), str(data["filter"]), str(data.get("reason", "")),
            tuple(data.get("constraints", ())), tuple(data.get("state_changes", ())),
            tuple(data.get("pending", ())), bool(data.get("abort", False)),
            Verdict.from_dict(verdict) if verdict is not None else None,
            data.get("alternative"), dict(data.get("details") or {}) or None,
        )  # fmt: skip

    def __repr__(self) -> str:
        word = "admitted" if self.admitted else "aborted" if self.abort else "refused"
        return f"<Judgement {word} by {self.filter}: {self.reason}>"

    def __str__(self) -> str:
        word = "ADMITTED" if self.admitted else "ABORT" if self.abort else "REFUSED"
        return "\n".join([f"{word} ({self.filter}): {self.reason}", *self.state_changes])

    def _repr_html_(self) -> str:
        colour = "#2e7d32" if self.admitted else "#c62828"
        word = "admitted" if self.admitted else "aborted" if self.abort else "refused"
        rows = "".join(f"<li><code>{html.escape(s)}</code></li>" for s in self.state_changes)
        return (f'<div><b style="color:{colour}">{word}</b> by {html.escape(self.filter)}: '
                f"{html.escape(self.reason)}<ul>{rows}</ul></div>")  # fmt: skip
