"""Drawing automata: Graphviz text, and deterministic SVG through dot or matplotlib."""

from __future__ import annotations

import shutil

import pytest

from safetychip.automata import SVG, _draw, to_dfa, to_dot, to_svg
from safetychip.ltl import parse


def test_to_dot_text():
    dot = to_dfa(parse("!a W b")).to_dot()
    assert dot == "\n".join([
        "digraph DFA {",
        '  rankdir=LR; node [shape=circle, fontname="Helvetica"]; edge [fontname="Helvetica"];',
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
    first = dfa._repr_svg_()
    second = dfa._repr_svg_()
    assert isinstance(first, str)
    assert first.lstrip().startswith("<svg")
    assert first.rstrip().endswith("</svg>")
    assert "<?xml" not in first and "<!DOCTYPE" not in first
    assert first == second, "rendering must be deterministic"
    assert dfa._repr_html_() == first
    return first


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
def test_svg_through_graphviz():
    dfa = to_dfa(parse("G(a -> F b)"))
    svg = _check_svg(dfa)
    assert "<!--" not in svg  # comments with version numbers are stripped
    assert "G(a &#45;&gt; Fb)" in svg or "G(a -&gt; Fb)" in svg


def test_svg_through_matplotlib_when_dot_is_missing(monkeypatch):
    monkeypatch.setattr(_draw.shutil, "which", lambda name: None)
    dfa = to_dfa(parse("!a W b"))
    svg = _check_svg(dfa)
    assert "!a W b" in svg  # the title
    assert to_svg(dfa, highlight=2) != svg  # highlighting changes the picture


def test_show_returns_an_svg_object():
    dfa = to_dfa(parse("F a"))
    shown = dfa.show(highlight=1)
    assert isinstance(shown, SVG)
    assert shown._repr_svg_() == shown._repr_html_() == to_svg(dfa, highlight=1)
    assert repr(shown) == f"<SVG: {len(shown.data)} characters>"
    assert "<svg" in shown.data
