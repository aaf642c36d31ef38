"""Issue 41: the open harm taxonomy, harmless runs as evidence weighed against harmful ones,
overrides visible in the next decision, and a capacity that tells when it archives."""

from __future__ import annotations

import json
import sqlite3
import warnings

import pytest

from safetychip.errors import MemoryCapacityWarning, UnknownHarmError
from safetychip.memory import (
    ALTERNATIVES,
    FORMAT,
    HARMS,
    Episode,
    EpisodicMemory,
    MemoryConfig,
    MemoryDecision,
    Rule,
    SceneGraph,
    WordEmbedder,
    define_harm,
    harm_name,
)

LAPTOP = SceneGraph.of({"laptop": ["electronic", "on"], "kettle": ["filled_with_water"]})
VASE = SceneGraph.of({"vase": ["fragile"], "table": []}, [("vase", "ON", "table")])
TEN = ("fire", "electric_shock", "explosion", "poisoning", "slip", "water_damage", "breakage",
       "furniture_damage", "injury", "appliance_misuse")  # fmt: skip


def memory(path=":memory:", **config):
    return EpisodicMemory(path, embedder=WordEmbedder(), config=MemoryConfig(**config))


def test_the_taxonomy_has_the_ten_harms_and_the_six_of_old_stores():
    assert set(TEN) | {"collision", "cut", "burn", "crush", "spill"} <= set(HARMS)
    assert all(ALTERNATIVES[h] == HARMS[h].alternative and ALTERNATIVES[h] for h in TEN)


@pytest.mark.parametrize(
    ("text", "name"),
    [("Electrocution", "electric_shock"), ("water damage", "water_damage"),
     ("set it on fire", "fire"), ("food poisoning", "poisoning"), ("Wet floor", "slip"),
     ("injury to a person", "injury"), ("misuse of an appliance", "appliance_misuse"),
     ("decor-damage", "furniture_damage"), ("shattered", "breakage"), ("explode", "explosion"),
     ("burn", "burn")],
)  # fmt: skip
def test_free_text_harm_names_map_to_the_taxonomy(text, name):
    assert harm_name(text) == name
    assert Episode("pour the water on the laptop", harm=text).harm == name
    assert Rule("pour", "electronic", text).harm == name


def test_an_unknown_harm_is_a_typed_error_naming_the_nearest_harms():
    with pytest.raises(UnknownHarmError, match=r"got 'electric shok': did you mean "
                       r"electric_shock") as caught:  # fmt: skip
        Episode("pour the water on the laptop", harm="electric shok")
    assert isinstance(caught.value, ValueError) and caught.value.nearest[0] == "electric_shock"
    with pytest.raises(UnknownHarmError, match=r"Rule\.harm must be one of .*define_harm"):
        Rule("push", "vase", "boredom")


def test_a_user_defined_harm_is_stored_and_read_back(tmp_path):
    harm = define_harm("allergic_reaction", "check the label for allergens",
                       aliases=("allergy", "anaphylaxis"))  # fmt: skip
    assert (
        define_harm(
            "allergic_reaction", "check the label for allergens", aliases=("allergy", "anaphylaxis")
        )
        == harm
    )  # the same again: a no-op
    with pytest.raises(ValueError, match="already defined"):
        define_harm("allergic_reaction", "something else")
    with pytest.raises(ValueError, match="shock already name another harm"):
        define_harm("zap", "unplug it", aliases=("shock",))
    with pytest.raises(ValueError, match="lower-case identifier"):
        define_harm("Allergic Reaction", "x")
    path = tmp_path / "memory.db"
    with memory(path) as m:
        m.report_harm("serve the peanut cake to the guest", None, "Anaphylaxis")
    with memory(path) as m:
        (episode,) = m.episodes
        assert episode.harm == "allergic_reaction"
        assert m.check("serve the peanut cake to the guest").alternative == harm.alternative


def test_a_format_3_store_opens_migrated(tmp_path):
    path = tmp_path / "v3.db"
    with memory(path) as m:  # a format-3 file: the same rows, its format's name
        m.report_harm("push the vase off the table", VASE, "breakage")
        with m.store.transaction():
            m.store._run("UPDATE meta SET value = 'safetychip-memory 3' WHERE key = 'format'")
            m.store._sum("meta", ("format", "safetychip-memory 3"))
    with memory(path) as m:
        assert m.check("push the vase off the table", VASE).blocked
        m.record("walk to the kitchen")
        assert [e.harm for e in m.episodes] == ["breakage", None]
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == (FORMAT,)
    db.close()


