"""*Explain the violation*: the student's free text against the key facts of the monitor's
deterministic explanation (:func:`~safetychip.explain.explain_violation`): which constraint
is broken, which proposition the action changes, and at which step. Lenient on wording:
a constraint may be named (``c1``) or paraphrased, a proposition by its object
("the kitchen"), a step by its number or its action ("going to the kitchen").

Not lenient on the claim: an explanation that says the action breaks nothing ("does not
break c1", "is safe"), gives a proposition the action does not change as the reason, or
stuffs keywords (constraints the action does not break, several steps) is incorrect, however
many key facts it also names.

Examples
--------
>>> from safetychip.explain import explain_violation
>>> from safetychip.monitor import Constraint, Monitor
>>> rule = Constraint.parse('!"agent_at(kitchen)" W "agent_at(bathroom)"',
...                         "Don't go to the kitchen before the bathroom", name="c1")
>>> m = Monitor([rule])
>>> _ = m.reset({"agent_at(kitchen)": False, "agent_at(bathroom)": False})
>>> e = explain_violation(m, {"agent_at(kitchen)"}, action="walk to kitchen")
>>> print(check_explanation("Going to the kitchen breaks c1", e, [rule], step=1))
✓ correct: you named the constraint (c1), the proposition (agent_at(kitchen)) and the step
(1, 'walk to kitchen').
>>> print(check_explanation("It was unsafe.", e, [rule], step=1))
✗ incorrect: say which constraint the action breaks (by its name or its words); say which
proposition the action changes (the object or room); say at which step (its number or the
action).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from ..explain import AgentExplanation
from ..ltl import Formula, Proposition
from ..monitor import Constraint, as_constraints
from ._feedback import CORRECT, INCORRECT, INVALID, Feedback, guarded, not_attempted

__all__ = ["check_explanation"]

MAX_TEXT = 2_000
_STOP = {"the", "you", "your", "and", "for", "have", "has", "been", "before", "after", "must",
         "can", "not", "don't", "dont", "never", "into", "that", "this", "are", "any", "with",
         "then", "once", "from", "times", "more", "than", "its", "it's"}  # fmt: skip
_ORDINALS = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh",
             "eighth", "ninth", "tenth"]  # fmt: skip
# The words prose uses for an action's first word, inflected ("going to the kitchen" names
# "walk to kitchen"): wider than an environment's verb lexicon (``Env.verbs``), which reads
# commands, not explanations, and keyed by the action's first word ("switch"), not its verb.
_VERBS = {
    "walk": {"walk", "walks", "walking", "go", "goes", "going", "went", "enter", "enters",
             "entering", "move", "moving", "moves", "head", "heading", "visit", "visiting",
             "return", "returning", "reach", "reaching"},
    "open": {"open", "opens", "opening", "opened"},
    "grab": {"grab", "grabs", "grabbing", "pick", "picking", "take", "taking", "hold"},
    "switch": {"switch", "switching", "turn", "turning", "switches"},
}  # fmt: skip


#: Words that say the action breaks a constraint, and words that say it does not; a negation
#: among the three words before one turns it round ("does not break", "is not allowed").
_BREAKS = {"break", "breaks", "broke", "broken", "breaking", "breach", "breaches", "violate",
           "violates", "violated", "violating", "violation", "forbid", "forbids", "forbidden",
           "prohibit", "prohibits", "prohibited", "unsafe", "against", "disallowed",
           "wrong"}  # fmt: skip
_KEEPS = {"safe", "allowed", "fine", "ok", "okay", "permitted", "harmless", "satisfies",
          "satisfied", "keeps", "respects", "obeys"}  # fmt: skip
_NOT = {"not", "no", "never", "nothing", "cannot", "neither", "nor", "without"}


def _claim(words: list[str]) -> str | None:
    """What *words* claim of the action: ``"breaks"``, ``"keeps"`` (a constraint), or None."""
    claims = set()
    for i, word in enumerate(words):
        if word in _BREAKS or word in _KEEPS:
            negated = any(w in _NOT or w.endswith("n't") for w in words[max(0, i - 3) : i])
            claims.add("breaks" if (word in _BREAKS) != negated else "keeps")
    return "keeps" if "keeps" in claims else "breaks" if claims else None


def _stuffed(words: list[str], text: str, by_name: dict[str, Constraint],
             culprits: list[Constraint], lits: list[str], step: int | None) -> str:  # fmt: skip
    """What *text* names that is not so (other constraints, other steps, a proposition the
    action does not change), as feedback; empty if nothing."""
    others = sorted(n for n in by_name if n.lower() in words and by_name[n] not in culprits)
    if others:
        return f"the action does not break {', '.join(others)}: name only what it breaks."
    if step is not None:
        steps = _steps_named(words)
        if steps - {str(step)}:
            return f"name the one step the action is at, not {', '.join(sorted(steps))}."
    atoms = {a for c in by_name.values() for a in c.formula.atoms()}
    wrong = sorted(a for a in atoms - set(lits) if a in text)
    if wrong:
        return f"the action does not change {', '.join(wrong)}: that is not why it is refused."
    return ""


def _steps_named(words: list[str]) -> set[str]:
    """The step numbers *words* name as steps: numbers after "step(s)" ("steps 2 and 3") and
    ordinals before it ("the third step"); "a third entry" names no step.

    >>> sorted(_steps_named(_words("Step 2, not steps 3 and 4; the fifth step; a third entry")))
    ['2', '3', '4', '5']
    """
    found = set()
    for i, word in enumerate(words):
        if word in ("step", "steps"):
            for after in words[i + 1 :]:
                if after.isdigit() and int(after) < 1000:
                    found.add(after)
                elif after in _ORDINALS:
                    found.add(str(_ORDINALS.index(after)))
                elif after not in ("and", "or", "nor", "to", "the"):
                    break
        elif word in _ORDINALS and words[i + 1 : i + 2] in (["step"], ["steps"]):
            found.add(str(_ORDINALS.index(word)))
    return found


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower().replace("_", " "))


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if len(w) > 2 and w not in _STOP}


def _atom_words(atom: str) -> list[str]:
    try:
        args = Proposition.parse(atom).args
    except ValueError:
        args = ()
    return [w for a in args for w in _words(a)] or _words(atom)


def _literals(explanation: AgentExplanation) -> list[str]:
    lits = []
    for line in explanation.state_changes:
        _, _, rest = str(line).partition(": ")
        lits += [x.lstrip("!") for x in rest.split(" & ") if x and not x.startswith("(")]
    return lits


def _names_constraint(said: set[str], words: list[str], c: Constraint) -> bool:
    if c.name.lower() in words:
        return True
    key = _content(c.sentence) or {w for a in c.formula.atoms() for w in _atom_words(a)}
    # a paraphrase shares most of the sentence's words, not just the room it speaks of
    return len(key & said) >= min(len(key), max(2, math.ceil(0.6 * len(key))))


def _names_action(words: list[str], action: str) -> bool:
    verb, *rest = _words(action) or [""]
    objects = {w for w in rest if w not in ("to", "on", "in", "off", "from", "of")}
    verbs = next((v for v in _VERBS.values() if verb in v), {verb})
    return bool(verbs & set(words)) and objects <= set(words)


@guarded
def check_explanation(
    text: Any,
    explanation: AgentExplanation,
    constraints: Iterable[Constraint | Formula | str],
    *,
    step: int | None = None,
    exercise: str = "",
) -> Feedback:
    """Check a free-text explanation of a refused action against the monitor's own.

    Parameters
    ----------
    text : str
        The student's explanation; ``...`` is *not attempted*.
    explanation : AgentExplanation
        The deterministic explanation (:func:`~safetychip.explain.explain_violation`).
    constraints : iterable of Constraint, Formula or str
        The constraints, for their sentences (a student may paraphrase one).
    step : int, optional
        The refused action's step number (1 = the first action), if the exercise asks.
    exercise : str
        The exercise's label.
    """
    if not_attempted(text):
        return Feedback(exercise, "not attempted", "replace the ... with your explanation")
    if not isinstance(text, str):
        return Feedback(exercise, INVALID, f"write your explanation as text, not a "
                        f"{type(text).__name__}")  # fmt: skip
    if not text.strip():
        return Feedback(exercise, INVALID, "your explanation is empty")
    if len(text) > MAX_TEXT:
        return Feedback(
            exercise,
            INVALID,
            f"keep it under {MAX_TEXT:,} characters: a sentence or two that names the "
            "constraint, the proposition and the step",
        )
    if explanation.status == "safe":
        return Feedback(exercise, INVALID, "this action was safe: there is no violation to "
                        "explain")  # fmt: skip
    words = _words(text)
    said = _content(text)
    by_name = {c.name: c for c in as_constraints(constraints)}
    culprits = [by_name[n] for n in explanation.violated if n in by_name]
    claim = _claim(words)
    if claim != "breaks":
        return Feedback(exercise, INCORRECT, "your explanation says the action breaks no "
                        "constraint, but the monitor refused it: say which one it breaks and "
                        "why" if claim else "say that the action breaks a constraint "
                        "(\"breaks\", \"violates\"), which one, and why")  # fmt: skip
    found, missing = [], []
    hit = next((c for c in culprits if _names_constraint(said, words, c)), None)
    if hit is not None:
        found.append(f"the constraint ({hit.name})")
    else:
        missing.append("say which constraint the action breaks (by its name or its words)")
    lits = _literals(explanation)
    relevant = set().union(*(c.formula.atoms() for c in culprits))
    lits = [a for a in lits if a in relevant] or lits  # what the broken constraints speak of
    atom = next((a for a in lits if set(_atom_words(a)) <= set(words) or a in text), None)
    if atom is not None:
        found.append(f"the proposition ({atom})")
    elif lits:
        missing.append("say which proposition the action changes (the object or room)")
    marks = ({str(step)} | ({_ORDINALS[step]} if 0 <= step < len(_ORDINALS) else set())
             if step is not None else set())  # fmt: skip
    action = explanation.action
    if marks & set(words) or (action and _names_action(words, action)):
        shown = [str(step)] if step is not None else []
        shown += [repr(action)] if action else []
        found.append(f"the step ({', '.join(shown)})")
    elif step is not None or action:
        missing.append("say at which step (its number or the action)")
    if missing:
        return Feedback(exercise, INCORRECT, "; ".join(missing) + ".")
    wrong = _stuffed(words, text, by_name, culprits, _literals(explanation), step)
    if wrong:
        return Feedback(exercise, INCORRECT, wrong)
    listed = ", ".join(found[:-1]) + (" and " if len(found) > 1 else "") + found[-1]
    return Feedback(exercise, CORRECT, f"you named {listed}.")
