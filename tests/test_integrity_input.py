"""Every field of an episode, rule and scene is checked where it enters (API, CLI, files),
with an error naming the field; one bad value never poisons a memory (issue 45, class 3)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from safetychip.cli import main
from safetychip.errors import MemoryStoreError
from safetychip.memory import (
    Episode,
    EpisodicMemory,
    Rule,
    SceneGraph,
    SceneObject,
    WordEmbedder,
    check_command,
)
from safetychip.memory._store import _digest

VASE = SceneGraph.of({"vase": ["fragile"]})


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Episode("push the vase", time="yesterday"), "Episode.time must be seconds"),
        (lambda: Episode("push the vase", time=float("nan")), "Episode.time must be seconds"),
        (lambda: Episode("push the vase", time=float("inf")), "Episode.time must be seconds"),
        (lambda: Episode("push the vase", time=True), "Episode.time must be seconds"),
        (lambda: Episode("push the vase", archived="no"), "Episode.archived must be true or false"),
        (lambda: Episode("push the vase", archived=1), "Episode.archived must be true or false"),
        (lambda: Episode("push the vase", rule=3), "Episode.rule must be a string"),
        (lambda: Episode("push the vase", id=None), "Episode.id must be a string"),
        (lambda: Episode("push the vase", harm=["cut"]), "Episode.harm must be one of"),
        (lambda: Episode("push the vase", source={"x": 1}), "Episode.source must be one of"),
        (lambda: Rule("push", "vase", retired="no"), "Rule.retired must be true or false"),
        (lambda: Rule("push", "vase", exclude="wooden"), "Rule.exclude must be a list of words"),
        (lambda: Rule("push", "vase", exclude=(3,)), "Rule.exclude must be a non-empty string"),
        (lambda: Rule("push", "va\x00se"), "Rule.target must be printable text"),
        (lambda: Rule(["push"], "vase"), "Rule.verb must be one of"),
        (lambda: SceneGraph.of({"vase": "fragile"}), "SceneObject.attributes must be a list"),
        (lambda: SceneObject("v", "vase", "fragile"), r"write \['fragile'\]"),
        (lambda: SceneObject("v", "va\x1b[0mse"), "SceneObject.cls must be printable text"),
        (lambda: SceneObject("v", "vase", ["fra\ud800gile"]), "SceneObject.attributes must be"),
        (lambda: SceneGraph((("vase",),)), "SceneGraph.objects must be SceneObjects"),
    ],
)
def test_a_bad_field_is_a_value_error_naming_it(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize(
    "command",
    ["push\x00the vase", "push the \x1b[31mvase\x1b[0m", "push the vase\ud800", "push\x7fvase",
     "push\rthe vase"],
)  # fmt: skip
def test_a_command_with_control_characters_or_lone_surrogates_is_refused(command):
    with pytest.raises(ValueError, match="a command must be printable text"):
        check_command(command)
    with pytest.raises(ValueError, match="a command must be printable text"):
        Episode(command)
    with EpisodicMemory(embedder=WordEmbedder()) as memory, pytest.raises(ValueError):
        memory.check(command)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"objects": [{"id": "v", "class": "vase", "attributes": "fragile"}]},
         "SceneObject.attributes must be a list of words"),
        ({"objects": [{"id": "v", "class": "vase", "attributes": [1]}]},
         "SceneObject.attributes must be a non-empty string"),
        ({"objects": [{"id": 7, "class": "vase"}]}, "SceneObject.id must be a non-empty string"),
        ({"objects": ["vase"]}, "a scene object needs 'id' and 'class'"),
        ({"objects": {"id": "v"}}, "a scene's 'objects' must be a list"),
        ({"objects": [{"id": "v", "class": "vase"}], "relations": [["v", "ON"]]},
         "scene relations must be"),
        ({"objects": [{"id": "v", "class": "vase"}], "relations": [["v", 3, "v"]]},
         "a relation must be a non-empty string"),
        (["vase"], "a scene must be"),
    ],
)  # fmt: skip
def test_a_bad_scene_file_names_the_field(data, message):
    with pytest.raises(ValueError, match=message):
        SceneGraph.from_dict(data)


def test_a_push_fragile_rule_still_blocks_with_a_list_of_attributes():
    with EpisodicMemory(embedder=WordEmbedder()) as memory:
        memory.add_rule(Rule("push", "fragile"))
        scene = SceneGraph.from_dict({"objects": [{"id": "cup", "class": "cup",
                                                   "attributes": ["fragile"]}]})  # fmt: skip
        assert memory.check("push the cup", scene).blocked


def test_the_cli_refuses_bad_fields_with_exit_2_and_names_them(tmp_path, capsys):
    db, scene = tmp_path / "memory.db", tmp_path / "scene.json"
    scene.write_text(json.dumps({"objects": [{"id": "v", "class": "vase",
                                              "attributes": "fragile"}]}))  # fmt: skip
    assert main(["memory", "add", "push the vase", "--harm", "breakage", "--scene", str(scene),
                 "--db", str(db)]) == 2  # fmt: skip
    assert "SceneObject.attributes must be a list of words" in capsys.readouterr().err
    assert main(["memory", "add", "push \x1b[2Jthe vase", "--harm", "breakage",
                 "--db", str(db)]) == 2  # fmt: skip
    assert "a command must be printable text" in capsys.readouterr().err
    assert not db.exists()


def test_a_bad_row_written_by_another_program_is_refused_not_poisoning_later_adds(tmp_path):
    path = tmp_path / "memory.db"
    with EpisodicMemory(path, embedder=WordEmbedder()) as memory:
        memory.add(Episode("push the vase", VASE))
    db = sqlite3.connect(path)
    data, model, vector = db.execute("SELECT data, model, vector FROM episodes").fetchone()
    bad = json.dumps({**json.loads(data), "time": "yesterday"})
    db.execute("UPDATE episodes SET data = ?, checksum = ? WHERE id = 1",
               (bad, _digest("episodes", (1, bad, model, vector))))  # fmt: skip
    db.commit()
    db.close()
    with pytest.raises(MemoryStoreError, match=r"unreadable episode row 1 .*Episode.time"):
        EpisodicMemory(path, embedder=WordEmbedder())
