"""The constraint monitor: lifecycle, verdicts, attribution, invariants and fail-safe paths."""

from __future__ import annotations

import pytest

from safetychip.errors import MonitorError, SafetyChipError, SpecificationError, TraceError
from safetychip.ltl import Not, evaluate, parse, response
from safetychip.monitor import (
    Constraint,
    Monitor,
    Status,
    Verdict,
    as_constraints,
    exactly_one,
)

KITCHEN, BEDROOM, BATHROOM, LIVING = (
    "agent_at(kitchen)",
    "agent_at(bedroom)",
    "agent_at(bathroom)",
    "agent_at(living_room)",
)
ROOMS = [KITCHEN, BEDROOM, BATHROOM, LIVING]


def in_room(room: str, *extra: str) -> dict[str, bool]:
    """A proposition state of the house: the agent in *room*; *extra* atoms true."""
    state = {r: r == room for r in ROOMS}
    state.update({a: True for a in extra})
    return state


# -- lifecycle ----------------------------------------------------------------------------------
def test_check_does_not_commit_and_commit_does():
    m = Monitor(["G(a -> F b)"])
    assert m.reset({"a": False, "b": False}).safe
    assert m.history == [{"a": False, "b": False}]
    before = dict(m.automaton_states)
    v = m.check({"a": True, "b": False})
    assert v.safe
    assert m.history == [{"a": False, "b": False}]
    assert m.automaton_states == before
    w = m.commit({"a": True, "b": False})
    assert w == v  # the same verdict as check
    assert m.history == [{"a": False, "b": False}, {"a": True, "b": False}]
    assert m.automaton_states != before
    assert m.step({"a": False, "b": True}).safe  # step is commit
    assert len(m.history) == 3
    assert m.finish().safe


def test_an_action_may_produce_several_states():
    m = Monitor(["G !b"])
    m.reset(set())
    v = m.commit([{"a": True, "b": False}, set(), {"a": True, "b": False}])
    assert v.safe and len(v.state_changes) == 3
    assert len(m.history) == 4
    assert m.history[1] == {"b": False}  # states are kept over the specification's atoms


def test_finish_lists_pending_obligations():
    fridge = Constraint(response("is_open(fridge)", Not("is_open(fridge)")),
                        "if you open the fridge, close it later", name="fridge")  # fmt: skip
    phone = Constraint.parse("G !is_grabbed(phone)", "never pick up the phone", name="phone")
    m = Monitor([phone, fridge])
    m.reset({"is_open(fridge)": False, "is_grabbed(phone)": False})
    assert m.commit({"is_open(fridge)": True, "is_grabbed(phone)": False}).safe
    done = m.finish()
    assert done.status is Status.VIOLATION
    assert done.pending == ("fridge",)
    assert done.violated == ("fridge",)
    assert done.reason == (
        "DONE refused: fridge (if you open the fridge, close it later) still needs: "
        "!is_open(fridge)"
    )
    # DONE was refused: the agent may go on, close the fridge, and finish.
    assert m.commit({"is_open(fridge)": False, "is_grabbed(phone)": False}).safe
    assert m.finish() == Verdict(Status.SAFE, "every constraint is satisfied")


def test_finish_names_what_is_still_owed():
    m = Monitor(["G(a -> F b)", "F c"])
    m.reset({"a": True, "b": False, "c": False})
    done = m.finish()
    assert done.pending == ("c1", "c2")
    assert "c1 (G(a -> Fb)) still needs: b;" in done.reason
    assert "c2 (Fc) still needs: c" in done.reason


def test_finish_before_any_state():
    m = Monitor(["G a"])
    v = m.finish()
    assert v.status is Status.VIOLATION
    assert v.reason == "DONE before any proposition state was observed"


def test_using_the_monitor_after_finish_raises():
    m = Monitor(["F a"])
    m.reset({"a": True})
    assert m.finish().safe
    with pytest.raises(
        MonitorError, match=r"the trace is finished \(DONE was accepted\): call reset\(\) first"
    ):
        m.check({"a": True})
    with pytest.raises(MonitorError, match="the trace is finished"):
        m.commit({"a": True})
    with pytest.raises(MonitorError, match="the trace is finished"):
        m.step({"a": True})
    assert issubclass(MonitorError, RuntimeError) and issubclass(MonitorError, SafetyChipError)
    # reset starts a new trace.
    assert m.reset({"a": False}).safe
    assert m.history == [{"a": False}]
    assert not m.finish().safe


