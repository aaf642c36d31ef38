"""The slot reader: a lifted sentence read into slots, each filled slot set into patterns.

Structured English in the style of FRETish. A sentence fills a few slots: a *scope* (before /
until / only after C), a *condition* (when / while / after / soon / unless / means C), a
*timing* (next / within n steps / later / again / back / repeat / always), a *count* (at most /
at least / exactly / only n times), an *order* (any / ordered / strict), and the *response*:
the literals of :func:`read_clause`, with a polarity and a list of things (each, or together).
The filled slots decide the patterns (:data:`SIGNATURES`).

Reading: the sentence is normalised (:func:`normalize`) and split; a question before an
instruction is its condition; pronouns are resolved; chat between commas that names nothing
is reduced to its cue phrases; the modifier slots are taken out, and each structure cue in
turn is tried until the clauses on both sides read, else the whole is one response (or each
item counted on its own). A sentence read in no such way is read clause by clause.

Everything a phrase says is data, one rule a line: the cue phrases (``slots.tsv``,
:func:`load_cues`), the readings of each slot set (``signatures.tsv``), the normalisation
(``normalize.tsv``) and the clause lexicon (``clauses.tsv``). :meth:`SlotReader.readings`
gives every reading the slots defend, most specific first; none leaves out a placeholder.

>>> reader = SlotReader()
>>> [r.pattern for r in reader.readings("After you open [a], never enter [b].")]
['absence_after', 'avoid_while']
>>> print(reader("Don't go to [a] before you have been to [b].").formula)
!"agent_at(a)" W "agent_at(b)"
"""

from __future__ import annotations

import functools
import itertools
import os
import re
from dataclasses import dataclass, field, replace

from ..errors import OutOfGrammarError, SafetyChipError
from ..ltl import And, Formula, Not, Or, ap, build_pattern
from ..paths import DATA_DIR
from ._clauses import read_clause
from ._normalize import normalize, read_table
from ._reading import PLACEHOLDER, LiftedTranslation, letters, renamed

__all__ = ["MAX_LENGTH", "SIGNATURES", "SIGNATURE_TABLE", "SLOT_TABLE", "Cue", "Mods",
           "SlotReader", "cue_slots", "load_cues", "modifiers"]  # fmt: skip

#: Longest lifted sentence read, in characters (the pipeline's limit on a sentence).
MAX_LENGTH = 400
#: The cue table and the readings of each slot set shipped with safetychip.
SLOT_TABLE = DATA_DIR / "translation" / "slots.tsv"
SIGNATURE_TABLE = DATA_DIR / "translation" / "signatures.tsv"


def _signatures() -> tuple[dict[tuple[str, str, str], tuple[str, ...]], dict[str, str]]:
    rows, fallback = {}, {}

    def read(_: int, row: list[str]) -> None:
        structure, polarity, timing, readings = row
        said = "" if readings == "-" else readings
        if structure == "fallback":
            fallback[timing] = said
        else:
            rows[structure, polarity, timing.strip("-")] = tuple(said.split("; "))

    read_table(SIGNATURE_TABLE, "slot signatures", read, 4)
    return rows, fallback


#: Filled slots (structure, polarity, timing) → readings, most specific first
#: (``signatures.tsv``); a timing with no row of its own reads as its fallback.
SIGNATURES, _FALLBACK = _signatures()

_STRUCTURE = ("condition", "scope", "sequence")
_RULE_SLOTS = frozenset({*_STRUCTURE, "timing", "count", "bound", "order", "polarity", "only"})
_TIMING_RANK = ("repeat", "within", "next", "back", "again", "later", "end", "always")
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\s*;\s*")
_CLAUSES = re.compile(r"[.!?;]\s+|\s*;\s*|,\s*(?:and\s+|but\s+)?|\s+(?:but|and)\s+|:\s+")
_PRONOUN = re.compile(r"\b(?:it|them|they|him|that one|this one)\b(?! is \w+ to\b)|\bthere\b")
_BOUNDARY = re.compile(
    r"[,;:]|\b(?:and|or|but|then|until|before|after|once|when|whenever|if|unless|while|so)\b"
)
_PREPOSITION = re.compile(r"\b(?:in|into|inside|on|onto|to|at|from|near|by|of|through)\s+$")
_ROBOT = re.compile(r"\bthe (?:robot|agent)\b")
_AT_PLACE = re.compile(r" (?:is|are) (?:in|at|inside|near)\b")
_REQUEST = re.compile(r"(?:\w+ )?(?:could|can|would|will|may|might|shall)\b")
_NAMED = re.compile(r"\[[a-z]\]|\b(?:it|them|they|there)\b")
_SUBJECT = re.compile(r" (?!is\b|are\b|was\b|were\b|has been\b)[a-z]+\b")
_LIST = re.compile(
    r"\[([a-z])\]((?:(?:\s*,\s*(?:and |or |nor )?|\s+(?:and|or|nor)\s+)(?:also )?\[[a-z]\])+)"
)
_JOINS = re.compile(r"\s*,\s*(?:and |or |nor )?|\s+(?:and|or|nor)\s+")
_TOPIC = re.compile(r"^(?:to |in |into |at |on )?\[([a-z])\]\s*[,:]?\s+")
# A condition in the perfect is about the past: "only if you have visited [a]" is "only after".
_PERFECT = re.compile(r"\b(?:have|has) (?:already |just |previously |ever )?(?:been|\w+ed|\w+en)\b")
# A clause that is only a place: "(three visits) to [a]", "(keep circling) back to [a]".
_ONLY_PLACE = re.compile(
    r"^(?:(?:entry|entries|visits?|trips?|access|going|back|over|down|up|on)\s+)?"
    r"(?:of|to|into|through|in|at|by|round|around|between)\s+(\[[a-z]\])$"
)
# A heading before a colon that names nothing: "inspection route: [a], then [b]".
_HEADING = re.compile(r"^[^\[\]:,.;]{1,40}:\s+(?=.*\[[a-z]\])")
_LEAD_JUNK = re.compile(r"^(?:(?:and|but|so|then|also|,)\s+)+")
_TRAIL_JUNK = re.compile(r"(?:\s+(?:and|but|or|so|then))+$")
_MAX_DROPPED, _MAX_CUES, _MAX_PREFIXES, _MAX_CLAUSES = 5, 6, 2, 8


