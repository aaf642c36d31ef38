"""The constraint monitor: decides, before an action runs, whether the constraints can still
all be met, and says which constraint an unsafe action breaks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import combinations

from ..automata import DFA, MANAGER, Product, to_dfa
from ..automata._guards import guard_of, guard_str, holds, is_propositional
from ..automata._product import SearchBudgetExceeded
from ..errors import MonitorError, SafetyChipError, TraceError
from ..ltl import Formula, parse
from ._constraint import Constraint, as_constraints
from ._verdict import Status, Verdict

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
        The specification; each constraint gets its own minimal DFA.
    invariants : iterable of Formula or str, optional
        Facts of the domain every satisfiability question honours, e.g.
        :func:`exactly_one` over the rooms. ``G(p)`` with p propositional restricts the letters;
        other formulas join the product as unattributed components.
    budget : int, optional
        BDD nodes a symbolic satisfiability search may build; beyond it the monitor fails
        safe.

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
    ) -> None:
        self.constraints = as_constraints(constraints)
        self.invariants = tuple(parse(i) if isinstance(i, str) else i for i in invariants)
        self.budget = budget
        letter_inv = MANAGER.true
        temporal = []
        for inv in self.invariants:
            body = inv.children[0] if inv.op == "G" else None
            if body is not None and is_propositional(body):
                letter_inv &= guard_of(body)
            else:
                temporal.append(inv)
        self._letter_invariant = letter_inv
        self._invariant_atoms = sorted(set().union(*(i.atoms() for i in self.invariants)))
        self.dfas: tuple[DFA, ...] = tuple(compile_dfa(c.formula) for c in self.constraints)
        self._extra = tuple(compile_dfa(f) for f in temporal)
        self.atoms: tuple[str, ...] = tuple(
            sorted(set(self._invariant_atoms).union(*(d.aps for d in self.dfas)))
        )
        self._products: dict[tuple[int, ...], Product] = {}
        self._decisions: dict[tuple[int, ...], tuple[Status, str, tuple[str, ...]]] = {}
        self.product = self._product(tuple(range(len(self.dfas))))
        self.reset()

    # -- lifecycle ------------------------------------------------------------------------
    def reset(self, initial: Mapping[str, bool] | Iterable[str] | None = None) -> Verdict:
        """Start a new trace; with *initial*, commit it as position 0.

        Returns an ABORT verdict naming a smallest conflicting set of constraints when the
        specification cannot be satisfied at all.
        """
        self._state = self.product.initial
        self._checked = None
        self._last: dict[str, bool] | None = None
        self.history: list[dict[str, bool]] = []
        self._finished = False
        start = self._decide(self._state, [])
        if start.status is Status.VIOLATION:
            culprits = "; ".join(
                _describe(c) for c in self.constraints if c.name in start.violated
            )
            if culprits:
                reason = f"the specification is unsatisfiable: no trace can meet {culprits}"
            elif start.reason.startswith("cannot decide"):
                reason = start.reason.replace("the action is refused", "the chip aborts", 1)
            else:
                reason = "the specification is unsatisfiable under the domain invariants"
            start = Verdict(Status.ABORT, reason, start.violated)
        self._aborted = start.status is Status.ABORT
        if self._aborted or initial is None:
            return start
        return self.commit([initial])

    @property
    def automaton_states(self) -> dict[str, int]:
        """The current DFA state of each constraint, by name."""
        return {c.name: q for c, q in zip(self.constraints, self._state)}

    def snapshot(self) -> tuple:
        """The monitor's position in the trace, for :meth:`restore` (e.g. to search plans)."""
        return (self._state, self._last, len(self.history), self._finished)

    def restore(self, snapshot: tuple) -> Monitor:
        """Go back to a position taken by :meth:`snapshot` of this trace; returns self."""
        self._state, self._last, length, self._finished = snapshot
        del self.history[length:]
        self._checked = None
        return self

    def dfa(self, name: str) -> DFA:
        """The DFA of the constraint called *name*."""
        return self.dfas[self._index(name)]

    @property
    def explored(self) -> int:
        """How many product states the satisfiability searches have decided so far (the
        product is explored lazily, never built whole)."""
        return sum(len(p._live) for p in self._products.values())

    def check(self, states) -> Verdict:
        """Verdict for an action producing *states* (one proposition state or a list), without
        committing it."""
        return self._advance(states, commit=False)

    def commit(self, states) -> Verdict:
        """Record that an action produced *states*; returns the same verdict as :meth:`check`."""
        return self._advance(states, commit=True)

    step = commit

    def finish(self) -> Verdict:
        """DONE: SAFE if the trace satisfies every constraint, else a VIOLATION listing the
        pending obligations."""
        if self._aborted:
            raise MonitorError("the specification is unsatisfiable: reset with other constraints")
        if not self.history:
            return Verdict(Status.VIOLATION, "DONE before any proposition state was observed")
        pending = [
            c.name for c, d, q in zip(self.constraints, self.dfas, self._state)
            if not d.accepting[q]
        ]  # fmt: skip
        extra = [d for d, q in zip(self._extra, self._state[len(self.dfas):])
                 if not d.accepting[q]]  # fmt: skip
        if not pending and not extra:
            self._finished = True
            return Verdict(Status.SAFE, "every constraint is satisfied")
        owed = []
        for name in pending:
            i = self._index(name)
            path = self.dfas[i].shortest_accepted(self._state[i])
            todo = " then ".join(_needed(self.dfas[i], self._state[i], path or ())) or "impossible"
            owed.append(f"{name} ({self.constraints[i].sentence or self.constraints[i].formula})"
                        f" still needs: {todo}")  # fmt: skip
        reason = "DONE refused: " + "; ".join(owed) if owed else "DONE breaks an invariant"
        return Verdict(Status.VIOLATION, reason, tuple(pending), pending=tuple(pending))

    def evaluate(self, trace: Sequence) -> list[Verdict]:
        """Offline use: reset, commit each state of *trace* in turn, then :meth:`finish`.

        An unsatisfiable specification yields the single ABORT verdict of the reset.
        """
        if not trace:
            raise TraceError("a trace must have at least one proposition state (position 0)")
        verdicts = [self.reset(trace[0])]
        if verdicts[0].status is Status.ABORT:
            return verdicts
        verdicts += [self.commit([s]) for s in trace[1:]]
        verdicts.append(self.finish())
        return verdicts

    # -- internals ------------------------------------------------------------------------
    def _index(self, name: str) -> int:
        for i, c in enumerate(self.constraints):
            if c.name == name:
                return i
        names = ", ".join(c.name for c in self.constraints)
        raise KeyError(f"no constraint named {name!r}; the constraints are {names}")

    def _product(self, members: tuple[int, ...]) -> Product:
        found = self._products.get(members)
        if found is None:
            dfas = [self.dfas[i] for i in members] + list(self._extra)
            found = Product(dfas, self._letter_invariant, self.budget)
            self._products[members] = found
        return found

    def _normalize(self, states) -> list[dict[str, bool]]:
        if type(states) is dict or isinstance(states, (Mapping, set, frozenset)):
            states = [states]
        if isinstance(states, (str, bytes)) or not isinstance(states, Sequence) or not states:
            raise TraceError(
                f"an action produces a non-empty list of proposition states, got {states!r}"
            )
        atoms = self.atoms
        out = []
        for k, s in enumerate(states):
            if type(s) is dict or isinstance(s, Mapping):
                try:
                    out.append({a: bool(s[a]) for a in atoms})
                except KeyError:
                    missing = ", ".join(a for a in atoms if a not in s)
                    raise TraceError(
                        f"proposition state {k} of the action has no value for {missing}"
                    ) from None
            elif isinstance(s, (set, frozenset, list, tuple)):
                out.append({a: a in s for a in atoms})
            else:
                raise TraceError(f"proposition state {k} must be a mapping or a set, got {s!r}")
        return out

    def _advance(self, states, commit: bool) -> Verdict:
        if self._aborted:
            raise MonitorError("the specification is unsatisfiable: reset with other constraints")
        if self._finished:
            raise MonitorError("the trace is finished (DONE was accepted): call reset() first")
        memo = self._checked
        if memo is not None and memo[0] is states and memo[1] == states and memo[2] is self._state:
            _, _, _, letters, q, prev, verdict = memo  # commit right after check: reuse it
        else:
            letters, q, prev, verdict = self._evaluate(states)
        self._checked = None
        if not commit:
            snapshot = dict(states) if type(states) is dict else list(states)
            self._checked = (states, snapshot, self._state, letters, q, prev, verdict)
        elif letters is not None:
            self._state = q
            self._last = prev
            self.history.extend(letters)
        return verdict

    def _evaluate(self, states):
        """Progress *states* from the committed state: ``(letters, state, last, verdict)``;
        letters is None when the states cannot be read (nothing can be committed)."""
        try:
            letters = self._normalize(states)
        except TraceError as err:
            verdict = Verdict(Status.VIOLATION, f"cannot decide, so the action is refused: {err}")
            return None, self._state, self._last, verdict
        changes = []
        prev = self._last
        q = self._state
        try:
            check_invariant = self._letter_invariant != MANAGER.true
            for letter in letters:
                if check_invariant and not holds(
                    self._letter_invariant, letter, self._invariant_atoms
                ):
                    broken = ", ".join(str(i) for i in self.invariants)
                    verdict = Verdict(
                        Status.VIOLATION,
                        f"the proposition state breaks a domain invariant ({broken}): "
                        "cannot decide, so the action is refused",
                    )
                    return None, self._state, self._last, verdict
                changes.append(_changed(prev, letter))
                prev = letter
                q = self.product.next_state(q, letter)
            verdict = self._decide(q, changes, hint=self._state)
        except SafetyChipError as err:
            verdict = Verdict(Status.VIOLATION, f"cannot decide, so the action is refused: {err}",
                              state_changes=tuple(f"Violated: {c}" for c in changes))  # fmt: skip
        except Exception as err:  # the monitor fails safe on any internal error
            verdict = Verdict(
                Status.VIOLATION,
                f"internal error, so the action is refused: {type(err).__name__}: {err}",
                state_changes=tuple(f"Violated: {c}" for c in changes),
            )
        return letters, q, prev, verdict

    def _decide(
        self, q: tuple[int, ...], changes: list[str], hint: tuple[int, ...] | None = None
    ) -> Verdict:
        decision = self._decisions.get(q)
        if decision is None:
            decision = self._decisions[q] = self._judge(q, hint)
        status, reason, violated = decision
        prefix = "Safe: " if status is Status.SAFE else "Violated: "
        return Verdict(status, reason, violated, tuple(prefix + c for c in changes),
                       automaton_states=q[: len(self.dfas)])  # fmt: skip

    def _judge(
        self, q: tuple[int, ...], hint: tuple[int, ...] | None
    ) -> tuple[Status, str, tuple[str, ...]]:
        try:
            live = self.product.is_live(q, hint)
        except SearchBudgetExceeded as err:
            return Status.VIOLATION, f"cannot decide, so the action is refused: {err}", ()
        if live:
            return Status.SAFE, "every constraint can still be satisfied", ()
        culprits, alone = self._attribute(q)
        names = tuple(self.constraints[i].name for i in culprits)
        described = "; ".join(_describe(self.constraints[i]) for i in culprits)
        if alone:
            reason = f"it would break {described}"
        elif culprits:
            reason = f"these constraints could no longer all be met together: {described}"
        else:
            reason = "it would break a domain invariant"
        return Status.VIOLATION, reason, names

    def _attribute(self, q: tuple[int, ...]) -> tuple[tuple[int, ...], bool]:
        """Constraints unsatisfiable on their own at *q* (and True), else a smallest jointly
        unsatisfiable subset (exhaustive up to three among twelve, deletion-minimal beyond)."""
        n = len(self.dfas)
        alone = tuple(i for i in range(n) if q[i] in self.dfas[i].dead_states())
        if alone:
            return alone, True

        def unsat(members: tuple[int, ...]) -> bool:
            sub = self._product(members)
            state = tuple(q[i] for i in members) + q[n:]
            try:
                return not sub.is_live(state)
            except SearchBudgetExceeded:
                return False

        if unsat(()):
            return (), False
        # The search that found the violation proved a cone of components unsatisfiable:
        # minimise within it.
        core = self.product.core_of(q) or range(n)
        candidates = [i for i in core if i < n]
        if len(candidates) <= 12:
            for size in (2, 3):
                for combo in combinations(candidates, size):
                    if unsat(combo):
                        return combo, False
        members = list(candidates)
        for i in candidates:
            trial = tuple(m for m in members if m != i)
            if unsat(trial):
                members = list(trial)
        return tuple(members), False


def _describe(c: Constraint) -> str:
    return f"{c.name} ({c.sentence or c.formula})"


def _changed(prev: dict[str, bool] | None, now: dict[str, bool]) -> str:
    """Literals of *now* that differ from *prev* (all true ones at the first state)."""
    if prev is None:
        lits = [a for a, v in now.items() if v]
        if not lits:
            return "(every proposition false)"
    else:
        lits = [a if v else f"!{a}" for a, v in now.items() if prev.get(a) != v]
    return " & ".join(sorted(lits, key=lambda s: s.lstrip("!"))) if lits else "(no change)"


def _needed(dfa: DFA, state: int, path: Sequence[frozenset[str]]) -> list[str]:
    """The guards of the edges *path* takes from *state*: what each needed state must satisfy."""
    out = []
    for letter in path:
        target = dfa.next_state(state, letter)
        guard = next(g for t, g in dfa.edges[state] if t == target)
        out.append(guard_str(guard))
        state = target
    return out
