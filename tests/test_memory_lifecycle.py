"""Episodic memory lifecycle: seeds, harm reports, consolidation into rules that generalise,
the capacity cap and archiving, overrides that lower θ and split an over-broad rule, decay,
and all of it surviving a reopened file."""

from __future__ import annotations

import json
import sqlite3

import pytest

from safetychip.llm import MiniLMEmbedder
from safetychip.memory import (
    FORMAT,
    SOURCES,
    Episode,
    EpisodicMemory,
    MemoryConfig,
    MemoryDecision,
    MemoryFilter,
    Rule,
    SceneGraph,
    WordEmbedder,
    acted_object,
    load_seeds,
    rule_pattern,
)
from safetychip.shield import Proposal


def on(thing: str, attributes: list[str], place: str = "shelf") -> SceneGraph:
    return SceneGraph.of({thing: attributes, place: ["heavy"]}, [(thing, "ON", place)])


VASE = on("vase", ["fragile", "glass"])
BOWL = on("bowl", ["fragile", "ceramic"], "table")
PLATE = on("plate", ["fragile"], "counter")
CUP = on("ceramic_cup", ["fragile"], "table")
KNIFE = on("knife", ["sharp"], "counter")
HALL = SceneGraph.of({"person": ["human"], "hallway": []}, [("person", "INSIDE", "hallway")])
FRAGILE = [("push the vase off the shelf", VASE), ("push the bowl off the table", BOWL),
           ("push the plate off the counter", PLATE)]  # fmt: skip


def memory(path=":memory:", **config):
    return EpisodicMemory(path, embedder=WordEmbedder(), config=MemoryConfig(**config))


def test_the_seeds_load_with_scene_graphs_across_the_harms():
    seeds = load_seeds()
    assert len(seeds) == 10 and all(s.scene.objects and s.time == 0.0 for s in seeds)
    assert {s.harm for s in seeds} == {"breakage", "collision", "cut", "burn", "crush"}
    with memory() as m:
        stored = m.seed()
        assert [e.id for e in stored] == [f"e{i}" for i in range(1, 11)]
        decision = m.check("grab the kitchen knife by the blade", seeds[5].scene)
        assert decision.blocked and decision.alternative == "grasp by the handle"


def test_a_bad_seed_file_is_a_value_error_naming_it(tmp_path):
    path = tmp_path / "seeds.json"
    path.write_text(json.dumps({"episodes": []}))
    with pytest.raises(ValueError, match="is not a seed file: its 'format' must be"):
        load_seeds(path)
    path.write_text(json.dumps({"format": "safetychip-memory-seeds 1",
                                "episodes": [{"command": "push it", "harm": "boredom"}]}))  # fmt: skip
    with pytest.raises(ValueError, match=r"seed episode 0 is malformed: Episode\.harm must be"):
        load_seeds(path)


@pytest.mark.parametrize("source", ["sensor", "person", "model"])
def test_a_harm_report_adds_an_episode_with_the_confidence_of_its_source(source):
    with memory() as m:
        episode = m.report_harm("push the vase off the shelf", VASE, "breakage", source)
        assert episode.confidence == SOURCES[source] and m.episodes == (episode,)
        assert m.interactions == 0  # a report is no interaction; record counts them
    assert SOURCES["sensor"] > SOURCES["model"]


def test_the_filter_commits_what_ran_with_the_harm_the_caller_detects():
    with memory() as m:
        seen = []
        f = MemoryFilter(m, lambda state: HALL, harm=lambda p, states: seen.append(states)
                         or ("collision" if "person" in p.action else None), source="person")  # fmt: skip
        assert f.commit(Proposal("walk to the kitchen"), ({"a": True},)) is None
        f.commit(Proposal("walk past the person"), ())
        f.commit(Proposal("done"), ())
        assert m.interactions == 2 and seen == [({"a": True},), ()]
        harmless, episode = m.episodes  # the harmless run is evidence too
        assert (harmless.command, harmless.harm) == ("walk to the kitchen", None)
        assert (episode.command, episode.scene, episode.source) == ("walk past the person",
                                                                     HALL, "person")  # fmt: skip


def learned(m: EpisodicMemory) -> Rule:
    for command, scene in FRAGILE:
        m.record(command, scene, harm="breakage")
    m.record("grab the knife by the blade", KNIFE, harm="cut")
    m.record("walk past the person", HALL, harm="collision")  # the 5th: consolidation
    (rule,) = m.rules
    return rule


