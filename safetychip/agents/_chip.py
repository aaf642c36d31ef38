"""The Safety Chip agent: the base agent, unaware of the constraints, with the monitor in the
loop.

Every proposed action is previewed (the environment says which proposition states it would
produce, without running it) and checked by the monitor. A SAFE action runs and is
committed; an unsafe one is masked, and the model is reprompted with an ``Error:`` line whose
content is the **reprompt variant** (:data:`REPROMPTS`):

``mask``
    Nothing is said: the proposal is dropped and the model is asked again with the same
    prompt, sampled at ``retry_temperature`` (rejection sampling without feedback).
``generic``
    ``Error: that action is not allowed.``
``explain``
    The deterministic explanation of :func:`safetychip.explain.explain_violation`: the
    constraint broken, the ``Violated:`` literals, what would make the action allowed.
``llm_explain``
    The Safety Chip paper's agent query (:func:`safetychip.explain.ask_agent_query`) answered
    by a chat model (the agent's own model unless another ``explainer`` is given).
``hint``
    The deterministic explanation plus a **repair hint**: a shortest safe continuation to the
    goal, found by breadth-first search over the environment × the monitor's automata
    (:func:`repair_hint`).

DONE with pending obligations is refused the same way. At most ``max_reprompts`` refusals per
step; then the episode ends (``"gave_up"``). Before the first action the chip **aborts** when
the specification is unsatisfiable, when the initial state already breaks it, or
(``check_goal``) when no trace can satisfy it and end in the task's goal: the monitor names a
smallest conflicting set of constraints (``goal`` standing for the task's goal).

The constraints come from the task data (``formulas="expert"``, the paper's Safety Chip*) or
from the offline translator reading their sentences (``formulas="translated"``); a sentence
the translator cannot read is left out of the specification and listed in
:attr:`AgentEpisode.untranslated`. Safety is always judged on the expert formulas.

Examples
--------
>>> from safetychip.envs import load_tasks
>>> from safetychip.llm import ScriptedModel
>>> task = load_tasks(suite="four_room")[0]
>>> llm = ScriptedModel(["walk to kitchen", "walk to bathroom", "walk to kitchen", "done"])
>>> episode = SafetyChipAgent(llm, reprompt="generic").run(task, k=1)
>>> for line in episode.transcript:
...     print(line)
Task: Go to the kitchen.
1. walk to kitchen
Error: that action is not allowed.
1. walk to bathroom
2. walk to kitchen
3. done
>>> episode.success, episode.safe, episode.reprompts
(True, True, 1)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..envs import Env, Task, goal_formula, task_invariants
from ..errors import TranslationError
from ..ltl import And, Formula, parse
from ..monitor import (
    CandidateMonitor,
    CandidateSet,
    Constraint,
    Monitor,
    Status,
    Verdict,
    exactly_one,
)
from ..shield import (
    DONE,
    Ask,
    Filter,
    Judgement,
    MonitorFilter,
    Proposal,
    Shield,
    Step,
    search_safe_plan,
)
from ._planner import BaseAgent

__all__ = ["FORMULAS", "REPROMPTS", "Chip", "ChipHooks", "Reprompter", "SafetyChipAgent",
           "candidate_set", "chip_constraints", "done_explanation", "repair_hint",
           "simulated_pick"]  # fmt: skip

#: The reprompt variants, from the least to the most informative.
REPROMPTS = ("mask", "generic", "explain", "llm_explain", "hint")

#: Where the Safety Chip's formulas come from.
FORMULAS = ("expert", "translated")

_GENERIC = "that action is not allowed."


@lru_cache(maxsize=8)
def _translator(scene: str) -> Any:
    """The offline translator over the vocabulary of the task's scene (by name)."""
    from ..envs import load_scene
    from ..translate import Translator, Vocabulary

    return Translator(Vocabulary.of(load_scene(scene)), embedder=None)


