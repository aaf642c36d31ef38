"""Literals and proposition states in the environment's words, shared by the explanations.

Examples
--------
>>> action_words("agent_at(bathroom)"), action_words("!is_open(fridge)")
('walk to bathroom', 'close fridge')
>>> changes({"a": False, "b": True}, {"a": True, "b": True})
['a']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..ltl import Proposition

__all__ = ["action_words", "changes", "letter_words"]

_ACTIONS = {
    "agent_at": ("walk to {0}", "walk away from {0}"),
    "is_open": ("open {0}", "close {0}"),
    "is_switchedon": ("switch on {0}", "switch off {0}"),
    "is_grabbed": ("grab {0}", "put down {0}"),
    "is_touched": ("touch {0}", "stop touching {0}"),
    "is_on": ("put {0} on {1}", "take {0} off {1}"),
    "is_in": ("put {0} in {1}", "take {0} out of {1}"),
    "agent_sitting_on": ("sit on {0}", "stand up from {0}"),
    "agent_lying_on": ("lie on {0}", "get up from {0}"),
    "agent_facing": ("turn to {0}", "walk away from {0}"),
    "is_grabbed_rh": ("grab {0} with the right hand", "put down {0} from the right hand"),
    "is_grabbed_lh": ("grab {0} with the left hand", "put down {0} from the left hand"),
    "is_worn": ("put on {0}", "take off {0}"),
    "is_dirty": ("get {0} dirty", "wash {0}"),
    "is_clean": ("wash {0}", "get {0} dirty"),
    "is_pluggedin": ("plug in {0}", "unplug {0}"),
    "is_poured": ("pour {0}", "stop pouring {0}"),
}


def action_words(literal: str) -> str:
    """An action that makes *literal* (``a`` or ``!a``) true, in the templated English of the
    environments (``walk to kitchen``); other atoms read ``make a true``."""
    negated = literal.startswith("!")
    atom = literal[1:] if negated else literal
    try:
        prop = Proposition.parse(atom)
    except Exception:
        prop = None
    if prop is None or prop.predicate not in _ACTIONS or not prop.args:
        return f"make {atom} {'false' if negated else 'true'}"
    return _ACTIONS[prop.predicate][negated].format(*(a.replace("_", " ") for a in prop.args))


def changes(before: Mapping[str, bool] | None, after: Mapping[str, bool]) -> list[str]:
    """The literals of *after* that differ from *before* (every true one when None), sorted
    by atom."""
    if before is None:
        lits = [a for a, v in after.items() if v]
    else:
        lits = [a if v else f"!{a}" for a, v in after.items() if before.get(a) != v]
    return sorted(lits, key=lambda s: s.lstrip("!"))


def letter_words(letters: Iterable[frozenset[str]], start: frozenset[str] = frozenset()) -> str:
    """A sequence of proposition states (true atoms) as actions: ``walk to bathroom, then …``."""
    out, previous = [], start
    for letter in letters:
        lits = [f"!{a}" for a in sorted(previous - letter)] + sorted(letter - previous)
        out.append(" and ".join(action_words(x) for x in lits) if lits else "wait")
        previous = letter
    return ", then ".join(out)