@dataclass(frozen=True)
class Cue:
    """One row of the cue table: a phrase family (``pattern``, between word boundaries; a
    number is group 1) that fills ``slot`` with ``value``.

    >>> [c.value for c in load_cues() if c.pattern.search("within 3 steps")]
    ['within']
    """

    slot: str
    value: str
    pattern: re.Pattern[str]


@functools.lru_cache(maxsize=4)
def load_cues(path: str | os.PathLike[str] = SLOT_TABLE) -> tuple[Cue, ...]:
    """The rows of a cue table, in order, one cue per top-level alternative of a phrase (a
    DataFileError naming the line if a row has not three fields, names an unknown word or
    does not compile)."""
    cues: list[Cue] = []
    words = {"n": r"(\d+)"}

    def read(_: int, row: list[str]) -> None:
        slot, value, phrase = row
        phrase = re.sub(r"\{([a-z]+)\}", lambda m: words[m.group(1)], phrase)
        re.compile(phrase)
        if slot == "word":
            words[value] = phrase
        else:  # one cue per alternative, so that the longest phrase wins wherever it starts
            cues.extend(Cue(slot, value, re.compile(rf"(?<![\w\[])(?:{one})(?![\w\]])"))
                        for one in _alternatives(phrase))  # fmt: skip

    read_table(path, "cue table", read, 3)
    return tuple(cues)


def _alternatives(phrase: str) -> list[str]:
    """The top-level alternatives of a regular expression.

    >>> _alternatives(r"a|b(?:c|d)|[|]")
    ['a', 'b(?:c|d)', '[|]']
    """
    out, depth, start, k = [], 0, 0, 0
    while k < len(phrase):
        ch = phrase[k]
        if ch == "\\":
            k += 1
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(phrase[start:k])
            start = k + 1
        k += 1
    return [*out, phrase[start:]]


def _cues(slot: str) -> tuple[Cue, ...]:
    return tuple(c for c in load_cues() if c.slot == slot)


def _find(text: str, slots: tuple[str, ...], skip: str = "") -> tuple[Cue, re.Match[str]] | None:
    """The leftmost cue of *slots* in *text* (the longest there), not of value *skip*."""
    found = [(m.start(), -len(m.group()), k, c, m)
             for k, c in enumerate(load_cues()) if c.slot in slots and c.value != skip
             for m in [c.pattern.search(text)] if m]  # fmt: skip
    return min(found, key=lambda t: t[:3])[3:] if found else None


def _cut(text: str, match: re.Match[str]) -> str:
    return _tidy(f"{text[: match.start()]} {text[match.end() :]}")


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"\s*,(?:\s*,)+", ",", text)
    return re.sub(r"\s+([,.;:!?])", r"\1", text).strip(" ,;:.!?")


@dataclass(frozen=True)
class Mods:
    """What the modifier slots of a sentence say (:func:`modifiers`): a ``timing`` value
    (``next``, ``within``…) with the ``steps`` of "within n steps", a ``count`` kind
    (``at_most``, ``at_least``, ``exactly``, ``only``) with its number ``n``, an ``order``
    (``ordered``, ``any``, ``strict``) and ``only`` (narrowing a condition or a scope)."""

    timing: str = ""
    steps: int = 0
    count: str = ""
    n: int = 0
    order: str = ""
    only: bool = False

    def merged(self, other: Mods) -> Mods:
        """Each slot of *self*, or of *other* where *self* says nothing."""
        return Mods(*(a or b for a, b in zip(self.__dict__.values(), other.__dict__.values())))


def _modifiers(text: str, later: bool = True) -> tuple[Mods, str]:
    """The modifier slots of *text*, and *text* without their phrases (the timing *later*
    too, unless *later* is False: there it may be a step of a sequence)."""
    count: tuple[str, int] = ("", 0)
    for cue in _cues("count"):
        m = cue.pattern.search(text)
        if m:
            kind, n = cue.value, int(next(g for g in m.groups() if g is not None))
            kind, n = {"more_than": ("at_least", n + 1),
                       "fewer_than": ("at_most", n - 1)}.get(kind, (kind, n))  # fmt: skip
            before = text[: m.start()]
            if m.group().endswith(("occasion", "occasions")):  # "on two occasions"
                before = re.sub(r"\bon\s*$", "", before)
            text = _tidy(f"{before} {text[m.end() :]}")
            if kind == "times":  # "twice, max": a bound said apart; "may only enter [a] twice"
                bound = _find(text, ("bound",))
                bare = "only" if _find(text, ("only",)) else "exactly"
                kind, text = (bound[0].value, _cut(text, bound[1])) if bound else (bare, text)
            count = (kind, n)
            break
    timings: dict[str, int] = {}
    while (hit := _find(text, ("timing",), skip="" if later else "later")) is not None:
        timings.setdefault(hit[0].value, int(next((g for g in hit[1].groups() if g), "0")))
        text = _cut(text, hit[1])
    timing = next((t for t in _TIMING_RANK if t in timings), "")
    order = ""
    while (hit := _find(text, ("order",))) is not None:
        order, text = order or hit[0].value, _cut(text, hit[1])
    only = False
    while (hit := _find(text, ("only",))) is not None:
        only, text = True, _cut(text, hit[1])
    return Mods(timing, timings.get("within", 0), *count, order, only), text


