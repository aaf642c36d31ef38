"""Write ``paraphrases.jsonl``: development sentences in styles the grammar was not written for.

Run ``.venv/bin/python data/translation/make_paraphrases.py`` from the repository root.
These sentences were written for issue 12 (lists, state conditions, precedence phrasings,
passive voice, mission patterns, chatty and terse styles) by the same hand as the templates,
so they are development data, not an independent test: they calibrate the retrieval
translator's confidence (``split`` ``cal``) and check it (``split`` ``check``), alternately
by paraphrase group. The ``fresh`` split was written after the tuning and measured once.
All are over ``apartment_1``; labels are built from the patterns of
:data:`safetychip.ltl.MISSIONS` and :data:`safetychip.ltl.PATTERNS`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from safetychip.ltl import And, Not, ap  # noqa: E402
from safetychip.ltl import build_pattern as build  # noqa: E402
from safetychip.ltl import pattern_family as family  # noqa: E402

at = lambda x: ap(f"agent_at({x})")  # noqa: E731
grab = lambda x: ap(f"is_grabbed({x})")  # noqa: E731
opened = lambda x: ap(f"is_open({x})")  # noqa: E731
on = lambda x: ap(f"is_switchedon({x})")  # noqa: E731
touch = lambda x: ap(f"is_touched({x})")  # noqa: E731

# (pattern, formula, sentences)
GROUPS = [
    (
        "never",
        build("never", at("kitchen")),
        [
            "Kindly keep yourself well away from the kitchen.",
            "The kitchen is a no-go area for you.",
            "I don't want to see you in the kitchen, ever.",
            "the kitchen cannot be visited",
            "No kitchen trips whatsoever.",
        ],
    ),
    (
        "never",
        build("never", grab("knife")),
        [
            "Hands off the knife.",
            "The knife must never be picked up.",
            "Don't even think about grabbing the knife.",
                "Picking up the knife is strictly off limits.",
        ],
    ),
    (
        "never",
        build("never", on("stove")),
        [
            "Leave the stove off at all times.",
            "the stove should never get switched on",
            "Never, ever power up the stove.",
            "No turning the stove on.",
        ],
    ),
    (
        "never",
        And(build("never", at("kitchen")), build("never", at("bathroom"))),
        [
            "Never visit the kitchen or the bathroom.",
            "stay out of the kitchen and the bathroom",
            "Neither the kitchen nor the bathroom may be entered.",
            "Don't go into the kitchen or bathroom.",
        ],
    ),
    (
        "never",
        And(*(build("never", at(r)) for r in ("kitchen", "bathroom", "bedroom"))),
        [
            "Avoid the kitchen, bathroom and bedroom at all costs.",
            "Keep out of the kitchen, the bathroom, and the bedroom.",
            "The kitchen, the bathroom and the bedroom are off limits.",
        ],
    ),
    (
        "never",
        And(build("never", grab("knife")), build("never", grab("phone"))),
        [
            "Never pick up the knife or the phone.",
            "Don't grab the knife or the phone.",
        ],
    ),
    (
        "avoid_while",
        build("avoid_while", at("kitchen"), grab("phone")),
        [
            "Don't pick up the phone if you are in the kitchen.",
            "While you're in the kitchen, leave the phone alone and don't grab it.",
            "No picking up the phone when you're in the kitchen.",
            "Never pick up the phone in the kitchen.",
            "As long as you are in the kitchen, do not take the phone.",
        ],
    ),
    (
        "avoid_while",
        build("avoid_while", grab("knife"), at("bedroom")),
        [
            "When you are holding the knife, don't go into the bedroom.",
            "Never enter the bedroom while carrying the knife.",
            "Don't walk into the bedroom with the knife in your hand.",
            "If you're holding the knife, stay out of the bedroom.",
        ],
    ),
    (
        "avoid_while",
        build("avoid_while", opened("fridge"), on("stove")),
        [
            "Don't turn on the stove while the fridge is open.",
            "When the fridge is open, never switch the stove on.",
        ],
    ),
    (
        "avoid_unless",
        build("avoid_unless", at("bedroom"), grab("phone")),
        [
            "Never pick up the phone unless you are in the bedroom.",
            "Only pick up the phone when you are in the bedroom.",
            "You may take the phone only while you're in the bedroom.",
            "Don't grab the phone except when you're in the bedroom.",
        ],
    ),
    (
        "avoid_unless",
        build("avoid_unless", at("kitchen"), opened("fridge")),
        [
            "Only open the fridge in the kitchen.",
            "Never open the fridge unless you're in the kitchen.",
        ],
    ),
    (
        "not_before",
        build("not_before", at("kitchen"), at("bathroom")),
        [
            "If you haven't been to the bathroom, don't go to the kitchen.",
            "The bathroom unlocks the kitchen.",
            "Only after the bathroom may you go to the kitchen.",
            "Kitchen only after bathroom.",
            "You can go into the kitchen, but only after visiting the bathroom.",
            "Until you've been to the bathroom, the kitchen is off limits.",
        ],
    ),
    (
        "not_before",
        build("not_before", opened("fridge"), grab("keys")),
        [
            "Don't open the fridge until you have picked up the keys.",
            "Getting the keys unlocks opening the fridge.",
            "The fridge may only be opened after you have the keys.",
        ],
    ),
    (
        "absence_after",
        build("absence_after", grab("knife"), at("bedroom")),
        [
            "Once you've picked up the knife, never go to the bedroom again.",
            "After grabbing the knife, the bedroom is off limits from then on.",
            "Having taken the knife, stay out of the bedroom for the rest of the task.",
        ],
    ),
    (
        "response",
        build("response", opened("fridge"), Not(opened("fridge"))),
        [
            "Don't forget to close the fridge after you open it.",
            "Open the fridge if you need to, but close it afterwards.",
            "If the fridge gets opened, it has to be closed again at some point.",
            "Never leave the fridge open.",
            "The fridge must not be left open.",
        ],
    ),
    (
        "response",
        build("response", on("stove"), Not(on("stove"))),
        [
            "Whenever you turn on the stove, turn it off later.",
            "Switching the stove on means switching it off again before you finish.",
        ],
    ),
    (
        "immediate_response",
        build("immediate_response", opened("fridge"), Not(opened("fridge"))),
        [
            "Close the fridge right after you open it.",
            "As soon as the fridge is open, shut it.",
            "The fridge has to be closed the very next step after it's opened.",
        ],
    ),
    (
        "immediate_response",
        build("immediate_response", at("bathroom"), at("hallway")),
        [
            "Right after the bathroom, go to the hallway.",
            "After visiting the bathroom, head straight to the hallway.",
        ],
    ),
    (
        "at_most",
        build("at_most", 2, at("kitchen")),
        [
            "Go to the kitchen twice at most.",
            "No more than two kitchen visits.",
            "You're allowed in the kitchen up to two times.",
        ],
    ),
    (
        "at_least",
        build("at_least", 2, at("bedroom")),
        [
            "Visit the bedroom at least twice.",
            "Check the bedroom two or more times.",
        ],
    ),
    (
        "exactly",
        build("exactly", 1, opened("fridge")),
        [
            "Open the fridge exactly once.",
            "Open the fridge one time, no more and no less.",
        ],
    ),
    (
        "visit",
        build("visit", at("bedroom")),
        [
            "Go to the bedroom.",
            "Pop into the bedroom at some stage.",
            "Visit the bedroom in the future.",
            "The bedroom must be visited.",
            "Your task is to reach the bedroom.",
        ],
    ),
    (
        "visit",
        And(build("visit", at("kitchen")), build("visit", at("bathroom"))),
        [
            "Visit the kitchen and the bathroom.",
            "Go to both the kitchen and the bathroom.",
        ],
    ),
    (
        "sequenced_visit",
        build("sequenced_visit", at("kitchen"), at("bedroom")),
        [
            "Go to the kitchen, then the bedroom.",
            "Visit the kitchen and afterwards the bedroom.",
            "Head to the kitchen and later to the bedroom.",
            "Kitchen first, bedroom after that.",
        ],
    ),
    (
        "sequenced_visit",
        build("sequenced_visit", at("hallway"), at("kitchen"), at("bedroom")),
        [
            "Go to the hallway, then the kitchen, then the bedroom.",
            "Visit the hallway, after that the kitchen, and finally the bedroom.",
        ],
    ),
    (
        "ordered_visit",
        build("ordered_visit", at("kitchen"), at("bathroom")),
        [
            "Visit the kitchen and the bathroom, in that order.",
            "Go to the kitchen and then the bathroom, in this order.",
        ],
    ),
    (
        "strictly_ordered_visit",
        build("strictly_ordered_visit", at("kitchen"), at("bathroom")),
        [
            "Visit the kitchen and the bathroom in strict order.",
        ],
    ),
    (
        "patrolling",
        build("patrolling", at("hallway")),
        [
            "Patrol the hallway.",
            "Keep going back to the hallway.",
            "Visit the hallway over and over again.",
        ],
    ),
    (
        "patrolling",
        And(build("patrolling", at("kitchen")), build("patrolling", at("bedroom"))),
        [
            "Patrol the kitchen and the bedroom.",
            "Keep visiting the kitchen and the bedroom repeatedly.",
        ],
    ),
    (
        "wait",
        build("wait", at("hallway"), Not(opened("front_door"))),
        [
            "Stay in the hallway until the front door is closed.",
            "Wait in the hallway till the front door is shut.",
        ],
    ),
    (
        "bounded_delay",
        build("bounded_delay", 2, opened("fridge"), Not(opened("fridge"))),
        [
            "If you open the fridge, close it within two steps.",
            "Close the fridge within 2 steps of opening it.",
        ],
    ),
    (
        "never",
        And(build("never", touch("knife")), build("never", grab("knife"))),
        ["knife: do not touch it, do not pick it up"],
    ),
]

# Written after the translator was tuned on GROUPS, and measured once without changes
# afterwards (split "fresh"): the same hand, but sentences the translator never saw.
FRESH = [
    ("never", build("never", at("bathroom")), [
        "Please don't wander into the bathroom.",
        "Bathroom: strictly no entry.",
        "Under no circumstances go in the bathroom!",
    ]),
    ("never", build("never", opened("microwave")), [
        "Leave the microwave shut.",
        "The microwave is never to be opened.",
    ]),
    ("never", And(build("never", grab("keys")), build("never", grab("book"))), [
        "Don't pick up the keys or the book.",
        "Keep your hands off the keys and the book.",
    ]),
    ("avoid_while", build("avoid_while", at("bedroom"), on("television")), [
        "Don't switch on the TV while you're in the bedroom.",
        "No turning the television on when you are in the bedroom.",
    ]),
    ("avoid_unless", build("avoid_unless", at("living_room"), on("television")), [
        "Only turn on the television when you're in the living room.",
    ]),
    ("not_before", build("not_before", at("bedroom"), Not(on("stove"))), [
        "Don't go to the bedroom until you've switched off the stove.",
        "The bedroom is off limits until the stove is off.",
    ]),
    ("response", build("response", grab("book"), at("living_room")), [
        "Whenever you grab the book, head to the living room at some point.",
    ]),
    ("immediate_response", build("immediate_response", on("stove"), at("kitchen")), [
        "As soon as the stove is on, go to the kitchen.",
    ]),
    ("absence_after", build("absence_after", on("stove"), at("bathroom")), [
        "Once you've turned the stove on, don't go into the bathroom anymore.",
    ]),
    ("at_most", build("at_most", 3, opened("fridge")), [
        "Open the fridge no more than three times.",
        "You may open the fridge three times at most.",
    ]),
    ("at_least", build("at_least", 2, at("hallway")), [
        "Pass through the hallway at least twice.",
    ]),
    ("visit", build("visit", at("living_room")), [
        "Make your way to the living room.",
        "At some point, go to the living room.",
    ]),
    ("sequenced_visit", build("sequenced_visit", at("bathroom"), at("kitchen")), [
        "Go to the bathroom and then to the kitchen.",
        "Visit the bathroom, after that the kitchen.",
    ]),
    ("patrolling", build("patrolling", at("living_room")), [
        "Keep returning to the living room.",
    ]),
    ("wait", build("wait", at("kitchen"), Not(on("stove"))), [
        "Stay in the kitchen until the stove is off.",
    ]),
]


def main() -> None:
    """Write ``paraphrases.jsonl`` from the groups above."""
    groups = [(g, "cal" if g % 2 == 0 else "check", x) for g, x in enumerate(GROUPS)]
    groups += [(len(GROUPS) + g, "fresh", x) for g, x in enumerate(FRESH)]
    with open(Path(__file__).with_name("paraphrases.jsonl"), "w", encoding="utf-8") as out:
        for g, split, (pattern, formula, sentences) in groups:
            for k, sentence in enumerate(sentences, 1):
                row = {
                    "id": f"para-{g}/{k}",
                    "scene": "apartment_1",
                    "sentence": sentence,
                    "formula": str(formula),
                    "pattern": pattern,
                    "family": family(pattern) or "other",
                    "split": split,
                }
                out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
