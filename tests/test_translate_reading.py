"""The slot reader read as the readers it replaced were tested: each sentence of the former
grammar's and frame reader's tests (``tests/test_translate_grammar.py``,
``tests/test_translate_frames.py``) that the slot reader reads, with the formula it must give,
and the constructions ported from them as rows of the tables (counts said of things, notations,
"leave [a] open", "anything", things at once, an item counted on its own)."""

from __future__ import annotations

import pytest

from safetychip.automata import equivalent
from safetychip.ltl import parse
from safetychip.translate import SlotReader, Translator

READER = SlotReader()

FIRST = [
    ("Never enter [a].", "never", 'G!"agent_at(a)"'),
    ("You should not ever carry [a].", "never", 'G!"is_grabbed(a)"'),
    ("Under no circumstances may you switch [a] on.", "never", 'G!"is_switchedon(a)"'),
    ("It is forbidden to open [a].", "never", 'G!"is_open(a)"'),
    ("Opening [a] is not allowed.", "never", 'G!"is_open(a)"'),
    ("Keep away from [a].", "never", 'G!"agent_at(a)"'),
    ("[a] should stay shut.", "never", 'G!"is_open(a)"'),
    ("Keep [a] switched off.", "never", 'G!"is_switchedon(a)"'),
    ("Never place [a] on top of [b].", "never", 'G!"is_on(a,b)"'),
    ("Don't touch [a]!", "never", 'G!"is_touched(a)"'),
    ("Don't open [a] until [b] is closed.", "not_before", '!"is_open(a)" W !"is_open(b)"'),
    (
        "You must not enter [a] prior to visiting [b].",
        "not_before",
        '!"agent_at(a)" W "agent_at(b)"',
    ),
    (
        "Switch on [a] only once you have left [b].",
        "not_before",
        '!"is_switchedon(a)" W !"agent_at(b)"',
    ),
    (
        "Keep out of [a] until you have switched off [b].",
        "not_before",
        '!"agent_at(a)" W !"is_switchedon(b)"',
    ),
    ("Close [a] before you leave [b].", "before", '!!"agent_at(b)" W !"is_open(a)"'),
    ("First visit [a], and then [b].", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    ("Open [a] before [b].", "before", '!"is_open(b)" W "is_open(a)"'),
    (
        "Whenever you take [a], put it back in [b] later.",
        "response",
        'G("is_grabbed(a)" -> F"is_in(a,b)")',
    ),
    (
        "If [a] is switched on then switch it off eventually.",
        "response",
        'G("is_switchedon(a)" -> F!"is_switchedon(a)")',
    ),
    (
        "Turning on [a] means you must go to [b] afterwards.",
        "response",
        'G("is_switchedon(a)" -> F"agent_at(b)")',
    ),
    ("Do not leave [a] running.", "response", 'G("is_switchedon(a)" -> F!"is_switchedon(a)")'),
    (
        "Each time you open [a], shut it straight away.",
        "immediate_response",
        'G("is_open(a)" -> X[!]!"is_open(a)")',
    ),
    (
        "Switch [a] off the moment you switch it on.",
        "immediate_response",
        'G("is_switchedon(a)" -> X[!]!"is_switchedon(a)")',
    ),
    (
        "Entering [a] means going to [b] next.",
        "immediate_response",
        'G("agent_at(a)" -> X[!]"agent_at(b)")',
    ),
    (
        "Once [a] is open, never touch [b] again.",
        "absence_after",
        'G("is_open(a)" -> XG!"is_touched(b)")',
    ),
    (
        "After you have held [a], stay away from [b].",
        "absence_after",
        'G("is_grabbed(a)" -> XG!"agent_at(b)")',
    ),
    (
        "Never go back to [b] once you have reached [a].",
        "absence_after",
        'G("agent_at(a)" -> XG!"agent_at(b)")',
    ),
    (
        "Open [a] no more than 4 times.",
        "at_most",
        '!F("is_open(a)" & ("is_open(a)" U (!"is_open(a)" & (!"is_open(a)" U F("is_open(a)" & ("is_open(a)" U (!"is_open(a)" & (!"is_open(a)" U F("is_open(a)" & ("is_open(a)" U (!"is_open(a)" & (!"is_open(a)" U F("is_open(a)" & ("is_open(a)" U (!"is_open(a)" & (!"is_open(a)" U F"is_open(a)"))))))))))))))))',
    ),
    (
        "Visit [a] fewer than three times.",
        "at_most",
        '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
    (
        "You may only enter [a] twice.",
        "at_most",
        '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
    (
        "Do not switch on [a] more than once.",
        "at_most",
        '!F("is_switchedon(a)" & ("is_switchedon(a)" U (!"is_switchedon(a)" & (!"is_switchedon(a)" U F"is_switchedon(a)"))))',
    ),
    (
        "Grab [a] three times.",
        "exactly",
        'F("is_grabbed(a)" & ("is_grabbed(a)" U (!"is_grabbed(a)" & (!"is_grabbed(a)" U F("is_grabbed(a)" & ("is_grabbed(a)" U (!"is_grabbed(a)" & (!"is_grabbed(a)" U F"is_grabbed(a)")))))))) & !F("is_grabbed(a)" & ("is_grabbed(a)" U (!"is_grabbed(a)" & (!"is_grabbed(a)" U F("is_grabbed(a)" & ("is_grabbed(a)" U (!"is_grabbed(a)" & (!"is_grabbed(a)" U F("is_grabbed(a)" & ("is_grabbed(a)" U (!"is_grabbed(a)" & (!"is_grabbed(a)" U F"is_grabbed(a)"))))))))))))',
    ),
    (
        "Go to [a] precisely two times.",
        "exactly",
        'F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)")))) & !F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
    (
        "Pick up [a] at least 3 times.",
        "at_least",
        'F("is_grabbed(a)" & ("is_grabbed(a)" U (!"is_grabbed(a)" & (!"is_grabbed(a)" U F("is_grabbed(a)" & ("is_grabbed(a)" U (!"is_grabbed(a)" & (!"is_grabbed(a)" U F"is_grabbed(a)"))))))))',
    ),
    (
        "Enter [a] more than twice.",
        "at_least",
        'F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
    ("Be sure to open [a].", "at_least", 'F"is_open(a)"'),
    ("At some point, go to [a].", "at_least", 'F"agent_at(a)"'),
    ("Rooms to visit: [a], [b].", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("Open [a] and switch on [b].", "visit", 'F"is_open(a)" & F"is_switchedon(b)"'),
    ("[a] -> [b]", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    (
        "Check [a], then [b]. Do not set foot in [b] before [a].",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "[a] then [b], in that order, and no popping back into [a] in between.",
        "strictly_ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)") & (!"agent_at(a)" U ("agent_at(a)" U (!"agent_at(a)" U "agent_at(b)")))',
    ),
    ("Circuit: [a], [b], repeatedly.", "patrolling", 'GF"agent_at(a)" & GF"agent_at(b)"'),
    ("Keep checking on [a] over and over.", "patrolling", 'GF"agent_at(a)"'),
    ("[a] at least 2 times.", "at_least", 'F("agent_at(a)" & F(!"agent_at(a)" & F"agent_at(a)"))'),
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
        "Release [a] no more than 3 steps after grabbing it.",
        "bounded_delay",
        'G("is_grabbed(a)" -> (!"is_grabbed(a)" | X[!](!"is_grabbed(a)" | X[!](!"is_grabbed(a)" | X[!]!"is_grabbed(a)"))))',
    ),
    (
        "After each opening of [a], shut it again later.",
        "response",
        'G("is_open(a)" -> F!"is_open(a)")',
    ),
    ("Hold position in [a] till [b] is on.", "wait", '"agent_at(a)" U "is_switchedon(b)"'),
    ("In [a]: no [b] pickup.", "avoid_while", 'G("agent_at(a)" -> !"is_grabbed(b)")'),
    (
        "While the robot is in [a], neither [b] nor [c] may be switched on.",
        "avoid_while",
        'G("agent_at(a)" -> !"is_switchedon(b)") & G("agent_at(a)" -> !"is_switchedon(c)")',
    ),
    (
        "[a] may only be switched on once [b] has been visited.",
        "not_before",
        '!"is_switchedon(a)" W "agent_at(b)"',
    ),
    (
        "While in [a], keep [b] switched off.",
        "avoid_while",
        'G("agent_at(a)" -> !"is_switchedon(b)")',
    ),
    ("Patrol [a] <-> [b], never stop.", "patrolling", 'GF"agent_at(a)" & GF"agent_at(b)"'),
    ("Keep visiting [a] and [b] nonstop.", "patrolling", 'GF"agent_at(a)" & GF"agent_at(b)"'),
    (
        "okay, reach [a] and [b] too, it doesn't matter which one first",
        "visit",
        'F"agent_at(a)" & F"agent_at(b)"',
    ),
    (
        "Only when you are in [a], you can switch on [b], otherwise not.",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_switchedon(b)")',
    ),
    (
        "[a] never goes on unless you are in [b].",
        "avoid_unless",
        'G(!"agent_at(b)" -> !"is_switchedon(a)")',
    ),
    (
        "When you are carrying [a], do not enter [b]. No exceptions.",
        "avoid_while",
        'G("is_grabbed(a)" -> !"agent_at(b)")',
    ),
    ("Visit [a] + [b].", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("It is prohibited to set [a] on.", "never", 'G!"is_switchedon(a)"'),
    (
        "Go to [a] and then [b], entering [a] only once before [b], and never [b] before it.",
        "strictly_ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)") & (!"agent_at(a)" U ("agent_at(a)" U (!"agent_at(a)" U "agent_at(b)")))',
    ),
    ("[a] off + pick up [b]", "visit", 'F!"is_switchedon(a)" & F"is_grabbed(b)"'),
    (
        "Never open [a] until you have made it to [b].",
        "not_before",
        '!"is_open(a)" W "agent_at(b)"',
    ),
    (
        "Do not swing by [a] before you have headed over to [b].",
        "not_before",
        '!"agent_at(a)" W "agent_at(b)"',
    ),
    (
        "Each switching on of [a] shall be followed by its switching off within 1 step.",
        "bounded_delay",
        'G("is_switchedon(a)" -> (!"is_switchedon(a)" | X[!]!"is_switchedon(a)"))',
    ),
    ("I would like you to open [a] at some point.", "visit", 'F"is_open(a)"'),
    ("No [a] entries at all.", "never", 'G!"agent_at(a)"'),
    ("Go and open [a], please.", "visit", 'F"is_open(a)"'),
    (
        "[a], [b], in that order, each one exactly once before the next.",
        "strictly_ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)") & (!"agent_at(a)" U ("agent_at(a)" U (!"agent_at(a)" U "agent_at(b)")))',
    ),
    (
        "Check [a] and [b], [a] first.",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    ("Visit [a]. Also check [b].", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("Do not enter [a]. Stay out of [b] too.", "never", 'G!"agent_at(a)" & G!"agent_at(b)"'),
    ("Errands: [a], [b].", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("[a] and [b], whatever order you prefer.", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    ("Until [a] has been visited, no [b].", "not_before", '!"agent_at(b)" W "agent_at(a)"'),
    (
        "Switch on [a] only while in [b], otherwise don't.",
        "avoid_unless",
        'G(!"agent_at(b)" -> !"is_switchedon(a)")',
    ),
    (
        "Never keep [a] on while you are in [b].",
        "avoid_while",
        'G("agent_at(b)" -> !"is_switchedon(a)")',
    ),
    ("No grabbing [a] outside of [b].", "avoid_unless", 'G(!"agent_at(b)" -> !"is_grabbed(a)")'),
    ("Opening [a] is required before entering [b].", "not_before", '!"agent_at(b)" W "is_open(a)"'),
    ("Never switch on [a], the neighbours are asleep.", "never", 'G!"is_switchedon(a)"'),
    (
        "The instant you open [a], shut it right back.",
        "immediate_response",
        'G("is_open(a)" -> X[!]!"is_open(a)")',
    ),
    ("hi robot, pls dont open [a] ok? ty", "never", 'G!"is_open(a)"'),
    ("I don't want you in [a]. Ever.", "never", 'G!"agent_at(a)"'),
    ("[a]: a no-go area.", "never", 'G!"agent_at(a)"'),
    ("[a]: never grab.", "never", 'G!"is_grabbed(a)"'),
    ("Don't you dare open [a].", "never", 'G!"is_open(a)"'),
    ("Always, [a] must remain closed.", "never", 'G!"is_open(a)"'),
    ("Never, at any time, switch on [a].", "never", 'G!"is_switchedon(a)"'),
    ("[a] 1st, then [b]", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    (
        "[b] may be switched on in [a] only.",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_switchedon(b)")',
    ),
    ("Except in [a], never grab [b].", "avoid_unless", 'G(!"agent_at(a)" -> !"is_grabbed(b)")'),
    ("Anywhere but [a], [b] stays closed.", "avoid_unless", 'G(!"agent_at(a)" -> !"is_open(b)")'),
    (
        "[b] must be off unless you are in [a].",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_switchedon(b)")',
    ),
    (
        "Only open [b] while in [a], nowhere else.",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_open(b)")',
    ),
    (
        "Never open [b] unless standing in [a].",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_open(b)")',
    ),
    ("No [a] visits while you have [b].", "avoid_while", 'G("is_grabbed(b)" -> !"agent_at(a)")'),
    (
        "Shut [a] within 2 moves of opening it.",
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
    (
        "Make sure [a] gets opened and [b] gets switched on.",
        "visit",
        'F"is_open(a)" & F"is_switchedon(b)"',
    ),
    ("I need [a] on and [b] open at some point.", "visit", 'F"is_switchedon(a)" & F"is_open(b)"'),
    ("Sometime during the task, open [a].", "visit", 'F"is_open(a)"'),
    (
        "would you make sure that every time you open [a] you close it eventually?",
        "response",
        'G("is_open(a)" -> F!"is_open(a)")',
    ),
    (
        "The robot shall not switch on [a] prior to having entered [b].",
        "not_before",
        '!"is_switchedon(a)" W "agent_at(b)"',
    ),
    (
        "At any time at which the robot is present in [a], it shall not open [b].",
        "avoid_while",
        'G("agent_at(a)" -> !"is_open(b)")',
    ),
    ("no [a] till u're done in [b] ok", "not_before", '!"agent_at(a)" W "agent_at(b)"'),
    (
        "the moment you open [a] shut it again, the very next step",
        "immediate_response",
        'G("is_open(a)" -> X[!]!"is_open(a)")',
    ),
    (
        "After each opening of [a], the robot shall thereafter close it.",
        "response",
        'G("is_open(a)" -> F!"is_open(a)")',
    ),
    (
        "[a] then [b], and never enter [b] early or sneak back into [a] before [b].",
        "strictly_ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)") & (!"agent_at(a)" U ("agent_at(a)" U (!"agent_at(a)" U "agent_at(b)")))',
    ),
    ("Before you visit [a], do not open [b].", "not_before", '!"is_open(b)" W "agent_at(a)"'),
    (
        "Go to [a] and then [b], not the other way round.",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    ("Patrol [a] and [b] until told otherwise.", "patrolling", 'GF"agent_at(a)" & GF"agent_at(b)"'),
    (
        "[a], then [b]; [b] not first; no going back to [a] until you are there.",
        "strictly_ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)") & (!"agent_at(a)" U ("agent_at(a)" U (!"agent_at(a)" U "agent_at(b)")))',
    ),
    (
        "Do [a], then [b]; never [b] first, and once you have left [a] never come back in.",
        "strictly_ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)") & (!"agent_at(a)" U ("agent_at(a)" U (!"agent_at(a)" U "agent_at(b)")))',
    ),
    (
        "I reckon you could duck into [a] and [b] at some stage, no hurry.",
        "visit",
        'F"agent_at(a)" & F"agent_at(b)"',
    ),
    ("Head to [a] and later on [b].", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    ("Wait in [a] until [b] switches off.", "wait", '"agent_at(a)" U !"is_switchedon(b)"'),
    (
        "Keep [b] off unless you are in [a], pal.",
        "avoid_unless",
        'G(!"agent_at(a)" -> !"is_switchedon(b)")',
    ),
    ("Check [a] for me, dear.", "visit", 'F"agent_at(a)"'),
    ("Pop into [a] and [b], whenever suits you.", "visit", 'F"agent_at(a)" & F"agent_at(b)"'),
    (
        "Go to [a], and after that head to [b].",
        "sequenced_visit",
        'F("agent_at(a)" & F"agent_at(b)")',
    ),
    (
        "Keep going round [a] and [b] for the rest of the shift.",
        "patrolling",
        'GF"agent_at(a)" & GF"agent_at(b)"',
    ),
    (
        "The robot must not enter [a] more than once.",
        "at_most",
        '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))',
    ),
    (
        "Go in [a] twice tops. I mean it.",
        "at_most",
        '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
    (
        "[a], only up to two times. Three times is too much.",
        "at_most",
        '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
    (
        "Can't you keep it to no more than two trips into [a]?",
        "at_most",
        '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
    (
        "Go to [a], and some time after that, go to [b].",
        "sequenced_visit",
        'F("agent_at(a)" & F"agent_at(b)")',
    ),
    (
        "Proceed to [a], thereafter to [b], and in due course to [c].",
        "sequenced_visit",
        'F("agent_at(a)" & F("agent_at(b)" & F"agent_at(c)"))',
    ),
    ("Visit [a]. Afterwards visit [b].", "sequenced_visit", 'F("agent_at(a)" & F"agent_at(b)")'),
    (
        "While the agent holds [a], it shall not enter [b].",
        "avoid_while",
        'G("is_grabbed(a)" -> !"agent_at(b)")',
    ),
    ("If you hold [a], never go to [b].", "avoid_while", 'G("is_grabbed(a)" -> !"agent_at(b)")'),
    (
        "While carrying [a], the unit shall not enter [b].",
        "avoid_while",
        'G("is_grabbed(a)" -> !"agent_at(b)")',
    ),
    (
        "[a] shall not be activated unless the unit is located in [b].",
        "avoid_unless",
        'G(!"agent_at(b)" -> !"is_switchedon(a)")',
    ),
    (
        "While you are in [a], don't be opening [b].",
        "avoid_while",
        'G("agent_at(a)" -> !"is_open(b)")',
    ),
    ("One shall remain in [a] until [b] has been closed.", "wait", '"agent_at(a)" U !"is_open(b)"'),
    ("stay in [a] til [b] is off", "wait", '"agent_at(a)" U !"is_switchedon(b)"'),
    (
        "You shall visit [a] and then [b], with [b] not entered prior to [a].",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "Visit [a] and [b], but try not to set foot in [b] until you've been to [a].",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "Go to [a] and then [b], making sure you don't go into [b] before [a].",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "Go to [a] and then [b], and please don't enter [b] before [a].",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    ("At no time shall the Robot grasp [a].", "never", 'G!"is_grabbed(a)"'),
    (
        "Access to [a] is permitted only after the robot has entered [b].",
        "not_before",
        '!"agent_at(a)" W "agent_at(b)"',
    ),
    (
        "Go to [a] and [b], one after the other in that order.",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "When you get a sec, pop into [a] - and [b] too, no particular order.",
        "visit",
        'F"agent_at(a)" & F"agent_at(b)"',
    ),
    (
        "Don't you go holding [a] unless you're in [b].",
        "avoid_unless",
        'G(!"agent_at(b)" -> !"is_grabbed(a)")',
    ),
    (
        "Patrol route: [a], [b] - loop it until the game ends.",
        "patrolling",
        'GF"agent_at(a)" & GF"agent_at(b)"',
    ),
    ("Make your way to [a] before the session ends.", "visit", 'F"agent_at(a)"'),
    ("Keep checking on [a] like every few minutes.", "patrolling", 'GF"agent_at(a)"'),
    (
        "Do the rounds of [a] and [b], again and again, till you're told to stop.",
        "patrolling",
        'GF"agent_at(a)" & GF"agent_at(b)"',
    ),
    (
        "[a]: revisit it repeatedly, no matter what else you're doing.",
        "patrolling",
        'GF"agent_at(a)"',
    ),
    (
        "Have to go to [a], also have to reach [b]. Which comes first is no problem.",
        "visit",
        'F"agent_at(a)" & F"agent_at(b)"',
    ),
    (
        "Eventually get to [a]; eventually open [b]. No ordering requirement.",
        "visit",
        'F"agent_at(a)" & F"is_open(b)"',
    ),
    (
        "REQ-12: while the agent is in [a], [b] must not be switched on.",
        "avoid_while",
        'G("agent_at(a)" -> !"is_switchedon(b)")',
    ),
    (
        "Visit [b], but you cannot enter it before [a], which you also have to visit.",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "[a] before [b]. Not [b] first! Both please.",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "You'll sometimes be in [a]. When you are, keep [b] shut.",
        "avoid_while",
        'G("agent_at(a)" -> !"is_open(b)")',
    ),
    (
        "the second you grab [a], put it down. next step.",
        "immediate_response",
        'G("is_grabbed(a)" -> X[!]!"is_grabbed(a)")',
    ),
    ("Keep holding [a] until you arrive at [b].", "wait", '"is_grabbed(a)" U "agent_at(b)"'),
    (
        "robot should hang out in [a] until [b] is off",
        "wait",
        '"agent_at(a)" U !"is_switchedon(b)"',
    ),
    (
        "If at all possible, never switch on [a] unless you're in [b].",
        "avoid_unless",
        'G(!"agent_at(b)" -> !"is_switchedon(a)")',
    ),
    ("only open [b] when you are in [a]", "avoid_unless", 'G(!"agent_at(a)" -> !"is_open(b)")'),
    ("Keep out of [a]. Never. I am not telling you again.", "never", 'G!"agent_at(a)"'),
    (
        "Could you visit [a] and then [b]? Sorry if this is a silly way to ask.",
        "sequenced_visit",
        'F("agent_at(a)" & F"agent_at(b)")',
    ),
    (
        "Patrol [a] and [b] for as long as you are switched on.",
        "patrolling",
        'GF"agent_at(a)" & GF"agent_at(b)"',
    ),
    (
        "Never take [a] anywhere except in [b].",
        "avoid_unless",
        'G(!"agent_at(b)" -> !"is_grabbed(a)")',
    ),
    (
        "Enter in [a] at most twice.",
        "at_most",
        '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
    (
        "Do [a] before [b], never the other way round. Both need doing.",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "[a] 1st, [b] after. NOT [b] before [a]",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "While [a] is on, [b] must not be switched on.",
        "avoid_while",
        'G("is_switchedon(a)" -> !"is_switchedon(b)")',
    ),
    ("When [a] is closed, never go into [b].", "avoid_while", 'G(!"is_open(a)" -> !"agent_at(b)")'),
    (
        "Only after you go to [a] you may pick up [b].",
        "not_before",
        '!"is_grabbed(b)" W "agent_at(a)"',
    ),
    ("Tonight robot must go to [a], any time is fine.", "visit", 'F"agent_at(a)"'),
    ("Please do not switch on [a] at any time.", "never", 'G!"is_switchedon(a)"'),
    ("[b] only allowed after you've been in [a]", "not_before", '!"agent_at(b)" W "agent_at(a)"'),
    (
        "Need both [a] + [b] done. [b] only after [a].",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "Maximum two times you can go into [a], not more.",
        "at_most",
        '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
    (
        "You can enter to [a] not more than two times.",
        "at_most",
        '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
    ("Pop over to [a] at some stage, no worries when.", "visit", 'F"agent_at(a)"'),
    ("You should go to [a] today, no matter the time.", "visit", 'F"agent_at(a)"'),
    (
        "Please make sure you go to [a] and [b] before the day runs out.",
        "visit",
        'F"agent_at(a)" & F"agent_at(b)"',
    ),
    (
        "Before you finish, [a] and [b] both need to be visited. Order doesn't matter to me.",
        "visit",
        'F"agent_at(a)" & F"agent_at(b)"',
    ),
    ("keep checking on [a] over and over till I'm home", "patrolling", 'GF"agent_at(a)"'),
    (
        "Visit [a] repeatedly, again and again, until the end of the run.",
        "patrolling",
        'GF"agent_at(a)"',
    ),
    (
        "Go to [a] and then on to [b], and [b] not before [a]. Both are needed.",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "Firstly go to [a], then to [b]. Both must be done, [b] not earlier than [a].",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "need u to go to [a] AND [b] but [a] has to come first, dont do [b] before it",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "Visit both [a] and [b]. [b] must not be entered before [a].",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "Please go [a] at most two times.",
        "at_most",
        '!F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
]

AMONG = [
    (
        "Visit [a] twice and only twice.",
        "exactly",
        'F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)")))) & !F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F("agent_at(a)" & ("agent_at(a)" U (!"agent_at(a)" & (!"agent_at(a)" U F"agent_at(a)"))))))))',
    ),
    (
        "[a] -> [b]; a single visit to [a], no [b] first.",
        "strictly_ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)") & (!"agent_at(a)" U ("agent_at(a)" U (!"agent_at(a)" U "agent_at(b)")))',
    ),
    (
        "[a], then [b], in order, no backtracking.",
        "strictly_ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)") & (!"agent_at(a)" U ("agent_at(a)" U (!"agent_at(a)" U "agent_at(b)")))',
    ),
    (
        "Go to [a], then [b], then [c]; each of them not before the one preceding it.",
        "ordered_visit",
        'F("agent_at(a)" & F("agent_at(b)" & F"agent_at(c)")) & (!"agent_at(b)" U "agent_at(a)") & (!"agent_at(c)" U "agent_at(b)")',
    ),
    (
        "[a], then [b]; [b] not before [a]; no entering [a] before [b].",
        "strictly_ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)") & (!"agent_at(a)" U ("agent_at(a)" U (!"agent_at(a)" U "agent_at(b)")))',
    ),
    (
        "Reach [a], and only after that, [b].",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
    (
        "[a] then [b] then [c], in this exact order",
        "ordered_visit",
        'F("agent_at(a)" & F("agent_at(b)" & F"agent_at(c)")) & (!"agent_at(b)" U "agent_at(a)") & (!"agent_at(c)" U "agent_at(b)")',
    ),
    (
        "Switch on [a] before opening [b], and do both.",
        "ordered_visit",
        'F("is_switchedon(a)" & F"is_open(b)") & (!"is_open(b)" U "is_switchedon(a)")',
    ),
    ("Don't you dare leave [a] until [b] is on.", "wait", '"agent_at(a)" U "is_switchedon(b)"'),
    (
        "Visit [a] and [b], but only go into [b] once you've been to [a].",
        "ordered_visit",
        'F("agent_at(a)" & F"agent_at(b)") & (!"agent_at(b)" U "agent_at(a)")',
    ),
]


@pytest.mark.parametrize(("sentence", "pattern", "formula"), FIRST)
def test_the_first_reading_is_the_former_readers_formula(sentence, pattern, formula):
    found = READER(sentence)
    assert equivalent(found.formula, parse(formula)), (sentence, str(found.formula))


@pytest.mark.parametrize(("sentence", "pattern", "formula"), AMONG)
def test_the_former_readers_formula_is_among_the_readings(sentence, pattern, formula):
    readings = READER.readings(sentence)
    assert any(equivalent(r.formula, parse(formula)) for r in readings), sentence


# -- the constructions ported as rows of the tables (each row tested here) -----------------------


def _f(pattern: str, *args) -> str:
    from safetychip.ltl import build_pattern

    return str(build_pattern(pattern, *[parse(a) if isinstance(a, str) else a for a in args]))


AT_A, AT_B, OPEN_A = '"agent_at(a)"', '"agent_at(b)"', '"is_open(a)"'

PORTED = [
    # counts said of things, and notations of counts (normalize.tsv, slots.tsv {events})
    ("No more than two [a] visits.", _f("at_most", 2, AT_A)),
    ("[a] entries: at most 1.", _f("at_most", 1, AT_A)),
    ("Exactly 2 openings of [a].", _f("exactly", 2, OPEN_A)),
    ("Enter [a] on exactly three (3) occasions, no more and no fewer.", _f("exactly", 3, AT_A)),
    ("[a] visits >= 3", _f("at_least", 3, AT_A)),
    ("check [a] 3+ times", _f("at_least", 3, AT_A)),
    ("Number of entries into [a] = 2.", _f("exactly", 2, AT_A)),
    ("You may only enter [a] twice.", _f("at_most", 2, AT_A)),
    # an item counted on its own
    (
        "Go to [a] at least 2 times and to [b] at least 3 times.",
        f"{_f('at_least', 2, AT_A)} & {_f('at_least', 3, AT_B)}",
    ),
    (
        "Please open [a] at least once and [b] at least twice.",
        f"{_f('at_least', 1, OPEN_A)} & {_f('at_least', 2, chr(34) + 'is_open(b)' + chr(34))}",
    ),
    # timing (slots.tsv: within)
    (
        "When you open [a], close it in maximal 2 steps.",
        _f("bounded_delay", 2, OPEN_A, "!" + OPEN_A),
    ),
    (
        "if you open [a] close it within like 3 steps ok",
        _f("bounded_delay", 3, OPEN_A, "!" + OPEN_A),
    ),
    (
        "If you open [a], close it in the 3 next steps.",
        _f("bounded_delay", 3, OPEN_A, "!" + OPEN_A),
    ),
    ("Open [a] and thereafter switch on [b].", f'F({OPEN_A} & F"is_switchedon(b)")'),
    # leave [a] open: a response (clauses.tsv, build "left")
    ("Do not leave [a] open.", _f("response", OPEN_A, "!" + OPEN_A)),
    ("Don't leave [a] running.", _f("response", '"is_switchedon(a)"', '!"is_switchedon(a)"')),
    # things at once (slots.tsv: together)
    ("Never hold [a] and [b] at the same time.", 'G!("is_grabbed(a)" & "is_grabbed(b)")'),
    # "them" after a list is the list; "means" puts its condition first
    (
        "Close [a] and [b] within two steps of opening them.",
        f"{_f('bounded_delay', 2, OPEN_A, '!' + OPEN_A)} & "
        f"{_f('bounded_delay', 2, chr(34) + 'is_open(b)' + chr(34), '!' + chr(34) + 'is_open(b)' + chr(34))}",
    ),
    ("Turning on [a] means you must go to [b] afterwards.", f'G("is_switchedon(a)" -> F{AT_B})'),
    # a pronoun is not the subject of its own clause; a bare thing of a scope borrows the verb
    ("Don't fire up [a] until [b] is on it.", '!"is_switchedon(a)" W "is_on(b,a)"'),
    ("Open [a] before [b].", f'!"is_open(b)" W {OPEN_A}'),
    # a place condition said with a preposition of nearness
    ("Don't open [a] near [b].", f"G({AT_B} -> !{OPEN_A})"),
]


@pytest.mark.parametrize(("sentence", "formula"), PORTED)
def test_a_ported_construction_is_the_first_reading(sentence, formula):
    found = READER(sentence)
    assert equivalent(found.formula, parse(formula)), (sentence, str(found.formula))


def test_outside_the_grammar_says_so_plainly_and_names_the_sentence():
    from safetychip.errors import OutOfGrammarError

    with pytest.raises(OutOfGrammarError) as caught:
        READER("Dance with [a].")
    message = str(caught.value)
    assert message.startswith("'Dance with [a].' is outside the offline translator's grammar")
    assert "translate it with a language model" in message and caught.value.sentence


def test_no_reading_leaves_out_a_thing_the_sentence_names():
    for sentence in ["Never grab [a] near [b] while [c] dances.", "Open [a], [b] sings."]:
        assert all({"a", "b"} <= set(str(r.formula)) for r in READER.readings(sentence))


def test_the_development_utterances_do_not_regress():
    from safetychip.experiments import scene_vocabulary
    from safetychip.translate import evaluate, load_utterances

    result = evaluate(lambda s: Translator(scene_vocabulary(s), embedder=None), load_utterances())
    right = sum(v[0] for v in result.outcomes().values())
    # measured without an embedder on 2026-12-07, with the slot reader alone (the grammar and
    # the frame reader deleted): a right formula in the set for 163 of 170, first for 161
    assert sum(r["covered"] for r in result.rows) >= 160, result.set_scores()
    assert right >= 158 and result.silent_singletons() <= 1, result.scores()