def test_offline_evaluate():
    m = Monitor(["!a W b"])
    verdicts = m.evaluate([set(), {"b"}, {"a"}])
    assert [v.status for v in verdicts] == [Status.SAFE] * 4
    assert len(m.history) == 3
    verdicts = m.evaluate([set(), {"a"}, {"b"}])
    assert [v.status for v in verdicts] == [Status.SAFE, Status.VIOLATION, Status.VIOLATION,
                                            Status.VIOLATION]  # fmt: skip
    with pytest.raises(TraceError, match=r"at least one proposition state \(position 0\)"):
        m.evaluate([])


# -- abort ----------------------------------------------------------------------------------------
def test_reset_aborts_naming_a_smallest_conflicting_subset():
    m = Monitor([
        Constraint.parse("F agent_at(kitchen)", "go to the kitchen", name="kitchen"),
        Constraint.parse("G !is_grabbed(phone)", "never pick up the phone", name="phone"),
        Constraint.parse("G !agent_at(kitchen)", "never enter the kitchen", name="no_kitchen"),
        Constraint.parse("F agent_at(bedroom)", "go to the bedroom", name="bedroom"),
    ])  # fmt: skip
    v = m.reset()
    assert v.status is Status.ABORT
    assert v.violated == ("kitchen", "no_kitchen")
    assert "unsatisfiable" in v.reason
    for part in ("go to the kitchen", "no_kitchen", "never enter the kitchen"):
        assert part in v.reason
    for other in ("phone", "bedroom"):
        assert other not in v.reason
    assert not v.safe
    with pytest.raises(
        MonitorError, match="the specification is unsatisfiable: reset with other constraints"
    ):
        m.check({KITCHEN: False})
    with pytest.raises(MonitorError, match="unsatisfiable"):
        m.commit({KITCHEN: False})
    # reset with an initial state also aborts, without committing it.
    assert (
        m.reset({KITCHEN: False, BEDROOM: False, "is_grabbed(phone)": False}).status is Status.ABORT
    )
    assert m.history == []


def test_three_way_conflict_names_all_three():
    m = Monitor(["!a W b", "F a", "G !b"])
    v = m.reset()
    assert v.status is Status.ABORT
    assert v.violated == ("c1", "c2", "c3")  # every pair is satisfiable


def test_false_constraint_aborts():
    m = Monitor(["G a", "false", "F b"])
    v = m.reset({"a": True, "b": False})
    assert v.status is Status.ABORT
    assert v.violated == ("c2",)
    assert "unsatisfiable" in v.reason and "c2" in v.reason and "false" in v.reason
    assert "c1" not in v.reason and "c3" not in v.reason


def test_finish_after_abort_raises():
    m = Monitor(["F a", "G !a"])
    assert m.reset().status is Status.ABORT
    with pytest.raises(MonitorError):
        m.finish()


def test_evaluate_after_abort_returns_abort():
    m = Monitor(["F a", "G !a"])
    for trace in ([{"a"}], [{"a"}, set()]):
        verdicts = m.evaluate(trace)
        assert [v.status for v in verdicts] == [Status.ABORT]
        assert verdicts[0].violated == ("c1", "c2")


def test_snapshot_and_restore_go_back_in_the_trace():
    m = Monitor(["G(a -> X[!] b)"])
    m.reset(set())
    mark = m.snapshot()
    assert m.commit({"a"}).safe
    assert not m.check(set()).safe  # b is owed right after a
    m.restore(mark)
    assert m.check(set()).safe and len(m.history) == 1


def test_verdict_round_trips_through_a_dict():
    m = Monitor(["G !a"])
    m.reset(set())
    v = m.check({"a"})
    assert Verdict.from_dict(v.to_dict()) == v
    with pytest.raises(ValueError, match="not a verdict record"):
        Verdict.from_dict({"status": "maybe", "reason": ""})


