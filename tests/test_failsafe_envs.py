"""The environments' own paths (issue 44): a VirtualHome program line runs only after the
monitor judged its previewed states, and stops the run when what it did breaks what was
admitted."""

from __future__ import annotations

import pytest

from safetychip.envs.virtualhome import OFFICIAL_GRAPH, PROGRAM_DIR, VirtualHomeEnv, run_program
from safetychip.monitor import Monitor

SITTING = "G !agent_sitting_on(couch)"
TV_ON = "G !is_switchedon(tv)"


def _broken_preview(monkeypatch, verb: str) -> None:
    """Make the preview of every *verb* line fail, as a flaky preview would."""
    real = VirtualHomeEnv.lookahead

    def lookahead(self, action, propositions):
        ahead = real(self, action, propositions)
        if verb in str(action).upper():
            return ahead._replace(states=[], error="the preview crashed")
        return ahead

    monkeypatch.setattr(VirtualHomeEnv, "lookahead", lookahead)


@pytest.mark.parametrize(("verb", "line", "constraint"), [("[SIT]", 5, SITTING),
                                                          ("[SWITCHON]", 3, TV_ON)])  # fmt: skip
def test_a_line_whose_preview_fails_does_not_run(monkeypatch, verb, line, constraint):
    _broken_preview(monkeypatch, verb)
    run = run_program(PROGRAM_DIR / "watch_tv.txt", OFFICIAL_GRAPH, monitor=Monitor([constraint]))
    assert run.stopped_at == line
    assert run.steps[-1].outcome == "refused" and "preview crashed" in run.steps[-1].reason
    assert all(s.outcome == "executed" for s in run.steps[:-1])
    assert not any(state[constraint.split("!")[1]] for state in run.trace)


def test_a_line_that_does_other_than_previewed_stops_the_run(monkeypatch):
    real = VirtualHomeEnv.lookahead

    def lookahead(self, action, propositions):  # the preview misses that SIT sits down
        ahead = real(self, action, propositions)
        states = [{**s, "agent_sitting_on(couch)": False} for s in ahead.states]
        return ahead._replace(states=states)

    monkeypatch.setattr(VirtualHomeEnv, "lookahead", lookahead)
    run = run_program(PROGRAM_DIR / "watch_tv.txt", OFFICIAL_GRAPH, monitor=Monitor([SITTING]))
    assert run.stopped_at == 5 and len(run.steps) == 5
    assert run.steps[-1].outcome == "executed"  # it ran: the record says so, and stops there
    assert "not what the monitor admitted" in run.reason and "c1" in run.reason


def test_a_program_without_a_monitor_runs_as_before():
    assert run_program(PROGRAM_DIR / "watch_tv.txt", OFFICIAL_GRAPH).executable


# -- Spot: the robot does not move before the constraints are checked -----------------------


def _spot_shield(*constraints: str):
    from safetychip.envs import SpotEnv
    from safetychip.shield import Shield

    env = SpotEnv()
    return env, Shield.of(env, Monitor(list(constraints)))


@pytest.mark.parametrize(
    "constraints",
    [
        ("F agent_at(hallway)", "G !agent_at(hallway)"),
        ("G !is_grabbed(mail)", "F is_grabbed(mail)", "G !agent_at(mail_room)"),
    ],
)
def test_contradicting_constraints_are_caught_before_the_robot_moves(constraints):
    env, shield = _spot_shield(*constraints)
    start = shield.reset()
    assert start.abort
    assert ("start",) not in env.backend.log and env.backend.log == []


def test_a_refused_first_action_does_not_start_the_robot():
    env, shield = _spot_shield("G !agent_at(hallway)")
    shield.reset()
    assert shield.propose("walk to hallway").outcome == "pruned"
    assert env.backend.log == []
    assert shield.propose("walk to mail room").outcome in ("pruned", "executed")
    assert ("navigate", "hallway") not in env.backend.log


def test_the_robot_starts_with_the_first_action_that_runs():
    env, shield = _spot_shield("G !is_grabbed(mail)")
    shield.reset()
    assert env.backend.log == []
    assert shield.propose("walk to hallway").outcome == "executed"
    assert env.backend.log[:2] == [("start",), ("navigate", "hallway")]
    shield.propose("done")
    shield.reset()  # a new episode stops nothing more and starts nothing yet
    assert env.backend.log[-1] == ("stop",)
