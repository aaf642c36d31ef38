"""The offline pattern translator: lifted English to a lifted formula, by a small grammar.

It reads the avoidance and trigger families of constraints, over *clauses* about the
placeholders (``go to [a]``, ``pick up [a]``, ``[a] is open``, ``put [a] in [b]``…):

==========================================================  ==================================
form                                                        pattern
==========================================================  ==================================
never C; do not C; avoid [a]; stay out of [a]; keep [a]      never
shut; C is forbidden; [a] is off limits
do not C1 before/until C2; only C1 after/once C2; wait       not_before
until C2 before C1; stay out of [a] until C2; C1 requires
C2 first (beforehand)
C1 before C2                                                 before
first C1, then C2                                            sequenced_visit
if/whenever/once/after C1, C2 [later]; C2 if you ever C1;    response
C1 means C2 later; must C2 if ever C1; do not leave [a] open
… immediately / right after / right away / next / directly   immediate_response
… never C2 (again) / stay out of [a] / do not C2 anymore     absence_after
C at most / no more than / only … n times                    at_most
C exactly n times; once and only once; n times               exactly
C at least n times; n or more times; make sure you C         at_least
always hold [a] with your right hand (never in the left)     never
do not pour anything near [a] (each thing that pours)        avoid_while
while/if/when in [a] (holding/having/carrying [b]), never C  avoid_while
when in [a], [b] must be off (another thing's state)         instantaneous_reaction
==========================================================  ==================================

The clauses cover VirtualHome's other actions too: ``sit on [a]``, ``lie on [a]``, ``face
[a]``, ``hold [a] in your left hand``, ``wear [a]``, ``wash [a]`` / ``[a] is dirty``, ``plug
in [a]`` / ``unplug [a]``, ``pour [a]``; ``do not leave [a] dirty`` (or plugged in) reads like
``do not leave [a] open``: on a finite run, [a] is not dirty at the end. "Anything" in ``do
not pour anything near [a]`` stands for :data:`ANYTHING`, which the translator replaces by
each thing of the scene that can be poured (one part per thing; see
:meth:`~safetychip.translate.Vocabulary.able_names`).

Pronouns (*it*, *them*, *there*) refer to the nearest placeholder before them. Anything
else raises :class:`~safetychip.errors.OutOfGrammarError`, which says plainly that the
sentence is outside the grammar and which forms it reads. Every placeholder of the sentence
must appear in the formula; a reading that drops one is not accepted.

Examples
--------
>>> t = PatternTranslator()
>>> r = t("Don't go to [a] before you have been to [b].")
>>> print(r.formula), r.pattern
!"agent_at(a)" W "agent_at(b)"
(None, 'not_before')
>>> print(t("You must close [a] if you ever open it").formula)
G("is_open(a)" -> F!"is_open(a)")
>>> t("Dance with [a].")
Traceback (most recent call last):
...
safetychip.errors.OutOfGrammarError: 'Dance with [a].' is outside the offline translator's
grammar: no form reads it. It reads: never …; don't … before/until …; … before …;
if/once/whenever … then …; … means … later/immediately/never again; … if you ever …;
at most/exactly/at least n times; make sure you …; never … while/unless you are in …; go
to …, then …; patrol …; stay in … until …. Rephrase the sentence, or translate it with a
language model.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import OutOfGrammarError
from ..ltl import And, Formula, Not, Or, ap, build_pattern
from ._clauses import Clause, read_clause
from ._reading import LiftedTranslation, no_double_negation, renamed, substitute

__all__ = [
    "Clause",
    "LiftedTranslation",
    "ListReading",
    "PatternTranslator",
    "ANYTHING",
    "collapse_list",
    "constraint_clauses",
    "normalize",
    "read_clause",
    "spread_anything",
    "timing_cues",
    "unaccounted_clauses",
]

_FORMS = (
    "never …; don't … before/until …; … before …; if/once/whenever … then …; … means … "
    "later/immediately/never again; … if you ever …; at most/exactly/at least n times; "
    "make sure you …; never … while/unless you are in …; go to …, then …; patrol …; "
    "stay in … until …"
)

# -- words ------------------------------------------------------------------------------------

_IRREGULAR = {
    "go": "go goes going gone went",
    "be": "be is are am was were been being",
    "get": "get gets getting got gotten",
    "take": "take takes taking took taken",
    "put": "put puts putting",
    "set": "set sets setting",
    "come": "come comes coming came",
    "run": "run runs running ran",
    "leave": "leave leaves leaving left",
    "hold": "hold holds holding held",
    "keep": "keep keeps keeping kept",
    "see": "see sees seeing saw seen",
    "have": "have has having had",
    "shut": "shut shuts shutting",
    "let": "let lets letting",
    "lay": "lay lays laying laid",
    "stand": "stand stands standing stood",
    "bring": "bring brings bringing brought",
    "drop": "drop drops dropping dropped",
    "grab": "grab grabs grabbing grabbed",
    "stop": "stop stops stopping stopped",
    "step": "step steps stepping stepped",
    "travel": "travel travels travelling traveling travelled traveled",
    "end": "end ends ending ended",
    "wander": "wander wanders wandering wandered",
    "sit": "sit sits sitting sat",
    "lie": "lie lies lying lay lain",
    "wear": "wear wears wearing wore worn",
    "plug": "plug plugs plugging plugged",
    "unplug": "unplug unplugs unplugging unplugged",
}


def _forms(verb: str) -> str:
    if verb in _IRREGULAR:
        words = _IRREGULAR[verb].split()
    else:
        if verb.endswith("e") and not verb.endswith("ee"):
            ing, ed, s = verb[:-1] + "ing", verb + "d", verb + "s"
        elif verb.endswith("y") and verb[-2] not in "aeiou":
            ing, ed, s = verb + "ing", verb[:-1] + "ied", verb[:-1] + "ies"
        else:
            ing, ed = verb + "ing", verb + "ed"
            s = verb + ("es" if verb.endswith(("s", "sh", "ch", "x", "z")) else "s")
        words = [verb, s, ing, ed]
    return "(?:" + "|".join(sorted(set(words), key=len, reverse=True)) + ")"


def _v(*verbs: str) -> str:
    return "(?:" + "|".join(_forms(v) for v in verbs) + ")"


X = r"\[([a-z])\]"
BE = _v("be")
MODAL = (
    r"(?:(?:must|should|will|would|can|could|may|might|shall|has to|have to|had to|"
    r"needs to|need to|is to|are to|ought to|is going to|are going to|got to)\s+)?"
)
_GO = _v(
    "go",
    "walk",
    "move",
    "run",
    "head",
    "come",
    "get",
    "travel",
    "return",
    "wander",
    "proceed",
    "drive",
    "hurry",
    "rush",
    "pop",
    "arrive",
    "nip",
    "duck",
    "swing",
    "dash",
)
_TO = (
    r"(?:to|into|in|inside|toward|towards|through|past|near|by|up to|in to|over to|down to|"
    r"round to|around|back to|back into|over|across|out to|on to|onto|on over to)"
)
_ADV = r"(?:(?:back|straight|directly|right|over|immediately|quickly|again)\s+)*"
_ENTER = _v(
    "enter",
    "visit",
    "reach",
    "approach",
    "pass",
    "cross",
    "use",
    "see",
    "explore",
    "occupy",
    "inspect",
    "check",
    "tour",
    "attend",
    "hit",
)
_AT = r"(?:in|at|inside|near|by|next to|close to|beside|within|to|into)"
_GRAB = _v(
    "grab",
    "take",
    "hold",
    "carry",
    "seize",
    "grasp",
    "fetch",
    "collect",
    "get",
    "have",
    "obtain",
    "lift",
    "retrieve",
    "remove",
)
_PUT = _v(
    "put",
    "place",
    "set",
    "drop",
    "leave",
    "store",
    "return",
    "bring",
    "move",
    "get",
    "stick",
    "lay",
    "stow",
    "keep",
    "throw",
    "toss",
    "load",
    "slide",
)
_IN = r"(?:back\s+)?(?:in|into|inside|in to|within)"
_HOLD = rf"(?:{_GRAB}|{_v('pick', 'lift')}\s+up)"
_HAND = r"(?:with|in|using)\s+(?:your\s+|the\s+|one's\s+|its\s+)?"
_ON = r"(?:back\s+)?(?:on|onto|on top of|upon|on to)"


def _atom(predicate: str, *letters: str) -> Formula:
    return ap(f"{predicate}({','.join(letters)})")


# -- normalisation -------------------------------------------------------------------------------

#: Words that say the order of the visits does not matter ("in any order", "which one first is
#: no problem", "no worries which one's first").
ANY_ORDER = re.compile(
    r"\b(?:(?:in )?(?:any|whatever|whichever|either|no particular) order|"
    r"(?:the )?(?:order|sequence) (?:does not|doesn't|doesnt|do not|don't) matter|"
    r"(?:the )?(?:order|sequence)(?: it)? is (?:not important|unimportant|irrelevant|immaterial|"
    r"up to you|"
    r"egal|free|optional)|regardless of (?:the )?order|any order(?:'s| is) fine|"
    r"(?:(?:i|we) )?(?:do not|don't|dont) care (?:about the order|which (?:one )?(?:first|"
    r"comes first))|"
    r"(?:no worries|never mind|(?:it )?(?:does not|doesn't) matter)(?: about)? which "
    r"(?:one(?:'s| is)? |comes )?first|(?:the )?order (?:irrelevant|unimportant|not important)|"
    r"which (?:one )?(?:first|comes first)(?: is)? "
    r"(?:no problem|fine|not important|up to you|egal|irrelevant)|"
    r"no ordering (?:constraint|requirement)|(?:in )?any sequence|whichever (?:one )?first)\b"
)


def _said_again(rule: str, again: str) -> str:
    r"""A pattern for a sentence holding *rule* and the short sentences after it that only
    say it again (*again*), which the replacement ``\1`` drops.

    >>> again = _said_again(r"\bnever\b", "(?:never|ever)")
    >>> re.sub(again, r"\1", "never open [a]. never! ever.")
    'never open [a].'
    """
    return rf"({rule}[^.!?]*[.!?]+)(?: {again}(?:[.!?]+(?= |$)|$))+"


# Between the two halves of a terse response: "[a] on → [a] off", "[a] opened, [a] closed".
_TERSE_THEN = r"\s*(?:,|:|→|->|=>|\?|\.)\s*(?:then )?"

_CONTRACTIONS = [
    (r"\bdon't you dare\b", "do not"),
    (r"\bdon't you (?:ever )?go\b(?= \w+ing\b)", "do not"),  # "don't you go holding"
    (r"\bdon't you ever\b", "never"),
    (r"\bnever you\b", "never"),
    (r"\bdon't\b", "do not"),
    (r"\bdoesn't\b", "does not"),
    (r"\bdidn't\b", "did not"),
    (r"\bcan't\b", "cannot"),
    (r"\bwon't\b", "will not"),
    (r"\bshouldn't\b", "should not"),
    (r"\bmustn't\b", "must not"),
    (r"\bisn't\b", "is not"),
    (r"\baren't\b", "are not"),
    (r"\bwouldn't\b", "would not"),
    (r"\bcouldn't\b", "could not"),
    (r"\bmayn't\b", "may not"),
    (r"\bshan't\b", "shall not"),
    (r"\byou've\b", "you have"),
    (r"\byou're\b", "you are"),
    (r"\b(?:your|youre) (?=(?:in|at|inside) )", "you are "),  # "unless your in [a]"
    (r"\byou'll\b", "you will"),
    (r"\byou'd\b", "you would"),
    (r"\bit's\b", "it is"),
    (r"\bi'm\b", "i am"),
    (r"\bthey're\b", "they are"),
    (r"\bthat's\b", "that is"),
    (r"\bhaven't\b", "have not"),
    (r"\bhasn't\b", "has not"),
    (r"\blet's\b", "let us"),
    (r"\bwanna\b", "want to"),
    # a trigger asked with its verb first: "Opened [a]? Close it …" is "[a] opened? …"
    (
        r"(^|[.;:!?] )(opened|switched on|turned on|grabbed|picked up|touched) (\[[a-z]\])\s*\?",
        r"\1\3 \2?",
    ),
    (r"\b(\d+) ?x\b", r"\1 times"),  # "max 3x"
    (r"\ba couple (?:of )?(?=(?:times|steps)\b)", "two "),
    (r"\bat (?:the )?minimum\b", "at least"),  # "twice at minimum"
    (r"\bat (?:the )?maximum\b", "at most"),
    # "minimal two times", "in the maximum 3 times", "until 2 times only": other Englishes
    (
        r"\b(?:minimal|in the minimum|minimum|min\.?)(?= (?:\d+|one|two|three|four|five|six) "
        r"times?\b)",
        "at least",
    ),
    (
        r"\b(?:in the maximum|until|maximum|max\.?)(?= (?:\d+|one|two|three|four|five|six) "
        r"times?\b)",
        "at most",
    ),
    (r"\b(in|at|on) next (step|move|turn|action)\b", r"\1 the next \2"),  # article left out
    # a place as a condition before a colon is a state, as before a comma: "when in [a]: …"
    (
        r"(^|[.;!?] )((?:while|whilst|when|whenever|if) (?:you are )?(?:in|inside|at) "
        r"\[[a-z]\])\s*:",
        r"\1\2,",
    ),
    # a tag question asks for agreement, it negates nothing: "…, no?", "…, na?"
    (r",\s*(?:no|yes|na|ja)\s*\?(?=\s|$)", "?"),
    # "not later" beside "right away" or "immediately" says again that it is due at once
    (
        r"((?:right after|right away|immediately|at once|straight away|straight after)"
        r"[^.;!?]*?),?\s*(?:and |but )?not later\b",
        r"\1",
    ),
    # "any time you are in [a]" is "whenever", not "at any time" ("never, at any time")
    (r"(?<!\bat )\bany ?time (?=(?:you|the robot|robot)\b|\[[a-z]\])", "whenever "),
    # the thing first, the verb after its count: "[a] — maximum 3 time open"
    (
        r"(\[[a-z]\])\s*(?:—|–|--|:)\s*((?:at most|at least|exactly) )?"
        r"(\d+|one|two|three|four|five|six) times? (open|switch on|switch off|turn on|turn off|"
        r"visit|enter|touch|grab|pick up)\b",
        r"\4 \1 \2\3 times",
    ),
    # "the living room's out until …", "[a] stays off limits till …"
    (
        r"(^|[,.;:?!] |\b(?:then|and|but|so) )(\[[a-z]\]) (?:is |are )?out(?= (?:until|till|unless|"
        r"for you|from|after|before|now|today|tonight)\b|[,.;!?]|$)",
        r"\1\2 is off limits",
    ),
    (r"\b(?:stays|remains) off limits\b", "is off limits"),
    (r"\bmaximally\b", "at most"),  # "maximally 3 times"
    (r"\bminimally\b", "at least"),
    (r"\bthen (?:afterwards|after that)\b", "then"),
    (r"[,;.]? ?\bjust get (?:both|them|all|it|everything)(?: of them)? done\b", ""),
    # the place put first: "into [a] you may go only after …", "in [a] you stay until …",
    # "[a]'s where you stay till …", "to [a] go at most twice"
    (
        r"(^|[.;:!?,] (?:and |but )?)(into|in|inside|to) (\[[a-z]\]) you "
        r"((?:may|can|must|shall|should|will) )?(go|enter|come)\b",
        r"\1you \4\5 \2 \3",
    ),
    (r"(^|[.;:!?] )(in|inside) (\[[a-z]\]) you (stay|remain|wait)\b", r"\1you \4 \2 \3"),
    (r"(^|[.;:!?] )(\[[a-z]\]) (?:is )?where you (stay|remain|wait)\b", r"\1you \3 in \2"),
    (r"(^|[.;:!?] )to (\[[a-z]\]) (go|come)\b", r"\1\3 to \2"),
    # "till the bread's on [c]" lifted: "till [b] on [c]"
    (
        r"\b(until|till|before|once|when|whenever|while|unless) (\[[a-z]\]) "
        r"(?=(?:on|in|inside|off|open|closed|shut)\b)",
        r"\1 \2 is ",
    ),
    # "without going to [a] first, don't …": the rule first
    (
        r"(^|[.;:!?] )without (\w+ing (?:(?:to|in|into|on|up) )?\[[a-z]\]) first, ([^.;!?]+)",
        r"\1\3 before \2",
    ),
    (
        r"\bleave (\[[a-z]\] (?:open|closed|shut|switched on|switched off))(?= (?:until|till)\b)",
        r"keep \1",
    ),  # "leave [a] open until …": a state kept, not a room left
    # a radio operator's "negative": "negative [a] until …", "negative [b] first"
    (r"(^|[,.;:!?] )negative(?= \[[a-z]\])", r"\1no"),
    # waiting in a room: "sit / rest / hold / stand by in [a] till …"
    (
        r"\b(?:sit|rest|hold|stand by|stay put|stay tuned|hang (?:around|about)|linger|remain|"
        r"wait)(?= (?:in|inside|at) \[[a-z]\],? (?:until|till|untill)\b)",
        "stay",
    ),
    (r"\b(?:hang|hold) on ?to(?= \[[a-z]\])", "keep holding"),  # "hang onto [a] till …"
    # "keep holding [a] until …, don't put it down": the same rule said again
    (
        r"\b(keep holding (\[[a-z]\]) (?:until|till) [^,.;!?]+)[,.;!?]+ (?:and )?do not "
        r"(?:put (?:it|\2) down|put down (?:it|\2)|drop (?:it|\2)|let go of (?:it|\2))"
        r"(?: (?:mid-?move|on the way|before then|till then|until then|in between))?(?=[,.;!?]|$)",
        r"\1",
    ),
    (r"(\[[a-z]\]) (?:is )?(?:embargoed|banned|barred|out of bounds)\b", r"\1 is off limits"),
    # the place of an "only" said again: "only in [b]. Anywhere else, don't."
    (
        r"(\bonly\b[^.;!?]*)[,.;!?]+ (?:but )?(?:anywhere|everywhere|other (?:place|room)s?|"
        r"elsewhere|any other (?:place|room))(?: else)?,? (?:no|not|do not|never|negative|"
        r"forbidden|not allowed)[.!?]*$",
        r"\1",
    ),
    (r"\bduring(?= (?:you are|you're|the robot is|robot is)\b)", "while"),
    (r"\b((?:may|must|can|should|are|will) not|cannot|do not) at any (?:time|point)\b", r"\1"),
    (r"\bnever,? ever\b", "never"),
    # a prohibition said again for emphasis: "Never pick up [a]. Not once, not ever."
    (
        _said_again(
            r"\b(?:never|do not|no|not|cannot|off limits)\b",
            r"(?:no exceptions|not once,? not ever|not ever|never|ever|i mean it|period|full stop|"
            r"end of story|no ifs,? no buts)(?:,? on or off the record)?",
        ),
        r"\1",
    ),
    (
        r"\bit is (?:strictly )?(?:forbidden|prohibited|not allowed|not permitted) "
        r"(?:for you )?to\b",
        "do not",
    ),
    # a place forbidden until something happens: "[a] is forbidden before you go to [b]"
    (
        r"(\[[a-z]\]) (?:is|are) (?:strictly )?(?:forbidden|prohibited|banned|not allowed|"
        r"off limits|off-limits|out of bounds)(?= (?:before|until|till|unless)\b)",
        r"do not go to \1",
    ),
    # what is forbidden of a thing, after it: "[b] is forbidden to switch on"
    (
        r"(\[[a-z]\]) (?:is|are) (?:strictly )?(?:forbidden|prohibited|banned|not allowed|"
        r"not permitted) (?:for you )?to (?!be\b)(\w+(?: up| on| off| out| in)?)\b",
        r"do not \2 \1",
    ),
    (
        r"\b(while|whilst|when|whenever|if|unless|as long as) (?:the )?robot (?:holds|carries|has)"
        r"(?= \[)",
        r"\1 you are holding",
    ),
    (r"\b(while|whilst|when|whenever|if|unless|as long as) (?:the )?robot is\b", r"\1 you are"),
    # the place first: "only in [a] you can switch on [b]"
    (
        r"(^|[.;:!?] )only (in|inside|at|from) (\[[a-z]\]) you (?:can|may|are allowed to) "
        r"([^,.;!?]+)",
        r"\1you may \4 only \2 \3",
    ),
    (
        r"(\[[a-z]\]) (may|can|is to) only be (\w+(?: up| on| off)?) from (?=\[[a-z]\])",
        r"\1 \2 only be \3 in ",
    ),
    (r"^(\[[a-z]\]): (?=to be\b)", r"\1 is "),  # "[a]: to be picked up only in [b]"
    # a bound of steps: "in not more than 3 steps", "inside of two steps", "three gentle steps"
    (
        r"\b(?:in (?:not more than|no more than|at most)|inside(?: of)?)"
        r"(?= \S+ (?:\w+ )?(?:steps?|moves?)\b)",
        "within",
    ),
    (
        r"\b(within \S+) (?:gentle|quick|short|small|brief|little|easy|more|further)"
        r"(?= (?:steps?|moves?)\b)",
        r"\1",
    ),
    # the bound before the response: "when you switch on [a], within 3 steps stop it"
    (
        r", within (\S+ (?:steps?|moves?)),? (stop|switch off|turn off|close|shut|put down) "
        r"(it|\[[a-z]\])",
        r", \2 \3 within \1",
    ),
    # a response told tersely: "[a] opened, [a] closed within two steps", "[a] on → [a] off"
    (
        rf"^(\[[a-z]\]) (?:is |gets |goes )?open(?:ed)?{_TERSE_THEN}(?:\1|it) "
        r"(?:is |gets |goes |must be |has to be )?(?:closed|shut)\b",
        r"whenever \1 is opened, \1 must be closed",
    ),
    (
        rf"^(\[[a-z]\]) (?:is |gets |goes )?(?:switched |turned )?on{_TERSE_THEN}(?:\1|it) "
        r"(?:is |gets |goes |must be |has to be )?(?:switched |turned )?off\b",
        r"whenever \1 is switched on, \1 must be switched off",
    ),
    (
        rf"^(\[[a-z]\]) (?:is |gets |goes )?(?:switched |turned )?on{_TERSE_THEN}"
        r"(?:switch|turn) (?:\1 |it )?off\b",
        r"whenever \1 is switched on, switch off \1",
    ),
    (
        rf"^(\[[a-z]\]) (?:is |gets |goes )?open(?:ed)?{_TERSE_THEN}(close|shut) (?:\1|it)?",
        r"whenever \1 is opened, \2 \1",
    ),
    # the bound said again: "… within four steps. No delay beyond that."
    (
        _said_again(
            r"\bwithin \S+ (?:steps?|moves?)\b",
            r"(?:no delay beyond that|no later|not later|no lingering|no exceptions|acknowledge|"
            r"every time|each time)",
        ),
        r"\1",
    ),
    (r"\s+(?:lah|leh|lor)\b|\s+ah(?=[,.;!?]|$)", ""),  # Singapore and Malaysia particles
    (r"\b(?:uve|u've)\b", "you have"),
    (r"[.,]? (?:fr|frfr|no cap)$", ""),  # texting: "for real"
    # a visit in other words: "till you've washed up in [b]", "until you've looked in on [b]"
    (
        r"\b(until|till|before|once|after|since) (?:you have|you|(?:the )?robot has) "
        r"(?:washed up in|looked in on|reported in at|been through|gone through|passed through|"
        r"cleared|swung through|popped into|popped in|dropped by|stopped by|checked in at|"
        r"checked on|checked in on|hit)"
        r"(?= \[)",
        r"\1 you have been in",
    ),
    # "until you did not visit [a]" (a double negative of other languages): until you visit it
    (
        r"\b(until|till) you (?:did not|have not|do not|had not) (visit|go to|enter|been in|"
        r"be in)(?= \[)",
        r"\1 you \2",
    ),
    (r"\b(enter|entering|entered) to(?= \[)", r"\1"),
    (r"^first when\b", "only after"),  # "first when you have been in [a], …" (Nordic "först när")
    (r"\bhold off (?:on|from) (?=\w+ing \[)", "no "),  # "hold off on opening [a] until …"
    (r"\bleave (\[[a-z]\]) alone(?= (?:until|till)\b)", r"do not touch \1"),
    # the verb "be" left out: "when you in [a], …", "unless you in [a]"
    (
        r"\b(while|whilst|when|whenever|if|unless|as long as) you (?=(?:in|inside|at) \[)",
        r"\1 you are ",
    ),
    # "on" / "off" as a verb, as some Englishes say it: "after you on [a]", "must on [a]"
    (
        r"\b(you|u|to|cannot|can not|must|must not|do not|never|please|pls) (on|off)(?= \[)",
        r"\1 switch \2",
    ),
    # a step entered once before the next: "visit [a] exactly once before [b]", "enter [a] only
    # one time before you go to [b]"
    (r"\bon exactly one occasion\b", "once"),
    (
        r"\b(?:only |just (?:the )?)?(?:one|1|a single) (?:pass|trip|visit|entry) (?:through|thru|"
        r"to|into|in) (\[[a-z]\])(?=,? then| (?:only )?before (?!it\b))",
        r"\1 once",
    ),
    (  # not when a route was told before it: "[a], then [b]. [a] only once before [b]"
        r"^((?:(?!\bthen\b|[.;!?—–])[\s\S])*?)(\[[a-z]\]) ((?:only |just |exactly |but )?"
        r"(?:once|one (?:single )?time|a single time)(?: only)?),? (?:and only once,? )?"
        r"(?:only )?before (?:you (?:go|get|head|move on) (?:on )?(?:to|into|in) |"
        r"(?:going|heading|moving|carrying) on to |heading to |entering |visiting |reaching )?"
        r"(\[[a-z]\])",
        r"\1\2 \3, then \4",
    ),
    (r"\b(?:not (\[[a-z]\]) beforehand|(\[[a-z]\]) not beforehand)\b", r"not \1\2 first"),
    (r"\bfirstly\b", "first"),
    (r"\bunless and until\b", "until"),
    # a place closed to the robot until … (never a thing that stays shut: that is its state)
    (
        r"(\[[a-z]\]) (?:is |stays |remains )?(?:locked|blocked|closed|shut) (?:to|for) "
        r"(?:you|the robot|robot)(?= (?:until|till|untill)\b)",
        r"\1 is off limits",
    ),
    (
        r"(\[[a-z]\]) (?:is|are) (?:closed|shut|86'd|eighty-sixed) (?:to|for) you\b",
        r"\1 is off limits",
    ),
    (r"\bprecisely\b", "exactly"),
    (r"\bnot one (more|less|fewer)\b", r"not \1"),
    # "don't start in [b]", "don't open with [b]": not [b] first
    (
        r"\b(?:do not|never) (?:(?:start|begin) (?:in|from|with|at)|(?:open|lead) with) "
        r"(\[[a-z]\])",
        r"not \1 first",
    ),
    (r"\b(go|come)(?= \[[a-z]\])", r"\1 to"),  # "go [a] only one time"
    (r"\bmore'n\b", "more than"),
    (r"\b(more|less|fewer|other|rather) then\b", r"\1 than"),  # "more then once"
    (r"\batleast\b", "at least"),
]
# "it" is no pronoun as the dummy subject of a verdict: "the order, it is not important".
_PRONOUN = re.compile(
    r"\b(it(?! (?:is (?:not |really not )?(?:important|unimportant|fine|ok|okay|irrelevant|egal|"
    r"up to you|no problem|not a problem|the same|all the same)|does not matter|matters|"
    r"going)\b)|"
    r"(?<!both of )them|there|that one|this one)\b"
)
# A pronoun after a word of time ("ahead of it", "before it") and the breaks between clauses.
_TIME_BEFORE = re.compile(r"\b(?:before|ahead of|after|until|till|prior to)\s+$")
_CLAUSE_START = re.compile(r"[,;.]|\b(?:and|but)\b")
# Words against a second entry before the next step: a strictly ordered visit.
NO_RETURN = re.compile(
    r"\b(?:once|one time|single|just the one|only the one|again|back|return\w*|re-?ent\w*|"
    r"revisit\w*|repeat\w*|twice|second|in between|between|meantime|interim|strict\w*|"
    r"more than one|1 times?|x ?1|1 ?x)\b"
)


def own_letters(text: str, end: int) -> set[str]:
    """The placeholders of the clause of *text* that runs up to *end* ("… and never enter [b]
    ahead of it": {"b"}).

    >>> sorted(own_letters("see to [a], and never enter [b] ahead of it", 41))
    ['b']
    """
    return set(re.findall(r"\[([a-z])\]", _CLAUSE_START.split(text[:end])[-1]))


_AFTER_PREPOSITION = re.compile(
    r"\b(?:in|into|inside|on|onto|to|at|from|near|by|of|"
    r"toward|towards|through|past)\s+$"
)
# "go there" reads "go to [a]".


# Politeness and chat around the constraint itself ("could you please …", "…, ok?").
_POLITE_START = re.compile(
    r"^(?:please|robot|hey robot|hey there|hey|hi|(?:ok|okay|so|listen|look|alright|right)\s*,|"
    r"simply|"
    r"sure(?! enough\b)|"
    r"if it is not too much trouble|if you do not mind|if you would not mind|if you can|"
    r"if (?:at all )?possible|where possible|whenever possible|ideally|(?:please )?try to|"
    r"today|tonight|"
    r"if you could|maybe|when you get a (?:sec|second|minute|moment|chance)|"
    r"one more thing|important|note|rule|safety rule|reminder|just so you know|"
    r"for the last time|going forward|(?:just )?(?:so it is clear|to be clear)|my use case|"
    r"(?:the )?rule i am trying to (?:encode|state|write)|"
    r"could you(?: please)?|can you(?: please)?|would you(?: please)?|will you(?: please)?|"
    r"(?:cannot|could not|would not|will not) you(?: just| please)?|"  # "can't you just …?"
    r"would you mind|i want you to|i would like you to|i'd like you to|i need you to|"
    r"i would like it if you|you should know that|it is important that you|"
    r"it is important that|it is essential that you|keep in mind that you|keep in mind:|"
    r"remember that you|for safety reasons|for safety|to be safe|to stay safe|"
    r"as a rule|in general|generally)\s*[,:]?\s+"
)
_POLITE_END = re.compile(
    r"\s*,?\s+(?:please|thanks|thank you|ok|okay|alright|got it|understood|if you can|"
    r"if possible|for me|for now|thx|ty)$"
)


def unchat(text: str) -> str:
    """*text* (normalised) without the politeness and chat around the constraint.

    >>> unchat("could you please never go into [a], ok")
    'never go into [a]'
    """
    while True:
        before = text
        text = _POLITE_START.sub("", text)
        text = _POLITE_END.sub("", text).rstrip(".!?;: ").strip()
        if text == before:
            return text


def normalize(text: str) -> str:
    """Lower case, contractions expanded, punctuation at the end dropped, spaces collapsed,
    and pronouns replaced by the nearest placeholder before them.

    Examples
    --------
    >>> normalize("If you open [a], you MUST close it again!")
    'if you open [a], you must close [a] again'
    """
    return readings(text)[0]


@functools.lru_cache(maxsize=4096)
def clean(text: str) -> str:
    """*text* lower-cased, contractions expanded, spaces and end punctuation tidied; pronouns
    kept (:func:`readings` resolves them). Cached: one sentence is cleaned many times over
    (by each reader and each check), and the hundred rewrites cost a third of a millisecond."""
    t = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    t = t.lower()
    for pattern, repl in _CONTRACTIONS:
        t = re.sub(pattern, repl, t)
    t = re.sub(r"\s+", " ", t)
    t = ASKED.sub(r"\1 whether", t)
    t = _NO_TIME.sub("", t)
    t = re.sub(r"\s*([,;:])\s*", r"\1 ", t)
    t = t.strip().rstrip(".!?;: ").strip()
    if _AGENT_SUBJECT.match(t):  # "the robot may open [a] only while it is in [b]"
        t = _IT_IS_THERE.sub(r"\1 you are \2 ", t)
    t = re.sub(r"^(?:please|robot|hey robot|hey)\s*,?\s+", "", t)
    t = _ROUTE_TOLD.sub(r"\1 \2, then \3 \4", t)
    t = _GAPPED_COUNT.sub(_ungap, t)
    return re.sub(r",?\s+(?:please|pls|plz)(?=\s*(?:[,;]|$))", "", t)


_NUMBER = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)"
_COUNT = (
    r"(?:(?:at least|at most|exactly|no (?:more|fewer|less) than|not (?:more|fewer|less) than|"
    rf"minimum|maximum|max|min|up to) (?:{_NUMBER}(?: times?)?|once|twice|thrice)|"
    rf"(?:once|twice|thrice|{_NUMBER} times?)(?: (?:at (?:most|least)|max|maximum|minimum|tops|"
    r"exactly))?)"
)
_PLACE_WORD = r"(?:(?:to|in|into|inside|at|through) )"
# A count said for a second thing with the verb left out: "go to [a] at least 2 times and to
# [b] at least once", "enter [a] no fewer than two times, [b] no fewer than three".
_GAPPED_COUNT = re.compile(
    rf"^(?P<head>(?:[a-z' ]+ )?{_PLACE_WORD}?)\[(?P<a>[a-z])\](?P<first>(?: [a-z]+)*? {_COUNT}"
    r"(?: only| each| today)?)(?:[,;] (?:and )?|,? and )(?:also )?"
    rf"{_PLACE_WORD}?\[(?P<b>[a-z])\](?: also| too)? (?P<second>{_COUNT})(?: only| also| too)?$"
)


def _ungap(found: re.Match[str]) -> str:
    """Both counts of :data:`_GAPPED_COUNT` said in full.

    >>> _GAPPED_COUNT.sub(_ungap, "go to [a] at least 2 times and to [b] at least three")
    'go to [a] at least 2 times, and go to [b] at least three times'
    """
    head, first, second = found["head"], found["first"], found["second"]
    if re.search(r"\btimes?\b", first) and re.search(rf"{_NUMBER}$", second):
        second += " times"
    return f"{head}[{found['a']}]{first}, and {head}[{found['b']}] {second}"


# No time asked for: "any time is fine", "when does not matter", "whenever you like".
_NO_TIME = re.compile(
    r",?\s*(?:any time is (?:ok|okay|fine)|no matter (?:the time|when)|"
    r"no worries (?:about )?when|(?:it )?(?:does|do) not matter when|"
    r"not fussed (?:exactly )?when|(?:the )?when (?:does not matter|is not important|"
    r"is up to you)|it is not important when|whenever (?:suits(?: you)?|you (?:like|want|"
    r"wish|can))(?=\s*(?:[,;.]|$))|(?:during|in) the (?:day|run|task)|(?:there is )?no rush)\b"
)
# A question the speaker asks, not a condition: "I want to know if it's dry".
ASKED = re.compile(r"\b(know|see|tell|wonder|ask|find out) if\b")
# A sentence whose subject is the robot, and its "it is in …" (the robot, not the thing).
_AGENT_SUBJECT = re.compile(r"^(?:the )?(?:robot|agent|unit|device|bot)\b")
_IT_IS_THERE = re.compile(
    r"\b(while|when|whenever|if|unless|as long as|so long as) it is (in|at|inside) "
)
# A route told as what you do, in the present with no modal: "after you visit [a], you visit
# [b]" is "visit [a], then visit [b]" (an instruction "after you go to [a], go to [b]" or
# "…, you must go to [b]" stays a response).
_PLACE_VERB = r"(go to|go into|visit|enter|get to|reach|head to|walk to|come to)"
_ROUTE_TOLD = re.compile(
    rf"^after you {_PLACE_VERB} (\[[a-z]\]),? you (?:then )?{_PLACE_VERB} (\[[a-z]\])$"
)


def readings(text: str, limit: int = 6) -> list[str]:
    """:func:`normalize`'s text, then the other ways to resolve its pronouns, best first.

    A pronoun prefers the nearest placeholder before it that does not follow a preposition
    (the thing acted on); the alternatives try the others, nearest first.

    Examples
    --------
    >>> readings("Close [a] right after you put [b] in it")
    ['close [a] right after you put [b] in [b]', 'close [a] right after you put [b] in [a]']
    """
    t = clean(text)

    def choices(m: re.Match[str]) -> list[str]:
        found = [(x.group(1), x.start()) for x in re.finditer(r"\[([a-z])\]", t[: m.start()])]
        if not found:
            # "it is forbidden to …": a leading dummy "it" has nothing before it and stays.
            return [m.group()]
        if m.group() == "there":
            return [f"to [{x}]" for x in dict.fromkeys(x for x, _ in reversed(found))]
        # "it" names a thing acted on, rarely the place after a preposition ("put the milk in
        # the fridge right after you grab it"): prefer the nearest placeholder that is not.
        objects = [x for x, at in reversed(found) if not _AFTER_PREPOSITION.search(t[:at])]
        others = [x for x, _ in reversed(found)]
        order = list(dict.fromkeys(objects + others))
        if _TIME_BEFORE.search(t[: m.start()]):
            # "do not enter [b] ahead of it": not the thing of its own clause
            own = own_letters(t, m.start())
            order = [x for x in order if x not in own] + [x for x in order if x in own]
        return [f"[{x}]" for x in order]

    pronouns = list(_PRONOUN.finditer(t))
    options = [choices(m) for m in pronouns]
    out: list[str] = []
    for combo in itertools.islice(itertools.product(*options), limit):
        pieces, cursor = [], 0
        for m, word in zip(pronouns, combo):
            pieces += [t[cursor : m.start()], word]
            cursor = m.end()
        out.append("".join(pieces) + t[cursor:])
    return out


# -- counts -----------------------------------------------------------------------------------

_NUMBERS = {
    "zero": 0,
    "no": 0,
    "one": 1,
    "a": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_N = r"(?:\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|a)"
_TIMES = rf"(?:once|twice|thrice|{_N}\s+(?:single\s+|separate\s+|different\s+)?times?)"
_Q_BEFORE = (
    r"(?:at most|at the most|no more than|not more than|a maximum of|maximum of|up to|"
    r"fewer than|less than|at least|no fewer than|no less than|not less than|"
    r"not fewer than|a minimum of|minimum of|exactly|precisely|only|just|"
    r"more than|over)"
)
_Q_AFTER = (
    rf"(?:at most|at the most|max|maximum|tops|at least|or more|or fewer|or less|"
    rf"and only (?:{_TIMES})|,? no more(?:,)? (?:and|or|nor) no less|,? no more no less|"
    r"and no more|exactly|,? not more|,? not less|,? not fewer|,? no fewer)"
)


def count_value(times: str) -> int:
    times = times.strip()
    if times == "once":
        return 1
    if times == "twice":
        return 2
    if times == "thrice":
        return 3
    word = times.split()[0]
    return int(word) if word.isdigit() else _NUMBERS[word]


def count_kind(qualifier: str) -> tuple[str, int]:
    """(pattern, adjustment of n) for a qualifier word."""
    q = qualifier.strip(" ,")
    if q in (
        "at most",
        "at the most",
        "no more than",
        "not more than",
        "a maximum of",
        "maximum of",
        "up to",
        "max",
        "maximum",
        "tops",
        "or fewer",
        "or less",
        "and no more",
        "not more",
        "only",
        "just",
    ):
        return "at_most", 0
    if q in ("fewer than", "less than"):
        return "at_most", -1
    if q in (
        "at least",
        "no fewer than",
        "no less than",
        "not less than",
        "not fewer than",
        "a minimum of",
        "minimum of",
        "or more",
        "not less",
        "not fewer",
        "no fewer",
    ):
        return "at_least", 0
    if q in ("more than", "over"):
        return "at_least", 1
    return "exactly", 0


# -- results ------------------------------------------------------------------------------------


class _NoReading(Exception):
    """A form matched the words, but one of its clauses is not readable."""

    def __init__(self, form: str, clause: str, missing: str = "") -> None:
        self.form = form
        self.clause = clause
        self.missing = missing
        super().__init__(f"{form}: cannot read {clause!r}")

    def detail(self) -> str:
        if self.missing:
            return f" The closest form, {self.form}, would leave out {self.missing}."
        return f" The closest form, {self.form}, cannot read the clause {self.clause!r}."


def _read(text: str, form: str) -> Clause:
    c = read_clause(text)
    if c is None:
        raise _NoReading(form, text)
    return c


def lit(c: Clause, like: Clause | None = None) -> Formula:
    """The literal of *c*; a bare placeholder borrows *like*'s predicate (else agent_at)."""
    if c.literal is not None:
        return c.literal
    predicate = "agent_at"
    if like is not None and like.literal is not None:
        atom = like.literal.children[0] if like.literal.op == "!" else like.literal
        name = atom.name or ""
        if name.count(",") == 0:
            predicate = name.split("(")[0]
    return _atom(predicate, c.letters[0])


def _positive(c: Clause, like: Clause | None = None) -> Formula:
    """The thing a clause is about, for forms that negate it themselves."""
    return lit(c, like)


_NEG = (
    r"(?:do not|does not|never,? ever|never|you (?:must|should|may|can|shall|will) (?:not|never)|"
    r"you cannot|you can not|you are not (?:allowed|permitted|supposed)(?: to)?|"
    r"you are forbidden to|do not ever|never ever|not|under no circumstances"
    r"(?: (?:should|must|may|can|will) you)?|you should not ever|you must not ever|"
    r"it is (?:forbidden|not allowed|prohibited) to|no one should|nobody should)"
)
_IF = (
    r"(?:while|whilst|as long as|right after|immediately after|directly after|just after|if|"
    r"whenever|when|every time|each time|any time|anytime|once|after|as soon as|"
    r"in case|the moment|the minute|each and every time|if ever|if and when)"
)
_SOON_WORDS = (
    "immediately",
    "right away",
    "straight away",
    "straightaway",
    "at once",
    "directly",
    "without delay",
    "promptly",
    "instantly",
    "the very next step",
    "the next step",
    "at the next step",
    "at the very next step",
    "in the next step",
    "in the very next step",
    "right afterwards",
    "right afterward",
    "immediately afterwards",
    "immediately afterward",
    "immediately after",
    "right after",
    "just after",
    "next",
    "straight",
    "at the next moment",
    "by the next step",
    "the step after",
    "in the next moment",
    "the next moment",
    "in the very next moment",
    "the very next moment",
    "the very next thing",
    "the next thing",
    "at the following step",
    "in the following step",
    "the following step",
    "at the immediately following step",
    "the immediately following step",
    "straight after",
    "straight afterwards",
)
# Longest first, so that "immediately after" is one timing phrase, not "immediately" + "after".
_SOON = "(?:" + "|".join(sorted(_SOON_WORDS, key=len, reverse=True)) + ")"
_RIGHT_AFTER = (
    r"(?:right after|immediately after|directly after|just after|straight after|"
    r"as soon as|the moment|the minute|the instant|the second)"
)


class PatternTranslator:
    """Translate a lifted sentence by the grammar of this module, offline and deterministic.

    Calling it returns a :class:`LiftedTranslation`; a sentence outside the grammar raises
    :class:`~safetychip.errors.OutOfGrammarError`.
    """

    name = "offline-pattern-grammar"

    def __call__(self, lifted: str) -> LiftedTranslation:
        """Translate *lifted* (a sentence with placeholders ``[a]``, ``[b]``…).

        Raises
        ------
        OutOfGrammarError
            When no form reads the sentence; the message names the closest form when one
            matched the words but not a clause.
        """
        failures: list[_NoReading] = []
        result = self._read(lifted, failures)
        if result is not None:
            return result
        found = collapse_list(lifted)
        if found is not None:
            # A list of things in one role: read the sentence about the first, then spread.
            result = self._read(found.text, failures)
            if result is not None:
                return found.spread(result)
        both = self._read_each(lifted, failures)
        if both is not None:
            return both
        detail = failures[0].detail() if failures else ""
        raise OutOfGrammarError(
            f"{lifted!r} is outside the offline translator's grammar: no form reads it."
            f"{detail} It reads: {_FORMS}. Rephrase the sentence, or translate it with a "
            "language model.",
            lifted,
        )

    @classmethod
    def _read_each(cls, lifted: str, failures: list[_NoReading]) -> LiftedTranslation | None:
        """Two or three prohibitions in one sentence ("do not touch [a], do not pick [a]
        up"): one part each, all of them read or none; a condition before a colon holds for
        each of them ("if [a] is on: do not open [b], do not touch [c]").

        >>> read = PatternTranslator()._read_each
        >>> str(read("If [a] is on: don't open [b], don't touch [c]", []).formula)
        'G("is_switchedon(a)" -> !"is_open(b)") & G("is_switchedon(a)" -> !"is_touched(c)")'
        """
        text = re.sub(r"^\[[a-z]\]\s*:\s*", "", normalize(lifted))
        pieces = _EACH.split(text)
        if not 2 <= len(pieces) <= 3:
            return None
        lead = _CONDITION_LEAD.match(pieces[0])
        if lead is not None:
            pieces = [pieces[0], *(f"{lead.group()}{piece}" for piece in pieces[1:])]
        results = [cls._read(piece, []) for piece in pieces]
        if any(r is None or not r.formula.atoms() for r in results):
            return None
        read = [r for r in results if r is not None]
        if {x for r in read for x in _letters(r.formula)} != set(_LETTERS_IN.findall(text)):
            return None
        parts = tuple(p for r in read for p in (r.parts or (r.formula,)))
        patterns = {r.pattern for r in read}
        return LiftedTranslation(
            And(*parts),
            patterns.pop() if len(patterns) == 1 else None,
            (),
            " and ".join(r.form for r in read),
            parts,
        )

    @staticmethod
    def _read(lifted: str, failures: list[_NoReading]) -> LiftedTranslation | None:
        # Each way of resolving the pronouns, best first; a reading that puts a thing in or
        # on itself ("put [b] in [b]") resolved a pronoun wrongly.
        texts = [unchat(x) for x in readings(lifted)]
        texts += [a for a in map(_rephrase, texts) if a is not None]
        for text in texts:
            letters = set(re.findall(r"\[([a-z])\]", text))
            for form in _FORM_ORDER:
                try:
                    result = form(text)
                except _NoReading as why:
                    failures.append(why)
                    continue
                if result is None:
                    continue
                args = [a.split("(")[1].rstrip(")").split(",") for a in result.formula.atoms()]
                used = {x for xs in args for x in xs}
                if not letters <= used:
                    missing = ", ".join(f"[{x}]" for x in sorted(letters - used))
                    failures.append(_NoReading(result.form, text, missing))
                    continue
                if any(len(xs) == 2 and xs[0] == xs[1] for xs in args):
                    break  # try the next reading of the pronouns
                left = unaccounted_clauses(lifted, text)
                if left:
                    failures.append(_NoReading(result.form, text, f"the clause {left[0]!r}"))
                    continue
                return result
        return None


_EACH = re.compile(
    rf"\s*[,;]\s*(?:and\s+|but\s+|also\s+)*(?={_NEG}\s)|\s+and\s+(?:also\s+)?(?={_NEG}\s)|"
    r"\s*;\s*|\s*,\s+and\s+(?:also\s+)?|\s+(?:and|but)\s+(?=(?:avoid|stay out of|keep out of|"
    r"stay away from|keep away from)\s)"
)
_LETTERS_IN = re.compile(r"\[([a-z])\]")
# A condition said once before the rules after it: "while in [a]: …", "when in [a], …".
_CONDITION_LEAD = re.compile(
    r"(?:while|whilst|when|whenever|if|unless|as long as|in|inside|at)\b[^:,]*\[[a-z]\][^:,]*"
    r"[:,]\s*"
)


# Where one clause of a sentence ends and another begins: ";", a dash, or "and"/"but" before
# a new constraint ("…, and do not return to [a]"), not before a condition of the same one
# ("…, but not before [b]") nor a reminder ("…, and do not forget to close it").
CLAUSE_BREAK = re.compile(
    r"\s*(?:;|—|–|--|\s-\s)\s*|\.\s+(?!(?:until|till|then|after|before|unless|while|when|"
    r"and|but|or|except|only)\b)|\s*,?\s+(?:and|but)\s+(?:also\s+)?"
    r"(?=(?:do not|does not|never|no|not|avoid|stay|keep|make sure|be sure)\b)"
    r"(?!(?:not|no) (?:before|after|until|till|unless|more|less|fewer|zero|once|twice)\b|"
    r"do not forget\b|never forget\b|not forget\b)"
)
# Words that make a clause say something about the run (beyond chat such as "thanks, ok").
_CONSTRAINT_CUE = re.compile(
    r"\b(?:never|not|no|cannot|avoid|forbidden|prohibited|only|once|twice|thrice|times?|"
    r"max|maximum|at most|at least|exceed|fewer|less|before|after|until|till|unless|first|"
    r"then|later|eventually|immediately|right away|next|within|steps?|always|again|anymore|"
    r"must|should|have to|has to|make sure|keep|stay)\b|\[[a-z]\]"
)


def constraint_clauses(text: str) -> list[str]:
    """The clauses of *text* that say something about the run: each carries a placeholder or
    a constraint cue (a negation, a count, an order or timing word, a modal).

    >>> constraint_clauses("Visit [a] and then [b]; never go back to [a], thanks")
    ['visit [a] and then [b]', 'never go back to [a], thanks']
    >>> constraint_clauses("Open [a], but not before [b] is closed, ok")
    ['open [a], but not before [b] is closed, ok']
    """
    pieces = (p.strip(" ,") for p in CLAUSE_BREAK.split(clean(text)))
    return [p for p in pieces if p and _CONSTRAINT_CUE.search(p)]


def unaccounted_clauses(sentence: str, reading: str) -> tuple[str, ...]:
    """The clauses of *sentence* a reading made from *reading* does not account for.

    The whole-sentence accounting guard of both readers: *reading* is what the reader
    actually read (the grammar: the sentence as its form saw it; the retrieval translator:
    the winning template). Each clause of the sentence that carries a placeholder or a
    constraint cue (:func:`constraint_clauses`) needs a clause of *reading*; the ones left
    over (the last ones) are returned, and a reader refuses rather than answer with a part
    of the sentence.

    >>> unaccounted_clauses("Visit [a]; do not go back to [b]", "go to [a]")
    ('do not go back to [b]',)
    >>> unaccounted_clauses("Please never enter [a], thanks", "never go into [a]")
    ()
    """
    said, read = constraint_clauses(sentence), constraint_clauses(reading)
    return tuple(said[len(read) :])


def _letters(f: Formula) -> set[str]:
    return {x for a in f.atoms() for x in a.split("(", 1)[1].rstrip(")").split(",")}


@dataclass(frozen=True)
class ListReading:
    """A sentence about a list of things ("never enter [a], [b] or [c]") read about the first.

    Attributes
    ----------
    text : str
        The normalised sentence with the list replaced by its first placeholder.
    first : str
        That placeholder's letter.
    others : tuple of str
        The other letters of the list.
    disjunctive : bool
        Joined by "or" / "nor" rather than "and".
    """

    text: str
    first: str
    others: tuple[str, ...]
    disjunctive: bool
    together: bool = False

    def spread(self, result: LiftedTranslation) -> LiftedTranslation:
        """The reading of :attr:`text` spread over the whole list (for things *together*,
        "never hold [a] and [b] at the same time", one formula about all of them at once)."""
        if self.together:

            def jointly(atom: Formula) -> Formula:
                if not re.search(rf"[(,]{self.first}[),]", atom.name or ""):
                    return atom
                return And(atom, *(renamed(atom, self.first, x) for x in self.others))

            formula = no_double_negation(substitute(result.formula, jointly))
            return LiftedTranslation(formula, None, (), result.form + " (things together)")
        return _spread(result, self.first, list(self.others), self.disjunctive)


def collapse_list(lifted: str) -> ListReading | None:
    """The sentence read about the first thing of its list of things, or None.

    Examples
    --------
    >>> collapse_list("Avoid [a], [b] and [c] at all costs")
    ListReading(text='avoid [a] at all costs', first='a', others=('b', 'c'), disjunctive=False,
                together=False)

    A pronoun after the list ("open [a] or [b], then close it") stays a pronoun, so that it
    names the same thing as the list in each part:

    >>> collapse_list("Whenever you open [a] or [b], close it").text
    'whenever you open [a], close it'
    """
    text = clean(lifted)
    found = _LIST.search(text)
    if found is None or found.group(1) == "either":
        return None
    first, *others = re.findall(r"\[([a-z])\]", found.group())
    collapsed = text[: found.start()] + f"[{first}]" + text[found.end() :]
    together = _TOGETHER.search(collapsed)
    if together is not None:
        # "never hold [a] and [b] at the same time": all of them at once, one formula
        if found.group(2) != "and" or not re.search(
            r"\bat the same time|together|"
            r"simultaneously|both at once",
            collapsed,
        ):
            return None  # "not both", "one of": no reading here
        collapsed = re.sub(r"\s+", " ", _TOGETHER.sub(" ", collapsed)).strip()
        return ListReading(collapsed, first, tuple(others), False, True)
    if found.group(1) == "neither" and not re.match(_NEG, collapsed):
        passive = re.match(
            rf"\[{first}\]\s+(?:may|can|should|must|will|is to|are to)\s+be\s", collapsed
        )
        if passive:
            collapsed = (
                collapsed[: passive.end()].replace(" be ", " not be ") + collapsed[passive.end() :]
            )
        else:
            collapsed = "never " + collapsed
    # "open [a] or [b], then close it": "it" is whichever was opened, so the reading holds
    # of each thing, never of the things as alternatives ("close [a] or [b]")
    referred = _PRONOUN.search(text, found.end()) is not None
    disjunctive = found.group(2) in ("or", "nor", "and/or") and not referred
    return ListReading(collapsed, first, tuple(others), disjunctive)


_PASSIVE = {
    "visited": "visit",
    "entered": "enter",
    "approached": "approach",
    "reached": "reach",
    "used": "use",
    "opened": "open",
    "closed": "close",
    "shut": "shut",
    "touched": "touch",
    "picked up": "pick up",
    "grabbed": "grab",
    "taken": "take",
    "held": "hold",
    "carried": "carry",
    "moved": "move",
    "switched on": "switch on",
    "turned on": "turn on",
    "switched off": "switch off",
    "turned off": "turn off",
    "started": "start",
}
_PASSIVE_SUBJECT = re.compile(
    r"\[([a-z])\]\s+(?:(?:must|should|may|can|shall|will|has to|have to|needs to|need to|"
    r"is to|are to|is|are|cannot|can not)\s+)?(only\s+)?(not\s+|never\s+|no longer\s+)?"
    r"(only\s+)?(?:ever\s+)?(?:to\s+)?(?:be|get|gets|is|are)\s+(?:ever\s+)?"
    rf"({'|'.join(sorted(_PASSIVE, key=len, reverse=True))})\b(.*)"
)


# Other ways of saying a form the grammar reads, tried when the sentence as written is not read.
_REPHRASINGS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p), r)
    for p, r in [
        # "i'd prefer if you didn't C" -> "do not C"
        (
            r"^i(?: would|'d)? (?:prefer|rather|like it)(?: it)? if you (?:did not|would not|"
            r"never) ",
            "do not ",
        ),
        (r"^i(?: would|'d)? rather you (?:did not|didn't) ", "do not "),
        # "you are only allowed to C1 after C2" -> "only C1 after C2"
        (r"^(?:you )?(?:are|is) only (?:allowed|permitted) to ", "only "),
        (r"^(?:you )?(?:are|is) (?:allowed|permitted) to (.+?) only ", r"only \1 "),
        # "before C2, C1" -> "C1 before C2"
        (
            r"^(?:before|prior to) (.+?), (?:you (?:must|should|have to|need to) )?(.+)$",
            r"\2 before \1",
        ),
        # "within n steps of C1, C2" -> "if C1, C2 within n steps"
        (
            r"^within (\w+) (steps?|actions?|moves?) (?:of|after) (.+?), (.+)$",
            r"if you \3, \4 within \1 \2",
        ),
        # "entries into [a] shall not exceed n" -> "visit [a] at most n times"
        (
            r"(?:the number of )?(?:visits|trips|entries) (?:to|into|in) (\[[a-z]\]) "
            r"(?:(?:shall|must|should|may|can|will|is to|are to) )?(?:not|never) "
            r"(?:exceed|be more than|go above|go beyond) (\w+)",
            r"visit \1 at most \2 times",
        ),
        # "n visits to [a]" -> "visit [a] n times"
        (
            r"((?:at most|no more than|at least|exactly|only) )?(\w+) (?:visits|trips|entries) "
            r"(?:to|into|in) (\[[a-z]\])",
            r"visit \3 \1\2 times",
        ),
        # "do not C1 if you have not C2 (yet)" -> "do not C1 until you have C2"
        (
            r"^(.+?) (?:if|as long as|while) you (?:have not|did not|do not) (?:yet )?"
            r"(.+?)(?: yet)?$",
            r"\1 until you have \2",
        ),
        # "do not C1 if you are not in [b]" -> "do not C1 unless you are in [b]" (a state)
        (
            r"^(.+?),? (?:if|when|whenever|while|as long as) (you|\[[a-z]\]) (are|is) not (.+)$",
            r"\1 unless \2 \3 \4",
        ),
        # "when you are not in [b], do not C1" -> "unless you are in [b], do not C1"
        (
            r"^(?:if|when|whenever|while|as long as) (you|\[[a-z]\]) (are|is) not (.+?), (.+)$",
            r"unless \1 \2 \3, \4",
        ),
        # "don't let [a] stay open" -> "do not leave [a] open"
        (r"\b(?:let|allow) (\[[a-z]\]) (?:to )?(?:stay|remain|be) (open|on)\b", r"leave \1 \2"),
    ]
]


