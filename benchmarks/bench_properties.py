"""Three-way agreement on random formula/trace pairs: DFA, direct evaluator and monitor.

Run: .venv/bin/python benchmarks/bench_properties.py [--pairs 10000] [--per-formula 1] [--seed 0]

Draws random formulas over a, b, c (every operator, depth <= 5; the grammar of
``tests/test_properties.py``) and random non-empty traces (length 1..7) from a seeded
``random.Random``, and checks that ``to_dfa(f).accepts(t)``, ``evaluate(f, t)`` and the final
verdict of ``Monitor([f]).evaluate(t)`` agree. Each formula is checked on ``--per-formula``
traces (default 1: every pair has a freshly drawn formula).
Prints the number of pairs and formulas, the disagreements (at most ten shown) and the seconds
taken; exits 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from safetychip.automata import to_dfa
from safetychip.ltl import (
    FALSE,
    TRUE,
    XS,
    And,
    Equiv,
    F,
    G,
    Implies,
    M,
    Not,
    Or,
    R,
    U,
    W,
    X,
    ap,
    evaluate,
)
from safetychip.monitor import Monitor

ATOMS = ("a", "b", "c")
LEAVES = (ap("a"), ap("b"), ap("c"), TRUE, FALSE)
UNARY = (Not, X, XS, F, G)
BINARY = (And, Or, Implies, Equiv, U, W, R, M)


def random_formula(rng: random.Random, depth: int = 5, top: bool = True):
    """A random formula nesting at most *depth* operators (a leaf one time in five below the
    top, one time in twenty at the top)."""
    if depth == 0 or rng.random() < (0.05 if top else 0.2):
        return rng.choice(LEAVES)
    if rng.random() < 0.5:
        return rng.choice(UNARY)(random_formula(rng, depth - 1, False))
    op = rng.choice(BINARY)
    return op(random_formula(rng, depth - 1, False), random_formula(rng, depth - 1, False))


def random_trace(rng: random.Random) -> list[frozenset[str]]:
    return [frozenset(a for a in ATOMS if rng.random() < 0.5) for _ in range(rng.randint(1, 7))]


def monitor_holds(monitor: Monitor, trace) -> bool:
    """The final offline verdict (an aborting specification ends with its ABORT verdict)."""
    return monitor.evaluate(trace)[-1].safe


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--per-formula", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    start = time.perf_counter()
    pairs, formulas, disagreements = 0, set(), []
    while pairs < args.pairs:
        f = random_formula(rng)
        formulas.add(f)
        dfa, monitor = to_dfa(f), Monitor([f])
        for _ in range(min(args.per_formula, args.pairs - pairs)):
            trace = random_trace(rng)
            votes = (dfa.accepts(trace), evaluate(f, trace), monitor_holds(monitor, trace))
            if len(set(votes)) != 1:
                disagreements.append((str(f), [sorted(s) for s in trace], votes))
            pairs += 1
    seconds = time.perf_counter() - start
    print(f"pairs: {pairs}")
    print(f"distinct formulas: {len(formulas)}")
    print(f"disagreements: {len(disagreements)}")
    for formula, trace, (by_dfa, by_eval, by_monitor) in disagreements[:10]:
        print(f"  {formula} on {trace}: dfa={by_dfa} evaluate={by_eval} monitor={by_monitor}")
    print(f"seconds: {seconds:.1f}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