def modifiers(lifted: str) -> Mods:
    """The modifier slots of a lifted sentence: its timing, count and order.

    >>> modifiers("Never open [a] more than twice")
    Mods(timing='', steps=0, count='at_least', n=3, order='', only=False)
    >>> modifiers("If [a] is open, close it within three steps").steps
    3
    """
    return _modifiers(_tidy(_without_fillers(normalize(lifted))))[0]


def cue_slots(text: str) -> frozenset[str]:
    """The slot values (``slot:value``) of a rule whose cue phrases occur in *text*.

    >>> sorted(cue_slots("Whenever you open [a], don't go near [b] again"))
    ['condition:when', 'polarity:neg', 'timing:again']
    >>> cue_slots("because the kids are asleep")
    frozenset()
    """
    text = normalize(text)
    return frozenset(f"{c.slot}:{c.value}" for c in load_cues()
                     if c.slot in _RULE_SLOTS and c.pattern.search(text))  # fmt: skip


@dataclass(frozen=True)
class _Part:
    """A clause read: its literals (before the polarity), the polarity, an *or* list, the
    letters of a list of things in one role, words left out, how a thing is left ("do not
    leave [a] open"), and the letter of a bare placeholder."""

    literals: tuple[Formula, ...]
    neg: bool = False
    disjunctive: bool = False
    things: tuple[str, ...] = ()
    loose: bool = False
    left: bool = False
    bare: str = ""

    def said(self) -> Formula:
        """The condition this part states (its literals with its polarity)."""
        joined = (Or if self.disjunctive else And)(*self.literals)
        return _not(joined) if self.neg else joined


def _not(f: Formula) -> Formula:
    return f.children[0] if f.op == "!" else Not(f)


def _borrow(letter: str, like: Formula | None) -> Formula:
    """A bare placeholder as a literal of its neighbour's one-place predicate (else a place)."""
    name = ((like.children[0] if like.op == "!" else like).name or "") if like is not None else ""
    predicate = name.split("(")[0] if "(" in name and "," not in name else "agent_at"
    return ap(f"{predicate}({letter})")


@functools.lru_cache(maxsize=8192)
def _clause(text: str) -> tuple[Formula | None, bool, str, bool, bool] | None:
    """(literal or None for a bare placeholder, avoid, letter, words left out, left) of one
    clause, or None: when the whole does not read, the longest run of its words that does,
    if the words left out name no thing, are not kept words and leave more than a bare
    placeholder (``when the robot is in [a]`` reads ``in [a]``)."""
    text = _ONLY_PLACE.sub(r"\1", _LEAD_JUNK.sub("", text).strip(" ,;:.!?"))
    if not PLACEHOLDER.search(text):
        return None
    words = text.split()
    for dropped in range(min(len(words), _MAX_DROPPED + 1)):
        for lead in range(dropped + 1):
            before, span = words[:lead], words[lead : len(words) - (dropped - lead)]
            after = words[len(words) - (dropped - lead) :]
            if not span or (dropped and (PLACEHOLDER.search(" ".join(before + after))
                                         or len(span) < 2)):  # fmt: skip
                continue
            place = span[0] in ("in", "into", "inside", "at", "to")  # "be back | in [b]"
            if (_completes(before[-2:][::-1]) and not place) or _completes(after[:2]):
                continue
            found = read_clause(" ".join(span))
            if found is not None:
                return found.literal, found.avoid, found.letters[0], dropped > 0, found.left
    return None


def _completes(words: list[str]) -> bool:
    """Whether *words* (nearest the clause first) complete it: a kept word ("leave [a] open")."""
    return 0 < len(words) <= 2 and any(c.pattern.fullmatch(words[0]) for c in _cues("kept"))


def _items(text: str, topic: str = "") -> _Part | None:
    """The response or condition clause *text* read: polarity, then one literal, a list of
    things in one role, or a list of clauses; a clause without a placeholder takes the
    sentence's topic (``[a], you must enter``)."""
    for cue in _cues("polarity"):
        if cue.value == "pos":
            text = cue.pattern.sub(" ", text)
    neg, late = False, False
    first = PLACEHOLDER.search(text)
    for cue in _cues("polarity"):
        found = cue.pattern.search(text) if cue.value == "neg" else None
        if found is not None:
            late = late or (first is not None and found.start() > first.start())
            neg, text = True, cue.pattern.sub(" ", text)
    text = _tidy(_TRAIL_JUNK.sub("", _LEAD_JUNK.sub("", _tidy(text))))
    letters = PLACEHOLDER.findall(text)
    if not text or re.search(r"\bbut\b", text) or len(letters) != len(set(letters)):
        return None
    candidates = [text]
    if topic and not letters:
        candidates = [f"{text} [{topic}]", f"{text} in [{topic}]", f"{text} to [{topic}]"]
    for candidate in candidates:  # a negation after a thing is named negates one clause
        part = _one_or_list(candidate, clauses=not late)
        if part is not None:
            return replace(part, neg=part.neg != neg)
    return None


