"""The notebook surface of the shield's questions: Yes / No buttons for each question its
candidate monitor kept.

A notebook cell cannot wait for a click while it runs (the kernel is busy running it), so a
shield in a notebook runs without an ``ask`` callback: an action its readings disagree about
is refused and the question is kept (``monitor.open_questions``). A :class:`QuestionPanel`
shows those questions with two buttons each; an answer narrows the candidate set
(:meth:`~safetychip.monitor.CandidateMonitor.answer`) and, when it is a yes, proposes the
action again, so it runs. ``ipywidgets`` is imported when the panel is drawn.

Examples
--------
>>> from safetychip.envs import PropositionEnv
>>> from safetychip.monitor import CandidateMonitor, CandidateSet
>>> s = CandidateSet.parse(['G !"is_open(fridge)"', 'F !"is_open(fridge)"'],
...                        "don't leave the fridge open", name="fridge")
>>> shield = Shield.of(PropositionEnv(["is_open(fridge)"]), CandidateMonitor([s]))
>>> _ = shield.reset()
>>> shield.propose("set is_open(fridge)").outcome
'pruned'
>>> panel = QuestionPanel(shield)
>>> [q.action for q in panel.questions]
['set is_open(fridge)']
>>> panel.answer(panel.questions[0], True).outcome
'executed'
>>> panel.questions
[]
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from .._display import display_widget
from .._short_errors import short_error
from ..errors import MonitorError, SafetyChipError, missing
from ..monitor import CandidateMonitor, Question
from ._judgement import DONE
from ._record import Step
from ._shield import Shield

__all__ = ["QuestionPanel"]

#: The action of a question about the start of an episode.
START = "start here"


class QuestionPanel:
    """Ask a shield's open questions with buttons, in Jupyter.

    Parameters
    ----------
    shield : Shield
        Whose monitor is a :class:`~safetychip.monitor.CandidateMonitor`.
    on_answer : callable, optional
        ``on_answer(question, allowed, step)`` after each answer (*step*: what proposing the
        action again did, or None).

    Raises
    ------
    MonitorError
        If the shield's monitor is not a candidate monitor (it never asks).
    """

    def __init__(self, shield: Shield, *,
                 on_answer: Callable[[Question, bool, Step | None], object] | None = None
                 ) -> None:  # fmt: skip
        monitor = shield.monitor
        if not isinstance(monitor, CandidateMonitor):
            raise MonitorError("the shield's monitor has no candidate sets, so it asks nothing: "
                               "give it a CandidateMonitor")  # fmt: skip
        self.shield = shield
        self.monitor = monitor
        self.on_answer = on_answer
        #: What each answer did: (question, allowed, step).
        self.answers: list[tuple[Question, bool, Step | None]] = []
        #: The short message of the error the last click met (None after a click that worked).
        self.error: str | None = None
        self._box: Any = None

    @property
    def questions(self) -> list[Question]:
        """The questions still open (those an answer already settled are dropped)."""
        return list(self.monitor.open_questions)

    def answer(self, question: Question, allowed: bool) -> Step | None:
        """Answer *question*: narrow the set, and after a yes propose the action again (a
        question about the start resets the shield); returns the step proposed, if any."""
        self.monitor.answer(question, allowed)
        step = None
        if allowed and question.action == START:
            self.shield.reset()
        elif allowed and not self.shield.finished:
            step = self.shield.propose(question.action if question.action != DONE else DONE)
        self.answers.append((question, allowed, step))
        if self.on_answer is not None:
            self.on_answer(question, allowed, step)
        self._draw()
        return step

    # -- display ----------------------------------------------------------------------------

    @property
    def widget(self) -> Any:
        """The ipywidgets view: each open question, with Yes and No buttons."""
        if self._box is None:
            try:
                import ipywidgets as widgets
            except ImportError:
                raise missing("ipywidgets", "notebooks") from None
            self._box = widgets.VBox()
            self._draw()
        return self._box

    def _draw(self) -> None:
        if self._box is None:
            return
        import ipywidgets as widgets

        rows: list[Any] = []
        for question in self.questions:
            yes = widgets.Button(description="Yes, allowed", button_style="success")
            no = widgets.Button(description="No", button_style="danger")
            yes.on_click(lambda _, q=question: self._clicked(q, True))
            no.on_click(lambda _, q=question: self._clicked(q, False))
            rows += [widgets.HTML(question._repr_html_()), widgets.HBox([yes, no])]
        rows.append(widgets.HTML(self._done_html()))
        if self.error is not None:
            rows.append(widgets.HTML(f"<pre>{html.escape(self.error)}</pre>"))
        self._box.children = tuple(rows)

    def _clicked(self, question: Question, allowed: bool) -> None:
        """A button: an error of the library's tree shows in the panel as its short message
        (a click has no cell to show a traceback in)."""
        self.error = None
        try:
            self.answer(question, allowed)
        except SafetyChipError as err:
            self.error = short_error(err)
            self._draw()

    def _done_html(self) -> str:
        lines = []
        for question, allowed, step in self.answers:
            outcome = f": {step.action} {step.outcome}" if step is not None else ""
            lines.append(f"<li>{html.escape(question.constraint)}: "
                         f"{'yes' if allowed else 'no'}{html.escape(outcome)}</li>")  # fmt: skip
        return f"<b>answered</b><ul>{''.join(lines)}</ul>" if lines else ""

    def _repr_html_(self) -> str:
        parts = [q._repr_html_() for q in self.questions] or ["<i>no open question</i>"]
        return "".join(parts) + self._done_html()

    def _ipython_display_(self) -> None:
        # The questions as HTML beside the live buttons: what a fresh clone shows.
        display_widget(self.widget, html=self._repr_html_())

    def __repr__(self) -> str:
        return f"<QuestionPanel: {len(self.questions)} open, {len(self.answers)} answered>"
