"""BatchMonitor numbers product states and keeps their decisions in an array; for products too
large to number densely it judges distinct rows instead: both give the same verdicts."""

from __future__ import annotations

import numpy as np
import pytest

from safetychip.monitor import BatchMonitor, Monitor, _batch

SPEC = ['F "agent_at(goal)"', '!"agent_at(goal)" U "is_carrying(key)"', 'G !"on_lava"']


def test_the_dense_decisions_and_the_distinct_rows_give_the_same_verdicts(monkeypatch):
    n = 64
    dense = BatchMonitor(Monitor(SPEC), n)
    with monkeypatch.context() as patch:
        patch.setattr(_batch, "_DENSE", 0)
        rows = BatchMonitor(Monitor(SPEC), n)
    assert dense._decided is not None and rows._decided is None
    rng = np.random.default_rng(7)
    initial = rng.random((n, len(dense.atoms))) < 0.2
    assert dense.reset(initial).tolist() == rows.reset(initial).tolist()
    for _ in range(200):
        letters = rng.random((n, len(dense.atoms))) < 0.3
        assert dense.check(letters).tolist() == rows.check(letters).tolist()
        where = rng.random(n) < 0.5
        assert dense.commit(letters, where).tolist() == rows.commit(letters, where).tolist()
        assert (dense.states == rows.states).all()


@pytest.mark.parametrize("spec", [[], ['G !"on_lava"']])
def test_a_specification_of_few_automata_is_numbered(spec):
    batch = BatchMonitor(Monitor(spec), 3)
    assert batch.reset(np.zeros((3, len(batch.atoms)), bool)).tolist() == [True] * 3
