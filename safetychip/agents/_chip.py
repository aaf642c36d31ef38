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
:attr:`Episode.untranslated`. Safety is always judged on the expert formulas.

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

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..errors import TranslationError
from ..ltl import parse
from ..monitor import Constraint, Monitor, Status, Verdict, exactly_one
from ._episode import EpisodeStep
from ._planner import BaseAgent, Feedback, _Run

__all__ = ["FORMULAS", "REPROMPTS", "SafetyChipAgent", "chip_constraints", "done_explanation",
           "domain_invariants", "goal_formula", "repair_hint"]  # fmt: skip

#: The reprompt variants, from the least to the most informative.
REPROMPTS = ("mask", "generic", "explain", "llm_explain", "hint")

#: Where the Safety Chip's formulas come from.
FORMULAS = ("expert", "translated")

_GENERIC = "that action is not allowed."


def goal_formula(goal: Sequence[str]) -> str:
    """The LTLf formula "the trace ends in a state where every goal literal holds".

    Examples
    --------
    >>> goal_formula(["is_in(salmon,fridge)", "!is_open(fridge)"])
    'F("is_in(salmon,fridge)" & !"is_open(fridge)" & !X[!]true)'
    """
    lits = [f'!"{g[1:]}"' if g.startswith("!") else f'"{g}"' for g in goal]
    return f"F({' & '.join([*lits, '!X[!]true'])})"


@lru_cache(maxsize=8)
def _translator(scene: str) -> Any:
    from ..translate import Translator

    return Translator(scene, embedder=None)


