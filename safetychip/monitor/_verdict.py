"""Verdicts of the monitor: safe, violation or abort, with the reason and attribution."""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = ["StateChange", "Status", "Verdict"]


class StateChange(str):
    """One line of the paper's state-change record, with its structure.

    It *is* the rendered line (``"Violated: !agent_at(bedroom) & agent_at(bathroom)"``), so it
    prints, compares and serialises as text, and it carries what the line says: whether the
    verdict was safe, and the literals that changed (all true propositions at the first state).

    Examples
    --------
    >>> c = StateChange(False, ("agent_at(bathroom)", "!agent_at(bedroom)"))
    >>> c
    'Violated: agent_at(bathroom) & !agent_at(bedroom)'
    >>> c.safe, c.literals
    (False, ('agent_at(bathroom)', '!agent_at(bedroom)'))
    >>> StateChange.parse("Safe: (no change)").literals
    ()
    """

    safe: bool
    literals: tuple[str, ...]
    first: bool

    def __new__(cls, safe: bool, literals: Iterable[str] = (), *, first: bool = False
                ) -> StateChange:  # fmt: skip
        lits = tuple(sorted(literals, key=lambda s: s.lstrip("!")))
        text = " & ".join(lits) or ("(every proposition false)" if first else "(no change)")
        self = super().__new__(cls, f"{'Safe' if safe else 'Violated'}: {text}")
        self.safe, self.literals, self.first = safe, lits, first
        return self

    def __reduce__(self) -> tuple:
        return _state_change, (self.safe, self.literals, self.first)

    @classmethod
    def parse(cls, line: str) -> StateChange:
        """Read a rendered line back.

        Raises
        ------
        ValueError
            If *line* is not ``Safe: …`` or ``Violated: …``.
        """
        head, sep, rest = str(line).partition(": ")
        if not sep or head not in ("Safe", "Violated"):
            raise ValueError(f"not a state-change line: {line!r:.80}; expected 'Safe: …' or "
                             "'Violated: …'")  # fmt: skip
        first = rest == "(every proposition false)"
        lits = () if first or rest == "(no change)" else tuple(rest.split(" & "))
        return cls(head == "Safe", lits, first=first)


def _state_change(safe: bool, literals: tuple[str, ...], first: bool) -> StateChange:
    return StateChange(safe, literals, first=first)


class Status(str, Enum):
    """What the monitor decided."""

    SAFE = "safe"
    VIOLATION = "violation"
    ABORT = "abort"
    #: The readings of a constraint whose formula is not picked yet disagree (some admit the
    #: action, some forbid it): not safe, so anything that does not ask refuses it.
    AMBIGUOUS = "ambiguous"


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
    state_changes : tuple of StateChange
        The paper's lines, one per proposition state of the action, e.g.
        ``"Violated: !agent_at(bedroom) & agent_at(bathroom)"``, each with its literals.
    pending : tuple of str
        At DONE: the constraints whose obligations are still owed.
    automaton_states : tuple of int
        The state of each automaton the monitor runs (``Monitor.automata``: one per
        constraint, in order, or one per conjunct of a factored conjunction) after the
        action; for a VIOLATION, where the action would lead.
    readings : tuple of bool
        For a monitor of candidate sets (:class:`~safetychip.monitor.CandidateMonitor`):
        whether each of its readings admits the action; empty otherwise.
    """

    status: Status
    reason: str
    violated: tuple[str, ...] = ()
    state_changes: tuple[StateChange, ...] = ()
    pending: tuple[str, ...] = ()
    automaton_states: tuple[int, ...] = ()
    readings: tuple[bool, ...] = ()

    @property
    def safe(self) -> bool:
        """True for a SAFE verdict."""
        return self.status is Status.SAFE

    def to_dict(self) -> dict:
        """JSON-ready form."""
        out: dict[str, Any] = {
            "status": self.status.value,
            "reason": self.reason,
            "violated": list(self.violated),
            "state_changes": list(self.state_changes),
            "pending": list(self.pending),
            "automaton_states": list(self.automaton_states),
        }
        if self.readings:
            out["readings"] = list(self.readings)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Verdict:
        """Inverse of :meth:`to_dict`.

        Examples
        --------
        >>> v = Verdict(Status.VIOLATION, "it would break c1", ("c1",), (StateChange(False, "a"),))
        >>> Verdict.from_dict(v.to_dict()) == v
        True
        """
        try:
            return cls(
                Status(data["status"]),
                data["reason"],
                tuple(data.get("violated", ())),
                tuple(StateChange.parse(c) for c in data.get("state_changes", ())),
                tuple(data.get("pending", ())),
                tuple(data.get("automaton_states", ())),
                tuple(bool(r) for r in data.get("readings", ())),
            )
        except (KeyError, ValueError, TypeError) as err:
            raise ValueError(f"not a verdict record: {data!r} ({err})") from None

    def __repr__(self) -> str:
        return f"<Verdict {self.status.value}: {self.reason}>"

    def __str__(self) -> str:
        lines = [f"{self.status.value.upper()}: {self.reason}", *self.state_changes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        color = {"safe": "#2e7d32", "violation": "#c62828", "abort": "#6a1b9a",
                 "ambiguous": "#ef6c00"}[self.status.value]  # fmt: skip
        rows = "".join(f"<li><code>{html.escape(s)}</code></li>" for s in self.state_changes)
        return (f'<div><b style="color:{color}">{self.status.value.upper()}</b> '
                f"{html.escape(self.reason)}<ul>{rows}</ul></div>")  # fmt: skip
