"""Parsers (Spot infix, Lang2LTL prefix) and the printer: syntax, round trips and error paths."""

from __future__ import annotations

import time

import pytest

from safetychip.errors import FormulaError, FormulaSyntaxError, FormulaTooDeepError
from safetychip.ltl import (
    FALSE,
    MAX_DEPTH,
    TRUE,
    XS,
    And,
    Equiv,
    F,
    G,
    Implies,
    M,
    Not,
    Or,
    R,
    U,
    W,
    X,
    ap,
    parse,
    parse_prefix,
    to_str,
)

a, b, c = ap("a"), ap("b"), ap("c")


# -- Spot syntax: operators -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("!a", Not(a)),
        ("a & b", And(a, b)),
        ("a | b", Or(a, b)),
        ("a -> b", Implies(a, b)),
        ("a <-> b", Equiv(a, b)),
        ("X a", X(a)),
        ("X[!] a", XS(a)),
        ("F a", F(a)),
        ("G a", G(a)),
        ("a U b", U(a, b)),
        ("a W b", W(a, b)),
        ("a R b", R(a, b)),
        ("a M b", M(a, b)),
        ("true", TRUE),
        ("false", FALSE),
        ("1", TRUE),
        ("0", FALSE),
        ("TRUE", TRUE),
        ("FALSE", FALSE),
        # Alternative spellings Spot accepts.
        ("a && b", And(a, b)),
        ("a || b", Or(a, b)),
        ("a /\\ b", And(a, b)),
        ("a \\/ b", Or(a, b)),
        ("~a", Not(a)),
        ("a => b", Implies(a, b)),
        ("a <=> b", Equiv(a, b)),
        ("a V b", R(a, b)),
        ("[]a", G(a)),
        ("<>a", F(a)),
    ],
)
def test_every_operator(text, expected):
    assert parse(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Implication, equivalence and the temporal binary operators are right-associative.
        ("a -> b -> c", Implies(a, Implies(b, c))),
        ("a <-> b <-> c", Equiv(a, Equiv(b, c))),
        ("a U b U c", U(a, U(b, c))),
        ("a W b R c", W(a, R(b, c))),
        # Unary operators bind tighter than binary ones.
        ("!a W b", W(Not(a), b)),
        ("!a U !b", U(Not(a), Not(b))),
        ("G a -> F b", Implies(G(a), F(b))),
        ("X a U b", U(X(a), b)),
        # & binds tighter than |, which binds tighter than -> and <->.
        ("a & b | c", Or(And(a, b), c)),
        ("a | b & c", Or(a, And(b, c))),
        ("a | b -> c", Implies(Or(a, b), c)),
        ("a -> b | c", Implies(a, Or(b, c))),
        # The temporal binary operators bind tighter than & and |.
        ("a & b U c", And(a, U(b, c))),
        ("a U b | c", Or(U(a, b), c)),
        # Parentheses override.
        ("(a -> b) -> c", Implies(Implies(a, b), c)),
        ("(a U b) U c", U(U(a, b), c)),
        ("!(a W b)", Not(W(a, b))),
        ("((a))", a),
    ],
)
def test_precedence_and_associativity(text, expected):
    assert parse(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GFa", G(F(a))),
        ("FGa", F(G(a))),
        ("Xc", X(c)),
        ("XXa", X(X(a))),
        ("GXFa", G(X(F(a)))),
        ("X[!]a", XS(a)),
        ("X[!]X[!]a", XS(XS(a))),
        ("XX[!]a", X(XS(a))),
        ("GX[!]a", G(XS(a))),
        ("G!a", G(Not(a))),
        ("F(a)", F(a)),
        ("Ga&Fb", And(G(a), F(b))),
        ("GF(a U b)", G(F(U(a, b)))),
        ("X(0)", X(FALSE)),
        ("G agent_at(kitchen)", G(ap("agent_at(kitchen)"))),
        ("Fis_open(fridge)", F(ap("is_open(fridge)"))),
    ],
)
def test_spot_operator_runs(text, expected):
    assert parse(text) is expected


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("X1", "X1"),  # as in Spot: F, G or X followed by a digit starts an atom
        ("G0", "G0"),
        ("a1", "a1"),
        ("aU", "aU"),  # infix operator letters do not break identifiers
        ("aUb", "aUb"),
        ("i", "i"),  # i and e are operators only in prefix syntax
        ("e", "e"),
    ],
)
def test_identifiers_that_are_atoms(text, name):
    assert parse(text) is ap(name)


