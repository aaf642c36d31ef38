"""Environments behind one small protocol (:class:`Env`), and its checker.

Contents
--------
:class:`Env`, :data:`PropositionState`
    The Gymnasium-shaped protocol with proposition states and ``preview``.
:func:`check_env`
    Drives an environment through a short episode and checks the protocol.
:mod:`safetychip.envs.virtualhome`
    VirtualHome on its real executor: scenes, actions, propositions and task suites,
    re-exported here.
"""

from safetychip.envs._base import Env, PropositionState
from safetychip.envs._checker import check_env
from safetychip.envs.virtualhome import (
    PATTERNS,
    PREDICATES,
    SUITES,
    VERBS,
    Action,
    Constraint,
    Scene,
    SceneProposition,
    Task,
    VirtualHomeEnv,
    load_scene,
    load_tasks,
    load_virtualhome_graph,
    parse_action,
    parse_literal,
    parse_proposition,
)

__all__ = [
    "PATTERNS",
    "PREDICATES",
    "SUITES",
    "VERBS",
    "Action",
    "Constraint",
    "Env",
    "PropositionState",
    "Scene",
    "SceneProposition",
    "Task",
    "VirtualHomeEnv",
    "check_env",
    "load_scene",
    "load_tasks",
    "load_virtualhome_graph",
    "parse_action",
    "parse_literal",
    "parse_proposition",
]
