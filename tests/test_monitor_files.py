"""Constraint files and trace files: round trips, and every error naming the file and entry."""

from __future__ import annotations

import io
import json
import os

import pytest

from safetychip.errors import ConflictError, SpecificationError, TraceError
from safetychip.ltl import parse
from safetychip.monitor import (
    Constraint,
    Specification,
    constraints_from_json,
    read_constraints,
    read_trace,
    smallest_conflict,
    trace_from_json,
    write_constraints,
    write_trace,
)


def write(tmp_path, name, data) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


# -------------------------------------------------------------------------------- constraints
def test_constraints_round_trip(tmp_path):
    constraints = [
        Constraint(parse('G!"is_grabbed(phone)"'), "never pick up the phone", "phone", "never"),
        Constraint(parse("F a")),
    ]
    path = write_constraints(tmp_path / "c.json", constraints)
    read, invariants = read_constraints(path)
    assert [c.to_dict() for c in read] == [
        {"name": "phone", "formula": 'G!"is_grabbed(phone)"',
         "sentence": "never pick up the phone", "pattern": "never"},
        {"name": "c2", "formula": "Fa", "sentence": "", "pattern": None},
    ]  # fmt: skip
    assert invariants == ()
    assert isinstance(json.loads(path.read_text(encoding="utf-8")), list)


def test_constraints_with_invariants_use_the_object_form(tmp_path):
    path = write_constraints(tmp_path / "c.json", ["F a"], invariants=["G(a | b)"])
    assert set(json.loads(path.read_text(encoding="utf-8"))) == {"constraints", "invariants"}
    constraints, invariants = read_constraints(str(path))
    assert [c.name for c in constraints] == ["c1"] and invariants == (parse("G(a | b)"),)


def test_constraints_from_data_a_stream_and_prefix_syntax():
    data = [{"formula": "G ! is_grabbed(phone)", "name": "phone"}]
    (c,), _ = constraints_from_json(data, syntax="prefix")
    assert str(c.formula) == 'G!"is_grabbed(phone)"'
    stream = io.StringIO(json.dumps(["F a"]))
    (c,), _ = read_constraints(stream)
    assert c.name == "c1"


def test_unknown_keys_warn_naming_the_file(tmp_path):
    path = write(tmp_path, "c.json", {"constraints": ["F a"], "invariant": ["G a"]})
    with pytest.warns(UserWarning, match=f"{path}: ignoring unknown keys 'invariant'"):
        read_constraints(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("[", "not valid JSON: Expecting value at line 1 column 2"),
        ("[" * 100_000, "not usable JSON: nested too deeply"),
        ('"G a"', "expected a list of constraints (or an object with 'constraints'), got a string"),
        ("[]", "the list of constraints is empty"),
        ({"invariants": []}, "the object has no 'constraints' list"),
        ({"constraints": ["a"], "invariants": "G a"}, "'invariants' must be a list"),
        ({"constraints": ["a"], "invariants": [3]}, "invariant 1 must be a formula string, got a number"),
        ({"constraints": ["a"], "invariants": ["G ("]}, "invariant 1 'G (': cannot parse"),
        ([{"name": "x"}], "constraint 1 ('x'): no 'formula' field"),
        ([{"formula": ["a"]}], "constraint 1: 'formula' must be a string, got a list"),
        ([{"formula": "a", "name": 3}], "constraint 1: 'name' must be a string"),
        ([{"formula": "a", "sentence": None}], "constraint 1: 'sentence' must be a string"),
        ([{"formula": "a", "pattern": 1}], "constraint 1: 'pattern' must be a string or null"),
        (["a", 7], "constraint 2: expected an object or a formula string, got a number (7)"),
        (["a", {"name": "b2", "formula": "b U"}], "constraint 2 ('b2'): formula 'b U': cannot parse"),
        ([{"name": "x", "formula": "a"}, {"name": "x", "formula": "b"}],
         "constraint names must be unique; repeated: x"),
    ],
)  # fmt: skip
def test_bad_constraint_files_name_the_file_and_the_entry(tmp_path, data, message):
    path = write(tmp_path, "c.json", data)
    with pytest.raises(SpecificationError) as caught:
        read_constraints(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_unreadable_constraint_files(tmp_path):
    with pytest.raises(SpecificationError, match=r"missing\.json: no such file"):
        read_constraints(tmp_path / "missing.json")
    with pytest.raises(SpecificationError, match="is a directory, not a file"):
        read_constraints(tmp_path)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'["\xe9"]')
    with pytest.raises(SpecificationError, match=r"latin\.json: not UTF-8 text \(byte 2\)"):
        read_constraints(latin)
    with pytest.raises(SpecificationError, match=r"^spec: the list of constraints is empty"):
        constraints_from_json([], name="spec")
    with pytest.raises(TypeError, match="for JSON data already parsed, use constraints_from_json"):
        read_constraints([])


