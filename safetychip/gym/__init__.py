"""The shield for Gymnasium environments (the ``gym`` extra: ``gymnasium`` and ``minigrid``).

A :class:`Labeller` maps what an environment shows to proposition states; the
:class:`ShieldWrapper` previews each action, has the one :class:`~safetychip.shield.Shield`
loop judge it, and steps it, a substitute, or nothing.

Contents
--------
:class:`ShieldWrapper`, :class:`ShieldInfo`, :data:`FALLBACKS`, :data:`Fallback`
    The wrapper, what it reports in ``info["shield"]``, and its substitution policies;
    :class:`SentenceTranslator`, what reads English constraints for it.
:class:`Labeller`, :func:`label_state`, :func:`checked_state`
    The labeller protocol and the check of its answers (fail safe).
:class:`GymEnv`, :class:`GymAction`, :data:`OneStepModel`
    A Gymnasium environment in safetychip's :class:`~safetychip.envs.Env` protocol, with
    preview by deep copy or by a one-step model.
:class:`MiniGridLabeller`, :data:`MINIGRID_PREDICATES`, :func:`minigrid_names`
    Grounded propositions of MiniGrid and BabyAI worlds (and a one-step model of them);
    the names of a world's objects, for a translator's vocabulary.
:class:`TextEnv`, :data:`TEXT_CHARACTERS`
    The project's own environments (VirtualHome, Spot, the mock) as Gymnasium environments.
:data:`MINIGRID_TASKS`, :func:`make_minigrid_env`
    MiniGrid and BabyAI missions with constraints as tasks of the suite format (importing
    this package registers the ``"minigrid"`` task environment).
:class:`VectorShieldWrapper`, :class:`VectorShieldInfo`
    The shield for ``gymnasium.vector`` environments: N proposals judged in one batched
    monitor call.
:func:`q_learning`, :class:`LearningCurve`, :func:`on_lava`, :data:`Referee`
    Shielded learning: tabular Q-learning on a MiniGrid world, with or without the shield.
"""

from safetychip._public import publish

from ..errors import missing

try:
    import gymnasium  # noqa: F401
except ImportError as exc:
    raise missing("gymnasium", "gym") from exc

from ._adapter import GymAction, GymEnv, OneStepModel
from ._labeller import Labeller, checked_state, label_state
from ._learning import LearningCurve, Referee, on_lava, q_learning
from ._minigrid import MINIGRID_PREDICATES, MiniGridLabeller, minigrid_names
from ._tasks import MINIGRID_TASKS, make_minigrid_env
from ._text_env import TEXT_CHARACTERS, TextEnv
from ._vector import VectorShieldInfo, VectorShieldWrapper
from ._wrapper import FALLBACKS, Fallback, SentenceTranslator, ShieldInfo, ShieldWrapper

__all__ = [
    "FALLBACKS", "Fallback", "GymAction", "GymEnv", "Labeller", "MINIGRID_PREDICATES",
    "MiniGridLabeller", "OneStepModel", "ShieldInfo", "ShieldWrapper", "TEXT_CHARACTERS",
    "TextEnv", "checked_state", "label_state", "minigrid_names",
    "SentenceTranslator", "VectorShieldInfo", "VectorShieldWrapper",
    # MiniGrid and BabyAI missions as tasks (registers the "minigrid" task environment)
    "MINIGRID_TASKS", "make_minigrid_env",
    # shielded learning
    "LearningCurve", "Referee", "on_lava", "q_learning",
]  # fmt: skip

publish(__name__, globals(), __all__)
