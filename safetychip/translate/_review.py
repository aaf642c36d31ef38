"""Verification by a person: show what a translated constraint means, then accept, edit or
reject it.

For each constraint a :class:`ReviewCard` holds the formula, its automaton, a
back-translation into English, and two *witness traces* in the environment's words: the
shortest trace the formula accepts and the shortest it rejects ("walk to kitchen, then walk
to bathroom: violates"). :func:`review` is the plain function for scripts (it reads the
person's answers with ``input``); :class:`~safetychip.translate.ReviewWidget` is the same in
Jupyter. Only an explicit *accept* adds the constraint to a
:class:`~safetychip.monitor.Specification`; an edit is parsed and checked again (names,
arity, satisfiability) before it can be accepted.

Examples
--------
>>> from safetychip.ltl import parse
>>> accepted, rejected = witnesses(parse('!"agent_at(kitchen)" W "agent_at(bathroom)"'))
>>> print(accepted)
start with nothing true: satisfies
>>> print(rejected)
start at kitchen: violates
>>> print(witnesses(parse('G("agent_at(bathroom)" -> X[!]!"agent_at(bathroom)")'))[1])
start at bathroom: violates (it ends there)
>>> print(witnesses(parse('G("is_grabbed(book)" -> XG!"agent_at(tv)")'))[1])
start holding book, then walk to tv: violates
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise

from ..automata import DFA
from ..errors import SafetyChipError
from ..ltl import Formula, Proposition, parse
from ..monitor import Constraint, compile_dfa, refuse_vacuous, smallest_conflict
from ._backtranslate import READBACK, BackTranslation, back_translate
from ._match import match_pattern

__all__ = ["Distinction", "Review", "ReviewCard", "Witness", "distinguish", "prepare_review",
           "review", "witnesses"]  # fmt: skip


def _words(atom: str, which: int) -> str:
    prop = Proposition.parse(atom)
    forms = READBACK["predicate"].get(prop.predicate, ("-",) * 7)[4:]
    if forms[0] == "-" or not prop.args:
        return (("make " if which == 0 else "unmake ") if which < 2 else "with ") + atom
    return forms[which].format(*(a.replace("_", " ") for a in prop.args))


@dataclass(frozen=True)
class Witness:
    """A shortest trace, told as actions in the environment's words: its *trace* (the true
    atoms at each position), *steps* (how the start looks, then the action producing each
    state) and whether the formula *accepted* it."""

    trace: tuple[frozenset[str], ...]
    steps: tuple[str, ...]
    accepted: bool

    @property
    def text(self) -> str:
        """The trace as one line ending in ``satisfies`` or ``violates``."""
        verdict = "satisfies" if self.accepted else "violates"
        return ", then ".join(self.steps) + f": {verdict}"

    def __str__(self) -> str:
        return self.text


def _story(trace: list[frozenset[str]], accepted: bool) -> Witness:
    start = " and ".join(_words(a, 2) for a in sorted(trace[0])) if trace else ""
    steps = ["start " + (start or "with nothing true")] if trace else []
    for before, letter in pairwise(trace):
        moves = [_words(a, 1) for a in sorted(before - letter)]
        moves += [_words(a, 0) for a in sorted(letter - before)]
        steps.append(" and ".join(moves) if moves else "do something else")
    return Witness(tuple(trace), tuple(steps), accepted)


class _Ending(Witness):
    """A rejected witness that is only rejected because the trace stops there."""

    @property
    def text(self) -> str:
        return super().text + " (it ends there)"


def _sticky(dfa: DFA, trace: list[frozenset[str]] | None) -> list[frozenset[str]] | None:
    """The same run of *dfa*, with atoms kept true from one state to the next wherever that
    leads to the same automaton state: fewer, more natural changes to tell."""
    if trace is None:
        return None
    out: list[frozenset[str]] = []
    q = dfa.initial
    for k, letter in enumerate(trace):
        target = dfa.next_state(q, letter)
        if k:
            for atom in sorted(out[-1] - letter):
                if dfa.next_state(q, letter | {atom}) == target:
                    letter = letter | {atom}
        out.append(letter)
        q = target
    return out


def witnesses(formula: Formula | Constraint) -> tuple[Witness | None, Witness | None]:
    """The shortest accepted and the shortest rejected trace of *formula*, told in words.

    Either is None when none exists (the formula is unsatisfiable, or valid).
    """
    if isinstance(formula, Constraint):
        formula = formula.formula
    dfa = compile_dfa(formula)
    good = _sticky(dfa, dfa.shortest_accepted())
    bad = _sticky(dfa, dfa.shortest_rejected())
    accepted = _story(good, True) if good is not None else None
    rejected = None
    if bad is not None:
        rejected = _story(bad, False)
        # Rejected only because it stops: some continuation would be accepted.
        state = dfa.run(bad)
        if state in dfa.live_states():
            rejected = _Ending(rejected.trace, rejected.steps, False)
    return accepted, rejected


@dataclass(frozen=True)
class Distinction:
    """A shortest trace on which two readings of a sentence disagree, told as in
    :class:`Witness`: what a person decides between two candidates on. *first_allows*: the
    first reading accepts it (the second does not); *ending*: the one that rejects it only
    does so because the trace stops there."""

    trace: tuple[frozenset[str], ...]
    steps: tuple[str, ...]
    first_allows: bool
    ending: bool = False

    def text(self, first: str = "the first", second: str = "the second") -> str:
        """The trace and the two verdicts, naming the readings *first* and *second*."""
        yes, no = (first, second) if self.first_allows else (second, first)
        stop = " if the run ends there" if self.ending else ""
        return f"{', then '.join(self.steps)}: {yes} allows it, {no} forbids it{stop}"

    def __str__(self) -> str:
        return self.text()


def distinguish(
    first: Formula | Constraint, second: Formula | Constraint, *, rooms: tuple[str, ...] = ()
) -> Distinction | None:
    """The shortest trace on which *first* and *second* disagree (the robot in at most one
    of *rooms* at a time), or None if they are equivalent.

    >>> a = parse('!"agent_at(kitchen)" W "agent_at(bathroom)"')
    >>> b = parse('G("agent_at(bathroom)" -> G!"agent_at(kitchen)")')
    >>> print(distinguish(a, b, rooms=("kitchen", "bathroom")))
    start at kitchen: the second allows it, the first forbids it
    """
    from ..automata import counterexample
    from ..ltl import And, G, Not, ap

    f = first.formula if isinstance(first, Constraint) else first
    g = second.formula if isinstance(second, Constraint) else second
    named = sorted({f"agent_at({r})" for r in rooms} & (f.atoms() | g.atoms()))
    apart = [G(Not(And(ap(x), ap(y)))) for k, x in enumerate(named) for y in named[k + 1 :]]
    trace = counterexample(And(f, *apart) if apart else f, And(g, *apart) if apart else g)
    if trace is None:
        return None
    dfa_f, dfa_g = compile_dfa(f), compile_dfa(g)
    allows = dfa_f.accepting[dfa_f.run(trace)]
    rejecting = dfa_g if allows else dfa_f
    story = _story(trace, True)
    return Distinction(story.trace, story.steps, allows,
                       rejecting.run(trace) in rejecting.live_states())  # fmt: skip


@dataclass(frozen=True)
class ReviewCard:
    """What a person sees to verify one translated constraint: the *sentence* they wrote,
    the *constraint*, its minimal automaton *dfa*, its *back_translation*, and the shortest
    traces it accepts and rejects."""

    sentence: str
    constraint: Constraint
    dfa: DFA
    back_translation: BackTranslation
    accepted_example: Witness | None
    rejected_example: Witness | None

    @property
    def formula(self) -> Formula:
        """The formula under review."""
        return self.constraint.formula

    def text(self) -> str:
        """The card as plain text, for a terminal."""
        pattern = self.constraint.pattern or "none"
        dead = sorted(self.dfa.dead_states())
        lines = [
            f"sentence:         {self.sentence}",
            f"formula:          {self.formula}",
            f"pattern:          {pattern}",
            f"reads back as:    {self.back_translation}",
            f"automaton:        {self.dfa.num_states} states, initial {self.dfa.initial}, "
            f"accepting {[s for s, a in enumerate(self.dfa.accepting) if a]}, dead {dead}",
        ]
        for s in range(self.dfa.num_states):
            for t, g in self.dfa.guards(s):
                lines.append(f"                  {s} -> {t}: {g}")
        lines.append(f"shortest accepted: {self.accepted_example or 'none (unsatisfiable)'}")
        lines.append(f"shortest rejected: {self.rejected_example or 'none (always true)'}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"<ReviewCard {self.formula} ({self.constraint.pattern or 'no pattern'})>"

    def _repr_html_(self) -> str:
        esc = html.escape
        rows = [
            ("sentence", esc(self.sentence)),
            ("formula", f"<code>{esc(str(self.formula))}</code>"),
            ("pattern", esc(self.constraint.pattern or "none")),
            ("reads back as", esc(str(self.back_translation))),
            ("shortest accepted", esc(str(self.accepted_example or "none (unsatisfiable)"))),
            ("shortest rejected", esc(str(self.rejected_example or "none (always true)"))),
        ]
        body = "".join(
            f"<tr><th style='text-align:left'>{k}</th><td style='text-align:left'>{v}</td></tr>"
            for k, v in rows
        )
        # The automaton as an image that fits the cell and shows in an untrusted notebook.
        return f"<div><table>{body}</table>{self.dfa.show().html()}</div>"


def prepare_review(item, *, model=None) -> ReviewCard:
    """The card for *item* (a Translation, Constraint, Formula or formula text), read back
    by *model* if given, else by the pattern's template."""
    if isinstance(item, str):
        item = Constraint(parse(item))
    elif isinstance(item, Formula):
        item = Constraint(item)
    constraint = item if isinstance(item, Constraint) else item.constraint
    sentence = constraint.sentence or getattr(item, "sentence", "")
    if constraint.pattern is None and (found := match_pattern(constraint.formula)):
        constraint = Constraint(constraint.formula, constraint.sentence, constraint.name, found[0])
    said = back_translate(constraint.formula, model=model,
                          vocabulary=getattr(item, "vocabulary", None))  # fmt: skip
    return ReviewCard(sentence, constraint, compile_dfa(constraint.formula), said,
                      *witnesses(constraint.formula))  # fmt: skip


