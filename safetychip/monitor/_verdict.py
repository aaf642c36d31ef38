"""Verdicts of the monitor: safe, violation or abort, with the reason and attribution."""

from __future__ import annotations

import html
from dataclasses import dataclass
from enum import Enum

__all__ = ["Status", "Verdict"]


class Status(str, Enum):
    """What the monitor decided."""

    SAFE = "safe"
    VIOLATION = "violation"
    ABORT = "abort"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The monitor's answer for one proposed action, the start, or DONE.

    Attributes
    ----------
    status : Status
        ``SAFE``; ``VIOLATION`` (the action must not run, or DONE is refused); ``ABORT`` (the
        specification is unsatisfiable before the first action).
    reason : str
        One readable sentence.
    violated : tuple of str
        Names of the constraints the violation is attributed to (for ABORT: a smallest
        conflicting set).
    state_changes : tuple of str
        The paper's lines, one per proposition state of the action, e.g.
        ``"Violated: !agent_at(bedroom) & agent_at(bathroom)"``.
    pending : tuple of str
        At DONE: the constraints whose obligations are still owed.
    automaton_states : tuple of int
        The DFA state of each constraint (in order) after the action; for a VIOLATION, where
        the action would lead.
    """

    status: Status
    reason: str
    violated: tuple[str, ...] = ()
    state_changes: tuple[str, ...] = ()
    pending: tuple[str, ...] = ()
    automaton_states: tuple[int, ...] = ()

    @property
    def safe(self) -> bool:
        """True for a SAFE verdict."""
        return self.status is Status.SAFE

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "status": self.status.value,
            "reason": self.reason,
            "violated": list(self.violated),
            "state_changes": list(self.state_changes),
            "pending": list(self.pending),
            "automaton_states": list(self.automaton_states),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Verdict:
        """Inverse of :meth:`to_dict`.

        Examples
        --------
        >>> v = Verdict(Status.VIOLATION, "it would break c1", ("c1",), ("Violated: a",))
        >>> Verdict.from_dict(v.to_dict()) == v
        True
        """
        try:
            return cls(
                Status(data["status"]), data["reason"], tuple(data.get("violated", ())),
                tuple(data.get("state_changes", ())), tuple(data.get("pending", ())),
                tuple(data.get("automaton_states", ())),
            )
        except (KeyError, ValueError, TypeError) as err:
            raise ValueError(f"not a verdict record: {data!r} ({err})") from None

    def __repr__(self) -> str:
        return f"<Verdict {self.status.value}: {self.reason}>"

    def __str__(self) -> str:
        lines = [f"{self.status.value.upper()}: {self.reason}", *self.state_changes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        color = {"safe": "#2e7d32", "violation": "#c62828", "abort": "#6a1b9a"}[self.status.value]
        rows = "".join(f"<li><code>{html.escape(s)}</code></li>" for s in self.state_changes)
        return (f'<div><b style="color:{color}">{self.status.value.upper()}</b> '
                f"{html.escape(self.reason)}<ul>{rows}</ul></div>")  # fmt: skip