def _rephrase(text: str) -> str | None:
    """*text* said in a form the grammar reads, or None.

    >>> _rephrase("before going to [a], visit [b]")
    'visit [b] before going to [a]'
    >>> _rephrase("[a] may only be opened while you are in [b]")
    'only open [a] while you are in [b]'
    """
    out = text
    for pattern, replacement in _REPHRASINGS:
        out = pattern.sub(replacement, out)
    active = _active(out)
    if active is not None:
        out = active
    return out if out != text else None


def _active(text: str) -> str | None:
    """A passive sentence about a thing, said actively: "[a] must be visited before [b]" is
    "visit [a] before [b]", "[a] is not to be touched" is "never touch [a]".

    >>> _active("[a] may only be opened while you are in [b]")
    'only open [a] while you are in [b]'
    """
    lead = re.match(r"(?:make sure|ensure|be sure|see to it)(?: that)?\s+", text)
    if lead is not None:
        rest = _active(text[lead.end() :])
        return None if rest is None else "make sure you " + rest
    m = _PASSIVE_SUBJECT.fullmatch(text)
    if m is None:
        return None
    negated = m.group(3) is not None or re.match(r"\[[a-z]\]\s+(?:cannot|can not)\b", text)
    only = "only " if (m.group(2) or m.group(4)) else ""
    verb = _PASSIVE[m.group(5)]
    return f"{'never ' if negated else ''}{only}{verb} [{m.group(1)}]{m.group(6)}"