def _one_or_list(text: str, clauses: bool = True) -> _Part | None:
    single = _clause(text)
    if single is not None:
        literal, avoid, letter, loose, left = single
        bare = letter if literal is None else ""
        literal = literal if literal is not None else _borrow(letter, None)
        return _Part((literal,), avoid, loose=loose, left=left, bare=bare)
    together = _find(text, ("together",))  # "[a] and [b] at the same time": at once
    text = _cut(text, together[1]) if together is not None else text
    things = _LIST.search(text)
    if things is not None:
        first, others = things.group(1), PLACEHOLDER.findall(things.group(2))
        one = _clause(text[: things.start()] + f"[{first}]" + text[things.end() :])
        if one is not None:
            literal = one[0] if one[0] is not None else _borrow(first, None)
            listed = (literal, *(renamed(literal, first, x) for x in others))
            if together is not None:
                return _Part((And(*listed),), one[1], loose=one[3])
            disjunctive = bool(re.search(r"\b(?:or|nor)\b", things.group(2)))
            return _Part(listed, one[1], disjunctive, (first, *others), one[3])
    pieces = [p for p in _JOINS.split(text) if p.strip()]
    if not clauses or not 2 <= len(pieces) <= 4:
        return None
    read = [_clause(p) for p in pieces]
    if any(r is None for r in read) or len({r[1] for r in read if r}) != 1:
        return None
    literals: list[Formula] = []
    for k, (literal, _, letter, _, _) in enumerate(r for r in read if r):
        if literal is None:
            near = [x[0] for x in read[k + 1 :] + read[:k][::-1] if x and x[0] is not None]
            literal = _borrow(letter, near[0] if near else None)
        literals.append(literal)
    return _Part(tuple(literals), bool(read[0] and read[0][1]),
                 loose=any(r[3] for r in read if r))  # fmt: skip


@dataclass(frozen=True)
class _Fill:
    """One filled slot set (with ``others``: the other clauses' fills, conjoined)."""

    structure: str
    response: _Part
    condition: _Part | None = None
    mods: Mods = field(default_factory=Mods)
    steps: tuple[Formula, ...] = ()
    others: tuple[_Fill, ...] = ()
    together: bool = False
    loose: bool = False

    def left_out(self) -> bool:
        """Whether any word of the sentence was left out to read this fill."""
        parts = (self.response, self.condition)
        return (self.loose or any(p is not None and p.loose for p in parts)
                or any(o.left_out() for o in self.others))  # fmt: skip

    def key(self) -> tuple[str, str, str]:
        """The row of :data:`SIGNATURES` this fill asks for."""
        detail = self.mods.timing
        if self.structure in ("plain", "sequence", "before"):
            count, order = self.mods.count, self.mods.order
            if count and self.structure != "plain":
                count = "strict"  # "[a] once, then [b]": the first visit once
                order = "strict" if order == "ordered" else order
            detail = order or count or detail
            single = self.structure == "plain" and len(self.response.literals) < 2
            if single and detail in ("ordered", "strict", "any"):
                detail = ""
            if self.structure == "plain" and self.response.left and not detail:
                detail = "left"  # "do not leave [a] open": undo it, sooner or later
        if self.structure == "while" and self.response.left and detail in ("", "end"):
            detail = "left"  # "… [a] on with nothing on it": undo the two together
        return self.structure, "neg" if self.response.neg else "pos", detail

    def describe(self) -> str:
        """The fill in a few words, for :attr:`LiftedTranslation.form`."""
        words = [self.structure]
        if self.condition is not None:
            words.append(f"condition {self.condition.said()}")
        words.append(("never " if self.response.neg else "") + ", ".join(
            str(x) for x in (self.steps or self.response.literals)))  # fmt: skip
        said = (("timing", self.mods.timing, self.mods.steps),
                ("count", self.mods.count, self.mods.n), ("order", self.mods.order, 0))  # fmt: skip
        words += [f"{name} {value}" + (f" {n}" if n else "") for name, value, n in said if value]
        return "; ".join(words)


def _signature(fill: _Fill) -> tuple[str, ...]:
    structure, polarity, detail = fill.key()
    while (structure, polarity, detail) not in SIGNATURES and detail in _FALLBACK:
        detail = _FALLBACK[detail]
    return SIGNATURES.get((structure, polarity, detail), ())


def _build(fill: _Fill) -> list[LiftedTranslation]:
    """The readings of *fill*: one per row of its signature, each conjoined with the first
    reading of every other clause's fill (or, for a fill per thing, with the same row)."""
    own = _own(fill)
    if not fill.others:
        return own
    if fill.together:  # the same reading for each thing
        combos = list(zip(own, *(_own(f) for f in fill.others)))
    else:
        combos = list(itertools.product(own, *(_own(f)[:1] for f in fill.others)))
    out = []
    for combo in combos:
        parts = tuple(p for r in combo for p in (r.parts or (r.formula,)))
        patterns = {r.pattern for r in combo}
        out.append(LiftedTranslation(And(*parts), patterns.pop() if len(patterns) == 1 else None,
                                     (), " and ".join(r.form for r in combo), parts))  # fmt: skip
    return out


def _own(fill: _Fill) -> list[LiftedTranslation]:
    out = []
    for recipe in _signature(fill):
        name, *tokens = recipe.split()
        try:
            out.append(_instance(fill, name, tokens))
        except (SafetyChipError, ValueError, IndexError):
            continue  # a count of zero or below, a sequence of one step
    return out


