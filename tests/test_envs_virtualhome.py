"""The VirtualHome environment on the real executor: truth values, routes, preview, errors."""

from __future__ import annotations

import importlib.util

import pytest

from safetychip.envs import Env, Scene, VirtualHomeEnv, check_env, load_tasks
from safetychip.envs.virtualhome import _simulator
from safetychip.errors import (
    EnvCheckError,
    MissingDependencyError,
    PropositionError,
    ResetNeeded,
)

ROOMS = ["agent_at(kitchen)", "agent_at(living_room)", "agent_at(bedroom)", "agent_at(hallway)"]


def env_at(room: str, scene: str = "apartment_1", **kwargs) -> VirtualHomeEnv:
    env = VirtualHomeEnv(scene, **kwargs)
    env.reset(options={"initial": [f"agent_at({room})"]})
    return env


def step(env: VirtualHomeEnv, action: str) -> dict:
    *_, info = env.step(action)
    return info


def test_reset_returns_text_and_the_initial_state():
    env = VirtualHomeEnv("apartment_1").track(["agent_at(bedroom)", "is_open(fridge)"])
    obs, info = env.reset(options={"initial": ["agent_at(bedroom)"]})
    assert obs.startswith("You are in the bedroom. You are holding nothing.\n")
    assert (
        "The rooms are hallway, living room, kitchen, bedroom, bathroom; from the bedroom you "
        "can walk straight to living room.\n" in obs
    )
    assert "lamp (off, on bedside table)" in obs
    assert info == {
        "states": [{"agent_at(bedroom)": True, "is_open(fridge)": False}],
        "error": None,
    }
    assert env.render() == obs
    assert isinstance(env, Env) and repr(env) == "<VirtualHomeEnv scene='apartment_1'>"
    assert env._repr_html_().startswith("<pre>You are in the bedroom.")


def test_walking_yields_one_state_per_room_entered():
    env = env_at("bedroom").track([*ROOMS, "agent_at(fridge)"])
    info = step(env, "walk to salmon")
    assert info["script"] == ["[WALK] <living_room> (3)", "[WALK] <salmon> (48)"]
    assert info["states"] == [
        {**dict.fromkeys(ROOMS, False), "agent_at(living_room)": True, "agent_at(fridge)": False},
        {**dict.fromkeys(ROOMS, False), "agent_at(kitchen)": True, "agent_at(fridge)": True},
    ]
    info = step(env, "walk to hallway")
    assert [max(s, key=s.get) for s in info["states"]] == [
        "agent_at(living_room)",
        "agent_at(hallway)",
    ]
    assert step(env, "walk to hallway")["states"] == [
        {**dict.fromkeys(ROOMS, False), "agent_at(fridge)": False, "agent_at(hallway)": True}
    ]


def test_truth_of_the_seven_predicates_through_an_episode():
    props = [
        "agent_at(fridge)", "is_open(fridge)", "is_grabbed(salmon)", "is_in(salmon,fridge)",
        "is_in(salmon,microwave)", "is_switchedon(microwave)", "is_touched(microwave)",
        "is_on(salmon,kitchen_counter)",
    ]  # fmt: skip
    env = env_at("kitchen").track(props)
    assert env.truth(props) == {**dict.fromkeys(props, False), "is_in(salmon,fridge)": True}
    expected = {
        "walk to salmon": {"agent_at(fridge)", "is_in(salmon,fridge)"},
        "open fridge": {"agent_at(fridge)", "is_in(salmon,fridge)", "is_open(fridge)"},
        "grab salmon": {"agent_at(fridge)", "is_open(fridge)", "is_grabbed(salmon)"},
        "close fridge": {"agent_at(fridge)", "is_grabbed(salmon)"},
        "walk to microwave": {"is_grabbed(salmon)"},
        "open microwave": {"is_grabbed(salmon)"},
        "put salmon in microwave": {"is_in(salmon,microwave)"},
        "close microwave": {"is_in(salmon,microwave)"},
        "switch on microwave": {"is_in(salmon,microwave)", "is_switchedon(microwave)"},
        "touch microwave": {
            "is_in(salmon,microwave)", "is_switchedon(microwave)", "is_touched(microwave)",
        },
        "look at microwave": {"is_in(salmon,microwave)", "is_switchedon(microwave)"},
    }  # fmt: skip
    for action, true in expected.items():
        info = step(env, action)
        assert info["error"] is None, info["error"]
        assert info["states"] == [{p: p in true for p in props}], action
        assert env.truth(props) == info["states"][-1]