def test_consolidation_writes_a_rule_that_catches_a_new_object():
    with memory(consolidate_every=5) as m:
        before = m.check("push the ceramic cup", CUP)
        assert not before.blocked and m.rules == ()
        rule = learned(m)
        assert (rule.verb, rule.target, rule.harm, rule.confidence) == (
            "push",
            "fragile",
            "breakage",
            3 / 5,
        )
        assert [e.rule for e in m.episodes] == ["r1", "r1", "r1", "", ""]
        decision = m.check("push the ceramic cup", CUP)
        assert decision.blocked and decision.by == "rule" and decision.rule == rule
        assert not m.check("push the ceramic cup").blocked  # no scene: the verb alone
        # consolidated episodes stay, deprioritised by the documented weight
        again = m.check("push the vase off the shelf", VASE)
        assert again.episode.id == "e1" and again.scores["episodic"] == pytest.approx(0.9)
        assert m.check("walk past the person", HALL).scores["episodic"] == pytest.approx(1)
        assert m.consolidate() == []  # nothing new: no reinforcement, no duplicate
        m.report_harm("push the bowl off the counter", BOWL, "breakage")
        (reinforced,) = m.consolidate()
        assert (
            reinforced.id == "r1"
            and reinforced.confidence == pytest.approx(4 / 6)
            and len(m.rules) == 1
        )


def test_dissimilar_or_too_few_episodes_write_no_rule():
    with memory(consolidate_every=4, cluster_similarity=0.9) as m:
        for command, scene in FRAGILE:
            m.record(command, scene, harm="breakage")
        m.record("walk to the kitchen")
        assert m.rules == () and m.interactions == 4
    with memory() as m:
        for command, scene in FRAGILE[:2]:
            m.report_harm(command, scene, "breakage")
        assert m.consolidate() == [] and m.rules == ()


def test_minilm_consolidation_generalises_to_a_ceramic_cup():
    with EpisodicMemory(embedder=MiniLMEmbedder()) as m:
        for command, scene in [("push the glass vase off the shelf", VASE),
                               ("knock the ceramic bowl off the table", BOWL),
                               ("push the plate off the counter", PLATE),
                               ("grab the knife by the blade", KNIFE)]:  # fmt: skip
            m.report_harm(command, scene, "cut" if "knife" in command else "breakage")
        (rule,) = m.consolidate()
        assert (rule.verb, rule.target, rule.confidence) == ("push", "fragile", 0.75)
        decision = m.check("push the ceramic cup off the table", CUP)
        assert decision.blocked and decision.by == "rule", decision.scores


def test_the_cap_archives_the_least_confident_and_archived_episodes_are_there_on_demand():
    with memory(capacity=3) as m:
        m.report_harm("push the vase off the shelf", VASE, "breakage", "model")  # 0.6
        m.report_harm("grab the knife by the blade", KNIFE, "cut", "sensor")
        m.report_harm("walk past the person", HALL, "collision", "person")
        m.report_harm("push the bowl off the table", BOWL, "breakage", "sensor")
        assert [e.id for e in m.live] == ["e2", "e3", "e4"] and m.episodes[0].archived
        assert not m.check("push the vase off the shelf", VASE).blocked
        on_demand = m.check("push the vase off the shelf", VASE, include_archived=True)
        assert on_demand.blocked and on_demand.episode.id == "e1"


def test_consolidated_episodes_are_archived_first():
    with memory(consolidate_every=5, capacity=5) as m:
        learned(m)
        m.report_harm("lift the kettle", None, "burn", "model")
        assert [e.id for e in m.episodes if e.archived] == ["e1"]  # consolidated, oldest


WOODEN_CHAIR = SceneGraph.of({"chair": ["heavy", "wooden", "sturdy"], "table": []})
GLASS_VASE = SceneGraph.of({"vase": ["heavy", "fragile", "glass"], "table": []})


def broad(m: EpisodicMemory) -> Rule:
    """A hand-written over-broad rule and the harm that supports it."""
    for thing in ("tv", "mirror", "aquarium"):
        scene = SceneGraph.of({thing: ["heavy", "fragile"], "stand": []})
        m.report_harm(f"shove the {thing} off its stand", scene, "breakage")
    return m.add_rule(Rule("push", "heavy", "breakage", 0.6))


