"""The monitor's remembered moves (the fast path of check and commit: a decided one-state move
looked up by state, last letter and letter) give the verdicts the full evaluation gives, on
random steps; and what must be decided again (a broken trace, a CandidateMonitor's answer) is
never served from memory."""

from __future__ import annotations

import random

import pytest

from safetychip.monitor import Monitor, Status


class _Forgetful(dict):
    """A move table that remembers nothing: every check takes the slow path."""

    def __setitem__(self, key, value) -> None:
        pass


SPECIFICATIONS = [
    (['G !"on_lava"', '!"is_open(door)" W "is_carrying(key)"', 'F "agent_at(goal)"'], ()),
    (['G("is_open(door)" -> X "is_carrying(key)")', 'G !("on_lava" & "is_carrying(key)")'], ()),
    (['F "a"', 'G("a" -> F "b")', '!"b" U "c"'], ['G !("a" & "c")']),
]


def _letter(rng: random.Random, atoms: tuple[str, ...]) -> dict[str, bool]:
    return {a: rng.random() < 0.3 for a in atoms}


@pytest.mark.parametrize(("constraints", "invariants"), SPECIFICATIONS)
def test_remembered_moves_give_the_verdicts_of_the_full_evaluation(constraints, invariants):
    fast, slow = Monitor(constraints, invariants), Monitor(constraints, invariants)
    slow._moves = _Forgetful()
    rng = random.Random(7)
    compared = remembered = 0
    for _ in range(300):  # short random episodes, so that moves come back
        first = _letter(rng, fast.atoms)
        assert fast.reset(first) == slow.reset(first)
        for _ in range(rng.randrange(1, 16)):
            letter = _letter(rng, fast.atoms)
            last = tuple((fast._last or {}).values())
            remembered += (fast._state, last, tuple(letter.values())) in fast._moves
            checked = fast.check(letter)
            assert checked == slow.check(letter)
            compared += 1
            if checked.safe or rng.random() < 0.1:  # as a shield, with the odd unsafe step
                assert fast.commit(letter) == slow.commit(letter)
                assert fast.position == slow.position
    assert compared > 1000
    assert remembered > compared // 2  # the fast path did serve most of them
    assert not slow._moves


def test_a_broken_trace_is_not_served_from_memory():
    monitor = Monitor(['G !"a"'], ['G !("a" & "b")'])
    monitor.reset({"a": False, "b": False})
    assert monitor.check({"a": False, "b": True}).safe  # remembered
    assert not monitor.commit({"a": True, "b": True}).safe  # breaks the invariant
    verdict = monitor.check({"a": False, "b": True})
    assert verdict.status is Status.VIOLATION
    assert "domain invariant" in verdict.reason
