"""The retrieval translator: a lifted sentence read by its nearest paraphrase templates.

Behind the grammar (:class:`~safetychip.translate.PatternTranslator`), which is precise but
reads only the forms it knows, :class:`RetrievalTranslator` embeds the lifted sentence with
all-MiniLM-L6-v2 and lets its nearest templates of ``data/translation/templates.jsonl`` (lifted
paraphrases with their lifted formulas, written by us with ``make_templates.py``) and examples
of ``data/translation/examples.jsonl`` (the labelled sentences by other hands that are
development data, lifted by ``make_examples.py``) vote, each with weight ``exp((score - best) /
temperature)``, where a template's score is its cosine similarity plus a small bonus per cue
word class it shares with the sentence (:func:`cues`); only templates over the same
placeholders take part. A template votes for its formula's *shape*, with each placeholder's
literal taken from the sentence's own clause where the grammar's clause reader reads one
(:func:`clause_literals`). Counts ("twice") and step bounds ("within 3 steps") are read from
the sentence itself, never from the template. A prohibition is never read into a sentence that
forbids nothing.

The winning reading's confidence is a logistic function of its best score, its share of the
votes and the share of placeholders whose clause was not read, with weights fitted on the
development sentences the grammar and the frame reader refuse, each set by other hands read
without its own examples (``data/translation/calibration.json``, written by
``calibrate.py`` with :func:`calibrate`). Below the threshold
the translator refuses and lists the nearest readings; when the runner-up has nearly as many
votes it says the sentence is ambiguous and shows both. It never guesses silently: every
refusal is an :class:`~safetychip.errors.OutOfGrammarError` whose ``readings`` attribute
holds the candidates.

Examples
--------
>>> r = RetrievalTranslator(embedder=None)  # no model: every sentence is refused
>>> r("Kindly keep yourself well away from [a].")
Traceback (most recent call last):
...
safetychip.errors.OutOfGrammarError: the retrieval translator has no embedder; it cannot read
'Kindly keep yourself well away from [a].'
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._io import atomic_write_text
from ..errors import DataFileError, OutOfGrammarError
from ..llm import Embedder
from ..ltl import Formula, Not, ap, build_pattern, parse
from ..paths import DATA_DIR
from ._assemble import misused_room, placed_at_thing
from ._frames import FrameReader
from ._grammar import (
    ANY_ORDER,
    ASKED,
    CLAUSE_BREAK,
    NO_RETURN,
    LiftedTranslation,
    PatternTranslator,
    clean,
    collapse_list,
    constraint_clauses,
    count_kind,
    count_value,
    find_count,
    no_double_negation,
    normalize,
    own_letters,
    read_clause,
    substitute,
    timing_cues,
    unaccounted_clauses,
    unchat,
    within,
)

__all__ = [
    "CALIBRATION",
    "EXAMPLES",
    "TEMPLATES",
    "Reading",
    "RetrievalTranslator",
    "calibrate",
    "clause_literals",
    "cues",
    "order_conflict",
    "verb_conflict",
    "write_library",
]

#: The lifted paraphrase templates (JSON lines: text, formula, pattern).
TEMPLATES = DATA_DIR / "translation" / "templates.jsonl"
#: Sentences by other hands from the development sets, lifted, with their lifted labels
#: (JSON lines as the templates, plus ``set`` and ``id``; written by ``make_examples.py``).
EXAMPLES = DATA_DIR / "translation" / "examples.jsonl"
#: The fitted confidence (JSON: weights, threshold, ambiguity).
CALIBRATION = DATA_DIR / "translation" / "calibration.json"

_LETTERS = re.compile(r"\[([a-z])\]")


@dataclass(frozen=True)
class Reading:
    """One candidate reading of a lifted sentence.

    Attributes
    ----------
    formula : Formula
        The lifted formula.
    pattern : str
        Its pattern.
    share : float
        Its share of the neighbours' votes, in [0, 1].
    similarity : float
        Score of its nearest template: cosine similarity to the sentence, plus the cue
        agreement (see :class:`RetrievalTranslator`).
    example : str
        That template.
    unread : float
        The share of the sentence's placeholders whose own clause the grammar's clause reader
        could not read (their literal then comes from the template).
    """

    formula: Formula
    pattern: str
    share: float
    similarity: float
    example: str
    unread: float = 0.0

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "formula": str(self.formula),
            "pattern": self.pattern,
            "share": round(self.share, 3),
            "similarity": round(self.similarity, 3),
            "example": self.example,
            "unread": round(self.unread, 3),
        }


def _skeleton(formula: Formula, roles: dict[str, str]) -> Formula:
    """*formula* with each placeholder's literal replaced by an atom ``_x`` (so that "never
    open [a]" and "never enter [a]" share the skeleton ``G!_a``)."""
    if not roles:
        return formula
    literals = {x: parse(lit) for x, lit in roles.items()}

    def abstract(atom: Formula) -> Formula:
        for x, lit in literals.items():
            if lit is atom:
                return ap(f"_{x}")
            if lit.op == "!" and lit.children[0] is atom:
                return Not(ap(f"_{x}"))
        return atom

    return no_double_negation(substitute(formula, abstract))


def _fill(skeleton: Formula, literals: dict[str, Formula]) -> Formula:
    """The skeleton with each ``_x`` replaced by the literal of placeholder x."""

    def concrete(atom: Formula) -> Formula:
        name = atom.name or ""
        return literals.get(name[1:], atom) if name.startswith("_") else atom

    return no_double_negation(substitute(skeleton, concrete))


def clause_literals(lifted: str) -> dict[str, Formula]:
    """The literal of each placeholder's own clause, where the grammar's clause reader reads
    one around it ("pick up [a]", "[b] is open", "you are in [c]").

    >>> {x: str(f) for x, f in clause_literals("kindly pick up [a] while [b] is open").items()}
    {'a': '"is_grabbed(a)"', 'b': '"is_open(b)"'}
    >>> {x: str(f) for x, f in clause_literals("stay [a] until [b] off").items()}
    {'b': '!"is_switchedon(b)"'}
    """
    words = re.findall(r"\[[a-z]\]|[^\s,.;:!?]+|[,.;:!?]", normalize(lifted))
    out: dict[str, Formula] = {}
    for i, word in enumerate(words):
        m = re.fullmatch(r"\[([a-z])\]", word)
        if m is None or m.group(1) in out:
            continue
        x = m.group(1)
        windows = sorted(((n, k) for n in range(5) for k in range(4)), key=lambda w: -w[0] - w[1])
        for n, k in windows:
            if i - n < 0 or i + k >= len(words) or (n == 0 and k == 0):
                continue
            window = words[i - n : i + k + 1]
            if any(w in ",.;:!?" for w in window):
                continue  # a clause ends at a punctuation mark
            if i + k + 1 < len(words) and words[i + k + 1] == "alone":
                continue  # "leave [a] alone" is no leaving of a place
            clause = read_clause(" ".join(words[i - n : i + k + 1]))
            if clause is None or clause.literal is None:
                continue
            atom = clause.literal.children[0] if clause.literal.op == "!" else clause.literal
            if (atom.name or "").endswith(f"({x})"):
                out[x] = clause.literal
                break
        state = words[i + 1] if i + 1 < len(words) else ""
        after = words[i + 2] if i + 2 < len(words) else "."
        if (
            x not in out
            and state in ("on", "off", "open", "closed", "shut")
            and (after in ",.;:!?" or after in ("then", "and", "before", "again"))
        ):
            clause = read_clause(f"[{x}] is {state}")  # "until [b] on": a state, its verb left out
            if clause is not None and clause.literal is not None:
                out[x] = clause.literal
    return out


