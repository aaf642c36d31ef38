"""The bosdyn backend: the unmodified Boston Dynamics SDK against a fake robot on 127.0.0.1."""

import sys
import time

import pytest

pytest.importorskip("bosdyn.client", reason="needs the spot-robot extra")
pytest.importorskip("cryptography", reason="needs the dev extra (cryptography)")

from bosdyn.api import power_pb2

from safetychip.envs import SpotEnv, load_spot_scene
from safetychip.envs.spot import BosdynBackend
from safetychip.errors import MissingDependencyError, RobotError
from safetychip.ltl import never
from safetychip.monitor import Constraint, Monitor
from safetychip.shield import Shield
from tests._spot_robot import FakeSpot, line_graph, wait_closed

WAYPOINTS = ["mail_room", "hallway", "office_table"]
#: Commands that move the robot.
MOTION = {"navigate", "grasp", "stand", "arm_pose", "carry", "gripper_open", "power_on"}


@pytest.fixture
def robot_factory(tmp_path):
    """Start fake robots; check afterwards that nothing listens any more."""
    started = []

    def start(**options):
        robot = FakeSpot(tmp_path, waypoints=options.pop("waypoints", WAYPOINTS), **options)
        started.append(robot.__enter__())
        return robot

    yield start
    for robot in started:
        robot.__exit__(None, None, None)
        assert wait_closed(robot.port)


def backend(robot, password="secret", **options):
    """A backend for *robot*, with generous bounds for a loaded machine."""
    options = {"rpc_timeout": 20.0, "command_timeout": 20.0, "poll_interval": 0.02, **options}
    return BosdynBackend(
        "127.0.0.1", username="user", password=password, cert=robot.ca, port=robot.port, **options
    )


def names(robot):
    return [command[0] for command in robot.commands]


def assert_stopped_after(robot, index):
    """After command *index* the robot only stopped, stowed, sat and returned the lease."""
    after = names(robot)[index:]
    assert not MOTION & set(after), robot.commands
    assert {"stop", "stow", "sit", "return_lease"} <= set(after), robot.commands


def test_a_delivery_end_to_end(robot_factory):
    robot = robot_factory()
    spot = backend(robot)
    began = time.perf_counter()
    spot.start(WAYPOINTS)
    spot.navigate("hallway")
    spot.pick("mail", at="hallway")
    spot.navigate("office_table")
    spot.place("mail", on="office_table")
    spot.switch("lamp", on=True)
    spot.touch("lamp")
    spot.stop()
    assert time.perf_counter() - began < 10
    assert names(robot) == [
        "acquire_lease", "power_on", "stand", "set_localization",
        "navigate", "grasp", "carry", "navigate",
        "arm_pose", "gripper_open", "stow", "gripper_close",
        "arm_pose", "stow", "arm_pose", "stow",
        "stop", "stow", "sit", "return_lease",
    ]  # fmt: skip
    assert ("navigate", "hallway") in robot.commands
    assert ("grasp", "pick_object_ray_in_world") in robot.commands
    spot.stop()  # a second stop does nothing
    assert names(robot)[-1] == "return_lease"


def test_a_monitored_delivery_through_the_shield(robot_factory):
    scene = load_spot_scene("lab")
    robot = robot_factory(waypoints=scene.landmarks, edges=scene.edges)
    began = time.perf_counter()
    env = SpotEnv(scene, backend=backend(robot))
    shield = Shield.of(env, Monitor([Constraint(never("agent_at(pantry)"), "c1")]))
    shield.reset()
    assert shield.propose("walk to pantry").outcome == "pruned"
    assert ("navigate", "pantry") not in robot.commands
    for action in ["walk to mail room", "pick up mail", "walk to office table"]:
        assert shield.propose(action).outcome == "executed", action
    assert shield.propose("put mail on office table").outcome == "executed"
    assert shield.propose("done").outcome == "done"
    assert time.perf_counter() - began < 10
    walked = [command[1] for command in robot.commands if command[0] == "navigate"]
    assert walked == ["hallway", "mail_room", "hallway", "office_table"]
    assert names(robot)[-4:] == ["stop", "stow", "sit", "return_lease"]


