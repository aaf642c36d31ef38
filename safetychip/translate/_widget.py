"""The Jupyter widget for verifying a translated constraint: accept, edit or reject.

It shows the :class:`~safetychip.translate.ReviewCard` (sentence, formula, back-translation,
witness traces and the automaton's picture), a text box with the formula to edit, and three
buttons. *Edit* checks the typed formula (syntax, vocabulary, satisfiability) and redraws
the card; *Accept* adds the constraint to the specification, which rechecks it against the
constraints already accepted; *Reject* accepts nothing. ``ipywidgets`` is imported when the
widget is built, so nothing else needs it.

For a translation with several candidates (its candidate set), radio buttons list them with
their probabilities, above the traces that tell each pair apart: choosing one redraws the
card, and *Accept* is the pick.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from .._display import display_widget
from ..errors import SafetyChipError, missing
from ._review import Review, ReviewCard, edit_constraint, prepare_review

__all__ = ["ReviewWidget"]


def _label(k: int, candidate) -> str:
    """A radio button's text: number, formula, pattern and probability."""
    p = candidate.probability
    chance = "uncalibrated" if p is None else f"probability {p:.2f}"
    return f"{k + 1}. {candidate.formula}  ({candidate.pattern or 'no pattern'}; {chance})"


class ReviewWidget:
    """Verify one translated constraint in Jupyter, as :func:`~safetychip.translate.review`
    does in a script (*item*, *specification*, *vocabulary*, *model* as there);
    *on_decision* is called with the :class:`~safetychip.translate.Review` once the person
    decides. :attr:`outcome` is the decision so far (``"pending"`` until a button is
    pressed); the controls (``accept_button``, ``edit_button``, ``reject_button``,
    ``formula_box``, and ``choices``, one radio button per candidate of a set of more than
    one) let a notebook also drive them in code.

    >>> from safetychip.ltl import parse
    >>> from safetychip.translate import Specification
    >>> spec = Specification()
    >>> w = ReviewWidget(parse('G!"is_grabbed(phone)"'), specification=spec)
    >>> w.formula_box.value = 'G !"is_touched(phone)"'
    >>> w.edit_button.click(); w.accept_button.click()
    >>> w.outcome.decision, [str(c.formula) for c in spec]
    ('accepted', ['G!"is_touched(phone)"'])
    """

    def __init__(self, item, *, specification=None, vocabulary=None, model=None,
                 on_decision: Callable[[Review], object] | None = None) -> None:  # fmt: skip
        try:
            import ipywidgets as widgets
        except ImportError:
            raise missing("ipywidgets", "notebooks") from None
        self.specification, self.model, self.on_decision, self.item = (
            specification, model, on_decision, item)  # fmt: skip
        self.vocabulary = vocabulary or getattr(item, "vocabulary", None)
        self.card: ReviewCard = prepare_review(item, model=model)
        self.outcome = Review("pending", cards=[self.card])
        self._view, self._apart, self.choices = widgets.HTML(), widgets.HTML(), None
        found, wide = getattr(item, "candidates", ()), widgets.Layout(width="95%")
        if len(found) > 1:
            self.choices = widgets.RadioButtons(
                options=[(_label(k, c), k) for k, c in enumerate(found)], value=item.picked or 0,
                description="candidates", layout=wide)  # fmt: skip
            self.choices.observe(lambda change: self.choose(change["new"]), names="value")
            rows = "".join(f"<li>{i + 1} or {j + 1}? "
                           f"{html.escape(d.text(f'reading {i + 1}', f'reading {j + 1}'))}</li>"
                           for (i, j), d in item.distinctions().items())  # fmt: skip
            self._apart.value = f"<b>what tells them apart</b><ul>{rows}</ul>" if rows else ""
        self.formula_box = widgets.Text(value=str(self.card.formula), description="formula",
                                        layout=wide)  # fmt: skip
        self.accept_button = widgets.Button(description="Accept", button_style="success")
        self.edit_button = widgets.Button(description="Check edit", button_style="info")
        self.reject_button = widgets.Button(description="Reject", button_style="danger")
        self.status = widgets.HTML(value="<i>accept, edit the formula, or reject</i>")
        self.accept_button.on_click(lambda _: self.accept())
        self.edit_button.on_click(lambda _: self.edit(self.formula_box.value))
        self.reject_button.on_click(lambda _: self.reject())
        self.box = widgets.VBox([*((self.choices, self._apart) if self.choices is not None else ()),
                                 self._view, self.formula_box,
                                 widgets.HBox([self.accept_button, self.edit_button,
                                               self.reject_button]), self.status])  # fmt: skip
        self._draw()

    def _draw(self) -> None:
        self._view.value = self.card._repr_html_()

    def _say(self, text: str, color: str = "black") -> None:
        # pre-wrap keeps a parse error's caret on its own line, under the place it points at
        self.status.value = (f"<pre style='color:{color}; white-space:pre-wrap; margin:0'>"
                             f"{html.escape(text)}</pre>")  # fmt: skip

    def _decided(self) -> bool:
        if self.outcome.decision != "pending":
            self._say(f"already {self.outcome.decision}", "gray")
            return True
        return False

    def choose(self, index: int) -> ReviewWidget:
        """Show candidate *index* of the translation's set (Accept then picks it)."""
        if self._decided():
            return self
        self.item = self.item.choose(index)
        self.card = prepare_review(self.item, model=self.model)
        self.outcome.cards.append(self.card)
        self.formula_box.value = str(self.card.formula)
        if self.choices is not None and self.choices.value != index:
            self.choices.value = index
        self._draw()
        self._say(f"candidate {index + 1} shown: accept it to pick it", "#1565c0")
        return self

    def edit(self, text: str) -> ReviewWidget:
        """Check the formula *text* and show it."""
        if self._decided():
            return self
        self.outcome.edits.append(text)
        accepted = self.specification.constraints if self.specification is not None else ()
        inv = self.specification.invariants if self.specification is not None else ()
        try:
            edited = edit_constraint(self.card, text, self.vocabulary, accepted, inv)
        except SafetyChipError as err:
            self._say(f"edit refused: {err}", "#c62828")
            return self
        self.card = prepare_review(edited, model=self.model)
        self.outcome.cards.append(self.card)
        self.formula_box.value = str(self.card.formula)
        self._draw()
        self._say("edit checked: accept it, edit again, or reject", "#1565c0")
        return self

    def accept(self) -> ReviewWidget:
        """Accept the constraint shown (into the specification, if any)."""
        if self._decided():
            return self
        constraint = self.card.constraint
        if self.specification is not None:
            try:
                constraint = self.specification.accept(constraint)
            except SafetyChipError as err:
                self._say(f"cannot accept: {err}", "#c62828")
                return self
        self.outcome.decision, self.outcome.constraint = "accepted", constraint
        self._say(f"accepted {constraint.name or ''} {constraint.formula}".replace("  ", " "),
                  "#2e7d32")  # fmt: skip
        self._finish()
        return self

    def reject(self) -> ReviewWidget:
        """Reject: nothing is accepted."""
        if self._decided():
            return self
        self.outcome.decision = "rejected"
        self._say("rejected: nothing was accepted", "#6a1b9a")
        self._finish()
        return self

    def _finish(self) -> None:
        for b in (self.accept_button, self.edit_button, self.reject_button, self.choices):
            if b is not None:
                b.disabled = True
        if self.on_decision is not None:
            self.on_decision(self.outcome)

    def _ipython_display_(self) -> None:
        # The card beside the live widget: what a fresh clone shows before the cell is run.
        display_widget(self.box, html=self._repr_html_())

    def _repr_html_(self) -> str:
        if self.choices is None:
            return self.card._repr_html_()
        items = "".join(
            f"<li>{'&#9673;' if k == self.choices.value else '&#9675;'} {html.escape(label)}</li>"
            for label, k in self.choices.options
        )
        return (f"<b>candidates</b><ul style='list-style:none'>{items}</ul>"
                f"{self._apart.value}{self.card._repr_html_()}")  # fmt: skip

    def __repr__(self) -> str:
        return f"<ReviewWidget {self.card.formula} ({self.outcome.decision})>"
