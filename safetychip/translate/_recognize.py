"""Referring-expression recognition: which spans of a sentence name things in the world.

:func:`recognize` (offline) finds the vocabulary's names however they are written (with
spaces or run together, in the plural, after an article, by a synonym, by a class name with a
room: "the sink in the kitchen"), and unknown noun phrases after an article (without
candidates: grounding embeds them or says they are unknown), unless their head refers to
nothing in any scene (``non_referring`` in ``data/translation/words.tsv``: the robot, counts,
times, the work itself). :class:`LLMRecognizer` asks a chat model. :func:`remarks` finds the
clauses that only give a reason or describe the world.

>>> from safetychip.translate import Vocabulary
>>> v = Vocabulary.from_names(["book", "book_shelf", "kitchen", "television"])
>>> [(e.text, e.candidates) for e in recognize("Put the books on the bookshelf", v)]
[('the books', ('book',)), ('the bookshelf', ('book_shelf',))]
>>> [(e.text, e.candidates) for e in recognize("Never watch the TV in the kitchen", v)]
[('the TV', ('television',)), ('the kitchen', ('kitchen',))]
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ..llm import fill, load_prompt
from ..paths import DATA_DIR
from ._llm import ChatReader, json_field
from ._normalize import normalize, read_table
from ._slots import cue_slots
from ._vocabulary import Vocabulary, singular

__all__ = [
    "NON_REFERRING",
    "SENTENCE_END",
    "WORD_TABLE",
    "Expression",
    "LLMRecognizer",
    "Remark",
    "load_words",
    "recognize",
    "remarks",
]

#: The word lists of the recogniser and the respeller.
WORD_TABLE = DATA_DIR / "translation" / "words.tsv"
#: The end of a sentence: a full stop, a question or exclamation mark or a semicolon.
SENTENCE_END = re.compile(r"[.!?;]+(?:\s|$)")


@functools.cache
def load_words() -> Mapping[str, Mapping[str, frozenset[str]]]:
    """The word lists of :data:`WORD_TABLE`: list -> kind -> words.

    >>> "robot" in load_words()["non_referring"]["agent"]
    True
    """
    out: dict[str, dict[str, set[str]]] = {}
    for name, kind, words in read_table(WORD_TABLE, "word lists", lambda _, row: row, 3):
        out.setdefault(name, {}).setdefault(kind, set()).update(words.split())
    return MappingProxyType({n: MappingProxyType({k: frozenset(w) for k, w in kinds.items()})
                             for n, kinds in out.items()})  # fmt: skip


def _words(name: str) -> frozenset[str]:
    return frozenset().union(*load_words()[name].values())


#: Heads of noun phrases that refer to nothing in a scene, by kind (``agent``, ``counting``,
#: ``time``, ``order``); a phrase matching a name of the vocabulary is never affected.
NON_REFERRING: Mapping[str, frozenset[str]] = load_words()["non_referring"]
_NON_REFERRING, _NOT_THINGS, _STOP = _words("non_referring"), _words("not_things"), _words("stop")
_DETERMINERS, _PARTS, _EVENT_VERBS = _words("determiners"), _words("parts"), _words("event_verbs")
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")
_MAX_WORDS = 4


@dataclass(frozen=True)
class Expression:
    """A referring expression: the span ``text`` (with its article) of the sentence from
    ``start`` to ``end``, and the names it means exactly (``candidates``; several when
    ambiguous, none when it must be grounded by similarity)."""

    text: str
    start: int
    end: int
    candidates: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"text": self.text, "start": self.start, "end": self.end,
                "candidates": list(self.candidates)}  # fmt: skip


def _tokens(sentence: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _TOKEN.finditer(sentence):
        word = m.group().lower()
        if word.endswith("'s") and word[:-2] not in _DETERMINERS:  # "that's" is "that is"
            word = word[:-2]
        out.append((word, m.start(), m.end()))
    return out


def recognize(sentence: str, vocabulary: Vocabulary) -> list[Expression]:
    """The referring expressions of *sentence*, offline, in order of appearance: matches of
    the vocabulary's phrases (with candidates), and unknown noun phrases after an article.

    >>> v = Vocabulary.from_names(["kitchen", "bathroom", "kitchen_sink", "bathroom_sink"])
    >>> [(e.text, e.candidates) for e in recognize("Never use the sink in the kitchen", v)]
    [('the sink in the kitchen', ('kitchen_sink',))]
    >>> [(e.text, e.candidates) for e in recognize("Don't touch the cooker!", v)]
    [('the cooker', ())]
    >>> [(e.text, e.candidates) for e in recognize("Go to the bath room", v)]
    [('the bath room', ('bathroom',))]
    >>> v = Vocabulary.from_names(["fridge", "front_door"])
    >>> [(e.text, e.candidates) for e in recognize("Open the fridge door, shut the door", v)]
    [('the fridge door', ('fridge',)), ('the door', ('fridge',))]
    """
    toks = _tokens(sentence)
    stems = [singular(w) for w, _, _ in toks]
    longest = max((len(k) for k in vocabulary.phrases), default=1)
    found: list[tuple[int, int, tuple[str, ...]]] = []  # token span [i, j) and candidates
    opened: dict[str, tuple[str, ...]] = {}  # "the fridge door": a later "the door" too
    i = 0
    while i < len(toks):
        match = next(((i, i + n, names) for n in range(min(longest, len(toks) - i), 0, -1)
                      if (names := vocabulary.lookup(tuple(stems[i : i + n])))), None)  # fmt: skip
        # words written apart that a name runs together ("mail box", "bed room"): the longer
        for length in (3, 2):
            if i + length <= len(toks) and (match is None or match[1] - i < length):
                joined = singular("".join(w for w, _, _ in toks[i : i + length]))
                if names := vocabulary.lookup((joined,)):
                    match = (i, i + length, names)
                    break
        if match is None:
            i += 1
            continue
        start, end, names = match
        if (end < len(toks) and stems[end] in _PARTS and not set(names) & set(vocabulary.rooms)
                and all(vocabulary.able("is_open", n) for n in names)):  # fmt: skip
            opened[stems[end]] = names
            end += 1  # "the fridge door", "the toilet lid": the thing that opens
        elif end - start == 1 and stems[start] in opened:
            names = opened[stems[start]]
        if len(names) > 1 or vocabulary.is_class(names[0]):
            start, end, names = _narrow(toks, stems, start, end, names, vocabulary)
        found.append((start, end, names))
        i = end
    taken = {k for start, end, _ in found for k in range(start, end)}
    found = sorted([*found, *((*span, ()) for span in _unknown_phrases(toks, taken))])
    out = []
    for start, end, names in found:
        if start > 0 and toks[start - 1][0] in _DETERMINERS and (start - 1) not in taken:
            start -= 1
        a, b = toks[start][1], toks[end - 1][2]
        out.append(Expression(sentence[a:b], a, b, names))
    return out


def _narrow(toks, stems, start, end, names, vocabulary):
    """Pick among several instances by a room named next to the class ("sink in the kitchen")."""
    pool = vocabulary.instances[names[0]] if len(names) == 1 else names  # a class: its instances
    k = end
    if k < len(toks) and toks[k][0] in ("in", "of", "inside") and k + 1 < len(toks):
        k += 1 + (toks[k + 1][0] in _DETERMINERS and k + 2 < len(toks))
        for length in (2, 1):
            if k + length > len(toks):
                continue
            room = vocabulary.lookup(tuple(stems[k : k + length]))
            chosen = tuple(n for n in pool if len(room) == 1 and room[0] in vocabulary.rooms
                           and n.startswith(room[0] + "_"))  # fmt: skip
            if chosen:
                return start, k + length, chosen
    return start, end, names


def _unknown_phrases(toks, taken) -> list[tuple[int, int]]:
    """Noun phrases after an article that overlap no known name: up to four words, ended by
    a stop word or punctuation, whose last word is a plausible thing."""
    spans = []
    for i, (word, _, _) in enumerate(toks):
        if word not in _DETERMINERS or i in taken:
            continue
        j = i + 1
        if j < len(toks) and toks[j][1] > toks[i][2] + 1:
            continue  # punctuation after the article: "before that. #rules"
        while (j < len(toks) and j - i <= _MAX_WORDS and toks[j][0] not in _STOP
               and toks[j][0] not in _DETERMINERS and j not in taken):  # fmt: skip
            if j > i + 1 and toks[j][1] > toks[j - 1][2] + 1:  # punctuation between words
                break
            j += 1
        if j == i + 1:
            continue
        first, head = toks[i + 1][0], toks[j - 1][0]
        if (
            {first, head} & _NOT_THINGS  # "the 3 next steps": a count
            or first[0].isdigit()
            or head in _NON_REFERRING  # "the number", "a trip"
            or first in NON_REFERRING["agent"]  # "the agent shall reach"
            or (first in NON_REFERRING["time"] and j > i + 2 and toks[i + 2][0] in _EVENT_VERBS)
            or (j < len(toks) and j in taken)  # an adjective before a known name
        ):
            continue
        spans.append((i + 1, j))
    return spans


@dataclass(frozen=True)
class Remark:
    """A clause that only gives a reason or describes the world, with no rule in it.

    ``kind`` is ``"reason"`` ("because the kids are asleep", "to check on the baby"),
    ``"remark"`` (a statement after a comma or a dash: "the cat will get out"),
    ``"preamble"`` (a statement before the rule: "my sister is visiting, so …") or
    ``"context"`` (what someone other than the robot does meanwhile: "while I sleep");
    ``text`` is the clause as written, ``start`` and ``end`` its offsets (with the comma or
    dash before it).
    """

    kind: str
    text: str
    start: int
    end: int


_SUBJECT = (
    r"(?:it|it's|its|that|that's|this|there|there's|they|they're|they'll|he|he's|she|she's|we|"
    r"we're|i|i'm|im|i've|i'd|you'll|you'd|you will|you would|you might|"
    r"(?:the|a|an|my|our|your|his|her|their|some|those|these|no)\b)"
)
# Who a context clause is about: anyone but the robot ("while I'm tracking vocals").
_OTHERS = (
    r"(?:i|i'm|im|i've|we|we're|he|he's|she|she's|they|they're|"
    r"(?:the|my|our|his|her|their) (?!robot\b)[a-z]+)"
)
# The markers of a reason, a remark or a context: (kind, regular expression up to the clause).
_MARKERS = tuple((kind, re.compile(marker, re.I)) for kind, marker in (
    ("context", rf"(?:^|,?\s+|\s*(?:—|–|--|\s-)\s*)(?:(?:while|whilst)(?= {_OTHERS}\b)|during\b)"),
    ("reason", rf"(?:^|,?\s+)(?:(?:because|'?cause|since|as)(?= {_SUBJECT})|so that|"
               r"in order to)\b"),
    ("reason", r"\s+so(?= (?:i|we)\b)"),  # "… twice so I know it works"
    # "…, for the warm-up", "…, expecting a drop": a purpose or a state of mind
    ("reason", r",\s+(?:for(?= (?:the|a|an|my|our|his|her|their)\b)|"
               r"(?:expecting|hoping|wondering|guessing|assuming)\b)"),
    ("reason", rf",\s+(?:otherwise|or else|or)(?= {_SUBJECT} [a-z']+)\b"),
    ("reason", r"(?<=\w)\s+to(?= (?!(?:the|a|an|my|your|our|his|her|their|this|that|"
               r"these|those|it|them|do|be|go|get|stop|happen|\w+ly)\b)[a-z]+ )"),
    # a likeness: "…, like the four corners of the mat", "…, like returning to your mat"
    ("remark", r",\s+(?:(?:just|much|a bit|sort of|kind of)\s+)?like(?= (?:the|a|an|my|your|"
               r"our|his|her|their|\w+ing)\b)"),
    ("remark", rf"(?:\s*(?:—|–|--|\s-)\s*|,\s+)(?={_SUBJECT} [a-z']+)"),
    ("remark", rf"\s*\(\s*(?={_SUBJECT} [a-z']+[^()]*\))"),
))  # fmt: skip
# Words of a rule a clause set aside may not hold, besides the slot reader's cues.
_RULE = re.compile(
    r"\b(?:must|shall|should|ought|has to|have to|needs? to|make sure|be sure|remember|forget|"
    r"please|only|always|again|allowed|permitted|may|let|keep|stay|leave|avoid|forbidden|"
    r"prohibited|banned|off limits|off-limits|out of bounds|\d+)\b|"
    r"\b(?:do|does|will|would|can|could|shall|should|must) not\b",
    re.I,
)
# The joint between a preamble and its rule: "…, so", "…, but anyway,", "… - anyway", "…:".
_PREAMBLE = re.compile(
    r"(?:(?:,|\s[-—–]+)\s*(?:(?:but|and)\s+)?(?:so|but|anyway|anyhow|still|regardless)\b,?|:)"
    r"\s*",
    re.I,
)
# Words before "to" that make it an obligation, a plan or what is forbidden, never a purpose.
_NOT_PURPOSE = frozenset(
    "have has had need needs ought want wants going got able used allowed supposed required "
    "is are am be forbidden prohibited banned permitted meant".split()
)
_OTHERS_NEED = re.compile(
    r"\b(?:i|we|he|she|they|(?:my|our|his|her|their) \w+) (?:(?:needs?|has|have) to|"
    r"(?:can|could|will|would|do|does|did) not|cannot)\b"
)


def remarks(sentence: str) -> list[Remark]:
    """The clauses of *sentence* that only give a reason or describe the world.

    A clause qualifies when a marker opens it (*because*, *since*, *as* or *so* before a
    subject other than "you"; *so that*, *in order to*; *to* before a verb of purpose, never
    after "have", "need" and the like; a comma or a dash before a statement; a bracket),
    and it holds no cue of the slot reader (:func:`~safetychip.translate._slots.cue_slots`)
    and no word of a rule. It runs to the end of its sentence (a leading "Because …," to its
    comma, a bracket to its bracket). The first clause of a sentence is never one; a whole
    later sentence is, and so is a lead before a colon. Whether it is set aside is the
    pipeline's decision: only when the things it names ground in nothing.

    >>> [(r.kind, r.text) for r in remarks("Stay out of the bedroom because the kids are asleep.")]
    [('reason', 'because the kids are asleep')]
    >>> [(r.kind, r.text) for r in remarks("Don't open the windows, the cat will get out.")]
    [('remark', 'the cat will get out')]
    >>> [(r.kind, r.text) for r in remarks("My sister is visiting, so go to the kitchen")]
    [('preamble', 'My sister is visiting')]
    >>> [(r.kind, r.text) for r in remarks("Go to the hall to check on her while I sleep")]
    [('context', 'while I sleep'), ('reason', 'to check on her')]
    >>> remarks("Never open the fridge, because you must not waste the milk.")
    []
    """
    found: list[Remark] = []
    offset = 0
    for n, piece in enumerate(SENTENCE_END.split(sentence)):
        start = sentence.index(piece, offset) if piece else offset
        offset = start + len(piece)
        if not piece.strip():
            continue
        if n and _aside(piece):  # a sentence of its own after the rule: "Just a thought."
            found.append(Remark("remark", piece.strip(), start, offset))
            continue
        joint = next((m for m in reversed([*_PREAMBLE.finditer(piece)])
                      if _aside(piece[: m.start()])), None)  # fmt: skip
        if joint is not None:
            found.append(Remark("preamble", piece[: joint.start()].strip(" ,—–-"), start,
                                start + joint.end()))  # fmt: skip
            start, piece = start + joint.end(), piece[joint.end() :]
        for kind, marker in _MARKERS:
            # the first clause the marker opens that holds no rule
            clause = next((c for m in marker.finditer(piece) if (c := _clause(kind, m, piece))),
                          None)  # fmt: skip
            if clause is None:
                continue
            m, text, end = clause
            found.append(Remark(kind, text, start + m.start(), start + end))
            if kind != "context":
                break
            if piece[: m.start()].strip(" ,"):  # the rest around a context is read on
                piece = piece[: m.start()]
            else:
                start, piece = start + end, piece[end:]
    return found


def _clause(kind: str, m: re.Match[str], piece: str) -> tuple[re.Match[str], str, int] | None:
    """The clause that marker match *m* of *kind* opens in *piece*, its text and end, when
    it could be set aside; None if it is not a clause or holds a rule."""
    if m.end() >= len(piece):
        return None
    head = piece[: m.start()]
    if m.group().strip().lower() == "to" and head.split()[-1].lower() in _NOT_PURPOSE:
        return None
    if m.group().strip().startswith("("):  # an aside in brackets runs to its bracket
        end = piece.index(")", m.end()) + 1
        clause = piece[m.start() : end]
    elif not head.strip(" ,"):  # a leading reason runs to its comma
        comma = piece.find(",", m.end())
        since = m.group().strip().lower() == "since"
        if kind == "remark" or since or comma < 0 or not piece[comma + 1 :].strip():
            return None
        clause, end = piece[: comma + 1], comma + 1
    else:
        clause, end = piece[m.start() :], len(piece)
    text = clause.strip(" ,—–-()")
    aside = text.split(None, 1)[-1] if kind == "context" else text
    return (m, text, end) if _aside(aside) else None


def _aside(text: str) -> bool:
    """Whether *text* could be set aside: words, but no cue of a rule (what someone else needs
    or cannot do is none: "my watch needs to sync")."""
    words = re.sub(r"\bnext (?:room|door|house|flat)\b", "", normalize(text))  # no timing
    words = _OTHERS_NEED.sub("", words)
    return bool(words.strip(" ,—–-()")) and not (cue_slots(words) or _RULE.search(words))


class LLMRecognizer(ChatReader):
    """Referring-expression recognition by a chat model (a :class:`ChatReader`).

    The prompt (``data/prompts/referring_expressions.txt``) asks for one line ``Expressions:
    e1 | e2 | …`` (or ``none``), and each request carries a JSON schema (``{"expressions":
    [...]}``, spans of one to four words of the sentence). A reply is accepted when every
    expression occurs in the sentence.

    >>> from safetychip.llm import ScriptedModel
    >>> llm = ScriptedModel(["Expressions: the fridge | the kitchen"])
    >>> [e.text for e in LLMRecognizer(llm)("Open the fridge before the kitchen")]
    ['the fridge', 'the kitchen']
    >>> llm = ScriptedModel(['{"expressions": ["the fridge", "the fridge"]}'])
    >>> [e.text for e in LLMRecognizer(llm)("Open the fridge")]
    ['the fridge']
    """

    def messages(self, sentence: str) -> list[dict[str, str]]:
        """The conversation sent for *sentence*."""
        asked = fill("Utterance: {sentence}", sentence=sentence)
        return [{"role": "system", "content": load_prompt("referring_expressions")},
                {"role": "user", "content": asked}]  # fmt: skip

    def __call__(self, sentence: str) -> list[Expression]:
        """Recognise the expressions of *sentence* (a request that fails raises the model's
        ``LLMError``)."""
        return self.ask(self.messages(sentence), lambda reply: _read_expressions(reply, sentence),
                        schema=_schema(sentence), max_tokens=200, why=False,
                        again="Answer with one line 'Expressions: ...' listing spans copied from "
                        "the utterance, separated by '|', or 'Expressions: none'.",
                        what=f"usable list of referring expressions for {sentence!r}")  # fmt: skip


def _schema(sentence: str) -> dict:
    """The JSON schema of a reply: ``{"expressions": [spans of the sentence]}``."""
    words = re.findall(r"[\w'-]+", sentence)
    spans = {" ".join(words[i:j]) for i in range(len(words))
             for j in range(i + 1, min(i + _MAX_WORDS, len(words)) + 1)}  # fmt: skip
    items = sorted(s for s in spans if s.lower() in sentence.lower())
    expressions = {"type": "array", "maxItems": 6,
                   "items": {"type": "string", **({"enum": items} if items else {})}}  # fmt: skip
    return {"type": "object", "properties": {"expressions": expressions},
            "required": ["expressions"], "additionalProperties": False}  # fmt: skip


def _reply_items(reply: str) -> list[str]:
    """The expressions of a reply: a JSON object's list, or the ``Expressions:`` line's."""
    text = reply.strip()
    if text.startswith("{"):
        return json_field(text, "expressions", lambda x: isinstance(x, list) and all(
            isinstance(y, str) for y in x), 'an "expressions" list of strings')  # fmt: skip
    line = next((x for x in reply.splitlines() if x.strip().lower().startswith("expressions:")),
                None)  # fmt: skip
    if line is None:
        raise ValueError("it has no line starting with 'Expressions:'")
    body = line.split(":", 1)[1].strip()
    return [] if body.lower() in ("", "none", "-", "[]") else body.split("|")


def _read_expressions(reply: str, sentence: str) -> list[Expression]:
    lower = sentence.lower()
    out, cursor = [], 0
    for item in _reply_items(reply):
        text = item.strip().strip("\"'`")
        if not text:
            continue
        at = lower.find(text.lower(), cursor)
        at = at if at >= 0 else lower.find(text.lower())
        if at < 0:
            raise ValueError(f"{text!r} does not occur in the utterance")
        found = Expression(sentence[at : at + len(text)], at, at + len(text))
        if found not in out:  # the same span named twice (a small model repeats itself)
            out.append(found)
            cursor = at + len(text)
    out.sort(key=lambda e: e.start)
    for a, b in itertools.pairwise(out):
        if b.start < a.end:
            raise ValueError(f"{a.text!r} and {b.text!r} overlap")
    return out
