"""The constraint monitor: decides, before an action runs, whether the constraints can still
all be met, and says which constraint an unsafe action breaks."""

from __future__ import annotations

import html
import math
import time
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any

from ..automata import (
    DFA,
    MANAGER,
    DeadlineExceeded,
    Product,
    SearchBudgetExceeded,
    build_within,
    guard_of,
    guard_str,
    holds,
    is_propositional,
    to_dfa,
)
from ..errors import MonitorError, SafetyChipError, TimeBudgetError, TraceError
from ..ltl import Formula, parse
from ._constraint import Constraint, as_constraints
from ._state import StateReader
from ._verdict import StateChange, Status, Verdict

__all__ = ["Monitor", "compile_dfa", "exactly_one"]

compile_dfa = lru_cache(maxsize=4096)(to_dfa)
compile_dfa.__doc__ = "Cached :func:`safetychip.automata.to_dfa`: one DFA per distinct formula."


def exactly_one(atoms: Iterable[str]) -> Formula:
    """The invariant "exactly one of *atoms* holds", e.g. the agent is in one room at a time.

    Examples
    --------
    >>> print(exactly_one(["agent_at(kitchen)", "agent_at(bedroom)"]))
    G(("agent_at(kitchen)" | "agent_at(bedroom)")
      & !("agent_at(kitchen)" & "agent_at(bedroom)"))
    """
    from ..ltl import And, G, Not, Or

    names = list(atoms)
    pairs = [Not(And(a, b)) for a, b in combinations(names, 2)]
    return G(And(Or(*names), *pairs))


