"""The AI2-THOR-style environment keeps the Env protocol; its type table, scenes and
propositions are read and checked; bad input is refused with the file, entry and nearest
names."""

from __future__ import annotations

import json

import pytest

from safetychip.envs import check_env
from safetychip.envs.thor import (
    AFFORDANCES,
    SCENE_DIR,
    THOR_PREDICATES,
    ThorEnv,
    load_object_types,
    load_thor_scene,
)
from safetychip.errors import ActionError, DataFileError, PropositionError, ResetNeeded
from safetychip.monitor import Monitor

SCENES = sorted(p.stem for p in SCENE_DIR.glob("*.json"))
PROPS = ["agent_at(fridge)", "is_open(fridge)", "is_grabbed(egg)", "is_cooked(egg)",
         "is_in(egg,fridge)", "is_filled(mug,water)", "is_toggled(laptop)", "is_wet(laptop)"]  # fmt: skip


def test_eight_scenes_of_the_four_kinds_with_30_to_80_objects():
    scenes = [load_thor_scene(name) for name in SCENES]
    assert len(scenes) >= 8
    assert {s.kind for s in scenes} == {"kitchen", "living_room", "bedroom", "bathroom"}
    assert all(30 <= len(s.objects) <= 80 for s in scenes)
    assert max(len(s.objects) for s in scenes) == 80


def test_every_scene_object_has_a_type_of_the_table():
    types = load_object_types()
    assert len(types) > 80 and all(set(t.affordances) <= set(AFFORDANCES) for t in types.values())
    for name in SCENES:
        scene = load_thor_scene(name)
        assert all(scene.types[o] is types[scene.types[o].name] for o in scene.objects)


@pytest.mark.parametrize("name", SCENES)
def test_check_env_passes_on_every_scene(name):
    env = ThorEnv(name)
    props = [p for p in PROPS if all(a in env.objects or a == "water" for a in
                                     p[p.index("(") + 1:-1].split(","))]  # fmt: skip
    env.track(props)
    check_env(env, refused="pick Vase", steps=10)


def test_check_env_after_some_steps_covers_every_verb_kind():
    env = ThorEnv("FloorPlan1").track(PROPS[:4])
    env.reset()
    for line in ("find Fridge", "open Fridge", "pick Egg"):
        env.step(line)
    verbs = {a.split()[0] for a in env.admissible_actions()}
    assert verbs >= {"find", "close", "drop", "throw", "break", "cook", "done"}


def test_preview_equals_step_and_changes_nothing():
    env = ThorEnv("FloorPlan1").track(PROPS)
    env.reset()
    for line in ["find Fridge", "open Fridge", "pick Egg", "find Laptop", "turn on Laptop"]:
        before = env.snapshot()
        preview = env.preview(line, PROPS)
        assert env.snapshot() == before
        assert env.step(line)[-1]["states"] == preview


def test_lookahead_world_restores_to_the_step_result():
    env = ThorEnv("FloorPlan1")
    env.reset()
    ahead = env.lookahead("find Fridge", ["agent_at(fridge)"])
    start = env.snapshot()
    env.restore(ahead.world)
    assert env.truth(["agent_at(fridge)"]) == {"agent_at(fridge)": True}
    env.restore(start)
    assert env.truth(["agent_at(fridge)"]) == {"agent_at(fridge)": False}
    with pytest.raises(ValueError, match="not a ThorEnv snapshot"):
        env.restore("a world")


def test_snapshots_are_equal_and_hashed_alike_for_the_same_world():
    env = ThorEnv("FloorPlan1")
    env.reset()
    env.step("find Fridge")
    env.step("open Fridge")
    a = env.snapshot()
    env.step("close Fridge")
    env.step("open Fridge")
    b = env.snapshot()
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1


def test_is_in_and_is_on_follow_every_parent_receptacle():
    env = ThorEnv("FloorPlan1").track(["is_on(egg,pan)", "is_on(egg,stove_burner)",
                                       "is_in(egg,stove_burner)", "is_on(pan,stove_burner)"])  # fmt: skip
    env.reset(options={"initial": ["is_on(egg,pan)"]})
    assert list(env.truth(env.tracked).values()) == [True, True, False, True]


