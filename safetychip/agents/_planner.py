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
reason (:attr:`AgentEpisode.reason`).

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
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from .._budget import Budget
from ..envs import Env, Task
from ..errors import ModelReplyError, SafetyChipError, TimeBudgetError
from ..llm import ChatModel, Message
from ..shield import Filter, Shield, Step
from ._episode import AgentEpisode, judge
from ._grounding import ActionGrounder
from ._prompts import planner_messages

if TYPE_CHECKING:
    from ._chip import Reprompter

__all__ = ["Agent", "BaseAgent", "Feedback", "NLConstraintsAgent", "action_schema",
           "read_action", "task_propositions"]  # fmt: skip


@dataclass(frozen=True)
class Feedback:
    """What the model is told after a refusal.

    Attributes
    ----------
    text : str or None
        The message after ``Error:`` in the next prompt (None: the proposal is dropped
        silently, as in the mask-only variant).
    """

    text: str | None


T = TypeVar("T")


class PlanRun:
    """The bookkeeping of one episode, shared by every agent: the shield, the transcript,
    the model's usage, and how it ended."""

    def __init__(self, agent: Agent, task: Task, k: int, env: Env | None, seed: int | None,
                 filters: Sequence[Filter]) -> None:  # fmt: skip
        self.agent, self.task, self.k, self.seed = agent, task, k, seed
        self.env = env if env is not None else task.make_env()
        self.shield = Shield(self.env, filters, propositions=task_propositions(task))
        self.extra_steps: list[Step] = []
        self.history: list[str] = []
        self.reprompts = self.calls = self.prompt_tokens = self.completion_tokens = 0
        self.end, self.reason = "", ""
        self.untranslated: tuple[str, ...] = ()
        self.program: str | None = None
        self.judgeable = False
        self.stand_in = False
        self.started = False
        self.stop_at: int | None = None
        self.reprompter: Reprompter | None = None  # the chip's, if the agent has one
        seconds = agent.episode_seconds
        self.until = None if seconds is None else time.perf_counter() + seconds

    @property
    def executed(self) -> tuple[str, ...]:
        """The actions run so far."""
        return self.shield.executed

    # -- set-up -------------------------------------------------------------------------------

    def reset(self) -> bool:
        """Reset the environment to the task through the shield; False if the shield refused
        the start (the episode ends as aborted)."""
        task, env = self.task, self.env
        self.judgeable = True
        if getattr(env, "task", None) is not task:
            env.track(())
            env.reset(options={"task": task})  # switch scene before tracking its names
        start = self.shield.reset(options={"task": task})
        if not start.admitted and not start.abort and self.shield.idle():
            # a start refused for want of time: nothing has moved, settle it and ask again
            start = self.shield.reset(options={"task": task})
        self.started = True
        if start.admitted:
            return True
        if start.abort:
            self.finish("aborted", start.reason)
        else:
            self.finish("aborted", f"the initial state already breaks the constraints: "
                        f"{start.reason}")  # fmt: skip
        return False

    # -- the model ------------------------------------------------------------------------------

    def ask(self, model: ChatModel, messages: list[Message], temperature: float = 0.0,
            schema: dict[str, Any] | None = None) -> str:  # fmt: skip
        """One call of *model* (asking for a reply following *schema*, if given), counted."""
        reply = self.within(f"the call of {model!r}", lambda: model.complete(
            messages, temperature=temperature, schema=schema))  # fmt: skip
        self.calls += 1
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens
        self.stand_in = self.stand_in or reply.stand_in
        return reply.text

    def within(self, what: str, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` within what is left of the episode's wall time.

        Raises
        ------
        TimeBudgetError
            If the episode's time is up, or *function* does not return in what is left.
        """
        left = self._left(what)
        if left is None:
            return function(*args)
        try:
            return Budget(left, what).call(function, *args)
        except TimeBudgetError:
            raise TimeBudgetError(f"{what} did not end within the {self.agent.episode_seconds:g}"
                                  " s the episode may take: give the agent a larger "
                                  "episode_seconds, or a faster model") from None  # fmt: skip

    def _left(self, what: str) -> float | None:
        """Seconds left of the episode (None: no limit).

        Raises
        ------
        TimeBudgetError
            If none are left; *what* says what was about to happen.
        """
        if self.until is None:
            return None
        left = self.until - time.perf_counter()
        if left <= 0:
            raise TimeBudgetError(f"the episode ran past its {self.agent.episode_seconds:g} s "
                                  f"budget before {what}: give the agent a larger "
                                  "episode_seconds")  # fmt: skip
        return left

    def count(self, model: ChatModel, before: tuple[int, int, int]) -> None:
        """Count the calls *model* made since its usage was *before* (calls, tokens)."""
        u = model.usage
        self.calls += u.calls - before[0]
        self.prompt_tokens += u.prompt_tokens - before[1]
        self.completion_tokens += u.completion_tokens - before[2]

    # -- outcomes -------------------------------------------------------------------------------

    def propose(self, number: int, reply: str, action: Any) -> Step:
        """Propose *action* (as the environment read it, or its text) through the shield and
        write the transcript line when it ran or ended the episode; a step the environment
        cannot execute ends the episode."""
        self._left(f"proposing {str(action)!r}")  # the shield bounds its own filters' calls
        step = self.shield.propose(action, reply=reply)
        if step.outcome in ("executed", "done"):
            self.history.append(f"{number}. {step.action}")
            if step.outcome == "done":
                self.finish("done", "")
            elif step.error:  # it ran part of the way, then the environment stopped
                self.finish("error", step.error)
        elif step.outcome == "not_executable":
            self.finish("error", f"not executable: {step.error}")
        return step

    def refused(self, number: int, step: Step, feedback: Feedback) -> None:
        """The shield refused *step*; the model is told *feedback*."""
        self.reprompts += 1
        self.shield.record_feedback(feedback.text)
        if feedback.text is not None:
            self.history += [f"{number}. {step.action}", f"Error: {feedback.text}"]

    def stop(self) -> None:
        """The agent has stopped: when it stopped without DONE, the shield's filters may run
        a continuation that meets what they still owe (:meth:`Shield.finish
        <safetychip.shield.Shield.finish>`: the Safety Chip's safe stop), which the reason
        names."""
        at = len(self.shield.trace)
        plan = self.shield.finish()
        if plan is None:
            return
        self.stop_at = at
        if not plan:
            self.reason += "; safe stop: no safe continuation meets the pending obligations"
        else:
            self.reason += f"; safe stop: {', '.join(map(str, plan))}"

    def error(self, reply: str, exc: Exception) -> None:
        """The reply (or program) cannot be used: the episode fails."""
        self.extra_steps.append(Step("(none)", "error", error=str(exc), reply=reply))
        self.finish("error", f"{type(exc).__name__}: {exc}")

    def finish(self, end: str, reason: str) -> None:
        """End the episode (the first call wins)."""
        if not self.end:
            self.end, self.reason = end, reason

    def episode(self, **extra: Any) -> AgentEpisode:
        """The record."""
        task, agent = self.task, self.agent
        shield = self.shield
        trace = shield.trace
        judged = judge(task, self.k, trace) if self.judgeable and trace else {}
        before: bool | None = None
        if self.stop_at is not None and self.judgeable:
            before = all(judge(task, self.k, trace[: self.stop_at]).values())
        record = None
        if self.started:
            record = shield.record(constraints=task.constraints[: self.k], judged=judged,
                                   extra_steps=self.extra_steps)  # fmt: skip
        return AgentEpisode(
            task=task.id, suite=task.suite, scene=task.scene, agent=agent.key, k=self.k,
            model=agent.model.name, stand_in=self.stand_in or _is_stand_in(agent.model),
            end=self.end or "error", reason=self.reason, record=record,
            transcript=(f"Task: {task.instruction}", *self.history), judged=judged,
            goal_reached=record.goal_reached if record is not None else False,
            reprompts=self.reprompts, model_calls=self.calls,
            prompt_tokens=self.prompt_tokens, completion_tokens=self.completion_tokens,
            untranslated=self.untranslated, program=self.program, seed=self.seed,
            safe_without_stop=before, **extra,
        )  # fmt: skip


def _is_stand_in(model: ChatModel) -> bool:
    from ..llm import StandInModel

    inner = getattr(model, "model", model)  # a CachedModel wraps its model
    return isinstance(model, StandInModel) or isinstance(inner, StandInModel)


def task_propositions(task: Task) -> tuple[str, ...]:
    """Every proposition the record of *task* needs: the atoms of its constraints (each
    constraint's sorted) and of its goal (the filters add their own)."""
    names: list[str] = []
    for c in task.constraints:
        names += sorted(c.formula.atoms())
    names += [lit.lstrip("!") for lit in task.goal]
    return tuple(dict.fromkeys(names))


def action_schema(env: Env) -> dict[str, Any]:
    """The JSON schema of a structured action reply: ``{"action": <one admissible action>}``.

    Examples
    --------
    >>> from safetychip.envs import VirtualHomeEnv
    >>> env = VirtualHomeEnv("apartment_1")
    >>> _ = env.reset(options={"initial": ["agent_at(bedroom)"]})
    >>> schema = action_schema(env)
    >>> schema["required"], schema["properties"]["action"]["enum"][:2]
    (['action'], ['walk to hallway', 'walk to living room'])
    """
    return {
        "type": "object",
        "properties": {"action": {"type": "string", "enum": list(env.admissible_actions())}},
        "required": ["action"],
        "additionalProperties": False,
    }


def read_action(reply: str) -> str:
    """The action of a structured reply (:func:`action_schema`), for the grounder to read.

    A reply that is not JSON at all (a model or endpoint that ignored the schema) is returned
    as it is, to be read as prose; a JSON reply without a string ``"action"`` is an error.

    Raises
    ------
    ModelReplyError
        If the reply starts as JSON but is not valid JSON, or is not an object whose
        ``"action"`` is a string.

    Examples
    --------
    >>> read_action('{"action": "walk to kitchen"}'), read_action("walk to kitchen")
    ('walk to kitchen', 'walk to kitchen')
    >>> read_action('{"action": "walk to')
    Traceback (most recent call last):
    ...
    safetychip.errors.ModelReplyError: the model's structured reply '{"action": "walk to' is not
    valid JSON (Unterminated string ...); expected {"action": "<one allowed action>"}
    """
    text = reply.strip()
    if not text.startswith(("{", "[")):
        return reply
    expected = 'expected {"action": "<one allowed action>"}'
    shown = repr(text[:80]) + ("…" if len(text) > 80 else "")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ModelReplyError(f"the model's structured reply {shown} is not valid JSON ({exc}); "
                              f"{expected}", reply) from None  # fmt: skip
    action = data.get("action") if isinstance(data, dict) else None
    if not isinstance(action, str):
        raise ModelReplyError(f"the model's structured reply {shown} names no action; {expected}",
                              reply)  # fmt: skip
    return action


class Agent(abc.ABC):
    """Base class of the agents: :meth:`run` one task through the shield, get an
    :class:`AgentEpisode`.

    Every agent proposes its actions to a :class:`~safetychip.shield.Shield`; without a
    chip the shield has no filter and only records, with the Safety Chip
    (:class:`~safetychip.agents.Chip`) the constraint monitor (and any further filters)
    refuses what must not run, and the chip's reprompt policy says what the model is told.

    Parameters
    ----------
    model : ChatModel
        The language model (or an offline stand-in) the agent prompts.
    max_steps : int
        Actions executed before the episode is cut off (DONE excluded).
    chip : Chip, optional
        The Safety Chip around the agent (None: unshielded).
    episode_seconds : float or None
        The wall time of one episode, end to end (None: no limit), 600 s by default: each
        model call and each grounding runs within what is left, and past it the episode
        ends as an error saying so (what ran stays recorded; nothing more runs).
    """

    #: Short name used in tables (``"base"``, ``"nl"``, ``"chip"``, ``"cap"``).
    name: ClassVar[str] = ""
    #: Readable name.
    label: ClassVar[str] = ""

    def __init__(self, model: ChatModel, *, max_steps: int = 20, chip: Any = None,
                 episode_seconds: float | None = 600.0) -> None:  # fmt: skip
        if not isinstance(model, ChatModel):
            raise TypeError(f"model must be a safetychip.llm.ChatModel, got "
                            f"{type(model).__name__}")  # fmt: skip
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        if episode_seconds is not None and not episode_seconds > 0:
            raise ValueError(f"episode_seconds must be a positive number of seconds or None, "
                             f"got {episode_seconds!r}")  # fmt: skip
        self.model = model
        self.max_steps = max_steps
        self.chip = chip
        self.episode_seconds = episode_seconds

    @property
    def key(self) -> str:
        """The agent's name in tables: :attr:`name`, with ``_chip`` when a chip wraps an
        agent that is not the Safety Chip agent itself (``"cap_chip"``)."""
        if self.chip is None or self.name == "chip":
            return self.name
        return f"{self.name}_chip"

    def __repr__(self) -> str:
        chip = f", chip={self.chip!r}" if self.chip is not None else ""
        return f"{type(self).__name__}({self.model!r}{chip})"

    def run(self, task: Task, k: int | None = None, *, env: Env | None = None,
            seed: int | None = None) -> AgentEpisode:  # fmt: skip
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
        env : Env, optional
            Reused if given (it is reset to the task); default: ``task.make_env()``.
        seed : int, optional
            Recorded in the episode (the model carries its own seed).
        """
        k = len(task.constraints) if k is None else k
        if not 0 <= k <= len(task.constraints):
            raise ValueError(f"k must be between 0 and {len(task.constraints)} for task "
                             f"{task.id!r}, got {k}")  # fmt: skip
        chip = self.chip
        run: PlanRun | None = None
        try:
            env = env if env is not None else task.make_env()
            filters = chip.filters(task, k, env) if chip is not None else ()
            run = PlanRun(self, task, k, env, seed, filters)
            if chip is not None:
                run.untranslated = chip.untranslated(task, k)
                run.reprompter = chip.reprompter(run.shield, task, self.model)
            if run.reset():
                self._play(run)
        except SafetyChipError as exc:  # bad input: recorded, never raised
            if run is None:
                run = PlanRun(self, task, k, env, seed, ())
            run.error("", exc)
        if run.started:
            run.stop()
        return run.episode(**self._episode_fields())

    def _episode_fields(self) -> dict[str, Any]:
        chip = self.chip
        return chip.fields() if chip is not None else {}

    def _temperature(self, attempt: int) -> float:
        return self.chip.temperature(attempt) if self.chip is not None else 0.0

    def _feedback(self, run: PlanRun, step: Step) -> Feedback:
        reprompter = run.reprompter
        if reprompter is None:  # no filter refuses: only a bare shield's DONE could
            return Feedback(step.judgement.reason if step.judgement else None)
        explainer = reprompter.explainer  # its calls (llm_explain) are the episode's
        u = explainer.usage
        before = (u.calls, u.prompt_tokens, u.completion_tokens)
        try:
            return Feedback(reprompter(step))
        finally:
            run.count(explainer, before)

    @property
    def max_reprompts(self) -> int:
        """Refusals allowed per step before the episode ends."""
        return self.chip.max_reprompts if self.chip is not None else 0

    @abc.abstractmethod
    def _play(self, run: PlanRun) -> None:
        """Play the episode (the shield is reset)."""


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
    chip : Chip, optional
        The Safety Chip around the agent.
    structured : bool
        Ask for each action as structured output: a JSON object ``{"action": …}`` whose
        schema enumerates the environment's admissible actions (:func:`action_schema`), so
        that a model behind an endpoint that supports it (OpenAI, vLLM, llama.cpp) can only
        answer an admissible action. The reply is still checked (:func:`read_action`):
        a model that ignores the schema and writes prose is read as prose, and invalid JSON
        ends the episode as an error naming the reply.
    episode_seconds : float or None
        As for :class:`Agent`.
    """

    name = "base"
    label = "Base"

    def __init__(self, model: ChatModel, *, max_steps: int = 20,
                 grounder: ActionGrounder | None = None, observe: bool = True,
                 chip: Any = None, structured: bool = False,
                 episode_seconds: float | None = 600.0) -> None:  # fmt: skip
        super().__init__(model, max_steps=max_steps, chip=chip, episode_seconds=episode_seconds)
        self.grounder = grounder if grounder is not None else ActionGrounder()
        self.observe = observe
        self.structured = structured

    def constraint_sentences(self, run: PlanRun) -> list[str]:
        """The sentences shown in the prompt (none for the base agent)."""
        return []

    def messages(self, run: PlanRun, number: int) -> list[Message]:
        """The prompt for the action at position *number*."""
        return planner_messages(
            run.task, run.env, run.history, number,
            constraints=self.constraint_sentences(run),
            observation=run.env.render() if self.observe else None,
        )  # fmt: skip

    def _play(self, run: PlanRun) -> None:
        while True:
            if len(run.executed) >= self.max_steps or run.shield.finished:
                run.finish("step_limit", f"{len(run.executed)} actions executed without DONE")
                return
            number = len(run.executed) + 1
            attempt = 0
            while True:
                schema = action_schema(run.env) if self.structured else None
                reply = run.ask(self.model, self.messages(run, number), self._temperature(attempt),
                                schema)  # fmt: skip
                try:
                    text = read_action(reply) if self.structured else reply
                    grounded = run.within(
                        "reading the reply as an action", self.grounder.ground, text, run.env
                    )
                except ModelReplyError as exc:
                    run.error(reply, exc)
                    return
                action = grounded.parsed if grounded.parsed is not None else grounded.action
                step = run.propose(number, reply, action)
                if step.outcome == "executed":
                    break
                if step.outcome != "pruned":
                    return
                run.refused(number, step, self._feedback(run, step))
                attempt += 1
                if attempt > self.max_reprompts:
                    reason = step.judgement.reason if step.judgement else ""
                    run.finish("gave_up", f"{attempt} proposals refused for action {number}; "
                               f"the last: {step.action!r} ({reason})")  # fmt: skip
                    return


class NLConstraintsAgent(BaseAgent):
    """The base agent told the constraints in English, with an instruction to obey them.

    Parameters are those of :class:`BaseAgent`.
    """

    name = "nl"
    label = "NL Constraints"

    def constraint_sentences(self, run: PlanRun) -> list[str]:
        """The first k constraints' sentences."""
        return [c.sentence for c in run.task.constraints[: run.k]]
