"""The shield for ``gymnasium.vector`` environments: N copies judged in one batch.

A :class:`VectorShieldWrapper` wraps a ``SyncVectorEnv`` (``gymnasium.make_vec(...,
vectorization_mode="sync")``) whose autoreset mode is ``NEXT_STEP`` (Gymnasium's default).
Each ``step(actions)`` previews every copy's proposal (the one-step model, or a stepped deep
copy of that copy's unwrapped environment), labels the N previews into one ``(N, atoms)``
bool array, and asks a :class:`~safetychip.monitor.BatchMonitor` once for the N verdicts;
refused proposals are replaced by the fallback's substitutes, a round of one batched check
per substitute, until each copy has an admitted action. Then the vector environment steps,
and each copy's real state is appended to its trace. A labeller with batched forms (the
MiniGrid one: :meth:`~safetychip.gym.Labeller.label_batch`, and ``model_batch`` when the
model is its own) labels and previews the N copies with numpy, leaving to the one-copy
previews the rows it does not know (and all of them if it fails). A copy that Gymnasium
resets on this step (its last step ended the episode) ignores its action, as Gymnasium does,
and starts a new trace.

The verdicts are those of N :class:`~safetychip.gym.ShieldWrapper` s with the same fallback
(the tests check it on random rollouts); what the batch does not give is the attribution (which
constraint an action breaks): ``info["shield"].reasons`` says that the specification is
broken, or why a preview failed. Fail safe: a preview whose labeller or model fails refuses
that proposal; when no action of some copy is admitted, nothing runs in any copy and the
step raises :class:`~safetychip.errors.NoSafePlan`.

Examples
--------
>>> import gymnasium as gym
>>> import minigrid  # registers the MiniGrid environments
>>> from safetychip.gym import MiniGridLabeller
>>> labeller = MiniGridLabeller()
>>> envs = VectorShieldWrapper(
...     gym.make_vec("MiniGrid-LavaGapS5-v0", num_envs=3, vectorization_mode="sync"),
...     labeller, ['G !"on_lava"'], model=labeller.model)
>>> _, info = envs.reset(seed=0)
>>> info["shield"].admitted.tolist()
[True, True, True]
>>> _, _, _, _, info = envs.step([2, 1, 2])  # forward is onto lava in all three
>>> info["shield"].admitted.tolist(), info["shield"].executed.tolist()
([False, True, False], [0, 1, 0])
>>> info["shield"].reasons[0]
'it would leave the specification unsatisfiable'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from ..errors import LabellerError, NoSafePlan, PropositionError, ResetNeeded
from ..monitor import BatchMonitor, Constraint, Monitor, Specification
from ._adapter import OneStepModel, check_preview, preview
from ._labeller import Labeller, label_state
from ._wrapper import (
    Fallback,
    SentenceTranslator,
    as_monitor,
    fallback_policy,
    translated_constraints,
)

__all__ = ["VectorShieldInfo", "VectorShieldWrapper"]

#: The reason given for a proposal the batched monitor refuses.
_BROKEN = "it would leave the specification unsatisfiable"


class VectorShieldInfo(NamedTuple):
    """What the shield did in one vector ``step`` (``info["shield"]``), one entry per copy.

    Attributes
    ----------
    proposed : numpy.ndarray
        The actions proposed.
    executed : numpy.ndarray
        The actions that ran (the proposal, or a substitute; the proposal in copies that
        were reset instead).
    admitted : numpy.ndarray
        Whether each proposal ran as proposed (at reset: whether the start is safe).
    substituted : numpy.ndarray
        Whether a substitute ran instead.
    resetting : numpy.ndarray
        Whether the copy was reset on this step (its action ignored, as Gymnasium does).
    refusals : numpy.ndarray
        How many actions were refused in each copy before one was admitted.
    reasons : tuple of str
        Why each copy's proposal was refused ("" when it was admitted).
    safe : numpy.ndarray
        Whether each copy's trace, with the state the real step produced, can still satisfy
        the specification (False only where the real world differs from the preview).

    Examples
    --------
    >>> VectorShieldInfo._fields[:4]
    ('proposed', 'executed', 'admitted', 'substituted')
    """

    proposed: np.ndarray
    executed: np.ndarray
    admitted: np.ndarray
    substituted: np.ndarray
    resetting: np.ndarray
    refusals: np.ndarray
    reasons: tuple[str, ...]
    safe: np.ndarray


class VectorShieldWrapper(gymnasium.vector.VectorWrapper):
    """Refuse the actions of a ``SyncVectorEnv``'s copies that would break the constraints,
    judging the N proposals in one :class:`~safetychip.monitor.BatchMonitor` call.

    Parameters
    ----------
    env : gymnasium.vector.SyncVectorEnv
        The copies (autoreset mode ``NEXT_STEP``).
    labeller : Labeller
        Maps what each copy shows to proposition states.
    constraints : Monitor, Specification, or sequence of str or Constraint
        What must hold in every copy (one specification, one trace per copy).
    model : callable, optional
        A one-step model (as for :class:`~safetychip.gym.ShieldWrapper`); without it each
        preview steps a deep copy of the copy's unwrapped environment.
    fallback : {"first", "none"} or callable
        The substitutes to try, as for :class:`~safetychip.gym.ShieldWrapper`.
    translator : SentenceTranslator, optional
        Reads the strings of *constraints* as English, as for
        :class:`~safetychip.gym.ShieldWrapper`.

    Attributes
    ----------
    batch : BatchMonitor
        The N traces' automaton states.

    Raises
    ------
    TypeError
        If *env* is not a ``SyncVectorEnv`` (the previews read its copies in this process).
    ValueError
        If its autoreset mode is not ``NEXT_STEP``, or *fallback* is unknown.
    PropositionError
        If the constraints use a proposition the labeller cannot produce.
    PreviewError
        If the copies cannot be deep-copied and no *model* is given.
    TranslationError
        If the *translator* cannot read a sentence.

    Examples
    --------
    >>> import gymnasium as gym
    >>> import minigrid  # registers the MiniGrid environments
    >>> from safetychip.gym import MiniGridLabeller
    >>> envs = VectorShieldWrapper(
    ...     gym.make_vec("MiniGrid-LavaGapS5-v0", num_envs=2, vectorization_mode="sync"),
    ...     MiniGridLabeller(), ['G !"on_lava"'])
    >>> envs.batch
    <BatchMonitor: 2 traces, 1 constraints>
    """

    def __init__(self, env: gymnasium.vector.VectorEnv, labeller: Labeller,
                 constraints: Monitor | Specification | Sequence[str | Constraint], *,
                 model: OneStepModel | None = None, fallback: str | Fallback = "first",
                 translator: SentenceTranslator | None = None) -> None:  # fmt: skip
        if not isinstance(env.unwrapped, SyncVectorEnv):
            raise TypeError(f"VectorShieldWrapper previews the copies in this process: wrap a "
                            f"SyncVectorEnv (gymnasium.make_vec(..., vectorization_mode="
                            f"'sync')), got {type(env.unwrapped).__name__}")  # fmt: skip
        mode = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
        if mode != AutoresetMode.NEXT_STEP:
            raise ValueError(f"VectorShieldWrapper needs the autoreset mode NEXT_STEP "
                             f"(Gymnasium's default), got {mode}")  # fmt: skip
        if not isinstance(labeller, Labeller):
            raise TypeError(f"labeller must be a safetychip.gym.Labeller, got "
                            f"{type(labeller).__name__}")  # fmt: skip
        super().__init__(env)
        self.labeller, self.model = labeller, model
        self.copies = env.unwrapped.envs
        self._worlds = [copy.unwrapped for copy in self.copies]
        check_preview(self._worlds[0], model)
        # the labeller's batched form of the model, when the model is the labeller's own
        own = model is not None and model == getattr(labeller, "model", None)
        self._batched = getattr(labeller, "model_batch", None) if own else None
        self._fallback = fallback_policy(fallback, env.single_action_space)
        if translator is not None:
            constraints = translated_constraints(constraints, translator)
        self.batch = BatchMonitor(as_monitor(constraints), self.num_envs)
        unknown = [p for p in self.batch.atoms if not labeller.knows(p)]
        if unknown:
            raise PropositionError(
                f"labeller {type(labeller).__name__} cannot produce {unknown}: write the "
                "constraints over the propositions it knows, or extend its knows()/label()"
            )
        self._observations: Any = None
        self._resetting = np.zeros(self.num_envs, bool)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:  # fmt: skip
        """Reset every copy and start its trace; ``info["shield"].admitted`` says whether
        each start is safe.

        Raises
        ------
        LabellerError
            If the labeller cannot label a copy's initial state.
        """
        self._observations = None  # until every start is labelled
        observations, info = self.env.reset(seed=seed, options=options)
        everyone = np.ones(self.num_envs, bool)
        safe = self.batch.reset(self._labels(observations, info, everyone), everyone)
        self._observations, self._resetting = observations, np.zeros(self.num_envs, bool)
        n = self.num_envs
        report = VectorShieldInfo(np.full(n, None), np.full(n, None), safe, np.zeros(n, bool),
                                  np.zeros(n, bool), np.zeros(n, int), ("",) * n, safe)  # fmt: skip
        return observations, {**info, "shield": report}

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Run each copy's proposal if admitted, else its first admitted substitute;
        ``info["shield"]`` is a :class:`VectorShieldInfo`.

        Raises
        ------
        NoSafePlan
            If some copy has no admitted action (nothing ran in any copy).
        LabellerError
            If the labeller cannot label a state the real step produced: the copies ran, so
            every later step raises ``ResetNeeded`` until ``reset()``.
        ResetNeeded
            Before ``reset``, or after such a failure.
        """
        if self._observations is None:
            raise ResetNeeded("the vector environment was not reset, or a state it produced "
                              "could not be labelled: call reset()")  # fmt: skip
        proposed = np.asarray(actions)
        n, resetting = self.num_envs, self._resetting
        executed = proposed.copy()
        refusals, reasons = np.zeros(n, int), [""] * n
        pending = ~resetting
        candidates: dict[int, Iterator[Any]] = {}  # each refused copy's substitutes
        tried = proposed.copy()
        while pending.any():
            rows = np.flatnonzero(pending)
            if candidates:  # a round of substitutes, one for each copy still refused
                for i in rows.tolist():
                    action = next(candidates[i], None)
                    if action is None:
                        raise NoSafePlan(f"no action of copy {i} is admitted (its proposal "
                                         f"{proposed[i]} was refused: {reasons[i]}); nothing "
                                         "ran in any copy: pass a fallback that offers an "
                                         "admitted action")  # fmt: skip
                    tried[i] = action
            letters, errors = self._previews(rows, tried[rows])
            previewed = pending.copy()
            for j in (j for j, error in enumerate(errors) if error):  # cannot be previewed
                i = rows[j]
                refusals[i] += 1
                reasons[i] = reasons[i] or errors[j]
                previewed[i] = False
            safe = self.batch.check(letters)
            admitted = previewed & safe
            executed[admitted] = tried[admitted]
            for i in np.flatnonzero(previewed & ~safe):
                refusals[i] += 1
                reasons[i] = reasons[i] or _BROKEN
            pending &= ~admitted
            for i in np.flatnonzero(pending).tolist():
                if i not in candidates:
                    candidates[i] = self._candidates(i, proposed[i])
        observations, rewards, terminated, truncated, info = self.env.step(executed)
        self._observations = None  # until every state is labelled
        letters = self._labels(observations, info, np.ones(n, bool))
        safe = self.batch.commit(letters, ~resetting)
        if resetting.any():
            safe[resetting] = self.batch.reset(letters, resetting)[resetting]
        self._observations, self._resetting = observations, terminated | truncated
        admitted = ~resetting & (refusals == 0)
        report = VectorShieldInfo(proposed, executed, admitted, ~resetting & (refusals > 0),
                                  resetting, refusals, tuple(reasons), safe)  # fmt: skip
        return observations, rewards, terminated, truncated, {**info, "shield": report}

    def _candidates(self, i: int, action: Any) -> Iterator[Any]:
        """Copy *i*'s fallback's substitutes other than its refused proposal *action*."""
        observation = _row(self._observations, i)
        yield from (a for a in self._fallback(observation, action) if a != action)

    def _previews(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, list[str]]:
        """The ``(N, atoms)`` letters the *actions* of the copies *rows* would produce (zeros
        elsewhere), and for each of *rows* why its preview failed ("" if it did not): the
        labeller's batched model where it knows them, else one preview per copy.
        """
        atoms, labeller = self.batch.atoms, self.labeller
        letters = np.zeros((self.num_envs, len(atoms)), bool)
        errors = [""] * len(rows)
        known = np.zeros(len(rows), bool)
        if self._batched is not None:
            try:
                worlds = self._worlds
                if len(rows) < len(worlds):
                    worlds = [worlds[i] for i in rows.tolist()]
                found = self._batched(worlds, actions, atoms)
            except Exception:  # previewed one by one below, which refuses with the reason
                found = None
            if found is not None:
                known = np.asarray(found[1], bool)
                letters[rows[known]] = np.asarray(found[0], bool)[known]
        for j in np.flatnonzero(~known):
            i = rows[j]
            ahead = preview(self._worlds[i], actions[j], labeller, self.model, atoms)
            if ahead.error is not None:
                errors[j] = ahead.error
            else:
                letters[i] = [ahead.states[0][p] for p in atoms]
        return letters, errors

    def _labels(self, observations: Any, info: dict[str, Any], rows: np.ndarray) -> np.ndarray:
        """The ``(N, atoms)`` letters of the copies' current states (zeros outside *rows*).

        Raises
        ------
        LabellerError
            If the labeller cannot label some copy's state (naming the copy).
        """
        atoms = self.batch.atoms
        if rows.all():
            try:
                batched = self.labeller.label_batch(self._worlds, atoms)
            except Exception:  # labelled one by one below, which raises with the reason
                batched = None
            if batched is not None:
                return np.asarray(batched, bool)
        letters = np.zeros((self.num_envs, len(atoms)), bool)
        for i in np.flatnonzero(rows):
            world = self._worlds[i]
            try:
                state = label_state(self.labeller, _row(observations, int(i)), _row(info, int(i)),
                                    world, self.batch.atoms)  # fmt: skip
            except LabellerError as exc:
                raise LabellerError(f"copy {i}: {exc}") from exc
            letters[i] = [state[p] for p in self.batch.atoms]
        return letters


def _row(batched: Any, i: int) -> Any:
    """Copy *i*'s part of a batched observation or info (dicts of arrays, arrays)."""
    if isinstance(batched, dict):
        return {k: _row(v, i) for k, v in batched.items() if not k.startswith("_")}
    if isinstance(batched, (np.ndarray, tuple, list)):
        return batched[i]
    return batched