# -- attribution --------------------------------------------------------------------------------
def test_violation_is_attributed_to_the_constraint_it_breaks():
    m = Monitor([
        Constraint.parse("G !is_grabbed(phone)", "never pick up the phone", name="phone"),
        Constraint.parse("!agent_at(kitchen) W agent_at(bathroom)",
                         "do not enter the kitchen before the bathroom", name="order"),
        Constraint.parse("G(is_open(fridge) -> F !is_open(fridge))",
                         "close the fridge after opening it", name="fridge"),
    ])  # fmt: skip
    start = {"is_grabbed(phone)": False, KITCHEN: False, BATHROOM: False, "is_open(fridge)": False}
    assert m.reset(start).safe
    v = m.check({**start, KITCHEN: True})
    assert v.status is Status.VIOLATION
    assert v.violated == ("order",)
    assert v.reason.startswith("it would break order")
    assert "do not enter the kitchen before the bathroom" in v.reason
    assert "phone" not in v.reason and "fridge" not in v.reason
    w = m.check({**start, "is_grabbed(phone)": True, "is_open(fridge)": True})
    assert w.violated == ("phone",)
    both = m.check({**start, "is_grabbed(phone)": True, KITCHEN: True})
    assert both.violated == ("phone", "order")
    assert m.check({**start, "is_open(fridge)": True}).safe  # owed later, not broken


def test_joint_violation():
    p = Constraint.parse("G(a -> X[!] b)", "after a, b right away", name="p")
    q = Constraint.parse("G !b", "never b", name="q")
    for alone in (p, q):
        m = Monitor([alone])
        m.reset(set())
        assert m.check({"a": True, "b": False}).safe, alone
    m = Monitor([p, q])
    assert m.reset(set()).safe
    v = m.check({"a"})
    assert v.status is Status.VIOLATION
    assert v.violated == ("p", "q")
    assert v.reason.startswith("these constraints could no longer all be met together: p")
    assert "after a, b right away" in v.reason and "never b" in v.reason
    assert m.check(set()).safe


# -- domain invariants ---------------------------------------------------------------------------
def test_exactly_one():
    f = exactly_one([KITCHEN, BEDROOM, BATHROOM])
    assert f.op == "G"
    for room in (KITCHEN, BEDROOM, BATHROOM):
        assert evaluate(f, [{room}])
    assert not evaluate(f, [set()])
    assert not evaluate(f, [{KITCHEN, BATHROOM}])
    assert not evaluate(f, [{KITCHEN}, {KITCHEN, BEDROOM}])


def test_invariant_turns_a_safe_start_into_an_abort():
    constraints = ["G !agent_at(kitchen)", "F !agent_at(bedroom)"]
    assert Monitor(constraints).reset().safe  # be nowhere at all
    m = Monitor(constraints, [exactly_one([KITCHEN, BEDROOM])])
    v = m.reset()
    assert v.status is Status.ABORT
    assert v.violated == ("c1", "c2")


def test_invariant_turns_a_safe_action_into_a_violation():
    fridge = "is_open(fridge)"
    constraints = [
        Constraint.parse("G(agent_at(bedroom) -> G agent_at(bedroom))",
                         "once in the bedroom, stay there", name="stay"),
        Constraint.parse("F(agent_at(kitchen) & is_open(fridge))",
                         "open the fridge in the kitchen", name="fridge"),
    ]  # fmt: skip
    start = {KITCHEN: True, BEDROOM: False, fridge: False}
    to_bedroom = {KITCHEN: False, BEDROOM: True, fridge: False}
    # Without the invariant the agent could later be in the bedroom and the kitchen at once.
    free = Monitor(constraints)
    assert free.reset(start).safe
    assert free.check(to_bedroom).safe
    house = Monitor(constraints, [exactly_one([KITCHEN, BEDROOM])])
    assert house.reset(start).safe
    v = house.check(to_bedroom)
    assert v.status is Status.VIOLATION
    assert v.violated == ("stay", "fridge")  # jointly: each alone is still satisfiable
    assert house.check({**start, fridge: True}).safe


