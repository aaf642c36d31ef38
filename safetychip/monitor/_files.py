"""Constraint files and trace files: the JSON that ``safetychip monitor`` and ``check`` read.

A **constraint file** holds a JSON list whose items are constraint objects ``{"name",
"sentence", "formula", "pattern"}`` (only ``formula`` is required; other keys are ignored) or
formula strings; or an object ``{"constraints": [...], "invariants": [...]}`` whose
invariants are formula strings (facts of the domain, e.g. the agent is in one room at a
time). A constraint whose formula is not picked yet is an object ``{"name", "sentence",
"candidates": [{"formula", "reading"}...], "live", "answers"}``
(:meth:`CandidateSet.to_dict <safetychip.monitor.CandidateSet.to_dict>`): its candidates, the
places of those still in the set, and the questions answered so far; it is read only when
asked for (``candidate_sets=True``).

A **trace file** holds a non-empty JSON list of proposition states, position 0 first. A
state is a list of the true atoms (all others false), or an object giving atoms ``true`` or
``false``; an object state must give every proposition the reader asks about. Atom names are
made canonical (``"is_on(book, shelf)"`` is ``is_on(book,shelf)``).

:func:`read_constraints` and :func:`read_trace` take a path or an open text file
(``sys.stdin``); :func:`constraints_from_json` and :func:`trace_from_json` take the JSON data
already parsed. Every error names the file and the offending entry. Writers replace the file
atomically.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> path = write_constraints(folder / "c.json", ["G !is_grabbed(phone)"],
...                          invariants=["G !(a & b)"])
>>> constraints, invariants = read_constraints(path)
>>> constraints, invariants
((Constraint(name='c1', formula='G!"is_grabbed(phone)"', sentence=''),), (Formula('G!(a & b)'),))
>>> read_trace(write_trace(folder / "t.json", [set(), {"is_grabbed(phone)"}]))
[frozenset(), frozenset({'is_grabbed(phone)'})]
"""

from __future__ import annotations

import json
import os
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, TextIO, overload

from .._io import atomic_write_text, read_json
from .._names import did_you_mean
from ..errors import SafetyChipError, SpecificationError, TraceError, VacuousConstraintError
from ..ltl import Formula, canonical_atom, parse, parse_prefix
from ._ambiguity import CandidateSet
from ._constraint import Constraint, as_constraints
from ._vacuous import refuse_vacuous

__all__ = [
    "constraints_from_json",
    "read_constraints",
    "read_trace",
    "trace_from_json",
    "write_constraints",
    "write_trace",
]

#: What the readers accept: a path, or a text file open for reading.
Source = str | os.PathLike[str] | TextIO

_canon = lru_cache(maxsize=1 << 16)(canonical_atom)


@overload
def read_constraints(
    source: Source, *, syntax: str = ..., name: str | None = ...,
    candidate_sets: Literal[False] = ...,
) -> tuple[tuple[Constraint, ...], tuple[Formula, ...]]: ...  # fmt: skip
@overload
def read_constraints(
    source: Source, *, syntax: str = ..., name: str | None = ..., candidate_sets: bool,
) -> tuple[tuple[Constraint | CandidateSet, ...], tuple[Formula, ...]]: ...  # fmt: skip
def read_constraints(
    source: Source, *, syntax: str = "spot", name: str | None = None,
    candidate_sets: bool = False,
) -> tuple[tuple[Any, ...], tuple[Formula, ...]]:  # fmt: skip
    """Read a constraint file: its constraints and its domain invariants.

    Parameters
    ----------
    source : str, path or text file
        The file, by path or open for reading.
    syntax : {"spot", "prefix"}
        The syntax of the formulas: Spot infix or the Lang2LTL prefix syntax.
    name : str, optional
        How messages name the file (default: the path, or the open file's name).
    candidate_sets : bool
        Whether constraints not yet picked (:class:`~safetychip.monitor.CandidateSet`) may
        be read; by default such an entry is an error that says so.

    Returns
    -------
    constraints : tuple of Constraint (and CandidateSet with *candidate_sets*)
        In file order; unnamed ones are called ``c1``, ``c2``… after their place.
    invariants : tuple of Formula
        Empty for the list form.

    Raises
    ------
    SpecificationError
        With the file name: a file that cannot be read or is not JSON, and every error of
        :func:`constraints_from_json`.

    Warns
    -----
    UserWarning
        When the object form has keys other than ``constraints`` and ``invariants``.

    Examples
    --------
    >>> import io
    >>> constraints, invariants = read_constraints(io.StringIO('["G !a", "F b"]'))
    >>> [c.name for c in constraints], invariants
    (['c1', 'c2'], ())
    """
    data, where = _load(source, name, SpecificationError)
    return constraints_from_json(data, syntax=syntax, name=where, candidate_sets=candidate_sets)


