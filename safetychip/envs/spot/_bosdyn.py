"""The real Spot robot behind :class:`~safetychip.envs.spot.SpotBackend`, through the official
Boston Dynamics SDK (``bosdyn-client``, an optional extra: ``pip install
'safetychip[spot-robot]'``).

The environment checks every action with the monitor first; this backend only carries out
admitted commands. Every command has a bounded wait: an RPC gives up after ``rpc_timeout``
seconds and a motion after ``command_timeout`` seconds. Whatever fails (an SDK error, a
navigation that ends stuck or lost, a failed grasp, a lost lease) stops the robot: the
backend sends a stop, stows the arm, sits the robot down and returns the lease, then raises
:class:`~safetychip.errors.RobotError` naming the command and the reason. After a failure
the backend refuses further commands until :meth:`BosdynBackend.start` is called again.

What each command sends
-----------------------
``start``
    Log in, synchronise clocks, check the E-Stop, take the body lease (kept alive in the
    background), power on, stand; upload the map directory if one is given, download the
    map, look up every landmark among the waypoint names (``Waypoint.annotations.name``) and
    localise on the nearest fiducial if the robot is not localised yet.
``navigate``
    GraphNav ``navigate_to`` the landmark's waypoint, polled until ``STATUS_REACHED_GOAL``.
``pick``
    A Manipulation API ``pick_object_ray_in_world`` grasp along :attr:`BosdynBackend.GRASP_RAY`
    (in the body frame: the object is in front of the robot at its waypoint), polled until
    ``MANIP_STATE_GRASP_SUCCEEDED``; then the arm carries the object.
``place``
    The hand moves to :attr:`BosdynBackend.PLACE_POSE`, the gripper opens, the arm stows and
    the gripper closes.
``switch``, ``touch``
    Gestures: the hand moves to :attr:`BosdynBackend.PRESS_POSE` (a switch is one press,
    whether on or off) or :attr:`BosdynBackend.TOUCH_POSE`, then the arm stows.

The E-Stop: this backend does not register an E-Stop endpoint of its own, on purpose (a
software E-Stop held by the same program that drives the robot protects against nothing).
A person must hold one (the tablet, or the SDK's ``estop_gui`` example); :meth:`start`
refuses a robot that is E-Stopped.

Examples
--------
>>> robot = BosdynBackend("192.168.80.3", username="user", password="secret", map_dir="maps/lab")
>>> robot
BosdynBackend('192.168.80.3', map_dir='maps/lab')
>>> try:
...     robot.navigate("hallway")
... except RobotError as error:
...     print(error)
cannot navigate to 'hallway': the robot is not started (or was stopped after a failure);
call start() first
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from safetychip.envs.spot._backend import SpotBackend
from safetychip.errors import RobotError, missing

__all__ = ["BosdynBackend"]

_LOG = logging.getLogger(__name__)

#: A point (x, y, z) in metres; the arm poses hold the hand level, pointing forward.
Point = tuple[float, float, float]


def _sdk() -> SimpleNamespace:
    """Import the SDK modules the backend uses, or raise the error giving the install command."""
    try:
        import bosdyn.client
        from bosdyn.api import geometry_pb2, manipulation_api_pb2
        from bosdyn.api.graph_nav import graph_nav_pb2, map_pb2, nav_pb2
        from bosdyn.client import frame_helpers, lease
        from bosdyn.client.graph_nav import GraphNavClient
        from bosdyn.client.manipulation_api_client import ManipulationApiClient
        from bosdyn.client.robot_command import (
            RobotCommandBuilder,
            RobotCommandClient,
            blocking_sit,
            blocking_stand,
        )
        from bosdyn.client.robot_state import RobotStateClient
    except ImportError:
        raise missing("bosdyn-client", "spot-robot") from None
    return SimpleNamespace(
        client=bosdyn.client,
        geometry=geometry_pb2,
        manipulation=manipulation_api_pb2,
        graph_nav=graph_nav_pb2,
        map=map_pb2,
        nav=nav_pb2,
        frames=frame_helpers,
        lease=lease,
        GraphNavClient=GraphNavClient,
        ManipulationApiClient=ManipulationApiClient,
        Builder=RobotCommandBuilder,
        RobotCommandClient=RobotCommandClient,
        RobotStateClient=RobotStateClient,
        blocking_sit=blocking_sit,
        blocking_stand=blocking_stand,
        # everything the SDK raises for a robot that cannot do what it was told
        errors=(bosdyn.client.Error, lease.Error, OSError),
    )


class _Failure(Exception):
    """Why a command failed (turned into a RobotError naming the command)."""


class BosdynBackend(SpotBackend):
    """Drive a Spot robot with an arm through the Boston Dynamics SDK.

    Parameters
    ----------
    hostname : str
        The robot's address (``SPOT_HOSTNAME``), e.g. ``"192.168.80.3"``.
    username, password : str, optional
        The robot login; default the ``BOSDYN_CLIENT_USERNAME`` and ``BOSDYN_CLIENT_PASSWORD``
        environment variables.
    map_dir : str or Path, optional
        A GraphNav map recorded on this robot (a ``graph`` file with ``waypoint_snapshots/``
        and ``edge_snapshots/``), uploaded at :meth:`start`. Without one, the map already
        on the robot is used.
    cert : str or Path, optional
        A glob of CA certificate files that sign the robot's certificate; default the
        certificate shipped with the SDK.
    port : int, optional
        The robot's secure gRPC port; default the SDK's (443).
    rpc_timeout : float
        Seconds one RPC may take.
    command_timeout : float
        Seconds a motion (stand, walk, grasp, arm move) may take.
    poll_interval : float
        Seconds between feedback requests while a motion runs.
    client_name : str
        How the robot's logs name this program.

    Raises
    ------
    ValueError
        If a timeout or the poll interval is not positive.

    Attributes
    ----------
    GRASP_RAY : tuple of Point
        Start and end of the ray along which :meth:`pick` looks for the object, in the body
        frame.
    PLACE_POSE, PRESS_POSE, TOUCH_POSE : Point
        Where the hand goes to place, press a switch, or touch, in the gravity-aligned body
        frame.
    """

    name = "bosdyn"

    GRASP_RAY: tuple[Point, Point] = ((0.4, 0.0, 0.4), (1.0, 0.0, -0.6))
    PLACE_POSE: Point = (0.8, 0.0, 0.1)
    PRESS_POSE: Point = (0.85, 0.0, 0.3)
    TOUCH_POSE: Point = (0.8, 0.0, -0.1)

    def __init__(
        self,
        hostname: str,
        *,
        username: str | None = None,
        password: str | None = None,
        map_dir: str | Path | None = None,
        cert: str | Path | None = None,
        port: int | None = None,
        rpc_timeout: float = 10.0,
        command_timeout: float = 60.0,
        poll_interval: float = 0.2,
        client_name: str = "safetychip",
    ) -> None:
        for option, value in [
            ("rpc_timeout", rpc_timeout),
            ("command_timeout", command_timeout),
            ("poll_interval", poll_interval),
        ]:
            if not value > 0:
                raise ValueError(f"{option} must be a positive number of seconds, not {value!r}")
        self.hostname = hostname
        self.username = username
        self.password = password
        self.map_dir = None if map_dir is None else Path(map_dir)
        self.cert = None if cert is None else str(cert)
        self.port = port
        self.rpc_timeout = rpc_timeout
        self.command_timeout = command_timeout
        self.poll_interval = poll_interval
        self.client_name = client_name
        self._sdk: Any = None
        self._robot: Any = None
        self._keepalive: Any = None
        self._commands: Any = None
        self._graph_nav: Any = None
        self._manipulation: Any = None
        self._waypoints: dict[str, str] = {}
        self._synced = False
        self._powered = False
        self._ready = False
        self._lease_error: BaseException | None = None

    def __repr__(self) -> str:
        options = "" if self.map_dir is None else f", map_dir={str(self.map_dir)!r}"
        return f"{type(self).__name__}({self.hostname!r}{options})"

    # -- the commands --------------------------------------------------------------------

    def start(self, waypoints: Sequence[str],
              connections: Sequence[tuple[str, str]] | None = None) -> None:  # fmt: skip
        """Connect, take the lease, power on, stand and localise on a map that names every
        one of *waypoints* and, given *connections*, joins them as they say (see
        :meth:`SpotBackend.start <safetychip.envs.spot.SpotBackend.start>`).

        Raises
        ------
        RobotError
            If the login is refused, the robot is E-Stopped or will not power on, the map
            is malformed, lacks one of *waypoints* or joins them otherwise than
            *connections*, or the robot cannot localise.
        """
        self.stop()
        sdk = self._sdk = _sdk()
        username = self.username or os.environ.get("BOSDYN_CLIENT_USERNAME")
        password = self.password or os.environ.get("BOSDYN_CLIENT_PASSWORD")
        with self._acting(f"start the robot at {self.hostname}", starting=True):
            if not username or not password:
                raise _Failure(
                    "no login: pass username= and password=, or set BOSDYN_CLIENT_USERNAME "
                    "and BOSDYN_CLIENT_PASSWORD"
                )
            graph = None if self.map_dir is None else self._read_map(self.map_dir)
            rpc = {"timeout": self.rpc_timeout}
            robot = self._connect(sdk)
            try:
                robot.authenticate(username, password, **rpc)
            except sdk.client.InvalidLoginError:
                raise _Failure(
                    f"the robot refused the login of user {username!r}: check the username "
                    "and password (BOSDYN_CLIENT_USERNAME, BOSDYN_CLIENT_PASSWORD)"
                ) from None
            self._synced = True
            robot.time_sync.wait_for_sync(timeout_sec=self.rpc_timeout)
            states = robot.ensure_client(sdk.RobotStateClient.default_service_name)
            stopped = [
                stop.name
                for stop in states.get_robot_state(**rpc).estop_states
                if stop.state == stop.STATE_ESTOPPED
            ]
            if stopped:
                raise _Failure(
                    f"the robot is E-Stopped by {', '.join(map(repr, stopped))}: hold an E-Stop "
                    "(the tablet, or the SDK's estop_gui) and release it before starting"
                )
            leases = robot.ensure_client(sdk.lease.LeaseClient.default_service_name)
            self._keepalive = sdk.lease.LeaseKeepAlive(
                leases,
                must_acquire=True,
                return_at_exit=True,
                on_failure_callback=self._lost_lease,
                warnings=False,
            )
            self._commands = robot.ensure_client(sdk.RobotCommandClient.default_service_name)
            self._powered = True
            robot.power_on(timeout_sec=self.command_timeout, **rpc)
            sdk.blocking_stand(
                self._commands,
                timeout_sec=self.command_timeout,
                update_frequency=1 / self.poll_interval,
            )
            self._graph_nav = robot.ensure_client(sdk.GraphNavClient.default_service_name)
            if graph is not None and self.map_dir is not None:
                self._upload_map(graph, self.map_dir)
            downloaded = self._graph_nav.download_graph(**rpc)
            names = {point.annotations.name: point.id for point in downloaded.waypoints}
            absent = [name for name in waypoints if name not in names]
            if absent:
                raise _Failure(
                    f"the robot's map has no waypoint named {', '.join(map(repr, absent))} "
                    f"(it names {', '.join(map(repr, sorted(names))) or 'none'}): record the "
                    "landmarks as waypoint names, or give the map directory that has them"
                )
            if connections is not None:
                mismatch = _mismatch(downloaded, waypoints, connections)
                if mismatch:
                    raise _Failure(mismatch)
            self._waypoints = names
            state = self._graph_nav.get_localization_state(**rpc)
            if not state.localization.waypoint_id:
                self._graph_nav.set_localization(
                    initial_guess_localization=sdk.nav.Localization(), **rpc
                )
            self._manipulation = robot.ensure_client(sdk.ManipulationApiClient.default_service_name)
        self._ready = True

    def navigate(self, waypoint: str) -> None:
        """Walk to *waypoint* along the robot's map.

        Raises
        ------
        RobotError
            If the map has no such waypoint, or the walk ends without reaching it (stuck,
            lost, impaired, …) or takes longer than ``command_timeout``.
        """
        with self._acting(f"navigate to {waypoint!r}"):
            if waypoint not in self._waypoints:
                raise _Failure(
                    f"the map has no waypoint named {waypoint!r} (it names "
                    f"{', '.join(map(repr, sorted(self._waypoints)))})"
                )
            status = self._sdk.graph_nav.NavigationFeedbackResponse
            command = self._graph_nav.navigate_to(
                self._waypoints[waypoint],
                cmd_duration=self.command_timeout,
                timeout=self.rpc_timeout,
            )

            def reached() -> bool | None:
                code = self._graph_nav.navigation_feedback(command, timeout=self.rpc_timeout)
                if code.status == status.STATUS_REACHED_GOAL:
                    return True
                if code.status in (status.STATUS_FOLLOWING_ROUTE, status.STATUS_UNKNOWN):
                    return None
                raise _Failure(f"the walk ended with {status.Status.Name(code.status)}")

            self._wait(reached, f"reach {waypoint!r}")

    def pick(self, obj: str, *, at: str) -> None:
        """Grasp *obj* in front of the robot at *at*, then hold it in the carry position.

        Raises
        ------
        RobotError
            If the grasp fails or takes longer than ``command_timeout``.
        """
        with self._acting(f"pick up {obj!r} at {at!r}"):
            sdk = self._sdk
            start, end = self.GRASP_RAY
            request = sdk.manipulation.ManipulationApiRequest(
                pick_object_ray_in_world=sdk.manipulation.PickObjectRayInWorld(
                    ray_start_rt_frame=sdk.geometry.Vec3(x=start[0], y=start[1], z=start[2]),
                    ray_end_rt_frame=sdk.geometry.Vec3(x=end[0], y=end[1], z=end[2]),
                    frame_name=sdk.frames.BODY_FRAME_NAME,
                )
            )
            command = self._manipulation.manipulation_api_command(
                manipulation_api_request=request, timeout=self.rpc_timeout
            ).manipulation_cmd_id
            states = sdk.manipulation.ManipulationFeedbackState
            failed = {
                states.MANIP_STATE_GRASP_FAILED,
                states.MANIP_STATE_GRASP_PLANNING_NO_SOLUTION,
                states.MANIP_STATE_GRASP_FAILED_TO_RAYCAST_INTO_MAP,
            }

            def grasped() -> bool | None:
                feedback = self._manipulation.manipulation_api_feedback_command(
                    manipulation_api_feedback_request=sdk.manipulation.ManipulationApiFeedbackRequest(
                        manipulation_cmd_id=command
                    ),
                    timeout=self.rpc_timeout,
                )
                if feedback.current_state == states.MANIP_STATE_GRASP_SUCCEEDED:
                    return True
                if feedback.current_state in failed:
                    raise _Failure(f"the grasp ended with {states.Name(feedback.current_state)}")
                return None

            self._wait(grasped, f"grasp {obj!r}")
            self._arm(sdk.Builder.arm_carry_command(), "carry the object")

    def place(self, obj: str, *, on: str) -> None:
        """Put the held *obj* down in front of the robot, on *on*: hand to
        :attr:`PLACE_POSE`, open the gripper, stow the arm, close the gripper.

        Raises
        ------
        RobotError
            If the arm or gripper does not arrive within ``command_timeout``.
        """
        with self._acting(f"put {obj!r} on {on!r}"):
            builder = self._sdk.Builder
            self._arm(self._pose(self.PLACE_POSE), "move the hand over the place")
            self._gripper(builder.claw_gripper_open_command(), "open the gripper")
            self._arm(builder.arm_stow_command(), "stow the arm")
            self._gripper(builder.claw_gripper_close_command(), "close the gripper")

    def switch(self, obj: str, *, on: bool) -> None:
        """Press *obj*'s switch: the hand to :attr:`PRESS_POSE` and back to stow (the same
        press switches on and off).

        Raises
        ------
        RobotError
            If the arm does not arrive within ``command_timeout``.
        """
        with self._acting(f"switch {'on' if on else 'off'} {obj!r}"):
            self._arm(self._pose(self.PRESS_POSE), "press the switch")
            self._arm(self._sdk.Builder.arm_stow_command(), "stow the arm")

    def touch(self, obj: str) -> None:
        """Touch *obj*: the hand to :attr:`TOUCH_POSE` and back to stow.

        Raises
        ------
        RobotError
            If the arm does not arrive within ``command_timeout``.
        """
        with self._acting(f"touch {obj!r}"):
            self._arm(self._pose(self.TOUCH_POSE), "reach out")
            self._arm(self._sdk.Builder.arm_stow_command(), "stow the arm")

    def stop(self) -> None:
        """Stop moving, stow the arm, sit down, return the lease and disconnect. Never
        raises: what fails is logged and the next step is tried."""
        self._ready = False
        robot, self._robot = self._robot, None
        if robot is None:
            return
        if self._powered and self._commands is not None:
            builder = self._sdk.Builder
            self._quietly(
                "stop",
                lambda: self._commands.robot_command(
                    builder.stop_command(), timeout=self.rpc_timeout
                ),
            )
            self._quietly("stow the arm", lambda: self._arm(builder.arm_stow_command(), "stow"))
            self._quietly(
                "sit",
                lambda: self._sdk.blocking_sit(
                    self._commands,
                    timeout_sec=self.command_timeout,
                    update_frequency=1 / self.poll_interval,
                ),
            )
        if self._keepalive is not None:
            self._quietly("return the lease", self._keepalive.shutdown)
        if self._synced:
            self._quietly("stop the time sync", robot.stop_time_sync)
        self._quietly("close the connection", robot.shutdown)
        self._keepalive = self._commands = self._graph_nav = self._manipulation = None
        self._waypoints = {}
        self._powered = self._synced = False

    # -- helpers -------------------------------------------------------------------------

    @contextmanager
    def _acting(self, what: str, *, starting: bool = False) -> Iterator[None]:
        """Run one command: refuse it when not started or the lease was lost; on any
        failure stop the robot and raise a RobotError naming *what* and the reason."""
        if not starting and not self._ready:
            raise RobotError(
                f"cannot {what}: the robot is not started (or was stopped after a failure); "
                "call start() first"
            )
        try:
            if self._lease_error is not None:
                raise _Failure(f"the lease was lost ({self._reason(self._lease_error)})")
            yield
        except _Failure as failure:
            self.stop()
            raise RobotError(f"could not {what}: {failure}; the robot was stopped") from None
        except self._sdk.errors as error:
            self.stop()
            raise RobotError(
                f"could not {what}: {self._reason(error)}; the robot was stopped"
            ) from error

    def _reason(self, error: BaseException) -> str:
        """Say why an SDK call failed."""
        if isinstance(error, self._sdk.client.LeaseUseError):
            status = error.lease_use_result
            return (
                f"the robot refused our lease ({type(status).Status.Name(status.status)}): "
                "another client took it, or it expired"
            )
        return f"{type(error).__name__}: {str(error) or type(error).__doc__}"

    def _connect(self, sdk: SimpleNamespace) -> Any:
        """Create the SDK's robot object (no RPC yet)."""
        robot = sdk.client.create_standard_sdk(
            self.client_name, cert_resource_glob=self.cert
        ).create_robot(self.hostname)
        if self.port is not None:
            robot.update_secure_channel_port(self.port)
        self._robot = robot
        self._lease_error = None
        return robot

    def _lost_lease(self, error: BaseException) -> None:
        """Called by the lease keep-alive thread when a check-in fails."""
        self._lease_error = error

    def _read_map(self, directory: Path) -> Any:
        """Read the ``graph`` file of a map directory."""
        path = directory / "graph"
        if not path.is_file():
            raise _Failure(f"no map at {str(path)!r}: give a directory recorded with GraphNav")
        graph = self._sdk.map.Graph()
        try:
            graph.ParseFromString(path.read_bytes())
        except Exception as error:  # protobuf's DecodeError has no stable import path
            raise _Failure(f"the map file {str(path)!r} is malformed ({error})") from None
        return graph

    def _upload_map(self, graph: Any, directory: Path) -> None:
        """Upload *graph*, then the snapshots the robot does not have yet."""
        answer = self._graph_nav.upload_graph(
            graph=graph,
            generate_new_anchoring=not graph.anchoring.anchors,
            timeout=self.rpc_timeout,
        )
        for kind, ids, upload in [
            (
                "waypoint",
                answer.unknown_waypoint_snapshot_ids,
                self._graph_nav.upload_waypoint_snapshot,
            ),
            ("edge", answer.unknown_edge_snapshot_ids, self._graph_nav.upload_edge_snapshot),
        ]:
            message = getattr(self._sdk.map, f"{kind.title()}Snapshot")
            for snapshot_id in ids:
                path = directory / f"{kind}_snapshots" / snapshot_id
                if not path.is_file():
                    raise _Failure(f"the map lacks the {kind} snapshot {str(path)!r}")
                snapshot = message()
                snapshot.ParseFromString(path.read_bytes())
                upload(snapshot, timeout=self.command_timeout)

    def _wait(self, done: Callable[[], bool | None], what: str) -> None:
        """Poll *done* (True: finished; None: still running; it raises on failure) until it
        finishes or ``command_timeout`` passes."""
        deadline = time.monotonic() + self.command_timeout
        while not done():
            if time.monotonic() > deadline:
                raise _Failure(f"did not {what} within {self.command_timeout:g} s")
            time.sleep(self.poll_interval)

    def _pose(self, point: Point) -> Any:
        """An arm command moving the hand to *point* (gravity-aligned body frame)."""
        return self._sdk.Builder.arm_pose_command(
            *point, 1.0, 0.0, 0.0, 0.0, self._sdk.frames.GRAV_ALIGNED_BODY_FRAME_NAME, seconds=2
        )

    def _arm(self, command: Any, what: str) -> None:
        """Send an arm command and wait until the arm arrives."""
        self._run(command, what, self._arm_arrived)

    def _gripper(self, command: Any, what: str) -> None:
        """Send a gripper command and wait until the gripper arrives."""
        self._run(command, what, self._gripper_arrived)

    def _run(self, command: Any, what: str, arrived: Callable[[Any], bool | None]) -> None:
        """Send a robot command and poll its feedback with *arrived*."""
        command_id = self._commands.robot_command(command, timeout=self.rpc_timeout)
        self._wait(
            lambda: arrived(
                self._commands.robot_command_feedback(command_id, timeout=self.rpc_timeout)
            ),
            what,
        )

    def _arm_arrived(self, response: Any) -> bool | None:
        """Whether an arm command's feedback says it arrived (None: not yet)."""
        from bosdyn.api import arm_command_pb2 as arm

        feedback = response.feedback.synchronized_feedback.arm_command_feedback
        if feedback.HasField("arm_cartesian_feedback"):
            status = feedback.arm_cartesian_feedback.status
            cartesian = arm.ArmCartesianCommand.Feedback
            if status in (
                cartesian.STATUS_TRAJECTORY_STALLED,
                cartesian.STATUS_TRAJECTORY_CANCELLED,
            ):
                raise _Failure(f"the arm ended with {cartesian.Status.Name(status)}")
            return status == cartesian.STATUS_TRAJECTORY_COMPLETE or None
        if feedback.HasField("named_arm_position_feedback"):
            status = feedback.named_arm_position_feedback.status
            named = arm.NamedArmPositionsCommand.Feedback
            if status == named.STATUS_STALLED_HOLDING_ITEM:
                raise _Failure("the arm stalled holding an item")
            return status == named.STATUS_COMPLETE or None
        return None

    def _gripper_arrived(self, response: Any) -> bool | None:
        """Whether a gripper command's feedback says it arrived (None: not yet)."""
        from bosdyn.api import gripper_command_pb2 as gripper

        claw = gripper.ClawGripperCommand.Feedback
        status = response.feedback.synchronized_feedback.gripper_command_feedback
        return (
            status.claw_gripper_feedback.status
            in (
                claw.STATUS_AT_GOAL,
                claw.STATUS_APPLYING_FORCE,
            )
            or None
        )

    def _quietly(self, what: str, step: Callable[[], object]) -> None:
        """Run one step of :meth:`stop`, logging (never raising) its failure."""
        try:
            step()
        except Exception as error:  # stop() must never raise: log it and go on
            _LOG.warning("%s: could not %s while stopping: %s", self, what, error)


