"""A conjunction of eventualities is a normal mission (issue 44): the monitor keeps a large
conjunction factored, conjunct by conjunct, and its verdicts stay exactly LTLf
satisfiability of what remains (checked against the conjunction's whole DFA)."""

from __future__ import annotations

import random
import threading
import time

import pytest

from safetychip.automata import to_dfa
from safetychip.ltl import parse
from safetychip.monitor import Monitor, Status

SLACK = 1.0  # seconds a loaded machine may add


def _mission(n: int) -> str:
    return " & ".join(f"F q{i}" for i in range(n))


def _decided(n: int, limit: float) -> tuple[float, bool]:
    """Seconds to build the monitor and give its first verdict (in a thread: old code would
    take minutes, so the test fails instead of hanging)."""
    out: list[float] = []

    def run() -> None:
        start = time.perf_counter()
        m = Monitor([_mission(n)])
        m.reset({f"q{i}": False for i in range(n)})
        safe = m.check({f"q{i}": i == 0 for i in range(n)}).safe
        out.append(time.perf_counter() - start)
        out.append(safe)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(limit + SLACK)
    assert out, f"the {n}-eventuality mission was not decided within {limit + SLACK} s"
    return out[0], bool(out[1])


@pytest.mark.parametrize(("n", "limit"), [(10, 0.2), (12, 0.2), (16, 2.0)])
def test_a_mission_of_eventualities_is_decided_quickly(n, limit):
    seconds, safe = _decided(n, limit)
    assert safe and seconds < limit + SLACK


def test_a_mission_is_finished_only_when_every_place_is_visited():
    n = 12
    m = Monitor([_mission(n)])
    m.reset({f"q{i}": False for i in range(n)})
    for i in range(n - 1):
        assert m.commit({f"q{k}": k == i for k in range(n)}).safe
    done = m.finish()
    assert done.status is Status.VIOLATION and done.pending == ("c1",)
    assert "still needs: q11" in done.reason
    m.commit({f"q{k}": k == n - 1 for k in range(n)})
    assert m.finish().safe


# -- soundness: factored verdicts equal the whole automaton's ---------------------------------

POOL = [
    "F a", "F b", "F c", "F d", "G !d", "G(a -> F b)", "G(b -> X !b)", "!c U a", "X[!] d",
    "G(c -> X[!] a)", "F(a & b)", "!b W c", "G F c", "F G !a", "X b", "a R !d", "G(d -> F !d)",
]  # fmt: skip
ATOMS = "abcd"


@pytest.mark.parametrize("seed", range(12))
def test_factored_verdicts_are_the_whole_automatons(seed):
    rng = random.Random(seed)
    conjuncts = rng.sample(POOL, 7)
    formula = " & ".join(f"({c})" for c in conjuncts)
    m = Monitor([formula], deadline=None)
    assert len(m.automata) == 7  # factored
    whole = to_dfa(parse(formula))
    dead = whole.dead_states()
    for _ in range(6):
        trace = [{a: rng.random() < 0.4 for a in ATOMS} for _ in range(rng.randint(1, 7))]
        start = m.reset(trace[0])
        q = whole.run(trace[:1])
        if start.status is Status.ABORT:
            assert whole.shortest_accepted() is None
            break
        assert start.safe == (q not in dead), (formula, trace[:1])
        for letter in trace[1:]:
            check = m.check(letter)
            after = whole.next_state(q, letter)
            assert check.safe == (after not in dead), (formula, trace)
            if not check.safe:
                assert check.violated == ("c1",)
                break
            m.commit(letter)
            q = after
        else:
            assert m.automaton_states["c1"] == q
            assert m.finish().safe == whole.accepting[q], (formula, trace)


def test_a_factored_conjunction_is_factored_and_keeps_its_dfa():
    m = Monitor([_mission(7), "G !z"])
    assert len(m.automata) == 8 and len(m.dfas) == 2
    assert m.dfa("c1").num_states == 2**7
    m.reset({**{f"q{i}": False for i in range(7)}, "z": False})
    m.commit({**{f"q{i}": i < 3 for i in range(7)}, "z": False})
    assert m.dfa("c1").accepting[m.automaton_states["c1"]] is False
    assert len(m.position) == 8
    path = m.completion("c1")
    assert path and all(f"q{i}" in set().union(*path) for i in range(3, 7))


def test_attribution_names_a_factored_conjunction_unsatisfiable_on_its_own():
    m = Monitor([_mission(7) + " & G(q0 -> G !q1)", "G !z"])
    m.reset({**{f"q{i}": False for i in range(7)}, "z": False})
    v = m.check({**{f"q{i}": i == 0 for i in range(7)}, "z": False})
    assert v.status is Status.VIOLATION and v.violated == ("c1",)
    assert "it would break c1" in v.reason


def test_attribution_names_a_conflict_between_a_factored_conjunction_and_another():
    m = Monitor([_mission(7), "G(q0 -> G !q1)", "G !z"])
    m.reset({**{f"q{i}": False for i in range(7)}, "z": False})
    v = m.check({**{f"q{i}": i == 0 for i in range(7)}, "z": False})
    assert v.status is Status.VIOLATION and v.violated == ("c1", "c2")


def test_an_unsatisfiable_factored_conjunction_aborts():
    m = Monitor([_mission(7) + " & G !q3"])
    start = m.reset({f"q{i}": False for i in range(7)})
    assert start.status is Status.ABORT and start.violated == ("c1",)
