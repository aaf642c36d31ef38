"""The constraint monitor: verdicts before actions run, attribution, and DONE obligations.

Examples
--------
>>> from safetychip.monitor import Monitor
>>> m = Monitor(["G !is_grabbed(phone)"])
>>> m.reset(set()).safe, m.check({"is_grabbed(phone)"}).safe
(True, False)
"""

from safetychip._public import publish

from ._ambiguity import MAX_READINGS, CandidateMonitor, CandidateSet, Question, situation
from ._batch import BatchMonitor
from ._constraint import Constraint, as_constraints
from ._files import (
    constraints_from_json,
    read_constraints,
    read_trace,
    trace_from_json,
    write_constraints,
    write_trace,
)
from ._monitor import Monitor, compile_dfa, exactly_one
from ._specification import Specification, smallest_conflict
from ._state import proposition_state, proposition_states
from ._vacuous import refuse_vacuous
from ._verdict import StateChange, Status, Verdict

__all__ = ["BatchMonitor", "CandidateMonitor", "CandidateSet", "Constraint", "MAX_READINGS",
           "Monitor", "Question", "StateChange", "Status", "Verdict",
           "as_constraints", "compile_dfa", "exactly_one", "proposition_state",
           "proposition_states",
           # constraint and trace files; the specification
           "Specification", "constraints_from_json", "read_constraints", "read_trace",
           "refuse_vacuous", "situation", "smallest_conflict", "trace_from_json",
           "write_constraints", "write_trace"]  # fmt: skip

publish(__name__, globals(), __all__)
