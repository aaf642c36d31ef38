"""Conformance with the Spot-generated LTLf vectors in ``tests/data`` (see its README).

Every recorded verdict is checked three ways: the minimal DFA (``to_dfa(f).accepts``), the
independent evaluator (``evaluate``) and the monitor's offline verdict (``Monitor([f]).evaluate``).
The three must agree with each other and with every recorded verdict, and every recorded DFA
size must equal our minimal DFA's. (The corrected vectors of 2026-11-23 fixed the nine with
``X(0)`` goals that the first version got wrong; none is excepted any more.)
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from safetychip.automata import to_dfa
from safetychip.ltl import evaluate, parse, parse_prefix, to_str
from safetychip.monitor import Monitor

DATA = Path(__file__).parent / "data"


def _read(name: str) -> list[dict]:
    with open(DATA / name, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


VERDICTS = _read("verdicts.jsonl")
SIZES = _read("dfa_sizes.jsonl")
VERDICT_CHUNK = 400
SIZE_CHUNK = 200


def _key(record: dict) -> tuple[str, str]:
    return record["formula"], json.dumps(record["trace"])


@cache
def engines(text: str):
    """The formula, its DFA and a one-constraint monitor (cached: formulas repeat)."""
    f = parse(text)
    return f, to_dfa(f), Monitor([f])


def test_data_files_are_complete():
    assert len(VERDICTS) == 4800
    assert len(SIZES) == 600
    assert all(rec["trace"] for rec in VERDICTS), "traces are non-empty"


@pytest.mark.parametrize(
    "start",
    range(0, len(VERDICTS), VERDICT_CHUNK),
    ids=lambda s: f"verdicts[{s}:{s + VERDICT_CHUNK}]",
)
def test_verdicts(start, monitor_holds):
    chunk = VERDICTS[start : start + VERDICT_CHUNK]
    engines_differ = []
    disagreements = []
    for rec in chunk:
        f, dfa, monitor = engines(rec["formula"])
        trace = rec["trace"]
        by_dfa = dfa.accepts(trace)
        by_evaluator = evaluate(f, trace)
        by_monitor = monitor_holds(monitor, trace)
        if not by_dfa == by_evaluator == by_monitor:
            engines_differ.append((rec, by_dfa, by_evaluator, by_monitor))
        if by_evaluator != rec["holds"]:
            disagreements.append((_key(rec), rec["holds"]))
    assert engines_differ == [], "DFA, evaluator and monitor disagree (dfa, eval, monitor)"
    assert disagreements == [], "recorded verdicts we do not reproduce (formula, trace, Spot's)"


@pytest.mark.parametrize(
    "start", range(0, len(SIZES), SIZE_CHUNK), ids=lambda s: f"dfa_sizes[{s}:{s + SIZE_CHUNK}]"
)
def test_dfa_sizes(start):
    chunk = SIZES[start : start + SIZE_CHUNK]
    disagreements = {}
    for rec in chunk:
        f, dfa, _ = engines(rec["formula"])
        assert f.atoms() <= set(rec["aps"]), rec
        if dfa.num_states != rec["min_dfa_states"]:
            disagreements[rec["formula"]] = (dfa.num_states, rec["min_dfa_states"])
    assert disagreements == {}, "formula: (our minimal DFA size, Spot's)"


def _ours(spot_text: str) -> str:
    """Spot's printing of a formula, with constants spelled as our printer spells them.

    Spot prints the constants 1 and 0, parenthesised after a unary operator (``X(0)``); our
    printer writes ``true``/``false`` (``Xfalse``). Otherwise the two printers agree exactly.
    """
    word = {"0": "false", "1": "true"}
    text = re.sub(r"(?<=[XFG!\]])\(([01])\)", lambda m: word[m.group(1)], spot_text)
    return re.sub(r"(?<![A-Za-z0-9_])[01](?![A-Za-z0-9_])", lambda m: word[m.group()], text)


def test_round_trip_of_every_formula():
    texts = sorted({rec["formula"] for rec in VERDICTS} | {rec["formula"] for rec in SIZES})
    assert len(texts) > 500
    for text in texts:
        f = parse(text)
        printed = to_str(f)
        assert parse(printed) is f, text
        assert printed == _ours(text), text
        assert parse_prefix(to_str(f, "prefix")) is f, text