def _instance(fill: _Fill, name: str, tokens: list[str]) -> LiftedTranslation:
    response = fill.response
    items = fill.steps or response.literals
    c = fill.condition.said() if fill.condition is not None else None
    n = fill.mods.steps if name == "bounded_delay" else fill.mods.n
    if fill.structure == "sequence" and c is None and "c" in tokens:
        c, items = items[0], items[1:]  # "[a] on then [a] off right after"
    if "*R" in tokens:
        if len(items) < 2:
            raise ValueError("a sequence needs two steps")
        steps = fill.steps or items
        return LiftedTranslation(build_pattern(name, *steps), name, tuple(steps), fill.describe())

    def argument(token: str, r: Formula) -> Formula | int | None:
        big_r = _not(r) if response.neg else r
        return {"c": c, "~c": _not(c) if c is not None else None, "r": r, "R": big_r,
                "~r": _not(r), "~R": _not(big_r), "n": n, "n-1": n - 1, "1": 1,
                "c&r": c and And(c, r), "~(c&r)": c and _not(And(c, r))}[token]  # fmt: skip

    literals = (Or(*items),) if response.disjunctive and not response.neg else items
    parts = []
    for r in literals:
        args = [argument(t, r) for t in tokens]
        least = 0 if name == "at_most" else 1  # at most 0 times: never
        if any(a is None for a in args) or any(isinstance(a, int) and a < least for a in args):
            raise ValueError("a count or delay too small")
        parts.append((build_pattern(name, *args), tuple(args)))
    formulas = tuple(p for p, _ in parts)
    many = len(parts) > 1
    return LiftedTranslation(And(*formulas), name, () if many else parts[0][1], fill.describe(),
                             formulas if many else ())  # fmt: skip


def _splits(text: str) -> list[tuple[str, str]]:
    """Where a leading condition may end and its response begin: at *then* or a comma, else
    between words after a placeholder, before a clause that names one (``when holding [a] do
    not go in [b]``), a response opening with its polarity first, a bare placeholder last."""
    marks = re.finditer(r",?\s*\bthen\b\s*|\s*,\s*", text)
    out = [(text[: m.start()], text[m.end() :]) for m in marks if text[m.end() :].strip()]
    first = PLACEHOLDER.search(text)
    if out or first is None:
        return out[:16]
    gaps = (m.start() for m in re.finditer(r"(?<=\S) (?=\S)", text))
    out = [(text[:k], text[k:]) for k in gaps
           if k >= first.end() and PLACEHOLDER.search(text[k:])]  # fmt: skip

    def rank(pair: tuple[str, str]) -> tuple[bool, bool]:
        polarity = _find(pair[1], ("polarity",))
        opens = polarity is not None and polarity[1].start() == 0
        return bool(PLACEHOLDER.fullmatch(pair[0].strip())), not opens

    return sorted(out, key=rank)[:16]


def _without_fillers(text: str) -> str:
    """*text* without its filler words, but inside a phrase of another slot ("either order")."""
    taken = [m.span() for c in load_cues() if c.slot not in ("filler", "kept")
             for m in c.pattern.finditer(text)]  # fmt: skip
    spans = sorted({m.span() for c in _cues("filler") for m in c.pattern.finditer(text)})
    for start, end in reversed(spans):
        if not any(a <= start and end <= b and b - a > end - start for a, b in taken):
            text = f"{text[:start]} {text[end:]}"
    return text


def _frame(text: str, outer: Mods, topic: str = "") -> list[_Fill]:
    """The fills of one clause sequence *text*: each counted item on its own, by its first
    structure cue that leaves readable clauses, else as one response."""
    fills = _counted(text, outer, topic)
    if fills:
        return fills
    mods, text = _modifiers(_tidy(_without_fillers(text)), later=False)
    mods = mods.merged(outer)
    for cue, m in _structure_cues(text):
        fills = (_sequence(text, mods, topic) if cue.slot == "sequence"
                 else _conditional(text, cue, m, mods, topic))  # fmt: skip
        if fills:
            return fills
    fills = _sequence(text, mods, topic)
    if not fills and mods.timing in ("next", "within"):  # "open [a], close it right away"
        fills = _sequence(text, mods, topic, commas=True)
    if fills:
        return fills
    rest, body = _modifiers(text)
    mods = mods.merged(rest)
    part = _items(body, topic)
    if part is None and mods.timing == "repeat":  # a patrol names places: "rounds of [a]"
        places = PLACEHOLDER.findall(body)
        part = _Part(tuple(ap(f"agent_at({x})") for x in dict.fromkeys(places))) if places else None
    return [_Fill("plain", part, None, mods)] if part is not None else []


def _counted(text: str, outer: Mods, topic: str) -> list[_Fill]:
    """Items joined by commas or "and", each with a count of its own (``go to [a] at least 2
    times and to [b] at most 1 times``), read one by one and conjoined; an item that only
    names its thing takes the first item's verb."""
    pieces: list[str] = []
    for piece in re.split(r"\s*(?:[,;]|\band\b)\s*", text):
        if pieces and not PLACEHOLDER.search(piece):
            pieces[-1] += f" {piece}"  # "[a], at least 2 times"
        elif piece.strip():
            pieces.append(piece)
    if len(pieces) < 2 or sum(_find(p, ("count",)) is not None for p in pieces) < 2:
        return []
    first = PLACEHOLDER.search(pieces[0])
    verb = pieces[0][: first.start()] if first else ""
    fills = []
    for piece in pieces:
        if PLACEHOLDER.match(piece):  # "[b] at least 1 times": the first item's verb
            piece = f"{verb} {piece}"
        elif re.match(r"(?:to|into|in|at)\s+\[", piece):  # "to [b] …": its verb of going
            piece = _PREPOSITION.sub("", verb) + " " + piece
        found = _frame(piece, outer, topic)
        if not found or _find(piece, ("count",)) is None:
            return []
        fills.append(found[0])
    return [replace(fills[0], others=tuple(fills[1:]))]


