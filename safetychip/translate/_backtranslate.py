"""Back-translation: a formula read back in English, so a person can check it.

By default the English comes from a template per specification pattern (the pattern is
recognised from the formula's shape, :func:`~safetychip.translate.match_pattern`): the
pattern's English (:attr:`~safetychip.ltl.Pattern.english`), read by
:meth:`~safetychip.ltl.Pattern.read` with each literal in words, in its mood:
``is_grabbed(phone)`` reads "pick up the phone" or "you are holding the phone". A formula of
no known pattern is read operator by operator. With a chat model, the prompt
``data/prompts/back_translation.txt`` asks the model instead; a stand-in's reply is labelled
as such.

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

from ..ltl import MISSIONS, PATTERNS, Formula, Pattern
from ..paths import DATA_DIR
from ._match import match_pattern
from ._normalize import read_table
from ._vocabulary import Vocabulary

__all__ = ["READBACK", "BackTranslation", "back_translate", "describe", "literal_text"]


#: How a literal reads: (literal, mood) -> English.
_Say = Callable[..., str]

_CATALOGUE: dict[str, Pattern] = {**PATTERNS, **MISSIONS}


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
    """*template* with its arguments, a class name quantified: "a window" when positive;
    negated, "every window" ("close every window"), "any" after a "not" ("you are not
    holding any towel"), "no" as the subject of a "not" ("no plate is dirty")."""
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


def _row(_: int, row: list[str]) -> list[str]:
    """A row of ``readback.tsv``; a ValueError unless it is a ``predicate`` row (a pattern
    reads as its own English, :attr:`~safetychip.ltl.Pattern.english`)."""
    if row[0] != "predicate":
        raise ValueError(f"a row of kind {row[0]!r}; only predicate rows (a pattern's English "
                         "is Pattern.english in safetychip.ltl)")  # fmt: skip
    return row


#: How literals read back and witness steps are told: ``"predicate"`` -> predicate name ->
#: forms, from ``readback.tsv``.
READBACK: dict[str, dict[str, tuple[str, ...]]] = {}
for _kind, _name, *_forms in read_table(DATA_DIR / "translation" / "readback.tsv",
                                        "read-back table", _row):  # fmt: skip
    READBACK.setdefault(_kind, {})[_name] = tuple(_forms)


def literal_text(
    literal: Formula, mood: str = "imperative", vocabulary: Vocabulary | None = None
) -> str:
    """A literal in English, in *mood* ``"imperative"`` (go to the kitchen) or ``"state"``
    (you are at the kitchen); a class name of *vocabulary* reads with its instances.

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
    words = READBACK["predicate"].get(prop.predicate)
    if words is None or not prop.args:
        text = prop.name.replace("_", " ")
        return f"not {text}" if negated else text
    index = (2 if negated else 0) + (1 if mood == "state" else 0)
    return _fill(words[index], prop.args, vocabulary, negated)


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _template(name: str, args: tuple, say: _Say) -> str:
    def word(value: Formula, mood: str) -> str:
        return _must(say, value) if mood == "must" else say(value, mood)

    text = _CATALOGUE[name].read(*args, say=word)
    if name == "at_least" and not args[0]:
        text = text.removesuffix(" before you finish")
    return _sentence(text)


def _must(say: _Say, literal: Formula) -> str:
    state = say(literal, "state")
    for subject in ("you are not ", "you are "):
        if state.startswith(subject):
            return f"you must {'not ' * ('not' in subject)}be {state[len(subject) :]}"
    if state.startswith("you "):
        return "you must " + state[4:]
    if " is not " in state:  # the plate is not dirty -> the plate must not be dirty
        return state.replace(" is not ", " must not be ", 1)
    return state.replace(" is ", " must be ", 1)


_OPS = {"X": "at the next step (if any)", "X[!]": "at the next step", "F": "eventually",
        "G": "always"}  # fmt: skip


def describe(f: Formula, vocabulary: Vocabulary | None = None) -> str:
    """A literal reading of any formula, operator by operator (class names of *vocabulary*
    read as in :func:`literal_text`).

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
        return (" and " if op == "&" else " or ").join(
            f"({describe(k, vocabulary)})" if k.op in ("&", "|", "->", "<->")
            else describe(k, vocabulary) for k in kids)  # fmt: skip
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
    """A formula read back in English: its *text*, its *source* (``"template"`` from the
    pattern, ``"literal"`` operator by operator, or the chat model's name), and *stand_in*
    (an offline stand-in wrote it, never a language model)."""

    text: str
    source: str
    stand_in: bool = False

    def __str__(self) -> str:
        return self.text + (" [offline stand-in, not a language model]" if self.stand_in else "")


def back_translate(formula: Formula, *, model=None,
                   vocabulary: Vocabulary | None = None) -> BackTranslation:  # fmt: skip
    """Read *formula* back in English: by its pattern's template, or by *model* (prompt
    ``back_translation``; it never sees the sentence, so it cannot copy it). With the
    *vocabulary* it was grounded in, a class name reads as what it means, "a window
    (bedroom_window or living_room_window)", so a person sees that the constraint covers
    every window (:func:`literal_text`); without it, like any name ("the window").

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
