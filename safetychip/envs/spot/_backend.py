"""The robot behind the Spot environment: one small interface, two implementations.

The environment keeps the symbolic world (where the robot is, what it holds, what rests
where) and checks every action itself; a backend only carries out commands the shield has
already admitted. :class:`SimulatedBackend` does nothing but record them; the ``bosdyn``
backend sends them to a real robot through the official SDK. A backend that fails raises
:class:`~safetychip.errors.RobotError`; the environment then calls :meth:`SpotBackend.stop`
and reports the failure, so the robot is left stopped and sitting.

Examples
--------
>>> robot = SimulatedBackend()
>>> robot.start(["mail_room", "hallway"])
>>> robot.navigate("hallway"); robot.pick("mail", at="hallway"); robot.stop()
>>> robot.log
[('start',), ('navigate', 'hallway'), ('pick', 'mail', 'hallway'), ('stop',)]
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

__all__ = ["SimulatedBackend", "SpotBackend"]


class SpotBackend(abc.ABC):
    """Carries out admitted commands on a robot. Every method raises
    :class:`~safetychip.errors.RobotError` when the robot cannot do it."""

    #: Short name, for reprs and records.
    name: str = "backend"

    @abc.abstractmethod
    def start(self, waypoints: Sequence[str],
              connections: Sequence[tuple[str, str]] | None = None) -> None:  # fmt: skip
        """Connect, take the lease, power on, stand and localise on a map that has every one
        of *waypoints* (the scene's landmarks) and, when *connections* are given (the pairs
        of landmarks the scene joins), joins them exactly so: a walk the monitor admitted then
        passes only through the places it was told of."""

    @abc.abstractmethod
    def navigate(self, waypoint: str) -> None:
        """Walk to *waypoint* (a neighbour of the current one on the map)."""

    @abc.abstractmethod
    def pick(self, obj: str, *, at: str) -> None:
        """Grasp *obj*, which rests at waypoint *at* where the robot stands."""

    @abc.abstractmethod
    def place(self, obj: str, *, on: str) -> None:
        """Put the held *obj* on (or in) the object or landmark *on*, then stow the arm."""

    @abc.abstractmethod
    def switch(self, obj: str, *, on: bool) -> None:
        """Switch *obj* on or off (a press with the arm)."""

    @abc.abstractmethod
    def touch(self, obj: str) -> None:
        """Touch *obj* with the gripper."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop safely: stop moving, stow the arm, sit; release the lease. Never raises."""


class SimulatedBackend(SpotBackend):
    """A backend that records the commands it is given (the world is the environment's).

    Attributes
    ----------
    log : list of tuple
        Every command, in order.
    """

    name = "simulated"

    def __init__(self) -> None:
        self.log: list[tuple[str, ...]] = []

    def start(self, waypoints: Sequence[str],
              connections: Sequence[tuple[str, str]] | None = None) -> None:  # fmt: skip
        """Record the start."""
        self.log.append(("start",))

    def navigate(self, waypoint: str) -> None:
        """Record a walk."""
        self.log.append(("navigate", waypoint))

    def pick(self, obj: str, *, at: str) -> None:
        """Record a grasp."""
        self.log.append(("pick", obj, at))

    def place(self, obj: str, *, on: str) -> None:
        """Record a placement."""
        self.log.append(("place", obj, on))

    def switch(self, obj: str, *, on: bool) -> None:
        """Record a switch."""
        self.log.append(("switch", obj, "on" if on else "off"))

    def touch(self, obj: str) -> None:
        """Record a touch."""
        self.log.append(("touch", obj))

    def stop(self) -> None:
        """Record the stop."""
        self.log.append(("stop",))