class Monitor:
    """Monitor an agent against constraints, one proposed action at a time.

    Parameters
    ----------
    constraints : iterable of Constraint, Formula or str
        The specification; each constraint gets its own minimal DFA, except a conjunction
        whose conjuncts' DFAs have more than :data:`WHOLE_LIMIT` state combinations: it is
        monitored conjunct by conjunct (:attr:`automata`), the conjuncts decided together
        exactly as the constraints are, without building their product (a mission of many
        eventualities, ``F q0 & … & F q15``, is ready at once).
    invariants : iterable of Formula or str, optional
        Facts of the domain every satisfiability question honours, e.g.
        :func:`exactly_one` over the rooms. ``G(p)`` with p propositional restricts the letters;
        other formulas join the product as unattributed components.
    budget : int, optional
        Product states one exact satisfiability search may explore; beyond it the monitor
        fails safe.
    deadline : float or None, optional
        Seconds each decision (:meth:`check`, :meth:`commit`, :meth:`reset`, :meth:`finish`)
        may take, 0.05 by default; None for no limit (offline use). A decision past it is a
        fail-safe refusal that says so and names the constraints it was deciding; it is
        counted in :attr:`deadline_refusals`, and queued: :meth:`idle` finishes it, so the
        same state answers properly next time.
    build_seconds : float or None, optional
        Seconds building the automata may take in all, 10 by default; None for no limit. Past
        it the monitor is not built: :class:`~safetychip.errors.TimeBudgetError` names the
        constraint being built and how to make it cheaper.

    Raises
    ------
    TimeBudgetError
        If building the automata ran past *build_seconds*.

    Notes
    -----
    Every proposition state is read by :func:`proposition_states`: a mapping giving each of
    :attr:`atoms` a ``bool`` (or ``numpy.bool_``), or the set of true atoms. The monitor
    fails safe online and is strict offline:

    * :meth:`check` and :meth:`commit` never raise on a malformed state: it cannot be decided,
      so the verdict is a VIOLATION whose reason carries the :class:`TraceError`'s message.
      A malformed state is never recorded; after a malformed :meth:`commit` the trace is
      unknown, so every later verdict is a VIOLATION until :meth:`reset` or :meth:`restore`.
    * :meth:`reset` with an initial state and :meth:`evaluate` raise :class:`TraceError`.
    * A committed state that breaks a domain invariant is recorded (what happened cannot be
      refused), and from then on every verdict, DONE included, is a VIOLATION naming the
      invariant and the position. :meth:`check` refuses such a state.

    Examples
    --------
    >>> m = Monitor(["!agent_at(kitchen) W agent_at(bathroom)"])
    >>> m.reset({"agent_at(kitchen)": False, "agent_at(bathroom)": False}).status.value
    'safe'
    >>> v = m.check({"agent_at(kitchen)": True, "agent_at(bathroom)": False})
    >>> v.status.value, v.violated
    ('violation', ('c1',))
    >>> print(v.state_changes[0])
    Violated: agent_at(kitchen)
    >>> m.commit({"agent_at(kitchen)": False, "agent_at(bathroom)": True}).safe
    True
    >>> m.finish().safe
    True
    """

    def __init__(
        self,
        constraints: Iterable[Constraint | Formula | str],
        invariants: Iterable[Formula | str] = (),
        *,
        budget: int = 1_000_000,
        deadline: float | None = 0.05,
        build_seconds: float | None = 10.0,
    ) -> None:
        if deadline is not None and not deadline > 0:
            raise ValueError(f"the deadline must be a positive number of seconds or None, "
                             f"got {deadline!r}")  # fmt: skip
        self.deadline = deadline
        #: Decisions refused because they ran past the deadline.
        self.deadline_refusals = 0
        # Product states whose decision missed its deadline, with the live state they were
        # reached from: finished by idle().
        self._pending: dict[tuple[int, ...], tuple[int, ...] | None] = {}
        if build_seconds is not None and not build_seconds > 0:
            raise ValueError(f"build_seconds must be a positive number of seconds or None, "
                             f"got {build_seconds!r}")  # fmt: skip
        with build_within(build_seconds):
            self._build(constraints, invariants, budget, build_seconds)
        self.reset()

    def _build(self, constraints: Iterable[Constraint | Formula | str],
               invariants: Iterable[Formula | str], budget: int,
               seconds: float | None) -> None:  # fmt: skip
        """Read the constraints and invariants and build their automata, within *seconds*."""
        end = None if seconds is None else time.perf_counter() + seconds

        def late(what: str, hint: str) -> TimeBudgetError:
            limit = "its" if seconds is None else f"the {seconds:g} s"
            return TimeBudgetError(f"the monitor was not built: {what} ran past {limit} "
                                   f"construction budget; {hint}, or give Monitor a larger "
                                   "build_seconds")  # fmt: skip

        try:
            self.constraints = as_constraints(constraints, until=end)
        except TimeBudgetError as err:
            raise late("reading the constraints", str(err).rpartition(": ")[2]) from None
        if end is not None and time.perf_counter() > end:
            raise late("reading the constraints", "give shorter constraints")
        self.invariants = tuple(parse(i) if isinstance(i, str) else i for i in invariants)
        self.budget = budget
        letter_inv = MANAGER.true
        letter_invs = []
        temporal = []
        for inv in self.invariants:
            body = inv.children[0] if inv.op == "G" else None
            if body is not None and is_propositional(body):
                try:
                    letter_invs.append((inv, guard_of(body)))
                except TimeBudgetError:
                    raise late("reading the domain invariants",
                               "give fewer or simpler invariants") from None  # fmt: skip
                letter_inv &= letter_invs[-1][1]
            else:
                temporal.append(inv)
        self._letter_invariant = letter_inv
        self._letter_invariants = tuple(letter_invs)
        self._invariant_atoms = sorted(set().union(*(i.atoms() for i in self.invariants)))
        if end is not None and time.perf_counter() > end:
            raise late("reading the domain invariants", "give fewer or simpler invariants")
        automata: list[DFA] = []
        owner: list[int] = []
        parts: list[tuple[int, ...]] = []
        for i, c in enumerate(self.constraints):
            try:
                own = _automata_of(c.formula)
                if end is not None and time.perf_counter() > end:
                    raise TimeBudgetError("late")
            except TimeBudgetError:
                raise late(
                    f"building the automaton of {c.describe(120)} (constraint "
                    f"{i + 1} of {len(self.constraints)})",
                    "give a conjunction's parts as separate constraints (the monitor "
                    "decides them together without building their product)",
                ) from None
            parts.append(tuple(range(len(automata), len(automata) + len(own))))
            automata.extend(own)
            owner.extend([i] * len(own))
        #: The automata the monitor runs: one per constraint, or one per conjunct of a
        #: conjunction whose automaton would be large (its conjuncts are decided together).
        self.automata: tuple[DFA, ...] = tuple(automata)
        self._owner = tuple(owner)  # the constraint of each automaton
        self._parts = tuple(parts)  # the automata of each constraint
        self._factored = tuple(i for i, own in enumerate(parts) if len(own) > 1)
        self._whole: dict[int, DFA] = {}  # whole automata of factored constraints, when asked
        self._build_seconds = seconds
        try:
            self._extra = tuple(compile_dfa(f) for f in temporal)
        except TimeBudgetError:
            raise late(
                "building the automata of the domain invariants", "give fewer or simpler invariants"
            ) from None
        self.atoms: tuple[str, ...] = tuple(
            sorted(set(self._invariant_atoms).union(*(d.aps for d in self.automata)))
        )
        self._reader = StateReader(self.atoms)
        self._products: dict[tuple[int, ...], Product] = {}
        self._decisions: dict[tuple[int, ...], tuple[Any, ...]] = {}
        # Decided one-state moves: (state, last letter's values, letter's values) -> (the
        # state after, the verdict); an action judged again in the same situation is a
        # lookup (the verdict, with its state-change lines, depends on nothing else).
        self._moves: dict[tuple[Any, ...], tuple[tuple[int, ...], Verdict]] = {}
        self.product = self._product(tuple(range(len(self.constraints))))

    # -- lifecycle ------------------------------------------------------------------------
    def reset(self, initial: Mapping[str, bool] | Iterable[str] | None = None) -> Verdict:
        """Start a new trace; with *initial*, commit it as position 0.

        Returns an ABORT verdict naming a smallest conflicting set of constraints when the
        specification cannot be satisfied at all.

        Raises
        ------
        TraceError
            If *initial* is not a proposition state over :attr:`atoms` (see
            :func:`proposition_state`); the monitor is then left as it was.
        """
        first = None if initial is None else self._reader.read(initial, "the initial state")
        self._state = self.product.initial
        # The states checked last and their outcome: (state, letters, q, last, verdict, breach).
        self._checked: tuple[Any, ...] | None = None
        self._last: dict[str, bool] | None = None
        self.history: list[dict[str, bool]] = []
        self._finished = False
        self._broken: str | None = None
        start = self._decide(self._state, [], until=self._until())
        if start.reason.startswith(_LATE):  # not an abort: each action is decided on its own
            reason = start.reason.replace("the action is refused", "this start is refused", 1)
            start = Verdict(Status.VIOLATION, reason)
        elif start.status is Status.VIOLATION:
            culprits = "; ".join(c.describe() for c in self.constraints if c.name in start.violated)
            if culprits:
                reason = f"the specification is unsatisfiable: no trace can meet {culprits}"
            elif start.reason.startswith("cannot decide"):
                reason = start.reason.replace("the action is refused", "the chip aborts", 1)
            else:
                reason = "the specification is unsatisfiable under the domain invariants"
            start = Verdict(Status.ABORT, reason, start.violated)
        self._aborted = start.status is Status.ABORT
        if self._aborted or first is None:
            return start
        return self.commit([first])

    @property
    def automaton_states(self) -> dict[str, int]:
        """The current state of each constraint's DFA (:meth:`dfa`), by name.

        A factored conjunction's whole DFA is built on first use (see :attr:`dfas`); the
        monitor's own position is :attr:`position`.
        """
        out = {}
        for i, c in enumerate(self.constraints):
            own = self._parts[i]
            if len(own) == 1:
                out[c.name] = self._state[own[0]]
            else:
                out[c.name] = self._whole_dfa(i).run(self.history)
        return out

    @property
    def position(self) -> tuple[int, ...]:
        """The state of each of :attr:`automata` (hashable: a key for searches)."""
        return self._state[: len(self.automata)]

    @property
    def dfas(self) -> tuple[DFA, ...]:
        """The DFA of each constraint, in order.

        A conjunction whose automaton would be large is monitored conjunct by conjunct
        (:attr:`automata`); its whole DFA is built here on first use, within the construction
        budget (:class:`~safetychip.errors.TimeBudgetError` past it).
        """
        return tuple(self._whole_dfa(i) for i in range(len(self.constraints)))

    def _whole_dfa(self, i: int) -> DFA:
        own = self._parts[i]
        if len(own) == 1:
            return self.automata[own[0]]
        found = self._whole.get(i)
        if found is None:
            with build_within(self._build_seconds):
                found = self._whole[i] = compile_dfa(self.constraints[i].formula)
        return found

    @property
    def pending(self) -> tuple[str, ...]:
        """The constraints some of whose automata do not accept now: what DONE would still
        owe (the domain invariants aside).

        Examples
        --------
        >>> m = Monitor(["F a"])
        >>> _ = m.reset({"a": False})
        >>> m.pending
        ('c1',)
        """
        accepting = [d.accepting[q] for d, q in zip(self.automata, self._state)]
        return tuple(c.name for c, own in zip(self.constraints, self._parts)
                     if not all(accepting[k] for k in own))  # fmt: skip

    def __repr__(self) -> str:
        n, k = len(self.invariants), len(self.history)
        invariants = f", {n} invariant{'s' * (n != 1)}" if n else ""
        state = ("aborted" if self._aborted else "broken" if self._broken is not None
                 else f"{k} state{'s' * (k != 1)} committed")  # fmt: skip
        names = ", ".join(c.name for c in self.constraints)
        return f"<Monitor: {len(self.constraints)} constraints ({names}){invariants}; {state}>"

    def _repr_html_(self) -> str:
        rows = []
        for c, own in zip(self.constraints, self._parts):
            pairs = [(self.automata[k], self._state[k]) for k in own]
            kind = ("accepting" if all(d.accepting[q] for d, q in pairs)
                    else "dead" if any(q in d.dead_states() for d, q in pairs)
                    else "pending")  # fmt: skip
            q = pairs[0][1] if len(pairs) == 1 else tuple(q for _, q in pairs)
            colour = {"accepting": "#2e7d32", "pending": "#f9a825", "dead": "#c62828"}[kind]
            rows.append(f"<tr><td>{html.escape(c.name)}</td><td style='text-align:left'>"
                        f"{html.escape(c.sentence)}</td><td style='text-align:left'><code>"
                        f"{html.escape(str(c.formula))}</code></td><td>{q}</td>"
                        f"<td style='color:{colour}'>{kind}</td></tr>")  # fmt: skip
        head = ("<tr><th>name</th><th>sentence</th><th>formula</th><th>state</th>"
                "<th></th></tr>")  # fmt: skip
        return f"<p>{html.escape(repr(self))}</p><table>{head}{''.join(rows)}</table>"

    @property
    def accepts_done(self) -> bool:
        """Whether :meth:`finish` would be SAFE now (every automaton accepts, the domain
        invariants' included), without finishing the trace."""
        return self._broken is None and bool(self.history) and self.product.accepting(self._state)

    def snapshot(self) -> tuple:
        """The monitor's position in the trace, for :meth:`restore` (e.g. to search plans)."""
        return (self._state, self._last, len(self.history), self._finished, self._broken)

    def restore(self, snapshot: tuple) -> Monitor:
        """Go back to a position taken by :meth:`snapshot` of this trace; returns self.

        A trace broken later (by a state that breaks a domain invariant, or that could not be
        read) is whole again at a position taken before.
        """
        self._state, self._last, length, self._finished, self._broken = snapshot
        del self.history[length:]
        self._checked = None
        return self

    def dfa(self, name: str) -> DFA:
        """The DFA of the constraint called *name* (see :attr:`dfas`)."""
        return self._whole_dfa(self._index(name))

    def completion(self, name: str) -> list[frozenset[str]] | None:
        """A shortest way (for a factored conjunction: a way) for the constraint called *name*
        to be met from now, letter by letter (the true propositions); ``[]`` if it is met, None
        if it cannot be."""
        i = self._index(name)
        own = self._parts[i]
        if len(own) == 1:
            return self.automata[own[0]].shortest_accepted(self._state[own[0]])
        if all(self.automata[k].accepting[self._state[k]] for k in own):
            return []
        product = Product([self.automata[k] for k in own], MANAGER.true, self.budget)
        return product.witness(tuple(self._state[k] for k in own))

    @property
    def explored(self) -> int:
        """How many product states the satisfiability searches have decided so far (the
        product is explored lazily, never built whole)."""
        return sum(len(p._live) for p in self._products.values())

    def check(self, states) -> Verdict:
        """Verdict for an action producing *states*, without committing it.

        *states* is one proposition state or a non-empty list of them (see
        :func:`proposition_states`). A malformed state is a VIOLATION (it cannot be decided,
        so the action is refused), never an exception.
        """
        return self._advance(states, commit=False)

    def commit(self, states) -> Verdict:
        """Record that an action produced *states*; returns the same verdict as :meth:`check`.

        What is recorded is a copy of the states as read now: when they equal the states of
        the last :meth:`check`, its verdict is reused, otherwise the check is redone. A state
        breaking a domain invariant is recorded, and every later verdict is a VIOLATION. A
        malformed state is a VIOLATION and is not recorded; the trace is then unknown, so
        every later verdict is a VIOLATION too (until :meth:`reset` or :meth:`restore`).
        """
        return self._advance(states, commit=True)

    step = commit

    def known(self, values: tuple[bool, ...], *, commit: bool = False) -> Verdict | None:
        """The verdict of one letter, given as its truth values in :attr:`atoms` order (bools
        only), when the monitor has already decided that move from where the trace is (its
        move cache); with *commit*, the letter is also committed, as :meth:`commit` would.
        None when the move is not known yet, or the trace is broken, finished or aborted:
        then nothing changes, and :meth:`check` or :meth:`commit` decides.

        The fast path of shields that label letters themselves: a dictionary lookup, the
        verdict the same object :meth:`check` returns.

        Examples
        --------
        >>> m = Monitor(['G !"on_lava"'])
        >>> m.reset({"on_lava": False}).status.name
        'SAFE'
        >>> m.known((True,)) is None  # never met: check it first
        True
        >>> m.check({"on_lava": True}) is m.known((True,))
        True
        >>> m.known((False,), commit=True) is None, len(m.history)
        (True, 1)
        >>> _ = m.check({"on_lava": False})
        >>> m.known((False,), commit=True).status.name, len(m.history)
        ('SAFE', 2)
        """
        if self._broken is not None or self._aborted or self._finished:
            return None
        last = self._last
        found = self._moves.get((self._state, None if last is None else tuple(last.values()),
                                 values))  # fmt: skip
        if found is None:
            return None
        if commit:
            letter = dict(zip(self.atoms, values))
            self._checked = None
            self._state, self._last = found[0], letter
            self.history.append(letter)
        return found[1]

    def idle(self, seconds: float | None = None) -> int:
        """Finish the decisions that missed their deadline, for at most *seconds* (None: no
        limit), so their states answer properly next time; returns how many were settled.

        Call it when the agent has nothing to decide (e.g. while the robot acts). A decision
        still unfinished when *seconds* run out stays queued.

        Examples
        --------
        >>> m = Monitor(["F a"])
        >>> m.idle()
        0
        """
        until = None if seconds is None else time.perf_counter() + seconds
        settled = 0
        for q, hint in list(self._pending.items()):
            try:
                self._decisions[q] = self._judge(q, hint, until)
            except DeadlineExceeded:
                break
            del self._pending[q]
            settled += 1
        if settled:
            self._checked = None  # the last check may have been one of them
        return settled

    def decided_safe(self, state: tuple[int, ...]) -> tuple[bool, bool]:
        """Whether the product state *state* is safe, by the decision :meth:`check` makes
        there (cached), and whether it was decided (False: refused for want of time).

        Examples
        --------
        >>> m = Monitor(['G !"on_lava"'])
        >>> m.decided_safe(m.product.initial)
        (True, True)
        """
        verdict = self._decide(state, [], None, self._until())
        return verdict.status is Status.SAFE, not verdict.reason.startswith(_LATE)

    def _until(self) -> float | None:
        """The ``time.perf_counter()`` time the decision starting now must end by."""
        return None if self.deadline is None else time.perf_counter() + self.deadline

    def finish(self) -> Verdict:
        """DONE: SAFE if the trace satisfies every constraint and invariant, else a VIOLATION
        listing the pending obligations."""
        if self._aborted:
            raise MonitorError("the specification is unsatisfiable: reset with other constraints")
        if not self.history:
            return Verdict(Status.VIOLATION, "DONE before any proposition state was observed")
        pending = self.pending
        if self._broken is not None:
            return Verdict(Status.VIOLATION, f"DONE refused: {self._broken}", pending,
                           pending=pending)  # fmt: skip
        extra = [d for d, q in zip(self._extra, self._state[len(self.automata):])
                 if not d.accepting[q]]  # fmt: skip
        if not pending and not extra:
            self._finished = True
            return Verdict(Status.SAFE, "every constraint is satisfied")
        owed = []
        for name in pending:
            i = self._index(name)
            todo = "; and ".join(self._owed(k) for k in self._parts[i]
                                 if not self.automata[k].accepting[self._state[k]])  # fmt: skip
            owed.append(f"{name} ({self.constraints[i].sentence or self.constraints[i].formula})"
                        f" still needs: {todo}")  # fmt: skip
        reason = "DONE refused: " + "; ".join(owed) if owed else "DONE breaks an invariant"
        return Verdict(Status.VIOLATION, reason, pending, pending=pending)

    def evaluate(self, trace: Sequence) -> list[Verdict]:
        """Offline use: reset, commit each state of *trace* in turn, then :meth:`finish`,
        every decision exact (without the deadline).

        An unsatisfiable specification yields the single ABORT verdict of the reset.

        Raises
        ------
        TraceError
            If *trace* is not a non-empty list of proposition states over :attr:`atoms`, or
            one of its states is malformed (the message gives its position); nothing is
            evaluated then.
        """
        if isinstance(trace, (str, bytes)) or not isinstance(trace, Sequence):
            raise TraceError(f"a trace is a list of proposition states, got {type(trace).__name__}")
        if not trace:
            raise TraceError("a trace must have at least one proposition state (position 0)")
        read = self._reader.read
        letters = [read(s, "the state at position {} of the trace", i) for i, s in enumerate(trace)]
        deadline, self.deadline = self.deadline, None  # offline: every decision is exact
        try:
            verdicts = [self.reset(letters[0])]
            if verdicts[0].status is Status.ABORT:
                return verdicts
            verdicts += [self.commit([s]) for s in letters[1:]]
            verdicts.append(self.finish())
        finally:
            self.deadline = deadline
        return verdicts

    # -- internals ------------------------------------------------------------------------
    def _owed(self, k: int) -> str:
        """What automaton *k* still needs, guard by guard (``impossible`` if nothing will do)."""
        dfa, q = self.automata[k], self._state[k]
        return " then ".join(_needed(dfa, q, dfa.shortest_accepted(q) or ())) or "impossible"

    def _index(self, name: str) -> int:
        for i, c in enumerate(self.constraints):
            if c.name == name:
                return i
        names = ", ".join(c.name for c in self.constraints)
        raise KeyError(f"no constraint named {name!r}; the constraints are {names}")

    def _product(self, members: tuple[int, ...]) -> Product:
        found = self._products.get(members)
        if found is None:
            dfas = [self.automata[k] for i in members for k in self._parts[i]]
            dfas += self._extra
            found = Product(dfas, self._letter_invariant, self.budget)
            self._products[members] = found
        return found

    def _advance(self, states, commit: bool) -> Verdict:
        if self._aborted:
            raise MonitorError("the specification is unsatisfiable: reset with other constraints")
        if self._finished:
            raise MonitorError("the trace is finished (DONE was accepted): call reset() first")
        memo, self._checked = self._checked, None
        try:
            letters = self._reader.read_all(states, "proposition state {} of the action")
        except Exception as err:  # malformed, or a mapping failing when read: fail safe
            text = str(err) if isinstance(err, TraceError) else f"{type(err).__name__}: {err}"
            if commit and self._broken is None:
                self._broken = (f"the monitor cannot decide any more: the proposition states "
                                f"committed at position {len(self.history)} could not be read "
                                f"({text})")  # fmt: skip
            if not isinstance(err, TraceError):
                text = f"the proposition states could not be read ({text})"
            return Verdict(Status.VIOLATION, f"cannot decide, so the action is refused: {text}")
        if memo is not None and memo[0] is self._state and memo[1] == letters:
            _, _, q, prev, verdict, breach = memo  # the states checked last: reuse the verdict
        else:
            q, prev, verdict, breach = self._move(letters)
        if not commit:
            self._checked = (self._state, letters, q, prev, verdict, breach)
            return verdict
        if q is not None:
            self._state = q
            self._last = prev
            self.history.extend(letters)
        self._broken = self._broken or breach
        return verdict

    def _move(self, letters: list[dict[str, bool]]):
        """:meth:`_evaluate`, looked up in :attr:`_moves` for one letter on an unbroken
        trace; a move is remembered only once its target state is decided (never a deadline
        refusal, an internal error or a broken invariant)."""
        if len(letters) != 1 or self._broken is not None:
            return self._evaluate(letters)
        letter, last = letters[0], self._last
        key = (self._state, None if last is None else tuple(last.values()),
               tuple(letter.values()))  # fmt: skip
        found = self._moves.get(key)
        if found is not None:
            return found[0], letter, found[1], None
        q, prev, verdict, breach = self._evaluate(letters)
        if breach is None and q is not None and q in self._decisions:
            if len(self._moves) > 100_000:
                self._moves.clear()
            self._moves[key] = q, verdict
        return q, prev, verdict, breach

    def _evaluate(self, letters: list[dict[str, bool]]):
        """Progress *letters* from the committed state: ``(state, last, verdict, breach)``.

        *breach* says how committing them breaks the trace (a domain invariant broken, or an
        internal error, when *state* is None and nothing can be recorded), else it is None.
        """
        changes: list[tuple[tuple[str, ...], bool]] = []
        prev, q, broken = self._last, self._state, None
        breach: str | None
        try:
            for k, letter in enumerate(letters):
                if (
                    broken is None
                    and self._letter_invariants
                    and not holds(self._letter_invariant, letter, self._invariant_atoms)
                ):
                    broken = k, self._broken_invariant(letter)
                changes.append(_changed(prev, letter))
                prev = letter
                q = self.product.next_state(q, letter)
        except Exception as err:  # the monitor fails safe on any internal error
            breach = (f"the monitor cannot decide any more: internal error at position "
                      f"{len(self.history)} ({type(err).__name__}: {err})")  # fmt: skip
            return None, None, _refused(err, changes), breach
        if broken is None and self._broken is None:
            try:
                return q, prev, self._decide(q, changes, self._state, self._until()), None
            except Exception as err:  # undecided (search budget) or internal error: fail safe
                return q, prev, _refused(err, changes), None
        breach = None
        if broken is None:
            reason = f"{self._broken}: no action can be safe any more"
        else:
            k, inv = broken
            reason = f"it would break the domain invariant {inv} (state {k} of the action)"
            position = len(self.history) + k
            breach = f"the trace broke the domain invariant {inv} at position {position}"
        verdict = Verdict(Status.VIOLATION, reason, (), _lines(False, changes),
                          automaton_states=q[: len(self.automata)])  # fmt: skip
        return q, prev, verdict, breach

    def _broken_invariant(self, letter: dict[str, bool]) -> Formula:
        """The first domain invariant over single states that *letter* does not satisfy."""
        return next(inv for inv, guard in self._letter_invariants
                    if not holds(guard, letter, self._invariant_atoms))  # fmt: skip

    def _decide(
        self,
        q: tuple[int, ...],
        changes: list[tuple[tuple[str, ...], bool]],
        hint: tuple[int, ...] | None = None,
        until: float | None = None,
    ) -> Verdict:
        decision = self._decisions.get(q)
        if decision is None:
            try:
                decision = self._decisions[q] = self._judge(q, hint, until)
                self._pending.pop(q, None)
            except DeadlineExceeded as err:
                self.deadline_refusals += 1
                self._pending[q] = hint
                decision = Status.VIOLATION, self._late(err), ()
        status, reason, violated, *readings = decision
        return Verdict(status, reason, violated, _lines(status is Status.SAFE, changes),
                       automaton_states=q[: len(self.automata)],
                       readings=readings[0] if readings else ())  # fmt: skip

    def _late(self, err: DeadlineExceeded) -> str:
        """The reason of a deadline refusal: the time limit and the constraints involved."""
        n = len(self.automata)
        owners = dict.fromkeys(self._owner[k] for k in err.members if k < n)
        names = [self.constraints[i].name for i in owners]
        listed = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        every = "all " if len(names) > 1 else ""
        about = f"whether {listed} can still {every}be met" if names else "joint satisfiability"
        assert self.deadline is not None, "only a decision with a deadline can be late"
        return (f"{_LATE}, so the action is refused: the monitor could not decide within its "
                f"{self.deadline * 1e3:g} ms deadline {about} (deadline refusal "
                f"{self.deadline_refusals}; idle() finishes the decision)")  # fmt: skip

    def _judge(
        self, q: tuple[int, ...], hint: tuple[int, ...] | None, until: float | None = None
    ) -> tuple[Any, ...]:
        """The decision at *q*: SAFE, or a VIOLATION attributed to constraints, as
        ``(status, reason, violated)``.

        Raises
        ------
        DeadlineExceeded
            Past *until*: nothing is decided (the caller refuses and queues it).
        """
        try:
            live = self.product.is_live(q, hint, deadline=until)
        except DeadlineExceeded:
            raise
        except SearchBudgetExceeded as err:
            return Status.VIOLATION, f"cannot decide, so the action is refused: {err}", ()
        if live:
            return Status.SAFE, "every constraint can still be satisfied", ()
        culprits, alone = self._attribute(q, until)
        names = tuple(self.constraints[i].name for i in culprits)
        described = "; ".join(self.constraints[i].describe() for i in culprits)
        if alone:
            reason = f"it would break {described}"
        elif culprits:
            reason = f"these constraints could no longer all be met together: {described}"
        else:
            reason = "it would break a domain invariant"
        return Status.VIOLATION, reason, names

    def _attribute(
        self, q: tuple[int, ...], until: float | None = None
    ) -> tuple[tuple[int, ...], bool]:
        """Constraints unsatisfiable on their own at *q* (and True), else a smallest jointly
        unsatisfiable subset (exhaustive up to three among twelve, deletion-minimal beyond).
        Past *until* the minimisation stops: the set named is still a conflict, if not a
        smallest one."""
        n, m = len(self.constraints), len(self.automata)
        parts = self._parts
        owner = self._owner
        alone = tuple(dict.fromkeys(owner[k] for k, d in enumerate(self.automata)
                                    if q[k] in d.dead_states()))  # fmt: skip
        if alone:
            return alone, True

        def unsat(members: tuple[int, ...]) -> bool:
            if until is not None and time.perf_counter() > until:
                raise DeadlineExceeded("the attribution ran past the deadline")
            sub = self._product(members)
            state = tuple(q[k] for i in members for k in parts[i]) + q[m:]
            try:
                return not sub.is_live(state, deadline=until)
            except DeadlineExceeded:
                raise
            except SearchBudgetExceeded:
                return False

        best = tuple(range(n))  # a conflict, shrunk as the minimisation goes
        try:
            if unsat(()):
                return (), False
            # The search that found the violation proved a set of components unsatisfiable:
            # minimise within it.
            # A factored conjunction may be unsatisfiable on its own with no dead conjunct.
            alone = tuple(i for i in self._factored if unsat((i,)))
            if alone:
                return alone, True
            core = tuple(sorted({owner[k] for k in self.product.core_of(q) or () if k < m}))
            if core and unsat(core):
                best = core
            if len(best) <= 12:
                for size in (2, 3):
                    for combo in combinations(best, size):
                        if unsat(combo):
                            return combo, False
            for i in best:
                trial = tuple(m for m in best if m != i)
                if unsat(trial):
                    best = trial
        except DeadlineExceeded:
            pass
        return best, False


