"""Exceptions raised by safetychip.

Every error derives from :class:`SafetyChipError`, so ``except SafetyChipError``
catches anything the library raises on purpose. A violation found by the monitor
is a *verdict*, never an exception.

::

    SafetyChipError
    ├── FormulaError                    (also ValueError)
    │   ├── FormulaSyntaxError          malformed text, with position and caret
    │   └── FormulaTooDeepError         nesting beyond ltl.MAX_DEPTH
    ├── PropositionError                (also ValueError) unknown or malformed proposition
    ├── TraceError                      (also ValueError) malformed trace or proposition state
    ├── SpecificationError              (also ValueError)
    │   └── UnsatisfiableSpecification  the constraints contradict each other
    ├── MonitorError                    (also RuntimeError) misuse of the monitor lifecycle
    ├── TimeBudgetError                 (also TimeoutError) a call ran past its time budget
    ├── MissingDependencyError          (also ImportError) optional extra not installed
    ├── LLMError                        a language model could not answer
    │   ├── LLMUsageError               (also ValueError) a malformed request
    │   ├── LLMTimeoutError             (also TimeoutError)
    │   ├── LLMConnectionError          (also ConnectionError)
    │   ├── LLMStatusError              an HTTP error status, after bounded retries
    │   ├── LLMResponseError            (also ValueError) a reply that is not a completion
    │   ├── ReplayMissError             (also LookupError) replay-only cache has no entry
    │   └── CacheFileError              the record/replay cache file is unusable
    ├── EnvError                        an environment refused its input
    │   ├── DataFileError               (also ValueError) a scene or task file is malformed
    │   ├── ActionError                 (also ValueError) unknown verb or object
    │   ├── ResetNeeded                 (also RuntimeError)
    │   ├── EnvCheckError               (also AssertionError) check_env found a fault
    │   ├── TaskError                   (also ValueError) a task does not fit its scene
    │   ├── NoSafePlan                  (also LookupError) the bounded search found none
    │   ├── RobotError                  (also RuntimeError) a robot could not carry out a command
    │   ├── LabellerError               (also ValueError) a labeller's answer is unusable
    │   └── PreviewError                (also TypeError) a Gymnasium env that cannot be previewed
    ├── TranslationError                (also ValueError) English could not become a formula
    │   ├── SentenceError               empty or overlong sentence
    │   ├── OutOfGrammarError           no offline reader reads it
    │   ├── GroundingError              a referent matches no name well enough
    │   ├── TranslationReplyError       an LLM reply that does not parse, after retries
    │   ├── VocabularyError             (also PropositionError) unknown predicate or arity
    │   ├── ConflictError               (also UnsatisfiableSpecification)
    │   ├── VacuousConstraintError      (also SpecificationError) holds on every trace
    │   └── PickNeededError             (also SpecificationError) candidates not yet picked
    ├── QueryError                      (also ValueError) a question that cannot be answered
    ├── ExecutorStartError              (also RuntimeError) Ray's local runtime did not start
    ├── MemoryStoreError                an episodic-memory file is corrupt, foreign or unusable
    ├── UnknownHarmError                (also ValueError) a harm name the taxonomy lacks
    ├── ActionFrameError                (also ValueError) an action frame without a verb, or
    │                                   a command in which no action can be read
    ├── OutputFileError                 (also OSError) a file cannot be written
    ├── ObserverError                   (also ValueError) a feature out of its range, a bad overlay
    └── AgentError                      an agent could not act
        ├── ModelReplyError             (also ValueError) no usable action in a reply
        ├── SandboxError                (also ValueError) a program uses what is not allowed
        │   └── ProgramBudgetError      (also TimeoutError) steps or time exhausted
        └── SkillError                  (also RuntimeError) a skill call failed

Examples
--------
>>> from safetychip.errors import FormulaSyntaxError, SafetyChipError
>>> issubclass(FormulaSyntaxError, SafetyChipError)
True
"""

from __future__ import annotations