_TOGETHER = re.compile(
    r"\b(?:not both|at the same time|together|simultaneously|at once|one of|both at|"
    r"combined|in combination)\b"
)
_LIST = re.compile(
    r"(?:\b(both|either|neither)\s+)?\[[a-z]\](?:\s*,\s*\[[a-z]\])*\s*,?\s+"
    r"(and|or|nor|and/or|as well as|and also|or even)\s+\[[a-z]\]"
)


def _spread(
    result: LiftedTranslation, first: str, others: list[str], disjunctive: bool
) -> LiftedTranslation:
    """The reading about [first] spread over a list: one formula per thing ("and", or an "or"
    whose conjunction means the same, as in "never [a] or [b]"), else one formula with the
    things as alternatives ("after you visit [a] or [b]" reads either)."""
    parts = (result.formula, *(renamed(result.formula, first, x) for x in others))
    together = And(*parts)
    if disjunctive:
        from ..automata import equivalent

        def either(atom: Formula) -> Formula:
            if not re.search(rf"[(,]{first}[),]", atom.name or ""):
                return atom
            return Or(atom, *(renamed(atom, first, x) for x in others))

        alternatives = substitute(result.formula, either)
        if not equivalent(together, alternatives):
            return LiftedTranslation(
                alternatives, result.pattern, result.args, result.form + " (a list: any of them)"
            )
    return LiftedTranslation(together, result.pattern, result.args,
                             result.form + " (a list: each of them)", parts)  # fmt: skip


