"""The guarantee, tested adversarially: a random agent under the monitor never leaves the
specification, and the monitor never refuses, nor aborts, without a reason.

The agent proposes random actions and random DONEs against random specifications drawn
from the task suites, through a :class:`~safetychip.shield.Shield` whose only filter is the
monitor: each proposed action is previewed on the environment and checked; a refused one
is not executed and the agent proposes another; DONE is accepted only if the monitor's
``finish()`` is SAFE. An episode ends at an accepted DONE, at the step limit, or when no
action (DONE included) is admitted. Its record is the shield's
:class:`~safetychip.shield.TraceRecord`.

Each rollout is then judged by a :class:`Referee` that shares nothing with the monitor but
the formula parser and the DFA construction:

* a trace that ends at DONE must satisfy every constraint by
  :func:`safetychip.ltl.evaluate` (the direct finite-trace evaluator);
* a trace that ends otherwise must still have a satisfying continuation (the monitor's
  promise), certified by exhibiting one and checking the whole trace with ``evaluate``;
* an ABORT must be justified: the conjunction of the constraints and the domain invariant,
  compiled into one DFA (no product, no live-set search), accepts nothing; and the set the
  ABORT names must be unsatisfiable and minimal;
* every refused action must be justified likewise (the conjunction DFA is in a dead state
  after it), and every refused DONE by ``evaluate``.

Two levels are offered (:class:`SceneAgent`, :class:`PropositionAgent`). ``"scenes"`` runs
:class:`~safetychip.envs.VirtualHomeEnv` on its real executor: the actions are the suites'
vocabulary for the scene (each verb applied to every object the scene's tasks mention, and a
walk to every room), and the environment refuses what the executor cannot run.
``"propositions"`` is the same game in a :class:`~safetychip.envs.PropositionEnv`, fast
enough for 10^5 rollouts: an action sets or clears one proposition, moves to another room
(sometimes through a third, which yields two states), or jumps to a random proposition
state.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from ..automata import DFA, MANAGER, atom_var, to_dfa
from ..ltl import PATTERNS as LTL_PATTERNS
from ..ltl import And, Formula, Not, Proposition, evaluate, random_patterns
from ..monitor import Constraint, Monitor, exactly_one
from ..shield import DONE, Judgement, MonitorFilter, Proposal, Shield, Step, TraceRecord

__all__ = [
    "LEVELS", "ROLLOUT_OUTCOMES", "AdversarialReport", "PropositionAgent", "RandomSpecification",
    "Referee", "SceneAgent", "adversarial_cell", "adversarial_rollout", "check_rollout",
    "random_specification", "rollout_outcome", "run_adversarial",
]  # fmt: skip

#: The levels :func:`run_adversarial` plays at.
LEVELS = ("scenes", "propositions")

#: How a rollout ends (see :func:`rollout_outcome`).
ROLLOUT_OUTCOMES = ("done", "step_limit", "stuck", "abort", "initial_violation")

#: Reasons a monitor gives when it refuses without deciding (fail-safe).
_UNDECIDED = ("cannot decide", "internal error")


# -- specifications -------------------------------------------------------------------------


@dataclass(frozen=True)
class RandomSpecification:
    """A random specification over a scene (see :func:`random_specification`).

    Attributes
    ----------
    scene : str
        The VirtualHome scene it is drawn for.
    constraints : tuple of Constraint
        Named ``c1`` … ``ck``.
    rooms : tuple of str
        ``agent_at`` of each room of the scene: exactly one holds at a time.
    """

    scene: str
    constraints: tuple[Constraint, ...]
    rooms: tuple[str, ...]

    @property
    def invariant(self) -> Formula:
        """The domain invariant: the agent is in exactly one room."""
        return exactly_one(self.rooms)

    def monitor(self) -> Monitor:
        """A fresh monitor of the constraints under the invariant."""
        return Monitor(self.constraints, [self.invariant])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (formulas in Spot syntax)."""
        return {"scene": self.scene, "rooms": list(self.rooms),
                "constraints": [c.to_dict() for c in self.constraints]}  # fmt: skip


