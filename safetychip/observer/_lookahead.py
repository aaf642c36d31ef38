"""Lookahead: roll a candidate forward a few turns with a simulated user and a second base
policy, and refuse it when the rollout enters an inadmissible region (a turn where no reply
the policy proposes passes the rollout's observer).

The cost is bounded: at most *horizon* turns, each one call of the simulated user, one of
the policy and one evaluation per proposed reply. A fault inside the rollout (the user or
the policy raising, the policy proposing nothing) propagates, so the observer running the
overlay fails safe with ``"overlay_error"``.

Examples
--------
The simulated user grows frustrated at advice; the rollout policy keeps giving it, and the
rollout observer bounds advice when the user is frustrated.

>>> from safetychip.observer import (AdviceMarkers, Condition, ContextValue, Observer,
...                                  ProhibitoryOverlay)
>>> def user(state):
...     state.context["frustration"] = 0.9 if "should" in state.history[-1].text else 0.1
...     return "Hm."
>>> rollout = Observer([AdviceMarkers(), ContextValue("frustration")],
...                    [ProhibitoryOverlay("calm", "advice", at_most=0.0,
...                                        when=Condition("frustration", 0.7))])
>>> look = Lookahead(rollout, lambda state, feedback: "You should rest more.", user,
...                  horizon=1)
>>> state = ObserverState(context={"frustration": 0.1})
>>> look.assess({}, Candidate("You should rest."), state).descriptor
'rollout turn 1 enters an inadmissible region: calm: advice 1.00 is above 0.00 by 1.00'
>>> look.assess({}, Candidate("How was your day?"), state).deviation
0.0
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ObserverError
from ..llm import ChatModel
from ._observer import Observer
from ._overlay import Assessment, Features, Overlay
from ._policy import Policy, as_policy
from ._state import Candidate, ObserverState

__all__ = ["MAX_HORIZON", "Lookahead"]

#: The longest rollout a lookahead may run (its cost bound).
MAX_HORIZON = 10

#: A simulated user: ``user(state) -> str``, its next turn; it may set ``state.context``
#: (a rollout's own copy) to the signals the rollout observer reads.
User = Callable[[ObserverState], str]


class Lookahead(Overlay):
    """A prohibitory overlay with ε = 0 that refuses a candidate whose rollout enters an
    inadmissible region (δ = 1), with reason ``"lookahead"``.

    Parameters
    ----------
    observer : Observer
        Judges the rollout policy's replies (its :meth:`~Observer.evaluate`, no loop).
    policy : ChatModel or callable
        The second base policy that replies in the rollout (its most confident admissible
        reply is taken).
    user : callable
        The simulated user, ``user(state) -> str``.
    horizon : int
        Turns rolled forward, 1 to :data:`MAX_HORIZON`.
    name : str

    Raises
    ------
    ValueError
        If *horizon* is outside ``[1, MAX_HORIZON]``.
    """

    kind = "prohibitory"
    rejects_as = "lookahead"

    def __init__(self, observer: Observer, policy: ChatModel | Policy, user: User, *,
                 horizon: int = 2, name: str = "lookahead") -> None:  # fmt: skip
        if not 1 <= horizon <= MAX_HORIZON:
            raise ValueError(f"lookahead {name!r}: horizon must be in [1, {MAX_HORIZON}], "
                             f"got {horizon}")  # fmt: skip
        self.observer, self.propose, self.user = observer, as_policy(policy), user
        self.horizon, self.name, self.rigidity = horizon, name, 0.0

    def assess(self, features: Features, candidate: Candidate,
               state: ObserverState) -> Assessment:  # fmt: skip
        """Roll *candidate* forward on a copy of *state*; δ = 1 at the first turn where the
        rollout policy has no admissible reply.

        Raises
        ------
        ObserverError
            If the rollout policy proposes nothing.
        """
        rollout = ObserverState(list(state.history), dict(state.context), state.trace)
        rollout.say("agent", candidate.text)
        for turn in range(1, self.horizon + 1):
            rollout.say("user", self.user(rollout))
            replies = self.propose(rollout, None)
            if not replies:
                raise ObserverError(f"lookahead {self.name!r}: the rollout policy proposed "
                                    f"nothing at turn {turn}: make it always reply")  # fmt: skip
            records = [self.observer.evaluate(reply, rollout) for reply in replies]
            admissible = [r for r in records if r.admissible]
            if not admissible:
                why = "; ".join(dict.fromkeys(f"{a.overlay}: {a.descriptor}"
                                              for r in records for a in r.rejections))  # fmt: skip
                return self._assessment(
                    f"rollout turn {turn} enters an inadmissible region: {why}", 1.0
                )
            rollout.say("agent", max(admissible, key=lambda r: r.confidence).text)
        return self._assessment(f"the {self.horizon}-turn rollout stays admissible", 0.0)
