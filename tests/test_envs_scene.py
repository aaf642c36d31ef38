"""Scenes: our apartments, unique names, routes, and every error path of the loaders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _envs_data import load_script

from safetychip.envs import Scene, load_scene, load_virtualhome_graph
from safetychip.envs.virtualhome import SCENE_DIR
from safetychip.errors import ActionError, DataFileError


def tiny_graph(**extra) -> dict:
    """A two-room graph: character in the hall, a cup on a table in the kitchen."""
    graph = {
        "nodes": [
            {"id": 1, "class_name": "character", "category": "Characters", "properties": [],
             "states": []},
            {"id": 2, "class_name": "hall", "category": "Rooms", "properties": [], "states": []},
            {"id": 3, "class_name": "kitchen", "category": "Rooms", "properties": [],
             "states": []},
            {"id": 4, "class_name": "table", "category": "Furniture", "properties": ["SURFACES"],
             "states": []},
            {"id": 5, "class_name": "cup", "category": "Props", "properties": ["GRABBABLE"],
             "states": []},
        ],
        "edges": [
            {"from_id": 1, "relation_type": "INSIDE", "to_id": 2},
            {"from_id": 4, "relation_type": "INSIDE", "to_id": 3},
            {"from_id": 5, "relation_type": "INSIDE", "to_id": 3},
            {"from_id": 5, "relation_type": "ON", "to_id": 4},
        ],
    }  # fmt: skip
    graph.update(extra)
    return graph


def write(tmp_path: Path, data, name: str = "scene.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


# -- our scenes -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["apartment_1", "apartment_2"])
def test_scene_files_match_their_generator(name):
    make_scenes = load_script("make_scenes")
    assert (SCENE_DIR / f"{name}.json").read_text() == make_scenes.render(make_scenes.build(name))


@pytest.mark.parametrize("name", ["apartment_1", "apartment_2"])
def test_scene_has_five_rooms_and_about_a_hundred_objects(name):
    scene = load_scene(name)
    assert set(scene.rooms) == {"hallway", "kitchen", "bathroom", "bedroom", "living_room"}
    assert 90 <= len(scene.objects) <= 120
    for needed in [
        "fridge", "salmon", "microwave", "stove", "phone", "book", "book_shelf",
        "bedside_table", "television", "sofa", "computer", "coffee_machine", "toilet",
        "mail_box", "mail", "office_table", "statue",
    ]:  # fmt: skip
        assert needed in scene.objects, needed
    assert any(name.endswith("lamp") for name in scene.objects)
    assert any(name.endswith("sink") for name in scene.objects)


def test_scene_nodes_carry_virtualhome_properties_and_states():
    scene = load_scene("apartment_1")
    fridge = scene.node(scene.id("fridge"))
    assert fridge["category"] == "Appliances"
    assert {"CONTAINERS", "CAN_OPEN", "HAS_SWITCH"} <= set(fridge["properties"])
    assert {"CLOSED", "OFF"} <= set(fridge["states"])
    assert "GRABBABLE" in scene.node(scene.id("salmon"))["properties"]
    assert scene.name_of(scene.room_of(scene.id("salmon"))) == "kitchen"


def test_unique_names_qualify_repeated_classes_by_room_then_number():
    scene = load_scene("apartment_1")
    assert {"kitchen_sink", "bathroom_sink"} <= set(scene.objects)
    assert "sink" not in scene.objects
    assert {"kitchen_chair_1", "kitchen_chair_2"} <= set(scene.objects)
    first, second = scene.id("kitchen_chair_1"), scene.id("kitchen_chair_2")
    assert first < second


def test_generated_name_collisions_get_the_node_id():
    graph = tiny_graph()
    graph["nodes"] += [
        {"id": 6, "class_name": "cup", "category": "Props", "properties": [], "states": []},
        {"id": 7, "class_name": "kitchen_cup", "category": "Props", "properties": [],
         "states": []},
    ]  # fmt: skip
    graph["edges"] += [
        {"from_id": 6, "relation_type": "INSIDE", "to_id": 2},
        {"from_id": 7, "relation_type": "INSIDE", "to_id": 2},
    ]
    scene = Scene(graph)
    assert scene.name_of(5) == "kitchen_cup_5"
    assert scene.name_of(7) == "kitchen_cup_7"
    assert scene.name_of(6) == "hall_cup"


def test_route_follows_the_adjacency():
    one, two = load_scene("apartment_1"), load_scene("apartment_2")
    assert one.route("bedroom", "kitchen") == ["living_room", "kitchen"]
    assert one.route("kitchen", "kitchen") == []
    assert two.route("bedroom", "bathroom") == ["bathroom"]
    assert two.route("living_room", "bathroom") == ["kitchen", "hallway", "bathroom"]
    scene = Scene(tiny_graph(room_adjacency=[]))
    assert scene.route("hall", "kitchen") is None


def test_without_adjacency_every_room_is_adjacent():
    scene = Scene(tiny_graph())
    assert scene.adjacency == {"hall": ("kitchen",), "kitchen": ("hall",)}


def test_resolve_uses_synonyms_and_nearness():
    scene = load_scene("apartment_1")
    assert scene.name_of(scene.resolve("the TV")) == "television"
    assert scene.name_of(scene.resolve("bookshelf")) == "book_shelf"
    kitchen_sink = scene.id("kitchen_sink")
    assert scene.resolve("sink", near=lambda i: 0 if i == kitchen_sink else 1) == kitchen_sink
    with pytest.raises(ActionError, match="'sink' is ambiguous: say one of bathroom_sink, "):
        scene.resolve("sink")


def test_repr_and_html():
    scene = load_scene("apartment_2")
    assert repr(scene) == "<Scene 'apartment_2': 5 rooms, 98 objects>"
    html = scene._repr_html_()
    assert "<table>" in html and "salmon" in html and "<b>apartment_2</b>" in html


# -- error paths ----------------------------------------------------------------------------


def test_unknown_scene_name_lists_the_available_ones():
    with pytest.raises(DataFileError, match=r"no scene named 'apartment_9'; available: "
                       r"apartment_1, apartment_2"):  # fmt: skip
        load_scene("apartment_9")


def test_dangling_edge_names_the_file_and_the_id(tmp_path):
    graph = tiny_graph()
    graph["edges"].append({"from_id": 5, "relation_type": "CLOSE", "to_id": 99})
    path = write(tmp_path, graph)
    with pytest.raises(DataFileError) as info:
        load_scene(path)
    assert str(info.value) == (
        f"{path}: edge #4 (5 CLOSE 99) refers to node id 99, which is absent"
    )
    assert info.value.path == str(path)


def test_duplicate_node_id_names_the_file_and_the_id(tmp_path):
    graph = tiny_graph()
    graph["nodes"].append(dict(graph["nodes"][4], class_name="plate"))
    path = write(tmp_path, graph)
    with pytest.raises(DataFileError, match=rf"^{path}: duplicate node id 5$"):
        load_scene(path)


def test_unknown_relation_type_names_the_file_the_edge_and_the_choices(tmp_path):
    graph = tiny_graph()
    graph["edges"][3]["relation_type"] = "HOVERS"
    path = write(tmp_path, graph)
    with pytest.raises(DataFileError) as info:
        load_scene(path)
    message = str(info.value)
    assert message.startswith(f"{path}: edge #3 (5 HOVERS 4) has unknown relation_type 'HOVERS'")
    assert "valid: ON, INSIDE, BETWEEN, CLOSE, FACING, HOLDS_RH, HOLDS_LH" in message


def test_unknown_property_names_the_node(tmp_path):
    graph = tiny_graph()
    graph["nodes"][4]["properties"] = ["GRABBABLE", "EDIBLE"]
    path = write(tmp_path, graph)
    with pytest.raises(DataFileError, match=r"node 5 \(cup\) has unknown properties \['EDIBLE'\]"):
        load_scene(path)


def test_node_without_integer_id(tmp_path):
    graph = tiny_graph()
    graph["nodes"][4]["id"] = "5"
    with pytest.raises(DataFileError, match=r"node #4 has no integer 'id'"):
        load_scene(write(tmp_path, graph))


def test_missing_or_extra_character(tmp_path):
    graph = tiny_graph()
    del graph["nodes"][0]
    graph["edges"] = graph["edges"][1:]
    with pytest.raises(DataFileError, match=r"expected exactly one 'character' node, found 0"):
        load_scene(write(tmp_path, graph))


def test_object_outside_every_room_names_the_node(tmp_path):
    graph = tiny_graph()
    graph["edges"] = [e for e in graph["edges"] if e["from_id"] != 4]
    with pytest.raises(DataFileError, match=r"node 4 \(table\) is not INSIDE any room"):
        load_scene(write(tmp_path, graph))


def test_adjacency_naming_a_non_room(tmp_path):
    graph = tiny_graph(room_adjacency=[["hall", "garage"]])
    with pytest.raises(DataFileError, match=r"room_adjacency names 'garage', which is not a "
                       r"room; rooms: hall, kitchen"):  # fmt: skip
        load_scene(write(tmp_path, graph))


def test_not_json_and_not_a_graph(tmp_path):
    path = write(tmp_path, "{nodes: []")
    with pytest.raises(DataFileError, match=rf"^{path}: not valid JSON: "):
        load_scene(path)
    path = write(tmp_path, {"nodes": []}, "other.json")
    with pytest.raises(DataFileError, match="expected a JSON object with 'nodes' and 'edges'"):
        load_scene(path)


# -- VirtualHome's own graphs ---------------------------------------------------------------


def official_graph() -> dict:
    """A miniature of TrimmedTestScene*_graph.json: doorjambs BETWEEN rooms, no character."""
    rooms = [(11, "bathroom"), (73, "bedroom"), (205, "kitchen"), (335, "livingroom")]
    nodes = [
        {"id": i, "class_name": n, "category": "Rooms", "properties": [], "states": [],
         "prefab_name": n, "bounding_box": {"center": [0, 0, 0], "size": [1, 1, 1]}}
        for i, n in rooms
    ] + [
        {"id": 400, "class_name": "doorjamb", "category": "Doors", "properties": [],
         "states": []},
        {"id": 401, "class_name": "doorjamb", "category": "Doors", "properties": [],
         "states": []},
        {"id": 402, "class_name": "doorjamb", "category": "Doors", "properties": [],
         "states": []},
        {"id": 410, "class_name": "tv", "category": "Electronics",
         "properties": ["HAS_SWITCH", "LOOKABLE"], "states": ["OFF"]},
    ]  # fmt: skip
    edges = [
        {"from_id": 400, "relation_type": "BETWEEN", "to_id": 11},
        {"from_id": 400, "relation_type": "BETWEEN", "to_id": 73},
        {"from_id": 401, "relation_type": "BETWEEN", "to_id": 73},
        {"from_id": 401, "relation_type": "BETWEEN", "to_id": 335},
        {"from_id": 402, "relation_type": "BETWEEN", "to_id": 335},
        {"from_id": 402, "relation_type": "BETWEEN", "to_id": 205},
        {"from_id": 400, "relation_type": "INSIDE", "to_id": 11},
        {"from_id": 401, "relation_type": "INSIDE", "to_id": 73},
        {"from_id": 402, "relation_type": "INSIDE", "to_id": 335},
        {"from_id": 410, "relation_type": "INSIDE", "to_id": 335},
    ]
    return {"nodes": nodes, "edges": edges}


def test_official_graph_gets_doorway_adjacency_and_a_character(tmp_path):
    path = write(tmp_path, official_graph(), "TrimmedTestScene1_graph.json")
    scene = load_virtualhome_graph(path, start="kitchen")
    assert scene.name == "TrimmedTestScene1_graph"
    assert scene.rooms == ("bathroom", "bedroom", "kitchen", "livingroom")
    assert scene.route("bathroom", "kitchen") == ["bedroom", "livingroom", "kitchen"]
    assert scene.name_of(scene.room_of(scene.character)) == "kitchen"
    assert scene.name_of(scene.resolve("television")) == "tv"
    assert scene.name_of(scene.resolve("living room")) == "livingroom"
    assert {"bathroom_doorjamb", "bedroom_doorjamb", "livingroom_doorjamb"} <= set(scene.objects)


def test_official_graph_without_doors_has_every_room_adjacent(tmp_path):
    graph = official_graph()
    graph["edges"] = [e for e in graph["edges"] if e["relation_type"] != "BETWEEN"]
    scene = load_virtualhome_graph(write(tmp_path, graph))
    assert scene.adjacency["bathroom"] == ("bedroom", "kitchen", "livingroom")
    assert scene.name_of(scene.room_of(scene.character)) == "bathroom"


def test_official_graph_missing_file_and_bad_start(tmp_path):
    missing = tmp_path / "TrimmedTestScene7_graph.json"
    with pytest.raises(DataFileError, match=rf"^{missing}: no such file$"):
        load_virtualhome_graph(missing)
    path = write(tmp_path, official_graph())
    with pytest.raises(DataFileError, match=r"no room 'garage'; rooms: bathroom, bedroom, "):
        load_virtualhome_graph(path, start="garage")


def test_official_graph_malformed(tmp_path):
    with pytest.raises(DataFileError, match="expected a JSON object with 'nodes' and 'edges'"):
        load_virtualhome_graph(write(tmp_path, {"nodes": {}, "edges": []}))
    with pytest.raises(DataFileError, match="not valid JSON"):
        load_virtualhome_graph(write(tmp_path, "[1, 2", "bad.json"))
    graph = official_graph()
    for node in graph["nodes"]:
        node["category"] = "Furniture"
    with pytest.raises(DataFileError, match="the graph has no node of category 'Rooms'"):
        load_virtualhome_graph(write(tmp_path, graph, "flat.json"))