def test_is_on_follows_put_on():
    env = env_at("living_room").track(["is_on(book,book_shelf)", "is_on(book,coffee_table)"])
    assert env.truth(env.tracked) == {
        "is_on(book,book_shelf)": False,
        "is_on(book,coffee_table)": True,
    }
    for action in ["walk to book", "grab book", "walk to book shelf", "put book on book shelf"]:
        info = step(env, action)
    assert info["states"] == [{"is_on(book,book_shelf)": True, "is_on(book,coffee_table)": False}]


def test_preview_changes_nothing_and_matches_step():
    env = env_at("bedroom").track(ROOMS)
    obs, truth = env.render(), env.truth(ROOMS)
    preview = env.preview("walk to kitchen", ROOMS)
    assert len(preview) == 2 and env.render() == obs and env.truth(ROOMS) == truth
    assert env.preview("walk to kitchen", ["is_open(fridge)"]) == [{"is_open(fridge)": False}] * 2
    assert step(env, "walk to kitchen")["states"] == preview
    assert env.preview("grab salmon", ROOMS) == []
    assert env.preview("done", ROOMS) == []


def test_refusals_are_sentences_and_change_nothing():
    env = env_at("kitchen").track(["is_open(fridge)", "is_grabbed(salmon)"])
    cases = [
        ("grab salmon", "cannot grab salmon: the agent is not close to it"),
        ("walk to salmon", None),
        ("grab salmon", "cannot grab salmon: it is inside something closed"),
        ("grab fridge", "cannot grab fridge: it cannot be grabbed"),
        ("close fridge", "cannot close fridge: it is already closed"),
        ("open fridge", None),
        ("open fridge", "cannot open fridge: it is already open"),
        ("put salmon in fridge", "cannot put salmon in fridge: the agent is not holding salmon"),
        ("switch on fridge", None),
        ("switch on fridge", "cannot switch on fridge: it is already on"),
        ("grab salmon", None),
        ("walk to microwave", None),
        ("put salmon in microwave", "cannot put salmon in microwave: microwave is closed"),
        ("open kitchen faucet", "cannot open kitchen faucet: it cannot be opened"),
        ("switch on kitchen faucet", "cannot switch on kitchen faucet: the agent is not close "
         "to it"),
    ]  # fmt: skip
    for action, error in cases:
        before, obs = env.truth(env.tracked), env.render()
        info = step(env, action)
        assert info["error"] == error, action
        if error:
            assert info["states"] == [] and info["script"] == []
            assert env.truth(env.tracked) == before and env.render() == obs


def test_unplugged_and_free_hands():
    env = env_at("living_room")
    step(env, "walk to phone")
    assert step(env, "switch on phone")["error"] == "cannot switch on phone: it is unplugged"
    for action in ["grab phone", "walk to book", "grab book", "walk to magazine"]:
        assert step(env, action)["error"] is None
    assert step(env, "grab magazine")["error"] == "cannot grab magazine: the agent has no free hand"


def test_no_route_is_a_refusal():
    graph = {
        "nodes": [
            {"id": 1, "class_name": "character", "category": "Characters", "properties": [],
             "states": []},
            {"id": 2, "class_name": "hall", "category": "Rooms", "properties": [], "states": []},
            {"id": 3, "class_name": "kitchen", "category": "Rooms", "properties": [],
             "states": []},
        ],
        "edges": [{"from_id": 1, "relation_type": "INSIDE", "to_id": 2}],
        "room_adjacency": [],
    }  # fmt: skip
    env = VirtualHomeEnv(Scene(graph))
    env.reset()
    assert step(env, "walk to kitchen")["error"] == (
        "cannot walk to kitchen: there is no way from the hall to the kitchen"
    )
    assert env.admissible_actions() == ["walk to hall", "done"]


