"""The Spot backend: cross-checked against the native construction when Spot is installed."""

import json
from pathlib import Path

import pytest

from safetychip.automata import spot_available, spot_dfa, to_dfa
from safetychip.errors import MissingDependencyError
from safetychip.ltl import parse

DATA = Path(__file__).parent / "data"


@pytest.mark.skipif(spot_available(), reason="Spot is installed")
def test_missing_spot_names_the_install_command():
    with pytest.raises(MissingDependencyError, match="conda install -c conda-forge spot"):
        spot_dfa(parse("G !a"))


@pytest.mark.skipif(not spot_available(), reason="Spot's Python bindings are not installed")
def test_both_backends_agree_on_the_conformance_formulas():
    rows = [json.loads(line) for line in (DATA / "dfa_sizes.jsonl").read_text().splitlines()]
    for row in rows:
        f = parse(row["formula"])
        native, other = to_dfa(f), spot_dfa(f)
        assert native.num_states == other.num_states, row["formula"]
        for trace in (other.shortest_accepted(), other.shortest_rejected()):
            if trace:
                assert native.accepts(trace) == other.accepts(trace), row["formula"]


def test_backend_option_is_checked():
    with pytest.raises(ValueError, match="unknown backend 'buddy'; choose 'native' or 'spot'"):
        to_dfa(parse("a"), backend="buddy")