def candidate_set(translation: Any) -> CandidateSet:
    """The candidate set of an unsettled :class:`~safetychip.translate.Translation`, to be
    settled at run time: its candidates' formulas, each read back in English.

    Examples
    --------
    >>> from safetychip.translate import Translator, Vocabulary
    >>> t = Translator(Vocabulary.from_names(["kitchen", "bathroom"]), embedder=None)
    >>> s = candidate_set(t("Keep out of the kitchen until you have been to the bathroom.",
    ...                     name="c1"))
    >>> s.name, len(s.candidates) == len(s.readings)
    ('c1', True)
    """
    from ..translate import back_translate

    vocabulary = translation.vocabulary
    formulas = tuple(c.formula for c in translation.candidates)
    readings = tuple(str(back_translate(f, vocabulary=vocabulary)) for f in formulas)
    return CandidateSet(formulas, translation.sentence, translation.constraint.name, readings)


@lru_cache(maxsize=1024)
def chip_constraints(task: Task, k: int, formulas: str = "expert", *,
                     candidate_sets: bool = False,
                     ) -> tuple[tuple[Constraint | CandidateSet, ...],
                                tuple[str, ...]]:  # fmt: skip
    """The Safety Chip's constraints for the first *k* of *task*, and the sentences left out.

    ``"expert"`` takes the task's own constraints; ``"translated"`` runs the offline
    translator (slot reader, exact grounding, no embedding) on each sentence and takes its
    formula when the translation is settled (one candidate, probable enough: what an unattended
    run may enforce with no one to pick). A translation whose candidate set waits for a pick
    is, by default, the pick of a **simulated person** (the experiments' contract): the
    candidate that means the task's own formula in this scene (:func:`simulated_pick`), and
    left out when no candidate does. With *candidate_sets* it is enforced as its
    :class:`~safetychip.monitor.CandidateSet` instead (:func:`candidate_set`: the monitor asks
    when its candidates disagree, and refuses when no one answers). A sentence the translator
    refuses is left out. Constraints are named ``c1`` … after their place in the task.

    Raises
    ------
    ValueError
        If *formulas* is not one of :data:`FORMULAS`.

    Examples
    --------
    >>> from safetychip.envs import load_tasks
    >>> task = load_tasks(suite="four_room")[0]
    >>> cs, left_out = chip_constraints(task, 2, "translated")
    >>> [(c.name, str(c.formula)) for c in cs][0], left_out
    (('c1', '!"agent_at(kitchen)" W "agent_at(bathroom)"'), ())
    """
    if formulas not in FORMULAS:
        raise ValueError(f"unknown formulas {formulas!r}; choose one of {', '.join(FORMULAS)}")
    if formulas == "expert":
        return tuple(task.constraints[:k]), ()
    out, left_out = [], []
    for i, c in enumerate(task.constraints[:k], 1):
        try:
            translation = _translator(task.scene).translate(c.sentence, name=f"c{i}")
        except TranslationError:
            left_out.append(c.sentence)
            continue
        if translation.settled:
            out.append(translation.constraint)
        elif candidate_sets and translation.candidates:  # settled at run time
            out.append(candidate_set(translation))
        elif (pick := simulated_pick(task, translation, c.formula)) is not None:
            out.append(translation.choose(pick).constraint)
        else:  # no candidate means what the task's author meant: nothing right to pick
            left_out.append(c.sentence)
    return tuple(out), tuple(left_out)


