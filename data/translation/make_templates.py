"""Write ``templates.jsonl`` (and ``templates.npy``): lifted paraphrase templates for the
retrieval translator (:class:`safetychip.translate.RetrievalTranslator`).

Run ``.venv/bin/python data/translation/make_templates.py`` from the repository root. Each
template is a lifted sentence (placeholders ``[a]``, ``[b]``, ``[c]`` in order of first
appearance) with its lifted formula, its pattern and its *roles* (the literal each
placeholder's clause contributes: the translator votes over the formula's shape and puts
the sentence's own clauses in their place). They are made by filling sentence *frames*
(written here by hand, in varied styles: terse, chatty, formal, passive, polite, with
gerunds and nouns) with *clauses* over seven predicates, sampled with a fixed seed; a second
pass (its own seed) adds templates each with a clause over the predicates of VirtualHome's
other actions (sitting, lying, facing, wearing, plugged in, clean, poured, left hand). The frames
were written from the pattern definitions, not from any evaluation sentence; the held-out
set under ``heldout/`` was never read.

``templates.npy`` holds the all-MiniLM-L6-v2 vectors of the texts (float16, same order), so
the translator does not embed two thousand sentences at start-up; ``templates.json`` (the
summary) records the count and a hash of the texts, and the translator re-embeds when the
hash does not match.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from safetychip.ltl import Formula, Not, ap  # noqa: E402
from safetychip.ltl import build_pattern as build  # noqa: E402
from safetychip.translate._reading import no_double_negation  # noqa: E402
from safetychip.translate._retrieve import write_library  # noqa: E402

OUT = ROOT / "data" / "translation"
PER_PATTERN = 130

# predicate, positive?, moods: imperative, gerund, perfect (after "you have"), state
CLAUSES: dict[str, tuple[str, bool, dict[str, list[str]]]] = {
    "at": (
        "agent_at",
        True,
        {
            "imp": [
                "go to {x}",
                "enter {x}",
                "visit {x}",
                "walk into {x}",
                "head to {x}",
                "set foot in {x}",
                "step into {x}",
                "move to {x}",
                "stop by {x}",
                "go into {x}",
                "drive to {x}",
                "make your way to {x}",
                "pass through {x}",
            ],
            "ger": [
                "going to {x}",
                "entering {x}",
                "visiting {x}",
                "walking into {x}",
                "heading into {x}",
                "being in {x}",
                "a visit to {x}",
                "trips to {x}",
            ],
            "perf": [
                "been to {x}",
                "visited {x}",
                "entered {x}",
                "gone to {x}",
                "been in {x}",
                "stopped by {x}",
                "checked {x}",
            ],
            "state": [
                "you are in {x}",
                "you're inside {x}",
                "you are at {x}",
                "the robot is in {x}",
                "you find yourself in {x}",
                "you're standing in {x}",
                "in {x}",
            ],
        },
    ),
    "grab": (
        "is_grabbed",
        True,
        {
            "imp": [
                "pick up {x}",
                "grab {x}",
                "take {x}",
                "lift {x}",
                "hold {x}",
                "carry {x}",
                "get hold of {x}",
                "snatch {x}",
                "take hold of {x}",
            ],
            "ger": ["picking up {x}", "grabbing {x}", "taking {x}", "holding {x}", "carrying {x}"],
            "perf": ["picked up {x}", "grabbed {x}", "taken {x}", "got {x}"],
            "state": [
                "you are holding {x}",
                "you have {x} in your hand",
                "you carry {x}",
                "you're carrying {x}",
                "holding {x}",
            ],
        },
    ),
    "open": (
        "is_open",
        True,
        {
            "imp": ["open {x}", "open up {x}", "pull {x} open", "crack {x} open"],
            "ger": ["opening {x}", "opening up {x}"],
            "perf": ["opened {x}"],
            "state": ["{x} is open", "{x} stands open", "{x} is left open"],
        },
    ),
    "close": (
        "is_open",
        False,
        {
            "imp": ["close {x}", "shut {x}", "close {x} again"],
            "ger": ["closing {x}", "shutting {x}"],
            "perf": ["closed {x}", "shut {x}"],
            "state": ["{x} is closed", "{x} is shut"],
        },
    ),
    "on": (
        "is_switchedon",
        True,
        {
            "imp": [
                "turn on {x}",
                "switch on {x}",
                "switch {x} on",
                "power up {x}",
                "start {x}",
                "turn {x} on",
            ],
            "ger": ["turning on {x}", "switching on {x}", "starting {x}"],
            "perf": ["turned on {x}", "switched on {x}", "started {x}"],
            "state": ["{x} is on", "{x} is running", "{x} is switched on"],
        },
    ),
    "off": (
        "is_switchedon",
        False,
        {
            "imp": [
                "turn off {x}",
                "switch off {x}",
                "switch {x} off",
                "shut down {x}",
                "turn {x} off",
            ],
            "ger": ["turning off {x}", "switching off {x}"],
            "perf": ["turned off {x}", "switched off {x}"],
            "state": ["{x} is off", "{x} is switched off"],
        },
    ),
    "touch": (
        "is_touched",
        True,
        {
            "imp": ["touch {x}", "lay a finger on {x}", "put your hands on {x}"],
            "ger": ["touching {x}"],
            "perf": ["touched {x}"],
            "state": ["you are touching {x}"],
        },
    ),
}

# The predicates of VirtualHome's other actions (issue 16). They take part only in a second
# pass (its own seed, PER_ACTION per pattern), so the templates of the first pass stay as they
# were.
ACTION_CLAUSES: dict[str, tuple[str, bool, dict[str, list[str]]]] = {
    "sit": (
        "agent_sitting_on",
        True,
        {
            "imp": ["sit on {x}", "sit down on {x}", "take a seat on {x}", "sit in {x}"],
            "ger": ["sitting on {x}", "sitting down on {x}"],
            "perf": ["sat on {x}", "sat down on {x}"],
            "state": ["you are sitting on {x}", "you are seated on {x}"],
        },
    ),
    "lie": (
        "agent_lying_on",
        True,
        {
            "imp": ["lie on {x}", "lie down on {x}", "lie down in {x}"],
            "ger": ["lying on {x}", "lying down on {x}"],
            "perf": ["lain on {x}", "lain down on {x}"],
            "state": ["you are lying on {x}", "you are lying down on {x}"],
        },
    ),
    "face": (
        "agent_facing",
        True,
        {
            "imp": ["face {x}", "turn to face {x}", "turn towards {x}"],
            "ger": ["facing {x}", "turning towards {x}"],
            "perf": ["faced {x}", "turned towards {x}"],
            "state": ["you are facing {x}"],
        },
    ),
    "wear": (
        "is_worn",
        True,
        {
            "imp": ["wear {x}", "put on {x}", "put {x} on"],
            "ger": ["wearing {x}", "putting on {x}"],
            "perf": ["worn {x}", "put on {x}"],
            "state": ["you are wearing {x}", "{x} is worn"],
        },
    ),
    "plug": (
        "is_pluggedin",
        True,
        {
            "imp": ["plug in {x}", "plug {x} in", "plug {x} into the wall"],
            "ger": ["plugging in {x}", "plugging {x} in"],
            "perf": ["plugged in {x}", "plugged {x} in"],
            "state": ["{x} is plugged in"],
        },
    ),
    "unplug": (
        "is_pluggedin",
        False,
        {
            "imp": ["unplug {x}", "pull the plug of {x}", "disconnect {x}"],
            "ger": ["unplugging {x}"],
            "perf": ["unplugged {x}"],
            "state": ["{x} is unplugged"],
        },
    ),
    "wash": (
        "is_clean",
        True,
        {
            "imp": ["wash {x}", "clean {x}", "rinse {x}", "scrub {x}"],
            "ger": ["washing {x}", "cleaning {x}"],
            "perf": ["washed {x}", "cleaned {x}"],
            "state": ["{x} is clean"],
        },
    ),
    "pour": (
        "is_poured",
        True,
        {
            "imp": ["pour {x}", "pour out {x}", "pour {x} out"],
            "ger": ["pouring {x}", "pouring out {x}"],
            "perf": ["poured {x}", "poured out {x}"],
            "state": ["you are pouring {x}"],
        },
    ),
    "grab_left": (
        "is_grabbed_lh",
        True,
        {
            "imp": ["hold {x} in your left hand", "pick up {x} with your left hand"],
            "ger": ["holding {x} in your left hand", "carrying {x} in your left hand"],
            "perf": ["picked up {x} with your left hand"],
            "state": ["you are holding {x} in your left hand"],
        },
    ),
}
CLAUSES.update(ACTION_CLAUSES)
PER_ACTION = 24

COUNTS = {
    1: ["once", "one time", "1 time"],
    2: ["twice", "two times", "2 times"],
    3: ["three times", "3 times", "thrice"],
    4: ["four times", "4 times"],
}

# Frames: {A.mood}, {B.mood} are clauses; {N} is a count; {S} is a number of steps.
# A pattern's arguments are given by role: A first, then B (the order of the builders).
FRAMES: dict[str, list[str]] = {
    "never": [
        "never {A.imp}",
        "do not {A.imp}",
        "don't ever {A.imp}",
        "you must never {A.imp}",
        "under no circumstances should you {A.imp}",
        "{A.ger} is not allowed",
        "{A.ger} is strictly forbidden",
        "no {A.ger}",
        "please refrain from {A.ger}",
        "avoid {A.ger}",
        "you are not allowed to {A.imp}",
        "at no point should you {A.imp}",
        "make sure you never {A.imp}",
        "it is forbidden to {A.imp}",
        "whatever you do, don't {A.imp}",
        "i don't want you to {A.imp}, ever",
        "keep from {A.ger}",
        "hard rule: no {A.ger}",
        "the robot must not {A.imp}",
        "you shall not {A.imp}",
        "refrain from {A.ger} at all times",
        "there should be no {A.ger}",
        "it's not ok to {A.imp}",
        "hey, never {A.imp}, ok?",
        "don't you dare {A.imp}",
        "i forbid you to {A.imp}",
        "at all times, avoid {A.ger}",
        "{A.ger} is off the table",
        "not once should you {A.imp}",
        "for safety reasons, do not {A.imp}",
        "you may not {A.imp} at any point",
        "{A.ger}: never",
        "no way you {A.imp}",
        "steer clear of {A.ger}",
        "stay away from {A.ger}",
        "{A.ger} is prohibited",
        "it is not permitted to {A.imp}",
        "the rule is simple: don't {A.imp}",
        "do not, under any circumstances, {A.imp}",
    ],
    "never_at": [
        "{x} is off limits",
        "{x} cannot be visited",
        "stay away from {x}",
        "keep out of {x}",
        "{x} is a no-go zone",
        "{x} must not be entered",
        "stay clear of {x}",
        "do not set foot in {x}",
        "{x} is out of bounds",
        "{x} is forbidden territory",
        "avoid {x} at all costs",
        "keep away from {x}",
        "{x} should never be visited",
        "nobody goes into {x}",
        "no entry to {x}",
        "{x} is closed to you",
        "you are banned from {x}",
    ],
    "not_before": [
        "don't {A.imp} before you have {B.perf}",
        "{A.imp} only after you have {B.perf}",
        "do not {A.imp} until you have {B.perf}",
        "you may {A.imp} only once you have {B.perf}",
        "wait until you have {B.perf} before you {A.imp}",
        "until you have {B.perf}, do not {A.imp}",
        "if you haven't {B.perf} yet, don't {A.imp}",
        "{B.ger} unlocks {A.ger}",
        "no {A.ger} until you have {B.perf}",
        "{A.ger} is only allowed after {B.ger}",
        "{A.ger} is not permitted before {B.ger}",
        "before {B.ger}, never {A.imp}",
        "you need to have {B.perf} before you can {A.imp}",
        "hold off on {A.ger} until you have {B.perf}",
        "{A.imp}, but not before {B.ger}",
        "not until you have {B.perf} may you {A.imp}",
        "{A.ger} has to wait until you have {B.perf}",
        "as long as you haven't {B.perf}, {A.ger} is forbidden",
        "only once you've {B.perf} are you allowed to {A.imp}",
        "you can {A.imp}, but only after {B.ger}",
        "{A.ger} requires {B.ger} first",
        "without {B.ger} first, don't {A.imp}",
        "never {A.imp} unless you have {B.perf}",
        "do not {A.imp} prior to {B.ger}",
        "{A.ger} comes only after {B.ger}",
    ],
    "before": [
        "{A.imp} before you {B.imp}",
        "{A.imp} before {B.ger}",
        "first {A.imp}, then {B.imp}",
        "make sure to {A.imp} before {B.ger}",
        "{A.imp} prior to {B.ger}",
        "{A.ger} must come before {B.ger}",
        "always {A.imp} before you {B.imp}",
        "before you {B.imp}, {A.imp}",
        "before {B.ger}, make sure you {A.imp}",
        "{A.imp} first and {B.imp} after that",
        "{A.ger} has to happen before {B.ger}",
        "you should {A.imp} ahead of {B.ger}",
    ],
    "response": [
        "if you {A.imp}, {B.imp} later",
        "whenever you {A.imp}, make sure to {B.imp} afterwards",
        "every time you {A.imp}, you must eventually {B.imp}",
        "{A.ger} means you have to {B.imp} at some point",
        "after {A.ger}, remember to {B.imp}",
        "once you {A.imp}, {B.imp} eventually",
        "{B.imp} at some point after you {A.imp}",
        "should you ever {A.imp}, {B.imp} before you finish",
        "{A.ger} must be followed by {B.ger} sooner or later",
        "each time you {A.imp}, be sure to {B.imp} later on",
        "if you ever {A.imp}, you'll need to {B.imp} afterwards",
        "after you {A.imp}, {B.imp} at some later point",
        "{A.ger} obliges you to {B.imp} eventually",
        "whenever you have {A.perf}, you must {B.imp} later",
        "{A.imp} only if you will {B.imp} later",
    ],
    "immediate_response": [
        "if you {A.imp}, {B.imp} immediately",
        "right after {A.ger}, {B.imp}",
        "as soon as you {A.imp}, {B.imp}",
        "{A.ger} must be followed right away by {B.ger}",
        "whenever you {A.imp}, {B.imp} at the very next step",
        "{B.imp} straight after you {A.imp}",
        "the moment you {A.imp}, {B.imp}",
        "immediately after {A.ger}, {B.imp}",
        "{B.imp} right after you {A.imp}",
        "each time you {A.imp}, {B.imp} at once",
        "once you {A.imp}, {B.imp} without delay",
        "{A.ger} has to be followed directly by {B.ger}",
        "the very next thing after {A.ger} is {B.ger}",
    ],
    "absence_after": [
        "once you have {A.perf}, never {B.imp} again",
        "after {A.ger}, don't {B.imp} anymore",
        "if you {A.imp}, never {B.imp} afterwards",
        "{A.ger} means no more {B.ger}",
        "never {B.imp} after you have {A.perf}",
        "after you {A.imp}, stop {B.ger} for good",
        "once {A.ger} has happened, {B.ger} is off the table",
        "after you've {A.perf}, you may no longer {B.imp}",
        "from the moment you have {A.perf}, do not {B.imp}",
        "{B.imp} no more once you have {A.perf}",
        "as soon as you have {A.perf}, {B.ger} is forbidden from then on",
        "having {A.perf}, you must not {B.imp} again",
    ],
    "avoid_while": [
        "don't {B.imp} while {A.state}",
        "never {B.imp} when {A.state}",
        "if {A.state}, don't {B.imp}",
        "while {A.state}, never {B.imp}",
        "as long as {A.state}, do not {B.imp}",
        "{B.ger} is forbidden while {A.state}",
        "no {B.ger} when {A.state}",
        "whenever {A.state}, avoid {B.ger}",
        "when {A.state} you must not {B.imp}",
        "do not {B.imp} if {A.state}",
        "{B.ger} is not allowed as long as {A.state}",
        "you can't {B.imp} while {A.state}",
        "while {A.state}, {B.ger} is off limits",
    ],
    "avoid_unless": [
        "never {B.imp} unless {A.state}",
        "only {B.imp} when {A.state}",
        "{B.imp} only while {A.state}",
        "don't {B.imp} except when {A.state}",
        "you may {B.imp} only if {A.state}",
        "unless {A.state}, don't {B.imp}",
        "{B.ger} is allowed only when {A.state}",
        "do not {B.imp} unless {A.state}",
        "{B.ger} is forbidden unless {A.state}",
        "{B.imp} only if {A.state}",
        "{B.ger} only happens when {A.state}",
    ],
    "at_most": [
        "{A.imp} at most {N}",
        "never {A.imp} more than {N}",
        "{A.imp} no more than {N}",
        "you may {A.imp} up to {N}",
        "don't {A.imp} more than {N}",
        "{A.ger} is limited to {N}",
        "you can only {A.imp} {N}",
        "{A.imp} {N} at the most",
        "{A.imp} {N} max",
        "do not {A.imp} over {N}",
    ],
    "at_least": [
        "{A.imp} at least {N}",
        "{A.imp} {N} or more",
        "{A.imp} a minimum of {N}",
        "make sure you {A.imp} at least {N}",
        "{A.imp} no fewer than {N}",
        "you have to {A.imp} at least {N}",
    ],
    "exactly": [
        "{A.imp} exactly {N}",
        "{A.imp} {N}, no more, no less",
        "{A.imp} precisely {N}",
        "{A.imp} {N} and only {N}",
        "you must {A.imp} exactly {N}",
        "{A.imp} {N}",
    ],
    "visit": [
        "{A.imp}",
        "{A.imp} at some point",
        "make sure you {A.imp}",
        "eventually {A.imp}",
        "you need to {A.imp}",
        "your job is to {A.imp}",
        "don't forget to {A.imp}",
        "{A.imp} in the future",
        "at some stage, {A.imp}",
        "{A.ger} is required",
        "be sure to {A.imp} before you finish",
        "please {A.imp}",
        "remember to {A.imp}",
        "i need you to {A.imp}",
        "{A.imp} sometime",
        "can you {A.imp}?",
        "{A.imp} before the end",
        "the task: {A.imp}",
    ],
    "sequenced_visit": [
        "{A.imp}, then {B.imp}",
        "{A.imp} and afterwards {B.imp}",
        "{A.imp}, after that {B.imp}",
        "{A.imp} followed by {B.ger}",
        "{A.imp} and later {B.imp}",
        "{A.imp}; next, {B.imp}",
        "{A.imp} and then {B.imp}",
        "go ahead and {A.imp}, and then {B.imp}",
        "{A.imp}, and eventually {B.imp}",
        "{A.imp}, then at some later point {B.imp}",
    ],
    "ordered_visit": [
        "{A.imp} and {B.imp}, in that order",
        "{A.imp} then {B.imp}, in this order",
        "{A.imp} and {B.imp} in order",
        "{A.imp}, then {B.imp}, in exactly that order",
        "{A.imp} and {B.imp}, one after the other",
        "{A.imp} and then {B.imp}, in sequence",
    ],
    "strictly_ordered_visit": [
        "{A.imp} and {B.imp} in strict order",
        "{A.imp} then {B.imp}, strictly in that order",
        "{A.imp} exactly once and then {B.imp}",
        "{A.imp} and {B.imp} in strictly that order",
    ],
    "patrolling": [
        "patrol {x}",
        "keep {A.ger}",
        "{A.imp} over and over",
        "{A.imp} repeatedly",
        "keep coming back to {x}",
        "do rounds of {x}",
        "{A.imp} again and again",
        "keep returning to {x}",
        "{A.imp} indefinitely",
        "{A.imp} forever",
        "continuously {A.imp}",
        "keep on {A.ger}",
        "{A.imp} regularly",
    ],
    "wait": [
        "stay in {x} until {B.state}",
        "remain in {x} until {B.state}",
        "wait in {x} until {B.state}",
        "stay at {x} until {B.state}",
        "keep waiting in {x} until {B.state}",
        "you must stay in {x} until {B.state}",
    ],
    "bounded_delay": [
        "if you {A.imp}, {B.imp} within {S} steps",
        "{B.imp} within {S} steps of {A.ger}",
        "whenever you {A.imp}, {B.imp} in at most {S} steps",
        "after {A.ger}, you have {S} steps to {B.imp}",
        "once you {A.imp}, {B.imp} within {S} actions",
    ],
}
# Patterns over one thing acted on twice ("open [a] … close it"): (trigger, response) kinds.
SAME = {
    "response": [
        "if you {A.imp}, {B.imp} later",
        "always {B.imp} after {A.ger}",
        "{B.imp} whenever you {A.imp}",
        "remember to {B.imp} after you {A.imp}",
        "{A.imp} and don't forget to {B.imp}",
        "after {A.ger}, {B.imp} eventually",
        "don't leave {x} {open}",
        "{x} must not be left {open}",
        "if you {A.imp}, make sure to {B.imp} before you are done",
    ],
    "immediate_response": [
        "{B.imp} right after you {A.imp}",
        "as soon as you {A.imp}, {B.imp}",
        "if you {A.imp}, {B.imp} immediately",
        "{A.imp} and {B.imp} straight away",
    ],
}
SAME_PAIRS = [("open", "close", "open"), ("on", "off", "on")]


def _literal(kind: str, letter: str) -> Formula:
    predicate, positive, _ = CLAUSES[kind]
    atom = ap(f"{predicate}({letter})")
    return atom if positive else Not(atom)


def _fill(frame: str, rng: random.Random, kinds: dict[str, str], n: int, steps: int) -> str:
    def clause(m: re.Match[str]) -> str:
        role, mood = m.group(1), m.group(2)
        choices = CLAUSES[kinds[role]][2][mood]
        return rng.choice(choices).replace("{x}", f"<{role}>")

    text = re.sub(r"\{([AB])\.(\w+)\}", clause, frame)
    text = text.replace("{x}", "<A>").replace("{N}", rng.choice(COUNTS[n]))
    return text.replace("{S}", rng.choice(["two", "three", "2", "3", "five"]) if steps else "")


def _lift(text: str) -> tuple[str, dict[str, str]]:
    """Placeholders <A>, <B> to [a], [b] in order of first appearance."""
    letters: dict[str, str] = {}
    for role in re.findall(r"<([AB])>", text):
        letters.setdefault(role, "abc"[len(letters)])
    for role, letter in letters.items():
        text = text.replace(f"<{role}>", f"[{letter}]")
    return text, letters


def _steps(text: str) -> int:
    m = re.search(r"within (\w+)|at most (\w+) steps|have (\w+) steps", text)
    word = next(g for g in m.groups() if g) if m else "two"
    return {"two": 2, "three": 3, "five": 5}.get(word, int(word) if word.isdigit() else 2)


def generate(seed: int = 12) -> list[dict]:
    """The templates: the first pass over the guide's seven predicates, then the second."""
    rows: dict[str, dict] = {}
    first = [k for k in CLAUSES if k not in ACTION_CLAUSES]
    rng = random.Random(seed)
    _sample(rng, rows, first, PER_PATTERN, ["at", "at", "grab", "open", "on"])
    _same(rng, rows, SAME_PAIRS)
    # second pass, its own seed: each template has a clause of VirtualHome's other actions
    rng = random.Random(seed + 1)
    states = ["sit", "lie", "wear", "grab_left", "at"]
    _sample(rng, rows, first + list(ACTION_CLAUSES), PER_ACTION, states, ACTION_CLAUSES)
    _same(rng, rows, [("plug", "unplug", "plugged in")])
    return list(rows.values())