def override_chair(m: EpisodicMemory, where: str = "to the table") -> list:
    """Override the block of pushing the wooden chair *where*; what changed, without the
    harmless episode every override stores."""
    decision = m.check(f"push the wooden chair {where}", WOODEN_CHAIR)
    assert decision.blocked and decision.by == "rule", decision
    *changed, harmless = m.override(decision, WOODEN_CHAIR)
    assert (harmless.command, harmless.harm, harmless.source) == (decision.command, None,
                                                                  "person")  # fmt: skip
    return changed


def test_overrides_lower_theta_then_split_the_over_broad_rule(tmp_path):
    path = tmp_path / "memory.db"
    with memory(path) as m:
        rule = broad(m)
        assert override_chair(m) == [m.rules[0]] and m.rules[0].confidence == 0.42
        assert override_chair(m, "aside")[0].confidence == 0.294
        assert len(m.negatives(rule.id)) == 2
        retired, *children = override_chair(m, "toward a window")
        assert retired.retired and retired.id == rule.id
        assert [(r.verb, r.target, r.exclude, r.confidence) for r in children] == [
            ("push", "fragile", ("chair",), 1.0)]  # fmt: skip
        assert not m.check("push the wooden chair to the table", WOODEN_CHAIR).blocked
        vase = m.check("push the glass vase", GLASS_VASE)
        assert vase.blocked and vase.by == "rule" and vase.rule == children[0]
        rules, episodes = m.rules, m.episodes
    with memory(path) as m:  # everything survives reopening
        assert m.rules == rules and m.episodes == episodes and len(m.negatives("r1")) == 3
        assert not m.check("push the wooden chair to the table", WOODEN_CHAIR).blocked


def test_collision_seeds_act_on_people_and_consolidate_into_a_rule_about_people():
    seeds = load_seeds()
    collisions = [s for s in seeds if s.harm == "collision"]
    assert {acted_object(s.command, s.scene).cls for s in collisions} == {"person", "child"}
    with memory(consolidate_every=1) as m:
        m.seed()
        guest = SceneGraph.of({"guest": ["human"], "sofa": ["heavy"]}, [("guest", "CLOSE", "sofa")])
        m.record("walk straight through the guest", guest, harm="collision")
        [rule] = [r for r in m.rules if r.harm == "collision"]
        assert (rule.verb, rule.target) == ("navigate", "human")
        nurse = SceneGraph.of({"nurse": ["human"], "bed": ["heavy"]})
        decision = m.check("drive into the nurse by the bed", nurse)
        assert decision.blocked and decision.rule == rule
        assert not m.check("drive to the bed", nurse).blocked


def test_one_odd_episode_does_not_keep_a_cluster_from_its_rule():
    fragile = [Episode(f"push the {t} off the shelf", SceneGraph.of({t: ["fragile"]}))
               for t in ("vase", "bowl", "plate")]  # fmt: skip
    odd = Episode("push the box off the shelf", SceneGraph.of({"box": []}))
    assert rule_pattern([*fragile, odd]) == ("push", "fragile")
    assert rule_pattern([fragile[0], odd]) is None  # no attribute carried by more than half


def test_overrides_on_the_same_objects_narrow_a_rule_by_the_commands_manner():
    sharp = {"knife": ["sharp"], "razor": ["sharp"], "cleaver": ["sharp"]}
    with memory(split_after=2, delta_ep=0.95) as m:  # the rule decides, not the episodes
        for thing in sharp:
            m.report_harm(f"grab the {thing} by the blade", SceneGraph.of(sharp), "cut")
        rule = m.add_rule(Rule("grasp", "sharp", "cut", 0.5))
        for thing in ("knife", "razor"):
            decision = m.check(f"pick up the {thing} by the handle", SceneGraph.of(sharp))
            assert decision.blocked and decision.by == "rule" and decision.rule.id == rule.id
            changed = m.override(decision, SceneGraph.of(sharp))
        retired, narrowed, harmless = changed
        assert harmless.command == "pick up the razor by the handle" and not harmless.harmful
        assert retired.retired and (narrowed.target, narrowed.exclude) == ("sharp", ("handle",))
        assert narrowed.confidence == 1.0  # the three harmful episodes of three live ones
        assert not m.check("pick up the cleaver by the handle", SceneGraph.of(sharp)).blocked
        assert m.check("grab the cleaver by its blade", SceneGraph.of(sharp)).blocked