def _result(pattern: str, *args, form: str) -> LiftedTranslation:
    formula = no_double_negation(build_pattern(pattern, *args))
    return LiftedTranslation(formula, pattern, tuple(args), form)


# -- the forms, in the order they are tried ------------------------------------------------------


def _form_leave_open(t: str) -> LiftedTranslation | None:
    states = r"(open|on|switched on|turned on|running|dirty|plugged in)"
    m = re.fullmatch(
        rf"{_NEG}\s+(?:ever\s+)?leave\s+{X}\s+{states}(?:\s+(?:at the end|when you finish|"
        r"when you are done|behind you))?",
        t,
    )
    m = m or re.fullmatch(
        rf"{X}\s+(?:must|should|may|can|shall|will|is to|are to)\s+(?:not|never)\s+be\s+left\s+"
        rf"{states}(?:\s+(?:at the end|when you finish|when you are done|behind you))?",
        t,
    )
    if not m:
        return None
    predicate = {"open": "is_open", "dirty": "is_dirty", "plugged in": "is_pluggedin"}.get(
        m.group(2), "is_switchedon"
    )
    p = _atom(predicate, m.group(1))
    return _result("response", p, Not(p), form="do not leave [a] open")


def _form_one_hand(t: str) -> LiftedTranslation | None:
    """Always hold [a] with your right hand: whenever you hold it, not in the other hand."""
    m = re.fullmatch(
        rf"(?:always|only|ever)\s+{_HOLD}\s+{X}\s+{_HAND}(right|left)\s+hand(?:\s+only)?", t
    ) or re.fullmatch(rf"{_HOLD}\s+{X}\s+(?:only\s+)?{_HAND}(right|left)\s+hand(?:\s+only)?", t)
    if not m:
        return None
    other = "is_grabbed_lh" if m.group(2) == "right" else "is_grabbed_rh"
    return _result("never", _atom(other, m.group(1)), form="always hold [a] with one hand")