__all__ = [
    "SafetyChipError",
    "FormulaError",
    "FormulaSyntaxError",
    "FormulaTooDeepError",
    "PropositionError",
    "TraceError",
    "SpecificationError",
    "UnsatisfiableSpecification",
    "MonitorError",
    "TimeBudgetError",
    "MissingDependencyError",
    "LLMError",
    "LLMUsageError",
    "LLMTimeoutError",
    "LLMConnectionError",
    "LLMStatusError",
    "LLMResponseError",
    "ReplayMissError",
    "CacheFileError",
    "EnvError",
    "DataFileError",
    "ActionError",
    "ResetNeeded",
    "EnvCheckError",
    "TaskError",
    "NoSafePlan",
    "RobotError",
    "LabellerError",
    "PreviewError",
    "TranslationError",
    "SentenceError",
    "OutOfGrammarError",
    "GroundingError",
    "TranslationReplyError",
    "VocabularyError",
    "ConflictError",
    "VacuousConstraintError",
    "PickNeededError",
    "QueryError",
    "ExecutorStartError",
    "MemoryStoreError",
    "UnknownHarmError",
    "ActionFrameError",
    "MemoryCapacityWarning",
    "OutputFileError",
    "ObserverError",
    "AgentError",
    "ModelReplyError",
    "SandboxError",
    "ProgramBudgetError",
    "SkillError",
]


class SafetyChipError(Exception):
    """Base class of every error safetychip raises on purpose."""


class FormulaError(SafetyChipError, ValueError):
    """A formula could not be built or read."""


class FormulaSyntaxError(FormulaError):
    """Malformed formula text.

    The message shows the input around the caret, at most :attr:`WINDOW` characters each
    side (``…`` marks a cut), with spacing characters as spaces and other unprintable ones
    (bidirectional controls, zero-width characters) as ``�``, so that the caret lines up.

    Attributes
    ----------
    text : str
        The whole input.
    position : int
        Offset of the offending character in ``text``.
    expected : str
        What the parser expected there.
    """

    #: Characters of the input shown each side of the caret.
    WINDOW = 60

    def __init__(self, text: str, position: int, expected: str, syntax: str = "Spot") -> None:
        self.text = text
        self.position = position
        self.expected = expected
        start, end = max(0, position - self.WINDOW), min(len(text), position + self.WINDOW + 1)
        before, after = "…" * (start > 0), "…" * (end < len(text))
        shown = "".join(
            c if c.isprintable() else " " if c.isspace() else "\ufffd" for c in text[start:end]
        )
        found = repr(text[position]) if position < len(text) else "end of input"
        super().__init__(
            f"cannot parse {syntax} formula: expected {expected} at position {position}, "
            f"found {found}\n  {before}{shown}{after}\n  {' ' * (len(before) + position - start)}^"
        )


class FormulaTooDeepError(FormulaError):
    """A formula nests operators deeper than :data:`safetychip.ltl.MAX_DEPTH`."""


class PropositionError(SafetyChipError, ValueError):
    """A proposition is malformed, or unknown to the vocabulary it is checked against."""


class TraceError(SafetyChipError, ValueError):
    """A trace or a proposition state is malformed."""


class SpecificationError(SafetyChipError, ValueError):
    """A set of constraints cannot be used as a specification."""


class UnsatisfiableSpecification(SpecificationError):
    """The constraints cannot all hold on any finite trace.

    Attributes
    ----------
    conflict : tuple of str
        Names of a smallest set of constraints that contradict each other.
    """

    def __init__(self, message: str, conflict: tuple[str, ...] = ()) -> None:
        self.conflict = conflict
        super().__init__(message)


class MonitorError(SafetyChipError, RuntimeError):
    """The monitor was used out of order (for example ``commit`` after ``finish``)."""


class TimeBudgetError(SafetyChipError, TimeoutError):
    """A filter, overlay, policy or construction did not finish within its time budget; what
    it was deciding is refused."""


