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
from ._reading import PLACEHOLDER
from ._vocabulary import Vocabulary

__all__ = ["LETTERS", "LiftedSentence", "lift", "on_as_switched"]

#: The placeholder letters, in order of use.
LETTERS = "abcdfghjkmnpqrstuvwxyz"  # no e or i: they are operators of the prefix syntax


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


def on_as_switched(lifted: LiftedSentence, vocabulary: Vocabulary) -> LiftedSentence:
    """*lifted* with "[a] goes on" and "[a] has to go off" written "[a] is switched on",
    "[a] has to be switched off" where the thing has a switch (the slot reader reads "[a] on"
    itself); unchanged otherwise.

    >>> v = Vocabulary("demo", ("kettle", "kitchen"), rooms=frozenset({"kitchen"}),
    ...                properties={"kettle": frozenset({"HAS_SWITCH"})})
    >>> on_as_switched(LiftedSentence("[a] needs to go on twice", {"a": "kettle"}, {}), v).text
    '[a] needs to be switched on twice'
    >>> on_as_switched(LiftedSentence("if [a] goes off, go to [b]", {"a": "kettle"}, {}), v).text
    'if [a] is switched off, go to [b]'
    >>> on_as_switched(LiftedSentence("switch [a] on", {"a": "kettle"}, {}), v).text
    'switch [a] on'
    """

    def goes(m: re.Match[str]) -> str:
        thing = lifted.placeholders.get(m.group(1), "")
        if thing in vocabulary.rooms or not vocabulary.able("is_switchedon", thing):
            return m.group()
        modal = (m.group(2) or "").lower()
        verb = _DO_NOT.get(modal) or (f"{modal} be" if modal else "is")
        return f"[{m.group(1)}] {verb} switched {m.group(3)}"

    text = _GOES.sub(goes, lifted.text)
    return lifted if text == lifted.text else replace(lifted, text=text)