def _both_ways(lifted: str, own: dict[str, Formula]) -> frozenset[str]:
    """The placeholder of a one-thing sentence that also names the opposite of its own
    literal through a pronoun ("put [a] down within two steps of picking it up"): whichever
    comes first in the sentence, a template's arrangement of the two stands.

    >>> sorted(_both_ways("put [a] down soon after picking it up", clause_literals(
    ...     "put [a] down soon after picking it up")))
    ['a']
    """
    if len(own) != 1:
        return frozenset()
    ((x, literal),) = own.items()
    if not re.search(r"\b(?:it|them)\b", lifted):
        return frozenset()
    swapped = re.sub(r"\[[a-z]\]", "that", lifted)
    swapped = re.sub(r"\b(?:it|them)\b", f"[{x}]", swapped)
    other = clause_literals(swapped).get(x)
    return frozenset(x) if other is not None and _opposite(other, literal) else frozenset()


def _opposite(f: Formula, g: Formula) -> bool:
    """Whether literals *f* and *g* are one atom and its negation."""
    return (f.op == "!" and str(f.children[0]) == str(g)) or (
        g.op == "!" and str(g.children[0]) == str(f)
    )


# Cue words that decide between readings an embedding finds alike ("at most" and "at least",
# "before" and "not before"): a template sharing the sentence's cues ranks higher.
_CUES = {
    name: re.compile(rf"\b(?:{words})\b")
    for name, words in {
        "negation": r"never|not|no|don't|do not|cannot|can't|avoid|forbidden|off limits|"
        r"prohibited|refrain|mustn't|neither|nor|stay out|keep out|away from|off-limits",
        "upper": r"at most|no more than|up to|maximum|max|more than|limited to|only once",
        "lower": r"at least|or more|minimum|no fewer than|no less than",
        "exact": r"exactly|precisely|no more,? no less|and only|no more and no less",
        "count": r"once|twice|thrice|times?",
        "before": r"before|prior to|ahead of|first",
        "until": r"until|till|unless you have|unlocks|only after|only once|not before",
        "after": r"after|once|afterwards|from then on|anymore|again|having",
        "trigger": r"if|when|whenever|every time|each time|as soon as|means|the moment",
        "soon": r"immediately|right away|right after|at once|straight|directly|next step|"
        r"the moment|as soon as|without delay",
        "later": r"later|eventually|at some point|sooner or later|before you finish",
        "state": r"while|as long as|unless|except|you are|you're|holding|carrying|is open|"
        r"is on|in your hand",
        "repeat": r"repeatedly|over and over|again and again|keep|patrol|forever|regularly|"
        r"continuously|indefinitely",
        "then": r"then|followed by|afterwards|after that|later|next",
        "order": r"in that order|in this order|in order|in sequence|one after the other|strict",
        "within": r"within|in at most",
        "stay": r"stay|remain|wait",
    }.items()
}


# Readings that forbid something need a sentence that restricts; movement needs one that
# does not forbid. "don't forget to" asks for something.
_PROHIBITIONS = frozenset({"never", "avoid_while", "avoid_unless", "absence_after", "not_before"})
_MISSIONS_ONLY = frozenset({"visit", "sequenced_visit", "ordered_visit", "patrolling"})
_RESTRICTIVE = re.compile(
    r"\b(?:only|unlocks?|no longer|no more|off the table|no-go|"
    r"banned|forbidden|prohibited|not allowed|refrain|hands off|"
    r"(?:keep|steer|stay)(?: \w+)? (?:clear|away|out))\b"
)


_QUANTIFIED = re.compile(
    r"\b(?:anything|everything|something|nothing|any object|all objects|any item|all items|"
    r"all the \w+|any \w+|every \w+) (?:in|inside|at|on|from|near|of) \["
)


_HELD = frozenset({"is_grabbed", "is_grabbed_rh", "is_grabbed_lh", "is_in", "is_on"})
_WORN = frozenset({"is_worn", "is_grabbed", "is_grabbed_rh", "is_grabbed_lh", "is_in", "is_on"})
# Verbs -> the predicates a reading of their clause may use (empty: an action that no
# predicate records, such as drinking). Only verbs that say one thing are listed ("put",
# "turn", "move" and "get" say several).
_VERB_PREDICATES: dict[frozenset[str], frozenset[str]] = {
    frozenset({"sit", "sits", "sitting", "sat"}): frozenset({"agent_sitting_on"}),
    frozenset({"lie", "lies", "lying", "lain"}): frozenset({"agent_lying_on"}),
    frozenset({"face", "faces", "facing", "faced"}): frozenset({"agent_facing"}),
    frozenset({"wear", "wears", "wearing", "wore", "worn"}): _WORN,
    frozenset("plug plugs plugging plugged unplug unplugs unplugging unplugged".split()): (
        frozenset({"is_pluggedin"})
    ),
    frozenset({"pour", "pours", "pouring", "poured"}): frozenset({"is_poured"}),
    frozenset(
        "wash washes washing washed rinse rinses rinsing rinsed scrub scrubs scrubbing scrubbed "
        "wipe wipes wiping wiped".split()
    ): frozenset({"is_clean", "is_dirty"}),
    frozenset({"touch", "touches", "touching", "touched"}): frozenset({"is_touched"}),
    # being somewhere, said in the passive after its placeholder ("[b] must be visited")
    frozenset({"visited", "entered", "reached", "occupied"}): frozenset({"agent_at"}),
    # not "close" ("go close to [a]") nor "closed" ("[a] is closed", after its placeholder)
    frozenset("open opens opening opened closes closing shut shuts shutting".split()): (
        frozenset({"is_open"})
    ),
    frozenset("switch switches switching switched".split()): frozenset({"is_switchedon"}),
    frozenset(
        "grab grabs grabbing grabbed pick picks picking picked carry carries carrying carried "
        "hold holds holding held lift lifts lifting lifted".split()
    ): _HELD,
    frozenset(
        "drink drinks drinking drank eat eats eating ate eaten read reads reading type types "
        "typing typed push pushes pushing pushed pull pulls pulling pulled watch watches "
        "watching watched cut cuts cutting squeeze squeezes squeezing squeezed kick kicks "
        "kicking kicked lick licks licking licked smell smells smelling smelled cook cooks "
        "cooking cooked climb climbs climbing climbed sleep sleeps sleeping slept".split()
    ): frozenset(),
}
_VERB_OF = {word: group for group in _VERB_PREDICATES for word in group}
# Where a placeholder's own clause starts, looking back from it: the verb of "[a] may be opened
# after you have [b]" is not [b]'s.
_OWN_CLAUSE = re.compile(
    r",|\b(?:after|before|until|till|once|when|whenever|if|while|unless|and|but|or|then)\b"
)
_PASSIVE_VERB = re.compile(
    r"\[([a-z])\]\s+(?:[a-z']+\s+){0,2}?(?:be|is|are|was|were|been|being|gets?|got)\s+"
    r"(?:[a-z]+ly\s+)?(" + "|".join(sorted({w for w in _VERB_OF if w.endswith("ed")})) + r")\b"
)

# What is forbidden of a thing, after its placeholder: "[b] is forbidden to switch on".
_FORBIDDEN_VERB = re.compile(
    r"\[([a-z])\]\s+(?:[a-z']+\s+){0,2}?(?:forbidden|prohibited|banned|allowed|permitted)\s+"
    r"to\s+(?:be\s+)?(" + "|".join(sorted(_VERB_OF, key=len, reverse=True)) + r")\b"
)


