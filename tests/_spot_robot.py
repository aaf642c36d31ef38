"""A fake Spot robot for tests: the SDK's own gRPC services on 127.0.0.1, behind TLS.

:class:`FakeSpot` implements, with the servicer base classes ``bosdyn-api`` ships, the
services :class:`~safetychip.envs.spot.BosdynBackend` uses (robot-id, auth, directory,
time-sync, lease, power, robot-command, robot-state, graph-nav, manipulation). Its TLS
certificate is signed by a throw-away CA (:func:`make_certificates`) and names
``*.spot.robot``, the authorities the SDK asks for, so the unmodified SDK connects to it
with ``create_standard_sdk(..., cert_resource_glob=<ca>)`` and
``update_secure_channel_port(port)``.

The robot does everything at once and records the commands it received in
:attr:`FakeSpot.commands` (``("navigate", "hallway")``, ``("stand",)``, ``("sit",)``, …).
Scripted failures: a wrong password is refused; a walk to a waypoint in ``stuck_at`` ends
``STATUS_STUCK`` and one to a waypoint in ``endless_at`` never ends; with ``grasp_fails``
every grasp ends ``MANIP_STATE_GRASP_FAILED``; ``estopped`` reports an E-Stop;
``power_status`` answers the power-on; setting :attr:`FakeSpot.revoked` mid-task makes the
robot refuse every command and lease check-in as if another client took the lease.

Examples
--------
>>> with FakeSpot(tmp_path, waypoints=["mail_room", "hallway"]) as robot:  # doctest: +SKIP
...     backend = BosdynBackend("127.0.0.1", cert=robot.ca, port=robot.port, ...)
"""

from __future__ import annotations

import datetime
import itertools
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
from bosdyn.api import (
    arm_command_pb2,
    auth_pb2,
    auth_service_pb2_grpc,
    basic_command_pb2,
    directory_pb2,
    directory_service_pb2_grpc,
    gripper_command_pb2,
    header_pb2,
    lease_pb2,
    lease_service_pb2_grpc,
    manipulation_api_pb2,
    manipulation_api_service_pb2_grpc,
    power_pb2,
    power_service_pb2_grpc,
    robot_command_pb2,
    robot_command_service_pb2_grpc,
    robot_id_pb2,
    robot_id_service_pb2_grpc,
    robot_state_pb2,
    robot_state_service_pb2_grpc,
    time_sync_pb2,
    time_sync_service_pb2_grpc,
)
from bosdyn.api.graph_nav import graph_nav_pb2, graph_nav_service_pb2_grpc, map_pb2
from bosdyn.client.auth import AuthClient
from bosdyn.client.directory import DirectoryClient
from bosdyn.client.graph_nav import GraphNavClient
from bosdyn.client.lease import LeaseClient
from bosdyn.client.manipulation_api_client import ManipulationApiClient
from bosdyn.client.power import PowerClient
from bosdyn.client.robot_command import RobotCommandClient
from bosdyn.client.robot_id import RobotIdClient
from bosdyn.client.robot_state import RobotStateClient
from bosdyn.client.time_sync import TimeSyncClient
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

__all__ = ["FakeSpot", "line_graph", "make_certificates", "wait_closed"]

#: The services the fake registers in its directory: client class -> authority prefix.
CLIENTS = [
    AuthClient, DirectoryClient, GraphNavClient, LeaseClient, ManipulationApiClient,
    PowerClient, RobotCommandClient, RobotIdClient, RobotStateClient, TimeSyncClient,
]  # fmt: skip