def _structure_cues(text: str) -> list[tuple[Cue, re.Match[str]]]:
    """The structure cues of *text* left to right (the longest where several start)."""
    found = sorted((m.start(), -len(m.group()), k, c, m)
                   for k, c in enumerate(load_cues()) if c.slot in _STRUCTURE
                   for m in c.pattern.finditer(text))  # fmt: skip
    out, end = [], -1
    for start, _, _, cue, m in found:
        if start >= end:
            out.append((cue, m))
            end = m.end()
    return out[:_MAX_CUES]


def _conditional(text: str, cue: Cue, m: re.Match[str], mods: Mods, topic: str) -> list[_Fill]:
    """The fill of a condition or scope cue *m*: leading (``if C, R``), in the middle (``R if
    C``), or first (``C means R``)."""
    structure = cue.value
    if mods.only:
        structure = {"when": "only_when", "while": "only_when", "after": "only_after"}.get(
            structure, structure
        )
    if structure == "means":
        structure, pairs = "when", [(text[: m.start()], text[m.end() :])]
    elif m.start() == 0 or not (topic or PLACEHOLDER.search(text[: m.start()])):
        pairs = _splits(text[m.end() :])  # a leading condition, perhaps after chat
    else:
        pairs = [(text[m.end() :], text[: m.start()])]
    for said, then in pairs:
        if structure in ("when", "only_when") and _PERFECT.search(said):
            structure = {"when": "after", "only_when": "only_after"}[structure]  # history
        if not PLACEHOLDER.search(said):  # "if possible, …": a condition on nothing named
            return [replace(f, loose=True) for f in _frame(then, mods, topic)]
        rest, then = _modifiers(re.sub(r"^\s*(?:,\s*)?then\b", "", then))
        named = PLACEHOLDER.findall(said)
        condition, response = _items(said), _items(then, topic or named[-1])
        if condition is None or response is None:
            continue
        if (cue.slot == "scope" and PLACEHOLDER.fullmatch(said.strip(" ,.;:!?"))
                and len(response.literals) == 1):  # fmt: skip
            condition = _Part((_borrow(condition.bare, response.literals[0]),), condition.neg)
        if condition.said() in response.literals and (structure == "while" or not response.neg):
            continue  # not "while in [a], … in [a]", nor "once in [a], go to [a]"
        return _each(_Fill(structure, response, condition, mods.merged(rest)))
    return []


def _each(fill: _Fill) -> list[_Fill]:
    """*fill*, or, for a condition about a list of things whose response names one of them
    (or the same list), one fill per thing (``whenever you open [a] or [b], close it``)."""
    condition, response = fill.condition, fill.response
    if condition is None or len(condition.things) < 2:
        return [fill]
    if response.things == condition.things:
        pairs = list(zip(condition.literals, response.literals))
    elif len(response.literals) == 1:
        named = [x for x in condition.things if x in letters(response.literals[0])]
        if len(named) != 1:
            return [fill]
        pairs = [(c, renamed(response.literals[0], named[0], x))
                 for c, x in zip(condition.literals, condition.things)]  # fmt: skip
    else:
        return [fill]
    each = [replace(fill, condition=_Part((c,)), response=replace(response, literals=(r,)))
            for c, r in pairs]  # fmt: skip
    return [replace(each[0], others=tuple(each[1:]), together=True)]


def _sequence(text: str, mods: Mods, topic: str, commas: bool = False) -> list[_Fill]:
    """Steps in order, split at the sequence cues and at the timing *later* between two
    clauses (``go to [a] and at some later point [b]``), or (*commas*) at commas."""
    pieces, rest = (text.split(",")[:-1], text.split(",")[-1]) if commas else ([], text)
    ordered = False  # a sequence cue, not only a timing
    while not commas and (hit := _find(rest, ("sequence", "timing"))) is not None:
        cue, m = hit
        if cue.slot == "timing" and cue.value != "later":
            break
        ordered = ordered or cue.slot == "sequence"
        pieces.append(rest[: m.start()])
        rest = rest[m.end() :]
    steps: list[Formula] = []
    last, read, loose = topic, 0, False
    for piece in [*pieces, rest]:
        named = PLACEHOLDER.findall(piece)
        part = _items(piece, topic if named else last)  # "open [a], then close (it)"
        if part is None and not named:
            loose = loose or bool(piece.strip(" ,"))
            continue
        if part is None or part.neg:
            return []
        steps += part.literals
        last, read, loose = named[-1] if named else last, read + 1, loose or part.loose
    if len(steps) < 2 or read < (1 if ordered else 2):  # "[a] first, [b] after that"
        return []
    return [_Fill("sequence", _Part(tuple(steps)), None, mods, tuple(steps), loose=loose)]


