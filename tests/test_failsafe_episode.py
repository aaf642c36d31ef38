"""An episode is bounded in wall time end to end (issue 44): a slow model call, a slow
grounding, or many quick steps end it as an error that says so, within its budget."""

from __future__ import annotations

import threading
import time

import pytest

from safetychip.agents import ActionGrounder, BaseAgent, CodeAsPoliciesAgent, SafetyChipAgent
from safetychip.envs import load_tasks
from safetychip.llm import ChatModel, Completion, ScriptedModel

KITCHEN = {t.id: t for t in load_tasks()}["four_room/apartment_1/01"]
EXACT = ActionGrounder(embedder=None)
SLACK = 1.5


class _Slow(ChatModel):
    """Answers *reply* after *seconds* (a 12 MB reply, an overloaded endpoint)."""

    def __init__(self, reply: str, seconds: float) -> None:
        super().__init__("slow")
        self.reply, self.seconds = reply, seconds
        self.woken = threading.Event()

    def _complete(self, request):
        self.woken.wait(self.seconds)
        return Completion(self.reply, self.name, stand_in=True)


class _SlowGrounder(ActionGrounder):
    """Grounds after *seconds* (the first load of an embedder)."""

    def ground(self, text, env):
        time.sleep(0.6)
        return super().ground(text, env)


def _timed(agent):
    start = time.perf_counter()
    episode = agent.run(KITCHEN, k=1)
    return episode, time.perf_counter() - start


@pytest.mark.parametrize(
    "make",
    [
        lambda: BaseAgent(_Slow("walk to kitchen", 10), grounder=EXACT, episode_seconds=0.2),
        lambda: SafetyChipAgent(_Slow("walk to kitchen", 10), grounder=EXACT,
                                episode_seconds=0.2),
        lambda: CodeAsPoliciesAgent(_Slow("```python\ngo_to('kitchen')\n```", 10),
                                    episode_seconds=0.2),
        lambda: BaseAgent(ScriptedModel(["walk to kitchen", "done"]),
                          grounder=_SlowGrounder(embedder=None), episode_seconds=0.2),
    ],
    ids=["slow-model", "slow-model-chip", "slow-model-cap", "slow-grounding"],
)  # fmt: skip
def test_a_slow_call_ends_the_episode_in_time(make):
    agent = make()
    episode, seconds = _timed(agent)
    if isinstance(agent.model, _Slow):
        agent.model.woken.set()
    assert seconds < 0.2 + SLACK
    assert episode.end == "error" and "episode" in episode.reason
    assert "episode_seconds" in episode.reason
    assert episode.executed == ()


def test_many_quick_steps_end_when_the_time_is_up():
    agent = BaseAgent(_Slow("walk to hallway", 0.05), grounder=EXACT, max_steps=200,
                      episode_seconds=0.3)  # fmt: skip
    episode, seconds = _timed(agent)
    agent.model.woken.set()
    assert seconds < 0.3 + SLACK
    assert episode.end == "error" and "0.3 s" in episode.reason
    assert 0 < len(episode.executed) < 200


def test_a_bad_episode_budget_is_refused():
    with pytest.raises(ValueError, match="episode_seconds"):
        BaseAgent(ScriptedModel([]), episode_seconds=0)


# -- experiments: --timeout ---------------------------------------------------------------------


def test_a_grid_cell_carries_the_episode_timeout(monkeypatch):
    from safetychip.experiments import grid_cells, run_cell

    cells = grid_cells(suites=["four_room"], ks=[1], agents=["base"], timeout=0.2)
    assert cells and all(c["timeout"] == 0.2 for c in cells)
    assert "timeout" not in grid_cells(suites=["four_room"], ks=[1], agents=["base"])[0]
    slow = _Slow("walk to kitchen", 10)
    monkeypatch.setattr("safetychip.experiments._grid.make_model", lambda cell: slow)
    start = time.perf_counter()
    row = run_cell(cells[0])
    slow.woken.set()
    assert time.perf_counter() - start < 0.2 + SLACK + 1.0  # the environment's first reset
    assert row["end"] == "error" and "episode_seconds" in row["reason"]


@pytest.mark.parametrize("value", ["0", "-3", "soon", "inf"])
def test_the_experiment_timeout_must_be_positive(capsys, value):
    from safetychip.cli import main

    assert main(["experiment", "--timeout", value]) == 2
    assert "positive number of seconds" in capsys.readouterr().err
