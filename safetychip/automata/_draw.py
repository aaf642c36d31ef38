"""Drawing automata: Graphviz text, and pictures drawn with matplotlib.

A picture (:class:`SVG`) carries a PNG beside its SVG, so a notebook shows it even where SVG
is not rendered (JupyterLab renders no SVG in an untrusted notebook, such as a fresh clone).
Pictures are drawn with matplotlib whether or not Graphviz is installed, so a drawing is the
same on every machine; :func:`to_dot` gives the Graphviz text for those who want ``dot``.
A picture is at most :data:`MAX_WIDTH_PX` wide (a notebook's output column): the states of a
long automaton wrap onto further rows rather than shrink.
"""

from __future__ import annotations

import re

from .._display import figure_png, png_html, png_mimebundle, png_size
from .._io import atomic_write_text

__all__ = ["to_dot", "to_svg", "SVG"]

#: Pixels per inch of the PNG (1.25 × the 96 of a screen, shown at its screen size: crisp).
_PNG_DPI = 120
#: The widest picture, in screen pixels: JupyterLab's output column is 953 px in a window
#: 1,400 px wide with the file browser open.
MAX_WIDTH_PX = 900


class SVG:
    """A picture of an automaton: SVG text, and the same picture as PNG bytes.

    Jupyter is offered both (SVG first); the PNG is shown at screen size, never wider than
    the cell.

    Examples
    --------
    >>> SVG("<svg/>")._repr_svg_()
    '<svg/>'
    >>> sorted(SVG("<svg/>")._repr_mimebundle_()[0])
    ['image/svg+xml', 'text/plain']
    """

    def __init__(self, data: str, png: bytes | None = None) -> None:
        self.data = data
        self.png = png

    def _repr_svg_(self) -> str:
        return self.data

    def _repr_mimebundle_(self, include=None, exclude=None) -> tuple[dict, dict]:
        data: dict = {"image/svg+xml": self.data, "text/plain": repr(self)}
        meta: dict = {}
        if self.png is not None:
            png_data, png_meta = png_mimebundle(self.png, _PNG_DPI)
            data.update(png_data)
            meta.update(png_meta)
        return data, meta

    def html(self) -> str:
        """An ``<img>`` of the PNG (the SVG inline without one), never wider than its box."""
        if self.png is None:
            return f'<div style="max-width:100%;overflow-x:auto">{self.data}</div>'
        return png_html(self.png, _PNG_DPI)

    @property
    def size(self) -> tuple[int, int] | None:
        """The PNG's width and height in screen pixels, or None without a PNG."""
        if self.png is None:
            return None
        w, h = png_size(self.png)
        return round(w * 96 / _PNG_DPI), round(h * 96 / _PNG_DPI)

    def save(self, path) -> SVG:
        """Write the SVG to *path* (parent folders are created); returns self."""
        atomic_write_text(path, self.data)
        return self

    def __repr__(self) -> str:
        return f"<SVG: {len(self.data)} characters>"


def to_dot(dfa, highlight: int | None = None) -> str:
    """Graphviz text: accepting states doubly circled, dead states grey, *highlight* yellow.

    Examples
    --------
    >>> from safetychip.automata import to_dfa
    >>> from safetychip.ltl import parse
    >>> print(to_dot(to_dfa(parse("Fa"))))  # doctest: +NORMALIZE_WHITESPACE
    digraph DFA {
      rankdir=LR; node [shape=circle, fontname="Helvetica"]; edge [fontname="Helvetica"];
      size="10,40";
      label="Fa"; labelloc=t;
      start [shape=none, label=""]; start -> 0;
      0 [label="0"];
      1 [label="1", shape=doublecircle];
      0 -> 0 [label="!a"];
      0 -> 1 [label="a"];
      1 -> 1 [label="1"];
    }
    """
    dead = dfa.dead_states()
    lines = [
        "digraph DFA {",
        '  rankdir=LR; node [shape=circle, fontname="Helvetica"]; edge [fontname="Helvetica"];',
        '  size="10,40";',  # Graphviz shrinks a wider drawing to a notebook's width (inches)
    ]
    if dfa.formula is not None:
        lines.append(f'  label="{_esc(_short(str(dfa.formula), 90))}"; labelloc=t;')
    lines.append(f'  start [shape=none, label=""]; start -> {dfa.initial};')
    for s, acc in enumerate(dfa.accepting):
        attrs = [f'label="{s}"']
        if acc:
            attrs.append("shape=doublecircle")
        if s in dead:
            attrs.append('style=filled, fillcolor="#dddddd"')
        if s == highlight:
            attrs.append('style=filled, fillcolor="#ffd54f", penwidth=2')
        lines.append(f"  {s} [{', '.join(attrs)}];")
    for s in range(dfa.num_states):
        for t, label in dfa.guards(s):
            lines.append(f'  {s} -> {t} [label="{_esc(label)}"];')
    lines.append("}")
    return "\n".join(lines)


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def to_svg(dfa, highlight: int | None = None) -> str:
    """SVG of *dfa*, drawn with matplotlib (:func:`picture` without the PNG).

    Examples
    --------
    >>> from safetychip.automata import to_dfa
    >>> from safetychip.ltl import parse
    >>> to_svg(to_dfa(parse("Fa"))).lstrip().startswith("<svg")
    True
    """
    return picture(dfa, highlight, png=False).data


