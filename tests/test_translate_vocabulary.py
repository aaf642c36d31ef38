"""Vocabularies: names, rooms, phrases (synonyms, plurals, run-together words) and checks."""

from __future__ import annotations

import pytest

from safetychip.envs import PREDICATES as ENV_PREDICATES
from safetychip.envs import VIRTUALHOME_PREDICATES, load_scene
from safetychip.errors import DataFileError, VocabularyError
from safetychip.experiments import scene_vocabulary
from safetychip.ltl import parse
from safetychip.translate import PREDICATES, Vocabulary, load_vocabulary
from safetychip.translate._vocabulary import phrase_key, singular

APARTMENT_1 = Vocabulary.from_scene(load_scene("apartment_1"))


def test_predicates_match_the_environment():
    assert dict(PREDICATES) == ENV_PREDICATES


def test_scene_vocabulary_has_rooms_classes_and_synonyms():
    v = APARTMENT_1
    assert v.name == "apartment_1"
    assert v.rooms == {"hallway", "living_room", "kitchen", "bedroom", "bathroom"}
    assert v.classes["kitchen_sink"] == "sink"
    assert v.lookup("the book shelf") == ("book_shelf",)
    assert v.lookup("bookshelf") == ("book_shelf",)
    assert v.lookup("Bookshelves") == ("book_shelf",)
    assert v.lookup("the TV") == ("television",)
    assert v.lookup("refrigerator") == ("fridge",)
    assert v.lookup("coffee maker") == ("coffee_machine",)
    assert v.lookup("keys") == ("keys",)
    assert v.lookup("sinks") == ("sink",)
    assert v.lookup("the kitchen sink") == ("kitchen_sink",)
    assert v.lookup("a spaceship") == ()
    assert load_vocabulary(v) is v
    assert load_vocabulary("spot_demo") is load_vocabulary("spot_demo")  # loaded once


def test_a_class_of_several_instances_is_a_name_of_its_own():
    v = APARTMENT_1
    assert v.instances["window"] == ("bedroom_window", "living_room_window")
    assert v.instances["towel"] == ("bathroom_towel_1", "bathroom_towel_2")
    assert {"window", "faucet", "towel", "sink", "light"} <= set(v.names)
    assert v.is_class("window") and not v.is_class("bedroom_window")
    assert not v.is_class("fridge")  # one instance: its class is its unique name
    assert "fridge" not in v.instances and "window" not in v.rooms
    assert v.lookup("the window") == ("window",)
    assert v.lookup("windows") == ("window",)
    assert v.lookup("the bedroom window") == ("bedroom_window",)
    v.check(parse('G !"is_open(window)" & G !"is_in(knife,sink)"'))


def test_a_vocabulary_rebuilt_from_its_own_names_is_the_same():
    v = APARTMENT_1
    again = Vocabulary(v.name, v.names, v.rooms, v.predicates, v.classes, v.properties)
    assert again.names == v.names and again.instances == v.instances
    assert again.phrases == v.phrases


def test_a_class_name_is_able_only_when_every_instance_is():
    v = Vocabulary(
        "s",
        ("kitchen_chair", "office_chair", "stool"),
        classes={"kitchen_chair": "chair", "office_chair": "chair", "stool": "stool"},
        properties={
            "kitchen_chair": frozenset({"SITTABLE"}),
            "office_chair": frozenset(),
            "stool": frozenset({"SITTABLE"}),
        },
        predicates=VIRTUALHOME_PREDICATES,
    )
    assert v.instances == {"chair": ("kitchen_chair", "office_chair")}
    assert not v.able("agent_sitting_on", "chair")
    assert v.able("agent_sitting_on", "kitchen_chair")
    with pytest.raises(
        VocabularyError,
        match=r"chair cannot be sat on in s \(office_chair of the "
        r"class chair has no SITTABLE property\); what can: kitchen_chair, stool",
    ):
        v.check(parse('G !"agent_sitting_on(chair)"'))