def verb_conflict(lifted: str, formula: Formula) -> str | None:
    """Why *formula* cannot be what *lifted* says, or None: the verb of a placeholder's
    clause (the last one of the few words before it) maps to predicates the formula does
    not use for it, or to none at all ("drink [a]").

    >>> verb_conflict("never plug in [a]", parse('G!"agent_at(a)"'))
    "it says 'plug' of [a], which is_pluggedin(…) records, not agent_at(…)"
    >>> verb_conflict("kindly never drink [a]", parse('G!"agent_at(a)"'))
    "it says 'drink' of [a], an action no predicate records"
    >>> verb_conflict("[a] is full of coats, so never open it", parse('G!"agent_at(a)"'))
    "it says 'open' of [a], which is_open(…) records, not agent_at(…)"
    >>> verb_conflict("never plug in [a]", parse('G!"is_pluggedin(a)"')) is None
    True
    >>> verb_conflict("[b] is forbidden to switch on", parse('G!"agent_at(b)"'))
    "it says 'switch' of [b], which is_switchedon(…) records, not agent_at(…)"
    """
    used: dict[str, set[str]] = {}
    for atom in formula.atoms():
        m = re.fullmatch(r"(\w+)\((.*)\)", atom)
        if m:
            for x in m.group(2).split(","):
                used.setdefault(x.strip(), set()).add(m.group(1))
    text = _text(lifted)
    # pronouns as the grammar resolves them too: "never open it" is about its thing
    resolved = normalize(lifted) if re.search(r"\b(?:it|them)\b", text) else text
    said = [
        (
            next(
                (w for w in reversed(_OWN_CLAUSE.split(before)[-1].split()) if w in _VERB_OF), None
            ),
            x,
        )
        for sentence in dict.fromkeys((text, resolved))
        for before, x in re.findall(r"((?:[a-z']+[ ,]+){0,4})\[([a-z])\]", sentence)
    ]
    # the passive, after its placeholder: "[b] must be visited", "[a] gets switched on"
    said += [(m.group(2), m.group(1)) for m in _PASSIVE_VERB.finditer(text)]
    said += [(m.group(2), m.group(1)) for m in _FORBIDDEN_VERB.finditer(text)]
    for verb, x in said:
        if verb is None:
            continue
        verb = verb.strip(",")
        allowed = _VERB_PREDICATES[_VERB_OF[verb]]
        mine = used.get(x, set())
        if not allowed:
            return f"it says {verb!r} of [{x}], an action no predicate records"
        if mine and not mine & allowed:
            says = " or ".join(f"{p}(…)" for p in sorted(allowed))
            reads = ", ".join(f"{p}(…)" for p in sorted(mine))
            return f"it says {verb!r} of [{x}], which {says} records, not {reads}"
    return None


# Words that put the placeholder after them first ("only after [a]", "until [a]", "unless you
# have been to [a]"), and the words up to it (no comma, no other placeholder between).
_UP_TO = r"\s+(?:[^\s,;\[]+\s+){0,5}?\[([a-z])\]"
_FIRST_AFTER = re.compile(
    r"\b(?:after|once|until|till|unless|as soon as|having|(?:have|has) not(?: yet)?)" + _UP_TO
)
_FIRST_BEFORE = re.compile(
    r"\[([a-z])\]\s+(?:[^\s,;\[]+\s+){0,4}?(?:unlocks|enables|opens up|permits|allows|"
    r"comes first|come first|goes first|go first|first)\b|\bfirst" + _UP_TO
)
_BEFORE = re.compile(r"\b(?:before|prior to|ahead of)" + _UP_TO)
_NEGATION = re.compile(r"\b(?:not|never|no|cannot|don't|nothing|nobody|no one|no-one|none)\b")
# Condition words of a state condition, and whether they negate it ("unless", "outside").
_CONDITION = re.compile(
    r"\b(?:(unless|except(?: (?:when|while|if|in|for))?|outside(?: of)?|only (?:when|while|if|in))|"
    r"while|whilst|as long as|if|when|whenever|^(?:in|inside))" + _UP_TO
)


# What sets a reaction off: the placeholder after these words.
_TRIGGER = re.compile(
    r"\b(?:if|when|whenever|once|after|every time|each time|as soon as|having|the moment|"
    r"upon|following)" + _UP_TO
)
_TRIGGERED = frozenset(
    {"response", "immediate_response", "bounded_delay", "absence_after", "instantaneous_reaction"}
)


def _atom_letters(f: Formula) -> set[str]:
    return {x.strip() for a in f.atoms() for x in a.split("(", 1)[-1].rstrip(")").split(",")}


# "… ahead of it", "… before that" closing a clause: the other thing of the sentence.
_TIME_PRONOUN = re.compile(r"\b(before|ahead of|prior to) (?:it|that)(?=\s*(?:[,.;!?]|$))")


def _other_thing(text: str, m: re.Match[str]) -> str:
    """The pronoun of *m* as the one thing of *text* its own clause does not name, if one."""
    rest = set(_LETTERS.findall(text)) - own_letters(text, m.start())
    return f"{m.group(1)} [{rest.pop()}]" if len(rest) == 1 else m.group()


# The words of each side of a two-valued state, for telling which one a sentence says first.
_STATE_SIDES = {
    "is_open": (r"\bopen(?:s|ed|ing)?\b", r"\b(?:clos(?:e|es|ed|ing)|shut(?:s|ting)?)\b"),
    "is_switchedon": (r"\bon\b", r"\boff\b"),
}

# Words that say which side is the trigger, wherever it stands ("close [a] after opening it").
_TRIGGER_WORD = re.compile(
    r"\b(?:after|if|when|whenever|once|as soon as|soon as|the moment|upon|"
    r"every time|each time|any time|whilst|while|of being)\b"
)


def reversed_reaction(lifted: str, formula: Formula) -> str | None:
    """Why a reaction reading about one thing's two states (``G(!p -> F p)``) has them the
    wrong way round, or None: with no word to say which side sets it off ("after", "when",
    "once" …), the side the sentence names first does ("every opening of [a] is followed by
    [a] being closed" is ``G(p -> F !p)``).

    >>> reversed_reaction("[a] opened means [a] closed before the end",
    ...                   parse('G(!"is_open(a)" -> F"is_open(a)")'))
    'it names [a] open first, and the reading reacts to [a] not open'
    >>> reversed_reaction("[a] opened means [a] closed", parse('G("is_open(a)" -> F!"is_open(a)")'))
    >>> reversed_reaction("close [a] right after opening it",
    ...                   parse('G("is_open(a)" -> X[!]!"is_open(a)")')) is None
    True
    """
    if formula.op != "G" or formula.children[0].op != "->":
        return None
    trigger = formula.children[0].children[0]
    negated = trigger.op == "!"
    atom = trigger.children[0] if negated else trigger
    if atom.op != "ap" or atom.proposition.predicate not in _STATE_SIDES:
        return None
    if len(formula.atoms()) != 1:
        return None
    text = _text(lifted)
    if _TRIGGER_WORD.search(text):
        return None  # "close [a] straight after opening it": the words say which is first
    positive, negative = (re.search(w, text) for w in _STATE_SIDES[atom.proposition.predicate])
    if positive is None or negative is None:
        return None
    first_negative = negative.start() < positive.start()
    if first_negative == negated:
        return None
    word = atom.proposition.predicate.removeprefix("is_").replace("switchedon", "switched on")
    x = atom.proposition.args[0]
    return (
        f"it names [{x}] {'not ' if first_negative else ''}{word} first, and the reading "
        f"reacts to [{x}] {'not ' if negated else ''}{word}"
    )


