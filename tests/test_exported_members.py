"""The public API: every name a notebook imports from ``safetychip`` is pinned here."""

import safetychip
from safetychip import automata, ltl, monitor

EXPECTED = {
    "DFA", "PATTERNS", "Constraint", "Formula", "Monitor", "Product", "Proposition",
    "SafetyChipError", "Status", "Verdict", "absence_after", "ap", "at_least", "at_most",
    "before", "counterexample", "equivalent", "evaluate", "exactly", "exactly_one",
    "immediate_response", "includes", "never", "not_before", "parse", "parse_prefix",
    "response", "to_dfa",
}


def test_top_level_all_is_pinned():
    assert set(safetychip.__all__) == EXPECTED


def test_every_exported_name_exists():
    for module in (safetychip, ltl, automata, monitor):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"


def test_version():
    assert safetychip.__version__ == "0.1.0"
