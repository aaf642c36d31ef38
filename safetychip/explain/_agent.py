"""Agent queries: why an action was refused, and what the agent could do instead.

Two answers:

:func:`explain_violation`
    Deterministic, from the monitor: the constraints the violation is attributed to, the
    literals the action would change (the ``Violated:`` lines), what each constraint still
    owes, and the shortest sequence of changes after which the same action would be allowed
    (or that none exists).
:func:`agent_query_messages` and :func:`ask_agent_query`
    The Safety Chip paper's prompt for a language model: the constraints in English, the
    valid actions with their ``Safe:`` lines, the invalid action with its ``Violated:``
    lines, and ``Reason of violation:``.

Examples
--------
>>> from safetychip.monitor import Constraint, Monitor
>>> m = Monitor([Constraint.parse('!"agent_at(kitchen)" W "agent_at(bathroom)"',
...                               "Don't enter the kitchen before the bathroom", name="c1")])
>>> _ = m.reset({"agent_at(kitchen)": False, "agent_at(bathroom)": False})
>>> e = explain_violation(m, {"agent_at(kitchen)": True, "agent_at(bathroom)": False},
...                       action="walk to kitchen")
>>> print(e)
'walk to kitchen' is refused: it would break c1 (Don't enter the kitchen before the
bathroom). The action makes agent_at(kitchen) true (Violated: agent_at(kitchen)). To keep
c1, first: walk to bathroom; after that the action is allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..llm import ChatModel, Message
from ..monitor import Constraint, Monitor, Verdict, proposition_states
from ._words import letter_words

__all__ = [
    "AgentExplanation",
    "LLMExplanation",
    "agent_query_messages",
    "ask_agent_query",
    "explain_violation",
]


@dataclass(frozen=True)
class AgentExplanation:
    """A deterministic explanation of a verdict, for the agent.

    Attributes
    ----------
    action : str or None
        The proposed action.
    status : str
        The verdict's status (``"violation"``, ``"safe"``).
    violated : tuple of str
        Names of the constraints the violation is attributed to.
    state_changes : tuple of str
        The verdict's ``Safe:`` / ``Violated:`` lines.
    owed : dict of str to str
        Per violated constraint, what it still needs before the trace may end ("" if nothing).
    remedy : dict of str to str or None
        Per violated constraint, the shortest changes after which it allows the action, in
        words; ``""`` when it allows the action already (a joint conflict), None when no
        sequence of changes helps.
    text : str
        The explanation in English.
    """

    action: str | None
    status: str
    violated: tuple[str, ...]
    state_changes: tuple[str, ...]
    owed: dict[str, str] = field(default_factory=dict)
    remedy: dict[str, str | None] = field(default_factory=dict)
    text: str = ""

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "action": self.action,
            "status": self.status,
            "violated": list(self.violated),
            "state_changes": list(self.state_changes),
            "owed": dict(self.owed),
            "remedy": dict(self.remedy),
            "text": self.text,
        }

    def __str__(self) -> str:
        return self.text


def _letters(monitor: Monitor, states) -> list[dict[str, bool]]:
    return proposition_states(states, monitor.atoms)


def _describe(c: Constraint) -> str:
    return f"{c.name} ({c.sentence or c.formula})"


def explain_violation(
    monitor: Monitor, states, *, action: str | None = None, verdict: Verdict | None = None
) -> AgentExplanation:
    """Explain the monitor's verdict on an action producing *states*, without committing it.

    Parameters
    ----------
    monitor : Monitor
        The monitor, in the state before the action.
    states : proposition state or list of them
        What the action would produce (as for :meth:`Monitor.check`).
    action : str, optional
        The action's words, for the text.
    verdict : Verdict, optional
        The verdict, if already computed (else ``monitor.check(states)``).
    """
    verdict = verdict or monitor.check(states)
    name = f"{action!r}" if action else "the action"
    if verdict.safe:
        return AgentExplanation(
            action,
            verdict.status.value,
            (),
            verdict.state_changes,
            text=f"{name} is safe: every constraint can still be satisfied.",
        )
    letters = _letters(monitor, states)
    by_name = {c.name: c for c in monitor.constraints}
    culprits = [by_name[n] for n in verdict.violated if n in by_name]
    now = monitor.automaton_states
    last = frozenset(a for a, v in (monitor.history[-1].items() if monitor.history else ()) if v)
    owed: dict[str, str] = {}
    remedy: dict[str, str | None] = {}
    for c in culprits:
        dfa = monitor.dfa(c.name)
        q = now[c.name]
        start = last & frozenset(dfa.aps)
        live = dfa.live_states()
        path = dfa.shortest_accepted(q)
        owed[c.name] = "" if not path else letter_words(path, start)
        goal = [s for s in range(dfa.num_states) if dfa.run(letters, s) in live]
        fix = dfa.shortest_path(goal, q) if goal else None
        # None: nothing helps; "": this constraint alone allows the action.
        remedy[c.name] = None if fix is None else letter_words(fix, start)
    parts = []
    if len(culprits) == 1:
        parts.append(f"{name} is refused: it would break {_describe(culprits[0])}.")
    elif culprits:
        alone = all(
            monitor.dfa(c.name).run(letters, now[c.name]) in monitor.dfa(c.name).dead_states()
            for c in culprits
        )
        joined = "; ".join(_describe(c) for c in culprits)
        parts.append(
            f"{name} is refused: it would break {joined}."
            if alone
            else f"{name} is refused: after it, these constraints could no longer all be "
            f"met together: {joined}."
        )
    else:
        parts.append(f"{name} is refused: {verdict.reason}.")
    lits = [
        x
        for line in verdict.state_changes
        if ": " in line
        for x in line.split(": ", 1)[1].split(" & ")
        if x and not x.startswith("(")
    ]
    if verdict.state_changes:
        made = ", ".join(x.lstrip("!") + (" false" if x.startswith("!") else " true") for x in lits)
        lines = "; ".join(verdict.state_changes)
        parts.append(
            f"The action makes {made} ({lines})."
            if made
            else f"The action changes none of their propositions ({lines})."
        )
    for c in culprits:
        if remedy[c.name]:
            parts.append(
                f"To keep {c.name}, first: {remedy[c.name]}; after that the action is allowed."
            )
        elif remedy[c.name] is None:
            parts.append(
                f"No later actions make this allowed under {c.name}: choose another action."
            )
        if owed[c.name]:
            parts.append(f"{c.name} still needs: {owed[c.name]}.")
    return AgentExplanation(
        action,
        verdict.status.value,
        verdict.violated,
        verdict.state_changes,
        owed,
        remedy,
        " ".join(parts),
    )


def _line(action: str, lines: Sequence[str]) -> str:
    return f"{action}. " + "; ".join(lines) if lines else f"{action}."


def agent_query_messages(
    constraints: Sequence[Constraint | str],
    valid: Sequence[tuple[str, Sequence[str]]],
    invalid: tuple[str, Sequence[str]],
) -> list[Message]:
    """The paper's agent-query prompt (``data/prompts/agent_query.txt``) as chat messages.

    Parameters
    ----------
    constraints : sequence of Constraint or str
        The constraints, shown by their English sentence (else their formula).
    valid : sequence of (action, lines)
        The actions taken so far with their ``Safe:`` lines.
    invalid : (action, lines)
        The refused action with its ``Violated:`` lines.

    Examples
    --------
    >>> msgs = agent_query_messages(["Never enter the kitchen"],
    ...                             [("walk to hallway", ["Safe: agent_at(hallway)"])],
    ...                             ("walk to kitchen", ["Violated: agent_at(kitchen)"]))
    >>> print(msgs[-1].content)
    Constraints:
    1. Never enter the kitchen
    Valid actions:
    walk to hallway. Safe: agent_at(hallway)
    Invalid action:
    walk to kitchen. Violated: agent_at(kitchen)
    Reason of violation:
    """
    from ..llm import load_prompt

    shown = [c if isinstance(c, str) else (c.sentence or str(c.formula)) for c in constraints]
    body = ["Constraints:", *(f"{i}. {s}" for i, s in enumerate(shown, 1)), "Valid actions:"]
    body += [_line(a, lines) for a, lines in valid] or ["(none yet)"]
    body += ["Invalid action:", _line(*invalid), "Reason of violation:"]
    return [Message("system", load_prompt("agent_query")), Message("user", "\n".join(body))]


@dataclass(frozen=True)
class LLMExplanation:
    """A language model's explanation (or a stand-in's, which says so).

    Attributes
    ----------
    text : str
        The reason, as the model wrote it after ``Reason of violation:``.
    model : str
        The model's name.
    stand_in : bool
        True when an offline stand-in wrote it: never report it as an LLM result.
    """

    text: str
    model: str
    stand_in: bool = False

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"text": self.text, "model": self.model, "stand_in": self.stand_in}

    def __str__(self) -> str:
        return self.text + (" [offline stand-in, not a language model]" if self.stand_in else "")


def ask_agent_query(model: ChatModel, constraints, valid, invalid) -> LLMExplanation:
    """Ask *model* the agent query (see :func:`agent_query_messages`).

    Raises
    ------
    LLMError
        If the request fails.

    Examples
    --------
    >>> from safetychip.llm import ScriptedModel
    >>> llm = ScriptedModel(["Reason of violation: it enters the kitchen."])
    >>> print(ask_agent_query(llm, ["Never enter the kitchen"], [],
    ...                       ("walk to kitchen", ["Violated: agent_at(kitchen)"])))
    it enters the kitchen. [offline stand-in, not a language model]
    """
    reply = model.complete(
        agent_query_messages(constraints, valid, invalid), temperature=0.0, max_tokens=200
    )
    text = reply.text.strip()
    if text.lower().startswith("reason of violation:"):
        text = text.split(":", 1)[1].strip()
    return LLMExplanation(text, reply.model, reply.stand_in)
