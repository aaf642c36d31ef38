"""Human queries: a person asks about the agent's plan ("Will you go to the kitchen before the
bathroom?") and gets yes or no with the evidence.

The question is translated into a formula (:func:`question_formula`): the referring
expressions are recognised and grounded as for constraints, and a small question grammar
reads the rest. A question asks whether something *happens*, so its forms are existential:

==================================  ==========================================
question                            formula
==================================  ==========================================
will you C?                         ``F C``
will you C1 before C2?              ``!C2 U C1`` (C1 happens, and C2 not first)
will you C1 after C2?               ``F(C2 & X[!] F C1)``
will you C1 and then C2?            ``F(C1 & X[!] F C2)``
will you never C? / avoid [a]?      ``G !C``
will you C at most / exactly /      the counting patterns
at least / more than n times?
==================================  ==========================================

The plan is rolled out without executing it (:func:`plan_trace`): each action is proposed
through a :class:`~safetychip.shield.Shield` with no filter on a fresh copy of the
environment (previewed, then stepped there), never in the agent's own environment; or the
plan's recorded proposition states are used. The question's automaton
is progressed along the trace; the answer is settled at the first step after which every
continuation agrees (or at the end of the plan), and that step and its state change are
the evidence.

Examples
--------
>>> from safetychip.translate import Translator, Vocabulary
>>> t = Translator(Vocabulary.from_names(["kitchen", "bathroom", "bedroom"]))
>>> print(question_formula("Will you go to the kitchen before the bathroom?", t))
!"agent_at(bathroom)" U "agent_at(kitchen)"
>>> plan = ["walk to bathroom", "walk to kitchen"]
>>> states = [[{"agent_at(bathroom)"}], [{"agent_at(kitchen)"}]]
>>> a = answer_query("Will you go to the kitchen before the bathroom?", plan, t,
...                  states=states, initial={"agent_at(bedroom)"})
>>> print(a)
No. At step 1 (walk to bathroom): agent_at(bathroom) becomes true, which settles it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..envs import Env
from ..errors import QueryError, SafetyChipError
from ..ltl import XS, F, Formula, G, Not, U
from ..monitor import compile_dfa
from ..shield import Shield
from ._words import changes

__all__ = ["HumanAnswer", "PlanStep", "answer_query", "plan_trace", "question_formula"]

_ASK = re.compile(
    r"^(?:will|would|are|do|does|is|shall|can|could|did|won't|will not)\s+"
    r"(?:you|the robot|the agent|it|your plan|we)\s+"
    r"((?:going to|plan(?:ning)? to|intend(?:ing)? to|about to|be going to|ever|actually|"
    r"definitely|really|also|still|at any point)\s+)*"
)


def _question_body(text: str, question: str, translator) -> str:
    t = translator.normalize(text)
    m = _ASK.match(t)
    if m is None:
        raise QueryError(
            f"{question!r} is not a question about the plan; ask like 'Will you go to the kitchen "
            "before the bathroom?'"
        )
    return t[m.end() :].strip(" ?.!")


def _read(text: str, question: str, translator):
    c = translator.read_clause(text)
    if c is None:
        raise QueryError(
            f"cannot read {text!r} in the question {question!r}; ask about going "
            "somewhere, holding, opening, switching on, touching or putting things"
        )
    return c


def _literal(c, like=None) -> Formula:
    from ..ltl import ap

    if c.literal is not None:
        return c.literal
    predicate = "agent_at"
    if like is not None and like.literal is not None:
        atom = like.literal.children[0] if like.literal.op == "!" else like.literal
        if "," not in (atom.name or ""):
            predicate = (atom.name or "agent_at(").split("(")[0]
    return ap(f"{predicate}({c.letters[0]})")


def _lifted_question(body: str, question: str, translator) -> Formula:
    def read(text: str):
        return _read(text, question, translator)

    m = re.fullmatch(r"(.+?)\s+(?:before|ahead of|prior to)\s+(.+)", body)
    if m:
        c1, c2 = read(m.group(1)), read(m.group(2))
        return U(Not(_literal(c2, c1)), _literal(c1, c2))
    m = re.fullmatch(r"(.+?)\s+after\s+(.+)", body)
    if m:
        c1, c2 = read(m.group(1)), read(m.group(2))
        return F(_literal(c2, c1) & XS(F(_literal(c1, c2))))
    m = re.fullmatch(r"(?:first\s+)?(.+?)\s*,?\s+(?:and\s+)?then\s+(.+)", body)
    if m:
        c1, c2 = read(m.group(1)), read(m.group(2))
        return F(_literal(c1, c2) & XS(F(_literal(c2, c1))))
    m = re.fullmatch(r"(?:not|never)\s+(.+)", body)
    if m:
        c = read(m.group(1))
        return G(Not(_literal(c)))
    try:
        counted = translator.read_pattern(body)
    except SafetyChipError:
        counted = None
    if counted is not None and counted.pattern in ("never", "at_most", "at_least", "exactly"):
        return counted.formula
    c = read(body)
    return G(Not(_literal(c))) if c.avoid else F(_literal(c))


def question_formula(question: str, translator) -> Formula:
    """The grounded formula a yes/no question about the plan asks.

    Parameters
    ----------
    question : str
        The question.
    translator : Translator
        Supplies the steps of reading a sentence: :meth:`~safetychip.translate.Translator.lift`
        (recognise, ground, lift), ``normalize``, ``read_clause`` and ``read_pattern`` (the
        slot reader's), and :meth:`~safetychip.translate.Translator.ground`.

    Raises
    ------
    QueryError
        If the question is not in one of the forms above.
    SentenceError, GroundingError, VocabularyError
        As for constraints.
    """
    lifted = translator.lift(question)
    body = _question_body(lifted.text, question, translator)
    return translator.ground(_lifted_question(body, question, translator), lifted.placeholders)


@dataclass(frozen=True)
class PlanStep:
    """One action of a plan and the proposition states it would produce."""

    action: str
    states: tuple[dict[str, bool], ...]


def plan_trace(
    plan: Sequence[str],
    propositions: Iterable[str],
    *,
    env_factory: Callable[[], Env] | None = None,
    options: Mapping | None = None,
    states: Sequence | None = None,
    initial=None,
) -> tuple[dict[str, bool], list[PlanStep]]:
    """The proposition states a plan would produce, without executing it.

    Either *env_factory* (a fresh environment, reset with *options*; each action is proposed
    through a :class:`~safetychip.shield.Shield` with no filter, so previewed, then stepped
    in that copy only) or recorded *states* (one list of states per action, and the
    *initial* state) must be given.

    Raises
    ------
    QueryError
        If an action would be refused by the environment, or the recorded states do not
        match the plan.
    """
    props = list(dict.fromkeys(propositions))

    def full(state) -> dict[str, bool]:
        if isinstance(state, Mapping):
            missing = [p for p in props if p not in state]
            if missing:
                raise QueryError(f"a recorded state gives no value for {', '.join(missing)}")
            return {p: bool(state[p]) for p in props}
        return {p: p in state for p in props}

    steps: list[PlanStep] = []
    if states is not None:
        if len(states) != len([a for a in plan if a.strip().lower() != "done"]):
            raise QueryError(
                f"the plan has {len(plan)} actions but {len(states)} recorded lists of states"
            )
        start = full(initial if initial is not None else set())
        recorded = iter(states)
        for action in plan:
            if action.strip().lower() == "done":
                break
            group = next(recorded)
            if isinstance(group, (Mapping, set, frozenset)):
                group = [group]
            steps.append(PlanStep(action, tuple(full(s) for s in group)))
        return start, steps
    if env_factory is None:
        raise QueryError(
            "give env_factory (a fresh environment to roll the plan out in) or "
            "the plan's recorded states"
        )
    shield = Shield(env_factory(), (), propositions=props)
    shield.reset(options=dict(options or {}))
    start = full(shield.state)
    for k, action in enumerate(plan, 1):
        if action.strip().lower() == "done":
            break
        step = shield.propose(action)
        if not step.executed:
            raise QueryError(
                f"step {k} of the plan, {action!r}, would be refused by the "
                f"environment: {step.error}"
            )
        steps.append(PlanStep(action, tuple(full(s) for s in step.states)))
    return start, steps


@dataclass(frozen=True)
class HumanAnswer:
    """The answer to a human query, with its evidence.

    Attributes
    ----------
    question : str
        As asked.
    formula : Formula
        What the question was read as.
    answer : bool
        Yes or no.
    step : int
        The step that settles the answer (0: the state before the first action).
    action : str or None
        That step's action.
    state_change : str
        The literals that changed at that step (over the question's propositions).
    settled : bool
        True if settled before the plan ends (no continuation could change it); False if
        only the end of the plan decides it.
    text : str
        The answer in English.
    """

    question: str
    formula: Formula
    answer: bool
    step: int
    action: str | None
    state_change: str
    settled: bool
    text: str

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "question": self.question,
            "formula": str(self.formula),
            "answer": "yes" if self.answer else "no",
            "step": self.step,
            "action": self.action,
            "state_change": self.state_change,
            "settled": self.settled,
            "text": self.text,
        }

    def __str__(self) -> str:
        return self.text


def _settled_yes(dfa) -> frozenset[int]:
    """States from which every continuation ends accepted."""
    preds: list[list[int]] = [[] for _ in dfa.accepting]
    for s, out in enumerate(dfa.edges):
        for t, _ in out:
            preds[t].append(s)
    bad = [s for s, a in enumerate(dfa.accepting) if not a]
    reach = set(bad)
    while bad:
        for p in preds[bad.pop()]:
            if p not in reach:
                reach.add(p)
                bad.append(p)
    return frozenset(range(dfa.num_states)) - reach


def answer_query(
    question: str,
    plan: Sequence[str],
    translator,
    *,
    env_factory: Callable[[], Env] | None = None,
    options: Mapping | None = None,
    states: Sequence | None = None,
    initial=None,
) -> HumanAnswer:
    """Answer a yes/no question about *plan*.

    Parameters
    ----------
    question : str
        E.g. "Will you go to the kitchen before the bathroom?".
    plan : sequence of str
        The agent's plan, in the environment's action language.
    translator : Translator
        For reading the question (vocabulary, recogniser, grounder).
    env_factory, options, states, initial
        How to roll the plan out; see :func:`plan_trace`.

    Raises
    ------
    QueryError
        The question is not understood, or the plan cannot be rolled out.
    """
    formula = question_formula(question, translator)
    atoms = sorted(formula.atoms())
    start, steps = plan_trace(
        plan, atoms, env_factory=env_factory, options=options, states=states, initial=initial
    )
    dfa = compile_dfa(formula)
    dead, sure = dfa.dead_states(), _settled_yes(dfa)
    positions: list[tuple[int, str | None, dict[str, bool]]] = [(0, None, start)]
    for k, s in enumerate(steps, 1):
        positions.extend((k, s.action, st) for st in s.states)
    q = dfa.initial
    previous: dict[str, bool] | None = None
    decisive = None
    holding: list[str] = []
    for k, action, state in positions:
        q = dfa.next_state(q, {a for a in atoms if state.get(a)})
        lits = changes(previous, state)
        previous = state
        if q in dead or q in sure:
            decisive = (k, action, lits, q in sure, True)
            holding = [a for a in atoms if state.get(a)]
            break
    if decisive is None:
        k, action, _ = positions[-1]
        decisive = (k, action, [], dfa.accepting[q], False)
    k, action, lits, answer, settled = decisive
    word = "Yes" if answer else "No"
    change = " & ".join(lits)
    if not settled:
        text = (
            f"{word}: the plan has no actions, and the start decides it."
            if k == 0
            else f"{word}: only the end of the plan decides it, after step {k} ({action})."
        )
    elif k == 0:
        held = ", ".join(lits) or "nothing"
        text = f"{word}. At the start ({held} true), which settles it."
    else:
        said = ", ".join(
            f"{x[1:]} becomes false" if x.startswith("!") else f"{x} becomes true" for x in lits
        )
        if not said:
            said = (
                f"{' and '.join(holding)} still hold{'s' * (len(holding) == 1)}"
                if holding
                else "none of its propositions holds"
            )
        text = f"{word}. At step {k} ({action}): {said}, which settles it."
    return HumanAnswer(question, formula, bool(answer), k, action, change, settled, text)