def simulated_pick(task: Task, translation: Any, meant: Formula) -> int | None:
    """The candidate a person who meant *meant* picks from *translation*'s set: the first
    whose formula accepts the same runs of *task*'s scene (under its domain invariants: one
    room at a time, moves between adjacent rooms …) as *meant* or as one of its equally right
    forms (:func:`_right_forms`); None when none does.

    Examples
    --------
    >>> from safetychip.envs import load_tasks
    >>> task = load_tasks(suite="four_room")[0]
    >>> t = _translator(task.scene).translate("Go to the bedroom before the kitchen.")
    >>> [str(c.formula) for c in t.candidates][:2]  # doctest: +NORMALIZE_WHITESPACE
    ['!"agent_at(kitchen)" W "agent_at(bedroom)"',
     'F("agent_at(bedroom)" & F"agent_at(kitchen)") & (!"agent_at(kitchen)" U "agent_at(bedroom)")']
    >>> simulated_pick(task, t, parse('F("agent_at(bedroom)" & F"agent_at(kitchen)") & '
    ...                               '(!"agent_at(kitchen)" U "agent_at(bedroom)")'))
    1
    """
    from ..automata import equivalent

    formulas = [c.formula for c in translation.candidates]
    atoms = meant.atoms().union(*(f.atoms() for f in formulas))
    scene = And(*task_invariants(task, sorted(atoms)))
    forms = [And(scene, g) for g in _right_forms(meant)]
    for i, f in enumerate(formulas):
        if any(equivalent(And(scene, f), g) for g in forms):
            return i
    return None


def _right_forms(meant: Formula) -> tuple[Formula, ...]:
    """*meant* and the forms the project's labelling conventions count as equally right
    (``data/translation/heldout_2/README.md``): every weak next made strong (a prompt
    reaction needs a next step) and "once a, never b" read from the next step on
    (``G(a -> G !b)`` as ``G(a -> X G !b)``).

    Examples
    --------
    >>> [str(f) for f in _right_forms(parse('G("a" -> X!"b")'))]
    ['G(a -> X!b)', 'G(a -> X[!]!b)']
    >>> [str(f) for f in _right_forms(parse('G("a" -> G!"b")'))]
    ['G(a -> G!b)', 'G(a -> XG!b)']
    """
    text = str(meant)
    forms = [text, re.sub(r"\bX(?!\[)", "X[!]", text), re.sub(r"->\s*G", "-> X G", text)]
    return tuple(parse(f) for f in dict.fromkeys(forms))


_HINTS: dict[tuple, tuple[str, ...] | None] = {}


def repair_hint(env: Env, monitor: Monitor, task: Task, *, props: Sequence[str] | None = None,
                goal: Sequence[str] | None = None, max_expansions: int = 300,
                max_depth: int = 12, weight: float = 1.0) -> tuple[str, ...] | None:  # fmt: skip
    """A short safe continuation from the current world to the goal: actions ending in
    ``done``.

    :func:`~safetychip.shield.search_safe_plan` from the environment's current world and the
    monitor's current position, over the environment's candidate actions for the task
    (:meth:`~safetychip.envs.Env.candidate_actions`), with the number of goal literals still
    false as the estimate. Answers are cached per (world, automaton states, bounds). The
    environment and the monitor are left as they were.

    Parameters
    ----------
    env : Env
        In the current world.
    monitor : Monitor
        At the current position of the trace.
    task : Task
        Gives the goal and the candidate actions.
    props : sequence of str, optional
        The propositions the transitions report (default: the monitor's).
    goal : sequence of str, optional
        Goal literals (default: the task's; ``()`` asks only for the constraints to be met,
        as the safe stop does).
    max_expansions, max_depth : int
        Search bounds.
    weight : float
        Weight of the estimate in the priority.

    Returns
    -------
    tuple of str or None
        None when no safe continuation was found within the bounds.

    Examples
    --------
    >>> from safetychip.envs import VirtualHomeEnv, load_tasks, task_monitor
    >>> task = load_tasks(suite="four_room")[0]
    >>> env, monitor = VirtualHomeEnv(task=task), task_monitor(task, 1)
    >>> env.track(monitor.atoms)  # doctest: +ELLIPSIS
    <VirtualHomeEnv ...>
    >>> _, info = env.reset()
    >>> _ = monitor.reset(info["states"][0])
    >>> repair_hint(env, monitor, task)
    ('walk to bathroom', 'walk to kitchen', 'done')
    """
    literals = tuple(task.goal if goal is None else goal)
    props = tuple(props) if props is not None else monitor.atoms
    key = (id(monitor), id(env), env.snapshot(), monitor.position,
           props, literals, max_expansions, max_depth, weight)  # fmt: skip
    if key not in _HINTS:
        if len(_HINTS) > 50_000:
            _HINTS.clear()
        _HINTS[key] = search_safe_plan(env, monitor, _candidates(task, env), goal=literals,
                                       propositions=props, weight=weight,
                                       max_expansions=max_expansions,
                                       max_depth=max_depth).plan  # fmt: skip
    return _HINTS[key]


