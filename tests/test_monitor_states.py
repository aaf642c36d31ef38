"""The monitor's typed boundary for proposition states (``safetychip.monitor.proposition_states``).

Three ways an audit found the monitor saying SAFE to an unsafe action, each with its exact
example and a property test over random formulas (Hypothesis, derandomized):

1. a value that is not a boolean read with ``bool()`` (the string "false", NaN);
2. a committed state that breaks a domain invariant left out of the trace, so that later
   verdicts describe a trace that never happened;
3. a list of states changed in place between ``check`` and ``commit``, the checked verdict
   reused and the old values recorded.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import ATOMS, formulas

from safetychip.automata import to_dfa
from safetychip.automata._guards import is_propositional
from safetychip.errors import MonitorError, SafetyChipError, TraceError
from safetychip.ltl import And, Equiv, F, G, Implies, Not, Or, ap, evaluate
from safetychip.monitor import (
    Monitor,
    Status,
    Verdict,
    exactly_one,
    proposition_state,
    proposition_states,
)

FORMULAS = formulas()
LETTERS = st.frozensets(st.sampled_from(ATOMS))
TRACES = st.lists(LETTERS, min_size=1, max_size=6)


def _settings(n: int) -> settings:
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])  # fmt: skip


@st.composite
def propositional(draw, depth: int = 3):
    """Random formulas over a, b, c without temporal operators (bodies of invariants)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return ap(draw(st.sampled_from(ATOMS)))
    if draw(st.integers(0, 4)) == 0:
        return Not(draw(propositional(depth - 1)))
    op = draw(st.sampled_from([And, Or, Implies, Equiv]))
    return op(draw(propositional(depth - 1)), draw(propositional(depth - 1)))


INVARIANTS = st.one_of(
    st.just(exactly_one(["a", "b"])),
    st.just(exactly_one(ATOMS)),
    propositional().map(G),
    st.just(G(Implies("a", F("b")))),  # not over single states: a component of the product
)

#: Values that are not booleans, though ``bool()`` would read each as one.
NOT_BOOLEANS = st.one_of(
    st.sampled_from(["false", "true", "", "0", 0, 1, 0.0, 1.0, float("nan"), None, [], [False],
                     (), {}, b"", 1j, np.float64(0.0), np.int64(1), np.array(True),
                     np.array([True, False]), object()]),
    st.text(max_size=5),
    st.integers(),
    st.floats(allow_nan=True),
)  # fmt: skip


def over(letter, atoms) -> dict[str, bool]:
    """*letter* (true atoms) as a mapping over *atoms*."""
    return {a: a in letter for a in atoms}


# -- 1. only booleans ---------------------------------------------------------------------------
def test_audit_1_the_string_false_is_not_false():
    m = Monitor(["!a W b"])
    committed = m.commit({"a": False, "b": "false"})
    assert committed.status is Status.VIOLATION
    assert committed.reason == (
        "cannot decide, so the action is refused: proposition state 0 of the action gives b the "
        "value 'false' (type str), not a boolean: give True or False"
    )
    assert m.history == []  # never recorded as b = True
    v = m.check({"a": True, "b": False})
    assert v.status is Status.VIOLATION  # was SAFE: "false" had counted as b = True
    assert v.reason.startswith("the monitor cannot decide any more: the proposition states "
                               "committed at position 0 could not be read (")  # fmt: skip


@pytest.mark.parametrize("value", [float("nan"), None, np.array([True, False]), "true", 1])
def test_audit_1_other_values_are_refused_not_raised(value):
    m = Monitor(["G !a"])
    m.reset({"a": False})
    v = m.check({"a": value})
    assert v.status is Status.VIOLATION
    assert v.reason.startswith(
        "cannot decide, so the action is refused: proposition state 0 of the action gives a the "
        "value "
    )


class _Exploding:
    def __bool__(self):
        raise RuntimeError("no truth value")

    def __repr__(self):
        raise RuntimeError("no repr either")


def test_audit_1_an_object_whose_bool_and_repr_raise():
    m = Monitor(["G !a"])
    m.reset({"a": False})
    v = m.check({"a": _Exploding()})
    assert v.reason == (
        "cannot decide, so the action is refused: proposition state 0 of the action gives a the "
        "value a _Exploding object whose repr fails, not a boolean: give True or False"
    )


def test_numpy_booleans_are_booleans():
    m = Monitor(["G !a", "F b"])
    m.reset({"a": np.False_, "b": np.bool_(False)})
    assert m.history == [{"a": False, "b": False}]
    assert all(type(v) is bool for v in m.history[0].values())
    assert m.check({"a": np.True_, "b": False}) == m.check({"a": True, "b": False})