#: The argument of a reading about every thing a predicate can hold of ("pour anything near
#: [a]"); the translator puts in the scene's things of the right kind (``Vocabulary.able_names``).
ANYTHING = "anything"


def _form_pour_near(t: str) -> LiftedTranslation | None:
    """Do not pour anything near [a]: never pour a thing that can be poured while at [a]."""
    m = re.fullmatch(
        rf"{_NEG}\s+(?:ever\s+)?{_v('pour', 'spill')}\s+(anything|any liquids?|liquids?|"
        rf"something|drinks?|any drinks?|{X})\s+(?:near|close to|next to|by|beside|around|over|"
        rf"on|onto|into|in)\s+{X}",
        t,
    )
    if not m:
        return None
    poured = m.group(2) or ANYTHING
    return _result(
        "avoid_while",
        _atom("agent_at", m.group(3)),
        _atom("is_poured", poured),
        form="do not pour anything near [a]",
    )


def spread_anything(result: LiftedTranslation, names: list[str]) -> LiftedTranslation:
    """*result*, whose atoms take :data:`ANYTHING`, made one formula per name of *names*.

    >>> r = PatternTranslator()("never pour anything near [a]")
    >>> print(spread_anything(r, ["milk", "juice"]).formula)
    G("agent_at(a)" -> !"is_poured(milk)") & G("agent_at(a)" -> !"is_poured(juice)")
    """
    first = renamed(result.formula, ANYTHING, names[0])
    one = LiftedTranslation(first, result.pattern, result.args, result.form)
    return _spread(one, names[0], names[1:], False)