@overload
def constraints_from_json(
    data: Any, *, syntax: str = ..., name: str = ..., candidate_sets: Literal[False] = ...,
) -> tuple[tuple[Constraint, ...], tuple[Formula, ...]]: ...  # fmt: skip
@overload
def constraints_from_json(
    data: Any, *, syntax: str = ..., name: str = ..., candidate_sets: bool,
) -> tuple[tuple[Constraint | CandidateSet, ...], tuple[Formula, ...]]: ...  # fmt: skip
def constraints_from_json(
    data: Any, *, syntax: str = "spot", name: str = "<data>", candidate_sets: bool = False
) -> tuple[tuple[Any, ...], tuple[Formula, ...]]:
    """The constraints and invariants of the JSON content of a constraint file.

    Parameters
    ----------
    data : list or dict
        The file's content, parsed: a list of constraint objects and formula strings, or an
        object ``{"constraints": [...], "invariants": [...]}``.
    syntax : {"spot", "prefix"}
        The syntax of the formulas.
    name : str
        How messages name the input.
    candidate_sets : bool
        As for :func:`read_constraints`.

    Returns
    -------
    constraints : tuple of Constraint (and CandidateSet with *candidate_sets*)
    invariants : tuple of Formula

    Raises
    ------
    SpecificationError
        With *name*, the entry's number and name, and the formula text: a wrong shape, a
        formula that does not parse, repeated names; a formula that holds on every trace
        (:class:`~safetychip.errors.VacuousConstraintError`: it forbids nothing).

    Warns
    -----
    UserWarning
        When the object form has keys other than ``constraints`` and ``invariants``.

    Examples
    --------
    >>> constraints_from_json([{"name": "phone", "formula": "G ! is_grabbed(phone)"}],
    ...                       syntax="prefix")
    ((Constraint(name='phone', formula='G!"is_grabbed(phone)"', sentence=''),), ())
    >>> constraints_from_json(["a", {"name": "b2", "formula": "b U"}], name="c.json")
    Traceback (most recent call last):
    ...
    safetychip.errors.SpecificationError: c.json: constraint 2 ('b2'): formula 'b U': cannot
    parse Spot formula: expected an operand at position 3, found end of input
      b U
         ^
    """
    invariants: list[Formula] = []
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"constraints", "invariants"})
        if unknown:
            warnings.warn(
                f"{name}: ignoring unknown keys {', '.join(map(repr, unknown))}", stacklevel=2
            )
        if "constraints" not in data:
            raise SpecificationError(f"{name}: the object has no 'constraints' list")
        raw_inv = data.get("invariants", [])
        if not isinstance(raw_inv, list):
            raise SpecificationError(f"{name}: 'invariants' must be a list of formula strings")
        for i, text in enumerate(raw_inv, 1):
            if not isinstance(text, str):
                raise SpecificationError(
                    f"{name}: invariant {i} must be a formula string, got {_json_type(text)}"
                )
            try:
                invariants.append(_parse(text, syntax))
            except SafetyChipError as err:
                raise SpecificationError(f"{name}: invariant {i} {text!r}: {err}") from None
        data = data["constraints"]
    if not isinstance(data, list):
        raise SpecificationError(
            f"{name}: expected a list of constraints (or an object with 'constraints'), "
            f"got {_json_type(data)}"
        )
    if not data:
        raise SpecificationError(f"{name}: the list of constraints is empty")
    constraints = [_constraint(c, f"{name}: constraint {i}", syntax, candidate_sets)
                   for i, c in enumerate(data, 1)]  # fmt: skip
    for i, c in enumerate(constraints, 1):
        for formula in c.candidates if isinstance(c, CandidateSet) else (c.formula,):
            try:
                refuse_vacuous(formula, c.sentence)
            except VacuousConstraintError as err:
                raise VacuousConstraintError(f"{name}: constraint {i}: {err}") from None
    try:
        return name_items(constraints), tuple(invariants)
    except SpecificationError as err:
        raise SpecificationError(f"{name}: {err}") from None


