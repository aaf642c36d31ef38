"""The Spot environment on the simulated backend: the protocol, walks that pass landmarks,
preconditions, bad names and scene files, the agents through the shield, and a robot that
fails mid-task."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from safetychip.agents import ActionGrounder, make_agent
from safetychip.envs import SpotEnv, check_env, load_spot_scene
from safetychip.envs.spot import SPOT_DIR, SimulatedBackend, SpotScene
from safetychip.errors import ActionError, DataFileError, PropositionError, ResetNeeded, RobotError
from safetychip.llm import ScriptedModel
from safetychip.ltl import at_most
from safetychip.monitor import Constraint, Monitor
from safetychip.shield import Shield


@dataclass(frozen=True)
class _Task:
    """The fields an agent reads of a task."""

    constraints: tuple[Constraint, ...]
    goal: tuple[str, ...] = ()
    instruction: str = "Bring the mail to the office table."
    id: str = "spot/lab/test"
    suite: str = "spot"
    scene: str = "lab"
    example_plan: tuple[str, ...] = ("walk to mail room", "pick up mail", "done")
    initial: tuple[str, ...] = field(default=())

    def make_env(self) -> SpotEnv:
        return SpotEnv(task=self)


class _Failing(SimulatedBackend):
    """A robot whose *n*-th command of kind *kind* fails."""

    def __init__(self, kind: str, n: int = 1) -> None:
        super().__init__()
        self.kind, self.left = kind, n

    def _maybe_fail(self, kind: str) -> None:
        if kind == self.kind:
            self.left -= 1
            if self.left == 0:
                raise RobotError(f"{kind} failed: STATUS_STUCK")

    def navigate(self, waypoint: str) -> None:
        self._maybe_fail("navigate")
        super().navigate(waypoint)

    def pick(self, obj: str, *, at: str) -> None:
        self._maybe_fail("pick")
        super().pick(obj, at=at)

    def start(self, waypoints: Any, connections: Any = None) -> None:
        self._maybe_fail("start")
        super().start(waypoints, connections)


def test_the_lab_scene_has_23_names_and_is_connected():
    scene = load_spot_scene()
    assert len(scene.names) == 23 and len(set(scene.names)) == 23
    assert {"mail_room", "mail_box", "hallway", "statue", "television", "book_shelf"} <= set(
        scene.landmarks
    )
    assert {"book", "mail", "phone"} <= set(scene.objects)


def test_check_env_passes():
    env = SpotEnv().track(["agent_at(hallway)", "is_grabbed(mail)", "is_on(book,book_shelf)"])
    check_env(env, refused="pick up mail")
    check_env(env, options={"initial": ["agent_at(mail_room)"]}, refused="walk to mail room")


def test_every_landmark_passed_is_a_state():
    env = SpotEnv().track(["agent_at(hallway)", "agent_at(mail_room)", "agent_at(mail_box)"])
    env.reset()
    *_, info = env.step("walk to the mail box")
    assert [[k for k, v in s.items() if v] for s in info["states"]] == [
        ["agent_at(hallway)"], ["agent_at(mail_room)"], ["agent_at(mail_box)"]
    ]  # fmt: skip
    assert env.backend.log[1:] == [("navigate", w) for w in ("hallway", "mail_room", "mail_box")]
    assert info["script"] == ["navigate(hallway)", "navigate(mail_room)", "navigate(mail_box)"]


def test_a_bounded_visit_count_counts_real_passes():
    """Each walk through the hallway is a pass; the fourth is pruned before it runs."""
    env = SpotEnv()
    shield = Shield.of(env, Monitor([Constraint(at_most(3, "agent_at(hallway)"), "c")]))
    assert shield.reset().admitted
    outcomes = [shield.propose(a).outcome for a in (
        "walk to mail room", "walk to television", "walk to pantry", "walk to office table",
    )]  # fmt: skip
    assert outcomes == ["executed", "executed", "executed", "pruned"]
    assert [s["agent_at(hallway)"] for s in shield.trace] == [
        False, True, False, True, False, True, False
    ]  # fmt: skip
    assert env.truth(["agent_at(pantry)"]) == {"agent_at(pantry)": True}
    # the long way round the fridge, the sink and the coffee machine avoids the hallway
    assert shield.propose("walk to fridge").executed


def test_preconditions_and_their_reasons():
    env = SpotEnv()
    env.reset(options={"initial": ["agent_at(office_table)", "is_grabbed(cup)"]})
    refusals = {
        "pick up mail": "the robot already holds the cup (one object at a time)",
        "put cup in fridge": "the robot is not at the fridge",
        "put cup on statue": "the statue is not a surface",
        "put book on office table": "the robot is not holding the book",
        "switch off lamp": "the robot is not at the lamp",
        "switch on lamp": "the lamp is already on",
        "switch on the statue": "the statue cannot be switched",
        "pick up the couch": "the couch is a landmark, it cannot be picked up",
        "walk to office table": "the robot is already at the office table",
        "walk to cup": "the robot is holding the cup",
        "touch phone": "the robot is not at the bedside table",
    }
    for action, reason in refusals.items():
        assert env.lookahead(action, []).error == f"cannot {env.parse(action)}: {reason}"
    admissible = env.admissible_actions()
    assert "put cup on office table" in admissible and "pick up keys" not in admissible
    assert env.step("put cup on office table")[-1]["error"] is None
    assert "pick up keys" in env.admissible_actions()
    env.reset(options={"initial": ["agent_at(fridge)", "!is_switchedon(lamp)"]})
    assert env.step("take the apple")[-1]["error"] == "cannot pick up apple: the fridge is closed"
    assert env.truth(["is_switchedon(lamp)"]) == {"is_switchedon(lamp)": False}


def test_truth_values_follow_the_world():
    env = SpotEnv().track(
        [
            "agent_at(book)",
            "is_grabbed(book)",
            "is_on(book,book_shelf)",
            "is_in(book,mail_box)",
            "is_touched(statue)",
            "is_switchedon(television)",
        ]  # fmt: skip
    )
    env.reset(options={"initial": ["agent_at(statue)"], "goal": ["is_in(book,mail_box)"]})
    states = [env.step(a)[-1]["states"][-1] for a in (
        "touch statue", "walk to book", "pick up book", "walk to mail box", "put book in mail box"
    )]  # fmt: skip
    assert [s["is_touched(statue)"] for s in states] == [True, False, False, False, False]
    assert [s["agent_at(book)"] for s in states] == [False, True, True, True, True]
    assert [s["is_grabbed(book)"] for s in states] == [False, False, True, True, False]
    assert states[-1]["is_in(book,mail_box)"] and not states[-1]["is_on(book,book_shelf)"]
    assert env.goal_reached() and env.step("done")[1] == 1.0
    assert env.backend.log[-2:] == [("place", "book", "mail_box"), ("stop",)]
    with pytest.raises(ResetNeeded, match="the episode is over"):
        env.step("walk to hallway")


def test_unknown_names_are_refused_with_the_closest():
    env = SpotEnv()
    env.reset()
    with pytest.raises(ActionError, match=r"called 'the mial box'.*closest names: mail_box") as e:
        env.parse("walk to the mial box")
    assert e.value.choices[0] == "mail_box"
    with pytest.raises(ActionError, match="the actions are walk to X; pick up X"):
        env.parse("fly to the moon")
    with pytest.raises(PropositionError, match=r"unknown proposition 'agent_at\(kitchen\)'"):
        env.track(["agent_at(kitchen)"])
    with pytest.raises(PropositionError, match="did you mean 'book_shelf'"):
        env.track(["is_on(book,Book_Shelf)"])
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"start": "hallway"})
    with pytest.raises(ValueError, match="the statue cannot switch"):
        env.reset(options={"initial": ["is_switchedon(statue)"]})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["edges"].append(["hallway", "halway"]),
         r"edges\[17\]: unknown landmark 'halway'; closest: hallway"),
        (lambda d: d["objects"].update(book={"on": "statue"}),
         r"objects\.book: 'statue' is not a surface"),
        (lambda d: d["objects"].update(book={"under": "couch"}),
         r"objects\.book must be \{\"on\": surface\} or \{\"in\": container\}"),
        (lambda d: d["landmarks"]["lamp"].update(can=["fly"]),
         r"landmarks\.lamp\.can must list some of surface, container, open, switch"),
        (lambda d: d["landmarks"].update(attic={}),
         "edges: no walk from the start 'door' reaches attic"),
        (lambda d: d["objects"].update(couch={"on": "couch"}),
         r"objects\.couch: 'couch' is also a landmark"),
        (lambda d: d.update(start="roof"), "start: unknown landmark 'roof'"),
        (lambda d: d.update(floors=2), "unknown key"),
    ],
)  # fmt: skip
def test_malformed_scene_files_name_the_file_and_entry(tmp_path, change, message):
    data = json.loads((SPOT_DIR / "lab.json").read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "lab.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DataFileError, match=message) as e:
        load_spot_scene(path)
    assert e.value.path == str(path)


def test_unreadable_scene_files(tmp_path):
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(DataFileError, match=r"bad\.json: not a readable JSON file"):
        load_spot_scene(tmp_path / "bad.json")
    with pytest.raises(DataFileError, match="no such scene file"):
        load_spot_scene("basement")
    assert isinstance(SpotEnv(load_spot_scene("lab")).scene, SpotScene)


def test_invariants_one_landmark_and_moves_along_edges():
    env = SpotEnv()
    invariants = env.invariants()
    assert len(invariants) == 1 + len(env.rooms)
    assert str(invariants[1]) == 'G("agent_at(door)" -> X("agent_at(door)" | "agent_at(hallway)"))'


@pytest.mark.parametrize("name", ["base", "nl", "chip", "cap", "cap_chip"])
def test_the_agents_run_through_the_shield(name):
    task = _Task((Constraint(at_most(1, "agent_at(hallway)"), "Pass the hallway at most once", "c1"),),
                 goal=("is_grabbed(mail)",))  # fmt: skip
    options = {} if name.startswith("cap") else {"grounder": ActionGrounder(embedder=None)}
    replies = (['go_to("mail room")\npick_up("mail")'] if name.startswith("cap")
               else ["walk to mail room", "pick up mail", "done"])  # fmt: skip
    episode = make_agent(name, ScriptedModel(replies), **options).run(task, 1)
    assert episode.executed == ("walk to mail room", "pick up mail"), episode.reason
    assert episode.success and episode.safe
    assert episode.record.filters == (("monitor", "chip") if "chip" in name else ())


def test_the_chip_prunes_a_second_pass_through_the_hallway():
    task = _Task((Constraint(at_most(1, "agent_at(hallway)"), "Pass the hallway at most once", "c1"),),
                 goal=("agent_at(pantry)",))  # fmt: skip
    replies = ["walk to mail room", "walk to pantry", "done"]
    episode = make_agent("chip", ScriptedModel(replies),
                         grounder=ActionGrounder(embedder=None)).run(task, 1)  # fmt: skip
    assert episode.record.steps[1].outcome == "pruned"
    assert "walk to pantry" not in episode.executed and episode.safe


def test_a_failing_walk_stops_the_robot_after_the_last_completed_hop():
    env = SpotEnv(backend=_Failing("navigate", 2)).track(["agent_at(hallway)"])
    env.reset()
    _, _, terminated, truncated, info = env.step("walk to mail box")
    assert info["error"] == "the robot stopped: navigate failed: STATUS_STUCK"
    assert truncated and not terminated
    assert info["states"] == [{"agent_at(hallway)": True}]
    assert env.truth(["agent_at(hallway)"]) == {"agent_at(hallway)": True}
    assert env.backend.log == [("start",), ("navigate", "hallway"), ("stop",)]
    with pytest.raises(ResetNeeded, match="stopped robot"):
        env.step("walk to door")


def test_a_walk_that_fails_half_way_is_recorded_as_far_as_the_robot_went():
    env = SpotEnv(backend=_Failing("navigate", 2))
    shield = Shield.of(env, Monitor([Constraint(at_most(3, "agent_at(hallway)"), "c")]))
    shield.reset()
    step = shield.propose("walk to mail box")
    assert step.outcome == "executed" and step.error.startswith("the robot stopped")
    assert [s["agent_at(hallway)"] for s in step.states] == [True]
    assert shield.trace[-1]["agent_at(hallway)"] and shield.finished
    assert shield.monitor.history[-1]["agent_at(hallway)"]  # the monitor saw the pass


def test_a_failing_grasp_through_the_shield_is_reported_and_ends_the_episode():
    env = SpotEnv(backend=_Failing("pick"))
    shield = Shield.of(env, Monitor([Constraint(at_most(3, "agent_at(hallway)"), "c")]))
    shield.reset(options={"initial": ["agent_at(mail_room)"]})
    step = shield.propose("pick up mail")
    assert step.outcome == "not_executable" and "pick failed" in step.error
    assert shield.finished and env.backend.log[-1] == ("stop",)
    assert env.truth(["is_grabbed(mail)"]) == {"is_grabbed(mail)": False}


def test_a_robot_that_cannot_start():
    env = SpotEnv(backend=_Failing("start"))
    env.reset()  # the robot starts with the first action that runs (issue 44)
    *_, truncated, info = env.step("walk to hallway")
    assert truncated and info["error"] == "the robot stopped: start failed: STATUS_STUCK"
    assert env.backend.log == [("stop",)]
    with pytest.raises(ResetNeeded):
        env.step("walk to hallway")
