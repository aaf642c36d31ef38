"""Course labs: exercises a student checks alone, with feedback that teaches.

=========================  ============================================================
exercise                   checker
=========================  ============================================================
write the formula          :func:`check_formula`: language equivalence with the reference;
                           a shortest trace that tells them apart, in the environment's
                           words; the recognised :data:`CONFUSIONS`
predict the verdict        :func:`check_verdict`: safe or violation, with each
                           constraint's path through its automaton
                           (:func:`automaton_paths`)
make it impossible         :func:`check_impossible`: one added constraint makes the task
                           unsatisfiable, or blocks a plan (the monitor's satisfiability
                           analysis)
explain the violation      :func:`check_explanation`: free text against the key facts of
                           the deterministic explanation (constraint, proposition, step)
anything else              :func:`check_answer` with a judge function
=========================  ============================================================

Every checker returns a :class:`Feedback` and never raises on a student's answer: a
placeholder ``...`` is *not attempted*; an empty, mistyped, unparsable (the parser's caret
message), too large (:data:`MAX_NODES`, :data:`MAX_ATOMS`, :data:`MAX_ANSWER_CHARS`), too
slow to check (:data:`TIME_LIMIT_S`) or unknown-proposition answer gets feedback saying so.
:class:`Lab` records a notebook's feedback and prints its :class:`Summary`.
:func:`student_version` and :func:`write_student_version` write the student notebook from the
instructor's (solution cells tagged ``solution``); ``safetychip labs student SRC DST`` does it
from a shell.

Examples
--------
>>> from safetychip.labs import check_formula
>>> print(check_formula('G("is_open(fridge)" -> X !"is_open(fridge)")',
...                     'G("is_open(fridge)" -> X[!] !"is_open(fridge)")').confusion)
weak_vs_strong_next
"""

from safetychip._public import publish

from ._explanation import check_explanation
from ._feedback import (
    CORRECT,
    INCORRECT,
    INVALID,
    MAX_ANSWER_CHARS,
    MAX_ATOMS,
    MAX_NODES,
    NOT_ATTEMPTED,
    TIME_LIMIT_S,
    Feedback,
    check_answer,
    trace_words,
)
from ._formula import CONFUSIONS, Confusion, check_formula, confusions
from ._impossible import check_impossible
from ._lab import Lab, Summary
from ._student import INSTRUCTOR, SOLUTION, student_version, write_student_version
from ._verdict import automaton_paths, check_verdict

__all__ = [
    "CONFUSIONS", "CORRECT", "INCORRECT", "INSTRUCTOR", "INVALID", "MAX_ANSWER_CHARS",
    "MAX_ATOMS", "MAX_NODES", "NOT_ATTEMPTED", "SOLUTION", "TIME_LIMIT_S", "Confusion",
    "Feedback", "Lab", "Summary", "automaton_paths", "check_answer", "check_explanation",
    "check_formula", "check_impossible", "check_verdict", "confusions", "student_version",
    "trace_words", "write_student_version",
]  # fmt: skip

publish(__name__, globals(), __all__)
