"""Hierarchy: activity-level observers under a supervisor that decides, each turn, whether to
engage, stay silent, end the activity or switch to another (the de-escalation setting: small
talk, breathing, a creative task).

The supervisor reads the student's last-turn signals from ``state.context`` (``silence``,
``refusal``, ``fixation``: booleans, missing means False) and is a small deterministic state
machine. Its state is the current activity (None once ended), the runs of consecutive
silences and refusals, and the switches made since the last calm turn. The first rule that
matches decides:

=====  ================================================  ===============================
 #      condition                                         decision
=====  ================================================  ===============================
 1      ended, and the student is silent or refuses       ``silent``
 2      ended, and the student speaks                     ``engage`` the first activity
 3      fixation                                          ``switch`` to the next activity
 4      *refusals* refusals in a row, every activity      ``end``
        tried since the last calm turn
 5      *refusals* refusals in a row                      ``switch`` to the next activity
 6      *silences* silences in a row                      ``end``
 7      a silence                                         ``silent``
 8      otherwise                                         ``engage``
=====  ================================================  ===============================

``engage`` and ``switch`` run one turn of the (new) activity's observer with its policy;
``silent`` and ``end`` release nothing. Each decision is recorded (:class:`Decision`, JSON in
and out). Fail safe: a signal that is not a boolean or a number makes the turn ``silent``,
and the record says why (the observers fail safe inside their own turns).

Examples
--------
>>> from safetychip.observer import Observer
>>> activities = {name: Activity(Observer(), lambda state, feedback, n=name: f"Let's {n}.")
...               for name in ("chat", "breathe", "draw")}
>>> supervisor = Supervisor(activities, refusals=1)
>>> state = ObserverState()
>>> for signals in [{}, {"refusal": True}, {"silence": True}, {"fixation": True}]:
...     state.context = signals
...     d = supervisor.step(state)
...     print(d.decision, d.activity, d.released)
engage chat Let's chat.
switch breathe Let's breathe.
silent breathe None
switch draw Let's draw.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..errors import ObserverError
from ..llm import ChatModel
from ._observer import Observer
from ._policy import Policy
from ._record import TurnRecord
from ._state import ObserverState

__all__ = ["DECISIONS", "SIGNALS", "Activity", "Decision", "Supervisor"]

#: What a supervisor may decide each turn.
DECISIONS = ("engage", "silent", "end", "switch")
#: The student's signals a supervisor reads from ``state.context``.
SIGNALS = ("silence", "refusal", "fixation")


class Activity(NamedTuple):
    """An activity: its observer and the base policy it runs."""

    observer: Observer
    policy: ChatModel | Policy


class Decision(NamedTuple):
    """One supervisor decision.

    Attributes
    ----------
    turn : int
        Counted from 0 since the last reset.
    decision : str
        One of :data:`DECISIONS`.
    activity : str or None
        The activity after the decision (None once ended).
    why : str
        The rule that decided, in words.
    record : TurnRecord or None
        The activity observer's turn, for ``engage`` and ``switch``.
    """

    turn: int
    decision: str
    activity: str | None
    why: str
    record: TurnRecord | None = None

    @property
    def released(self) -> str | None:
        """What the turn released (None when silent or ended)."""
        return self.record.released if self.record is not None else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"turn": self.turn, "decision": self.decision, "activity": self.activity,
                "why": self.why,
                "record": self.record.to_dict() if self.record is not None else None}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Decision:
        """Inverse of :meth:`to_dict`."""
        record = data.get("record")
        return cls(int(data["turn"]), str(data["decision"]), data.get("activity"),
                   str(data["why"]),
                   TurnRecord.from_dict(record) if record is not None else None)  # fmt: skip

    def to_json(self) -> str:
        """The decision as a JSON document."""
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)


class Supervisor:
    """Decide between the activities on the student's signals (see the module's table).

    Parameters
    ----------
    activities : mapping of str to Activity
        In switching order (the next after the last is the first); the first starts.
    silences : int
        Consecutive silences that end the activity (≥ 1).
    refusals : int
        Consecutive refusals that switch (≥ 1).

    Raises
    ------
    ValueError
        If there is no activity, or *silences* or *refusals* is below 1.
    """

    def __init__(self, activities: Mapping[str, Activity], *, silences: int = 3,
                 refusals: int = 2) -> None:  # fmt: skip
        self.activities = dict(activities)
        if not self.activities:
            raise ValueError("a supervisor needs at least one activity: give {name: Activity}")
        if silences < 1 or refusals < 1:
            raise ValueError(f"silences and refusals must be at least 1, got {silences} and "
                             f"{refusals}")  # fmt: skip
        self.silences, self.refusals = silences, refusals
        self.records: list[Decision] = []
        self.reset()

    def reset(self) -> Supervisor:
        """Start again with the first activity and no records; returns ``self``."""
        self.current: str | None = next(iter(self.activities))
        self.silence_run = self.refusal_run = self.switches = 0
        self.records.clear()
        return self

    def step(self, state: ObserverState) -> Decision:
        """Decide on the signals in ``state.context``, run the activity when engaging, and
        record the decision."""
        try:
            silence, refusal, fixation = (_signal(state.context, key) for key in SIGNALS)
        except ObserverError as exc:
            return self._decide(state, "silent", self.current, f"fail safe: {exc}")
        self.silence_run = self.silence_run + 1 if silence else 0
        self.refusal_run = self.refusal_run + 1 if refusal else 0
        names = list(self.activities)
        if self.current is None:
            if silence or refusal:
                return self._decide(state, "silent", None, "ended: waiting for the student")
            return self._restart(state, names[0], "ended: the student speaks again")
        following = names[(names.index(self.current) + 1) % len(names)]
        if fixation:
            return self._restart(state, following, "fixation: redirect", "switch")
        if self.refusal_run >= self.refusals:
            if self.switches + 1 >= len(names):
                return self._decide(state, "end", None, "refusals: every activity tried")
            return self._restart(state, following, f"{self.refusal_run} refusals", "switch")
        if self.silence_run >= self.silences:
            return self._decide(state, "end", None, f"{self.silence_run} silences")
        if silence:
            return self._decide(state, "silent", self.current, "silence: give space")
        if not refusal:
            self.switches = 0
        return self._decide(state, "engage", self.current, "the student engages")

    def _restart(self, state: ObserverState, activity: str, why: str,
                 decision: str = "engage") -> Decision:  # fmt: skip
        self.switches = self.switches + 1 if decision == "switch" else 0
        self.silence_run = self.refusal_run = 0
        return self._decide(state, decision, activity, why)

    def _decide(self, state: ObserverState, decision: str, activity: str | None,
                why: str) -> Decision:  # fmt: skip
        self.current = activity
        record = None
        if decision in ("engage", "switch") and activity is not None:
            observer, policy = self.activities[activity]
            record = observer.step(policy, state)
        made = Decision(len(self.records), decision, activity, why, record)
        self.records.append(made)
        return made

    def __repr__(self) -> str:
        return (f"<Supervisor {' → '.join(self.activities)}: at {self.current}, "
                f"{len(self.records)} decisions>")  # fmt: skip


def _signal(context: Mapping[str, Any], key: str) -> bool:
    value = context.get(key, False)
    if not isinstance(value, (bool, int, float)):
        raise ObserverError(f"signal {key!r} is {value!r}: set state.context[{key!r}] to a "
                            "boolean")  # fmt: skip
    return bool(value)
