"""A slice of the experiment grid in Jupyter: widgets to pick it, a button to run it.

:class:`SliceExplorer` holds the controls (suite, agents, the range of *k*, reprompt variant,
seed), runs the slice they pick with a progress bar, and shows the rates against the number
of constraints with the paper's table. Each run *replaces* what the previous one showed,
keeps its results in :attr:`SliceExplorer.frame` for the cells that follow, and draws its
figure to a scratch file (never one of the committed ``figures/``). Until the notebook is run
(a fresh clone), the cell shows a picture of the first slice instead of the widgets.

``ipywidgets`` is imported when an explorer is made (``pip install safetychip[notebooks]``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._display import display_widget, figure_png
from .._short_errors import short_error
from ..agents import REPROMPTS, STAND_IN_LABEL
from ..errors import SafetyChipError, missing
from ._grid import AGENT_NAMES, STAND_IN, grid_cells, run_grid
from ._report import MAIN_REPROMPT, paper_table, plot_rates

__all__ = ["SliceExplorer"]

#: Where a slice's figure goes unless told: a scratch file, not a committed figure.
SCRATCH_FIGURE = Path(tempfile.gettempdir()) / "safetychip" / "slice_rates.png"

#: Pixels per inch of the figure's static picture (shown at 96: crisp).
_DPI = 110


class SliceExplorer:
    """Widgets that run one slice of the grid and show its rates (notebook 04).

    Parameters
    ----------
    suite, agents, ks, reprompt, seed
        The first slice: a suite, agent names, the smallest and largest *k*, the Safety
        Chip's reprompt variant and the seed.
    model : str
        The model the agents talk to (default: the offline stand-in, labelled as one).
    figure : path, optional
        Where each run's figure is written; a scratch file under the temporary folder by
        default.

    Attributes
    ----------
    frame : pandas.DataFrame or None
        The last slice's results (one row per episode), None before the first run.
    ks : tuple of int
        The *k* of the last slice.

    Examples
    --------
    >>> explorer = SliceExplorer(agents=("base", "chip"), ks=(1, 2))
    >>> explorer
    <SliceExplorer four_room ['base', 'chip'] (not run yet)>
    >>> explorer.k_slider.value = (1, 3)  # in a notebook: press Run, or call run()

    ``explorer.run()`` then returns the slice's results and keeps them in ``explorer.frame``.
    """

    def __init__(
        self,
        *,
        suite: str = "four_room",
        agents: Sequence[str] = ("base", "nl", "cap", "chip"),
        ks: tuple[int, int] = (1, 5),
        reprompt: str = MAIN_REPROMPT,
        seed: int = 0,
        model: str = STAND_IN,
        figure: str | os.PathLike[str] | None = None,
    ) -> None:
        try:
            import ipywidgets as widgets
        except ImportError:
            raise missing("ipywidgets", "notebooks") from None
        self.model = model
        self.figure = Path(figure) if figure is not None else SCRATCH_FIGURE
        self.frame: Any = None
        self.ks: tuple[int, ...] = ()
        self._png: bytes | None = None
        self.suite_box = widgets.Dropdown(
            options=["four_room", "mobile_manipulation"], value=suite, description="suite"
        )
        self.agents_box = widgets.SelectMultiple(
            options=list(AGENT_NAMES), value=tuple(agents), description="agents"
        )
        self.k_slider = widgets.IntRangeSlider(value=ks, min=1, max=5, description="constraints k")
        self.reprompt_box = widgets.Dropdown(
            options=list(REPROMPTS), value=reprompt, description="reprompt"
        )
        self.seed_box = widgets.BoundedIntText(value=seed, min=0, max=10_000, description="seed")
        self.run_button = widgets.Button(description="Run", button_style="primary")
        self.output = widgets.Output()
        self.run_button.on_click(lambda _: self._clicked())
        self.box = widgets.VBox(
            [
                widgets.HBox([self.suite_box, self.reprompt_box, self.seed_box]),
                widgets.HBox([self.agents_box, self.k_slider, self.run_button]),
                self.output,
            ]
        )

    def run(self) -> Any:
        """Run the slice the controls pick; show it in place of the last one; return it.

        An error of the library's tree (a model that cannot be reached, say) is shown in the
        widget as its short message (:func:`~safetychip._short_errors.short_error`), not a
        traceback, and then raised."""
        first, last = self.k_slider.value
        ks = tuple(range(first, last + 1))
        suite, reprompt = self.suite_box.value, self.reprompt_box.value
        cells = grid_cells(suites=[suite], ks=ks, agents=list(self.agents_box.value),
                           reprompts=[reprompt], seeds=[self.seed_box.value],
                           model=self.model)  # fmt: skip
        self.run_button.disabled = True
        failed: SafetyChipError | None = None
        try:
            with self.output:
                self.output.clear_output(wait=True)
                try:
                    frame = run_grid(cells, progress=True, desc=_describe(suite, ks, self.model))
                    self._show(frame, reprompt)
                except SafetyChipError as err:  # raised outside: Output would add a traceback
                    print(short_error(err), file=sys.stderr)
                    failed = err
        finally:
            self.run_button.disabled = False
        if failed is not None:
            raise failed
        self.frame, self.ks = frame, ks
        return frame

    def _clicked(self) -> None:
        """The Run button: an error of ours is already shown in the widget; nothing more."""
        with contextlib.suppress(SafetyChipError):
            self.run()

    def _show(self, frame: Any, reprompt: str) -> None:
        import matplotlib.pyplot as plt
        from IPython.display import Markdown, display

        fig = plot_rates(frame, reprompt=reprompt, suites=sorted(set(frame["suite"])),
                         path=self.figure)  # fmt: skip
        self._png = figure_png(fig, dpi=_DPI)
        self.output.clear_output(wait=True)  # the progress bar goes: the results replace it
        display(fig)
        plt.close(fig)
        display(Markdown(paper_table(frame, reprompt=reprompt,
                                     suites=sorted(set(frame["suite"])))))  # fmt: skip

    def _ipython_display_(self) -> None:
        # The last figure beside the live widgets: what a fresh clone shows before a run.
        display_widget(self.box, png=self._png, dpi=_DPI)

    def __repr__(self) -> str:
        shown = _span(self.ks) if self.ks else "not run yet"
        return f"<SliceExplorer {self.suite_box.value} {list(self.agents_box.value)} ({shown})>"


def _describe(suite: str, ks: tuple[int, ...], model: str) -> str:
    """The progress bar's label: the slice, and the stand-in's label when it is used.

    >>> _describe("four_room", (1, 2, 3), "offline-stand-in")
    'four_room, k = 1–3 (offline stand-in, not an LLM)'
    >>> _describe("four_room", (2,), "llama3.1")
    'four_room, k = 2 (llama3.1)'
    """
    who = STAND_IN_LABEL if model == STAND_IN else model
    return f"{suite}, {_span(ks)} ({who})"


def _span(ks: tuple[int, ...]) -> str:
    return f"k = {ks[0]}" if len(ks) == 1 else f"k = {ks[0]}–{ks[-1]}"