def _mismatch(graph: Any, waypoints: Sequence[str],
              connections: Sequence[tuple[str, str]]) -> str:  # fmt: skip
    """How the map *graph* joins the named *waypoints* otherwise than *connections* (two are
    joined when a path links them through waypoints of no other of those names); empty when
    it joins them exactly so."""
    wanted = set(waypoints)
    named = {p.id: p.annotations.name for p in graph.waypoints if p.annotations.name in wanted}
    near: dict[str, set[str]] = {p.id: set() for p in graph.waypoints}
    for edge in graph.edges:
        a, b = edge.id.from_waypoint, edge.id.to_waypoint
        near.setdefault(a, set()).add(b)
        near.setdefault(b, set()).add(a)
    joined = set()
    for start, name in named.items():
        seen, todo = {start}, [start]
        while todo:
            for nxt in near[todo.pop()] - seen:
                seen.add(nxt)
                if nxt in named:
                    joined.add(frozenset((name, named[nxt])))
                else:
                    todo.append(nxt)
    scene = {frozenset(pair) for pair in connections}

    def listed(pairs: set[frozenset[str]]) -> str:
        return ", ".join("–".join(sorted(p)) for p in sorted(pairs, key=sorted))

    missing, extra = scene - joined, joined - scene
    if not missing and not extra:
        return ""
    parts = [f"it does not join {listed(missing)}"] if missing else []
    parts += [f"it joins {listed(extra)}, which the scene does not"] if extra else []
    return (f"the robot's map joins the landmarks otherwise than the scene: {'; '.join(parts)} "
            "(a walk the monitor admitted could pass where it was not told): record the map "
            "along the scene's edges, or give the scene the map's")  # fmt: skip
