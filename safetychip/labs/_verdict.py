"""*Predict the verdict*: safe or violation for a proposed action, checked against the
monitor, with each constraint's path through its automaton as the feedback.

Examples
--------
>>> from safetychip.monitor import Constraint, Monitor
>>> m = Monitor([Constraint.parse('!"agent_at(kitchen)" W "agent_at(bathroom)"',
...                               "Don't enter the kitchen before the bathroom", name="c1")])
>>> _ = m.reset({"agent_at(kitchen)": False, "agent_at(bathroom)": False})
>>> print(check_verdict("safe", m, {"agent_at(kitchen)"}, action="walk to kitchen"))
✗ incorrect: the monitor says VIOLATION for 'walk to kitchen', not safe: it would break c1
(Don't enter the kitchen before the bathroom). The automata:
  c1: 0 —start with nothing true→ 1 ⇒ walk to kitchen: (walk to kitchen)→ 2 (dead: c1 can
  never be met now)
"""

from __future__ import annotations

from typing import Any

from ..automata import DFA
from ..monitor import Monitor, Status, proposition_states
from ._feedback import (
    CORRECT,
    INCORRECT,
    INVALID,
    NOT_ATTEMPTED,
    Feedback,
    guarded,
    not_attempted,
    step_words,
    trace_words,
)

__all__ = ["automaton_paths", "check_verdict"]

_WORDS = {
    "safe": Status.SAFE,
    "ok": Status.SAFE,
    "allowed": Status.SAFE,
    "violation": Status.VIOLATION,
    "violated": Status.VIOLATION,
    "unsafe": Status.VIOLATION,
    "refused": Status.VIOLATION,
    "violation!": Status.VIOLATION,
}


def _state_mark(dfa: DFA, q: int, name: str) -> str:
    if q in dfa.dead_states():
        return f" (dead: {name} can never be met now)"
    return " (accepting: the run could end here)" if dfa.accepting[q] else ""


def automaton_paths(
    monitor: Monitor, states: Any = None, *, action: str | None = None
) -> list[str]:
    """Each constraint's path through its automaton: from the initial state along the
    committed trace, then (``⇒``) along the proposed action's *states*, one line per
    constraint, each step labelled in the environment's words.

    Examples
    --------
    >>> m = Monitor(['G !"is_grabbed(phone)"'])
    >>> _ = m.reset(set())
    >>> print(*automaton_paths(m, {"is_grabbed(phone)"}, action="grab phone"))
    c1: 0 —start with nothing true→ 1 ⇒ grab phone: (grab phone)→ 2 (dead: c1 can never be met
    now)
    """
    proposed = [] if states is None else proposition_states(states, monitor.atoms)
    history = list(monitor.history)
    lines = []
    for c in monitor.constraints:
        dfa = monitor.dfa(c.name)
        q = dfa.initial
        parts = [str(q)]
        previous: frozenset[str] | None = None
        for i, letter in enumerate(history + proposed):
            now = frozenset(a for a, v in letter.items() if v)
            q = dfa.next_state(q, letter)
            if previous is None:
                label = "start " + _start(now)
            else:
                label = step_words(previous, now)
            if i == len(history):
                parts.append(f"⇒ {action + ': ' if action else ''}({label})→ {q}")
            elif i > len(history):
                parts.append(f"({label})→ {q}")
            else:
                parts.append(f"—{label}→ {q}")
            previous = now
        lines.append(f"{c.name}: {' '.join(parts)}{_state_mark(dfa, q, c.name)}")
    return lines


def _start(letter: frozenset[str]) -> str:
    return trace_words([letter], done=False).removeprefix("start ")


def _prediction(answer: Any) -> Status | str:
    """The predicted status, or why it cannot be read."""
    if isinstance(answer, Status):
        return answer
    if isinstance(answer, bool) or not isinstance(answer, str):
        return f"answer with the text 'safe' or 'violation', not {answer!r:.40}"
    word = answer.strip().lower()
    if word not in _WORDS:
        return f"answer 'safe' or 'violation', not {answer!r:.40}"
    return _WORDS[word]


@guarded
def check_verdict(
    prediction: Any,
    monitor: Monitor,
    states: Any,
    *,
    action: str | None = None,
    exercise: str = "",
) -> Feedback:
    """Check a predicted verdict for the action producing *states* in *monitor*'s state.

    Parameters
    ----------
    prediction : str
        ``"safe"`` or ``"violation"`` (also ``"unsafe"``, ``"violated"``); ``...`` is *not
        attempted*.
    monitor : Monitor
        The monitor after the trace so far (not changed: the action is only checked).
    states : proposition state or list of them
        What the action would produce (as for :meth:`~safetychip.monitor.Monitor.check`).
    action : str, optional
        The action's words.
    exercise : str
        The exercise's label.
    """
    if not_attempted(prediction):
        return Feedback(exercise, NOT_ATTEMPTED, "replace the ... with 'safe' or 'violation'")
    guess = _prediction(prediction)
    if not isinstance(guess, Status):
        return Feedback(exercise, INVALID, guess)
    verdict = monitor.check(states)
    paths = "\n  ".join(automaton_paths(monitor, states, action=action))
    name = repr(action) if action else "the action"
    said = verdict.status.value.upper()
    why = f"{verdict.reason}. The automata:\n  {paths}"
    if guess is verdict.status:
        return Feedback(exercise, CORRECT, f"the monitor says {said} for {name}: {why}")
    return Feedback(
        exercise,
        INCORRECT,
        f"the monitor says {said} for {name}, not {guess.value}: {why}",
    )