def make_certificates(directory: Path) -> tuple[Path, bytes, bytes]:
    """Write a throw-away CA to ``directory/ca.pem``; return its path and a server key and
    certificate (PEM) it signed for ``*.spot.robot``, valid for a day."""
    now = datetime.datetime.now(datetime.timezone.utc)

    def certificate(subject: str, key: Any, issuer: str, signer: Any, ca: bool) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if not ca:
            builder = builder.add_extension(
                x509.SubjectAlternativeName(
                    [x509.DNSName("*.spot.robot"), x509.DNSName("spot.robot")]
                ),
                critical=False,
            )
        return builder.sign(signer, hashes.SHA256())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = certificate("safetychip test CA", ca_key, "safetychip test CA", ca_key, True)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = certificate("fake.spot.robot", key, "safetychip test CA", ca_key, False)
    ca_path = directory / "ca.pem"
    ca_path.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return ca_path, key_pem, cert.public_bytes(serialization.Encoding.PEM)


def line_graph(
    names: Iterable[str], edges: Iterable[tuple[str, str]] | None = None
) -> map_pb2.Graph:
    """A GraphNav map of waypoints ``wp-<name>`` named *names*, joined by *edges* (default:
    in a line)."""
    names = list(names)
    graph = map_pb2.Graph()
    for name in names:
        point = graph.waypoints.add(id=f"wp-{name}")
        point.annotations.name = name
    for first, second in itertools.pairwise(names) if edges is None else edges:
        graph.edges.add().id.CopyFrom(
            map_pb2.Edge.Id(from_waypoint=f"wp-{first}", to_waypoint=f"wp-{second}")
        )
    return graph


def _answer(request: Any, response: Any) -> Any:
    """Fill *response*'s header as the robot does (request echoed, times, CODE_OK)."""
    header = response.header
    header.request_header.CopyFrom(request.header)
    header.request_received_timestamp.GetCurrentTime()
    header.response_timestamp.GetCurrentTime()
    header.error.code = header_pb2.CommonError.CODE_OK
    return response


