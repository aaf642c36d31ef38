"""The robot's map must join the landmarks as the scene does (issue 44): otherwise a walk the
monitor admitted along the scene's edges could pass, on the robot, through a place the
monitor was never told of. The Boston Dynamics SDK against a fake robot on 127.0.0.1."""

import pytest

pytest.importorskip("bosdyn.client", reason="needs the spot-robot extra")
pytest.importorskip("cryptography", reason="needs the dev extra (cryptography)")

from bosdyn.api.graph_nav import map_pb2

from safetychip.envs import SpotEnv, load_spot_scene
from safetychip.envs.spot import BosdynBackend
from safetychip.errors import RobotError
from safetychip.monitor import Monitor
from safetychip.shield import Shield
from tests._spot_robot import FakeSpot, line_graph, wait_closed

SCENE = load_spot_scene("lab")


@pytest.fixture
def robot(tmp_path):
    fake = FakeSpot(tmp_path, waypoints=SCENE.landmarks, edges=SCENE.edges).__enter__()
    yield fake
    fake.__exit__(None, None, None)
    assert wait_closed(fake.port)


def _backend(robot):
    return BosdynBackend("127.0.0.1", username="user", password="secret", cert=robot.ca,
                         port=robot.port, rpc_timeout=20.0, command_timeout=20.0,
                         poll_interval=0.02)  # fmt: skip


def _through_corridors(edges) -> map_pb2.Graph:
    """The scene's map with an unnamed corridor waypoint on every edge."""
    graph = line_graph(SCENE.landmarks, [])
    for k, (a, b) in enumerate(edges):
        graph.waypoints.add(id=f"corridor-{k}")
        for end in (a, b):
            graph.edges.add().id.CopyFrom(
                map_pb2.Edge.Id(from_waypoint=f"wp-{end}", to_waypoint=f"corridor-{k}")
            )
    return graph


def _unjoined() -> tuple[str, str]:
    joined = {frozenset(e) for e in SCENE.edges}
    marks = SCENE.landmarks
    return next((a, b) for a in marks for b in marks if a < b and {a, b} not in joined)


@pytest.mark.parametrize(
    ("edges", "says"),
    [
        (lambda: [*SCENE.edges, _unjoined()], "which the scene does not"),
        (lambda: list(SCENE.edges[1:]), "it does not join " + "–".join(sorted(SCENE.edges[0]))),
    ],
    ids=["a-shortcut", "a-missing-edge"],
)
def test_a_map_joining_landmarks_otherwise_is_refused(robot, edges, says):
    robot.uploaded = line_graph(SCENE.landmarks, edges())
    spot = _backend(robot)
    with pytest.raises(RobotError, match="joins the landmarks otherwise than the scene") as err:
        spot.start(SCENE.landmarks, SCENE.edges)
    assert says in str(err.value)
    assert not any(c[0] == "navigate" for c in robot.commands)


def test_a_shortcut_through_an_unnamed_waypoint_is_refused(robot):
    a, b = _unjoined()
    graph = _through_corridors(SCENE.edges)
    graph.waypoints.add(id="secret-door")
    for end in (a, b):
        graph.edges.add().id.CopyFrom(
            map_pb2.Edge.Id(from_waypoint=f"wp-{end}", to_waypoint="secret-door")
        )
    robot.uploaded = graph
    with pytest.raises(RobotError, match="–".join(sorted((a, b)))):
        _backend(robot).start(SCENE.landmarks, SCENE.edges)


def test_a_map_joining_them_through_corridors_is_accepted(robot):
    robot.uploaded = _through_corridors(SCENE.edges)
    spot = _backend(robot)
    spot.start(SCENE.landmarks, SCENE.edges)
    spot.stop()


def test_through_the_shield_the_robot_does_not_walk_on_a_wrong_map(robot):
    robot.uploaded = line_graph(SCENE.landmarks, [*SCENE.edges, _unjoined()])
    env = SpotEnv(SCENE, backend=_backend(robot))
    shield = Shield.of(env, Monitor(["G !is_grabbed(mail)"]))
    shield.reset()
    step = shield.propose("walk to hallway")
    assert step.outcome == "not_executable" and "otherwise than the scene" in step.error
    assert shield.finished
    assert not any(c[0] == "navigate" for c in robot.commands)