def test_is_touched_holds_only_in_the_state_touching_produces():
    env = env_at("hallway").track(["is_touched(statue)", "agent_at(statue)"])
    step(env, "walk to statue")
    assert step(env, "touch statue")["states"] == [
        {"is_touched(statue)": True, "agent_at(statue)": True}
    ]
    assert env.truth(["is_touched(statue)"]) == {"is_touched(statue)": True}
    assert step(env, "look at statue")["states"] == [
        {"is_touched(statue)": False, "agent_at(statue)": True}
    ]


def test_instances_are_chosen_near_the_agent():
    env = env_at("kitchen")
    assert env.parse("walk to sink").targets[0].name == "kitchen_sink"
    step(env, "walk to bathroom")
    assert env.parse("walk to sink").targets[0].name == "bathroom_sink"
    assert env.parse("walk to light").targets[0].name == "bathroom_light"


def test_observation_lists_visible_objects_and_what_is_held():
    env = env_at("kitchen")
    step(env, "walk to salmon")
    obs = env.render()
    assert "You are close to fridge, salmon." in obs
    assert "salmon (" not in obs and "fridge (closed, off)" in obs
    step(env, "open fridge")
    assert "salmon (in fridge)" in env.render()
    step(env, "grab salmon")
    obs = env.render()
    assert "You are holding salmon." in obs and "salmon (" not in obs
    step(env, "walk to living room")
    assert "You are in the living room. You are holding salmon." in env.render()


def test_initial_conditions():
    env = VirtualHomeEnv("apartment_2").track(
        ["agent_at(bathroom)", "is_open(fridge)", "is_switchedon(television)",
         "is_on(salmon,kitchen_counter)", "is_in(salmon,fridge)", "is_in(book,book_shelf)",
         "is_switchedon(hallway_light)"]
    )  # fmt: skip
    _, info = env.reset(
        options={"initial": [
            "agent_at(bathroom)", "is_open(fridge)", "is_switchedon(television)",
            "is_on(salmon,kitchen_counter)", "is_in(book,book_shelf)",
            "!is_switchedon(hallway_light)",
        ]}
    )  # fmt: skip
    assert info["states"] == [{
        "agent_at(bathroom)": True, "is_open(fridge)": True, "is_switchedon(television)": True,
        "is_on(salmon,kitchen_counter)": True, "is_in(salmon,fridge)": False,
        "is_in(book,book_shelf)": True, "is_switchedon(hallway_light)": False,
    }]  # fmt: skip
    step(env, "walk to salmon")
    assert step(env, "grab salmon")["error"] is None


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        ("is_grabbed(phone)", r"cannot use 'is_grabbed\(phone\)' as an initial condition"),
        ("agent_at(fridge)", r"cannot use 'agent_at\(fridge\)' as an initial condition"),
        (
            "is_open(salmon)",
            r"initial condition 'is_open\(salmon\)': salmon lacks property CAN_OPEN",
        ),
        ("is_switchedon(sofa)", r"sofa lacks property HAS_SWITCH"),
        ("!is_on(book,sofa)", r"cannot use '!is_on\(book,sofa\)' as an initial condition"),
        ("is_on(book, couch)", r"no object or room named 'couch'"),
    ],
)
def test_initial_condition_errors(literal, message):
    with pytest.raises(PropositionError, match=message):
        VirtualHomeEnv("apartment_1").reset(options={"initial": [literal]})


def test_goal_reward_and_termination():
    env = VirtualHomeEnv("apartment_1")
    env.reset(
        options={
            "initial": ["agent_at(bedroom)"],
            "goal": ["agent_at(kitchen)", "!is_open(fridge)"],
        }
    )
    assert not env.goal_reached()
    step(env, "walk to kitchen")
    assert env.goal_reached()
    _, reward, terminated, truncated, info = env.step("done")
    assert (reward, terminated, truncated, info["states"]) == (1.0, True, False, [])
    with pytest.raises(ResetNeeded, match=r"the episode has ended \(DONE or max_steps\)"):
        env.step("walk to bedroom")
    env.reset(options={"goal": ["agent_at(bathroom)"]})
    assert env.step("done")[1:3] == (0.0, True)


def test_max_steps_truncates():
    env = VirtualHomeEnv("apartment_1", max_steps=2)
    env.reset()
    assert env.step("grab salmon")[3] is False
    assert env.step("walk to kitchen")[3] is True
    with pytest.raises(ResetNeeded):
        env.step("walk to bedroom")