def _sample(
    rng: random.Random,
    rows: dict[str, dict],
    kinds_all: list[str],
    per_pattern: int,
    states: list[str],
    required: Mapping[str, object] | None = None,
) -> None:
    """Add *per_pattern* templates per pattern of FRAMES to *rows*, clauses drawn from
    *kinds_all* (at least one of *required*, when given)."""
    for pattern, frames in FRAMES.items():
        made, tries = 0, 0
        name = "never" if pattern == "never_at" else pattern
        while made < per_pattern and tries < per_pattern * 20:
            tries += 1
            frame = rng.choice(frames)
            kinds = {"A": rng.choice(kinds_all), "B": rng.choice(kinds_all)}
            if "{x}" in frame or pattern in ("never_at", "wait"):
                kinds["A"] = "at"
            if "state" in frame and pattern in ("avoid_while", "avoid_unless", "wait"):
                kinds["A" if pattern != "wait" else "B"] = rng.choice(states)
            n = rng.choice([1, 2, 3, 4] if pattern != "exactly" else [1, 2, 3])
            text, letters = _lift(_fill(frame, rng, kinds, n, "{S}" in frame))
            if len(letters) != len(
                {r for r in re.findall(r"\{([AB])", frame)} | ({"A"} if "{x}" in frame else set())
            ):
                continue
            if required is not None and not any(kinds[role] in required for role in letters):
                continue
            lit = {role: _literal(kinds[role], letter) for role, letter in letters.items()}
            if pattern in ("at_most", "at_least", "exactly"):
                args: tuple = (n, lit["A"])
            elif pattern == "bounded_delay":
                args = (_steps(text), lit["A"], lit["B"])
            elif pattern in ("never", "never_at", "visit", "patrolling"):
                args = (lit["A"],)
            else:
                args = (lit["A"], lit["B"])
            if text in rows:
                continue
            formula = no_double_negation(build(name, *args))
            roles = {letter: str(lit[role]) for role, letter in letters.items()}
            rows[text] = {"text": text, "formula": str(formula), "pattern": name, "roles": roles}
            made += 1


def _same(rng: random.Random, rows: dict[str, dict], pairs: list[tuple[str, str, str]]) -> None:
    """Add the templates of SAME for each (trigger, response, adjective) of *pairs*."""
    for pattern, frames in SAME.items():
        for trigger, response, adjective in pairs:
            for frame in frames:
                for _ in range(4):
                    text = _fill(frame, rng, {"A": trigger, "B": response}, 1, 0)
                    text = text.replace("<B>", "it").replace("{open}", adjective)
                    text, _ = _lift(text)
                    f = build(pattern, _literal(trigger, "a"), _literal(response, "a"))
                    rows.setdefault(
                        text, {"text": text, "formula": str(f), "pattern": pattern, "roles": {}}
                    )


def main() -> None:
    """Write the library and print its summary."""
    summary = write_library(generate(), OUT / "templates.jsonl")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
