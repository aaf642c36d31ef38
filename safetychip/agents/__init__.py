"""Agents that plan with a language model, with and without the Safety Chip.

============================  ======================================================================
name                          what it is
============================  ======================================================================
:class:`BaseAgent`            SayCan / LLM-Planner style: one action per reply, grounded; with
                              ``structured=True`` a JSON reply over the admissible actions
                              (:func:`action_schema`, :func:`read_action`)
:class:`NLConstraintsAgent`   the same, with the constraints in English in the prompt
:class:`Chip`                 the Safety Chip around any agent: the monitor as the shield's
                              first filter and a reprompt policy (:data:`REPROMPTS`), from
                              expert or translated formulas (:data:`FORMULAS`);
                              :func:`repair_hint` finds safe continuations
:class:`Reprompter`           what the model is told after a refusal, rendered from it
:class:`ChipHooks`            the chip at both ends of an episode, as shield hooks: the goal
                              check at reset, the safe stop at finish
:class:`SafetyChipAgent`      the base agent with a :class:`Chip`
:class:`CodeAsPoliciesAgent`  the model writes a program against :data:`SKILLS`, run in a sandbox
                              (:func:`run_program`)
:class:`OfflineAgentModel`    a deterministic offline stand-in for the model (not an LLM)
:class:`AgentEpisode`,        the record of a run; success and safety judged without the
:func:`judge`                 monitor
============================  ======================================================================

Examples
--------
>>> from safetychip.agents import OfflineAgentModel, make_agent
>>> from safetychip.envs import load_tasks
>>> task = load_tasks(suite="four_room")[0]
>>> chip = make_agent("chip", OfflineAgentModel(seed=0, deviation=0.0), reprompt="explain")
>>> episode = chip.run(task, k=1)
>>> episode.executed, episode.safe, episode.success
(('walk to bathroom', 'walk to kitchen'), True, True)
>>> make_agent("robot", OfflineAgentModel())
Traceback (most recent call last):
...
ValueError: unknown agent 'robot'; choose one of base, nl, chip, cap, base_chip, nl_chip, cap_chip
"""

from typing import Any

from safetychip._public import deprecated_aliases, publish

from ._chip import (
    FORMULAS,
    REPROMPTS,
    Chip,
    ChipHooks,
    Reprompter,
    SafetyChipAgent,
    candidate_set,
    chip_constraints,
    done_explanation,
    repair_hint,
    simulated_pick,
)
from ._code import SKILLS, CodeAsPoliciesAgent, extract_program
from ._episode import ENDS, STAND_IN_LABEL, AgentEpisode, judge
from ._grounding import THRESHOLD, ActionGrounder, GroundedAction, first_line
from ._offline import OfflineAgentModel, TextRule, phrase_action, read_rule
from ._planner import (
    Agent,
    BaseAgent,
    Feedback,
    NLConstraintsAgent,
    action_schema,
    read_action,
    task_propositions,
)
from ._prompts import code_messages, example_program, planner_messages
from ._sandbox import ProgramRun, check_program, run_program

#: The agents by short name.
AGENTS: dict[str, type[Agent]] = {
    "base": BaseAgent,
    "nl": NLConstraintsAgent,
    "chip": SafetyChipAgent,
    "cap": CodeAsPoliciesAgent,
}


def make_agent(name: str, model: Any, **options: Any) -> Agent:
    """Build the agent called *name* (a key of :data:`AGENTS`) around *model*.

    ``"<name>_chip"`` wraps agent *name* in a :class:`Chip` (``"cap_chip"``: Code as
    Policies, shielded); the options ``reprompt``, ``formulas`` and ``deadline`` then go to
    the chip.

    Raises
    ------
    ValueError
        If *name* is unknown (the message lists the choices).
    """
    base, shielded = (name[:-5], True) if name.endswith("_chip") else (name, False)
    try:
        cls = AGENTS[base]
    except KeyError:
        choices = ", ".join([*AGENTS, *(f"{n}_chip" for n in AGENTS if n != "chip")])
        raise ValueError(f"unknown agent {name!r}; choose one of {choices}") from None
    if shielded and base != "chip":
        chip = {k: options.pop(k) for k in ("reprompt", "formulas", "deadline") if k in options}
        options["chip"] = Chip(**chip)
    return cls(model, **options)


__all__ = [
    "AGENTS", "ENDS", "FORMULAS", "REPROMPTS", "SKILLS", "STAND_IN_LABEL", "THRESHOLD",
    "ActionGrounder", "Agent", "AgentEpisode", "BaseAgent", "Chip", "ChipHooks",
    "CodeAsPoliciesAgent",
    "Feedback", "GroundedAction", "NLConstraintsAgent", "OfflineAgentModel", "ProgramRun",
    "Reprompter",
    "SafetyChipAgent", "TextRule",
    "action_schema", "candidate_set", "check_program", "chip_constraints", "code_messages",
    "done_explanation",
    "example_program", "extract_program", "first_line",
    "judge", "make_agent", "phrase_action", "planner_messages",
    "read_action", "read_rule", "repair_hint", "run_program", "simulated_pick",
    "task_propositions",
]  # fmt: skip

publish(__name__, globals(), __all__)

# Renamed so as not to collide with safetychip.memory.Episode and safetychip.memory.Rule; the
# old names answer, with a DeprecationWarning, until the next release.
__getattr__ = deprecated_aliases(
    __name__, {"Episode": "AgentEpisode", "Rule": "TextRule"}, globals()
)
