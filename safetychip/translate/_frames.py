"""The frame reader: a second, cue-based reader of a lifted sentence, between the grammar and
the retrieval translator.

The grammar (:class:`~safetychip.translate.PatternTranslator`) reads whole sentences in the
forms it knows. People also write constraints as headers and lists ("Off limits: [a], [b]"),
arrows ("[a] -> [b]"), numbered routes ("1) [a] 2) [b]"), terse counts ("[a]: max 3
visits") and several clauses that together state one pattern ("[a], then [b]. [b] not before
[a]."). :class:`FrameReader` reads those in four steps, one function each:

1. :func:`prepare`: the grammar's normalisation (lower case, contractions, pronouns), then
   the notations and fixed phrases people use, each rewritten as the words the frames read:

   ==========================================  ==============================================
   written                                     read as
   ==========================================  ==============================================
   ``→ => ->``; ``=`` after a state            an arrow ("[a] open = shut next")
   ``+``, ``<->``, ``↔``                       "and"
   ``≤ <=``, ``≥ >=``, ``3+``, ``x2``          "at most", "at least", "2 times"
   "twice is the max", "but only twice"        "at most twice"
   "once or not at all", "one time or zero     "at most once"; "enter [a] at most once"
   times"; "allowed in [a] at most once"
   "[a] and later on [b]", "[a], and after     "[a] and then [b]"
   that [b]", "…, and when that's done [b]"
   "you have 2 steps to X",                    "X within 2 steps"
   "before 2 steps pass"
   "E1 shall be followed by its E2"            "whenever E1, E2"
   "E1 is required before E2"                  "do not E2 until E1"
   "never enter [a] with [b] in your hand",    "while you are holding [b], never enter [a]"
   "never carry [b] into [a]"
   "[a], you can enter only after …"           "you can enter [a] only after …"
   "none of them", "the one before it"         "none", "its predecessor" (a route's steps)
   "[b] before it" (no other "it")             "[b] before" the other thing named before it
   "…, because [a] …" (things named already)   dropped: a reason is no rule
   "I don't care which first", "the order     "in any order" (a list in any order is never a
   does not matter"                            route)
   hedges: "it'd be great if you could         dropped
   maybe", "ideally", ", like,", "if that's
   ok", "could you make sure that", "no
   rush", "reckon you could", "whenever
   suits", "her [a]", "the whole time",
   "for the rest of the shift"; a term of
   address ("…, mate", "…, love, …", "…,
   there's a love", "ta")
   "please refrain from", "do not be …ing"     "do not", "do not …ing"
   a formal register: "prior to (having)",     "before (you have)", "except when you are in",
   "save when present in", "at any time at     "while", "then", "grab", "switch on", "3"
   which", "upon completion thereof", "take
   possession of", "activate", "three (3)"
   ``[ ] [a] [ ] [b]``, ``✗ [a] ✗ [b]``,       a list, "off limits: [a], [b]", clause breaks,
   ``* [a] * [b]``, "STEP 1: … STEP 2: …",     a route, "if you have not yet been in [a],"
   "IF [a] not visited THEN …"
   chat: "u've", "ur", "dont", "b4", "1st",    "you have", "you are", "do not", "before",
   "teh", "rite", "go 2", "[a] than [b]",      "first", "the", "right", "go to", "then",
   emoji                                       dropped
   ==========================================  ==============================================

2. :func:`cue_classes`: which cue classes of :data:`CUES` the text holds;
3. the **frame** of the first cue class in :data:`PRIORITY` that the text holds decides the
   pattern (a documented priority: "whenever …, … within 2 steps" holds trigger and bound
   cues, and the bound wins); the frame splits the text into clauses and gives every
   placeholder a role and a literal (the grammar's clause reader :func:`read_clause`, plus
   the terse forms of :data:`TERSE`: "[a] on", "[a] visited", "visits to [a]");
4. the pattern is built with the project's builders (:func:`~safetychip.ltl.build_pattern`),
   one part per thing of a list, as the grammar does for lists.

===============  =================================================  ============================
cue class        frame (one function)                               patterns
===============  =================================================  ============================
patrol           :func:`_frame_patrol`                              patrolling, each place
wait             :func:`_frame_wait`                                wait (stay in [a] until C)
arrow            :func:`_frame_arrow`: a route, or a reaction if    sequenced visit, or as below
                 its right side has a timing or a negation
sequence         :func:`_frame_sequence`: a route, then clauses     sequenced, ordered, strictly
                 about its order                                    ordered visit
bound … (below)  :func:`_frame_condition`: condition and main       bounded delay, immediate
                 clause, read by the main clause's timing and       response, avoid unless,
                 negation cues (bound, prompt, unless, future,      avoid while, absence after,
                 trigger, precedence)                               response, not before
count            :func:`_frame_count`                               at most / at least / exactly
negation         :func:`_frame_list`                                never, each thing
visit (or none)  :func:`_frame_list`                                visit, each thing
===============  =================================================  ============================

A header over a list that its frame refuses ("Close right after opening: [a], [b]"), or a
list of things as the header of a statement ("[a], [b]: close right after opening"), is read
once per thing ("close right after opening [a]"), and all must give the same pattern; several
sentences that each read as a visit, or each as a prohibition ("Visit [a]. Visit [b].") are
one conjunction; an order between two places followed by "and visit both" is an ordered
visit.

**It never guesses silently.** A frame answers only when every placeholder has a role and a
literal, no clause of the sentence is left unexplained (a clause that names a placeholder no
rule consumed, or that holds a negation, count or timing cue no rule consumed, refuses; only
the harmless remarks of ``_REMARK_OK`` such as "ok", "no dawdling", and descriptions of the
world, ``_DESCRIPTION``, such as "the cat will get out", are left out), and a
prohibition only when the sentence says one (a negation or avoid cue). It also refuses a
number without a bound word ("[a] twice": exactly or at least?), two kinds of count in one
sentence, an order stated for some steps of a route only, "or" before a thing outside a
prohibition ("go to [a] or [b]" is either one), a plural pronoun ("close them": the grammar's
pronoun resolution names one thing), a timed prohibition, a positive reaction without a
timing after "after"/"once"/"when", a lasting positive state ("[b] closed for good"), an
order remark it does not know ("the usual order": order words make a remark a rule), a
permission as a step of a route ("only then [b] may be entered"), "only then" inside a
route of three or more, bare things after "no" ("no [a], [b]": a place or a thing?), and a
list of states with no task ("[a] on and [b] off").
Otherwise it raises :class:`~safetychip.errors.OutOfGrammarError`, and the pipeline goes on
to the retrieval translator.

Conventions are the project's (:mod:`safetychip.ltl` patterns): future avoidance is
``absence_after`` (``G(a -> X G !b)``), prompt reaction ``immediate_response`` (``X[!]``),
past avoidance ``not_before`` (``!b W a``), counts count entries.

Examples
--------
>>> read = FrameReader()
>>> print(read("Off limits: [a], [b].").formula)
G!"agent_at(a)" & G!"agent_at(b)"
>>> r = read("Route: 1) [a] 2) [b] 3) [c].")
>>> r.pattern, str(r.formula)
('sequenced_visit', 'F("agent_at(a)" & F("agent_at(b)" & F"agent_at(c)"))')
>>> print(read("[a]: max 3 visits.").pattern)
at_most
>>> read("Juggle [a] and [b].")
Traceback (most recent call last):
...
safetychip.errors.OutOfGrammarError: the frame reader cannot read 'Juggle [a] and [b].': its
visit cue decides the frame, which refuses: cannot read 'juggle [a]'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import OutOfGrammarError
from ..ltl import And, Formula, Not, ap, build_pattern
from ._grammar import (
    ANY_ORDER,
    NO_RETURN,
    Clause,
    LiftedTranslation,
    count_value,
    lit,
    no_double_negation,
    normalize,
    read_clause,
    unchat,
)

__all__ = ["CUES", "PRIORITY", "TERSE", "FrameReader", "cue_classes", "prepare"]

X = r"\[([a-z])\]"
_LETTER = re.compile(X)


class _Refusal(Exception):
    """A frame matched its cue but cannot read the sentence without guessing."""


# -- step 1: preparing the text ------------------------------------------------------------------

_SIGNS = [
    (re.compile(r"\s*(?:↔|<->|<=>)\s*|\s+\+\s+|(?<=\])\s*\+\s*"), " and "),
    # "->"; "implies" only before a negation ("A implies B" is no route)
    (re.compile(r"\s*(?:→|⇒|=>|->)\s*|\s+implies\s+(?=(?:not|no|never)\b)"), " -> "),
    (re.compile(r"\s*(?:≤|<=)\s*"), " at most "),
    (re.compile(r"\s*(?:≥|>=)\s*"), " at least "),
    (re.compile(r"\s+[—–]+\s+|\s*[—–]{1,2}\s*"), "; "),
    (re.compile(r"\s+-\s+"), "; "),
    (re.compile(r"\s+&\s+"), " and "),
    (re.compile(r"^\s*(?:[✗✘×❌]\s*(?=\[))"), "off limits: "),  # "✗ [a] ✗ [b]": crossed out
    (re.compile(r"\s*[✗✘×❌]\s*(?=\[)"), ", "),
    (re.compile(r"^\s*\[ \]\s*"), ""),  # "[ ] [a] [ ] [b]": a checklist
    (re.compile(r"\s*\[ \]\s*"), ", "),
    (re.compile(r"\s+\*\s+"), "; "),  # "* [a] … * [b] …": bullets
    (re.compile(r"^\s*[•·]\s*"), ""),
    (re.compile(r"\s*[•·]\s*"), "; "),  # "• [a]: 2 visits max • [b]: …"
    (
        re.compile(
            r"\s*[\U0001F300-\U0001FAFF\u2600-\u26FF\u2700-\u2716\u2719-\u27BF\u200d\ufe0f]+"
        ),
        "",
    ),
]
# Misspellings of cue words that the spelling corrector leaves (short or English words).
_CUE_TYPOS = [
    (re.compile(p), r)
    for p, r in [
        (r"(?<!earlier )(?<!sooner )(?<!other )(?<!rather )\bthan\b(?= \[)", "then"),
        (r"\bmore (?:as|then)\b", "more than"),
        (r"\bwith in\b|\bwithn\b", "within"),
        (r"\bturn (\[[a-z]\]) of\b", r"turn \1 off"),
        (r"\bu\b", "you"),
        (r"\b(?:the|teh) (?=\[)", ""),
        (r"\bteh\b", "the"),
        (r"\bur\b", "you are"),
        (r"\bbak\b", "back"),
        (r"\brite (?=after|away|now)", "right "),
        (r"\bat the very (least|most)\b", r"at \1"),
        (r"\bat (?:leat|lest|leas|leest)\b", "at least"),
        (r"(?<!at )\bleast\b(?= (?:\d|two|three|four|five|once|twice))", "at least"),
        (r"\btil\b", "till"),
        (r"\bthn\b", "than"),
        (r"\b(?:to|too) (?=times\b)", "two "),
        (r"\bfor (?=(?:times|steps|visits)\b)", "four "),
        (r"^wen\b", "when"),
        (r"\bbe activated\b", "be switched on"),
        (r"\bbe deactivated\b", "be switched off"),
        (r"\barrive (?:at )?(?=\[)", "arrive in "),
    ]
]


_AGENT_IT = re.compile(
    r"\bit(?= (?:shall|must|should|will|may|has|had|needs to|is (?:located )?(?:in|inside|at)|"
    r"gets to|reaches|enters)\b(?! (?:not )?be\b))"
)
_NUMBERED = re.compile(r"(?:^|(?<=[\s:]))\(?(\d)(?:\)|\.(?=\s))\s*")
#: "none of them before the one ahead of it": about every step of a route, and its predecessor.
_STEPS_REFERENCE = re.compile(
    r"\b(none|each|every one|all|any|neither|both) of them\b|"
    r"\bthe (?:one|place|room|stop|step) (?:ahead of|before|preceding) it\b",
    re.IGNORECASE,
)


#: "any of these: [a], [b]": a list announced (its "these" is no pronoun).
_LIST_INTRO = re.compile(r"\b(?:any of |all of |each of )?(?:these|the following)\s*:\s*", re.I)


def _it_is_another_thing(m: re.Match[str]) -> str:
    """The match of "[b] before it" with "it" the nearest other thing named before "[b]"
    (unchanged if there is none)."""
    others = [x for x in _LETTER.findall(m.string[: m.start()]) if f"[{x}]" != m.group(1)]
    return f"{m.group(1)}{m.group(2)} [{others[-1]}]" if others else m.group()


def _its_event(m: re.Match[str]) -> str:
    """The match of "its closing" as "closing of [a]", [a] the thing named last before it."""
    before = _LETTER.findall(m.string[: m.start()])
    return f"{m.group(1)} of [{before[-1]}]" if before else m.group()


_STEPS = r"(?:steps?|moves?|actions?|turns?|ticks?|time steps?)"
_NUMBER = r"(?:\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|once|twice|thrice)"

_Replacement = str | Callable[[re.Match[str]], str]


def _phrases(table: list[tuple[str, _Replacement]]) -> list[tuple[re.Pattern[str], _Replacement]]:
    return [(re.compile(p, re.IGNORECASE), r) for p, r in table]


# The agent named in the third person, as the subject of a rule or a state: "you".
_AGENT_SUBJECT = r"(?:the (?:agent|robot|unit|device|bot|droid)|one)"
# Verbs of the predicates in the progressive ("be opening"), and the base forms of those whose
# stem is not one.
_VERB_STEMS = frozenset("open switch turn touch pick tak us enter go leav grabb hold carry".split())
_VERB_BASE = {"tak": "take", "us": "use", "leav": "leave", "grabb": "grab"}
_AGENT_YOU = _phrases(
    [
        (rf"\b{_AGENT_SUBJECT} (?=(?:shall|must|should|may|will|is to|is not to|has to|needs to|"
         r"cannot|can)\b)", "you "),
        (rf"\b{_AGENT_SUBJECT} is (?=(?:located |still )?(?:in|inside|at) \[)", "you are "),
        (rf"\b{_AGENT_SUBJECT} has (?=(?:first )?(?:been|entered|visited|reached|gone)\b)",
         "you have "),
        (rf"\b{_AGENT_SUBJECT} holds (?=\[)", "you hold "),
        (rf"(?:^|\b{_AGENT_SUBJECT} )(?:agent |robot )?(?:remains|stays|waits) (?=in\b)", "stay "),
        (rf"\b{_AGENT_SUBJECT} carries (?=\[)", "you carry "),
        (rf"\b{_AGENT_SUBJECT} has (?=\[)", "you have "),
        (r"\b(while|when|whenever|if) (holding|carrying) (?=\[)", r"\1 you are \2 "),
        (rf"\b(?:{_AGENT_SUBJECT}|it) having (?=(?:first )?(?:been|entered|visited|reached|gone|"
         r"opened|picked|switched|turned|touched)\b)", "you have "),
    ]
)  # fmt: skip


_BOUND_SIDE = {"upper": "at most", "lower": "at least"}

#: Fixed phrases rewritten before the grammar's normalisation, in order: (pattern,
#: replacement); each a way people write that the frames read in other words.
_PHRASES = _phrases(
    [
        (r"^\s*[*•-]\s+", ""),  # a bullet
        (
            r"\b(?!(?:it|that|what|there|here|who|he|she)'s)[A-Za-z]+'s (?=\[[a-z]\])",
            "",
        ),  # "Mum's [a]"
        (r"\bb4\b", "before"),
        (r"\b(go|get|come|head|went) 2\b(?= (?:the |my |\[))", r"\1 to"),  # "go 2 [a]"
        (r"(?<=\]) than (?=(?:the |go (?:to )?)?\[)", " then "),  # "[a] than [b]": a typo
        (r"\b1st\b", "first"),
        (r"\ba single (?=(?:occasion|time|visit|entry|trip)\b)", "one "),
        (
            r"\b(?:cap|limit|restrict) (.+?) (?:at|to) (\d+|one|two|three|four|five)\b",
            r"\1 at most \2",
        ),  # "cap [a] entries at 3", "limit entries to [a] to one"
        (
            r"\b(?:entries|visits|trips) (?:into|to|in) (\[[a-z]\]) (?:are|is) (?:limited|capped|"
            r"restricted) to\b",
            r"enter \1 at most",
        ),  # "entries into [a] are limited to two"
        (
            r"\b(\d+|one|two|three|four|five) laps? (?:through|of|in|around|into) (?=\[)",
            r"\1 trips to ",
        ),
        (r"(?:\s+#\w+)+\s*$", ""),  # hashtags at the end: "… #adulting"
        # a label before the rule: "TC-44:", "Rule #2:", "Control 7.2:", "Constraint:"
        (
            r"^(?:(?:tc|rule|req|control|item|step)\s*[-#]?\s*\d+(?:\.\d+)*[a-z]?|constraint|"
            r"invariant|requirement|policy)\s*:\s+",
            "",
        ),
        (
            r"(\b(?:off limits|off-limits|closed|out of bounds|forbidden|not|never)\b[^,.;]*?) "
            r"for the (?:rest|remainder) of the (?:operation|game|run|day|session|shift|evening|"
            r"night|episode|mission|task)\b",
            r"\1 ever again",
        ),
        (r"\b(?:for )?so long as\b", "while"),
        # a condition said in a sentence of its own: "You might open [a]. If you do, close it."
        (
            r"^(?:maybe |perhaps )?you(?:'ll| will| might| may| could)"
            r"(?: sometimes| at some point)? (?:(be) )?([^.;]+?)(?: at some point| sometimes)?[.;] "
            r"(?:if you do|if so|when you do|when you are|if you are|if that happens|"
            r"when that happens),? ",
            lambda m: f"if you {'are ' if m.group(1) else ''}{m.group(2)}, ",
        ),
        # step bounds said otherwise: "in maximal 2 steps", "in the 3 next steps", "in 1 or 2"
        (rf"\bin (?:maximal|max|maximum) (?={_NUMBER} {_STEPS})", "within "),
        (rf"\bin the ({_NUMBER}) next ({_STEPS})", r"within \1 \2"),
        (rf"\bin {_NUMBER} or ({_NUMBER}) ({_STEPS})", r"within \1 \2"),
        (r"\bthe (?:second|instant|minute)(?: that)? (?=you\b|u\b)", "the moment "),
        (r"\bthe (?:robot|agent|unit)'s (?=\w+ing\b)", ""),  # "upon the robot's picking up"
        (r"\bhangs? out in\b", "stay in"),
        (
            r"^in (\[[a-z]\]),? you (?=(?:do not|never|must not|may not|cannot|shall not|"
            r"should not)\b)",
            r"while you are in \1, you ",
        ),
        # counts said as nouns: "the number of times the agent enters [a]", "[a] entries",
        # "1 activation of [a]"
        (
            r"\b(?:the )?(?:total )?number of (?:times (?:that )?(?:you|the agent|the robot|it) "
            r"(?:enters?|visits?|goes? (?:in)?to)|entries (?:into|to|in)|visits (?:to|in)) ",
            "entries into ",
        ),
        (r"(?<!into )(\[[a-z]\]) (?:entries|visits)\b", r"entries into \1"),
        (
            rf"\b((?:exactly |at most |at least )?{_NUMBER}) activations? of (\[[a-z]\])",
            r"switch on \2 \1 times",
        ),
        (
            rf"\b((?:exactly |at most |at least )?{_NUMBER}) openings? of (\[[a-z]\])",
            r"open \2 \1 times",
        ),
        (
            rf"\b(upper|lower) bound (?:on|for) ([^:]+?):\s*({_NUMBER})\b",
            lambda m: f"{m.group(2)} {_BOUND_SIDE[m.group(1).lower()]} {m.group(3)}",
        ),
        (r"^(?:enforce|assert|bound|require)\s+(?=\w)", ""),
        (r"\bmore'?n\b", "more than"),
        (r"\bmaximal\b", "at most"),
        (r"\bpost that\b", "after that"),
        (r"^(first (?:go (?:to )?)?\[[a-z]\]),? after (?=(?:go (?:to )?)?\[)", r"\1, then "),
        (
            r"^(\[[a-z]\]) (?:is )?only (?:allowed|permitted|ok|okay) (after|once)\b",
            r"you may enter \1 only \2",
        ),
        (r"\b(?:expected |required )?count of (?=entries into\b)", ""),
        # "only after you go to [a] you can take [b]": the permission said last
        (r"^only (after|once) ([^,]+?),? you (can|may) (.+?)[.!?]*$", r"you \3 \4 only \1 \2"),
        (
            r"\b(after|since|following) (?:the|your) first (?:visit|trip|entry) "
            r"(?:to|into|in) (?=\[)",
            r"\1 you have been to ",
        ),
        (  # the end of the run as a deadline: "before the day runs out", "before you finish"
            r"(?:^|,?\s+)(?:before|by) (?:the )?(?:day runs out|day is out|you finish(?: up)?|"
            r"(?:you are|you're) done|you complete the (?:task|run|job)|home time|"
            r"end of (?:the )?(?:day|run|shift|session))\b,?",
            "",
        ),
        (
            r"\b(?:trips|entries|visits) (?:into|to|in) (\[[a-z]\]) (at most|at least|exactly) "
            rf"({_NUMBER})\b(?! times)",
            r"enter \1 \2 \3 times",
        ),
        (
            r"(\[[a-z]\]) (?:first|1st),? (?:and |then )?(\[[a-z]\]) after(?:wards)?\b",
            r"\1, then \2",
        ),
        (r"\bkeep (\[[a-z]\]) in (?:the |your )?hands?\b", r"keep holding \1"),
        (
            r"\banywhere (?:but|except|other than|else than) (?:in )?(\[[a-z]\])",
            r"unless you are in \1",
        ),
        (r"\b(?:you are|you're|ur|u r) (?:banned|barred) from\b", "stay out of"),
        (r"\benter in(?:to)? (?=\[)", "enter "),
        # "only go into [b] once you have been to [a]": "only" belongs to the time
        (
            r"\bonly ((?:go|enter|visit|open|switch on|turn on|touch|grab|pick up|take)\b[^,;.]*?"
            r"\[[a-z]\][^,;.]*?) (?:once|after) (?=you have|you've)",
            r"\1 only after ",
        ),
        (r"\b(?:again )?before you(?:'re| are) (?:done|finished|through)\b", "eventually"),
        (r"\b(?:at any (?:time|point|moment)|at all times)(?=[\s.!?]*$)", "ever"),  # closing it
        (
            r"^((?:today|tonight|now),?\s+)?(?:robot|agent|bot)\s+(?=(?:should|must|shall|may|will|"
            r"has to|needs to|cannot|can)\b)",
            r"\1you ",
        ),
        (
            r"\b(until|till|before|after|once|when) (\[[a-z]\]) (?:is |has been )?(?:done|checked|"
            r"cleared|visited|honou?red|seen to)\b",
            r"\1 you have been to \2",
        ),
        (r"\bbounded above by\b", "at most"),
        (r"\bbounded below by\b", "at least"),
        (r"\bmore of (?=\d|one|two|three|four|five)", "more than "),
        (r"\b(?:just |only )?the once\b", "once"),
        (r"(?<=\S) = (?=\d+\.?$)", " exactly "),  # "entries into [a] = 2"
        (r"\bits closure\b", "its closing"),
        (r"\bu've\b", "you have"),
        (r"\bu're\b|\bur\b(?= (?:done|in|at|not)\b)", "you are"),
        (  # hedges around a request: "it'd be great if you could maybe …"
            r"^(?:it would|it'd|it will|it'll) be (?:great|nice|good|lovely|awesome|helpful|ideal) "
            r"if,?\s*(?:you (?:could|would|can) |you )?",
            "",
        ),
        (r"\b(?:could|can|would) you (?:please )?make sure(?: that)?\s*", ""),
        (  # "one time or zero times", "once or not at all": at most once
            r"\b(?:(?:one time|once) or (?:zero times|not at all|never|none)|"
            r"(?:zero|0|no) times or (?:one time|once)|(?:zero|0) or (?:one|1) times?)\b",
            "at most once",
        ),
        (  # "you are only allowed in [a] at most once": a count of entries
            r"\b(?:you are |you're )?(?:only )?(?:allowed|permitted) (?:in|into|to (?:go in|"
            r"go into|go to|enter|visit)) (\[[a-z]\]) (?=at most|at least|exactly|once|twice|"
            r"(?:one|two|three|four|five|\d+) times)",
            r"enter \1 ",
        ),
        (r"^(?:i )?(?:reckon|think|guess|suppose) (?:you|u) (?:could|can)\s+", ""),
        (r"\bideally,?\s*(?:you'd |you would |you should )?", ""),
        (r"(?:^|\s*,\s*|\s+)like,\s*|,\s*like\s+(?=\w)", ", "),  # "…, like, indefinitely"
        (r"\btry to keep it to[,\s]*|\bkeep it to[,\s]*", ""),  # "keep it to four visits at most"
        (r",?\s+if (?:that's|that is) (?:ok|okay|alright|fine)\b", ""),
        (r",?\s+(?:there is |there's )?no (?:rush|hurry)\b", ""),  # "…, no rush": no negation
        (  # a term of address or thanks: "…, mate", "…, love, …", "…, there's a love", "…, ta"
            r",\s*(?:mate|love|pet|dear|sweetheart|darling|hun|honey|pal|buddy|ta|cheers|thanks|"
            r"thank you|there(?:'s| is) a (?:love|good lad|good girl)|for me)"
            r"(?=\s*(?:[,.!?;]|$))",
            "",
        ),
        (r",?\s+whenever (?:it )?suits(?: you)?\b", ""),  # "…, whenever suits": no trigger
        (r"\b(?:her|his|my|their|our)\s+(?=\[)", ""),  # "open her [a]": whose is no rule
        (r"\b(?:please )?refrain from\b", "do not"),  # "please refrain from switching on [a]"
        (r"\b(do not|never) be (?=\w+ing\b)", r"\1 "),  # "do not be holding [a]"
        (r"\bforever and ever\b", "forever"),
        (  # "[a], and after that [b]", "[a], and when that's done [b]": a route
            r"(?<!only),?\s*(?:and )?(?<!only )(?:after that|when that(?:'s| is) done|"
            r"once that(?:'s| is) done)"
            r",?\s+(?=(?:(?:go|head|get yourself|get|come|move|walk)(?: to| into)? |visit |"
            r"the )?\[)",
            " and then ",
        ),
        (r"\band (?:then )?later(?: on)?,?\s+(?=\[)", "and then "),  # "[a] and later on [b]"
        (r"\b(?:and )?i mean it\s*[:,!.]\s*", ""),
        (r"\ba (?:couple|few) of (steps|moves|turns)\s*,?\s*say (\w+)", r"\2 \1"),
        (r"\bhold off on\b", "do not"),  # "hold off on turning on [a] until …"
        (r"\buntil after\b", "until"),
        (  # "once you've left [a] don't go back in": not back into [a]
            r"\bonce (?:you|u)(?: have|'ve)? left (\[[a-z]\]),? (do not|don't|never) (go|come|pop) "
            r"back(?: in(?:to (?:it|there))?)?\b",
            r"\2 \3 back into \1",
        ),
        (  # "don't double back into [a] before you get there": the next stop, not [a]
            r"\b(before|until|till) (?:you |u )?(?:get|are|arrive|go) there\b",
            r"\1 reaching the next stop",
        ),
        (r"\bno stop(?:ping)?\b", "never stop"),
        (  # "STEP 1: go to [a] → STEP 2: …"
            r"\bstep (\d+)\s*[:.)]\s*",
            lambda m: "" if m.group(1) == "1" else "then ",
        ),
        (r"^in the future\s*,\s*(?=(?:after|once|when)\b)", ""),
        (r"\bexcept (?=(?:you|the robot|the agent) (?:are|is)\b)", "except when "),
        (r"\bsave (?=when|while|if)\b", "except "),  # "save when present in [a]"
        (  # "the robot is present in [a]", "when present in [a]" (not "[b] is present in [a]")
            r"\b(?:(?:the robot|the agent|you) (?:is|are) |(?<=when )|(?<=while )|(?<=if ))"
            r"present (?=in|at)\b",
            "you are ",
        ),
        (r"\bat any time (?:at which|when|that)\b", "while"),
        (r"\bfrom and after\b", "after"),
        (
            r"\b(?:the robot's|the agent's|your|its) (?:first )?(?:entry|arrival) (?:into|in|at)\b",
            "entering",
        ),
        (r"\bprior to having (\w+)", r"before you have \1"),
        (r"\bprior to\b", "before"),
        (r"\b(?:earlier|sooner) than\b", "before"),
        (r"\b(visit|go to|go into|check|check on|see) both (?=\[[a-z]\],? and \[)", r"\1 "),
        (r"(?:^|(?<=[\s,.;]))(?:um+|uh+|erm+)\b,?\s*", ""),  # a speaker's hesitation
        (
            r"(?<=[\w\]])\s*,?\s*(?:and\s*,?\s*)?upon completion (?:thereof|of (?:that|this|it))"
            r"\s*,\s*",
            ", then ",
        ),
        (r"^provided that\b", "if"),  # a condition first
        (r",?\s*provided that\s+(?=[^.;]*\b(?:not|never|no)\b)", "; "),  # a rule after a route
        (r"\btake possession of\b", "grab"),
        (r"\battend (?=\[)", "visit "),
        (r"\bcause (it|\[[a-z]\]) to be deactivated\b", r"switch \1 off"),
        (r"\bcause (it|\[[a-z]\]) to be activated\b", r"switch \1 on"),
        (
            r"\b(?:de)?activate\b",
            lambda m: "switch off" if m.group().lower().startswith("de") else "switch on",
        ),
        (r"\b(one|two|three|four|five|six|seven|eight|nine|ten) \((\d+)\)", r"\2"),  # "three (3)"
        (r"\s*\((or more|or fewer|or less|at least|at most|max|min|tops)\)", r", \1"),
        (r"\bgo from (\[[a-z]\]) to (\[[a-z]\])", r"go to \1, then to \2"),
        (  # "… and after to [b]", "… and after you go to [b]." (not "after you …, never …")
            r"\band after(?:wards)?,?\s+(?=go |to |\[|you [^,.;]*\[[a-z]\]\s*(?:[.!?]|$))",
            "and then ",
        ),
        (r"\band ([^,.;]*?\[[a-z]\]) after(?:wards)?(?=\s*[?.!,]|$)", r"and then \1"),
        (  # "if [a] not (yet) visited then …": not yet been to [a]
            r"^if (\[[a-z]\]) (?:is |has )?not (?:yet )?(?:been )?(?:visited|entered|reached)"
            r"(?: yet)?\s*(?:,|then)\s*(?:then\s+)?",
            r"if you have not yet been in \1, ",
        ),
        (r"(?<=, )(?:deny|block)\s*:?\s*", "never "),
        (  # "MIN visits -> [a]: 2"
            r"^(min|minimum|max|maximum)(?: visits)?\s*(?:->|:)\s*(\[[a-z]\])\s*:\s*(\d+)$",
            r"\2: \1 \3 visits",
        ),
        (r"\b(?:(?:you are|you're|you have|you've) done|done) (?:in|at) (?=\[)", "been in "),
        (r"\b(you have|you've) done (?=\[)", "you have been in "),
        (  # closing words, one or several: "… ok? thx"
            r"(?:\s*,?\s*\b(?:yeah|dear|ok|okay|got it|please|pls|plz|thanks|thx|ty|lol|k|mister|"
            r"period)\s*[.?!]*)+\s*$",
            "",
        ),
        (
            r",?\s+(?:(?:today|tonight)(?: itself)?|all day|all evening|this (?:evening|morning)|"
            r"overnight|the whole time|all the time|"
            r"during the (?:day|night|evening|run|round|shift)|"
            r"for the (?:rest|remainder) of the (?:task|shift|day|run|job|session))"
            r"(?=\s*[.?!]*\s*$)",
            "",
        ),
        (r"\b(?:deny|block)\s*:\s*", "never "),
        (r"^(?:(?:pls|plz|hey|hi|robot|ok|okay)\s*[,:]?\s+)+", ""),
        (r"^(?:at all times|always)\s*,\s*", ""),  # "at all times, [a] must stay off"
        (r"\s+during the (?:task|mission|job|episode|run|shift|day)\b", ""),
        (r",\s*(?:at any (?:point|time)|at all|under any circumstances)\s*,\s*", " "),
        (_LIST_INTRO.pattern, ""),  # "do not open any of these: [a], [b]"
        (r"\bdo(?: not|n't) you dare\b", "do not"),
        (  # contractions typed without their apostrophe
            r"\b(do|does|is|are|should|must|can|could|would|did)nt\b",
            lambda m: {"can": "cannot"}.get(m.group(1).lower(), f"{m.group(1)} not"),
        ),
        (r"\bouta\b|\boutta\b", "out of"),
        (rf"\blike (?={_NUMBER}\b)", ""),  # "like 2 times max"
        (r"^having (?=\w+ed\b|been\b)", "once you have "),  # "having visited [a], …"
        (r"\bpost-?(?=\[)", "after "),  # "post-[a], no [b]"
        (  # "[a] = no go", "[a] is a no-go zone": a place off limits
            r"^(\[[a-z]\])\s*(?:=|:|is)\s*(?:a |an )?(?:no[- ]go(?: zone| area)?|off[- ]limits|"
            r"out of bounds)[.!]*$",
            r"off limits: \1",
        ),
        (r"\bmaybe\s+|\bkindly\s+", ""),
        (r",?\s+just do it\b", ""),
        (r"\b(?:go|come|try) and (?=\w)", ""),  # "go and get [a]"
        (r"\bthe (?:second|instant|minute) (?=you\b|the agent\b|the robot\b|\[)", "the moment "),
        (  # "[a] first, and once you're done there, [b]": a step after another
            r",?\s+(?:and\s*,?\s+)?(?:once|when|after) you(?: are|'re| have|'ve)? "
            r"(?:done|finished)(?: there| with (?:it|that))?\s*,?\s+",
            ", then ",
        ),
        (r",?\s+if you (?:do not|don't) mind\b", ""),
        (r"\blocation\s*!=\s*(?=\[)", "you are not in "),
        (r"\blocation\s*=\s*(?=\[)", "you are in "),
        # "[a] open = shut next": "=" after a state is an implication (not after a bare thing)
        (r"^(?!\s*\[[a-z]\]\s*=)([^=]*[^!=<>\s])\s*=(?!=)\s*", r"\1 -> "),
        (r"\bx\s?(\d+)\b|\b(\d+)\s?x\b", lambda m: f"{m.group(1) or m.group(2)} times"),
        (r"\b(\d+)\+", r"at least \1"),
        # "after opening [a] you have 2 steps to close it"
        (rf"\byou have ({_NUMBER}) {_STEPS} to (.+?)(?=[.;!]|$)", r"\2 within \1 steps"),
        (  # "you can go into [a], but only twice"
            rf"\b((?:you )?(?:can|may|are allowed to|are permitted to) .+?),? but only "
            rf"({_NUMBER}(?: times?)?)\b",
            r"\1 at most \2",
        ),
        (  # "never leave [a] open for more than 2 steps": closed within 2 steps of opening
            rf"^(?:do not|don't|never|you (?:must|may|should) not) (?:leave|keep|have) (\[[a-z]\]) "
            rf"(open|on) (?:for )?(?:more|longer) than ({_NUMBER}) {_STEPS}[.!]*$",
            lambda m: (
                f"whenever {m.group(1)} is {m.group(2)}, {m.group(1)} must be "
                + ("closed" if m.group(2) == "open" else "off")
                + f" within {m.group(3)} steps"
            ),
        ),
        (  # "[a] may stay open for at most 2 steps"
            rf"^(\[[a-z]\]) (?:may|can|is allowed to) (?:stay|remain|be left|be) (open|on) "
            rf"(?:for )?(?:at most|no more than|up to|not more than) ({_NUMBER}) {_STEPS}[.!]*$",
            lambda m: (
                f"whenever {m.group(1)} is {m.group(2)}, {m.group(1)} must be "
                + ("closed" if m.group(2) == "open" else "off")
                + f" within {m.group(3)} steps"
            ),
        ),
        (  # "drop it before 3 steps pass"
            rf"\bbefore ({_NUMBER}) {_STEPS} (?:pass|have passed|are over|go by|elapse)\b",
            r"within \1 steps",
        ),
        (  # "visiting [a] is required before entering [b]": not [b] until [a]
            r"^(.+?) (?:is|are) (?:required|needed|necessary|mandatory) before (.+?)[.!]*$",
            r"do not \2 until \1",
        ),
        (  # "twice is the absolute max"
            rf"\b({_NUMBER}(?: times?| visits?)?) (?:is|are) (?:the|my|your) (?:absolute )?"
            r"(?:max|maximum|limit|upper limit)\b",
            r"at most \1",
        ),
        # "none of them before the one ahead of it": about every step, and its predecessor
        (_STEPS_REFERENCE.pattern, lambda m: m.group(1) or "its predecessor"),
        (  # "never [b] before it": "it" is no subject of its own clause, but the thing before
            r"(\[[a-z]\])([^\[\].;,]*?\b(?:before|after|until|till)) it\b"
            r"(?=\s*(?:$|[,.;:!?)]|and\b|or\b|but\b))",  # "it" the object, not "it is used"
            _it_is_another_thing,
        ),
        (  # "until you've made it to [b]": an idiom, "it" names nothing
            r"\b(make|made|makes) it (?:to|into)\b",
            lambda m: {"make": "reach", "made": "reached", "makes": "reaches"}[m.group(1).lower()],
        ),
    ]
)
#: Phrases rewritten after the grammar's normalisation, in order.
_NORMALIZED_PHRASES = _phrases(
    [
        (  # "[a]: do not touch": a header naming the thing its verb lacks
            r"^(\[[a-z]\])\s*:\s*((?:do not|never|no)\s+)?(touch|open|enter|visit|grab|pick up|"
            r"use|switch on|turn on|close|shut)\s*[.!]*$",
            r"\2\3 \1",
        ),
        (r"^i do not want you (?:to )?(?=(?:be )?(?:in|go|enter|open|touch|grab)\b)", "never "),
        (  # "[a]: on only in [b]" (a state, not "[a]: open it once")
            r"^(\[[a-z]\])\s*:\s*(?=(?:on|off|open|closed|shut)\b(?!\s+(?:\[|it\b|them\b)))",
            r"\1 ",
        ),
        (r"\b(?:do not|don't|never) forget(?: to)?\b", "remember to"),
        (
            r"\b(do not|never|not) be (\w+?)ing\b",  # "do not be opening [a]"
            lambda m: (
                f"{m.group(1)} {_VERB_BASE.get(m.group(2), m.group(2))}"
                if m.group(2) in _VERB_STEMS
                else m.group()
            ),
        ),
        # "wait in [a]. do not leave until …": one wait
        (
            r"^(?:wait|stay|remain) in (\[[a-z]\])[.;,]? (?:and )?(?:do not|never) leave"
            r"(?: it| there)? (?=until|till)",
            r"stay in \1 ",
        ),
        (r"\b(?:please |kindly )+(?=(?:do not|never|not|no)\b)", ""),  # "…, and please do not"
        (r"\b(?:making sure|make sure|ensuring)(?: that)? you (?=do not\b|never\b)", ""),
        (r"\b(?:please )?try not to\b", "do not"),
        (r"\bset foot (?:in|into|inside)\b", "enter"),
        # legal drafting: "at no time shall the robot …", "it is forbidden that you …"
        (
            r"^(?:at no (?:time|point)|under no circumstances|in no case|on no account),? "
            r"(?:shall|may|should|must|will|can) (?:you|the (?:agent|robot|unit|device)|it)\b",
            "never",
        ),
        (
            r"^it is (?:forbidden|prohibited|not allowed|not permitted) (?:that|for) "
            r"(?:you|the (?:agent|robot|unit|device))(?: to)?\b",
            "never",
        ),
        (
            r"\baccess to (\[[a-z]\]) is (?:only )?(?:permitted|allowed|granted)\b",
            r"you may enter \1",
        ),
        (r"\bunless and until\b", "until"),
        # the end of the run: "before the session ends" is at some point, "until the game
        # ends" for good
        (
            r",?\s*\b(?:until|till|before) the (?:game|session|shift|run|tour|day|mission|episode|"
            r"inspection|evening|night) (?:ends|is over|finishes)\b",
            "",
        ),
        (r"\b(?:make your way|get yourself) (?=to\b)", "go "),
        (r"(?:,\s*(?:and\s+)?|\band\s+)also\s+", " and "),  # "[a], (and) also [b]"
        # an obligation as an instruction: "need go to [a]", "necessary to visit [a]"
        (
            r"(^|[.;,] |\band )(?:(?:it is|it's) )?(?:you )?(?:need(?: to)?|(?:is )?(?:necessary|"
            r"required|mandatory) to) (?=(?:go|visit|enter|get|reach|open|turn|switch|check)\b)",
            r"\1",
        ),
        (ANY_ORDER.pattern, "in any order"),
        (r"^in any order[.;,:]\s+(?:just\s+)?(.*)$", r"\1, in any order"),
        (r"[.;]\s+(?:and )?(the \S+|\[[a-z]\]) (?:as well|too)\b", r" and \1"),
        (r"(?<=\])\s+(?:dear|love|hon|honey|sweetie|mate|pal|buddy)\b(?=[,.;]|\s+and\b|$)", ""),
        (r",\s*after (?=(?:go|visit|head|come|get|walk)\b)", ", then "),  # "[a], after go [b]"
        (  # "[a] first, and once you've been there head on to [b]": the step said again
            r"(\[([a-z])\][^\[\]]*?),?\s+and (?:once|when|after) you have been (?:to |in |at )?"
            r"\[\2\],?\s+",
            r"\1, then ",
        ),
        (  # "i do not care which first"
            rf"{ANY_ORDER.pattern}|"
            r"\b(?:i do not care|it does not matter|(?:it )?does not matter|never mind|"
            r"no matter),? (?:which (?:one )?(?:first|comes first|is first)|(?:about |in )?"
            r"(?:the |what |which )order)",
            "in any order",
        ),
        (r"\bin any order (?:to|for) me\b", "in any order"),
        (  # "its closing": of the thing named before it
            r"\bits (activation|deactivation|opening|closing|switching on|switching off|"
            r"turning on|turning off)\b",
            _its_event,
        ),
        (  # "E1 shall (eventually) be followed by E2": whenever E1, E2
            r"^(.+?)\s+(?:(?:shall|must|should|will|has to|is to|needs to)\s+)?(?:always\s+)?"
            r"(?:(eventually|immediately)\s+)?be\s+(?:(eventually|immediately)\s+)?"
            r"followed by\s+(.+)$",
            lambda m: (
                f"whenever {m.group(1)}, {m.group(4)}"
                + (f" {m.group(2) or m.group(3)}" if m.group(2) or m.group(3) else "")
            ),
        ),
        (  # "never carry [b] into [a]": while holding [b], never enter [a]
            r"^((?:do not|never|you (?:must|may|should|shall) not)) (?:ever )?(?:carry|bring|"
            r"take) (\[[a-z]\]) (?:into|in to|inside)\s+(\[[a-z]\])$",
            r"while you are holding \2, \1 enter \3",
        ),
        (  # "never enter [a] with [b] in your hand"
            r"^((?:do not|never|you (?:must|may|should|shall) not)\b[^\[\]]* \[[a-z]\]),?\s+"
            r"(?:with (\[[a-z]\]) in (?:your |its )?hands?|(?:while )?(?:holding|carrying) "
            r"(\[[a-z]\]))$",
            lambda m: f"while you are holding {m.group(2) or m.group(3)}, {m.group(1)}",
        ),
        (  # "[a], you can enter only after …": the thing said first, its verb without object
            r"^(\[[a-z]\]),?\s+(you|the agent|the robot)\s+((?:(?:can|may|must|should|shall|"
            r"will|are to|do|does)\s+)?(?:(?:not|never|only|ever)\s+)*)(enter|visit|open|close|"
            r"shut|touch|grab|take|use|pick up|switch on|switch off|turn on|turn off|go(?: in| "
            r"into| to)?)(?=[\s,.]|$)(?!\s*(?:\[|it\b|to\b|in\b|into\b|there\b))",
            lambda m: (
                f"{m.group(2)} {m.group(3)}"
                + ("go to" if m.group(4) == "go" else m.group(4))
                + f" {m.group(1)}"
            ),
        ),
    ]
)


def _drop_reason(text: str) -> str:
    """*text* without a closing reason that states no rule: "…, because I'm leaving soon",
    "…, because I want [b] done first" (naming only things the rule names).

    >>> _drop_reason("never enter [a] before [b], since [b] is cleaner")
    'never enter [a] before [b]'
    >>> _drop_reason("close [a] as soon as you open it")
    'close [a] as soon as you open it'
    """
    reason = re.search(
        r",?\s+(?:because|since|so that|(?<!soon )(?<!long )(?<!well )(?<!much )"
        r"as(?! (?:soon|long|well|much|many|often|far)\b))\b[^\[\]]*$",
        text,
    )
    if reason and not _STRONG_REASON.search(reason.group()):
        text = text[: reason.start()]
    reason = re.search(r",\s+(?:because|since|so that)\b[^.;]*[.!]*$", text)
    if (
        reason
        and not _STRONG_REASON.search(reason.group())
        and set(_letters(reason.group())) <= set(_letters(text[: reason.start()]))
    ):
        text = text[: reason.start()]
    return text


def prepare(lifted: str) -> str:
    """*lifted* normalised as the grammar does, with the signs of ``_SIGNS`` as words (arrows
    as ``->``, ``≤`` / ``≥`` as "at most" / "at least", dashes as clause breaks), a numbered
    list as a route ("1) [a] 2) [b]" is "[a], then [b]"), "it" as the agent where the
    sentence names the agent and "it" acts, the fixed phrases of ``_PHRASES`` (before the
    normalisation) and ``_NORMALIZED_PHRASES`` (after it) rewritten, a closing reason that
    states no rule dropped, the politeness around it dropped, the agent in the third person
    as "you" and later steps joined as routes (:func:`_later_steps`).

    >>> prepare("Kitchen-ish: [a] ≤ 2 visits — [b] → [c], please!")
    'kitchen-ish: [a] at most 2 visits; [b] -> [c]'
    >>> prepare("Route: 1) [a] 2) [b].")
    'route: [a], then [b]'
    >>> prepare("The agent shall not open [a] unless it is in [b].")
    'you shall not open [a] unless you are in [b]'
    """
    text = lifted
    for pattern, replacement in _SIGNS:
        text = pattern.sub(replacement, text)
    text = re.sub(r"\bthe system\b", "the agent", text, flags=re.IGNORECASE)
    if re.search(r"\b(?:the agent|the robot)\b", text, re.IGNORECASE):
        text = _AGENT_IT.sub("the agent", text)
    if re.search(r"(?:^|[\s:])\(?1(?:\)|\.\s)", text):
        text = _NUMBERED.sub(lambda m: "" if m.group(1) == "1" else ", then ", text)
    for pattern, rewrite in _PHRASES:
        text = pattern.sub(rewrite, text)
    text = _drop_reason(text)
    text = normalize(text)
    for pattern, rewrite in _NORMALIZED_PHRASES:
        text = pattern.sub(rewrite, text)
    if re.search(r"\bonly\b", text):  # "only in [a] may you open [b], otherwise not"
        text = re.sub(
            r",?\s+(?:and )?(?:otherwise (?:not|never|do not|you may not)|nowhere else|"
            r"never elsewhere|not elsewhere)\b",
            "",
            text,
        )
    topic = re.match(r"^\[([a-z])\],\s+(?=(?:you|when|whenever|if|once)\b[^.;]*\[\1\])", text)
    if topic:  # "[a], you go to [a] twice": the thing said first, then again
        text = text[topic.end() :]
    for pattern, replacement in _CUE_TYPOS:
        text = pattern.sub(replacement, text)
    for pattern, rewrite in _AGENT_YOU:
        text = pattern.sub(rewrite, text)
    return _later_steps(unchat(re.sub(r"\s+", " ", text).strip()))


# -- step 2: cue classes ---------------------------------------------------------------------------

_IN_ORDER = (
    r"(?:in )?(?:exactly |precisely )?(?:that|this|the given|strict)"
    r"(?: exact| precise| very| same)? order"
)
_NEGATION = (
    r"(?:not|never|no|nor|neither|cannot|avoid|forbidden|prohibited|off limits|off-limits|"
    r"stay out|keep out|stays? (?:off|shut|closed)|remains? (?:off|shut|closed)|"
    r"out of bounds|avoidance)"
)

#: Cue classes: name -> the words that signal it (regular expressions over prepared text).
CUES: dict[str, str] = {
    "patrol": r"patrol\w*|repeatedly|over and over|again and again|infinitely often|forever|"
    r"recurring visits|"
    r"continually|continuously|constantly|non-?stop|without end|never stop|loop|rounds|laps|"
    r"indefinitely|endlessly|(?:a)?round the clock|(?:do not|never) (?:ever )?stop|"
    r"keep (?:on )?(?:going|coming|visiting|checking|looking|doing|returning)|"
    r"all the time|circuit|rotate|cycle (?:between|through)|keep it going|"
    r"repeat(?=\s*(?:[.,;!]|$))",
    "wait": r"(?:(?:stay|remain|wait|hold position|hang around|be kept|kept)\b[^\[]{0,20}\b"
    r"(?:in|at|inside|within) \[[a-z]\]|not leave \[[a-z]\]|"
    r"\[[a-z]\] (?:must|should|may|shall) not be left|wait here: \[[a-z]\]|"
    r"^(?:you (?:must |should |have to |need to )?)?(?:keep |continue )?(?:holding|hold|carrying|"
    r"carry)(?: on to| onto)? \[[a-z]\][\s,]+).*\b(?:until|till)",
    "arrow": r"->",
    "bound": rf"within (?:at most )?{_NUMBER} {_STEPS}|{_NUMBER} {_STEPS} or less|"
    rf"(?:no|not) later than (?:{_NUMBER} )?{_STEPS}|(?:no|not) later than {_NUMBER}|"
    rf"in (?:maximum|at most) {_NUMBER} {_STEPS}|"
    rf"(?:no more than|not more than|at most) {_NUMBER} {_STEPS} (?:after|of)",
    "prompt": r"right after|immediately|straight away|right away|next step|very next|"
    r"the moment|next moment|directly after|at once|following step",
    "unless": r"unless|except (?:when|while|if|in)|outside|only (?:in|when|while)|-only|"
    r"anywhere but|anywhere other than|everywhere except|in \[[a-z]\] only|"
    r"only (?:[a-z]+ ){1,4}(?:from|inside|in|when|while)(?= (?:you|\[))",
    "future": r"never again|no longer|anymore|any more|for good|from (?:then|that moment|"
    r"that point) on|in the future|ever again|after that|afterwards",
    "trigger": r"whenever|every time|each time|any time|if|when|once|after|as soon as|upon|"
    r"from the moment|subsequent to|^should|while|^in \[[a-z]\](?=[,:])",
    "precedence": r"until|till|before|only after|not yet|previously|unlocks|prior to|precede",
    "sequence": r"then|after which|thereafter|subsequently|route|stops|waypoints|sequence|"
    r"only (?:after that|afterwards)|"
    rf"\(?1\)|first|{_IN_ORDER}|in order|ordered|strict\w*",
    "count": rf"{_NUMBER} (?:times?|visits?|entries|entry|trips?|occasions)|twice|thrice|"
    rf"exactly|precisely|at most|at least|max|maximum|minimum|tops|no more than|not more than|"
    rf"not fewer than|{_NUMBER} (?:separate |single )?occasions?|more than once|"
    rf"no fewer than|not less than|no less than|exceed|upper bound|lower bound|"
    rf"(?:visits?|entries|counts?):? (?:\[[a-z]\] )?{_NUMBER}",
    "negation": _NEGATION,
    "visit": r"visit|go|reach|check|head|get|fetch|places",
}
_CUE_RE = {name: re.compile(rf"(?<![\w-])(?:{words})(?![\w])") for name, words in CUES.items()}
_CUE_RE["unless"] = re.compile(rf"(?:{CUES['unless']})\b")

#: The order in which cue classes decide the frame: the first class the text holds wins.
PRIORITY = (
    "patrol",
    "wait",
    "arrow",
    "sequence",
    "bound",
    "count",
    "prompt",
    "unless",
    "future",
    "trigger",
    "precedence",
    "negation",
    "visit",
)


# "…, and some time after that, …", "…, thereafter …, and in due course …": a later step.
_LATER_JOINT = re.compile(
    r"(?:\s*[,.;]\s*(?:and\b)?|\s+and\b|\s*,?\s*then\b),?\s*(?:then\s+)?"
    r"(?:(?:some ?time|at some point|at any (?:later )?point|"
    r"in due course|later(?: on)?|afterwards|after (?:that|this)|subsequent(?:ly)?(?: to (?:that|"
    r"this))?|thereafter|after some time|at some later point|whenever)\s*,?\s*)+"
    r"(?:after (?:that|this)\s*,?\s*)?(?![\s,]*after\b)(?=[^,;.]*\[)"
)
# What may not be in a sentence read as a route of later steps: a condition, a negation,
# an order between steps.
_NO_ROUTE = re.compile(
    rf"\b(?:if|when|once|as soon as|every time|each time|until|till|before|unless|while|"
    rf"only|first|{_NEGATION})\b|\b(?:when|whenever|if)\b(?!\s*,)|^should\b"
)


def _later_steps(text: str) -> str:
    """*text* with the joints that make the next step a later one ("…, and some time after
    that, …", "…, thereafter …") as ", then later ", in a sentence of visits with no
    condition, negation or order.

    >>> _later_steps("go to [a], and some time after that, go to [b]")
    'go to [a], then later go to [b]'
    >>> _later_steps("if you open [a], after that close it")
    'if you open [a], after that close it'
    """
    if _NO_ROUTE.search(re.sub(r",\s*whenever\s*,", ",", text)) or len(_letters(text)) < 2:
        return text
    joined = _LATER_JOINT.sub(lambda m: ", then later " if "[" in text[: m.start()] else m.group(),
                              text)  # fmt: skip
    return re.sub(r"\s+(?:also|too|as well)$", "", joined) if joined != text else text


def cue_classes(text: str) -> frozenset[str]:
    """The cue classes of :data:`CUES` that the prepared *text* holds.

    >>> sorted(cue_classes("whenever you open [a], close it within 2 steps"))
    ['bound', 'trigger']
    """
    return frozenset(name for name, pattern in _CUE_RE.items() if pattern.search(text))


# -- literals -------------------------------------------------------------------------------------

_BE = (
    r"(?: (?:must|should|shall|may|can|will|is to|are to|has to|have to|needs to))?"
    r"(?: (?:is|are|be|been|has been|have been|gets?|being|is to be))?"
)
#: Terse and passive clauses the grammar's clause reader does not read:
#: (regular expression, predicate, positive).
TERSE: tuple[tuple[str, str, bool], ...] = (
    (rf"{X}{_BE} (?:on|switched on|turned on)", "is_switchedon", True),
    (rf"{X}{_BE} (?:off|switched off|turned off)", "is_switchedon", False),
    (rf"{X}(?: does| do| will)? (?:goes|go|comes|come) on", "is_switchedon", True),
    (rf"(?:make|set|put|have|leave|keep) {X} (?:on|switched on|turned on)", "is_switchedon", True),
    (rf"{X}{_BE} (?:open|opened|opens)", "is_open", True),
    (rf"{X}{_BE} (?:closed|shut|close|closes)", "is_open", False),
    (rf"{X}{_BE} (?:visited|entered|reached|checked)", "agent_at", True),
    (
        rf"(?:(?:[a-z]+ )?(?:visits?|entry|entries|trips?|arrivals?) (?:to|into|in|of|at) )"
        rf"{X}",
        "agent_at",
        True,
    ),
    (rf"{X}{_BE} (?:picked up|grabbed|taken)", "is_grabbed", True),
    (rf"{X}{_BE} (?:put down|dropped|released|let go(?: of)?)", "is_grabbed", False),
    (rf"(?:have|leave|keep) {X} open", "is_open", True),
    (rf"{X} in (?:your |its |the robot's |the agent's )?hands?", "is_grabbed", True),
    (rf"{X} (?:visits?|trips?|entries|entry)", "agent_at", True),
    (rf"{X} (?:pickup|pick-up|pick up|grab|grabbing)", "is_grabbed", True),
    (
        rf"(?:make your way|check on|look in on|stop in|stopped in|swing by|swung by|drop by|"
        rf"dropped by|pop(?:ped)? into|pop(?:ped)? in to|pop(?:ped)? by|head(?:ed)? (?:into|over "
        rf"to|for)|(?:take|took|make|made)(?: a)? trips? (?:to|into))"
        rf"(?: to| at| in)? {X}",
        "agent_at",
        True,
    ),
    (rf"(?:agent_at|is_open|is_switchedon|is_grabbed|is_touched)\({X}\)", "", True),
    (
        rf"(?:each |every |any )?(?:activation|switching on|turning on) of {X}",
        "is_switchedon",
        True,
    ),
    (
        rf"(?:each |every |any )?(?:deactivation|switching off|turning off) of {X}",
        "is_switchedon",
        False,
    ),
    (rf"(?:each |every |any )?opening of {X}", "is_open", True),
    (rf"(?:each |every |any )?closing of {X}", "is_open", False),
)
_TERSE = [(re.compile(p), predicate, positive) for p, predicate, positive in TERSE]
_FILLER = re.compile(
    r"^(?:(?:the agent|the robot|you|it|i want|so|first thing|first|then|and|also|next|could you|"
    r"can you|would you|"
    r"later|finally|at some point|after that|get yourself)\s*,?\s+)+|"
    r"(?:\s*,?\s+(?:at some point|after that|later|first|second|each|both|too|"
    r"as well|during the round|in any order|during the run|afterwards|again))+$"
)


def _clause(text: str) -> Clause | None:
    """One clause read as a literal over its placeholder(s), or None.

    >>> str(_clause("[a] on").literal), str(_clause("visits to [b]").literal)
    ('"is_switchedon(a)"', '"agent_at(b)"')
    >>> _clause("[a] juggled") is None
    True
    """
    text = re.sub(r"\s+", " ", text).strip(" ,;:")
    for candidate in dict.fromkeys([text, _FILLER.sub("", text).strip(" ,;:")]):
        found = read_clause(candidate)
        if found is not None:
            return found
        for pattern, predicate, positive in _TERSE:
            m = pattern.fullmatch(candidate)
            if m:
                name = predicate or candidate.split("(")[0]
                atom = ap(f"{name}({m.group(1)})")
                return Clause(atom if positive else Not(atom), False, (m.group(1),))
    return None


def _letters(text: str) -> list[str]:
    return list(dict.fromkeys(_LETTER.findall(text)))


_LIST_SPLIT = re.compile(r"\s*(?:,|;|:)\s*(?:and |or |then )?|\s+(?:and|or|nor|as well as)\s+")


def _items(text: str, like: Clause | None = None) -> list[Formula]:
    """One literal per placeholder of a list ("[a], [b] and [c]", "open [a], switch on [b]"):
    each piece read by :func:`_clause`; a bare placeholder borrows the predicate of the
    nearest piece with a verb (else *like*'s, else agent_at).

    Raises
    ------
    _Refusal
        If a piece is unreadable or names no single placeholder.
    """
    pieces = [p for p in _LIST_SPLIT.split(text.strip(" ,;:")) if p.strip(" ,;:")]
    clauses: list[Clause] = []
    for piece in pieces:
        c = _clause(piece)
        if c is None or c.avoid or (len(c.letters) != 1 and c.literal is None):
            raise _Refusal(f"cannot read {piece!r}")
        clauses.append(c)
    out = []
    for i, c in enumerate(clauses):
        near = [d for d in clauses[i::-1] + clauses[i:] if d.literal is not None]
        out.append(lit(c, near[0] if near else like))
    return out


# -- the frames ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Reading:
    pattern: str
    items: tuple[tuple, ...]
    form: str


def _split_header(text: str) -> tuple[str, str]:
    """("header", "body") of "header: body", else ("", text)."""
    m = re.match(r"^([^:\[\]]*(?:\[[a-z]\][^:\[\]]*)?):\s+(.+)$", text)
    return (m.group(1).strip(), m.group(2).strip()) if m else ("", text)


def _clauses(text: str) -> list[str]:
    """The clauses of *text*: split at sentence breaks, semicolons and parentheses (not the
    parentheses of a predicate, "agent_at([a])").

    >>> _clauses("visit [a] (then [b]); is_open([c]) only when agent_at([a])")
    ['visit [a]', 'then [b]', 'is_open([c]) only when agent_at([a])']
    """
    return [
        c.strip(" ,")
        for c in re.split(r"\s*(?:[.;!?]+(?:\s+|$)|(?<!\w)\(|(?<!\w\(\[[a-z]\])\))\s*", text)
        if c.strip(" ,")
    ]


_REMARK_OK = re.compile(
    r"^(?:ok|okay|please|thanks|thank you|got it|yeah|dear|that is the job|all shift|"
    r"while i am out|no detours|no dawdling|no delay|no waiting|no wandering|tops|weak next|"
    r"in any order|not negotiable|non-negotiable|no exceptions|no excuses|no matter what|"
    r"i mean (?:it|\[[a-z]\])|that is (?:it|\[[a-z]\])|thats (?:it|\[[a-z]\])|seriously|all day|"
    r"sorry(?: if [a-z' ]+)?|not sure (?:if|whether) [a-z' ]+|(?:i )?hope (?:this|that) [a-z' ]+|"
    r"(?:if|does) that makes? sense|"
    r"(?:never|not|no)(?: ever)?|ever|never ever|i am not (?:saying|telling you)"
    r"(?: it| this| that| \[[a-z]\])? again|"
    r"all night|savvy|arr|matey|mate|buddy|pal|dude|lol|cheers|thx|ta|mind|there is a love|"
    r"(?:will|would|can|could)(?: not)? you|yeah|right|one after (?:the )?other|one by one|"
    r"in turn|i am (?:counting|watching|checking)|"
    r"that is (?:literally |really |just )?all"
    r"(?: i (?:need|want|ask)(?: from (?:it|\[[a-z]\]|you))?)?|"
    r"[a-z -]*(?:avoidance|visit|response|sequence|route|stops|waypoints|limits|precedence|"
    r"loop|rounds|patrol route|order matters))$"
)
#: Words that make a clause a rule rather than a remark: a negation, a condition, a count, a
#: timing (:data:`_STRONG_REASON`, which a reason clause may not hold), or an order.
_STRONG_REASON = re.compile(
    rf"\b(?:{_NEGATION}|only|unless|except|until|till|before|after|if|when|while|once|twice|"
    r"times?|\d+|exactly|at most|at least|within|steps?|again|then)\b"
)
_STRONG = re.compile(
    rf"{_STRONG_REASON.pattern}|\b(?:order\w*|first|last|skip\w*|back|repeat\w*|revisit\w*|"
    r"strict\w*)\b"
)


#: A remark that describes the world rather than asks for anything ("pt can't see", "the cat
#: will get out"): a third party's present or future, no obligation, no passive, no thing.
_DESCRIPTION = re.compile(
    r"^(?!(?:you|i|we|the agent|the robot|it|nothing|nobody|no one|none|everything|anything|"
    r"everyone|all|every|each|any|there)\b)(?:(?:the|my|our|her|his|their|your|a) )?"
    r"(?:[a-z]+'s|[a-z']+ (?:is|are|was|were|will|would|can|cannot|could|gets?|got|has|have|"
    r"had|hates?|likes?|loves?|sleeps?|is sleeping|is asleep))\b"
    r"(?!.*\b(?:be|been|must|should|shall|may|allowed|permitted|ok to|okay to|only)\b)[^\[\]]*$"
)


#: A description of a thing named before it, in no state a rule speaks of.
_ABOUT_THING = re.compile(
    r"\[([a-z])\] (?:is|are|was|gets?|seems?) (?!(?:not |never |still )?(?:on|off|open|opened|"
    r"closed|shut|switched|turned|in|at|inside|left|kept|to|allowed|permitted|locked|there|"
    r"here|used|touched|grabbed|held)\b)[a-z]+\b(?!.*\[)"
)


def _drop_remarks(text: str, keep: re.Pattern[str] | None = None) -> str:
    """*text* without the harmless remarks after its last comma ("…, no dawdling", "…, ok"),
    except one that *keep* finds.

    >>> _drop_remarks("close [a] right away, no dawdling, ok")
    'close [a] right away'
    """
    while True:
        head, comma, tail = text.rpartition(",")
        tail = tail.strip()
        about = _ABOUT_THING.match(tail)  # "[a] is leaking", "[a] is dangerous near water"
        if (
            not comma
            or (keep and keep.search(tail))
            or not (
                _REMARK_OK.fullmatch(tail)
                or _DESCRIPTION.fullmatch(tail)
                or (about and f"[{about.group(1)}]" in head and not _STRONG.search(tail))
            )
        ):
            return text
        text = head.rstrip()


def _unexplained(remarks: list[str]) -> str | None:
    """The first remark that a reading cannot leave out: one naming a placeholder, or one
    holding a cue word (a negation, a count, a timing); None if all are harmless."""
    for r in remarks:
        r = r.strip(" ,;:")
        if not r or _REMARK_OK.fullmatch(r) or _DESCRIPTION.fullmatch(r):
            continue
        if _LETTER.search(r) or _STRONG.search(r):
            return r
    return None


def _result(reading: _Reading) -> LiftedTranslation:
    parts = tuple(
        no_double_negation(build_pattern(reading.pattern, *args)) for args in reading.items
    )
    formula = parts[0] if len(parts) == 1 else And(*parts)
    args = reading.items[0] if len(reading.items) == 1 else ()
    return LiftedTranslation(
        formula, reading.pattern, args, f"frames: {reading.form}", parts if len(parts) > 1 else ()
    )


# patrolling ---------------------------------------------------------------------------------------

_PATROL_WORDS = re.compile(
    r"\b(?:(?:just )?keep (?:on )?(?:patrol|going back and forth between|going back to|"
    r"coming back to|"
    r"going to|visiting|checking on|checking|looking in on|doing laps of|doing rounds of|"
    r"patrolling|returning to)|continually patrol|patrol route|patrol|surveil|loop between|loop|"
    r"rounds(?: of)?|(?:go|walk|move) back and forth between|"
    r"go many times around|always you go again to|always|"
    r"(?:keep|kept) (?:on )?circling(?: through| around| between)?|circling (?:through|around|"
    r"between)|visit|check(?: on| in on)?|look in on|go to|"
    r"(?:should|shall|is to|must) "
    r"(?:each )?be (?:visited|checked|revisited)|each one is revisited|repeat forever|"
    r"repeatedly|over and over(?: again)?|again and again|infinitely often|forever|"
    r"without end|never stop|do not stop|without stopping|continuously|constantly|non-?stop|"
    r"many times|all shift|indefinitely|endlessly|all (?:day|night)(?: long)?|"
    r"(?:repeat )?(?:until|till) (?:you are )?(?:told|asked) (?:to stop|otherwise)|"
    r"(?:for )?as long as you are (?:running|on|switched on|working)|"
    r"(?:until|till) (?:the )?end of (?:the )?(?:run|day|shift|session)|"
    r"(?:until|till) (?:i am|we are) (?:home|back)|"
    r"(?:until|till) you are (?:switched|turned) off|(?:for )?the whole time|all the time|"
    r"do the rounds of|revisit|(?:perform|make|pay) recurring visits to|recurring visits to|"
    r"(?:like )?every (?:few|couple of|\d+|two|five|ten) (?:minutes|hours)|"
    r"throughout the [a-z]+(?: period)?|for the rest of the [a-z]+|"
    r"no matter what(?: else)?(?: you are doing)?|"
    r"(?:a)?round the clock|keep (?:on )?going (?:a)?round|(?:go|going) (?:a)?round|"
    r"(?:continuous )?circuit(?: of| through| between)?|rotate(?: through| between)?|"
    r"cycle (?:between|through)|keep it going|repeat|until further notice|"
    r"(?:do not|never) stop (?:scanning|looping|circling|going)|"
    r"(?:do not|never) (?:ever )?stop (?:checking(?: on)?|visiting|going to|patrolling))\b"
)


def _frame_patrol(text: str) -> _Reading:
    """Patrolling: "keep checking on [a]", "Loop: [a], [b]", "[a] and [b], over and over".

    >>> [str(p) for (p,) in _frame_patrol("loop: [a], [b]").items]
    ['"agent_at(a)"', '"agent_at(b)"']
    """
    header, body = _split_header(text)
    if header and not _LETTER.search(header) and not _unexplained([header]):
        text = body  # "Circuit: [a], [b]": a label
    clauses = _clauses(text)
    named = [c for c in clauses if _LETTER.search(c)]
    loose = [c for c in clauses if not _LETTER.search(c) and not _PATROL_WORDS.fullmatch(c)]
    if _unexplained([c for c in loose if not re.search(r"\bthe job|while i am out", c)]):
        raise _Refusal("a remark beside the patrol")
    text = ", ".join(named)
    text = re.sub(r"\s*,\s*(?:that is the job|while i am out)$|\s+while i am out$", "", text)
    letters = _letters(text)
    rest = _PATROL_WORDS.sub(" ", text)
    rest = re.sub(r"\b(?:the agent|the robot|you|shall|should|and|the|each|,|:)\b", " ", rest)
    rest = re.sub(r"[\s,:;.]+", " ", rest).strip()
    kept_on = r"\b(?:never|do not) (?:ever )?stop\b|\bno matter what\b"
    if re.search(rf"\b{_NEGATION}\b", re.sub(kept_on, "", text)):
        raise _Refusal("a negation beside a patrol")
    left = _LETTER.sub("", rest).strip()
    if left or not letters:
        raise _Refusal(f"words left unread: {left!r}")
    return _Reading("patrolling", tuple((ap(f"agent_at({x})"),) for x in letters), "patrol")


# waiting ------------------------------------------------------------------------------------------

_STAY = re.compile(
    rf"^(?:wait: )?(?:(?:you|the agent|the robot|maybe|just|please) )*"
    rf"(?:(?:must|should|shall|is to) )?"
    rf"(?:(?:stay|remain|wait|hold position|hang around|be kept|wait here)(?: put| right there)?"
    rf"(?: in| at| inside| within)?|not leave|do not leave) {X}(?: so long)?"
    rf"|^{X} (?:must|should|may|shall) not be left"
)


def _frame_wait(text: str) -> _Reading:
    """Wait: "stay in [a] until C", "do not leave [a] till C", "[a] must not be left until C"."""
    m = re.fullmatch(r"(.+?)[\s,:]+(?:until|till)[\s:]+(.+?)(?:, then you can go)?", text)
    if not m:
        raise _Refusal("no until")
    stay = _STAY.fullmatch(m.group(1).strip(" ,:"))
    held = _HOLD.fullmatch(m.group(1).strip(" ,:"))
    if not (stay or held):
        raise _Refusal(f"cannot read {m.group(1)!r} as a place to stay")
    event = _clause(re.sub(r"^such time as ", "", m.group(2)))
    if event is None or event.literal is None or event.avoid:
        raise _Refusal(f"cannot read {m.group(2)!r}")
    if held is not None:  # "keep holding [a] until C"
        thing = ap(f"is_grabbed({held.group(1)})")
        return _Reading("wait", ((thing, event.literal),), "hold [a] until C")
    assert stay is not None
    place = stay.group(1) or stay.group(2)
    return _Reading("wait", ((ap(f"agent_at({place})"), event.literal),), "stay in [a] until C")


# Holding as a wait: "keep holding [a]", "hold on to [a]", "carry [a]".
_HOLD = re.compile(
    rf"(?:you (?:must |should |have to |need to )?)?(?:keep |continue )?(?:holding|hold|carrying|"
    rf"carry)(?: on to| onto)? {X}"
)


# sequences --------------------------------------------------------------------------------------

_STEP_SPLIT = re.compile(
    r"\s*(?:,\s*)?(?:\band\s+)?(?:(?:then|after that|thereafter|afterwards|subsequently|"
    r"after which|followed by|finally)\b|->)\s*,?\s*|\s*,\s*|\s+and\s+"
)
_ORDER_REMARK = re.compile(
    rf"\b(?:{_IN_ORDER}|in order|order matters|ordered|skip\w*|early|"
    r"order of first arrivals|before an earlier|before the room before|not first|first|"
    r"not the other way (?:a)?round|not (?:in )?(?:the )?reverse)\b"
)
_STRICT_REMARK = re.compile(
    r"\b(?:strict\w*|re-?enter\w*|re-?entr(?:y|ies)|revisit\w*|come back|go(?:ing)? back|"
    r"double back|"
    r"(?:wander|walk|head|sneak|step|turn)(?:ing|s)? back|"
    r"pop back|return\w*|again|second time|only (?:one time|once)|(?:one time|once) only|"
    r"once before|in between|on the way|"
    r"back-and-forth|backtrack\w*|repeat\w*|twice|more than once|(?:just|only|exactly) once|"
    r"(?:one|a single) (?:trip|visit|entry))\b"
)
_ORDER_WORDS = re.compile(
    r"\b(?:before|until|till|first|early|precede|only after|yet|ahead of|prior to)\b"
)


_ROUTE_HEADER = re.compile(r"\b(?:route|stops|waypoints|sequence|visit)\b")
_ORDER_GENERAL = re.compile(rf"\b(?:{_IN_ORDER}|in order|ordered|order matters)\b")


def _kinds(text: str) -> set[str]:
    """The kinds "order" and "strict" when a clause without things says so ("in that order", "strict
    order", "each place entered only once before the next one")."""
    out = set()
    if _STRICT_REMARK.search(text):
        out.add("strict")
    if _ORDER_GENERAL.search(text) or _ORDER_REMARK.search(text):
        out.add("order")
    return out


_ONCE = re.compile(
    r"\s+(?:(?:only|just|exactly|but) )?(?:once|a single time|one (?:single )?time|(?:1|one) times)"
    r"(?: only)?$"
)


def _route(text: str) -> tuple[list[Formula], set[str], set[int]]:
    """The steps of a route, in order ("[a], then [b]", "[a] -> [b]"), the kinds of order
    its header and trailing words state, and the steps said to be entered once before the
    next ("[a] once, then [b]": strictly ordered)."""
    text = re.sub(r"^(?:first(?:ly)?|start by|begin by|so|do(?= \[)|kindly|proceed(?: to)?|"
                  r"sequence)\s*,?\s+", "", text)  # fmt: skip
    header, body = _split_header(text)
    kinds: set[str] = set()
    if header and _letters(header):
        body = text  # "visit [a]: …" is not a header
    elif header:
        kinds = _kinds(header)
        if not kinds and not _ROUTE_HEADER.search(header) and _unexplained([header]):
            raise _Refusal(f"cannot read the header {header!r}")
    tail = re.compile(rf"\s*,?\s*(?:{_IN_ORDER}|in order|strict(?:ly)?|strict order)\s*$")
    head = re.compile(r"^(?:in strict order|in order|strict order)\s*,?\s*")
    for pattern in (tail, head):
        found = pattern.search(body)
        if found:
            kinds |= _kinds(found.group()) | ({"order"} if "order" in found.group() else set())
            body = pattern.sub("", body)
    only_then = re.search(r"\bonly (?:after that|afterwards|then|thereafter)\b", body)
    if only_then:  # "[a], and only after that, [b]": [b] waits for [a]
        kinds.add("order")
        body = body[: only_then.start()] + "then" + body[only_then.end() :]
    pieces = [p for p in _STEP_SPLIT.split(body) if p and p.strip(" ,")]
    for loose in (p for p in pieces if not _LETTER.search(p)):  # "…, in this order, …"
        if re.search(r"\bnot\b[^,]*\border\b", loose):
            raise _Refusal(f"cannot read {loose!r}")
        kinds |= _kinds(loose)
        if not _kinds(loose) and _unexplained([loose]):
            raise _Refusal(f"cannot explain {loose!r}")
    pieces = [p for p in pieces if _LETTER.search(p)]
    if not 2 <= len(pieces) <= 5:
        raise _Refusal("a route needs two to five steps")
    if any(re.search(r"\b(?:may|can|could|might|allowed|permitted)\b", p) for p in pieces):
        raise _Refusal("a permission is no step of a route")
    if only_then and len(pieces) != 2:
        raise _Refusal("'only then' orders one pair of a longer route")
    once = set()
    for i, piece in enumerate(pieces):
        found = _ONCE.search(piece)
        if found:
            if i == len(pieces) - 1:
                raise _Refusal("'once' on the last step of a route")
            once.add(i)
            pieces[i] = piece[: found.start()]
    return _items(", ".join(pieces)), kinds, once


_NEGATED = re.compile(r"\b(?:not|never|no|none|cannot|without)\b")


def _constraint(clause: str, steps: list[str]) -> tuple[str, int] | None:
    """("order", i) when *clause* says step i+1 may not come before step i; ("strict", i)
    when it says step i may not be re-entered before step i+1 (i = -1: every step); None
    for neither.

    Raises
    ------
    _Refusal
        If it names steps that are not consecutive, or in the wrong roles.
    """
    strict = _STRICT_REMARK.search(clause) is not None
    order = _ORDER_WORDS.search(clause) is not None or _ORDER_REMARK.search(clause) is not None
    if not (strict or order):
        return None
    letters = _letters(clause)
    if any(x not in steps for x in letters):
        raise _Refusal(f"{clause!r} names a thing that is not a step")
    cut = re.search(
        r"\b(?:before|until|till|precede|only after|in between|on the way to|first|ahead of|"
        r"prior to)\b",
        clause,
    )
    subject = _letters(clause[: cut.start()]) if cut else letters
    reference = _letters(clause[cut.end() :]) if cut else []
    if not subject and reference and cut and cut.group() != "first":
        subject, reference = reference, []
    if len(subject) > 1 or len(reference) > 1:
        raise _Refusal(f"{clause!r} names too many things")
    kind = "strict" if strict else "order"
    if not subject:
        return (kind, -1)  # about every step
    i = steps.index(subject[0])
    if (
        kind == "order"
        and cut is not None
        and cut.group() == "first"
        and not _NEGATED.search(clause)
    ):
        kind, i = "order", i + 1  # "[a] has to come first": the next step waits for it
    if (
        kind == "order"
        and reference
        and i + 1 < len(steps)
        and reference[0] == steps[i + 1]
        and _NEGATED.search(clause)
    ):
        kind = "strict"  # "no [a] visit before [b]" on the route [a], [b]: not again before [b]
    if kind == "order":
        if i == 0 or i >= len(steps) or (reference and reference[0] != steps[i - 1]):
            raise _Refusal(f"{clause!r} does not match the order of the steps")
        return (kind, i - 1)
    if i == len(steps) - 1 or (reference and reference[0] != steps[i + 1]):
        raise _Refusal(f"{clause!r} does not match the order of the steps")
    return (kind, i)


_CONSTRAINT_SPLIT = re.compile(
    r"\s*[,:]\s*(?:and |but )?(?=(?:do not|never|not|no|none|shall not|"
    r"\[[a-z]\] (?:first|not|never|only|may|must|should|shall|is not|has to)|don't|"
    r"respecting|in order|strict|each place|"
    r"entering|visiting|re-?entering|returning|going back|"
    r"and do not|once you))|\s+but\s+(?=do not|never|not|no\b|\[[a-z]\])|\s*,\s*and\s+"
    r"(?=do not|shall|\[[a-z]\] (?:is|may|must|shall))|\s+and\s+(?=do not|never|no\b|not\b)|"
    r"\s*,?\s+(?:and\s+)?(?=without\b|with no\b|with \[[a-z]\] (?:not|never)\b)|"
    r"(?<=\])\s+(?=do not (?:go|enter|visit|return|come|step|set)\b)|"  # a run-on sentence
    r"\s+or\s+(?=(?:wander|walk|head|sneak|step|turn|go|come|double|return|pop)\w* back\b)|"
    r"(?<=\])\s*:\s*(?=[^:]*\b(?:before|until|till|first|once|again|back)\b)|"
    r"\s*,\s*(?=\[[a-z]\] (?:a )?(?:second time|again|twice|another time)\b)"  # "[a] again"
)


def _sequence_clauses(text: str) -> list[str]:
    """The clauses of a sequence: a clause that begins with "then" / "thereafter" continues
    the one before it; a clause is split before each clause about the order."""
    joined: list[str] = []
    for c in _clauses(text):
        if joined and re.match(r"(?:and )?(?:then|thereafter|after that|afterwards)\b", c):
            joined[-1] += ", " + c
        else:
            joined.append(c)
    out = []
    for c in joined:
        out += [p.strip(" ,") for p in _CONSTRAINT_SPLIT.split(c) if p and p.strip(" ,")]
    return out


def _frame_sequence(text: str) -> _Reading:
    """Sequenced, ordered and strictly ordered visits, stated in one clause or several: a
    route (the first clause naming two or more things), then clauses that each say a step
    may not come early (ordered) or may not be re-entered before the next (strictly
    ordered). An order must hold for every pair of consecutive steps, or none.

    >>> _frame_sequence("[a], then [b]. [b] not before [a]").pattern
    'ordered_visit'
    >>> _frame_sequence("[a] -> [b], in order, no [a] visit in between").pattern
    'strictly_ordered_visit'
    """
    if ANY_ORDER.search(text):
        raise _Refusal("a route in any order")
    clauses = _sequence_clauses(text)
    route_at = next((i for i, c in enumerate(clauses) if len(_letters(c)) >= 2), None)
    if route_at is None:
        raise _Refusal("no route")
    route = clauses[route_at]
    lits, kinds, once = _route(route)
    things = [re.findall(r"[(,](\w)(?=[,)])", str(f)) for f in lits]
    if any(len(t) != 1 for t in things):
        raise _Refusal("a step about two things")
    steps = [t[0] for t in things]
    if len(set(steps)) != len(steps) or set(steps) != set(_letters(text)):
        raise _Refusal("the route does not name every thing once")
    pairs = len(steps) - 1
    ordered: set[int] = set(range(pairs)) if "order" in kinds else set()
    strict: set[int] = set(range(pairs)) if "strict" in kinds else once
    for clause in clauses[:route_at] + clauses[route_at + 1 :]:
        header, body = _split_header(clause)
        if header and not _letters(header) and not _letters(body):
            clause = f"{header} {body}"
        found = _constraint(clause, steps)
        if found is None:
            if _unexplained([clause]):
                raise _Refusal(f"cannot explain {clause!r}")
            continue
        kind, i = found
        chosen = strict if kind == "strict" else ordered
        chosen.update(range(pairs) if i < 0 else {i})
    if (strict and len(strict) < pairs) or (ordered and len(ordered) < pairs):
        raise _Refusal("an order stated for some steps only")
    name = "strictly_ordered_visit" if strict else "ordered_visit" if ordered else "sequenced_visit"
    return _Reading(name, (tuple(lits),), name.replace("_", " "))


def _is_multi_route(text: str) -> bool:
    """Whether *text* is a route of two or more things followed by clauses about its order
    ("visit [a] and [b], [b] never before [a]")."""
    clauses = _sequence_clauses(text)
    # a step entered once and the step after it are no condition: "[a] only one time, after
    # that [b]"
    first = re.sub(r"\b(?:only (?:one time|once)|(?:one time|once) only|after that)\b", "",
                   clauses[0]) if clauses else ""  # fmt: skip
    return (
        len(clauses) >= 2
        and len(_letters(first)) >= 2
        and not _NEGATED.search(first)
        and not re.search(r"\b(?:before|until|till|only|after|if|when|once)\b", first)
    )


def _is_route(text: str) -> bool:
    """Whether *text* holds a route of two or more things (for the sequence cue)."""
    clauses = _sequence_clauses(text)
    return (
        bool(clauses)
        and any(len(_letters(c)) >= 2 for c in clauses)
        and not re.match(
            r"^(?:if|when|whenever|every time|each time|once|after|as soon as|right after|"
            r"immediately after|the moment|upon)\b",
            text,
        )
    )


# counts -------------------------------------------------------------------------------------------

_UPPER = (
    r"at most|at the most|max|maximum|tops|no more than|not more than|up to|"
    r"upper bound(?: of)?|or fewer|or less|(?:shall |must )?not (?:to )?exceed"
)
_LOWER = (
    r"at least|minimum|min|no fewer than|not fewer than|no less than|not less than|"
    r"lower bound(?: of)?|or more"
)
_EXACT = r"exactly|exact|precisely|and only once|just the one|only one time"
# A count statement's opening negation: "not more than 3" then bounds from above.
_COUNT_NEGATED = re.compile(
    r"^\s*(?:do not|never|not|no|(?:please )?try not to|"
    r"(?:you |one |the agent |the robot )?(?:may|must|should|shall) not)\b"
)
_QUALIFIER = re.compile(rf"\b(?:{_UPPER}|{_LOWER}|{_EXACT}|more than)\b")
_UNIT = r"(?:single |separate )?(?:times?|visits?|entries|entry|trips?|occasions?)"
# After a number: "…, no more and no less" is exact, "…, not more" an upper bound.
_EXACT_AFTER = r"(?:not|no) more,? (?:and|nor|or)? ?(?:not |no )?(?:less|fewer)|no more no less"
_UPPER_AFTER = r"(?:not|no) more"
_SPEC = re.compile(
    rf"(?:\b(?P<before>{_UPPER}|{_LOWER}|{_EXACT}|more than)\s+(?:of\s+)?)?"
    rf"(?<!\[)\b(?P<n>{_NUMBER}|the one)\b(?!\])(?:\s+{_UNIT})?"
    rf"(?:,?\s+(?P<after>{_EXACT_AFTER}|{_UPPER_AFTER}|{_UPPER}|{_LOWER}|{_EXACT}|each)\b)?"
)


def _specs(text: str, header: str) -> set[tuple[str, int]]:
    """The (pattern, n) of every qualified count in *text* ("at most 3 visits", "twice,
    tops"; a qualifier in *header* applies to a bare number). A bare number beside a
    qualified one must agree with it; "not once" and the like are left out."""
    negated = _COUNT_NEGATED.match(text) is not None
    qualified, bare = set(), set()
    closing = re.search(rf"(?:\s*,\s*|(?<=\])\s+)({_UPPER}|{_LOWER}|{_EXACT})\s*$", text)
    if closing:  # "two [a] visits, max", "2 visits to [a] at most": it closes the statement
        text, header = text[: closing.start()], f"{header} {closing.group(1)}"
    for m in _SPEC.finditer(text):
        n = count_value(_count_word(m.group("n")))
        words = [w for w in (m.group("before"), m.group("after")) if w and w != "each"]
        if not words and re.search(r"\bnot\s*$", text[: m.start()]):
            continue
        words = words or _QUALIFIER.findall(header)
        if not words:
            bare.add(n)
            continue
        kind, shift = _kind(words, negated)
        qualified.add((kind, n + shift))
    if len(qualified) != 1:
        raise _Refusal("no single bound" if qualified else "a number without a bound")
    kind, n = next(iter(qualified))
    if bare - {n, n - 1 if kind == "at_least" else n}:
        raise _Refusal("two different numbers")
    return qualified


def _kind(qualifiers: list[str], negated: bool) -> tuple[str, int]:
    """(pattern, shift of n) for the qualifier words of one count."""
    kinds = set()
    for q in qualifiers:
        if re.fullmatch(_EXACT_AFTER, q):
            kinds.add(("exactly", 0))
        elif re.fullmatch(f"{_UPPER}|{_UPPER_AFTER}", q):
            kinds.add(("at_most", 0))
        elif re.fullmatch(_LOWER, q):
            kinds.add(("at_least", 0))
        elif q == "more than":
            kinds.add(("at_most", 0) if negated else ("at_least", 1))
        else:
            kinds.add(("exactly", 0))
    if len(kinds) != 1:
        raise _Refusal("two bounds in one count")
    return kinds.pop()


def _counted(text: str) -> list[Formula]:
    """The literals a count statement counts, once its numbers and qualifiers are gone: one
    thing ("visit [a]", "entries into [a]") or a list ("go into [a] and [b]")."""
    if re.search(r"\beach\b", text):  # "[a] or [b] more than twice each": each on its own
        text = re.sub(r"(?<=\]),? or (?=\[)", " and ", text)
    rest = _SPEC.sub(" ", text)
    rest = _QUALIFIER.sub(" ", rest)
    rest = _COUNT_NEGATED.sub(" ", rest)
    rest = re.sub(
        r"\b(?:each|so|only|the number of|are required|is required|required)\b", " ", rest
    )
    rest = re.sub(r"\s+", " ", rest).strip(" ,:;")
    rest = re.sub(r"^(?:is (?:it )?possible|would it be possible) (?:for you )?to ", "", rest)
    rest = re.sub(r"^(?:a|an) (?=(?:to|into|in) \[)", "", rest)  # "a minimum of 2 visits to [a]"
    rest = re.sub(r"\b(enter|and|or) (?:to|into) (?=\[)", r"\1 ", rest)  # "enter to [a]"
    # what a place gets: "[a] gets 2 visits", "[a] and [b] each need 2 visits", "[a] 3 times go"
    rest = re.sub(
        r"^(?:make sure |ensure )?((?:\[[a-z]\](?:,? (?:and )?)?)+) (?:gets?|needs?|receives?|"
        r"go|come|visit|enter)(?: from you)?$",
        r"\1",
        rest,
    )
    rest = re.sub(r"^keep (?:on )?(open|visit|enter|check|go|grab|touch)ing\b", r"\1", rest)
    rest = re.sub(r"^(?:make|take|pay) (?=(?:to|into) \[)", "go ", rest)  # "make 2 trips to [a]"
    rest = re.sub(  # "open [a] on 2 occasions", not "switch [a] on twice"
        r"(?<!switch \[[a-z]\])(?<!turn \[[a-z]\])\s+(?:on|in|shall be|is|are|be|of)$", "", rest
    )
    rest = re.sub(r"^(?:visits?|entries|entry|trips?) (?=\[)", "", rest)
    rest = re.sub(r"^(?:you )?go (?:in |into )?(?=\[)", "go to ", rest)
    rest = re.sub(r"^(?:cannot|can|could|would|will) you (?:please )?", "", rest)  # a request
    rest = re.sub(r"^(?:you |one |the agent )?(?:can|may|should|must|shall|need to) ", "", rest)
    rest = re.sub(r"^(?:in|into|to) (?=\[[a-z]\]$)", "", rest)
    rest = re.sub(r"^(?:visits?|entries|entry|trips?) (?:to|into|in|of) (?=\[)", "", rest)
    if len(_letters(rest)) > 1:
        return _items(rest)
    c = _clause(rest)
    if c is None or c.avoid or len(c.letters) != 1:
        raise _Refusal(f"cannot read {rest!r}")
    return [lit(c)]


def _count_word(amount: str) -> str:
    word = amount.split()[0]
    if word in ("a", "the"):
        return "one"
    return word if word in ("once", "twice", "thrice") else word + " times"


def _frame_count(text: str) -> _Reading:
    """Counts: "[a]: max 3 visits", "minimum visits: [a] 2, [b] 2", "[a] at least 3 times",
    "go into [a] and [b] at most once each". A number without a bound word ("[a] twice")
    is refused: it may mean exactly or at least.

    >>> [(n, str(p)) for n, p in _frame_count("minimum visits: [a] 2, [b] 2").items]
    [(2, '"agent_at(a)"'), (2, '"agent_at(b)"')]
    """
    breakdown = _BREAKDOWN.search(text)  # "…, once to prep, once to plate": one per entry
    if breakdown:
        text = text[: breakdown.start()]
    header, body = _split_header(text)
    if not _letters(header) and _SPEC.search(header) and _SPEC.search(body):
        raise _Refusal("a number in the header and another in the list")  # "max 1: [a] twice"
    if _letters(header) and len(_clauses(text)) > 1:
        header, body = "", text  # "[a]: 2 visits max; [b]: 1 visit max": one header each
    elif re.fullmatch(X, header) and _letters(body) == _letters(header):
        header = ""  # "[a]: open it once, tops": the thing, then a statement about it
    elif _letters(header):
        if len(_letters(header)) > 1 or _letters(body):
            raise _Refusal("a header that names a thing")
        body, header = f"{header} {body}", ""
    statements = []
    for c in _clauses(body):
        head, rest = _split_header(c)
        if len(_letters(head)) == 1 and set(_letters(rest)) <= set(_letters(head)):
            c = f"{head} {rest}" if not _letters(rest) else rest  # "[a]: 2 visits max"
        statements += [p for p in re.split(r"\s*,\s*(?=[^,]*\[[a-z]\][^,]*\d)", c) if p.strip()]
    statements = [part for s in statements for part in _TRAILING_DENIAL.split(s) if part]
    statements = [part for s in statements for part in _restated_apart(s)]
    statements = [_drop_remarks(s, keep=_QUALIFIER) for s in statements
                  if not _REMARK_OK.fullmatch(s) or _QUALIFIER.search(s)]  # fmt: skip
    with_letters = [s for s in statements if _letters(s)]
    remarks = [s for s in statements if not _letters(s)]
    if not with_letters:
        raise _Refusal("a count of nothing")
    excess = [m for r in remarks if (m := _EXCESS.fullmatch(r))]  # "three times is too much"
    remarks = [r for r in remarks if not _EXCESS.fullmatch(r)]
    # the bound said again: "not one more", "do not exceed", "not zero, not two"
    said = {kind for r in remarks for kind, again in _RESTATED if again.fullmatch(r)}
    denied = [count_value(_count_word(n)) for r in remarks if _DENIED.fullmatch(r)
              for n in re.findall(_NUMBER, r)]  # fmt: skip
    restated = [r for r in remarks if any(a.fullmatch(r) for _, a in _RESTATED)]
    remarks = [r for r in remarks if not _DENIED.fullmatch(r) and r not in restated]
    if len(said) > 1:
        raise _Refusal("the bound said again two ways")
    header = f"{header} {_BOUND_WORD[next(iter(said))]}" if said else header
    counted = [r for r in remarks if _SPEC.search(r)]
    unexplained = _unexplained([r for r in remarks if r not in counted])
    if unexplained:
        raise _Refusal(f"cannot explain {unexplained!r}")
    items = []
    for s in with_letters:
        spec = _specs(" ".join([_tidy_count(s), *counted]), header)
        ((kind, n),) = spec
        items += [(kind, n, lit) for lit in _counted(_tidy_count(s))]
    if len({k for k, _, _ in items}) != 1:
        raise _Refusal("no single kind of count")
    kind = items[0][0]
    too_many = [count_value(_count_word(m.group(1))) for m in excess]
    if too_many and (kind != "at_most" or any(k <= n for k in too_many for _, n, _ in items)):
        raise _Refusal("a number said to be too many that the bound allows")
    if any(n < 0 for _, n, _ in items):
        raise _Refusal("a negative count")
    if said - {kind} or any(_allows(kind, n, k) for k in denied for _, n, _ in items):
        raise _Refusal("a number said not to be meant that the bound allows, or another bound")
    entries = len(re.findall(r"\b(?:once|one)\b", breakdown.group())) if breakdown else 0
    if breakdown and any(n != entries for _, n, _ in items):
        raise _Refusal("a reason for each entry, and another number of entries")
    return _Reading(kind, tuple((n, lit) for _, n, lit in items), f"{kind.replace('_', ' ')} n")


# A count's bound said again after it, by kind: "not one more", "do not exceed", "minimum".
_RESTATED = (
    (
        "at_most",
        re.compile(
            r"(?:(?:not|no) (?:one |a single (?:time |visit )?)?more(?: than "
            r"that)?|(?:do not|never|not to) exceed(?: (?:it|that|this))?|tops|"
            r"max|maximum|at the (?:very )?most)"
        ),
    ),  # fmt: skip
    (
        "at_least",
        re.compile(
            r"(?:(?:not|no) (?:less|fewer)(?: than that)?|minimum|min|"
            r"at the (?:very )?least|(?:or )?more(?: is (?:also |even )?(?:good|fine|ok|okay|"
            r"better|welcome))?)"
        ),
    ),  # fmt: skip
    (
        "exactly",
        re.compile(r"(?:(?:no|not) more,? (?:and |nor |or )?(?:no|not) (?:less|fewer)|exactly)"),
    ),
)
_BOUND_WORD = {"at_most": "at most", "at_least": "at least", "exactly": "exactly"}
# The bound said again at the end of the count's own clause: "…, not more".
_TRAILING_RESTATED = re.compile(
    r"\s*,\s*(" + "|".join(again.pattern for _, again in _RESTATED) + r")$"
)
# Numbers said not to be meant: "not zero, not two", "not 2 and not 4"; on their own, or at the
# end of the count's own clause ("…, not 2 and not 4").
_DENIAL = rf"(?:not|never) (?:even )?{_NUMBER}(?: {_UNIT})?"
_DENIED = re.compile(rf"{_DENIAL}(?:(?:\s*,\s*|\s+)(?:(?:and|or|but) )?{_DENIAL})*")
_TRAILING_DENIAL = re.compile(rf"\s*,\s*({_DENIED.pattern})$")


def _restated_apart(statement: str) -> list[str]:
    """*statement* with the bound said again at its end as a statement of its own.

    >>> _restated_apart("go into [a] three times max, not more")
    ['go into [a] three times max', 'not more']
    """
    m = _TRAILING_RESTATED.search(statement)
    if m is None or not _letters(statement[: m.start()]):
        return [statement]
    return [statement[: m.start()], m.group(1)]


def _allows(kind: str, n: int, denied: int) -> bool:
    """Whether a count *kind* with bound *n* allows *denied* entries ("at most 1, not 2": no)."""
    return {"at_most": denied <= n, "at_least": denied >= n, "exactly": denied == n}[kind]


# The reason for each counted entry, after the count: "…, once to prep, once to plate".
_BREAKDOWN = re.compile(
    r"\s*(?:[;,:—–]|\s-)\s*(?:(?:once|one) (?:to|for|with|before|after) [^,;]+?)"
    r"(?:,?\s+(?:and\s+)?(?:once|one)(?: (?:to|for|with|before|after)\b[^,;]*?)?)+$"
)
# A count said to be too many: "three times is too much".
_EXCESS = re.compile(
    rf"({_NUMBER})(?: {_UNIT})? (?:is|are|would be) (?:(?:way|much|already) )?"
    r"(?:too much|too many|too often|one too many|not ok|not okay|not allowed)"
)


def _tidy_count(text: str) -> str:
    """A count statement without the words around its numbers that count nothing."""
    text = re.sub(r"\b(?:visit counts|counts|limits)\b", "", text)
    text = re.sub(
        r"\b(?:the absolute|absolute|a couple of times|a few times|"
        r"during the [a-z]+|to check on [a-z ]+|today|tonight|overnight|now|"
        r"this (?:morning|afternoon|evening|arvo)|per (?:run|day|shift|session|operating period)|"
        r"over the (?:whole|entire) run|in total|all told)\b",
        "",
        text,
    )
    # a purpose or a time of day after the count: "…, for the guests arriving at 6", "at 8 and 9"
    text = re.sub(r",\s*for [^,\[\]]*$|\s+for (?:some )?fresh air\b", "", text)
    text = re.sub(
        rf",?\s*\bat \d{{1,2}}(?::\d\d)?(?: ?(?:am|pm))?(?!\s*(?:{_UNIT}|x)\b)"
        r"(?:,? (?:and )?(?:at )?\d{1,2}(?::\d\d)?(?: ?(?:am|pm))?)*",
        "",
        text,
    )
    return re.sub(r"\s+", " ", text).strip(" ,:;")


# conditions: triggers, state conditions, unless, future avoidance, precedence -------------------

_IF_WORDS = (
    r"whenever|every time|each time|any time|anytime|if ever|if|when|once|after|as soon as|"
    r"right after|immediately after|directly after|just after|the moment|upon|"
    r"from the moment|subsequent to(?: any)?|should|in case|while|whilst|as long as"
)
_STATE_CONDITION = re.compile(
    rf"^(?:you are|you're|the agent is|the robot is|it is|are|is)?\s*(?:still |actually |"
    rf"located )?(?:in|inside|at) {X}$|^(?:(?:you|the agent|the robot) (?:are |is )?)?"
    rf"(?:holding|carrying|have|has|hold|carry) {X}(?: with you| in (?:your |its )?hands?)?$|"
    rf"^(?:in|inside) {X}$|^agent_at\({X}\)$"
)
# A thing's lasting state as a condition: "[a] is on", "[a] is still open", "[a] is closed".
_THING_STATE = re.compile(
    rf"{X} is (?:still )?(?:switched on|turned on|switched off|turned off|on|off|open|closed|shut)"
)
_SOON = re.compile(
    r"\b(?:right after|immediately|straight away|right away|right back|"
    r"(?:at |on |in )?the (?:very )?next (?:step|moment|thing)(?: is)?|"
    r"your very next move should take you to|next step|(?:on |at |in )?the following step|"
    r"the step after|"
    r"the moment|directly|at once|at the immediately following step|next)\b"
)
_LATER = re.compile(
    r"\b(?:eventually|later on|later|at some point(?: afterwards)?|sooner or later|afterwards|"
    r"at a later point|at some later point|subsequently|after some time|before you are done|"
    r"thereafter|again)\b"
)
_BOUND = re.compile(
    rf"\b(?:within (?:at most )?({_NUMBER}) {_STEPS}|in ({_NUMBER}) {_STEPS} or less|"
    rf"(?:no|not) later than ({_NUMBER}) {_STEPS}(?: afterwards)?|in (?:maximum|at most) "
    rf"({_NUMBER}) {_STEPS})(?:,? tops)?\b"
)
#: A clause that only says when ("(next step)", "eventually", "within 2 steps").
_TIMING = re.compile(rf"(?:{_SOON.pattern}|{_LATER.pattern}|{_BOUND.pattern})")
_FOREVER = re.compile(
    r"\b(?:never again|no longer|anymore|any more|for good|from (?:then|that moment|that point) "
    r"on|in the future|ever again|after that|afterwards|again|after$)\b"
)
#: A prohibition said as a lasting state: "stay out", "keep [a] off", "[a] stays shut".
_KEPT = r"\b(?:stays?|remains?|keeps?|kept|leave)\b[^,;]*\b(?:shut|closed|off|out)\b"
#: An obligation to keep a negative state ("[a] must be off"): a prohibition of the state.
_KEEP = re.compile(r"\b(?:must|has to|have to|should|shall|needs? to|stays?|remains?|keep)\b")
_NOT = re.compile(
    r"\b(?:do not|does not|never|not|no|neither|cannot|can not|may no longer|must not|shall not|"
    r"should not|is never to be|are never to be|is not to be|avoid)\b"
)


def _strip_not(text: str) -> tuple[bool, str]:
    """(negated, *text* without the negation words)."""
    out = re.sub(
        r"\b(?:you|it|the agent|the robot)\s+(?=(?:shall|must|should|may|do) not)", "", text
    )
    negated = _NOT.search(out) is not None
    out = _NOT.sub(" ", out)
    out = re.sub(r"\b(?:must|shall|should|may|can|is to|will|dare|ever|even)\b", " ", out)
    return negated, re.sub(r"\s+", " ", out).strip(" ,:")


def _condition_split(text: str) -> tuple[str, str, str] | None:
    """(subordinator, condition, main) of "if C1, C2", "C2 if C1", "[a], once opened, C2"."""
    m = re.fullmatch(rf"({_IF_WORDS})\s+(.+?)(?:\s*[,:]\s*(?:then\s+)?|\s+then\s*:?\s+)(.+)", text)
    if m and not _LETTER.search(m.group(3)) and _TIMING.fullmatch(m.group(3)):
        # "as soon as you grab [a] put it down, next step": the timing after the comma
        inner = _condition_split(f"{m.group(1)} {m.group(2)}")
        return (inner[0], inner[1], f"{inner[2]} {m.group(3)}") if inner else None
    if m:
        return m.group(1), m.group(2), m.group(3)
    m = re.fullmatch(rf"{X}\s*,\s*({_IF_WORDS})\s+(.+?)\s*,\s*(.+)", text)
    if m:  # "[a], once opened, shall be closed …": the thing first
        x = m.group(1)
        cond = m.group(3) if _LETTER.search(m.group(3)) else f"[{x}] {m.group(3)}"
        main = m.group(4) if _LETTER.search(m.group(4)) else f"[{x}] {m.group(4)}"
        return m.group(2), cond, main
    m = re.fullmatch(rf"(.+?)\s*,?\s+(right after|immediately after|{_IF_WORDS})\s+(.+)", text)
    if m and (_LETTER.search(m.group(1)) or _LETTER.search(m.group(3))):
        return m.group(2), m.group(3), m.group(1)
    m = re.fullmatch(rf"({_IF_WORDS})\s+(.+)", text)
    if m:  # no comma: the shortest condition that reads, if the rest reads too
        words = m.group(2).split()
        for k in range(2, len(words)):
            head, rest = " ".join(words[:k]), " ".join(words[k:])
            if _LETTER.search(head) and _LETTER.search(rest) and _clause(head) is not None:
                return m.group(1), head, rest
    return None


def _elliptic(text: str, other: Clause) -> Clause | None:
    """A clause whose thing is left out ("close", "off", "close eventually"), read about
    *other*'s thing."""
    if _LETTER.search(text) or len(other.letters) != 1:
        return None
    x = other.letters[0]
    return _clause(f"{text} [{x}]") or _clause(f"[{x}] {text}")


def _frame_condition(text: str) -> _Reading:
    """Two clauses joined by a condition word, read by the cues of the main clause.

    ========================================  ================================================
    cues                                      pattern
    ========================================  ================================================
    within k steps / k steps or less          bounded_delay (k)
    right after / immediately / next step     immediate_response
    unless / outside / only in / -only        avoid_unless (the condition a state)
    while / when / if + a state, negated      avoid_while
    once / after / from the moment, negated;  absence_after
    any condition + never again / no longer
    if / whenever / once + later / eventually response
    until / before / only after / not yet     not_before
    ========================================  ================================================

    >>> _frame_condition("when you go [a], in maximum two steps you must be in [b]").pattern
    'bounded_delay'
    """
    header, body = _split_header(text)
    if header and re.fullmatch(rf"(?:{_IF_WORDS}) .+|in {X}", header):
        text = f"{header}, {body}"
    elif header and not _letters(header):
        if not re.search(r"avoidance|response|guard|constraint", header) and _unexplained([header]):
            raise _Refusal(f"cannot read the header {header!r}")
        text = body
    clauses = _clauses(text)
    main_clauses = [c for c in clauses if _LETTER.search(c)]
    timings = [c for c in clauses if not _LETTER.search(c) and _TIMING.fullmatch(c)]
    unexplained = _unexplained([c for c in clauses if not _LETTER.search(c) and c not in timings])
    if unexplained:
        raise _Refusal(f"cannot explain {unexplained!r}")
    if len(main_clauses) != 1 or len(timings) > 1:
        raise _Refusal("conditions over several sentences")
    text = " ".join(main_clauses + timings)  # "[a] on -> [a] off (next step)"
    precedence = _precedence(text)
    if precedence is not None:
        return precedence
    unless = _unless(text)
    if unless is not None:
        return unless
    text = re.sub(rf"^(?:in|inside) {X}\s*[,:]\s*", r"while in [\1], ", text)
    text = re.sub(r"\byou happen to be\b", "you are", text)
    text = re.sub(
        rf"^(.+?) (?:within|no more than|not more than|at most) ({_NUMBER}) {_STEPS} "
        rf"(?:of|after) (.+?)(?:\s*:\s*(.+))?$",
        lambda m: (
            f"if {m.group(3)}, {m.group(1)} within {m.group(2)} steps"
            + (f": {m.group(4)}" if m.group(4) else "")
        ),
        text,
    )
    split = _condition_split(text)
    if split is None:
        raise _Refusal("no condition and main clause")
    word, condition, main = split
    main, condition = _drop_remarks(main), _drop_remarks(condition)
    bound = _BOUND.search(main) or _BOUND.search(condition)
    steps = None
    if bound:
        steps = count_value(_count_word(next(g for g in bound.groups() if g)))
        main = _BOUND.sub(" ", main)
        condition = _BOUND.sub(" ", condition).strip()
    soon = (
        word in ("right after", "immediately after", "directly after", "just after", "the moment")
        or _SOON.search(main) is not None
    )
    main = _SOON.sub(" ", main)
    later = _LATER.search(main) is not None or re.search(r"\bremember\b", main) is not None
    forever = _FOREVER.search(main) is not None
    negated = _NOT.search(main) is not None
    main_text = _strip_not(_LATER.sub(" ", _FOREVER.sub(" ", main)))[1]
    main_text = re.sub(
        r"\b(?:remember to|make sure (?:you )?)|^(?:needs|need to|has to|have to|"
        r"to|do)\b",
        " ",
        main_text.strip(),
    )
    main_text = re.sub(r"\s+", " ", main_text).strip(" ,:")
    cond = _clause(
        re.sub(r"^(?:you |the agent |the robot )?(?:ever )?(?:happen to be )?", "", condition)
    ) or _clause(condition)
    outside = re.fullmatch(
        rf"(?:you are|the agent is|the robot is) not (?:in|inside|at) {X}", condition.strip()
    )
    if outside is not None:  # "if you are not in [a], never C": unless
        cond = Clause(ap(f"agent_at({outside.group(1)})"), False, (outside.group(1),))
    state = _STATE_CONDITION.fullmatch(condition.strip())
    if state is not None:
        x = next(g for g in state.groups() if g)
        holding = re.search(r"\b(?:holding|carrying|have|has|hold|carry)\b", condition) is not None
        cond = Clause(ap(f"{'is_grabbed' if holding else 'agent_at'}({x})"), False, (x,))
    if cond is None and not _LETTER.search(condition):  # "if opened, close [a] eventually"
        thing = _clause(main_text)
        cond = _elliptic(condition, thing) if thing is not None else None
    if cond is None or (cond.literal is None and len(cond.letters) != 1):
        raise _Refusal(f"cannot read the condition {condition!r}")
    # "while [a] is on", "when [a] is closed": the state of a thing, not an event
    thing_state = _THING_STATE.fullmatch(condition.strip()) is not None
    if cond.avoid and not thing_state:
        raise _Refusal(f"cannot read the condition {condition!r}")
    if cond.literal is None:  # a bare place: "after [a]: no [b]"
        cond = Clause(lit(cond), False, cond.letters)
    mains = _main_items(main_text, cond)
    if negated and any(c.avoid for c in mains):
        raise _Refusal("a double negation")
    negative = negated or any(c.avoid for c in mains)
    if negative and not re.search(rf"\b{_NEGATION}\b|{_KEPT}", main):
        raise _Refusal("a prohibition without a negation")
    p = cond.literal
    qs = [lit(c) for c in mains]
    letters = set(cond.letters) | {x for c in mains for x in c.letters}
    if letters != set(_letters(text)):
        raise _Refusal("a thing without a role")
    if negative:
        if soon or steps is not None:
            raise _Refusal("a timed prohibition")
        if outside is not None and word in ("if", "when", "whenever", "while"):
            return _Reading("avoid_unless", tuple((p, q) for q in qs), "unless in C1, never C2")
        if outside is not None:
            raise _Refusal("'not in' after a word that is no condition on the state")
        if (
            (state is not None or thing_state)
            and word in ("while", "whilst", "when", "whenever", "if", "as long as", "in case")
            and not forever
        ):
            return _Reading("avoid_while", tuple((p, q) for q in qs), "while C1, never C2")
        if (
            word in ("once", "after", "from the moment", "upon")
            or word.startswith("subsequent")
            or forever
        ):
            return _Reading("absence_after", tuple((p, q) for q in qs), "once C1, never C2")
        raise _Refusal("a prohibition after a condition that is neither a state nor a history")
    if re.search(
        r"\b(?:for good|from (?:then|that moment|that point|now) on|permanently|"
        r"for the rest)\b",
        main,
    ):
        raise _Refusal("a lasting state ('for good', 'from then on') that is no prohibition")
    if steps is not None:
        if soon:
            raise _Refusal("both a bound and 'right after'")
        return _Reading("bounded_delay", tuple((steps, p, q) for q in qs), "C1, then C2 within k")
    if soon:
        return _Reading("immediate_response", tuple((p, q) for q in qs), "C1, then C2 right after")
    if later or word in ("whenever", "every time", "each time", "any time", "anytime", "if ever"):
        return _Reading("response", tuple((p, q) for q in qs), "C1, then C2 later")
    raise _Refusal("a positive reaction without a timing")


def _main_items(text: str, other: Clause) -> list[Clause]:
    """The clauses of a main clause: one, or a list ("[b], [c]", "open [b], switch on [c]");
    a clause without its thing ("close") is about *other*'s thing, a bare thing of a list
    borrows its neighbour's predicate (else it is a place)."""
    text = re.sub(r"^(?:you |the agent |the robot |it )", "", text.strip(" ,:"))
    text = re.sub(r"\s+after$", "", text)
    one = _clause(text) or _elliptic(text, other)
    if one is not None:
        return [one]
    pieces = [p for p in _LIST_SPLIT.split(text) if p.strip(" ,:")]
    out = []
    for piece in pieces:
        c = _clause(piece) or _elliptic(piece, other)
        if c is None:
            raise _Refusal(f"cannot read {piece!r}")
        out.append(c)
    if len(out) < 2:
        raise _Refusal(f"cannot read {text!r}")
    near = [c for c in out if c.literal is not None]
    return [
        c
        if c.literal is not None
        else Clause(lit(c, near[0] if near else None), c.avoid, c.letters)
        for c in out
    ]


def _precedence(text: str) -> _Reading | None:
    """Past avoidance: "do not C1 until C2", "C1 only after C2", "[a] may only be opened once
    [b] has been visited", "not before [a]: [b], [c]", "until C2, no C1", "C2 unlocks C1";
    None if it is none."""
    lead = re.fullmatch(r"(until|till|before) (.+?)\s*,\s*(.+)", text)
    if lead:  # "until you have been to [a], no [b]"
        text = f"{lead.group(3)} {lead.group(1)} {lead.group(2)}"
    m = re.fullmatch(r"not before (.+?)\s*[,:]\s*(.+)", text)
    if m:
        c2 = _clause(m.group(1))
        if c2 is None or (c2.literal is None and len(c2.letters) != 1):
            raise _Refusal(f"cannot read {m.group(1)!r}")
        firsts = _items(m.group(2))
        return _Reading("not_before", tuple((q, lit(c2)) for q in firsts), "not before C2: C1")
    m = re.fullmatch(
        r"(.+?)\s*,?\s+(?:but )?(?:until|till|before|only after|only once|is permitted only after|"
        r"is only allowed after|unless (?:you have|it has|the robot has|the agent has) "
        r"previously)\s+(.+)",
        text,
    ) or re.fullmatch(r"(.+?\bonly\b.+?)\s+(?:after|once)\s+(.+)", text)
    if not m:
        m2 = re.fullmatch(r"if (?:you )?(?:have )?not yet (?:been )?(.+?)\s*,\s*(.+)", text)
        if not m2:
            return None
        first, then = m2.group(2), m2.group(1)
        if not re.match(r"^(?:in|to|at|inside) ", then):
            return None
        then = f"be {then}"
    else:
        first, then = m.group(1), m.group(2)
    negated, first_text = _strip_not(first)
    first_text = re.sub(
        r"^(?:you |the agent |the robot )|\b(?:only|is|to be|but)\b", " ", first_text
    )
    first_text = re.sub(
        r"^\s*(?:entry to|switching on)\s+",
        lambda k: "enter " if "entry" in k.group() else "switch on ",
        first_text.strip(),
    )
    c1 = _clause(first_text)
    then = re.sub(
        r"^(?:you have|you've|it has|the agent has|you|it)\s+(?:previously\s+)?", "", then
    )
    c2 = _clause(then) or _clause(f"you have {then}")
    if c1 is None or c2 is None or (c2.literal is None and len(c2.letters) != 1):
        raise _Refusal(f"cannot read {first!r} / {then!r}")
    if not (negated or c1.avoid or re.search(r"\bonly\b", text)):
        return None  # "C1 before C2" without a prohibition is no precedence
    if negated and c1.avoid:
        raise _Refusal("a double negation")
    q = lit(c1, c2)
    return _Reading("not_before", ((q, lit(c2, c1)),), "do not C1 before C2")


#: The forms of "unless": (regular expression, whether the condition comes first).
_UNLESS_FORMS = [
    (
        re.compile(
            r"(.+?)\s*,?\s+(?:unless|except (?:when|while|if|in)|only (?:in|when|while)|if not in|"
            r"outside(?: of)?)\s+(.+)"
        ),
        False,
    ),
    (
        re.compile(
            r"(?:outside(?: of)?|unless|except (?:when|while|if|in|inside)|anywhere but|"
            r"anywhere other than|everywhere except|only (?:when|while|if|in))\s+(.+?)\s*,\s*(.+)"
        ),
        True,
    ),
    # "only in [a] may [b] be opened", "[b] may be opened in [a] only"
    (re.compile(r"only (?:in|inside) (\[[a-z]\]) (?:may|can|shall|should|is|are|will) (.+)"), True),
    (re.compile(r"(.+?)\s+(?:in|inside) (\[[a-z]\]) only"), False),
    (re.compile(r"(.*?\bonly\b.+?)\s+(?:when|while|from|in|inside)\s+(.+)"), False),
]


def _unless(text: str) -> _Reading | None:
    """State conditions of the unless kind: "never C unless you are in [a]", "outside [a],
    never C", "C only in [a]", "only C while you are in [a]"; None if it is none. A list
    "[a]-only: [b], [c]" is refused: its verb is in another clause."""
    m = re.fullmatch(rf"{X}-only\s*:\s*(.+)", text)
    if m:
        raise _Refusal("a '-only' list needs its verb")  # the verb is in another clause
    found = next(
        ((m, first) for pattern, first in _UNLESS_FORMS if (m := pattern.fullmatch(text))), None
    )
    if found is None:
        return None
    m, condition_first = found
    condition, main = (m.group(1), m.group(2)) if condition_first else (m.group(2), m.group(1))
    if re.search(r"previously|have been|has been|visited", condition):
        return None
    place = re.fullmatch(
        rf"(?:outside |in |inside )?(?:you are |you're |it is |the robot is |the agent is )?"
        rf"(?:actually |located |standing |physically )?(?:in |inside |at )?"
        rf"(?:{X}|agent_at\({X}\))",
        condition.strip(),
    )
    if place is None:
        raise _Refusal(f"cannot read the condition {condition!r} as a place")
    negated, main_text = _strip_not(main)
    only = re.search(r"\bonly\b", text) is not None
    main_text = re.sub(r"\b(?:only|you|the agent|the robot|it|anywhere)\b", " ", main_text)
    main_text = re.sub(r"\s+", " ", main_text).strip()
    c = _clause(main_text)
    if c is None or c.literal is None:
        raise _Refusal(f"cannot read {main!r}")
    literal = c.literal
    if not (negated or c.avoid or only):
        kept = _KEEP.search(main) or re.fullmatch(rf"{X} (?:off|closed|shut)", main.strip())
        if literal.op != "!" or not kept:  # "[a] must be off", "[a] off unless …": never on
            raise _Refusal("'unless' without a prohibition")
        literal = literal.children[0]
    if negated and c.avoid:
        raise _Refusal("a double negation")
    where = ap(f"agent_at({place.group(1) or place.group(2)})")
    return _Reading("avoid_unless", ((where, literal),), "never C unless in [a]")


# global avoidance and visits ----------------------------------------------------------------------

_NEVER_HEAD = re.compile(
    r"^(?:off limits|off-limits|out of bounds|forbidden|global avoidance|avoid|never|no go|"
    r"do not (?:enter|visit|go to|go into))\s*:\s*(.+)$"
)
_NEVER_PLAIN = re.compile(
    r"^(?:(?:you )?(?:must|should|shall|may|can) )?(?:never|do not|not|no(?= .*\][^\[\]]*[a-z])|"
    r"it is (?:forbidden|prohibited|not allowed|not permitted) to|(?:stay|keep) out of|"
    r"at no point(?: shall| should"
    r"| may| must)?|under no circumstances(?: shall| should| may| must)?)\s+(?:ever\s+)?(.+)$"
)
_VISIT_HEAD = re.compile(
    r"^(?:places to visit|visit|go to|check|rooms to visit|stops|(?:your |my |today's )?(?:tasks|"
    r"to-?dos?|to-?do list|errands|checklist|jobs)|visit each of \[[a-z]\]"
    r"(?: at least once)?)\s*:\s*(.+)$"
)


def _frame_list(text: str, negation: bool) -> _Reading:
    """A header over a list: "Off limits: [a], [b]" (never each), "Places to visit: [a], [b]"
    (visit each), "[a] and [b] should both be visited".

    >>> _frame_list("places to visit: [a], [b], [c]", False).pattern
    'visit'
    """
    clauses = _clauses(text)
    tasks = [c for c in clauses if _LETTER.search(c)]
    if not negation and len(tasks) > 1 and _LETTER.search(clauses[0]):
        # "eventually reach [a]; eventually reach [b]": a task a clause
        unexplained = _unexplained([c for c in clauses if c not in tasks])
        if unexplained:
            raise _Refusal(f"cannot explain {unexplained!r}")
        items = tuple(item for c in tasks for item in _frame_list(c, False).items)
        return _Reading("visit", items, "tasks")
    unexplained = _unexplained(clauses[1:])
    if unexplained:
        raise _Refusal(f"cannot explain {unexplained!r}")
    everything, text = text, clauses[0] if clauses else text
    if negation:
        if re.search(r"\bfirst$", text):
            raise _Refusal("'… first' is about order, not a prohibition")
        m = _NEVER_HEAD.fullmatch(text) or _NEVER_PLAIN.fullmatch(_drop_remarks(text))
        kept = _clause(_drop_remarks(text)) if not m else None
        if kept is not None and kept.avoid and kept.literal is not None:  # "[a] must stay off"
            return _Reading("never", ((kept.literal,),), "never: a lasting state")
        if not m:
            raise _Refusal("a prohibition in no form the frames read")
        body = re.sub(r",?\s+(?:ever|at all|whatsoever|under any circumstances|either)$", "",
                      m.group(1))  # fmt: skip
        return _Reading("never", tuple((q,) for q in _items(body)), "never: list")
    m = _VISIT_HEAD.fullmatch(text) or re.fullmatch(
        rf"(?:both )?({X}(?:\s*,\s*{X})*\s*,?\s+and\s+{X})\s+(?:(?:should|must|shall|have to|"
        r"are to)\s+(?:both |each |all )?be (?:visited|entered|reached)|(?:both |each |all )?"
        r"(?:need|require|deserve|get) (?:a visit|visiting|to be visited|a check|checking))",
        text,
    )
    if m:
        return _Reading("visit", tuple((q,) for q in _items(m.group(1))), "visit: list")
    plain = re.sub(
        r"^(?:(?:at some point|sometime|eventually|later)\s*,?|(?:make sure|be sure|ensure)"
        r"(?: that)?(?: you)?|i(?: would|'d)? (?:really )?(?:need|"
        r"want|like) you to|kindly|"
        r"could you|can you|would you)\s+",
        "",
        text,
    )
    asked = (  # "make sure [a] gets opened", "I need [a] on at some point": states as tasks
        re.match(r"^(?:make sure|be sure|ensure|i (?:need|want))\b", text) is not None
        and re.search(r"\b(?:gets?|got|at some point|sometime|some time|eventually)\b", text)
        is not None
    )
    plain = re.sub(r"^i (?:need|want) (?=\[)", "", plain)  # "I need [a] on": asked for
    plain = re.sub(
        r"(?:\s*,?\s+(?:at some point|sometime|some time|(?:in )?(?:any|whatever|whichever) "
        r"order(?: you (?:like|want|prefer|choose))?|both|too|as well|eventually|for me|today|"
        r"tonight|this (?:morning|afternoon|evening)))+$",
        "",
        plain,
    )
    if _LETTER.search(plain) is None or re.search(
        rf"\b(?:{_NEGATION}|if|when|unless|until|before|after|while|only|keep|leave|stay|"
        r"remain|always)\b",
        plain,
    ):
        raise _Refusal("no visit form")
    pieces = [p for p in _LIST_SPLIT.split(plain) if p.strip(" ,;:")]
    in_any_order = ANY_ORDER.search(everything)
    if not (in_any_order or asked) and all(p.lstrip().startswith("[") for p in pieces):
        raise _Refusal("a state is no instruction")  # "[a] on and grab [b]" is a to-do list
    return _Reading("visit", tuple((q,) for q in _items(plain)), "do each at some point")


# -- step 3: the dispatcher -------------------------------------------------------------------

_FRAMES: dict[str, Callable[[str], _Reading]] = {
    "patrol": _frame_patrol,
    "wait": _frame_wait,
    "arrow": lambda t: _frame_arrow(t),
    "sequence": _frame_sequence,
    "count": _frame_count,
    "bound": _frame_condition,
    "prompt": _frame_condition,
    "unless": _frame_condition,
    "future": _frame_condition,
    "trigger": _frame_condition,
    "precedence": _frame_condition,
    "negation": lambda t: _frame_list(t, True),
    "visit": lambda t: _frame_list(t, False),
}


def _frame_arrow(text: str) -> _Reading:
    """A route "[a] -> [b]", unless the right side has a timing or a negation, when it is
    a reaction ("[a] on -> [a] off later", "[a] -> next: [b]", "[a] -> [b] within 3 steps").

    >>> _frame_arrow("[a] on -> next step off").pattern
    'immediate_response'
    """
    header, body = _split_header(text)
    if header and _letters(header):
        body = text
    left, _, right = body.partition(" -> ")
    if " -> " in right:
        return _frame_sequence(body)
    if _STATE_CONDITION.fullmatch(left.strip()):  # "in [a] -> [b] stays shut": while in [a]
        return _frame_condition(f"while {left}, {right}")
    right = re.sub(r"^(?:x|next\s*:)\s+", "next ", right)
    first = (_clauses(right) or [""])[0].split(",")[0]  # a negation counts in it alone
    timed = _LATER.search(right) or re.match(r"next\b", right)
    if (
        not cue_classes(right) & {"bound", "prompt", "future"} | (cue_classes(first) & {"negation"})
        and not timed
    ):
        return _frame_sequence(body)
    return _frame_condition(f"whenever {left}, {right}")


#: Patterns whose reading of "[a] or [b]" is one prohibition per thing.
_PROHIBITIONS = ("never", "avoid_while", "avoid_unless", "absence_after", "not_before")
_COUNTED = ("at_most", "at_least", "exactly")
_HEADER_LIST = re.compile(r"^([^:\[\]]+):\s*(\[[a-z]\](?:\s*(?:,|and|or)\s*\[[a-z]\])+)$")
_VERB_WORD = re.compile(r"\b(?!(?:never|no|not|avoid|ever)\b)[a-z]{2,}")
_THING_HEADER = re.compile(r"^(\[[a-z]\](?:\s*(?:,|and)\s*\[[a-z]\])*)\s*:\s*([^:\[\]]+)$")


def _read(text: str) -> _Reading:
    """The reading of the frame that the first cue class of :data:`PRIORITY` in *text*
    decides; a header over a list of things ("Close right after opening: [a], [b]") that
    this refuses is read once per thing ("close right after opening [a]"), and every
    thing must give the same pattern.

    Raises
    ------
    _Refusal
        If no cue decides a frame or the frame refuses.
    """
    try:
        return _visit_both(text) or _decide(text)
    except _Refusal:
        sentences = _clauses(text)
        if len(sentences) > 1 and all(_LETTER.search(c) for c in sentences):
            try:  # "Visit [a]. Visit [b].": one sentence per thing
                readings = [_decide(c) for c in sentences]
            except _Refusal:
                readings = []
            if readings and {r.pattern for r in readings} in ({"visit"}, {"never"}):
                items = tuple(item for r in readings for item in r.items)
                return _Reading(readings[0].pattern, items, "one sentence per thing")
        ordered = _order_and_visits(text)
        if ordered is not None:
            return ordered
        found = _HEADER_LIST.fullmatch(text)
        if found is not None:
            return _each(found.group(1), _letters(found.group(2)))
        found = _THING_HEADER.fullmatch(text)
        # "[a]: close right after opening" (not a bare "[a]: never": a place or a thing?)
        if found is not None and _VERB_WORD.search(found.group(2)):
            return _each(found.group(2), _letters(found.group(1)))
        raise


# The pieces of an ordered visit told in several statements: split at sentence breaks,
# dashes, "but" and the joints before a new statement.
_PIECES = re.compile(
    r"\s*(?:[.;!?:]+\s+|\s[-—–]+\s|,?\s+but\s+|,\s+and\s+|"
    r",\s+(?=(?:then|which|do not|never|no|not)\b)|(?<=first)\s+(?=(?:no|not|never)\b))\s*"
)
_PIECE_LEAD = re.compile(r"^(?:(?:i said|mind you|so|and|now|please|kindly|ok|okay)\s+)+")
# When: "today", "on this round".
_TODAY = r"(?: (?:today|tonight|(?:on )?this \w+))"
# What makes a visit part of the task: "[a] and [b] are compulsory", "both are part of today's
# practice".
_NEEDED = (
    r"(?:mandatory|compulsory|compulsary|obligatory|required|necessary|needed|essential|a must|"
    r"part of [a-z' ]+)"
)
# "both are mandatory", "visit both", "which you also have to visit": both are asked for.
_BOTH_ASKED = re.compile(
    r"(?:(?:you (?:must|have to|need to) )?(?:visit|do|reach|go to|see) |(?:we|you|i) need |"
    r"(?:i )?want |(?:do )?(?:go|get) to |you must do )?"
    r"both(?: rooms| places| items| of them)?"
    rf"(?: (?:are |is )?{_NEEDED}| required| needed| please| (?:must|need to|have to|should) "
    r"(?:be visited|be done|happen|go)| you must do|"
    r" need doing| need to be done| must be done| too)?|"
    r"which you (?:also )?(?:have to|must|need to) (?:visit|go to)(?: too| as well)?"
)
# "both [a] and [b] need doing", "need both [a] + [b] done": both asked for, by name.
_BOTH_NAMED = re.compile(
    r"(?:(?:i |we |you )?need |(?:you (?:must|have to|need to|should) |please )?"
    r"(?:visit|do|see|go to|check|cover|hit) )?"
    rf"(?:both )?{X} (?:and|\+|&) {X}{_TODAY}?"
    r"(?:,? both(?: of them)?|, (?:friend|mate|folks|pal|buddy))?"
    r"(?: (?:need|needs) (?:doing|to be done|"
    rf"a visit|visiting)| done| visited| (?:are|is) {_NEEDED})?"
    rf"{_TODAY}?"
)
# "[a] first", "[a] has to come first", "clear [a] first"; and "not [b] first".
_FIRST_SAID = re.compile(
    rf"(?:(?:clear|visit|go to|do|hit|check) )?{X} (?:(?:has|needs|have) to (?:come|be) |comes |"
    r"is |goes )?first(?: always)?"
)
_NOT_FIRST = re.compile(
    rf"(?:but |and )?(?:not|never) {X} first|"
    rf"(?:(?:do|visit|go to|hit) )?{X} (?:comes |goes |is )?(?:first )?before {X}|"
    rf"(?:but |and )?{X} (?:may not|must not|cannot|can not|should not|(?:is )?not to) "
    rf"(?:come|be done|go) (?:before|ahead of) {X}"
)
# "[b] has to come after [a]": [a] first.
_AFTER_SAID = re.compile(
    rf"{X} (?:(?:has to |must |should |needs to )?(?:come|go|be) |(?:can |may )?only (?:come )?|"
    rf"waits until )(?:after )?{X}(?:,? (?:not|never) before)?"
)
# An order said again the other way: "never the other way round".
_NOT_REVERSED = re.compile(
    r"(?:but |and )?(?:never|not) (?:the other way (?:a)?round|the reverse|in reverse|before)"
)


# A step of a route on its own: "then [b]", "first [a]", "then go on to [b]".
_STEP_PIECE = re.compile(
    r"(?:(?:and )?then |first |firstly |secondly |after that |afterwards )?"
    r"(?:(?:go|going|head|move|move on|carry on) (?:on )?(?:to|into|in) |visit |on to )?"
    rf"{X}(?: visit| first)?"
)
# The words of a statement of order between two steps that say nothing else ("[b] is not to
# be entered before [a]", "[a] must be visited before [b]", "[b] gotta wait till …").
_ORDER_FILLER = re.compile(
    r"\b(?:you|i|we|have|has|had|been|be|being|is|are|was|to|into|in|at|the|go|going|goes|gone|"
    r"visit(?:ed|s|ing)?|enter(?:ed|s|ing)?|entry|reach(?:ed)?|come|comes|coming|happen|"
    r"happens|done|doing|do|does|needs?|must|should|shall|can|cannot|may|not|no|never|"
    r"on no account|only|strictly|wait|waits|gotta|got|allowed|permitted|forbidden|prohibited|"
    r"off limits|see to|let|today|always|checked|precedes?|before|ahead of|prior to|until|"
    r"till|after|then)\b"
)
_ORDER_WORD = re.compile(r"\b(?:before|ahead of|prior to|until|till|after|precedes?)\b")


def _order_of(piece: str) -> tuple[str, str] | None:
    """(first, then) of a statement of order between two steps that holds nothing else; the
    step named after "until" comes first, and after "before" the step named first comes
    first unless the statement forbids ("[b] is not allowed before [a]"). None for anything
    else, and for a negated "after" (unclear).

    >>> _order_of("[b] is not to be entered before [a]"), _order_of("[a] must come before [b]")
    (('a', 'b'), ('a', 'b'))
    >>> _order_of("[b] is off limits until you have been to [a]")
    ('a', 'b')
    """
    letters = _letters(piece)
    if len(letters) != 2 or letters[0] == letters[1]:
        return None
    x, y = letters
    between = piece[piece.index(f"[{x}]") : piece.index(f"[{y}]")]
    word = _ORDER_WORD.search(between)
    if word is None or _ORDER_FILLER.sub(" ", _LETTER.sub(" ", piece)).strip(" ,."):
        return None
    negated = re.search(r"\b(?:not|no|never|cannot|forbidden|prohibited|off limits|"
                        r"on no account)\b", piece) is not None  # fmt: skip
    if word.group() in ("until", "till"):
        return (y, x)
    if word.group() == "after":
        return None if negated else (y, x)
    return (y, x) if negated else (x, y)


def _order_and_visits(text: str) -> _Reading | None:
    """An ordered visit told in pieces: an order between two steps ("do not enter [b] until
    you have been to [a]", "not [b] first") beside pieces that ask for both ("go to [a] and
    [b]", "both are mandatory", "[a], then [b]"), with nothing else but harmless remarks;
    None when *text* is not one.

    >>> [str(f) for f in _order_and_visits("go to [a] and [b], but no [b] until [a]").items[0]]
    ['"agent_at(a)"', '"agent_at(b)"']
    """
    if NO_RETURN.search(text) or len(_letters(text)) != 2:
        return None
    pairs: set[tuple[str, str]] = set()  # (first, then) by letter
    literal: dict[str, Formula] = {}
    asked: set[str] = set()
    both = False
    for piece in (p.strip(" ,") for p in _PIECES.split(text)):
        piece = _PIECE_LEAD.sub("", piece)
        letters = _letters(piece)
        if _BOTH_ASKED.fullmatch(piece):
            both = True
            continue
        named = _BOTH_NAMED.fullmatch(piece)
        if named is not None:
            asked.update(named.groups())
            continue
        if not piece or _REMARK_OK.fullmatch(piece) or (not letters and not _STRONG.search(piece)):
            continue
        first = _FIRST_SAID.fullmatch(piece)
        if first is not None:  # "[a] first": go there, before the other
            x = first.group(1)
            pairs.add((x, next(c for c in _letters(text) if c != x)))
            asked.add(x)
            continue
        if _NOT_REVERSED.fullmatch(piece):
            continue
        after = _AFTER_SAID.fullmatch(piece)
        if after is not None:  # "[b] has to come after [a]"
            pairs.add((after.group(2), after.group(1)))
            continue
        first = _NOT_FIRST.fullmatch(piece)
        if first is not None:  # "not [b] first", "[a] before [b]", "[b] may not come before [a]"
            x, y = ((first.group(2), first.group(3)) if first.group(2) else
                    (first.group(5), first.group(4)) if first.group(4) else
                    (None, first.group(1)))  # fmt: skip
            pairs.add((x or next(c for c in _letters(text) if c != y), y))
            continue
        try:
            reading = _decide(piece)
        except _Refusal:
            step = _STEP_PIECE.fullmatch(piece)
            if step is not None:  # "then [b]", "first [a]": a step of the route
                asked.add(step.group(1))
                continue
            order = _order_of(piece)
            if order is None:
                return None
            pairs.add(order)
            continue
        found = [(f, re.findall(r"[(,](\w)(?=[,)])", str(f))) for item in reading.items
                 for f in item if isinstance(f, Formula)]  # fmt: skip
        if reading.pattern == "not_before" and len(reading.items) == 1:
            (_, ft), (_, fb) = found
            pairs.add((fb[0], ft[0]))
        elif reading.pattern in ("visit", "sequenced_visit"):
            if re.search(r"\b(?:can|could|may|allowed|permitted|free to)\b", piece):
                return None  # "then you can go to [b]": leave, not a task
            asked.update(x for _, xs in found for x in xs)
        else:
            return None
        for f, xs in found:
            if literal.setdefault(xs[0], f) != f:
                return None
    everything = set(_letters(text))
    for x in everything - set(literal):  # "[a] before [b], both": places
        literal[x] = ap(f"agent_at({x})")
    if both and any(not str(literal[x]).startswith('"agent_at(') for x in everything - asked):
        return None  # "do not open [b] before [a], and visit both": "visit" is of places
    if len(pairs) != 1 or (asked != everything and not both):
        return None
    ((early, late),) = pairs
    return _Reading("ordered_visit", ((literal[early], literal[late]),), "an order, and both")


def _each(statement: str, things: list[str]) -> _Reading:
    """*statement* read once about each thing ("close right after opening [a]"), every thing
    giving the same pattern."""
    readings = [_decide(f"{statement} [{x}]") for x in things]
    if len({r.pattern for r in readings}) != 1:
        raise _Refusal("the things of the list read as different patterns")
    items = tuple(item for r in readings for item in r.items)
    return _Reading(readings[0].pattern, items, readings[0].form + " (each of a list)")


_BOTH = re.compile(
    r"^(.+?)\s*[,;]?\s+(?:and|but)\s+(?:(?:you (?:do )?(?:have to|must|need to|should) |make sure "
    r"(?:you )?)?(?:do )?(?P<verb>reach|visit|go to|get to|enter|see|do|complete|finish) "
    r"(?:the )?(?:both|each|all|both of them|all of them)(?: of them)?|(?:both|each) (?:must|"
    r"has to|have to|need to|needs to|should|shall) be "
    r"(?P<done>visited|reached|entered|done|completed))"
    r"(?: eventually| at some point| in the end)?$"
)
_BEFORE = re.compile(
    rf"^(?:(?:you (?:have to|must|need to|should) |make sure (?:you )?)?(?:reach|visit|go to|"
    rf"get to|enter|be in) )?{X} (?:first )?before (?:you (?:reach|visit|go to|get to|enter) )?"
    rf"{X}$"
)


def _visit_both(text: str) -> _Reading | None:
    """An order between two places and a clause that says both are visited: "reach [a]
    before [b], and reach both", "never [b] before [a], but visit both" (ordered visit);
    None if *text* has no such clause.

    >>> _visit_both("go to [a] before [b], and visit both").pattern
    'ordered_visit'
    """
    found = _BOTH.fullmatch(text)
    if found is None:
        return None
    order = found.group(1)
    tasks = (found.group("verb") or found.group("done")) in ("do", "complete", "finish", "done",
                                                            "completed")  # fmt: skip
    plain = _BEFORE.fullmatch(order)
    steps = re.fullmatch(r"(.+?) (?:first )?before (.+)", order) if tasks else None
    first_step, then_step = (
        (_clause(steps.group(1)), _clause(steps.group(2))) if steps else (None, None)
    )
    if plain:
        first, then = ap(f"agent_at({plain.group(1)})"), ap(f"agent_at({plain.group(2)})")
    elif first_step and then_step and first_step.literal and then_step.literal:
        first, then = first_step.literal, then_step.literal  # "open [a] before [b] …, do both"
        if first_step.avoid or then_step.avoid or "!" in (first.op, then.op):
            raise _Refusal("'do both' after a prohibition")
    else:
        reading = _decide(order)
        if reading.pattern != "not_before" or len(reading.items) != 1:
            raise _Refusal("'both' after a rule that is no order of two steps")
        then, first = reading.items[0]
    if not tasks and not all(str(f).startswith('"agent_at(') for f in (first, then)):
        raise _Refusal("'visit both' after an order that is not between places")
    return _Reading("ordered_visit", ((first, then),), "order, and do both")


def _decide(text: str) -> _Reading:
    cues = cue_classes(text)
    if ANY_ORDER.search(text):  # "[a], [b] (in any order)": things to do, no route
        cues = cues - {"sequence"}
    elif _is_multi_route(text):
        cues = cues | {"sequence"}
    chosen = next((c for c in PRIORITY if c in cues), "visit")  # no cue: a plain instruction
    if not _LETTER.search(text):
        raise _Refusal("no cue says which pattern it states")
    if chosen == "sequence" and not _is_route(text):
        chosen = next(
            (c for c in PRIORITY[PRIORITY.index("sequence") + 1 :] if c in cues), "sequence"
        )
    try:
        return _FRAMES[chosen](text)
    except _Refusal as why:
        raise _Refusal(f"its {chosen} cue decides the frame, which refuses: {why}") from None


# "close [a] and [b] within 2 steps of opening them": one list, then "them" about each thing.
_THEM_EACH = re.compile(
    r"^([^\[\]]*?)((?:\[[a-z]\]\s*,\s*)*\[[a-z]\],?\s+and\s+\[[a-z]\])([^\[\]]*\bthem\b[^\[\]]*)$",
    re.IGNORECASE,
)
#: Patterns that a sentence with "them" may be read as, once per thing.
_PER_THING = ("response", "immediate_response", "bounded_delay")


def _them_each(lifted: str) -> _Reading:
    """A reaction about a list, read once per thing with "them" as that thing ("close [a] and
    [b] within 2 steps of opening them"); only a reaction: "open [a] and [b], then close them"
    is no pair of routes.

    >>> _them_each("Close [a] and [b] right after opening them.").pattern
    'immediate_response'
    """
    m = _THEM_EACH.fullmatch(lifted)
    if m is None:
        raise _Refusal("'them' about no list")
    them = re.compile(r"\bthem\b", re.IGNORECASE)
    readings = [
        _decide(prepare(m.group(1) + f"[{x}]" + them.sub(f"[{x}]", m.group(3))))
        for x in _letters(m.group(2))
    ]
    if {r.pattern for r in readings} - set(_PER_THING) or len({r.pattern for r in readings}) != 1:
        raise _Refusal("'them' in a sentence that is no reaction about each thing")
    items = tuple(item for r in readings for item in r.items)
    return _Reading(readings[0].pattern, items, readings[0].form + " (each of a list)")


# One thing on or in another: a two-place state the frames do not read.
_ON_THING = re.compile(
    r"\[[a-z]\] (?:is|are|was|were|sits|stays) (?:still )?(?:on|in|inside) \[[a-z]\]"
)


class FrameReader:
    """Read a lifted sentence by its cue classes (see the module docstring).

    Calling it returns a :class:`~safetychip.translate.LiftedTranslation` (its ``form``
    begins with ``frames:``); a sentence it cannot read without guessing raises
    :class:`~safetychip.errors.OutOfGrammarError`.
    """

    name = "offline-frames"

    def __call__(self, lifted: str) -> LiftedTranslation:
        """Translate *lifted* (a sentence with placeholders ``[a]``, ``[b]``…).

        Raises
        ------
        OutOfGrammarError
            When no cue decides a frame, or the deciding frame cannot read the sentence.
        """
        plural = r"\b(?:them|they|their|those|these)\b"
        stripped = _LIST_INTRO.sub("", _STEPS_REFERENCE.sub("", lifted))
        if re.search(plural, stripped, re.IGNORECASE) and not _THEM_EACH.fullmatch(stripped):
            raise OutOfGrammarError(
                f"the frame reader cannot read {lifted!r}: it does not resolve a plural pronoun",
                lifted,
            )
        text = prepare(lifted)
        try:
            reading = _read(text) if _THEM_EACH.fullmatch(stripped) is None else _them_each(lifted)
        except _Refusal as why:
            raise OutOfGrammarError(
                f"the frame reader cannot read {lifted!r}: {why}", lifted
            ) from None
        each = reading.pattern in _COUNTED and re.search(r"\beach\b", text)  # each on its own
        if (
            re.search(r"\b(?:or|nor)\s+\[", text)
            and reading.pattern not in _PROHIBITIONS
            and not each
        ):
            raise OutOfGrammarError(
                f"the frame reader cannot read {lifted!r}: 'or' between things in a "
                f"{reading.pattern} may mean either one",
                lifted,
            )
        if any(len(item) == 2 and item[0] == item[1] for item in reading.items):
            raise OutOfGrammarError(  # "[a] is to be visited, and [b] … after it"
                f"the frame reader cannot read {lifted!r}: a reaction to itself", lifted
            )
        result = _result(reading)
        if _ON_THING.search(text) and not re.search(r"is_(?:on|in)\(", str(result.formula)):
            raise OutOfGrammarError(  # "when [a] is on [b]": the two-place state, not two
                f"the frame reader cannot read {lifted!r}: it says one thing is on or in another",
                lifted,
            )
        used = {x for a in result.formula.atoms() for x in re.findall(r"[(,](\w)(?=[,)])", a)}
        if used != set(_letters(text)):
            raise OutOfGrammarError(
                f"the frame reader cannot read {lifted!r}: not every thing has a role", lifted
            )
        return result

    def __repr__(self) -> str:
        return "<FrameReader>"