_LATE = "cannot decide in time"


def _refused(err: Exception, changes: list[tuple[tuple[str, ...], bool]]) -> Verdict:
    """The fail-safe VIOLATION when progressing or deciding raised *err*."""
    if isinstance(err, SafetyChipError):  # e.g. the search budget: the question is undecided
        reason = f"cannot decide, so the action is refused: {err}"
    else:
        reason = f"internal error, so the action is refused: {type(err).__name__}: {err}"
    return Verdict(Status.VIOLATION, reason, state_changes=_lines(False, changes))


#: A conjunction is monitored conjunct by conjunct when its conjuncts' automata have more
#: state combinations than this (its whole automaton may have as many, and edges beyond).
WHOLE_LIMIT = 64


def _automata_of(formula: Formula) -> list[DFA]:
    """The automata that monitor *formula*: its DFA, or one per conjunct of a top-level
    conjunction whose conjuncts' automata have more than :data:`WHOLE_LIMIT` state
    combinations (their product is the conjunction's DFA, explored lazily)."""
    conjuncts = _conjuncts(formula)
    if len(conjuncts) > 1:
        own = [compile_dfa(k) for k in conjuncts]
        if math.prod(d.num_states for d in own) > WHOLE_LIMIT:
            return own
    return [compile_dfa(formula)]