def order_conflict(lifted: str, formula: Formula, pattern: str) -> str | None:
    """Why *formula* gets the sentence's order or condition the wrong way round, or None.

    A precedence reading (``!q W p``: p first) must put first what the sentence does ("only
    after [a]", "until [a]", "[a] unlocks", "[a] first", "not … before [a]"); a state
    condition (``G(c -> !q)`` or ``G(!c -> !q)``) must take its condition from the clause of
    "while/if/when/unless/outside", negated exactly when that clause is ("unless", "if you
    are not in"). A sentence whose cues disagree among themselves gets no such reading.

    >>> order_conflict("only after you visit [a], you can go to [b]",
    ...                parse('!"agent_at(a)" W "agent_at(b)"'), "not_before")
    'it says [a] comes first, the reading puts [b] first'
    >>> order_conflict("once you have been in [a], never enter [b]",
    ...                parse('G("agent_at(b)" -> XG!"agent_at(a)")'), "absence_after")
    'it says [a] sets it off, the reading makes it [b]'
    >>> order_conflict("see to [a], and do not step into [b] ahead of it",
    ...                parse('!"agent_at(a)" W "agent_at(b)"'), "not_before")
    'it says [a] comes first, the reading puts [b] first'
    >>> order_conflict("nobody goes near [a] before they have been to [b]",
    ...                parse('!"agent_at(b)" W "agent_at(a)"'), "not_before")
    'it says [b] comes first, the reading puts [a] first'
    >>> order_conflict("do not touch [a] unless you are in [b]",
    ...                parse('G(!"is_touched(a)" -> !"agent_at(b)")'), "avoid_unless")
    'the condition is about [b], the reading makes it about [a]'
    """
    text = clean(lifted)  # pronouns kept: "before it has visited [b]" is about [b]
    text = _TIME_PRONOUN.sub(lambda m: _other_thing(text, m), text)
    if formula.op == "W" and pattern in ("not_before", "before"):
        firsts = set(_FIRST_AFTER.findall(text))
        firsts |= {x for pair in _FIRST_BEFORE.findall(text) for x in pair if x}
        seconds: set[str] = set()
        for m in _BEFORE.finditer(text):
            # "not … before [a]" and "before [a], you cannot …" put [a] first
            clause = CLAUSE_BREAK.split(text[: m.start()])[-1] + next(
                c for c in CLAUSE_BREAK.split(text[m.start() :]) if c and c.strip()
            )
            (firsts if _NEGATION.search(clause) else seconds).add(m.group(1))
        if firsts & seconds or len(firsts) > 1:
            return "its words put different things first"
        reading = _atom_letters(formula.children[1])
        said = firsts or {x for x in _atom_letters(formula) if seconds and x not in seconds}
        if said and not said & reading:
            return (
                f"it says {', '.join(f'[{x}]' for x in sorted(said))} comes first, the reading "
                f"puts {', '.join(f'[{x}]' for x in sorted(reading))} first"
            )
    if pattern in _TRIGGERED and formula.op == "G" and formula.children[0].op == "->":
        # "whenever / once / after / if [a] …": [a] is what sets the reaction off
        said = set(_TRIGGER.findall(normalize(lifted)))
        trigger = _atom_letters(formula.children[0].children[0])
        if said and not said & trigger:
            return (
                f"it says {', '.join(f'[{x}]' for x in sorted(said))} sets it off, the reading "
                f"makes it {', '.join(f'[{x}]' for x in sorted(trigger))}"
            )
    if pattern in ("avoid_while", "avoid_unless") and formula.op == "G":
        body = formula.children[0]
        if body.op != "->":
            return None
        # "unless", "outside", "only … when", "if you are not in": the condition negated
        found = [
            (m.group(2), bool(m.group(1) or re.search(r"\bonly\b", text[: m.start()]))
             != bool(_NEGATION.search(m.group())))
            for m in _CONDITION.finditer(text)
        ]  # fmt: skip
        if not found:
            return None
        where = {x for x, _ in found}
        condition = _atom_letters(body.children[0])
        # G(c -> !q) is G(q -> !c): only "unless" has a side
        if pattern == "avoid_unless" and (not condition & where or condition - where):
            return (
                f"the condition is about {', '.join(f'[{x}]' for x in sorted(where))}, the "
                f"reading makes it about {', '.join(f'[{x}]' for x in sorted(condition))}"
            )
        negated = {n for _, n in found}
        if len(negated) == 1 and negated.pop() != (pattern == "avoid_unless"):
            return "the reading turns the condition round (while/unless)"
    return None


# "in any order", "the order does not matter": the sentence asks for no order at all.
_ORDERED = re.compile(
    r"\b(?:first|then|before|after|afterwards|next|followed by|in (?:that|this|the given) order|"
    r"in order|one after the other|in sequence|second|last|finally)\b"
)
# An order given for visits: "in exactly that order", "out of turn".
_GIVEN_ORDER = re.compile(
    r"\b(?:in (?:exactly |precisely )?(?:that|this|the given|the same) order|out of turn)\b"
)
_SEQUENCES = frozenset({"sequenced_visit", "ordered_visit", "strictly_ordered_visit", "before"})


def cues(text: str) -> frozenset[str]:
    """The cue classes of *text* (negation, count bounds, order, timing, state…).

    >>> sorted(cues("never go to [a] more than twice"))
    ['count', 'negation', 'upper']
    >>> "order" in cues("visit [a] and [b] in any order")
    False
    >>> "negation" in cues("just don't skip [a]")
    False
    """
    # "don't forget / skip / miss [a]" asks for it
    t = re.sub(r"\b(?:do not|don't|dont|never) (?:forget|skip|miss|neglect|fail)\b", "remember",
               _text(text))  # fmt: skip
    t = ANY_ORDER.sub("", t)
    return frozenset(name for name, pattern in _CUES.items() if pattern.search(t))


def _text(lifted: str) -> str:
    return " ".join(lifted.lower().replace("’", "'").split()).rstrip(".!?;: ")


def _with_counts(
    pattern: str, formula: Formula, literals: dict[str, Formula], text: str, template: str
) -> Formula | None:
    """*formula* rebuilt with the count or step bound of *text* (None if it has none); a
    qualifier of the reading's kind moves the number as the grammar's does ("more than once"
    is at least twice, "fewer than three times" at most twice).

    >>> from safetychip.ltl import parse
    >>> a = parse("agent_at(a)")
    >>> str(_with_counts("at_least", a, {"a": a}, "visit [a] more than once", ""))
    'F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))'
    """
    if pattern in ("at_most", "at_least", "exactly"):
        found = find_count(text)
        if found is None or len(literals) != 1:
            return None
        kind, shift = count_kind(found[1])
        times = count_value(found[2]) + (shift if kind == pattern else 0)
        if times < 0 or (times == 0 and pattern != "at_most"):
            return None
        return no_double_negation(build_pattern(pattern, times, *literals.values()))
    if pattern == "bounded_delay":
        n, _ = within(text)
        if n is None or formula.op != "G" or formula.children[0].op != "->":
            return None
        p, q = formula.children[0].children  # G(p -> (q | X[!](q | …)))
        while q.op == "|":
            q = next(k for k in q.children if k.op != "X[!]")
        return no_double_negation(build_pattern(pattern, n, p, q))
    return formula


