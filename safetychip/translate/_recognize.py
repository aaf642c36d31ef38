"""Referring-expression recognition: which spans of a sentence name things in the world.

Two recognisers return the same :class:`Expression` values:

:func:`recognize`
    Offline. Finds the vocabulary's names in the sentence, longest first, however they are
    written: with spaces or run together (``book shelf``, ``bookshelf``), in the plural,
    after an article, by a synonym (``TV``, ``coffee maker``), or by a class name with a room
    (``the sink in the kitchen``). A noun phrase after an article that names nothing known
    is returned too, without candidates, so that grounding can embed it or say it is unknown,
    unless its head is one of :data:`NON_REFERRING` (the robot itself, pronouns, words of
    counting, time and order: "the agent shall", "the number of visits", "a trip", "its
    deactivation"), which name nothing in any scene. A class name shared by several
    instances (``the window``) is a name of its own, meaning any of them; a room beside it
    picks one (``the window in the bedroom`` is ``bedroom_window``).
:class:`LLMRecognizer`
    Asks a chat model with the prompt ``data/prompts/referring_expressions.txt``; a reply
    that cannot be read is retried, then raises
    :class:`~safetychip.errors.TranslationReplyError` quoting it.

Examples
--------
>>> from safetychip.translate import Vocabulary
>>> v = Vocabulary.from_names(["book", "book_shelf", "kitchen", "television"])
>>> [(e.text, e.candidates) for e in recognize("Put the books on the bookshelf", v)]
[('the books', ('book',)), ('the bookshelf', ('book_shelf',))]
>>> [(e.text, e.candidates) for e in recognize("Never watch the TV in the kitchen", v)]
[('the TV', ('television',)), ('the kitchen', ('kitchen',))]
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ..errors import TranslationReplyError
from ..llm import ChatModel, fill, load_prompt
from ._normalize import normalize
from ._slots import cue_slots
from ._vocabulary import Vocabulary, singular

__all__ = [
    "NON_REFERRING",
    "SENTENCE_END",
    "Expression",
    "LLMRecognizer",
    "Remark",
    "recognize",
    "remarks",
]


@dataclass(frozen=True)
class Expression:
    """A referring expression: a span of the sentence that names an object or a place.

    Attributes
    ----------
    text : str
        The span as written, with its article (``"the book shelf"``).
    start, end : int
        Character offsets of the span in the sentence.
    candidates : tuple of str
        The names it means exactly (several when ambiguous); empty when it matched no
        phrase of the vocabulary and must be grounded by similarity.
    """

    text: str
    start: int
    end: int
    candidates: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "text": self.text,
            "start": self.start,
            "end": self.end,
            "candidates": list(self.candidates),
        }


_TOKEN = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")
_DETERMINERS = {"the", "a", "an", "your", "my", "our", "that", "this", "these", "those", "its"}
#: Heads of noun phrases that refer to nothing in a scene, by kind. The offline recogniser
#: leaves an unknown noun phrase alone when its last word (its head) is one of them ("the
#: number", "a trip", "its deactivation"), or when its first word is of the ``agent`` kind
#: ("the robot shall reach", "the agent enters"), instead of passing it on to be grounded.
#: Besides the kinds of the frame reader's counts and times, the ``order`` kind holds the words
#: of the text about the rule ("per the maintenance log", "a quick reminder", "the test").
#: Phrases that match a name of the vocabulary are never affected. The set is closed and small
#: on purpose: any other unknown noun phrase ("the baby") is still returned, so grounding
#: refuses it by name rather than dropping a real object silently.
NON_REFERRING: Mapping[str, frozenset[str]] = MappingProxyType({
    # the one acting, and pronouns: never an object of the scene
    "agent": frozenset("""
        robot agent system bot assistant device unit droid you it itself yourself they them
        he she i we me us
        """.split()),
    # counting: "the number of visits", "a couple", "twice is the absolute max"
    "counting": frozenset("""
        number count amount total visit visits entry entries occasion occasions trip trips
        round rounds lap laps couple max maximum minimum limit time times once twice two
        three dozen hundred
        """.split()),
    # time and events: "the moment", "its deactivation", "each activation"
    "time": frozenset("""
        moment instant step steps while end beginning start stage future past day morning
        evening night second period term remainder duration activation deactivation
        departure arrival opening closing shift hour hours minute minutes sec week weekend
        afternoon today tonight operation course session loop cycle routine schedule interval
        game quest voyage tour inspection interim closure completion
        """.split()),
    # order and the work itself: "in the order", "that's the job"
    "order": frozenset("""
        order sequence way point rest same first next last other one thing things task job
        chore errand mission rule circumstance circumstances lot bit few very whole single
        list log note reminder exception exceptions reason request instruction instructions
        policy protocol requirement test demo scenario finding recommendation patrol
        """.split()),
})  # fmt: skip
_NON_REFERRING = frozenset().union(*NON_REFERRING.values())
# Words after an article that are not nouns of things, at either end of a phrase.
_NOT_THINGS = frozenset(
    """
    time times step steps moment end way point rest same first next last beginning start
    circumstance circumstances maximum minimum while single very whole other one thing
    things task lot bit few day morning evening night second third once twice all each
    every any some no more less most least hand hands eye eyes foot feet mind attention
    mitts paws fingers place sense little latest earliest middle entire basis look hold dear
    discretion record email message memo
    order case future past stage costs all costs
    go come visit enter head walk move open close take put turn switch pick grab touch leave
    stay keep get run return
    """.split()
)
# Words that end a noun phrase (verbs, prepositions, conjunctions, adverbs).
_STOP = frozenset(
    """
    and or but if then before after until till when whenever once while in into on onto
    at to of from with without by for near inside out up down off back again is are was
    be been being has have had it them there you must should can may will never not do
    does did later first immediately right away afterwards eventually anymore ever means
    more than least most exactly twice times time every each always so that which who
    over under through past next directly straight only as soon too also either nor both
    open closed shut switched turned left put placed within shall during that's this's
    therefrom thereafter thereof between please pls plz thx thanks yeah still already just
    """.split()
)
_MAX_WORDS = 4
# The part by which a thing opens, after its name: "the microwave door" is the microwave.
_PARTS = frozenset({"door", "lid"})
# Verbs of an event's start or end, after its name: "the game ends".
_EVENT_VERBS = frozenset("ends ended starts started begins began finishes finished closes".split())


def _tokens(sentence: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _TOKEN.finditer(sentence):
        word = m.group().lower()
        if word.endswith("'s") and word[:-2] not in _DETERMINERS:  # "that's" is "that is"
            word = word[:-2]
        out.append((word, m.start(), m.end()))
    return out


def recognize(sentence: str, vocabulary: Vocabulary) -> list[Expression]:
    """Find the referring expressions of *sentence*, offline, in order of appearance.

    Parameters
    ----------
    sentence : str
        One English sentence.
    vocabulary : Vocabulary
        The names to look for.

    Returns
    -------
    list of Expression
        Matches of the vocabulary's phrases (with candidates), and unknown noun phrases
        after an article (without).

    Examples
    --------
    >>> v = Vocabulary.from_names(["kitchen", "bathroom", "kitchen_sink", "bathroom_sink"])
    >>> [(e.text, e.candidates) for e in recognize("Never use the sink in the kitchen", v)]
    [('the sink in the kitchen', ('kitchen_sink',))]
    >>> [(e.text, e.candidates) for e in recognize("Don't touch the sinks", v)]
    [('the sinks', ('sink',))]
    >>> [(e.text, e.candidates) for e in recognize("Don't touch the cooker!", v)]
    [('the cooker', ())]
    >>> [e.text for e in recognize("The robot shall never enter the kitchen", v)]
    ['the kitchen']
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
        match = None
        for length in range(min(longest, len(toks) - i), 0, -1):
            names = vocabulary.lookup(tuple(stems[i : i + length]))
            if names:
                match = (i, i + length, names)
                break
        # Words written apart that a name runs together ("mail box" for "mailbox", "bed room"
        # for "bedroom" rather than "bed"): the longer match wins.
        for length in (3, 2):
            if i + length <= len(toks) and (match is None or match[1] - i < length):
                joined = singular("".join(w for w, _, _ in toks[i : i + length]))
                names = vocabulary.lookup((joined,))
                if names:
                    match = (i, i + length, names)
                    break
        if match is None:
            i += 1
            continue
        start, end, names = match
        if (
            end < len(toks)
            and stems[end] in _PARTS
            and not set(names) & set(vocabulary.rooms)
            and all(vocabulary.able("is_open", n) for n in names)
        ):
            opened[stems[end]] = names
            end += 1  # "the fridge door", "the toilet lid": the thing that opens
        elif end - start == 1 and stems[start] in opened:
            names = opened[stems[start]]
        if len(names) > 1 or vocabulary.is_class(names[0]):
            start, end, names = _narrow(toks, stems, start, end, names, vocabulary)
        found.append((start, end, names))
        i = end
    taken: set[int] = set()
    for start, end, _ in found:
        taken.update(range(start, end))
    for span in _unknown_phrases(toks, taken):
        found.append((*span, ()))
    found.sort()
    out = []
    for start, end, names in found:
        if start > 0 and toks[start - 1][0] in _DETERMINERS and (start - 1) not in taken:
            start -= 1
        a, b = toks[start][1], toks[end - 1][2]
        out.append(Expression(sentence[a:b], a, b, names))
    return out


