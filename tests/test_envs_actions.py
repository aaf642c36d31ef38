"""Actions (English and script lines, both ways) and propositions over a scene."""

from __future__ import annotations

import pytest

from safetychip.envs import (
    PREDICATES,
    VERBS,
    Action,
    load_scene,
    parse_action,
    parse_literal,
    parse_proposition,
)
from safetychip.errors import ActionError, PropositionError


@pytest.fixture(scope="module")
def scene():
    return load_scene("apartment_1")


def line(scene, verb, *names):
    return f"[{verb}]" + "".join(
        f" <{scene.node(scene.id(n))['class_name']}> ({scene.id(n)})" for n in names
    )


@pytest.mark.parametrize(
    ("english", "verb", "names"),
    [
        ("walk to kitchen", "WALK", ["kitchen"]),
        ("find phone", "FIND", ["phone"]),
        ("grab salmon", "GRAB", ["salmon"]),
        ("open fridge", "OPEN", ["fridge"]),
        ("close mail box", "CLOSE", ["mail_box"]),
        ("put book on book shelf", "PUTBACK", ["book", "book_shelf"]),
        ("put salmon in fridge", "PUTIN", ["salmon", "fridge"]),
        ("switch on television", "SWITCHON", ["television"]),
        ("switch off floor lamp", "SWITCHOFF", ["floor_lamp"]),
        ("touch statue", "TOUCH", ["statue"]),
        ("look at painting", "LOOKAT", ["painting"]),
        ("done", "DONE", []),
    ],
)
def test_english_and_script_lines_convert_both_ways(scene, english, verb, names):
    action = parse_action(english, scene)
    assert action.script == line(scene, verb, *names)
    assert str(action) == english
    assert [t.name for t in action.targets] == names
    assert parse_action(action.script, scene) == action
    assert parse_action(action, scene) is action


def test_every_verb_has_a_template():
    assert list(VERBS) == [
        "walk", "find", "grab", "open", "close", "put", "putin",
        "switchon", "switchoff", "touch", "lookat", "done",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Walk to the kitchen.", "walk to kitchen"),
        ("1. go to living room", "walk to living room"),
        ("- pick up the salmon", "grab salmon"),
        ("Turn on the TV", "switch on television"),
        ("turn off television", "switch off television"),
        ("place the book onto the bookshelf", "put book on book shelf"),
        ("put salmon into the refrigerator", "put salmon in fridge"),
        ("put the book on top of the book shelf", "put book on book shelf"),
        ("DONE", "done"),
        ("[walk] <kitchen> (4)", "walk to kitchen"),
    ],
)
def test_english_variants(scene, text, expected):
    assert str(parse_action(text, scene)) == expected


def test_instance_selection_needs_nearness_for_repeated_classes(scene):
    with pytest.raises(ActionError) as info:
        parse_action("walk to sink", scene)
    assert info.value.choices == ("bathroom_sink", "kitchen_sink")
    near_kitchen = {scene.id("kitchen_sink"): 0, scene.id("bathroom_sink"): 2}
    action = parse_action("walk to sink", scene, near=near_kitchen.get)
    assert action.targets[0].name == "kitchen_sink"
    assert action.script == f"[WALK] <sink> ({scene.id('kitchen_sink')})"
    assert str(action) == "walk to kitchen sink"
    assert parse_action("walk to kitchen sink", scene) == action


def test_unknown_object_lists_the_closest_names(scene):
    with pytest.raises(ActionError) as info:
        parse_action("grab the salmonn", scene)
    assert str(info.value) == (
        "cannot read 'grab the salmonn': no object or room called 'the salmonn' in scene "
        "'apartment_1'; closest names: salmon"
    )
    assert info.value.choices == ("salmon",)
    with pytest.raises(ActionError, match=r"put salmon in the qqq'.*; see Scene.objects"):
        parse_action("put salmon in the qqq", scene)


def test_unknown_verb_lists_the_valid_forms(scene):
    with pytest.raises(ActionError) as info:
        parse_action("wlak to kitchen", scene)
    message = str(info.value)
    assert message.startswith("unknown action 'wlak to kitchen'. Did you mean 'walk to'?")
    assert "put <object> in <object>" in message and "switch on <object>" in message
    assert info.value.choices == ("walk to",)
    with pytest.raises(ActionError, match=r"^unknown action 'fly away'\. Actions: walk to"):
        parse_action("fly away", scene)


def test_script_line_errors(scene):
    with pytest.raises(ActionError, match=r"scene 'apartment_1' has no object with id 999"):
        parse_action("[GRAB] <salmon> (999)", scene)
    with pytest.raises(ActionError, match=r"node 47 is 'fridge', not 'salmon'"):
        parse_action("[GRAB] <salmon> (47)", scene)
    with pytest.raises(ActionError, match=r"does not implement \[LOOKAT_SHORT\].*implements: WALK"):
        parse_action("[LOOKAT_SHORT] <sofa> (22)", scene)
    with pytest.raises(ActionError, match=r"unknown script action \[FLY\].*implements: WALK"):
        parse_action("[FLY] <sofa> (22)", scene)
    with pytest.raises(ActionError, match=r"\[PUTIN\] takes 2 object\(s\)"):
        parse_action("[PUTIN] <salmon> (48)", scene)
    with pytest.raises(ActionError, match=r"is not a script line"):
        parse_action("[GRAB] salmon", scene)
    with pytest.raises(ActionError, match=r"has no object with id 1"):
        parse_action("[WALK] <character> (1)", scene)


def test_action_is_a_value():
    assert Action("done") == Action("done", ())
    assert str(Action("done")) == "done" and Action("done").script == "[DONE]"


# -- propositions ---------------------------------------------------------------------------


def test_propositions_are_canonical_without_spaces(scene):
    prop = parse_proposition(" is_on( book ,  book_shelf ) ", scene)
    assert prop.name == str(prop) == "is_on(book,book_shelf)"
    assert prop.ids == ((scene.id("book"),), (scene.id("book_shelf"),))
    assert parse_literal("!is_open(fridge)", scene) == (
        parse_proposition("is_open(fridge)", scene),
        False,
    )
    assert parse_literal("agent_at(kitchen)", scene)[1] is True
    assert set(PREDICATES) == {
        "agent_at", "is_open", "is_switchedon", "is_grabbed", "is_touched", "is_on", "is_in",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("is_open fridge", r"'is_open fridge' is not a proposition of the form predicate"),
        ("is_opened(fridge)", r"unknown predicate 'is_opened'.*did you mean is_open or is_on\?"),
        ("is_on(book)", r"is_on takes 2 argument\(s\), 'is_on\(book\)' has 1"),
        ("agent_at()", r"agent_at takes 1 argument\(s\), 'agent_at\(\)' has 0"),
        ("is_grabbed(phon)", r"in 'is_grabbed\(phon\)': no object or room named 'phon'.*phone"),
        ("is_switchedon(tv)", r"no object or room named 'tv'.*closest names"),
        ("is_open(kitchen)", r"is_open needs an object, 'kitchen' is a room"),
    ],
)
def test_proposition_errors(scene, text, message):
    with pytest.raises(PropositionError, match=message):
        parse_proposition(text, scene)
