"""The shield wrapper for Gymnasium environments (safetychip.gym): it passes Gymnasium's
env checker, refuses what breaks the constraints through the one shield loop, substitutes by
its documented policies, and fails safe on a labeller or a model that cannot answer."""

from __future__ import annotations

import json
import threading
import warnings
from typing import ClassVar

import gymnasium as gym
import minigrid  # noqa: F401 - registers the MiniGrid environments
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from safetychip.errors import LabellerError, PreviewError, PropositionError, ResetNeeded
from safetychip.gym import (
    MINIGRID_PREDICATES,
    GymEnv,
    Labeller,
    MiniGridLabeller,
    ShieldInfo,
    ShieldWrapper,
    minigrid_names,
)
from safetychip.ltl import evaluate
from safetychip.monitor import Constraint, Monitor, Specification
from safetychip.translate import Translator, Vocabulary

LAVA = "MiniGrid-LavaCrossingS9N1-v0"


class Line(gym.Env):
    """Positions 0..4 on a line; action 0 steps left, 1 right; the episode never ends."""

    metadata: ClassVar[dict] = {"render_modes": []}

    def __init__(self):
        self.observation_space = gym.spaces.Discrete(5)
        self.action_space = gym.spaces.Discrete(2)
        self.position = 2
        self.steps = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.position, self.steps = 2, 0
        return self.position, {}

    def step(self, action):
        self.steps += 1
        self.position = min(4, max(0, self.position + (1 if action == 1 else -1)))
        return self.position, 0.0, False, False, {}


class AtEdge(Labeller):
    propositions = ("at_edge",)

    def label(self, observation, info, env, propositions):
        return {"at_edge": observation == 0}


class Locked(Line):
    """A Line that cannot be deep-copied (it holds a lock)."""

    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()


def _on_lava(env) -> bool:
    cell = env.unwrapped.grid.get(*env.unwrapped.agent_pos)
    return cell is not None and cell.type == "lava"


def test_check_env_passes_on_wrapped_minigrid():
    env = ShieldWrapper(gym.make(LAVA), MiniGridLabeller(), ['G !"on_lava"'])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pygame's font warnings, not the checker's
        check_env(env, skip_render_check=True)


def test_random_policy_never_steps_on_lava_under_the_shield_while_the_bare_one_does():
    shielded = ShieldWrapper(gym.make(LAVA), MiniGridLabeller(), ['G !"on_lava"'])
    bare = gym.make(LAVA)
    lava = {"shielded": 0, "bare": 0}
    substituted = 0
    for env, key in ((shielded, "shielded"), (bare, "bare")):
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        for _ in range(600):  # turn left, turn right, move forward, at random
            _, _, terminated, truncated, info = env.step(int(rng.integers(3)))
            lava[key] += _on_lava(env)
            if key == "shielded":
                substituted += info["shield"].substituted
            if terminated or truncated:
                env.reset()
    assert lava["bare"] > 0 and lava["shielded"] == 0
    assert substituted > 0  # the shield did have something to refuse


def test_a_refusal_is_structured_and_names_the_constraint():
    env = ShieldWrapper(gym.make(LAVA), MiniGridLabeller(), ['G !"on_lava"'])
    env.reset(seed=1)
    world = env.unwrapped
    # turn the agent until lava is right in front of it (or place lava there)
    from minigrid.core.world_object import Lava

    front = world.front_pos
    world.grid.set(*front, Lava())
    _, _, terminated, _, info = env.step(world.actions.forward)
    report = info["shield"]
    assert isinstance(report, ShieldInfo)
    assert not report.admitted and report.substituted and not terminated
    assert report.refusals[0].judgement.constraints == ("c1",)
    assert report.executed != world.actions.forward and not _on_lava(env)
    assert "on_lava" in " ".join(report.refusals[0].judgement.state_changes)
    json.dumps(report.to_dict())  # JSON-ready


def _english(sentence: str) -> Constraint:
    """*sentence* translated offline over the names of a DoorKey world."""
    world = gym.make("MiniGrid-DoorKey-5x5-v0").unwrapped
    world.reset(seed=0)
    vocabulary = Vocabulary.from_names(minigrid_names(world), rooms=[],
                                       predicates=dict.fromkeys(MINIGRID_PREDICATES, 1))  # fmt: skip
    return Translator(vocabulary, embedder=None)(sentence).constraint