class FakeSpot:
    """A scripted Spot robot serving the SDK on 127.0.0.1 (a context manager).

    Parameters
    ----------
    directory : Path
        Where the throw-away CA is written.
    waypoints : iterable of str
        The names of the map's waypoints.
    edges : iterable of (str, str), optional
        The waypoints the map joins (default: in a line, in order).
    password : str
        The one password accepted (any username).
    stuck_at : iterable of str
        Waypoints whose walk ends ``STATUS_STUCK``.
    endless_at : iterable of str
        Waypoints whose walk never ends.
    grasp_fails : bool
        Whether every grasp ends ``MANIP_STATE_GRASP_FAILED``.
    estopped : bool
        Whether the robot reports an E-Stop.
    power_status : int
        The ``bosdyn.api.power_pb2`` status answering a power command.

    Attributes
    ----------
    ca : Path
        The CA certificate to give the SDK.
    port : int
        The port it listens on, once entered.
    commands : list of tuple
        What it was told to do, in order (``("refused", kind)`` once the lease is revoked).
    revoked : bool
        Set it to take the lease away.
    """

    def __init__(
        self,
        directory: Path,
        *,
        waypoints: Iterable[str],
        edges: Iterable[tuple[str, str]] | None = None,
        password: str = "secret",
        stuck_at: Iterable[str] = (),
        endless_at: Iterable[str] = (),
        grasp_fails: bool = False,
        estopped: bool = False,
        power_status: int = power_pb2.STATUS_SUCCESS,
    ) -> None:
        self.waypoints = list(waypoints)
        self.edges = None if edges is None else list(edges)
        self.password = password
        self.stuck_at = set(stuck_at)
        self.endless_at = set(endless_at)
        self.grasp_fails = grasp_fails
        self.estopped = estopped
        self.power_status = power_status
        self.revoked = False
        self.ca, self._key, self._cert = make_certificates(directory)
        self.commands: list[tuple[str, ...]] = []
        self.uploaded: map_pb2.Graph | None = None
        self.localized = ""
        self.motors_on = False
        self.port = 0
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._robot_commands: dict[int, str] = {}
        self._walks: dict[int, tuple[str, int]] = {}
        self._grasps: dict[int, int] = {}
        self._server: grpc.Server | None = None

    # -- lifecycle ------------------------------------------------------------------------

    def __enter__(self) -> FakeSpot:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        for add, servicer in [
            (auth_service_pb2_grpc.add_AuthServiceServicer_to_server, _Auth(self)),
            (directory_service_pb2_grpc.add_DirectoryServiceServicer_to_server, _Directory()),
            (graph_nav_service_pb2_grpc.add_GraphNavServiceServicer_to_server, _GraphNav(self)),
            (lease_service_pb2_grpc.add_LeaseServiceServicer_to_server, _Lease(self)),
            (
                manipulation_api_service_pb2_grpc.add_ManipulationApiServiceServicer_to_server,
                _Manipulation(self),
            ),
            (power_service_pb2_grpc.add_PowerServiceServicer_to_server, _Power(self)),
            (
                robot_command_service_pb2_grpc.add_RobotCommandServiceServicer_to_server,
                _RobotCommand(self),
            ),
            (robot_id_service_pb2_grpc.add_RobotIdServiceServicer_to_server, _RobotId()),
            (robot_state_service_pb2_grpc.add_RobotStateServiceServicer_to_server, _State(self)),
            (time_sync_service_pb2_grpc.add_TimeSyncServiceServicer_to_server, _TimeSync()),
        ]:
            add(servicer, server)
        credentials = grpc.ssl_server_credentials([(self._key, self._cert)])
        self.port = server.add_secure_port("127.0.0.1:0", credentials)
        server.start()
        self._server = server
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.stop(grace=None).wait()
            self._server = None

    # -- the world --------------------------------------------------------------------------

    def record(self, *command: str) -> int:
        """Record a command; return a fresh command id."""
        with self._lock:
            self.commands.append(command)
            return next(self._ids)

    def graph(self) -> map_pb2.Graph:
        """The robot's map: the uploaded one, else :func:`line_graph` of its waypoints."""
        if self.uploaded is not None:
            return self.uploaded
        return line_graph(self.waypoints, self.edges)

    def refuse(self, kind: str, result: Callable[[], Any]) -> bool:
        """If the lease is revoked, record the refusal, mark the LeaseUseResult *result()*
        revoked and return True."""
        if not self.revoked:
            return False
        self.record("refused", kind)
        result().status = lease_pb2.LeaseUseResult.STATUS_REVOKED
        return True

    def name_of(self, waypoint_id: str) -> str | None:
        """The name of the waypoint with *waypoint_id*, or None."""
        for point in self.graph().waypoints:
            if point.id == waypoint_id:
                return str(point.annotations.name)
        return None


# -- the services -------------------------------------------------------------------------


class _RobotId(robot_id_service_pb2_grpc.RobotIdServiceServicer):
    def GetRobotId(self, request: Any, context: Any) -> Any:
        response = robot_id_pb2.RobotIdResponse()
        response.robot_id.serial_number = "fake-spot"
        response.robot_id.nickname = "fake"
        return _answer(request, response)


class _Auth(auth_service_pb2_grpc.AuthServiceServicer):
    def __init__(self, robot: FakeSpot) -> None:
        self.robot = robot

    def GetAuthToken(self, request: Any, context: Any) -> Any:
        response = auth_pb2.GetAuthTokenResponse()
        if request.password == self.robot.password:
            response.status = response.STATUS_OK
            response.token = "fake-token"
        else:
            response.status = response.STATUS_INVALID_LOGIN
        return _answer(request, response)


class _Directory(directory_service_pb2_grpc.DirectoryServiceServicer):
    def ListServiceEntries(self, request: Any, context: Any) -> Any:
        response = directory_pb2.ListServiceEntriesResponse()
        for client in CLIENTS:
            response.service_entries.add(
                name=client.default_service_name,
                type=client.service_type,
                authority=f"{client.default_service_name}.spot.robot",
            )
        return _answer(request, response)