def _narrow(toks, stems, start, end, names, vocabulary):
    """Pick among several instances by a room named next to the class: "sink in the kitchen"
    or "kitchen's sink"."""
    pool = vocabulary.instances[names[0]] if len(names) == 1 else names  # a class: its instances
    k = end
    if k < len(toks) and toks[k][0] in ("in", "of", "inside") and k + 1 < len(toks):
        k += 1
        if toks[k][0] in _DETERMINERS and k + 1 < len(toks):
            k += 1
        for length in (2, 1):
            if k + length > len(toks):
                continue
            room = vocabulary.lookup(tuple(stems[k : k + length]))
            if len(room) == 1 and room[0] in vocabulary.rooms:
                chosen = tuple(n for n in pool if n.startswith(room[0] + "_"))
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
        while (
            j < len(toks)
            and j - i <= _MAX_WORDS
            and toks[j][0] not in _STOP
            and toks[j][0] not in _DETERMINERS
            and j not in taken
        ):
            if j > i + 1 and toks[j][1] > toks[j - 1][2] + 1:  # punctuation between words
                break
            j += 1
        if j == i + 1:
            continue
        first, head = toks[i + 1][0], toks[j - 1][0]
        if {first, head} & _NOT_THINGS or first[0].isdigit():
            continue  # "the 3 next steps": a count
        if head in _NON_REFERRING or first in NON_REFERRING["agent"]:
            continue  # "the number", "a trip", "the agent shall reach"
        if first in NON_REFERRING["time"] and j > i + 2 and toks[i + 2][0] in _EVENT_VERBS:
            continue  # "until the game ends", "before the session is over"
        if j < len(toks) and j in taken:
            continue  # an adjective before a known name, e.g. "the red book"
        if j < len(toks) and toks[j][0] in ("time", "times"):
            continue  # "the hole time" (whole): a time, never a thing
        spans.append((i + 1, j))
    return spans


