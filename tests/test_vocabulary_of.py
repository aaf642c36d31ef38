"""One way to the vocabulary of a scene: ``Vocabulary.of`` (an environment, a scene, a file,
a named vocabulary) and, for a scene's name, ``safetychip.experiments.scene_vocabulary``."""

from __future__ import annotations

import json

import pytest

from safetychip.envs import VirtualHomeEnv, load_scene
from safetychip.errors import DataFileError
from safetychip.experiments import scene_vocabulary
from safetychip.ltl import parse
from safetychip.paths import SPOT_DEMO_CONSTRAINTS, SPOT_DIR
from safetychip.translate import Vocabulary


def test_an_environment_and_its_scene_give_the_same_vocabulary():
    from_env = Vocabulary.of(VirtualHomeEnv("apartment_2"))
    from_scene = Vocabulary.of(load_scene("apartment_2"))
    assert from_env.name == "apartment_2"
    assert (from_env.names, from_env.rooms, dict(from_env.classes)) == (
        from_scene.names, from_scene.rooms, dict(from_scene.classes))  # fmt: skip


def test_a_vocabulary_is_its_own_vocabulary():
    vocabulary = Vocabulary.from_names(["kitchen", "phone"])
    assert Vocabulary.of(vocabulary) is vocabulary


def test_the_spot_demo_vocabulary_is_what_its_constraints_mention():
    assert SPOT_DEMO_CONSTRAINTS.parent == SPOT_DIR and SPOT_DEMO_CONSTRAINTS.is_file()
    entries = json.loads(SPOT_DEMO_CONSTRAINTS.read_text(encoding="utf-8"))
    mentioned = {a for e in entries for p in parse(e["formula"]).propositions() for a in p.args}
    vocabulary = Vocabulary.of("spot_demo")
    assert vocabulary.name == "spot_demo" and vocabulary.names == tuple(sorted(mentioned))
    assert scene_vocabulary("spot_demo") is vocabulary


def test_a_names_file_is_read(tmp_path):
    path = tmp_path / "lab.txt"
    path.write_text("kitchen\nphone  # the one on the table\n", encoding="utf-8")
    assert Vocabulary.of(path).names == ("kitchen", "phone")
    assert scene_vocabulary(str(path)).name == "lab"


def test_a_scene_name_is_loaded_by_the_environments_not_the_translator():
    with pytest.raises(DataFileError, match=r"Vocabulary\.of\(safetychip\.envs\.load_scene\("
                       r"'apartment_1'\)\)"):  # fmt: skip
        Vocabulary.of("apartment_1")
    assert scene_vocabulary("apartment_1").names == Vocabulary.of(load_scene("apartment_1")).names


def test_an_unknown_scene_name_lists_the_known_ones():
    with pytest.raises(DataFileError, match=r"apartment_9: no such scene or vocabulary file; "
                       r"known scenes: apartment_1, apartment_2, spot_demo"):  # fmt: skip
        scene_vocabulary("apartment_9")
