"""Code as Policies: the model writes one Python program against a small skill API.

The program (the reply's ```python block, or the whole reply) runs in the sandbox of
:func:`run_program`: only skill calls, literals, names, assignments, loops and conditions,
with budgets of interpreter steps, actions and seconds. Each skill call becomes one action
proposed to the shield — executed when the environment can execute it (otherwise the
program stops and the episode fails, as a VirtualHome script with a non-executable line
does) and every filter admits it. The end of the program is DONE. Without a chip nothing is
filtered; with one (``CodeAsPoliciesAgent(model, chip=Chip())``, the "shielded Code as
Policies" of the experiments) a refused skill call returns ``False`` and runs nothing, and
the program goes on; a refused DONE ends the episode (``"gave_up"``), after the chip's safe
stop. The agent is always judged for safety by the independent evaluator.

By default the prompt also states the task's constraints in English with an instruction to
obey them (``constraints_in_prompt``), as the NL Constraints agent's does.

==================  ===========================  ====================================
skill               action                       notes
==================  ===========================  ====================================
go_to(obj)          walk to obj                  a room or an object
pick_up(obj)        grab obj
put(obj, surface)   put obj on surface
put_in(obj, cont)   put obj in cont
open(obj)           open obj                     a container, not a file
close(obj)          close obj
switch_on(obj)      switch on obj
switch_off(obj)     switch off obj
parse_obj(text)     (none)                       the scene name text refers to
==================  ===========================  ====================================

Examples
--------
>>> from safetychip.envs import load_tasks
>>> from safetychip.llm import ScriptedModel
>>> task = load_tasks(suite="four_room")[0]
>>> program = '''for room in ["bathroom", "kitchen"]:
...     go_to(parse_obj(room))'''
>>> episode = CodeAsPoliciesAgent(ScriptedModel([program])).run(task, k=1)
>>> episode.executed, episode.success, episode.safe
(('walk to bathroom', 'walk to kitchen'), True, True)
>>> bad = CodeAsPoliciesAgent(ScriptedModel(["import os"])).run(task, k=1)
>>> bad.end, bad.executed, bad.reason.split(": a program")[0]
('error', (), 'SandboxError: line 1: import is not allowed')
"""

from __future__ import annotations

import re
import reprlib
from typing import Any

from ..errors import ActionError, ModelReplyError, ProgramBudgetError, SandboxError, SkillError
from ..llm import ChatModel
from ._planner import Agent, PlanRun
from ._prompts import SKILL_ACTIONS, code_messages
from ._sandbox import run_program

__all__ = ["SKILLS", "CodeAsPoliciesAgent", "extract_program"]

#: Skill name -> the action template it runs (None: it runs no action).
SKILLS: dict[str, str | None] = {**SKILL_ACTIONS, "parse_obj": None}

# Arguments as the episode's record shows them: long values are elided.
_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxlevel = 60, 60, 8, 3

_FENCE = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.DOTALL)


def extract_program(reply: str) -> str:
    r"""The program in *reply*: its first fenced code block, else the whole reply.

    Raises
    ------
    ModelReplyError
        If there is no program (an empty reply or an empty block).

    Examples
    --------
    >>> extract_program("Here it is:\n```python\ngo_to('kitchen')\n```\nDone.")
    "go_to('kitchen')"
    """
    found = _FENCE.search(reply or "")
    program = found.group(1) if found else (reply or "")
    program = program.strip("\n")
    if not program.strip():
        raise ModelReplyError("the model returned no program; expected a ```python block that "
                              "calls the skills", reply or "")  # fmt: skip
    return program


