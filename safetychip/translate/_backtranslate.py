"""Back-translation: a formula read back in English, so a person can check it.

By default the English comes from a template per specification pattern (the pattern is
recognised from the formula's shape, :func:`~safetychip.translate.match_pattern`), with each
literal in words: ``is_grabbed(phone)`` reads "pick up the phone" or "you are holding the
phone". A formula of no known pattern is read operator by operator. With a chat model, the
prompt ``data/prompts/back_translation.txt`` asks the model instead; a stand-in's reply is
labelled as such.

Examples
--------
>>> from safetychip.ltl import parse
>>> print(back_translate(parse('!"agent_at(kitchen)" W "agent_at(bathroom)"')))
Do not go to the kitchen until you are at the bathroom (if that never happens, never go to
the kitchen).
>>> print(back_translate(parse('G("is_open(fridge)" -> F!"is_open(fridge)")')))
Whenever the fridge is open, the fridge must be closed then or at some later step, before
you finish.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..ltl import Formula
from ._match import match_pattern
from ._vocabulary import Vocabulary

__all__ = ["BackTranslation", "back_translate", "literal_text", "describe"]


#: How a literal reads: (literal, mood) -> English.
_Say = Callable[..., str]


def _thing(name: str, vocabulary: Vocabulary | None = None, quantifier: str = "a") -> str:
    """How an argument reads: ``the fridge``; a class name of *vocabulary* reads with
    *quantifier* and its instances, ``a window (bedroom_window or living_room_window)``."""
    if vocabulary is None or not vocabulary.is_class(name):
        return "the " + name.replace("_", " ")
    members = vocabulary.instances[name]
    joined = ", ".join(members[:-1]) + (" and " if quantifier == "every" else " or ") + members[-1]
    return f"{quantifier} {vocabulary.phrase(name)} ({joined})"


def _fill(
    template: str, args: tuple[str, ...], vocabulary: Vocabulary | None, negated: bool
) -> str:
    """*template* with its arguments; a class name is quantified as the literal needs it.

    A positive literal reads "a window" (some window). A negated one reads "every window"
    when the negation is in the verb ("close every window"), "any" after a "not" ("you are
    not holding any towel"), and "no" when the class is the subject of a "not" ("no plate
    is dirty", for ``!is_dirty(plate)``).
    """
    words = []
    for k, arg in enumerate(args):
        quantifier = "a"
        if negated and " not " in template:
            quantifier = "any"
            if template.startswith(f"{{{k}}} ") and vocabulary and vocabulary.is_class(arg):
                quantifier = "no"
                template = template.replace(" not ", " ", 1)
        elif negated:
            quantifier = "every"
        words.append(_thing(arg, vocabulary, quantifier))
    return template.format(*words)


# predicate -> (imperative, state, negated imperative, negated state)
_WORDS = {
    "agent_at": ("go to {0}", "you are at {0}", "leave {0}", "you are not at {0}"),
    "is_open": ("open {0}", "{0} is open", "close {0}", "{0} is closed"),
    "is_switchedon": (
        "switch on {0}",
        "{0} is switched on",
        "switch off {0}",
        "{0} is switched off",
    ),
    "is_grabbed": ("pick up {0}", "you are holding {0}", "put down {0}", "you are not holding {0}"),
    "is_touched": ("touch {0}", "you touch {0}", "stop touching {0}", "you are not touching {0}"),
    "is_on": ("put {0} on {1}", "{0} is on {1}", "take {0} off {1}", "{0} is not on {1}"),
    "is_in": ("put {0} in {1}", "{0} is in {1}", "take {0} out of {1}", "{0} is not in {1}"),
    # the predicates of VirtualHome's other actions
    "agent_sitting_on": (
        "sit on {0}",
        "you are sitting on {0}",
        "stand up from {0}",
        "you are not sitting on {0}",
    ),
    "agent_lying_on": (
        "lie on {0}",
        "you are lying on {0}",
        "get up from {0}",
        "you are not lying on {0}",
    ),
    "agent_facing": (
        "face {0}",
        "you are facing {0}",
        "turn away from {0}",
        "you are not facing {0}",
    ),
    "is_grabbed_rh": (
        "hold {0} in your right hand",
        "you are holding {0} in your right hand",
        "put down {0} from your right hand",
        "you are not holding {0} in your right hand",
    ),
    "is_grabbed_lh": (
        "hold {0} in your left hand",
        "you are holding {0} in your left hand",
        "put down {0} from your left hand",
        "you are not holding {0} in your left hand",
    ),
    "is_worn": ("wear {0}", "you are wearing {0}", "take off {0}", "you are not wearing {0}"),
    "is_dirty": ("make {0} dirty", "{0} is dirty", "clean {0}", "{0} is not dirty"),
    "is_clean": ("clean {0}", "{0} is clean", "make {0} dirty", "{0} is not clean"),
    "is_pluggedin": (
        "plug in {0}",
        "{0} is plugged in",
        "unplug {0}",
        "{0} is unplugged",
    ),
    "is_poured": ("pour {0}", "you pour {0}", "stop pouring {0}", "you are not pouring {0}"),
}


def literal_text(
    literal: Formula, mood: str = "imperative", vocabulary: Vocabulary | None = None
) -> str:
    """A literal in English: ``mood`` is ``"imperative"`` (go to the kitchen) or ``"state"``
    (you are at the kitchen). With *vocabulary*, a class name shared by several instances
    reads as what it means, with its instances: ``is_open(window)`` is "a window
    (bedroom_window or living_room_window) is open", its negation "every window (…) is
    closed".

    Examples
    --------
    >>> from safetychip.ltl import parse
    >>> literal_text(parse('!"is_open(fridge)"'))
    'close the fridge'
    >>> literal_text(parse("is_on(book, shelf)"), "state")
    'the book is on the shelf'
    >>> v = Vocabulary.from_names(["bedroom", "kitchen", "bedroom_window", "kitchen_window"])
    >>> literal_text(parse("is_open(window)"), vocabulary=v)
    'open a window (bedroom_window or kitchen_window)'
    >>> literal_text(parse("!is_open(window)"), "state", vocabulary=v)
    'every window (bedroom_window and kitchen_window) is closed'
    """
    negated = literal.op == "!"
    atom = literal.children[0] if negated else literal
    if atom.op != "ap":
        return describe(literal, vocabulary)
    prop = atom.proposition
    words = _WORDS.get(prop.predicate)
    if words is None or not prop.args:
        text = prop.name.replace("_", " ")
        return f"not {text}" if negated else text
    index = (2 if negated else 0) + (1 if mood == "state" else 0)
    return _fill(words[index], prop.args, vocabulary, negated)


def _times(n: int) -> str:
    return {0: "no times", 1: "once", 2: "twice"}.get(n, f"{n} times")


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")


_MISSION_TEXT: dict[str, Callable[..., str]] = {
    "visit": lambda say, p: f"at some point before you finish, {say(p)}",
    "sequenced_visit": lambda say, p, q: (
        f"{say(p)}, and at some later step {say(q)} (both before you finish)"
    ),
    "ordered_visit": lambda say, p, q: (
        f"{say(p)}, and {say(q)} only after that (both before you finish)"
    ),
    "strictly_ordered_visit": lambda say, p, q: (
        f"{say(p)} exactly once, then {say(q)} (both before you finish)"
    ),
    "patrolling": lambda say, p: f"{say(p)} again and again: at the end {say(p, 'state')}",
    "wait": lambda say, p, q: (
        f"keep it so that {say(p, 'state')} until {say(q, 'state')}, which must happen"
    ),
    "instantaneous_reaction": lambda say, c, p: (
        f"whenever {say(c, 'state')}, {_must(say, p)} at that same step"
    ),
    "avoid_while": lambda say, c, p: f"never {say(p)} while {say(c, 'state')}",
    "avoid_unless": lambda say, c, p: f"never {say(p)} unless {say(c, 'state')}",
}


def _template(name: str, args: tuple, say: _Say) -> str:
    if name in _MISSION_TEXT:
        return _sentence(_MISSION_TEXT[name](say, *args))
    if name == "never":
        return f"Never {say(args[0])}."
    if name in ("not_before", "before"):
        p, q = args if name == "not_before" else (args[1], args[0])
        return _sentence(
            f"do not {say(p)} until {say(q, 'state')} (if that never happens, never {say(p)})"
        )
    if name == "response":
        p, q = args
        return _sentence(
            f"whenever {say(p, 'state')}, {_must(say, q)} then or at some "
            "later step, before you finish"
        )
    if name == "immediate_response":
        p, q = args
        return _sentence(
            f"whenever {say(p, 'state')}, {_must(say, q)} at the very next "
            "step (so you may not finish right then)"
        )
    if name == "absence_after":
        p, q = args
        return _sentence(f"once {say(p, 'state')}, from the next step on never {say(q)}")
    n, p = args
    what = say(p)
    if name == "at_most":
        return _sentence(f"{what} at most {_times(n)} (each time it starts to hold counts once)")
    if name == "at_least":
        return _sentence(f"{what} at least {_times(n)}" + (" before you finish" if n else ""))
    return _sentence(f"{what} exactly {_times(n)} (each time it starts to hold counts once)")


def _must(say: _Say, literal: Formula) -> str:
    state = say(literal, "state")
    for subject in ("you are not ", "you are "):
        if state.startswith(subject):
            return (
                "you must " + ("not " if "not" in subject else "") + "be " + state[len(subject) :]
            )
    if state.startswith("you "):
        return "you must " + state[4:]
    if " is not " in state:  # the plate is not dirty -> the plate must not be dirty
        return state.replace(" is not ", " must not be ", 1)
    return state.replace(" is ", " must be ", 1)


_OPS = {
    "X": "at the next step (if any)",
    "X[!]": "at the next step",
    "F": "eventually",
    "G": "always",
}


def describe(f: Formula, vocabulary: Vocabulary | None = None) -> str:
    """A literal reading of any formula, operator by operator (class names of *vocabulary*
    read as in :func:`literal_text`).

    Examples
    --------
    >>> from safetychip.ltl import parse
    >>> describe(parse('G("is_switchedon(stove)" -> !"is_open(fridge)")'))
    'always (if the stove is switched on, then the fridge is closed)'
    """
    op, kids = f.op, f.children
    if op == "ap" or (op == "!" and kids[0].op == "ap"):
        return literal_text(f, "state", vocabulary)
    if op in ("true", "false"):
        return "anything" if op == "true" else "nothing"
    if op == "!":
        return f"not ({describe(kids[0], vocabulary)})"
    if op in _OPS:
        return f"{_OPS[op]} ({describe(kids[0], vocabulary)})"
    if op in ("&", "|"):
        word = " and " if op == "&" else " or "
        return word.join(
            f"({describe(k, vocabulary)})"
            if k.op in ("&", "|", "->", "<->")
            else describe(k, vocabulary)
            for k in kids
        )
    a, b = (describe(k, vocabulary) for k in kids)
    return {
        "->": f"if {a}, then {b}",
        "<->": f"{a} exactly when {b}",
        "U": f"({a}) until ({b}), which must happen",
        "W": f"({a}) until ({b}), or ({a}) to the end",
        "R": f"({b}) up to and including the moment ({a}), or to the end",
        "M": f"({b}) up to and including the moment ({a}), which must happen",
    }[op]


@dataclass(frozen=True)
class BackTranslation:
    """A formula read back in English.

    Attributes
    ----------
    text : str
        The English.
    source : str
        ``"template"`` (from the pattern), ``"literal"`` (operator by operator), or the
        chat model's name.
    stand_in : bool
        True when an offline stand-in wrote it, never a language model.
    """

    text: str
    source: str
    stand_in: bool = False

    def __str__(self) -> str:
        return self.text + (" [offline stand-in, not a language model]" if self.stand_in else "")


def back_translate(
    formula: Formula,
    *,
    model=None,
    sentence: str = "",
    vocabulary: Vocabulary | None = None,
) -> BackTranslation:
    """Read *formula* back in English.

    Parameters
    ----------
    formula : Formula
        The (grounded) formula.
    model : ChatModel, optional
        Ask this model (prompt ``back_translation``) instead of using a template.
    sentence : str
        Not shown to the model (so it cannot copy it); kept for the caller's reference.
    vocabulary : Vocabulary, optional
        The vocabulary the formula was grounded in: its class names read as what they mean,
        "a window (bedroom_window or living_room_window)", so a person sees that the
        constraint covers every window (see :func:`literal_text`). Without it a class name
        reads like any name ("the window").

    Examples
    --------
    >>> from safetychip.ltl import parse
    >>> v = Vocabulary.from_names(["bedroom", "kitchen", "bedroom_window", "kitchen_window"])
    >>> print(back_translate(parse('G !"is_open(window)"'), vocabulary=v))
    Never open a window (bedroom_window or kitchen_window).
    """
    if model is not None:
        from ..llm import fill, load_prompt

        messages = [
            {"role": "system", "content": load_prompt("back_translation")},
            {"role": "user", "content": fill("Formula: {formula}\nEnglish:", formula=str(formula))},
        ]
        reply = model.complete(messages, temperature=0.0, max_tokens=200)
        return BackTranslation(reply.text.strip(), reply.model, reply.stand_in)

    def say(literal: Formula, mood: str = "imperative") -> str:
        return literal_text(literal, mood, vocabulary)

    found = match_pattern(formula)
    if found is not None:
        return BackTranslation(_template(*found, say), "template")
    if formula.op == "&":  # one constraint per thing of a list
        each = [match_pattern(k) for k in formula.children]
        if all(each):
            return BackTranslation(" ".join(_template(*f, say) for f in each if f), "template")
    return BackTranslation(_sentence(describe(formula, vocabulary)), "literal")