def test_identifiers_starting_with_an_operator_letter_are_operators_as_in_spot():
    # Spot: "any identifier that does not start with F, G or X can be an atomic proposition";
    # others must be quoted.
    assert parse("Foo") is F(ap("oo"))
    assert parse("Xylophone") is X(ap("ylophone"))
    assert parse('"Foo"') is ap("Foo")


def test_predicate_atoms_bare_and_quoted():
    expected = ap("is_on(book,book_shelf)")
    assert expected.name == "is_on(book,book_shelf)"
    assert parse("is_on(book, book_shelf)") is expected
    assert parse("is_on( book ,book_shelf )") is expected
    assert parse("is_on (book, book_shelf)") is expected
    assert parse('"is_on(book, book_shelf)"') is expected
    assert parse('"is_on(book,book_shelf)"') is expected
    f = parse("G(is_on(book, book_shelf) -> !is_grabbed(phone))")
    assert f is G(Implies(expected, Not(ap("is_grabbed(phone)"))))
    assert str(f) == 'G("is_on(book,book_shelf)" -> !"is_grabbed(phone)")'
    # Arguments may hold digits, dots and dashes.
    assert parse("agent_at(room-2.b)").name == "agent_at(room-2.b)"


def test_quoted_atoms_with_any_text():
    f = parse('"door open" U "light-on!"')
    assert f is U(ap("door open"), ap("light-on!"))
    assert f.atoms() == {"door open", "light-on!"}
    assert str(f) == '"door open" U "light-on!"'
    assert parse('"  spaced  "') is ap("spaced")  # names are stripped
    assert parse('"G"') is ap("G") and parse('"G"') is not G
    assert parse('"true"') is ap("true") and parse('"true"') is not TRUE


def test_whitespace_is_free():
    assert parse("  G ( a\t->\nF  b )  ") is G(Implies(a, F(b)))
    assert parse("a&b") is And(a, b)


def test_non_string_input_is_a_syntax_error():
    with pytest.raises(FormulaSyntaxError, match="expected formula text"):
        parse(42)
    with pytest.raises(FormulaSyntaxError, match="expected formula text"):
        parse_prefix(None)


# -- printer ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("formula", "spot", "prefix"),
    [
        (G(Implies(a, F(b))), "G(a -> Fb)", "G i a F b"),
        (U(a, U(b, c)), "a U (b U c)", "U a U b c"),
        (U(U(a, b), c), "(a U b) U c", "U U a b c"),
        (Or(And(a, b), c), "(a & b) | c", "| & a b c"),
        (And(a, b, c), "a & b & c", "& & a b c"),
        (W(Not(a), b), "!a W b", "W ! a b"),
        (Equiv(a, XS(b)), "a <-> X[!]b", "e a X[!] b"),
        (M(R(a, b), X(c)), "(a R b) M Xc", "M R a b X c"),
        (Not(G(F(a))), "!GFa", "! G F a"),
        (And(TRUE, FALSE), "true & false", "& true false"),
        (X(FALSE), "Xfalse", "X false"),
        (And(a, U(b, c)), "a & (b U c)", "& a U b c"),
    ],
)
def test_printer(formula, spot, prefix):
    assert to_str(formula) == spot
    assert to_str(formula, "prefix") == prefix
    assert parse(spot) is formula
    assert parse_prefix(prefix) is formula


def test_printer_quotes_atoms_that_are_not_plain_lowercase_identifiers():
    assert to_str(ap("agent_at(kitchen)")) == '"agent_at(kitchen)"'
    assert to_str(ap("Door")) == '"Door"'
    assert to_str(ap("i")) == '"i"'
    assert to_str(ap("true")) == '"true"'
    assert to_str(ap("door_open2")) == "door_open2"
    assert to_str(ap("agent_at(kitchen)"), "prefix") == "agent_at(kitchen)"


@pytest.mark.parametrize(
    "name",
    ["a", "door open", "i", "e", "U", "X", "GFa", "true", "FALSE", "0", "Door", "V",
     "is_on(book,book_shelf)", "U(x)", "i(x)", "agent_at(room-2.b)", "x.y", "F_x"],
)  # fmt: skip
def test_every_atom_name_round_trips_in_both_syntaxes(name):
    f = G(Implies(ap(name), XS(ap(name))))
    assert parse(to_str(f)) is f
    assert parse_prefix(to_str(f, "prefix")) is f


