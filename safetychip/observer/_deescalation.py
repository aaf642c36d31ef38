"""The de-escalation case study of the Grounded Observer, offline.

A :class:`Supervisor` over three activities (``small talk``, ``breathing``, ``creative task``)
decides each turn, on the student's signals (silence, refusal, fixation), whether to engage,
stay silent, end the activity or switch to another. The student is :class:`StandInStudent`,
a deterministic, seeded offline stand-in (not an LLM): each turn it draws its signals from
probabilities that depend on the activity it is offered (small talk is refused most, the
creative task least), and speaks or keeps quiet accordingly. The activities' base policies are
offline stand-ins too; every result says so.

Examples
--------
>>> study = deescalation_study(turns=30, seed=0)
>>> study.label
'offline-stand-in: student (offline stand-in, not an LLM)'
>>> len(study.decisions), sorted({d.decision for d in study.decisions})
(30, ['end', 'engage', 'silent', 'switch'])
>>> study.to_dicts() == deescalation_study(turns=30, seed=0).to_dicts()
True
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from typing import Any, NamedTuple

from .._io import atomic_savefig
from ..llm import Message, StandInModel
from ._hierarchy import DECISIONS, SIGNALS, Activity, Decision, Supervisor
from ._observer import Observer
from ._state import ObserverState

__all__ = ["DEESCALATION_ACTIVITIES", "DeescalationStudy", "StandInStudent",
           "deescalation_study", "plot_deescalation"]  # fmt: skip

#: The activities in switching order, each with the stand-in student's chances of
#: (silence, refusal, fixation) when it is offered; after an ``end``, the chance it speaks
#: again is :attr:`StandInStudent.returns`.
DEESCALATION_ACTIVITIES: dict[str, tuple[float, float, float]] = {
    "small talk": (0.25, 0.45, 0.15), "breathing": (0.40, 0.20, 0.10),
    "creative task": (0.15, 0.10, 0.05),
}  # fmt: skip

_LINES: dict[str, tuple[str, ...]] = {
    "small talk": ("How was your morning?", "What did you have for lunch?",
                   "Anything fun planned for the weekend?"),
    "breathing": ("Let's breathe in for four counts together.", "Hold it... and out slowly.",
                  "One more slow breath with me."),
    "creative task": ("Shall we draw a house together?", "What colour should the roof be?",
                      "Let's add a tree next to it."),
}  # fmt: skip
_STUDENT = {"silence": "…", "refusal": "No. I don't want to.",
            "fixation": "But when is the bus coming? When is the bus coming?"}  # fmt: skip
_CALM = ("Okay.", "Fine, I guess.", "Can I pick the colour?", "That was nice.")


class StandInStudent:
    """A deterministic, seeded stand-in student (offline, not an LLM): each turn one signal
    or none, drawn with the chances :data:`DEESCALATION_ACTIVITIES` gives the activity it is
    offered (None once ended: it stays quiet with chance ``1 − returns``); a signal repeats
    the next turn with chance *persist* (a distressed student stays so for a while).

    Examples
    --------
    >>> student = StandInStudent(seed=1)
    >>> [student.respond("creative task")[1] for _ in range(3)]
    [{'silence': False, 'refusal': False, 'fixation': False}, ...]
    """

    name = "offline-stand-in: student"

    def __init__(
        self, seed: int = 0, *, returns: float = 0.5, persist: float = 0.5,
        chances: Mapping[str, tuple[float, float, float]] | None = None,
    ) -> None:  # fmt: skip
        self.seed, self.returns, self.persist = seed, returns, persist
        self.chances = dict(DEESCALATION_ACTIVITIES if chances is None else chances)
        self._rng = random.Random(seed)
        self._last: str | None = None

    def respond(self, activity: str | None) -> tuple[str, dict[str, bool]]:
        """What the student says after a turn of *activity*, and its signals."""
        draw = self._rng.random()
        if self._last is not None and activity is not None and draw < self.persist:
            return _STUDENT[self._last], {name: name == self._last for name in SIGNALS}
        draw = self._rng.random()
        if activity is None:
            chances: tuple[float, ...] = (1 - self.returns, 0.0, 0.0)
        else:
            chances = self.chances[activity]
        signal, edge = None, 0.0
        for name, chance in zip(SIGNALS, chances):
            edge += chance
            if draw < edge:
                signal = name
                break
        self._last = signal
        text = _STUDENT[signal] if signal else _CALM[self._rng.randrange(len(_CALM))]
        return text, {name: name == signal for name in SIGNALS}

    def __repr__(self) -> str:
        return f"<StandInStudent seed={self.seed} (offline stand-in, not an LLM)>"


def _activity_model(name: str) -> StandInModel:
    lines = _LINES[name]

    def respond(messages: tuple[Message, ...]) -> str:
        return lines[sum(m.role == "assistant" for m in messages) % len(lines)]

    return StandInModel(respond, name=f"offline-stand-in: {name}")


class DeescalationStudy(NamedTuple):
    """One de-escalation session.

    Attributes
    ----------
    decisions : tuple of Decision
        The supervisor's decision each turn.
    signals : tuple of dict
        The signals each decision was made on (the student's previous turn; none at turn 0).
    state : ObserverState
        The interaction at the end (the transcript is ``state.history``).
    seed : int
        The stand-in student's seed.
    model : str
        The student's name.
    stand_in : bool
        Whether it is an offline stand-in (every output says so).
    """

    decisions: tuple[Decision, ...]
    signals: tuple[Mapping[str, bool], ...]
    state: ObserverState
    seed: int
    model: str
    stand_in: bool

    @property
    def label(self) -> str:
        """The student, marked when it is an offline stand-in."""
        return self.model + (" (offline stand-in, not an LLM)" if self.stand_in else "")

    @property
    def activities(self) -> tuple[str, ...]:
        """The activities, in switching order."""
        return tuple(DEESCALATION_ACTIVITIES)

    def to_dicts(self) -> list[dict[str, Any]]:
        """Each turn's signals and decision, JSON-ready."""
        return [{"signals": dict(s), **d.to_dict()} for d, s in zip(self.decisions, self.signals)]

    def __repr__(self) -> str:
        counts = {k: sum(d.decision == k for d in self.decisions) for k in DECISIONS}
        shown = ", ".join(f"{k} {v}" for k, v in counts.items())
        return (f"<DeescalationStudy: {len(self.decisions)} turns ({shown}), seed "
                f"{self.seed}, student {self.label}>")  # fmt: skip


def deescalation_study(turns: int = 40, *, seed: int = 0, silences: int = 3,
                       refusals: int = 2) -> DeescalationStudy:  # fmt: skip
    """Run a session: each turn the supervisor decides on the student's last signals, then
    the stand-in student answers what it was offered.

    Parameters
    ----------
    turns : int
        Supervisor decisions.
    seed : int
        The stand-in student's seed.
    silences, refusals : int
        The supervisor's thresholds (see :class:`Supervisor`).

    Returns
    -------
    DeescalationStudy
    """
    if turns < 1:
        raise ValueError(f"the study needs at least 1 turn, got {turns}")
    activities = {name: Activity(Observer(), _activity_model(name))
                  for name in DEESCALATION_ACTIVITIES}  # fmt: skip
    supervisor = Supervisor(activities, silences=silences, refusals=refusals)
    student = StandInStudent(seed)
    state = ObserverState()
    signals: dict[str, bool] = {name: False for name in SIGNALS}
    seen = []
    for _ in range(turns):
        state.context = dict(signals)
        seen.append(dict(signals))
        decision = supervisor.step(state)
        if decision.released is not None:
            state.say("agent", decision.released)
        text, signals = student.respond(decision.activity)
        state.say("user", text)
    return DeescalationStudy(tuple(supervisor.records), tuple(seen), state, seed,
                             StandInStudent.name, True)  # fmt: skip


_COLOURS = {"engage": "tab:green", "silent": "tab:gray", "end": "tab:red",
            "switch": "tab:orange"}  # fmt: skip
_MARKERS = {"engage": "o", "silent": "s", "end": "X", "switch": "D"}


def plot_deescalation(
    study: DeescalationStudy,
    path: str | os.PathLike[str] | None = None,
) -> Any:
    """The mode timeline: the activity after each decision (a row per activity, and
    ``ended``), the decision as the marker, and below it the signals it was made on; saved
    atomically to *path* unless it is None.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    rows = [*study.activities, "ended"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})  # fmt: skip
    turns = range(len(study.decisions))
    level = [rows.index(d.activity if d.activity is not None else "ended")
             for d in study.decisions]  # fmt: skip
    top.step(list(turns), level, where="mid", color="0.7", lw=1, zorder=1)
    for kind in DECISIONS:
        at = [t for t in turns if study.decisions[t].decision == kind]
        top.scatter(at, [level[t] for t in at], color=_COLOURS[kind], marker=_MARKERS[kind],
                    s=45, label=kind, zorder=2)  # fmt: skip
    top.set_yticks(range(len(rows)), rows)
    top.set_ylim(-0.5, len(rows) - 0.5)
    top.invert_yaxis()
    top.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, title="decision")
    for row, name in enumerate(SIGNALS):
        at = [t for t in turns if study.signals[t].get(name)]
        bottom.scatter(at, [row] * len(at), marker="|", s=200, color=f"C{row}")
    bottom.set_yticks(range(len(SIGNALS)), SIGNALS)
    bottom.set_ylim(-0.5, len(SIGNALS) - 0.5)
    bottom.invert_yaxis()
    bottom.set_xlabel("turn (signals: the student's previous turn)")
    fig.suptitle(f"De-escalation: the supervisor's mode timeline (seed {study.seed})\n"
                 f"{study.label}", fontsize=10)  # fmt: skip
    fig.tight_layout()
    if path is not None:
        atomic_savefig(fig, path, dpi=100)
    return fig
