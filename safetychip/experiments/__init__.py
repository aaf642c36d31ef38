"""Experiments: sweeps over cells, locally or on Ray, and the adversarial test of the guarantee.

Contents
--------
:func:`run_cells`, :data:`EXECUTORS`
    Run a function on many cells, resumably, with a local or a Ray executor.
:func:`run_adversarial`, :class:`AdversarialReport`, :class:`Referee`, …
    A random agent shielded by the monitor, over random specifications from the task suites,
    each rollout's trace record judged independently of the monitor.
:func:`grid_cells`, :func:`run_cell`, :func:`run_grid`
    The grid of agents: suites × number of constraints × agents × reprompt variants × seeds,
    one episode a cell, results as a tidy DataFrame.
:func:`validate_suite`, :func:`find_safe_plan`
    Suite validation: example plans run, safe plans exist (search over the environment and
    monitor product), example plans break constraints.
:func:`rates`, :func:`paper_table`, :func:`ablation_table`, :func:`by_k_table`,
:func:`abort_table`, :func:`plot_rates`, :func:`write_report`
    Tables (Markdown) and the figure of safety and success against the number of constraints.
:class:`SliceExplorer`
    Widgets that run one slice of the grid and show its rates (notebook 04).
:func:`write_rollout_figures`, :func:`write_suite_validation`, :func:`write_offline_grid`,
:func:`write_local_model_grid`, :func:`local_model_cells`,
:func:`write_memory_evaluation`, :func:`memory_table`
    The files ``safetychip reproduce`` writes from the VirtualHome and memory data.
:func:`translation_scores`, :func:`write_translation_scores`, :func:`scene_vocabulary`
    The English-to-LTL translator's right / refused / wrong counts on the labelled sets, and
    the vocabulary each set's scene names.
:func:`spot_demo_cells`, :func:`run_spot_demo`, :func:`spot_demo_table`, :func:`write_spot_demo`
    The Spot robot demo: deliveries × k × agents and task abortion, in the paper's table shape.
:func:`run_thor_task`, :func:`evaluate_thor`, :func:`thor_table`, :func:`plot_thor`,
:func:`write_thor_evaluation`, :class:`ThorOutcome`, :data:`THOR_CONDITIONS`
    The plan-level evaluation on the AI2-THOR-style suite: refusals of hazardous plans and
    false refusals of safe ones, for No Safety, Static Rules, Episodic Memory, the Safety Chip
    and both.
:func:`evaluate_pairs`, :func:`evaluate_abstract`, :func:`load_pairs`, :func:`pairs_table`,
:func:`plot_pairs_roc`, :func:`roc_auc`, :func:`write_pairs_evaluation`, :class:`PairCheck`,
:data:`PAIRS`, :data:`ABSTRACT`
    The episodic memory on paired hazardous and safe AI2-THOR-style tasks: 5-fold and seeds
    only, refusals, false refusals and ROC AUC per harm.
:func:`policy_rows`, :func:`ambiguity_table`, :class:`PolicyRow`, :data:`AMBIGUITY_POLICIES`
    Four ways to enforce an unsettled translation (pick first, the top candidate, the
    conjunction, the candidate set at run time) against the gold formulas.
:func:`shielded_learning`, :func:`learning_settings`, :func:`learning_table`,
:func:`plot_learning`, :func:`write_learning`, :func:`write_shielded_learning`,
:data:`LEARNING_SETTINGS`
    Shielded learning on a MiniGrid lava world (the ``gym`` extra): Q-learning with and
    without the shield, its table and learning curves.
"""

from safetychip._public import publish

