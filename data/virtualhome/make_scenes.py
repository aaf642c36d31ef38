"""Write safetychip's two VirtualHome apartments as graph JSON.

Run ``python data/virtualhome/make_scenes.py`` from the repository root to rewrite
``data/virtualhome/scenes/*.json``; the output is deterministic, and a test checks that the
committed files match it.

A scene is declared room by room. Each placement is a short string::

    "salmon in fridge"        class, then "in" or "on" and the class it is placed in or on
    "light ON"                trailing upper-case words override the class's default states
    "plate in kitchen_cabinet"

A parent is the latest earlier placement of that class in the same room. Every object is
INSIDE its room; a placed object is also ON/INSIDE its parent and CLOSE to it both ways.
``close`` and ``facing`` add CLOSE (both ways) and FACING edges between furniture.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["CATALOGUE", "SCENES", "build", "render", "main"]

OUT = Path(__file__).resolve().parent / "scenes"

# class name -> (category, properties, default states), following VirtualHome's conventions.
CATALOGUE: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "character": ("Characters", (), ()),
    # rooms
    "hallway": ("Rooms", (), ()),
    "living_room": ("Rooms", (), ()),
    "kitchen": ("Rooms", (), ()),
    "bedroom": ("Rooms", (), ()),
    "bathroom": ("Rooms", (), ()),
    # furniture
    "armchair": ("Furniture", ("SITTABLE", "SURFACES", "MOVABLE"), ()),
    "bathroom_cabinet": ("Furniture", ("CONTAINERS", "CAN_OPEN", "SURFACES"), ("CLOSED",)),
    "bathroom_counter": ("Furniture", ("SURFACES",), ()),
    "bathtub": ("Furniture", ("CONTAINERS", "LIEABLE", "SITTABLE"), ()),
    "bed": ("Furniture", ("LIEABLE", "SITTABLE", "SURFACES"), ()),
    "bedside_table": ("Furniture", ("SURFACES", "CONTAINERS", "CAN_OPEN"), ("CLOSED",)),
    "bench": ("Furniture", ("SITTABLE", "SURFACES", "MOVABLE"), ()),
    "book_shelf": ("Furniture", ("SURFACES", "CONTAINERS"), ()),
    "chair": ("Furniture", ("SITTABLE", "SURFACES", "MOVABLE"), ()),
    "coat_rack": ("Furniture", ("SURFACES",), ()),
    "coffee_table": ("Furniture", ("SURFACES", "MOVABLE"), ()),
    "console_table": ("Furniture", ("SURFACES", "MOVABLE"), ()),
    "dining_table": ("Furniture", ("SURFACES", "MOVABLE"), ()),
    "dresser": ("Furniture", ("SURFACES", "CONTAINERS", "CAN_OPEN"), ("CLOSED",)),
    "faucet": ("Furniture", ("HAS_SWITCH",), ("OFF",)),
    "garbage_can": ("Furniture", ("CONTAINERS", "CAN_OPEN", "MOVABLE"), ("CLOSED",)),
    "kitchen_cabinet": ("Furniture", ("CONTAINERS", "CAN_OPEN", "SURFACES"), ("CLOSED",)),
    "kitchen_counter": ("Furniture", ("SURFACES",), ()),
    "kitchen_table": ("Furniture", ("SURFACES", "MOVABLE"), ()),
    "laundry_basket": ("Furniture", ("CONTAINERS", "GRABBABLE", "MOVABLE"), ()),
    "mail_box": ("Furniture", ("CONTAINERS", "CAN_OPEN"), ("CLOSED",)),
    "office_chair": ("Furniture", ("SITTABLE", "MOVABLE"), ()),
    "office_table": ("Furniture", ("SURFACES", "MOVABLE"), ()),
    "shoe_rack": ("Furniture", ("SURFACES", "CONTAINERS"), ()),
    "shower": ("Furniture", ("HAS_SWITCH",), ("OFF",)),
    "sink": ("Furniture", ("CONTAINERS", "RECIPIENT"), ()),
    "sofa": ("Furniture", ("SITTABLE", "LIEABLE", "SURFACES", "MOVABLE"), ()),
    "toilet": ("Furniture", ("SITTABLE", "CONTAINERS", "CAN_OPEN"), ("CLOSED",)),
    "towel_rack": ("Furniture", ("SURFACES",), ()),
    "tv_stand": ("Furniture", ("SURFACES", "CONTAINERS"), ()),
    "wardrobe": ("Furniture", ("CONTAINERS", "CAN_OPEN"), ("CLOSED",)),
    # appliances and electronics
    "alarm_clock": ("Electronics", ("GRABBABLE", "HAS_SWITCH", "LOOKABLE", "MOVABLE"), ("ON",)),
    "coffee_machine": (
        "Appliances",
        ("HAS_SWITCH", "CONTAINERS", "RECIPIENT", "HAS_PLUG"),
        ("OFF", "PLUGGED_IN"),
    ),
    "computer": ("Electronics", ("HAS_SWITCH", "LOOKABLE", "HAS_PLUG"), ("OFF", "PLUGGED_IN")),
    "dishwasher": (
        "Appliances",
        ("CONTAINERS", "CAN_OPEN", "HAS_SWITCH", "HAS_PLUG"),
        ("CLOSED", "OFF", "PLUGGED_IN"),
    ),
    "fridge": (
        "Appliances",
        ("CONTAINERS", "CAN_OPEN", "HAS_SWITCH", "HAS_PLUG"),
        ("CLOSED", "OFF", "PLUGGED_IN"),
    ),
    "hair_dryer": (
        "Electronics",
        ("GRABBABLE", "HAS_SWITCH", "HAS_PLUG", "MOVABLE"),
        ("OFF", "PLUGGED_OUT"),
    ),
    "keyboard": ("Electronics", ("GRABBABLE", "HAS_PLUG", "MOVABLE"), ("PLUGGED_IN",)),
    "kettle": (
        "Appliances",
        ("GRABBABLE", "HAS_SWITCH", "CONTAINERS", "RECIPIENT", "HAS_PLUG", "MOVABLE"),
        ("OFF", "PLUGGED_IN"),
    ),
    "laptop": (
        "Electronics",
        ("GRABBABLE", "HAS_SWITCH", "LOOKABLE", "CAN_OPEN", "HAS_PLUG", "MOVABLE"),
        ("CLOSED", "OFF", "PLUGGED_OUT"),
    ),
    "microwave": (
        "Appliances",
        ("CONTAINERS", "CAN_OPEN", "HAS_SWITCH", "HAS_PLUG"),
        ("CLOSED", "OFF", "PLUGGED_IN"),
    ),
    "mouse": ("Electronics", ("GRABBABLE", "HAS_PLUG", "MOVABLE"), ("PLUGGED_IN",)),
    "phone": (
        "Electronics",
        ("GRABBABLE", "HAS_SWITCH", "HAS_PLUG", "LOOKABLE", "MOVABLE"),
        ("OFF", "PLUGGED_OUT"),
    ),
    "radio": (
        "Electronics",
        ("GRABBABLE", "HAS_SWITCH", "HAS_PLUG", "MOVABLE"),
        ("OFF", "PLUGGED_IN"),
    ),
    "remote_control": ("Electronics", ("GRABBABLE", "HAS_SWITCH", "MOVABLE"), ("OFF",)),
    "stove": (
        "Appliances",
        ("CONTAINERS", "CAN_OPEN", "HAS_SWITCH", "SURFACES", "HAS_PLUG"),
        ("CLOSED", "OFF", "PLUGGED_IN"),
    ),
    "television": ("Electronics", ("HAS_SWITCH", "LOOKABLE", "HAS_PLUG"), ("OFF", "PLUGGED_IN")),
    "toaster": (
        "Appliances",
        ("HAS_SWITCH", "CONTAINERS", "HAS_PLUG"),
        ("OFF", "PLUGGED_IN"),
    ),
    "washing_machine": (
        "Appliances",
        ("CONTAINERS", "CAN_OPEN", "HAS_SWITCH", "HAS_PLUG"),
        ("CLOSED", "OFF", "PLUGGED_IN"),
    ),
    # lamps, doors, windows, decor
    "floor_lamp": ("Lamps", ("HAS_SWITCH", "HAS_PLUG", "MOVABLE"), ("OFF", "PLUGGED_IN")),
    "lamp": ("Lamps", ("HAS_SWITCH", "HAS_PLUG", "MOVABLE"), ("OFF", "PLUGGED_IN")),
    "light": ("Lamps", ("HAS_SWITCH",), ("OFF",)),
    "front_door": ("Doors", ("CAN_OPEN",), ("CLOSED",)),
    "window": ("Windows", ("CAN_OPEN",), ("CLOSED",)),
    "curtains": ("Decor", ("CAN_OPEN", "MOVABLE"), ("OPEN",)),
    "mirror": ("Decor", ("LOOKABLE",), ()),
    "painting": ("Decor", ("LOOKABLE",), ()),
    "plant": ("Decor", ("MOVABLE",), ()),
    "rug": ("Decor", ("SURFACES", "MOVABLE"), ()),
    "statue": ("Decor", ("LOOKABLE", "MOVABLE"), ()),
    "vase": ("Decor", ("GRABBABLE", "CONTAINERS", "MOVABLE"), ()),
    "candle": ("Decor", ("GRABBABLE", "MOVABLE"), ()),
    # props
    "blanket": ("Props", ("GRABBABLE", "COVER_OBJECT", "MOVABLE"), ()),
    "book": ("Props", ("GRABBABLE", "READABLE", "CAN_OPEN", "HAS_PAPER", "MOVABLE"), ("CLOSED",)),
    "coat": ("Props", ("GRABBABLE", "CLOTHES", "HANGABLE", "MOVABLE"), ()),
    "cup": ("Props", ("GRABBABLE", "RECIPIENT", "POURABLE", "MOVABLE"), ()),
    "cutting_board": ("Props", ("GRABBABLE", "SURFACES", "MOVABLE"), ()),
    "dish_soap": ("Props", ("GRABBABLE", "POURABLE", "MOVABLE"), ()),
    "frying_pan": ("Props", ("GRABBABLE", "SURFACES", "RECIPIENT", "MOVABLE"), ()),
    "glasses": ("Props", ("GRABBABLE", "CLOTHES", "MOVABLE"), ()),
    "hairbrush": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "keys": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "knife": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "magazine": ("Props", ("GRABBABLE", "READABLE", "HAS_PAPER", "MOVABLE"), ()),
    "mail": ("Props", ("GRABBABLE", "READABLE", "HAS_PAPER", "MOVABLE"), ()),
    "mug": ("Props", ("GRABBABLE", "RECIPIENT", "POURABLE", "MOVABLE"), ()),
    "pants": ("Props", ("GRABBABLE", "CLOTHES", "HANGABLE", "MOVABLE"), ()),
    "perfume": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "pills": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "pillow": ("Props", ("GRABBABLE", "LIEABLE", "MOVABLE"), ()),
    "plate": ("Props", ("GRABBABLE", "RECIPIENT", "SURFACES", "MOVABLE"), ()),
    "pot": ("Props", ("GRABBABLE", "CONTAINERS", "RECIPIENT", "MOVABLE"), ()),
    "shirt": ("Props", ("GRABBABLE", "CLOTHES", "HANGABLE", "MOVABLE"), ()),
    "shoes": ("Props", ("GRABBABLE", "CLOTHES", "MOVABLE"), ()),
    "slippers": ("Props", ("GRABBABLE", "CLOTHES", "MOVABLE"), ()),
    "soap": ("Props", ("GRABBABLE", "CREAM", "MOVABLE"), ()),
    "toilet_paper": ("Props", ("GRABBABLE", "COVER_OBJECT", "HAS_PAPER", "MOVABLE"), ()),
    "toothbrush": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "toothpaste": ("Props", ("GRABBABLE", "CREAM", "MOVABLE"), ()),
    "towel": ("Props", ("GRABBABLE", "COVER_OBJECT", "MOVABLE"), ()),
    "umbrella": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "wallet": ("Props", ("GRABBABLE", "CONTAINERS", "MOVABLE"), ()),
    # food
    "apple": ("Food", ("GRABBABLE", "EATABLE", "CUTTABLE", "MOVABLE"), ()),
    "bananas": ("Food", ("GRABBABLE", "EATABLE", "CUTTABLE", "MOVABLE"), ()),
    "bread": ("Food", ("GRABBABLE", "EATABLE", "CUTTABLE", "MOVABLE"), ()),
    "cheese": ("Food", ("GRABBABLE", "EATABLE", "CUTTABLE", "MOVABLE"), ()),
    "eggs": ("Food", ("GRABBABLE", "EATABLE", "MOVABLE"), ()),
    "juice": ("Food", ("GRABBABLE", "DRINKABLE", "POURABLE", "MOVABLE"), ()),
    "milk": ("Food", ("GRABBABLE", "DRINKABLE", "POURABLE", "MOVABLE"), ()),
    "salmon": ("Food", ("GRABBABLE", "EATABLE", "CUTTABLE", "MOVABLE"), ()),
}

# States that exclude each other: an override replaces the default of the same family.
_FAMILIES = ({"OPEN", "CLOSED"}, {"ON", "OFF"}, {"PLUGGED_IN", "PLUGGED_OUT"})

SCENES: dict[str, dict] = {
    "apartment_1": {
        "description": (
            "A one-bedroom apartment. The hallway opens onto the living room and the "
            "bathroom; the kitchen and the bedroom are reached through the living room."
        ),
        "first_id": 1,
        "start": "hallway",
        "adjacency": [
            ("hallway", "living_room"),
            ("hallway", "bathroom"),
            ("living_room", "kitchen"),
            ("living_room", "bedroom"),
        ],
        "rooms": {
            "hallway": [
                "light ON",
                "front_door",
                "mail_box",
                "mail in mail_box",
                "console_table",
                "keys on console_table",
                "wallet on console_table",
                "coat_rack",
                "coat on coat_rack",
                "shoe_rack",
                "shoes on shoe_rack",
                "umbrella",
                "mirror",
                "rug",
            ],
            "living_room": [
                "light",
                "sofa",
                "pillow on sofa",
                "pillow on sofa",
                "armchair",
                "coffee_table",
                "remote_control on coffee_table",
                "book on coffee_table",
                "magazine on coffee_table",
                "tv_stand",
                "television on tv_stand",
                "book_shelf",
                "vase on book_shelf",
                "floor_lamp",
                "office_table",
                "computer on office_table",
                "keyboard on office_table",
                "mouse on office_table",
                "phone on office_table",
                "office_chair",
                "statue",
                "plant",
                "painting",
                "window",
                "curtains",
            ],
            "kitchen": [
                "light",
                "fridge",
                "salmon in fridge",
                "milk in fridge",
                "eggs in fridge",
                "juice in fridge",
                "kitchen_counter",
                "microwave on kitchen_counter",
                "coffee_machine on kitchen_counter",
                "mug on kitchen_counter",
                "bread on kitchen_counter",
                "knife on kitchen_counter",
                "cutting_board on kitchen_counter",
                "toaster on kitchen_counter",
                "dish_soap on kitchen_counter",
                "stove",
                "frying_pan on stove",
                "sink",
                "faucet",
                "kitchen_cabinet",
                "plate in kitchen_cabinet",
                "plate in kitchen_cabinet",
                "cup in kitchen_cabinet",
                "cup in kitchen_cabinet",
                "kitchen_table",
                "apple on kitchen_table",
                "bananas on kitchen_table",
                "chair",
                "chair",
                "dishwasher",
                "garbage_can",
            ],
            "bedroom": [
                "light",
                "bed",
                "pillow on bed",
                "pillow on bed",
                "blanket on bed",
                "bedside_table",
                "lamp on bedside_table",
                "alarm_clock on bedside_table",
                "glasses on bedside_table",
                "wardrobe",
                "shirt in wardrobe",
                "pants in wardrobe",
                "dresser",
                "hairbrush on dresser",
                "perfume on dresser",
                "slippers",
                "laundry_basket",
                "window",
                "curtains CLOSED",
            ],
            "bathroom": [
                "light",
                "toilet",
                "toilet_paper on toilet",
                "bathroom_counter",
                "sink on bathroom_counter",
                "faucet",
                "soap on sink",
                "toothbrush on bathroom_counter",
                "toothpaste on bathroom_counter",
                "bathroom_cabinet",
                "pills in bathroom_cabinet",
                "bathtub",
                "towel_rack",
                "towel on towel_rack",
                "towel on towel_rack",
                "washing_machine",
                "hair_dryer on bathroom_counter",
                "mirror",
                "rug",
            ],
        },
        "close": [
            ("kitchen", "stove", "kitchen_counter"),
            ("kitchen", "sink", "kitchen_counter"),
            ("kitchen", "faucet", "sink"),
            ("kitchen", "dishwasher", "sink"),
            ("living_room", "office_chair", "office_table"),
            ("living_room", "floor_lamp", "sofa"),
            ("bathroom", "faucet", "sink"),
        ],
        "facing": [
            ("living_room", "sofa", "television"),
            ("living_room", "office_chair", "computer"),
        ],
    },
    "apartment_2": {
        "description": (
            "A flat along a corridor: the hallway leads to the kitchen, the bedroom and the "
            "bathroom; the bathroom also opens onto the bedroom, and the living room is "
            "reached through the kitchen."
        ),
        "first_id": 101,
        "start": "hallway",
        "adjacency": [
            ("hallway", "kitchen"),
            ("hallway", "bedroom"),
            ("hallway", "bathroom"),
            ("kitchen", "living_room"),
            ("bedroom", "bathroom"),
        ],
        "rooms": {
            "hallway": [
                "light ON",
                "front_door",
                "mail_box",
                "mail in mail_box",
                "bench",
                "shoes on bench",
                "coat_rack",
                "coat on coat_rack",
                "umbrella",
                "statue",
                "mirror",
                "plant",
            ],
            "kitchen": [
                "light",
                "fridge",
                "salmon in fridge",
                "cheese in fridge",
                "milk in fridge",
                "kitchen_counter",
                "coffee_machine on kitchen_counter",
                "kettle on kitchen_counter",
                "microwave on kitchen_counter",
                "cutting_board on kitchen_counter",
                "knife on cutting_board",
                "bread on kitchen_counter",
                "stove",
                "pot on stove",
                "frying_pan on kitchen_counter",
                "sink",
                "faucet",
                "dish_soap on sink",
                "kitchen_cabinet",
                "plate in kitchen_cabinet",
                "plate in kitchen_cabinet",
                "mug in kitchen_cabinet",
                "mug in kitchen_cabinet",
                "radio on kitchen_counter",
                "garbage_can",
                "window",
            ],
            "living_room": [
                "light",
                "sofa",
                "pillow on sofa",
                "coffee_table",
                "remote_control on coffee_table",
                "magazine on coffee_table",
                "candle on coffee_table",
                "tv_stand",
                "television on tv_stand",
                "book_shelf",
                "vase on book_shelf",
                "lamp",
                "dining_table",
                "apple on dining_table",
                "bananas on dining_table",
                "chair",
                "chair",
                "chair",
                "armchair",
                "painting",
                "rug",
                "window",
                "curtains",
            ],
            "bedroom": [
                "light",
                "bed",
                "pillow on bed",
                "blanket on bed",
                "bedside_table",
                "phone on bedside_table",
                "lamp on bedside_table",
                "alarm_clock on bedside_table",
                "book on bedside_table",
                "office_table",
                "computer on office_table",
                "keyboard on office_table",
                "mouse on office_table",
                "laptop on office_table",
                "office_chair",
                "wardrobe",
                "shirt in wardrobe",
                "pants in wardrobe",
                "slippers",
                "laundry_basket",
                "window",
            ],
            "bathroom": [
                "light",
                "toilet",
                "toilet_paper on toilet",
                "sink",
                "faucet",
                "soap on sink",
                "toothbrush on sink",
                "toothpaste on sink",
                "bathroom_cabinet",
                "pills in bathroom_cabinet",
                "hair_dryer in bathroom_cabinet",
                "shower",
                "towel_rack",
                "towel on towel_rack",
                "washing_machine",
                "mirror",
            ],
        },
        "close": [
            ("kitchen", "stove", "kitchen_counter"),
            ("kitchen", "sink", "kitchen_counter"),
            ("kitchen", "faucet", "sink"),
            ("living_room", "chair", "dining_table"),
            ("bedroom", "office_chair", "office_table"),
            ("bathroom", "faucet", "sink"),
        ],
        "facing": [
            ("living_room", "sofa", "television"),
            ("bedroom", "office_chair", "computer"),
        ],
    },
}


def _states(class_name: str, overrides: list[str]) -> list[str]:
    states = set(CATALOGUE[class_name][2])
    for state in overrides:
        for family in _FAMILIES:
            if state in family:
                states -= family
        states.add(state)
    return sorted(states)


def build(name: str) -> dict:
    """Return scene *name* as a VirtualHome graph dict with its room adjacency."""
    spec = SCENES[name]
    nodes: list[dict] = []
    edges: list[dict] = []
    next_id = spec["first_id"]

    def add_node(class_name: str, overrides: list[str]) -> int:
        nonlocal next_id
        category, properties, _ = CATALOGUE[class_name]
        node = {
            "id": next_id,
            "class_name": class_name,
            "category": category,
            "properties": list(properties),
            "states": _states(class_name, overrides),
        }
        nodes.append(node)
        next_id += 1
        return node["id"]

    def edge(from_id: int, relation: str, to_id: int) -> None:
        edges.append({"from_id": from_id, "relation_type": relation, "to_id": to_id})

    character = add_node("character", [])
    rooms = {room: add_node(room, []) for room in spec["rooms"]}
    edge(character, "INSIDE", rooms[spec["start"]])
    latest: dict[tuple[str, str], int] = {}  # (room, class) -> id of its latest placement
    for room, placements in spec["rooms"].items():
        for placement in placements:
            words = placement.split()
            overrides = [w for w in words if w.isupper()]
            words = [w for w in words if not w.isupper()]
            node_id = add_node(words[0], overrides)
            edge(node_id, "INSIDE", rooms[room])
            if len(words) == 3:
                parent = latest[room, words[2]]
                edge(node_id, {"in": "INSIDE", "on": "ON"}[words[1]], parent)
                edge(node_id, "CLOSE", parent)
                edge(parent, "CLOSE", node_id)
            latest[room, words[0]] = node_id
    for room, a, b in spec["close"]:
        edge(latest[room, a], "CLOSE", latest[room, b])
        edge(latest[room, b], "CLOSE", latest[room, a])
    for room, a, b in spec["facing"]:
        edge(latest[room, a], "FACING", latest[room, b])
    return {
        "name": name,
        "description": spec["description"],
        "room_adjacency": [list(pair) for pair in spec["adjacency"]],
        "nodes": nodes,
        "edges": edges,
    }


def render(scene: dict) -> str:
    """Serialise *scene* with one node or edge per line, for readable diffs."""

    def block(items: list[dict]) -> str:
        return "[\n" + ",\n".join("    " + json.dumps(item) for item in items) + "\n  ]"

    head = {k: v for k, v in scene.items() if k not in ("nodes", "edges")}
    lines = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in head.items()]
    lines += [f'  "nodes": {block(scene["nodes"])}', f'  "edges": {block(scene["edges"])}']
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main() -> int:
    """Write every scene of :data:`SCENES` under ``scenes/``."""
    OUT.mkdir(parents=True, exist_ok=True)
    for name in SCENES:
        scene = build(name)
        (OUT / f"{name}.json").write_text(render(scene))
        objects = sum(n["category"] not in ("Rooms", "Characters") for n in scene["nodes"])
        print(f"{name}: {objects} objects, {len(scene['edges'])} edges")
    return 0


if __name__ == "__main__":
    sys.exit(main())
