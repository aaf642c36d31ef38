"""Drawing automata: Graphviz text, and deterministic SVG drawn with matplotlib."""

from __future__ import annotations

import base64

from safetychip._display import png_size
from safetychip.automata import SVG, _draw, to_dfa, to_dot, to_svg
from safetychip.ltl import parse


def test_to_dot_text():
    dot = to_dfa(parse("!a W b")).to_dot()
    assert dot == "\n".join([
        "digraph DFA {",
        '  rankdir=LR; node [shape=circle, fontname="Helvetica"]; edge [fontname="Helvetica"];',
        '  size="10,40";',
        '  label="!a W b"; labelloc=t;',
        '  start [shape=none, label=""]; start -> 0;',
        '  0 [label="0"];',
        '  1 [label="1", shape=doublecircle];',
        '  2 [label="2", style=filled, fillcolor="#dddddd"];',
        '  3 [label="3", shape=doublecircle];',
        '  0 -> 1 [label="!a & !b"];',
        '  0 -> 2 [label="a & !b"];',
        '  0 -> 3 [label="b"];',
        '  1 -> 1 [label="!a & !b"];',
        '  1 -> 2 [label="a & !b"];',
        '  1 -> 3 [label="b"];',
        '  2 -> 2 [label="1"];',
        '  3 -> 3 [label="1"];',
        "}",
    ])  # fmt: skip


def test_to_dot_highlight_and_escaping():
    dfa = to_dfa(parse('G !"is_grabbed(phone)"'))
    dot = to_dot(dfa, highlight=1)
    assert r'label="G!\"is_grabbed(phone)\""; labelloc=t;' in dot
    assert (
        '1 [label="1", shape=doublecircle, style=filled, fillcolor="#ffd54f", penwidth=2];' in dot
    )
    assert '0 [label="0"];' in dot
    assert '0 -> 2 [label="is_grabbed(phone)"];' in dot
    assert dot == dfa.to_dot(highlight=1)


def _check_svg(dfa) -> str:
    (first, meta), (second, _) = dfa._repr_mimebundle_(), dfa._repr_mimebundle_()
    svg = first["image/svg+xml"]
    assert isinstance(svg, str)
    assert svg.lstrip().startswith("<svg")
    assert svg.rstrip().endswith("</svg>")
    assert "<?xml" not in svg and "<!DOCTYPE" not in svg
    assert first == second, "rendering must be deterministic"
    # A PNG beside the SVG, shown at screen size: what an untrusted notebook displays.
    png = base64.b64decode(first["image/png"])
    assert png.startswith(b"\x89PNG")
    assert 0 < meta["image/png"]["width"] < png_size(png)[0]
    # No HTML: JupyterLab would prefer it to the PNG in an untrusted notebook, and strip it.
    assert sorted(first) == ["image/png", "image/svg+xml", "text/plain"]
    assert first["text/plain"] == repr(dfa)
    return svg


def test_svg_drawn_with_matplotlib():
    dfa = to_dfa(parse("!a W b"))
    svg = _check_svg(dfa)
    assert "!a W b" in svg  # the title
    assert to_svg(dfa, highlight=2) != svg  # highlighting changes the picture


def test_show_returns_an_svg_object():
    dfa = to_dfa(parse("F a"))
    shown = dfa.show(highlight=1)
    assert isinstance(shown, SVG)
    assert shown._repr_svg_() == shown.data == to_svg(dfa, highlight=1)
    assert shown.png is not None and shown.html().startswith('<img style="max-width:100%')
    assert repr(shown) == f"<SVG: {len(shown.data)} characters>"
    assert "<svg" in shown.data


def test_matplotlib_drawing_has_a_start_arrow_and_loop_labels_apart(monkeypatch):
    """The start arrow is drawn, and every self-loop's guard has its own place."""
    import matplotlib.text
    from matplotlib.figure import Figure

    drawn: list[Figure] = []
    original = _draw._draw_graph

    def spy(ax, *args):
        original(ax, *args)
        drawn.append(ax.figure)

    monkeypatch.setattr(_draw, "_draw_graph", spy)
    dfa = to_dfa(parse("!a W b"))  # three self-loops, in one column
    assert _draw.picture(dfa).png is not None
    (fig,) = drawn
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
    assert "start" in [t.get_text() for t in texts]
    nodes = {tuple(map(float, xy)) for xy in _draw._layered_layout(dfa, 4).values()}
    data = fig.axes[0].transData  # state labels sit at the states in data coordinates
    guards = [
        t
        for t in texts
        if not (tuple(map(float, t.get_position())) in nodes and t.get_transform() is data)
    ]
    # the loops on 1 ('!a & !b'), 2 and 3 ('1'), and the four edges between states
    assert sorted(t.get_text() for t in guards if t.get_text() in {"!a & !b", "1"}) == [
        "!a & !b",
        "!a & !b",
        "1",
        "1",
    ]
    boxes = [t.get_window_extent(renderer) for t in guards]
    overlaps = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :] if a.overlaps(b)]
    assert overlaps == []


def test_a_long_automaton_wraps_onto_rows_and_stays_readable():
    # at most three visits to h: a counter of nine states
    counter = to_dfa(
        parse("!F(h & (h U (!h & (!h U (h & (h U (!h & (!h U (h & (h U (!h & F h)))))))))))")
    )
    width, height = _draw.picture(counter).size
    assert counter.num_states >= 8
    assert width < 1200 and height > 150  # it wraps rather than shrinking to a thin strip