def test_the_map_directory_is_uploaded(robot_factory, tmp_path):
    robot = robot_factory(waypoints=[])
    graph_dir = tmp_path / "map"
    graph_dir.mkdir()
    (graph_dir / "graph").write_bytes(line_graph(WAYPOINTS).SerializeToString())
    spot = backend(robot, map_dir=graph_dir)
    spot.start(WAYPOINTS)
    spot.navigate("office_table")
    spot.stop()
    assert "upload_graph" in names(robot)
    assert ("navigate", "office_table") in robot.commands


def test_a_malformed_map_is_refused_before_connecting(robot_factory, tmp_path):
    robot = robot_factory()
    (tmp_path / "graph").write_bytes(b"\xff not a graph")
    with pytest.raises(RobotError, match=r"map file .*graph' is malformed"):
        backend(robot, map_dir=tmp_path).start(WAYPOINTS)
    assert robot.commands == []


def test_a_wrong_password(robot_factory):
    robot = robot_factory()
    with pytest.raises(RobotError, match=r"refused the login of user 'user'.*password"):
        backend(robot, password="wrong").start(WAYPOINTS)
    assert robot.commands == []


def test_a_map_without_a_landmark(robot_factory):
    robot = robot_factory()
    with pytest.raises(RobotError, match=r"no waypoint named 'fridge'.*stopped"):
        backend(robot).start([*WAYPOINTS, "fridge"])
    assert_stopped_after(robot, names(robot).index("stand") + 1)


def test_an_unknown_waypoint(robot_factory):
    robot = robot_factory()
    spot = backend(robot)
    spot.start(WAYPOINTS)
    with pytest.raises(RobotError, match=r"navigate to 'fridge'.*no waypoint named 'fridge'"):
        spot.navigate("fridge")
    assert "navigate" not in names(robot)
    assert_stopped_after(robot, names(robot).index("set_localization") + 1)
    with pytest.raises(RobotError, match="not started"):
        spot.navigate("hallway")


def test_a_walk_that_ends_stuck(robot_factory):
    robot = robot_factory(stuck_at=["office_table"])
    spot = backend(robot)
    spot.start(WAYPOINTS)
    spot.navigate("hallway")
    with pytest.raises(RobotError, match=r"navigate to 'office_table'.*STATUS_STUCK.*stopped"):
        spot.navigate("office_table")
    assert_stopped_after(robot, robot.commands.index(("navigate", "office_table")) + 1)


def test_a_grasp_that_fails(robot_factory):
    robot = robot_factory(grasp_fails=True)
    spot = backend(robot)
    spot.start(WAYPOINTS)
    with pytest.raises(RobotError, match=r"pick up 'mail'.*MANIP_STATE_GRASP_FAILED.*stopped"):
        spot.pick("mail", at="mail_room")
    assert_stopped_after(robot, names(robot).index("grasp") + 1)


def test_a_robot_that_does_not_answer(tmp_path):
    with FakeSpot(tmp_path, waypoints=WAYPOINTS) as robot:
        port = robot.port
    spot = backend(robot, rpc_timeout=2.0)
    began = time.perf_counter()
    with pytest.raises(RobotError, match=r"could not start the robot at 127\.0\.0\.1"):
        spot.start(WAYPOINTS)
    assert time.perf_counter() - began < 15
    assert wait_closed(port)


def test_a_robot_that_is_estopped(robot_factory):
    robot = robot_factory(estopped=True)
    with pytest.raises(RobotError, match="E-Stopped by 'operator': hold an E-Stop"):
        backend(robot).start(WAYPOINTS)
    assert robot.commands == []


