"""Experiments: sweeps over cells, locally or on Ray, and the adversarial test of the guarantee.

Contents
--------
:func:`run_cells`, :data:`EXECUTORS`
    Run a function on many cells, resumably, with a local or a Ray executor.
:func:`run_adversarial`, :class:`AdversarialReport`, :class:`Referee`, …
    A random agent under the monitor, over random specifications from the task suites, each
    rollout judged independently of the monitor.
"""

from ._adversarial import (
    LEVELS,
    AdversarialReport,
    PropositionWorld,
    Referee,
    SceneWorld,
    Specification,
    adversarial_cell,
    adversarial_rollout,
    check_rollout,
    random_specification,
    run_adversarial,
)
from ._executors import EXECUTORS, run_cells

__all__ = [
    "EXECUTORS", "LEVELS", "AdversarialReport", "PropositionWorld", "Referee", "SceneWorld",
    "Specification", "adversarial_cell", "adversarial_rollout", "check_rollout",
    "random_specification", "run_adversarial", "run_cells",
]  # fmt: skip
