"""The formula AST: interning, constructors, Python operators, atoms, depth and errors."""

from __future__ import annotations

import pickle

import pytest

from safetychip.errors import (
    FormulaError,
    FormulaTooDeepError,
    PropositionError,
    SafetyChipError,
)
from safetychip.ltl import (
    FALSE,
    MAX_DEPTH,
    TRUE,
    XS,
    And,
    Equiv,
    F,
    Formula,
    G,
    Implies,
    M,
    Not,
    Or,
    Proposition,
    R,
    U,
    W,
    X,
    ap,
    canonical_atom,
    parse,
    to_str,
)


def test_structurally_equal_formulas_are_the_same_object():
    f = G(Implies(ap("a"), F(ap("b"))))
    assert f is G(Implies("a", F("b")))
    assert f is parse("G(a -> F b)")
    assert f == parse("G (a->Fb)")
    assert hash(f) == hash(parse("G(a -> Fb)"))
    assert f != G(Implies("b", F("a")))
    assert len({f, parse("G(a -> Fb)"), G(Implies("a", F("b")))}) == 1


def test_formulas_are_immutable():
    f = ap("a")
    with pytest.raises(AttributeError, match="immutable"):
        f.op = "!"
    with pytest.raises(AttributeError, match="immutable"):
        f.name = "b"
    assert f.op == "ap" and f.name == "a"


def test_pickle_keeps_identity():
    f = parse('G("is_on(book,shelf)" -> X[!] !b) & (a U c)')
    assert pickle.loads(pickle.dumps(f)) is f


@pytest.mark.parametrize(
    ("build", "op", "arity"),
    [
        (lambda: Not("a"), "!", 1),
        (lambda: X("a"), "X", 1),
        (lambda: XS("a"), "X[!]", 1),
        (lambda: F("a"), "F", 1),
        (lambda: G("a"), "G", 1),
        (lambda: Implies("a", "b"), "->", 2),
        (lambda: Equiv("a", "b"), "<->", 2),
        (lambda: U("a", "b"), "U", 2),
        (lambda: W("a", "b"), "W", 2),
        (lambda: R("a", "b"), "R", 2),
        (lambda: M("a", "b"), "M", 2),
        (lambda: And("a", "b", "c"), "&", 3),
        (lambda: Or("a", "b", "c"), "|", 3),
    ],
)
def test_constructors(build, op, arity):
    f = build()
    assert f.op == op
    assert len(f.children) == arity
    assert all(c.op == "ap" for c in f.children)
    assert f.depth == 1
    assert f.children[0] is ap("a")


def test_and_or_flatten_and_keep_order():
    assert And("a", And("b", "c")) is And("a", "b", "c")
    assert And(And("c", "b"), "a").children == (ap("c"), ap("b"), ap("a"))
    assert Or(Or("a", "b"), Or("c", "d")) is Or("a", "b", "c", "d")
    assert And("a", Or("b", "c")).children[1] is Or("b", "c")
    assert And() is TRUE
    assert Or() is FALSE
    assert And("a") is ap("a")
    assert Or(G("a")) is G("a")


def test_python_operators_build_formulas():
    a, b = ap("a"), ap("b")
    assert ~a is Not(a)
    assert (a & b) is And(a, b)
    assert (a | b) is Or(a, b)
    assert (a >> b) is Implies(a, b)
    assert ("a" & b) is And(a, b)
    assert ("a" | b) is Or(a, b)
    assert (a & True) is And(a, TRUE)
    assert (a | Proposition("agent_at", ("kitchen",))) is Or(a, ap("agent_at(kitchen)"))


def test_coercion_rejects_other_types():
    with pytest.raises(FormulaError, match=r"cannot use 3 \(int\) as a formula"):
        Not(3)
    with pytest.raises(FormulaError, match="an atom name must be a string"):
        ap(None)


def test_low_level_constructor_checks_operator_and_arity():
    with pytest.raises(FormulaError, match=r"unknown operator 'Y'; expected one of"):
        Formula("Y", (ap("a"),))
    with pytest.raises(FormulaError, match=r"operator 'U' takes 2 operand\(s\), got 1"):
        Formula("U", (ap("a"),))
    with pytest.raises(FormulaError, match=r"operator '!' takes 1 operand\(s\), got 2"):
        Formula("!", (ap("a"), ap("b")))
    assert issubclass(FormulaError, ValueError)
    assert issubclass(FormulaError, SafetyChipError)


