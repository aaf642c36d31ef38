"""Class names end to end: "the window" is any window, from the sentence to the monitor.

A class shared by several instances is a name of its own (the vocabulary), the translator
grounds "the window" to it and reads it back with its instances, and the VirtualHome
environment evaluates the class-level atom so the monitor refuses opening *either* window.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from safetychip.envs import VirtualHomeEnv, load_scene
from safetychip.errors import GroundingError, OutOfGrammarError
from safetychip.ltl import parse
from safetychip.monitor import Monitor
from safetychip.shield import Shield
from safetychip.translate import (
    Translator,
    Vocabulary,
    back_translate,
    literal_text,
    prepare_review,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def translator():
    return Translator(Vocabulary.from_scene(load_scene("apartment_1")), embedder=None)


def test_the_window_is_any_window_and_the_bedroom_window_is_one(translator):
    assert translator("Never open the window.").formula == parse('G !"is_open(window)"')
    assert translator("Never open the bedroom window.").formula == parse(
        'G !"is_open(bedroom_window)"'
    )
    assert translator("Never open the window in the living room.").formula == parse(
        'G !"is_open(living_room_window)"'
    )


def test_the_robot_is_not_an_object_but_the_baby_is(translator):
    # grounding passes over "the robot"; the offline grammar may or may not read the rest
    try:
        formula = translator("The robot shall never open the fridge.").formula
    except OutOfGrammarError as err:
        assert "(lifted: 'The robot shall never open [a].')" in str(err)
    else:
        assert formula == parse('G !"is_open(fridge)"')
    with pytest.raises(GroundingError) as caught:
        translator("The robot shall never touch the baby.")
    assert caught.value.expression == "the baby"


def test_read_back_names_the_instances():
    v = Vocabulary.from_scene(load_scene("apartment_1"))
    text = back_translate(parse('G !"is_open(window)"'), vocabulary=v).text
    assert text == "Never open a window (bedroom_window or living_room_window)."
    wait = back_translate(parse('"agent_at(bathroom)" U "is_grabbed(towel)"'), vocabulary=v)
    assert "you are holding a towel (bathroom_towel_1 or bathroom_towel_2)" in wait.text
    # a negated class literal covers every instance, whatever the template's grammar
    assert literal_text(parse('!"is_open(window)"'), vocabulary=v) == (
        "close every window (bedroom_window and living_room_window)"
    )
    assert literal_text(parse('!"is_grabbed(towel)"'), "state", vocabulary=v) == (
        "you are not holding any towel (bathroom_towel_1 or bathroom_towel_2)"
    )
    assert literal_text(parse('!"is_dirty(plate)"'), "state", vocabulary=v) == (
        "no plate (kitchen_plate_1 or kitchen_plate_2) is dirty"
    )
    # a unique name reads as before, with or without the vocabulary
    assert back_translate(parse('G !"is_open(bedroom_window)"'), vocabulary=v).text == (
        "Never open the bedroom window."
    )


def test_the_review_card_of_a_translation_reads_a_class_name_back(translator):
    card = prepare_review(translator("Never open the window."))
    assert card.back_translation.text == (
        "Never open a window (bedroom_window or living_room_window)."
    )


def test_the_command_line_reads_a_class_name_back_with_its_instances():
    done = subprocess.run(
        [sys.executable, "-m", "safetychip.cli", "translate", "--scene", "apartment_1", "--json",
         "--no-embed", "never open the window"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["formula"] == 'G!"is_open(window)"'
    assert answer["back_translation"] == (
        "Never open a window (bedroom_window or living_room_window)."
    )


def test_the_monitor_keeps_every_window_shut(translator):
    constraint = translator("Never open the window.")
    shield = Shield.of(VirtualHomeEnv("apartment_1"), Monitor([constraint.formula]))
    shield.reset(options={"initial": ["agent_at(living_room)"]})
    assert shield.propose("walk to living room window").outcome == "executed"
    assert shield.propose("open living room window").outcome == "pruned"
    assert shield.propose("walk to bedroom window").outcome == "executed"
    assert shield.propose("open bedroom window").outcome == "pruned"
    assert shield.env.truth(["is_open(window)"]) == {"is_open(window)": False}
