"""Kind phrases and "nothing": quantified things read as one constraint per named thing.

A scene may name kinds of things (:attr:`Vocabulary.kinds`: AI2-THOR's "electronic device",
"stove burner"). A kind phrase after a universal or indefinite determiner (*a*, *an*, *any*,
*every*, *each*) in a prohibition means each thing of the kind: it becomes a placeholder of
its own (:func:`kind_placeholders`), and a relative clause on it (*that is on*) a condition on
the same thing. After reading, :func:`expand_kinds` renames the placeholder as each thing of
the kind that every predicate said of it can hold of, one part per thing. A class name of a
kind said twice of the same thing ("the stove … with nothing on it") is read the same way, so
that both atoms are about one burner, not some burner each.

"Nothing" is the negated existential: ``[x]`` for :data:`NOTHING` in an atom is read as no
thing of the scene that the predicate can hold of (:func:`expand_nothing`).

>>> from safetychip.translate import Vocabulary
>>> v = Vocabulary(
...     "tiny", ("laptop", "tv", "fork"), kinds={"electronic device": ("laptop", "tv")}
... )
>>> kind_placeholders(LiftedSentence("Never pour [a] on an electronic device that is on.",
...                                  {"a": "water"}, {"a": "water"}), v).text
'Never pour [a] on [b] while [b] is on.'
"""

from __future__ import annotations

import re
from dataclasses import replace
from types import MappingProxyType

from ..errors import OutOfGrammarError
from ..ltl import And, Formula, Not, ap
from ._clauses import read_clause
from ._lift import LETTERS, LiftedSentence
from ._reading import LiftedTranslation, letters, renamed, substitute
from ._vocabulary import Vocabulary

__all__ = [
    "KIND",
    "NOTHING",
    "expand_kinds",
    "expand_nothing",
    "kind_placeholders",
    "names_a_kind",
    "read_nothing",
    "typed_pronouns",
]

#: A kind placeholder's name is this prefix and the kind word (``kind:electronic device``).
KIND = "kind:"
#: The name of the placeholder of "nothing" (no thing of the scene).
NOTHING = "nothing"

_DETERMINER = r"\b(?:a|an|any|every|each)\s+"
_RELATIVE = r"\s+(?:that|which|who)\s+(is|are)\b"
#: What a thing on or in another needs to be, when the scene says (it is carried there).
_MOVABLE = frozenset({"pickupable", "GRABBABLE"})
_NOTHING = re.compile(r"\b(?:nothing|no ?thing|no objects?)\b")


def _new_letter(placeholders: dict[str, str]) -> str:
    return next(y for y in LETTERS if y not in placeholders)


def names_a_kind(expression: str, vocabulary: Vocabulary) -> bool:
    """Whether *expression* is a kind phrase after a determiner ("a fragile object"): left
    as words by the lifting, for :func:`kind_placeholders`.

    >>> from safetychip.translate import Vocabulary
    >>> v = Vocabulary("tiny", ("vase",), kinds={"fragile object": ("vase",)})
    >>> names_a_kind("any fragile objects", v), names_a_kind("the vase", v)
    (True, False)
    """
    m = re.fullmatch(rf"{_DETERMINER}(.+?)s?", expression.lower())
    return m is not None and m.group(1) in vocabulary.kinds