def name_items(items: Iterable[Any]) -> tuple[Any, ...]:
    """Constraints (formulas and texts coerced) and candidate sets, the unnamed ones called
    ``c1``, ``c2``… after their place.

    Raises
    ------
    SpecificationError
        On repeated names.
    """
    out: list[Any] = []
    for i, item in enumerate(items, 1):
        if isinstance(item, CandidateSet):
            out.append(item if item.name else replace(item, name=f"c{i}"))
        else:
            c = as_constraints([item])[0]
            out.append(c if getattr(item, "name", "") else replace(c, name=f"c{i}"))
    dupes = sorted(n for n, k in Counter(c.name for c in out).items() if k > 1)
    if dupes:
        raise SpecificationError(f"constraint names must be unique; repeated: {', '.join(dupes)}")
    return tuple(out)


def _constraint(item: Any, label: str, syntax: str,
                candidate_sets: bool = False) -> Constraint | CandidateSet:  # fmt: skip
    """One entry of a constraint file; *label* names it in errors."""
    text: object
    if isinstance(item, dict) and "candidates" in item and "formula" not in item:
        if isinstance(item.get("name"), str) and item["name"]:
            label += f" ({item['name']!r})"
        if not candidate_sets:
            raise SpecificationError(f"{label}: a candidate set whose formula is not picked "
                                     "yet; pick one, or read the file for a CandidateMonitor "
                                     "(candidate_sets=True)")  # fmt: skip
        if syntax != "spot":
            raise SpecificationError(f"{label}: candidate sets are written in Spot syntax")
        try:
            return CandidateSet.from_dict(item)
        except SafetyChipError as err:
            raise SpecificationError(f"{label}: {err}") from None
    if isinstance(item, str):
        text, sentence, name, pattern = item, "", "", None
    elif isinstance(item, dict):
        text, sentence = item.get("formula"), item.get("sentence", "")
        name, pattern = item.get("name", ""), item.get("pattern")
        if isinstance(name, str) and name:
            label += f" ({name!r})"
        if "formula" not in item:
            raise SpecificationError(f"{label}: no 'formula' field")
        if not isinstance(text, str):
            raise SpecificationError(f"{label}: 'formula' must be a string, got {_json_type(text)}")
        for key, value in (("name", name), ("sentence", sentence)):
            if not isinstance(value, str):
                raise SpecificationError(
                    f"{label}: {key!r} must be a string, got {_json_type(value)}"
                )
        if pattern is not None and not isinstance(pattern, str):
            raise SpecificationError(f"{label}: 'pattern' must be a string or null")
    else:
        raise SpecificationError(
            f"{label}: expected an object or a formula string, got {_json_type(item)}"
        )
    try:
        return Constraint(_parse(text, syntax), sentence, name, pattern)
    except SafetyChipError as err:
        raise SpecificationError(f"{label}: formula {text!r}: {err}") from None


def write_constraints(
    path: str | os.PathLike[str],
    constraints: Iterable[Constraint | CandidateSet | Formula | str],
    invariants: Iterable[Formula | str] = (),
) -> Path:
    """Write a constraint file that :func:`read_constraints` reads back; return the path.

    The list form when there are no invariants, else the object form. Unnamed constraints
    are called ``c1``, ``c2``… after their place. The file is replaced atomically.

    Raises
    ------
    SpecificationError
        If two constraints share a name.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = write_constraints(Path(tempfile.mkdtemp()) / "c.json", ["F a"])
    >>> print(path.read_text(), end="")
    [
      {
        "name": "c1",
        "formula": "Fa",
        "sentence": "",
        "pattern": null
      }
    ]
    """
    return atomic_write_text(path, constraints_json(constraints, invariants) + "\n")


def constraints_json(
    constraints: Iterable[Constraint | CandidateSet | Formula | str],
    invariants: Iterable[Formula | str] = (),
) -> str:
    """The text of a constraint file (see :func:`write_constraints`), without a final newline."""
    items = [c.to_dict() for c in name_items(constraints)]
    texts = [str(parse(i) if isinstance(i, str) else i) for i in invariants]
    document: Any = {"constraints": items, "invariants": texts} if texts else items
    return json.dumps(document, indent=2, ensure_ascii=False)