@lru_cache(maxsize=256)
def _candidates(task: Task, env: Env) -> tuple[str, ...]:
    return tuple(env.candidate_actions(task))


@lru_cache(maxsize=1024)
def _chip_monitor(task: Task, k: int, formulas: str, with_goal: bool, adjacency: bool,
                  invariants: tuple[Any, ...], deadline: float | None,
                  candidate_sets: bool = False) -> Monitor | None:  # fmt: skip
    constraints, _ = chip_constraints(task, k, formulas, candidate_sets=candidate_sets)
    if with_goal:
        if not task.goal:
            return None
        sentence = "the task's goal: " + " and ".join(task.goal) + " at the end"
        constraints = (*constraints, Constraint(parse(goal_formula(task.goal)), sentence, "goal"))
    if any(isinstance(c, CandidateSet) for c in constraints):
        return CandidateMonitor(constraints, invariants, deadline=deadline)
    return Monitor([c for c in constraints if isinstance(c, Constraint)], invariants,
                   deadline=deadline)  # fmt: skip


class Chip:
    """The Safety Chip around an agent: the shield's filters (:meth:`filters`: the
    constraint monitor first, then any further *filters*, then :class:`ChipHooks`, the goal
    check and the safe stop), and the reprompt policy that tells the model why a proposal was
    refused (:meth:`reprompter`). The agent reaches the shield only through its public API.

    Parameters
    ----------
    reprompt : str
        One of :data:`REPROMPTS` (default ``"explain"``).
    formulas : str
        ``"expert"`` (the task data's formulas) or ``"translated"`` (the offline
        translator's, from the sentences).
    max_reprompts : int
        Refusals allowed per step before the episode ends.
    explainer : ChatModel, optional
        Answers the agent query of the ``llm_explain`` variant (default: the agent's model).
    check_goal : bool
        Abort before the first action if the constraints rule out ending in the goal.
    retry_temperature : float
        Sampling temperature of the ``mask`` variant's retries.
    safe_stop : bool
        When the agent stops without DONE (gave up, step limit, error) while obligations
        are pending, the chip runs the shortest safe continuation it finds that meets them
        (:func:`repair_hint` without the goal), so the executed trace satisfies the
        constraints; :attr:`AgentEpisode.safe_stop` lists those actions.
    adjacency : bool
        Declare the environment's domain invariants (:meth:`~safetychip.envs.Env.invariants`:
        room adjacency, furniture changing state only with the agent in its room), so the
        monitor refuses walking into a dead end, or leaving for good with a cabinet left
        open; otherwise only "one room at a time" is declared.
    filters : sequence of Filter
        More filters after the monitor (e.g. an episodic memory).
    deadline : float or None
        The monitor's deadline per decision, in seconds (:class:`~safetychip.monitor.Monitor`;
        past it a decision is a fail-safe refusal). ``None`` for none: the experiments use
        it, so that their results never depend on how loaded the machine was.
    candidate_sets : bool
        With ``formulas="translated"``: enforce a sentence whose translation waits for a
        pick as its candidate set (:func:`chip_constraints`), settled at run time by *ask*.
        Off by default, so the experiments keep today's contract (such a sentence is left
        out). The chip keeps one monitor per task, so an answer holds for the task's later
        episodes too.
    ask : callable, optional
        ``ask(question) -> bool | None``, answering when the candidates disagree about an
        action (:class:`~safetychip.shield.MonitorFilter`); None (unattended): refuse it
        and record the question in the monitor's ``open_questions``.
    ask_seconds : float or None
        How long one answer may take.

    Examples
    --------
    >>> Chip(reprompt="hint")
    Chip(reprompt='hint', formulas='expert')
    """

    def __init__(self, *, reprompt: str = "explain", formulas: str = "expert",
                 max_reprompts: int = 3, explainer: Any = None, check_goal: bool = True,
                 retry_temperature: float = 1.0, safe_stop: bool = True,
                 adjacency: bool = True, filters: Sequence[Filter] = (),
                 deadline: float | None = 0.05, candidate_sets: bool = False,
                 ask: Ask | None = None, ask_seconds: float | None = 60.0) -> None:  # fmt: skip
        if reprompt not in REPROMPTS:
            raise ValueError(f"unknown reprompt variant {reprompt!r}; choose one of "
                             f"{', '.join(REPROMPTS)}")  # fmt: skip
        if formulas not in FORMULAS:
            raise ValueError(f"unknown formulas {formulas!r}; choose one of "
                             f"{', '.join(FORMULAS)}")  # fmt: skip
        if max_reprompts < 0:
            raise ValueError(f"max_reprompts must be at least 0, got {max_reprompts}")
        self.reprompt = reprompt
        self.formulas = formulas
        self.max_reprompts = max_reprompts
        self.explainer = explainer
        self.check_goal = check_goal
        self.retry_temperature = retry_temperature
        self.safe_stop = safe_stop
        self.adjacency = adjacency
        self.extra = tuple(filters)
        self.deadline = deadline
        self.candidate_sets = candidate_sets
        self.ask = ask
        self.ask_seconds = ask_seconds
        self._monitors: dict[tuple[Any, ...], Monitor | None] = {}

    def __repr__(self) -> str:
        return f"Chip(reprompt={self.reprompt!r}, formulas={self.formulas!r})"

    # -- what the agent asks of its chip ----------------------------------------------------

    def monitor(self, task: Task, k: int, env: Env, *, goal: bool = False) -> Monitor | None:
        """The monitor of the first *k* constraints of *task* (with the goal, if asked),
        under *env*'s domain invariants; None for a goal monitor of a task without goal."""
        constraints, _ = chip_constraints(task, k, self.formulas,
                                          candidate_sets=self.candidate_sets)  # fmt: skip
        atoms = sorted({a for c in constraints for f in _formulas(c) for a in f.atoms()})
        if self.adjacency:
            invariants = tuple(env.invariants(atoms))
        else:
            invariants = (exactly_one(f"agent_at({r})" for r in env.rooms),) if env.rooms else ()
        key = (task, k, self.formulas, goal, self.adjacency, invariants, self.deadline)
        if not self.candidate_sets:
            return _chip_monitor(*key)
        if key not in self._monitors:  # its own: the answers narrow it
            self._monitors[key] = _chip_monitor.__wrapped__(*key, True)
        return self._monitors[key]

    def filters(self, task: Task, k: int, env: Env) -> list[Filter]:
        """The shield's filters for one episode of *task* on *env*: the monitor, the extra
        ones, then the chip's own hooks at both ends of the episode (:class:`ChipHooks`: the
        goal check at reset, the safe stop at finish) when either is on."""
        monitor = self.monitor(task, k, env)
        assert monitor is not None
        filters = [MonitorFilter(monitor, ask=self.ask, ask_seconds=self.ask_seconds),
                   *self.extra]  # fmt: skip
        if self.check_goal or self.safe_stop:
            goal = self.monitor(task, k, env, goal=True) if self.check_goal else None
            filters.append(ChipHooks(monitor, goal, env, task, safe_stop=self.safe_stop))
        return filters

    def untranslated(self, task: Task, k: int) -> tuple[str, ...]:
        """The sentences the translator left out of the specification."""
        return chip_constraints(task, k, self.formulas, candidate_sets=self.candidate_sets)[1]

    def fields(self) -> dict[str, Any]:
        """What an episode records about the chip."""
        return {"reprompt": self.reprompt, "formulas": self.formulas}

    def temperature(self, attempt: int) -> float:
        """The sampling temperature of the *attempt*-th proposal for one step."""
        return self.retry_temperature if self.reprompt == "mask" and attempt else 0.0

    def reprompter(self, shield: Shield, task: Task, model: Any) -> Reprompter:
        """The reprompt policy for one episode of *task* under *shield*, whose agent asks
        *model*."""
        explainer = self.explainer if self.explainer is not None else model
        return Reprompter(self.reprompt, shield, task, explainer)


