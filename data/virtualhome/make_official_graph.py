"""Write a 300-plus-object house in VirtualHome's official TrimmedTestScene graph format.

Run ``python data/virtualhome/make_official_graph.py`` from the repository root to rewrite
``data/virtualhome/graphs/TrimmedTestHouse_graph.json``; the output is deterministic, and a
test checks that the committed file matches it.

The file is ours (no dataset file is copied). It has the official graphs' shape: four rooms
(bathroom, bedroom, kitchen, living_room), nodes with ``id``, ``class_name``, ``category``,
``prefab_name``, ``obj_transform``, ``bounding_box``, ``properties`` and ``states``; edges
``INSIDE`` (every object to its room, contents to their containers), ``ON``, ``CLOSE`` (both
ways), ``FACING`` (seats to what they face) and ``BETWEEN`` (doors and doorjambs to the
rooms they join); the script class names the dataset's programs use (``couch``, ``tv``,
``computer``, ``kitchen_counter``, ``dishwasher``, …); walls, floors and ceilings in tiles
as in the official scenes; the character (id 1) stands in the living room.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["CATALOGUE", "HOUSE", "build", "main", "render"]

OUT = Path(__file__).resolve().parent / "graphs" / "TrimmedTestHouse_graph.json"

# class name -> (category, properties, default states)
CATALOGUE: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "character": ("Characters", (), ()),
    # structure
    "bathroom": ("Rooms", (), ()), "bedroom": ("Rooms", (), ()),
    "kitchen": ("Rooms", (), ()), "living_room": ("Rooms", (), ()),
    "floor": ("Floors", ("SURFACES",), ()), "wall": ("Walls", (), ()),
    "ceiling": ("Ceiling", (), ()),
    "door": ("Doors", ("CAN_OPEN",), ("OPEN",)), "doorjamb": ("Doors", (), ()),
    "window": ("Windows", (), ("CLOSED",)),
    "ceilinglamp": ("Lamps", (), ("ON",)), "wall_lamp": ("Lamps", (), ("ON",)),
    "tablelamp": ("Lamps", ("HAS_SWITCH", "HAS_PLUG"), ("ON", "PLUGGED_IN")),
    "lightswitch": ("Electronics", ("HAS_SWITCH",), ("ON",)),
    "powersocket": ("Electronics", (), ()),
    "curtains": ("Decor", ("CAN_OPEN",), ("OPEN",)),
    "wallpictureframe": ("Decor", ("LOOKABLE",), ()),
    "photoframe": ("Decor", ("GRABBABLE", "LOOKABLE", "MOVABLE"), ()),
    "rug": ("Decor", ("SURFACES",), ()), "plant": ("Decor", ("GRABBABLE", "MOVABLE"), ()),
    "vase": ("Decor", ("GRABBABLE", "RECIPIENT", "MOVABLE"), ()),
    "clock": ("Decor", ("LOOKABLE",), ()),
    # furniture
    "couch": ("Furniture", ("SITTABLE", "LIEABLE", "SURFACES", "MOVABLE"), ()),
    "chair": ("Furniture", ("SITTABLE", "GRABBABLE", "MOVABLE"), ()),
    "bed": ("Furniture", ("SITTABLE", "LIEABLE", "SURFACES"), ()),
    "desk": ("Furniture", ("SURFACES", "MOVABLE"), ()),
    "coffee_table": ("Furniture", ("SURFACES", "MOVABLE"), ()),
    "kitchen_table": ("Furniture", ("SURFACES", "MOVABLE"), ()),
    "kitchen_counter": ("Furniture", ("SURFACES",), ()),
    "kitchen_cabinets": ("Furniture", ("CAN_OPEN", "CONTAINERS"), ("CLOSED",)),
    "bookshelf": ("Furniture", ("SURFACES", "CONTAINERS"), ()),
    "tvstand": ("Furniture", ("SURFACES",), ()),
    "nightstand": ("Furniture", ("SURFACES", "CAN_OPEN", "CONTAINERS"), ("CLOSED",)),
    "closet": ("Furniture", ("CAN_OPEN", "CONTAINERS"), ("CLOSED",)),
    "bathroom_counter": ("Furniture", ("SURFACES",), ()),
    "bathroom_cabinet": ("Furniture", ("CAN_OPEN", "CONTAINERS"), ("CLOSED",)),
    "towel_rack": ("Furniture", ("SURFACES",), ()),
    "toilet": ("Furniture", ("SITTABLE", "CAN_OPEN", "CONTAINERS"), ("CLOSED",)),
    "bathtub": ("Furniture", ("SITTABLE", "LIEABLE", "CONTAINERS", "RECIPIENT"), ()),
    "sink": ("Furniture", ("CONTAINERS", "RECIPIENT"), ()),
    # appliances and electronics
    "tv": ("Electronics", ("HAS_SWITCH", "LOOKABLE", "HAS_PLUG"), ("OFF", "PLUGGED_IN")),
    "computer": ("Electronics", ("HAS_SWITCH", "LOOKABLE"), ("OFF",)),
    "cpuscreen": ("Electronics", ("LOOKABLE",), ()),
    "keyboard": ("Electronics", ("GRABBABLE", "HAS_PLUG", "MOVABLE"), ("PLUGGED_IN",)),
    "mouse": ("Electronics", ("GRABBABLE", "HAS_PLUG", "MOVABLE"), ("PLUGGED_IN",)),
    "laptop": ("Electronics", ("GRABBABLE", "HAS_SWITCH", "HAS_PLUG", "LOOKABLE", "MOVABLE"),
               ("OFF", "PLUGGED_OUT")),
    "remote_control": ("Electronics", ("GRABBABLE", "HAS_SWITCH", "MOVABLE"), ("OFF",)),
    "cellphone": ("Electronics", ("GRABBABLE", "HAS_SWITCH", "HAS_PLUG", "LOOKABLE", "MOVABLE"),
                  ("OFF", "PLUGGED_OUT")),
    "fridge": ("Appliances", ("CAN_OPEN", "CONTAINERS", "HAS_SWITCH", "HAS_PLUG"),
               ("CLOSED", "ON", "PLUGGED_IN")),
    "stove": ("Appliances", ("CAN_OPEN", "CONTAINERS", "HAS_SWITCH", "SURFACES"),
              ("CLOSED", "OFF")),
    "microwave": ("Appliances", ("CAN_OPEN", "CONTAINERS", "HAS_SWITCH", "HAS_PLUG"),
                  ("CLOSED", "OFF", "PLUGGED_IN")),
    "coffeemaker": ("Appliances", ("HAS_SWITCH", "RECIPIENT", "HAS_PLUG"),
                    ("OFF", "PLUGGED_IN")),
    "toaster": ("Appliances", ("HAS_SWITCH", "HAS_PLUG", "CONTAINERS"), ("OFF", "PLUGGED_IN")),
    "dishwasher": ("Appliances", ("CAN_OPEN", "CONTAINERS", "HAS_SWITCH"), ("CLOSED", "OFF")),
    "washing_machine": ("Appliances", ("CAN_OPEN", "CONTAINERS", "HAS_SWITCH", "HAS_PLUG"),
                        ("CLOSED", "OFF", "PLUGGED_IN")),
    "faucet": ("Appliances", ("HAS_SWITCH",), ("OFF",)),
    # things
    "book": ("Props", ("GRABBABLE", "READABLE", "CAN_OPEN", "HAS_PAPER", "MOVABLE"),
             ("CLOSED",)),
    "magazine": ("Props", ("GRABBABLE", "READABLE", "HAS_PAPER", "MOVABLE"), ()),
    "pillow": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "cup": ("Props", ("GRABBABLE", "RECIPIENT", "POURABLE", "MOVABLE"), ()),
    "mug": ("Props", ("GRABBABLE", "RECIPIENT", "POURABLE", "MOVABLE"), ()),
    "waterglass": ("Props", ("GRABBABLE", "RECIPIENT", "POURABLE", "MOVABLE"), ()),
    "plate": ("Props", ("GRABBABLE", "RECIPIENT", "SURFACES", "MOVABLE"), ()),
    "bowl": ("Props", ("GRABBABLE", "RECIPIENT", "MOVABLE"), ()),
    "knife": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "fork": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "cutting_board": ("Props", ("GRABBABLE", "SURFACES", "MOVABLE"), ()),
    "cooking_pot": ("Props", ("GRABBABLE", "CONTAINERS", "RECIPIENT", "MOVABLE"), ()),
    "milk": ("Food", ("GRABBABLE", "POURABLE", "DRINKABLE", "MOVABLE"), ()),
    "juice": ("Food", ("GRABBABLE", "POURABLE", "DRINKABLE", "MOVABLE"), ()),
    "apple": ("Food", ("GRABBABLE", "EATABLE", "CUTTABLE", "MOVABLE"), ()),
    "bread": ("Food", ("GRABBABLE", "EATABLE", "CUTTABLE", "MOVABLE"), ()),
    "clothes_shirt": ("Clothes", ("GRABBABLE", "CLOTHES", "HANGABLE", "MOVABLE"), ()),
    "clothes_pants": ("Clothes", ("GRABBABLE", "CLOTHES", "HANGABLE", "MOVABLE"), ()),
    "towel": ("Props", ("GRABBABLE", "CLOTHES", "COVER_OBJECT", "HANGABLE", "MOVABLE"), ()),
    "soap": ("Props", ("GRABBABLE", "CREAM", "MOVABLE"), ()),
    "toothbrush": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "sponge": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "rag": ("Props", ("GRABBABLE", "COVER_OBJECT", "MOVABLE"), ()),
    "dish_soap": ("Props", ("GRABBABLE", "POURABLE", "MOVABLE"), ()),
    "alarm_clock": ("Electronics", ("GRABBABLE", "HAS_SWITCH", "LOOKABLE"), ("OFF",)),
    "hanger": ("Props", ("GRABBABLE", "HANGABLE", "MOVABLE"), ()),
    "toy": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "pencil": ("Props", ("GRABBABLE", "MOVABLE"), ()),
    "paper": ("Props", ("GRABBABLE", "READABLE", "HAS_PAPER", "MOVABLE"), ()),
}  # fmt: skip

# Each room: (structure tiles), then placements "class", "class on parent", "class in parent"
# with an optional "xN" count; a parent is the latest earlier placement of that class.
TILES = {"floor": 8, "wall": 10, "ceiling": 8, "ceilinglamp": 2, "wall_lamp": 2,
         "window": 1, "wallpictureframe": 2, "powersocket": 2, "lightswitch": 1}  # fmt: skip
HOUSE: dict[str, list[str]] = {
    "bathroom": [
        "rug",
        "toilet",
        "bathtub",
        "bathroom_counter",
        "sink",
        "faucet on bathroom_counter",
        "bathroom_cabinet",
        "towel_rack",
        "towel on towel_rack x3",
        "soap on bathroom_counter",
        "toothbrush on bathroom_counter x2",
        "sponge in bathtub",
        "washing_machine",
        "clothes_pants in washing_machine x2",
        "rag in bathroom_cabinet x2",
        "plant",
        "curtains x2",
    ],
    "bedroom": [
        "rug",
        "bed",
        "pillow on bed x2",
        "nightstand x2",
        "tablelamp on nightstand",
        "alarm_clock on nightstand",
        "book in nightstand",
        "closet",
        "clothes_shirt in closet x4",
        "clothes_pants in closet x3",
        "hanger in closet x5",
        "chair",
        "desk",
        "laptop on desk",
        "paper on desk x3",
        "pencil on desk x2",
        "cellphone on desk",
        "photoframe on desk",
        "toy x4",
        "curtains x2",
        "clock",
    ],
    "kitchen": [
        "rug",
        "kitchen_table",
        "chair x4",
        "plate on kitchen_table x4",
        "fork on kitchen_table x4",
        "kitchen_counter x3",
        "sink",
        "faucet on kitchen_counter",
        "dishwasher",
        "plate in dishwasher x3",
        "stove",
        "cooking_pot on stove",
        "fridge",
        "milk in fridge x2",
        "juice in fridge",
        "apple in fridge x3",
        "microwave",
        "toaster on kitchen_counter",
        "bread on kitchen_counter x2",
        "coffeemaker on kitchen_counter",
        "mug on kitchen_counter x3",
        "cutting_board on kitchen_counter",
        "knife on cutting_board x2",
        "kitchen_cabinets x3",
        "cup in kitchen_cabinets x4",
        "waterglass in kitchen_cabinets x4",
        "bowl in kitchen_cabinets x4",
        "dish_soap on kitchen_counter",
        "sponge on kitchen_counter",
        "rag on kitchen_counter",
        "vase on kitchen_table",
        "curtains x2",
        "clock",
    ],
    "living_room": [
        "rug",
        "couch",
        "pillow on couch x3",
        "coffee_table",
        "remote_control on coffee_table",
        "magazine on coffee_table x3",
        "mug on coffee_table",
        "tvstand",
        "tv on tvstand",
        "desk",
        "computer on desk",
        "cpuscreen on desk",
        "keyboard on desk",
        "mouse on desk",
        "laptop on coffee_table",
        "chair x2",
        "bookshelf",
        "book in bookshelf x12",
        "photoframe on bookshelf x3",
        "tablelamp on desk",
        "plant x2",
        "vase on bookshelf",
        "curtains x3",
        "clock",
    ],
}
# Seats and what they face.
FACING = {"couch": "tv", "bed": "tablelamp"}
# Doors and doorjambs joining rooms (first room holds it).
DOORS = [("door", "bathroom", "bedroom"), ("doorjamb", "bedroom", "living_room"),
         ("doorjamb", "living_room", "kitchen"), ("door", "kitchen", "bathroom")]  # fmt: skip
ROOM_IDS = {"bathroom": 11, "bedroom": 73, "kitchen": 205, "living_room": 335}


def _node(node_id: int, cls: str, k: int) -> dict[str, object]:
    category, properties, states = CATALOGUE[cls]
    x, z = float(k % 7), float(k // 7)
    return {
        "id": node_id, "category": category, "class_name": cls,
        "prefab_name": f"{cls.title().replace('_', '')}_{k % 4 + 1}",
        "obj_transform": {"position": [x, 0.0, z], "rotation": [0.0, 0.0, 0.0, 1.0],
                          "scale": [1.0, 1.0, 1.0]},
        "bounding_box": {"center": [x, 0.5, z], "size": [0.5, 0.5, 0.5]},
        "properties": list(properties), "states": list(states),
    }  # fmt: skip


def build() -> dict[str, list[dict[str, object]]]:
    """The house as a graph dict (deterministic)."""
    nodes: list[dict[str, object]] = []
    edges: list[dict[str, object]] = []

    def edge(a: int, relation: str, b: int) -> None:
        edges.append({"from_id": a, "relation_type": relation, "to_id": b})

    ids: dict[str, dict[str, int]] = {}
    for room, room_id in ROOM_IDS.items():
        nodes.append(_node(room_id, room, 0))
        latest: dict[str, int] = {}
        next_id = room_id + 1
        placements = [f"{cls} x{n}" for cls, n in TILES.items()] + HOUSE[room]
        for entry in placements:
            words = entry.split()
            count = int(words.pop()[1:]) if words[-1].startswith("x") else 1
            cls, parent = words[0], (words[1], words[2]) if len(words) == 3 else None
            for _ in range(count):
                nodes.append(_node(next_id, cls, next_id - room_id))
                edge(next_id, "INSIDE", room_id)
                if parent is not None:
                    relation, of = parent
                    parent_id = latest[of]
                    edge(next_id, "ON" if relation == "on" else "INSIDE", parent_id)
                    edge(next_id, "CLOSE", parent_id)
                    edge(parent_id, "CLOSE", next_id)
                latest[cls] = next_id
                next_id += 1
        for seat, target in FACING.items():
            if seat in latest and target in latest:
                edge(latest[seat], "FACING", latest[target])
        ids[room] = latest
    nodes.insert(0, _node(1, "character", 0))
    edge(1, "INSIDE", ROOM_IDS["living_room"])
    next_id = max(int(n["id"]) for n in nodes) + 1  # type: ignore[call-overload]
    for cls, a, b in DOORS:
        nodes.append(_node(next_id, cls, 0))
        edge(next_id, "INSIDE", ROOM_IDS[a])
        edge(next_id, "BETWEEN", ROOM_IDS[a])
        edge(next_id, "BETWEEN", ROOM_IDS[b])
        next_id += 1
    return {"nodes": nodes, "edges": edges}


def render() -> str:
    """The JSON text of the graph, one node or edge per line."""
    graph = build()
    nodes = ",\n".join("    " + json.dumps(n) for n in graph["nodes"])
    edges = ",\n".join("    " + json.dumps(e) for e in graph["edges"])
    return f'{{\n  "nodes": [\n{nodes}\n  ],\n  "edges": [\n{edges}\n  ]\n}}\n'


def main() -> int:
    """Write the graph file."""
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(render(), encoding="utf-8")
    graph = build()
    print(f"wrote {OUT.name}: {len(graph['nodes'])} nodes, {len(graph['edges'])} edges")
    return 0


if __name__ == "__main__":
    sys.exit(main())