def _questions(sentences: list[str]) -> list[str]:
    """A question about a thing followed by an instruction is its condition.

    >>> _questions(["in [a]?", "do not open [b]."])
    ['if in [a], do not open [b].']
    """
    out: list[str] = []
    for sentence in sentences:
        if (out and out[-1].endswith("?") and PLACEHOLDER.search(out[-1])
                and not _REQUEST.match(out[-1]) and _NAMED.search(sentence)):  # fmt: skip
            out[-1] = f"if {out[-1][:-1]}, {sentence}"
        else:
            out.append(sentence)
    return out


def _resolve(sentences: list[str], agent: bool = False) -> list[str]:
    """Each pronoun replaced by the nearest placeholder before it (in its sentence or an
    earlier one) outside its own clause and not the object of a preposition, else the
    nearest; "them" after a list by the list; ``there`` by ``in`` that placeholder. With
    *agent*, *it* and *they* before a verb are the robot (``carry [a] until it gets to [b]``)."""
    out, last = [], ""
    for sentence in sentences:
        pieces, cursor = [], 0
        lists = [x.span() for x in _LIST.finditer(sentence)  # "[a] and [b]" is one
                 if re.search(r"\b(?:and|or|nor)\b", x.group())]  # fmt: skip
        for m in _PRONOUN.finditer(sentence):
            before = list(PLACEHOLDER.finditer(sentence[: m.start()]))
            start = max((b.end() for b in _BOUNDARY.finditer(sentence[: m.start()])
                         if not any(i <= b.start() < j for i, j in lists)), default=0)  # fmt: skip
            before = [x for x in before if x.start() < start] or before
            things = [x for x in before if not _PREPOSITION.search(sentence[: x.start()])]
            letter = (things or before)[-1].group(1) if before else last
            listed = [x for x in _LIST.finditer(sentence[: m.start()])
                      if before and x.end() == (things or before)[-1].end()]  # fmt: skip
            verb = _SUBJECT.match(sentence, m.end()) or _AT_PLACE.match(sentence, m.end())
            if agent and m.group() in ("it", "they") and verb:
                word = "you"
            elif listed and m.group() == "them":  # "open [a] and [b], then close them"
                word = listed[-1].group()
            elif letter:
                word = f"in [{letter}]" if m.group() == "there" else f"[{letter}]"
            else:
                continue
            pieces += [sentence[cursor : m.start()], word]
            cursor = m.end()
        resolved = "".join(pieces) + sentence[cursor:]
        last = ([last, *PLACEHOLDER.findall(resolved)])[-1]
        out.append(resolved)
    return out


class SlotReader:
    """Read a lifted sentence into slots and return every reading the fills defend.

    Offline and deterministic. :meth:`readings` returns them all (most specific first);
    calling the reader returns the first, or raises
    :class:`~safetychip.errors.OutOfGrammarError` saying which slot could not be filled.

    >>> reader = SlotReader()
    >>> [r.pattern for r in reader.readings("Stay in [a] until [b] is switched off.")]
    ['wait', 'not_before']
    >>> print(reader("Never touch [a] or [b]!").parts[1])
    G!"is_touched(b)"
    >>> reader.readings("Dance with [a].")
    ()
    """

    name = "offline-slots"

    def readings(self, lifted: str) -> tuple[LiftedTranslation, ...]:
        """Every reading of *lifted* the slots defend, most specific first; empty when
        nothing fits (or *lifted* is not a readable sentence)."""
        return self._read(lifted)[0]

    def __call__(self, lifted: str) -> LiftedTranslation:
        """The first reading of *lifted*; an :class:`~safetychip.errors.OutOfGrammarError`
        naming the sentence and the slot left empty when none fits."""
        found, why, _ = self._read(lifted)
        if found:
            return found[0]
        raise OutOfGrammarError(
            f"{lifted!r} is outside the offline translator's grammar: {why}. It reads a "
            "response (never / must … a thing), with a condition (if / when / while / after / "
            "unless …), a scope (before / until …), a timing (immediately / within n steps / "
            "eventually), a count (at most / at least / exactly n times) or a sequence (…, "
            "then …). Rephrase the sentence, or translate it with a language model.",
            lifted if isinstance(lifted, str) else "",
        )

    def exact(self, lifted: str) -> bool:
        """Whether the first reading of *lifted* left none of its words out: no chat reduced
        to its cue phrases, no word dropped around a clause, no condition on nothing named.

        >>> SlotReader().exact("Never go to [a]."), SlotReader().exact("Pls, I beg, no [a] ok")
        (True, False)
        """
        return self._read(lifted)[2]

    @staticmethod
    @functools.lru_cache(maxsize=2048)
    def _read(lifted: str) -> tuple[tuple[LiftedTranslation, ...], str, bool]:
        if not isinstance(lifted, str) or not lifted.strip():
            return (), "the sentence is empty", False
        if len(lifted) > MAX_LENGTH:
            return (
                (),
                f"the sentence is {len(lifted)} characters long (at most {MAX_LENGTH})",
                False,
            )
        if any((ord(ch) < 32 and ch not in "\t\n\r") or 0x7F <= ord(ch) < 0xA0 for ch in lifted):
            return (), "the sentence holds a control character", False
        wanted = set(PLACEHOLDER.findall(lifted))
        if not wanted:
            return (), "no placeholder ([a], [b]…) names a thing, so no response clause", False
        text = normalize(lifted)
        heading = _HEADING.match(text)
        if heading is not None:  # its cue phrases only ("patrol route:")
            rest = text[heading.end() :]
            text = _tidy(f"{_said(heading.group().strip(' :'), '', rest)}, {rest}")
        raw = _questions([s for s in _SENTENCES.split(text) if s.strip(" .!?")])
        filled = False
        # "it" as the nearest thing, else as the robot (first, where the robot is named: "the
        # robot may open [a] only while it is in [b]"); the whole first, then clause by clause
        agents = (True, False) if _ROBOT.search(text) else (False, True)
        for whole, agent in itertools.product((True, False), agents):
            resolved = _resolve(raw, agent)
            outer = Mods()
            for s, r in zip(raw, resolved):
                if not PLACEHOLDER.search(s):
                    outer = outer.merged(_modifiers(_tidy(r))[0])
            core = [_tidy(", ".join(_said(c, ",".join(cs[:k]), ",".join(cs[k + 1 :]))
                                    for k, c in enumerate(cs)))
                    for s, r in zip(raw, resolved) if PLACEHOLDER.search(s)
                    for cs in [r.split(",")]]  # fmt: skip
            fills = _whole(", ".join(core), outer) if whole else _clauses(core, outer)
            filled = filled or bool(fills)
            # exact: no word left out but cue phrases (a sentence or chunk naming nothing)
            exact = heading is None and all(
                PLACEHOLDER.search(c) or _only_cues(c) for s, r in zip(raw, resolved)
                for c in (r.split(",") if PLACEHOLDER.search(s) else [s])
            )  # fmt: skip
            out: dict[str, LiftedTranslation] = {}
            for fill in fills:
                for reading in _build(fill):
                    if wanted <= letters(reading.formula):
                        exact = exact and (bool(out) or not fill.left_out())
                        out.setdefault(str(reading.formula), reading)
            if out:
                return tuple(out.values()), "", exact
        if filled:
            return (), "the slots filled leave out a placeholder or fit no pattern", False
        cues = _structure_cues(text)
        if not cues:
            return (), "no response clause could be read", False
        cue, m = cues[0]
        sides = {"condition": "the condition and the response", "scope": "the response and the "
                 "clause of its scope", "sequence": "the steps"}[cue.slot]  # fmt: skip
        return (), f"the {cue.slot} cue {m.group()!r} was found, but not {sides} around it", False