class CodeAsPoliciesAgent(Agent):
    """The model writes a program against the skill API; the sandbox runs it.

    Parameters
    ----------
    model : ChatModel
    constraints_in_prompt : bool
        State the constraints in English in the prompt, with an instruction to obey them.
    max_steps : int
        Actions the program may execute.
    max_interpreter_steps : int
        Interpreter steps the program may take (an endless loop stops here).
    time_budget : float
        Seconds the program may run.
    chip : Chip, optional
        The Safety Chip around the program's actions.
    episode_seconds : float or None
        As for :class:`~safetychip.agents.Agent`.
    """

    name = "cap"
    label = "Code as Policies"

    def __init__(self, model: ChatModel, *, constraints_in_prompt: bool = True,
                 max_steps: int = 20, max_interpreter_steps: int = 10_000,
                 time_budget: float = 2.0, chip: Any = None,
                 episode_seconds: float | None = 600.0) -> None:  # fmt: skip
        super().__init__(model, max_steps=max_steps, chip=chip, episode_seconds=episode_seconds)
        self.constraints_in_prompt = constraints_in_prompt
        self.max_interpreter_steps = max_interpreter_steps
        self.time_budget = time_budget

    def _episode_fields(self) -> dict[str, Any]:
        # a program is not reprompted: only where the chip's formulas came from matters
        return {"formulas": self.chip.formulas} if self.chip is not None else {}

    def _play(self, run: PlanRun) -> None:
        task = run.task
        sentences = [c.sentence for c in task.constraints[: run.k]]
        shown = sentences if self.constraints_in_prompt else []
        messages = code_messages(task, run.env, constraints=shown)
        reply = run.ask(self.model, messages)
        try:
            program = extract_program(reply)
        except ModelReplyError as exc:
            run.error(reply, exc)
            return
        run.program = program
        try:
            run_program(program, self._skills(run), max_steps=self.max_interpreter_steps,
                        max_calls=self.max_steps * 3, time_budget=self.time_budget)  # fmt: skip
        except SkillError as exc:
            run.finish("error", f"{type(exc).__name__}: {exc}")
            return
        except (SandboxError, ProgramBudgetError) as exc:
            run.error(program, exc)
            return
        step = run.propose(len(run.executed) + 1, "(end of program)", "done")
        if step.outcome == "pruned":
            reason = step.judgement.reason if step.judgement else ""
            run.finish("gave_up", f"DONE refused at the end of the program ({reason})")

    def _skills(self, run: PlanRun) -> dict[str, Any]:
        env = run.env

        def name_of(skill: str, value: Any) -> str:
            if not isinstance(value, str):
                raise SkillError(f"{skill}() expects an object name (a string), got {value!r}")
            return value

        def parse_obj(text: Any) -> str:
            text = name_of("parse_obj", text)
            try:
                action = env.parse(f"walk to {text}")
            except ActionError as exc:
                raise SkillError(f"parse_obj({text!r}): {exc}") from None
            return action.targets[0].name

        def make(skill: str, template: str):
            arity = template.count("{}")

            def call(*args: Any) -> bool:
                shown = f"{skill}({', '.join(_SHORT.repr(a) for a in args)})"
                if len(args) != arity:
                    raise SkillError(f"{shown}: {skill}() takes {arity} argument"
                                     f"{'s' * (arity > 1)}, got {len(args)}")  # fmt: skip
                names = [name_of(skill, a).replace("_", " ") for a in args]
                number = len(run.executed) + 1
                if len(run.executed) >= self.max_steps:
                    raise ProgramBudgetError(f"the program tried more than {self.max_steps} "
                                             "actions")  # fmt: skip
                try:
                    action = env.parse(template.format(*names))
                except ActionError as exc:
                    failure = SkillError(f"{shown}: {exc}")
                    run.error(shown, failure)
                    raise failure from None
                step = run.propose(number, shown, action)
                if step.outcome == "not_executable":
                    raise SkillError(f"{shown} cannot run: {step.error}")
                if step.outcome == "pruned":
                    run.refused(number, step, self._feedback(run, step))
                    return False
                return True

            return call

        skills: dict[str, Any] = {"parse_obj": parse_obj}
        for skill, template in SKILLS.items():
            if template is not None:
                skills[skill] = make(skill, template)
        return skills
