"""Every script action the executor implements, in English and in script form; the predicates
of the new actions; literal mode; the patched executor."""

from __future__ import annotations

import pytest

from safetychip.envs import VirtualHomeEnv, load_scene
from safetychip.envs.virtualhome import (
    ALL_VERBS,
    OFFICIAL_GRAPH,
    REFUSED_SCRIPT_ACTIONS,
    VERBS,
    VIRTUALHOME_PREDICATES,
    load_virtualhome_graph,
    parse_action,
    parse_proposition,
)
from safetychip.envs.virtualhome._actions import _BY_SCRIPT
from safetychip.envs.virtualhome._simulator import (
    evolving_graph,
    implemented_actions,
    script_executor,
)
from safetychip.errors import ActionError, PropositionError
from safetychip.monitor import Monitor
from safetychip.translate import Vocabulary

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def house():
    return load_virtualhome_graph(OFFICIAL_GRAPH)


def test_the_accepted_actions_are_exactly_those_the_executor_implements():
    accepted = set(_BY_SCRIPT) - {"DONE"}
    assert accepted == implemented_actions()
    every = set(evolving_graph().scripts.Action.__members__)
    assert every - accepted == set(REFUSED_SCRIPT_ACTIONS)
    assert list(VERBS) == list(ALL_VERBS)[:12]  # the paper's verbs come first, unchanged


@pytest.mark.parametrize("verb", sorted(ALL_VERBS))
def test_every_verb_reads_both_ways(house, verb):
    if verb == "done":
        return
    arity = ALL_VERBS[verb].count("{")
    names = ["couch", "tv"][:arity]
    english = ALL_VERBS[verb].format(*names)
    action = parse_action(english, house)
    assert (action.verb, [t.name for t in action.targets]) == (verb, names)
    assert str(action) == english
    assert parse_action(action.script, house) == action
    head, rest = action.script[1:].split("]", 1)
    assert parse_action(f"[{head.title()}]{rest}", house) == action  # the dataset writes [Sit]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sit down on the couch", "sit on couch"),
        ("lie down on the bed", "lie on bed"),
        ("get up", "stand up"),
        ("take off the clothes shirt", "take off bedroom clothes shirt 1"),
        ("put on the clothes shirt", "put on bedroom clothes shirt 1"),
        ("plug the laptop in", "plug in living room laptop"),
        ("pour the milk into the mug", "pour kitchen milk 1 into kitchen mug 1"),
        ("go to sleep", "sleep"),
        ("face the tv", "turn to tv"),
        ("move to the kitchen", "walk to kitchen"),
        ("move the chair", "move bedroom chair"),
    ],
)
def test_english_variants_of_the_new_actions(house, text, expected):
    near = {house.id("living_room_laptop"): 0.0}
    assert str(parse_action(text, house, near=lambda i: near.get(i, 1.0))) == expected


def test_refused_actions_are_named_with_the_list_of_those_implemented(house):
    with pytest.raises(ActionError) as info:
        parse_action("[LOOKAT_LONG] <tv> (384)", house)
    message = str(info.value)
    assert message.startswith("VirtualHome's executor does not implement [LOOKAT_LONG]")
    assert all(name in message for name in ("SIT", "POUR", "PLUGOUT", "WAKEUP"))
    with pytest.raises(ActionError, match=r"\[StandUp\] takes 0 object"):
        parse_action("[StandUp] <couch> (373)", house)


def test_new_propositions_and_their_errors(house):
    prop = parse_proposition("agent_sitting_on(couch)", house)
    assert prop.name == "agent_sitting_on(couch)" and len(VIRTUALHOME_PREDICATES) == 17
    with pytest.raises(PropositionError, match="couch has no plug"):
        parse_proposition("is_pluggedin(couch)", house)
    with pytest.raises(PropositionError, match="agent_facing needs an object"):
        parse_proposition("agent_facing(kitchen)", house)
    vocabulary = Vocabulary.from_scene(house)
    assert vocabulary.arity("agent_lying_on") == 1


