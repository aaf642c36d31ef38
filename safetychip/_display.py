"""Pictures for Jupyter that show in any notebook, trusted or not, run or not.

JupyterLab renders SVG, HTML with inline SVG, and widgets only in a trusted notebook whose
kernel is running; a fresh clone is neither. A PNG is always shown, so every picture the
library displays carries one: an automaton beside its SVG, a widget beside its live view (a
static picture of its first output, which a reader sees until the cell is run).

Examples
--------
>>> data, meta = png_mimebundle(_TINY_PNG, dpi=96)
>>> sorted(data), meta
(['image/png'], {'image/png': {'width': 1, 'height': 1}})
>>> png_html(_TINY_PNG, dpi=96)[:60]
'<img style="max-width:100%;height:auto" width="1" height="1"'
"""

from __future__ import annotations

import base64
import io
import struct
from typing import Any

__all__ = [
    "figure_png",
    "figure_text",
    "png_html",
    "png_mimebundle",
    "png_size",
    "display_widget",
    "use_figure_text",
]

# A 1 x 1 PNG, for the examples.
_TINY_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height in pixels, read from the PNG's header.

    Examples
    --------
    >>> png_size(_TINY_PNG)
    (1, 1)
    >>> png_size(b"GIF89a")
    Traceback (most recent call last):
    ValueError: not a PNG image
    """
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG image")
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _screen_size(png: bytes, dpi: int) -> tuple[int, int]:
    width, height = png_size(png)
    return max(1, round(width * 96 / dpi)), max(1, round(height * 96 / dpi))


def png_mimebundle(png: bytes, dpi: int) -> tuple[dict[str, str], dict[str, Any]]:
    """The ``image/png`` entry of a display bundle and its metadata (the size on screen:
    a PNG drawn at *dpi* pixels per inch is shown at 96, so it is crisp and not too big)."""
    width, height = _screen_size(png, dpi)
    data = {"image/png": base64.b64encode(png).decode("ascii")}
    return data, {"image/png": {"width": width, "height": height}}


def png_html(png: bytes, dpi: int) -> str:
    """An ``<img>`` holding *png* as a data URI, at screen size, never wider than its box."""
    width, height = _screen_size(png, dpi)
    source = base64.b64encode(png).decode("ascii")
    return (
        f'<img style="max-width:100%;height:auto" width="{width}" height="{height}" '
        f'src="data:image/png;base64,{source}"/>'
    )


def figure_png(fig: Any, dpi: int = 100) -> bytes:
    """A matplotlib figure as PNG bytes (tight bounding box, no timestamp: reproducible).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(2, 1))
    >>> ax.set_axis_off()
    >>> png = figure_png(fig, dpi=50)
    >>> png_size(png) <= (100, 50)
    True
    >>> plt.close(fig)
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def display_widget(widget: Any, *, figure: Any = None, png: bytes | None = None,
                   html: str | None = None, dpi: int = 100) -> None:  # fmt: skip
    """Display *widget* with a static picture for where widgets are not shown.

    The display bundle holds the live widget view and, beside it, a picture: a matplotlib
    *figure* or *png* bytes (drawn at *dpi*), and/or *html*. JupyterLab shows the live view
    when the notebook is trusted and its kernel knows the widget, else the picture: a fresh
    clone shows the widget's first output instead of ``VBox(children=…)``.

    Examples
    --------
    In a notebook, a slider with the figure it first draws::

        controls = ipywidgets.interactive(redraw, rigidity=slider)
        sc.display_widget(controls, figure=plot_smalltalk(study))
    """
    from IPython.display import display

    if figure is not None:
        png = figure_png(figure, dpi=dpi)
    data, meta = widget._repr_mimebundle_(), {}
    if isinstance(data, tuple):
        data, meta = data
    data = dict(data)
    meta = dict(meta or {})
    if png is not None:
        png_data, png_meta = png_mimebundle(png, dpi)
        data.update(png_data)
        meta.update(png_meta)
    if html is not None:
        data["text/html"] = html
    display(data, metadata=meta, raw=True)


def figure_text(fig: Any) -> str:
    """A figure's text alternative: its title, else its axes' titles, for a reader (or a
    viewer) that does not show the picture; matplotlib's own is ``<Figure size … with n Axes>``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, axes = plt.subplots(1, 2)
    >>> _ = axes[0].set_title("success"), axes[1].set_title("safety")
    >>> figure_text(fig)
    'Figure: success; safety'
    >>> _ = fig.suptitle("Four Room")
    >>> figure_text(fig)
    'Figure: Four Room'
    >>> plt.close(fig)
    """
    suptitle = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    titles = [t for ax in fig.axes for t in (ax.get_title(),) if t]
    return "Figure: " + (suptitle or "; ".join(titles) or "(untitled)")


def use_figure_text(shell: Any = None) -> None:
    """In a running IPython (*shell*, default: the current one), give every matplotlib figure
    :func:`figure_text` as its plain text (beside its picture) instead of
    ``<Figure size …>``; elsewhere do nothing. It never imports matplotlib itself.

    A notebook turns it on with ``%load_ext safetychip`` (``import safetychip`` installs
    nothing). Turning the inline backend on (on pyplot's first import) drops every
    formatter of figures, so the formatter is set again after each cell runs, before the
    inline backend shows the cell's figures.

    Examples
    --------
    >>> use_figure_text()  # outside IPython: nothing to do
    """
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
    if shell is None or getattr(shell, "_safetychip_figure_text", False):
        return
    plain = shell.display_formatter.formatters["text/plain"]

    def register(*_: Any) -> None:
        plain.for_type_by_name("matplotlib.figure", "Figure",
                               lambda fig, p, cycle: p.text(figure_text(fig)))  # fmt: skip

    register()
    shell.events.register("post_execute", register)
    shell._safetychip_figure_text = True