@lru_cache(maxsize=1024)
def chip_constraints(task: Any, k: int, formulas: str = "expert"
                     ) -> tuple[tuple[Constraint, ...], tuple[str, ...]]:  # fmt: skip
    """The Safety Chip's constraints for the first *k* of *task*, and the sentences left out.

    ``"expert"`` parses the task's formulas; ``"translated"`` runs the offline translator
    (pattern grammar, exact grounding, no embedding) on each sentence. Constraints are named
    ``c1`` … after their place in the task.

    Raises
    ------
    TaskError
        If an expert formula does not parse.
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
    from ._episode import expert_formulas

    if formulas not in FORMULAS:
        raise ValueError(f"unknown formulas {formulas!r}; choose one of {', '.join(FORMULAS)}")
    patterns = [c.pattern for c in task.constraints]
    if formulas == "expert":
        found = tuple(
            Constraint(f, sentence, name, patterns[i])
            for i, (name, sentence, f) in enumerate(expert_formulas(task, k))
        )
        return found, ()
    out, left_out = [], []
    for i, c in enumerate(task.constraints[:k], 1):
        try:
            out.append(_translator(task.scene).translate(c.sentence, name=f"c{i}").constraint)
        except TranslationError:
            left_out.append(c.sentence)
    return tuple(out), tuple(left_out)


def _rooms(task: Any) -> tuple[str, ...]:
    return tuple(f"agent_at({r})" for r in _scene_rooms(task.scene))


@lru_cache(maxsize=16)
def _scene_rooms(scene: str) -> tuple[str, ...]:
    from ..envs import load_scene

    return load_scene(scene).rooms


def domain_invariants(scene: Any, atoms: Sequence[str] = ()) -> list[Any]:
    """The domain invariants of a scene, which the environment guarantees.

    * the agent is in exactly one room at a time;
    * from one proposition state to the next it stays or moves to an adjacent room (walking
      yields every room entered);
    * for each ``is_open(x)`` or ``is_switchedon(x)`` among *atoms* whose object cannot be
      carried: the value changes only with the agent in x's room (it must be close to x).

    Examples
    --------
    >>> from safetychip.envs import load_scene
    >>> invariants = domain_invariants(load_scene("apartment_1"), ["is_open(fridge)"])
    >>> len(invariants), str(invariants[1])
    (7, 'G("agent_at(hallway)" -> X("agent_at(hallway)" | "agent_at(living_room)" | \
"agent_at(bathroom)"))')
    >>> print(invariants[-1])
    G(("is_open(fridge)" <-> X!"is_open(fridge)") -> X"agent_at(kitchen)")
    """
    from ..ltl import Equiv, G, Implies, Not, Or, X, ap

    rooms = [f"agent_at({r})" for r in scene.rooms]
    out = [exactly_one(rooms)]
    out += [G(Implies(ap(f"agent_at({room})"),
                      X(Or(*(ap(f"agent_at({r})") for r in (room, *scene.adjacency[room]))))))
            for room in scene.rooms]  # fmt: skip
    for atom in atoms:
        predicate, _, rest = atom.partition("(")
        name = rest.rstrip(")")
        if predicate not in ("is_open", "is_switchedon") or name not in scene.objects:
            continue
        node = scene.id(name)
        if "GRABBABLE" in scene.node(node)["properties"]:
            continue
        room = scene.name_of(scene.room_of(node))
        out.append(G(Implies(Equiv(ap(atom), X(Not(ap(atom)))), X(ap(f"agent_at({room})")))))
    return out


@lru_cache(maxsize=1024)
def _monitor(task: Any, k: int, formulas: str, with_goal: bool,
             adjacency: bool = True) -> Monitor | None:  # fmt: skip
    from ..envs import load_scene

    constraints, _ = chip_constraints(task, k, formulas)
    if with_goal:
        if not task.goal:
            return None
        sentence = "the task's goal: " + " and ".join(task.goal) + " at the end"
        constraints = (*constraints, Constraint(parse(goal_formula(task.goal)), sentence, "goal"))
    if adjacency:
        atoms = sorted({a for c in constraints for a in c.formula.atoms()})
        invariants = domain_invariants(load_scene(task.scene), atoms)
    else:
        invariants = [exactly_one(_rooms(task))]
    return Monitor(constraints, invariants)


_HINTS: dict[tuple, tuple[str, ...] | None] = {}


@lru_cache(maxsize=256)
def _candidates(task: Any, env: Any) -> tuple[str, ...]:
    from ..envs.virtualhome import candidate_actions

    return tuple(candidate_actions(task, env))


def repair_hint(env: Any, monitor: Monitor, task: Any, *, world: Any = None,
                props: Sequence[str] | None = None, goal: Sequence[str] | None = None,
                max_expansions: int = 300, max_depth: int = 12,
                weight: float = 1.0) -> tuple[str, ...] | None:  # fmt: skip
    """A short safe continuation from the current world to the goal: actions ending in
    ``done``.

    Best-first search over the product of the environment and the monitor's automata, as
    :func:`~safetychip.envs.find_safe_plan` does, but from the current world and the
    monitor's current position: each of the task's candidate actions
    (:func:`~safetychip.envs.virtualhome.candidate_actions`) that the environment accepts
    and the monitor finds SAFE leads to a child node (deduplicated by world and automaton
    states); a node whose world meets the goal and whose automata all accept ends the plan
    (DONE would be accepted). The priority is ``g + weight * h``, with h the number of goal
    literals still false plus the most letters an automaton needs to accept; with
    ``weight=1`` it is A* with that estimate. Environment transitions are cached
    (:func:`~safetychip.agents._world.transition`). The environment and the monitor are
    left as they were.

    Parameters
    ----------
    env : VirtualHomeEnv
        In the current world (or give *world*).
    monitor : Monitor
        At the current position of the trace.
    task : Task
        Gives the goal and the candidate actions.
    world : WorldSnapshot, optional
        The current world (default: ``env.snapshot()``).
    props : sequence of str, optional
        The propositions the transitions report (default: the task's).
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
    import heapq
    import itertools

    from ._world import task_propositions, transition

    root = world if world is not None else env.snapshot()
    props = tuple(props) if props is not None else task_propositions(task)
    root_mon = monitor.snapshot()
    start_q = tuple(monitor.automaton_states.values())
    literals = tuple(task.goal if goal is None else goal)
    key = (id(monitor), id(env), root.key, start_q, props, literals, max_expansions, max_depth,
           weight)  # fmt: skip
    if key in _HINTS:
        return _HINTS[key]
    goal = [(g.lstrip("!"), not g.startswith("!")) for g in literals]
    dfas = monitor.dfas
    actions = _candidates(task, env)

    def estimate(state: Any, q: tuple[int, ...]) -> float:
        unmet = sum(state.get(a) is not v for a, v in goal)
        gap = max((d.distances()[s] for d, s in zip(dfas, q)), default=0.0)
        return unmet + gap

    env.restore(root)
    state0 = env.truth([a for a, _ in goal]) if goal else {}
    counter = itertools.count()
    frontier = [(weight * estimate(state0, start_q), next(counter), 0, root, root_mon,
                 state0, start_q, ())]  # fmt: skip
    best = {(root.key, start_q): 0}
    found: tuple[str, ...] | None = None
    expansions = 0
    try:
        while frontier:
            _, _, g, node, snap, state, q, path = heapq.heappop(frontier)
            if all(state.get(a) is v for a, v in goal) and all(
                    d.accepting[s] for d, s in zip(dfas, q)):  # fmt: skip
                found = (*path, "done")
                break
            if expansions >= max_expansions:
                break
            expansions += 1
            if g >= max_depth:
                continue
            for action in actions:
                ahead = transition(env, node, action, props)
                if ahead.world is None:
                    continue
                monitor.restore(snap)
                if not monitor.check(ahead.states).safe:
                    continue
                monitor.commit(ahead.states)
                child_q = tuple(monitor.automaton_states.values())
                child = (ahead.world.key, child_q)
                if best.get(child, max_depth + 1) <= g + 1:
                    continue
                best[child] = g + 1
                last = ahead.states[-1]
                heapq.heappush(frontier, (g + 1 + weight * estimate(last, child_q), next(counter),
                                          g + 1, ahead.world, monitor.snapshot(), last, child_q,
                                          (*path, action)))  # fmt: skip
    finally:
        env.restore(root)
        monitor.restore(root_mon)
    if len(_HINTS) > 50_000:
        _HINTS.clear()
    _HINTS[key] = found
    return found


class SafetyChipAgent(BaseAgent):
    """The base agent with the Safety Chip: the monitor checks every proposal.

    Parameters
    ----------
    model : ChatModel
    reprompt : str
        One of :data:`REPROMPTS` (default ``"explain"``).
    formulas : str
        ``"expert"`` (the task data's formulas) or ``"translated"`` (the offline
        translator's, from the sentences).
    max_reprompts : int
        Refusals allowed per step before the episode ends.
    explainer : ChatModel, optional
        Answers the agent query of the ``llm_explain`` variant (default: *model*).
    check_goal : bool
        Abort before the first action if the constraints rule out ending in the goal.
    retry_temperature : float
        Sampling temperature of the ``mask`` variant's retries.
    safe_stop : bool
        When the agent stops without DONE (gave up, step limit, error) while obligations
        are pending, the chip runs the shortest safe continuation it finds that meets them
        (:func:`repair_hint` without the goal), so the executed trace satisfies the
        constraints; :attr:`Episode.safe_stop` lists those actions.
    adjacency : bool
        Declare the scene's domain invariants (:func:`domain_invariants`): room adjacency,
        and furniture changing state only with the agent in its room, so the monitor
        refuses walking into a dead end, or leaving for good with a cabinet left open;
        otherwise only "one room at a time" is declared.
    max_steps, grounder, observe
        As for :class:`BaseAgent`.
    """

    name = "chip"
    label = "Safety Chip"

    def __init__(self, model, *, reprompt: str = "explain", formulas: str = "expert",
                 max_reprompts: int = 3, explainer=None, check_goal: bool = True,
                 retry_temperature: float = 1.0, safe_stop: bool = True,
                 adjacency: bool = True, max_steps: int = 20, grounder=None,
                 observe: bool = True) -> None:  # fmt: skip
        super().__init__(model, max_steps=max_steps, grounder=grounder, observe=observe)
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
        self.explainer = explainer if explainer is not None else model
        self.check_goal = check_goal
        self.retry_temperature = retry_temperature
        self.safe_stop = safe_stop
        self.adjacency = adjacency
        self.monitor: Monitor | None = None
        self._valid: list[tuple[str, list[str]]] = []

    def __repr__(self) -> str:
        return (f"SafetyChipAgent({self.model!r}, reprompt={self.reprompt!r}, "
                f"formulas={self.formulas!r})")  # fmt: skip

    def _episode_fields(self) -> dict[str, Any]:
        return {"reprompt": self.reprompt, "formulas": self.formulas}

    def _prepare(self, run: _Run) -> Sequence[str]:
        _, run.untranslated = chip_constraints(run.task, run.k, self.formulas)
        self.monitor = _monitor(run.task, run.k, self.formulas, False, self.adjacency)
        self._valid = []
        return self.monitor.atoms

    def _start(self, run: _Run) -> bool:
        monitor = self.monitor
        assert monitor is not None
        start = monitor.reset(run.initial)
        if start.status is Status.ABORT:
            run.finish("aborted", start.reason)
            return False
        if not start.safe:
            run.finish("aborted", f"the initial state already breaks the constraints: "
                       f"{start.reason}")  # fmt: skip
            return False
        if self.check_goal:
            with_goal = _monitor(run.task, run.k, self.formulas, True, self.adjacency)
            if with_goal is not None:
                verdict = with_goal.reset(run.initial)
                if not verdict.safe:
                    conflict = ", ".join(verdict.violated) or "the invariants"
                    run.finish("aborted", f"the task's goal cannot be reached under the "
                               f"constraints (conflict: {conflict}): {verdict.reason}")  # fmt: skip
                    return False
        return True

    def _after(self, run: _Run) -> None:
        """The safe stop: meet pending obligations when the agent stopped without DONE."""
        monitor = self.monitor
        if (not self.safe_stop or monitor is None or run.end in ("done", "aborted")
                or not run.trace or len(monitor.history) != len(run.trace)):  # fmt: skip
            return
        if all(d.accepting[q] for d, q in zip(monitor.dfas, monitor.automaton_states.values())):
            return
        plan = repair_hint(run.env, monitor, run.task, world=run.world, props=run.props,
                           goal=())  # fmt: skip
        run.stop_at = len(run.trace)
        if plan is None:
            run.reason += "; safe stop: no safe continuation meets the pending obligations"
            return
        for action in plan[:-1]:
            ahead = run.lookahead(action)
            verdict = monitor.check(ahead.states)
            if ahead.world is None or not verdict.safe:  # cannot happen: the search checked
                break
            run.world = ahead.world
            run.env.restore(run.world)
            states = [dict(s) for s in ahead.states]
            monitor.commit(states)
            run.trace.extend(states)
            run.executed.append(action)
            run.safe_stop.append(action)
            run.steps.append(EpisodeStep(len(run.executed), "(safe stop)", action, "safe_stop"))
        run.reason += f"; safe stop: {', '.join(plan[:-1])}"

    def _temperature(self, attempt: int) -> float:
        return self.retry_temperature if self.reprompt == "mask" and attempt else 0.0

    def _check(self, run: _Run, action: str, states: list[dict[str, bool]]) -> Feedback | None:
        monitor = self.monitor
        assert monitor is not None
        verdict = monitor.check(states)
        if verdict.safe:
            return None
        return Feedback(self._message(run, action, states, verdict), verdict.reason,
                        verdict.violated)  # fmt: skip

    def _check_done(self, run: _Run) -> Feedback | None:
        monitor = self.monitor
        assert monitor is not None
        verdict = monitor.finish()
        if verdict.safe:
            return None
        return Feedback(self._message(run, "done", None, verdict), verdict.reason,
                        verdict.violated)  # fmt: skip

    def _executed(self, run: _Run, action: str, states: list[dict[str, bool]]) -> None:
        assert self.monitor is not None
        verdict = self.monitor.commit(states)
        self._valid.append((action, list(verdict.state_changes)))

    # -- feedback -------------------------------------------------------------------------

    def _message(self, run: _Run, action: str, states, verdict: Verdict) -> str | None:
        variant = self.reprompt
        if variant == "mask":
            return None
        if variant == "generic":
            return _GENERIC
        if variant == "llm_explain":
            return self._llm_reason(run, action, verdict)
        text = self._explanation(action, states, verdict)
        if variant == "hint":
            hint = repair_hint(run.env, self.monitor, run.task, world=run.world,
                               props=run.props)  # fmt: skip
            text += (f" Hint: a safe way to continue is: {', '.join(hint)}." if hint else
                     " Hint: no safe way to reach the goal was found from here.")  # fmt: skip
        return text

    def _explanation(self, action: str, states, verdict: Verdict) -> str:
        from ..explain import explain_violation

        monitor = self.monitor
        assert monitor is not None
        if states is not None:
            return explain_violation(monitor, states, action=action, verdict=verdict).text
        return done_explanation(monitor, verdict)

    def _llm_reason(self, run: _Run, action: str, verdict: Verdict) -> str:
        from ..explain import ask_agent_query

        monitor = self.monitor
        assert monitor is not None
        lines = list(verdict.state_changes)
        if action == "done":
            lines = [f"Violated: still owed at DONE: {owed}" for owed in _owed(monitor, verdict)]
        u = self.explainer.usage
        before = (u.calls, u.prompt_tokens, u.completion_tokens)
        try:
            answer = ask_agent_query(self.explainer, monitor.constraints, self._valid,
                                     (action, lines))  # fmt: skip
        finally:
            run.count(self.explainer, before)
        return f"{action!r} is not allowed. Reason: {answer.text}"


def _owed(monitor: Monitor, verdict: Verdict) -> list[str]:
    from ..explain._words import letter_words

    states = monitor.automaton_states
    last = monitor.history[-1] if monitor.history else {}
    true_now = frozenset(a for a, v in last.items() if v)
    out = []
    for name in verdict.pending or verdict.violated:
        dfa = monitor.dfa(name)
        path = dfa.shortest_accepted(states[name])
        out.append(letter_words(path, true_now & frozenset(dfa.aps)) if path else "impossible")
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