def test_each_new_proposition_follows_its_action():
    env = VirtualHomeEnv("apartment_1")
    names = ["agent_sitting_on(sofa)", "agent_facing(television)", "is_grabbed_rh(book)",
             "is_grabbed_lh(remote_control)", "is_grabbed(book)", "is_touched(book)"]  # fmt: skip
    env.track(names).reset(options={"initial": ["agent_at(living_room)"]})
    seen = {}
    for action in ["walk to book", "grab book", "walk to remote control", "grab remote control",
                   "touch book", "walk to sofa", "sit on sofa"]:  # fmt: skip
        *_, info = env.step(action)
        assert info["error"] is None, (action, info["error"])
        seen[action] = info["states"][-1]
    assert seen["grab book"]["is_grabbed_rh(book)"] and not seen["walk to book"]["is_grabbed(book)"]
    assert seen["grab remote control"]["is_grabbed_lh(remote_control)"]
    assert seen["touch book"]["is_touched(book)"] and not seen["walk to sofa"]["is_touched(book)"]
    assert seen["sit on sofa"]["agent_sitting_on(sofa)"]
    assert seen["sit on sofa"]["agent_facing(television)"]  # the sofa faces the television
    assert not seen["walk to sofa"]["agent_sitting_on(sofa)"]


def test_a_monitor_over_the_new_predicates_prunes_in_the_english_loop():
    from safetychip.shield import run_monitored

    env = VirtualHomeEnv("apartment_1")
    record = run_monitored(
        env, ["walk to sofa", "sit on sofa", "done"], Monitor(["G !agent_sitting_on(sofa)"]),
        options={"initial": ["agent_at(living_room)"]},
    )  # fmt: skip
    assert [s.outcome for s in record.steps] == ["executed", "pruned", "done"]


def test_literal_mode_sends_lines_as_they_are():
    routed, literal = VirtualHomeEnv("apartment_1"), VirtualHomeEnv("apartment_1", mode="literal")
    for env in (routed, literal):
        env.reset(options={"initial": ["agent_at(bedroom)"]})
    *_, info = routed.step("walk to fridge")
    assert info["script"][0] == "[WALK] <living_room> (3)"  # through the living room
    *_, info = literal.step("walk to fridge")
    assert info["script"] == ["[WALK] <fridge> (47)"] and len(info["states"]) == 1
    *_, info = literal.step("look at fridge")
    assert info["error"] == "cannot look at fridge: the agent is not facing it"
    with pytest.raises(ValueError, match="unknown mode 'fast'; valid: routed, literal"):
        VirtualHomeEnv("apartment_1", mode="fast")


def test_the_patched_executor_runs_far_finds_and_putoff():
    vh = evolving_graph()
    scene = load_scene("apartment_1")
    graph = vh.environment.EnvironmentGraph(scene.graph)
    salmon = scene.id("salmon")
    far_find = vh.scripts.read_script_from_list_string([f"[FIND] <salmon> ({salmon})"])
    with pytest.raises(TypeError):  # the wheel as shipped
        vh.execution.ScriptExecutor(graph, {}).execute(far_find)
    ok, state, _ = script_executor(graph).execute(far_find)
    character = vh.environment.Node(scene.character)
    assert ok and state.has_edge(
        character, vh.environment.Relation.CLOSE, vh.environment.Node(salmon)
    )
    putoff = vh.scripts.read_script_from_list_string([f"[PUTOFF] <salmon> ({salmon})"])
    with pytest.raises(TypeError):
        vh.execution.ScriptExecutor(graph, {}).execute(putoff)
    executor = script_executor(graph)
    ok, _, _ = executor.execute(putoff)
    assert not ok and "is not on" in executor.info.get_error_string()


def test_check_env_passes_on_a_prepared_official_scene_in_literal_mode():
    from safetychip.envs import check_env
    from safetychip.envs.virtualhome import PROGRAM_DIR, prepare_program, read_program

    prepared = prepare_program(OFFICIAL_GRAPH, read_program(PROGRAM_DIR / "watch_tv.txt"))
    env = VirtualHomeEnv(prepared.scene, mode="literal").track(["agent_sitting_on(couch)"])
    check_env(env, refused="sit on couch", steps=3)


def test_refusals_of_every_action_are_sentences(house):
    import re

    env = VirtualHomeEnv(house, mode="literal")
    env.reset()
    reasons = {}
    for verb, template in ALL_VERBS.items():
        if verb == "done":
            continue
        action = parse_action(template.format("bathtub", "toilet"), house)
        *_, info = env.step(action)
        if info["error"] is not None:
            reasons[verb] = info["error"]
            assert info["error"].startswith(f"cannot {action}: "), info["error"]
            assert not re.search(r"<\w+>|\(\d+\)|\bnode\b", info["error"]), info["error"]
        env.reset()
    assert len(reasons) >= 30  # far away, empty-handed, standing: most actions are refused
    assert reasons["sit"] == "cannot sit on bathtub: the agent is not close to it"
    assert reasons["pour"] == "cannot pour bathtub into toilet: bathtub cannot be poured"
    assert reasons["putback"] == "cannot put back bathtub: it was not picked up"
    assert reasons["grab"] == "cannot grab bathtub: it cannot be grabbed"