class MissingDependencyError(SafetyChipError, ImportError):
    """An optional dependency is missing; the message gives the install command."""


def missing(package: str, extra: str) -> MissingDependencyError:
    """Build the error raised when an optional *package* of *extra* is absent.

    Examples
    --------
    >>> print(missing("graphviz", "draw"))
    this feature needs 'graphviz': pip install 'safetychip[draw]'
    """
    return MissingDependencyError(
        f"this feature needs {package!r}: pip install 'safetychip[{extra}]'"
    )


class LLMError(SafetyChipError):
    """A language-model or embedding call failed; the message names the model and endpoint.

    ::

        LLMError
        ├── LLMUsageError        (also ValueError) bad configuration or request
        ├── LLMTimeoutError      (also TimeoutError) no reply within the timeout
        ├── LLMConnectionError   (also ConnectionError) endpoint unreachable
        ├── LLMStatusError       HTTP error status, after any retries
        ├── LLMResponseError     (also ValueError) malformed reply
        ├── ReplayMissError      (also LookupError) replay mode, request not in the cache
        └── CacheFileError       cache file unreadable, corrupt or missing
    """


class LLMUsageError(LLMError, ValueError):
    """A model was configured or called wrongly (no API key, empty messages, unknown mode)."""


class LLMTimeoutError(LLMError, TimeoutError):
    """The endpoint sent no complete reply within the call's time budget (connect, every read
    and the retries together)."""


class LLMConnectionError(LLMError, ConnectionError):
    """The endpoint could not be reached."""


class LLMStatusError(LLMError):
    """The endpoint answered with an HTTP error status, after any retries.

    Attributes
    ----------
    status : int
        The HTTP status of the last answer.
    attempts : int
        How many requests were sent.
    """

    def __init__(self, message: str, status: int, attempts: int) -> None:
        self.status = status
        self.attempts = attempts
        super().__init__(message)


class LLMResponseError(LLMError, ValueError):
    """The endpoint's reply was not the JSON an OpenAI-compatible server sends."""


class ReplayMissError(LLMError, LookupError):
    """A replay-only cache was asked for a request it never recorded."""


class CacheFileError(LLMError):
    """A cache file is missing, unreadable or not a safetychip cache."""


class EnvError(SafetyChipError):
    """An environment was misused or given input it cannot read.

    ::

        EnvError
        ├── DataFileError     (also ValueError) a scene or task file is missing or malformed
        ├── ActionError       (also ValueError) an action names an unknown verb or object
        ├── ResetNeeded       (also RuntimeError) step before reset, after DONE or after close
        ├── EnvCheckError     (also AssertionError) check_env found a broken contract
        ├── TaskError         (also ValueError) a task's formula does not parse, or names
        │                     an object its scene lacks
        ├── RobotError        (also RuntimeError) a robot could not carry out a command
        ├── NoSafePlan        (also LookupError) no safe plan reaches the goal within the
        │                     search's bound
        ├── LabellerError     (also ValueError) a labeller raised, or answered something
        │                     other than a truth value for each proposition asked
        └── PreviewError      (also TypeError) a Gymnasium environment can be neither
                              copied nor previewed by a one-step model
    """


class DataFileError(EnvError, ValueError):
    """A scene or task file is missing or malformed; the message names the file and entry.

    Attributes
    ----------
    path : str
        The file (or ``"<dict>"`` for data given in memory).
    """

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}")


class ActionError(EnvError, ValueError):
    """An action names a verb or an object the environment does not know.

    Attributes
    ----------
    choices : tuple of str
        The closest valid names, best first (may be empty).
    """

    def __init__(self, message: str, choices: tuple[str, ...] = ()) -> None:
        self.choices = choices
        super().__init__(message)


class ResetNeeded(EnvError, RuntimeError):
    """``step`` was called before ``reset``, after the episode ended, or after ``close``."""


class EnvCheckError(EnvError, AssertionError):
    """An environment broke the protocol that :func:`safetychip.envs.check_env` tests."""


