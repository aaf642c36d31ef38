"""Fuzzing the inputs users control: the parser, the printer's round trip, the file readers and
the CLI's ``check`` / ``automaton`` / ``monitor`` / ``explain`` (run in-process). Every outcome
is a correct answer or a typed error, exit status 2 on the command line: never 3, never an
exception that is not a :class:`SafetyChipError`.

Derandomised and bounded (a few hundred examples in all), so it runs in CI in seconds.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safetychip.automata import MAX_ATOMS, to_dfa
from safetychip.cli import EXIT_INPUT, EXIT_OK, EXIT_VIOLATION, main
from safetychip.errors import SafetyChipError
from safetychip.ltl import Formula, evaluate, parse
from safetychip.monitor import read_constraints, read_trace
from safetychip.shield import TraceRecord

FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
FOLDER = Path(tempfile.mkdtemp(prefix="safetychip-fuzz-"))

ATOMS = ["a", "b", "c", "is_grabbed(phone)", '"agent_at(kitchen)"']
TOKENS = [*ATOMS, "!", "&", "|", "->", "<->", "X", "X[!]", "F", "G", "U", "W", "R", "M", "(",
          ")", "true", "false", " ", "1", "0", '"', ",", "[", "]", "@", "\\x00", "é"]  # fmt: skip

text_formulas = st.lists(st.sampled_from(TOKENS), max_size=25).map(" ".join)


def _formulas() -> st.SearchStrategy[str]:
    """Well-formed formula texts, nested a little."""
    leaves = st.sampled_from(["a", "b", "c", "true", "false"])

    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        unary = st.tuples(st.sampled_from(["!", "X", "X[!]", "F", "G"]), inner)
        binary = st.tuples(inner, st.sampled_from(["&", "|", "->", "<->", "U", "W", "R", "M"]),
                           inner)  # fmt: skip
        return unary.map(lambda t: f"{t[0]}({t[1]})") | binary.map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        )

    return st.recursive(leaves, grow, max_leaves=8)


states = st.one_of(
    st.lists(st.sampled_from(["a", "b", "c", "d", "is_grabbed(phnoe)"]), max_size=3),
    st.dictionaries(st.sampled_from(["a", "b", "c"]), st.booleans(), max_size=3),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["a", "F a", "G !a", ""]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "constraints",
                    "invariants",
                    "formula",
                    "name",
                    "steps",
                    "action",
                    "states",
                    "initial",
                    "trace",
                ]
            ),
            inner,
            max_size=3,
        )
    ),  # fmt: skip
    max_leaves=10,
)
garbage = st.one_of(
    json_values.map(json.dumps),
    st.text(max_size=40),
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 3000).map(lambda n: '{"a":' * n),
)


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def write(name: str, text: str) -> str:
    path = FOLDER / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@FUZZ
@given(text_formulas)
def test_the_parser_answers_or_raises_a_typed_error(text):
    try:
        f = parse(text)
    except SafetyChipError:
        return
    assert isinstance(f, Formula)
    assert parse(str(f)) is f  # the printer's text reads back as the same formula


@FUZZ
@given(_formulas(), st.lists(st.sets(st.sampled_from("abc")), min_size=1, max_size=5))
def test_print_parse_round_trip_and_the_automaton_agree(text, trace):
    f = parse(text)
    assert parse(str(f)) is f
    assert to_dfa(f).accepts(trace) == evaluate(f, trace)


@FUZZ
@given(text_formulas, st.lists(states, max_size=4) | garbage, st.sampled_from(["auto", "dfa"]))
def test_cli_check_answers_or_exits_2(formula, trace, engine):
    path = write("t.json", trace if isinstance(trace, str) else json.dumps(trace))
    status, out, err = cli("check", formula, "--trace", path, "--engine", engine)
    if status == EXIT_OK:
        answer = json.loads(out)
        f = parse(formula)
        assert answer["holds"] == evaluate(f, read_trace(path, f.atoms()))
    else:
        assert status == EXIT_INPUT and out == "" and err.startswith("safetychip check: error:")


@FUZZ
@given(text_formulas | st.integers(0, 2 * MAX_ATOMS).map(lambda n: " | ".join(["a"] * n)))
def test_cli_automaton_answers_or_exits_2(formula):
    status, out, err = cli("automaton", formula)
    if status == EXIT_OK:
        assert json.loads(out)["formula"] == str(parse(formula))
    else:
        assert status == EXIT_INPUT and err.startswith("safetychip automaton: error:")


@FUZZ
@given(st.lists(text_formulas | _formulas(), min_size=1, max_size=3) | garbage,
       st.lists(states, max_size=4) | garbage)  # fmt: skip
def test_cli_monitor_answers_or_exits_2(constraints, trace):
    c = write("c.json", constraints if isinstance(constraints, str) else json.dumps(constraints))
    t = write("t.json", trace if isinstance(trace, str) else json.dumps(trace))
    status, out, err = cli("monitor", c, t)
    assert status in (EXIT_OK, EXIT_VIOLATION, EXIT_INPUT), err
    if status == EXIT_INPUT:
        assert out == "" and err.startswith("safetychip monitor: error:")
    else:
        verdicts = [json.loads(line) for line in out.splitlines()]
        assert verdicts and all("status" in v for v in verdicts)
        assert (status == EXIT_OK) == all(v["status"] == "safe" for v in verdicts)


@FUZZ
@given(st.fixed_dictionaries({"constraints": st.lists(_formulas(), min_size=1, max_size=2),
                              "initial": states,
                              "steps": st.lists(st.fixed_dictionaries(
                                  {"action": st.sampled_from(["go", "grab"]),
                                   "states": st.lists(states, max_size=2)}), max_size=3)})
       | json_values, st.sampled_from([[], ["--step", "1"], ["--step", "-4"]]))  # fmt: skip
def test_cli_explain_answers_or_exits_2(rollout, step):
    path = write("r.json", json.dumps(rollout))
    status, out, err = cli("explain", path, *step)
    if status == EXIT_OK:
        assert "verdict" in json.loads(out)
    else:
        assert status == EXIT_INPUT and err.startswith("safetychip explain: error:"), err


@settings(FUZZ, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(garbage)
def test_the_file_readers_answer_or_raise_typed_errors(text):
    path = write("f.json", text)
    for read in (read_constraints, read_trace, TraceRecord.load):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # unknown keys of a constraint file
                read(path)
        except SafetyChipError:
            pass
