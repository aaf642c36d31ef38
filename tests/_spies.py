"""Test helper: environments that log every ``env.step``, to prove what reached the world."""

from __future__ import annotations

from safetychip.envs import PropositionEnv, VirtualHomeEnv

__all__ = ["SpyHome", "SpyProps", "spied"]


def spied(cls):
    """A subclass of the environment class *cls* whose ``stepped`` lists every action stepped."""

    class Spied(cls):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.stepped: list[str] = []

        def step(self, action):
            self.stepped.append(str(self.parse(action)))
            return super().step(action)

    return Spied


SpyProps = spied(PropositionEnv)
SpyHome = spied(VirtualHomeEnv)