def test_a_harmless_run_is_stored_once_and_survives_reopening(tmp_path):
    path = tmp_path / "memory.db"
    with memory(path) as m:
        first = m.record("pour the water into the bowl", LAPTOP)
        assert first is not None and not first.harmful and first.alternative == ""
        assert m.record("pour the water into the bowl", LAPTOP) is None
        assert m.interactions == 2 and m.rules == ()
    with memory(path) as m:
        assert m.episodes == (first,)
        assert "1 episodes (1 harmless, 0 archived)" in repr(m)


def test_a_decision_weighs_harmful_neighbours_against_harmless_ones():
    with memory(delta_ep=0.6) as m:
        m.report_harm("pour the water on the laptop", LAPTOP, "electrocution")
        m.record("pour the water into the bowl", LAPTOP)
        harmful = m.check("pour the water on the laptop", LAPTOP)
        assert harmful.blocked and harmful.by == "episode" and harmful.episode.harm == (
            "electric_shock")  # fmt: skip
        assert harmful.harmless.command == "pour the water into the bowl"
        assert harmful.scores["harmless"] < harmful.scores["episodic"]
        assert "above the nearest harmless episode e2" in harmful.reason
        safe = m.check("pour the water into the bowl", LAPTOP)
        assert not safe.blocked and safe.episode.id == "e1" and safe.harmless.id == "e2"
        assert safe.scores["harmless"] >= safe.scores["episodic"] > 0.6
        assert "harmless episode e2" in safe.reason and "unsafe episode e1" in safe.reason
        assert MemoryDecision.from_dict(safe.to_dict()) == safe


def test_an_override_is_visible_in_the_next_decision_with_the_confidence():
    with memory() as m:
        m.report_harm("push the vase off the table", VASE, "breakage", "person")
        before = m.check("push the vase off the table", VASE)
        assert before.blocked and "confidence 0.8" in before.reason
        episode, harmless = m.override(before, VASE)
        after = m.check("push the vase off the table", VASE)
        assert not after.blocked and after.harmless == harmless and after.episode == episode
        assert "confidence 0.56" in after.reason  # the lowered confidence, shown


def test_a_harmless_episode_outweighs_a_rule_only_when_very_similar():
    with memory(delta_ep=0.99) as m:
        rule = m.add_rule(Rule("push", "fragile", "breakage", 0.5))
        decision = m.check("push the vase gently", VASE)
        assert decision.blocked and decision.by == "rule"
        m.override(decision, VASE)
        again = m.check("push the vase gently", VASE)
        assert not again.blocked and "outweighs rule r1" in again.reason
        other = m.check("push the vase off the table", VASE)
        assert other.blocked and other.rule.id == rule.id


def test_archiving_beyond_capacity_warns_once_counts_and_stays_retrievable():
    with memory(capacity=2) as m:
        m.report_harm("push the vase off the table", VASE, "breakage")
        with pytest.warns(MemoryCapacityWarning, match="capacity of 2 live episodes"):
            m.record("walk to the kitchen")
            m.record("walk to the garden")  # archives the harmless run first
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # said once per memory
            m.record("walk to the cellar")
        assert [e.archived for e in m.episodes] == [False, True, True, False]
        assert m.archived == 2 and "(3 harmless, 2 archived)" in repr(m)
        assert m.check("push the vase off the table", VASE).blocked
    with memory(capacity=1) as m, pytest.warns(MemoryCapacityWarning):
        m.report_harm("push the vase off the table", VASE, "breakage")
        m.report_harm("grab the knife by the blade", None, "cut")
        assert not m.check("push the vase off the table", VASE).blocked
        found = m.check("push the vase off the table", VASE, include_archived=True)
        assert found.blocked and found.episode.id == "e1"


def test_the_default_capacity_keeps_a_thousand_live_episodes():
    assert MemoryConfig().capacity == 1000


def test_the_cli_adds_harmless_runs_free_text_harms_and_reports_the_counts(tmp_path, capsys):
    from safetychip.cli import main

    db = str(tmp_path / "memory.db")

    def run(*argv):
        status = main(["memory", *argv, "--db", db])
        out, err = capsys.readouterr()
        return status, json.loads(out) if status == 0 else err

    status, out = run("add", "pour the water on the laptop", "--harm", "electrocution")
    assert status == 0 and out["added"][0]["harm"] == "electric_shock"
    assert (out["episodes"], out["live"], out["archived"], out["capacity"]) == (1, 1, 0, 1000)
    status, out = run("add", "pour the water into the bowl", "--harmless")
    assert status == 0 and out["added"][0]["harm"] is None
    status, out = run("check", "pour the water into the bowl")
    assert not out["blocked"] and out["harmless"]["command"] == "pour the water into the bowl"
    status, err = run("add", "pour the water", "--harm", "fire", "--harmless")
    assert status == 2 and "--harm is required" in err and "not both" in err
    status, err = run("add", "pour the water", "--harm", "electric shok")
    assert status == 2 and "did you mean electric_shock" in err
