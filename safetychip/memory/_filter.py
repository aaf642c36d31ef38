"""The episodic memory as a shield filter: a proposal whose action text resembles an unsafe
episode, or matches a rule, is refused with the memory's safe alternative, which the Safety
Chip's reprompt passes on ("Try instead: …").

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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..shield import Filter, Judgement, Proposal
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
    """

    name = "memory"

    def __init__(
        self,
        memory: EpisodicMemory,
        scene: SceneGraph | Callable[[State], SceneGraph] | None = None,
    ) -> None:
        if not isinstance(memory, EpisodicMemory):
            raise TypeError(
                f"memory must be a safetychip.memory.EpisodicMemory, got {type(memory).__name__}"
            )
        self.memory = memory
        self.scene = scene

    def judge(self, proposal: Proposal, state: State, trace: Sequence[State]) -> Judgement:
        """The memory's decision on ``proposal.action`` as a judgement."""
        if proposal.done:
            return Judgement.admit(self.name)
        scene = self.scene(state) if callable(self.scene) else self.scene
        decision = self.memory.check(proposal.action, scene)
        if not decision.blocked:
            return Judgement.admit(self.name)
        matched = decision.matched
        assert matched is not None
        return Judgement.refuse(self.name, decision.reason, (matched.id,),
                                alternative=decision.alternative,
                                details=dict(decision.scores))  # fmt: skip

    def __repr__(self) -> str:
        return f"<MemoryFilter: {self.memory!r}>"