@dataclass
class Review:
    """The outcome of a review: *decision* (``"accepted"`` or ``"rejected"``), the accepted
    *constraint* (after any edits), the formula texts the person typed (*edits*) and every
    card shown (*cards*, one more after each valid edit)."""

    decision: str
    constraint: Constraint | None = None
    edits: list[str] = field(default_factory=list)
    cards: list[ReviewCard] = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        """True when the constraint was accepted."""
        return self.decision == "accepted"


def edit_constraint(
    card: ReviewCard, text: str, vocabulary=None, accepted=(), invariants=()
) -> Constraint:
    """The constraint after an edit: parsed, checked against the vocabulary, satisfiable (a
    FormulaSyntaxError, VocabularyError, ConflictError or VacuousConstraintError if not)."""
    formula = parse(text)
    if vocabulary is not None:
        vocabulary.check(formula)
    found = match_pattern(formula)
    refuse_vacuous(formula, card.sentence)
    edited = Constraint(formula, card.sentence, card.constraint.name, found[0] if found else None)
    from ..errors import ConflictError

    if smallest_conflict([edited], invariants):
        raise ConflictError(f"{formula} is unsatisfiable on its own", ("new",))
    conflict = smallest_conflict([*accepted, Constraint(formula, card.sentence, "new")], invariants)
    if conflict:
        raise ConflictError(
            f"{formula} contradicts {', '.join(c for c in conflict if c != 'new')}"
            " among the accepted constraints",
            tuple(conflict),
        )
    return edited


