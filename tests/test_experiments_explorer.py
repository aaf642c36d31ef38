"""The slice explorer of notebook 04: a run replaces the last, follows the controls, keeps its
results for later cells, labels its slice, and writes only a scratch figure."""

from __future__ import annotations

import base64

import pytest

pytest.importorskip("ipywidgets")

from IPython.core.interactiveshell import InteractiveShell

from safetychip._display import png_size
from safetychip.experiments import SliceExplorer
from safetychip.experiments._explorer import SCRATCH_FIGURE


@pytest.fixture
def published():
    """What the cell would display, as (data, metadata) bundles (an IPython shell, no kernel)."""
    shell = InteractiveShell.instance()
    shown: list = []
    shell.display_pub.publish = lambda data, metadata=None, **kw: shown.append((data, metadata))
    yield shown
    InteractiveShell.clear_instance()


def _markdown(shown) -> str:
    return "\n".join(d["text/markdown"] for d, _ in shown if "text/markdown" in d)


def test_a_run_follows_the_controls_and_replaces_the_last(tmp_path, published):
    figure = tmp_path / "slice.png"
    explorer = SliceExplorer(agents=("base", "chip"), ks=(1, 1), figure=figure)
    first = explorer.run()
    assert sorted(set(first["k"])) == [1] and sorted(set(first["agent"])) == ["base", "chip"]
    assert explorer.frame is first and figure.is_file()
    table = _markdown(published)
    assert "**Success and safety rates, k = 1 (offline stand-in, not an LLM)**" in table
    assert any("Figure size" in d.get("text/plain", "") for d, _ in published)  # the rates

    published.clear()
    explorer.k_slider.value = (2, 3)  # what a person does with the slider, then Run
    explorer.agents_box.value = ("chip",)
    explorer.run_button.click()
    second = explorer.frame
    assert second is not first
    assert sorted(set(second["k"])) == [2, 3] and sorted(set(second["agent"])) == ["chip"]
    assert explorer.ks == (2, 3) and "(k = 2–3)" in repr(explorer)
    assert "**Success and safety rates, k = 2–3" in _markdown(published)
    assert not explorer.run_button.disabled


def test_the_default_figure_is_a_scratch_file_and_the_picture_shows_unrun(published):
    explorer = SliceExplorer(agents=("chip",), ks=(1, 1))
    assert "figures" not in SCRATCH_FIGURE.parts and explorer.figure == SCRATCH_FIGURE
    explorer.run()
    assert SCRATCH_FIGURE.is_file()
    published.clear()
    explorer._ipython_display_()
    # The cell's display bundle: the live widgets, and the figure as a PNG beside them.
    ((data, metadata),) = published
    assert "application/vnd.jupyter.widget-view+json" in data
    width, _ = png_size(base64.b64decode(data["image/png"]))
    assert 0 < metadata["image/png"]["width"] < width