def read_trace(
    source: Source, atoms: Iterable[str] = (), *, name: str | None = None
) -> list[frozenset[str]]:
    """Read a trace file: for each position, the set of true atoms.

    Parameters
    ----------
    source : str, path or text file
        The file, by path or open for reading.
    atoms : iterable of str
        Propositions every object state must give a value (e.g. ``monitor.atoms`` or
        ``formula.atoms()``); a list state names the true ones, so it gives them all.
    name : str, optional
        How messages name the file (default: the path, or the open file's name).

    Returns
    -------
    list of frozenset of str
        The canonical names of the true atoms at each position (atoms outside *atoms*
        included).

    Raises
    ------
    TraceError
        With the file name: a file that cannot be read or is not JSON, and every error of
        :func:`trace_from_json`.

    Examples
    --------
    >>> import io
    >>> read_trace(io.StringIO('[[], ["a"], {"a": false}]'), ["a"])
    [frozenset(), frozenset({'a'}), frozenset()]
    """
    data, where = _load(source, name, TraceError)
    return trace_from_json(data, atoms, name=where)


def trace_from_json(
    data: Any, atoms: Iterable[str] = (), *, name: str = "<data>"
) -> list[frozenset[str]]:
    """The sets of true atoms of the JSON content of a trace file.

    Parameters
    ----------
    data : list
        The file's content, parsed: a non-empty list of states, each a list of the true
        atoms or an object of booleans.
    atoms : iterable of str
        Propositions every object state must give a value.
    name : str
        How messages name the input.

    Returns
    -------
    list of frozenset of str

    Raises
    ------
    TraceError
        Naming *name* and the position: an empty trace, a state that is neither a list of
        atom names nor an object of booleans, an object state that gives no value to one of
        *atoms*, a name that is not one of *atoms* but close to one the trace never names (a
        misspelling; the message suggests the name meant).

    Examples
    --------
    >>> trace_from_json([[], ["is_on(book, shelf)"], {"a": True, "b": False}])
    [frozenset(), frozenset({'is_on(book,shelf)'}), frozenset({'a'})]
    >>> trace_from_json([{"a": True}], ["a", "b"], name="t.json")
    Traceback (most recent call last):
    ...
    safetychip.errors.TraceError: t.json: position 0 gives no value for b (an object state must
    give every proposition; a list state names the true ones)
    >>> trace_from_json([[], ["is_grabbed(phnoe)"]], ["is_grabbed(phone)"], name="t.json")
    Traceback (most recent call last):
    ...
    safetychip.errors.TraceError: t.json: position 1 names is_grabbed(phnoe), which is not a
    proposition of the specification; did you mean is_grabbed(phone)?
    """
    if not isinstance(data, list):
        raise TraceError(
            f"{name}: a trace is a JSON list of proposition states, got {_json_type(data)}"
        )
    if not data:
        raise TraceError(f"{name}: the trace is empty; it needs at least position 0")
    states = []
    for i, state in enumerate(data):
        try:
            states.append(_state(state))
        except SafetyChipError as err:
            raise TraceError(f"{name}: position {i}: {err}") from None
    wanted = frozenset(atoms)
    for i, (_, known) in enumerate(states):
        if known is not None and not wanted <= known:
            missing = ", ".join(sorted(wanted - known))
            raise TraceError(
                f"{name}: position {i} gives no value for {missing} (an object state must "
                "give every proposition; a list state names the true ones)"
            )
    _misspelt(states, wanted, name)
    return [true for true, _ in states]


def _misspelt(
    states: list[tuple[frozenset[str], frozenset[str] | None]], wanted: frozenset[str], name: str
) -> None:
    """Refuse a list state naming a proposition that is not one of *wanted* but is close to
    one: a misspelling, which would silently leave the meant one false at that position
    (whether or not other positions spell it right; the monitor refuses it too).

    Names far from every proposition asked about are propositions of a larger alphabet that
    the formula does not mention (finite-trace LTL allows them). An object state gives every
    proposition asked about explicitly, so an extra name in it hides nothing.
    """
    hints: dict[str, str] = {}
    for i, (true, known) in enumerate(states):
        if known is not None:
            continue
        for atom in sorted(true - wanted):
            if atom not in hints:
                hints[atom] = did_you_mean(atom, wanted)
            if hints[atom]:
                raise TraceError(
                    f"{name}: position {i} names {atom}, which is not a proposition of the "
                    f"specification{hints[atom]}"
                )


