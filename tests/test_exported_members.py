"""The public API: every name a notebook imports from ``safetychip`` is pinned here, and so is
every subpackage's ``__all__``; every module of the library declares one."""

import ast
import importlib
from pathlib import Path

import pytest

import safetychip
from safetychip import automata, ltl, monitor

EXPECTED = {
    "DFA", "PATTERNS", "Constraint", "Formula", "Monitor", "Product", "Proposition",
    "SafetyChipError", "Specification", "Status", "Verdict", "absence_after", "ap", "at_least",
    "at_most", "before", "counterexample", "equivalent", "evaluate", "exactly", "exactly_one",
    "immediate_response", "includes", "never", "not_before", "parse", "parse_prefix",
    "response", "to_dfa", "display_widget", "Folded",
    # loaded on first use
    "Chip", "Env", "PropositionEnv", "Shield", "TraceRecord", "Translator", "VirtualHomeEnv",
    "load_tasks", "make_agent", "run_monitored", "run_unmonitored", "task_monitor",
}  # fmt: skip

#: The specification and its files, in the core (a subset: others add names there too).
MONITOR = {
    "Constraint", "Monitor", "Specification", "constraints_from_json", "read_constraints",
    "read_trace", "smallest_conflict", "trace_from_json", "write_constraints", "write_trace",
}  # fmt: skip