class _TimeSync(time_sync_service_pb2_grpc.TimeSyncServiceServicer):
    def TimeSyncUpdate(self, request: Any, context: Any) -> Any:
        response = time_sync_pb2.TimeSyncUpdateResponse(clock_identifier="fake-clock")
        response.state.status = time_sync_pb2.TimeSyncState.STATUS_OK
        response.state.best_estimate.round_trip_time.FromMilliseconds(1)
        response.state.measurement_time.GetCurrentTime()
        return _answer(request, response)


class _Lease(lease_service_pb2_grpc.LeaseServiceServicer):
    def __init__(self, robot: FakeSpot) -> None:
        self.robot = robot

    def _lease(self, request: Any) -> lease_pb2.Lease:
        return lease_pb2.Lease(resource=request.resource, epoch="fake", sequence=[1])

    def AcquireLease(self, request: Any, context: Any) -> Any:
        self.robot.record("acquire_lease")
        response = lease_pb2.AcquireLeaseResponse(
            status=lease_pb2.AcquireLeaseResponse.STATUS_OK, lease=self._lease(request)
        )
        return _answer(request, response)

    def TakeLease(self, request: Any, context: Any) -> Any:
        self.robot.record("take_lease")
        response = lease_pb2.TakeLeaseResponse(
            status=lease_pb2.TakeLeaseResponse.STATUS_OK, lease=self._lease(request)
        )
        return _answer(request, response)

    def ReturnLease(self, request: Any, context: Any) -> Any:
        self.robot.record("return_lease")
        response = lease_pb2.ReturnLeaseResponse(status=lease_pb2.ReturnLeaseResponse.STATUS_OK)
        return _answer(request, response)

    def RetainLease(self, request: Any, context: Any) -> Any:
        response = lease_pb2.RetainLeaseResponse()
        response.lease_use_result.status = (
            lease_pb2.LeaseUseResult.STATUS_REVOKED
            if self.robot.revoked
            else lease_pb2.LeaseUseResult.STATUS_OK
        )
        response.lease_use_result.attempted_lease.CopyFrom(request.lease)
        return _answer(request, response)

    def ListLeases(self, request: Any, context: Any) -> Any:
        return _answer(request, lease_pb2.ListLeasesResponse())


class _Power(power_service_pb2_grpc.PowerServiceServicer):
    def __init__(self, robot: FakeSpot) -> None:
        self.robot = robot

    def PowerCommand(self, request: Any, context: Any) -> Any:
        on = request.request == power_pb2.PowerCommandRequest.REQUEST_ON_MOTORS
        self.robot.record("power_on" if on else "power_off")
        status = self.robot.power_status
        if status == power_pb2.STATUS_SUCCESS:
            self.robot.motors_on = on
        response = power_pb2.PowerCommandResponse(status=status)
        return _answer(request, response)

    def PowerCommandFeedback(self, request: Any, context: Any) -> Any:
        response = power_pb2.PowerCommandFeedbackResponse(status=power_pb2.STATUS_SUCCESS)
        return _answer(request, response)


class _State(robot_state_service_pb2_grpc.RobotStateServiceServicer):
    def __init__(self, robot: FakeSpot) -> None:
        self.robot = robot

    def GetRobotState(self, request: Any, context: Any) -> Any:
        response = robot_state_pb2.RobotStateResponse()
        state = response.robot_state
        power = robot_state_pb2.PowerState
        state.power_state.motor_power_state = (
            power.STATE_ON if self.robot.motors_on else power.STATE_OFF
        )
        state.estop_states.add(
            name="operator",
            type=robot_state_pb2.EStopState.TYPE_SOFTWARE,
            state=robot_state_pb2.EStopState.STATE_ESTOPPED
            if self.robot.estopped
            else robot_state_pb2.EStopState.STATE_NOT_ESTOPPED,
        )
        return _answer(request, response)