def test_latex():
    f = parse("G(is_on(book,shelf) -> !a U X[!] b) | (true W false) & (a <-> b M c)")
    text = to_str(f, "latex")
    for piece in (r"\mathsf{G}", r"\mathit{is\_on(book,\,shelf)}", r"\rightarrow", r"\neg",
                  r"\mathbin{\mathsf{U}}", r"\mathsf{X}^{!}", r"\top", r"\bot", r"\lor",
                  r"\land", r"\leftrightarrow", r"\mathbin{\mathsf{M}}",
                  r"\mathbin{\mathsf{W}}"):  # fmt: skip
        assert piece in text
    assert text.count("(") == text.count(")")


def test_round_trips_of_hand_written_formulas():
    texts = [
        "G(a -> X[!]b) & F(c U !a)",
        "!(a U b) <-> (!b W (!a & !b))",
        "GF(a | b) -> FG!c",
        "(a R b) M (c W (a & X(b -> c)))",
        'G("is_on(book,book_shelf)" -> F!"agent_at(kitchen)")',
        "X(X[!](Xa))",
    ]
    for text in texts:
        f = parse(text)
        assert parse(to_str(f)) is f
        assert parse_prefix(to_str(f, "prefix")) is f
        assert to_str(parse(to_str(f))) == to_str(f)


# -- prefix syntax ----------------------------------------------------------------------------
def test_prefix_as_the_paper_prints_it():
    f = parse_prefix("W ! agent_at (bedside_table) agent_at ( book_shelf)")
    assert f is W(Not(ap("agent_at(bedside_table)")), ap("agent_at(book_shelf)"))
    assert f is parse("!agent_at(bedside_table) W agent_at(book_shelf)")
    assert to_str(f, "prefix") == "W ! agent_at(bedside_table) agent_at(book_shelf)"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("i a b", Implies(a, b)),
        ("e a b", Equiv(a, b)),
        ("-> a b", Implies(a, b)),
        ("<-> a b", Equiv(a, b)),
        ("G i a F b", G(Implies(a, F(b)))),
        ("& | a b c", And(Or(a, b), c)),
        ("| a & b c", Or(a, And(b, c))),
        ("U a U b c", U(a, U(b, c))),
        ("U U a b c", U(U(a, b), c)),
        ("! X[!] a", Not(XS(a))),
        ("X ! a", X(Not(a))),
        ("M R a b W c true", M(R(a, b), W(c, TRUE))),
        ("& 1 0", And(TRUE, FALSE)),
        ("G ! is_grabbed( phone )", G(Not(ap("is_grabbed(phone)")))),
        ("i is_on(i, e) e a b", Implies(ap("is_on(i,e)"), Equiv(a, b))),
        ('i "i" "e"', Implies(ap("i"), ap("e"))),
        ("GFa", ap("GFa")),  # no operator runs in prefix syntax: one atom
        ("a", a),
    ],
)
def test_prefix(text, expected):
    assert parse_prefix(text) is expected


# -- error paths --------------------------------------------------------------------------------
def _error(text, parser=parse, kind=FormulaSyntaxError):
    with pytest.raises(kind) as info:
        parser(text)
    return info.value


def _check_caret(err: FormulaSyntaxError, text: str, position: int) -> None:
    lines = str(err).split("\n")
    assert len(lines) == 3
    assert lines[1] == "  " + text.replace("\n", " ").replace("\t", " ")
    assert lines[2] == "  " + " " * position + "^"


@pytest.mark.parametrize(
    ("text", "position", "expected", "found"),
    [
        ("", 0, "a formula", "end of input"),
        ("   ", 0, "a formula", "' '"),
        ("(a", 2, "')' (the '(' at position 0 is never closed)", "end of input"),
        ("G((a U b)", 9, "')' (the '(' at position 1 is never closed)", "end of input"),
        ("a)", 1, "an operator or end of input (unbalanced ')')", "')'"),
        ("(a U b))", 7, "an operator or end of input (unbalanced ')')", "')'"),
        ("a $ b", 2, "an operator, an atom or '('", "'$'"),
        ("a <- b", 2, "an operator, an atom or '('", "'<'"),
        ("X[ a", 1, "an operator, an atom or '('", "'['"),
        ("a &", 3, "an operand", "end of input"),
        ("a U", 3, "an operand", "end of input"),
        ("a -> ", 5, "an operand", "end of input"),
        ("a & & b", 4, "an operand", "'&'"),
        ("& a", 0, "an operand", "'&'"),
        ("a U U b", 4, "an operand", "'U'"),
        ("!", 1, "an operand", "end of input"),
        ("G", 1, "an operand", "end of input"),
        ("()", 1, "an operand", "')'"),
        ("a b", 2, "a binary operator, ')' or end of input", "'b'"),
        ("Ga Fb", 3, "a binary operator, ')' or end of input", "'F'"),
        ('"abc', 0, 'a closing " for this atom', "'\"'"),
        ('a & "b', 4, 'a closing " for this atom', "'\"'"),
        ('""', 0, "a non-empty atom name inside quotes", "'\"'"),
        ("is_on(book,", 10, "an operator, an atom or '('", "','"),
    ],
)
def test_spot_syntax_errors(text, position, expected, found):
    err = _error(text)
    assert isinstance(err, FormulaError) and isinstance(err, ValueError)
    assert err.position == position
    assert err.expected == expected
    assert err.text == text
    assert str(err).startswith(
        f"cannot parse Spot formula: expected {expected} at position {position}, found {found}"
    )
    _check_caret(err, text, position)