class _ScenePool:
    """What random specifications over one scene are drawn from."""

    def __init__(self, scene: str) -> None:
        from ..envs import load_scene, load_tasks

        self.scene = scene
        self.tasks = [t for t in load_tasks() if t.scene == scene]
        if not self.tasks:
            raise ValueError(f"no task of the suites is set in scene {scene!r}")
        self.rooms = tuple(f"agent_at({r})" for r in load_scene(scene).rooms)
        self.suite = [(c.sentence, c.formula, c.pattern) for t in self.tasks
                      for c in t.constraints]  # fmt: skip
        self.focus = [sorted(set(t.propositions) | set(self.rooms)) for t in self.tasks]


_POOLS: dict[str, _ScenePool] = {}


def _pool(scene: str) -> _ScenePool:
    if scene not in _POOLS:
        _POOLS[scene] = _ScenePool(scene)
    return _POOLS[scene]


def random_specification(
    scene: str,
    rng: random.Random,
    *,
    max_constraints: int = 5,
    p_suite: float = 0.5,
    p_negation: float = 0.05,
) -> RandomSpecification:
    """Draw a random specification for *scene* from the task suites.

    Between 1 and *max_constraints* constraints, each one of the suites' constraints for the
    scene (with probability *p_suite*) or a random instance of
    :func:`safetychip.ltl.random_patterns` over the propositions of one of the scene's tasks
    and the scene's rooms. With probability *p_negation* one more constraint is the negation
    of one already drawn, which makes the specification unsatisfiable (the chip must abort).

    Parameters
    ----------
    scene : str
        A scene of the suites (``"apartment_1"``, ``"apartment_2"``).
    rng : random.Random
    max_constraints : int, optional
    p_suite, p_negation : float, optional

    Returns
    -------
    RandomSpecification

    Examples
    --------
    >>> import random
    >>> spec = random_specification("apartment_1", random.Random(3))
    >>> len(spec.constraints) >= 1, spec.constraints[0].name, spec.rooms[0]
    (True, 'c1', 'agent_at(hallway)')
    """
    pool = _pool(scene)
    drawn: list[tuple[str, Formula, str | None]] = []
    for _ in range(rng.randint(1, max_constraints)):
        if rng.random() < p_suite:
            drawn.append(rng.choice(pool.suite))
        else:
            atoms = rng.choice(pool.focus)
            [(name, formula)] = random_patterns(1, atoms, seed=rng.getrandbits(32))
            slots = ("n", "p") if "{0:times}" in LTL_PATTERNS[name].english else ("p", "q")
            drawn.append((f"random {name}: {LTL_PATTERNS[name].read(*slots)}", formula, name))
    if rng.random() < p_negation:
        sentence, formula, _ = rng.choice(drawn)
        drawn.append((f"not: {sentence}", Not(formula), None))
    constraints = tuple(Constraint(f, s, f"c{i}", p) for i, (s, f, p) in enumerate(drawn, 1))
    return RandomSpecification(scene, constraints, pool.rooms)


# -- the referee ----------------------------------------------------------------------------


