"""Automata for finite-trace LTL: construction, analysis, comparison, export and drawing.

Examples
--------
>>> from safetychip.automata import to_dfa, equivalent
>>> from safetychip.ltl import parse
>>> to_dfa(parse("G(a -> F b)"))
<DFA for G(a -> Fb): 3 states, 6 edges, aps=['a', 'b']>
>>> equivalent(parse("!(a U b)"), parse("!b W (!a & !b)"))
True
"""

from safetychip._public import publish

from ._build import MAX_ATOMS, nnf, to_dfa
from ._compare import counterexample, equivalent, includes
from ._dfa import DFA
from ._draw import SVG, to_dot, to_svg
from ._guards import MANAGER, Guard, atom_var, guard_of, guard_str, holds, is_propositional
from ._limit import build_within
from ._product import DeadlineExceeded, Product, SearchBudgetExceeded
from ._spot import spot_available, spot_dfa

__all__ = [
    "DFA", "DeadlineExceeded", "MANAGER", "MAX_ATOMS", "SVG", "Guard", "Product",
    "SearchBudgetExceeded", "atom_var", "build_within", "counterexample", "equivalent",
    "guard_of", "guard_str", "holds", "includes", "is_propositional", "nnf", "spot_available",
    "spot_dfa", "to_dfa", "to_dot", "to_svg",
]  # fmt: skip

publish(__name__, globals(), __all__)