def picture(dfa, highlight: int | None = None, *, png: bool = True) -> SVG:
    """The picture of *dfa* (:meth:`DFA.show`): SVG and, with *png*, the same as PNG.

    Drawn with matplotlib on every machine (Graphviz or not), at most :data:`MAX_WIDTH_PX`
    wide: the breadth-first columns of states wrap onto further rows until it fits.

    Examples
    --------
    >>> from safetychip.automata import to_dfa
    >>> from safetychip.ltl import parse
    >>> shown = picture(to_dfa(parse("a U b")), highlight=1)
    >>> shown.size[0] <= MAX_WIDTH_PX
    True
    """
    import io

    import matplotlib

    g = dfa.to_networkx()
    labels = {(s, t): _wrap(_short(d["guard"], 60)) for s, t, d in g.edges(data=True)}
    widest = max((len(line) for x in labels.values() for line in x.split("\n")), default=0)
    # Columns wide enough that an edge label does not hide its (white-boxed) edge.
    column = max(1.6, 0.8 + 0.075 * widest)
    # As many columns in a row as fit (n columns span column × (n - 0.7) + 1.4 inches with
    # their margins), then fewer while the drawing with its labels is still too wide.
    fit = int((MAX_WIDTH_PX / 96 - _LEFT - _RIGHT) / column + 0.7)
    per_row = max(1, min(len(_columns(dfa)), fit))
    while True:
        fig = _figure(dfa, g, labels, column, highlight, per_row)
        # The PNG's width is the drawing's on screen; without one, the figure is measured.
        image = figure_png(fig, dpi=_PNG_DPI) if png else None
        width = png_size(image)[0] * 96 / _PNG_DPI if image else _width_px(fig)
        if per_row == 1 or width <= MAX_WIDTH_PX:
            break
        per_row -= 1
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "safetychip", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    return SVG(_PROLOGUE.sub("", buf.getvalue()), image)


