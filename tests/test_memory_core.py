"""Episodic memory: episodes and rules, scene similarity, retrieval and blocking (with the real
MiniLM and the word stand-in), and the memory as a shield filter in a Safety Chip agent."""

from __future__ import annotations

import pytest
from _spies import SpyHome
from hypothesis import given
from hypothesis import strategies as st

from safetychip.agents import Chip, SafetyChipAgent
from safetychip.envs import load_tasks
from safetychip.llm import MiniLMEmbedder, ScriptedModel
from safetychip.memory import (
    Episode,
    EpisodicMemory,
    MemoryConfig,
    MemoryDecision,
    MemoryFilter,
    Rule,
    SceneGraph,
    SceneObject,
    WordEmbedder,
    acted_object,
    command_verb,
    scene_similarity,
)
from safetychip.shield import Proposal

SHELF = SceneGraph.of(
    {"vase": ["fragile"], "shelf": ["heavy"], "floor": []},
    [("vase", "ON", "shelf"), ("shelf", "ON", "floor")],
)
CUP = SceneGraph.of({"ceramic_cup": ["fragile"], "shelf": ["heavy"], "floor": []},
                    [("ceramic_cup", "ON", "shelf"), ("shelf", "ON", "floor")])  # fmt: skip
HALL = SceneGraph.of({"person": ["human"], "hallway": []}, [("person", "INSIDE", "hallway")])


@pytest.fixture(scope="module")
def minilm():
    """One real MiniLM for the module (torch loads once)."""
    return MiniLMEmbedder()


@pytest.fixture
def memory():
    with EpisodicMemory(embedder=WordEmbedder()) as memory:
        yield memory


# -- episodes, rules, scenes ----------------------------------------------------------------