# ------------------------------------------------------------------------------------- traces
def test_trace_round_trip(tmp_path):
    trace = [set(), {"is_on(book, shelf)", "a"}, {"a": True, "b": False}]
    path = write_trace(tmp_path / "t.json", trace)
    assert path.read_text(encoding="utf-8") == (
        '[\n[],\n["a", "is_on(book,shelf)"],\n{"a": true, "b": false}\n]\n'
    )
    assert read_trace(path, ["a", "b"]) == [
        frozenset(),
        frozenset({"a", "is_on(book,shelf)"}),
        frozenset({"a"}),
    ]


def test_trace_from_a_stream_names_it():
    stream = io.StringIO('[{"a": true}]')
    stream.name = "<stdin>"
    with pytest.raises(TraceError, match=r"^<stdin>: position 0 gives no value for b"):
        read_trace(stream, ["a", "b"])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("[[],", "not valid JSON: Expecting value at line 1 column 5"),
        ("[]", "the trace is empty; it needs at least position 0"),
        ('{"a": true}', "a trace is a JSON list of proposition states, got an object"),
        ("[3]", "position 0: a proposition state is a list of true atoms or an object"),
        ("[[1]]", "position 0: atom 1 is not a string"),
        ('[[""]]', "position 0: an atomic proposition needs a non-empty name"),
        ('[[], {"a": 1}]', "position 1: the value of 'a' must be true or false, got 1"),
        ('[["a"], {"a": true}]', "position 1 gives no value for b (an object state must give"),
    ],
)
def test_bad_trace_files_name_the_file_and_the_position(tmp_path, data, message):
    path = write(tmp_path, "t.json", data)
    with pytest.raises(TraceError) as caught:
        read_trace(path, ["a", "b"])
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_unreadable_trace_file(tmp_path, monkeypatch):
    from safetychip.monitor import _files

    path = write(tmp_path, "t.json", "[[]]")

    def refuse(file, *args, **kwargs):  # chmod would not stop root
        raise PermissionError(13, "Permission denied", str(file))

    monkeypatch.setattr(_files, "open", refuse, raising=False)
    with pytest.raises(TraceError, match=r"t\.json: cannot read: Permission denied"):
        read_trace(path)


@pytest.mark.parametrize(
    ("trace", "message"),
    [
        ([], "the trace is empty"),
        ([set(), "ab"], "position 1: a state is a mapping or a set of true atoms, got 'ab'"),
        ([{"a": 1}], "position 0: a state's values must be True or False, got 'a': 1"),
        ([{3}], "position 0: atom 3 is not a string"),
    ],
)
def test_bad_traces_are_not_written(tmp_path, trace, message):
    path = tmp_path / "t.json"
    with pytest.raises(TraceError, match=message):
        write_trace(path, trace)
    assert os.listdir(tmp_path) == []


def test_writes_are_atomic(tmp_path, monkeypatch):
    path = write_constraints(tmp_path / "c.json", ["F a"])
    before = path.read_text(encoding="utf-8")

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        write_constraints(path, ["G b"])
    assert path.read_text(encoding="utf-8") == before
    assert os.listdir(tmp_path) == ["c.json"]


# ------------------------------------------------------------------------------ specification
def test_smallest_conflict():
    assert smallest_conflict(["G !a", "F a", "G !b"]) == ("c1", "c2")
    assert smallest_conflict(["G !a", "G !b"]) == ()
    assert smallest_conflict(["F a"], ["G !a"]) == ("c1",)


def test_specification_reads_and_writes_its_file(tmp_path):
    spec = Specification(["G !(a & b)"], invariants=["G(a | b)"])
    path = spec.write(tmp_path / "spec.json")
    again = Specification.read(path)
    assert again.constraints == spec.constraints and again.invariants == spec.invariants
    assert json.loads(spec.to_json()) == json.loads(path.read_text(encoding="utf-8"))
    conflicting = write(tmp_path, "bad.json", ["F a", "G !a"])
    with pytest.raises(ConflictError, match="contradicts the constraints already accepted"):
        Specification.read(conflicting)


def test_a_string_in_json_data_is_never_a_file_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "a", [[]])
    with pytest.raises(TraceError, match=r"^trace: a trace is a JSON list .* got a string"):
        trace_from_json("a", name="trace")
    assert read_trace("a") == [frozenset()]