@pytest.mark.parametrize("constraint", [
    '!"is_open(door)" W "is_carrying(key)"',
    _english("Don't open the door before picking up the key."),
])  # fmt: skip
def test_the_door_stays_closed_until_the_key_is_carried(constraint):
    env = ShieldWrapper(gym.make("MiniGrid-DoorKey-5x5-v0"), MiniGridLabeller(), [constraint])
    bare = gym.make("MiniGrid-DoorKey-5x5-v0")
    opened_early = {"shielded": 0, "bare": 0}
    for wrapped, key in ((env, "shielded"), (bare, "bare")):
        for episode in range(6):
            wrapped.reset(seed=episode)
            world = wrapped.unwrapped
            door = next(o for o in world.grid.grid if o is not None and o.type == "door")
            door.is_locked = False  # a door any toggle opens: the constraint must hold it
            wrapped.action_space.seed(episode)
            carried = False
            for _ in range(150):
                _, _, terminated, truncated, _ = wrapped.step(wrapped.action_space.sample())
                carried = carried or (world.carrying is not None and world.carrying.type == "key")
                opened_early[key] += door.is_open and not carried
                if terminated or truncated:
                    break
    assert opened_early["bare"] > 0 and opened_early["shielded"] == 0
    formula = env.shield.monitor.constraints[0].formula
    assert evaluate(formula, env.shield.trace)


def test_constraints_may_be_a_monitor_or_a_specification():
    for constraints in (Monitor(['G !"at_edge"']), Specification(['G !"at_edge"'])):
        env = ShieldWrapper(Line(), AtEdge(), constraints, fallback="none")
        env.reset(seed=0)
        env.step(0)
        _, _, _, _, info = env.step(0)
        assert info["shield"].executed is None and env.unwrapped.position == 1


def test_fallback_none_runs_nothing_and_fallback_first_runs_the_first_admitted():
    env = ShieldWrapper(Line(), AtEdge(), ['G !"at_edge"'], fallback="none")
    env.reset(seed=0)
    env.step(0)
    observation, reward, terminated, truncated, info = env.step(0)
    assert (observation, reward, terminated, truncated) == (1, 0.0, False, False)
    assert env.unwrapped.steps == 1 and info["shield"].executed is None
    assert "c1" in info["shield"].reason or info["shield"].refusals[0].judgement.constraints
    first = ShieldWrapper(Line(), AtEdge(), ['G !"at_edge"'])
    first.reset(seed=0)
    first.step(0)
    observation, *_, info = first.step(0)
    assert observation == 2 and info["shield"].executed == 1 and info["shield"].substituted


def test_a_fallback_callable_gives_the_substitutes_in_order():
    asked = []

    def fallback(observation, action):
        asked.append((observation, action))
        return [0, 1]

    env = ShieldWrapper(Line(), AtEdge(), ['G !"at_edge"'], fallback=fallback)
    env.reset(seed=0)
    env.step(0)
    *_, info = env.step(0)
    assert asked == [(1, 0)] and info["shield"].executed == 1


class Slide(Line):
    """A Line moved by a continuous push in [-1, 1] (rounded to a whole step)."""

    def __init__(self):
        super().__init__()
        self.action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)

    def step(self, action):
        return super().step(1 if float(action[0]) > 0 else 0)


def test_a_continuous_action_space_is_shielded_with_a_fallback_callable():
    def fallback(observation, action):
        return [np.array([1.0], np.float32)]

    env = ShieldWrapper(Slide(), AtEdge(), ['G !"at_edge"'], fallback=fallback)
    env.reset(seed=0)
    env.step(np.array([-0.5], np.float32))
    observation, *_, info = env.step(np.array([-0.5], np.float32))
    assert observation == 2 and info["shield"].substituted
    assert info["shield"].executed.tolist() == [1.0]