def _kind(command: robot_command_pb2.RobotCommand) -> str:
    """Name a robot command: stop, safe_power_off, stand, sit, stow, carry, arm_pose,
    gripper_open, gripper_close."""
    if command.HasField("full_body_command"):
        return str(command.full_body_command.WhichOneof("command")).removesuffix("_request")
    synchro = command.synchronized_command
    if synchro.HasField("mobility_command"):
        return str(synchro.mobility_command.WhichOneof("command")).removesuffix("_request")
    if synchro.HasField("arm_command"):
        arm = synchro.arm_command
        if arm.HasField("named_arm_position_command"):
            position = arm.named_arm_position_command.position
            return (
                arm_command_pb2.NamedArmPositionsCommand.Positions.Name(position)
                .split("_")[-1]
                .lower()
            )
        return "arm_pose"
    points = synchro.gripper_command.claw_gripper_command.trajectory.points
    return "gripper_open" if points and points[-1].point < -0.1 else "gripper_close"


class _RobotCommand(robot_command_service_pb2_grpc.RobotCommandServiceServicer):
    def __init__(self, robot: FakeSpot) -> None:
        self.robot = robot

    def RobotCommand(self, request: Any, context: Any) -> Any:
        kind = _kind(request.command)
        response = robot_command_pb2.RobotCommandResponse()
        if self.robot.refuse(kind, lambda: response.lease_use_result):
            return _answer(request, response)
        command_id = self.robot.record(kind)
        self.robot._robot_commands[command_id] = kind
        response.status = response.STATUS_OK
        response.robot_command_id = command_id
        return _answer(request, response)

    def RobotCommandFeedback(self, request: Any, context: Any) -> Any:
        kind = self.robot._robot_commands.get(request.robot_command_id, "")
        response = robot_command_pb2.RobotCommandFeedbackResponse()
        processing = basic_command_pb2.RobotCommandFeedbackStatus.STATUS_PROCESSING
        full = response.feedback.full_body_feedback
        synchro = response.feedback.synchronized_feedback
        if kind in ("stop", "safe_power_off"):
            full.status = processing
            getattr(full, f"{kind}_feedback").SetInParent()
        elif kind == "stand":
            synchro.mobility_command_feedback.status = processing
            stand = basic_command_pb2.StandCommand.Feedback
            synchro.mobility_command_feedback.stand_feedback.status = stand.STATUS_IS_STANDING
        elif kind == "sit":
            synchro.mobility_command_feedback.status = processing
            sit = basic_command_pb2.SitCommand.Feedback
            synchro.mobility_command_feedback.sit_feedback.status = sit.STATUS_IS_SITTING
        elif kind in ("stow", "carry", "ready"):
            synchro.arm_command_feedback.status = processing
            named = arm_command_pb2.NamedArmPositionsCommand.Feedback
            synchro.arm_command_feedback.named_arm_position_feedback.status = named.STATUS_COMPLETE
        elif kind == "arm_pose":
            synchro.arm_command_feedback.status = processing
            cartesian = arm_command_pb2.ArmCartesianCommand.Feedback
            feedback = synchro.arm_command_feedback.arm_cartesian_feedback
            feedback.status = cartesian.STATUS_TRAJECTORY_COMPLETE
        elif kind.startswith("gripper"):
            synchro.gripper_command_feedback.status = processing
            claw = gripper_command_pb2.ClawGripperCommand.Feedback
            synchro.gripper_command_feedback.claw_gripper_feedback.status = claw.STATUS_AT_GOAL
        else:
            full.status = basic_command_pb2.RobotCommandFeedbackStatus.STATUS_COMMAND_OVERRIDDEN
        return _answer(request, response)