def kind_placeholders(lifted: LiftedSentence, vocabulary: Vocabulary) -> LiftedSentence:
    """*lifted* with each kind phrase after a determiner (a lifted expression such as "a stove
    burner", or words the lifting left, "an electronic device") a kind placeholder, its
    relative clause ("that is on") a condition on it, and "nothing" a placeholder of
    :data:`NOTHING`. A vocabulary without kinds leaves *lifted* as it is."""
    if not vocabulary.kinds:
        return lifted
    text = lifted.text
    placeholders, expressions = dict(lifted.placeholders), dict(lifted.expressions)
    for x, said in lifted.expressions.items():
        m = re.fullmatch(rf"{_DETERMINER}(.+?)s?", said.lower())
        if m and m.group(1) in vocabulary.kinds:
            placeholders[x] = KIND + m.group(1)
    for word in sorted(vocabulary.kinds, key=len, reverse=True):
        pattern = re.compile(rf"{_DETERMINER}{re.escape(word)}s?\b", re.I)
        while found := pattern.search(text):
            x = _new_letter(placeholders)
            placeholders[x], expressions[x] = KIND + word, found.group()
            text = f"{text[: found.start()]}[{x}]{text[found.end() :]}"
    for x in [y for y, n in placeholders.items() if n.startswith(KIND)]:
        text = re.sub(rf"\[{x}\]{_RELATIVE}", rf"[{x}] while [{x}] \1", text)
    found = _NOTHING.search(text)
    if found is not None:
        x = _new_letter(placeholders)
        placeholders[x], expressions[x] = NOTHING, found.group()
        text = f"{text[: found.start()]}[{x}]{text[found.end() :]}"
    if text == lifted.text and placeholders == lifted.placeholders:
        return lifted
    return LiftedSentence(text, MappingProxyType(placeholders), MappingProxyType(expressions))


def _predicates(f: Formula, x: str) -> set[str]:
    found = re.compile(rf"^(\w+)\((?:.*,)?{x}[,)]")
    return {m.group(1) for a in f.atoms() if (m := found.match(a))}


def expand_kinds(text: str, result: LiftedTranslation, lifted: LiftedSentence,
                 vocabulary: Vocabulary) -> tuple[LiftedTranslation, LiftedSentence]:  # fmt: skip
    """*result* with each kind placeholder (and each class name of a kind that is in two
    atoms or more) read as each thing of the kind that every predicate said of it can hold
    of, one part per thing; an :class:`~safetychip.errors.OutOfGrammarError` if none can."""
    for x, name in list(lifted.placeholders.items()):
        word = name[len(KIND) :] if name.startswith(KIND) else name
        atoms = [a for a in result.formula.atoms() if x in letters(ap(a))]
        if not name.startswith(KIND) and not (name in vocabulary.kinds
                                              and name in vocabulary.instances
                                              and len(atoms) > 1):  # fmt: skip
            continue
        predicates = _predicates(result.formula, x)
        names = [n for n in vocabulary.kinds.get(word, ())
                 if all(vocabulary.able(p, n) for p in predicates)]  # fmt: skip
        if not names:
            raise OutOfGrammarError(f"{text!r}: no {word} of {vocabulary.name} can be "
                                    f"{', '.join(sorted(predicates))}", lifted.text)  # fmt: skip
        parts = tuple(renamed(p, x, n) for p in (result.parts or (result.formula,))
                      for n in names)  # fmt: skip
        result = LiftedTranslation(And(*parts), result.pattern, (), result.form, parts)
        placeholders = {**{y: n for y, n in lifted.placeholders.items() if y != x},
                        **{n: n for n in names}}  # fmt: skip
        expressions = {**lifted.expressions, **{n: n.replace("_", " ") for n in names}}
        lifted = LiftedSentence(lifted.text, MappingProxyType(placeholders),
                                MappingProxyType(expressions))  # fmt: skip
    return result, lifted


def expand_nothing(formula: Formula, x: str, vocabulary: Vocabulary) -> Formula:
    """*formula* with each atom about the placeholder *x* of :data:`NOTHING` read as no thing
    of *vocabulary* the atom's predicate can hold of (a name of its own, not a class name):
    ``is_on(x,b)`` → ``!is_on(n1,b) & !is_on(n2,b) …``.

    >>> v = Vocabulary("tiny", ("pan", "pot", "stove"))
    >>> print(expand_nothing(ap("is_on(n,stove)"), "n", v))
    !"is_on(pan,stove)" & !"is_on(pot,stove)"
    """

    def none(atom: Formula) -> Formula:
        name = atom.name or ""
        if x not in letters(atom):
            return atom
        others = set(letters(atom)) - {x}
        predicate = name.split("(", 1)[0]
        movable = len(letters(atom)) == 2 and name.startswith(f"{predicate}({x},")
        things = [n for n in vocabulary.names if n not in others
                  and n not in vocabulary.instances and vocabulary.able(predicate, n)
                  and not (movable and vocabulary.properties.get(n, _MOVABLE).isdisjoint(
                      _MOVABLE))]  # fmt: skip
        return And(*(Not(renamed(atom, x, n)) for n in things))

    return substitute(formula, none)


