"""The shield for gymnasium.vector environments (safetychip.gym.VectorShieldWrapper): on random
rollouts its verdicts, substitutes and worlds equal those of N single ShieldWrappers; it
refuses what it cannot judge, and its bad inputs fail with the fix."""

from __future__ import annotations

import gymnasium as gym
import minigrid  # noqa: F401 - registers the MiniGrid environments
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from safetychip.errors import LabellerError, NoSafePlan, PropositionError, ResetNeeded
from safetychip.gym import MiniGridLabeller, ShieldWrapper, VectorShieldWrapper

LABELLER = MiniGridLabeller()


def _vector(name: str, n: int, **kwargs) -> gym.vector.VectorEnv:
    return gym.make_vec(name, num_envs=n, vectorization_mode="sync", **kwargs)


def _world(env) -> tuple:
    world = env.unwrapped
    carried = None if world.carrying is None else world.carrying.type
    return tuple(int(v) for v in world.agent_pos), int(world.agent_dir), carried


@pytest.mark.parametrize(("name", "constraints", "moves", "model", "steps"), [
    ("MiniGrid-LavaGapS5-v0", ['G !"on_lava"'], 3, LABELLER.model, 400),
    ("MiniGrid-LavaCrossingS9N1-v0", ['G !"on_lava"'], 3, LABELLER.model, 400),
    ("MiniGrid-DoorKey-5x5-v0", ['G !"is_carrying(key)"', 'G !"on_lava"'], 7,
     LABELLER.model, 400),
    ("MiniGrid-LavaGapS5-v0", ['G !"on_lava"'], 3, None, 60),  # previews by deep copy
])  # fmt: skip
def test_the_batch_judges_as_n_single_wrappers_on_random_rollouts(name, constraints, moves,
                                                                    model, steps):  # fmt: skip
    n, seed = 6, 10
    vector = VectorShieldWrapper(_vector(name, n), LABELLER, constraints, model=model)
    singles = [ShieldWrapper(gym.make(name), LABELLER, constraints, model=model)
               for _ in range(n)]  # fmt: skip
    _, info = vector.reset(seed=seed)
    starts = [single.reset(seed=seed + i)[1]["shield"].admitted for i, single in enumerate(singles)]
    assert info["shield"].admitted.tolist() == starts
    rng = np.random.default_rng(seed)
    ended = np.zeros(n, bool)
    counts = {"refused": 0, "reset": 0}
    for _ in range(steps):
        actions = rng.integers(moves, size=n)
        _, rewards, terminated, truncated, info = vector.step(actions)
        report = info["shield"]
        assert report.resetting.tolist() == ended.tolist()  # Gymnasium's NEXT_STEP autoreset
        for i, single in enumerate(singles):
            if ended[i]:
                single.reset()
                counts["reset"] += 1
            else:
                _, reward, done, cut, single_info = single.step(int(actions[i]))
                expected = single_info["shield"]
                assert report.admitted[i] == expected.admitted
                assert report.substituted[i] == expected.substituted
                assert report.executed[i] == expected.executed
                assert report.refusals[i] == len(expected.refusals)
                assert (rewards[i], terminated[i], truncated[i]) == (reward, done, cut)
                counts["refused"] += not expected.admitted
            assert _world(vector.copies[i]) == _world(single)
        assert report.safe.all()
        ended = terminated | truncated
    assert counts["refused"] > 0  # the shield had work to do
    if steps >= 400:
        assert counts["reset"] > 0  # and episodes ended


def _lava_gap(n: int = 3, **kwargs) -> VectorShieldWrapper:
    """LavaGapS5 copies reset with seed 0: forward is onto lava in all three."""
    kwargs.setdefault("model", LABELLER.model)
    env = VectorShieldWrapper(_vector("MiniGrid-LavaGapS5-v0", n), LABELLER, ['G !"on_lava"'],
                              **kwargs)  # fmt: skip
    env.reset(seed=0)
    return env


def test_a_refused_proposal_is_replaced_and_the_report_says_why():
    env = _lava_gap()
    _, _, _, _, info = env.step([2, 1, 2])
    report = info["shield"]
    assert report.admitted.tolist() == [False, True, False]
    assert report.substituted.tolist() == [True, False, True]
    assert report.executed.tolist() == [0, 1, 0] and report.proposed.tolist() == [2, 1, 2]
    assert report.reasons == ("it would leave the specification unsatisfiable", "",
                              "it would leave the specification unsatisfiable")  # fmt: skip
    assert not any(LABELLER.label(None, {}, c.unwrapped, ["on_lava"])["on_lava"]
                   for c in env.copies)  # fmt: skip


def test_a_preview_that_fails_refuses_the_proposal_and_says_why():
    def model(world, action, propositions):
        if action == 1:
            raise RuntimeError("no model of turning right")
        return LABELLER.model(world, action, propositions)

    env = _lava_gap(model=model)
    _, _, _, _, info = env.step([1, 0, 1])
    report = info["shield"]
    assert report.executed.tolist() == [0, 0, 0]
    assert report.admitted.tolist() == [False, True, False]
    assert "raised RuntimeError: no model of turning right" in report.reasons[0]


def test_no_admitted_action_runs_nothing_in_any_copy():
    env = _lava_gap(fallback="none")
    before = [_world(c) for c in env.copies]
    with pytest.raises(NoSafePlan, match=r"no action of copy 0 is admitted .*: pass a fallback"):
        env.step([2, 1, 1])
    assert [_world(c) for c in env.copies] == before
    assert [c.unwrapped.step_count for c in env.copies] == [0, 0, 0]


def test_a_state_that_cannot_be_labelled_stops_until_reset():
    class Fussy(MiniGridLabeller):
        fail = False

        def label(self, observation, info, env, propositions):
            if self.fail:
                raise ValueError("camera lost")
            return super().label(observation, info, env, propositions)

    labeller = Fussy()
    env = VectorShieldWrapper(_vector("MiniGrid-LavaGapS5-v0", 2), labeller, ['G !"on_lava"'],
                              model=MiniGridLabeller().model)  # fmt: skip
    with pytest.raises(ResetNeeded, match="call reset"):
        env.step([0, 0])
    env.reset(seed=0)
    labeller.fail = True
    with pytest.raises(LabellerError, match=r"copy 0: labeller Fussy raised ValueError: camera"):
        env.step([0, 0])
    with pytest.raises(ResetNeeded):
        env.step([0, 0])
    labeller.fail = False
    env.reset(seed=0)
    assert env.step([0, 0])[4]["shield"].admitted.all()


def test_bad_arguments_are_refused_with_the_fix():
    class Remote(gym.vector.VectorEnv):
        pass

    with pytest.raises(TypeError, match="wrap a SyncVectorEnv"):
        VectorShieldWrapper(Remote(), LABELLER, ['G !"on_lava"'])
    same_step = _vector("MiniGrid-LavaGapS5-v0", 2,
                        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP})  # fmt: skip
    with pytest.raises(ValueError, match="needs the autoreset mode NEXT_STEP"):
        VectorShieldWrapper(same_step, LABELLER, ['G !"on_lava"'])
    with pytest.raises(PropositionError, match=r"cannot produce \['is_open\(fridge\)'\]"):
        VectorShieldWrapper(_vector("MiniGrid-LavaGapS5-v0", 2), LABELLER,
                            ['G !"is_open(fridge)"'])  # fmt: skip
    with pytest.raises(ValueError, match="fallback must be one of"):
        VectorShieldWrapper(_vector("MiniGrid-LavaGapS5-v0", 2), LABELLER, ['G !"on_lava"'],
                            fallback="best")  # fmt: skip
