"""The shield: the one loop that wraps any agent on any environment.

A proposed action is previewed on the environment, judged by the filters in order (the
constraint monitor first, then any others, such as an episodic memory or an observer's
overlays), executed only when all admit it, and committed; a refusal is structured data
(:class:`Judgement`) from which an agent's reprompt is rendered.

Contents
--------
:class:`Shield`
    The loop: ``reset``, ``propose(action)``, ``judge(action)``, ``finish()`` (what a
    filter still owes when the agent stops without DONE), ``record()``.
:class:`Filter`, :class:`MonitorFilter`
    The filters' one interface, and the constraint monitor as the first filter.
:data:`Ask`, :func:`ask_within`, :class:`QuestionPanel`
    Questions about a sentence whose candidate formulas disagree on an action: a callback
    with a time bound, and Yes / No buttons for the questions kept in a notebook.
:class:`Proposal`, :class:`Judgement`
    What a filter sees and says.
:class:`TraceRecord`, :class:`Step`, :data:`OUTCOMES`
    The record of an episode, in one versioned JSON format.
:func:`run_plan`, :func:`run_monitored`, :func:`run_unmonitored`
    Run a fixed plan through a shield.
:func:`search_safe_plan`
    The one safe-plan search over an environment and a monitor (repair hints, suite
    validation).
"""

from safetychip._public import publish

from ._filter import Ask, Filter, MonitorFilter, ask_within
from ._judgement import DONE, Judgement, Proposal
from ._plans import run_monitored, run_plan, run_unmonitored
from ._questions import QuestionPanel
from ._record import FORMAT, OUTCOMES, Step, TraceRecord
from ._search import SearchResult, search_safe_plan
from ._shield import Shield

__all__ = [
    "DONE", "FORMAT", "OUTCOMES", "Ask", "Filter", "Judgement", "MonitorFilter", "Proposal",
    "QuestionPanel",
    "SearchResult", "Shield", "Step", "TraceRecord", "run_monitored", "run_plan",
    "ask_within", "run_unmonitored", "search_safe_plan",
]  # fmt: skip

publish(__name__, globals(), __all__)