def test_lifecycle_errors():
    env = VirtualHomeEnv("apartment_1")
    with pytest.raises(ResetNeeded, match=r"call reset\(\) before using the environment"):
        env.step("walk to kitchen")
    with pytest.raises(ResetNeeded):
        env.truth(["agent_at(kitchen)"])
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['start'\]; valid: task"):
        env.reset(options={"start": "kitchen"})
    with env:
        env.reset()
    with pytest.raises(ResetNeeded, match="the environment is closed"):
        env.reset()
    with pytest.raises(ResetNeeded, match="the environment is closed"):
        env.preview("walk to kitchen", [])


def test_track_checks_names_and_returns_self():
    env = VirtualHomeEnv("apartment_1")
    assert env.track(["is_open(fridge)", "is_open(fridge)", "agent_at(kitchen)"]) is env
    assert env.tracked == ("is_open(fridge)", "agent_at(kitchen)")
    with pytest.raises(PropositionError, match=r"no object or room named 'fridgee'"):
        env.track(["is_open(fridgee)"])
    assert env.tracked == ("is_open(fridge)", "agent_at(kitchen)")
    env.reset()
    with pytest.raises(PropositionError, match="unknown predicate"):
        env.truth(["is_broken(fridge)"])


def test_admissible_actions_follow_the_executor():
    env = env_at("kitchen")
    actions = env.admissible_actions()
    assert actions[-1] == "done" and "walk to bedroom" in actions and "find salmon" in actions
    assert "grab salmon" not in actions and "open fridge" not in actions
    step(env, "walk to salmon")
    actions = env.admissible_actions()
    assert "open fridge" in actions and "grab salmon" not in actions
    step(env, "open fridge")
    assert "grab salmon" in env.admissible_actions()
    step(env, "grab salmon")
    actions = env.admissible_actions()
    assert "put salmon in fridge" in actions
    assert "put salmon on kitchen counter" not in actions  # not close to it
    step(env, "walk to kitchen counter")
    actions = env.admissible_actions()
    assert "put salmon on kitchen counter" in actions
    assert "put salmon in microwave" not in actions  # closed
    for action in actions:
        assert env.parse(action)  # every listed action reads back


def test_find_walks_there_first():
    env = env_at("bathroom").track(["agent_at(hallway)", "agent_at(phone)"])
    info = step(env, "find phone")
    assert info["script"] == ["[WALK] <hallway> (2)", "[WALK] <phone> (39)", "[FIND] <phone> (39)"]
    assert info["states"] == [
        {"agent_at(hallway)": True, "agent_at(phone)": False},
        {"agent_at(hallway)": False, "agent_at(phone)": True},
    ]
    assert step(env, "find phone")["script"] == ["[WALK] <phone> (39)", "[FIND] <phone> (39)"]


def test_task_sets_scene_initial_conditions_and_goal():
    task = load_tasks(suite="mobile_manipulation", scene="apartment_2")[1]
    env = VirtualHomeEnv(task=task)
    assert env.scene.name == "apartment_2" and "task=" in repr(env)
    env.track(task.propositions)
    _, info = env.reset()
    assert info["states"][0]["is_in(salmon,fridge)"] is False
    other = load_tasks(suite="four_room", scene="apartment_1")[0]
    env.reset(options={"task": other})
    assert env.scene.name == "apartment_1" and env.task is other


@pytest.mark.parametrize("scene", ["apartment_1", "apartment_2"])
def test_check_env_passes(scene):
    env = VirtualHomeEnv(scene).track(
        ["agent_at(kitchen)", "is_open(fridge)", "is_grabbed(salmon)"]
    )
    check_env(env, refused="grab salmon", steps=8)
    check_env(env, options={"initial": ["agent_at(kitchen)"]})


