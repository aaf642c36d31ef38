"""The public API: every name a notebook imports from ``safetychip`` is pinned here."""

import safetychip
from safetychip import automata, ltl, monitor

EXPECTED = {
    "DFA", "PATTERNS", "Constraint", "Formula", "Monitor", "Product", "Proposition",
    "SafetyChipError", "Specification", "Status", "Verdict", "absence_after", "ap", "at_least",
    "at_most", "before", "counterexample", "equivalent", "evaluate", "exactly", "exactly_one",
    "immediate_response", "includes", "never", "not_before", "parse", "parse_prefix",
    "response", "to_dfa",
    # loaded on first use
    "Chip", "Env", "PropositionEnv", "Shield", "TraceRecord", "Translator", "VirtualHomeEnv",
    "load_tasks", "make_agent", "run_monitored", "run_unmonitored", "task_monitor",
}  # fmt: skip

#: The specification and its files, in the core (a subset: others add names there too).
MONITOR = {
    "Constraint", "Monitor", "Specification", "constraints_from_json", "read_constraints",
    "read_trace", "smallest_conflict", "trace_from_json", "write_constraints", "write_trace",
}  # fmt: skip


def test_top_level_all_is_pinned():
    assert set(safetychip.__all__) == EXPECTED


def test_the_monitor_exports_the_specification_and_its_files():
    assert monitor.__all__.count("Specification") == 1
    assert set(monitor.__all__) >= MONITOR
    assert safetychip.Specification is monitor.Specification


def test_every_exported_name_exists():
    for module in (safetychip, ltl, automata, monitor):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"


def test_version():
    assert safetychip.__version__ == "0.1.0"
