"""Lifting: the sentence with each grounded expression replaced by a placeholder.

Placeholders are the letters ``a``, ``b``, ``c``… in order of first appearance, written
``[a]`` in the lifted sentence; expressions grounded to the same name share one. The
lifted formula uses the bare letters as predicate arguments (``is_grabbed(a)``), and
:func:`~safetychip.translate.assemble` puts the names back.

Examples
--------
>>> from safetychip.translate import Grounding
>>> g = [Grounding("the fridge", "fridge", 1.0, "exact")]
>>> lifted = lift("Open the fridge, then close the fridge", [(5, 15), (28, 38)], g * 2)
>>> lifted.text, dict(lifted.placeholders)
('Open [a], then close [a]', {'a': 'fridge'})
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from ..errors import TranslationError
from ._ground import Grounding
from ._vocabulary import Vocabulary

__all__ = ["LETTERS", "LiftedSentence", "lift", "on_as_switched"]

#: The placeholder letters, in order of use.
LETTERS = "abcdfghjkmnpqrstuvwxyz"  # no e or i: they are operators of the prefix syntax

PLACEHOLDER = re.compile(r"\[([a-z])\]")


@dataclass(frozen=True)
class LiftedSentence:
    """A sentence (*text*) with ``[a]``, ``[b]``… in place of its referring expressions;
    *placeholders*: letter -> grounded name; *expressions*: letter -> the expression as
    first written."""

    text: str
    placeholders: Mapping[str, str]
    expressions: Mapping[str, str]

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"sentence": self.text, "placeholders": dict(self.placeholders)}

    def written(self, part: str) -> str:
        """*part* of the lifted text with its placeholders back as they were written.

        >>> LiftedSentence("Open [a]", {"a": "fridge"}, {"a": "the fridge"}).written("[a] x")
        'the fridge x'
        """
        return PLACEHOLDER.sub(lambda m: self.expressions.get(m[1], m[0]), part)


def lift(sentence: str, spans: Sequence[tuple[int, int]],
         groundings: Sequence[Grounding]) -> LiftedSentence:  # fmt: skip
    """Replace each span (start, end; not overlapping) of *sentence* by the placeholder of
    its grounding's name (*groundings*: one per span, in the same order)."""
    if len(spans) != len(groundings):
        raise ValueError(f"{len(spans)} spans but {len(groundings)} groundings")
    order = sorted(range(len(spans)), key=lambda k: spans[k][0])
    letter_of: dict[str, str] = {}
    first_text: dict[str, str] = {}
    parts, cursor = [], 0
    for k in order:
        start, end = spans[k]
        if start < cursor:
            raise ValueError(f"expression spans overlap at offset {start}")
        name = groundings[k].name
        if name not in letter_of:
            if len(letter_of) == len(LETTERS):
                raise TranslationError(f"the sentence mentions more than {len(LETTERS)} "
                                       "different things; split it")  # fmt: skip
            letter_of[name] = LETTERS[len(letter_of)]
            first_text[letter_of[name]] = groundings[k].expression
        parts += [sentence[cursor:start], f"[{letter_of[name]}]"]
        cursor = end
    parts.append(sentence[cursor:])
    names = {letter: name for name, letter in letter_of.items()}
    return LiftedSentence("".join(parts), MappingProxyType(names), MappingProxyType(first_text))


