"""The grounded observer (Ramnauth, Brščić, Scassellati): runtime control over interaction
trajectories. A base policy proposes candidates; feature extractors measure them; overlays
say how far each deviates and, with their rigidity, whether it is admissible; the observer
releases an admissible candidate (with implicit feedback for small deviations), regenerates
with forced feedback within a budget, and otherwise falls back.

The Safety Chip and the episodic memory plug in as overlays through what they are given: any
shield filter becomes a prohibitory overlay with ε = 0 (:class:`FilterOverlay`), and an
observer sits in the shield as a filter (:class:`ObserverFilter`).

Contents
--------
:class:`Observer`
    The loop: ``evaluate(candidate, state)``, ``step(policy, state)``.
:class:`ObserverState`, :class:`Utterance`, :class:`Candidate`, :class:`Feedback`
    What the observer sees and hands back.
:class:`Extractor`, :func:`extractor`, :class:`ContextValue`, and the offline ones
    :class:`Length`, :class:`Brevity`, :class:`QuestionRate`, :class:`AdviceMarkers`,
    :class:`Repetition` (:data:`OFFLINE`); :class:`Specificity`, :class:`Affect` (VADER,
    extra ``affect``); over the trajectory :class:`RunningMean`, :class:`Consecutive` and
    :class:`TopicDrift` (MiniLM, extra ``embeddings``).
:func:`smalltalk_study`, :func:`plot_smalltalk`, :data:`SMALLTALK_BOUNDS`
    The small-talk drift case study, offline.
:func:`deescalation_study`, :func:`plot_deescalation`, :class:`StandInStudent`
    The de-escalation case study, offline: the supervisor's mode timeline.
:class:`Overlay`, :class:`Assessment`, :class:`Condition`, :data:`KINDS`
    The overlays' interface; :class:`ProhibitoryOverlay`, :class:`TransferOverlay`,
    :class:`PermissiveOverlay`.
:class:`Fallback`, :class:`FallbackLibrary`
    What is released when no candidate may be.
:class:`TurnRecord`, :class:`CandidateRecord`, :data:`REASONS`
    The per-turn record, JSON in and out.
:class:`ChatPolicy`, :func:`as_policy`
    Base policies.
:class:`FilterOverlay`, :class:`ObserverFilter`
    The shield's filters as overlays, and the observer as a shield filter.
:class:`Lookahead`, :class:`AdaptiveRigidity`, :class:`Ensemble`, :class:`Arbitration`
    Extensions: refuse what a rollout shows turning inadmissible; tighten ε as a margin
    shrinks; observers that vote, a split falling back to :data:`UNSURE`.
:class:`Supervisor`, :class:`Activity`, :class:`Decision`
    Activity-level observers under a supervisor: engage, stay silent, end or switch.
"""

from safetychip._public import publish

from ._adapters import FilterOverlay, ObserverFilter
from ._adaptive import AdaptiveRigidity
from ._content import AFFECT_SCORES, Affect, Specificity
from ._deescalation import (
    DEESCALATION_ACTIVITIES,
    DeescalationStudy,
    StandInStudent,
    deescalation_study,
    plot_deescalation,
)
from ._ensemble import UNSURE, Arbitration, Ensemble
from ._extractors import OFFLINE, AdviceMarkers, Brevity, Length, QuestionRate, Repetition
from ._fallback import Fallback, FallbackLibrary
from ._features import ContextValue, Extractor, FunctionExtractor, extractor
from ._hierarchy import DECISIONS, SIGNALS, Activity, Decision, Supervisor
from ._kinds import PermissiveOverlay, ProhibitoryOverlay, TransferOverlay
from ._lookahead import MAX_HORIZON, Lookahead
from ._observer import Observer
from ._overlay import KINDS, Assessment, Condition, Overlay
from ._policy import ChatPolicy, Policy, as_policy
from ._record import CANDIDATE_REASONS, FAIL_SAFE, REASONS, CandidateRecord, TurnRecord
from ._state import FEEDBACK, Candidate, Feedback, ObserverState, Utterance
from ._studies import (
    SMALLTALK_BOUNDS,
    SmallTalkRun,
    SmallTalkStudy,
    drifting_smalltalk_model,
    plot_smalltalk,
    smalltalk_observer,
    smalltalk_study,
)
from ._trajectory import Consecutive, RunningMean, TopicDrift

__all__ = [
    "SMALLTALK_BOUNDS", "SmallTalkRun", "SmallTalkStudy", "plot_smalltalk", "smalltalk_study",
    "drifting_smalltalk_model", "smalltalk_observer",
    "DEESCALATION_ACTIVITIES", "DeescalationStudy", "StandInStudent", "deescalation_study",
    "plot_deescalation",
    "AFFECT_SCORES", "Affect", "Consecutive", "RunningMean", "Specificity", "TopicDrift",
    "CANDIDATE_REASONS", "FAIL_SAFE", "FEEDBACK", "KINDS", "OFFLINE", "REASONS",
    "DECISIONS", "MAX_HORIZON", "SIGNALS", "UNSURE", "Activity", "AdaptiveRigidity",
    "Arbitration", "Decision", "Ensemble", "Lookahead", "Supervisor",
    "AdviceMarkers", "Assessment", "Brevity", "Candidate", "CandidateRecord", "ChatPolicy",
    "Condition", "ContextValue", "Extractor", "Fallback", "FallbackLibrary", "Feedback",
    "FilterOverlay", "FunctionExtractor", "Length", "Observer", "ObserverFilter",
    "ObserverState", "Overlay", "PermissiveOverlay", "Policy", "ProhibitoryOverlay",
    "QuestionRate", "Repetition", "TransferOverlay", "TurnRecord", "Utterance", "as_policy",
    "extractor",
]  # fmt: skip

publish(__name__, globals(), __all__)
