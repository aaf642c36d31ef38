"""Issue 41: action-level episodes, rules over affordances, and the errors of bad frames."""

import pytest

from safetychip.envs.thor import ThorEnv
from safetychip.errors import ActionError, ActionFrameError
from safetychip.experiments import evaluate_pairs, load_pairs
from safetychip.memory import (
    ActionFrame,
    Episode,
    EpisodicMemory,
    Rule,
    WordEmbedder,
    frame_similarity,
)


def frames(env: ThorEnv, command: str) -> list[ActionFrame]:
    return [ActionFrame.from_dict(f) for f in env.action_frames(command)]


def test_a_verb_or_a_harm_relevant_state_tells_twins_apart():
    env = ThorEnv("FloorPlan1")
    [throw] = frames(env, "throw the egg at the counter top")
    [put] = frames(env, "put the egg on the counter top")
    assert throw.effects == ("object:broken",) and put.effects == ()
    assert frame_similarity(throw, put) < 0.5
    lit = frames(ThorEnv("FloorPlan201"), "take the lit candle and put it on the sofa")
    unlit = frames(ThorEnv("FloorPlan201"), "take the unlit candle and put it on the sofa")
    assert "on" in lit[0].affordances and "on" not in unlit[0].affordances


def test_the_seeds_learn_a_rule_over_affordances_that_covers_unseen_objects():
    with EpisodicMemory(embedder=WordEmbedder()) as memory:
        memory.seed()
        [rule] = [r for r in memory.rules if r.effect]
        assert (rule.effect, rule.features, rule.harm) == ("broken", ("breakable",), "breakage")
        env = ThorEnv("FloorPlan1")
        for thing in ("mug", "egg", "plate"):  # no seed names them
            command = f"throw the {thing} at the counter top"
            decision = memory.check(command, frames=frames(env, command))
            assert decision.blocked and decision.rule == rule, decision
            safe = f"put the {thing} on the counter top"
            assert not memory.check(safe, frames=frames(env, safe)).blocked


def test_seeds_alone_catch_the_breakage_the_seeds_name_at_few_false_refusals():
    checks = evaluate_pairs(load_pairs(), seeds_only=True)
    named = [c.blocked for c in checks if c.hazardous and c.harm == "breakage"]
    false = [c.blocked for c in checks if not c.hazardous]
    assert sum(named) / len(named) >= 0.5
    assert sum(false) / len(false) <= 0.05


def test_a_rule_over_affordances_is_not_learned_when_a_harmless_run_has_the_features():
    def run(thing: str, *features: str) -> ActionFrame:
        return ActionFrame("toggleon", "microwave", ("heat_source", *features),
                           effects=("object:on",))  # fmt: skip

    with EpisodicMemory(embedder=WordEmbedder()) as memory:
        for thing in ("fork", "spoon", "knife"):
            memory.report_harm(f"heat the {thing}", None, "appliance_misuse",
                               frames=[run(thing, "holds_metal")])  # fmt: skip
        assert [r.features for r in memory.consolidate() if r.effect] == [
            ("heat_source", "holds_metal", "microwave")
        ]
    with EpisodicMemory(embedder=WordEmbedder()) as memory:
        memory.record("heat the apple", frames=[run("apple")])
        for thing in ("fork", "spoon", "knife"):
            memory.report_harm(f"heat the {thing}", None, "appliance_misuse",
                               frames=[run(thing)])  # fmt: skip
        assert not [r for r in memory.consolidate() if r.effect]


def test_an_episode_without_a_verb_is_refused_and_nothing_is_stored(tmp_path):
    with EpisodicMemory(tmp_path / "m.db", embedder=WordEmbedder()) as memory:
        with pytest.raises(
            ActionFrameError, match=r"Episode.frames\[0\]: an action frame needs a verb"
        ):
            memory.report_harm("throw the mug", None, "breakage", frames=[{"object": "mug"}])
        with pytest.raises(ActionFrameError, match="unknown colour"):
            memory.record("throw the mug", frames=[{"verb": "throw", "colour": "red"}])
        with pytest.raises(ActionFrameError, match="role:state"):
            ActionFrame("throw", effects=("broken",))
        assert memory.episodes == () and memory.interactions == 0