def read_nothing(result: LiftedTranslation, lifted: LiftedSentence, vocabulary: Vocabulary
                 ) -> tuple[LiftedTranslation, LiftedSentence]:  # fmt: skip
    """*result* with each placeholder of :data:`NOTHING` read by :func:`expand_nothing` (its
    formula and each part), and *lifted* binding each name that took its place."""
    for x in [x for x, n in lifted.placeholders.items() if n == NOTHING]:
        formula = expand_nothing(result.formula, x, vocabulary)
        parts = tuple(expand_nothing(p, x, vocabulary) for p in result.parts)
        result = LiftedTranslation(formula, result.pattern, (), result.form, parts)
        named = letters(formula) - {""} - set(lifted.placeholders)
        placeholders = {**{y: n for y, n in lifted.placeholders.items() if y != x},
                        **{n: n for n in sorted(named)}}  # fmt: skip
        lifted = LiftedSentence(lifted.text, MappingProxyType(placeholders),
                                MappingProxyType(lifted.expressions))  # fmt: skip
    return result, lifted


_IT = re.compile(r"\bit\b")
_OWN_CLAUSE = re.compile(
    r"[,;:]|\b(?:and|or|but|then|until|before|after|once|when|whenever|if|unless|while|with)\b"
)


def _carries(clause: str, x: str, name: str, vocabulary: Vocabulary) -> bool:
    """Whether the thing *name* (a kind: some thing of it) can be what [x] is in *clause*."""
    words = clause.split()
    while words:
        read = read_clause(" ".join(words))
        if read is not None and read.literal is not None:
            break
        words.pop()
    else:
        return True  # nothing said of it that the lexicon reads
    literal = vocabulary.native(read.literal)
    predicates = {p for a in literal.atoms() for p in _predicates(ap(a), x)}
    things = vocabulary.kinds.get(name[len(KIND) :], ()) if name.startswith(KIND) else (name,)
    return any(all(vocabulary.able(p, n) for p in predicates) for n in things)


def typed_pronouns(lifted: LiftedSentence, vocabulary: Vocabulary) -> LiftedSentence:
    """*lifted* with each *it* written as the placeholder it means, when some placeholder
    before it cannot be meant: "nothing" is no antecedent, nor is a thing in the pronoun's
    own clause, nor a thing that cannot be what the clause says of the pronoun (water cannot
    be on). It then means the nearest placeholder before it that can; with none excluded,
    *it* is left to the reader's rule (the nearest that is no prepositional object).

    >>> from safetychip.translate import Vocabulary
    >>> v = Vocabulary("tiny", ("laptop", "water"), properties={
    ...     "laptop": frozenset({"toggleable"}), "water": frozenset()})
    >>> typed_pronouns(LiftedSentence("Never pour [a] on [b] while it is on.",
    ...                               {"a": "water", "b": "laptop"}, {}), v).text
    'Never pour [a] on [b] while [b] is on.'
    """
    text = lifted.text
    for m in reversed(list(_IT.finditer(text))):
        before = [(b.group(1), b.start()) for b in re.finditer(r"\[([a-z])\]", text[: m.start()])]
        own = max((b.end() for b in _OWN_CLAUSE.finditer(text[: m.start()])), default=0)
        clause = re.split(r"[,.;:!?]", text[m.end() :], maxsplit=1)[0]
        fits = [
            x
            for x, at in before
            if lifted.placeholders.get(x) != NOTHING
            and at < own
            and _carries(f"[{x}]{clause}", x, lifted.placeholders.get(x, ""), vocabulary)
        ]
        if fits and len(fits) < len(before):
            text = f"{text[: m.start()]}[{fits[-1]}]{text[m.end() :]}"
    return lifted if text == lifted.text else replace(lifted, text=text)
