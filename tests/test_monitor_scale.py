"""The monitor at scale and under hostile input: deadlines, the exact joint-satisfiability
check against brute force, huge and deep inputs, misspelt propositions."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from safetychip.automata import MANAGER, MAX_ATOMS, DeadlineExceeded, Product, to_dfa
from safetychip.automata._build import _construct
from safetychip.cli import EXIT_INPUT, EXIT_OK, main
from safetychip.errors import FormulaError, FormulaTooDeepError
from safetychip.ltl import And, evaluate, parse, random_patterns
from safetychip.monitor import Monitor, Status, smallest_conflict


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# -- deadlines ------------------------------------------------------------------------------------
def test_a_decision_past_its_deadline_is_a_counted_refusal_then_idle_settles_it():
    m = Monitor(["F a", "G(a -> F b)", "!b W c"], deadline=1e-9)  # the start: refusal 1
    start = m.reset()  # the abort check cannot finish in a nanosecond: not an abort
    assert start.status is Status.VIOLATION
    assert start.reason.startswith("cannot decide in time, so this start is refused: ")
    assert "within its 1e-06 ms deadline whether c1, c2, c3 can still all be met" in start.reason
    assert m.deadline_refusals == 2
    v = m.check(set())
    assert v.status is Status.VIOLATION and not v.safe
    assert v.reason.startswith("cannot decide in time, so the action is refused: ")
    assert "(deadline refusal 3; idle() finishes the decision)" in v.reason
    assert m.deadline_refusals == 3
    assert m.idle() == 2  # the start and the checked state
    assert m.idle() == 0
    # The same state now answers properly, however short the deadline.
    again = m.check(set())
    assert again.safe and again.reason == "every constraint can still be satisfied"
    assert m.reset().safe
    assert m.deadline_refusals == 3


def test_idle_with_a_time_limit_keeps_what_it_cannot_finish():
    m = Monitor(["F a", "G !b"], deadline=1e-9)
    assert m.check({"b"}).reason.startswith("it would break c2")  # decided without a search
    assert not m.check(set()).safe
    assert m.deadline_refusals == 2
    assert m.idle(1e-9) == 0  # no time: still queued
    assert m.idle() == 2
    assert m.check(set()).safe


def test_the_deadline_is_validated_and_offline_use_is_exact():
    with pytest.raises(ValueError, match="positive number of seconds or None, got 0"):
        Monitor(["F a"], deadline=0)
    assert Monitor(["F a"]).deadline == 0.05
    m = Monitor(["F a", "G(a -> F b)"], deadline=1e-9)
    verdicts = m.evaluate([set(), {"a"}, {"b"}])
    assert [v.status for v in verdicts] == [Status.SAFE] * 4
    assert m.deadline == 1e-9  # restored
    assert smallest_conflict(["G !a", "F a", "F b"]) == ("c1", "c2")


def test_a_deadline_inside_the_search_names_the_components():
    dfas = [to_dfa(parse("X[!] " * 30 + "a"))]  # beyond the greedy search: an exact search
    with pytest.raises(DeadlineExceeded) as caught:
        Product(dfas).witness((0,), deadline=0.0)
    assert caught.value.members == (0,)


# -- the exact check against brute force ------------------------------------------------------
def _brute_live(product: Product, state, letters) -> bool:
    """Whether some product state reachable from *state* accepts (after a letter at the start)."""
    if state != product.initial and product.accepting(state):
        return True
    seen, todo = set(), [state]
    while todo:
        s = todo.pop()
        for letter in letters:
            t = product.next_state(s, letter)
            if product.accepting(t):
                return True
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return False


@pytest.mark.parametrize("seed", range(12))
def test_joint_satisfiability_agrees_with_brute_force(seed):
    rng = random.Random(seed)
    atoms = ["a", "b", "c", "d"]
    letters = [frozenset(c) for k in range(5) for c in itertools.combinations(atoms, k)]
    drawn = random_patterns(rng.randint(3, 7), atoms, seed=seed)
    product = Product([to_dfa(f) for _, f in drawn])
    state, hint = product.initial, None
    checked = 0
    for _ in range(12):
        expected = _brute_live(product, state, letters)
        assert product.is_live(state, hint) == expected, (drawn, state)
        if expected:
            path = product.witness(state)
            assert path and product.accepting(_run(product, state, path))
        else:
            core = product.core_of(state)
            assert core is not None
            sub = Product([product.dfas[i] for i in core])
            assert not _brute_live(sub, tuple(state[i] for i in core), letters), "a real core"
        checked += 1
        hint, state = (state if expected else hint), product.next_state(state, rng.choice(letters))
        if hint is None:
            break
    assert checked


def _run(product: Product, state, path):
    for letter in path:
        state = product.next_state(state, letter)
    return state


def test_independent_groups_are_joined_by_padding_or_searched_together():
    # Disjoint propositions, witnesses of lengths 3 and 1: the shorter one is padded.
    p = Product([to_dfa(parse("X[!] X[!] a")), to_dfa(parse("F b"))])
    path = p.witness(p.initial)
    assert path is not None and len(path) == 3 and p.accepting(_run(p, p.initial, path))
    # Exactly two letters against at least four: no common length.
    q = Product([to_dfa(parse("X[!] true & !X[!] X[!] true")), to_dfa(parse("X[!] X[!] X[!] b"))])
    assert q.witness(q.initial) is None and not q.is_live(q.initial)


def test_usable_letters_refute_a_chain_through_never():
    constraints = ["G !r", "!q W r", "F q"] + [f"G !x{i}" for i in range(30)]
    v = Monitor(constraints).reset()
    assert v.status is Status.ABORT
    assert v.violated == ("c1", "c2", "c3")


def test_hundreds_of_constraints_with_liveness_decide_without_refusals():
    objects = [f"o{i}" for i in range(20)]
    atoms = [f"agent_at({o})" for o in objects] + [f"is_grabbed({o})" for o in objects]
    drawn = random_patterns(200, atoms, seed=3, patterns=["at_least", "response", "before"])
    m = Monitor([f for _, f in drawn], deadline=None)
    assert m.reset().safe
    rng = random.Random(0)
    state = dict.fromkeys(m.atoms, False)
    m.commit(state)
    for _ in range(40):
        proposal = dict(state)
        flip = rng.choice(atoms)
        proposal[flip] = not proposal[flip]
        v = m.check(proposal)
        assert not v.reason.startswith(("cannot decide", "internal error")), v.reason
        if v.safe:
            m.commit(proposal)
            state = proposal
    assert m.deadline_refusals == 0


# -- one automaton for a conjunction ------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_a_conjunction_is_the_product_of_its_conjuncts(seed):
    formula = And(*(f for _, f in random_patterns(3, ["a", "b", "c", "d"], seed=seed)))
    product = to_dfa(formula)
    MANAGER.configure(reordering=False)
    try:
        progressed = _construct(formula)  # the monolithic construction
    finally:
        MANAGER.configure(reordering=True)
    assert product.num_states == progressed.num_states
    assert product.accepting == progressed.accepting
    rng = random.Random(seed)
    for _ in range(200):
        trace = [{a for a in "abcd" if rng.random() < 0.5} for _ in range(rng.randint(1, 6))]
        assert product.accepts(trace) == progressed.accepts(trace) == evaluate(formula, trace)


# -- huge and deep inputs -------------------------------------------------------------------------
def test_a_flat_conjunction_of_100000_atoms_answers_or_says_its_size():
    text = " & ".join(f"a{i}" for i in range(100_000))
    f = parse(text)
    assert len(f.children) == 100_000
    assert parse(str(f)) is f
    assert evaluate(f, [{f"a{i}" for i in range(100_000)}]) is True
    with pytest.raises(FormulaError, match=r"the formula has 100,000 propositions; an automaton"):
        to_dfa(f)
    wide = parse(" | ".join(f"a{i}" for i in range(MAX_ATOMS)))
    assert to_dfa(wide).num_states == 3  # the largest automaton allowed is built


@pytest.mark.parametrize("text", ["!" * 10_000 + "a", "(" * 10_000 + "a" + ")" * 10_000,
                                  "X " * 10_000 + "a", " U ".join(["a"] * 10_000)])  # fmt: skip
def test_nesting_10000_deep_is_a_typed_error(text):
    with pytest.raises(FormulaTooDeepError, match="200"):
        parse(text)


def test_cli_on_a_1000_atom_formula_answers_or_exits_2(capsys, tmp_path):
    text = " & ".join(f"a{i}" for i in range(1000))
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps([[f"a{i}" for i in range(1000)]]))
    status, out, _ = run(capsys, "check", text, "--trace", str(trace))
    assert status == EXIT_OK and json.loads(out)["holds"] is True
    status, _, err = run(capsys, "check", text, "--trace", str(trace), "--engine", "dfa")
    assert status == EXIT_INPUT and "1,000 propositions" in err
    status, _, err = run(capsys, "automaton", " | ".join(f"a{i}" for i in range(1000)))
    assert status == EXIT_INPUT and "1,000 propositions" in err


def test_json_nested_too_deeply_names_the_file_and_line(capsys, tmp_path):
    deep = "[\n[]," + "[" * 5000 + "]" * 5000 + "\n]"
    trace, constraints, rollout = tmp_path / "t.json", tmp_path / "c.json", tmp_path / "r.json"
    trace.write_text(deep)
    constraints.write_text(json.dumps(["G !a"]))
    rollout.write_text('{"constraints": ["G !a"],\n "steps": ' + "[" * 5000)
    expected = "not usable JSON: nested too deeply (more than 64 levels, at line {})"
    for argv, line in ((("check", "G !a", "--trace", str(trace)), 2),
                       (("monitor", str(constraints), str(trace)), 2),
                       (("explain", str(rollout)), 2)):  # fmt: skip
        status, _, err = run(capsys, *argv)
        assert status == EXIT_INPUT, err
        assert expected.format(line) in err, err


# -- misspelt and missing propositions -----------------------------------------------------------
def test_a_misspelt_proposition_in_a_trace_is_an_error_with_the_name_meant(capsys, tmp_path):
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps([[], ["is_grabbed(phnoe)"]]))
    constraints = tmp_path / "c.json"
    constraints.write_text(json.dumps(['G !"is_grabbed(phone)"']))
    hint = "names is_grabbed(phnoe), which is not a proposition of the specification; did you "
    for argv in (("check", 'G !"is_grabbed(phone)"', "--trace", str(trace)),
                 ("monitor", str(constraints), str(trace))):  # fmt: skip
        status, out, err = run(capsys, *argv)
        assert (status, out) == (EXIT_INPUT, "")
        assert hint + "mean is_grabbed(phone)?" in err
    # A proposition the formula does not mention, and not close to one, is allowed (LTLf over
    # a larger alphabet).
    trace.write_text(json.dumps([["agent_at(kitchen)"]]))
    status, out, _ = run(capsys, "check", 'G !"is_grabbed(phone)"', "--trace", str(trace))
    assert status == EXIT_OK and json.loads(out)["holds"] is True


def test_a_proposition_state_misspelt_or_missing_is_refused_and_named():
    m = Monitor(['G !"is_grabbed(phone)"', "F agent_at(kitchen)"])
    m.reset(set())
    v = m.check({"is_grabbed(phnoe)"})
    assert v.status is Status.VIOLATION
    assert "names is_grabbed(phnoe)" in v.reason and "did you mean is_grabbed(phone)?" in v.reason
    v = m.check({"is_grabbed(phone)": False})
    assert v.status is Status.VIOLATION and "has no value for agent_at(kitchen)" in v.reason