def test_a_class_of_rooms_is_a_room():
    v = Vocabulary.from_names(
        ["bedroom_1", "bedroom_2", "kitchen"], rooms=["bedroom_1", "bedroom_2", "kitchen"]
    )
    assert v.instances["bedroom"] == ("bedroom_1", "bedroom_2")
    assert "bedroom" in v.rooms and v.lookup("the bedroom") == ("bedroom",)


def test_spot_names_are_unique_so_nothing_changes():
    v = load_vocabulary("spot_demo")
    assert v.instances == {}
    assert len(v.names) == 9


def test_a_scene_is_loaded_by_the_caller():
    with pytest.raises(
        TypeError, match=r"from_scene\(safetychip.envs.load_scene\('apartment_1'\)\)"
    ):
        Vocabulary.from_scene("apartment_1")
    with pytest.raises(DataFileError, match=r"Vocabulary.of\(scene\)"):
        load_vocabulary("apartment_1")


def test_an_exact_name_wins_over_a_shared_class():
    v = Vocabulary.from_names(["lamp", "floor_lamp", "kitchen", "kitchen_lamp"])
    assert v.lookup("lamp") == ("lamp",)
    assert v.lookup("the kitchen lamp") == ("kitchen_lamp",)


def test_spot_demo_vocabulary_comes_from_its_constraints():
    v = load_vocabulary("spot_demo")
    assert set(v.names) == {
        "book",
        "book_shelf",
        "coffee_machine",
        "hallway",
        "lamp",
        "mail_box",
        "phone",
        "statue",
        "television",
    }
    assert v.rooms == {"hallway"}
    assert v.lookup("the mailbox") == ("mail_box",)


def test_vocabulary_file(tmp_path):
    f = tmp_path / "names.txt"
    f.write_text("# my lab\nkitchen\n\nbench_drill   # the big one\nfume_hood\n", encoding="utf-8")
    v = load_vocabulary(f)
    assert v.names == ("bench_drill", "fume_hood", "kitchen")
    assert v.lookup("the fume hoods") == ("fume_hood",)
    assert v.name == "names"


def test_vocabulary_file_errors(tmp_path):
    with pytest.raises(DataFileError, match="no such vocabulary file"):
        Vocabulary.from_file(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("kitchen\nbook shelf\n", encoding="utf-8")
    with pytest.raises(DataFileError, match=r"line 2: 'book shelf' is not a name"):
        Vocabulary.from_file(bad)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="names nothing"):
        Vocabulary.from_file(empty)


def test_unknown_scene_lists_the_known_ones():
    with pytest.raises(DataFileError) as caught:
        scene_vocabulary("apartment_9")
    assert "known scenes: apartment_1, apartment_2, spot_demo" in str(caught.value)
    assert scene_vocabulary("apartment_1").names == APARTMENT_1.names


def test_bad_names():
    with pytest.raises(VocabularyError, match="names must be identifiers"):
        Vocabulary.from_names(["book shelf"])
    with pytest.raises(VocabularyError, match="has no names"):
        Vocabulary.from_names([])


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ('G!"holds(phone)"', r"unknown predicate 'holds'"),
        ('G!"is_grabed(phone)"', r"did you mean is_grabbed\?"),
        ('G!"is_open(fridge,kitchen)"', r"is_open takes 1 argument, got 2"),
        ('G!"is_on(book)"', r"is_on takes 2 arguments, got 1"),
        ('G!"is_open(fridg)"', r"'fridg' is not a name in apartment_1; closest: fridge"),
        ("G!door_open", r"'door_open' is not a grounded predicate"),
        ('G!"is_in(mug,mug)"', r"a thing cannot be is_in\(…\) itself"),
    ],
)
def test_check_names_the_problem(formula, message):
    with pytest.raises(VocabularyError, match=message):
        APARTMENT_1.check(parse(formula))


def test_arity_of_an_unknown_predicate():
    with pytest.raises(VocabularyError, match="unknown predicate 'flies'"):
        load_vocabulary("spot_demo").arity("flies")


def test_plurals_and_phrase_keys():
    assert [singular(w) for w in ("knives", "dishes", "boxes", "pants", "bus")] == [
        "knife",
        "dish",
        "box",
        "pants",
        "bus",
    ]
    assert phrase_key("The Living_Room") == ("living", "room")
