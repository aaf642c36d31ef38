"""Each environment owns one verb lexicon, and the modules that speak its verbs read them there."""

from __future__ import annotations

import pytest

from safetychip.agents import SKILLS
from safetychip.envs import ALL_VERBS, SpotEnv, Verb, VerbLexicon, VirtualHomeEnv
from safetychip.envs.thor import THOR_VERBS, ThorEnv
from safetychip.envs.virtualhome._predicates import EVENT_VERBS

ENVS = [SpotEnv, ThorEnv, VirtualHomeEnv]


@pytest.mark.parametrize("env", ENVS, ids=lambda e: e.__name__)
def test_every_environment_has_one_lexicon(env):
    assert isinstance(env.verbs, VerbLexicon)
    assert "done" in env.verbs and env.verbs["done"].template == "done"
    for verb, spec in env.verbs.items():
        assert spec.patterns, verb
        readings = env.verbs.matches(spec.template.format("x", "y"))
        assert verb in {v for v, _ in readings}, verb  # its own template reads as it


def test_the_public_verb_lists_are_read_from_the_lexicons():
    assert ALL_VERBS == VirtualHomeEnv.verbs.templates
    assert tuple(ThorEnv.verbs) == THOR_VERBS
    assert set(EVENT_VERBS.values()) <= set(VirtualHomeEnv.verbs)


def test_the_agents_skills_run_the_environment_templates():
    put = VirtualHomeEnv.verbs["putin"].template
    assert SKILLS["put_in"] == put.replace("{0}", "{}").replace("{1}", "{}") == "put {} in {}"


def test_a_lexicon_is_a_read_only_mapping():
    lexicon = VerbLexicon({"go": Verb("go to {0}", (r"go to (.+)",))}, words=("go",))
    assert repr(lexicon) == "VerbLexicon(go)" and lexicon.words == ("go",)
    assert list(lexicon.matches("run")) == [] and len(lexicon) == 1
    with pytest.raises(KeyError):
        lexicon["run"]
