"""Batched monitoring (safetychip.monitor.BatchMonitor): the verdicts of N traces checked in
one numpy call equal those of N single monitors, step by step, on random traces."""

from __future__ import annotations

import numpy as np
import pytest

from safetychip.errors import MonitorError, TraceError
from safetychip.monitor import BatchMonitor, Monitor

SPECIFICATIONS = [
    ['G !"on_lava"'],
    ['!"is_open(door)" W "is_carrying(key)"', 'G !"on_lava"'],
    ['G ("is_carrying(key)" -> F "is_open(door)")', 'G !("on_lava" & "is_carrying(key)")'],
    # jointly unsatisfiable once the key is carried: attribution by the monitor, not alone
    ['G ("is_carrying(key)" -> X "is_open(door)")', 'G ("is_carrying(key)" -> X !"is_open(door)")'],
    ['F "agent_at(goal)"', '!"agent_at(goal)" U "is_carrying(key)"', 'G !"on_lava"'],
]


@pytest.mark.parametrize("spec", SPECIFICATIONS)
def test_batched_verdicts_equal_single_monitors_on_random_traces(spec):
    n, steps = 32, 625  # 20,000 steps a specification, 100,000 in all
    batch = BatchMonitor(Monitor(spec), n)
    atoms = batch.atoms
    singles = [Monitor(spec) for _ in range(n)]
    rng = np.random.default_rng(len(spec))
    initial = rng.random((n, len(atoms))) < 0.2
    expected = [m.reset(dict(zip(atoms, map(bool, row)))).safe for m, row in zip(singles, initial)]
    assert batch.reset(initial).tolist() == expected
    refusals = 0
    for _ in range(steps):
        letters = rng.random((n, len(atoms))) < 0.3
        states = [dict(zip(atoms, map(bool, row))) for row in letters]
        expected = [m.check([s]).safe for m, s in zip(singles, states)]
        assert batch.check(letters).tolist() == expected
        where = np.array(expected) | (rng.random(n) < 0.1)  # sometimes run a refused one
        for m, s, w in zip(singles, states, where):
            if w:
                m.commit([s])
        assert batch.commit(letters, where).tolist() == expected
        refusals += n - sum(expected)
        restart = rng.random(n) < 0.05  # episodes end at different times
        fresh = rng.random((n, len(atoms))) < 0.2
        for m, row, r in zip(singles, fresh, restart):
            if r:
                m.reset(dict(zip(atoms, map(bool, row))))
        batch.reset(fresh, restart)
    assert refusals > 0  # the traces met refusals as well as admissions


def test_bad_letters_and_invariants_are_refused_with_the_fix():
    batch = BatchMonitor(Monitor(['G !"on_lava"']), 2)
    with pytest.raises(TraceError, match=r"bool array of shape \(2, 1\)"):
        batch.check(np.zeros((3, 1), bool))
    with pytest.raises(TraceError, match="got int64"):
        batch.check(np.zeros((2, 1), np.int64))
    with pytest.raises(MonitorError, match="does not support domain invariants"):
        BatchMonitor(Monitor(['G !"a"'], invariants=['G !("a" & "b")']), 2)
    with pytest.raises(ValueError, match="positive number of traces"):
        BatchMonitor(Monitor(['G !"a"']), 0)