def test_reset_options_set_initial_literals_and_goals():
    env = ThorEnv("FloorPlan1")
    _, info = env.track(["is_grabbed(mug)", "is_filled(mug,wine)", "agent_at(fridge)"]).reset(
        options={"initial": ["is_grabbed(mug)", "is_filled(mug,wine)", "agent_at(fridge)"],
                 "goal": ["!is_grabbed(mug)"]})  # fmt: skip
    assert info["states"] == [{"is_grabbed(mug)": True, "is_filled(mug,wine)": True,
                               "agent_at(fridge)": True}]  # fmt: skip
    assert not env.goal_reached()
    with pytest.raises(ValueError, match="a Fridge is not toggleable"):
        env.reset(options={"initial": ["is_toggled(fridge)"]})
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"start": []})


def test_unknown_propositions_name_the_predicates_or_the_nearest_objects():
    env = ThorEnv("FloorPlan1")
    with pytest.raises(PropositionError, match=r"no object 'fridg' .*did you mean fridge"):
        env.track(["is_open(fridg)"])
    with pytest.raises(PropositionError, match=r"the predicates are agent_at/1.*did you mean "
                       r"is_toggled"):  # fmt: skip
        env.track(["is_toggeld(laptop)"])
    with pytest.raises(PropositionError, match="'milk' is no liquid"):
        env.track(["is_filled(mug,milk)"])
    assert set(THOR_PREDICATES) >= {"is_open", "is_toggled", "is_broken", "is_dirty",
                                    "is_filled", "is_sliced", "is_cooked", "is_grabbed",
                                    "is_in", "is_on", "agent_at"}  # fmt: skip


def test_unknown_actions_and_objects_name_the_nearest_names():
    env = ThorEnv("FloorPlan1")
    with pytest.raises(ActionError, match=r"the actions are 'find X'") as err:
        env.parse("juggle Apple")
    with pytest.raises(ActionError, match=r"nearest names: stove_burner") as err:
        env.parse("turn on StoveBurnr")
    assert err.value.choices[0] == "stove_burner"


def test_names_resolve_by_type_to_the_held_then_the_found_then_the_first_object():
    env = ThorEnv("FloorPlan1")
    env.reset()
    assert str(env.parse("find Mug")) == "find mug"
    env.step("find Cabinet")
    env.step("open Cabinet")
    env.step("pick Mug_2")
    assert str(env.parse("break Mug")) == "break mug 2"
    assert str(env.parse("find mug 2")) == "find mug 2"


def test_invariants_hold_on_every_trace_the_environment_produces():
    env = ThorEnv("FloorPlan1")
    atoms = ["agent_at(fridge)", "agent_at(apple)", "is_grabbed(apple)", "is_grabbed(egg)",
             "is_filled(mug,water)", "is_filled(mug,coffee)"]  # fmt: skip
    invariants = env.invariants(atoms)
    assert len(invariants) == 3
    env.track(atoms)
    _, info = env.reset()
    trace = list(info["states"])
    for line in ["find Fridge", "open Fridge", "pick Egg", "find Apple", "drop", "pick Apple",
                 "find Cabinet_2", "put Cabinet_2", "pick Mug", "fill Mug with coffee"]:  # fmt: skip
        trace += env.step(line)[-1]["states"]
    verdicts = Monitor(["G true | agent_at(fridge)"], invariants).evaluate(trace)
    assert all(v.safe for v in verdicts)


def test_memory_scene_reads_as_a_scene_graph():
    from safetychip.memory import SceneGraph

    env = ThorEnv("FloorPlan1")
    env.reset()
    env.step("find Microwave")
    env.step("turn on Microwave")
    graph = SceneGraph.from_dict(env.memory_scene())
    microwave = next(o for o in graph.objects if o.id == "microwave")
    assert {"hot", "on", "electronic"} <= microwave.attributes
    assert ("egg", "INSIDE", "fridge") in graph.relations


def test_render_and_repr():
    env = ThorEnv("FloorPlan1")
    assert repr(env) == "<ThorEnv scene='FloorPlan1'>"
    with pytest.raises(ResetNeeded):
        env.render()
    env.reset()
    env.step("find Apple")
    env.step("pick Apple")
    text = env.render()
    assert text.startswith("The agent is at the apple, holding the apple.")
    assert "- apple: held" in text and "- egg: in the fridge" in text


def test_closed_environment_refuses_everything():
    env = ThorEnv("FloorPlan1")
    env.reset()
    env.close()
    with pytest.raises(ResetNeeded):
        env.step("find Apple")
    with pytest.raises(ResetNeeded):
        env.reset()