def find_count(t: str) -> tuple[re.Match[str], str, str] | None:
    """Where *t* says how many times: (match, qualifier, the times phrase), or None."""
    m = re.search(rf"(?:^|\s)({_TIMES})\s+and only\s+{_TIMES}(?=$|[\s,])", t)
    if m:
        return m, "and only", m.group(1)
    m = re.search(rf"(?:^|\s){_Q_BEFORE}\s+({_TIMES})(?=$|[\s,])", t)
    if m:
        qualifier = re.match(_Q_BEFORE, t[m.start() :].strip())
        return m, qualifier.group() if qualifier else "", m.group(1)
    m = re.search(rf"(?:^|\s)({_TIMES})\s*({_Q_AFTER})(?=$|[\s,])", t)
    if m:
        return m, m.group(2), m.group(1)
    m = re.search(rf"(?:^|\s)({_N})\s+or\s+(more|fewer|less)\s+times?(?=$|[\s,])", t)
    if m:
        return m, f"or {m.group(2)}", m.group(1) + " times"
    m = re.search(rf"(?:^|\s)({_TIMES})$", t)
    if m:
        return m, "", m.group(1)
    return None


def _form_count(t: str) -> LiftedTranslation | None:
    found = find_count(t)
    if found is None:
        return None
    m, qualifier, times = found
    n = count_value(times)
    kind, shift = count_kind(qualifier)
    if qualifier.strip(" ,").startswith("and only") or "no less" in qualifier:
        kind, shift = "exactly", 0
    rest = (t[: m.start()] + " " + t[m.end() :]).strip(" ,")
    rest = re.sub(r"\s+", " ", rest)
    # "…, not zero, not more": bounds said after the clause; both an upper and a lower bound
    # make it exact
    bounds = re.search(
        r"(?:\s*,?\s*(?:and\s+|but\s+)?(?:not|no|never)\s+(?:zero|none|more|less|fewer)"
        r"(?:\s+than that)?)+$",
        rest,
    )
    if bounds:
        said = bounds.group()
        upper = kind == "at_most" or re.search(r"\bmore\b", said) is not None
        lower = kind == "at_least" or re.search(r"\b(?:zero|none|less|fewer)\b", said) is not None
        if shift:
            return None  # "more than twice, not less": no reading here
        if not (kind == "exactly" and qualifier):
            kind = "exactly" if upper and lower else "at_most" if upper else "at_least"
        rest = rest[: bounds.start()].strip(" ,")
    negated = re.match(rf"{_NEG}\s+", rest)
    if negated:
        rest = rest[negated.end() :]
        if kind == "at_least" and shift == 1:  # never … more than n times
            kind, shift = "at_most", 0
        elif kind == "exactly" and not qualifier and n > 0:  # never … twice: at most once
            kind, shift = "at_most", -1
        else:
            return None
    only = re.match(r"(?:you (?:may|can|should|must) )?only\s+", rest)
    if only:
        rest = rest[only.end() :]
        if kind == "exactly" and not qualifier:
            kind = "at_most"
    rest = re.sub(r"\s+only$", "", rest)
    clause = _read(rest, "… n times")
    n += shift
    if n < 0:
        return None
    return _result(kind, n, lit(clause), form=f"… {kind.replace('_', ' ')} n times")


def _form_only_after(t: str) -> LiftedTranslation | None:
    m = re.fullmatch(
        r"(?:you (?:may|can|should|must|are allowed to) )?only\s+(.+?)\s+"
        r"(?:after|once|when|while|if)\s+(.+)",
        t,
    ) or re.fullmatch(r"(.+?)\s+only\s+(?:after|once|when|while|if)\s+(.+)", t)
    if not m:
        return None
    c1, c2 = _read(m.group(1), "only C1 after C2"), _read(m.group(2), "only C1 after C2")
    word = re.search(r"only\s+(?:\S+\s+)*?(after|once|when|while|if)\s", t)
    if word and word.group(1) in ("when", "while", "if") and _is_state(m.group(2)):
        return _result("avoid_unless", lit(c2, c1), lit(c1, c2), form="only C1 while C2")
    return _result("not_before", lit(c1, c2), lit(c2, c1), form="only C1 after C2")


def _form_wait_until(t: str) -> LiftedTranslation | None:
    m = re.fullmatch(r"wait\s+(?:until|till)\s+(.+?)\s*,?\s+(?:before(?: you)?|to)\s+(.+)", t)
    if not m:
        return None
    c2, c1 = (
        _read(m.group(1), "wait until C2 before C1"),
        _read(m.group(2), "wait until C2 before C1"),
    )
    return _result("not_before", lit(c1, c2), lit(c2, c1), form="wait until C2 before C1")


def _form_not_before(t: str) -> LiftedTranslation | None:
    m = re.fullmatch(
        rf"{_NEG}\s+(.+?)\s+(before|until|till|unless|except (?:when|while|if)|prior to|"
        r"ahead of)\s+(.+)",
        t,
    )
    if m:
        if _AGAIN.match(m.group(1)):
            # "do not return to [a] before C2" is about coming back, not about a first visit
            raise _NoReading("do not C1 before C2", m.group(1))
        c1 = _read(m.group(1), "do not C1 before C2")
        c2 = _read(m.group(3), "do not C1 before C2")
        if m.group(2).startswith(("unless", "except")) and _is_state(m.group(3)):
            return _result("avoid_unless", lit(c2, c1), lit(c1, c2), form="never C1 unless C2")
        if m.group(2) in ("until", "till") and c1.literal is not None and c1.literal.op == "!":
            # "do not leave [a] until C2", "do not put [a] down until C2": keep it so until
            # C2, which must come (wait)
            stay = c1.literal.children[0]
            return _result("wait", stay, lit(c2, c1), form="do not stop C1 until C2")
        return _result("not_before", lit(c1, c2), lit(c2, c1), form="do not C1 before C2")
    m = re.fullmatch(r"(.+?)\s+(until|till|unless|except when|except while)\s+(.+)", t)
    if m:
        avoided = read_clause(m.group(1))
        if avoided is not None and avoided.avoid:
            c2 = _read(m.group(3), "stay out of [a] until C2")
            if m.group(2) not in ("until", "till") and _is_state(m.group(3)):
                return _result(
                    "avoid_unless", lit(c2, avoided), lit(avoided), form="avoid C1 unless C2"
                )
            return _result("not_before", lit(avoided), lit(c2, avoided), form="avoid C1 until C2")
    return None


def _form_never_after(t: str) -> LiftedTranslation | None:
    m = re.fullmatch(rf"{_NEG}\s+(.+?)\s+(?:after|once|when)\s+(.+)", t)
    if not m:
        return None
    c2, c1 = read_clause(m.group(1)), read_clause(m.group(2))
    if c1 is None or c2 is None:
        return None
    if " when " in f" {t} " and _is_state(m.group(2)) and not _HISTORY.search(m.group(1)):
        return _result("avoid_while", lit(c1, c2), lit(c2, c1), form="never C2 when C1")
    return _result("absence_after", lit(c1, c2), lit(c2, c1), form="never C2 after C1")


def _form_before(t: str) -> LiftedTranslation | None:
    if re.match(rf"{_NEG}\s", t):
        return None
    m = re.fullmatch(
        r"(?:make sure (?:that )?(?:you )?)?(.+?)\s+(?:before|prior to|ahead of)"
        r"\s+(.+)",
        t,
    )
    if m:
        c1, c2 = _read(m.group(1), "C1 before C2"), _read(m.group(2), "C1 before C2")
        return _result("before", lit(c1, c2), lit(c2, c1), form="C1 before C2")
    m = re.fullmatch(
        r"(?:first\s*,?\s+)(.+?)\s*,?\s+(?:and\s+)?then\s*,?\s+(.+)", t
    ) or re.fullmatch(r"(.+?)\s+first\s*,?\s+(?:and\s+)?then\s*,?\s+(.+)", t)
    if m:
        # an instruction to do both, in that order: a sequenced visit (what must not come
        # first is said with a negation: "do not C2 before C1")
        c1, c2 = _read(m.group(1), "first C1, then C2"), _read(m.group(2), "first C1, then C2")
        if c1.avoid or c2.avoid:
            return None
        return _result("sequenced_visit", lit(c1, c2), lit(c2, c1), form="first C1, then C2")
    return None


_STATE_WORDS = ("while", "whilst", "as long as", "if", "when", "whenever", "unless", "in case")
_STATE = re.compile(
    r"(?:(?:you|the robot|the agent|we|i)\s+)?(?:are|is|am)\s+(?:still\s+)?"
    r"(?!going\b|supposed\b|allowed\b|about\b|done\b|finished\b)"
    r"|(?:(?:you|the robot|the agent)\s+)?(?:are\s+)?(?:still\s+)?(?:holding|carrying|standing|"
    r"staying|sitting|lying|facing|wearing|inside|being)\b"
    r"|(?:(?:you|the robot|the agent|we|i)\s+)?(?:have|has|have got|has got|hold|holds|carry|"
    r"carries|keep|keeps)\s+\[[a-z]\]"
    r"|\[[a-z]\]\s+(?:is|are)\s+(?:still\s+)?(?!not\b)"
    r"|(?:in|inside|at|within)\s+\[[a-z]\]$"
)
_HISTORY = re.compile(
    r"\b(?:again|anymore|any more|afterwards?|from (?:then|now) on|thereafter|after that|later|"
    r"from that point on|for the rest)\b"
)


def _is_state(text: str) -> bool:
    """Whether a condition is about the current state ("you are in [a]", "holding [a]",
    "[a] is open"), not about something that happened ("you go to [a]", "you have been").

    >>> _is_state("you are in [a]"), _is_state("you are holding [b]"), _is_state("you go to [a]")
    (True, True, False)
    >>> _is_state("you have been in [a]"), _is_state("[a] is open")
    (False, True)
    """
    return _STATE.match(text.strip()) is not None


_STEPS = r"(?:steps?|actions?|moves?|turns?)"
_NEXT_CUE = re.compile(
    rf"(?:^|\s)(?:{_SOON}|right after|immediately after|directly after|just after|as soon as|"
    r"the moment|the instant)(?=$|[\s,])(?! ?times?\b)"
)
_LATER_CUE = re.compile(
    r"(?<!not )(?<!no )(?<!steps )(?<!step )\b(?:later|eventually|at some point|"
    r"after some time|after a while|sooner or later|some time after|sometime after|"
    r"at a later (?:point|time|stage))\b"
)


def timing_cues(text: str) -> frozenset[str]:
    """When a reaction is due, as *text* says it: ``next`` (right after, the very next
    step, straight away), ``later`` (eventually, after some time, at some point) or
    ``bounded`` (within n steps, no later than n steps); more than one is a conflict.

    >>> sorted(timing_cues("right after you open [a], close it")), timing_cues("[a] later")
    (['next'], frozenset({'later'}))
    >>> sorted(timing_cues("close [a] no later than two steps after you open it"))
    ['bounded']
    >>> timing_cues("the next time you open [a], close it")
    frozenset()
    """
    t = clean(text)
    delay, rest = within(t)
    # a number of steps said in words the reader does not know ("withn 3 steps") still
    # says that the reaction is bounded
    steps = re.search(rf"\b(?:{_N}|{_TIMES})\s+{_STEPS}\b", t) is not None
    found = {"bounded"} if delay is not None or steps else set()
    if _NEXT_CUE.search(rest):
        found.add("next")
    if _LATER_CUE.search(rest):
        found.add("later")
    return frozenset(found)


