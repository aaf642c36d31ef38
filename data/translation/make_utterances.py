"""Write ``utterances.jsonl``: English constraints with their grounded formulas, for evaluation.

Run ``python data/translation/make_utterances.py`` from the repository root to rewrite
``data/translation/utterances.jsonl``. The sentences below were written first, the way a
person would say them to a household robot, before the offline translator existed; they are
not adjusted to what any translator can read. Each paraphrase group states one meaning in
several ways, over one of three vocabularies: the VirtualHome scenes ``apartment_1`` and
``apartment_2``, and the Spot demo (``spot_demo``: the names in
``data/spot/demo_constraints.json``).

A label is the formula the writer meant, built from a specification pattern of
:data:`safetychip.ltl.PATTERNS` (so ``pattern`` and ``family`` are known) or, for the
``other`` group, written out in Spot's syntax: those meanings lie outside every pattern.
Literals starting with ``!`` are negated atoms ("close the fridge" is ``!is_open(fridge)``).

Splits: whole paraphrase groups are assigned to ``dev`` (about 40 %) or ``test`` by a hash of
the group name, fixed before any translator was run. Develop on ``dev``; report ``test``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from safetychip.ltl import PATTERNS, Formula, Not, ap, parse  # noqa: E402

A1, A2, SPOT = "apartment_1", "apartment_2", "spot_demo"

# (group, scene, pattern, args, sentences); args are literals, and n first for counts.
GROUPS: list[tuple[str, str, str, tuple, tuple[str, ...]]] = [
    # -- never ------------------------------------------------------------------------------
    (
        "never-phone",
        A1,
        "never",
        ("is_grabbed(phone)",),
        (
            "Never pick up the phone.",
            "Do not grab the phone.",
            "Keep your hands off the phone.",
            "You must never take the phone.",
        ),
    ),
    (
        "never-bathroom",
        A1,
        "never",
        ("agent_at(bathroom)",),
        (
            "Stay out of the bathroom.",
            "Don't ever go into the bathroom.",
            "The bathroom is off limits.",
        ),
    ),
    (
        "never-stove",
        A2,
        "never",
        ("is_switchedon(stove)",),
        (
            "Never turn on the stove.",
            "Do not switch the stove on.",
            "Leave the stove off.",
        ),
    ),
    (
        "never-front-door",
        A2,
        "never",
        ("is_open(front_door)",),
        (
            "Never open the front door.",
            "Don't open the front door under any circumstances.",
            "Keep the front door shut.",
        ),
    ),
    (
        "never-coffee",
        SPOT,
        "never",
        ("is_switchedon(coffee_machine)",),
        (
            "Do not turn on the coffee machine.",
            "Never switch on the coffee maker.",
            "The coffee machine must stay off.",
        ),
    ),
    (
        "never-knife",
        A1,
        "never",
        ("is_touched(knife)",),
        (
            "Never touch the knife.",
            "Don't touch the knife.",
        ),
    ),
    (
        "never-tv",
        SPOT,
        "never",
        ("agent_at(television)",),
        (
            "Stay away from the TV.",
            "Never go near the television.",
            "Do not approach the television.",
        ),
    ),
    (
        "never-candle",
        A2,
        "never",
        ("is_grabbed(candle)",),
        (
            "Do not pick up the candle.",
            "You are not allowed to take the candle.",
        ),
    ),
    (
        "never-salmon-microwave",
        A1,
        "never",
        ("is_in(salmon,microwave)",),
        (
            "Never put the salmon in the microwave.",
            "Don't place the salmon into the microwave.",
        ),
    ),
    (
        "never-bedroom",
        A2,
        "never",
        ("agent_at(bedroom)",),
        (
            "Don't set foot in the bedroom.",
            "Avoid the bedroom.",
            "Keep out of the bedroom.",
        ),
    ),
    (
        "never-television-on",
        A1,
        "never",
        ("is_switchedon(television)",),
        (
            "Do not turn the TV on.",
            "Never switch on the television.",
        ),
    ),
    # -- not_before -------------------------------------------------------------------------
    (
        "not-before-kitchen-bathroom",
        A1,
        "not_before",
        ("agent_at(kitchen)", "agent_at(bathroom)"),
        (
            "Don't go to the kitchen before you have been to the bathroom.",
            "Do not enter the kitchen until you have visited the bathroom.",
            "Stay out of the kitchen until you've been in the bathroom.",
            "You may only go into the kitchen after visiting the bathroom.",
        ),
    ),
    (
        "not-before-book-bedroom",
        A1,
        "not_before",
        ("is_grabbed(book)", "agent_at(bedroom)"),
        (
            "Do not pick up the book until you have gone to the bedroom.",
            "Don't take the book before going to the bedroom.",
            "Only grab the book once you have been in the bedroom.",
        ),
    ),
    (
        "not-before-mailbox-lamp",
        SPOT,
        "not_before",
        ("is_in(book,mail_box)", "agent_at(lamp)"),
        (
            "Don't drop the book into the mailbox until you have been to the lamp.",
            "Do not put the book in the mailbox before visiting the lamp.",
            "Wait until you have been at the lamp before you put the book in the mail box.",
        ),
    ),
    (
        "not-before-radio-tv",
        A2,
        "not_before",
        ("is_switchedon(radio)", "!is_switchedon(television)"),
        (
            "Don't turn on the radio before you have switched off the television.",
            "Do not switch the radio on until the television is off.",
        ),
    ),
    (
        "not-before-bedroom-book",
        A2,
        "not_before",
        ("agent_at(bedroom)", "is_grabbed(book)"),
        (
            "Don't enter the bedroom until you have the book.",
            "Do not go into the bedroom before picking up the book.",
        ),
    ),
    (
        "not-before-book-statue",
        SPOT,
        "not_before",
        ("is_grabbed(book)", "agent_at(statue)"),
        (
            "Never take the book until you have visited the statue.",
            "Don't grab the book before going to the statue.",
        ),
    ),
    (
        "not-before-living-lamp",
        A2,
        "not_before",
        ("agent_at(living_room)", "is_switchedon(bedroom_lamp)"),
        (
            "Don't go to the living room until you've turned on the bedroom lamp.",
            "Do not enter the living room before switching on the bedroom lamp.",
        ),
    ),
    (
        "not-before-hallway-keys",
        A1,
        "not_before",
        ("agent_at(hallway)", "is_grabbed(keys)"),
        (
            "Don't walk into the hallway until you have the keys.",
            "Do not go to the hallway before grabbing the keys.",
        ),
    ),
    # -- before ----------------------------------------------------------------------------
    (
        "before-bathroom-bedroom",
        A1,
        "before",
        ("agent_at(bathroom)", "agent_at(bedroom)"),
        (
            "Visit the bathroom before you go to the bedroom.",
            "Go to the bathroom before the bedroom.",
            "You must be in the bathroom before you enter the bedroom.",
            "First the bathroom, then the bedroom.",
        ),
    ),
    (
        "before-statue-tv",
        SPOT,
        "before",
        ("agent_at(statue)", "agent_at(television)"),
        (
            "Go to the statue before going to the television.",
            "See the statue before you visit the TV.",
        ),
    ),
    (
        "before-keys-door",
        A1,
        "before",
        ("is_grabbed(keys)", "is_open(front_door)"),
        (
            "Pick up the keys before you open the front door.",
            "Grab the keys before opening the front door.",
            "Make sure you have taken the keys before you open the front door.",
        ),
    ),
    (
        "before-pot-stove",
        A2,
        "before",
        ("is_grabbed(pot)", "is_switchedon(stove)"),
        (
            "Take the pot before you turn on the stove.",
            "Get the pot before switching on the stove.",
        ),
    ),
    (
        "before-fridge-milk",
        A1,
        "before",
        ("is_open(fridge)", "is_grabbed(milk)"),
        (
            "Open the fridge before grabbing the milk.",
            "Open the fridge before you take the milk out.",
        ),
    ),
    (
        "before-keys-hallway",
        A1,
        "before",
        ("is_grabbed(keys)", "agent_at(hallway)"),
        ("Pick up the keys before you go into the hallway.",),
    ),
    (
        "before-book-mailbox",
        SPOT,
        "before",
        ("is_grabbed(book)", "agent_at(mail_box)"),
        (
            "Grab the book before you go to the mailbox.",
            "Pick the book up before heading to the mail box.",
        ),
    ),
    (
        "before-bathroom-kitchen",
        A2,
        "before",
        ("agent_at(bathroom)", "agent_at(kitchen)"),
        (
            "Go to the bathroom first, then the kitchen.",
            "Visit the bathroom before you enter the kitchen.",
        ),
    ),
    # -- at_most ---------------------------------------------------------------------------
    (
        "at-most-kitchen-2",
        A1,
        "at_most",
        (2, "agent_at(kitchen)"),
        (
            "You can go to the kitchen at most twice.",
            "Enter the kitchen no more than two times.",
            "Don't go into the kitchen more than twice.",
            "Visit the kitchen two times at most.",
        ),
    ),
    (
        "at-most-hallway-3",
        SPOT,
        "at_most",
        (3, "agent_at(hallway)"),
        (
            "Pass through the hallway no more than 3 times.",
            "Do not enter the hallway more than three times.",
            "You may use the hallway at most three times.",
        ),
    ),
    (
        "at-most-fridge-1",
        A2,
        "at_most",
        (1, "is_open(fridge)"),
        (
            "Open the fridge at most once.",
            "Only open the fridge once.",
            "Don't open the fridge more than once.",
        ),
    ),
    (
        "at-most-phone-2",
        A2,
        "at_most",
        (2, "is_grabbed(phone)"),
        (
            "Pick up the phone no more than twice.",
            "You may grab the phone twice at most.",
        ),
    ),
    (
        "at-most-bathroom-1",
        A1,
        "at_most",
        (1, "agent_at(bathroom)"),
        (
            "Go into the bathroom at most one time.",
            "Never enter the bathroom more than once.",
        ),
    ),
    (
        "at-most-hallway-a2",
        A2,
        "at_most",
        (3, "agent_at(hallway)"),
        (
            "Go into the hallway three times at most.",
            "Enter the hallway at most 3 times.",
        ),
    ),
    (
        "at-most-book-2",
        SPOT,
        "at_most",
        (2, "is_grabbed(book)"),
        (
            "Pick up the book no more than twice.",
            "Grab the book at most two times.",
        ),
    ),
    # -- exactly ---------------------------------------------------------------------------
    (
        "exactly-living-1",
        A1,
        "exactly",
        (1, "agent_at(living_room)"),
        (
            "Go to the living room exactly once.",
            "Visit the living room one time, no more and no less.",
            "Enter the living room precisely once.",
        ),
    ),
    (
        "exactly-kettle-2",
        A2,
        "exactly",
        (2, "is_switchedon(kettle)"),
        (
            "Turn on the kettle exactly twice.",
            "Switch the kettle on exactly two times.",
        ),
    ),
    (
        "exactly-statue-1",
        SPOT,
        "exactly",
        (1, "agent_at(statue)"),
        (
            "Visit the statue exactly one time.",
            "Go to the statue once and only once.",
        ),
    ),
    (
        "exactly-hallway-2",
        A1,
        "exactly",
        (2, "agent_at(hallway)"),
        (
            "Walk through the hallway exactly twice.",
            "You must pass the hallway exactly 2 times.",
        ),
    ),
    (
        "exactly-microwave-1",
        A2,
        "exactly",
        (1, "is_open(microwave)"),
        (
            "Open the microwave exactly once.",
            "Open the microwave one single time.",
        ),
    ),
    (
        "exactly-hallway-spot-2",
        SPOT,
        "exactly",
        (2, "agent_at(hallway)"),
        (
            "Pass through the hallway exactly twice.",
            "Go through the hallway exactly 2 times.",
        ),
    ),
    # -- at_least --------------------------------------------------------------------------
    (
        "at-least-bedroom-1",
        A1,
        "at_least",
        (1, "agent_at(bedroom)"),
        (
            "Go to the bedroom at least once.",
            "Make sure you visit the bedroom.",
            "You have to go to the bedroom at some point.",
        ),
    ),
    (
        "at-least-kitchen-2",
        A2,
        "at_least",
        (2, "agent_at(kitchen)"),
        (
            "Visit the kitchen at least twice.",
            "Go into the kitchen two or more times.",
            "Enter the kitchen no fewer than two times.",
        ),
    ),
    (
        "at-least-lamp-1",
        SPOT,
        "at_least",
        (1, "agent_at(lamp)"),
        (
            "You must visit the lamp.",
            "Be sure to stop by the lamp at least once.",
        ),
    ),
    (
        "at-least-pills-1",
        A1,
        "at_least",
        (1, "is_grabbed(pills)"),
        (
            "Take the pills at least once.",
            "Don't forget to pick up the pills.",
        ),
    ),
    (
        "at-least-statue-2",
        SPOT,
        "at_least",
        (2, "agent_at(statue)"),
        (
            "Visit the statue at least twice.",
            "Go to the statue two times or more.",
        ),
    ),
    (
        "at-least-radio-1",
        A2,
        "at_least",
        (1, "is_switchedon(radio)"),
        (
            "Turn on the radio at least once.",
            "Make sure to switch the radio on.",
        ),
    ),
    # -- response --------------------------------------------------------------------------
    (
        "response-fridge",
        A1,
        "response",
        ("is_open(fridge)", "!is_open(fridge)"),
        (
            "If you open the fridge, close it afterwards.",
            "You must close the fridge if you ever open it.",
            "Whenever the fridge is opened, it has to be closed again later.",
            "Opening the fridge means you have to close it later.",
            "Don't leave the fridge open.",
        ),
    ),
    (
        "response-stove",
        A2,
        "response",
        ("is_switchedon(stove)", "!is_switchedon(stove)"),
        (
            "If you turn on the stove, you must turn it off later.",
            "Whenever you switch the stove on, switch it off eventually.",
            "Turn the stove off at some point if you ever turn it on.",
        ),
    ),
    (
        "response-book-mailbox",
        SPOT,
        "response",
        ("is_grabbed(book)", "is_in(book,mail_box)"),
        (
            "If you pick up the book, it must end up in the mail box.",
            "Whenever you take the book, put it in the mailbox eventually.",
            "Grabbing the book means putting it in the mail box later.",
        ),
    ),
    (
        "response-bathroom-kitchen",
        A1,
        "response",
        ("agent_at(bathroom)", "agent_at(kitchen)"),
        (
            "After visiting the bathroom, go to the kitchen at some point.",
            "Every time you enter the bathroom, visit the kitchen later.",
            "If you go to the bathroom, then go to the kitchen later.",
        ),
    ),
    (
        "response-washer",
        A2,
        "response",
        ("is_open(washing_machine)", "!is_open(washing_machine)"),
        (
            "Close the washing machine if you ever open it.",
            "Whenever you open the washing machine, close it again later on.",
        ),
    ),
    (
        "response-tv",
        A1,
        "response",
        ("is_switchedon(television)", "!is_switchedon(television)"),
        (
            "If you turn on the TV, turn it off later.",
            "Switch the television off eventually whenever you switch it on.",
        ),
    ),
    (
        "response-statue-lamp",
        SPOT,
        "response",
        ("agent_at(statue)", "agent_at(lamp)"),
        (
            "If you visit the statue, you must visit the lamp later.",
            "Going to the statue means going to the lamp at some point afterwards.",
        ),
    ),
    # -- immediate_response ----------------------------------------------------------------
    (
        "immediate-bathroom",
        A1,
        "immediate_response",
        ("agent_at(bathroom)", "!agent_at(bathroom)"),
        (
            "Leave the bathroom right after you enter it.",
            "If you go into the bathroom, leave it immediately.",
            "Whenever you are in the bathroom, get out of it at the very next step.",
        ),
    ),
    (
        "immediate-tv-hallway",
        SPOT,
        "immediate_response",
        ("agent_at(television)", "agent_at(hallway)"),
        (
            "If you go to the TV, go to the hallway immediately after.",
            "After visiting the television, go directly to the hallway.",
            "Being at the television means going to the hallway right away.",
        ),
    ),
    (
        "immediate-microwave",
        A2,
        "immediate_response",
        ("is_open(microwave)", "!is_open(microwave)"),
        (
            "If you open the microwave, close it right away.",
            "Close the microwave immediately after opening it.",
            "Opening the microwave means closing it immediately.",
        ),
    ),
    (
        "immediate-milk",
        A1,
        "immediate_response",
        ("is_grabbed(milk)", "is_in(milk,fridge)"),
        (
            "If you pick up the milk, put it into the fridge immediately.",
            "Put the milk in the fridge right after you grab it.",
        ),
    ),
    (
        "immediate-kitchen-living",
        A2,
        "immediate_response",
        ("agent_at(kitchen)", "agent_at(living_room)"),
        (
            "Whenever you enter the kitchen, go to the living room next.",
            "If you are in the kitchen, move to the living room immediately afterwards.",
        ),
    ),
    (
        "immediate-phone",
        SPOT,
        "immediate_response",
        ("is_grabbed(phone)", "!is_grabbed(phone)"),
        (
            "If you pick up the phone, put it down right away.",
            "Drop the phone immediately if you ever pick it up.",
        ),
    ),
    # -- absence_after ---------------------------------------------------------------------
    (
        "absence-book-tv",
        SPOT,
        "absence_after",
        ("is_grabbed(book)", "agent_at(television)"),
        (
            "After you take the book, never go to the TV.",
            "Once you've grabbed the book, don't go near the television anymore.",
            "Picking up the book means you can never visit the television again.",
        ),
    ),
    (
        "absence-kitchen-bedroom",
        A1,
        "absence_after",
        ("agent_at(kitchen)", "agent_at(bedroom)"),
        (
            "Once you reach the kitchen, never return to the bedroom.",
            "After you have been in the kitchen, do not go to the bedroom again.",
            "If you go to the kitchen, never enter the bedroom afterwards.",
        ),
    ),
    (
        "absence-stove-bathroom",
        A2,
        "absence_after",
        ("is_switchedon(stove)", "agent_at(bathroom)"),
        (
            "Once the stove is on, don't go to the bathroom anymore.",
            "After turning on the stove, never go into the bathroom.",
        ),
    ),
    (
        "absence-book-shelf",
        SPOT,
        "absence_after",
        ("is_grabbed(book)", "is_on(book,book_shelf)"),
        (
            "After taking the book, never put it back on the bookshelf.",
            "Once the book is picked up, it must never be placed on the bookshelf again.",
        ),
    ),
    (
        "absence-knife-living",
        A1,
        "absence_after",
        ("is_grabbed(knife)", "agent_at(living_room)"),
        (
            "Once you pick up the knife, never enter the living room.",
            "After grabbing the knife, stay out of the living room.",
        ),
    ),
    (
        "absence-knife-bedroom",
        A2,
        "absence_after",
        ("is_grabbed(knife)", "agent_at(bedroom)"),
        (
            "Once you hold the knife, never go into the bedroom.",
            "After picking up the knife, don't enter the bedroom again.",
        ),
    ),
    (
        "absence-mailbox-hallway",
        SPOT,
        "absence_after",
        ("agent_at(mail_box)", "agent_at(hallway)"),
        (
            "After you have been to the mail box, do not go back into the hallway.",
            "Once you reach the mailbox, never pass through the hallway again.",
        ),
    ),
]

# Meanings outside every pattern: (group, scene, formula, sentence).
OTHER: list[tuple[str, str, str, str]] = [
    (
        "other-fridge-stove",
        A1,
        'G("is_switchedon(stove)" -> !"is_open(fridge)")',
        "Keep the fridge closed while the stove is on.",
    ),
    (
        "other-kitchen-then-bathroom",
        A1,
        'F("agent_at(kitchen)" & F"agent_at(bathroom)")',
        "Go to the kitchen and then to the bathroom.",
    ),
    (
        "other-knife-phone",
        A2,
        'G!("is_grabbed(knife)" & "is_grabbed(phone)")',
        "Never hold the knife and the phone at the same time.",
    ),
    (
        "other-book-ends-on-shelf",
        SPOT,
        'FG"is_on(book,book_shelf)"',
        "The book must end up on the book shelf.",
    ),
    (
        "other-hot-stove",
        A1,
        'G("is_switchedon(stove)" -> !"is_touched(stove)")',
        "Don't touch the stove while it is switched on.",
    ),
    (
        "other-bedroom-xor-bathroom",
        A2,
        '(F"agent_at(bedroom)" | F"agent_at(bathroom)") & !(F"agent_at(bedroom)" & '
        'F"agent_at(bathroom)")',
        "Either visit the bedroom or the bathroom, but not both.",
    ),
]


# Other readings a careful reader could defend (``alternatives``, which the evaluation also
# accepts): "first A, then B" said as an instruction is also read as a sequenced visit (do
# both, A first), as the labelled sets by other hands read it (data/translation/heldout,
# dev_other); the label keeps the precedence this set was written with.
ALTERNATIVES = {
    "First the bathroom, then the bedroom.": ('F("agent_at(bathroom)" & F"agent_at(bedroom)")',),
    "Go to the bathroom first, then the kitchen.": (
        'F("agent_at(bathroom)" & F"agent_at(kitchen)")',
    ),
}


def literal(text: str) -> Formula:
    """An atom, or its negation when *text* starts with ``!``."""
    return Not(ap(text[1:])) if text.startswith("!") else ap(text)


def split_of(group: str) -> str:
    """``"dev"`` or ``"test"``, from a hash of the group name (about 40 % dev)."""
    return "dev" if int(hashlib.sha256(group.encode()).hexdigest(), 16) % 5 < 2 else "test"


def rows() -> list[dict]:
    """Every utterance as a JSON-ready row."""
    out = []
    for group, scene, pattern, args, sentences in GROUPS:
        spec = PATTERNS[pattern]
        built = spec.build(*(a if isinstance(a, int) else literal(a) for a in args))
        for k, sentence in enumerate(sentences):
            out.append(
                {
                    "id": f"{group}/{k + 1}",
                    "group": group,
                    "scene": scene,
                    "sentence": sentence,
                    "formula": str(built),
                    "pattern": pattern,
                    "family": spec.family,
                    "split": split_of(group),
                    **(
                        {"alternatives": [str(parse(a)) for a in ALTERNATIVES[sentence]]}
                        if sentence in ALTERNATIVES
                        else {}
                    ),
                }
            )
    for group, scene, text, sentence in OTHER:
        out.append(
            {
                "id": f"{group}/1",
                "group": group,
                "scene": scene,
                "sentence": sentence,
                "formula": str(parse(text)),
                "pattern": None,
                "family": "other",
                "split": split_of(group),
            }
        )
    return out


def main() -> None:
    """Rewrite ``utterances.jsonl`` next to this script."""
    target = Path(__file__).with_name("utterances.jsonl")
    data = rows()
    ids = [r["id"] for r in data]
    assert len(ids) == len(set(ids)), "duplicate ids"
    with target.open("w", encoding="utf-8") as fh:
        for row in data:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for row in data:
        counts[row["split"]] = counts.get(row["split"], 0) + 1
    print(f"wrote {len(data)} utterances to {target} ({counts})")


if __name__ == "__main__":
    main()
