"""The shield wrapper: any Gymnasium environment, shielded in one line.

Each ``step(action)`` goes through the one :class:`~safetychip.shield.Shield` loop over a
:class:`GymEnv`: the action is previewed (a stepped deep copy of ``env.unwrapped``, or the
user's one-step model), labelled, judged by the constraint monitor and any other filters,
and stepped only if every filter admits it. A refused action is replaced by the first
admitted substitute of the fallback policy; when there is none, nothing runs (the step
returns the current observation, reward 0, and neither terminated nor truncated).
``info["shield"]`` is a :class:`ShieldInfo`: what was proposed, what ran, and every refusal
with its judgement. Fail safe: a labeller or model that raises or answers anything but one
bool per proposition makes the action refused, with the reason in ``info``; a labeller that
fails on what an action that ran produced stops the episode until ``reset``. With a one-step
model, a discrete action space and the constraint monitor as the only filter, a step whose
move the monitor has met takes a fast path (:mod:`safetychip.gym._fast`: the verdict is a
lookup, the record the same; anything else goes through the loop).

Examples
--------
>>> import gymnasium as gym
>>> import minigrid  # registers the MiniGrid environments
>>> from safetychip.gym import MiniGridLabeller
>>> env = ShieldWrapper(gym.make("MiniGrid-LavaCrossingS9N1-v0"), MiniGridLabeller(),
...                     ['G !"on_lava"'])
>>> _, info = env.reset(seed=1)
>>> info["shield"].admitted
True

English constraints, read by a translator over the world's names (here the offline one):

>>> from safetychip.gym import MINIGRID_PREDICATES, minigrid_names
>>> from safetychip.translate import Translator, Vocabulary
>>> names = minigrid_names(env.unwrapped)
>>> translator = Translator(Vocabulary.from_names(
...     names, rooms=[], predicates=dict.fromkeys(MINIGRID_PREDICATES, 1)), embedder=None)
>>> env = ShieldWrapper(gym.make("MiniGrid-LavaCrossingS9N1-v0"), MiniGridLabeller(),
...                     ["Never go onto the lava."], translator=translator)
>>> print(env.shield.monitor.constraints[0].formula)
G!"agent_at(lava)"
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, Protocol

import gymnasium
import gymnasium.utils

from ..errors import TranslationError
from ..monitor import CandidateMonitor, CandidateSet, Constraint, Monitor, Specification
from ..shield import Ask, Filter, Judgement, Shield, Step
from ._adapter import GymEnv, OneStepModel, discrete_size
from ._fast import FastPath
from ._labeller import Labeller

__all__ = ["FALLBACKS", "Fallback", "SentenceTranslator", "ShieldInfo", "ShieldWrapper"]

#: A fallback policy: ``fallback(observation, refused_action)`` gives the substitutes to try,
#: in order.
Fallback = Callable[[Any, Any], Iterable[Any]]


class SentenceTranslator(Protocol):
    """What reads English constraints for the wrapper: a
    :class:`safetychip.translate.Translator`, or anything with its ``translate`` method
    (returning an object whose ``constraint`` is the checked :class:`Constraint`, and
    raising :class:`~safetychip.errors.TranslationError` for a sentence it cannot read);
    :func:`translated_constraints` shows one.
    """

    def translate(self, sentence: str, *, accepted: Iterable[Constraint] = (),
                  name: str = "") -> Any: ...  # fmt: skip


#: What the wrapper enforces: a monitor, a specification, or formulas, constraints and
#: candidate sets.
Constraints = Monitor | Specification | Sequence[str | Constraint | CandidateSet]

#: The named fallback policies: ``"first"`` tries every action of a discrete action space in
#: order (the first admitted one runs); ``"none"`` substitutes nothing.
FALLBACKS = ("first", "none")


class ShieldInfo(NamedTuple):
    """What the shield did in one ``step`` (``info["shield"]``), or at ``reset``.

    Attributes
    ----------
    proposed : object
        The action the agent proposed (None at reset).
    executed : object
        The action that ran: the proposed one, a substitute, or None when nothing ran.
    step : Step or None
        The shield's record of the action that ran, with the judgement that admitted it.
    refusals : tuple of Step
        The actions refused on the way, the proposed one first: each with its judgement
        (``pruned``) or the reason it could not be previewed (``not_executable``).
    start : Judgement or None
        At reset: the filters' answer to the initial state.
    """

    proposed: Any
    executed: Any
    step: Step | None
    refusals: tuple[Step, ...] = ()
    start: Judgement | None = None

    @property
    def admitted(self) -> bool:
        """Whether the proposed action ran as proposed (at reset: the start was admitted)."""
        if self.start is not None:
            return self.start.admitted
        return self.step is not None and not self.refusals

    @property
    def substituted(self) -> bool:
        """Whether a substitute ran instead of the refused proposal."""
        return self.step is not None and bool(self.refusals)

    @property
    def reason(self) -> str:
        """Why the proposal was refused ("" when it was admitted)."""
        if self.start is not None:
            return "" if self.start.admitted else self.start.reason
        if not self.refusals:
            return ""
        first = self.refusals[0]
        return first.judgement.reason if first.judgement is not None else first.error or ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (actions as text)."""
        return {
            "proposed": None if self.proposed is None else str(self.proposed),
            "executed": None if self.executed is None else str(self.executed),
            "admitted": self.admitted, "substituted": self.substituted, "reason": self.reason,
            "step": self.step.to_dict() if self.step is not None else None,
            "refusals": [s.to_dict() for s in self.refusals],
            "start": self.start.to_dict() if self.start is not None else None,
        }  # fmt: skip