class Reprompter:
    """What the model is told after the shield refused a step, rendered from the refusal:
    the one place a reprompt is written. ``reprompter(step)`` is the text after ``Error:``
    in the next prompt, or None to say nothing (the ``mask`` variant).

    Parameters
    ----------
    variant : str
        One of :data:`REPROMPTS`.
    shield : Shield
        The episode's shield: its monitor, environment, propositions and steps (what has
        run), read through its public API.
    task : Task
        Gives the goal of the ``hint`` variant's search.
    explainer : ChatModel
        Answers the agent query of the ``llm_explain`` variant (its calls are the episode's:
        the agent counts them).

    Examples
    --------
    >>> from safetychip.envs import load_tasks
    >>> from safetychip.shield import Shield
    >>> task = load_tasks(suite="four_room")[0]
    >>> env = task.make_env()
    >>> shield = Shield(env, Chip().filters(task, 1, env))
    >>> _ = shield.reset(options={"task": task})
    >>> step = shield.propose("walk to kitchen")
    >>> Reprompter("generic", shield, task, None)(step)
    'that action is not allowed.'
    >>> print(Reprompter("hint", shield, task, None)(step))  # doctest: +ELLIPSIS
    'walk to kitchen' is refused: it would break c1 (...). ... Hint: a safe way to continue is: \
walk to bathroom, walk to kitchen, done.
    """

    def __init__(self, variant: str, shield: Shield, task: Task, explainer: Any) -> None:
        self.variant, self.shield, self.task, self.explainer = variant, shield, task, explainer

    def __repr__(self) -> str:
        return f"Reprompter({self.variant!r})"

    def __call__(self, step: Step) -> str | None:
        """The reprompt after the refused *step* (its judgement says why)."""
        variant = self.variant
        judgement = step.judgement
        assert judgement is not None
        if variant == "mask":
            return None
        if variant == "generic":
            return _GENERIC
        shield = self.shield
        monitor = shield.monitor
        verdict = judgement.verdict
        if verdict is None or monitor is None:  # another filter refused: say what it said
            text = f"{step.action!r} is not allowed: {judgement.reason}."
            if judgement.alternative:
                text += f" Try instead: {judgement.alternative}."
            return text
        named = {c.name for c in monitor.constraints}
        if verdict.status is Status.AMBIGUOUS or not {*verdict.violated, *verdict.pending} <= named:
            # a candidate set is refusing: its reason says which sentence, and why
            return f"{step.action!r} is not allowed: {verdict.reason}."
        if variant == "llm_explain":
            return self._llm_reason(step.action, monitor, verdict)
        states = list(step.states) if step.action != DONE else None
        text = _explanation(monitor, step.action, states, verdict)
        if variant == "hint":
            hint = repair_hint(shield.env, monitor, self.task, props=shield.propositions)
            text += (f" Hint: a safe way to continue is: {', '.join(hint)}." if hint else
                     " Hint: no safe way to reach the goal was found from here.")  # fmt: skip
        return text

    def _llm_reason(self, action: str, monitor: Monitor, verdict: Verdict) -> str:
        from ..explain import ask_agent_query

        lines: list[str] = list(verdict.state_changes)
        if action == DONE:
            lines = [f"Violated: still owed at DONE: {owed}" for owed in _owed(monitor, verdict)]
        valid = [(s.action, list(s.state_changes)) for s in self.shield.steps if s.executed]
        answer = ask_agent_query(self.explainer, monitor.constraints, valid, (action, lines))
        return f"{action!r} is not allowed. Reason: {answer.text}"