def within(text: str) -> tuple[int | None, str]:
    """The n of "within n steps" in *text* (or None), and *text* without it."""
    m = re.search(
        rf"(?:^|\s)(?:within|in at most|in no more than|in under|not later than|no later than|"
        rf"at the latest|at most|in)\s+({_N}|{_TIMES})\s+{_STEPS}"
        r"(?:\s+(?:later|afterwards|afterward|after|after that|or less|or fewer|at most|"
        r"at the latest))?(?=$|[\s,])",
        text,
    ) or re.search(
        rf"(?:^|\s)in\s+({_N})\s+{_STEPS}\s+(?:or less|or fewer|at most|at the latest)"
        r"(?=$|[\s,])",
        text,
    )
    if not m:
        return None, text
    word = m.group(1)
    n = count_value(word if word.split()[0] != "a" else "one")
    return n, (text[: m.start()] + " " + text[m.end() :]).strip(" ,")


#: A state another thing must be in ("[b] must be off", "[b] has to stay closed"): under a
#: condition on the current state, a state condition, not a reaction due later.
_STATE_OF_ANOTHER = re.compile(
    r"\[[a-z]\]\s+(?:(?:must|should|shall|has to|have to|needs? to|is to|are to)\s+)?"
    r"(?:be|stay|remain|be kept)\s+(?:switched |turned )?(?:off|on|open|closed|shut)"
)


def _response(
    trigger: Clause, response_text: str, soon: bool, form: str, state: bool = False
) -> LiftedTranslation:
    """Build the trigger pattern that fits the response clause and the timing words.

    A negative response under a condition on the current state (*state*) reads
    ``avoid_while``: "never C2 while you are in [a]" is ``G(at(a) -> !C2)``, never "once you
    have been in [a]".
    """
    r = response_text
    timing = timing_cues(r) | ({"next"} if soon else set())
    if len(timing) > 1:
        # "right after C1, C2 within two steps": next step, or within two? Not said.
        raise _NoReading(form, response_text)
    delay, r = within(r)
    if "bounded" in timing and delay is None:
        raise _NoReading(form, response_text)  # a number of steps it cannot read
    if re.search(rf"(?:^|\s){_SOON}(?=$|[\s,])", r):
        soon = True
        r = re.sub(rf"(?:^|\s){_SOON}(?=$|[\s,])", " ", r)
    r = re.sub(r"\s+", " ", r).strip(" ,")
    negated = False
    m = re.search(
        r"(?:^|\s)(?:(?:you\s+)?(?:must|should|may|can|will|shall|do|does)\s+)?"
        r"(?:never|not|no|cannot|can not|may no longer|can no longer|no longer)(?:\s+ever)?(?=\s)",
        r,
    )
    if m:
        negated = True
        r = (r[: m.start()] + " " + r[m.end() :]).strip()
        if re.match(rf"(?:you\s+)?{_v('stay', 'remain', 'linger', 'wait')}\b", r):
            raise _NoReading(form, response_text)  # "do not stay there" is not "never again"
    c2 = _read(r, form)
    p = lit(trigger)
    if negated or c2.avoid:
        q = lit(c2, trigger)
        if negated and c2.avoid:
            raise _NoReading(form, response_text)
        if state and not soon and not _HISTORY.search(response_text):
            return _result("avoid_while", p, q, form=form + " (a state condition)")
        return _result("absence_after", p, q, form=form)
    q = lit(c2, trigger)
    if (
        state
        and not soon
        and re.match(
            rf"(?:you\s+)?(?:must\s+|should\s+|have to\s+)?"
            rf"{_v('stay', 'remain', 'keep', 'be')}\b",
            r,
        )
    ) or (state and not timing and _STATE_OF_ANOTHER.fullmatch(r)
          and not set(c2.letters) & set(trigger.letters)):  # fmt: skip
        # "while the kettle is on, stay in the kitchen", "when in [a], [b] must be off": at
        # the same time, not later
        return _result("instantaneous_reaction", p, q, form=form + " (a state condition)")
    if delay is not None:
        return _result("bounded_delay", delay, p, q, form=form + " within n steps")
    return _result("immediate_response" if soon else "response", p, q, form=form)


_PERMISSION = re.compile(
    r"(?:you\s+)?(?:may|can|are allowed to|are permitted to|are free to|get to)\s+"
    r"(?:only\s+)?(?!not\b|never\b|you\b)"  # "can you shut it?" asks, it does not permit
)


def _permission(permitted: str, condition: str) -> LiftedTranslation:
    """Permission: "you may C2 once C1" is C2 not before C1; for a condition on the current
    state ("you may C2 if you are in [a]"), never C2 unless it holds."""
    c2 = _read(_PERMISSION.sub("", permitted, count=1), "you may C2 once C1")
    c1 = _read(condition, "you may C2 once C1")
    if _is_state(condition):
        return _result("avoid_unless", lit(c1, c2), lit(c2, c1), form="you may C2 while C1")
    return _result("not_before", lit(c2, c1), lit(c1, c2), form="you may C2 once C1")


def _state_condition(word: str, condition: str) -> bool:
    return word in ("while", "whilst", "as long as") or (
        word in _STATE_WORDS and _is_state(condition)
    )


# A bare verb, as an instruction starts: after "after" it means "afterwards" ("go to [a], after
# go to [b]"), never a trigger (which has a subject, a gerund or a thing: "after you go").
_BARE_VERB = (
    r"(?:go|walk|visit|enter|open|close|shut|take|grab|pick|put|turn|switch|touch|leave|come|"
    r"move|head|run|get|return|check|sit|lie|wear|wash|plug|unplug|pour|face)\b"
)


def _soon(word: str) -> bool:
    """Whether a leading trigger word says the next step ("right after", "as soon as")."""
    return word in ("as soon as", "the moment", "the minute") or word.endswith(" after")


def _form_trigger(t: str) -> LiftedTranslation | None:
    # C1 requires C2 first: a precondition, C1 not before C2 (never "C1, then C2 later")
    m = re.fullmatch(
        r"(.+?)\s+(?:requires|presupposes|is conditional on|depends on)\s+(?:that\s+)?"
        r"(?:you\s+)?(?:have\s+)?(?:(?:been|gone)\s+(?:to|in|into)\s+|a\s+(?:prior\s+)?visit\s+to\s+|"
        r"visiting\s+|having\s+(?:been|gone)\s+(?:to|in|into)\s+)?(.+?)\s+"
        r"(?:first|beforehand|before(?:hand)?|earlier|already|in advance|to have happened)",
        t,
    )
    if m:
        needing, needed = (
            _read(m.group(1), "C1 requires C2 first"),
            _read(m.group(2), "C1 requires C2 first"),
        )
        if needing.avoid or needed.avoid:
            return None
        return _result("not_before", lit(needing), lit(needed), form="C1 requires C2 first")
    # C1 means C2
    m = re.fullmatch(r"(.+?)\s+(?:means|implies|obliges you to|requires)\s+(?:that\s+)?(.+)", t)
    if m:
        return _response(_read(m.group(1), "C1 means C2"), m.group(2), False, "C1 means C2")
    # C1 must be followed by C2
    m = re.fullmatch(
        r"(.+?)\s+(?:must|should|has to|needs to) be followed\s+(?:(\w+)\s+)?by\s+"
        r"(.+)",
        t,
    )
    if m:
        soon = bool(m.group(2)) and re.fullmatch(_SOON, m.group(2)) is not None
        return _response(
            _read(m.group(1), "C1 must be followed by C2"),
            m.group(3),
            soon,
            "C1 must be followed by C2",
        )
    # if C1, (then) C2 — with a comma or "then"
    m = re.fullmatch(rf"({_IF})\s+(.+?)\s*(?:,\s*(?:then\s+)?|\s+then\s+)(.+)", t)
    if m and _PERMISSION.match(m.group(3)):
        return _permission(m.group(3), m.group(2))
    if m:
        return _response(
            _read(m.group(2), "if C1, then C2"),
            m.group(3),
            _soon(m.group(1)),
            "if C1, then C2",
            _state_condition(m.group(1), m.group(2)),
        )
    # if C1 C2 — no comma: try each split
    m = re.fullmatch(rf"({_IF})\s+(.+)", t)
    if m:
        words = m.group(2).split()
        for k in range(1, len(words)):
            c1 = read_clause(" ".join(words[:k]))
            if c1 is not None and c1.literal is not None:
                state = _state_condition(m.group(1), " ".join(words[:k]))
                try:
                    return _response(c1, " ".join(words[k:]), _soon(m.group(1)), "if C1 C2", state)
                except _NoReading:
                    continue
    # C2 if (you ever) C1 — the response first
    m = re.fullmatch(rf"(.+?)\s*,?\s+({_RIGHT_AFTER}|{_IF})\s+(.+)", t)
    if m:
        soon = re.fullmatch(_RIGHT_AFTER, m.group(2)) is not None
        if re.match(rf"{_NEG}\s", m.group(1)) and m.group(2) in ("after", "once", "when"):
            return None  # "never C2 after C1" is absence_after, read by its own form
        if _PERMISSION.match(m.group(1)):
            return _permission(m.group(1), m.group(3))
        if m.group(2) == "after" and re.match(_BARE_VERB, m.group(3)):
            return None  # "go to [a], after go to [b]": "after" is "afterwards", not a trigger
        return _response(
            _read(m.group(3), "C2 if you ever C1"),
            m.group(1),
            soon,
            "C2 if you ever C1",
            _state_condition(m.group(2), m.group(3)),
        )
    return None


_AGAIN = re.compile(rf"(?:{_v('come', 'go', 'get', 'walk')} back|{_v('return', 'revisit')})\b")


def _form_never(t: str) -> LiftedTranslation | None:
    if re.search(r"\bfirst$", t):
        return None  # "never [b] first" is about order, not "never [b]"
    m = re.fullmatch(rf"{_NEG}\s+(.+)", t)
    if m:
        c = _read(m.group(1), "never C")
        if c.avoid:
            return None
        if _AGAIN.match(m.group(1)):
            # "never come back to [a]": you may be there once, not again
            return _result("at_most", 1, lit(c), form="never come back to C")
        return _result("never", lit(c), form="never C")
    m = re.fullmatch(r"(?:avoid|no)\s+(.+)", t)
    if m:
        c = _read(m.group(1), "avoid C")
        return _result("never", lit(c), form="avoid C")
    m = re.fullmatch(
        r"(.+?)\s+(?:is|are)\s+(?:forbidden|not allowed|prohibited|banned|"
        r"not permitted|off limits|off-limits|out of bounds)",
        t,
    )
    if m:
        c = _read(m.group(1), "C is forbidden")
        return _result("never", lit(c), form="C is forbidden")
    avoided = read_clause(t)
    if avoided is not None and avoided.avoid:
        return _result("never", lit(avoided), form="stay out of [a] / keep [a] shut")
    return None


def _form_always(t: str) -> LiftedTranslation | None:
    """A state kept all the time: "[a] must always be closed", "always stay in [a]"."""
    m = re.fullmatch(
        r"(?:(?:you|the robot)\s+)?(?:(?:must|should|have to|need to)\s+)?(?:always|at all times,?"
        r"|constantly)\s+(.+)",
        t,
    ) or re.fullmatch(r"(.+?)\s+(?:at all times|all the time|always|constantly)", t)
    always = re.fullmatch(
        rf"{X}\s+(?:must|should|has to|needs to|will)\s+always\s+(?:be|stay|remain)\s+(.+)", t
    )
    text = f"[{always.group(1)}] is {always.group(2)}" if always else (m.group(1) if m else None)
    if text is None:
        return None
    c = read_clause(re.sub(r"^(?:be|stay|remain|keep)\s+(?=in|at|inside)", "are ", text))
    if (
        c is None
        or c.literal is None
        or c.avoid
        or not re.search(
            r"\b(?:is|are|be|stay|remain|keep|kept|closed|shut|off|on|open|in|at|inside|holding)\b",
            text,
        )
    ):
        return None
    return _result("never", Not(c.literal), form="always C")