class ShieldWrapper(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """Refuse the actions of a Gymnasium environment that would break the constraints.

    Parameters
    ----------
    env : gymnasium.Env
        The environment to shield.
    labeller : Labeller
        Maps what the environment shows to proposition states.
    constraints : Monitor, Specification, or sequence of str or Constraint
        What must hold (formulas in Spot syntax with quoted atoms: ``G !"on_lava"``; with a
        *translator*, English sentences).
    model : callable, optional
        A one-step model ``model(unwrapped_env, action, propositions)`` giving the state an
        action would produce; without it, a deep copy of ``env.unwrapped`` is stepped.
    fallback : {"first", "none"} or callable
        What runs instead of a refused action (:data:`FALLBACKS`), or a callable
        ``fallback(observation, action)`` returning the substitutes to try in order.
    filters : sequence of Filter
        More filters, judged after the constraint monitor.
    filter_seconds : float or None
        The time budget of each filter that does not bound its own time.
    translator : SentenceTranslator, optional
        Reads each string of *constraints* as an English sentence (a
        :class:`safetychip.translate.Translator` over a vocabulary of the world's names,
        e.g. :func:`minigrid_names`, and the labeller's predicates); each must be satisfiable
        with those before it. :class:`Constraint` objects are taken as they are.
    ask : callable, optional
        ``ask(question) -> bool | None`` for constraints given as candidate sets (a
        :class:`~safetychip.monitor.CandidateMonitor`, or
        :class:`~safetychip.monitor.CandidateSet` items): called when their candidates
        disagree about an action (:class:`~safetychip.shield.MonitorFilter`). Without it
        such an action is refused and its question recorded in the monitor's
        ``open_questions``.

    Attributes
    ----------
    shield : Shield
        The loop, over :attr:`adapter`; ``shield.steps`` is the episode so far.
    adapter : GymEnv
        The environment in safetychip's protocol.

    Notes
    -----
    ``gymnasium.make(env.spec)`` recreates the wrapper from its arguments: a new monitor from
    the constraints of the one given, the same labeller, model and filters.

    Raises
    ------
    PropositionError
        If the constraints use a proposition the labeller cannot produce.
    PreviewError
        If the environment cannot be deep-copied and no *model* is given.
    TranslationError
        If the *translator* cannot read a sentence (the message names it and says why).
    ValueError
        If *fallback* is unknown, or ``"first"`` on an action space that is not discrete,
        or a *translator* is given with a Monitor or a Specification.
    """

    def __init__(self, env: gymnasium.Env, labeller: Labeller, constraints: Constraints, *,
                 model: OneStepModel | None = None, fallback: str | Fallback = "first",
                 filters: Sequence[Filter] = (), filter_seconds: float | None = 5.0,
                 translator: SentenceTranslator | None = None,
                 ask: Ask | None = None) -> None:  # fmt: skip
        if translator is not None:
            constraints = translated_constraints(constraints, translator)
        # What gymnasium.make recreates the wrapper from (env.spec): a monitor's constraints,
        # so that a recreated wrapper has its own monitor (translated sentences: their
        # constraints); the other arguments as given.
        recorded = (constraints.specification() if isinstance(constraints, CandidateMonitor)
                    else constraints.constraints if isinstance(constraints, Monitor)
                    else constraints)  # fmt: skip
        gymnasium.utils.RecordConstructorArgs.__init__(
            self, labeller=labeller, constraints=recorded, model=model, fallback=fallback,
            filters=filters, filter_seconds=filter_seconds, translator=None, ask=ask,
            _disable_deepcopy=True)  # fmt: skip
        gymnasium.Wrapper.__init__(self, env)
        self.adapter = GymEnv(env, labeller, model)
        self._fallback = fallback_policy(fallback, env.action_space)
        self.shield = Shield.of(self.adapter, as_monitor(constraints), *filters,
                                idle_seconds=0, filter_seconds=filter_seconds,
                                ask=ask)  # fmt: skip
        self.adapter.track(self.shield.propositions)  # an unknown proposition fails here
        self._fast = FastPath.of(self.adapter, self.shield)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:  # fmt: skip
        """Reset the environment and the filters; ``info["shield"]`` holds the start's
        judgement (a refused start: every later step raises until the next reset)."""
        start = self.shield.reset(seed=seed, options=options)
        observation, info = self._last()
        return observation, {**info, "shield": ShieldInfo(None, None, None, start=start)}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Run *action* if every filter admits it, else the first admitted substitute, else
        nothing; ``info["shield"]`` says which (a :class:`ShieldInfo`).

        Raises
        ------
        MonitorError
            If the episode is over or the start was refused: call ``reset()``.
        LabellerError
            If an action ran but the labeller cannot label what it produced (a one-step
            model foresaw it, the real world differs): the episode stops.
        ResetNeeded
            On every step after that, until ``reset()``.
        """
        ran, step = action, self._propose(action)
        refusals: list[Step] = []
        if not step.executed:
            refusals.append(step)
            observation = self._last()[0]
            for ran in self._fallback(observation, action):
                if str(ran) == refusals[0].action:  # refused already
                    continue
                step = self._propose(ran)
                if step.executed:
                    break
                refusals.append(step)
        if not step.executed:  # nothing ran: the world is as it was
            observation, info = self._last()
            report = ShieldInfo(action, None, None, tuple(refusals))
            return observation, 0.0, False, False, {**info, "shield": report}
        observation, reward, terminated, truncated, info = self.adapter.last  # type: ignore[misc]
        report = ShieldInfo(action, ran, step, tuple(refusals))
        return observation, reward, terminated, truncated, {**info, "shield": report}

    def _propose(self, action: Any) -> Step:
        """``shield.propose(action)``, by the :class:`FastPath` when it can decide."""
        fast = self._fast
        step = fast.propose(action) if fast is not None else None
        return step if step is not None else self.shield.propose(action)

    def _last(self) -> tuple[Any, dict[str, Any]]:
        """The last observation and info of the real environment."""
        observation, *_, info = self.adapter.last  # type: ignore[misc]
        return observation, info


def translated_constraints(constraints: Any, translator: SentenceTranslator) -> list[Constraint]:
    """*constraints* with each string read as English by *translator* (named ``c1``, ``c2``
    … by position, each checked against those before it).

    Raises
    ------
    TranslationError
        Naming the sentence the translator cannot read, and why.
    ValueError
        If *constraints* is a Monitor, a Specification or a single string.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> class Lava:  # reads every sentence as "never on lava"
    ...     def translate(self, sentence, *, accepted=(), name=""):
    ...         formula = 'G !"on_lava"'
    ...         return SimpleNamespace(constraint=Constraint.parse(formula, sentence, name=name))
    >>> translated_constraints(["keep off the lava"], Lava())[0].sentence
    'keep off the lava'
    """
    if isinstance(constraints, (Monitor, Specification, str)):
        raise ValueError(f"a translator reads a list of English sentences, got a "
                         f"{type(constraints).__name__}: pass [sentence, ...], or no "
                         "translator")  # fmt: skip
    done: list[Constraint] = []
    for k, constraint in enumerate(constraints, 1):
        if not isinstance(constraint, str):
            done.append(constraint)
            continue
        try:
            done.append(translator.translate(constraint, accepted=done, name=f"c{k}").constraint)
        except TranslationError as exc:
            raise TranslationError(f"constraint {k}, {constraint!r}, cannot be read: {exc} "
                                   "(rephrase it, or give its formula as a "
                                   "Constraint)") from exc  # fmt: skip
    return done


def as_monitor(constraints: Constraints) -> Monitor:
    """The monitor of *constraints*."""
    if isinstance(constraints, Monitor):
        return constraints
    if isinstance(constraints, Specification):
        return constraints.monitor()
    if isinstance(constraints, str):
        raise TypeError(f"constraints must be a list of formulas, got the string "
                        f"{constraints!r}: write [{constraints!r}]")  # fmt: skip
    items = list(constraints)
    if any(isinstance(c, CandidateSet) for c in items):
        return CandidateMonitor(items)
    return Monitor([c for c in items if not isinstance(c, CandidateSet)])  # all of them


def fallback_policy(fallback: str | Fallback, space: Any) -> Fallback:
    """The fallback policy *fallback* names, as a callable, for the action space *space*."""
    if callable(fallback):
        return fallback
    if fallback == "none":
        return lambda observation, action: ()
    if fallback == "first":
        n = discrete_size(space)
        if not n:
            raise ValueError(f"fallback 'first' needs a discrete action space, got "
                             f"{space}: pass fallback='none' or a "
                             "callable(observation, action) giving substitutes")  # fmt: skip
        values = list(range(n))
        return lambda observation, action: values
    raise ValueError(f"fallback must be one of {FALLBACKS} or a callable, got {fallback!r}")