class Referee:
    """Independent judge of a specification's traces: the direct evaluator for what a trace
    satisfies, and one DFA of the whole conjunction for what can still be satisfied.

    Parameters
    ----------
    spec : RandomSpecification

    Examples
    --------
    >>> from safetychip.monitor import Constraint
    >>> from safetychip.ltl import parse
    >>> spec = RandomSpecification("s", (Constraint(parse("F a"), name="c1"),
    ...                                  Constraint(parse("G !a"), name="c2")), ("r1", "r2"))
    >>> Referee(spec).unsatisfiable()
    True
    """

    def __init__(self, spec: RandomSpecification) -> None:
        self.spec = spec
        self.formulas = {c.name: c.formula for c in spec.constraints}
        self.invariant = spec.invariant
        self._dfas: dict[frozenset[str], DFA] = {}
        self._paths: dict[int, list[frozenset[str]] | None] = {}
        self._steps: dict[tuple[int, frozenset[str]], int] = {}

    def dfa(self, names: Sequence[str] | None = None) -> DFA:
        """The DFA of the conjunction of the constraints *names* (default: all) and the
        invariant, built in one piece."""
        key = frozenset(self.formulas if names is None else names)
        found = self._dfas.get(key)
        if found is None:
            parts = [self.formulas[n] for n in sorted(key)]
            found = self._dfas[key] = to_dfa(And(*parts, self.invariant))
        return found

    def violated(self, trace: Sequence) -> list[str]:
        """Constraints the finished *trace* does not satisfy, by the direct evaluator."""
        return [n for n, f in self.formulas.items() if not evaluate(f, trace)]

    def unsatisfiable(self, names: Sequence[str] | None = None) -> bool:
        """Whether no (non-empty) trace satisfies the constraints *names* (default: all)
        under the invariant."""
        return self.dfa(names).shortest_accepted() is None

    def step(self, q: int, state) -> int:
        """The conjunction DFA's state after reading proposition *state* (a mapping or the
        set of true propositions) from *q*, by evaluating the edge guards."""
        dfa = self.dfa()
        if isinstance(state, dict):
            true = frozenset(a for a in dfa.aps if state[a])
        else:
            true = frozenset(state).intersection(dfa.aps)
        found = self._steps.get((q, true))
        if found is None:
            values = {atom_var(a).var: a in true for a in dfa.aps}
            found = next(
                t
                for t, g in dfa.edges[q]
                if (MANAGER.let(values, g) if values else g) == MANAGER.true
            )
            self._steps[q, true] = found
        return found

    def run(self, trace: Sequence, q: int | None = None) -> list[int]:
        """The conjunction DFA's states after each state of *trace*, read from *q* (default:
        the initial state, so one state per position of the trace)."""
        q = self.dfa().initial if q is None else q
        out = []
        for state in trace:
            q = self.step(q, state)
            out.append(q)
        return out

    def dead(self, q: int) -> bool:
        """Whether no continuation from conjunction state *q* satisfies the specification."""
        return q in self.dfa().dead_states()

    def continuation(self, trace: Sequence) -> list[frozenset[str]] | None:
        """A continuation after which *trace* satisfies every constraint and the invariant,
        checked with the direct evaluator; None if there is none.

        Raises
        ------
        AssertionError
            If the DFA's continuation fails the evaluator (the referee disagrees with itself).
        """
        q = self.run(trace)[-1]
        if q not in self._paths:
            self._paths[q] = self.dfa().shortest_accepted(q)
        path = self._paths[q]
        if path is None:
            return None
        whole = [*trace, *path]
        broken = self.violated(whole)
        assert not broken and evaluate(self.invariant, whole), (
            f"the conjunction DFA's continuation {path} fails {broken or 'the invariant'}"
        )
        return path


# -- the random agent -----------------------------------------------------------------------


class SceneAgent:
    """The random agent's moves in a VirtualHome scene: the suites' vocabulary for it.

    Parameters
    ----------
    scene : str
        A scene of the suites.

    Attributes
    ----------
    env : VirtualHomeEnv
        The scene on its real executor; the shield proposes the moves to it.
    vocabulary : list of str
        Every action the agent may propose.

    Notes
    -----
    The vocabulary is the :meth:`~safetychip.envs.VirtualHomeEnv.candidate_actions` of every
    task of the scene: each verb applied to every object the tasks mention, a walk to every
    room, and puts between those objects. Each episode starts from the initial conditions
    of a random task of the scene; the environment refuses what its executor cannot run.
    """

    def __init__(self, scene: str) -> None:
        from ..envs import VirtualHomeEnv

        self.env = VirtualHomeEnv(scene)
        pool = _pool(scene)
        vocabulary: dict[str, None] = {}
        for task in pool.tasks:
            vocabulary.update(dict.fromkeys(self.env.candidate_actions(task)))
        self.vocabulary = list(vocabulary)
        self.initials = [list(t.initial) for t in pool.tasks]

    def initial(self, rng: random.Random) -> list[str]:
        """The literals a random task of the scene starts from."""
        return rng.choice(self.initials)

    def proposals(self, state: Mapping[str, bool], rng: random.Random) -> list[str]:
        """The vocabulary in a random order."""
        order = list(self.vocabulary)
        rng.shuffle(order)
        return order