def test_syntax_error_message_is_one_line_per_part_for_multiline_input():
    err = _error("a\n&\t")
    assert err.position == 4
    _check_caret(err, "a\n&\t", 4)


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("", 0, "a formula"),
        ("!", 0, "1 operand(s) after '!'"),
        ("U a", 0, "2 operand(s) after 'U'"),
        ("i a", 0, "2 operand(s) after '->'"),
        ("e", 0, "2 operand(s) after '<->'"),
        ("G i a", 2, "2 operand(s) after '->'"),
        ("a b", 2, "end of input (one formula only)"),
        ("i a b c", 6, "end of input (one formula only)"),
        ("(a)", 0, "an operator or an atom (no parentheses)"),
        ("& a (b c)", 4, "an operator or an atom (no parentheses)"),
        ('U a "b', 4, 'a closing " for this atom'),
        ("a $", 2, "an operator, an atom or '('"),
    ],
)
def test_prefix_syntax_errors(text, position, expected):
    err = _error(text, parse_prefix)
    assert err.position == position
    assert err.expected == expected
    assert str(err).startswith(
        f"cannot parse prefix formula: expected {expected} at position {position}"
    )
    _check_caret(err, text, position)


@pytest.mark.parametrize(
    ("text", "parser"),
    [
        ("(" * 10_000 + "a" + ")" * 10_000, parse),
        ("!" * 10_000 + "a", parse),
        ("G" * 10_000 + "a", parse),
        ("X " * 10_000 + "a", parse),
        ("a U (" * 10_000 + "b" + ")" * 10_000, parse),
        ("! " * 10_000 + "a", parse_prefix),
        ("U a " * 10_000 + "b", parse_prefix),
        ("X[!] " * 10_000 + "a", parse_prefix),
    ],
    ids=[
        "parens",
        "not",
        "G-run",
        "X",
        "until",
        "prefix-not",
        "prefix-until",
        "prefix-strong-next",
    ],
)
def test_deep_nesting_raises_too_deep_not_recursion_error(text, parser):
    err = _error(text, parser, FormulaTooDeepError)
    assert isinstance(err, FormulaError)
    message = str(err)
    assert f"nesting deeper than {MAX_DEPTH} at position" in message
    assert "…" in message.split("\n")[1]  # the echoed input is cut short
    assert len(message) < 300


def test_nesting_up_to_max_depth_parses():
    assert parse("!" * MAX_DEPTH + "a").depth == MAX_DEPTH
    assert parse_prefix("! " * MAX_DEPTH + "a").depth == MAX_DEPTH
    assert parse("(" * MAX_DEPTH + "a" + ")" * MAX_DEPTH) is a
    with pytest.raises(FormulaTooDeepError):
        parse("!" * (MAX_DEPTH + 1) + "a")
    with pytest.raises(FormulaTooDeepError):
        parse_prefix("! " * (MAX_DEPTH + 1) + "a")


def test_long_flat_formulas_are_not_deep():
    f = parse(" & ".join(f"p{i}" for i in range(1_000)))
    assert f.op == "&" and len(f.children) == 1_000 and f.depth == 1
    g = parse_prefix("& " * 999 + " ".join(f"p{i}" for i in range(1_000)))
    assert g.op == "&" and len(g.children) == 1_000
    assert g.atoms() == f.atoms()


N_LONG = 40_000  # linear: well under a second; the quadratic parser took minutes here