# -- bad files ------------------------------------------------------------------------------------


def _scene(objects, **extra):
    return {"name": "tiny", "kind": "kitchen", "objects": objects, **extra}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_scene([{"name": "a", "type": "Appel"}]),
         r"objects\[0\] \(a\)\.type: unknown type 'Appel'; nearest: Apple"),
        (_scene([{"name": "Apple", "type": "Apple"}]), r"objects\[0\]: name 'Apple' must be"),
        (_scene([{"name": "a", "type": "Apple"}, {"name": "a", "type": "Apple"}]),
         r"objects\[1\]: name 'a' must be a new"),
        (_scene([{"name": "f", "type": "Fridge"}, {"name": "a", "type": "Apple", "on": "f"}]),
         r"objects\[1\] \(a\)\.on: 'f' \(Fridge\) holds things 'in'"),
        (_scene([{"name": "a", "type": "Apple", "in": "b"}, {"name": "b", "type": "Apple"}]),
         r"'b' \(Apple\) is no receptacle"),
        (_scene([{"name": "a", "type": "Apple", "state": {"isToggled": True}}]),
         r"state\.isToggled: a Apple is not toggleable"),
        (_scene([{"name": "m", "type": "Mug", "state": {"isFilledWithLiquid": "milk"}}]),
         r"'milk' is no liquid; liquids: water, coffee, wine"),
        (_scene([{"name": "m", "type": "Mug", "state": {"isHot": True}}]),
         r"unknown state 'isHot'"),
        (_scene([{"name": "b", "type": "Bowl", "in": "c"}, {"name": "c", "type": "Bowl", "in": "b"}]),
         r"in a cycle"),
        (_scene([], kind="garage"), r"kind must be one of kitchen"),
        (_scene([], rooms=1), r"unknown key\(s\) rooms"),
    ],
)  # fmt: skip
def test_malformed_scenes_name_the_entry(data, message):
    with pytest.raises(DataFileError, match=message):
        load_thor_scene(data)


def test_scene_files_missing_or_not_json_name_the_file(tmp_path):
    with pytest.raises(DataFileError, match=r"no such scene file \(scenes in .*FloorPlan1"):
        load_thor_scene("FloorPlan999")
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": ')
    with pytest.raises(DataFileError, match=r"bad\.json: not valid JSON"):
        load_thor_scene(bad)
    listed = tmp_path / "list.json"
    listed.write_text("[1]")
    with pytest.raises(DataFileError, match=r"list\.json: a scene is a JSON object, got list"):
        load_thor_scene(listed)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_scene([{"name": "a", "type": "Apple"}])))
    assert load_thor_scene(good).objects == ("a",)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("Mug,in,pickupable receptacle sliceable,", None),
        ("Mug,in,pickupable receptacle,shiny", r"line 2: unknown tag 'shiny'"),
        ("Mug,,pickupable receptacle,", r"line 2: holds must be 'in' or 'on'"),
        ("mug,,pickupable,", r"line 2: type 'mug' must be a new CamelCase name"),
        ("Mug,in,pickupable receptacle", r"line 2: 3 columns, expected 4"),
        ("Mug,,flyable,", r"line 2: unknown affordance 'flyable'"),
    ],
)  # fmt: skip
def test_the_type_table_is_checked_row_by_row(tmp_path, row, message):
    path = tmp_path / "types.csv"
    path.write_text(f"type,holds,affordances,tags\n{row}\n")
    if message is None:
        assert load_object_types(path)["Mug"].can("sliceable")
    else:
        with pytest.raises(DataFileError, match=message):
            load_object_types(path)


def test_admissible_actions_are_exactly_the_candidates_the_world_accepts():
    """On a random walk, every admissible action previews a state, and every other candidate
    action is refused with a reason."""
    import random

    env = ThorEnv("FloorPlan2").track(["agent_at(fridge)"])
    env.reset()
    rng = random.Random(0)
    candidates = [a for a in env.candidate_actions() if a != "done"]
    for _ in range(60):
        admissible = set(env.admissible_actions()) - {"done"}
        for action in candidates:
            ahead = env.lookahead(action, ["agent_at(fridge)"])
            assert (ahead.error is None) is (str(env.parse(action)) in admissible), action
        env.step(rng.choice(sorted(admissible)))