class PropositionAgent:
    """The random agent's moves on proposition states alone, in a
    :class:`~safetychip.envs.PropositionEnv` where exactly one room holds.

    Parameters
    ----------
    propositions : sequence of str
        Every proposition, the rooms included.
    rooms : sequence of str
        The ``agent_at(room)`` propositions of the rooms.
    jumps : int, optional
        Random proposition states offered at each step, besides the single flips and moves.

    Raises
    ------
    ValueError
        If a room is not an ``agent_at(room)`` proposition.

    Notes
    -----
    At each step the agent proposes, in a random order: ``set p`` or ``clear p`` for each
    non-room proposition; ``go to r`` for each other room (with three rooms or more, half
    the moves pass through a random third room, ``go to r via h``, which yields two
    states); and *jumps* ``jump …`` to a uniformly random proposition state. An episode
    starts in a random room with each other proposition true with probability 0.1.

    Examples
    --------
    >>> import random
    >>> agent = PropositionAgent(["a", "agent_at(r1)", "agent_at(r2)"],
    ...                          ["agent_at(r1)", "agent_at(r2)"], jumps=1)
    >>> state = {"a": False, "agent_at(r1)": True, "agent_at(r2)": False}
    >>> agent.proposals(state, random.Random(0))
    ['jump agent_at(r2)', 'go to r2', 'set a']
    """

    def __init__(self, propositions: Sequence[str], rooms: Sequence[str], jumps: int = 4) -> None:
        from ..envs import PropositionEnv

        self.rooms = tuple(rooms)
        self._names = {room: _room_name(room) for room in self.rooms}
        self.others = tuple(p for p in propositions if p not in self._names)
        self.jumps = jumps
        self.env = PropositionEnv(self.others, rooms=self._names.values())

    def initial(self, rng: random.Random) -> list[str]:
        """A random room, and each other proposition with probability 0.1."""
        true = [p for p in self.others if rng.random() < 0.1]
        return [*true, rng.choice(self.rooms)]

    def proposals(self, state: Mapping[str, bool], rng: random.Random) -> list[str]:
        """Every flip and move, and a few random jumps, in a random order."""
        here = next(r for r in self.rooms if state[r])
        out = [f"clear {p}" if state[p] else f"set {p}" for p in self.others]
        for room in self.rooms:
            if room == here:
                continue
            via = [r for r in self.rooms if r not in (here, room)]
            hop = rng.choice(via) if via and rng.random() < 0.5 else None
            out.append(f"go to {self._names[room]}" + (f" via {self._names[hop]}" if hop else ""))
        for _ in range(self.jumps):
            true = [p for p in self.others if rng.random() < 0.5]
            out.append(" ".join(["jump", *true, rng.choice(self.rooms)]))
        rng.shuffle(out)
        return out


def _room_name(room: str) -> str:
    """The room of an ``agent_at(room)`` proposition."""
    prop = Proposition.parse(room)
    if prop is None or prop.predicate != "agent_at" or len(prop.args) != 1:
        raise ValueError(f"a room is an agent_at(room) proposition, got {room!r}")
    return prop.args[0]


def _seconds() -> MutableMapping[str, float]:
    """A Counter of seconds (typeshed types a Counter's counts as int; it holds any number)."""
    return cast("MutableMapping[str, float]", Counter())