@pytest.mark.parametrize(
    ("text", "parser"),
    [
        (" & ".join(f"p{i}" for i in range(N_LONG)), parse),
        ("(" + " & ".join(f"p{i}" for i in range(N_LONG)) + ")", parse),
        ("".join(f"& p{i} " for i in range(N_LONG - 1)) + f"p{N_LONG - 1}", parse_prefix),
        ("& " * (N_LONG - 1) + " ".join(f"p{i}" for i in range(N_LONG)), parse_prefix),
    ],
    ids=["spot", "spot-parenthesised", "prefix-right-nested", "prefix-left-nested"],
)
def test_long_conjunctions_parse_in_linear_time(text, parser):
    """Regression: each binary & rebuilt the conjunction so far (And flattens), so 5,000 atoms
    took seconds and 40,000 would take minutes; a chain now gathers the operands and builds
    the formula once. The bound leaves a wide margin for a loaded machine (timings belong to
    the benchmarks; this only tells linear from quadratic)."""
    start = time.perf_counter()
    f = parser(text)
    elapsed = time.perf_counter() - start
    assert f is And(*(f"p{i}" for i in range(N_LONG)))
    assert elapsed < 20, f"{elapsed:.2f} s"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(a & b) & (c & d)", And(a, b, c, And(ap("d")))),
        ("a & (b & c) & d", And(a, b, c, ap("d"))),
        ("a & b | c & d & e", Or(And(a, b), And(c, ap("d"), ap("e")))),
        ("!(a & b) & c", And(Not(And(a, b)), c)),
        ("a & b -> c | a | b", Implies(And(a, b), Or(c, a, b))),
        ("G(a & b) U (a | (b | c))", U(G(And(a, b)), Or(a, b, c))),
        ("(a | b) & (c | a)", And(Or(a, b), Or(c, a))),
    ],
)
def test_chains_give_the_formula_of_pairwise_operators(text, expected):
    assert parse(text) is expected
    assert parse_prefix(to_str(expected, "prefix")) is expected


def test_prefix_chain_at_max_depth_is_not_too_deep():
    """A conjunction is one level whatever its length: adding an operand to one whose operand
    is MAX_DEPTH - 1 deep keeps it MAX_DEPTH deep (this used to raise FormulaTooDeepError)."""
    deep = "! " * (MAX_DEPTH - 1) + "a"
    assert parse_prefix(f"& c & b {deep}").depth == MAX_DEPTH
    with pytest.raises(FormulaTooDeepError, match="at position 0"):
        parse_prefix(f"! & c & b {deep}")


def test_syntax_errors_in_huge_input_show_a_window_around_the_caret():
    """Regression: the message echoed the whole input twice (100 KB in, 200 KB out)."""
    text = " & ".join(f"p{i}" for i in range(20_000))
    position = text.index("p10000")
    bad = text[:position] + "$" + text[position + 1 :]
    err = _error(bad)
    assert (err.position, err.text) == (position, bad)
    message = str(err)
    assert len(message) < 400
    lines = message.split("\n")
    assert lines[1] == "  …" + bad[position - 60 : position + 61] + "…"
    assert lines[2] == "  " + " " * 61 + "^"
    assert lines[1][lines[2].index("^")] == "$"


def test_the_window_is_cut_only_where_the_input_goes_on():
    text = "a $" + " & b" * 1000
    lines = str(_error(text)).split("\n")
    assert lines[1] == "  " + text[:63] + "…"
    assert lines[2] == "  " + "  ^"
    text = "a & b" * 1000 + " &"
    err = _error(text)
    assert err.position == len(text)  # expected an operand: end of input
    lines = str(err).split("\n")
    assert lines[1] == "  …" + text[-60:]
    assert lines[2] == "  " + " " * 61 + "^"


HIDDEN = ["\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f", "\u200b", "\u200d", "\ufeff"]


@pytest.mark.parametrize("char", HIDDEN, ids=[f"U+{ord(c):04X}" for c in HIDDEN])
@pytest.mark.parametrize("parser", [parse, parse_prefix], ids=["spot", "prefix"])
def test_hidden_characters_in_formula_text_are_syntax_errors(char, parser):
    """A bidirectional control or a zero-width character makes the text read differently
    from what it parses to, even inside a quoted atom, where anything else may be."""
    text = f'G ! "is_grabbed({char}phone)"'
    err = _error(text, parser)
    assert err.position == text.index(char)
    assert err.expected.startswith(f"visible text, not U+{ord(char):04X} ")
    lines = str(err).split("\n")
    assert lines[1] == '  G ! "is_grabbed(\ufffdphone)"'  # shown, not obeyed
    assert lines[1][lines[2].index("^")] == "\ufffd"
