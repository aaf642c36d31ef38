"""English constraints in the shield wrappers: sentences read by the offline translator over a
MiniGrid world's names are enforced as their formulas; a sentence the translator cannot read
fails at wrap time, naming the sentence and why."""

from __future__ import annotations

import gymnasium as gym
import minigrid  # noqa: F401 - registers the MiniGrid environments
import pytest

from safetychip.errors import TranslationError
from safetychip.gym import (
    MINIGRID_PREDICATES,
    MiniGridLabeller,
    ShieldWrapper,
    VectorShieldWrapper,
    minigrid_names,
)
from safetychip.monitor import Constraint, Monitor
from safetychip.translate import Translator, Vocabulary

LAVA, DOORKEY = "MiniGrid-LavaCrossingS9N1-v0", "MiniGrid-DoorKey-5x5-v0"


def _translator(name: str) -> Translator:
    """The offline translator over the object names of *name*'s world (seed 0)."""
    env = gym.make(name)
    env.reset(seed=0)
    vocabulary = Vocabulary.from_names(minigrid_names(env.unwrapped), rooms=[],
                                       predicates=dict.fromkeys(MINIGRID_PREDICATES, 1))  # fmt: skip
    return Translator(vocabulary, embedder=None)


@pytest.mark.parametrize(("name", "sentence", "formula"), [
    (LAVA, "Never go onto the lava.", 'G!"agent_at(lava)"'),
    (LAVA, "Avoid the lava.", 'G!"agent_at(lava)"'),
    (LAVA, "Never enter the lava.", 'G!"agent_at(lava)"'),
    (DOORKEY, "Don't open the yellow door before picking up the key.",
     '!"is_open(yellow_door)" W "is_grabbed(key)"'),
    (DOORKEY, "Do not pick up the key.", 'G!"is_grabbed(key)"'),
])  # fmt: skip
def test_sentences_the_offline_translator_reads(name, sentence, formula):
    env = ShieldWrapper(gym.make(name), MiniGridLabeller(), [sentence],
                        translator=_translator(name))  # fmt: skip
    (constraint,) = env.shield.monitor.constraints
    assert str(constraint.formula) == formula
    assert (constraint.sentence, constraint.name) == (sentence, "c1")


def test_an_english_lava_constraint_keeps_a_random_walk_off_the_lava():
    labeller = MiniGridLabeller()
    env = ShieldWrapper(gym.make(LAVA), labeller, ["Never go onto the lava."],
                        model=labeller.model, translator=_translator(LAVA))  # fmt: skip
    refused = 0
    for episode in range(5):
        env.reset(seed=episode)
        env.action_space.seed(episode)
        for _ in range(100):
            _, _, terminated, truncated, info = env.step(int(env.action_space.sample()) % 3)
            report = info["shield"]
            if not report.admitted:
                refused += 1
                assert report.refusals[0].judgement.constraints == ("c1",)
            world = env.unwrapped
            cell = world.grid.get(*world.agent_pos)
            assert cell is None or cell.type != "lava"
            if terminated or truncated:
                break
    assert refused > 0


def test_the_door_sentence_holds_the_door_shut_until_the_key_is_carried():
    env = ShieldWrapper(gym.make(DOORKEY), MiniGridLabeller(),
                        ["Don't open the yellow door before picking up the key."],
                        translator=_translator(DOORKEY))  # fmt: skip
    env.reset(seed=0)
    world = env.unwrapped
    door = next(o for o in world.grid.grid if o is not None and o.type == "door")
    door.is_locked = False  # a toggle would open it without the key
    # put the agent in front of the door: the cell left of it, facing right
    world.agent_pos, world.agent_dir = (door.cur_pos[0] - 1, door.cur_pos[1]), 0
    _, _, _, _, info = env.step(world.actions.toggle)
    assert not info["shield"].admitted and not door.is_open
    assert "is_open(yellow_door)" in " ".join(info["shield"].refusals[0].judgement.state_changes)


def test_sentences_and_formulas_mix_and_later_sentences_are_checked_against_earlier_ones():
    formula = Constraint.parse('G !"on_lava"', "no lava", name="lava")
    env = ShieldWrapper(gym.make(LAVA), MiniGridLabeller(), [formula, "Reach the goal."],
                        translator=_translator(LAVA))  # fmt: skip
    names = [c.name for c in env.shield.monitor.constraints]
    assert names == ["lava", "c2"]
    assert str(env.shield.monitor.constraints[1].formula) == 'F"agent_at(goal)"'


@pytest.mark.parametrize(("sentence", "why"), [
    ("Never step on lava.", "outside the offline translator's grammar"),
    ("Never touch the lava.", "unknown predicate 'is_touched'"),
    ("Never open the fridge.", "'the fridge' is not a name in"),
])  # fmt: skip
def test_a_sentence_the_translator_cannot_read_fails_at_wrap_time_naming_it(sentence, why):
    with pytest.raises(TranslationError) as caught:
        ShieldWrapper(gym.make(LAVA), MiniGridLabeller(), ["Avoid the lava.", sentence],
                      translator=_translator(LAVA))  # fmt: skip
    message = str(caught.value)
    assert message.startswith(f"constraint 2, {sentence!r}, cannot be read: ")
    assert why in message and message.endswith("(rephrase it, or give its formula as a Constraint)")


def test_the_vector_wrapper_reads_sentences_too():
    envs = VectorShieldWrapper(gym.make_vec(LAVA, num_envs=2, vectorization_mode="sync"),
                               MiniGridLabeller(), ["Never go onto the lava."],
                               translator=_translator(LAVA))  # fmt: skip
    assert envs.batch.atoms == ("agent_at(lava)",)
    with pytest.raises(TranslationError, match=r"'Never step on lava\.', cannot be read"):
        VectorShieldWrapper(gym.make_vec(LAVA, num_envs=2, vectorization_mode="sync"),
                            MiniGridLabeller(), ["Never step on lava."],
                            translator=_translator(LAVA))  # fmt: skip


def test_a_translator_reads_a_list_of_sentences_only():
    for constraints in (Monitor(['G !"on_lava"']), "Avoid the lava."):
        with pytest.raises(ValueError, match="a translator reads a list of English sentences"):
            ShieldWrapper(gym.make(LAVA), MiniGridLabeller(), constraints,
                          translator=_translator(LAVA))  # fmt: skip


def test_the_recorded_arguments_hold_the_translated_constraints():
    env = ShieldWrapper(gym.make(LAVA), MiniGridLabeller(), ["Avoid the lava."],
                        translator=_translator(LAVA))  # fmt: skip
    again = gym.make(env.spec)
    assert isinstance(again, ShieldWrapper)
    assert [str(c.formula) for c in again.shield.monitor.constraints] == ['G!"agent_at(lava)"']