class _TimedMonitor(MonitorFilter):
    """The constraint monitor as the shield's filter, adding its seconds to ``timer["monitor"]``."""

    def __init__(self, monitor: Monitor, timer: MutableMapping[str, float]) -> None:
        super().__init__(monitor)
        self.timer = timer

    def _timed(self, method: Callable[..., Any], *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return method(*args)
        finally:
            self.timer["monitor"] += time.perf_counter() - start

    def reset(self, initial: Mapping[str, bool]) -> Judgement:
        return self._timed(super().reset, initial)

    def judge(self, proposal: Proposal, state: Mapping[str, bool], trace: Sequence) -> Judgement:
        return self._timed(super().judge, proposal, state, trace)

    def commit(self, proposal: Proposal, states: Sequence) -> Judgement | None:
        return self._timed(super().commit, proposal, states)


# -- one rollout ----------------------------------------------------------------------------


def adversarial_rollout(
    agent: SceneAgent | PropositionAgent,
    monitor: Monitor,
    rng: random.Random,
    *,
    max_steps: int = 10,
    p_done: float = 0.15,
    timer: MutableMapping[str, float] | None = None,
) -> TraceRecord:
    """Play one episode of the random *agent* through a :class:`~safetychip.shield.Shield`
    whose only filter is *monitor*.

    At each step the agent proposes DONE first with probability *p_done*, then its moves in
    a random order until the shield executes one; if none is executed and DONE was not
    proposed yet, it proposes DONE last, and the episode ends.

    Parameters
    ----------
    agent : SceneAgent or PropositionAgent
        Its environment is the one shielded.
    monitor : Monitor
        Reset by the rollout.
    rng : random.Random
    max_steps : int, optional
        Executed actions after which the episode stops.
    p_done : float, optional
    timer : Counter, optional
        Adds the seconds spent in the monitor under ``"monitor"``.

    Returns
    -------
    TraceRecord
        The shield's record; :func:`rollout_outcome` says how the episode ended.

    Examples
    --------
    >>> import random
    >>> from safetychip.monitor import Monitor
    >>> agent = PropositionAgent(["a", "agent_at(r1)", "agent_at(r2)"],
    ...                          ["agent_at(r1)", "agent_at(r2)"])
    >>> record = adversarial_rollout(agent, Monitor(["G !a"]), random.Random(1))
    >>> rollout_outcome(record), any(s["a"] for s in record.trace)
    ('done', False)
    """
    first = MonitorFilter(monitor) if timer is None else _TimedMonitor(monitor, timer)
    shield = Shield(agent.env, [first])
    start = shield.reset(options={"initial": agent.initial(rng)})
    moves = 0
    while start.admitted and moves < max_steps:
        done_first = rng.random() < p_done
        if done_first and shield.propose(DONE).outcome == "done":
            break
        if any(shield.propose(a).executed for a in agent.proposals(shield.state, rng)):
            moves += 1
            continue
        if not done_first:
            shield.propose(DONE)
        break
    return shield.record()


def rollout_outcome(record: TraceRecord) -> str:
    """How a rollout of :func:`adversarial_rollout` ended: one of :data:`ROLLOUT_OUTCOMES`.

    ``abort`` (the specification is unsatisfiable), ``initial_violation`` (the initial
    state was refused), ``done`` (DONE accepted), ``step_limit`` (the last proposal ran) or
    ``stuck`` (no move, nor DONE, was admitted).
    """
    if record.aborted:
        assert record.start is not None
        return "abort" if record.start.abort else "initial_violation"
    if record.done:
        return "done"
    return "step_limit" if not record.steps or record.steps[-1].executed else "stuck"


def _refusals(record: TraceRecord) -> Iterator[tuple[int, Step]]:
    """The steps the shield pruned, each with the length of the executed trace then."""
    at = 1
    for step in record.steps:
        if step.pruned:
            yield at, step
        elif step.executed:
            at += len(step.states)


# -- judging --------------------------------------------------------------------------------


def check_rollout(record: TraceRecord, referee: Referee) -> tuple[list[str], Counter]:
    """Judge one rollout of :func:`adversarial_rollout` independently of the monitor.

    Only the record's proposition states (the initial one, and those of every executed and
    every pruned step) and what the shield decided are used; the verdicts' reasons only
    tell refusals the monitor could not decide (fail-safe) from the others.

    Parameters
    ----------
    record : TraceRecord
    referee : Referee
        Of the rollout's specification.

    Returns
    -------
    problems : list of str
        Empty when the monitor kept its guarantee. Each entry starts with its kind:
        ``violation`` (the executed trace breaks a constraint: DONE accepted on a failing
        trace, or a prefix with no satisfying continuation), ``unjustified abort``,
        ``missed abort``, ``unjustified refusal``, ``unjustified DONE refusal``,
        ``internal error``, ``invariant`` (the world broke the domain invariant).
    counts : Counter
        ``refusals``, ``justified_refusals``, ``undecided_refusals`` (fail-safe "cannot
        decide"), ``done_refusals``.
    """
    problems: list[str] = []
    counts: Counter = Counter()
    trace = record.trace
    outcome = rollout_outcome(record)
    unsat = referee.unsatisfiable()
    if outcome == "abort":
        if not unsat:
            problems.append("unjustified abort: the specification is satisfiable")
        assert record.start is not None
        named = list(record.start.constraints)
        if named:
            if not referee.unsatisfiable(named):
                problems.append(f"unjustified abort: the named set {named} is satisfiable")
            elif len(named) > 1 and not all(referee.unsatisfiable([n]) for n in named):
                for n in named:
                    rest = [m for m in named if m != n]
                    if referee.unsatisfiable(rest):
                        problems.append(f"abort names {named}, but {rest} conflict already")
                        break
        return problems, counts
    if unsat:
        problems.append("missed abort: the specification is unsatisfiable")
        return problems, counts
    if not evaluate(referee.invariant, trace):
        problems.append("invariant: the executed trace breaks the domain invariant")
    states = referee.run(trace)
    if outcome == "initial_violation":
        if not referee.dead(states[0]):
            problems.append("unjustified refusal: the initial state has a satisfying "
                            "continuation, yet the monitor rejected it")  # fmt: skip
        return problems, counts
    if outcome == "done":
        broken = referee.violated(trace)
        if broken:
            problems.append(f"violation: DONE accepted on a trace that breaks {broken}")
    elif referee.continuation(trace) is None:
        problems.append(f"violation: the executed trace ({outcome}) has no satisfying "
                        "continuation")  # fmt: skip
    for step in record.steps:
        if step.executed and step.judgement is not None and not step.judgement.admitted:
            problems.append(f"internal error: the commit of {step.action!r} disagrees with "
                            f"its check: {step.judgement.reason}")  # fmt: skip
    for at, step in _refusals(record):
        assert step.judgement is not None
        reason = step.judgement.reason
        if step.action == DONE:
            counts["done_refusals"] += 1
            if not referee.violated(trace[:at]):
                problems.append(f"unjustified DONE refusal after {at} states: the trace "
                                "satisfies every constraint")  # fmt: skip
            continue
        counts["refusals"] += 1
        if reason.startswith("internal error"):
            problems.append(f"internal error: {reason}")
            continue
        if reason.startswith(_UNDECIDED):
            counts["undecided_refusals"] += 1
            continue
        q = referee.run(step.states, states[at - 1])[-1]
        if referee.dead(q):
            counts["justified_refusals"] += 1
        else:
            problems.append(f"unjustified refusal of {step.action!r} after {at} states: "
                            f"{reason}")  # fmt: skip
    return problems, counts


# -- many rollouts --------------------------------------------------------------------------


@dataclass
class AdversarialReport:
    """What :func:`run_adversarial` found.

    Attributes
    ----------
    level : str
    rollouts, specifications : int
    outcomes : Counter
        Rollouts by outcome.
    counts : Counter
        ``refusals`` (and ``justified_refusals``, ``undecided_refusals``),
        ``done_refusals``, ``actions`` executed, proposition ``states`` in executed traces,
        ``aborting_specifications``, ``rollouts_with_refusals``.
    problems : list of dict
        Each with ``problem``, ``specification`` and ``rollout`` (empty when the guarantee
        held).
    seconds : dict
        ``total``, ``monitor`` (reset, check, commit, finish), ``world`` (the environment's
        simulation and previews, and the shield's loop around them), ``referee`` (the
        independent checks) and ``setup`` (building monitors).
    """

    level: str
    rollouts: int = 0
    specifications: int = 0
    outcomes: Counter = field(default_factory=Counter)
    counts: Counter = field(default_factory=Counter)
    problems: list[dict[str, Any]] = field(default_factory=list)
    seconds: MutableMapping[str, float] = field(default_factory=_seconds)

    @property
    def violations(self) -> int:
        """Rollouts whose executed trace breaks a constraint (must be 0)."""
        return sum(p["problem"].startswith("violation") for p in self.problems)

    @property
    def aborts(self) -> int:
        """Rollouts the monitor aborted (unsatisfiable specifications)."""
        return self.outcomes["abort"]

    @property
    def rate(self) -> float:
        """Rollouts per second, checks included."""
        return self.rollouts / self.seconds["total"] if self.seconds["total"] else 0.0

    @property
    def monitor_share(self) -> float:
        """The monitor's share of the total time."""
        return self.seconds["monitor"] / self.seconds["total"] if self.seconds["total"] else 0.0

    def summary(self) -> str:
        """A few readable lines."""
        s = self.seconds
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))
        c = self.counts
        return "\n".join([
            f"level: {self.level}; {self.rollouts} monitored rollouts over "
            f"{self.specifications} random specifications in {s['total']:.1f} s "
            f"({self.rate:,.0f} rollouts/s)",
            f"outcomes: {outcomes}",
            f"executed actions {c['actions']}, proposition states {c['states']}; refusals "
            f"{c['refusals']} (justified {c['justified_refusals']}, undecided "
            f"{c['undecided_refusals']}), DONE refusals {c['done_refusals']}",
            f"violations: {self.violations}; aborts: {self.aborts} "
            f"({c['aborting_specifications']} specifications; all justified: "
            f"{not any(p['problem'].startswith('unjustified abort') for p in self.problems)})"
            f"; problems: {len(self.problems)}",
            f"time: monitor {s['monitor']:.1f} s ({self.monitor_share:.0%}), world "
            f"{s['world']:.1f} s, referee {s['referee']:.1f} s, monitor set-up "
            f"{s['setup']:.1f} s",
        ])  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"level": self.level, "rollouts": self.rollouts,
                "specifications": self.specifications, "outcomes": dict(self.outcomes),
                "counts": dict(self.counts), "violations": self.violations,
                "aborts": self.aborts, "problems": self.problems,
                "seconds": dict(self.seconds)}  # fmt: skip