def test_atoms_depth_and_subformulas():
    f = parse('G(is_on(book, shelf) -> X[!](a | !"door open"))')
    assert f.atoms() == frozenset({"is_on(book,shelf)", "a", "door open"})
    assert f.depth == 5  # G, ->, X[!], |, !
    assert ap("a").depth == 0 and TRUE.depth == 0
    subs = f.subformulas()
    assert subs[-1] is f
    assert len(subs) == len(set(subs))
    position = {s: i for i, s in enumerate(subs)}
    for s in subs:  # post-order: children before parents
        assert all(position[c] < position[s] for c in s.children)
    assert ap("a") in position and ap("door open") in position
    # A shared subformula is listed once.
    g = And(U("a", "b"), G(U("a", "b")))
    assert g.subformulas().count(U("a", "b")) == 1


def test_propositions_of_a_formula():
    f = parse("G(agent_at(kitchen) -> !is_on( book , shelf )) | x")
    props = f.propositions()
    assert [p.name for p in props] == ["agent_at(kitchen)", "is_on(book,shelf)", "x"]
    assert props[1] == Proposition("is_on", ("book", "shelf"))
    assert props[2].args == ()
    assert ap("agent_at(kitchen)").proposition == Proposition("agent_at", ("kitchen",))
    with pytest.raises(FormulaError, match="is not an atomic proposition"):
        _ = f.proposition
    with pytest.raises(PropositionError, match="not a proposition: 'door open'"):
        ap("door open").propositions()


def test_proposition_parse_and_canonical_names():
    p = Proposition.parse("  is_on (  book ,book_shelf )  ")
    assert (p.predicate, p.args, p.name) == (
        "is_on",
        ("book", "book_shelf"),
        "is_on(book,book_shelf)",
    )
    assert str(p) == "is_on(book,book_shelf)"
    assert repr(p) == "Proposition('is_on(book,book_shelf)')"
    assert Proposition.parse("door").name == "door"
    assert Proposition.parse("f()").name == "f"  # no arguments: a plain identifier
    for bad in ("is_on(book shelf)", "1abc", "a-b", "", "f(a,)"):
        with pytest.raises(PropositionError, match="expected a name like 'agent_at"):
            Proposition.parse(bad)
    assert canonical_atom(" is_on (book,  book_shelf) ") == "is_on(book,book_shelf)"
    assert canonical_atom("  door open ") == "door open"
    with pytest.raises(PropositionError, match="non-empty name"):
        canonical_atom("   ")
    assert ap("is_on(book, book_shelf)") is ap("is_on(book,book_shelf)")


def test_max_depth_is_enforced_when_building():
    f = ap("a")
    for _ in range(MAX_DEPTH):
        f = Not(f)
    assert f.depth == MAX_DEPTH
    with pytest.raises(
        FormulaTooDeepError, match=rf"nests {MAX_DEPTH + 1} operators deep; at most {MAX_DEPTH}"
    ):
        Not(f)
    g = ap("a")
    while g.depth < MAX_DEPTH - 2:
        g = And("c", X(g)) if g.depth % 3 == 0 and g.depth < MAX_DEPTH - 3 else U(g, "b")
    assert g.depth == MAX_DEPTH - 2
    # Flattening keeps the depth of a nested conjunction: & above X above g.
    assert And("d", And("c", X(g))).depth == MAX_DEPTH
    with pytest.raises(FormulaTooDeepError, match="at most 200 are supported"):
        And("d", And("c", X(X(g))))
    assert issubclass(FormulaTooDeepError, FormulaError)


def test_to_str_formats_and_errors():
    f = parse("G(a -> X[!]b)")
    assert to_str(f) == str(f) == format(f) == f"{f}" == "G(a -> X[!]b)"
    assert to_str(f, "PREFIX") == f"{f:prefix}" == "G i a X[!] b"
    assert to_str(f, "latex") == r"\mathsf{G}\,(\mathit{a} \rightarrow \mathsf{X}^{!}\,\mathit{b})"
    assert f._repr_latex_() == "$" + to_str(f, "latex") + "$"
    assert repr(f) == "Formula('G(a -> X[!]b)')"
    with pytest.raises(
        ValueError, match="unknown formula format 'dot'; choose one of spot, prefix, latex"
    ):
        to_str(f, "dot")
    with pytest.raises(ValueError, match="unknown formula format"):
        format(f, "json")


def test_ordering_is_by_printed_text():
    fs = [parse("b"), parse("a U b"), parse("Ga")]
    assert [str(f) for f in sorted(fs)] == ["Ga", "a U b", "b"]