class TaskError(EnvError, ValueError):
    """A task does not fit its scene: a formula that does not parse, or a proposition, goal or
    plan naming an object the scene lacks. The message names the task, the entry and the
    object; :func:`~safetychip.envs.load_tasks` wraps it in a :class:`DataFileError` naming
    the file and line."""


class NoSafePlan(EnvError, LookupError):
    """No plan that reaches the goal and satisfies the constraints was found within the
    search's bound.

    Attributes
    ----------
    expanded : int
        How many search nodes were expanded before giving up.
    """

    def __init__(self, message: str, expanded: int = 0) -> None:
        self.expanded = expanded
        super().__init__(message)


class RobotError(EnvError, RuntimeError):
    """A robot (or its SDK) could not carry out a command that had been admitted: no power, a
    lost lease, a navigation stuck or a grasp that failed. The robot has been stopped."""


class LabellerError(EnvError, ValueError):
    """A labeller raised, or answered something other than one bool for each proposition
    asked (an unknown name, a missing one, a non-bool); the shield refuses the action."""


class PreviewError(EnvError, TypeError):
    """A Gymnasium environment cannot be previewed: it cannot be deep-copied and no
    one-step model was given."""


class TranslationError(SafetyChipError, ValueError):
    """An English sentence could not be turned into an accepted constraint.

    Nothing is accepted when one is raised: a translation either yields a whole, checked
    constraint or this error.

    ::

        TranslationError
        ├── SentenceError          empty, overlong or not text
        ├── OutOfGrammarError      no offline reader reads the sentence
        ├── GroundingError         a referring expression matches no name well enough
        ├── TranslationReplyError  a language model's reply did not parse, after retries
        ├── VocabularyError        (also PropositionError) unknown predicate, name or arity
        └── ConflictError          (also UnsatisfiableSpecification) unsatisfiable alone or
                                   with the constraints already accepted
    """


class SentenceError(TranslationError):
    """The sentence is empty, too long, or not a string."""


class OutOfGrammarError(TranslationError):
    """The offline pattern translator has no form that reads the sentence.

    Attributes
    ----------
    sentence : str
        The (lifted) sentence it could not read.
    """

    def __init__(self, message: str, sentence: str = "") -> None:
        self.sentence = sentence
        super().__init__(message)


class GroundingError(TranslationError):
    """A referring expression matches no name of the vocabulary well enough, or several.

    Attributes
    ----------
    expression : str
        The expression as written.
    candidates : tuple of (str, float)
        The nearest names with their similarity scores, best first.
    """

    def __init__(
        self, message: str, expression: str = "", candidates: tuple[tuple[str, float], ...] = ()
    ) -> None:
        self.expression = expression
        self.candidates = candidates
        super().__init__(message)


class TranslationReplyError(TranslationError):
    """A language model's reply could not be read, after every allowed attempt.

    Attributes
    ----------
    reply : str
        The last reply, verbatim.
    attempts : int
        How many requests were sent.
    """

    def __init__(self, message: str, reply: str = "", attempts: int = 0) -> None:
        self.reply = reply
        self.attempts = attempts
        super().__init__(message)


class VocabularyError(TranslationError, PropositionError):
    """A formula uses a predicate, a name or a number of arguments the environment lacks."""


class ConflictError(TranslationError, UnsatisfiableSpecification):
    """A constraint cannot hold on any finite trace, alone or with those already accepted.

    Attributes
    ----------
    conflict : tuple of str
        Names of a smallest set of constraints that contradict each other (the new one
        included).
    """


class VacuousConstraintError(TranslationError, SpecificationError):
    """A constraint whose formula holds on every trace (is equivalent to ``true``): it
    forbids nothing, so it is never a constraint; the message names the sentence."""


class PickNeededError(TranslationError, SpecificationError):
    """A translation whose candidate set is not settled was to be enforced: a person picks
    one of its candidates first (``translation.choose(i)``); the message lists them."""


class QueryError(SafetyChipError, ValueError):
    """A human query could not be read or answered (unknown form, a plan step refused)."""


