"""The grounded observer: a base policy proposes, the observer measures each candidate's
features, asks every overlay for its deviation, builds the admissible set and enforces it.

Enforcement, per turn::

    propose ── features, overlays ──► admissible set ── best confident one ──► release
       ▲                                   │ empty, low confidence or conflict   (implicit
       └── forced feedback (≤ budget) ◄────┘                                    feedback)
                                           │ budget spent
                                           ▼
                                 fallback chosen by its conditions (else the default)

Fail safe: a policy that raises, proposes nothing or overruns its time budget, a feature
outside its range, an overlay that raises, overruns its budget or returns a bad deviation:
the turn releases the default fallback at once, never an unevaluated candidate, and the
record says why.

Rules of the admissible set:

* a candidate is admissible iff every overlay's δ ≤ ε, after permissions: an active
  permissive overlay lifts the rejections of the overlays it names;
* **conflict**: a permission never lifts a hard prohibition (ε = 0, e.g. the Safety Chip);
  the prohibition wins and the candidate is refused with reason ``"conflict"``;
* **lookahead**: a candidate refused only by lookahead overlays (rollouts that enter an
  inadmissible region) has reason ``"lookahead"``, and so has a round of only such;
* the released candidate is the admissible one of highest confidence (then least total
  deviation, then first proposed); below the observer's confidence threshold the round is
  rejected as ``"low_confidence"``.

Examples
--------
>>> from safetychip.observer import Length, ProhibitoryOverlay
>>> observer = Observer([Length()], [ProhibitoryOverlay("brief", "length", at_most=5,
...                                                      rigidity=1)])
>>> state = ObserverState().say("user", "Hi!")
>>> replies = iter([["Hello, how are you doing today, my friend?"], ["Hello, how are you?"]])
>>> record = observer.step(lambda state, feedback: next(replies), state)
>>> record.released, record.reason, len(record.candidates)
('Hello, how are you?', 'released', 2)
>>> record.feedback
(Feedback(kind='forced', descriptors=('brief: length 8.00 is above 5.00 by 3.00',)),)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from .._budget import Budget
from ..errors import ObserverError
from ..llm import ChatModel
from ._fallback import FallbackLibrary
from ._features import Extractor
from ._overlay import Overlay
from ._policy import Policy, as_policy
from ._record import FAIL_SAFE, CandidateRecord, TurnRecord
from ._state import Candidate, Feedback, ObserverState

__all__ = ["Observer"]


class _FailSafe(Exception):
    """A turn that must yield the default fallback: *reason* is one of FAIL_SAFE."""

    def __init__(self, reason: str, note: str) -> None:
        super().__init__(note)
        self.reason = reason


class Observer:
    """Admit or reject candidates with extractors and overlays; enforce with regeneration and
    fallbacks.

    Parameters
    ----------
    extractors : iterable of Extractor
        Measured on every candidate (names must be unique).
    overlays : iterable of Overlay
        Asked in order about every candidate.
    fallbacks : FallbackLibrary, optional
        Default: an empty library with its default fallback.
    budget : int
        Regenerations after the first proposal (0: none).
    confidence : float
        The best admissible candidate must reach it, else ``"low_confidence"``.
    call_seconds : float or None
        The time budget of each call of the policy, and of each candidate's evaluation
        (extractors and overlays), in :meth:`step`; 10 s by default, None for no limit.

    Raises
    ------
    ObserverError
        If an overlay reads a feature no extractor provides, or a permission names an
        unknown overlay.
    """

    def __init__(self, extractors: Iterable[Extractor] = (), overlays: Iterable[Overlay] = (),
                 fallbacks: FallbackLibrary | None = None, *, budget: int = 2,
                 confidence: float = 0.0, call_seconds: float | None = 10.0) -> None:  # fmt: skip
        self.extractors, self.overlays = tuple(extractors), tuple(overlays)
        self.fallbacks = fallbacks if fallbacks is not None else FallbackLibrary()
        if budget < 0:
            raise ValueError(f"the regeneration budget must be >= 0, got {budget}")
        self.budget, self.confidence = budget, confidence
        self._policy_budget = Budget(call_seconds, "the base policy")
        self._evaluation_budget = Budget(call_seconds, "the evaluation of a candidate")
        names = [e.name for e in self.extractors]
        if len(set(names)) < len(names):
            raise ObserverError(f"extractor names must be unique, got {names}: rename one")
        for overlay in self.overlays:
            missing = sorted(set(overlay.reads) - set(names))
            if missing:
                raise ObserverError(f"overlay {overlay.name!r} reads {', '.join(missing)}, "
                                    "which no extractor provides: add an extractor of that "
                                    "name")  # fmt: skip
        known = {o.name for o in self.overlays}
        for overlay in self.overlays:
            unknown = sorted(set(getattr(overlay, "lifts", ())) - known)
            if unknown:
                raise ObserverError(
                    f"overlay {overlay.name!r} lifts unknown overlays "
                    f"{', '.join(unknown)}: name this observer's overlays"
                )

    # -- evaluation ---------------------------------------------------------------------------

    def features(self, candidate: Candidate, state: ObserverState) -> dict[str, float]:
        """Every extractor's checked value for *candidate* (raises ObserverError when one is
        outside its range)."""
        return {e.name: e.measure(candidate, state) for e in self.extractors}

    def assess(self, candidate: Candidate, features: Mapping[str, float],
               state: ObserverState, round: int = 0) -> CandidateRecord:  # fmt: skip
        """The overlays' assessments of *candidate* and the decision (see the module's rules).

        Raises
        ------
        ObserverError
            If an overlay returns a deviation that is not a number >= 0 (an overlay's own
            exception passes through).
        """
        assessments = tuple(o.assess(features, candidate, state) for o in self.overlays)
        for a in assessments:
            if not (a.deviation >= 0 and math.isfinite(a.deviation)):
                raise ObserverError(f"overlay {a.overlay!r} returned deviation {a.deviation}: "
                                    "a deviation is a finite number >= 0")  # fmt: skip
        permitted = {name for a in assessments for name in a.lifts}
        lifted, conflicts, blocking = [], [], []
        for a in assessments:
            if a.admissible:
                continue
            if a.overlay not in permitted:
                blocking.append(a.overlay)
            elif a.kind == "prohibitory" and a.rigidity == 0:
                conflicts.append(a.overlay)
            else:
                lifted.append(a.overlay)
        causes = {o.rejects_as for o in self.overlays if o.name in blocking}
        reason = ("conflict" if conflicts else "admissible" if not blocking
                  else causes.pop() if len(causes) == 1 else "deviation")  # fmt: skip
        return CandidateRecord(candidate.text, candidate.confidence, round, features,
                               assessments, reason == "admissible", reason, tuple(lifted),
                               tuple(conflicts))  # fmt: skip

    def evaluate(self, candidate: Candidate, state: ObserverState) -> CandidateRecord:
        """:meth:`features` then :meth:`assess`."""
        return self.assess(candidate, self.features(candidate, state), state)

    # -- the loop -----------------------------------------------------------------------------

    def step(self, policy: ChatModel | Policy, state: ObserverState) -> TurnRecord:
        """One turn: propose, evaluate, release or regenerate, then fall back.

        The released text is appended to ``state.history`` as the agent's turn, and
        ``state.feedback`` becomes the implicit feedback for the next turn (or None).

        Parameters
        ----------
        policy : ChatModel or callable
            The base policy (see :func:`as_policy`).
        state : ObserverState
            The interaction state; its ``feedback`` goes to the first proposal.

        Returns
        -------
        TurnRecord
        """
        propose = as_policy(policy)
        records: list[CandidateRecord] = []
        given: list[Feedback] = []
        feedback = state.feedback
        reason = "empty"
        try:
            for round in range(self.budget + 1):
                if round:
                    given.append(feedback)  # type: ignore[arg-type]
                batch = self._round(propose, state, feedback, round, records)
                best = self._best(batch)
                if best is not None and best.confidence >= self.confidence:
                    return self._release(best, records, given, state)
                reason, feedback = self._rejection(batch, best)
        except _FailSafe as fault:
            return self._fall_back(fault.reason, records, given, state, [str(fault)])
        return self._fall_back(reason, records, given, state, [])

    def _round(self, propose: Policy, state: ObserverState, feedback: Feedback | None,
               round: int, records: list[CandidateRecord]) -> list[CandidateRecord]:  # fmt: skip
        try:
            candidates = self._policy_budget.call(propose, state, feedback)
        except Exception as exc:  # any policy fault fails safe
            raise _FailSafe("policy_error", f"the base policy raised {exc!r}") from exc
        if not candidates:
            raise _FailSafe("no_candidate", f"the base policy proposed nothing (round {round})")
        batch = []
        for candidate in candidates:
            try:
                record = self._evaluation_budget.call(self._evaluate, candidate, state, round)
            except _FailSafe:
                raise
            except Exception as exc:  # past the budget: nothing was evaluated in time
                raise _FailSafe("overlay_error", f"{candidate.text!r}: {exc}") from exc
            batch.append(record)
            records.append(record)
        return batch

    def _evaluate(self, candidate: Candidate, state: ObserverState,
                  round: int) -> CandidateRecord:  # fmt: skip
        """:meth:`features` then :meth:`assess`, each fault a :class:`_FailSafe`."""
        try:
            features = self.features(candidate, state)
        except Exception as exc:
            raise _FailSafe("feature_error", f"{candidate.text!r}: {exc}") from exc
        try:
            return self.assess(candidate, features, state, round)
        except Exception as exc:
            raise _FailSafe("overlay_error", f"{candidate.text!r}: {exc!r}") from exc

    @staticmethod
    def _best(batch: list[CandidateRecord]) -> CandidateRecord | None:
        admissible = [r for r in batch if r.admissible]
        if not admissible:
            return None
        return max(admissible, key=lambda r: (r.confidence, -r.deviation))

    def _rejection(self, batch: list[CandidateRecord],
                   best: CandidateRecord | None) -> tuple[str, Feedback]:  # fmt: skip
        if best is not None:
            return "low_confidence", Feedback("forced", (
                f"confidence {best.confidence:.2f} is below {self.confidence:.2f}",))  # fmt: skip
        descriptors = [f"{a.overlay}: {a.descriptor}" for r in batch for a in r.rejections]
        reasons = {r.reason for r in batch}
        reason = ("conflict" if "conflict" in reasons else "lookahead" if reasons == {"lookahead"}
                  else "empty")  # fmt: skip
        return reason, Feedback("forced", tuple(dict.fromkeys(descriptors)))

    @staticmethod
    def _release(best: CandidateRecord, records: list[CandidateRecord], given: list[Feedback],
                 state: ObserverState) -> TurnRecord:  # fmt: skip
        implicit = tuple(f"{a.overlay}: {a.descriptor}" for a in best.assessments
                         if a.deviation > 0)  # fmt: skip
        state.feedback = Feedback("implicit", implicit) if implicit else None
        state.say("agent", best.text)
        feedback = (*given, state.feedback) if state.feedback else tuple(given)
        return TurnRecord(tuple(records), best.text, "policy", "released", feedback=feedback)

    def _fall_back(self, reason: str, records: list[CandidateRecord], given: list[Feedback],
                   state: ObserverState, notes: list[str]) -> TurnRecord:  # fmt: skip
        if reason in FAIL_SAFE:
            fallback = self.fallbacks.default
        else:
            fallback, note = self.fallbacks.choose(reason, state)
            notes += [note] if note else []
        state.feedback = None
        state.say("agent", fallback.text)
        return TurnRecord(tuple(records), fallback.text, "fallback", reason, fallback.name,
                          tuple(given), tuple(notes))  # fmt: skip

    def __repr__(self) -> str:
        return (f"<Observer: {len(self.extractors)} extractors, {len(self.overlays)} overlays, "
                f"budget {self.budget}>")  # fmt: skip
