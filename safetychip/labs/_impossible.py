"""*Make it impossible*: the student adds one constraint that makes a task unsatisfiable, or
one that keeps it satisfiable but blocks a given plan; the monitor's satisfiability analysis
decides.

Examples
--------
>>> task = ['F "agent_at(kitchen)"']
>>> print(check_impossible('G !"agent_at(kitchen)"', task))
✓ correct: no run can meet the constraints now; a smallest conflicting set: c1, yours.
>>> print(check_impossible('G !"agent_at(bathroom)"', task,
...                        atoms=["agent_at(kitchen)", "agent_at(bathroom)"]))
✗ incorrect: the task is still possible: start at kitchen, DONE meets every constraint, yours
included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..automata import to_dfa
from ..ltl import And, Formula, parse
from ..monitor import Constraint, Monitor, Status, as_constraints
from ._feedback import CORRECT, INCORRECT, INVALID, Feedback, guarded, read_formula, trace_words

__all__ = ["check_impossible"]

#: The student's constraint's name in verdicts.
YOURS = "yours"


@guarded
def check_impossible(
    answer: Any,
    constraints: Iterable[Constraint | Formula | str],
    *,
    plan: Sequence[tuple[str, Any]] | None = None,
    initial: Any = None,
    invariants: Iterable[Formula | str] = (),
    atoms: Iterable[str] | None = None,
    exercise: str = "",
) -> Feedback:
    """Check a constraint the student adds to *constraints*.

    Without *plan*: correct when the constraints with the student's one are unsatisfiable
    (the monitor aborts) while the student's one alone is satisfiable (``false`` is not an
    answer). With *plan*: correct when the constraints stay satisfiable from *initial* but
    the monitor refuses some action of the plan, or its DONE.

    Parameters
    ----------
    answer : str or Formula
        The added constraint; ``...`` is *not attempted*.
    constraints : iterable of Constraint, Formula or str
        The task's constraints.
    plan : sequence of (action, states), optional
        The plan to block: each action with the proposition state (or states) it produces.
    initial : proposition state, optional
        The state before the plan's first action (required with *plan*).
    invariants : iterable of Formula or str
        The domain's invariants (e.g. one room at a time).
    atoms : iterable of str, optional
        The propositions the answer may use (default: those of the constraints, the
        invariants and the plan's states).
    exercise : str
        The exercise's label.
    """
    task = as_constraints(constraints)
    inv = [i if isinstance(i, Formula) else parse(i) for i in invariants]
    if atoms is None:
        known = set().union(*(c.formula.atoms() for c in task), *(i.atoms() for i in inv))
        for _, states in plan or ():
            for s in states if isinstance(states, list) else [states]:
                known.update(s)
        atoms = known
    if Monitor(task, inv).reset().status is Status.ABORT:
        return Feedback(exercise, INVALID, "the task is impossible already, before any added "
                        "constraint: the exercise is broken (tell your instructor)")  # fmt: skip
    if plan is not None and not _passes(Monitor(task, inv), plan, initial):
        return Feedback(exercise, INVALID, "the task's constraints refuse this plan already, "
                        "before any added constraint: the exercise is broken (tell your "
                        "instructor)")  # fmt: skip
    f = read_formula(answer, atoms=atoms, exercise=exercise, what="your constraint")
    if isinstance(f, Feedback):
        return f
    yours = Constraint(f, "your constraint", YOURS)
    if Monitor([yours], inv).reset().status is Status.ABORT:
        return Feedback(
            exercise,
            INCORRECT,
            "your constraint cannot be met on its own: it forbids every run, whatever the "
            "task. Find one that is reasonable alone and conflicts with the task",
        )
    monitor = Monitor([*task, yours], inv)
    if plan is None:
        start = monitor.reset()
        if start.status is Status.ABORT:
            return Feedback(
                exercise,
                CORRECT,
                "no run can meet the constraints now; a smallest conflicting set: "
                f"{', '.join(start.violated)}.",
            )
        run = to_dfa(And(*inv, *(c.formula for c in monitor.constraints))).shortest_accepted()
        words = trace_words(run or [])
        return Feedback(
            exercise,
            INCORRECT,
            f"the task is still possible: {words} meets every constraint, yours included.",
            witness=(words,),
        )
    return _block(monitor, plan, initial, exercise)


def _only(states: Any, atoms: Sequence[str]) -> Any:
    """*states* (one state or a list of them) over *atoms* only: a plan's states may name
    propositions that a monitor does not judge."""
    if states is None:
        return None
    if isinstance(states, list):
        return [_only(s, atoms) for s in states]
    if isinstance(states, Mapping):
        return {a: v for a, v in states.items() if a in atoms}
    return {a for a in states if a in atoms}


def _passes(monitor: Monitor, plan: Sequence[tuple[str, Any]], initial: Any) -> bool:
    if not monitor.reset(_only(initial, monitor.atoms)).safe:
        return False
    for _, states in plan:
        if not monitor.commit(_only(states, monitor.atoms)).safe:
            return False
    return monitor.finish().safe


def _block(
    monitor: Monitor, plan: Sequence[tuple[str, Any]], initial: Any, exercise: str
) -> Feedback:
    start = monitor.reset(_only(initial, monitor.atoms))
    if start.status is Status.ABORT:
        return Feedback(
            exercise,
            INCORRECT,
            "too strong: with your constraint no run can meet the constraints at all "
            f"({start.reason}); the exercise wants the task still possible, only this plan "
            "refused",
        )
    if not start.safe:
        return Feedback(exercise, INCORRECT, f"too strong: the start is already refused "
                        f"({start.reason}); block an action of the plan instead")  # fmt: skip
    done: list[str] = []
    for i, (action, full) in enumerate(plan, 1):
        states = _only(full, monitor.atoms)
        verdict = monitor.check(states)
        if not verdict.safe:
            return Feedback(
                exercise,
                CORRECT,
                f"your constraint blocks the plan at step {i} ({action!r}): {verdict.reason}; "
                "and the task stays possible.",
            )
        monitor.commit(states)
        done.append(action)
    end = monitor.finish()
    if not end.safe:
        return Feedback(
            exercise,
            CORRECT,
            f"your constraint refuses the plan's DONE: {end.reason}; and the task stays possible.",
        )
    return Feedback(
        exercise,
        INCORRECT,
        f"the plan still runs to the end under your constraint: {', '.join(done)}, DONE.",
    )