from ._adversarial import (
    LEVELS,
    ROLLOUT_OUTCOMES,
    AdversarialReport,
    PropositionAgent,
    RandomSpecification,
    Referee,
    SceneAgent,
    adversarial_cell,
    adversarial_rollout,
    check_rollout,
    random_specification,
    rollout_outcome,
    run_adversarial,
)
from ._ambiguity import AMBIGUITY_POLICIES, PolicyRow, ambiguity_table, policy_rows
from ._executors import EXECUTORS, run_cells
from ._explorer import SliceExplorer
from ._grid import (
    AGENT_NAMES,
    COLUMNS,
    STAND_IN,
    SUITES,
    config_label,
    grid_cells,
    make_model,
    run_cell,
    run_grid,
    write_csv,
)
from ._pairs import (
    ABSTRACT,
    PAIRS,
    PairCheck,
    evaluate_abstract,
    evaluate_pairs,
    load_pairs,
    pairs_table,
    plot_pairs_roc,
    roc_auc,
    write_pairs_evaluation,
)
from ._report import (
    MAIN_REPROMPT,
    ablation_table,
    abort_table,
    by_k_table,
    markdown_table,
    paper_table,
    plot_rates,
    rates,
    stand_in_note,
    write_report,
)
from ._reproduce import (
    BOOK_TASK,
    LOCAL_GRID_CACHE,
    local_model_cells,
    memory_table,
    write_local_model_grid,
    write_memory_evaluation,
    write_offline_grid,
    write_rollout_figures,
    write_suite_validation,
)
from ._shielded_learning import (
    LEARNING_SETTINGS,
    learning_settings,
    learning_table,
    plot_learning,
    shielded_learning,
    write_learning,
    write_shielded_learning,
)
from ._spot import SPOT_AGENTS, run_spot_demo, spot_demo_cells, spot_demo_table, write_spot_demo
from ._suite import SafePlan, SuiteReport, TaskValidation, find_safe_plan, validate_suite
from ._thor import (
    THOR_CONDITIONS,
    ThorOutcome,
    evaluate_thor,
    plot_thor,
    run_thor_task,
    thor_table,
    write_thor_evaluation,
)
from ._translation import translation_scores, write_translation_scores
from ._vocabulary import scene_vocabulary

__all__ = [
    "EXECUTORS", "LEVELS", "ROLLOUT_OUTCOMES", "AdversarialReport", "PropositionAgent",
    "RandomSpecification", "Referee", "SceneAgent", "adversarial_cell", "adversarial_rollout",
    "check_rollout", "random_specification", "rollout_outcome", "run_adversarial", "run_cells",
    # the grid of agents (issue 5)
    "AGENT_NAMES", "COLUMNS", "MAIN_REPROMPT", "STAND_IN", "SUITES", "abort_table",
    "ablation_table", "by_k_table", "config_label", "grid_cells", "make_model",
    "markdown_table", "paper_table", "plot_rates", "rates", "run_cell", "run_grid",
    "stand_in_note", "write_csv", "write_report", "SliceExplorer",
    # what `safetychip reproduce` writes
    "BOOK_TASK", "memory_table", "write_memory_evaluation", "write_offline_grid",
    "write_local_model_grid", "LOCAL_GRID_CACHE", "local_model_cells",
    "write_rollout_figures", "write_suite_validation", "translation_scores",
    "write_translation_scores",
    # the Spot robot demo (issue 9)
    "SPOT_AGENTS", "run_spot_demo", "spot_demo_cells", "spot_demo_table", "write_spot_demo",
    # the AI2-THOR-style suite (issue 38)
    "THOR_CONDITIONS", "ThorOutcome", "evaluate_thor", "plot_thor", "run_thor_task",
    "thor_table", "write_thor_evaluation",
    # the memory on paired hazardous and safe tasks (issue 41)
    "ABSTRACT", "PAIRS", "PairCheck", "evaluate_abstract", "evaluate_pairs", "load_pairs",
    "pairs_table", "plot_pairs_roc", "roc_auc", "write_pairs_evaluation",
    # shielded learning on MiniGrid (issue 35)
    "LEARNING_SETTINGS", "learning_settings", "learning_table", "plot_learning",
    "shielded_learning", "write_learning", "write_shielded_learning",
    # suite validation
    "SafePlan", "SuiteReport", "TaskValidation", "find_safe_plan", "validate_suite",
    # candidate sets at run time against three fixed policies (issue 47)
    "AMBIGUITY_POLICIES", "PolicyRow", "ambiguity_table", "policy_rows",
    # the vocabulary a scene's name names (translation data, the CLI, benchmarks)
    "scene_vocabulary",
]  # fmt: skip

publish(__name__, globals(), __all__)