def test_a_robot_that_refuses_power(robot_factory):
    robot = robot_factory(power_status=power_pb2.STATUS_FAULTED)
    with pytest.raises(RobotError, match=r"start the robot.*Faulted.*stopped"):
        backend(robot).start(WAYPOINTS)
    assert names(robot)[:2] == ["acquire_lease", "power_on"]
    assert_stopped_after(robot, 2)


def test_a_walk_that_never_ends_is_bounded(robot_factory):
    robot = robot_factory(endless_at=["hallway"])
    spot = backend(robot, command_timeout=1.0)
    spot.start(WAYPOINTS)
    began = time.perf_counter()
    with pytest.raises(RobotError, match=r"did not reach 'hallway' within 1 s; the robot was"):
        spot.navigate("hallway")
    assert time.perf_counter() - began < 8
    assert_stopped_after(robot, robot.commands.index(("navigate", "hallway")) + 1)


def test_a_lease_lost_mid_task(robot_factory):
    robot = robot_factory()
    spot = backend(robot)
    spot.start(WAYPOINTS)
    spot.navigate("hallway")
    robot.revoked = True
    refused = r"navigate to 'office_table'.*refused our lease \(STATUS_REVOKED\)"
    with pytest.raises(RobotError, match=refused):
        spot.navigate("office_table")
    assert ("navigate", "office_table") not in robot.commands
    after = robot.commands[robot.commands.index(("navigate", "hallway")) + 1 :]
    assert ("refused", "stop") in after and ("refused", "sit") in after
    assert after[-1] == ("return_lease",)
    spot.stop()


def test_without_the_sdk_the_error_gives_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "bosdyn", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'safetychip\[spot-robot\]'"):
        BosdynBackend("spot", username="user", password="secret").start(["hallway"])


def test_bad_options():
    with pytest.raises(ValueError, match="rpc_timeout must be a positive number"):
        BosdynBackend("spot", rpc_timeout=0)


def test_without_a_login_start_says_where_to_give_one(monkeypatch):
    monkeypatch.delenv("BOSDYN_CLIENT_USERNAME", raising=False)
    monkeypatch.delenv("BOSDYN_CLIENT_PASSWORD", raising=False)
    with pytest.raises(RobotError, match=r"no login: pass username= .*BOSDYN_CLIENT_USERNAME"):
        BosdynBackend("127.0.0.1").start(["hallway"])


@pytest.mark.parametrize("plan", ["example_plan", "reference_plan"])
def test_both_backends_pass_the_same_monitored_demo_tasks(robot_factory, plan):
    """Every demo task with all ten constraints, run through the shield on the simulated
    robot and on the SDK against the fake robot: the same record, and the SDK saw exactly
    the commands of the executed actions."""
    from safetychip.envs import task_monitor
    from safetychip.envs.spot import SimulatedBackend, load_spot_tasks
    from safetychip.shield import run_plan

    scene = load_spot_scene("lab")
    for task in load_spot_tasks():
        if task.suite != "spot_delivery":
            continue
        robot = robot_factory(waypoints=scene.landmarks, edges=scene.edges)
        simulated_robot = SimulatedBackend()
        records = []
        for spot in (simulated_robot, backend(robot)):
            env = SpotEnv(scene, backend=spot, task=task)
            shield = Shield.of(env, task_monitor(task))
            records.append(run_plan(shield, getattr(task, plan), options={"task": task}))
        simulated, sdk = records
        assert [s.outcome for s in simulated.steps] == [s.outcome for s in sdk.steps], task.id
        assert simulated.trace == sdk.trace and simulated.judged == sdk.judged
        if plan == "reference_plan":  # the example plan is pruned, and may stop owing
            assert sdk.safe and sdk.goal_reached and sdk.done
        else:
            assert sdk.pruned, task.id
        walked = [c[1] for c in simulated_robot.log if c[0] == "navigate"]
        assert walked and walked == [c[1] for c in robot.commands if c[0] == "navigate"]