def _conjuncts(formula: Formula) -> list[Formula]:
    """The conjuncts of *formula*, nested conjunctions flattened (itself if not one)."""
    out, todo = [], [formula]
    while todo:
        f = todo.pop()
        if f.op == "&":
            todo.extend(reversed(f.children))
        else:
            out.append(f)
    return out


def _changed(prev: dict[str, bool] | None, now: dict[str, bool]) -> tuple[tuple[str, ...], bool]:
    """Literals of *now* that differ from *prev* (all true ones at the first state), and
    whether it is the first state."""
    if prev is None:
        return tuple(a for a, v in now.items() if v), True
    return tuple(a if v else f"!{a}" for a, v in now.items() if prev.get(a) != v), False


_LINES: dict[tuple[bool, tuple[str, ...], bool], StateChange] = {}


def _lines(safe: bool, changes: list[tuple[tuple[str, ...], bool]]) -> tuple[StateChange, ...]:
    """The state-change lines (immutable, so the same change is built once: a hot path)."""
    out = []
    for lits, first in changes:
        key = (safe, lits, first)
        line = _LINES.get(key)
        if line is None:
            if len(_LINES) > 100_000:
                _LINES.clear()
            line = _LINES[key] = StateChange(safe, lits, first=first)
        out.append(line)
    return tuple(out)


def _needed(dfa: DFA, state: int, path: Sequence[frozenset[str]]) -> list[str]:
    """The guards of the edges *path* takes from *state*: what each needed state must satisfy."""
    out = []
    for letter in path:
        target = dfa.next_state(state, letter)
        guard = next(g for t, g in dfa.edges[state] if t == target)
        out.append(guard_str(guard))
        state = target
    return out
