"""Drawing automata: Graphviz text, and SVG through ``dot`` or, without it, matplotlib."""

from __future__ import annotations

import io
import re
import shutil
import subprocess

__all__ = ["to_dot", "to_svg", "SVG"]


class SVG:
    """SVG text that Jupyter displays inline.

    Examples
    --------
    >>> SVG("<svg/>")._repr_svg_()
    '<svg/>'
    """

    def __init__(self, data: str) -> None:
        self.data = data

    def _repr_svg_(self) -> str:
        return self.data

    def _repr_html_(self) -> str:
        return self.data

    def save(self, path) -> SVG:
        """Write the SVG to *path* (parent folders are created); returns self."""
        from pathlib import Path

        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self.data, encoding="utf-8")
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
    """SVG of *dfa*: Graphviz ``dot`` when installed, else a matplotlib drawing."""
    dot = shutil.which("dot")
    if dot:
        done = subprocess.run(
            [dot, "-Tsvg"],
            input=to_dot(dfa, highlight),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if done.returncode == 0:
            # Drop the XML prologue and comments so the SVG embeds in HTML and stays stable.
            return re.sub(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->", "", done.stdout, flags=re.S)
    return _matplotlib_svg(dfa, highlight)


def _matplotlib_svg(dfa, highlight: int | None) -> str:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import networkx as nx

    g = dfa.to_networkx()
    pos = _layered_layout(dfa)
    labels = {(s, t): _short(d["guard"]) for s, t, d in g.edges(data=True)}
    # Columns wide enough that an edge label does not hide its (white-boxed) edge.
    column = max(1.9, 0.9 + 0.1 * max((len(x) for x in labels.values()), default=0))
    fig, ax = plt.subplots(figsize=(column * max(3, len(set(x for x, _ in pos.values()))), 3.2))
    dead = dfa.dead_states()
    colors = ["#ffd54f" if s == highlight else "#dddddd" if s in dead else "white" for s in g.nodes]
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, edgecolors="black", node_size=700)
    acc = [s for s in g.nodes if dfa.accepting[s]]
    nx.draw_networkx_nodes(g, pos, nodelist=acc, ax=ax, node_color="none", edgecolors="black",
                           node_size=1000)  # fmt: skip
    nx.draw_networkx_labels(g, pos, ax=ax, font_size=10)
    nx.draw_networkx_edges(g, pos, ax=ax, arrows=True, connectionstyle="arc3,rad=0.15",
                           node_size=1000, arrowsize=14)  # fmt: skip
    nx.draw_networkx_edge_labels(g, pos, edge_labels=labels, ax=ax, font_size=7,
                                 connectionstyle="arc3,rad=0.15")  # fmt: skip
    if dfa.formula is not None:
        ax.set_title(_short(str(dfa.formula), 90), fontsize=9)  # a long one shrinks the graph
    ax.set_axis_off()
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "safetychip", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    return re.sub(r"<\?xml.*?\?>|<!DOCTYPE.*?>", "", buf.getvalue(), flags=re.S)


def _short(label: str, limit: int = 40) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _layered_layout(dfa) -> dict[int, tuple[float, float]]:
    """Positions by breadth-first depth from the initial state, deterministic."""
    depth = {dfa.initial: 0}
    order = [dfa.initial]
    for s in order:
        for t, _ in dfa.edges[s]:
            if t not in depth:
                depth[t] = depth[s] + 1
                order.append(t)
    rows: dict[int, list[int]] = {}
    for s in order:
        rows.setdefault(depth[s], []).append(s)
    return {s: (float(d), -float(i) + (len(col) - 1) / 2) for d, col in rows.items()
            for i, s in enumerate(col)}  # fmt: skip
