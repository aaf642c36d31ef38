"""Four ways to enforce a sentence whose translation is a candidate set, compared against the
gold formulas.

The offline translator (:class:`~safetychip.translate.Translator`, no embedding) reads each
sentence; a settled translation is enforced as it is in every policy. An unsettled one (a
candidate set waiting for a pick) is enforced by the policy:

``pick_first``
    Today's contract: a person picks before anything runs (one pick per set). The simulated
    person picks the candidate equivalent to the gold formula; when none is, there is nothing
    right to pick and the sentence is left out.
``top``
    Commit to the most probable candidate, unasked.
``conjunction``
    Enforce every candidate at once (the strictest reading).
``runtime``
    The candidate set at run time (:class:`~safetychip.monitor.CandidateMonitor`): a question
    only when the candidates disagree about the action at hand, answered by a simulated
    person from the gold formula (does what they meant admit this action, here?).

Two settings:

``tasks``
    The VirtualHome task suite (28 tasks, their five sentences each): a plan-following agent
    proposes the task's example plan and, when the shield refuses, a safe plan the search finds
    under the policy's monitor (:func:`~safetychip.shield.search_safe_plan`).
``sentences``
    Labelled sentence sets (``data/translation/*/sentences.jsonl``): for each sentence whose
    translation is unsettled, seeded random agents in a proposition-level environment over its
    propositions propose random actions and DONE.

Counted per policy: unsafe actions admitted (an executed action, or an accepted DONE, that the
gold formulas refuse while they could still be met), task success (tasks: goal reached at an
accepted DONE; sentences: an accepted DONE), refusals the gold formulas would have admitted,
questions asked and picks needed.

Examples
--------
>>> rows = policy_rows("tasks", tasks=1)
>>> [r.policy for r in rows]
['pick_first', 'top', 'conjunction', 'runtime']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from ..agents import candidate_set, chip_constraints
from ..automata import equivalent
from ..envs import Env, PropositionEnv, load_scene, load_tasks
from ..errors import SafetyChipError
from ..ltl import And, Formula, parse
from ..monitor import CandidateMonitor, CandidateSet, Constraint, Monitor, Question
from ..paths import DATA_DIR
from ..shield import DONE, MonitorFilter, Shield, search_safe_plan

__all__ = ["AMBIGUITY_POLICIES", "PolicyRow", "ambiguity_table", "policy_rows"]

#: The policies compared, in table order.
AMBIGUITY_POLICIES = ("pick_first", "top", "conjunction", "runtime")

#: The settings :func:`policy_rows` runs.
SETTINGS = ("tasks", "sentences")


@dataclass
class PolicyRow:
    """What one policy did over a setting.

    Attributes
    ----------
    policy : str
        One of :data:`AMBIGUITY_POLICIES`.
    setting : str
        ``"tasks"`` or ``"sentences"``.
    episodes : int
        Episodes run (tasks: one per task; sentences: *rollouts* per unsettled sentence).
    units : int
        Tasks, or unsettled sentences.
    ambiguous : int
        Units with at least one unsettled translation.
    unsafe : int
        Actions (or DONEs) admitted that the gold formulas refuse.
    unsafe_covered : int
        Of those, the ones in units whose every candidate set holds a candidate equivalent to
        its gold formula (the run-time policy's guarantee holds there).
    uncovered : int
        Units with a candidate set that holds no candidate equivalent to its gold formula.
    successes : int
        Episodes that succeeded.
    over_refusals : int
        Refusals of actions the gold formulas admit.
    over_refusals_covered : int
        Of those, the ones in units whose sets hold their gold formulas.
    questions : int
        Questions the simulated person answered (``runtime``); the answers of a sentence's
        earlier episodes are kept, so a question is not asked again.
    picks : int
        Picks the policy needs before running (``pick_first``: one per set).
    left_out : int
        Sentences left out (``pick_first``: sets holding no gold-equivalent candidate).
    aborted : int
        Episodes whose start was refused (an unsatisfiable policy specification).
    """

    policy: str
    setting: str
    episodes: int = 0
    units: int = 0
    ambiguous: int = 0
    unsafe: int = 0
    unsafe_covered: int = 0
    uncovered: int = 0
    successes: int = 0
    over_refusals: int = 0
    over_refusals_covered: int = 0
    questions: int = 0
    picks: int = 0
    left_out: int = 0
    aborted: int = 0
    asked_units: set[str] = field(default_factory=set, repr=False)


@dataclass(frozen=True)
class _Unit:
    """A task, or one sentence, with its translated constraints and gold formulas."""

    id: str
    settled: tuple[Constraint, ...]
    sets: tuple[CandidateSet, ...]
    gold: dict[str, Formula]  # by constraint name, for the translated sentences
    env: Callable[[], Env]
    covered: bool
    plan: tuple[str, ...] = ()
    goal: tuple[str, ...] = ()
    task: Any = None


def _translate(translator: Any, sentence: str, name: str) -> Constraint | CandidateSet | None:
    """The settled constraint or the candidate set of *sentence*; None if it is refused."""
    try:
        translation = translator.translate(sentence, name=name)
    except SafetyChipError:
        return None
    if translation.settled:
        return translation.constraint
    return candidate_set(translation) if translation.candidates else None


def _covered(sets: Iterable[CandidateSet], gold: dict[str, Formula]) -> bool:
    """Whether every set holds a candidate equivalent to its gold formula."""
    return all(any(equivalent(f, gold[s.name]) for f in s.candidates) for s in sets)


@lru_cache(maxsize=8)
def _scene_translator(scene: str) -> Any:
    """The chip's offline translator (no embedding) over *scene*'s vocabulary."""
    from ..translate import Translator, Vocabulary

    return Translator(Vocabulary.from_scene(load_scene(scene)), embedder=None)


def _task_units(count: int | None) -> list[_Unit]:
    out: list[_Unit] = []
    for task in load_tasks()[:count]:
        read, _ = chip_constraints(task, len(task.constraints), "translated", candidate_sets=True)
        settled = [c for c in read if isinstance(c, Constraint)]
        sets = [c for c in read if isinstance(c, CandidateSet)]
        expert = {f"c{i}": c.formula for i, c in enumerate(task.constraints, 1)}
        gold = {c.name: expert[c.name] for c in read}
        out.append(_Unit(task.id, tuple(settled), tuple(sets), gold, task.make_env,
                         _covered(sets, gold), tuple(task.example_plan), tuple(task.goal),
                         task))  # fmt: skip
    return out


def _sentence_units(paths: Sequence[str], count: int | None) -> list[_Unit]:
    import json

    out: list[_Unit] = []
    for path in paths:
        for line in (DATA_DIR / "translation" / path).read_text().splitlines():
            item = json.loads(line)
            if count is not None and len(out) >= count:
                return out
            found = _translate(_scene_translator(item["scene"]), item["sentence"], "c1")
            if not isinstance(found, CandidateSet):
                continue
            gold = parse(item["formula"])
            atoms = sorted(gold.atoms() | set().union(*(f.atoms() for f in found.candidates)))
            rooms = set(load_scene(item["scene"]).rooms)
            env = _proposition_env(atoms, rooms)
            out.append(_Unit(item["id"], (), (found,), {"c1": gold}, env,
                             _covered([found], {"c1": gold})))  # fmt: skip
    return out


def _proposition_env(atoms: Sequence[str], rooms: set[str]) -> Callable[[], Env]:
    here = [a[len("agent_at(") : -1] for a in atoms if a.startswith("agent_at(")]
    places = [r for r in here if r in rooms]
    plain = [a for a in atoms if not (a.startswith("agent_at(") and a[9:-1] in places)]
    if places and "hallway" not in places:
        places.append("hallway")  # somewhere to start that no sentence is about

    def make() -> Env:
        return PropositionEnv(plain, rooms=places)

    return make


def _policy_constraints(unit: _Unit, policy: str, row: PolicyRow
                        ) -> list[Constraint | CandidateSet]:  # fmt: skip
    """What *policy* enforces for *unit*; counts its picks and left-out sentences."""
    out: list[Constraint | CandidateSet] = list(unit.settled)
    for s in unit.sets:
        if policy == "runtime":
            out.append(s)
        elif policy == "top":
            out.append(Constraint(s.candidates[0], s.sentence, s.name))
        elif policy == "conjunction":
            out.append(Constraint(And(*s.candidates), s.sentence, s.name))
        else:
            row.picks += 1
            gold = unit.gold[s.name]
            right = [f for f in s.candidates if equivalent(f, gold)]
            if right:
                out.append(Constraint(right[0], s.sentence, s.name))
            else:
                row.left_out += 1
    return out


class _Person:
    """The simulated person: answers whether the action is allowed under what they meant
    (the gold formulas), given the trace so far."""

    def __init__(self, formulas: Sequence[Constraint], invariants: Sequence[Any]) -> None:
        self.formulas, self.invariants = formulas, invariants
        self.shield: Shield | None = None
        self.asked = 0

    def __call__(self, question: Question) -> bool:
        self.asked += 1
        shield = self.shield
        assert shield is not None, "the person watches a shield"
        judge = Monitor(self.formulas, self.invariants, deadline=None)
        atoms = judge.atoms
        start = judge.reset({a: shield.trace[0].get(a, False) for a in atoms})
        if question.action == "start here":
            return start.safe
        for state in shield.trace[1:]:
            judge.commit({a: state.get(a, False) for a in atoms})
        if question.action == DONE:
            return judge.finish().safe
        env = shield.env
        ahead = env.lookahead(env.parse(question.action), shield.propositions)
        states = [{a: s.get(a, False) for a in atoms} for s in ahead.states]
        return judge.check(states).safe


def _gold_judge(unit: _Unit, invariants: Sequence[Any]) -> Monitor:
    named = [Constraint(f, name=n) for n, f in unit.gold.items()]
    return Monitor(named, invariants, deadline=None)


def _episode(unit: _Unit, policy: str, row: PolicyRow, agent: Callable[[Shield, Monitor], None],
             invariants: Sequence[Any]) -> tuple[CandidateSet, ...]:  # fmt: skip
    """Run one episode of *unit* under *policy*, and count what happened into *row*; returns
    the candidate sets as the answers left them (kept for the unit's next episode, as the
    constraint file keeps them)."""
    constraints = _policy_constraints(unit, policy, row)
    env = unit.env()
    gold = _gold_judge(unit, invariants)
    monitor: Monitor
    if policy == "runtime" and unit.sets:
        monitor = CandidateMonitor(constraints, invariants, deadline=None)
    else:
        monitor = Monitor([c for c in constraints if isinstance(c, Constraint)], invariants,
                          deadline=None)  # fmt: skip
    person = None
    if isinstance(monitor, CandidateMonitor):
        meant = [*unit.settled, *(Constraint(unit.gold[s.name], name=s.name) for s in unit.sets)]
        person = _Person(meant, invariants)
    shield = Shield(env, [MonitorFilter(monitor, ask=person, ask_seconds=None)],
                    propositions=gold.atoms, idle_seconds=0)  # fmt: skip
    if person is not None:
        person.shield = shield
    row.episodes += 1
    unsafe, over = row.unsafe, row.over_refusals
    if shield.reset(options=_start(env, gold)).admitted:
        agent(shield, monitor)
        _judge_run(shield, gold, row)
    else:
        row.aborted += 1
    if unit.covered:
        row.unsafe_covered += row.unsafe - unsafe
        row.over_refusals_covered += row.over_refusals - over
    if person is None:
        return unit.sets
    row.questions += person.asked
    if person.asked:
        row.asked_units.add(unit.id)
    assert isinstance(monitor, CandidateMonitor)
    return monitor.candidate_sets


def _start(env: Env, gold: Monitor) -> dict[str, Any] | None:
    """Where a random agent starts: the first room (the hallway first: no sentence is about
    it) from which the gold formulas can be met, nothing else true; a task environment
    starts where its task says."""
    if isinstance(env, PropositionEnv) and env.rooms:
        rooms = sorted(env.rooms, key=lambda r: r != "hallway")
        for room in rooms:
            state = {a: a == f"agent_at({room})" for a in gold.atoms}
            if gold.reset(state).safe:
                return {"initial": [f"agent_at({room})"]}
        return {"initial": [f"agent_at({rooms[0]})"]}
    return None


def _judge_run(shield: Shield, gold: Monitor, row: PolicyRow) -> None:
    """Count the unsafe admissions, the over-refusals and success, by the gold formulas
    (while they can still be met: after the first unsafe admission nothing more counts)."""
    atoms = gold.atoms

    def read(state: Any) -> dict[str, bool]:
        return {a: bool(state.get(a, False)) for a in atoms}

    done = any(step.outcome == "done" for step in shield.steps)
    goal = shield.env.goal_reached() if row.setting == "tasks" else True
    row.successes += done and goal
    live = gold.reset(read(shield.trace[0])).safe
    for step in shield.steps:
        if not live:
            return
        if step.outcome == "not_executable":
            continue
        if step.action == DONE:
            position = gold.snapshot()
            fine = gold.finish().safe
            gold.restore(position)
            if step.outcome == "done":
                row.unsafe += not fine
            else:
                row.over_refusals += fine
            continue
        safe = gold.check([read(s) for s in step.states]).safe
        if step.executed:
            row.unsafe += not safe
            live = safe
            gold.commit([read(s) for s in step.states])
        else:
            row.over_refusals += safe


def _plan_agent(unit: _Unit) -> Callable[[Shield, Monitor], None]:
    """Run the example plan, then safe plans the search finds when the shield refuses."""

    def run(shield: Shield, monitor: Monitor) -> None:
        queue, replans = list(unit.plan), 0
        actions = tuple(shield.env.candidate_actions(unit.task))
        for _ in range(40):
            if not queue:
                return
            step = shield.propose(queue.pop(0))
            if step.outcome == "done":
                return
            if step.executed:
                continue
            if replans == 3:
                return
            replans += 1
            found = search_safe_plan(shield.env, monitor, actions, goal=unit.goal,
                                     propositions=shield.propositions).plan  # fmt: skip
            if found is None:
                return
            queue = list(found)

    return run


def _random_agent(seed: int, steps: int = 12) -> Callable[[Shield, Monitor], None]:
    """Random single changes and walks, then DONE; a refused proposal is replaced."""

    def run(shield: Shield, monitor: Monitor) -> None:
        rng = random.Random(seed)
        env = shield.env
        assert isinstance(env, PropositionEnv)
        for i in range(steps):
            rooms = [f"go to {r}" for r in env.rooms]
            flips = [f"{'clear' if shield.state.get(p) else 'set'} {p}"
                     for p in env.names]  # fmt: skip
            choice = rng.choice([*rooms, *flips, *([DONE] if i >= 2 else [])])
            step = shield.propose(choice)
            if step.outcome == "done":
                return
        shield.propose(DONE)

    return run


def policy_rows(setting: str = "tasks", *, tasks: int | None = None,
                sets: Sequence[str] = ("heldout/sentences.jsonl",), sentences: int | None = None,
                rollouts: int = 10) -> list[PolicyRow]:  # fmt: skip
    """Run the four policies over *setting* and count what they did.

    Parameters
    ----------
    setting : {"tasks", "sentences"}
    tasks : int, optional
        Only the first *tasks* tasks (default: all 28).
    sets : sequence of str
        The sentence sets, under ``data/translation`` (setting ``"sentences"``).
    sentences : int, optional
        Only the first *sentences* unsettled sentences.
    rollouts : int
        Random episodes per unsettled sentence (seeds 0, 1, …).

    Raises
    ------
    ValueError
        If *setting* is not one of ``"tasks"`` and ``"sentences"``.
    """
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; choose one of {', '.join(SETTINGS)}")
    units = _task_units(tasks) if setting == "tasks" else _sentence_units(sets, sentences)
    rows = []
    for policy in AMBIGUITY_POLICIES:
        row = PolicyRow(policy, setting, units=len(units))
        for unit in units:
            row.ambiguous += bool(unit.sets)
            row.uncovered += not unit.covered
            env = unit.env()
            formulas = [*unit.gold.values(), *(f for s in unit.sets for f in s.candidates)]
            atoms = sorted({a for f in formulas for a in f.atoms()})
            invariants = tuple(env.invariants(atoms))
            if setting == "tasks":
                _episode(unit, policy, row, _plan_agent(unit), invariants)
            else:
                for seed in range(rollouts):  # the answers carry over, as a file keeps them
                    carried = _episode(unit, policy, row, _random_agent(seed), invariants)
                    unit = replace(unit, sets=carried)
        if policy == "pick_first" and setting == "sentences":
            row.picks, row.left_out = row.picks // rollouts, row.left_out // rollouts
        rows.append(row)
    return rows


def ambiguity_table(rows: Iterable[PolicyRow]) -> str:
    """A Markdown table of :func:`policy_rows`.

    Examples
    --------
    >>> row = PolicyRow("top", "tasks", episodes=28, units=28, unsafe=1, successes=20)
    >>> print(ambiguity_table([row]).splitlines()[-1])
    | tasks | top | 28 | 1 (0) | 20 (71.4 %) | 0 (0) | 0 | 0 | 0 | 0 |
    """
    head = ["setting", "policy", "episodes", "unsafe admitted (gold in set)", "success",
            "over-refusals (gold in set)", "questions", "picks", "left out", "aborted"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        share = f"{r.successes} ({100 * r.successes / r.episodes:.1f} %)" if r.episodes else "0"
        cells = [r.setting, r.policy, r.episodes, f"{r.unsafe} ({r.unsafe_covered})", share,
                 f"{r.over_refusals} ({r.over_refusals_covered})", r.questions, r.picks,
                 r.left_out, r.aborted]  # fmt: skip
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)