def review(
    item,
    *,
    specification=None,
    vocabulary=None,
    model=None,
    ask: Callable[[str], str] = input,
    show: Callable[[str], object] = print,
    max_rounds: int = 10,
) -> Review:
    """Show *item* (a Translation, Constraint, Formula or formula text) to a person and
    record their decision: ``a`` (accept), ``r`` (reject) or ``e`` (edit: a formula in Spot
    syntax, checked against *vocabulary* (default: the translation's) and shown again). An
    accepted constraint goes to *specification* if given
    (:meth:`~safetychip.monitor.Specification.accept` rechecks satisfiability; a conflict is
    shown and the person decides again). *ask* and *show* read an answer and display text;
    after *max_rounds* questions it is a rejection; *model* back-translates.

    >>> from safetychip.ltl import parse
    >>> answers = iter(["e", 'G !"is_grabbed(phone)"', "a"])
    >>> outcome = review(parse('F"is_grabbed(phone)"'), ask=lambda _: next(answers),
    ...                  show=lambda _: None)
    >>> outcome.decision, str(outcome.constraint.formula), outcome.edits
    ('accepted', 'G!"is_grabbed(phone)"', ['G !"is_grabbed(phone)"'])
    """
    vocabulary = vocabulary or getattr(item, "vocabulary", None)
    card = prepare_review(item, model=model)
    outcome = Review("rejected", cards=[card])
    show(card.text())
    for _ in range(max_rounds):
        answer = ask("accept, edit or reject? [a/e/r] ").strip().lower()
        if answer in ("r", "reject", "n", "no"):
            show("rejected: nothing was accepted")
            return outcome
        if answer in ("e", "edit"):
            text = ask("formula (Spot syntax): ").strip()
            outcome.edits.append(text)
            accepted = specification.constraints if specification is not None else ()
            inv = specification.invariants if specification is not None else ()
            try:
                edited = edit_constraint(card, text, vocabulary, accepted, inv)
            except SafetyChipError as err:
                show(f"edit refused: {err}")
                continue
            card = prepare_review(edited, model=model)
            outcome.cards.append(card)
            show(card.text())
            continue
        if answer in ("a", "accept", "y", "yes"):
            constraint = card.constraint
            if specification is not None:
                try:
                    constraint = specification.accept(constraint)
                except SafetyChipError as err:
                    show(f"cannot accept: {err}")
                    continue
            outcome.decision, outcome.constraint = "accepted", constraint
            show(f"accepted: {constraint.name or '(unnamed)'} {constraint.formula}")
            return outcome
        show(f"please answer a, e or r (got {answer!r})")
    show(f"no decision after {max_rounds} questions: nothing was accepted")
    return outcome