def _formulas(c: Constraint | CandidateSet) -> tuple[Any, ...]:
    """The formulas of a constraint, or every candidate of a set."""
    return c.candidates if isinstance(c, CandidateSet) else (c.formula,)


def _explanation(monitor: Monitor, action: str, states: Any, verdict: Verdict) -> str:
    from ..explain import explain_violation

    if states is not None:
        return explain_violation(monitor, states, action=action, verdict=verdict).text
    return done_explanation(monitor, verdict)


class ChipHooks(Filter):
    """The Safety Chip at both ends of an episode, as shield hooks: it judges no action.

    :meth:`reset`
        Before the first action, refuse the start as an ABORT when the task's goal cannot be
        reached under the constraints (a *goal* monitor: the constraints and the goal at the
        end); the monitor names a smallest conflicting set (``goal`` standing for the goal).
        A decision that missed the goal monitor's deadline is settled
        (:meth:`~safetychip.monitor.Monitor.idle`) and asked again, never read as
        unreachable.
    :meth:`finish`
        The safe stop: when the agent stops without DONE while obligations are pending, the
        shortest safe continuation that meets them (:func:`repair_hint` without the goal).

    Parameters
    ----------
    monitor : Monitor
        The chip's constraint monitor (the shield's first filter), whose obligations the safe
        stop meets.
    goal : Monitor or None
        The goal monitor (None: no goal check).
    env : Env
        The episode's environment.
    task : Task
        Gives the candidate actions of the safe stop.
    safe_stop : bool
        Whether :meth:`finish` names a continuation.

    Examples
    --------
    >>> from safetychip.envs import load_tasks
    >>> task = load_tasks(suite="four_room")[0]
    >>> env = task.make_env()
    >>> [f.name for f in Chip().filters(task, 1, env)]
    ['monitor', 'chip']
    """

    name = "chip"
    bounded = True  # the goal monitor has its deadline, the safe stop its search bounds

    def __init__(self, monitor: Monitor, goal: Monitor | None, env: Env, task: Task, *,
                 safe_stop: bool = True) -> None:  # fmt: skip
        self.monitor, self.goal, self.env, self.task = monitor, goal, env, task
        self.safe_stop = safe_stop
        self.propositions = goal.atoms if goal is not None else ()

    def reset(self, initial: Mapping[str, bool]) -> Judgement:
        """Refuse the start (ABORT) when the task's goal cannot be reached under the
        constraints."""
        goal = self.goal
        if goal is None:
            return Judgement.admit(self.name)
        verdict = goal.reset(initial)
        if verdict.status is Status.AMBIGUOUS:  # reachable under some reading: asked later
            return Judgement.admit(self.name)
        if verdict.status is Status.VIOLATION and goal.idle():
            # The decision missed the monitor's deadline: nothing has moved yet, so settle it
            # and ask again rather than abort a task that may well be reachable.
            verdict = goal.reset(initial)
        if verdict.safe:
            return Judgement.admit(self.name)
        conflict = ", ".join(verdict.violated) or "the invariants"
        return Judgement.refuse(self.name, f"the task's goal cannot be reached under the "
                                f"constraints (conflict: {conflict}): {verdict.reason}",
                                verdict.violated, abort=True)  # fmt: skip

    def judge(self, proposal: Proposal, state: Mapping[str, bool],
              trace: Sequence[Mapping[str, bool]]) -> Judgement:  # fmt: skip
        """Admit: the monitor judges the actions."""
        return Judgement.admit(self.name)

    def finish(self, state: Mapping[str, bool],
               trace: Sequence[Mapping[str, bool]]) -> tuple[str, ...] | None:  # fmt: skip
        """The safe stop: the actions (DONE excluded) of the shortest safe continuation that
        meets the pending obligations; None when none are pending."""
        monitor = self.monitor
        if not self.safe_stop or not monitor.pending:
            return None
        plan = repair_hint(self.env, monitor, self.task, goal=())
        return () if plan is None else plan[:-1]

    def __repr__(self) -> str:
        return (f"<ChipHooks: goal check {'on' if self.goal is not None else 'off'}, safe "
                f"stop {'on' if self.safe_stop else 'off'}>")  # fmt: skip