def _only_cues(text: str) -> bool:
    """Whether *text* holds no word but those of cue phrases ("ever", "at most twice")."""
    for cue in load_cues():
        text = cue.pattern.sub(" ", text)
    return not re.search(r"[a-z0-9]", text)


def _whole(text: str, outer: Mods) -> list[_Fill]:
    topic = _TOPIC.match(text)
    fills = _frame(text, outer)
    return fills or (_frame(text[topic.end() :], outer, topic.group(1)) if topic else [])


def _said(chunk: str, before: str, after: str) -> str:
    """*chunk* of a sentence (between commas, *before* and *after* it) if it names a thing
    or reads as a clause about the last thing named (``open [a], then close``); else only
    its phrases of a structure, timing, count or order slot (and the polarity, before a thing
    is named: ``the robot shall not, at any time, enter [a]``): chat fills no clause."""
    named = PLACEHOLDER.findall(before)
    if PLACEHOLDER.search(chunk) or (
        named and read_clause(f"{_modifiers(chunk)[1]} [{named[-1]}]") is not None
    ):
        return chunk
    leading = bool(PLACEHOLDER.search(after))
    slots = (*_STRUCTURE, "timing", "count", "bound", "order", "filler", *(("polarity",) * leading))
    spans = sorted({(m.start(), -m.end(), c.slot == "filler")
                    for c in load_cues() if c.slot in slots
                    for m in c.pattern.finditer(chunk)})  # fmt: skip
    kept, end = [], -1
    for start, stop, filler in spans:
        if start >= end:  # the longest phrase where several start ("at any time": filler)
            kept += [] if filler else [chunk[start:-stop]]
            end = -stop
    return " ".join(kept)


def _clauses(sentences: list[str], outer: Mods) -> list[_Fill]:
    """Sentences or clauses: the two longest runs of the first ones that read, each other
    either restating the order of its steps (``[b] not before [a]``) or a constraint of its
    own, conjoined."""
    clauses = [c for s in sentences for c in _CLAUSES.split(s) if c.strip(" ,")]
    if len(clauses) > _MAX_CLAUSES:
        return []
    found = [f for end in range(len(clauses) - 1, 0, -1)
             if (f := _after(_whole(", ".join(clauses[:end]), outer), clauses[:end],
                             clauses[end:]))]  # fmt: skip
    return [f for fills in found[:_MAX_PREFIXES] for f in fills]


def _after(main: list[_Fill], said: list[str], rest: list[str]) -> list[_Fill]:
    """*main* (read from the clauses *said*) with the clauses *rest* after it."""
    if not main:
        return []
    seen = set(PLACEHOLDER.findall(" ".join(said)))
    steps = any(len(f.steps or f.response.literals) > 1 or f.structure == "before" for f in main)
    order, own = "", []
    for clause in rest:
        if steps and set(PLACEHOLDER.findall(clause)) <= seen:  # the order of the steps
            mods, _ = _modifiers(clause)
            again = _find(clause, ("reentry",)) is not None
            order = "strict" if again or mods.order == "strict" or mods.count else order
            order = order or "ordered"
            continue
        fills = _whole(clause, Mods())
        if not fills:
            return []
        own.append(fills[0])
    if order:
        main = [replace(f, mods=replace(f.mods, order=order)) for f in main]
    return [replace(f, others=tuple(own)) for f in main] if own else main
