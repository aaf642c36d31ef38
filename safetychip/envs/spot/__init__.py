"""The Boston Dynamics Spot robot behind safetychip's environment protocol.

Contents
--------
:class:`SpotBackend`, :class:`SimulatedBackend`
    The robot that carries out admitted commands: the interface, and a recording simulator.
:class:`BosdynBackend`
    The real robot through the Boston Dynamics SDK (the ``spot-robot`` extra, imported on use).
"""

from safetychip.envs.spot._backend import SimulatedBackend, SpotBackend
from safetychip.envs.spot._bosdyn import BosdynBackend

__all__ = ["BosdynBackend", "SimulatedBackend", "SpotBackend"]