def test_check_env_catches_broken_environments():
    class LyingPreview(VirtualHomeEnv):
        def preview(self, action, propositions):
            return []

    env = LyingPreview("apartment_1").track(["agent_at(kitchen)"])
    with pytest.raises(
        EnvCheckError, match=r"LyingPreview.step\('walk to hallway'\) produced \[\{"
    ):
        check_env(env)

    class SilentRefusal(VirtualHomeEnv):
        def step(self, action):
            obs, reward, terminated, truncated, info = super().step(action)
            return obs, reward, terminated, truncated, {**info, "error": None}

    with pytest.raises(EnvCheckError, match=r"must explain the refusal in info\['error'\]"):
        check_env(SilentRefusal("apartment_1"), refused="grab salmon")
    with pytest.raises(EnvCheckError, match=r"does not derive from safetychip\.envs\.Env"):
        check_env(object())


def test_missing_wheel_names_the_install_command(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "virtualhome" else real(name, *a),
    )
    _simulator.evolving_graph.cache_clear()
    try:
        with pytest.raises(MissingDependencyError) as info:
            VirtualHomeEnv("apartment_1")
        assert str(info.value) == (
            "the VirtualHome environment needs 'virtualhome': "
            "pip install --no-deps virtualhome==2.3.0 termcolor"
        )
        assert isinstance(info.value, ImportError)
    finally:
        _simulator.evolving_graph.cache_clear()


# -- class names: "the window" is any window -----------------------------------------------


def test_a_class_name_holds_when_one_instance_does():
    env = env_at("living_room").track(["is_open(window)", "is_open(bedroom_window)"])
    assert env.truth(["is_open(window)"]) == {"is_open(window)": False}
    step(env, "walk to living room window")
    info = step(env, "open living room window")
    assert info["error"] is None
    assert info["states"][-1] == {"is_open(window)": True, "is_open(bedroom_window)": False}
    step(env, "close living room window")
    assert env.truth(["is_open(window)"]) == {"is_open(window)": False}


def test_a_class_name_in_a_binary_predicate_ranges_over_its_instances():
    env = env_at("kitchen", "apartment_2")
    props = ["is_in(knife,sink)", "is_in(knife,kitchen_sink)", "is_in(knife,bathroom_sink)"]
    before = env.truth(props)
    assert before["is_in(knife,sink)"] == (
        before["is_in(knife,kitchen_sink)"] or before["is_in(knife,bathroom_sink)"]
    )
    for action in (
        "walk to knife",
        "grab knife",
        "walk to kitchen sink",
        "put knife in kitchen sink",
    ):
        assert step(env, action)["error"] is None, action
    assert env.truth(props) == {
        "is_in(knife,sink)": True, "is_in(knife,kitchen_sink)": True,
        "is_in(knife,bathroom_sink)": False,
    }  # fmt: skip


def test_the_monitor_refuses_opening_one_window_under_never_open_the_window():
    from safetychip.monitor import Monitor
    from safetychip.shield import Shield

    shield = Shield.of(VirtualHomeEnv("apartment_1"), Monitor(['G !"is_open(window)"']))
    shield.reset(options={"initial": ["agent_at(living_room)"]})
    assert shield.propose("walk to living room window").outcome == "executed"
    refused = shield.propose("open the living room window")
    assert refused.outcome == "pruned"
    assert shield.env.truth(["is_open(window)"]) == {"is_open(window)": False}
    assert shield.propose("open the living room curtains").outcome != "pruned"


@pytest.mark.parametrize(
    ("proposition", "message"),
    [
        ("is_open(windw)", r"no object or room named 'windw' in scene 'apartment_1'; "
                           r"closest names: window"),
        ("is_open(light)", r"light is a class name, and hallway_light, .* lack property CAN_OPEN"),
        ("is_grabbed(rug)", r"rug is a class name, and hallway_rug, bathroom_rug lack property "
                            r"GRABBABLE"),
    ],
)  # fmt: skip
def test_class_names_are_checked_and_unknown_names_still_refused(proposition, message):
    env = VirtualHomeEnv("apartment_1")
    with pytest.raises(PropositionError, match=message):
        env.track([proposition])
    assert env.track(["is_switchedon(light)", "agent_at(towel)"]).tracked[0] == (
        "is_switchedon(light)"
    )


def test_a_class_name_is_no_initial_condition():
    with pytest.raises(
        PropositionError,
        match=r"'is_open\(window\)': window is a class name "
        r"\(any of living_room_window, bedroom_window\); name one instance",
    ):
        VirtualHomeEnv("apartment_1").reset(options={"initial": ["is_open(window)"]})