@_settings(300)
@given(FORMULAS, TRACES, st.data())
def test_a_value_that_is_not_a_boolean_is_never_safe(f, trace, data):
    m = Monitor([f])
    if m.reset(over(trace[0], m.atoms)).status is Status.ABORT:
        return
    for letter in trace[1:]:
        m.commit(over(letter, m.atoms))
    state = over(data.draw(LETTERS), m.atoms)
    name = data.draw(st.sampled_from(m.atoms)) if m.atoms else "unused"  # unused: still read
    state[name] = bad = data.draw(NOT_BOOLEANS)
    length = len(m.history)
    for action in (state, [state], [over(set(), m.atoms), state]):
        v = m.check(action)
        assert v.status is Status.VIOLATION, (str(f), action)
        assert v.reason.startswith("cannot decide, so the action is refused: proposition state ")
        assert f"gives {name} the value " in v.reason
    with pytest.raises(TraceError, match=f"^the proposition state gives {name} the value "):
        proposition_state(state, m.atoms)
    with pytest.raises(TraceError, match=f"^the state at position {length} of the trace gives "
                                         f"{name} the value "):  # fmt: skip
        Monitor([f]).evaluate([*m.history, state])
    assert not m.commit(state).safe
    assert len(m.history) == length  # nothing was recorded as something else
    assert not m.check(m.history[-1]).safe  # the trace is unknown from here on
    assert not m.finish().safe
    assert state[name] is bad  # the caller's state is left alone


# -- 2. a state breaking an invariant is recorded, and the trace stays broken -------------------
def test_audit_2_the_trace_that_happened_is_the_one_judged():
    spec, rooms = "G(b -> X G !a)", exactly_one(["r1", "r2"])
    trace = [["r1"], ["b"], ["r1", "a"]]
    m = Monitor([spec], [rooms])
    verdicts = m.evaluate(trace)
    assert [v.status for v in verdicts] == [Status.SAFE] + [Status.VIOLATION] * 3
    assert verdicts[1].reason == (f"it would break the domain invariant {rooms} "
                                  "(state 0 of the action)")  # fmt: skip
    broken = f"the trace broke the domain invariant {rooms} at position 1"
    assert verdicts[2].reason == f"{broken}: no action can be safe any more"
    assert verdicts[3] == Verdict(Status.VIOLATION, f"DONE refused: {broken}", ("c1",),
                                  pending=("c1",))  # fmt: skip
    assert m.history == [over(s, m.atoms) for s in trace]  # every state happened
    assert not evaluate(And(spec, rooms), trace)


def test_audit_2_snapshot_restore_and_reset_mend_a_broken_trace():
    m = Monitor(["F a"], [exactly_one(["r1", "r2"])])
    m.reset({"r1"})
    mark = m.snapshot()
    assert not m.commit({"r1", "r2"}).safe
    assert not m.check({"r1", "a"}).safe
    broken = m.snapshot()
    m.restore(mark)
    assert m.check({"r1", "a"}).safe
    assert m.commit({"r2", "a"}).safe and m.finish().safe
    m.reset({"r1"})
    assert not m.commit({"r1", "r2"}).safe
    assert m.reset({"r1"}).safe and m.check({"r1", "a"}).safe
    m.restore(broken)  # a snapshot carries the broken trace
    assert "broke the domain invariant" in m.check({"r1", "a"}).reason


def test_audit_2_a_broken_initial_state_is_recorded():
    m = Monitor(["F a"], [exactly_one(["r1", "r2"])])
    v = m.reset(set())
    assert v.status is Status.VIOLATION and "domain invariant" in v.reason
    assert m.history == [{"a": False, "r1": False, "r2": False}]
    assert m.finish().reason.startswith("DONE refused: the trace broke the domain invariant")


@_settings(300)
@given(FORMULAS, INVARIANTS, TRACES)
def test_online_verdicts_agree_with_offline_evaluation(f, inv, trace):
    m = Monitor([f], [inv])
    trace = [over(s, m.atoms) for s in trace]
    dfa = to_dfa(And(f, inv))
    dead = dfa.dead_states()
    start = m.reset(trace[0])
    if start.status is Status.ABORT:
        assert dfa.initial in dead, (str(f), str(inv))
        return
    verdicts = [start]
    for state in trace[1:]:
        checked = m.check(state)
        verdicts.append(m.commit(state))
        assert verdicts[-1] == checked
    assert m.history == trace  # every committed state is recorded
    for k, v in enumerate(verdicts):
        live = dfa.run(trace[: k + 1]) not in dead
        assert v.safe is live, (str(f), str(inv), trace[: k + 1], v)
        if is_propositional(inv.children[0]) and not evaluate(inv, trace[: k + 1]):
            assert "domain invariant" in v.reason
    done = m.finish()
    assert done.safe is evaluate(And(f, inv), trace) is dfa.accepts(trace), (str(f), str(inv))