def _state(state: Any) -> tuple[frozenset[str], frozenset[str] | None]:
    """The true atoms of one JSON state, and the atoms it gives (None: a list state)."""
    if isinstance(state, list):
        for atom in state:
            if not isinstance(atom, str):
                raise TraceError(f"atom {atom!r} is not a string")
        return frozenset(_canon(a) for a in state), None
    if isinstance(state, dict):
        for atom, value in state.items():
            if not isinstance(value, bool):
                raise TraceError(f"the value of {atom!r} must be true or false, got {value!r}")
        known = frozenset(_canon(a) for a in state)
        return frozenset(_canon(a) for a, v in state.items() if v), known
    raise TraceError(
        "a proposition state is a list of true atoms or an object atom -> true/false, "
        f"got {_json_type(state)}"
    )


def write_trace(
    path: str | os.PathLike[str], trace: Iterable[Mapping[str, bool] | Iterable[str]]
) -> Path:
    """Write a trace file that :func:`read_trace` reads back, one state a line; return the path.

    A mapping is written as an object of booleans, a set (list, tuple) of names as the list
    of true atoms; names are made canonical and sorted. The file is replaced atomically.

    Raises
    ------
    TraceError
        If the trace is empty, or a state is a string, has a value that is not a ``bool``,
        or names an atom that is not a string (the message gives the position).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "t.json"
    >>> print(write_trace(path, [set(), {"b", "a"}, {"a": True, "b": False}]).read_text(),
    ...       end="")
    [
    [],
    ["a", "b"],
    {"a": true, "b": false}
    ]
    """
    lines = []
    for i, state in enumerate(trace):
        try:
            lines.append(json.dumps(_state_json(state), ensure_ascii=False))
        except SafetyChipError as err:
            raise TraceError(f"{path}: position {i}: {err}") from None
    if not lines:
        raise TraceError(f"{path}: the trace is empty; it needs at least position 0")
    return atomic_write_text(path, "[\n" + ",\n".join(lines) + "\n]\n")


def _state_json(state: Any) -> list[str] | dict[str, bool]:
    if isinstance(state, Mapping):
        bad = [f"{a!r}: {v!r}" for a, v in state.items() if not isinstance(v, bool)]
        if bad:
            raise TraceError(f"a state's values must be True or False, got {bad[0]}")
        return {_canon(_atom_name(a)): bool(v) for a, v in sorted(state.items())}
    if isinstance(state, (str, bytes)) or not isinstance(state, Iterable):
        raise TraceError(f"a state is a mapping or a set of true atoms, got {state!r}")
    return sorted({_canon(_atom_name(a)) for a in state})


def _atom_name(atom: Any) -> str:
    if not isinstance(atom, str):
        raise TraceError(f"atom {atom!r} is not a string")
    return atom


# ---------------------------------------------------------------------------------------------


def _load(source: Source, name: str | None, error: type[SafetyChipError]) -> tuple[Any, str]:
    """The JSON data of *source* and how messages name it; errors are *error*s."""
    if isinstance(source, (str, os.PathLike)):
        where = name or os.fspath(source)
        text = _read_text(os.fspath(source), where, error)
    elif hasattr(source, "read"):
        where = name or str(getattr(source, "name", "<stream>"))
        text = source.read()
    else:
        raise TypeError(
            f"expected a path or a text file open for reading, got {type(source).__name__}; "
            "for JSON data already parsed, use constraints_from_json or trace_from_json"
        )
    return read_json(text, where, error), where


def _read_text(path: str, where: str, error: type[SafetyChipError]) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        raise error(f"{where}: no such file") from None
    except IsADirectoryError:
        raise error(f"{where}: is a directory, not a file") from None
    except UnicodeDecodeError as err:
        raise error(f"{where}: not UTF-8 text (byte {err.start})") from None
    except OSError as err:
        raise error(f"{where}: cannot read: {err.strerror or err}") from None


def _parse(text: str, syntax: str) -> Formula:
    if syntax not in ("spot", "prefix"):
        raise ValueError(f"unknown syntax {syntax!r}; choose 'spot' or 'prefix'")
    return parse(text) if syntax == "spot" else parse_prefix(text)


def _json_type(value: Any) -> str:
    """Name the JSON type of *value* and show its start."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}  # fmt: skip
    text = json.dumps(value)
    return f"{names.get(type(value), type(value).__name__)} ({text[:40]}{'…' * (len(text) > 40)})"