# "[a] on" / "[a]'s off" (the state, as in "[a] on at most twice") ...
_STATE = re.compile(
    r"\[([a-z])\](\s+(?:is|are|was|were|'s|stays|remains)\b)?\s+(on|off)\b"
    r"(?!\s+(?:\[|the\b|a\b|an\b|top\b|it\b|them\b))",
    re.IGNORECASE,
)
# A thing with a switch that "goes on" or "has to go off" is switched on or off.
_GOES = re.compile(
    r"\[([a-z])\](?:\s+(needs? to|has to|have to|must|should|will|shall|can|may|is to|ought to|"
    r"(?:must|should|will|shall|can|may) not|does not|do not|did not|doesn't|don't|didn't|"
    r"won't|can't|mustn't|shouldn't|never))?\s+(?:go|goes|went|come|comes|came)\s+(on|off)\b"
    r"(?!\s+(?:\[|the\b|a\b|an\b|and on\b|to\b|with\b|about\b))",
    re.IGNORECASE,
)
# "does not go on": "is not switched on"; "never goes on": "is never switched on".
_DO_NOT = {"does not": "is not", "do not": "is not", "did not": "was not", "doesn't": "is not",
           "don't": "is not", "didn't": "was not", "never": "is never"}  # fmt: skip
# Words after which the state is a condition: "when [a] on" is "when [a] is switched on".
_CONDITION_WORDS = "when|whenever|while|if|once|until|till|before|after|unless|as"
_CONDITION = re.compile(rf"\b(?:{_CONDITION_WORDS})\s*$", re.IGNORECASE)
# ... where what comes before the thing does not make "on" a verb's particle ("switch [a]
# on", "put [a] on [b]"): the start, a pause, a condition, a joining word, or a verb that
# keeps a state ("leave [a] on").
_BEFORE_STATE = re.compile(
    rf"(?:^|[,.;:!?(-]|\b(?:{_CONDITION_WORDS}|no|and|or|means|then|with|leave|leaves|left|"
    r"keep|keeps|kept|the|is|are))\s*$",
    re.IGNORECASE,
)


def on_as_switched(lifted: LiftedSentence, vocabulary: Vocabulary) -> LiftedSentence:
    """*lifted* with "[a] on" and "[a] off" written "[a] switched on / off" where the thing
    has a switch and no other state "on" could name ("Microwave on no more than twice",
    "when the kettle's on", "leave the computer on till …"), and so "[a] goes on", "[a] has
    to go off"; unchanged otherwise.

    >>> v = Vocabulary("demo", ("kettle", "kitchen"), rooms=frozenset({"kitchen"}),
    ...                properties={"kettle": frozenset({"HAS_SWITCH"})})
    >>> on_as_switched(LiftedSentence("[a] on at most twice", {"a": "kettle"}, {}), v).text
    '[a] switched on at most twice'
    >>> on_as_switched(LiftedSentence("while [a] on, stay in [b]", {"a": "kettle"}, {}), v).text
    'while [a] is switched on, stay in [b]'
    >>> on_as_switched(LiftedSentence("switch [a] on", {"a": "kettle"}, {}), v).text
    'switch [a] on'
    >>> on_as_switched(LiftedSentence("[a] needs to go on twice", {"a": "kettle"}, {}), v).text
    '[a] needs to be switched on twice'
    """

    def switched(m: re.Match[str]) -> str:
        thing = lifted.placeholders.get(m.group(1), "")
        if (not _BEFORE_STATE.search(m.string[: m.start()]) or thing in vocabulary.rooms
                or not (vocabulary.properties.get(thing)
                        and vocabulary.able("is_switchedon", thing))):  # fmt: skip
            return m.group()
        verb = m.group(2) or (" is" if _CONDITION.search(m.string[: m.start()]) else "")
        return f"[{m.group(1)}]{verb} switched {m.group(3)}"

    def goes(m: re.Match[str]) -> str:
        thing = lifted.placeholders.get(m.group(1), "")
        if thing in vocabulary.rooms or not vocabulary.able("is_switchedon", thing):
            return m.group()
        modal = (m.group(2) or "").lower()
        verb = _DO_NOT.get(modal) or (f"{modal} be" if modal else "is")
        return f"[{m.group(1)}] {verb} switched {m.group(3)}"

    text = _STATE.sub(switched, _GOES.sub(goes, lifted.text))
    return lifted if text == lifted.text else replace(lifted, text=text)
