"""Assembly: the lifted formula with its placeholders grounded, checked, as a constraint.

:func:`ground_formula` puts the grounded names back in place of the placeholders;
:func:`assemble` then checks the result against the environment's vocabulary (predicate
names, arity, names) and checks that it is satisfiable on its own and together with the
constraints already accepted (:func:`~safetychip.monitor.smallest_conflict`). It returns a
:class:`~safetychip.monitor.Constraint` or raises; it never accepts anything itself.

Examples
--------
>>> from safetychip.ltl import parse
>>> v = Vocabulary.from_names(["phone", "kitchen"])
>>> c = assemble(parse('G!"is_grabbed(a)"'), {"a": "phone"}, v, sentence="never take it")
>>> c
Constraint(name='', formula='G!"is_grabbed(phone)"', sentence='never take it')
>>> assemble(parse('G!"agent_at(a)"'), {"a": "kitchen"}, v,
...          accepted=[parse('F"agent_at(kitchen)"')])
Traceback (most recent call last):
...
safetychip.errors.ConflictError: G!"agent_at(kitchen)" contradicts the constraints already
accepted: no finite trace satisfies it together with c1 (F"agent_at(kitchen)")
>>> assemble(parse('F"is_switchedon(a)"'), {"a": "kitchen"}, v)
Traceback (most recent call last):
...
safetychip.errors.VocabularyError: in 'is_switchedon(kitchen)': kitchen is a room, and of a
room only being there (agent_at) can be said
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping

from ..errors import ConflictError, VocabularyError
from ..ltl import Formula, Proposition, ap
from ..monitor import Constraint, as_constraints, refuse_vacuous, smallest_conflict
from ._reading import substitute
from ._vocabulary import Vocabulary

__all__ = ["assemble", "ground_formula", "rename_atoms"]


def rename_atoms(formula: Formula, rename) -> Formula:
    """*formula* with every atom name replaced by ``rename(name)``.

    >>> from safetychip.ltl import parse
    >>> rename_atoms(parse("a U b"), lambda name: name + "1")
    Formula('a1 U b1')
    """
    return substitute(formula, lambda atom: ap(rename(atom.name)))


def ground_formula(lifted: Formula, placeholders: Mapping[str, str]) -> Formula:
    """Replace placeholder arguments (``is_on(a,b)``) by their grounded names (a
    :class:`~safetychip.errors.VocabularyError` if an atom is not a predicate over
    placeholders, or a placeholder is unbound).

    >>> from safetychip.ltl import parse
    >>> ground_formula(parse('G("is_grabbed(a)" -> F"is_in(a,b)")'),
    ...                {"a": "book", "b": "mail_box"})
    Formula('G("is_grabbed(book)" -> F"is_in(book,mail_box)")')
    """

    def rename(name: str) -> str:
        try:
            prop = Proposition.parse(name)
        except Exception:
            raise VocabularyError(f"{name!r} is not a predicate such as 'agent_at(a)'") from None
        if not prop.args:
            raise VocabularyError(f"{name!r} is not a predicate over placeholders such as "
                                  "'agent_at(a)'")  # fmt: skip
        for arg in prop.args:
            if arg not in placeholders:
                bound = ", ".join(f"{k}={v}" for k, v in placeholders.items()) or "none"
                raise VocabularyError(f"in {name!r}: placeholder {arg!r} stands for nothing "
                                      f"in the sentence (bound: {bound})")  # fmt: skip
        return Proposition(prop.predicate, tuple(placeholders[x] for x in prop.args)).name

    return rename_atoms(lifted, rename)


def misused_room(formula: Formula, rooms: Container[str]) -> str | None:
    """The first atom of *formula* that says more of one of *rooms* than being there, or None.

    >>> from safetychip.ltl import parse
    >>> misused_room(parse('F"agent_at(a)" & G!"is_grabbed(a)"'), {"a"})
    'is_grabbed(a)'
    """
    return next((atom for atom in sorted(formula.atoms())
                 if (prop := Proposition.parse(atom)).predicate != "agent_at"
                 and prop.args and prop.args[0] in rooms), None)  # fmt: skip


def placed_at_thing(formula: Formula, things: Container[str], own: Mapping[str, Formula]
                    ) -> str | None:  # fmt: skip
    """The first atom of *formula* that puts the robot at one of *things* (not rooms) when
    that thing's own clause (*own*: the literal the sentence says of each placeholder) does
    not, or None: a template's "[c]" may be a room where the sentence's is a cup it only
    mentions ("then the kitchen for a cup of tea").

    >>> from safetychip.ltl import parse
    >>> f = parse('F("agent_at(a)" & F"agent_at(b)")')
    >>> placed_at_thing(f, {"b"}, {})
    'agent_at(b)'
    >>> placed_at_thing(f, {"b"}, {"b": parse('"agent_at(b)"')}) is None
    True
    """
    return next((atom for atom in sorted(formula.atoms())
                 if (prop := Proposition.parse(atom)).predicate == "agent_at"
                 and prop.args and prop.args[0] in things
                 and "agent_at" not in str(own.get(prop.args[0], ""))), None)  # fmt: skip


def opened_as_switched(
    formula: Formula, placeholders: Mapping[str, str], vocabulary: Vocabulary
) -> tuple[Formula, tuple[str, ...]]:
    """*formula* over placeholders with ``is_open`` of a thing that has a switch but cannot
    be opened read as ``is_switchedon`` ("open the TV", "close the radio": as speakers of
    many Englishes say), and the names so read; unchanged when there is none.

    >>> from safetychip.ltl import parse
    >>> v = Vocabulary("demo", ("fridge", "television"), properties={
    ...     "television": frozenset({"HAS_SWITCH"}), "fridge": frozenset({"CAN_OPEN"})})
    >>> opened_as_switched(parse('G!"is_open(a)"'), {"a": "television"}, v)
    (Formula('G!"is_switchedon(a)"'), ('television',))
    >>> opened_as_switched(parse('G!"is_open(a)"'), {"a": "fridge"}, v)[1]
    ()
    """
    switched: list[str] = []

    def rename(name: str) -> str:
        prop = Proposition.parse(name)
        thing = placeholders.get(prop.args[0], "") if prop.args else ""
        if (prop.predicate != "is_open" or vocabulary.able("is_open", thing)
                or not vocabulary.able("is_switchedon", thing)):  # fmt: skip
            return name
        if thing not in switched:
            switched.append(thing)
        return Proposition("is_switchedon", prop.args).name

    read = rename_atoms(formula, rename)
    return (read, tuple(switched)) if switched else (formula, ())


def assemble(lifted: Formula, placeholders: Mapping[str, str], vocabulary: Vocabulary, *,
             accepted: Iterable[Constraint | Formula | str] = (),
             invariants: Iterable[Formula | str] = (), sentence: str = "", name: str = "",
             pattern: str | None = None) -> Constraint:  # fmt: skip
    """Ground *lifted* (over placeholder atoms such as ``agent_at(a)``) by *placeholders*
    (letter -> name), check it, and return the constraint (not yet accepted anywhere), with
    *sentence*, *name* and *pattern*. It must be satisfiable together with the constraints
    already *accepted*, under the domain's *invariants*.

    Raises
    ------
    VocabularyError
        An unknown predicate or name, a wrong number of arguments, or a room said to be more
        than a place to be (``is_open(kitchen)``: a clause misread).
    ConflictError
        Unsatisfiable on its own, or together with *accepted*; ``conflict`` names a
        smallest conflicting set (``"new"`` is the constraint being assembled).
    VacuousConstraintError
        It holds on every trace, so it forbids nothing (the message names the sentence).
    """
    formula = vocabulary.native(ground_formula(lifted, placeholders))
    if (atom := misused_room(formula, vocabulary.rooms)) is not None:
        raise VocabularyError(f"in {atom!r}: {Proposition.parse(atom).args[0]} is a room, and "
                              "of a room only being there (agent_at) can be said")  # fmt: skip
    vocabulary.check(formula)
    refuse_vacuous(formula, sentence)
    constraint = Constraint(formula, sentence, name, pattern)
    if smallest_conflict([Constraint(formula, sentence, name or "new", pattern)], invariants):
        raise ConflictError(
            f"{formula} is unsatisfiable on its own: no finite trace satisfies it"
            + (" under the domain invariants" if invariants else ""), ("new",))  # fmt: skip
    before = as_constraints(accepted)
    if before:
        label = "new" if (name or "new") in {c.name for c in before} else name or "new"
        conflict = smallest_conflict([*before, Constraint(formula, sentence, label, pattern)],
                                     invariants)  # fmt: skip
        if conflict:
            others = "; ".join(f"{c.name} ({c.sentence or c.formula})" for c in before
                               if c.name in conflict)  # fmt: skip
            raise ConflictError(f"{formula} contradicts the constraints already accepted: no "
                                f"finite trace satisfies it together with {others}",
                                tuple(conflict))  # fmt: skip
    return constraint
