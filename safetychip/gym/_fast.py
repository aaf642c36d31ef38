"""The shield wrapper's fast path: a proposal judged by a lookup in the monitor's move cache.

When the constraint monitor is the shield's only filter (a plain
:class:`~safetychip.monitor.Monitor`) and a one-step model previews the actions of a discrete
action space, a step of :class:`~safetychip.gym.ShieldWrapper` needs only the model's answer,
the monitor's verdict for that letter from where the trace is (:meth:`Monitor.known
<safetychip.monitor.Monitor.known>`, a dictionary lookup once the move was met), the real
step, and its label. :class:`FastPath` does just that, and records the same
:class:`~safetychip.shield.Step` s, trace, monitor history and judgements the shield's loop
would (the tests compare both on random walks).

Whenever it cannot decide by itself (a move not met yet, an answer of the labeller or the
model that is not exactly one plain bool per proposition, a model that raises, an action that
is not a plain ``int``, an episode over or stale) it does nothing and answers None, and the
wrapper takes the shield's checked path, which decides, refuses with its reason, or raises.

Examples
--------
>>> import gymnasium as gym
>>> import minigrid  # registers the MiniGrid environments
>>> from safetychip.gym import MiniGridLabeller, ShieldWrapper
>>> labeller = MiniGridLabeller()
>>> env = ShieldWrapper(gym.make("MiniGrid-LavaGapS5-v0"), labeller, ['G !"on_lava"'],
...                     model=labeller.model)
>>> fast = FastPath.of(env.adapter, env.shield)
>>> _ = env.reset(seed=0)
>>> fast.propose(2) is None  # forward, onto lava: a move the monitor has not met
True
>>> env.shield.propose(2).outcome  # the checked path decides it
'pruned'
>>> fast.propose(2).outcome  # now a lookup
'pruned'
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from ..monitor import Monitor
from ..shield import Judgement, MonitorFilter, Proposal, Shield, Step
from ._adapter import GymEnv, OneStepModel
from ._labeller import exact_values

__all__ = ["FastPath"]


class FastPath:
    """Propose actions to a shield over a :class:`GymEnv` by lookups, as
    :meth:`Shield.propose <safetychip.shield.Shield.propose>` would (build it with
    :meth:`of`).

    Parameters
    ----------
    adapter : GymEnv
        The environment, with its one-step model.
    shield : Shield
        Whose only filter is a :class:`~safetychip.shield.MonitorFilter` over a plain
        :class:`~safetychip.monitor.Monitor`.
    """

    def __init__(self, adapter: GymEnv, shield: Shield) -> None:
        self.adapter, self.shield = adapter, shield
        self.filter: MonitorFilter = shield.filters[0]  # type: ignore[assignment]
        self.monitor: Monitor = self.filter.monitor
        self.model: OneStepModel = adapter.model  # type: ignore[assignment]
        self.names = self.monitor.atoms

    @classmethod
    def of(cls, adapter: GymEnv, shield: Shield) -> FastPath | None:
        """The fast path of *shield* over *adapter*, or None when its steps need the shield's
        loop (another filter, a candidate monitor, no one-step model, actions that are not
        numbered, or a shield that pauses to idle after a refusal)."""
        filters = shield.filters
        if (
            adapter.model is None
            or not adapter.admissible_actions()
            or len(filters) != 1
            or type(filters[0]) is not MonitorFilter
            or type(filters[0].monitor) is not Monitor
            or shield.idle_seconds != 0
        ):
            return None
        return cls(adapter, shield)

    def propose(self, action: Any) -> Step | None:
        """Judge *action* and run it if admitted, as ``shield.propose(action)`` would (the
        step is recorded and returned), or do nothing and return None when the fast path
        cannot decide.

        Raises
        ------
        LabellerError
            If the action ran but the labeller cannot label what it produced (as the
            shield's loop would).
        """
        adapter, shield, names = self.adapter, self.shield, self.names
        actions = adapter._actions
        if type(action) is not int or not 0 <= action < len(actions):
            return None
        with shield._lock:
            if (not shield.trace or shield._stopped or adapter._stale is not None
                    or shield.idle_seconds != 0 or shield.propositions != names):  # fmt: skip
                return None
            world = adapter._world
            try:
                values = exact_values(self.model(world, action, names), names)
            except Exception:  # the checked path refuses it, and says why
                return None
            monitor = self.monitor
            if values is None or (verdict := monitor.known(values)) is None:
                return None
            judgement = self.filter._judgement(verdict)
            text = actions[action].text
            if not judgement.admitted:
                step = Step(text, "pruned", (dict(zip(names, values)),), judgement)
                shield.steps.append(step)
                return step
            observation, reward, terminated, truncated, info = adapter.gym_env.step(action)
            adapter.last = (observation, float(reward), bool(terminated), bool(truncated), info)
            try:
                real = exact_values(adapter.labeller.label(observation, info, world, names), names)
            except Exception:
                real = None
            if real is None or (ran := monitor.known(real, commit=True)) is None:
                # the checked labelling and commit: they decide, or raise
                proposal = Proposal(text, (MappingProxyType(dict(zip(names, values))),))
                state = adapter.label_ran(observation, info)
                return shield._ran(text, proposal, judgement, truncated, {"states": [state]})
            shield._stopped = bool(truncated)
            state = dict(zip(names, real))
            shield.trace.append(state)
            shield._view.append(MappingProxyType(dict(state)))
            if not ran.safe:  # the real step differs from the preview and breaks the rules
                judgement = Judgement.of_verdict(ran, self.filter.name)
            step = Step(text, "executed", (state,), judgement, None, (), None, None, "agent")
            shield.steps.append(step)
            return step