class _GraphNav(graph_nav_service_pb2_grpc.GraphNavServiceServicer):
    def __init__(self, robot: FakeSpot) -> None:
        self.robot = robot

    def DownloadGraph(self, request: Any, context: Any) -> Any:
        response = graph_nav_pb2.DownloadGraphResponse(graph=self.robot.graph())
        return _answer(request, response)

    def DownloadGraphStreaming(self, request: Any, context: Any) -> Iterator[Any]:
        data = self.DownloadGraph(request, context).SerializeToString()
        response = graph_nav_pb2.DownloadGraphStreamingResponse()
        response.chunk.total_size = len(data)
        response.chunk.data = data
        yield _answer(request, response)

    def UploadGraphStreaming(self, request_iterator: Any, context: Any) -> Any:
        data = b"".join(part.chunk.data for part in request_iterator)
        request = graph_nav_pb2.UploadGraphRequest.FromString(data)
        self.robot.record("upload_graph")
        self.robot.uploaded = request.graph
        response = graph_nav_pb2.UploadGraphResponse(
            status=graph_nav_pb2.UploadGraphResponse.STATUS_OK
        )
        return _answer(request, response)

    def GetLocalizationState(self, request: Any, context: Any) -> Any:
        response = graph_nav_pb2.GetLocalizationStateResponse()
        response.localization.waypoint_id = self.robot.localized
        return _answer(request, response)

    def SetLocalization(self, request: Any, context: Any) -> Any:
        self.robot.record("set_localization")
        self.robot.localized = self.robot.graph().waypoints[0].id
        response = graph_nav_pb2.SetLocalizationResponse(
            status=graph_nav_pb2.SetLocalizationResponse.STATUS_OK
        )
        return _answer(request, response)

    def NavigateTo(self, request: Any, context: Any) -> Any:
        response = graph_nav_pb2.NavigateToResponse()
        name = self.robot.name_of(request.destination_waypoint_id)
        if name is None:
            response.status = response.STATUS_UNKNOWN_WAYPOINT
            return _answer(request, response)
        if self.robot.refuse("navigate", response.lease_use_results.add):
            return _answer(request, response)
        command_id = self.robot.record("navigate", name)
        self.robot._walks[command_id] = (name, 0)
        response.status = response.STATUS_OK
        response.command_id = command_id
        return _answer(request, response)

    def NavigationFeedback(self, request: Any, context: Any) -> Any:
        status = graph_nav_pb2.NavigationFeedbackResponse
        name, polls = self.robot._walks[request.command_id]
        self.robot._walks[request.command_id] = (name, polls + 1)
        response = status(status=status.STATUS_FOLLOWING_ROUTE)
        if polls >= 1 and name not in self.robot.endless_at:
            stuck = name in self.robot.stuck_at
            response.status = status.STATUS_STUCK if stuck else status.STATUS_REACHED_GOAL
            if not stuck:
                self.robot.localized = f"wp-{name}"
        return _answer(request, response)


class _Manipulation(manipulation_api_service_pb2_grpc.ManipulationApiServiceServicer):
    def __init__(self, robot: FakeSpot) -> None:
        self.robot = robot

    def ManipulationApi(self, request: Any, context: Any) -> Any:
        response = manipulation_api_pb2.ManipulationApiResponse()
        if self.robot.refuse("grasp", lambda: response.lease_use_result):
            return _answer(request, response)
        command_id = self.robot.record("grasp", str(request.WhichOneof("manipulation_cmd")))
        self.robot._grasps[command_id] = 0
        response.manipulation_cmd_id = command_id
        return _answer(request, response)

    def ManipulationApiFeedback(self, request: Any, context: Any) -> Any:
        states = manipulation_api_pb2.ManipulationFeedbackState
        polls = self.robot._grasps[request.manipulation_cmd_id]
        self.robot._grasps[request.manipulation_cmd_id] = polls + 1
        state = states.MANIP_STATE_GRASPING_OBJECT
        if polls >= 1:
            failed = self.robot.grasp_fails
            state = (
                states.MANIP_STATE_GRASP_FAILED if failed else states.MANIP_STATE_GRASP_SUCCEEDED
            )
        response = manipulation_api_pb2.ManipulationApiFeedbackResponse(
            manipulation_cmd_id=request.manipulation_cmd_id, current_state=state
        )
        return _answer(request, response)


def wait_closed(port: int, timeout: float = 5.0) -> bool:
    """Whether nothing listens on 127.0.0.1:*port* within *timeout* seconds."""
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return True
        time.sleep(0.05)
    return False
