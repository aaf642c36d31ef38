"""The episodic memory as a shield filter: a proposal whose action text resembles an unsafe
episode, or matches a rule, is refused with the memory's safe alternative, which the Safety
Chip's reprompt passes on ("Try instead: …"). What ran is committed to the memory as one
interaction (:meth:`EpisodicMemory.record <safetychip.memory.EpisodicMemory.record>`), with
the harm the caller's *harm* detector reports, so consolidation runs inside a shielded run.
Given *frames* (the environment's reading of a proposal into action frames, e.g.
``lambda proposal, state: env.action_frames(proposal.action)`` on a
:class:`~safetychip.envs.thor.ThorEnv`), the memory checks the proposed action at the action
level (verb, object and target with their affordances, state changes), and what ran is
committed with its frames.

Examples
--------
>>> from safetychip.memory import EpisodicMemory, Episode, WordEmbedder
>>> from safetychip.shield import Proposal
>>> memory = EpisodicMemory(embedder=WordEmbedder())
>>> _ = memory.add(Episode("walk to kitchen", harm="collision"))
>>> f = MemoryFilter(memory)
>>> j = f.judge(Proposal("walk to kitchen"), {}, ())
>>> j.admitted, j.constraints, j.alternative
(False, ('e1',), 'navigate around the person')
>>> f.judge(Proposal("walk to bathroom"), {}, ()).admitted
True
>>> f.harm = lambda proposal, states: "collision"  # e.g. a bumper's report
>>> f.commit(Proposal("walk to bathroom"), ({},))
>>> memory.episodes[-1], memory.interactions
(<Episode e2 'walk to bathroom': collision, sensor 0.9>, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..shield import Filter, Judgement, Proposal
from ._action import ActionFrame
from ._episode import check_frames
from ._memory import EpisodicMemory
from ._scene import SceneGraph

__all__ = ["MemoryFilter"]

State = Mapping[str, bool]


class MemoryFilter(Filter):
    """Refuses the proposals the memory blocks; admits the rest (DONE always).

    Parameters
    ----------
    memory : EpisodicMemory
        Checked with each proposal's action text.
    scene : SceneGraph or callable, optional
        The scene the actions run in: fixed, or ``scene(state)`` of the current proposition
        state. Without it the text similarity alone decides.
    harm : callable, optional
        ``harm(proposal, states)``: the harm type the admitted *proposal* caused when it ran
        and produced *states*, or None; the caller's detector (a sensor, a person, a model).
        Without it every committed command is harmless.
    source : str
        Who detects the harm (a key of :data:`~safetychip.memory.SOURCES`).
    frames : callable, optional
        ``frames(proposal, state)``: the action frames of the proposal in the current state
        (:class:`~safetychip.memory.ActionFrame` or their dict forms). Without it the memory
        checks the action text (and the scene) alone. A reading that raises makes the
        shield refuse the proposal (it fails safe).
    """

    name = "memory"

    def __init__(
        self,
        memory: EpisodicMemory,
        scene: SceneGraph | Callable[[State], SceneGraph] | None = None,
        harm: Callable[[Proposal, Sequence[State]], str | None] | None = None,
        source: str = "sensor",
        frames: Callable[[Proposal, State], Sequence[ActionFrame | Mapping[str, Any]]]
        | None = None,
    ) -> None:
        if not isinstance(memory, EpisodicMemory):
            raise TypeError(
                f"memory must be a safetychip.memory.EpisodicMemory, got {type(memory).__name__}"
            )
        self.memory = memory
        self.scene = scene
        self.harm = harm
        self.source = source
        self.frames = frames
        self._read: tuple[Proposal, tuple[ActionFrame, ...]] | None = None

    def _frames_of(self, proposal: Proposal, state: State) -> tuple[ActionFrame, ...] | None:
        """The frames of *proposal* (read once per proposal, for judging and committing)."""
        if self.frames is None:
            return None
        if self._read is None or self._read[0] is not proposal:
            read = check_frames(list(self.frames(proposal, state)), "MemoryFilter.frames")
            self._read = (proposal, read)
        return self._read[1]

    def _scene_of(self, state: State) -> SceneGraph | None:
        return self.scene(state) if callable(self.scene) else self.scene

    def judge(self, proposal: Proposal, state: State, trace: Sequence[State]) -> Judgement:
        """The memory's decision on ``proposal.action`` as a judgement."""
        if proposal.done:
            return Judgement.admit(self.name)
        decision = self.memory.check(proposal.action, self._scene_of(state),
                                     frames=self._frames_of(proposal, state))  # fmt: skip
        if not decision.blocked:
            return Judgement.admit(self.name)
        matched = decision.matched
        assert matched is not None
        return Judgement.refuse(self.name, decision.reason, (matched.id,),
                                alternative=decision.alternative,
                                details=dict(decision.scores))  # fmt: skip

    def commit(self, proposal: Proposal, states: Sequence[State]) -> Judgement | None:
        """Record ``proposal.action`` as one interaction of the memory, in the scene of the
        last of *states*, with the harm ``harm(proposal, states)`` reports; never a judgement
        (harm is learned from, not undone)."""
        if not proposal.done:
            harm = self.harm(proposal, states) if self.harm else None
            scene = self._scene_of(states[-1] if states else {})
            acts = self._read[1] if self._read and self._read[0] is proposal else ()
            self.memory.record(proposal.action, scene, harm=harm, source=self.source,
                               frames=acts)  # fmt: skip
        return None

    def __repr__(self) -> str:
        return f"<MemoryFilter: {self.memory!r}>"
