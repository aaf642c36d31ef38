"""Episodic safety memory: remember unsafe and harmless episodes, block commands more like
the unsafe ones.

::

    Episode           ⟨command, scene, harm or None (harmless), time, source, confidence,
                      action frames⟩
    ActionFrame       one action: verb, object and target with their affordances, and the
                      state changes it caused; frame_similarity, frames_similarity,
                      effect_matches
    HARMS, Harm       the open harm taxonomy (fire, electric_shock, … and the user's own);
                      harm_name reads a free-text name, define_harm adds one
    Rule              ⟨verb × class or attribute → block, θ⟩, matched with the lexicon VERBS;
                      or over affordances ⟨state change × features⟩ ("broken × breakable")
    SceneGraph        objects (class, attributes) and relations; scene_similarity, whole or
                      centred on the objects two commands act on (HAZARDS, OBJECT_WEIGHTS)
    MemoryConfig      alpha, delta_ep, delta_sem, delta_safe, verb_weight; consolidation,
                      capacity, overrides, decay
    MemoryStore       what the backends share: rows with checksums, backup (a consistent
                      copy); open_store picks one from a path or URL
    SQLiteStore       one WAL file; an episode is stored whole or not at all; readonly opens
                      never create or change the file
    PostgresStore     one PostgreSQL database a fleet of robots shares (memory-postgres extra)
    EpisodicMemory    add, check -> MemoryDecision (the harmful and the harmless episode it
                      weighed, the rule, scores, reason, alternative); seed, report_harm,
                      record (harmless runs too), consolidate, override; archived (count)
    MemoryFilter      the memory as a shield filter: refuses with the safe alternative,
                      commits what ran (and the harm the caller detects) to the memory
    load_seeds        the ten seed violations of data/memory/seeds.json
    cluster_episodes, rule_pattern, effect_clusters, split_rule, decay
                      the lifecycle's algorithms
    WordEmbedder      a deterministic offline stand-in for MiniLM (tests, doctests)
    Scenario, make_scenarios, load_scenarios, interaction_stream
                      the evaluation's scenes and commands, and a stream with new objects
    evaluate, run_memory_evaluation, plot_memory_growth
                      No Safety, Static Rules (STATIC_RULES, expand_rules), Episodic Memory;
                      safetychip.experiments.memory_table writes the table

Errors: :class:`~safetychip.errors.MemoryStoreError` (an unusable memory file),
:class:`~safetychip.errors.UnknownHarmError` (also ValueError: a harm the taxonomy lacks,
with the nearest ones), :class:`~safetychip.errors.ActionFrameError` (also ValueError: a frame
without a verb, or malformed), ValueError for malformed episodes, rules, scenes, commands and
configurations; :class:`~safetychip.errors.MemoryCapacityWarning` when archiving begins.
"""

from safetychip._public import publish

from ._action import ActionFrame, effect_matches, frame_similarity, frames_similarity
from ._config import MemoryConfig
from ._decision import MemoryDecision
from ._episode import (
    FUNCTION_WORDS,
    MAX_COMMAND,
    SOURCES,
    VERBS,
    Episode,
    Rule,
    acted_object,
    check_command,
    command_verb,
)
from ._evaluate import (
    CONDITIONS,
    EMBEDDERS,
    STATIC_RULES,
    Evaluation,
    evaluate,
    expand_rules,
    plot_memory_growth,
    run_memory_evaluation,
)
from ._filter import MemoryFilter
from ._harms import ALTERNATIVES, HARMS, Harm, define_harm, harm_name
from ._lifecycle import (
    SEEDS,
    cluster_episodes,
    decay,
    effect_clusters,
    load_seeds,
    rule_pattern,
    split_rule,
)
from ._memory import EpisodicMemory
from ._open import open_store
from ._postgres import PostgresStore
from ._scenarios import (
    FAMILIES,
    SAFE,
    SCENARIOS,
    UNSAFE,
    Scenario,
    interaction_stream,
    load_scenarios,
    make_scenarios,
)
from ._scene import (
    HAZARDS,
    OBJECT_WEIGHTS,
    SCENE_WEIGHTS,
    SceneGraph,
    SceneObject,
    scene_similarity,
)
from ._stand_in import WordEmbedder
from ._store import FORMAT, MemoryStore, SQLiteStore

__all__ = [
    "ALTERNATIVES",
    "CONDITIONS",
    "EMBEDDERS",
    "FAMILIES",
    "FORMAT",
    "FUNCTION_WORDS",
    "HARMS",
    "HAZARDS",
    "MAX_COMMAND",
    "OBJECT_WEIGHTS",
    "SAFE",
    "SCENARIOS",
    "SCENE_WEIGHTS",
    "SEEDS",
    "SOURCES",
    "STATIC_RULES",
    "VERBS",
    "ActionFrame",
    "Episode",
    "Evaluation",
    "Harm",
    "EpisodicMemory",
    "MemoryConfig",
    "MemoryDecision",
    "MemoryFilter",
    "MemoryStore",
    "PostgresStore",
    "Rule",
    "SQLiteStore",
    "SceneGraph",
    "SceneObject",
    "Scenario",
    "UNSAFE",
    "WordEmbedder",
    "acted_object",
    "check_command",
    "cluster_episodes",
    "command_verb",
    "decay",
    "define_harm",
    "effect_clusters",
    "effect_matches",
    "evaluate",
    "expand_rules",
    "frame_similarity",
    "frames_similarity",
    "harm_name",
    "interaction_stream",
    "load_scenarios",
    "load_seeds",
    "make_scenarios",
    "plot_memory_growth",
    "open_store",
    "rule_pattern",
    "run_memory_evaluation",
    "scene_similarity",
    "split_rule",
]

publish(__name__, globals(), __all__)
