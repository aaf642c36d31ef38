"""The specification: the constraints accepted so far, jointly satisfiable, with unique names.

:meth:`Specification.accept` is the only way in. It re-checks the constraint against those
already accepted (and the domain invariants) and either appends it whole or raises, so a
specification is always satisfiable and never holds a half-accepted constraint. Whether
constraints can all hold is the monitor's question before the first action:
:func:`smallest_conflict` asks it and names a smallest conflicting set.

Examples
--------
>>> from safetychip.ltl import parse
>>> spec = Specification()
>>> spec.accept(parse('G!"agent_at(kitchen)"'), sentence="never go to the kitchen").name
'c1'
>>> spec.accept(parse('F"agent_at(kitchen)"'))
Traceback (most recent call last):
...
safetychip.errors.ConflictError: F"agent_at(kitchen)" contradicts the constraints already
accepted: no finite trace satisfies it together with c1 (never go to the kitchen)
>>> len(spec)
1
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from ..errors import ConflictError, PickNeededError, SpecificationError
from ..ltl import Formula, parse
from ._ambiguity import CandidateMonitor, CandidateSet
from ._constraint import Constraint
from ._files import constraints_json, name_items, read_constraints, write_constraints
from ._monitor import Monitor
from ._vacuous import refuse_vacuous
from ._verdict import Status

__all__ = ["Specification", "smallest_conflict"]


def smallest_conflict(
    constraints: Iterable[Constraint | Formula | str], invariants: Iterable[Formula | str] = ()
) -> tuple[str, ...]:
    """``()`` if the constraints can all hold on some finite trace (under the *invariants*),
    else the names of a smallest conflicting set: the monitor's ABORT attribution.

    Unnamed constraints are called ``c1``, ``c2``… after their place.

    Examples
    --------
    >>> smallest_conflict(["G !a", "F a", "G !b"])
    ('c1', 'c2')
    >>> smallest_conflict(["G !a"])
    ()
    >>> smallest_conflict(["F a"], invariants=["G !a"])
    ('c1',)
    """
    monitor = Monitor(list(constraints), invariants, deadline=None)  # offline: exact
    verdict = monitor.reset()
    if verdict.status is Status.ABORT:
        return verdict.violated or tuple(c.name for c in monitor.constraints)
    return ()


class Specification:
    """Accepted constraints, jointly satisfiable, with unique names.

    Parameters
    ----------
    constraints : iterable of Constraint, Formula or str
        Constraints to start with (checked like any accepted one).
    invariants : iterable of Formula or str
        Domain facts honoured by every satisfiability check (e.g.
        :func:`safetychip.monitor.exactly_one` over the rooms).
    """

    def __init__(
        self,
        constraints: Iterable[Constraint | CandidateSet | Formula | str] = (),
        *,
        invariants: Iterable[Formula | str] = (),
    ) -> None:
        self.invariants = tuple(parse(i) if isinstance(i, str) else i for i in invariants)
        self._constraints: list[Constraint] = []
        self._sets: list[CandidateSet] = []
        for c in name_items(constraints):
            self.accept(c)

    @property
    def constraints(self) -> tuple[Constraint, ...]:
        """The accepted constraints whose formula is settled, in order of acceptance."""
        return tuple(self._constraints)

    @property
    def candidate_sets(self) -> tuple[CandidateSet, ...]:
        """The accepted constraints whose formula is not picked yet, enforced as their
        candidate sets (:class:`~safetychip.monitor.CandidateMonitor`)."""
        return tuple(self._sets)

    def _next_name(self) -> str:
        taken = self._names()
        k = len(taken) + 1
        while f"c{k}" in taken:
            k += 1
        return f"c{k}"

    def _names(self) -> set[str]:
        return {c.name for c in self._constraints} | {s.name for s in self._sets}

    def check(self, item) -> Constraint:
        """The constraint *item* would be accepted as (named), or raise without accepting.

        Raises
        ------
        ConflictError
            If it is unsatisfiable alone or with the accepted constraints.
        VacuousConstraintError
            If it holds on every trace (it forbids nothing).
        SpecificationError
            If its name is taken.
        """
        constraint = _as_constraint(item)
        refuse_vacuous(constraint.formula, constraint.sentence)
        name = constraint.name or self._next_name()
        if name in self._names():
            raise SpecificationError(
                f"a constraint named {name!r} is already accepted; choose another name"
            )
        constraint = replace(constraint, name=name)
        if smallest_conflict([constraint], self.invariants):
            raise ConflictError(
                f"{constraint.formula} is unsatisfiable on its own: no finite trace satisfies it",
                (name,),
            )
        conflict = smallest_conflict([*self._constraints, constraint], self.invariants)
        if conflict:
            others = "; ".join(
                f"{c.name} ({c.sentence or c.formula})"
                for c in self._constraints
                if c.name in conflict
            )
            raise ConflictError(
                f"{constraint.formula} contradicts the constraints already accepted: no finite "
                f"trace satisfies it together with {others or 'the domain invariants'}",
                tuple(conflict),
            )
        return constraint

    def check_set(self, item: CandidateSet) -> CandidateSet | Constraint:
        """The candidate set *item* as it would be accepted: named, without the candidates
        that contradict the accepted constraints (a set of one is its constraint).

        Raises
        ------
        ConflictError
            If every candidate contradicts the accepted constraints.
        VacuousConstraintError
            If a candidate holds on every trace.
        SpecificationError
            If its name is taken.
        """
        name = item.name or self._next_name()
        if name in self._names():
            raise SpecificationError(
                f"a constraint named {name!r} is already accepted; choose another name"
            )
        keep = []
        for p in item.live:
            refuse_vacuous(item.candidates[p], item.sentence)
            trial = Constraint(item.candidates[p], item.sentence, name)
            if not smallest_conflict([*self._constraints, trial], self.invariants):
                keep.append(p)
        if not keep:
            raise ConflictError(
                f"no candidate of {item.sentence or name!r} can hold together with the "
                "constraints already accepted",
                (name,),
            )
        found = item.narrow(keep) if keep != list(item.live) else item
        found = replace(found, name=name)
        return found.picked or found

    def accept(self, item, *, name: str = "", sentence: str = "") -> Constraint | CandidateSet:
        """Check *item* (a Translation, Constraint, CandidateSet, Formula or formula text)
        and append it.

        Returns the accepted constraint, named ``c1``, ``c2``… unless it has a name; a
        candidate set (:meth:`check_set`) is accepted as it stands, and enforced as a set by
        :meth:`monitor`.
        """
        if isinstance(item, CandidateSet):
            if name or sentence:
                item = replace(item, name=name or item.name, sentence=sentence or item.sentence)
            found = self.check_set(item)
            if isinstance(found, CandidateSet):
                self._sets.append(found)
                return found
            item = found
        constraint = _as_constraint(item)
        if name or sentence:
            constraint = Constraint(
                constraint.formula,
                sentence or constraint.sentence,
                name or constraint.name,
                constraint.pattern,
            )
        constraint = self.check(constraint)
        self._constraints.append(constraint)
        return constraint

    def remove(self, name: str) -> Constraint | CandidateSet:
        """Remove and return the constraint called *name*."""
        for i, c in enumerate(self._constraints):
            if c.name == name:
                return self._constraints.pop(i)
        for i, s in enumerate(self._sets):
            if s.name == name:
                return self._sets.pop(i)
        raise KeyError(
            f"no constraint named {name!r}; the constraints are "
            f"{', '.join(sorted(self._names())) or 'none'}"
        )

    def monitor(self, **options) -> Monitor:
        """A :class:`~safetychip.monitor.Monitor` over the accepted constraints; with
        candidate sets, a :class:`~safetychip.monitor.CandidateMonitor`."""
        if self._sets:
            return CandidateMonitor([*self._constraints, *self._sets], self.invariants,
                                    **options)  # fmt: skip
        return Monitor(self._constraints, self.invariants, **options)

    def take_answers(self, monitor: CandidateMonitor) -> Specification:
        """Keep the candidate sets as *monitor*'s answers left them (a set narrowed to one
        candidate becomes its constraint, the pick), so that :meth:`write` saves them and no
        question is asked twice; returns self.

        Examples
        --------
        >>> s = CandidateSet.parse(["G !a", "F a -> F b"], "careful with a", name="c1")
        >>> spec = Specification([s])
        >>> m = spec.monitor()
        >>> _ = m.answer(m.question(m.reset({"a": True, "b": False}), "start", {}), True)
        >>> spec.take_answers(m).constraints
        (Constraint(name='c1', formula='Fa -> Fb', sentence='careful with a'),)
        """
        now = {s.name: s for s in monitor.candidate_sets}
        sets = []
        for s in self._sets:
            found = now.get(s.name, s)
            if found.picked is not None:
                self._constraints.append(found.picked)
            else:
                sets.append(found)
        self._sets = sets
        return self

    def to_json(self) -> str:
        """The text of the constraint file ``safetychip monitor`` reads: the JSON list of the
        constraints (candidate sets last), or with invariants the object ``{"constraints",
        "invariants"}``."""
        return constraints_json([*self._constraints, *self._sets], self.invariants)

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write :meth:`to_json` to *path* atomically (:func:`write_constraints`); return it.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> spec = Specification(["G !is_grabbed(phone)"], invariants=["G !(a & b)"])
        >>> Specification.read(spec.write(Path(tempfile.mkdtemp()) / "spec.json")).constraints
        (Constraint(name='c1', formula='G!"is_grabbed(phone)"', sentence=''),)
        """
        return write_constraints(path, [*self._constraints, *self._sets], self.invariants)

    @classmethod
    def read(cls, source, *, syntax: str = "spot") -> Specification:
        """Accept the constraints of a constraint file one by one, under its invariants.

        Parameters
        ----------
        source : str, path, text file or JSON data
            As for :func:`read_constraints`.
        syntax : {"spot", "prefix"}
            The syntax of its formulas.

        Raises
        ------
        SpecificationError
            If the file is malformed (naming the file and the entry).
        ConflictError
            If its constraints contradict each other (a smallest conflicting set).
        """
        constraints, invariants = read_constraints(source, syntax=syntax, candidate_sets=True)
        return cls(constraints, invariants=invariants)

    def __len__(self) -> int:
        return len(self._constraints) + len(self._sets)

    def __iter__(self) -> Iterator[Constraint]:
        """The settled constraints (see :attr:`candidate_sets` for the others)."""
        return iter(self._constraints)

    def __repr__(self) -> str:
        return f"<Specification: {len(self)} constraints>"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(c.name)}</td><td style='text-align:left'>"
            f"{html.escape(c.sentence)}</td><td style='text-align:left'><code>"
            f"{html.escape(str(c.formula))}</code></td></tr>"
            for c in self._constraints
        )
        return f"<table><tr><th>name</th><th>sentence</th><th>formula</th></tr>{rows}</table>"


def _as_constraint(item) -> Constraint:
    if isinstance(item, Constraint):
        return item
    constraint = getattr(item, "constraint", None)
    if isinstance(constraint, Constraint):
        if getattr(item, "settled", True) is False:  # a translation's set, not yet picked
            readings = "; ".join(
                f"{k}. {c.formula}" for k, c in enumerate(getattr(item, "candidates", ()))
            )
            raise PickNeededError(
                f"the translation of {getattr(item, 'sentence', '')!r} is not settled: pick one "
                f"of its candidates with .choose(i) before enforcing it, or accept it as a "
                f"CandidateSet to settle it at run time ({readings})"
            )
        return constraint
    if isinstance(item, Formula):
        return Constraint(item)
    if isinstance(item, str):
        return Constraint(parse(item))
    raise SpecificationError(
        f"cannot accept {item!r}: expected a Translation, Constraint, Formula or formula text"
    )