# -- 3. what is committed is what is recorded ---------------------------------------------------
def test_audit_3_a_change_between_check_and_commit_is_seen():
    m = Monitor(["G !a"])
    m.reset({"a": False})
    states = [{"a": False}]
    assert m.check(states).safe
    states[0]["a"] = True  # in place, after the check
    committed = m.commit(states)
    assert committed.status is Status.VIOLATION and committed.violated == ("c1",)
    assert m.history == [{"a": False}, {"a": True}]
    assert not m.finish().safe


@pytest.mark.parametrize("kind", ["dict", "list", "set"])
def test_commit_reuses_the_check_only_for_the_same_states(kind, monkeypatch):
    m = Monitor(["G(a -> F b)"])
    m.reset(set())
    calls = []
    evaluate_ = m._evaluate
    monkeypatch.setattr(m, "_evaluate", lambda letters: calls.append(1) or evaluate_(letters))
    states = {"dict": {"a": True, "b": False}, "list": [{"a"}], "set": {"a"}}[kind]
    m.check(states)
    m.commit(states)
    assert len(calls) == 1  # unchanged: the checked verdict is reused
    m.check(states)
    if kind == "list":
        states[0].add("b")
    elif kind == "set":
        states.add("b")
    else:
        states["b"] = True
    m.commit(states)
    assert len(calls) == 3  # changed: checked again
    assert m.history[-1] == {"a": True, "b": True}


MUTATIONS = st.lists(st.tuples(st.sampled_from(ATOMS), st.booleans()), max_size=3)


@_settings(300)
@given(FORMULAS, st.lists(st.tuples(st.lists(LETTERS, min_size=1, max_size=3), MUTATIONS,
                                    st.integers(0, 2)), min_size=1, max_size=5))  # fmt: skip
def test_the_history_is_what_was_committed(f, actions):
    m = Monitor([f])
    if m.reset(over(set(), m.atoms)).status is Status.ABORT:
        return
    expected = list(m.history)
    for letters, mutations, which in actions:
        states = [over(s, m.atoms) for s in letters]
        m.check(states)
        target = states[which % len(states)]
        for atom, value in mutations:  # changed in place after the check
            if atom in target:
                target[atom] = value
        mark = m.snapshot()
        verdict = m.commit(states)
        m.restore(mark)
        assert m.check([dict(s) for s in states]) == verdict  # a fresh check of what was committed
        m.commit(states)
        expected.extend(dict(s) for s in states)
        assert m.history == expected, (str(f), actions)
        for s in states:  # a later change cannot reach the record
            s.clear()
        assert m.history == expected
    assert m.finish().safe is evaluate(f, expected)


