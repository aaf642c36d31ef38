"""The frame reader between the grammar and the retrieval translator: one reading per cue
class, the never-guess refusals, the pipeline hook, and no regression on the development
sentences."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safetychip.automata import equivalent
from safetychip.errors import OutOfGrammarError
from safetychip.experiments import scene_vocabulary
from safetychip.ltl import parse
from safetychip.paths import DATA_DIR
from safetychip.translate import Translator, Vocabulary, evaluate, load_utterances
from safetychip.translate._frames import FrameReader, cue_classes, prepare

read = FrameReader()


def _same(formula, expected: str) -> bool:
    return equivalent(formula, parse(expected))


# -- one reading per cue class (sentences written for this test) ------------------------------

#: The strictly ordered and the ordered visit of [a], then [b].
STRICT_AB = (
    'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)") & '
    '(!"agent_at(a)" U ("agent_at(a)" U (!"agent_at(a)" U "agent_at(b)")))'
)
ORDER_AB = 'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")'

CASES = [
    # headers over lists
    ("Rooms to visit: [a], [b].", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("Forbidden: [a], [b], [c].", "never", 'G!"agent_at(a)" & G!"agent_at(b)" & G!"agent_at(c)"'),
    ("Open [a] and switch on [b].", "visit", 'F"is_open(a)" & F"is_switchedon(b)"'),
    # routes: numbered, arrows, several clauses
    (
        "Itinerary: 1) [a] 2) [b] 3) [c]",
        "sequenced_visit",
        'F("agent_at(a)" & F("agent_at(b)" & F"agent_at(c)"))',
    ),
    ("[a] -> [b]", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    (
        "Check [a], then [b]. Do not set foot in [b] before [a].",
        "ordered_visit",
        ORDER_AB,
    ),
    (
        "[a] then [b], in that order, and no popping back into [a] in between.",
        "strictly_ordered_visit",
        STRICT_AB,
    ),
    (
        "Step into [a] a single time, then go to [b].",
        "strictly_ordered_visit",
        STRICT_AB,
    ),
    # patrolling
    ("Circuit: [a], [b], repeatedly.", "patrolling", 'GF"agent_at(a)" & GF"agent_at(b)"'),
    ("Keep checking on [a] over and over.", "patrolling", 'GF"agent_at(a)"'),
    # counts
    ("[a]: 4 visits max.", "at_most", None),
    ("Fewest visits: [a] 2, [b] 3.", None, None),  # "fewest" is no bound word: refused below
    ("[a] at least 2 times.", "at_least", 'F("agent_at(a)" & F(!"agent_at(a)" & F"agent_at(a)"))'),
    ("Exact counts: [a] 1, [b] 1.", "exactly", None),
    ("Go into [a] and [b] at most twice each.", "at_most", None),
    ("Open [a] four times, no more and no fewer.", "exactly", None),
    ("[a]: 3+ visits", "at_least", None),
    ("[a] x2, tops.", "at_most", None),
    # reactions
    (
        "[a] on -> [a] off sooner or later.",
        "response",
        'G("is_switchedon(a)" -> F!"is_switchedon(a)")',
    ),
    (
        "Whenever you grab [a], drop it on the very next step, no dawdling.",
        "immediate_response",
        'G("is_grabbed(a)" -> X[!]!"is_grabbed(a)")',
    ),
    (
        "If [a] gets opened, it has to be shut again within 2 steps, tops.",
        "bounded_delay",
        'G("is_open(a)" -> (!"is_open(a)" | X[!](!"is_open(a)" | X[!]!"is_open(a)")))',
    ),
    (
        "Shut right after opening: [a], [b].",
        "immediate_response",
        'G("is_open(a)" -> X[!]!"is_open(a)") & G("is_open(b)" -> X[!]!"is_open(b)")',
    ),
    (
        "Release [a] no more than 3 steps after grabbing it.",
        "bounded_delay",
        'G("is_grabbed(a)" -> (!"is_grabbed(a)" | X[!](!"is_grabbed(a)" | X[!](!"is_grabbed(a)"'
        ' | X[!]!"is_grabbed(a)"))))',
    ),
    (
        "After each opening of [a], shut it again later.",
        "response",
        'G("is_open(a)" -> F!"is_open(a)")',
    ),
    # waiting
    ("Hold position in [a] till [b] is on.", "wait", '"agent_at(a)" U "is_switchedon(b)"'),
    # state conditions, unless, future avoidance, precedence
    ("In [a]: no [b] pickup.", "avoid_while", 'G("agent_at(a)" -> !"is_grabbed(b)")'),
    (
        "While the robot is in [a], neither [b] nor [c] may be switched on.",
        "avoid_while",
        'G("agent_at(a)" -> !"is_switchedon(b)") & G("agent_at(a)" -> !"is_switchedon(c)")',
    ),
    (
        "The agent shall not open [a] unless it is located in [b].",
        "avoid_unless",
        'G(!"agent_at(b)" -> !"is_open(a)")',
    ),
    (
        "After [a]: no [b], no [c].",
        "absence_after",
        'G("agent_at(a)" -> XG!"agent_at(b)") & G("agent_at(a)" -> XG!"agent_at(c)")',
    ),
    (
        "[a] may only be switched on once [b] has been visited.",
        "not_before",
        '!"is_switchedon(a)" W "agent_at(b)"',
    ),
    (
        "Not before [a]: [b], [c].",
        "not_before",
        '(!"agent_at(b)" W "agent_at(a)") & (!"agent_at(c)" W "agent_at(a)")',
    ),
]


# -- notations and clause forms people use (added 2026-11-24, sentences written for this test) --

NOTATIONS = [
    # "=" as an implication, like an arrow
    (
        "[a] on = [a] off within 3 steps",
        "bounded_delay",
        'G("is_switchedon(a)" -> (!"is_switchedon(a)" | X[!](!"is_switchedon(a)" | '
        'X[!](!"is_switchedon(a)" | X[!]!"is_switchedon(a)"))))',
    ),
    # a state on the left of an arrow is a state condition; "stays closed" a prohibition
    ("Inside [a] -> [b] remains closed.", "avoid_while", 'G("agent_at(a)" -> !"is_open(b)")'),
    (
        "While in [a], keep [b] switched off.",
        "avoid_while",
        'G("agent_at(a)" -> !"is_switchedon(b)")',
    ),
    # a two-way arrow joins two places
    ("Patrol [a] <-> [b], never stop.", "patrolling", 'GF"agent_at(a)" & GF"agent_at(b)"'),
    ("Keep visiting [a] and [b] nonstop.", "patrolling", 'GF"agent_at(a)" & GF"agent_at(b)"'),
    # a typo of "the", an article before a thing
    ("go to teh [a] and the [b]", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    # indifference to order is a remark
    (
        "okay, reach [a] and [b] too, it doesn't matter which one first",
        "visit",
        'F"agent_at(a)" & F"agent_at(b)"',
    ),
    # the thing said first, its verb later without an object
    ("[a], you may open only after you visit [b].", "not_before", '!"is_open(a)" W "agent_at(b)"'),
    ("[a] you enter at most 2 times.", "at_most", None),
    # a header naming the thing, then a count about it
    ("[a]: switch it on twice at most.", "at_most", None),
    # "only when C, you may X (, otherwise not)" is unless C
    (
        "Only when you are in [a], you can switch on [b], otherwise not.",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_switchedon(b)")',
    ),
    (
        "[a] never goes on unless you are in [b].",
        "avoid_unless",
        'G(!"agent_at(b)" -> !"is_switchedon(a)")',
    ),  # fmt: skip
    # an emphatic remark
    (
        "When you are carrying [a], do not enter [b]. No exceptions.",
        "avoid_while",
        'G("is_grabbed(a)" -> !"agent_at(b)")',
    ),
    # a run-on route with its order clauses, a single trip, backtracking
    (
        "[a] then [b] do not enter [b] first and do not return to [a] before [b]",
        "strictly_ordered_visit",
        STRICT_AB,
    ),
    (
        "[a] -> [b]; a single visit to [a], no [b] first.",
        "strictly_ordered_visit",
        STRICT_AB,
    ),
    (
        "[a], then [b], in order, no backtracking.",
        "strictly_ordered_visit",
        STRICT_AB,
    ),
    # "+" joins a list
    ("Visit [a] + [b].", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    # "it is forbidden to", "make [a] on"
    ("It is prohibited to set [a] on.", "never", 'G!"is_switchedon(a)"'),
    # a reason that names only things the rule names is left out
    (
        "Never enter [a] before [b], since [b] must be checked first.",
        "not_before",
        '!"agent_at(a)" W "agent_at(b)"',
    ),
    # "none of them": every step; "the one before it": its predecessor; "it" is not the
    # subject of its own clause
    (
        "Go to [a], then [b], then [c]; each of them not before the one preceding it.",
        "ordered_visit",
        'F("agent_at(a)" & F("agent_at(b)" & F"agent_at(c)")) & (!"agent_at(b)" U "agent_at(a)")'
        ' & (!"agent_at(c)" U "agent_at(b)")',
    ),
    (
        "Go to [a] and then [b], entering [a] only once before [b], and never [b] before it.",
        "strictly_ordered_visit",
        STRICT_AB,
    ),
    # an order between two places, and a clause that both are visited
    (
        "Get to [a] before [b] and make sure you visit both of them.",
        "ordered_visit",
        ORDER_AB,
    ),
    (
        "Do not enter [b] before [a], but reach both eventually.",
        "ordered_visit",
        ORDER_AB,
    ),
    # a to-do list may begin with a state
    ("[a] off + pick up [b]", "visit", 'F!"is_switchedon(a)" & F"is_grabbed(b)"'),
    # on a route [a], [b], "no [a] before [b]" can only mean no return to [a]
    (
        "[a], then [b]; [b] not before [a]; no entering [a] before [b].",
        "strictly_ordered_visit",
        STRICT_AB,
    ),
    # a route over clauses joined by "thereafter"; "made it to" names nothing by "it"
    ("Reach [a]; thereafter, reach [b].", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    (
        "Never open [a] until you have made it to [b].",
        "not_before",
        '!"is_open(a)" W "agent_at(b)"',
    ),
    # more ways to say "go to"
    (
        "Do not swing by [a] before you have headed over to [b].",
        "not_before",
        '!"agent_at(a)" W "agent_at(b)"',
    ),
    # predicates written as functions: their parentheses are no parenthetical
    (
        "Rule: is_open([a]) only when agent_at([b]).",
        "avoid_unless",
        'G(!"agent_at(b)" -> !"is_open(a)")',
    ),  # fmt: skip
    # the specification style "E1 shall be followed by E2"
    (
        "Any opening of [a] must eventually be followed by its closing.",
        "response",
        'G("is_open(a)" -> F!"is_open(a)")',
    ),
    (
        "Each switching on of [a] shall be followed by its switching off within 1 step.",
        "bounded_delay",
        'G("is_switchedon(a)" -> (!"is_switchedon(a)" | X[!]!"is_switchedon(a)"))',
    ),
    ("I would like you to open [a] at some point.", "visit", 'F"is_open(a)"'),
    # "with [b] in your hand", "[a] trips", "<="
    (
        "Never enter [a] with [b] in your hands.",
        "avoid_while",
        'G("is_grabbed(b)" -> !"agent_at(a)")',
    ),
    ("No [a] entries at all.", "never", 'G!"agent_at(a)"'),
    ("Cap: [a] trips <= 2", "at_most", None),
    # "N is the max", "keep VERBing"; "go and VERB"; "once you're done there" between steps
    (
        "Do not keep entering [a], once is the max.",
        "at_most",
        '!F("agent_at(a)" & '
        '("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))',
    ),  # fmt: skip
    ("Go and open [a], please.", "visit", 'F"is_open(a)"'),
    (
        "Head to [a] first and, when you've finished there, check [b].",
        "sequenced_visit",
        'F("agent_at(a)" & F"agent_at(b)")',
    ),
    # orders said by the route's remarks and clauses
    (
        "[a] -> [b] (strict: no revisits, no skipping)",
        "strictly_ordered_visit",
        STRICT_AB,
    ),
    (
        "[a], [b], in that order, each one exactly once before the next.",
        "strictly_ordered_visit",
        STRICT_AB,
    ),
    (
        "Go to [a] and then to [b] without returning to [a], and not [b] first.",
        "strictly_ordered_visit",
        STRICT_AB,
    ),
    (
        "Check [a] and [b], [a] first.",
        "ordered_visit",
        ORDER_AB,
    ),
    (
        "Reach [a], and only after that, [b].",
        "ordered_visit",
        ORDER_AB,
    ),
    (
        "[b] only after [a], and both have to be visited.",
        "ordered_visit",
        ORDER_AB,
    ),
    # visits and prohibitions: one sentence per thing, to-do headers, "any order"
    ("Visit [a]. Also check [b].", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("Do not enter [a]. Stay out of [b] too.", "never", 'G!"agent_at(a)" & G!"agent_at(b)"'),
    ("Errands: [a], [b].", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("[a] and [b], whatever order you prefer.", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("Both [a] and [b] require checking.", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    # patrols said by their duration; "never stop checking"
    ("Check on [a] and [b] round the clock.", "patrolling", 'GF"agent_at(a)" & GF"agent_at(b)"'),
    ("Loop between [a] and [b] endlessly.", "patrolling", 'GF"agent_at(a)" & GF"agent_at(b)"'),
    ("Do not ever stop visiting [a].", "patrolling", 'GF"agent_at(a)"'),
    # "you have k steps to", "you may X, but only n times"
    (
        "Once [a] is switched on, you have 1 step to switch it off.",
        "bounded_delay",
        'G("is_switchedon(a)" -> (!"is_switchedon(a)" | X[!]!"is_switchedon(a)"))',
    ),
    ("You may open [a], but only once.", "at_most", None),
    # an order remark is read, never dropped: "in that exact order", "no repeats"
    (
        "[a] then [b] then [c], in this exact order",
        "ordered_visit",
        'F("agent_at(a)" & F("agent_at(b)" & F"agent_at(c)")) & (!"agent_at(b)" U "agent_at(a)")'
        ' & (!"agent_at(c)" U "agent_at(b)")',
    ),
    (
        "[a], [b]. That order. No repeats before moving on.",
        "strictly_ordered_visit",
        STRICT_AB,
    ),
    # a leading "until C2," before the prohibition; "otherwise don't" after "only"
    ("Until [a] has been visited, no [b].", "not_before", '!"agent_at(b)" W "agent_at(a)"'),
    (
        "Switch on [a] only while in [b], otherwise don't.",
        "avoid_unless",
        'G(!"agent_at(b)" -> !"is_switchedon(a)")',
    ),
    # more ways to say the same patterns
    (
        "If [a] is grabbed, it has to be dropped before 2 steps pass.",
        "bounded_delay",
        'G("is_grabbed(a)" -> (!"is_grabbed(a)" | X[!](!"is_grabbed(a)" | X[!]!"is_grabbed(a)")))',
    ),
    (
        "Never keep [a] on while you are in [b].",
        "avoid_while",
        'G("agent_at(b)" -> !"is_switchedon(a)")',
    ),  # fmt: skip
    (
        "[a] may only be switched on from [b].",
        "avoid_unless",
        'G(!"agent_at(b)" -> !"is_switchedon(a)")',
    ),  # fmt: skip
    ("No grabbing [a] outside of [b].", "avoid_unless", 'G(!"agent_at(b)" -> !"is_grabbed(a)")'),
    ("Never bring [a] into [b].", "avoid_while", 'G("is_grabbed(a)" -> !"agent_at(b)")'),
    (
        "Opening [a] is required before entering [b].",
        "not_before",
        '!"agent_at(b)" W "is_open(a)"',
    ),
    (
        "when u open [a] shut it rite after",
        "immediate_response",
        'G("is_open(a)" -> X[!]!"is_open(a)")',
    ),  # fmt: skip
    # a remark that describes the world asks for nothing; "the instant you", "right back"
    ("Never switch on [a], the neighbours are asleep.", "never", 'G!"is_switchedon(a)"'),
    (
        "The instant you open [a], shut it right back.",
        "immediate_response",
        'G("is_open(a)" -> X[!]!"is_open(a)")',
    ),
    # prohibitions in chat and in headers
    ("hi robot, pls dont open [a] ok? ty", "never", 'G!"is_open(a)"'),
    ("I don't want you in [a]. Ever.", "never", 'G!"agent_at(a)"'),
    ("[a]: a no-go area.", "never", 'G!"agent_at(a)"'),
    ("[a]: never grab.", "never", 'G!"is_grabbed(a)"'),
    ("Don't you dare open [a].", "never", 'G!"is_open(a)"'),
    ("Always, [a] must remain closed.", "never", 'G!"is_open(a)"'),
    ("Never, at any time, switch on [a].", "never", 'G!"is_switchedon(a)"'),
    (
        "Do not grab any of the following: [a], [b].",
        "never",
        'G!"is_grabbed(a)" & G!"is_grabbed(b)"',
    ),
    ("keep outta [a]", "never", 'G!"agent_at(a)"'),
    # counts and future avoidance in chat
    ("you may open [a] like 3 times max", "at_most", None),
    ("Three [a] entries, tops.", "at_most", None),
    ("Take at least 2 trips into [a].", "at_least", None),
    (
        "Having entered [a], you may no longer switch on [b].",
        "absence_after",
        'G("agent_at(a)" -> XG!"is_switchedon(b)")',
    ),
    ("Post-[a], no [b].", "absence_after", 'G("agent_at(a)" -> XG!"agent_at(b)")'),
    # sticky notes: the thing as a header, "1." lists, "1st", "[a] grab"
    (
        "[a]: shut right after opening.",
        "immediate_response",
        'G("is_open(a)" -> X[!]!"is_open(a)")',
    ),
    ("[a], [b]: switch off within 1 step of switching on.", "bounded_delay", None),
    ("1. [a] 2. [b]", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    ("[a] 1st, then [b]", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    ("in [a] -> no [b] grab", "avoid_while", 'G("agent_at(a)" -> !"is_grabbed(b)")'),
    # unless and while, said in more ways
    ("Only in [a] can [b] be opened.", "avoid_unless", 'G(!"agent_at(a)" -> !"is_open(b)")'),
    (
        "[b] may be switched on in [a] only.",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_switchedon(b)")',
    ),  # fmt: skip
    ("Except in [a], never grab [b].", "avoid_unless", 'G(!"agent_at(a)" -> !"is_grabbed(b)")'),
    ("Anywhere but [a], [b] stays closed.", "avoid_unless", 'G(!"agent_at(a)" -> !"is_open(b)")'),
    (
        "[b] must be off unless you are in [a].",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_switchedon(b)")',
    ),  # fmt: skip
    (
        "Only open [b] while in [a], nowhere else.",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_open(b)")',
    ),  # fmt: skip
    (
        "Never open [b] unless standing in [a].",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_open(b)")',
    ),  # fmt: skip
    # "have [b]" is holding it, never being at it
    ("No [a] visits while you have [b].", "avoid_while", 'G("is_grabbed(b)" -> !"agent_at(a)")'),
    # bounds in other units and as a longest time open; a timing in parentheses
    (
        "Shut [a] within 2 moves of opening it.",
        "bounded_delay",
        'G("is_open(a)" -> (!"is_open(a)" | X[!](!"is_open(a)" | X[!]!"is_open(a)")))',
    ),
    (
        "Never keep [a] open for longer than 2 steps.",
        "bounded_delay",
        'G("is_open(a)" -> (!"is_open(a)" | X[!](!"is_open(a)" | X[!]!"is_open(a)")))',
    ),
    (
        "[a] may stay open for no more than 2 turns.",
        "bounded_delay",
        'G("is_open(a)" -> (!"is_open(a)" | X[!](!"is_open(a)" | X[!]!"is_open(a)")))',
    ),
    (
        "Whenever [a] opens, it must close in at most 2 steps.",
        "bounded_delay",
        'G("is_open(a)" -> (!"is_open(a)" | X[!](!"is_open(a)" | X[!]!"is_open(a)")))',
    ),
    (
        "Open [a] => shut [a] (the following step).",
        "immediate_response",
        'G("is_open(a)" -> X[!]!"is_open(a)")',
    ),
    ("[a] opened -> [a] closed, eventually.", "response", 'G("is_open(a)" -> F!"is_open(a)")'),
    # tasks asked for as events or at some point; "do both" after an order of two tasks
    (
        "Make sure [a] gets opened and [b] gets switched on.",
        "visit",
        'F"is_open(a)" & F"is_switchedon(b)"',
    ),  # fmt: skip
    ("I need [a] on and [b] open at some point.", "visit", 'F"is_switchedon(a)" & F"is_open(b)"'),
    ("Sometime during the task, open [a].", "visit", 'F"is_open(a)"'),
    (
        "Switch on [a] before opening [b], and do both.",
        "ordered_visit",
        'F("is_switchedon(a)" & F"is_open(b)") & (!"is_open(b)" U "is_switchedon(a)")',
    ),
    # hedged requests
    (
        "it would be nice if you could drop by [a] and [b] sometime",
        "visit",
        'F"agent_at(a)" & F"agent_at(b)"',
    ),  # fmt: skip
    (
        "would you make sure that every time you open [a] you close it eventually?",
        "response",
        'G("is_open(a)" -> F!"is_open(a)")',
    ),
    (
        "maybe hold off on opening [a] until after you have been in [b]?",
        "not_before",
        '!"is_open(a)" W "agent_at(b)"',
    ),
    ("keep it to, like, two visits to [a] at most?", "at_most", None),
    # a formal register
    (
        "The robot shall not switch on [a] prior to having entered [b].",
        "not_before",
        '!"is_switchedon(a)" W "agent_at(b)"',
    ),
    (
        "Save when present in [a], the robot shall not activate [b].",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_switchedon(b)")',
    ),
    (
        "At any time at which the robot is present in [a], it shall not open [b].",
        "avoid_while",
        'G("agent_at(a)" -> !"is_open(b)")',
    ),
    ("The robot shall enter [a] on not fewer than two (2) occasions.", "at_least", None),
    (
        "The robot shall attend [a] and, upon completion thereof, attend [b].",
        "sequenced_visit",
        'F("agent_at(a)" & F"agent_at(b)")',
    ),
    # checklists, crosses, steps, "(or more)", "order does not matter", "after" at the end
    ("[ ] [a] [ ] [b] (the order does not matter)", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("✗ [a] ✗ [b]", "never", 'G!"agent_at(a)" & G!"agent_at(b)"'),
    (
        "Step 1: open [a]. Step 2: grab [b].",
        "sequenced_visit",
        'F("is_open(a)" & F"is_grabbed(b)")',
    ),
    ("[ ] [a] x3 (or more)", "at_least", None),
    (
        "could you open [a] and grab [b] after?",
        "sequenced_visit",
        'F("is_open(a)" & F"is_grabbed(b)")',
    ),  # fmt: skip
    (
        "IF [a] NOT visited yet THEN block [b]",
        "not_before",
        '!"agent_at(b)" W "agent_at(a)"',
    ),
    ("no [a] till u're done in [b] ok", "not_before", '!"agent_at(a)" W "agent_at(b)"'),
    # the last of the even half's groups: a timing after the comma, "thereafter", "[a]: on
    # only in [b]", a route then its rules after a colon, "X or wander back", "before C2, no
    # C1", "not the other way round", "until told to stop", "not fewer than"
    (
        "the moment you open [a] shut it again, the very next step",
        "immediate_response",
        'G("is_open(a)" -> X[!]!"is_open(a)")',
    ),
    (
        "After each opening of [a], the robot shall thereafter close it.",
        "response",
        'G("is_open(a)" -> F!"is_open(a)")',
    ),  # fmt: skip
    ("[a]: off unless in [b]", "avoid_unless", 'G(!"agent_at(b)" -> !"is_switchedon(a)")'),
    (
        "Go from [a] to [b]: [b] not before [a], and no going back to [a] until [b].",
        "strictly_ordered_visit",
        STRICT_AB,
    ),  # fmt: skip
    (
        "[a] then [b], and never enter [b] early or sneak back into [a] before [b].",
        "strictly_ordered_visit",
        STRICT_AB,
    ),  # fmt: skip
    ("Before you visit [a], do not open [b].", "not_before", '!"is_open(b)" W "agent_at(a)"'),
    (
        "Go to [a] and then [b], not the other way round.",
        "ordered_visit",
        ORDER_AB,
    ),  # fmt: skip
    ("Patrol [a] and [b] until told otherwise.", "patrolling", 'GF"agent_at(a)" & GF"agent_at(b)"'),
    ("Open [a] on not fewer than 2 separate occasions.", "at_least", None),
    # "them" after a list, in a reaction: about each thing
    (
        "Switch off [a] and [b] within 1 step of switching them on.",
        "bounded_delay",
        'G("is_switchedon(a)" -> (!"is_switchedon(a)" | X[!]!"is_switchedon(a)")) & '
        'G("is_switchedon(b)" -> (!"is_switchedon(b)" | X[!]!"is_switchedon(b)"))',
    ),
    # "there" is the next stop; "once you've left [a], don't go back in"; "do [a] then [b]"
    (
        "[a], then [b]; [b] not first; no going back to [a] until you are there.",
        "strictly_ordered_visit",
        STRICT_AB,
    ),  # fmt: skip
    (
        "Do [a], then [b]; never [b] first, and once you have left [a] never come back in.",
        "strictly_ordered_visit",
        STRICT_AB,
    ),  # fmt: skip
    # "implies" before a negation, in predicate notation
    (
        "Rule: agent_at([a]) implies not is_open([b]).",
        "avoid_while",
        'G("agent_at(a)" -> !"is_open(b)")',
    ),  # fmt: skip
]
CASES += NOTATIONS


@pytest.mark.parametrize(("sentence", "pattern", "formula"),
                         [c for c in CASES if c[1] is not None])  # fmt: skip
def test_each_cue_class_reads_its_pattern(sentence, pattern, formula):
    result = read(sentence)
    assert result.pattern == pattern
    assert result.form.startswith("frames:")
    if formula is not None:
        assert _same(result.formula, formula), str(result.formula)


def test_a_list_gives_one_part_per_thing():
    result = read("Limits: [a] at most 2 visits, [b] at most 1 visit.")
    assert result.pattern == "at_most" and len(result.parts) == 2
    assert _same(result.parts[1], '!F("agent_at(b)" & F(!"agent_at(b)" & F"agent_at(b)"))')
    assert read("[a] at least 2 times.").parts == ()


def test_cue_classes_and_preparation():
    assert {"bound", "trigger"} <= cue_classes("whenever you open [a], close it within 2 steps")
    assert "negation" in cue_classes("off limits: [a]")
    assert prepare("Route: (1) [a] (2) [b]") == "route: [a], then [b]"
    # "(3)" repeats a number; it is no numbered route
    assert "then" not in prepare("[a] on no more than three (3) occasions")


# -- it never guesses -------------------------------------------------------------------------

REFUSED = [
    "Fewest visits: [a] 2, [b] 3.",  # no bound word the frames know
    "Visit [a] twice.",  # a number without a bound: exactly or at least?
    "[a], then [b]. Avoid [c].",  # a clause about a thing no rule consumed
    "[a], then [b], then [c]. [b] not before [a].",  # an order for some steps only
    "Go to [a] or [b].",  # "or" in a visit: either one, not both
    "Open [a] and [b], then close them.",  # a plural pronoun
    "If you visit [a], [b] is off limits.",  # a prohibition after neither a state nor history
    "[a] visited -> [b] shut for good.",  # a lasting state that is no prohibition
    "Whenever you open [a], close it.",  # a positive reaction without a timing? response
    "Loop: [a], [b]. Never [c].",  # a negation beside a patrol
    "Open [a] at most twice, or [b].",  # "or" in a count
    "[a] once, then [b], then [c].",  # entered once before the next: for one pair only
    "[a] at least twice, [b] at most once.",  # two kinds of count in one sentence
    "Juggle [a].",  # no clause reads
    "Off limits: [a], and the [b] is lovely.",  # a remark naming a thing
    "[a] then [b]. A single trip into [b].",  # "once" about the last step
    "Patrol [a], do not stop. Never [b].",  # a prohibition beside a patrol
    "[a] = [b]",  # "=" between bare things: no reading
    "Close [a] as soon as you open it, as I asked.",  # "as soon as" is no reason clause
    "[a], you can enter only after you visit [b] or [c].",  # "or" in a precedence's second part
    "Do not open [a] before [b], because [c] is wet.",  # a reason naming another thing
    "Visit [a] and [b], then close them.",  # "them" is no quantifier over the steps
    "Do not open [b] before you are in [a], and visit both.",  # "both" of no two places
    "[a] on and [b] off.",  # states only: no task
    "No [a], [b].",  # bare things after "no": a place or a thing?
    "Do not go to [a] with [b].",  # with [b]: held, or accompanied?
    "Visit [a]. Never [b].",  # sentences of different patterns
    "[a], [b], and only then [c].",  # "only then" orders one pair of three
    "[a] and [b].",  # bare things: no task said
    "First [a], only then [b] may be entered.",  # a permission is no step of a route
    "[a], then [b], then [c], the usual order.",  # an order remark it does not know
    "Until [a] is on, stay in [b].",  # "until" before a positive clause: no prohibition
    "Never open [a]. Windows cannot be opened either.",  # a rule in a passive remark
    "Visit [a]. Nothing is allowed after that.",  # "nothing": no description
    "[a]: no.",  # a bare "no" of a thing: a place or a thing to leave alone?
    "Grab these: [a], then close them.",  # "them" is still a pronoun
    "[a] b4 [b]",  # an order without a prohibition or a visit of both
    "[a], [b]: on and off.",  # a header statement the frames do not read
    "[b] must be on unless you are in [a].",  # a positive state is no prohibition
    "[a] -> [b] (never [c]).",  # a negation in parentheses beside a route
    "Open [a] -> close [a] (next step) (later).",  # two timings
    "I want [a] closed.",  # a state wished for: once, or always?
    "Make sure [a] is on.",  # the same
    "[ ] [a] [ ] [b], in that order, in any order",  # a route in any order
    "[a]: never.",  # a bare "never" of a thing: a place or a thing?
    "Grab [a] and [b] and drop them later.",  # "them" in no reaction: a route of four steps?
    "Provided that you are in [a], open [b].",  # "provided that" first is a condition
    "Upon completion thereof, go to [a].",  # "thereof" refers to nothing said
    "While [b] is present in [a], never open [c].",  # "present" of a thing is no place of yours
    "Go to [a] and after you open [b], never enter [c].",  # "after" here starts a condition
    "agent_at([a]) implies agent_at([b])",  # "implies" is no route
    "At most 1: [a] twice.",  # a number in the header and another in the list
]


@pytest.mark.parametrize("sentence", REFUSED)
def test_it_refuses_rather_than_guess(sentence):
    if sentence == "Whenever you open [a], close it.":
        # "whenever" repeats: this one is a response, not a refusal
        assert read(sentence).pattern == "response"
        return
    with pytest.raises(OutOfGrammarError, match="frame reader cannot read"):
        read(sentence)


_TOKENS = [
    "[a]",
    "[b]",
    "[c]",
    "not",
    "never",
    "then",
    "->",
    ":",
    ",",
    ".",
    "(",
    ")",
    "3",
    "twice",
    "or",
    "and",
    "each",
    "only",
    "until",
    "if",
    "max",
    "at least",
    "open",
    "visit",
    "in",
    "on",
    "put",
    "-only",
    "first",
    "within 2 steps",
    "keep",
    "no",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=12))
def test_any_text_is_read_with_every_thing_or_refused(tokens):
    text = " ".join(tokens)
    try:
        result = read(text)
    except OutOfGrammarError:
        return
    letters = {x for a in result.formula.atoms() for x in a.split("(", 1)[1].rstrip(")").split(",")}
    assert letters == {t[1] for t in tokens if t.startswith("[")}


def test_a_prohibition_needs_a_negation():
    with pytest.raises(OutOfGrammarError):
        read("While in [a], [b] stays closed and [c] comes along.")


# -- the pipeline ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def translator():
    names = ["kitchen", "bathroom", "bedroom", "fridge", "stove", "lamp"]
    return Translator(Vocabulary.from_names(names), embedder=None, slots=False)


def test_the_pipeline_asks_the_frames_after_the_grammar(translator):
    t = translator("Off limits: kitchen, bathroom.")
    assert t.translator == "offline-frames" and t.to_dict()["translator"] == "offline-frames"
    assert [str(c.formula) for c in t.parts] == ['G!"agent_at(kitchen)"', 'G!"agent_at(bathroom)"']
    assert translator("Never go to the kitchen.").translator == "offline-pattern-grammar"
    off = Translator(
        Vocabulary.from_names(["kitchen", "bathroom"]), embedder=None, frames=False, slots=False
    )
    with pytest.raises(OutOfGrammarError):
        off("Off limits: kitchen, bathroom.")


def test_the_pipeline_still_refuses_what_the_frames_refuse(translator):
    with pytest.raises(OutOfGrammarError, match="outside the offline translator's grammar"):
        translator("Kitchen, then bathroom. Avoid the bedroom.")


# -- no regression on the development sentences ------------------------------------------------


def _convention(formula, label: str) -> bool:
    """Equivalent once the project's conventions are read as the labels': strong next as
    weak, and future avoidance from the next step as from the same step."""
    text = str(formula).replace("X[!]", "X").replace("XG", "G")
    return equivalent(parse(text), parse(label))


def test_the_development_utterances_do_not_regress():
    rows = load_utterances()
    result = evaluate(lambda scene: Translator(scene_vocabulary(scene), embedder=None), rows)
    right, _refused, _wrong = (sum(v[i] for v in result.outcomes().values()) for i in range(3))
    # measured with the frame reader on 2026-11-23: 168 right, 1 refused, 1 wrong of 170; with
    # candidate sets (2026-12-07) the set holds a right formula for 168, the first candidate is
    # right for 165 (where the grammar and the frame reader disagree, the frame reader's
    # reading ranks first and both are offered), and one settled set of one is wrong (a
    # sentence of the family no pattern expresses, as before)
    assert sum(r["covered"] for r in result.rows) >= 168, result.set_scores()
    assert right >= 165 and result.silent_singletons() <= 1, result.scores()


@pytest.mark.parametrize(
    ("folder", "least"),
    # measured without an embedder on 2026-11-24 (after the general rules of that night):
    # held-out 180 answers by the frames, 145 right and 35 a convention apart; dev_other 154
    # answers, all right
    [("heldout", 140), ("dev_other", 148)],
)
def test_on_development_sets_the_frames_are_right_or_a_convention_apart(folder, least):
    rows = load_utterances(DATA_DIR / "translation" / folder / "sentences.jsonl")
    result = evaluate(
        lambda scene: Translator(scene_vocabulary(scene), embedder=None, slots=False), rows
    )
    mine = [r for r in result.rows if r["translator"] == "offline-frames"]
    right = [r for r in mine if r["correct"]]
    wrong = [r for r in mine if not r["correct"]]
    assert len(right) >= least, len(right)
    apart = [r for r in wrong if _convention(parse(r["predicted"]), r["label"])]
    assert apart == wrong, [r["sentence"] for r in wrong if r not in apart]


#: Phrasings that once slipped past the frames to the retrieval translator, which read them
#: wrongly (sentences written for this test, after the classes of fresh/'s silent errors).
ONCE_MISREAD = [
    # "no rush" is no prohibition; "duck into" and "at some stage" are a visit
    ("I reckon you could duck into [a] and [b] at some stage, no hurry.", "visit",
     'F"agent_at(a)" & F"agent_at(b)"'),
    # "and later on [b]" orders the two places
    ("Head to [a] and later on [b].", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    # "once or not at all" is at most once, not never
    ("You are allowed into [a] once or not at all.", "at_most",
     '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))'),
    # "do go to both" after an order keeps the visits
    ("Do not enter [b] till you have been in [a], and do visit both.", "ordered_visit", ORDER_AB),
    # a thing that turns off by itself ends the wait
    ("Wait in [a] until [b] switches off.", "wait", '"agent_at(a)" U !"is_switchedon(b)"'),
]  # fmt: skip

#: Chatty phrasings: terms of address and "after that" between places (written for this test).
CHATTY = [
    ("Keep [b] off unless you are in [a], pal.", "avoid_unless",
     'G(!"agent_at(a)" -> !"is_switchedon(b)")'),
    ("Check [a] for me, dear.", "visit", 'F"agent_at(a)"'),
    ("Pop into [a] and [b], whenever suits you.", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("Go to [a], and after that head to [b].", "sequenced_visit",
     'F("agent_at(a)" & F"agent_at(b)")'),
    ("Visit [a] and, when that is done, [b].", "sequenced_visit",
     'F("agent_at(a)" & F"agent_at(b)")'),
    ("get 2 [a] than [b]", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    ("While you are in [a], please refrain from opening [b].", "avoid_while",
     'G("agent_at(a)" -> !"is_open(b)")'),
    ("Keep going round [a] and [b] for the rest of the shift.", "patrolling",
     'G F"agent_at(a)" & G F"agent_at(b)"'),
    ("Open his [a] exactly once this morning.", "exactly", None),
]  # fmt: skip


@pytest.mark.parametrize(("sentence", "pattern", "formula"), ONCE_MISREAD + CHATTY)
def test_phrasings_the_retrieval_translator_misread(sentence, pattern, formula):
    reading = read(sentence)
    assert reading.pattern == pattern
    assert formula is None or _same(reading.formula, formula), str(reading.formula)


def test_after_that_before_a_prohibition_is_still_a_time():
    assert "then" not in prepare("Go to [a], and after that never enter [b].")
    assert "then" in prepare("Go to [a], and after that head to [b].")


AT_MOST_1_A = (
    '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))'
)
AT_MOST_2_A = (
    '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & '
    '("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))'
)

#: Counts and later steps said as people say them (written for this test).
SPOKEN = [
    # the subject of a negated count is no reason to read it as a lower bound
    ("One shall not enter [a] on more than a single occasion.", "at_most", AT_MOST_1_A),
    ("The robot must not enter [a] more than once.", "at_most", AT_MOST_1_A),
    # "3x", an emphatic "i mean it", a description of the thing after the count
    ("Go in [a] twice tops. I mean it.", "at_most", AT_MOST_2_A),
    ("Enter [a] max 2x, it's getting crowded.", "at_most", AT_MOST_2_A),
    # the count said to be too many agrees with the bound
    ("[a], only up to two times. Three times is too much.", "at_most", AT_MOST_2_A),
    ("Can't you keep it to no more than two trips into [a]?", "at_most", AT_MOST_2_A),
    ("• [a]: 1 visit max • [b]: 1 visit max", "at_most", None),
    # a later step, however the later is said
    ("Go to [a], and some time after that, go to [b].", "sequenced_visit",
     'F("agent_at(a)" & F"agent_at(b)")'),
    ("Proceed to [a], thereafter to [b], and in due course to [c].", "sequenced_visit",
     'F("agent_at(a)" & F("agent_at(b)" & F"agent_at(c)"))'),
    ("Visit [a]. Afterwards visit [b].", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    # the agent in the third person is "you"; holding is holding, however it is said
    ("While the agent holds [a], it shall not enter [b].", "avoid_while",
     'G("is_grabbed(a)" -> !"agent_at(b)")'),
    ("If you hold [a], never go to [b].", "avoid_while", 'G("is_grabbed(a)" -> !"agent_at(b)")'),
    ("While carrying [a], the unit shall not enter [b].", "avoid_while",
     'G("is_grabbed(a)" -> !"agent_at(b)")'),
    ("[a] shall not be activated unless the unit is located in [b].", "avoid_unless",
     'G(!"agent_at(b)" -> !"is_switchedon(a)")'),
    ("While you are in [a], don't be opening [b].", "avoid_while",
     'G("agent_at(a)" -> !"is_open(b)")'),
    ("One shall remain in [a] until [b] has been closed.", "wait", '"agent_at(a)" U !"is_open(b)"'),
    ("Wait in [a]. Don't leave until [b] is open.", "wait", '"agent_at(a)" U "is_open(b)"'),
    ("stay in [a] til [b] is off", "wait", '"agent_at(a)" U !"is_switchedon(b)"'),
    # an order stated beside the route; a negated question is a request
    ("You shall visit [a] and then [b], with [b] not entered prior to [a].", "ordered_visit",
     ORDER_AB),
    ("Couldn't you go to [a] and then [b], without going into [b] before [a]?",
     "ordered_visit", ORDER_AB),
    ("Attend [a], and only thereafter [b].", "ordered_visit", ORDER_AB),
    ("Visit [a] and [b], but try not to set foot in [b] until you've been to [a].",
     "ordered_visit", ORDER_AB),
    ("Go to [a] and then [b], making sure you don't go into [b] before [a].", "ordered_visit",
     ORDER_AB),
    ("Go to [a] and then [b], and please don't enter [b] before [a].", "ordered_visit",
     ORDER_AB),
    # legal drafting
    ("At no time shall the Robot grasp [a].", "never", 'G !"is_grabbed(a)"'),
    ("Access to [a] is permitted only after the robot has entered [b].", "not_before",
     '!"agent_at(a)" W "agent_at(b)"'),
    # a reason for each entry after the count
    ("Go into [a] two times exactly - once to check, once to tuck her in.", "exactly", None),
    # limits said as caps and bounds
    ("cap [a] entries at 2 please", "at_most", AT_MOST_2_A),
    ("Don't go into [a] or [b] more than twice each.", "at_most", None),
    ("Limit entries to [a] to one.", "at_most", AT_MOST_1_A),
    ("The number of entries into [a] is bounded above by 2.", "at_most", AT_MOST_2_A),
    # a description of the thing after the rule
    ("Never switch on [a] while you're in [b], it's dangerous near water.", "avoid_while",
     'G("agent_at(b)" -> !"is_switchedon(a)")'),
    # routes said with a restated step, an address word, "after" alone, "one after the other"
    ("[a] first, and once you've been there head on to [b].", "sequenced_visit",
     'F("agent_at(a)" & F"agent_at(b)")'),
    ("First you go to [a] dear, and when that's done [b].", "sequenced_visit",
     'F("agent_at(a)" & F"agent_at(b)")'),
    ("First go [a], after go [b].", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    ("Go to [a] and [b], one after the other in that order.", "ordered_visit", ORDER_AB),
    ("When you get a sec, pop into [a] - and [b] too, no particular order.", "visit",
     'F"agent_at(a)" & F"agent_at(b)"'),
    # emphatic second person
    ("Don't you dare leave [a] until [b] is on.", "wait", '"agent_at(a)" U "is_switchedon(b)"'),
    ("Don't you go holding [a] unless you're in [b].", "avoid_unless",
     'G(!"agent_at(b)" -> !"is_grabbed(a)")'),
    # the end of the run bounds nothing
    ("Patrol route: [a], [b] - loop it until the game ends.", "patrolling",
     'G F"agent_at(a)" & G F"agent_at(b)"'),
    ("Make your way to [a] before the session ends.", "visit", 'F"agent_at(a)"'),
    # patrols with the words people put around them
    ("Keep checking on [a] like every few minutes.", "patrolling", 'G F"agent_at(a)"'),
    ("Do the rounds of [a] and [b], again and again, till you're told to stop.", "patrolling",
     'G F"agent_at(a)" & G F"agent_at(b)"'),
    ("[a]: revisit it repeatedly, no matter what else you're doing.", "patrolling",
     'G F"agent_at(a)"'),
    # tasks over several clauses, said to be in any order
    ("Have to go to [a], also have to reach [b]. Which comes first is no problem.", "visit",
     'F"agent_at(a)" & F"agent_at(b)"'),
    ("Eventually get to [a]; eventually open [b]. No ordering requirement.", "visit",
     'F"agent_at(a)" & F"is_open(b)"'),
    ("Go into [a] and also into [b], the order it is not important.", "visit",
     'F"agent_at(a)" & F"agent_at(b)"'),
    # a count's bound said again after it
    ("Three trips to [a]. Not one more.", "at_most", None),
    ("Exactly two laps through [a]. Not one, not three.", "exactly", None),
    ("Visits to [a] are limited to two. Do not exceed.", "at_most", AT_MOST_2_A),
    ("you may open [a] 2 times!! not more", "at_most", None),
    # a label before the rule; the run's rest after a prohibition
    ("REQ-12: while the agent is in [a], [b] must not be switched on.", "avoid_while",
     'G("agent_at(a)" -> !"is_switchedon(b)")'),
    ("Once [a] is open, [b] is off limits for the rest of the run.", "absence_after", None),
    # an ordered visit told in pieces: the order, and both asked for
    ("[a] has to come first. Never go in [b] until [a] is checked. Both are required.",
     "ordered_visit", ORDER_AB),
    ("Visit [b], but you cannot enter it before [a], which you also have to visit.",
     "ordered_visit", ORDER_AB),
    ("[a] before [b]. Not [b] first! Both please.", "ordered_visit", ORDER_AB),
    # a condition in a sentence of its own; step bounds said otherwise; holding until
    ("You may switch on [a]. If you do, switch it off at the very next step.",
     "immediate_response", 'G("is_switchedon(a)" -> X[!]!"is_switchedon(a)")'),
    ("You'll sometimes be in [a]. When you are, keep [b] shut.", "avoid_while",
     'G("agent_at(a)" -> !"is_open(b)")'),
    ("When you open [a], close it in maximal 3 steps.", "bounded_delay", None),
    ("the second you grab [a], put it down. next step.", "immediate_response",
     'G("is_grabbed(a)" -> X[!]!"is_grabbed(a)")'),
    ("Keep holding [a] until you arrive at [b].", "wait", '"is_grabbed(a)" U "agent_at(b)"'),
    ("robot should hang out in [a] until [b] is off", "wait",
     '"agent_at(a)" U !"is_switchedon(b)"'),
    # hedges; counts said as nouns; "only" before the action belongs to the time
    ("If at all possible, never switch on [a] unless you're in [b].", "avoid_unless",
     'G(!"agent_at(b)" -> !"is_switchedon(a)")'),
    ("The number of times the robot visits [a] must not exceed 2.", "at_most", AT_MOST_2_A),
    ("Upper bound on [a] entries: 2.", "at_most", AT_MOST_2_A),
    ("Require at most 2 openings of [a].", "at_most", None),
    ("Visit [a] and [b], but only go into [b] once you've been to [a].", "ordered_visit",
     ORDER_AB),
    ("only open [b] when you are in [a]", "avoid_unless", 'G(!"agent_at(a)" -> !"is_open(b)")'),
    # emphasis after a prohibition; "in [a] you do not …" is a state
    ("Keep out of [a]. Never. I am not telling you again.", "never", 'G!"agent_at(a)"'),
    ("In [a] you must not switch on [b]. Ever.", "avoid_while",
     'G("agent_at(a)" -> !"is_switchedon(b)")'),
    # what ordinary users add: a meta remark, a possessive, a patrol's duration
    ("Could you visit [a] and then [b]? Sorry if this is a silly way to ask.",
     "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    ("Once you've been in Grandma's [a], stay out of [b] after that.", "absence_after", None),
    ("Patrol [a] and [b] for as long as you are switched on.", "patrolling",
     'G F"agent_at(a)" & G F"agent_at(b)"'),
    ("Never take [a] anywhere except in [b].", "avoid_unless",
     'G(!"agent_at(b)" -> !"is_grabbed(a)")'),
    ("after you go in [a] you're banned from [b]", "absence_after", None),
    ("Enter in [a] at most twice.", "at_most", AT_MOST_2_A),
    # an order told in pieces, the other way round
    ("[b] has to come after [a]: visit both, and never [b] first.", "ordered_visit", ORDER_AB),
    ("Do [a] before [b], never the other way round. Both need doing.", "ordered_visit", ORDER_AB),
    ("[a] 1st, [b] after. NOT [b] before [a]", "ordered_visit", ORDER_AB),
    # numbers denied in the count's own clause
    ("Go into [a] exactly 2 times, not 1 and not 3.", "exactly", None),
    # a thing's lasting state as the condition; the permission said last; the first visit
    ("While [a] is on, [b] must not be switched on.", "avoid_while",
     'G("is_switchedon(a)" -> !"is_switchedon(b)")'),
    ("When [a] is closed, never go into [b].", "avoid_while", 'G(!"is_open(a)" -> !"agent_at(b)")'),
    ("Only after you go to [a] you may pick up [b].", "not_before",
     '!"is_grabbed(b)" W "agent_at(a)"'),
    ("After your first visit to [a], [b] is off limits for the rest of the day.",
     "absence_after", None),
    ("Tonight robot must go to [a], any time is fine.", "visit", 'F"agent_at(a)"'),
    # dictation homophones; "at any time" closing a prohibition; nouns of counts
    ("do not open [a] more than to times", "at_most", None),
    ("when you open [a] close it within for steps", "bounded_delay", None),
    ("Please do not switch on [a] at any time.", "never", 'G!"is_switchedon(a)"'),
    ("Expected count of [a] entries: exactly 2.", "exactly", None),
    # orders said tersely
    ("First go to [a], post that go to [b].", "sequenced_visit",
     'F("agent_at(a)" & F"agent_at(b)")'),
    ("[b] only allowed after you've been in [a]", "not_before", '!"agent_at(b)" W "agent_at(a)"'),
    ("Need both [a] + [b] done. [b] only after [a].", "ordered_visit", ORDER_AB),
    ("Visit [a], [b] and [c] today, the sequence is up to you.", "visit", None),
    # counts in the word order of ordinary speech
    ("A minimum of two visits to [a] is required.", "at_least", None),
    ("Entries to [a] are not to exceed two.", "at_most", AT_MOST_2_A),
    ("Maximum two times you can go into [a], not more.", "at_most", AT_MOST_2_A),
    ("[a] needs at least two visits during the clean.", "at_least", None),
    ("[a] and [b] each need at least 2 visits.", "at_least", None),
    ("[a] minimum 3 times go.", "at_least", None),
    ("min 2x [a], more is fine", "at_least", None),
    ("Look in on [a] at the very least two times, won't you?", "at_least", None),
    ("You can enter to [a] not more than two times.", "at_most", AT_MOST_2_A),
    ("Only open [a] twice at the most, I'm counting.", "at_most", None),
    ("[a] gets precisely two visits today, no more and no fewer.", "exactly", None),
    ("Open [a] exactly twice - once to get milk out, once to put it back.", "exactly", None),
    ("Go to [a] two times minimum, at 8 and at 9.", "at_least", None),
    ("[a] should be opened exactly once, for the guests arriving at 6.", "exactly", None),
    # no time asked for, the end of the run as the deadline, a patrol until someone is back
    ("Pop over to [a] at some stage, no worries when.", "visit", 'F"agent_at(a)"'),
    ("You should go to [a] today, no matter the time.", "visit", 'F"agent_at(a)"'),
    ("Please make sure you go to [a] and [b] before the day runs out.", "visit",
     'F"agent_at(a)" & F"agent_at(b)"'),
    ("Before you finish, [a] and [b] both need to be visited. Order doesn't matter to me.",
     "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("keep checking on [a] over and over till I'm home", "patrolling", 'GF"agent_at(a)"'),
    ("Visit [a] repeatedly, again and again, until the end of the run.", "patrolling",
     'GF"agent_at(a)"'),
    # an order said again in ordinary words: "on to", "not earlier than", "need you to", "um"
    ("Go to [a] and then on to [b], and [b] not before [a]. Both are needed.", "ordered_visit",
     ORDER_AB),
    ("Firstly go to [a], then to [b]. Both must be done, [b] not earlier than [a].",
     "ordered_visit", ORDER_AB),
    ("need u to go to [a] AND [b] but [a] has to come first, dont do [b] before it",
     "ordered_visit", ORDER_AB),
    ("Visit both [a] and [b]. [b] must not be entered before [a].", "ordered_visit", ORDER_AB),
    ("um [a] then [b] both of them but don't go in [b] until you've done [a]", "ordered_visit",
     ORDER_AB),
    ("Hit [a] at least twice.", "at_least", None),  # "hit" a place: go there
    ("Please go [a] at most two times.", "at_most", AT_MOST_2_A),
]  # fmt: skip


@pytest.mark.parametrize(("sentence", "pattern", "formula"), SPOKEN)
def test_spoken_counts_and_later_steps(sentence, pattern, formula):
    reading = read(sentence)
    assert reading.pattern == pattern
    assert formula is None or _same(reading.formula, formula), str(reading.formula)


@pytest.mark.parametrize(
    "sentence",
    [
        "[a] is to be visited, and [b] at some point after it.",  # a reaction to itself
        "[a] at most 2 times. Two times is too much.",  # the bound allows what is too many
        "Go to [a] at most twice, more is fine.",  # the bound said again, the other way
        "Open [a] exactly twice - once to get milk out.",  # a reason for one entry of two
        "[a] at least 2 times. Three times is too much.",  # too many, for a lower bound
        "Should you enter [a], in due course go to [b].",  # a condition, not a route
        "Keep going to [a], no matter what, but never [b].",  # a negation beside a patrol
        "When [a] is on [b], never go into [c].",  # one thing on another: two-place
        "[a] at least three times, once for the milk, once for the cheese.",  # 3 or 2?
        "Never open [a] while you're in [b], it is switched on.",  # a state: no description
        "Go to [a] at most twice. Not once.",  # a number said not to be meant, but allowed
        "Go into [a] at most 3 times, not 2",  # the same, in the count's clause
        "When [a] is opened, never go into [b].",  # opened: an event or a state?
        "[a] first, then you may go to [b]. Not [b] before [a].",  # leave to go, no task
        "Go to [a] and [b], and never [b] before [a] again.",  # strictly ordered? not read
    ],
)
def test_spoken_forms_it_still_refuses(sentence):
    with pytest.raises(OutOfGrammarError):
        read(sentence)


def test_at_some_point_before_two_tasks_orders_nothing():
    reading = read("At some point open [a] and switch on [b].")
    assert _same(reading.formula, 'F"is_open(a)" & F"is_switchedon(b)"'), str(reading.formula)