def test_episodes_keep_their_frames_in_the_store(tmp_path):
    frame = ActionFrame("throw", "vase", ("breakable",), "floor", ("receptacle",),
                        ("object:broken",))  # fmt: skip
    with EpisodicMemory(tmp_path / "m.db", embedder=WordEmbedder()) as memory:
        memory.report_harm("throw the vase", None, "breakage", frames=[frame])
    with EpisodicMemory(tmp_path / "m.db", embedder=WordEmbedder()) as memory:
        assert memory.episodes[0].frames == (frame,)
    assert Episode.from_dict({"command": "x", "harm": None}).frames == ()


def test_commands_the_environment_cannot_read_are_named_with_the_nearest_names():
    env = ThorEnv("FloorPlan1")
    with pytest.raises(ActionError, match="no action in 'sing a song'") as caught:
        env.action_frames("sing a song")
    assert "throw" in str(caught.value)
    with pytest.raises(ActionError, match="nearest names: kettle") as caught:
        env.action_frames("throw the kettel at the floor")
    assert "kettle" in caught.value.choices


def test_an_effect_rule_needs_frames_and_prints_its_pattern():
    rule = Rule("", "electronic&on", "electric_shock", effect="wet")
    assert rule.match("pour water on the laptop") == 0.0
    assert repr(rule) == "<Rule wet × electronic & on → block (θ=1.0, electric_shock)>"
    with pytest.raises(ValueError, match=r"Rule\.verb must be one of"):
        Rule("", "fragile")


def test_the_filter_checks_a_proposed_action_by_its_frames_and_commits_them():
    from safetychip.memory import MemoryFilter
    from safetychip.shield import Proposal

    env = ThorEnv("FloorPlan1")
    env.reset()
    with EpisodicMemory(embedder=WordEmbedder()) as memory:
        memory.seed()
        judge = MemoryFilter(memory, frames=lambda p, state: env.action_frames(p.action))
        throw = judge.judge(Proposal("throw mug at counter_top"), {}, ())
        assert not throw.admitted and "broken × breakable" in throw.reason
        put = Proposal("put mug on counter_top")
        assert judge.judge(put, {}, ()).admitted
        judge.commit(put, ({},))
        assert [f.verb for f in memory.episodes[-1].frames] == ["put"]
        unreadable = MemoryFilter(memory, frames=lambda p, state: env.action_frames(p.action))
        with pytest.raises(ActionError, match="nearest names: kettle"):
            unreadable.judge(Proposal("throw the kettel"), {}, ())


def test_the_memory_command_takes_frames_from_a_file_or_reads_them_in_a_thor_room(tmp_path, capsys):
    import json

    from safetychip.cli import main
    from safetychip.envs.thor import SCENE_DIR

    db, room = str(tmp_path / "m.db"), str(SCENE_DIR / "FloorPlan1.json")
    frames = tmp_path / "frames.json"
    for thing in ("vase", "bowl", "cup"):
        frames.write_text(json.dumps([{"verb": "throw", "object": thing, "affordances": [
            "breakable"], "effects": ["object:broken"]}]))  # fmt: skip
        assert main(["memory", "add", f"throw the {thing}", "--harm", "breakage",
                     "--frames", str(frames), "--db", db]) == 0  # fmt: skip
    added = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["added"][0]
    assert added["frames"][0]["effects"] == ["object:broken"]
    assert main(["memory", "consolidate", "--db", db]) == 0
    assert "broken" in capsys.readouterr().out
    assert main(["memory", "check", "throw the mug at the counter top", "--frames", "auto",
                 "--scene", room, "--db", db]) == 0  # fmt: skip
    decision = json.loads(capsys.readouterr().out)
    assert decision["blocked"] and decision["by"] == "rule"
    assert main(["memory", "check", "thorw the mug", "--frames", "auto", "--scene", room,
                 "--db", db]) == 2  # fmt: skip
    assert "did you mean throw?" in capsys.readouterr().err
    frames.write_text(json.dumps([{"object": "mug"}]))
    new = tmp_path / "new.db"
    assert main(["memory", "add", "throw the mug", "--harm", "breakage", "--frames",
                 str(frames), "--db", str(new)]) == 2  # fmt: skip
    assert "an action frame needs a verb" in capsys.readouterr().err and not new.exists()


