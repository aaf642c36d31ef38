"""``safetychip automaton``: the minimal DFA of a formula, as JSON or Graphviz text.

Examples
--------
>>> from safetychip.cli import main
>>> main(["automaton", "a", "--indent", "1"])  # doctest: +ELLIPSIS
{
 "formula": "a",
 "aps": [
  "a"
 ],
...
0
"""

from __future__ import annotations

import argparse
import json
import sys

from ..automata import DFA
from ..monitor import compile_dfa
from ._common import EXIT_OK, Command, add_syntax, formula_arg

__all__ = ["COMMANDS", "automaton_json"]


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("formula", metavar="FORMULA", help="the formula")
    add_syntax(p)
    p.add_argument("--dot", action="store_true", help="print Graphviz text instead of JSON")
    p.add_argument(
        "--indent",
        type=int,
        metavar="N",
        help="indent the JSON by N spaces (default: one compact line)",
    )


def automaton_json(dfa: DFA) -> dict:
    """Return the JSON form of *dfa* that ``safetychip automaton`` prints.

    Examples
    --------
    >>> from safetychip.automata import to_dfa
    >>> from safetychip.ltl import parse
    >>> d = automaton_json(to_dfa(parse("G !a")))
    >>> d["states"], d["accepting"], d["dead"], d["guards"]["0"]
    ([0, 1, 2], [1], [2], [{'target': 1, 'guard': '!a'}, {'target': 2, 'guard': 'a'}])
    """
    dead = dfa.dead_states()
    guards = [[{"target": t, "guard": g} for t, g in dfa.guards(s)] for s in range(dfa.num_states)]
    return {
        "formula": None if dfa.formula is None else str(dfa.formula),
        "aps": list(dfa.aps),
        "initial": dfa.initial,
        "states": list(range(dfa.num_states)),
        "accepting": [s for s, a in enumerate(dfa.accepting) if a],
        "dead": sorted(dead),
        "edges": [{"source": s, **e} for s, out in enumerate(guards) for e in out],
        "guards": {str(s): out for s, out in enumerate(guards)},
    }


def _run(args: argparse.Namespace) -> int:
    formula = formula_arg(args.formula, args.syntax)
    dfa = compile_dfa(formula)
    if args.dot:
        sys.stdout.write(dfa.to_dot() + "\n")
    else:
        text = json.dumps(automaton_json(dfa), indent=args.indent, ensure_ascii=False)
        sys.stdout.write(text + "\n")
    return EXIT_OK


_EPILOG = """\
The DFA is complete and minimal; a trace is accepted when it ends in an accepting state. JSON
fields: formula (Spot syntax), aps (atoms; bit i of a letter is aps[i]), initial, states,
accepting, dead (states from which no continuation is accepted), edges ({source, target,
guard}), guards (per state, as a JSON object keyed by the state number). A guard is a sum of
products over the atoms: "1" is every letter, "!a & b" the letters with a false and b true.

examples:
  safetychip automaton 'G(is_open(fridge) -> F !is_open(fridge))'
  safetychip automaton 'a U b' --dot | dot -Tsvg > a_until_b.svg
"""

COMMANDS = (
    Command("automaton", "the minimal DFA of a formula, as JSON or Graphviz text",
            _configure, _run, epilog=_EPILOG),
)  # fmt: skip