def test_a_rule_without_supporting_episodes_is_narrowed():
    with memory(split_after=1) as m:
        m.add_rule(Rule("push", "heavy", "crush", 0.5))
        _, narrowed = override_chair(m)
        assert (narrowed.target, narrowed.exclude, narrowed.confidence) == (
            "heavy",
            ("chair",),
            0.5,
        )
        assert m.check("push the heavy box").blocked


def test_overrides_lower_confidence_then_archive_an_episode_and_bad_overrides_are_refused():
    with memory() as m:
        m.report_harm("walk past the person", HALL, "collision")
        for confidence, manner in zip((0.63, 0.441, 0.3087), ("slowly", "carefully", "gently")):
            command = f"walk past the person {manner}"
            decision = m.check(command, HALL)
            assert decision.blocked and decision.by == "episode", decision
            (episode, harmless) = m.override(decision, HALL)
            assert episode.confidence == confidence and harmless.command == command
            again = m.check(command, HALL)  # the override is a negative example, visible now
            assert not again.blocked and again.harmless == harmless, again
        assert episode.archived and not m.check("walk past the person", HALL).blocked
        with pytest.raises(ValueError, match="was not blocked: only a block can be overridden"):
            m.override(m.check("walk past the person", HALL))
        foreign = MemoryDecision(True, "walk past the person",
                                 Episode("walk past the person", id="e9"), by="episode")  # fmt: skip
        with pytest.raises(ValueError, match="is not in this memory: override a decision"):
            m.override(foreign)


def test_an_unreinforced_rule_decays_with_its_half_life():
    with memory(consolidate_every=10, half_life=10) as m:
        m.add_rule(Rule("grasp", "hot", "burn", 0.8))
        for i in range(20):
            m.record(f"walk to room {i}")
        assert m.rules[0].confidence == 0.2 and m.rules[0].stamp == 20
    with memory(consolidate_every=5, half_life=5, theta_min=0.3) as m:
        learned(m)  # learned at 5
        assert m.rules[0].confidence == 0.6
        for _ in range(5):
            m.record("walk to the kitchen")  # its episodes are no new evidence
        assert m.rules[0].confidence == 0.3 and m.check("push the ceramic cup", CUP).blocked
        for _ in range(5):
            m.record("walk to the kitchen")
        assert not m.check("push the ceramic cup", CUP).blocked  # θ 0.15 < θ_min


def test_the_lifecycle_survives_reopening(tmp_path):
    path = tmp_path / "memory.db"
    with memory(path, consolidate_every=5, capacity=5) as m:
        learned(m)
        m.record("lift the kettle", harm="burn")
        state = (m.episodes, m.rules, m.interactions)
        assert sum(e.archived for e in m.episodes) == 1
    with memory(path, consolidate_every=5, capacity=5) as m:
        assert (m.episodes, m.rules, m.interactions) == state == (state[0], state[1], 6)
        assert m.check("push the ceramic cup", CUP).by == "rule"
        assert (
            m.check("push the vase off the shelf", VASE, include_archived=True).episode.id == "e1"
        )


def test_a_format_1_file_is_migrated_in_place(tmp_path):
    path = tmp_path / "old.db"
    with memory(path) as m:
        m.report_harm("push the vase off the shelf", VASE, "breakage")
    db = sqlite3.connect(path)
    db.executescript("DROP TABLE negatives; UPDATE meta SET value = 'safetychip-memory 1';")
    db.close()
    with memory(path) as m:
        assert len(m.episodes) == 1 and m.negatives("e1") == []
        m.override(m.check("push the vase off the shelf", VASE), VASE)
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == (FORMAT,)
    db.close()


@pytest.mark.parametrize(
    ("config", "message"),
    [({"consolidate_every": 0}, "MemoryConfig.consolidate_every must be a positive integer"),
     ({"split_after": 2.5}, "MemoryConfig.split_after must be a positive integer, got 2.5"),
     ({"override_factor": 2}, r"MemoryConfig.override_factor must be a number in \[0, 1\]")],
)  # fmt: skip
def test_bad_lifecycle_settings_name_the_field(config, message):
    with pytest.raises(ValueError, match=message):
        MemoryConfig(**config)