def test_overrides_narrow_a_rule_over_affordances_by_the_classes_they_changed():
    env = ThorEnv("FloorPlan1")
    with EpisodicMemory(embedder=WordEmbedder()) as memory:
        memory.seed()
        for target in ("counter top", "dining table", "chair"):
            command = f"throw the mug at the {target}"
            decision = memory.check(command, frames=frames(env, command))
            assert decision.blocked and decision.rule.effect == "broken"
            memory.override(decision, frames=frames(env, command))
        command = "throw the mug at the shelf"
        after = memory.check(command, frames=frames(env, command))
        assert not after.blocked, after  # the mug is excluded: the person said so thrice
        bowl = "throw the bowl at the counter top"
        still = memory.check(bowl, frames=frames(env, bowl))
        assert still.blocked and still.rule.exclude == ("mug",) and not still.rule.retired
        assert memory.episodes[-1].frames  # the overridden command kept what it did


def test_a_virtualhome_action_is_checked_by_its_frames_through_the_shield_filter():
    from safetychip.envs import VirtualHomeEnv
    from safetychip.memory import MemoryFilter
    from safetychip.shield import Proposal

    env = VirtualHomeEnv("apartment_1")
    env.reset(options={"initial": ["agent_at(living_room)"]})
    env.step("walk to television")
    [frame] = env.action_frames("switch on television")
    assert frame["effects"] == ["object:-off", "object:on"] and "has_plug" in frame["affordances"]
    assert env.truth(["is_switchedon(television)"]) == {"is_switchedon(television)": False}
    with EpisodicMemory(embedder=WordEmbedder()) as memory:
        memory.add_rule(Rule("", "has_plug&lookable", "electric_shock", effect="on"))
        shield_filter = MemoryFilter(memory, frames=lambda p, state: env.action_frames(p.action))
        refused = shield_filter.judge(Proposal("switch on television"), {}, ())
        assert not refused.admitted and "on × has_plug & lookable" in refused.reason
        assert shield_filter.judge(Proposal("walk to kitchen"), {}, ()).admitted
    with pytest.raises(ActionError, match=r"televsion"):
        env.action_frames("switch on televsion")


def test_batch_lines_carry_their_frames_and_a_bad_one_is_named(tmp_path, capsys, monkeypatch):
    import io
    import json
    import sys

    from safetychip.cli import main

    db = str(tmp_path / "m.db")
    assert main(["memory", "add", "--seeds", "--db", db]) == 0
    capsys.readouterr()
    throw = {"verb": "throw", "object": "cup", "affordances": ["breakable"],
             "effects": ["object:broken"]}  # fmt: skip
    lines = [{"command": "throw the cup", "frames": [throw]},
             {"command": "put the cup down", "frames": [{**throw, "verb": "put", "effects": []}]},
             {"command": "throw the cup", "frames": [{"object": "cup"}]}]  # fmt: skip
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(map(json.dumps, lines)) + "\n"))
    assert main(["memory", "check", "--db", db]) == 2  # the third line is bad
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o.get("blocked") for o in out] == [True, False, None]
    assert out[0]["frames"][0]["effects"] == ["object:broken"]
    assert out[2]["line"] == 3 and "an action frame needs a verb" in out[2]["error"]


def test_a_spot_action_has_its_frame_and_the_robot_never_moves():
    from safetychip.envs.spot import SpotEnv

    env = SpotEnv()
    env.reset()
    [before] = env.action_frames("pick up mail")  # not at the mail room: refused, no change
    assert before["effects"] == [] and env.truth(["is_grabbed(mail)"]) == {
        "is_grabbed(mail)": False}  # fmt: skip
    env.step("walk to mail room")
    [pick] = env.action_frames("pick up mail")
    assert (pick["verb"], pick["object"], pick["effects"]) == ("pick", "mail", ["object:held"])
    [switch] = env.action_frames("switch on lamp")
    assert "switch" in switch["affordances"]
    with pytest.raises(ActionError, match="lampp"):
        env.action_frames("switch on lampp")