# The reactions, by when they are due (see timing_cues).
_REACTIONS = {"later": "response", "next": "immediate_response", "bounded": "bounded_delay"}
_COUNTS = frozenset({"at_most", "at_least", "exactly"})
# "Nobody" as the subject of a verb: "nobody opens [a]" (not "with nobody in it").
_NOBODY = re.compile(
    r"\b(?:nobody|no one|no-one)\s+(?!(?:in|at|on|there|here|around|home|else|about|near)\b)"
    r"[a-z]+"
)
# Words that make something due at the very next step ("as your very next move"), unlike a
# plain "next" that only orders visits ("[a], next [b]").
_PROMPT = re.compile(
    r"\b(?:very next|next (?:step|move|action|turn)|immediately|right away|straight away|"
    r"at once|(?:right|straight|directly|immediately|just) after)\b"
)
# A number of entries said with its unit: "2 trips", "three visits", "4 laps".
_COUNTED_UNITS = re.compile(
    r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten)\s+(?:times|visits|trips|entries|"
    r"laps|occasions|rounds|loops|passes)\b"
)
_COUNT_UPPER = re.compile(
    r"\b(?:at most|at the most|no more than|not more than|maximum|max|tops|up to|exceeds?|"
    r"exceeding|or fewer|or less|(?<!not )(?<!no )fewer than|(?<!not )(?<!no )less than|"
    r"and no more|not more|no more|only)\b"
)
_COUNT_LOWER = re.compile(
    r"\b(?:at least|or more|no fewer than|no less than|not less than|not fewer than|minimum|"
    r"not zero|not less|no less|(?<!not )(?<!no )more than)\b"
)


# Readings that ask for something to happen (never what a sentence keeps away from).
# A condition in a sentence: a reading that holds always (or once, or a number of times)
# leaves it out.
_ANY_CONDITION = re.compile(
    r"\b(?:if|when|whenever|while|whilst|unless|until|till|before|as soon as|as long as|"
    r"except|once you|after you)\b"
)
# Conditions of a request's politeness or of the run's time, not of the rule: "if possible",
# "when you get a sec", "before you finish", "while we are out".
_POLITE_CONDITION = re.compile(
    r"\b(?:if (?:at all )?possible|if (?:it is|it's) no trouble|if you (?:can|could|do not mind)|"
    r"if (?:that is|that's) (?:alright|all right|ok|okay|fine)|"
    r"(?:appreciate|like|love|be great|be nice|be lovely) (?:it )?if|"
    r"when you (?:get|have) a (?:sec|second|minute|moment|chance)|"
    r"before (?:you|it|the robot|the agent) (?:finish(?:es)?|(?:are|is) done|ends?|stops?)|"
    r"while (?:we are|we're|i am|i'm|they are|they're) (?:out|away|gone|at work)|"
    r"before (?:\w+ ){1,2}gets? (?:back|home)|"
    r"(?:until|till) (?:relieved|further notice|(?:i|we|they) (?:get|come) (?:back|home)|"
    r"(?:you are|you're) (?:told|relieved))|if you [a-z]+ (?:\[[a-z]\]|it|them) at all|"
    # the run's own end, the speaker's day
    r"(?:until|till|before) (?:the )?(?:end of the (?:day|run|shift|session)|"
    r"(?:run|day|shift|session) (?:ends|is over)|my alarm goes|"
    r"(?:i'm|im|i am|we're|we are) (?:back|up|home|awake))|"
    r"if you would|(?<=, )whenever$)\b"
)
# Words that make a state a condition: "while", "unless", "only", "in [a]: …", "outside".
_STATE_WORDS = re.compile(
    r"\b(?:while|whilst|when|whenever|if|unless|as long as|only|except|outside|anywhere|"
    r"nowhere|in case|during|implies|save|provided|less(?= you))\b|^(?:in|inside|at|within)\b|"
    r"\b(?:in|inside|at) \[[a-z]\]\s*[:,]|->"
)
_UNCONDITIONAL = frozenset({"never", "visit", "patrolling", *_COUNTS})
_ASKS = frozenset(
    {"visit", "sequenced_visit", "ordered_visit", "strictly_ordered_visit", "patrolling", "wait",
     "at_least"}
)  # fmt: skip