def test_state_breaking_an_invariant_is_refused_then_recorded_when_committed():
    m = Monitor(["G !agent_at(bathroom)"], [exactly_one([KITCHEN, BEDROOM])])
    assert m.reset({KITCHEN: False, BEDROOM: True, BATHROOM: False}).safe
    both = {KITCHEN: True, BEDROOM: True, BATHROOM: False}
    v = m.check(both)
    assert v.status is Status.VIOLATION and v.violated == ()
    invariant = str(exactly_one([KITCHEN, BEDROOM]))
    assert v.reason == f"it would break the domain invariant {invariant} (state 0 of the action)"
    assert v.state_changes == ("Violated: agent_at(kitchen)",)
    assert len(m.history) == 1  # check commits nothing
    assert m.commit(both) == v  # it happened: recorded, with the same verdict as check
    assert m.history[-1] == both
    broken = f"the trace broke the domain invariant {invariant} at position 1"
    after = m.commit({KITCHEN: True, BEDROOM: False, BATHROOM: False})  # a good state again
    assert after.status is Status.VIOLATION
    assert after.reason == f"{broken}: no action can be safe any more"
    assert len(m.history) == 3
    assert m.finish() == Verdict(Status.VIOLATION, f"DONE refused: {broken}")


def test_temporal_invariant_joins_the_product():
    m = Monitor(["G !b"], ["F b"])  # not of the form G(propositional): a product component
    v = m.reset()
    assert v.status is Status.ABORT
    assert v.violated == ("c1",)


# -- state changes ------------------------------------------------------------------------------
def test_state_change_lines():
    m = Monitor(["G !agent_at(bathroom)"], [exactly_one(ROOMS)])
    first = m.reset(in_room(BEDROOM))
    assert first.state_changes == ("Safe: agent_at(bedroom)",)
    walk = [in_room(LIVING), in_room(BATHROOM)]
    v = m.check(walk)
    assert v.status is Status.VIOLATION
    assert v.state_changes == (
        "Violated: !agent_at(bedroom) & agent_at(living_room)",
        "Violated: agent_at(bathroom) & !agent_at(living_room)",
    )
    assert str(v).split("\n") == [
        f"VIOLATION: {v.reason}",
        "Violated: !agent_at(bedroom) & agent_at(living_room)",
        "Violated: agent_at(bathroom) & !agent_at(living_room)",
    ]
    ok = m.check([in_room(LIVING), in_room(KITCHEN)])
    assert ok.state_changes == (
        "Safe: !agent_at(bedroom) & agent_at(living_room)",
        "Safe: agent_at(kitchen) & !agent_at(living_room)",
    )
    assert m.check(in_room(BEDROOM)).state_changes == ("Safe: (no change)",)


def test_paper_state_change_line():
    m = Monitor(["G !agent_at(bathroom)"], [exactly_one(ROOMS)])
    m.reset(in_room(BEDROOM))
    v = m.check(in_room(BATHROOM))
    assert v.state_changes == ("Violated: agent_at(bathroom) & !agent_at(bedroom)",)


def test_verdict_forms():
    v = Verdict(Status.VIOLATION, "it would break <c1>", ("c1",), ("Violated: a",), ())
    assert v.to_dict() == {"status": "violation", "reason": "it would break <c1>",
                           "violated": ["c1"], "state_changes": ["Violated: a"], "pending": [], "automaton_states": []}  # fmt: skip
    html = v._repr_html_()
    assert "&lt;c1&gt;" in html and "<c1>" not in html
    assert "VIOLATION" in html and "<code>Violated: a</code>" in html
    assert Status("abort") is Status.ABORT


# -- fail-safe ------------------------------------------------------------------------------------
def test_missing_proposition_is_a_violation_naming_the_atom():
    m = Monitor(["G !a", "G !is_open(fridge)"])
    m.reset({"a": False, "is_open(fridge)": False})
    v = m.check({"a": False})
    assert v.status is Status.VIOLATION
    assert v.reason == (
        "cannot decide, so the action is refused: proposition state 0 of the action has no "
        "value for is_open(fridge)"
    )
    w = m.commit([{"a": False, "is_open(fridge)": False}, {"is_open(fridge)": False}])
    assert (
        w.status is Status.VIOLATION and "proposition state 1" in w.reason and "for a" in w.reason
    )
    assert len(m.history) == 1  # nothing was committed


