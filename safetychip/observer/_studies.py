"""The small-talk drift case study of the Grounded Observer, offline.

A scripted user makes small talk; the base policy drifts, turn after turn, toward long,
informative, advice-giving replies (more facts and more "you should" with every few turns, the
warm opener dropped). The conversation runs twice with the same extractors (brevity,
specificity, advice markers, VADER affect): without overlays, and with an observer of four
prohibitory overlays sharing one rigidity ε:

=============  ==========  ================================
overlay        feature     bound
=============  ==========  ================================
``brevity``    brevity     ≥ 0.40 (about 30 words at most)
``specific``   specificity ≤ 0.05
``motive``     advice      ≤ 0.00 (no advice at all)
``tone``       affect      ≥ 0.20 (warm)
=============  ==========  ================================

By default the base policy is :func:`drifting_smalltalk_model`, a deterministic offline
stand-in that obeys forced feedback by dropping the sentences it names, and every result
says so; any chat model can take its place.

Examples
--------
>>> study = smalltalk_study(turns=12)
>>> study.label
'offline-stand-in: drifting small talk (offline stand-in, not an LLM)'
>>> len(study.baseline.outside(study.bounds, study.rigidity)) > 0
True
>>> study.observed.outside(study.bounds, study.rigidity)
[]
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple

from .._io import atomic_savefig
from ..llm import ChatModel, Message, StandInModel
from ._content import Affect, Specificity
from ._extractors import AdviceMarkers, Brevity
from ._fallback import Fallback, FallbackLibrary
from ._kinds import ProhibitoryOverlay
from ._observer import Observer
from ._record import TurnRecord
from ._state import Candidate, ObserverState

__all__ = ["SMALLTALK_BOUNDS", "SmallTalkRun", "SmallTalkStudy", "drifting_smalltalk_model",
           "plot_smalltalk", "smalltalk_observer", "smalltalk_study"]  # fmt: skip

#: The bounds of the observed run: feature -> (at least, at most); with ε, a released reply
#: stays within ``[low − ε, high + ε]``.
SMALLTALK_BOUNDS: dict[str, tuple[float, float]] = {
    "brevity": (0.4, 1.0), "specificity": (0.0, 0.05), "advice": (0.0, 0.0),
    "affect": (0.2, 1.0),
}  # fmt: skip

_OVERLAYS = {"brevity": "brevity", "specificity": "specific", "advice": "motive",
             "affect": "tone"}  # fmt: skip

_USER = ("Hi! How's your day going?", "I just got back from a walk.",
         "The weather is nice today.", "I'm thinking of cooking something tonight.",
         "Do you like music?", "I've been a bit tired lately.",
         "My friend is visiting this weekend.", "I might read a book later.")  # fmt: skip
_WARM = ("That sounds lovely!", "Oh, how nice!", "I'm glad to hear that!",
         "That's wonderful!")  # fmt: skip
_QUESTIONS = ("How did it go?", "What do you enjoy most about it?",
              "What are you looking forward to?", "How does that feel?")  # fmt: skip
_FACTS = (
    "A 2019 study found that 30 minutes of walking a day cuts stress by 20 percent.",
    "The World Health Organization advises 150 minutes of activity each week.",
    "Adults need 7 to 9 hours of sleep according to the National Sleep Foundation.",
    "In Japan, forest bathing became part of public health policy in 1982.",
    "Cooking at home 5 times a week lowers calorie intake by about 12 percent.",
)
_ADVICE = ("You should keep a regular schedule.", "Make sure to drink enough water.",
           "Try to plan your meals for the week.",
           "I recommend writing down three goals each morning.")  # fmt: skip
_FEEDBACK = "Feedback on your reply (forced"


def _drifting_reply(messages: tuple[Message, ...]) -> str:
    """The stand-in's reply: a warm opener and a question, then one more informative or
    advice-giving sentence every 5 turns; forced feedback drops the sentences it names."""
    turn = sum(m.role == "assistant" for m in messages)
    pools = [_FACTS if i % 2 == 0 else _ADVICE for i in range(turn // 5)]
    extra = [pool[(turn + i) % len(pool)] for i, pool in enumerate(pools)]
    warm, question = _WARM[turn % len(_WARM)], _QUESTIONS[turn % len(_QUESTIONS)]
    last = messages[-1].content if messages else ""
    if last.startswith(_FEEDBACK):
        if "brevity:" in last:
            extra = extra[:1]
        if "specific:" in last:
            extra = [s for s in extra if s not in _FACTS]
        if "motive:" in last:
            extra = [s for s in extra if s not in _ADVICE]
        return " ".join([warm, *extra, question])
    return " ".join([*extra, question] if len(extra) > 1 else [warm, *extra, question])


def drifting_smalltalk_model() -> StandInModel:
    """The study's base policy: a deterministic offline stand-in (not an LLM) whose replies
    grow longer, more informative and more advice-giving with every few turns.

    Examples
    --------
    >>> model = drifting_smalltalk_model()
    >>> model.complete([Message("user", "Hi!")]).text
    'That sounds lovely! How did it go?'
    >>> model.name
    'offline-stand-in: drifting small talk'
    """
    return StandInModel(_drifting_reply, name="offline-stand-in: drifting small talk")


_EXTRACTORS = (Brevity(), Specificity(), AdviceMarkers(), Affect())


def smalltalk_observer(rigidity: float = 0.05, *, observed: bool = True,
                       budget: int = 2) -> Observer:  # fmt: skip
    """The study's observer: the four extractors and, when *observed*, the four overlays of
    :data:`SMALLTALK_BOUNDS` with rigidity *rigidity* (without them it releases every first
    candidate and only measures).

    Examples
    --------
    >>> smalltalk_observer()
    <Observer: 4 extractors, 4 overlays, budget 2>
    """
    overlays = []
    for feature, (low, high) in SMALLTALK_BOUNDS.items() if observed else ():
        name = _OVERLAYS[feature]
        at_least, at_most = (low, None) if high == 1.0 else (None, high)
        overlays.append(ProhibitoryOverlay(name, feature, at_least=at_least, at_most=at_most,
                                           rigidity=rigidity))  # fmt: skip
    fallbacks = FallbackLibrary(default=Fallback(
        "listen", "That is nice to hear. What else is on your mind?"))  # fmt: skip
    return Observer(_EXTRACTORS, overlays, fallbacks, budget=budget)


class SmallTalkRun(NamedTuple):
    """One conversation of the study.

    Attributes
    ----------
    observed : bool
        Whether the overlays were on.
    records : tuple of TurnRecord
        The observer's record of each agent turn.
    features : tuple of dict
        The released reply's features, turn by turn.
    state : ObserverState
        The interaction at the end (the transcript is ``state.history``).
    """

    observed: bool
    records: tuple[TurnRecord, ...]
    features: tuple[Mapping[str, float], ...]
    state: ObserverState

    def series(self, feature: str) -> list[float]:
        """*feature* of the released reply over the turns."""
        return [f[feature] for f in self.features]

    def outside(self, bounds: Mapping[str, tuple[float, float]],
                rigidity: float) -> list[tuple[int, str, float]]:  # fmt: skip
        """The (turn, feature, value) of every released reply outside ``[low − ε, high +
        ε]``."""
        return [(turn, name, f[name]) for turn, f in enumerate(self.features)
                for name, (low, high) in bounds.items()
                if not low - rigidity - 1e-9 <= f[name] <= high + rigidity + 1e-9]  # fmt: skip


class SmallTalkStudy(NamedTuple):
    """The two conversations and what they were run with.

    Attributes
    ----------
    baseline, observed : SmallTalkRun
        Without and with the overlays.
    bounds : dict
        :data:`SMALLTALK_BOUNDS`.
    rigidity : float
        ε of every overlay.
    model : str
        The base policy's model name.
    stand_in : bool
        Whether it is an offline stand-in (every output says so).
    """

    baseline: SmallTalkRun
    observed: SmallTalkRun
    bounds: Mapping[str, tuple[float, float]]
    rigidity: float
    model: str
    stand_in: bool

    @property
    def label(self) -> str:
        """The model, marked when it is an offline stand-in."""
        return self.model + (" (offline stand-in, not an LLM)" if self.stand_in else "")

    def __repr__(self) -> str:
        return (f"<SmallTalkStudy: {len(self.baseline.features)} turns, ε={self.rigidity:g}, "
                f"model {self.label}>")  # fmt: skip


def _converse(observer: Observer, model: ChatModel, turns: int) -> SmallTalkRun:
    state = ObserverState()
    records, features = [], []
    for turn in range(turns):
        state.say("user", _USER[turn % len(_USER)])
        records.append(observer.step(model, state))
        features.append(observer.features(Candidate(records[-1].released), state))
    return SmallTalkRun(bool(observer.overlays), tuple(records), tuple(features), state)


def smalltalk_study(turns: int = 50, *, rigidity: float = 0.05,
                    model: ChatModel | None = None) -> SmallTalkStudy:  # fmt: skip
    """Run the small-talk conversation without and with the observer.

    Parameters
    ----------
    turns : int
        Agent turns per conversation.
    rigidity : float
        ε of every overlay.
    model : ChatModel, optional
        The base policy; default :func:`drifting_smalltalk_model`.

    Returns
    -------
    SmallTalkStudy
    """
    if turns < 1:
        raise ValueError(f"the study needs at least 1 turn, got {turns}")
    model = model if model is not None else drifting_smalltalk_model()
    runs = [_converse(smalltalk_observer(rigidity, observed=observed), model, turns)
            for observed in (False, True)]  # fmt: skip
    return SmallTalkStudy(runs[0], runs[1], SMALLTALK_BOUNDS, rigidity, model.name,
                          isinstance(model, StandInModel))  # fmt: skip


def plot_smalltalk(study: SmallTalkStudy,
                   path: str | os.PathLike[str] | None = None,
                   ) -> Any:  # fmt: skip
    """The four features over the turns, without and with the observer, the bounds shaded
    (widened by ε, dashed); saved atomically to *path* if one is given.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(study.bounds), 1, figsize=(8, 8), sharex=True)
    eps = study.rigidity
    for ax, (feature, (low, high)) in zip(axes, study.bounds.items()):
        ax.axhspan(low, high, color="tab:green", alpha=0.15, lw=0)
        for edge in (low - eps, high + eps):
            ax.axhline(edge, color="tab:green", ls="--", lw=0.8)
        ax.plot(study.baseline.series(feature), color="tab:red", label="without observer")
        ax.plot(study.observed.series(feature), color="tab:blue", marker=".",
                label="with observer")  # fmt: skip
        ax.set_ylabel(feature)
    axes[0].legend(loc="upper right", fontsize=8)
    axes[-1].set_xlabel("agent turn")
    fig.suptitle(f"Small-talk drift, ε = {eps:g}\n{study.label}", fontsize=10)
    fig.tight_layout()
    if path is not None:
        atomic_savefig(fig, path, dpi=100)
    return fig
