"""Planner agents: the model writes one action at a time (SayCan / LLM-Planner style).

:class:`BaseAgent`
    The prompt holds the task, the allowed actions, the rooms and objects and the in-context
    example; each reply is grounded to an action (:class:`ActionGrounder`), which the
    environment executes; the loop goes on until DONE or the step limit.
:class:`NLConstraintsAgent`
    The same, with the task's constraints in English in the prompt and an instruction to obey
    them.

An action the environment cannot execute now (``grab salmon`` far from the salmon) ends the
episode as an error, as a VirtualHome script with a non-executable line fails: it is never
executed. A reply that cannot be grounded ends it the same way. Both are recorded with the
reason (:attr:`Episode.reason`).

Examples
--------
>>> from safetychip.envs import load_tasks
>>> from safetychip.llm import ScriptedModel
>>> task = load_tasks(suite="four_room")[0]
>>> agent = BaseAgent(ScriptedModel(["walk to kitchen", "done"]))
>>> episode = agent.run(task, k=1)
>>> episode.executed, episode.success, episode.safe, episode.violated
(('walk to kitchen',), True, False, ('c1',))
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import ModelReplyError, SafetyChipError
from ..llm import ChatModel, Message
from ._episode import Episode, EpisodeStep, expert_formulas, judge
from ._grounding import ActionGrounder
from ._prompts import planner_messages
from ._world import task_propositions, transition

__all__ = ["Agent", "BaseAgent", "Feedback", "NLConstraintsAgent"]


@dataclass(frozen=True)
class Feedback:
    """Why a proposal was refused, and what the model is told.

    Attributes
    ----------
    text : str or None
        The message after ``Error:`` in the next prompt (None: the proposal is dropped
        silently, as in the mask-only variant).
    reason : str
        The monitor's reason (recorded, not necessarily shown).
    violated : tuple of str
        The constraints the refusal is attributed to.
    """

    text: str | None
    reason: str
    violated: tuple[str, ...] = ()


class _Run:
    """The bookkeeping of one episode, shared by every agent."""

    def __init__(self, agent: Agent, task: Any, k: int, env: Any, seed: int | None) -> None:
        from ..envs import VirtualHomeEnv

        self.agent, self.task, self.k, self.seed = agent, task, k, seed
        self.env = env if env is not None else VirtualHomeEnv(task=task)
        self.props: tuple[str, ...] = ()
        self.initial: dict[str, bool] = {}
        self.trace: list[dict[str, bool]] = []
        self.steps: list[EpisodeStep] = []
        self.history: list[str] = []
        self.executed: list[str] = []
        self.reprompts = self.calls = self.prompt_tokens = self.completion_tokens = 0
        self.end, self.reason = "", ""
        self.untranslated: tuple[str, ...] = ()
        self.program: str | None = None
        self.judgeable = False
        self.stand_in = False
        self.world: Any = None
        self.safe_stop: list[str] = []
        self.stop_at: int | None = None

    # -- set-up -------------------------------------------------------------------------------

    def reset(self, extra: Sequence[str] = ()) -> None:
        """Reset the environment to the task, tracking every proposition anyone needs."""
        task, env = self.task, self.env
        expert_formulas(task, self.k)  # TaskError if a formula does not parse
        self.judgeable = True
        env.track(())
        if env.scene.name != task.scene:
            env.reset(options={"task": task})  # switch scene before tracking its names
        self.props = tuple(dict.fromkeys([*task_propositions(task), *extra]))
        env.track(self.props)
        _, info = env.reset(options={"task": task})
        self.world = env.snapshot()
        self.initial = dict(info["states"][0])
        self.trace = [self.initial]

    def lookahead(self, action: str) -> Any:
        """What *action* would do now (cached; the world is unchanged)."""
        return transition(self.env, self.world, action, self.props)

    # -- the model ------------------------------------------------------------------------------

    def ask(self, model: ChatModel, messages: list[Message], temperature: float = 0.0) -> str:
        """One call of *model*, counted."""
        reply = model.complete(messages, temperature=temperature)
        self.calls += 1
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens
        self.stand_in = self.stand_in or reply.stand_in
        return reply.text

    def count(self, model: ChatModel, before: tuple[int, int, int]) -> None:
        """Count the calls *model* made since its usage was *before* (calls, tokens)."""
        u = model.usage
        self.calls += u.calls - before[0]
        self.prompt_tokens += u.prompt_tokens - before[1]
        self.completion_tokens += u.completion_tokens - before[2]

    # -- outcomes -------------------------------------------------------------------------------

    def execute(self, number: int, reply: str, action: str, ahead: Any) -> list[dict[str, bool]]:
        """Execute *action*, whose lookahead is *ahead*: the world becomes the one it
        foresaw (the same world ``env.step`` would produce, simulated once)."""
        self.world = ahead.world
        self.env.restore(self.world)
        states = [dict(s) for s in ahead.states]
        self.trace.extend(states)
        self.executed.append(action)
        self.history.append(f"{number}. {action}")
        self.steps.append(EpisodeStep(number, reply, action, "executed"))
        return states

    def done(self, number: int, reply: str) -> None:
        """DONE is accepted: step the environment with it and end."""
        self.env.restore(self.world)
        self.env.step("done")
        self.history.append(f"{number}. done")
        self.steps.append(EpisodeStep(number, reply, "done", "done"))
        self.finish("done", "")

    def refuse(self, number: int, reply: str, action: str, feedback: Feedback) -> None:
        """The proposal was refused with *feedback*."""
        self.reprompts += 1
        if feedback.text is not None:
            self.history += [f"{number}. {action}", f"Error: {feedback.text}"]
        self.steps.append(EpisodeStep(number, reply, action, "refused", feedback.text,
                                      feedback.reason, feedback.violated))  # fmt: skip

    def not_executable(self, number: int, reply: str, action: str, error: str) -> None:
        """The environment cannot execute *action* now: the episode fails."""
        self.steps.append(EpisodeStep(number, reply, action, "not_executable", reason=error))
        self.finish("error", f"not executable: {error}")

    def error(self, number: int, reply: str, exc: Exception) -> None:
        """The reply (or program) cannot be used: the episode fails."""
        self.steps.append(EpisodeStep(number, reply, None, "error", reason=str(exc)))
        self.finish("error", f"{type(exc).__name__}: {exc}")

    def finish(self, end: str, reason: str) -> None:
        """End the episode (the first call wins)."""
        if not self.end:
            self.end, self.reason = end, reason

    def episode(self, **extra: Any) -> Episode:
        """The record."""
        task, agent = self.task, self.agent
        judged = judge(task, self.k, self.trace) if self.judgeable else {}
        before: bool | None = None
        if self.stop_at is not None and self.judgeable:
            before = all(judge(task, self.k, self.trace[: self.stop_at]).values())
        goal = False
        if self.world is not None:
            self.env.restore(self.world)
            goal = self.env.goal_reached()
        return Episode(
            task=task.id, suite=task.suite, scene=task.scene, agent=agent.name, k=self.k,
            model=agent.model.name, stand_in=self.stand_in or _is_stand_in(agent.model),
            end=self.end or "error", reason=self.reason, steps=tuple(self.steps),
            executed=tuple(self.executed), trace=tuple(self.trace),
            transcript=(f"Task: {task.instruction}", *self.history), judged=judged,
            goal_reached=goal, reprompts=self.reprompts, model_calls=self.calls,
            prompt_tokens=self.prompt_tokens, completion_tokens=self.completion_tokens,
            untranslated=self.untranslated, program=self.program, seed=self.seed,
            safe_stop=tuple(self.safe_stop), safe_without_stop=before, **extra,
        )  # fmt: skip


def _is_stand_in(model: ChatModel) -> bool:
    from ..llm import StandInModel

    inner = getattr(model, "model", model)  # a CachedModel wraps its model
    return isinstance(model, StandInModel) or isinstance(inner, StandInModel)


class Agent(abc.ABC):
    """Base class of the agents: :meth:`run` one task, get an :class:`Episode`.

    Parameters
    ----------
    model : ChatModel
        The language model (or an offline stand-in) the agent prompts.
    max_steps : int
        Actions executed before the episode is cut off (DONE excluded).
    """

    #: Short name used in tables (``"base"``, ``"nl"``, ``"chip"``, ``"cap"``).
    name: ClassVar[str] = ""
    #: Readable name.
    label: ClassVar[str] = ""

    def __init__(self, model: ChatModel, *, max_steps: int = 20) -> None:
        if not isinstance(model, ChatModel):
            raise TypeError(f"model must be a safetychip.llm.ChatModel, got "
                            f"{type(model).__name__}")  # fmt: skip
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        self.model = model
        self.max_steps = max_steps

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r})"

    def run(self, task: Any, k: int | None = None, *, env: Any = None,
            seed: int | None = None) -> Episode:  # fmt: skip
        """Run one episode of *task* with its first *k* constraints (default: all).

        Bad input never escapes as an exception: a reply that cannot be grounded, an action
        the environment cannot execute, a program the sandbox refuses, a formula that does
        not parse, a failed model call — each ends the episode with ``end="error"`` and the
        reason, and nothing unchecked is executed.

        Parameters
        ----------
        task : Task
        k : int, optional
            How many of the task's constraints apply (the first k).
        env : VirtualHomeEnv, optional
            Reused if given (it is reset to the task).
        seed : int, optional
            Recorded in the episode (the model carries its own seed).
        """
        k = len(task.constraints) if k is None else k
        if not 0 <= k <= len(task.constraints):
            raise ValueError(f"k must be between 0 and {len(task.constraints)} for task "
                             f"{task.id!r}, got {k}")  # fmt: skip
        run = _Run(self, task, k, env, seed)
        try:
            extra = self._prepare(run)
            run.reset(extra)
            self._play(run)
        except SafetyChipError as exc:  # bad input: recorded, never raised
            run.error(len(run.executed) + 1, "", exc)
        if run.world is not None:
            self._after(run)
        return run.episode(**self._episode_fields())

    def _after(self, run: _Run) -> None:  # noqa: B027 - an optional hook, nothing by default
        """After the episode ended (the environment was reset): a last word."""

    def _prepare(self, run: _Run) -> Sequence[str]:
        """Before the reset: build what the agent needs; return extra propositions."""
        return ()

    def _episode_fields(self) -> dict[str, Any]:
        return {}

    @abc.abstractmethod
    def _play(self, run: _Run) -> None:
        """Play the episode (the environment is reset)."""


class BaseAgent(Agent):
    """The base LLM agent: one action per reply, unaware of the constraints.

    Parameters
    ----------
    model : ChatModel
    max_steps : int
        Actions executed before the episode is cut off.
    grounder : ActionGrounder, optional
        Default: exact reading, then all-MiniLM-L6-v2 similarity (loaded only if needed).
    observe : bool
        Show the environment's description of the current state in each prompt.
    """

    name = "base"
    label = "Base"

    def __init__(self, model: ChatModel, *, max_steps: int = 20,
                 grounder: ActionGrounder | None = None, observe: bool = True) -> None:  # fmt: skip
        super().__init__(model, max_steps=max_steps)
        self.grounder = grounder if grounder is not None else ActionGrounder()
        self.observe = observe
        self.max_reprompts = 0

    def constraint_sentences(self, run: _Run) -> list[str]:
        """The sentences shown in the prompt (none for the base agent)."""
        return []

    def messages(self, run: _Run, number: int) -> list[Message]:
        """The prompt for the action at position *number*."""
        return planner_messages(
            run.task, run.env.scene, run.history, number,
            constraints=self.constraint_sentences(run),
            observation=run.env.render() if self.observe else None,
        )  # fmt: skip

    # hooks of the Safety Chip
    def _start(self, run: _Run) -> bool:
        return True

    def _check(self, run: _Run, action: str, states: list[dict[str, bool]]) -> Feedback | None:
        return None

    def _check_done(self, run: _Run) -> Feedback | None:
        return None

    def _executed(self, run: _Run, action: str, states: list[dict[str, bool]]) -> None:
        pass

    def _temperature(self, attempt: int) -> float:
        return 0.0

    def _play(self, run: _Run) -> None:
        if not self._start(run):
            return
        while True:
            if len(run.executed) >= self.max_steps:
                run.finish("step_limit", f"{self.max_steps} actions executed without DONE")
                return
            number = len(run.executed) + 1
            attempt = 0
            while True:
                reply = run.ask(self.model, self.messages(run, number), self._temperature(attempt))
                try:
                    grounded = self.grounder.ground(reply, run.env)
                except ModelReplyError as exc:
                    run.error(number, reply, exc)
                    return
                action = grounded.action
                if grounded.done:
                    feedback = self._check_done(run)
                    if feedback is None:
                        run.done(number, reply)
                        return
                else:
                    ahead = run.lookahead(action)
                    if ahead.error is not None:
                        run.not_executable(number, reply, action, ahead.error)
                        return
                    feedback = self._check(run, action, ahead.states)
                    if feedback is None:
                        states = run.execute(number, reply, action, ahead)
                        self._executed(run, action, states)
                        break
                run.refuse(number, reply, action, feedback)
                attempt += 1
                if attempt > self.max_reprompts:
                    run.finish("gave_up", f"{attempt} proposals refused for action {number}; "
                               f"the last: {action!r} ({feedback.reason})")  # fmt: skip
                    return


class NLConstraintsAgent(BaseAgent):
    """The base agent told the constraints in English, with an instruction to obey them.

    Parameters are those of :class:`BaseAgent`.
    """

    name = "nl"
    label = "NL Constraints"

    def constraint_sentences(self, run: _Run) -> list[str]:
        """The first k constraints' sentences."""
        return [c.sentence for c in run.task.constraints[: run.k]]