def run_adversarial(
    rollouts: int,
    *,
    level: str = "scenes",
    seed: int = 0,
    scenes: Sequence[str] = ("apartment_1", "apartment_2"),
    rollouts_per_spec: int = 4,
    max_steps: int = 10,
    p_done: float = 0.15,
    max_constraints: int = 5,
    check: bool = True,
    progress: bool = True,
    monitor_factory: Callable[[RandomSpecification], Monitor] | None = None,
) -> AdversarialReport:
    """Run *rollouts* monitored episodes of the random agent and judge each one.

    Parameters
    ----------
    rollouts : int
    level : {"scenes", "propositions"}, optional
        VirtualHome on its executor, or proposition states alone (:class:`SceneAgent`,
        :class:`PropositionAgent`).
    seed : int, optional
        Everything is reproducible under it.
    scenes : sequence of str, optional
        The scenes the specifications are drawn for (in turn).
    rollouts_per_spec : int, optional
        Episodes played under each random specification (one monitor serves them, as an
        agent's monitor serves a task's episodes); an unsatisfiable one is played once, as
        its ABORT comes before any action.
    max_steps : int, optional
        Executed actions per episode at most.
    p_done : float, optional
        Probability that the agent proposes DONE first at a step.
    max_constraints : int, optional
        At most this many constraints per specification.
    check : bool, optional
        Judge each rollout with :func:`check_rollout` (False times the monitor alone).
    progress : bool, optional
        Show a ``tqdm.auto`` progress bar.
    monitor_factory : callable, optional
        Builds the monitor of a specification (default: :meth:`RandomSpecification.monitor`); to
        put another monitor, or a deliberately broken one, to the test.

    Returns
    -------
    AdversarialReport

    Raises
    ------
    ValueError
        If *level* is unknown.

    Examples
    --------
    >>> report = run_adversarial(8, level="propositions", progress=False)
    >>> report.rollouts, report.violations, report.problems
    (8, 0, [])
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    from tqdm.auto import tqdm

    rng = random.Random(seed)
    report = AdversarialReport(level)
    timer = _seconds()
    scene_agents: dict[str, SceneAgent] = {}
    began = time.perf_counter()
    bar = tqdm(total=rollouts, disable=not progress, desc=f"adversarial ({level})",
               unit="rollout")  # fmt: skip
    try:
        while report.rollouts < rollouts:
            scene = scenes[report.specifications % len(scenes)]
            start = time.perf_counter()
            spec = random_specification(scene, rng, max_constraints=max_constraints)
            monitor = spec.monitor() if monitor_factory is None else monitor_factory(spec)
            referee = Referee(spec)
            timer["setup"] += time.perf_counter() - start
            report.specifications += 1
            agent: SceneAgent | PropositionAgent
            if level == "scenes":
                if scene not in scene_agents:
                    scene_agents[scene] = SceneAgent(scene)
                agent = scene_agents[scene]
            else:
                agent = PropositionAgent(monitor.atoms, spec.rooms)
            for k in range(min(rollouts_per_spec, rollouts - report.rollouts)):
                start, before = time.perf_counter(), timer["monitor"]
                record = adversarial_rollout(agent, monitor, rng, max_steps=max_steps,
                                             p_done=p_done, timer=timer)  # fmt: skip
                timer["world"] += time.perf_counter() - start - (timer["monitor"] - before)
                outcome = rollout_outcome(record)
                refused = Counter("done_refusals" if step.action == DONE else "refusals"
                                  for _, step in _refusals(record))  # fmt: skip
                report.rollouts += 1
                report.outcomes[outcome] += 1
                report.counts["actions"] += len(record.executed)
                report.counts["states"] += len(record.trace)
                report.counts["aborting_specifications"] += k == 0 and outcome == "abort"
                report.counts["rollouts_with_refusals"] += refused["refusals"] > 0
                if check:
                    start = time.perf_counter()
                    problems, counts = check_rollout(record, referee)
                    timer["referee"] += time.perf_counter() - start
                    report.counts.update(counts)
                    for problem in problems:
                        report.problems.append({"problem": problem,
                                                "specification": spec.to_dict(),
                                                "rollout": record.to_dict()})  # fmt: skip
                else:
                    report.counts.update(refused)
                bar.update(1)
                if outcome == "abort":
                    break  # nothing else to learn from this specification
    finally:
        bar.close()
    timer["total"] = time.perf_counter() - began
    report.seconds = timer
    return report


def adversarial_cell(cell: dict[str, Any]) -> dict[str, Any]:
    """A cell function for :func:`safetychip.experiments.run_cells`: a batch of rollouts.

    Parameters
    ----------
    cell : dict
        ``rollouts`` and, optionally, any keyword of :func:`run_adversarial` (``level``,
        ``seed``, ``rollouts_per_spec``, ``max_steps``, ``p_done``, ``max_constraints``,
        ``check``); ``id`` is ignored. The progress bar is off.

    Returns
    -------
    dict
        :meth:`AdversarialReport.to_dict`.

    Examples
    --------
    >>> from safetychip.experiments import run_cells
    >>> [r] = run_cells(adversarial_cell, [{"id": 0, "rollouts": 4, "level": "propositions"}],
    ...                 progress=False)
    >>> r["rollouts"], r["violations"]
    (4, 0)
    """
    options = {k: v for k, v in cell.items() if k not in ("id", "rollouts")}
    if "scenes" in options:
        options["scenes"] = tuple(options["scenes"])
    return run_adversarial(cell["rollouts"], progress=False, **options).to_dict()