class SafetyChipAgent(BaseAgent):
    """The base agent with the Safety Chip: :class:`BaseAgent` + :class:`Chip`.

    Parameters
    ----------
    model : ChatModel
    reprompt, formulas, max_reprompts, explainer, check_goal, retry_temperature, safe_stop,
    adjacency, filters, deadline, candidate_sets, ask, ask_seconds
        As for :class:`Chip`.
    max_steps, grounder, observe, structured, episode_seconds
        As for :class:`BaseAgent`.
    """

    name = "chip"
    label = "Safety Chip"

    def __init__(self, model, *, reprompt: str = "explain", formulas: str = "expert",
                 max_reprompts: int = 3, explainer=None, check_goal: bool = True,
                 retry_temperature: float = 1.0, safe_stop: bool = True,
                 adjacency: bool = True, filters: Sequence[Filter] = (), max_steps: int = 20,
                 grounder=None, observe: bool = True, structured: bool = False,
                 deadline: float | None = 0.05,
                 episode_seconds: float | None = 600.0, candidate_sets: bool = False,
                 ask: Ask | None = None, ask_seconds: float | None = 60.0) -> None:  # fmt: skip
        chip = Chip(reprompt=reprompt, formulas=formulas, max_reprompts=max_reprompts,
                    explainer=explainer, check_goal=check_goal,
                    retry_temperature=retry_temperature, safe_stop=safe_stop,
                    adjacency=adjacency, filters=filters, deadline=deadline,
                    candidate_sets=candidate_sets, ask=ask,
                    ask_seconds=ask_seconds)  # fmt: skip
        super().__init__(model, max_steps=max_steps, grounder=grounder, observe=observe,
                         chip=chip, structured=structured,
                         episode_seconds=episode_seconds)  # fmt: skip

    @property
    def reprompt(self) -> str:
        """The reprompt variant."""
        return self.chip.reprompt

    @property
    def formulas(self) -> str:
        """Where the formulas come from."""
        return self.chip.formulas

    def __repr__(self) -> str:
        return (f"SafetyChipAgent({self.model!r}, reprompt={self.reprompt!r}, "
                f"formulas={self.formulas!r})")  # fmt: skip