def test_episodes_and_rules_round_trip_and_render():
    episode = Episode("push the vase", SHELF, "breakage", 12.5, "model")
    assert episode.confidence == 0.6 and Episode.from_dict(episode.to_dict()) == episode
    assert repr(episode) == "<Episode 'push the vase': breakage, model 0.6>"
    assert "<code>push the vase</code>" in episode._repr_html_()
    rule = Rule("push", "Fragile Object", "breakage", 0.3)
    assert rule.target == "fragile_object" and Rule.from_dict(rule.to_dict()) == rule
    assert "push × fragile_object" in repr(rule) and "θ=0.3" in rule._repr_html_()
    assert SceneGraph.from_dict(SHELF.to_dict()) == SHELF
    assert repr(HALL) == "SceneGraph(person[human], hallway; 1 relations)"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Episode(""), "a command must be a non-empty string, got ''"),
        (lambda: Episode("x" * 501), "at most 500 characters, got 501"),
        (lambda: Episode("push it", harm="boredom"), r"Episode.harm must be one of breakage"),
        (lambda: Episode("push it", source="rumour"), r"Episode.source must be one of sensor"),
        (lambda: Episode("push it", confidence=2), r"Episode.confidence must be a number in"),
        (lambda: Rule("admire", "vase"), r"Rule.verb must be one of push, grasp"),
        (lambda: Rule("push", " "), "Rule.target must be a class or attribute"),
        (lambda: SceneGraph.of({"a": []}, [("a", "ON", "b")]), "name ids no object has: b"),
        (lambda: SceneGraph((SceneObject("a", "x"), SceneObject("a", "y"))), "a repeated"),
        (lambda: SceneGraph.from_dict({"objects": [{"id": "a"}]}), "needs 'id' and 'class'"),
        (lambda: Episode.from_dict({"harm": "cut"}), "Episode data lacks command: its fields"),
        (
            lambda: Rule.from_dict({"verb": "push", "target": "x", "colour": 1}),
            "Rule data has unknown colour: its fields are verb, target",
        ),  # fmt: skip
        (lambda: MemoryConfig(alpha=-0.1), r"MemoryConfig.alpha must be a number in \[0, 1\]"),
        (lambda: MemoryConfig(delta_sem="high"), "MemoryConfig.delta_sem must be a number"),
    ],
)
def test_bad_input_is_a_value_error_naming_the_field(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_the_verb_lexicon_and_rule_matching():
    assert [command_verb(c) for c in ("Knocks over the cup", "grab the knife", "sing")] == [
        "push", "grasp", None,
    ]  # fmt: skip
    rule = Rule("push", "fragile")
    assert rule.match("push the ceramic cup", CUP) == 1.0  # by the scene's attribute
    assert rule.match("push the ceramic cup") == 0.5  # no scene: the verb alone
    assert rule.match("push the fragile box") == 1.0  # the attribute is in the words
    assert rule.match("grasp the ceramic cup", CUP) == 0.5
    assert Rule("push", "shelf").match("shove the shelf", CUP) == 1.0  # a class


scenes = st.builds(
    lambda things, pairs: SceneGraph.of(
        things, [(a, "ON", b) for a, b in pairs if a in things and b in things]
    ),
    st.dictionaries(st.sampled_from("abcde"), st.sets(st.sampled_from(["hot", "sharp"]))),
    st.lists(st.tuples(st.sampled_from("abcde"), st.sampled_from("abcde")), max_size=4),
)


@given(scenes, scenes)
def test_scene_similarity_is_a_symmetric_score_with_identity_one(a, b):
    assert scene_similarity(a, a) == 1.0
    assert scene_similarity(a, b) == scene_similarity(b, a)
    assert 0.0 <= scene_similarity(a, b) <= 1.0


def test_scene_similarity_is_zero_when_disjoint_and_grows_with_shared_attributes():
    assert scene_similarity(SHELF, HALL) == 0.0
    plain = SceneGraph.of({"cup": []})
    fragile = SceneGraph.of({"cup": ["fragile"]})
    both = SceneGraph.of({"cup": ["fragile", "hot"]})
    target = SceneGraph.of({"cup": ["fragile", "hot"], "stove": ["hot"]})
    assert scene_similarity(plain, target) < scene_similarity(fragile, target)
    assert scene_similarity(fragile, target) < scene_similarity(both, target)
    assert scene_similarity(SHELF, CUP) > scene_similarity(SHELF, SceneGraph.of({"cup": []}))


def room(acted: dict[str, list[str]], extra: dict[str, list[str]], place: str) -> SceneGraph:
    """A room: the acted-on objects on *place*, and other objects around."""
    things = {**acted, place: ["heavy"], **extra}
    return SceneGraph.of(things, [(a, "ON", place) for a in acted])


ROOM_A = room(
    {"vase": ["fragile", "glass"]},
    {"knife": ["sharp"], "stove": ["hot"], "apple": [], "towel": ["soft"]},
    "table",
)
ROOM_B = room(
    {"vase": ["fragile", "glass"]},
    {"person": ["human"], "laptop": [], "lamp": ["fragile"], "chair": []},
    "desk",
)
ROOM_C = room({"bowl": ["fragile", "ceramic"], "book": []},
             {"person": ["human"], "lamp": ["fragile"], "chair": []}, "desk")  # fmt: skip


def test_object_centred_similarity_weighs_the_acted_object_over_the_room():
    whole = scene_similarity(ROOM_A, ROOM_B)
    same = scene_similarity(ROOM_A, ROOM_B, targets=("vase", "vase"))
    assert whole < 0.3 < 0.5 < same  # two different rooms, the same fragile vase
    fragile = scene_similarity(ROOM_A, ROOM_C, targets=("vase", "bowl"))
    plain = scene_similarity(ROOM_A, ROOM_C, targets=("apple", "book"))
    crossed = scene_similarity(ROOM_A, ROOM_C, targets=("vase", "book"))
    assert same > fragile > crossed and fragile > plain
    features = ROOM_B.around("vase")
    assert features["hazards"] == {"fragile"} and features["object"] == {"vase", "glass"}
    assert features["neighbours"] == {("ON", "desk"), ("ON", "heavy")}
    assert ROOM_B.around("desk")["neighbours"] == {("<ON", "vase"), ("<ON", "fragile"),
                                                   ("<ON", "glass")}  # fmt: skip
    no_target = scene_similarity(ROOM_A, ROOM_B, targets=(None, None))
    assert no_target == pytest.approx(whole)  # no object on either side: the rooms decide
    with pytest.raises(ValueError, match="'sofa' is not an object"):
        scene_similarity(ROOM_A, ROOM_B, targets=("sofa", "vase"))


@given(scenes, scenes, st.sampled_from("abcde"), st.sampled_from("abcde"))
def test_object_centred_similarity_is_a_symmetric_score(a, b, x, y):
    x = x if x in {o.id for o in a.objects} else None
    y = y if y in {o.id for o in b.objects} else None
    assert scene_similarity(a, a, targets=(x, x)) == 1.0
    assert scene_similarity(a, b, targets=(x, y)) == scene_similarity(b, a, targets=(y, x))
    assert 0.0 <= scene_similarity(a, b, targets=(x, y)) <= 1.0


def test_the_acted_object_is_the_hazard_a_command_names():
    scene = SceneGraph.of({"hallway": [], "person": ["human"], "kettle": ["hot"], "sofa": []})
    assert acted_object("walk through the hallway past the person", scene).id == "person"
    assert acted_object("carry the kettle past the person", scene).id == "kettle"
    assert acted_object("drive to the sofa", scene).id == "sofa"
    assert acted_object("drive to the kitchen", scene) is None


# -- retrieval and blocking ------------------------------------------------------------------


def test_the_same_unsafe_command_in_another_room_is_blocked_by_its_episode(memory):
    stored = memory.add(Episode("push the vase off the table", ROOM_A, "breakage"))
    decision = memory.check("push the vase off the desk", ROOM_B)
    assert decision.blocked and decision.by == "episode" and decision.matched == stored
    assert decision.scores["scene"] > 0.5
    assert not memory.check("push the book off the desk", ROOM_C).blocked  # not a hazard


def test_a_similar_command_is_blocked_by_the_episode_with_its_alternative(memory):
    stored = memory.add(Episode("push the vase off the shelf", SHELF, "breakage"))
    assert stored.id == "e1" and memory.episodes == (stored,)
    decision = memory.check("push the vase off the shelf", SHELF)
    assert decision.blocked and decision.by == "episode" and decision.matched == stored
    assert decision.scores["scene"] == 1.0 and decision.scores["episodic"] > 0.99
    assert decision.alternative == "move it slowly with both hands"
    assert "resembles unsafe episode e1" in decision.reason and "δ_ep = 0.8" in decision.reason
    assert MemoryDecision.from_dict(decision.to_dict()) == decision
    assert "blocked" in decision._repr_html_()
    assert not memory.check("walk to the kitchen").blocked


def test_the_scene_weighs_in_with_alpha(memory):
    memory.add(Episode("push the vase off the shelf", SHELF, "breakage"))
    elsewhere = memory.check("push the vase off the shelf", HALL)  # 0.6 * 1 + 0.4 * 0
    assert not elsewhere.blocked and elsewhere.scores["episodic"] == pytest.approx(0.6)
    memory.config = MemoryConfig(alpha=0.9)
    assert memory.check("push the vase off the shelf", HALL).blocked
    memory.config = MemoryConfig(delta_ep=0.95)
    assert not memory.check("push the vase off the table").blocked  # text alone, below δ_ep


def test_a_rule_blocks_above_delta_sem(memory):
    rule = memory.add_rule(Rule("push", "fragile", "breakage", 0.4))
    assert memory.rules == (rule,) and rule.id == "r1"
    blocked = memory.check("nudge the ceramic cup", CUP)
    assert blocked.blocked and blocked.by == "rule" and blocked.scores["rule"] == 1.0
    assert "matches rule r1 (push × fragile, breakage, θ = 0.4)" in blocked.reason
    assert not memory.check("nudge the ceramic cup").blocked  # no scene: 0.5
    memory.config = MemoryConfig(delta_sem=0.4)
    assert memory.check("nudge the ceramic cup").blocked


def test_check_refuses_bad_commands_and_a_bad_embedder(memory):
    with pytest.raises(ValueError, match="a command must be a non-empty string, got '  '"):
        memory.check("  ")
    with pytest.raises(TypeError, match=r"embedder must be a safetychip\.llm\.Embedder"):
        EpisodicMemory(embedder="minilm")


def test_minilm_blocks_a_paraphrase_and_a_rule_covers_a_new_object(minilm):
    with EpisodicMemory(embedder=minilm) as memory:
        memory.add(Episode("push the glass vase off the shelf", SHELF, "breakage"))
        memory.add(Episode("walk through the hallway past the person", HALL, "collision"))
        paraphrase = memory.check("shove the vase off the shelf", SHELF)
        assert paraphrase.blocked and paraphrase.episode.id == "e1", paraphrase.scores
        cup = memory.check("push the ceramic cup off the shelf", CUP)  # a new object
        assert not cup.blocked and 0.5 < cup.scores["episodic"] < 0.8, cup.scores
        memory.add_rule(Rule("push", "fragile", "breakage", 0.5))
        assert memory.check("push the ceramic cup off the shelf", CUP).by == "rule"
        person = memory.check("walk past the person in the hallway", HALL)
        assert person.blocked and person.alternative == "navigate around the person"
        assert not memory.check("walk to the kitchen", CUP).blocked
        assert minilm.encode("x").shape == (1, 384)


# -- the shield filter ------------------------------------------------------------------------


def test_the_filter_refuses_with_the_decision_and_reads_the_scene_of_the_state(memory):
    memory.add(Episode("walk to hallway", HALL, "collision"))
    seen = []
    f = MemoryFilter(memory, lambda state: seen.append(state) or HALL)
    refusal = f.judge(Proposal("walk to hallway"), {"a": True}, ())
    assert not refusal.admitted and refusal.filter == "memory" and seen == [{"a": True}]
    assert refusal.constraints == ("e1",) and refusal.details["scene"] == 1.0
    assert refusal.alternative == "navigate around the person"
    assert f.judge(Proposal("done"), {}, ()).admitted and len(seen) == 1
    with pytest.raises(TypeError, match=r"memory must be a safetychip\.memory\.EpisodicMemory"):
        MemoryFilter(object())


KITCHEN = {t.id: t for t in load_tasks()}["four_room/apartment_1/01"]


def test_a_chip_agent_is_reprompted_with_the_memory_suggestion(memory):
    memory.add(Episode("walk to bathroom", harm="collision"))
    model = ScriptedModel(["walk to bathroom", "walk to livingroom", "done", "done"])
    env = SpyHome(task=KITCHEN)
    agent = SafetyChipAgent(model, filters=[MemoryFilter(memory)])
    assert isinstance(agent.chip, Chip)
    episode = agent.run(KITCHEN, 1, env=env)
    first = episode.record.steps[0]
    assert first.action == "walk to bathroom" and first.outcome == "pruned"
    assert first.judgement.filter == "memory" and first.judgement.constraints == ("e1",)
    assert "walk to bathroom" not in env.stepped
    reprompt = model.requests[1].messages[-1].content
    assert "'walk to bathroom' is not allowed: it resembles unsafe episode e1" in reprompt
    assert "Try instead: navigate around the person." in reprompt
