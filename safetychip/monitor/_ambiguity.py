"""Ambiguity settled at run time: a constraint whose formula is not picked yet is enforced as
its candidate set, and a person is asked only when the candidates disagree on the action at
hand.

A :class:`CandidateSet` is a sentence with its candidate formulas (a translation's set), the
English of each reading, and the questions answered so far. A :class:`CandidateMonitor`
runs every candidate's automaton side by side in one product and judges each proposed action
under every *reading* (one candidate per set, with the settled constraints): every reading
admits it, SAFE; none does, VIOLATION (attributed as usual); they disagree, AMBIGUOUS. An
ambiguous verdict is not safe, so whoever cannot ask refuses it. Whoever can (the shield's
:class:`~safetychip.shield.MonitorFilter`) turns it into a :class:`Question` with
:meth:`CandidateMonitor.question` and narrows the set by the answer with
:meth:`CandidateMonitor.answer`.

Examples
--------
>>> keep_out = CandidateSet.parse(
...     ['G !"agent_at(kitchen)"', '!"agent_at(kitchen)" W "agent_at(bathroom)"'],
...     "keep out of the kitchen", name="c1",
...     readings=["never enter the kitchen", "stay out of the kitchen until the bathroom"])
>>> m = CandidateMonitor([keep_out])
>>> m  # doctest: +NORMALIZE_WHITESPACE
<CandidateMonitor: 0 settled constraints, candidate sets c1 (2 of 2 candidates left);
 2 readings; 0 states committed>
>>> _ = m.reset({"agent_at(kitchen)": False, "agent_at(bathroom)": True})
>>> v = m.check({"agent_at(kitchen)": True, "agent_at(bathroom)": False})
>>> v.status.value
'ambiguous'
>>> q = m.question(v, "walk to kitchen", {"agent_at(bathroom)": True})
>>> print(q)
You said "keep out of the kitchen". The robot is about to walk to kitchen, while it is at
the bathroom. Is that allowed?
Yes: the robot goes ahead, and "keep out of the kitchen" means: stay out of the kitchen
until the bathroom.
No: the action is refused, and "keep out of the kitchen" means: never enter the kitchen.
>>> m.answer(q, False).picked
Constraint(name='c1', formula='G!"agent_at(kitchen)"', sentence='keep out of the kitchen')
>>> m.check({"agent_at(kitchen)": True, "agent_at(bathroom)": False}).status.value
'violation'
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations, product
from typing import Any

from ..automata import DeadlineExceeded, SearchBudgetExceeded
from ..errors import MonitorError, PropositionError, SpecificationError
from ..ltl import Formula, parse
from ._constraint import Constraint, as_constraints
from ._monitor import Monitor
from ._verdict import Status, Verdict

__all__ = ["MAX_READINGS", "CandidateMonitor", "CandidateSet", "Question", "situation"]

#: The most readings (combinations of one candidate per unsettled constraint) a
#: :class:`CandidateMonitor` judges each action under.
MAX_READINGS = 256


@dataclass(frozen=True)
class Question:
    """What the shield asks a person when the readings of a sentence disagree.

    Attributes
    ----------
    constraint : str
        The name of the constraint asked about.
    sentence : str
        The English sentence it was stated as.
    action : str
        The proposed action (:data:`~safetychip.shield.DONE` to stop).
    situation : str
        The situation in the scene's words (:func:`situation`).
    allowing, forbidding : tuple of int
        The candidates (their places in the original set) that admit the action, and those
        that forbid it.
    readings : tuple of str
        The English of every candidate of the original set, by place.

    Examples
    --------
    >>> q = Question("c1", "no knife in the kitchen", "walk to kitchen",
    ...              "The robot is about to walk to kitchen, while it is holding the knife",
    ...              (1,), (0,), ("never bring it in", "only with a person there"))
    >>> print(q.if_yes)
    Yes: the robot goes ahead, and "no knife in the kitchen" means: only with a person there.
    >>> print(q.if_no)
    No: the action is refused, and "no knife in the kitchen" means: never bring it in.
    """

    constraint: str
    sentence: str
    action: str
    situation: str
    allowing: tuple[int, ...]
    forbidding: tuple[int, ...]
    readings: tuple[str, ...]

    @property
    def text(self) -> str:
        """The question itself."""
        return f'You said "{self.sentence}". {self.situation}. Is that allowed?'

    @property
    def if_yes(self) -> str:
        """What a yes means."""
        return (f'Yes: the robot goes ahead, and "{self.sentence}" means: '
                f"{self._said(self.allowing)}.")  # fmt: skip

    @property
    def if_no(self) -> str:
        """What a no means."""
        return (f'No: the action is refused, and "{self.sentence}" means: '
                f"{self._said(self.forbidding)}.")  # fmt: skip

    def _said(self, places: tuple[int, ...]) -> str:
        return " or ".join(self.readings[i].rstrip(".") for i in places)

    @property
    def key(self) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
        """What makes two questions the same: the constraint and how its candidates split."""
        return self.constraint, self.allowing, self.forbidding

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"constraint": self.constraint, "sentence": self.sentence, "action": self.action,
                "situation": self.situation, "allowing": list(self.allowing),
                "forbidding": list(self.forbidding), "readings": list(self.readings)}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Question:
        """Inverse of :meth:`to_dict`."""
        try:
            return cls(str(data["constraint"]), str(data["sentence"]), str(data["action"]),
                       str(data["situation"]), tuple(int(i) for i in data["allowing"]),
                       tuple(int(i) for i in data["forbidding"]),
                       tuple(str(r) for r in data["readings"]))  # fmt: skip
        except (KeyError, TypeError, ValueError) as err:
            raise SpecificationError(f"not a question record: {data!r:.200} ({err})") from None

    def __str__(self) -> str:
        """The question, then what each answer means, wrapped for a terminal."""
        return "\n".join(_wrap(t) for t in (self.text, self.if_yes, self.if_no))

    def _repr_html_(self) -> str:
        import html

        rows = "".join(f"<li>{html.escape(r)}</li>" for r in (self.if_yes, self.if_no))
        return f"<div><b>{html.escape(self.text)}</b><ul>{rows}</ul></div>"


def _wrap(text: str) -> str:
    return textwrap.fill(text, 92, break_long_words=False, break_on_hyphens=False)


@dataclass(frozen=True)
class CandidateSet:
    """A constraint whose formula is not picked yet: its sentence and candidate formulas.

    Attributes
    ----------
    candidates : tuple of Formula
        The candidate formulas, most probable first (at least one).
    sentence : str
        The English sentence.
    name : str
        A short unique name (``c1``… by default, as for :class:`Constraint`).
    readings : tuple of str
        The English of each candidate (default: its formula text).
    live : tuple of int
        The places of the candidates still in the set (all at first); answers narrow it.
    answers : tuple of (Question, bool)
        The questions answered so far, with their answers: saved with the constraint file,
        so a question is never asked twice.

    Raises
    ------
    SpecificationError
        If there is no candidate, or the readings or live places do not fit the candidates.

    Examples
    --------
    >>> s = CandidateSet.parse(["G !a", "F a -> F b"], "careful with a", name="c1")
    >>> s.picked is None, s.narrow([1]).picked
    (True, Constraint(name='c1', formula='Fa -> Fb', sentence='careful with a'))
    """

    candidates: tuple[Formula, ...]
    sentence: str = ""
    name: str = ""
    readings: tuple[str, ...] = ()
    live: tuple[int, ...] = ()
    answers: tuple[tuple[Question, bool], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        n = len(self.candidates)
        label = f"the candidate set of {self.sentence or self.name or 'a constraint'!r}"
        if not n:
            raise SpecificationError(f"{label} is empty: there is nothing to enforce; restate "
                                     "the sentence or write its formula")  # fmt: skip
        if not self.readings:
            object.__setattr__(self, "readings", tuple(str(f) for f in self.candidates))
        elif len(self.readings) != n:
            raise SpecificationError(f"{label} has {n} candidates but {len(self.readings)} "
                                     "readings: give one English reading per candidate"
                                     )  # fmt: skip
        if not self.live:
            object.__setattr__(self, "live", tuple(range(n)))
        elif (
            sorted(set(self.live)) != list(self.live) or not 0 <= self.live[0] <= self.live[-1] < n
        ):
            raise SpecificationError(f"{label}: live places {list(self.live)} must be distinct, "
                                     f"increasing and within 0 to {n - 1}")  # fmt: skip

    @classmethod
    def parse(cls, texts: Iterable[str], sentence: str = "", *, name: str = "",
              readings: Iterable[str] = ()) -> CandidateSet:  # fmt: skip
        """A candidate set from formula texts in Spot syntax."""
        return cls(tuple(parse(t) for t in texts), sentence, name, tuple(readings))

    @property
    def picked(self) -> Constraint | None:
        """The one candidate left, as a constraint; None while several are."""
        if len(self.live) != 1:
            return None
        return Constraint(self.candidates[self.live[0]], self.sentence, self.name)

    def atoms(self) -> set[str]:
        """The propositions the live candidates mention."""
        return set().union(*(self.candidates[i].atoms() for i in self.live))

    def narrow(self, keep: Iterable[int], answer: tuple[Question, bool] | None = None
               ) -> CandidateSet:  # fmt: skip
        """The set with only the candidates at places *keep* (and *answer* recorded).

        Raises
        ------
        SpecificationError
            If *keep* leaves no candidate, or names one no longer in the set.
        """
        kept = tuple(sorted(set(keep)))
        lost = [i for i in kept if i not in self.live]
        if lost or not kept:
            raise SpecificationError(f"cannot narrow {self.name or self.sentence!r} to places "
                                     f"{list(kept)}: the set holds {list(self.live)}")  # fmt: skip
        answers = self.answers + ((answer,) if answer is not None else ())
        return replace(self, live=kept, answers=answers)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the formulas in Spot syntax)."""
        out: dict[str, Any] = {
            "name": self.name,
            "sentence": self.sentence,
            "candidates": [{"formula": str(f), "reading": r}
                           for f, r in zip(self.candidates, self.readings)],
            "live": list(self.live),
        }  # fmt: skip
        if self.answers:
            out["answers"] = [{"question": q.to_dict(), "answer": a} for q, a in self.answers]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CandidateSet:
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        SpecificationError
            If a field is missing or of the wrong kind (naming it).
        """
        items = data.get("candidates")
        if not isinstance(items, list):
            raise SpecificationError(
                f"a candidate set needs a 'candidates' list, got {items!r:.80}"
            )
        formulas, readings = [], []
        for k, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("formula"), str):
                raise SpecificationError(f"candidate {k} must be an object with a 'formula' "
                                         f"string, got {item!r:.80}")  # fmt: skip
            formulas.append(parse(item["formula"]))
            readings.append(str(item.get("reading") or item["formula"]))
        answers = []
        for record in data.get("answers", ()):
            if not isinstance(record, dict) or not isinstance(record.get("answer"), bool):
                raise SpecificationError(f"an answer record needs 'question' and a true/false "
                                         f"'answer', got {record!r:.80}")  # fmt: skip
            answers.append((Question.from_dict(record.get("question") or {}), record["answer"]))
        live = data.get("live", [])
        if not isinstance(live, list) or not all(isinstance(i, int) for i in live):
            raise SpecificationError(f"'live' must be a list of candidate places, got {live!r:.80}")
        return cls(tuple(formulas), str(data.get("sentence", "")), str(data.get("name", "")),
                   tuple(readings), tuple(live), tuple(answers))  # fmt: skip

    def __repr__(self) -> str:
        shown = ", ".join(repr(str(self.candidates[i])) for i in self.live)
        return f"CandidateSet(name={self.name!r}, live=[{shown}], sentence={self.sentence!r})"


_PHRASES = {
    "agent_at": "it is at the {}",
    "is_grabbed": "it is holding the {}",
    "is_open": "the {} is open",
    "is_switchedon": "the {} is switched on",
    "is_touched": "it is touching the {}",
    "is_on": "the {} is on the {}",
    "is_in": "the {} is in the {}",
}
_ATOM = re.compile(r"^(\w+)\(([^()]*)\)$")


def situation(action: str, state: Mapping[str, bool], atoms: Iterable[str] = ()) -> str:
    """The situation of a question in the scene's words: the proposed action and what holds
    now among *atoms* (all of *state* when empty).

    Examples
    --------
    >>> situation("walk to kitchen", {"is_grabbed(knife)": True, "agent_at(bedroom)": False})
    'The robot is about to walk to kitchen, while it is holding the knife'
    >>> situation("done", {})
    'The robot is about to stop here'
    """
    wanted = set(atoms)
    true = sorted(a for a, v in state.items() if v and (not wanted or a in wanted))
    doing = "stop here" if action == "done" else action
    text = f"The robot is about to {doing}"
    if true:
        text += ", while " + ", and ".join(_phrase(a) for a in true)
    return text


def _phrase(atom: str) -> str:
    found = _ATOM.match(atom.replace(" ", ""))
    if found is None or found.group(1) not in _PHRASES:
        return f"{atom} holds"
    args = [a.replace("_", " ") for a in found.group(2).split(",")]
    form = _PHRASES[found.group(1)]
    return form.format(*args) if form.count("{}") == len(args) else f"{atom} holds"


class CandidateMonitor(Monitor):
    """A monitor of settled constraints and candidate sets, judging every action under every
    reading of the sets.

    Parameters
    ----------
    constraints : iterable of Constraint, CandidateSet, Formula or str
        The specification; a candidate set with one live candidate is that constraint.
    invariants : iterable of Formula or str, optional
        As for :class:`Monitor`.
    propositions : iterable of str, optional
        The propositions the scene has; a candidate over others is an error naming them.
    **options
        ``budget``, ``deadline``, ``build_seconds`` as for :class:`Monitor`.

    Raises
    ------
    PropositionError
        If a candidate mentions a proposition outside *propositions*.
    SpecificationError
        If a candidate set is empty, two constraints share a name, or the readings exceed
        :data:`MAX_READINGS`.

    Notes
    -----
    Every candidate gets its own automaton in the monitor's product (progressed once per
    state); a reading is decided on the sub-product of its members, cached per state. A
    candidate that no trace can satisfy together with the settled constraints cannot be
    what the sentence means: it is dropped when the monitor is built. DONE is judged the
    same way: every reading accepts, SAFE; none, VIOLATION; else AMBIGUOUS.
    """

    def __init__(
        self,
        constraints: Iterable[Constraint | CandidateSet | Formula | str],
        invariants: Iterable[Formula | str] = (),
        *,
        propositions: Iterable[str] | None = None,
        **options: Any,
    ) -> None:
        if isinstance(constraints, (str, Formula, Constraint, CandidateSet)):
            raise SpecificationError(
                f"constraints must be a list, got one "
                f"{type(constraints).__name__}: write [{constraints!r:.60}]"
            )
        items = list(constraints)
        expanded: list[Constraint | Formula | str] = []
        sets: dict[str, tuple[CandidateSet, tuple[int, ...]]] = {}
        for i, item in enumerate(items, 1):
            if not isinstance(item, CandidateSet):
                c = as_constraints([item])[0]
                expanded.append(c if getattr(item, "name", "") else replace(c, name=f"c{i}"))
                continue
            if not item.name:
                item = replace(item, name=f"c{i}")
            if item.name in sets:
                raise SpecificationError(f"constraint names must be unique; repeated: {item.name}")
            first = len(expanded)
            expanded += [Constraint(f, item.sentence, f"{item.name}[{k}]")
                         for k, f in enumerate(item.candidates)]  # fmt: skip
            sets[item.name] = item, tuple(range(first, len(expanded)))
        if propositions is not None:
            known = set(propositions)
            for s, _ in sets.values():
                unknown = sorted(set().union(*(f.atoms() for f in s.candidates)) - known)
                if unknown:
                    raise PropositionError(f"the candidates of {s.name} ({s.sentence!r}) "
                                           f"mention propositions the scene lacks: "
                                           f"{', '.join(unknown)}")  # fmt: skip
        self._sets = sets
        self._settled: tuple[int, ...] = ()
        self._readings: tuple[tuple[int, ...], ...] = ((),)
        self._places: dict[int, tuple[str, int]] = {
            k: (name, place) for name, (_, ks) in sets.items() for place, k in enumerate(ks)
        }
        self._plan(len(expanded))
        #: Questions no one answered (no one to ask, no answer, or an answer too late).
        self.open_questions: list[Question] = []
        super().__init__(expanded, invariants, **options)
        self._drop_impossible()

    # -- readings ---------------------------------------------------------------------------
    def _plan(self, n: int) -> None:
        """The readings: the settled constraints with one live candidate of every set."""
        owned = {k for _, ks in self._sets.values() for k in ks}
        self._settled = tuple(i for i in range(n) if i not in owned)
        choices = [[ks[p] for p in s.live] for s, ks in self._sets.values()]
        count = math.prod(len(c) for c in choices)
        if count > MAX_READINGS:
            raise SpecificationError(f"{count} readings to judge each action under (at most "
                                     f"{MAX_READINGS}): pick the formulas of some of "
                                     f"{', '.join(self._sets)} first")  # fmt: skip
        self._readings = tuple(tuple(sorted(self._settled + combo)) for combo in product(*choices))

    def _drop_impossible(self) -> None:
        """Drop the candidates no reading can satisfy from the start (when some can)."""
        start = self.product.initial
        live = [self._live(members, start, None) for members in self._readings]
        if all(live) or not any(live):
            return
        for name, (s, ks) in list(self._sets.items()):
            keep = [p for p in s.live
                    if any(ok and ks[p] in m for ok, m in zip(live, self._readings))]  # fmt: skip
            if keep != list(s.live):
                self._sets[name] = s.narrow(keep), ks
        self._replan()
        self.reset()

    def _replan(self) -> None:
        self._plan(len(self.constraints))
        self._decisions.clear()
        self._moves.clear()
        self._pending.clear()
        self._checked = None

    @property
    def candidate_sets(self) -> tuple[CandidateSet, ...]:
        """The candidate sets as they stand (narrowed by the answers so far)."""
        return tuple(s for s, _ in self._sets.values())

    @property
    def readings(self) -> tuple[tuple[str, ...], ...]:
        """Each reading's constraint names (a set's candidate at place *k* is ``name[k]``)."""
        return tuple(tuple(self.constraints[i].name for i in m) for m in self._readings)

    def specification(self) -> list[Constraint | CandidateSet]:
        """The constraints as given, with every set as it stands (a set with one candidate
        left is its pick): what :func:`write_constraints` saves."""
        out: list[Constraint | CandidateSet] = []
        done: set[str] = set()
        for i, c in enumerate(self.constraints):
            if i in self._settled:
                out.append(c)
                continue
            name, _ = self._places[i]
            if name not in done:
                done.add(name)
                out.append(self._sets[name][0])
        return out

    # -- judging ----------------------------------------------------------------------------
    def _live(self, members: tuple[int, ...], q: tuple[int, ...], until: float | None) -> bool:
        parts, m = self._parts, len(self.automata)
        state = tuple(q[k] for i in members for k in parts[i]) + q[m:]
        return self._product(members).is_live(state, deadline=until)

    def _judge(
        self, q: tuple[int, ...], hint: tuple[int, ...] | None, until: float | None = None
    ) -> tuple[Any, ...]:
        """The decision at *q* under every reading: ``(status, reason, violated, readings)``."""
        try:
            admits = tuple(self._live(members, q, until) for members in self._readings)
        except DeadlineExceeded:
            raise
        except SearchBudgetExceeded as err:
            return Status.VIOLATION, f"cannot decide, so the action is refused: {err}", ()
        if all(admits):
            return Status.SAFE, "every reading of every constraint can still be satisfied", ()
        if any(admits):
            names = self._disputed(admits)
            described = "; ".join(f"{n} ({self._sets[n][0].sentence})" for n in names)
            return (Status.AMBIGUOUS, f"the readings of {described} disagree about it, so it "
                    "is refused until someone says which is meant", names, admits)  # fmt: skip
        culprits = self._attribute_in(self._readings[0], q, until)
        named = tuple(dict.fromkeys(self._owner_name(i) for i in culprits))
        described = "; ".join(self._told(i) for i in culprits)
        reason = f"it would break {described}" if culprits else "it would break a domain invariant"
        return Status.VIOLATION, reason, named, admits

    def _owner_name(self, i: int) -> str:
        return self._places[i][0] if i in self._places else self.constraints[i].name

    def _told(self, i: int) -> str:
        """Constraint *i* in a reason: a candidate as its set, under every reading."""
        if i not in self._places:
            return self.constraints[i].describe()
        s = self._sets[self._places[i][0]][0]
        every = " under every reading" if len(s.live) > 1 else ""
        return f"{s.name} ({s.sentence or self.constraints[i].formula}){every}"

    def _disputed(self, admits: tuple[bool, ...]) -> tuple[str, ...]:
        """The sets whose live candidates the readings' verdicts tell apart."""
        out = []
        for name, (s, ks) in self._sets.items():
            if len(s.live) < 2:
                continue
            says = {p: {ok for ok, m in zip(admits, self._readings) if ks[p] in m} for p in s.live}
            if len({frozenset(v) for v in says.values()}) > 1:
                out.append(name)
        return tuple(out) or tuple(n for n, (s, _) in self._sets.items() if len(s.live) > 1)

    def _attribute_in(self, members: tuple[int, ...], q: tuple[int, ...],
                      until: float | None) -> tuple[int, ...]:  # fmt: skip
        """The members unsatisfiable on their own at *q*, else a small unsatisfiable subset
        (exhaustive up to three among twelve, else all of them)."""
        alone = tuple(i for i in members if not self._live((i,), q, until))
        if alone or len(members) > 12:
            return alone or members
        for size in (2, 3):
            for combo in combinations(members, size):
                if not self._live(combo, q, until):
                    return combo
        return members

    def finish(self) -> Verdict:
        """DONE under every reading: SAFE if each accepts the trace, a VIOLATION listing the
        pending obligations if none does, else AMBIGUOUS (asked like an action)."""
        if self._aborted or self._broken is not None or not self.history:
            return super().finish()
        accepting = [d.accepting[q] for d, q in zip(self.automata, self._state)]
        extra = all(d.accepting[q] for d, q in zip(self._extra, self._state[len(self.automata) :]))
        admits = tuple(extra and all(accepting[k] for i in m for k in self._parts[i])
                       for m in self._readings)  # fmt: skip
        if all(admits):
            self._finished = True
            return Verdict(Status.SAFE, "every reading of every constraint is satisfied",
                           readings=admits)  # fmt: skip
        if not any(admits):
            first = self._readings[0]
            owed = [i for i in first if not all(accepting[k] for k in self._parts[i])]
            pending = tuple(dict.fromkeys(self._owner_name(i) for i in owed))
            text = "; ".join(f"{self._told(i)} still needs: "
                             + "; and ".join(self._owed(k) for k in self._parts[i]
                                             if not accepting[k]) for i in owed)  # fmt: skip
            return Verdict(Status.VIOLATION, "DONE refused: " + (text or "an invariant is owed"),
                           pending, pending=pending, readings=admits)  # fmt: skip
        names = self._disputed(admits)
        return Verdict(Status.AMBIGUOUS, f"the readings of {', '.join(names)} disagree about "
                       "whether the trace may end here, so DONE is refused until someone says "
                       "which is meant", names, pending=names, readings=admits)  # fmt: skip

    @property
    def accepts_done(self) -> bool:
        """Whether :meth:`finish` would be SAFE now under every reading."""
        if self._broken is not None or not self.history:
            return False
        accepting = [d.accepting[q] for d, q in zip(self.automata, self._state)]
        extra = all(d.accepting[q] for d, q in zip(self._extra, self._state[len(self.automata) :]))
        return extra and all(accepting[k] for m in self._readings for i in m
                             for k in self._parts[i])  # fmt: skip

    # -- asking -----------------------------------------------------------------------------
    def question(self, verdict: Verdict, action: str, state: Mapping[str, bool]
                 ) -> Question | None:  # fmt: skip
        """The question that would settle the AMBIGUOUS *verdict* of *action* proposed in
        *state*, or None when no one set's candidates split cleanly into those that admit it
        and those that forbid it (the action is then refused, as ambiguous)."""
        admits = verdict.readings
        if verdict.status is not Status.AMBIGUOUS or len(admits) != len(self._readings):
            return None
        for name, (s, ks) in self._sets.items():
            allowing, forbidding = [], []
            for p in s.live:
                says = {ok for ok, m in zip(admits, self._readings) if ks[p] in m}
                if says == {True}:
                    allowing.append(p)
                elif says == {False}:
                    forbidding.append(p)
            if allowing and forbidding and len(allowing) + len(forbidding) == len(s.live):
                where = {a for a in state if a.startswith("agent_at(")}  # where the robot is
                return Question(name, s.sentence, action,
                                situation(action, state, s.atoms() | where),
                                tuple(allowing), tuple(forbidding), s.readings)  # fmt: skip
        return None

    def answer(self, question: Question, allowed: bool) -> CandidateSet:
        """Narrow the set *question* is about by the answer *allowed* (yes: the candidates
        that forbid the action go; no: those that admit it go); returns the narrowed set.

        Raises
        ------
        MonitorError
            If the set no longer splits as *question* says (it was answered already).
        """
        found = self._sets.get(question.constraint)
        if found is None:
            raise MonitorError(f"no candidate set named {question.constraint!r}; the sets are "
                               f"{', '.join(self._sets) or 'none'}")  # fmt: skip
        s, ks = found
        if not self._fits(question):
            raise MonitorError(
                f"the question about {question.constraint} no longer fits its "
                f"set (live candidates {list(s.live)}): it was answered already"
            )
        keep = question.allowing if allowed else question.forbidding
        s = s.narrow(keep, (question, bool(allowed)))
        self._sets[question.constraint] = s, ks
        self.open_questions[:] = [q for q in self.open_questions if self._fits(q)]
        self._replan()
        return s

    def _fits(self, question: Question) -> bool:
        """Whether *question* still splits its set (no answer has settled it)."""
        found = self._sets.get(question.constraint)
        live = set(found[0].live) if found is not None else set()
        return set(question.allowing) | set(question.forbidding) == live

    def __repr__(self) -> str:
        sets = ", ".join(f"{s.name} ({len(s.live)} of {len(s.candidates)} candidates left)"
                         for s in self.candidate_sets)  # fmt: skip
        k = len(self.history)
        return (f"<CandidateMonitor: {len(self._settled)} settled constraints, candidate sets "
                f"{sets or 'none'}; {len(self._readings)} readings; {k} state{'s' * (k != 1)} "
                f"committed>")  # fmt: skip

    def decided(self) -> Verdict:
        """The verdict of the committed state under the readings as they stand now."""
        return self._decide(self._state, [], None, self._until())
