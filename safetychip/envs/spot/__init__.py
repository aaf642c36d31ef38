"""The Boston Dynamics Spot robot behind safetychip's environment protocol.

Contents
--------
:class:`SpotBackend`, :class:`SimulatedBackend`
    The robot that carries out admitted commands: the interface, and a recording simulator.
"""

from safetychip.envs.spot._backend import SimulatedBackend, SpotBackend

__all__ = ["SimulatedBackend", "SpotBackend"]