@pytest.mark.parametrize(
    "answer, words",
    [
        ({"at_edge": 1}, "not a bool"),
        ({"at_edge": False, "on_fire": False}, "unknown propositions ['on_fire']"),
        ({}, "no truth value for 'at_edge'"),
        ("yes", "not a mapping"),
        (ZeroDivisionError("boom"), "raised ZeroDivisionError: boom"),
    ],
)
def test_a_labeller_that_cannot_answer_refuses_the_action_and_says_why(answer, words):
    class Faulty(Labeller):
        propositions = ("at_edge",)

        def label(self, observation, info, env, propositions):
            if observation != 3:  # only the world to the right of the start is a problem
                return {"at_edge": observation == 0}
            if isinstance(answer, Exception):
                raise answer
            return answer

    env = ShieldWrapper(Line(), Faulty(), ['G !"at_edge"'], fallback="none")
    env.reset(seed=0)
    *_, info = env.step(1)
    report = info["shield"]
    assert report.executed is None and env.unwrapped.steps == 0
    assert report.refusals[0].outcome == "not_executable"
    assert words in report.reason and "Faulty" in report.reason


def test_a_proposition_the_labeller_cannot_produce_fails_at_wrap_time():
    with pytest.raises(PropositionError, match=r"AtEdge cannot produce \['on_lava'\]"):
        ShieldWrapper(Line(), AtEdge(), ['G !"on_lava"'])
    with pytest.raises(PropositionError, match=r"cannot produce \['is_open\(fridge\)'\]"):
        ShieldWrapper(gym.make(LAVA), MiniGridLabeller(), ['G !"is_open(fridge)"'])


def test_an_env_that_cannot_be_copied_needs_a_one_step_model():
    with pytest.raises(PreviewError, match=r"copy.deepcopy\(env.unwrapped\).*model="):
        ShieldWrapper(Locked(), AtEdge(), ['G !"at_edge"'])

    def model(env, action, propositions):
        return {"at_edge": env.position + (1 if action == 1 else -1) <= 0}

    env = ShieldWrapper(Locked(), AtEdge(), ['G !"at_edge"'], model=model, fallback="none")
    env.reset(seed=0)
    env.step(0)
    *_, info = env.step(0)
    assert info["shield"].refusals[0].outcome == "pruned" and env.unwrapped.position == 1


def test_an_action_that_ran_but_cannot_be_labelled_stops_the_episode_until_reset():
    class LateFault(Labeller):
        propositions = ("at_edge",)

        def label(self, observation, info, env, propositions):
            if observation == 3:
                raise ValueError("cannot see cell 3")
            return {"at_edge": observation == 0}

    def model(env, action, propositions):  # foresees no trouble
        return {"at_edge": False}

    env = ShieldWrapper(Locked(), LateFault(), ['G !"at_edge"'], model=model)
    env.reset(seed=0)
    with pytest.raises(LabellerError, match="cannot see cell 3"):
        env.step(1)
    for action in (0, 1):
        with pytest.raises(ResetNeeded, match=r"could not be labelled.*call reset"):
            env.step(action)
    env.reset(seed=0)
    *_, info = env.step(0)
    assert info["shield"].admitted and env.unwrapped.position == 1


def test_a_one_step_model_that_raises_refuses_the_action():
    def model(env, action, propositions):
        raise RuntimeError("no model here")

    env = ShieldWrapper(Locked(), AtEdge(), ['G !"at_edge"'], model=model, fallback="none")
    env.reset(seed=0)
    *_, info = env.step(1)
    assert "one-step model" in info["shield"].reason and env.unwrapped.steps == 0


def test_bad_arguments_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="fallback must be one of"):
        ShieldWrapper(Line(), AtEdge(), ['G !"at_edge"'], fallback="random")
    with pytest.raises(TypeError, match=r"got the string .*: write \["):
        ShieldWrapper(Line(), AtEdge(), 'G !"at_edge"')
    box = Line()
    box.action_space = gym.spaces.Box(-1, 1, (1,))
    with pytest.raises(ValueError, match="needs a discrete action space"):
        ShieldWrapper(box, AtEdge(), ['G !"at_edge"'])
    with pytest.raises(TypeError, match=r"must be a safetychip\.gym\.Labeller"):
        GymEnv(Line(), lambda *a: {})


def test_the_adapter_preview_equals_the_real_step_on_minigrid():
    labeller = MiniGridLabeller()
    names = ["on_lava", "agent_at(goal)", "adjacent_to(lava)", "adjacent_to(wall)"]
    env = GymEnv(gym.make(LAVA), labeller).track(names)
    env.reset(seed=5)
    space = env.gym_env.action_space
    space.seed(5)
    for _ in range(150):
        action = env.parse(space.sample())
        ahead = env.lookahead(action, names)
        _, _, terminated, truncated, info = env.step(action)
        assert ahead.states == info["states"]
        if terminated or truncated:
            env.reset()