def _windows(lifted: str, letters: int):
    """Each run of up to eight words of *lifted* (normalised) with *letters* placeholders, read
    by the grammar's clause reader, longest first: (clause, the words)."""
    words = normalize(lifted).replace(",", " ").split()
    for size in range(min(8, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            text = " ".join(words[i : i + size])
            found = _LETTERS.findall(text)
            if len(found) == letters and len(set(found)) == letters:
                clause = read_clause(text)
                if clause is not None and clause.literal is not None:
                    yield clause, text


def _avoided(lifted: str) -> set[str]:
    """The placeholders whose own clause says to keep away ("stay out of [a]", "keep [a] shut",
    "hands off [a]")."""
    return {clause.letters[0] for clause, _ in _windows(lifted, 1) if clause.avoid}


def _two_place(lifted: str) -> set[str]:
    """The two-place atoms the sentence's own clauses say ("put [a] in [b]": ``is_in(a,b)``)."""
    out = set()
    for clause, text in _windows(lifted, 2):
        if text.startswith("["):
            continue  # "[a] is in [b]" may be two clauses run together; a verb says one
        atom = clause.literal.children[0] if clause.literal.op == "!" else clause.literal
        if atom.name and "," in atom.name:
            out.add(atom.name)
    return out


def _retimed(
    pattern: str, formula: Formula, timing: frozenset[str], text: str
) -> tuple[str, Formula]:
    """A reaction reading made due when the sentence says (*timing*, one cue): "after some
    time" is eventually, "the very next moment" the next step, "no later than two steps"
    within two steps, whatever the template said."""
    if pattern not in _REACTIONS.values() or len(timing) > 1:
        return pattern, formula
    # no timing word: a reaction is due eventually ("if you open [a], close it")
    want = _REACTIONS[next(iter(timing), "later")]
    if want == pattern or formula.op != "G" or formula.children[0].op != "->":
        return pattern, formula
    p, q = formula.children[0].children
    while q.op == "|":  # bounded: q | X[!](q | …)
        q = next(k for k in q.children if k.op not in ("X", "X[!]"))
    if q.op in ("F", "X", "X[!]"):
        q = q.children[0]
    if want == "bounded_delay":
        n, _ = within(text)
        if n is None:
            return pattern, formula  # steps in words it cannot read: refused (misfit)
        return want, no_double_negation(build_pattern(want, n, p, q))
    return want, no_double_negation(build_pattern(want, p, q))


def _count_conflict(text: str, pattern: str) -> str | None:
    """Why a reading of *pattern* misses the sentence's count, or None: a count said
    ("twice", "not exceed two") needs a count reading, of the kind the words say (at most,
    at least, or both: exactly)."""
    found = find_count(text)
    said = (
        "exceed" in text
        or _COUNTED_UNITS.search(text) is not None
        or (
            found is not None
            and (
                found[2] != "once"
                or re.search(r"\bonce(?:\s*$|\s*,|\s+(?:and|only|a|per)\b)", text)
            )
        )
    )
    if not said:
        return None
    if pattern not in _COUNTS:
        return "it says how many times, and the reading counts nothing"
    if _NEGATION.search(text) and not re.search(r"\bnot (?:zero|more|less|exceed)", text):
        return None  # "never more than twice": the grammar's business
    upper = _COUNT_UPPER.search(text) is not None
    lower = _COUNT_LOWER.search(text) is not None
    if re.search(r"\b(?:exactly|precisely|and only)\b", text) or (upper and lower):
        kind = "exactly"
    elif upper or lower:
        kind = "at_most" if upper else "at_least"
    else:
        return None
    if kind != pattern:
        return f"its words say {kind.replace('_', ' ')}, the reading {pattern.replace('_', ' ')}"
    return None


class RetrievalTranslator:
    """Translate a lifted sentence by voting among its nearest paraphrase templates.

    Parameters
    ----------
    embedder : Embedder, "minilm" or None
        The sentence encoder (created on first use for ``"minilm"``); None refuses all.
    k : int
        Neighbours that vote.
    temperature : float
        Vote weights fall by a factor e for each *temperature* of similarity below the best.
    cue_weight : float
        Added to a template's similarity for each cue class (:func:`cues`) it shares with
        the sentence, and taken off for each it does not.
    library : path or sequence of paths
        The templates and examples (JSON lines): :data:`TEMPLATES`, written by us, and
        :data:`EXAMPLES`, sentences by other hands. A missing file is a
        :class:`~safetychip.errors.DataFileError`. A file's vectors
        are read from the ``.npy`` file beside it when its hash matches (the ``.json``
        beside it), else embedded at first use.
    without : iterable of str
        Example sets left out (a row's ``set``), to score a set by other hands with none of
        its own sentences voting: ``without={"fresh"}``.
    calibration : path or dict
        The fitted confidence; see :func:`calibrate`.
    """

    name = "offline-retrieval-minilm"

    def __init__(
        self,
        embedder: Embedder | str | None = "minilm",
        *,
        k: int = 20,
        temperature: float = 0.1,
        cue_weight: float = 0.08,
        library: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (TEMPLATES, EXAMPLES),
        without: Iterable[str] = (),
        calibration: str | os.PathLike[str] | dict | None = CALIBRATION,
    ) -> None:
        if isinstance(embedder, str) and embedder != "minilm":
            raise ValueError(f"embedder must be an Embedder, 'minilm' or None, got {embedder!r}")
        self._embedder = embedder
        self.k = k
        self.temperature = temperature
        self.cue_weight = cue_weight
        paths = [library] if isinstance(library, (str, os.PathLike)) else list(library)
        self.libraries = tuple(Path(p) for p in paths)
        self.without = frozenset(without)
        self.rows = [row for p in self.libraries for row in _load_templates(p)]
        if isinstance(calibration, dict):
            self.calibration = calibration
        elif calibration is not None:
            self.calibration = _read_calibration(Path(calibration))
        else:
            self.calibration = {
                "weights": [-12.0, 12.0, 4.0, -2.0],
                "threshold": 0.5,
                "ambiguity": 0.6,
            }

    def leaving_out(self, ids: Iterable[str]) -> RetrievalTranslator:
        """The same translator with every example set that holds one of *ids* left out, so
        that a labelled set is scored with none of its own writer's sentences voting.

        >>> r = RetrievalTranslator(embedder=None)
        >>> sorted(r.leaving_out(["fr-001", "not-an-example"]).without)
        ['fresh']
        """
        wanted = set(ids)
        sets = {row["set"] for row in self.rows if row.get("id") in wanted}
        return RetrievalTranslator(
            self._embedder,
            k=self.k,
            temperature=self.temperature,
            cue_weight=self.cue_weight,
            library=self.libraries,
            without=self.without | sets,
            calibration=self.calibration,
        )

    @property
    def embedder(self) -> Embedder | None:
        """The encoder, created on first access when given as ``"minilm"``."""
        if self._embedder == "minilm":
            from ..llm import MiniLMEmbedder

            self._embedder = MiniLMEmbedder()
        return self._embedder  # type: ignore[return-value]

    def _vectors(self) -> Any:
        """The library's vectors by placeholder letters, without the example sets left out:
        each file's are read from the ``.npy`` beside it when its hash matches, else embedded
        once; shared by every translator over the same files."""
        key = (
            tuple((str(p.resolve()), p.stat().st_mtime_ns) for p in self.libraries),
            tuple(sorted(self.without)),
        )
        if key not in _VECTORS:
            import numpy as np

            matrix = np.concatenate([self._matrix(p) for p in self.libraries])
            groups: dict[str, list[int]] = {}
            for i, row in enumerate(self.rows):
                if row.get("set") not in self.without:
                    groups.setdefault(row["letters"], []).append(i)
            cue_matrix = np.array(
                [[name in row["cues"] for name in _CUES] for row in self.rows], dtype=np.int8
            )
            _VECTORS[key] = {
                g: (np.array(ix), matrix[ix], cue_matrix[ix], cue_matrix[ix].sum(axis=1))
                for g, ix in groups.items()
            }
        return _VECTORS[key]

    def _matrix(self, path: Path) -> Any:
        """The vectors of one library file's texts (stored, or embedded once)."""
        key = (str(path.resolve()), path.stat().st_mtime_ns)
        if key not in _MATRICES:
            import numpy as np

            texts = [r["text"] for r in _load_templates(path)]
            stored, summary = path.with_suffix(".npy"), path.with_suffix(".json")
            digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()
            matrix = None
            if stored.is_file() and summary.is_file():
                if json.loads(summary.read_text(encoding="utf-8")).get("sha256") == digest:
                    matrix = np.load(stored).astype(np.float32)
            if matrix is None:
                embedder = self.embedder
                assert embedder is not None
                matrix = embedder.encode(texts)
            _MATRICES[key] = matrix
        return _MATRICES[key]

    def prefetch(self, lifted: Iterable[str]) -> None:
        """Embed the queries of many *lifted* sentences in one batch (the embedder keeps the
        vectors for :meth:`readings`)."""
        if self.embedder is not None:
            self.embedder.encode(sorted({_text(text) for text in lifted}))

    def readings(self, lifted: str) -> tuple[Reading, ...]:
        """The candidate readings of *lifted*, most votes first (empty without an embedder
        or a template over the same placeholders)."""
        embedder = self.embedder
        if embedder is None:
            return ()
        import numpy as np

        letters = "".join(sorted(set(_LETTERS.findall(lifted))))
        group = self._vectors().get(letters)
        if group is None:
            return ()
        rows, vectors, cue_rows, cue_counts = group
        text = _text(lifted)
        if _QUANTIFIED.search(text):
            return ()  # "anything in [a]": about things the sentence does not name
        own = clause_literals(lifted)
        both = _both_ways(lifted, own)
        timing = timing_cues(lifted)
        query = embedder.encode([text])[0]
        found = cues(unchat(normalize(lifted)))  # "if it's not too much trouble" forbids nothing
        negative = "negation" in found or bool(_RESTRICTIVE.search(text))
        # "nobody opens [a]" asks for nothing ("with nobody in it" is no subject)
        nobody = _NOBODY.search(text) is not None
        unread = 1.0 - len(own) / max(1, len(letters))
        mine = np.array([name in found for name in _CUES], dtype=np.int8)
        # shared cues minus cues in one only: 3 * shared - |mine| - |theirs|
        agreement = 3 * (cue_rows @ mine) - int(mine.sum()) - cue_counts
        scores = vectors @ query + self.cue_weight * agreement
        k = min(self.k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        best = float(scores[top[0]])
        votes: dict[str, list] = {}
        total = 0.0
        for j in top:
            row = self.rows[rows[j]]
            s = float(scores[j])
            weight = math.exp((s - best) / self.temperature)
            literals = dict(row["literals"])
            literals.update(
                (x, f)
                for x, f in own.items()
                if x in literals and not (x in both and _opposite(literals[x], f))
            )
            formula = _fill(row["skeleton"], literals) if literals else row["parsed"]
            formula = _with_counts(row["pattern"], formula, literals, text, _text(row["text"]))
            total += weight
            if formula is None:
                continue  # a count pattern, but the sentence says no count
            pattern, formula = _retimed(row["pattern"], formula, timing, text)
            if (row["pattern"] in _PROHIBITIONS and not negative) or (
                row["pattern"] in _MISSIONS_ONLY and ("negation" in found or nobody)
            ):
                continue  # a prohibition from a sentence that forbids nothing, or the reverse
            entry = votes.setdefault(str(formula), [0.0, s, row, formula, pattern])
            entry[0] += weight
        out = [
            Reading(formula, pattern, weight / total, s, row["text"], unread)
            for weight, s, row, formula, pattern in votes.values()
        ]
        return tuple(sorted(out, key=lambda r: -r.share))

    def confidence(self, readings: tuple[Reading, ...]) -> float:
        """The calibrated probability that the first reading is right."""
        if not readings:
            return 0.0
        w0, w1, w2, *w3 = self.calibration["weights"]
        best = readings[0]
        z = w0 + w1 * best.similarity + w2 * best.share + (w3[0] * best.unread if w3 else 0.0)
        return 1.0 / (1.0 + math.exp(-z))

    @classmethod
    def ambiguous(cls, lifted: str, readings: tuple[Reading, ...], ratio: float = 0.6) -> bool:
        """Whether the runner-up of *readings* has at least *ratio* of the winner's votes and
        fits the sentence as well (a runner-up that :meth:`misfit` rejects is no rival).

        >>> place = Reading(parse('G!"agent_at(a)"'), "never", 0.5, 0.9, "avoid [a]", 0.0)
        >>> opened = Reading(parse('G!"is_open(a)"'), "never", 0.4, 0.8, "never open [a]", 0.0)
        >>> RetrievalTranslator.ambiguous("[a]: never", (place, opened))
        True
        >>> RetrievalTranslator.ambiguous("never open [a]", (opened, place))  # 'open' of a place
        False
        """
        return (
            len(readings) > 1
            and readings[1].share >= ratio * readings[0].share
            and cls.misfit(lifted, readings[1]) is None
        )

    @staticmethod
    def misfit(lifted: str, reading: Reading) -> str | None:
        """Why *reading* cannot be what *lifted* says, or None: a clause of the sentence the
        template does not account for (:func:`~safetychip.translate._grammar.unaccounted_clauses`;
        unless it only says again what the reading requires),
        a verb that does not fit (:func:`verb_conflict`), conflicting timing words, a count
        the reading misses, or an order or condition the wrong way round
        (:func:`order_conflict`)."""
        left = unaccounted_clauses(lifted, reading.example)
        if left and not _restated(lifted, reading, left):
            return (
                f"its reading accounts for one part of the sentence and leaves out "
                f"{'; '.join(repr(c) for c in left)}"
            )
        timing = timing_cues(lifted)
        if len(timing) > 1 and reading.pattern in _REACTIONS.values():
            return f"it says both {' and '.join(sorted(timing))} for when the reaction is due"
        if "bounded" in timing and within(_text(lifted))[0] is None:
            return "it names a number of steps in words the translator does not read"
        text = _text(lifted)
        if _PROMPT.search(text) and not any(
            f.op in ("X", "X[!]") for f in reading.formula.subformulas()
        ):
            return "it says the very next step, and the reading has no next step"
        if reading.pattern in _SEQUENCES and ANY_ORDER.search(text):
            return "it says the order does not matter, and the reading orders the visits"
        if (
            reading.pattern == "before"
            and re.search(r"\b(?:then|after that|afterwards|and later)\b", text)
            and "negation" not in cues(unchat(normalize(lifted)))
        ):
            # "first [a], then [b]" asks for both, in order (as the grammar reads it)
            return "it asks for both, one after the other, and the reading only forbids one first"
        if reading.pattern in ("avoid_while", "avoid_unless") and not _STATE_WORDS.search(text):
            return "it states no condition, and the reading has one"
        if reading.pattern == "never" and _GIVEN_ORDER.search(text):
            return "it puts visits in an order, and the reading forbids them"
        if reading.pattern == "strictly_ordered_visit" and not NO_RETURN.search(text):
            return "it says nothing against going back, and the reading forbids it"
        # a question the speaker asks ("to see if …") is no condition, as the grammar reads it
        condition = _ANY_CONDITION.search(
            _POLITE_CONDITION.sub(" ", ASKED.sub(r"\1 whether", text))
        )
        if condition and reading.pattern in _UNCONDITIONAL:
            return f"it states a condition ({condition.group()!r} …), and the reading has none"
        kept_away = _avoided(lifted)
        if kept_away and reading.pattern in _ASKS:
            return (
                f"it says to keep away from {', '.join(f'[{x}]' for x in sorted(kept_away))}, "
                "and the reading asks for it"
            )
        missing = _two_place(lifted) - reading.formula.atoms()
        if missing:
            return f"it says {', '.join(sorted(missing))}, which the reading does not"
        if (
            reading.pattern == "visit"
            and len(set(_LETTERS.findall(text))) > 1
            and not ANY_ORDER.search(text)
            and _ORDERED.search(text)
        ):
            return "it puts the visits in an order, and the reading does not"
        return (
            verb_conflict(lifted, reading.formula)
            or reversed_reaction(lifted, reading.formula)
            or _count_conflict(text, reading.pattern)
            or order_conflict(lifted, reading.formula, reading.pattern)
        )

    def _usable(
        self, lifted: str, rooms: Iterable[str], things: Iterable[str]
    ) -> tuple[Reading, ...]:
        """:meth:`readings` of *lifted* without those that say more of a room in *rooms* than
        being there, or put the robot at a thing of *things* its clause does not place it
        at."""
        rooms, things = frozenset(rooms), frozenset(things)
        own = clause_literals(lifted)
        return tuple(
            r
            for r in self.readings(lifted)
            if misused_room(r.formula, rooms) is None
            and placed_at_thing(r.formula, things, own) is None
        )

    def candidates(
        self,
        lifted: str,
        rooms: Iterable[str] = (),
        things: Iterable[str] = (),
        limit: int | None = None,
    ) -> tuple[tuple[LiftedTranslation, float, float, bool], ...]:
        """The usable readings of *lifted* (see :meth:`__call__` for *rooms* and *things*),
        most voted first, at most *limit*, as (lifted translation, vote share, similarity,
        fits): *fits* is
        False when :meth:`misfit` finds the reading at odds with the sentence's words. A
        sentence about a list of things ("never open [a] or [b]") no template reads whole
        is read about its first thing and spread over the list. Empty without an embedder.

        >>> RetrievalTranslator(embedder=None).candidates("Never open [a].")
        ()
        """
        if self.embedder is None:
            return ()
        readings, text, spread = self._usable(lifted, rooms, things), lifted, None
        if not readings:
            found = collapse_list(lifted)
            if found is not None and not any(f"[{x}]" in found.text for x in found.others):
                readings, text, spread = self._usable(found.text, rooms, things), found.text, found
        out = []
        for r in readings[:limit]:
            reading = LiftedTranslation(r.formula, r.pattern, (), f"retrieval (like {r.example!r})")
            if spread is not None:
                reading = spread.spread(reading)
            out.append((reading, r.share, r.similarity, self.misfit(text, r) is None))
        return tuple(out)

    def __call__(
        self, lifted: str, rooms: Iterable[str] = (), things: Iterable[str] = ()
    ) -> LiftedTranslation:
        """The most voted reading, if confident and unambiguous; the placeholders in *rooms*
        are rooms, and a reading that says more of a room than being there
        (``is_grabbed(a)``) has no part in the vote's outcome; the placeholders in *things*
        are things, and a reading that puts the robot at one of them when the thing's own
        clause does not say so (:func:`~safetychip.translate._assemble.placed_at_thing`) has
        none either.

        Raises
        ------
        OutOfGrammarError
            Not confident enough, or ambiguous; ``readings`` lists the candidates.
        """
        if self.embedder is None:
            raise OutOfGrammarError(
                f"the retrieval translator has no embedder; it cannot read {lifted!r}", lifted
            )
        readings = self._usable(lifted, rooms, things)
        confidence = self.confidence(readings)
        shown = "; ".join(
            f"{r.formula} ({r.pattern}, like {r.example!r}, {r.share:.0%} of the votes)"
            for r in readings[:3]
        )
        if not readings or confidence < self.calibration["threshold"]:
            error = OutOfGrammarError(
                f"{lifted!r}: the retrieval translator is not confident enough to translate "
                f"it (confidence {confidence:.2f} < {self.calibration['threshold']:.2f}); "
                f"nearest readings: {shown or 'none'}. Rephrase the sentence in one of these "
                "forms.",
                lifted,
            )
            error.readings = readings  # type: ignore[attr-defined]
            raise error
        if self.ambiguous(lifted, readings, self.calibration["ambiguity"]):
            a, b = readings[0], readings[1]
            error = OutOfGrammarError(
                f"{lifted!r}: the sentence is ambiguous: it reads as {a.formula} ({a.pattern}, "
                f"like {a.example!r}) or as {b.formula} ({b.pattern}, like {b.example!r}). "
                "Say which one you mean.",
                lifted,
            )
            error.readings = readings  # type: ignore[attr-defined]
            raise error
        best = readings[0]
        conflict = self.misfit(lifted, best)
        if conflict is not None:
            error = OutOfGrammarError(
                f"{lifted!r}: the retrieval translator's reading {best.formula} ({best.pattern}, "
                f"like {best.example!r}) does not fit the sentence: {conflict}. Rephrase "
                "the sentence, or translate it with a language model.",
                lifted,
            )
            error.readings = readings  # type: ignore[attr-defined]
            raise error
        return LiftedTranslation(
            best.formula, best.pattern, (), f"retrieval ({confidence:.2f}: {best.example!r})"
        )


# The precise readers a clause left over by a template is read with (both stateless).
_CLAUSE_READERS = (PatternTranslator(), FrameReader())


def _restated(lifted: str, reading: Reading, left: tuple[str, ...]) -> bool:
    """Whether the clauses *left* over by *reading*'s template only say again what *reading*
    requires ("[a] first, then [b]. [b] never before [a]"): each of them, and every other
    clause of *lifted* that the grammar or the frame reader reads on its own, is implied by
    the reading, as the automata decide (every run the reading allows satisfies the clause).
    """
    from ..automata import includes

    for clause in constraint_clauses(lifted):
        for read in _CLAUSE_READERS:
            try:
                said = read(clause).formula
            except OutOfGrammarError:
                continue
            if not includes(said, reading.formula):
                return False
            break
        else:
            if clause in left:
                return False  # a clause the template left over, and nothing else reads it
    return True


# Loaded libraries and their vectors, by (path, modification time): shared by translators.
_LIBRARIES: dict[tuple[str, int], list[dict]] = {}
_MATRICES: dict[tuple[str, int], Any] = {}
_VECTORS: dict[tuple[Any, ...], dict[str, tuple[Any, Any, Any, Any]]] = {}


def _read_calibration(path: Path) -> dict:
    try:
        fit = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise DataFileError(str(path), f"cannot read the calibration: {err}") from None
    if not isinstance(fit, dict) or not {"weights", "threshold", "ambiguity"} <= fit.keys():
        raise DataFileError(str(path), "a calibration needs 'weights', 'threshold' and 'ambiguity'")
    return fit


def _load_templates(path: Path) -> list[dict]:
    try:
        key = (str(path.resolve()), path.stat().st_mtime_ns)
    except OSError as err:
        raise DataFileError(str(path), f"cannot read the templates: {err}") from None
    if key not in _LIBRARIES:
        _LIBRARIES[key] = _read_templates(path)
    return _LIBRARIES[key]


def _read_templates(path: Path) -> list[dict]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise DataFileError(str(path), f"cannot read the templates: {err}") from None
    rows = []
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            row["letters"] = "".join(sorted(set(_LETTERS.findall(row["text"]))))
            row.setdefault("roles", {})
            row["cues"] = cues(row["text"])
            row["parsed"] = parse(row["formula"])
            row["literals"] = {x: parse(lit) for x, lit in row["roles"].items()}
            row["skeleton"] = _skeleton(row["parsed"], row["roles"])
        except (json.JSONDecodeError, KeyError, TypeError):
            raise DataFileError(str(path), f"line {number}: not a template") from None
        rows.append(row)
    return rows


def write_library(rows: Sequence[dict], path: str | os.PathLike[str]) -> dict[str, Any]:
    """Write a retrieval library: *rows* as JSON lines at *path*, their all-MiniLM-L6-v2
    vectors (float16) in the ``.npy`` file beside it and, in the ``.json`` beside it, the
    hash that ties the vectors to the texts, with counts by pattern (returned).

    Each row needs ``text``, ``formula`` and ``pattern``, and may have ``roles`` (see
    :data:`TEMPLATES`); other fields are kept.
    """
    import numpy as np

    from ..llm import MiniLMEmbedder

    target = Path(path)
    texts = [r["text"] for r in rows]
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    vectors = MiniLMEmbedder().encode(texts).astype(np.float16)
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["pattern"]] = counts.get(row["pattern"], 0) + 1
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()
    summary = {"count": len(rows), "sha256": digest, "by_pattern": counts}
    atomic_write_text(target, lines)
    with open(target.with_suffix(".npy"), "wb") as out:
        np.save(out, vectors)
    atomic_write_text(target.with_suffix(".json"), json.dumps(summary, indent=1) + "\n")
    return summary


def calibrate(
    outcomes: list[tuple[float, float, float, bool]],
    *,
    target: float = 0.95,
    among: Sequence[bool] | None = None,
    margin: float = 0.8,
    window: int = 20,
) -> dict[str, Any]:
    """Fit the confidence on development outcomes and choose the threshold.

    Parameters
    ----------
    outcomes : list of (similarity, share, unread, correct)
        One per development sentence: the first reading's best score, vote share and share
        of unread clauses (see :class:`Reading`), and whether it was right.
    target : float
        The threshold is the least confidence at which the accepted readings of *outcomes*
        are right at least this often ...
    margin, window : float, int
        ... and the *window* least confident of them at least *margin* of the time, so that
        a tail of poor readings is never let in on the strength of the good ones.
    among : sequence of bool, optional
        Which outcomes the threshold is chosen on (default: all): those the translator
        would still accept after its other checks (no misfit, not ambiguous).

    Returns
    -------
    dict
        ``weights`` (intercept, similarity, share, unread), ``threshold`` and ``ambiguity``.

    Examples
    --------
    >>> fit = calibrate([(0.9, 1.0, 0.0, True)] * 8 + [(0.5, 0.4, 1.0, False)] * 8)
    >>> fit["threshold"] < 1 and fit["weights"][1] > 0
    True
    """
    import numpy as np
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    x = np.array([[s, v, u] for s, v, u, _ in outcomes])
    y = np.array([bool(c) for *_, c in outcomes])
    model = LogisticRegression(C=10.0).fit(x, y)
    p = model.predict_proba(x)[:, 1]
    order = [i for i in np.argsort(-p) if among is None or among[i]]
    threshold = 1.0
    right = 0
    for rank, i in enumerate(order, 1):
        right += int(y[i])
        recent = [bool(y[j]) for j in order[max(0, rank - window) : rank]]
        if right / rank >= target and sum(recent) >= margin * len(recent):
            threshold = float(p[i])
    weights = [float(model.intercept_[0]), *map(float, model.coef_[0])]
    return {"weights": weights, "threshold": round(threshold, 4), "ambiguity": 0.6}