def _owed(monitor: Monitor, verdict: Verdict) -> list[str]:
    from ..explain import letter_words

    atoms = {c.name: frozenset(c.formula.atoms()) for c in monitor.constraints}
    last = monitor.history[-1] if monitor.history else {}
    true_now = frozenset(a for a, v in last.items() if v)
    out = []
    for name in verdict.pending or verdict.violated:
        path = monitor.completion(name)
        out.append(letter_words(path, true_now & atoms[name]) if path else "impossible")
    return out


def done_explanation(monitor: Monitor, verdict: Verdict) -> str:
    """Why DONE is refused, in words: each pending constraint and what it still needs.

    Examples
    --------
    >>> m = Monitor([Constraint(parse('G("is_open(fridge)" -> F!"is_open(fridge)")'),
    ...                         "Close the fridge if you open it", "c1")])
    >>> _ = m.reset({"is_open(fridge)": False})
    >>> _ = m.commit({"is_open(fridge)": True})
    >>> print(done_explanation(m, m.finish()))
    DONE is refused: c1 (Close the fridge if you open it) is not yet satisfied; it still needs: \
close fridge.
    """
    by_name = {c.name: c for c in monitor.constraints}
    names = verdict.pending or verdict.violated
    if not names:
        return f"DONE is refused: {verdict.reason}."
    parts = []
    for name, owed in zip(names, _owed(monitor, verdict)):
        c = by_name[name]
        parts.append(f"{name} ({c.sentence or c.formula}) is not yet satisfied; it still needs: "
                     f"{owed}")  # fmt: skip
    return "DONE is refused: " + "; ".join(parts) + "."