# -- error messages ------------------------------------------------------------------------------
def test_normaliser_forms():
    assert proposition_state({"b"}, ["a", "b"]) == {"a": False, "b": True}
    assert proposition_state(["b"], ["a", "b"]) == {"a": False, "b": True}
    assert proposition_state({"a": True, "b": np.False_, "x": False}, ["a", "b"]) == {
        "a": True, "b": False}  # fmt: skip
    assert proposition_states({"a": True}, ["a"]) == [{"a": True}]
    assert proposition_states(frozenset(), ["a"]) == [{"a": False}]
    assert proposition_states(({"a"}, {"a": False}), ["a"]) == [{"a": True}, {"a": False}]
    assert proposition_states([set()], []) == [{}]
    state = {"a": True}
    read = proposition_state(state, ["a"])
    assert read == state and read is not state


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: proposition_state({"a": "false"}, ["a"]),
         "the proposition state gives a the value 'false' (type str), not a boolean: give True "
         "or False"),
        (lambda: proposition_state({"a": True, "other": None}, ["a"]),
         "the proposition state gives other the value None (type NoneType), not a boolean: give "
         "True or False"),
        (lambda: proposition_state({"a": "x" * 100}, ["a"]),
         "the proposition state gives a the value '" + "x" * 58 + "… (type str), not a "
         "boolean: give True or False"),
        (lambda: proposition_states([{"a": True}, {"a": np.array(True)}], ["a"]),
         "proposition state 1 gives a the value array(True) (type ndarray), not a boolean: give "
         "True or False"),
        (lambda: proposition_state({"a": True}, ["a", "is_open(fridge)", "b"]),
         "the proposition state has no value for is_open(fridge), b"),
        (lambda: proposition_state({"is_grabbed(phnoe)": True}, ["is_grabbed(phone)"]),
         "the proposition state has no value for is_grabbed(phone) (it names "
         "is_grabbed(phnoe): a misspelling?)"),
        (lambda: proposition_state({"is_grabbed(phnoe)"}, ["is_grabbed(phone)", "agent_at(x)"]),
         "the proposition state names is_grabbed(phnoe), which is not a proposition of the "
         "specification; did you mean is_grabbed(phone)?"),
        (lambda: proposition_state({"zz"}, [f"p{i}" for i in range(10)]),
         "the proposition state names zz, which is not a proposition of the specification; the "
         "specification's propositions are p0, p1, p2, p3, p4, p5, p6, p7, …"),
        (lambda: proposition_state({"a"}, []),
         "the proposition state names a, which is not a proposition of the specification; the "
         "specification has no propositions"),
        (lambda: proposition_state([["a"]], ["a"]),
         "the proposition state must name propositions, got [['a']] (type list)"),
        (lambda: proposition_state(42, ["a"]),
         "the proposition state must be a mapping from propositions to True or False, or a set "
         "of the true propositions, got 42 (type int)"),
        (lambda: proposition_states([], ["a"]),
         "the proposition states of an action are one mapping, one set of the true "
         "propositions, or a non-empty list of those, got [] (type list)"),
        (lambda: proposition_states("a", ["a"]),
         "the proposition states of an action are one mapping, one set of the true "
         "propositions, or a non-empty list of those, got 'a' (type str)"),
        (lambda: proposition_states(np.array([True]), ["a"]),
         "the proposition states of an action are one mapping, one set of the true "
         "propositions, or a non-empty list of those, got array([ True]) (type ndarray)"),
    ],
)  # fmt: skip
def test_normaliser_errors(call, message):
    with pytest.raises(TraceError) as info:
        call()
    assert str(info.value) == message
    assert isinstance(info.value, ValueError) and isinstance(info.value, SafetyChipError)


def test_reset_and_evaluate_raise_on_a_malformed_state():
    m = Monitor(["G !a"])
    m.reset({"a": False})
    with pytest.raises(TraceError, match=r"^the initial state gives a the value 0 \(type int\)"):
        m.reset({"a": 0})
    assert m.history == [{"a": False}]  # left as it was
    with pytest.raises(TraceError, match=r"^the state at position 2 of the trace names b, which "
                                         r"is not a proposition of the specification; the "
                                         r"specification's propositions are a$"):  # fmt: skip
        m.evaluate([set(), {"a": False}, {"b"}])
    with pytest.raises(TraceError, match=r"^a trace is a list of proposition states, got set$"):
        m.evaluate({"a"})
    with pytest.raises(TraceError, match=r"at least one proposition state \(position 0\)"):
        m.evaluate([])


def test_a_typo_in_a_set_is_refused_not_read_as_false():
    m = Monitor(["G !is_grabbed(phone)"])
    m.reset(set())
    v = m.check({"is_grabbed(phnoe)"})
    assert v.status is Status.VIOLATION
    assert v.reason == (
        "cannot decide, so the action is refused: proposition state 0 of the action names "
        "is_grabbed(phnoe), which is not a proposition of the specification; did you mean "
        "is_grabbed(phone)?"
    )


def test_a_mapping_that_fails_when_read_is_refused():
    class Broken(dict):
        def __getitem__(self, key):
            raise RuntimeError("sensor offline")

    m = Monitor(["G !a"])
    m.reset({"a": False})
    v = m.commit(Broken(a=False))
    assert v.reason == ("cannot decide, so the action is refused: the proposition states could "
                        "not be read (RuntimeError: sensor offline)")  # fmt: skip
    assert m.history == [{"a": False}]
    later = m.check({"a": False})
    assert later.reason == (
        "the monitor cannot decide any more: the proposition states committed at position 1 "
        "could not be read (RuntimeError: sensor offline): no action can be safe any more"
    )
    assert m.finish().reason.startswith("DONE refused: the monitor cannot decide any more")
    m.reset({"a": False})
    assert m.check({"a": False}).safe


def test_the_lifecycle_errors_come_first():
    m = Monitor(["F a"])
    m.reset({"a": True})
    assert m.finish().safe
    with pytest.raises(MonitorError, match="the trace is finished"):
        m.check({"a": "no"})
