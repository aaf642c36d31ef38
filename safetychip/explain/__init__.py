"""The query system: agent queries (why was this action refused?) and human queries (will
you do this before that?).

===========================  ====================================================================
query                        names
===========================  ====================================================================
agent query, deterministic   :func:`explain_violation`, :class:`AgentExplanation`
agent query, language model  :func:`agent_query_messages`, :func:`ask_agent_query`,
                             :class:`LLMExplanation`
human query                  :func:`answer_query`, :func:`question_formula`, :func:`plan_trace`,
                             :class:`HumanAnswer`
recorded episodes            :func:`explain_rollout` (of a :class:`~safetychip.shield.TraceRecord`),
                             :class:`RolloutQuery`
===========================  ====================================================================

Examples
--------
>>> from safetychip.monitor import Monitor
>>> from safetychip.explain import explain_violation
>>> m = Monitor(['G!"is_grabbed(phone)"'])
>>> _ = m.reset(set())
>>> print(explain_violation(m, {"is_grabbed(phone)"}, action="grab phone").violated)
('c1',)
"""

from safetychip._public import publish

from ._agent import (
    AgentExplanation,
    LLMExplanation,
    agent_query_messages,
    ask_agent_query,
    explain_violation,
)
from ._human import HumanAnswer, PlanStep, answer_query, plan_trace, question_formula
from ._rollout import RolloutQuery, explain_rollout
from ._words import letter_words

__all__ = [
    "AgentExplanation",
    "HumanAnswer",
    "LLMExplanation",
    "PlanStep",
    "RolloutQuery",
    "agent_query_messages",
    "answer_query",
    "ask_agent_query",
    "explain_rollout",
    "explain_violation",
    "letter_words",
    "plan_trace",
    "question_formula",
]

publish(__name__, globals(), __all__)