_PROLOGUE = re.compile(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->", flags=re.S)

#: The height of a row of states, the margins left and right of the states (inches).
_ROW, _LEFT, _RIGHT = 1.3, 0.9, 0.5


def _width_px(fig) -> float:
    """The width on screen of *fig* saved with a tight bounding box (96 px per inch)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    return float(fig.get_tightbbox(renderer).width) * 96


def _figure(dfa, g, labels, column: float, highlight: int | None, per_row: int):
    """The drawing of *dfa* (its graph *g*, guard *labels*, *column* inches apart) with at
    most *per_row* breadth-first columns in a row."""
    from matplotlib.figure import Figure

    pos = _layered_layout(dfa, per_row)
    xs = [x for x, _ in pos.values()]
    ys = [y for _, y in pos.values()]
    # The axes fill the figure and one unit is *column* inches across, *row* inches down, so
    # the margins below are in inches: room for the start arrow, the loops and their guards.
    lines = max((x.count("\n") + 1 for x in labels.values()), default=1)
    row = _ROW + 0.25 * (lines - 1)
    left, right, bottom, top = _LEFT, _RIGHT, 0.4 + 0.15 * lines, 0.6 + 0.15 * lines
    width = column * (max(xs) - min(xs)) + left + right
    height = row * (max(ys) - min(ys)) + bottom + top
    fig = Figure(figsize=(width, height))
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(min(xs) - left / column, max(xs) + right / column)
    ax.set_ylim(min(ys) - bottom / row, max(ys) + top / row)
    _draw_graph(ax, dfa, g, pos, labels, highlight)
    if dfa.formula is not None:  # a long formula is cut short rather than shrink the graph
        ax.text(0.5, 1.0, _short(str(dfa.formula), 90), transform=ax.transAxes, ha="center",
                va="bottom", fontsize=10)  # fmt: skip
    ax.set_axis_off()
    return fig


def _draw_graph(ax, dfa, g, pos, labels, highlight: int | None) -> None:
    """States, transitions with their guards, self-loops with theirs, and the start arrow."""
    import networkx as nx

    dead = dfa.dead_states()
    colors = ["#ffd54f" if s == highlight else "#dddddd" if s in dead else "white" for s in g.nodes]
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, edgecolors="black", node_size=700)
    acc = [s for s in g.nodes if dfa.accepting[s]]
    nx.draw_networkx_nodes(g, pos, nodelist=acc, ax=ax, node_color="none", edgecolors="black",
                           node_size=1000)  # fmt: skip
    nx.draw_networkx_labels(g, pos, ax=ax, font_size=11)
    moves = [(s, t) for s, t in g.edges if s != t]
    loops = [(s, t) for s, t in g.edges if s == t]
    nx.draw_networkx_edges(g, pos, edgelist=moves, ax=ax, arrows=True, node_size=1000,
                           connectionstyle="arc3,rad=0.15", arrowsize=14)  # fmt: skip
    # The label of an edge with an opposite twin nearer its source, so the two stay apart.
    paired = [(s, t) for s, t in moves if g.has_edge(t, s)]
    for edges, where in (([e for e in moves if e not in paired], 0.5), (paired, 0.35)):
        nx.draw_networkx_edge_labels(g, pos, edge_labels={e: labels[e] for e in edges}, ax=ax,
                                     font_size=8, connectionstyle="arc3,rad=0.15",
                                     label_pos=where, rotate=False)  # fmt: skip
    top: dict[int, int] = {}  # the highest state of each column (a column's states are staggered)
    for s, (x, y) in pos.items():
        if int(x) not in top or y > pos[top[int(x)]][1]:
            top[int(x)] = s
    for s, _ in loops:  # a loop on the state, its guard beyond (sizes in points): above the
        x, y = pos[s]  # top state of a column, below the others, away from the column's edges
        up = 1 if top[int(x)] == s else -1
        ax.annotate("", xy=(x, y), xytext=(x, y), xycoords=_shift(ax, 7 * up, 13 * up),
                    textcoords=_shift(ax, -7 * up, 13 * up),
                    arrowprops={"arrowstyle": "-|>", "connectionstyle": "arc3,rad=-1.9",
                                "color": "black", "shrinkA": 0, "shrinkB": 0,
                                "mutation_scale": 12})  # fmt: skip
        ax.text(x, y, labels[(s, s)], ha="center", va="bottom" if up > 0 else "top",
                fontsize=8, transform=_shift(ax, 0, 34 * up),
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"})  # fmt: skip
    x, y = pos[dfa.initial]
    ax.annotate("", xy=(x, y), xytext=(x, y), xycoords=_shift(ax, -15, 0),
                textcoords=_shift(ax, -48, 0),
                arrowprops={"arrowstyle": "-|>", "color": "black", "shrinkA": 0, "shrinkB": 0,
                            "mutation_scale": 14})  # fmt: skip
    ax.text(x, y, "start", ha="right", va="center", fontsize=8, transform=_shift(ax, -50, 0))


def _shift(ax, dx: float, dy: float):
    """Data coordinates moved by (*dx*, *dy*) points."""
    from matplotlib.transforms import offset_copy

    return offset_copy(ax.transData, fig=ax.figure, x=dx, y=dy, units="points")


def _wrap(label: str, width: int = 24) -> str:
    """Break a long guard at its ``&`` / ``|`` so the label stays narrow.

    >>> print(_wrap("agent_at(hallway) & !agent_at(statue) & !is_grabbed(book)"))
    agent_at(hallway) &
    !agent_at(statue) &
    !is_grabbed(book)
    """
    lines: list[str] = []
    for part in re.split(r"(?<=[&|]) ", label):
        if lines and len(lines[-1]) + 1 + len(part) <= width:
            lines[-1] += " " + part
        else:
            lines.append(part)
    return "\n".join(lines)


def _short(label: str, limit: int = 40) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _columns(dfa) -> dict[int, list[int]]:
    """The states by breadth-first depth from the initial state, in the order first reached.

    >>> from safetychip.automata import to_dfa
    >>> from safetychip.ltl import parse
    >>> _columns(to_dfa(parse("a U b")))
    {0: [0], 1: [1, 2]}
    """
    depth = {dfa.initial: 0}
    order = [dfa.initial]
    for s in order:
        for t, _ in dfa.edges[s]:
            if t not in depth:
                depth[t] = depth[s] + 1
                order.append(t)
    columns: dict[int, list[int]] = {}
    for s in order:
        columns.setdefault(depth[s], []).append(s)
    return columns


def _layered_layout(dfa, per_row: int = 1_000) -> dict[int, tuple[float, float]]:
    """Positions by breadth-first depth from the initial state, deterministic; more than
    *per_row* depths wrap onto a further band of rows below.

    >>> from safetychip.automata import to_dfa
    >>> from safetychip.ltl import parse
    >>> _layered_layout(to_dfa(parse("a U b")))
    {0: (0.0, 0.0), 1: (1.0, 0.5), 2: (1.3, -0.5)}
    """
    columns = _columns(dfa)
    tallest = max(len(c) for c in columns.values())
    pos = {}
    for d, col in columns.items():
        band, x = divmod(d, per_row)
        for i, s in enumerate(col):
            # every other state of a column a little to the right: no edge runs through one
            pos[s] = (x + 0.3 * (i % 2), -float(i) + (len(col) - 1) / 2 - band * (tallest + 0.2))
    return pos
