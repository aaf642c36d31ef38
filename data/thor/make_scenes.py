"""Write our AI2-THOR-style scenes to data/thor/scenes/ (deterministic: run it again and
nothing changes).

    python data/thor/make_scenes.py

Each scene is one room of a kind AI2-THOR has (kitchen, living room, bedroom, bathroom),
named after an AI2-THOR floor plan of that kind (FloorPlan1-30 are kitchens, 201-230 living
rooms, 301-330 bedrooms, 401-430 bathrooms); the furniture is listed by hand, the small
objects are spread over the surfaces and containers by a seeded random generator. Object
types, and what each affords, come from data/thor/object_types.csv.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from safetychip.envs.thor import snake_case

HERE = Path(__file__).resolve().parent

# Furniture and fixtures: (type, count). Receptacles come first so that small objects can
# be placed in or on them.
KITCHEN = [
    ("Floor", 1),
    ("CounterTop", 2),
    ("Cabinet", 4),
    ("Drawer", 3),
    ("Fridge", 1),
    ("StoveBurner", 4),
    ("Microwave", 1),
    ("Toaster", 1),
    ("CoffeeMachine", 1),
    ("SinkBasin", 1),
    ("Faucet", 1),
    ("GarbageCan", 1),
    ("DiningTable", 1),
    ("Chair", 2),
    ("Shelf", 1),
    ("LightSwitch", 1),
    ("Window", 1),
]
LIVING = [
    ("Floor", 1),
    ("Sofa", 1),
    ("ArmChair", 1),
    ("CoffeeTable", 1),
    ("SideTable", 2),
    ("Shelf", 2),
    ("Drawer", 2),
    ("Box", 1),
    ("GarbageCan", 1),
    ("Television", 1),
    ("FloorLamp", 1),
    ("LightSwitch", 1),
    ("Window", 1),
    ("HousePlant", 1),
    ("Ottoman", 1),
]
BEDROOM = [
    ("Floor", 1),
    ("Bed", 1),
    ("Desk", 1),
    ("Dresser", 1),
    ("SideTable", 1),
    ("Drawer", 3),
    ("Shelf", 2),
    ("GarbageCan", 1),
    ("LaundryHamper", 1),
    ("DeskLamp", 1),
    ("LightSwitch", 1),
    ("Window", 1),
    ("Mirror", 1),
    ("Chair", 1),
    ("Safe", 1),
]
BATHROOM = [
    ("Floor", 1),
    ("CounterTop", 1),
    ("SinkBasin", 1),
    ("Faucet", 1),
    ("Toilet", 1),
    ("Bathtub", 1),
    ("ShowerHead", 1),
    ("ShowerDoor", 1),
    ("Cabinet", 2),
    ("Drawer", 1),
    ("Mirror", 1),
    ("TowelHolder", 1),
    ("HandTowelHolder", 1),
    ("ToiletPaperHanger", 1),
    ("GarbageCan", 1),
    ("LightSwitch", 1),
    ("Shelf", 1),
]

# Small objects: (type, count, the receptacle types they may start in or on).
KITCHEN_SMALL = [
    ("Apple", 1, ["CounterTop", "Fridge", "DiningTable"]),
    ("Bread", 1, ["CounterTop"]),
    ("Egg", 2, ["Fridge"]),
    ("Lettuce", 1, ["Fridge"]),
    ("Tomato", 1, ["CounterTop", "Fridge"]),
    ("Potato", 1, ["CounterTop", "Cabinet"]),
    ("Knife", 1, ["CounterTop"]),
    ("ButterKnife", 1, ["Drawer"]),
    ("Fork", 1, ["Drawer"]),
    ("Spoon", 1, ["Drawer"]),
    ("Spatula", 1, ["Drawer"]),
    ("Ladle", 1, ["CounterTop"]),
    ("Mug", 2, ["CounterTop", "Cabinet"]),
    ("Cup", 1, ["Cabinet", "DiningTable"]),
    ("Bowl", 1, ["Cabinet", "DiningTable"]),
    ("Plate", 2, ["Cabinet", "DiningTable"]),
    ("Pan", 1, ["StoveBurner"]),
    ("Pot", 1, ["StoveBurner", "CounterTop"]),
    ("Kettle", 1, ["CounterTop"]),
    ("WineBottle", 1, ["CounterTop", "Cabinet"]),
    ("Bottle", 1, ["Fridge"]),
    ("SaltShaker", 1, ["CounterTop"]),
    ("PepperShaker", 1, ["CounterTop"]),
    ("DishSponge", 1, ["SinkBasin", "CounterTop"]),
    ("SoapBottle", 1, ["CounterTop"]),
    ("PaperTowelRoll", 1, ["CounterTop"]),
    ("CellPhone", 1, ["DiningTable"]),
    ("Laptop", 1, ["DiningTable"]),
    ("Vase", 1, ["Shelf"]),
    ("Candle", 1, ["DiningTable"]),
]
LIVING_SMALL = [
    ("Laptop", 1, ["CoffeeTable", "Sofa"]),
    ("RemoteControl", 1, ["Sofa", "CoffeeTable"]),
    ("CellPhone", 1, ["SideTable"]),
    ("Book", 2, ["Shelf", "CoffeeTable"]),
    ("Vase", 2, ["Shelf", "SideTable"]),
    ("Statue", 1, ["Shelf"]),
    ("Candle", 2, ["CoffeeTable", "Shelf"]),
    ("Newspaper", 1, ["Sofa", "Ottoman"]),
    ("Pillow", 2, ["Sofa", "ArmChair"]),
    ("KeyChain", 1, ["SideTable", "Drawer"]),
    ("CreditCard", 1, ["Drawer", "Box"]),
    ("Watch", 1, ["Drawer"]),
    ("Mug", 1, ["CoffeeTable"]),
    ("Cup", 1, ["SideTable"]),
    ("WateringCan", 1, ["Floor"]),
    ("TissueBox", 1, ["SideTable"]),
    ("Bowl", 1, ["CoffeeTable"]),
    ("WineBottle", 1, ["Shelf"]),
    ("Plate", 1, ["CoffeeTable"]),
    ("Cloth", 1, ["Box"]),
]
BEDROOM_SMALL = [
    ("AlarmClock", 1, ["SideTable", "Desk"]),
    ("Laptop", 1, ["Desk", "Bed"]),
    ("CellPhone", 1, ["Bed", "SideTable"]),
    ("Book", 2, ["Shelf", "Desk"]),
    ("Pillow", 2, ["Bed"]),
    ("TeddyBear", 1, ["Bed"]),
    ("Pen", 1, ["Desk", "Drawer"]),
    ("Pencil", 1, ["Desk"]),
    ("CD", 1, ["Drawer", "Shelf"]),
    ("KeyChain", 1, ["Dresser"]),
    ("CreditCard", 1, ["Dresser", "Safe"]),
    ("Watch", 1, ["Safe", "Dresser"]),
    ("Vase", 1, ["Shelf"]),
    ("Statue", 1, ["Dresser"]),
    ("BaseballBat", 1, ["Floor"]),
    ("BasketBall", 1, ["Floor"]),
    ("TennisRacket", 1, ["Floor"]),
    ("Mug", 1, ["Desk"]),
    ("Candle", 1, ["Dresser"]),
    ("Cloth", 1, ["LaundryHamper"]),
    ("HairDryer", 1, ["Dresser"]),
]
BATHROOM_SMALL = [
    ("SoapBar", 1, ["CounterTop", "Bathtub"]),
    ("SoapBottle", 1, ["CounterTop"]),
    ("Towel", 1, ["TowelHolder"]),
    ("HandTowel", 1, ["HandTowelHolder"]),
    ("ToiletPaper", 2, ["ToiletPaperHanger", "Cabinet"]),
    ("SprayBottle", 1, ["Cabinet"]),
    ("Plunger", 1, ["Floor"]),
    ("Cloth", 1, ["Cabinet", "CounterTop"]),
    ("HairDryer", 1, ["CounterTop", "Drawer"]),
    ("Candle", 1, ["CounterTop", "Shelf"]),
    ("Cup", 1, ["CounterTop"]),
    ("Vase", 1, ["Shelf"]),
    ("CellPhone", 1, ["CounterTop"]),
    ("DishSponge", 1, ["Bathtub"]),
    ("Bottle", 1, ["Shelf"]),
]

# (scene name, kind, furniture, small objects, seed, extra copies of small objects to reach
# the size, initial states by object name)
SCENES = [
    (
        "FloorPlan1",
        "kitchen",
        KITCHEN,
        KITCHEN_SMALL,
        1,
        0,
        {"mug": {"isDirty": True}, "cabinet_2": {"isOpen": True}},
    ),
    (
        "FloorPlan2",
        "kitchen",
        KITCHEN,
        KITCHEN_SMALL,
        2,
        20,
        {"mug_2": {"isFilledWithLiquid": "coffee"}, "plate": {"isDirty": True}},
    ),
    (
        "FloorPlan201",
        "living_room",
        LIVING,
        LIVING_SMALL,
        201,
        0,
        {"television": {"isToggled": True}},
    ),
    (
        "FloorPlan202",
        "living_room",
        LIVING,
        LIVING_SMALL,
        202,
        18,
        {"floor_lamp": {"isToggled": True}, "cup": {"isFilledWithLiquid": "water"}},
    ),
    ("FloorPlan301", "bedroom", BEDROOM, BEDROOM_SMALL, 301, 0, {"bed": {"isDirty": True}}),
    (
        "FloorPlan302",
        "bedroom",
        BEDROOM,
        BEDROOM_SMALL,
        302,
        12,
        {"desk_lamp": {"isToggled": True}, "mirror": {"isDirty": True}},
    ),
    ("FloorPlan401", "bathroom", BATHROOM, BATHROOM_SMALL, 401, 0, {"mirror": {"isDirty": True}}),
    (
        "FloorPlan402",
        "bathroom",
        BATHROOM,
        BATHROOM_SMALL,
        402,
        14,
        {"cup": {"isFilledWithLiquid": "water"}, "shower_door": {"isOpen": True}},
    ),
]


def make_scene(
    name: str, kind: str, furniture: list, small: list, seed: int, extra: int, states: dict
) -> dict:
    """One scene's data: the furniture, the small objects (and *extra* random copies of
    them) spread over their receptacles with a generator seeded with *seed*, then *states*."""
    rng = random.Random(seed)
    objects, by_type = [], {}

    def add(type_name, where=None):
        base = snake_case(type_name)
        n = len(by_type.setdefault(type_name, [])) + 1
        obj = {"name": base if n == 1 else f"{base}_{n}", "type": type_name}
        if where is not None:
            obj[where[0]] = where[1]
        by_type[type_name].append(obj["name"])
        objects.append(obj)

    for type_name, count in furniture:
        for _ in range(count):
            add(type_name)
    holds = {
        "Floor": "on",
        "CounterTop": "on",
        "Cabinet": "in",
        "Drawer": "in",
        "Fridge": "in",
        "StoveBurner": "on",
        "DiningTable": "on",
        "Shelf": "on",
        "SinkBasin": "in",
        "Sofa": "on",
        "ArmChair": "on",
        "CoffeeTable": "on",
        "SideTable": "on",
        "Box": "in",
        "Ottoman": "on",
        "Bed": "on",
        "Desk": "on",
        "Dresser": "on",
        "Safe": "in",
        "LaundryHamper": "in",
        "Bathtub": "in",
        "TowelHolder": "on",
        "HandTowelHolder": "on",
        "ToiletPaperHanger": "on",
    }
    items = list(small)
    movable = [
        (t, 1, [p for p in places if p != "StoveBurner"])
        for t, _, places in small
        if places != ["StoveBurner"]
    ]
    items += [rng.choice(movable) for _ in range(extra)]
    burners = iter(by_type.get("StoveBurner", []))
    for type_name, count, places in items:
        for _ in range(count):
            place = rng.choice(places)
            if place == "StoveBurner":  # one pan or pot a burner
                holder = next(burners)
            else:
                holder = rng.choice(by_type[place])
            add(type_name, (holds[place], holder))
    for obj in objects:
        if obj["name"] in states:
            obj["state"] = states[obj["name"]]
    assert 30 <= len(objects) <= 80, (name, len(objects))
    return {"format": "safetychip.thor-scene/1", "name": name, "kind": kind, "objects": objects}


def main() -> None:
    """Write every scene of SCENES."""
    folder = HERE / "scenes"
    folder.mkdir(exist_ok=True)
    for spec in SCENES:
        scene = make_scene(*spec)
        lines = ",\n".join("  " + json.dumps(o) for o in scene["objects"])
        head = {k: v for k, v in scene.items() if k != "objects"}
        text = json.dumps(head)[:-1] + ', "objects": [\n' + lines + "\n]}\n"
        (folder / f"{scene['name']}.json").write_text(text, encoding="utf-8")
        print(scene["name"], len(scene["objects"]), "objects")


if __name__ == "__main__":
    main()