class ExecutorStartError(SafetyChipError, RuntimeError):
    """An experiment executor could not start its runtime (a local Ray runtime on loopback),
    after every allowed attempt; the message names the runtime, the waits and the last error.

    Attributes
    ----------
    executor : str
        The executor asked for (``"ray"``).
    attempts : int
        How many starts were tried.
    """

    def __init__(self, message: str, executor: str, attempts: int) -> None:
        self.executor = executor
        self.attempts = attempts
        super().__init__(message)


class ObserverError(SafetyChipError, ValueError):
    """A grounded observer cannot evaluate a candidate: a feature outside its declared range,
    an overlay reading a feature no extractor provides, or a malformed turn record."""


class OutputFileError(SafetyChipError, OSError):
    """A file the library writes cannot be written (a missing or read-only folder, a full
    disk); the message says "cannot write" and names the file, which is left as it was.

    Attributes
    ----------
    path : str
        The file that could not be written.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        super().__init__(f"cannot write {path}: {reason}")


class MemoryStoreError(SafetyChipError):
    """An episodic-memory store cannot be used: the file is corrupt, not a safetychip memory,
    or holds vectors of another embedding model; the file is never replaced.

    Attributes
    ----------
    path : str
        The file at fault.
    """

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        super().__init__(message)


class UnknownHarmError(SafetyChipError, ValueError):
    """A harm name that the episodic memory's taxonomy does not know.

    Attributes
    ----------
    name : object
        The name given.
    nearest : tuple of str
        The known harms closest to it (maybe none).
    """

    def __init__(self, message: str, name: object = None, nearest: tuple[str, ...] = ()) -> None:
        self.name = name
        self.nearest = nearest
        super().__init__(message)


class ActionFrameError(SafetyChipError, ValueError):
    """An action the episodic memory cannot use: a frame (or an episode's frame) without a
    verb or with a malformed field, or a command in which the environment reads no action.

    Attributes
    ----------
    name : object
        The input at fault (the frame's field value, or the command).
    nearest : tuple of str
        The names closest to it that would be understood (maybe none).
    """

    def __init__(self, message: str, name: object = None, nearest: tuple[str, ...] = ()) -> None:
        self.name = name
        self.nearest = nearest
        super().__init__(message)


class MemoryCapacityWarning(UserWarning):
    """The episodic memory archived episodes beyond its capacity (said once per memory):
    they no longer block unless checked with ``include_archived=True``."""


class AgentError(SafetyChipError):
    """An agent could not go on: its model's reply or its program cannot be used.

    An agent records the error as the reason its episode failed; the sweep goes on.

    ::

        AgentError
        ├── ModelReplyError      (also ValueError) empty reply, prose, or no admissible action
        ├── SandboxError         (also ValueError) a Code-as-Policies program uses a construct
        │   │                    the sandbox refuses (import, attribute, dunder name, eval…)
        │   └── ProgramBudgetError  (also TimeoutError) the program ran past its step or
        │                        time budget (e.g. an endless loop)
        └── SkillError           (also RuntimeError) a skill call failed in the environment
    """


class ModelReplyError(AgentError, ValueError):
    """The model's reply is empty, or names no action of the admissible set.

    Attributes
    ----------
    reply : str
        The reply as the model wrote it.
    """

    def __init__(self, message: str, reply: str = "") -> None:
        self.reply = reply
        super().__init__(message)


class SandboxError(AgentError, ValueError):
    """A program uses something the Code-as-Policies sandbox does not admit, or nests or
    builds a value past the sandbox's limits of size and depth.

    Attributes
    ----------
    line : int or None
        The program line at fault, when known.
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line else message)


class ProgramBudgetError(SandboxError, TimeoutError):
    """A program ran past its budget of interpreter steps, skill calls or seconds."""


class SkillError(AgentError, RuntimeError):
    """A skill call of a program could not run: unknown object, or refused by the
    environment (the message gives the environment's reason)."""