@dataclass(frozen=True)
class Remark:
    """A clause that only gives a reason or describes the world, with no rule in it.

    Attributes
    ----------
    kind : str
        ``"reason"`` ("because the kids are asleep", "to check on the baby"), ``"remark"``
        (a statement after a comma or a dash: "the cat will get out", "— fire hazard") or
        ``"preamble"`` (a statement before the rule, joined to it by "so", "but" or
        "anyway": "my sister is visiting, so …") or ``"context"`` (what someone other than
        the robot is doing meanwhile: "while I sleep", "during the party").
    text : str
        The clause as written, with its marker.
    start, end : int
        Character offsets of the clause in the sentence; ``start`` includes the comma or
        dash before it.
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
_MARKERS = (
    (
        "context",
        re.compile(
            rf"(?:^|,?\s+|\s*(?:—|–|--|\s-)\s*)(?:(?:while|whilst)(?= {_OTHERS}\b)|during\b)",
            re.I,
        ),
    ),
    (
        "reason",
        re.compile(
            rf"(?:^|,?\s+)(?:(?:because|'?cause|since|as)(?= {_SUBJECT})|so that|"
            r"in order to)\b",
            re.I,
        ),
    ),  # fmt: skip
    ("reason", re.compile(rf",\s+so(?= {_SUBJECT})\b", re.I)),
    ("reason", re.compile(r"\s+so(?= (?:i|we)\b)", re.I)),  # "… twice so I know it works"
    # "…, for the warm-up", "…, expecting a drop": a purpose or a state of mind
    (
        "reason",
        re.compile(
            r",\s+(?:for(?= (?:the|a|an|my|our|his|her|their)\b)|"
            r"(?:expecting|hoping|wondering|guessing|assuming)\b)",
            re.I,
        ),
    ),
    ("reason", re.compile(rf",\s+(?:otherwise|or else|or)(?= {_SUBJECT} [a-z']+)\b", re.I)),
    (
        "reason",
        re.compile(
            r"(?<=\w)\s+to(?= (?!(?:the|a|an|my|your|our|his|her|their|this|that|"
            r"these|those|it|them|do|be|go|get|stop|happen|\w+ly)\b)[a-z]+ )",
            re.I,
        ),
    ),  # fmt: skip
    # a likeness: "…, like the four corners of the mat", "…, like returning to your mat"
    (
        "remark",
        re.compile(
            r",\s+(?:(?:just|much|a bit|sort of|kind of)\s+)?like(?= (?:the|a|an|my|your|our|his|"
            r"her|their|\w+ing)\b)",
            re.I,
        ),
    ),
    ("remark", re.compile(rf"(?:\s*(?:—|–|--|\s-)\s*|,\s+)(?={_SUBJECT} [a-z']+)", re.I)),
    ("remark", re.compile(rf"\s*\(\s*(?={_SUBJECT} [a-z']+[^()]*\))", re.I)),
)
# Words of a rule a clause set aside may not hold, besides the slot reader's cues
# (:func:`~safetychip.translate._slots.cue_slots`): an obligation, a request, an exception, a
# number, a repetition.
_RULE = re.compile(
    r"\b(?:must|shall|should|ought|has to|have to|needs? to|make sure|be sure|remember|forget|"
    r"please|only|always|again|allowed|permitted|may|let|keep|stay|leave|avoid|forbidden|"
    r"prohibited|banned|off limits|off-limits|out of bounds|\d+)\b|"
    r"\b(?:do|does|will|would|can|could|shall|should|must) not\b",
    re.I,
)
#: The end of a sentence: a full stop, a question or exclamation mark or a semicolon.
SENTENCE_END = re.compile(r"[.!?;]+(?:\s|$)")
# The joint between a preamble and its rule: "…, so", "…, but anyway,", "… - anyway", "…:".
_PREAMBLE = re.compile(
    r"(?:(?:,|\s[-—–]+)\s*(?:(?:but|and)\s+)?(?:so|but|anyway|anyhow|still|regardless)\b,?|:)"
    r"\s*",
    re.I,
)
# Words before "to" that make it an obligation, a plan or what is forbidden, never a purpose
# ("you have to close it later", "you are going to", "[a] is forbidden to switch on").
_NOT_PURPOSE = frozenset(
    "have has had need needs ought want wants going got able used allowed supposed required "
    "is are am be forbidden prohibited banned permitted meant".split()
)


def remarks(sentence: str) -> list[Remark]:
    """The clauses of *sentence* that only give a reason or describe the world.

    A clause qualifies when a marker opens it: *because*, *since*, *as* or *so* before a
    subject other than "you" (unless "you will": "since you've been in [a]" is a rule's
    time), *so that*, *in order to*, *to* before a verb of purpose (never after "have",
    "need", "going" and the like: an obligation), a comma or a dash before a statement or a
    noun phrase with its article ("…, the cat will get out", "— a fire hazard"; never an
    instruction: "— turn [a] off"), or a bracket around one ("(the kids are asleep)"). It
    runs to the end of its sentence; a leading "Because …," to its comma (a leading "Since
    …," is a time, never a reason), a bracket to its bracket. It holds no constraint cue of
    the slot reader (:func:`~safetychip.translate._slots.cue_slots`: conditions, scopes,
    timings, counts, orders, negation …) and no word of a rule (an obligation, a request, an
    exception, a number). The first clause of a sentence is never one; a whole sentence
    after the first one is ("… Just a thought."), and so is a lead before a colon ("A wild
    idea: …").
    Whether a remark is set aside is the pipeline's decision: only when the things it names
    ground in nothing.

    >>> [(r.kind, r.text) for r in remarks("Stay out of the bedroom because the kids are asleep.")]
    [('reason', 'because the kids are asleep')]
    >>> [(r.kind, r.text) for r in remarks("Don't open the windows, the cat will get out.")]
    [('remark', 'the cat will get out')]
    >>> [r.text for r in remarks("Go to the living room twice to check on the baby")]
    ['to check on the baby']
    >>> [r.text for r in remarks("Stay out of the bedroom (the kids are asleep) and the hall.")]
    ['the kids are asleep']
    >>> remarks("Never open the fridge, because you must not waste the milk.")
    []
    >>> [(r.kind, r.text) for r in remarks("My sister is visiting, so go to the kitchen")]
    [('preamble', 'My sister is visiting')]
    >>> [(r.kind, r.text) for r in remarks("Never open the door. That is the cat's way out!")]
    [('remark', "That is the cat's way out")]
    >>> [(r.kind, r.text) for r in remarks("Go to the hall to check on her while I sleep")]
    [('context', 'while I sleep'), ('reason', 'to check on her')]
    >>> [(r.kind, r.text) for r in remarks("During the party, skip the bedroom, it is a mess")]
    [('context', 'During the party'), ('remark', 'it is a mess')]
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
            # the first clause the marker opens that holds no rule ("…, it's to be shut within
            # 2 steps, the dog's an escape artist": the second)
            clause = next((c for m in marker.finditer(piece) if (c := _clause(kind, m, piece))),
                          None)  # fmt: skip
            if clause is None:
                continue
            m, text, end = clause
            head = piece[: m.start()]
            found.append(Remark(kind, text, start + m.start(), start + end))
            if kind != "context":
                break
            if head.strip(" ,"):  # the rest of the sentence around a context is read on
                piece = head
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
    if not _aside(text.split(None, 1)[-1] if kind == "context" else text):
        return None
    return m, text, end


_OTHERS_NEED = re.compile(
    r"\b(?:i|we|he|she|they|(?:my|our|his|her|their) \w+) (?:(?:needs?|has|have) to|"
    r"(?:can|could|will|would|do|does|did) not|cannot)\b"
)


def _aside(text: str) -> bool:
    """Whether *text* could be set aside: words, but no cue of a constraint, no timing and no
    word of a rule."""
    words = re.sub(r"\bnext (?:room|door|house|flat)\b", "", normalize(text))  # no timing
    # what someone else needs or cannot do is no rule for the robot: "my watch needs to sync"
    words = _OTHERS_NEED.sub("", words)
    return bool(words.strip(" ,—–-()")) and not (cue_slots(words) or _RULE.search(words))


class LLMRecognizer:
    """Referring-expression recognition by a chat model.

    The prompt (``data/prompts/referring_expressions.txt``) asks for one line
    ``Expressions: e1 | e2 | …`` (or ``none``); each request also carries a JSON schema
    (structured output): ``{"expressions": [...]}``, each item a span of one to four words
    of the sentence, so that a small model held to the schema by its server cannot answer in
    prose. A reply is accepted when it is such an object or has that line, and every
    expression occurs in the sentence; otherwise the model is asked again, with
    what was wrong, up to *max_attempts* requests in all.

    Parameters
    ----------
    model : ChatModel
        The model (a :class:`~safetychip.llm.StandInModel` is labelled as such downstream).
    max_attempts : int
        Requests before giving up.

    Examples
    --------
    >>> from safetychip.llm import ScriptedModel
    >>> llm = ScriptedModel(["Expressions: the fridge | the kitchen"])
    >>> [e.text for e in LLMRecognizer(llm)("Open the fridge before the kitchen")]
    ['the fridge', 'the kitchen']
    >>> llm = ScriptedModel(['{"expressions": ["the fridge", "the fridge"]}'])
    >>> [e.text for e in LLMRecognizer(llm)("Open the fridge")]
    ['the fridge']
    """

    def __init__(self, model: ChatModel, *, max_attempts: int = 3) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.model = model
        self.max_attempts = max_attempts
        self.stand_in = False

    def messages(self, sentence: str) -> list[dict[str, str]]:
        """The conversation sent for *sentence*."""
        return [
            {"role": "system", "content": load_prompt("referring_expressions")},
            {"role": "user", "content": fill("Utterance: {sentence}", sentence=sentence)},
        ]

    def __call__(self, sentence: str) -> list[Expression]:
        """Recognise the expressions of *sentence*.

        Raises
        ------
        TranslationReplyError
            If no reply could be read within *max_attempts*; the message quotes the last.
        LLMError
            If a request fails (timeout, HTTP error), as the model raised it.
        """
        messages = self.messages(sentence)
        reply = ""
        for _ in range(self.max_attempts):
            completion = self.model.complete(
                messages, temperature=0.0, max_tokens=200, schema=_schema(sentence)
            )
            self.stand_in = self.stand_in or completion.stand_in
            reply = completion.text
            try:
                return _read_expressions(reply, sentence)
            except ValueError as why:
                messages = [
                    *messages,
                    {"role": "assistant", "content": reply},
                    {
                        "role": "user",
                        "content": f"I cannot use that reply: {why}. "
                        "Answer with one line 'Expressions: ...' listing spans copied "
                        "from the utterance, separated by '|', or 'Expressions: none'.",
                    },
                ]
        raise TranslationReplyError(
            f"{self.model.name} gave no usable list of referring expressions for {sentence!r} "
            f"in {self.max_attempts} attempt{'s' * (self.max_attempts > 1)}; last reply: "
            f"{_quote(reply)}",
            reply,
            self.max_attempts,
        )


def _quote(text: str, limit: int = 300) -> str:
    return repr(text[:limit]) + ("…" if len(text) > limit else "")


#: The most words, and the most expressions, the schema of a reply allows.
_SPAN_WORDS = 4
_MAX_EXPRESSIONS = 6


def _schema(sentence: str) -> dict:
    """The JSON schema of a reply: ``{"expressions": [spans of the sentence]}``."""
    words = re.findall(r"[\w'-]+", sentence)
    spans = {
        " ".join(words[i:j])
        for i in range(len(words))
        for j in range(i + 1, min(i + _SPAN_WORDS, len(words)) + 1)
    }
    lower = sentence.lower()
    items = sorted(s for s in spans if s.lower() in lower)
    return {
        "type": "object",
        "properties": {
            "expressions": {
                "type": "array",
                "items": {"type": "string", "enum": items} if items else {"type": "string"},
                "maxItems": _MAX_EXPRESSIONS,
            }
        },
        "required": ["expressions"],
        "additionalProperties": False,
    }


def _reply_items(reply: str) -> list[str]:
    """The expressions of a reply: a JSON object's list, or the ``Expressions:`` line's."""
    text = reply.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"it is not valid JSON ({err.msg} at character {err.pos})") from None
        items = data.get("expressions") if isinstance(data, dict) else None
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            raise ValueError('it is JSON without an "expressions" list of strings')
        return items
    line = next(
        (x for x in reply.splitlines() if x.strip().lower().startswith("expressions:")), None
    )
    if line is None:
        raise ValueError("it has no line starting with 'Expressions:'")
    body = line.split(":", 1)[1].strip()
    if body.lower() in ("", "none", "-", "[]"):
        return []
    return body.split("|")


def _read_expressions(reply: str, sentence: str) -> list[Expression]:
    lower = sentence.lower()
    out, cursor = [], 0
    for item in _reply_items(reply):
        text = item.strip().strip("\"'`")
        if not text:
            continue
        at = lower.find(text.lower(), cursor)
        if at < 0:
            at = lower.find(text.lower())
        if at < 0:
            raise ValueError(f"{text!r} does not occur in the utterance")
        found = Expression(sentence[at : at + len(text)], at, at + len(text))
        if found in out:
            continue  # the same span named twice (a small model repeats itself)
        out.append(found)
        cursor = at + len(text)
    out.sort(key=lambda e: e.start)
    for a, b in itertools.pairwise(out):
        if b.start < a.end:
            raise ValueError(f"{a.text!r} and {b.text!r} overlap")
    return out