@pytest.mark.parametrize("bad", [42, None, "a", [], [42], [{"a": False}, object()]])
def test_bad_state_object_is_a_violation(bad):
    m = Monitor(["G !a"])
    m.reset({"a": False})
    v = m.commit(bad)
    assert v.status is Status.VIOLATION
    assert v.reason.startswith("cannot decide, so the action is refused: ")
    assert len(m.history) == 1


def test_search_budget_exhaustion_fails_safe():
    # The node budget alone decides here: no wall-clock deadline, which a loaded machine could
    # overrun on the generous monitors and so refuse for another reason.
    m = Monitor(["X[!] " * 30 + "a"], budget=5, deadline=None)
    assert not m.reset().safe
    generous = Monitor(["X[!] " * 30 + "a"], deadline=None)
    assert generous.reset().safe
    # During a run: the action is refused, and the reason says the question was undecided.
    m = Monitor(["a -> " + "X[!] " * 30 + "b"], budget=5, deadline=None)
    assert m.reset().safe
    v = m.check({"a"})
    assert v.status is Status.VIOLATION
    assert v.reason.startswith("cannot decide, so the action is refused: ")
    assert "explored more than 5 product states" in v.reason
    assert Monitor(["a -> " + "X[!] " * 30 + "b"], deadline=None).check({"a"}).safe


def test_search_budget_exhaustion_at_reset_says_undecided():
    m = Monitor(["X[!] " * 30 + "a"], budget=5)
    v = m.reset()
    assert v.status is Status.ABORT
    assert "explored more than 5 product states" in v.reason
    assert "invariant" not in v.reason


# -- constraints ----------------------------------------------------------------------------------
def test_constraint_parsing_and_dicts():
    c = Constraint.parse("W ! agent_at (bedside_table) agent_at ( book_shelf)",
                         "do not go to the bedside table before the book shelf",
                         name="order", pattern="not_before", syntax="prefix")  # fmt: skip
    assert c.formula is parse("!agent_at(bedside_table) W agent_at(book_shelf)")
    data = c.to_dict()
    assert data == {"name": "order", "formula": '!"agent_at(bedside_table)" W "agent_at(book_shelf)"',
                    "sentence": "do not go to the bedside table before the book shelf",
                    "pattern": "not_before"}  # fmt: skip
    assert Constraint.from_dict(data) == c
    assert repr(c).startswith("Constraint(name='order', formula='!\"agent_at(bedside_table)\" W")
    with pytest.raises(SpecificationError, match="a constraint needs a 'formula' field"):
        Constraint.from_dict({"sentence": "x"})
    with pytest.raises(ValueError, match="unknown syntax 'lisp'; choose 'spot' or 'prefix'"):
        Constraint.parse("a", syntax="lisp")


def test_as_constraints_names_and_duplicates():
    cs = as_constraints(["G a", parse("F b"), Constraint(parse("c"), name="mine")])
    assert [c.name for c in cs] == ["c1", "c2", "mine"]
    assert cs[1].formula is parse("F b")
    with pytest.raises(SpecificationError, match="constraint names must be unique; repeated: x"):
        as_constraints([Constraint(parse("a"), name="x"), Constraint(parse("b"), name="x")])
    with pytest.raises(SpecificationError, match="not a constraint: 3"):
        as_constraints([3])
    with pytest.raises(SpecificationError):
        Monitor([Constraint(parse("a"), name="x"), Constraint(parse("b"), name="x")])


def test_monitor_attributes():
    m = Monitor(["G(a -> F b)", "c W d"], [exactly_one(["e", "f"])])
    assert m.atoms == ("a", "b", "c", "d", "e", "f")
    assert [c.name for c in m.constraints] == ["c1", "c2"]
    assert len(m.dfas) == 2 and m.dfas[0].formula is parse("G(a -> F b)")
    assert m.automaton_states == {"c1": 0, "c2": 0}