SUBPACKAGES: dict[str, set[str]] = {
    "agents": {
        "AGENTS", "ActionGrounder", "Agent", "BaseAgent", "Chip", "ChipHooks", "CodeAsPoliciesAgent",
        "ENDS", "AgentEpisode", "FORMULAS", "Feedback", "GroundedAction", "NLConstraintsAgent",
        "OfflineAgentModel", "ProgramRun", "REPROMPTS", "Reprompter", "TextRule", "SKILLS",
        "STAND_IN_LABEL", "SafetyChipAgent", "THRESHOLD", "action_schema", "candidate_set",
        "check_program", "chip_constraints", "code_messages", "done_explanation", "example_program",
        "extract_program", "first_line", "judge", "make_agent", "phrase_action",
        "planner_messages", "read_action", "read_rule", "repair_hint", "run_program", "simulated_pick",
        "task_propositions"
    },
    "automata": {
        "DFA", "DeadlineExceeded", "Guard", "MANAGER", "MAX_ATOMS", "Product", "SVG",
        "SearchBudgetExceeded", "atom_var", "build_within", "counterexample", "equivalent", "guard_of", "guard_str", "holds", "includes",
        "is_propositional", "nnf", "spot_available", "spot_dfa", "to_dfa", "to_dot",
        "to_svg"
    },
    "cli": {
        "COMMAND_MODULES", "Command", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_OK",
        "EXIT_VIOLATION", "ReproductionStep", "SkipStep", "build_parser", "commands",
        "main", "reproduction_steps"
    },
    "envs": {
        "Action", "Env", "Lookahead", "PREDICATES", "PropositionEnv", "PropositionState",
        "SUITES", "Scene", "SceneProposition", "SpotEnv", "Task", "VERBS", "Verb", "VerbLexicon",
        "VirtualHomeEnv",
        "WorldSnapshot", "check_env", "check_task", "domain_invariants", "goal_formula",
        "load_scene", "load_spot_scene", "load_spot_tasks", "load_tasks", "load_virtualhome_graph",
        "parse_action",
        "parse_literal", "parse_proposition", "plot_floor_plan", "plot_timeline",
        "task_invariants", "task_monitor",
        "ALL_VERBS", "VIRTUALHOME_PREDICATES", "prepare_program", "read_program", "run_program",
        "ENVIRONMENTS", "TaskEnvironment", "register_environment",
    },
    "envs.spot": {
        "BosdynBackend", "SPOT_DIR", "SimulatedBackend", "SpotAction", "SpotBackend", "SpotEnv", "SpotScene",
        "SpotTarget", "load_spot_scene", "SPOT_SUITES", "SPOT_TASKS", "load_spot_tasks"
    },
    "envs.thor": {
        "AFFORDANCES", "CLASS_WORDS", "KINDS", "LIQUIDS", "SCENE_DIR", "SCENE_FORMAT", "STATES", "TAGS", "THOR_DIR",
        "THOR_PREDICATES", "THOR_TASKS", "THOR_VERBS", "ObjectType", "ThorAction", "ThorEnv",
        "ThorScene", "ThorTarget", "ThorTask", "load_object_types", "load_thor_scene",
        "load_thor_tasks", "read_plan", "snake_case"
    },
    "envs.virtualhome": {
        "Action", "INSTALL", "PREDICATES", "SCENE_DIR", "SUITES", "Scene",
        "SceneProposition", "TASK_DIR", "Target", "Task", "VERBS", "VirtualHomeEnv",
        "WorldSnapshot", "candidate_actions", "check_task", "domain_invariants",
        "floor_plan_layout", "goal_formula", "load_scene", "load_tasks",
        "load_virtualhome_graph", "normalize_name", "parse_action", "parse_literal",
        "parse_proposition", "plot_floor_plan", "plot_timeline", "rooms_visited",
        "task_monitor",
        "ALL_VERBS", "OFFICIAL_GRAPH", "PROGRAM_DIR", "PreparedProgram", "Program",
        "ProgramRun", "ProgramStep", "REFUSED_SCRIPT_ACTIONS", "VIRTUALHOME_PREDICATES",
        "prepare_program", "read_program", "run_program"
    },
    "errors": {
        "ActionError", "AgentError", "CacheFileError", "ConflictError", "DataFileError",
        "EnvCheckError", "EnvError", "ExecutorStartError", "FormulaError", "LabellerError",
        "PreviewError",
        "FormulaSyntaxError", "FormulaTooDeepError", "GroundingError",
        "LLMConnectionError", "LLMError", "LLMResponseError", "LLMStatusError",
        "LLMTimeoutError", "LLMUsageError", "MemoryCapacityWarning", "MemoryStoreError",
        "UnknownHarmError", "ActionFrameError", "MissingDependencyError",
        "ModelReplyError",
        "MonitorError", "ObserverError", "OutputFileError", "NoSafePlan", "OutOfGrammarError", "ProgramBudgetError",
        "PropositionError", "QueryError", "ReplayMissError", "ResetNeeded", "RobotError",
        "SafetyChipError", "SandboxError", "SentenceError", "SkillError",
        "SpecificationError", "TaskError", "TimeBudgetError", "TraceError", "TranslationError",
        "TranslationReplyError", "UnsatisfiableSpecification", "VacuousConstraintError", "PickNeededError",
        "VocabularyError"
    },
    "experiments": {
        "AGENT_NAMES", "AdversarialReport", "BOOK_TASK", "COLUMNS", "EXECUTORS", "LEVELS",
        "MAIN_REPROMPT", "PropositionAgent", "ROLLOUT_OUTCOMES", "RandomSpecification",
        "Referee", "STAND_IN", "SUITES", "SafePlan", "SceneAgent", "SuiteReport",
        "TaskValidation", "ablation_table", "abort_table", "adversarial_cell",
        "adversarial_rollout", "by_k_table", "check_rollout", "config_label",
        "find_safe_plan", "grid_cells", "make_model", "markdown_table", "paper_table",
        "plot_rates", "random_specification", "rates", "rollout_outcome",
        "run_adversarial", "run_cell", "run_cells", "run_grid", "stand_in_note",
        "translation_scores", "write_translation_scores", "scene_vocabulary", "validate_suite", "write_csv", "write_offline_grid", "write_report",
        "write_rollout_figures", "write_suite_validation", "SPOT_AGENTS", "run_spot_demo",
        "spot_demo_cells", "spot_demo_table", "write_spot_demo", "write_memory_evaluation",
        "memory_table", "SliceExplorer", "write_local_model_grid", "LOCAL_GRID_CACHE",
        "ABSTRACT", "PAIRS", "PairCheck", "evaluate_abstract", "evaluate_pairs", "load_pairs", "pairs_table", "plot_pairs_roc",
        "roc_auc", "write_pairs_evaluation",
        "local_model_cells",
        "THOR_CONDITIONS", "ThorOutcome", "evaluate_thor", "plot_thor", "run_thor_task",
        "thor_table", "write_thor_evaluation",
        "LEARNING_SETTINGS", "learning_table", "plot_learning",
        "shielded_learning", "write_shielded_learning", "learning_settings", "write_learning",
        "AMBIGUITY_POLICIES", "PolicyRow", "ambiguity_table", "policy_rows"
    },
    "explain": {
        "AgentExplanation", "HumanAnswer", "LLMExplanation", "PlanStep", "RolloutQuery",
        "agent_query_messages", "answer_query", "ask_agent_query", "explain_rollout",
        "explain_violation", "letter_words", "plan_trace", "question_formula"
    },
    "gym": {
        "FALLBACKS", "Fallback", "GymAction", "GymEnv", "Labeller", "MINIGRID_PREDICATES",
        "MiniGridLabeller", "OneStepModel", "ShieldInfo", "ShieldWrapper", "TEXT_CHARACTERS",
        "TextEnv", "checked_state", "label_state", "minigrid_names", "LearningCurve",
        "Referee", "on_lava", "q_learning", "VectorShieldInfo", "VectorShieldWrapper", "SentenceTranslator",
        "MINIGRID_TASKS", "make_minigrid_env"
    },
    "labs": {
        "CONFUSIONS", "CORRECT", "INCORRECT", "INSTRUCTOR", "INVALID", "MAX_ANSWER_CHARS",
        "MAX_ATOMS", "MAX_NODES", "NOT_ATTEMPTED", "SOLUTION", "TIME_LIMIT_S", "Confusion",
        "Feedback", "Lab",
        "Summary", "automaton_paths", "check_answer", "check_explanation", "check_formula",
        "check_impossible", "check_verdict", "confusions", "student_version", "trace_words",
        "write_student_version"
    },
    "llm": {
        "CacheMode", "CachedModel", "ChatModel", "ChatRequest", "Completion", "Embedder",
        "Message", "MessageLike", "MiniLMEmbedder", "OpenAIChatModel", "OpenAIEmbedder",
        "OpenAIEndpoint", "PROMPTS", "PROMPT_DIR", "ScriptedModel", "StandInModel",
        "Usage", "UsageCounter", "fill", "load_prompt", "LOCAL_MODEL", "STRUCTURED",
        "local_model"
    },
    "ltl": {
        "And", "Equiv", "F", "FALSE", "FORMATS", "Formula", "G", "Implies", "M",
        "MAX_DEPTH", "MISSIONS", "Not", "Or", "PATTERNS", "PREDICATES", "Pattern", "Proposition", "R",
        "SYNTAXES", "State", "TRUE", "Trace", "U", "W", "X", "XS", "absence_after",
        "absence_from", "ap", "as_formula", "at_least", "at_most", "before", "build_pattern", "canonical_atom",
        "evaluate", "exactly", "immediate_response", "never", "next_response",
        "normalize_trace", "not_before", "parse", "parse_prefix", "pattern_family", "random_patterns",
        "response", "to_str"
    },
    "memory": {
        "ALTERNATIVES", "Episode", "EpisodicMemory", "FORMAT", "MAX_COMMAND", "MemoryConfig",
        "MemoryDecision", "MemoryFilter", "Rule", "SCENE_WEIGHTS", "SOURCES", "SQLiteStore",
        "SceneGraph", "SceneObject", "VERBS", "WordEmbedder", "check_command", "command_verb",
        "scene_similarity", "SEEDS", "acted_object", "cluster_episodes", "decay", "load_seeds",
        "rule_pattern", "split_rule", "FAMILIES", "SAFE", "SCENARIOS", "UNSAFE", "Scenario",
        "CONDITIONS", "EMBEDDERS", "STATIC_RULES", "Evaluation", "evaluate", "expand_rules",
        "plot_memory_growth", "run_memory_evaluation",
        "interaction_stream", "load_scenarios", "make_scenarios", "MemoryStore", "PostgresStore",
        "open_store", "HAZARDS", "OBJECT_WEIGHTS", "FUNCTION_WORDS", "HARMS", "Harm",
        "define_harm", "harm_name", "ActionFrame", "effect_clusters", "effect_matches",
        "frame_similarity", "frames_similarity"
    },
    "monitor": {
        "BatchMonitor", "CandidateMonitor", "CandidateSet", "Constraint", "MAX_READINGS", "Monitor",
        "Question", "Specification", "StateChange", "Status", "Verdict", "as_constraints", "situation", "compile_dfa", "constraints_from_json", "exactly_one",
        "proposition_state", "proposition_states", "read_constraints", "read_trace", "refuse_vacuous",
        "smallest_conflict", "trace_from_json", "write_constraints", "write_trace"
    },
    "observer": {
        "SMALLTALK_BOUNDS", "SmallTalkRun", "SmallTalkStudy", "drifting_smalltalk_model",
        "plot_smalltalk", "smalltalk_observer", "smalltalk_study",
        "DEESCALATION_ACTIVITIES", "DeescalationStudy", "StandInStudent", "deescalation_study",
        "plot_deescalation",
        "AFFECT_SCORES", "Affect", "Consecutive", "RunningMean", "Specificity", "TopicDrift",
        "CANDIDATE_REASONS", "FAIL_SAFE", "FEEDBACK", "KINDS", "OFFLINE", "REASONS",
        "DECISIONS", "MAX_HORIZON", "SIGNALS", "UNSURE", "Activity", "AdaptiveRigidity",
        "Arbitration", "Decision", "Ensemble", "Lookahead", "Supervisor",
        "AdviceMarkers", "Assessment", "Brevity", "Candidate", "CandidateRecord", "ChatPolicy",
        "Condition", "ContextValue", "Extractor", "Fallback", "FallbackLibrary", "Feedback",
        "FilterOverlay", "FunctionExtractor", "Length", "Observer", "ObserverFilter",
        "ObserverState", "Overlay", "PermissiveOverlay", "Policy", "ProhibitoryOverlay",
        "QuestionRate", "Repetition", "TransferOverlay", "TurnRecord", "Utterance", "as_policy",
        "extractor"
    },
    "shield": {
        "Ask", "DONE", "FORMAT", "Filter", "Judgement", "QuestionPanel", "MonitorFilter", "OUTCOMES", "Proposal",
        "SearchResult", "Shield", "Step", "TraceRecord", "run_monitored", "run_plan",
        "ask_within", "run_unmonitored", "search_safe_plan"
    },
    "translate": {
        "BackTranslation", "CONFIDENCE", "Candidate", "Clause", "Distinction", "EvaluationResult", "Expression", "Grounder",
        "Grounding", "LLMRecognizer", "LLMTranslator", "LiftedSentence",
        "LiftedTranslation", "MAX_SENTENCE", "PREDICATES",
        "Reading", "RetrievalTranslator", "Review",
        "ReviewCard", "ReviewWidget", "SYNONYMS", "SlotReader", "Specification", "Translation",
        "Translator", "UTTERANCES", "Vocabulary", "Witness", "assemble", "back_translate",
        "describe", "distinguish", "evaluate", "ground_formula", "lift", "literal_text",
        "load_utterances", "load_vocabulary", "match_pattern", "normalize",
        "prepare_review", "read_clause", "read_formula_reply", "recognize",
        "rename_atoms", "review", "witnesses"
    },
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SUBPACKAGES))
def test_subpackage_all_is_pinned(name):
    module = importlib.import_module(f"safetychip.{name}")
    assert set(module.__all__) == SUBPACKAGES[name]
    assert len(module.__all__) == len(set(module.__all__)), "a name is exported twice"
    for exported in module.__all__:
        assert hasattr(module, exported), f"safetychip.{name}.{exported}"


def test_every_module_declares_its_public_names():
    package = Path(safetychip.__file__).parent
    missing = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "__main__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                 for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                 if isinstance(t, ast.Name)}  # fmt: skip
        if "__all__" not in names:
            missing.append(str(path.relative_to(package.parent)))
    assert missing == []


def test_top_level_all_is_pinned():
    assert set(safetychip.__all__) == EXPECTED


def test_the_monitor_exports_the_specification_and_its_files():
    assert monitor.__all__.count("Specification") == 1
    assert set(monitor.__all__) >= MONITOR
    assert safetychip.Specification is monitor.Specification


def test_every_exported_name_exists():
    for module in (safetychip, ltl, automata, monitor):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"


def test_version():
    assert safetychip.__version__ == "0.1.0"
