"""Batched monitoring: one specification, N traces (a ``gymnasium.vector`` environment's
copies), each call checking N proposition states with numpy.

The traces' automaton states are an ``(N, automata)`` integer array; each automaton's
transition table is a numpy array indexed by ``(state, letter)``, so progressing N letters
is a handful of array operations. Whether a product state is safe is decided once by the
monitor itself (its own decision, cached) for each distinct state the batch reaches: the
verdicts are the monitor's.

Examples
--------
>>> import numpy as np
>>> batch = BatchMonitor(Monitor(['G !"on_lava"']), 3)
>>> batch.atoms
('on_lava',)
>>> batch.reset(np.zeros((3, 1), bool)).tolist()
[True, True, True]
>>> batch.check(np.array([[False], [True], [False]])).tolist()
[True, False, True]
"""

from __future__ import annotations

import numpy as np

from ..errors import MonitorError, TraceError
from ._monitor import Monitor

__all__ = ["BatchMonitor"]

#: The most product states whose decisions are kept in one array, by number.
_DENSE = 1 << 20


class BatchMonitor:
    """N traces of one :class:`Monitor`'s specification, checked together.

    Parameters
    ----------
    monitor : Monitor
        The specification and its decisions (shared by the N traces; reset by nothing here).
    n : int
        The number of traces.

    Attributes
    ----------
    atoms : tuple of str
        The columns of the letter arrays, in order (the monitor's atoms).
    states : numpy.ndarray
        ``(n, automata)`` automaton states of the traces.

    Raises
    ------
    MonitorError
        If the monitor has domain invariants, or an automaton over more than 16 atoms (not
        supported in batches yet: use one monitor per trace).
    """

    def __init__(self, monitor: Monitor, n: int) -> None:
        if monitor.invariants:
            raise MonitorError("batched monitoring does not support domain invariants yet: "
                               "use a Monitor per trace, or one without invariants")  # fmt: skip
        if n < 1:
            raise ValueError(f"n must be a positive number of traces, got {n}")
        self.monitor = monitor
        self.atoms = monitor.atoms
        product = monitor.product
        column = {a: i for i, a in enumerate(self.atoms)}
        self._tables, self._columns, self._weights = [], [], []
        for dfa in product.dfas:
            table = dfa._table()
            if table is None:
                raise MonitorError(f"an automaton over {len(dfa.aps)} atoms is too large to "
                                   "tabulate for batches: use a Monitor per trace")  # fmt: skip
            self._tables.append(np.asarray(table, dtype=np.int32))
            self._columns.append(np.array([column[a] for a in dfa.aps], dtype=np.intp))
            self._weights.append(1 << np.arange(len(dfa.aps), dtype=np.int64))
        self._initial = np.asarray(product.initial, dtype=np.int32)
        self.states = np.tile(self._initial, (n, 1))
        self._safe: dict[bytes, bool] = {}
        # A product state as one number (mixed radix over the automata's sizes) and, when
        # there are few, the decision of each by number (-1: not asked yet).
        sizes = [len(table) for table in self._tables]
        self._radix = np.cumprod([1, *sizes], dtype=np.int64)[:-1]
        count = int(np.prod(sizes, dtype=np.float64))
        self._decided = np.full(count, -1, np.int8) if count <= _DENSE else None

    def __len__(self) -> int:
        return len(self.states)

    def reset(self, initial: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """Start the traces (those *where* is true; default all) with the letters *initial*
        as position 0; returns whether each trace's start is safe."""
        rows = slice(None) if where is None else np.asarray(where, bool)
        self.states[rows] = self._initial
        return self.commit(initial, where)

    def check(self, letters: np.ndarray) -> np.ndarray:
        """Whether each trace's next letter (one row of *letters*, an ``(n, atoms)`` bool
        array) leaves every constraint satisfiable; nothing changes.

        Raises
        ------
        TraceError
            If *letters* does not have one bool row per trace and one column per atom.
        """
        return self._judge(self._next(letters))

    def commit(self, letters: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """Append each row of *letters* to its trace (only where *where* is true, default
        all); returns the verdicts :meth:`check` would give."""
        after = self._next(letters)
        safe = self._judge(after)
        if where is None:
            self.states = after
        else:
            mask = np.asarray(where, bool)
            self.states[mask] = after[mask]
        return safe

    def _next(self, letters: np.ndarray) -> np.ndarray:
        """The automaton states after each trace reads its row of *letters*."""
        letters = np.asarray(letters)
        if letters.shape != (len(self.states), len(self.atoms)) or letters.dtype != bool:
            raise TraceError(f"letters must be a bool array of shape ({len(self.states)}, "
                             f"{len(self.atoms)}) (one row per trace, columns {self.atoms}), "
                             f"got {letters.dtype} {letters.shape}")  # fmt: skip
        after = np.empty_like(self.states)
        for k, (table, columns, weights) in enumerate(
            zip(self._tables, self._columns, self._weights)
        ):
            index = letters[:, columns] @ weights if len(columns) else 0
            after[:, k] = table[self.states[:, k], index]
        return after

    def _judge(self, states: np.ndarray) -> np.ndarray:
        """Whether each row of *states* is safe: the monitor's decision for each distinct
        product state, asked once."""
        decided = self._decided
        if decided is None:
            return self._judge_rows(states)
        codes = states @ self._radix
        verdicts = decided[codes]
        unknown = verdicts < 0
        if unknown.any():
            for code in np.unique(codes[unknown]):
                rows = codes == code
                state = tuple(int(q) for q in states[np.argmax(rows)])
                safe, known = self.monitor.decided_safe(state)
                if known:  # a decision refused for want of time is asked again next time
                    decided[code] = safe
                verdicts[rows] = safe
        return verdicts.astype(bool)

    def _judge_rows(self, states: np.ndarray) -> np.ndarray:
        """:meth:`_judge` for products too large to number densely: by distinct rows."""
        unique, inverse = np.unique(states, axis=0, return_inverse=True)
        known = self._safe
        verdicts = np.empty(len(unique), dtype=bool)
        for i, row in enumerate(unique):
            key = row.tobytes()
            safe = known.get(key)
            if safe is None:
                safe, decided = self.monitor.decided_safe(tuple(int(q) for q in row))
                if decided:  # a decision refused for want of time is asked again next time
                    known[key] = safe
            verdicts[i] = safe
        return verdicts[inverse.reshape(-1)]

    def __repr__(self) -> str:
        n, k = len(self.states), len(self.monitor.constraints)
        return f"<BatchMonitor: {n} traces, {k} constraints>"