def _form_eventually(t: str) -> LiftedTranslation | None:
    m = (
        re.fullmatch(
            r"(?:make sure|be sure|ensure|remember|do not forget|you must not forget|"
            r"never forget|you must remember)\s+(?:that\s+)?(.+)",
            t,
        )
        or re.fullmatch(
            r"(?:you\s+)?(?:must|have to|need to|should|has to|are required to|"
            r"will have to|are to)\s+(.+)",
            t,
        )
        or re.fullmatch(r"(?:eventually|at some point|sometime)\s*,?\s+(.+)", t)
    )
    if not m:
        return None
    c = _read(m.group(1), "make sure you C")
    if c.avoid:
        return None
    return _result("at_least", 1, lit(c), form="make sure you C")


_PARTICIPLES = {
    "agent_at": r"visited|entered|approached|reached|occupied|used|gone into|gone to|walked into",
    "is_open": r"opened",
    "is_grabbed": r"picked up|grabbed|taken|held|carried|lifted|moved|removed|handled",
    "is_touched": r"touched",
    "is_switchedon": r"switched on|turned on|started|activated|powered on|left on",
    "agent_sitting_on": r"sat on|sat in",
    "agent_lying_on": r"lain on|lain in|lied on|laid on",
    "agent_facing": r"faced",
    "is_worn": r"worn|put on",
    "is_pluggedin": r"plugged in|plugged into the wall|plugged into the socket",
    "is_poured": r"poured|poured out",
    "is_clean": r"washed|cleaned|rinsed|scrubbed|wiped",
}


def _form_passive(t: str) -> LiftedTranslation | None:
    m = re.fullmatch(
        rf"{X}\s+(?:(?:must|should|may|can|shall|will|is to|are to|is|are)\s+)?"
        r"(never|not|cannot|can not|no longer|not ever)?\s*(?:ever\s+)?(?:be|get)\s+"
        r"(?:ever\s+)?(.+?)(?:\s+(?:by you|by the robot|at all|ever|under any circumstances))?",
        t,
    )
    if not m:
        return None
    for predicate, words in _PARTICIPLES.items():
        if re.fullmatch(words, m.group(3)):
            p = _atom(predicate, m.group(1))
            if m.group(2):
                return _result("never", p, form="[a] must not be done")
            return _result("visit", p, form="[a] must be done")
    return None


def _form_precedence(t: str) -> LiftedTranslation | None:
    """Precedence: "if you have not been to [b], do not C1", "[b] unlocks [a]", "C1 is only
    allowed after C2": C1 not before C2."""
    m = re.fullmatch(
        r"(?:if|when|as long as|while|until|unless)\s+(?:you\s+)?(?:have|has|did|do)\s+not\s+"
        r"(?:yet\s+)?(.+?)(?:\s+yet)?\s*,\s*(?:then\s+)?(.+)",
        t,
    )
    if m:
        main = re.fullmatch(rf"{_NEG}\s+(.+)", m.group(2))
        c2 = _read(m.group(1), "if you have not C2, do not C1")
        if main:
            c1 = _read(main.group(1), "if you have not C2, do not C1")
        else:
            avoided = _read(m.group(2), "if you have not C2, do not C1")
            if not avoided.avoid:
                return None
            c1 = avoided
        return _result("not_before", lit(c1, c2), lit(c2, c1), form="if not yet C2, never C1")
    m = (
        re.fullmatch(
            r"(?:only\s+)?(?:after|once|when)\s+(.+?)\s*,?\s+(?:may|can|should|are allowed to)\s+"
            r"(?:you|the robot)\s+(.+)",
            t,
        )
        or re.fullmatch(
            # "only after C2, (you may) C1": what comes after "only after" must come first
            rf"only\s+(?:after|once|when|while|if)\s+(.+?)\s*,\s*(?!{_NEG}\s)(.+)",
            t,
        )
        or re.fullmatch(
            r"(?:until|till|before)\s+(.+?)\s*,\s+(.+?)\s+(?:is|are)\s+(?:off limits|off-limits|"
            r"forbidden|not allowed|prohibited|banned|out of bounds|not permitted)",
            t,
        )
    )
    if m:
        c2 = _read(m.group(1), "only after C2 may you C1")
        c1 = _read(m.group(2), "only after C2 may you C1")
        if re.match(r"(?:only\s+)?(?:when|while|if)\s", t) and _is_state(m.group(1)):
            # "only when you are in [b], C1": a condition on the current state (unless)
            return _result("avoid_unless", lit(c2, c1), lit(c1, c2), form="only when C2, C1")
        return _result("not_before", lit(c1, c2), lit(c2, c1), form="only after C2, C1")
    m = re.fullmatch(
        r"(.+?)\s+(?:unlocks|opens up|enables|allows|permits|gives access to)\s+(.+)", t
    )
    if m:
        c2 = _read(m.group(1), "C2 unlocks C1")
        c1 = _read(m.group(2), "C2 unlocks C1")
        return _result("not_before", lit(c1, c2), lit(c2, c1), form="C2 unlocks C1")
    m = re.fullmatch(
        r"(.+?)\s+(?:is|are)\s+(?:only\s+)?(?:allowed|permitted|ok|okay|fine|possible)\s+"
        r"(?:only\s+)?(?:after|once)\s+(.+)",
        t,
    )
    if m:
        c1, c2 = _read(m.group(1), "C1 is allowed only after C2"), _read(m.group(2), "")
        return _result("not_before", lit(c1, c2), lit(c2, c1), form="C1 allowed after C2")
    return None


def _form_unless_first(t: str) -> LiftedTranslation | None:
    """A leading "unless": "unless you are in [a], do not C" is a state condition, "unless you
    have been to [a], do not C" precedence."""
    m = re.fullmatch(r"(?:unless|except when|except while|except if)\s+(.+?)\s*,\s*(.+)", t)
    if not m:
        return None
    main = re.fullmatch(rf"{_NEG}\s+(.+)", m.group(2))
    condition = _read(m.group(1), "unless C1, never C2")
    if main is not None:
        avoided = _read(main.group(1), "unless C1, never C2")
    else:
        avoided = _read(m.group(2), "unless C1, never C2")
        if not avoided.avoid:
            return None
    p, q = lit(condition, avoided), lit(avoided, condition)
    if _is_state(m.group(1)):
        return _result("avoid_unless", p, q, form="unless C1, never C2")
    return _result("not_before", q, p, form="unless C1, never C2")


def _form_where(t: str) -> LiftedTranslation | None:
    """A condition on where the robot is: "never C in [b]" and "only C in [b]"."""
    m = re.fullmatch(
        rf"({_NEG}|only|you (?:may|can) only)\s+(.+?)\s+(?:while\s+)?(?:in|inside|at)\s+{X}", t
    )
    if not m or read_clause(m.group(2) + " in [" + m.group(3) + "]") is not None:
        return None
    c = read_clause(m.group(2))
    if c is None or c.literal is None or c.avoid:
        return None
    where = _atom("agent_at", m.group(3))
    if m.group(1).endswith("only"):
        return _result("avoid_unless", where, c.literal, form="only C in [b]")
    return _result("avoid_while", where, c.literal, form="never C in [b]")


def _form_remember(t: str) -> LiftedTranslation | None:
    """C2 owed after C1: "C1, and do not forget to C2 [afterwards]"."""
    m = re.fullmatch(
        r"(.+?)\s*,?\s+(?:and|but)\s+(?:then\s+)?(?:do not forget|remember|make sure|be sure)"
        r"(?:\s+to|\s+that you|\s+you)?\s+(.+)",
        t,
    )
    if not m:
        return None
    return _response(_read(m.group(1), "C1, and remember to C2"), m.group(2), False,
                     "C1, and remember to C2")  # fmt: skip


def _form_wait(t: str) -> LiftedTranslation | None:
    m = re.fullmatch(
        rf"(?:(?:you\s+)?(?:must|should|have to|need to)\s+)?(?:stay|wait|remain|keep waiting|"
        rf"be)\s+(?:in|at|inside|near|by)\s+{X}\s+(?:until|till)\s+(.+)",
        t,
    )
    if m:
        q = _read(m.group(2), "stay in [a] until C2")
        return _result("wait", _atom("agent_at", m.group(1)), lit(q), form="stay in [a] until C2")
    # "keep [a] open until C2", "keep holding [a] until C2": the state kept until C2
    m = re.fullmatch(
        rf"((?:you\s+)?(?:must\s+|should\s+)?{_v('keep')}\s+.+?)\s+(?:until|till)\s+(.+)", t
    )
    kept = read_clause(m.group(1)) if m else None
    if m is None or kept is None or kept.literal is None or kept.avoid:
        return None
    q = _read(m.group(2), "keep C1 until C2")
    return _result("wait", kept.literal, lit(q, kept), form="keep C1 until C2")


_REPEAT = (
    r"(?:repeatedly|over and over(?: again)?|again and again|infinitely often|forever|"
    r"continuously|regularly|all the time|on a loop|in a loop|periodically|indefinitely|"
    r"time after time|endlessly)"
)


def _form_patrol(t: str) -> LiftedTranslation | None:
    m = re.fullmatch(
        rf"(?:(?:keep|continue|go on)\s+(?:on\s+)?(?:going back to|returning to|coming back to|"
        rf"visiting|going to|patrolling|checking|revisiting|cycling through|"
        rf"(?:going|moving|walking) (?:back and forth )?between)|patrol|"
        rf"(?:go|move|walk) back and forth between|alternate between|"
        rf"(?:do\s+)?rounds?\s+(?:of|between|through)|patrol between|cycle through)\s+{X}"
        rf"(?:\s+{_REPEAT})?",
        t,
    )
    letter = m.group(1) if m else None
    if m is None:
        m = re.fullmatch(rf"(.+?)\s+{_REPEAT}", t)
        if m is None:
            return None
        c = read_clause(m.group(1))
        if c is None or c.literal is None or c.avoid:
            return None
        return _result("patrolling", c.literal, form="C repeatedly")
    return _result("patrolling", _atom("agent_at", str(letter)), form="patrol [a]")


_THEN = (
    r"\s*(?:,\s*|\s+)(?:and\s+)?(?:then|after that|afterwards|afterward|and later|later|next|"
    r"subsequently|followed by|and finally|finally|and after that|after some time|after a while|"
    r"some time later|a while later|a bit later|at (?:some|a) later (?:point|time|stage))\s*,?\s+"
)
_ORDER = (
    r"(?:\s*,?\s+(?:in (?:that|this|the given|exactly that|exactly this) order|in order|"
    r"(?:strictly|exactly) in (?:that|this) order|in (?:strict|strictly that) order|"
    r"one after the other|in sequence))$"
)


def _form_sequence(t: str) -> LiftedTranslation | None:
    """Visits in sequence: "go to [a], then [b]" (sequenced), "… in that order" (ordered),
    "… in strict order" (strictly ordered)."""
    order = re.search(_ORDER, t)
    text = t[: order.start()] if order else t
    pieces = re.split(_THEN, text)
    if len(pieces) < 2 and order:
        pieces = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", text)
    if len(pieces) < 2 or len(pieces) > 5:
        return None
    pieces[0] = re.sub(r"^(?:first(?:ly)?|start by|begin by)\s*,?\s+", "", pieces[0])
    clauses = [read_clause(x) for x in pieces]
    if any(c is None or c.avoid for c in clauses):
        return None
    first = next((c for c in clauses if c is not None and c.literal is not None), None)
    if first is None:
        first = Clause(_atom("agent_at", "a"))  # "[a], then [b]": places
    lits = [lit(c, first) for c in clauses if c is not None]
    strict = order is not None and re.search(r"strict", order.group()) is not None
    name = ("strictly_ordered_visit" if strict else "ordered_visit") if order else "sequenced_visit"
    return _result(name, *lits, form=name.replace("_", " "))


def _form_visit(t: str) -> LiftedTranslation | None:
    """A bare positive instruction ("go to [a]", "visit [a] at some point"): visit."""
    c = read_clause(re.sub(r"^(?:first(?:ly)?|also|just)\s*,?\s+", "", t))
    if c is None or c.literal is None or c.avoid:
        return None
    return _result("visit", c.literal, form="C (at some point)")


_FORM_ORDER: tuple[Callable[[str], LiftedTranslation | None], ...] = (
    _form_leave_open,
    _form_one_hand,
    _form_pour_near,
    _form_count,
    _form_precedence,
    _form_unless_first,
    _form_where,
    _form_only_after,
    _form_wait_until,
    _form_wait,
    _form_not_before,
    _form_never_after,
    _form_remember,
    _form_trigger,
    _form_before,
    _form_passive,
    _form_patrol,
    _form_never,
    _form_always,
    _form_eventually,
    _form_sequence,
    _form_visit,
)
