"""Validate a labelled English-to-LTL set (one JSON object a line): the one checker for
``heldout/``, ``heldout_2/`` and ``dev_other/``.

For every line it checks the JSON fields and their types (``id``, ``scene``, ``sentence``,
``formula``, ``pattern``, ``style``; optionally ``alternatives``, ``voice``, ``several``), that
ids and sentences are unique, the pattern family is known and the scene exists, that the
formula and every alternative parse with :func:`safetychip.ltl.parse`, that every atom is
double-quoted and uses a known predicate with the right arity over a room or object of that
scene with the property the predicate needs (``CAN_OPEN`` for ``is_open``, ``HAS_SWITCH`` for
``is_switchedon``, ``GRABBABLE`` for ``is_grabbed``, ...), that every formula and alternative
is both satisfied and violated by some of 600 sampled runs (agent in one room at a time;
patrolling is only noted, since ``G F a & G F b`` is unsatisfiable then), and that the formula
of a count family counts *entries*: run on traces with k = 0..6 entries lasting 1, 2 or 3
states each, the accepted k must not depend on the dwell time and must form the family's shape
(at most n, at least n, exactly n), which also shows it satisfied and violated.

It prints counts and problems, never a sentence, and never imports ``safetychip.translate``.
Run from the repository root::

    .venv/bin/python data/translation/check_labels.py data/translation/dev_other/sentences.jsonl

Exit status 0 when every line is valid, 1 when some line is not, 2 for a usage error.

>>> report = validate_lines(['{"id": "x"}'])
>>> report.errors
['line 1 (x): missing or non-str field(s) scene, sentence, formula, pattern, style']
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from safetychip.ltl import PREDICATES, And, Formula, evaluate, parse

__all__ = ["FAMILIES", "Report", "main", "validate", "validate_lines"]

SCENES_DIR = Path(__file__).resolve().parents[1] / "virtualhome" / "scenes"

FAMILIES = (
    "visit", "sequenced_visit", "ordered_visit", "strictly_ordered_visit", "patrolling",
    "global_avoidance", "past_avoidance", "future_avoidance", "upper_restricted_avoidance",
    "lower_restricted_avoidance", "exact_restricted_avoidance", "delayed_reaction",
    "prompt_reaction", "bounded_delay", "wait", "state_condition", "state_condition_unless",
)  # fmt: skip
COUNT_SHAPES = {
    "upper_restricted_avoidance": "at_most",
    "lower_restricted_avoidance": "at_least",
    "exact_restricted_avoidance": "exactly",
}
#: On finite traces G F a holds only when a holds at the last position: patrolling two rooms
#: is unsatisfiable with one room at a time, so "never true" is a note there, not an error.
MAY_BE_UNSATISFIABLE = frozenset({"patrolling"})
REQUIRED = {"id": str, "scene": str, "sentence": str, "formula": str, "pattern": str, "style": str}
OPTIONAL = {"alternatives": list, "voice": str, "several": bool}
#: What each predicate argument must name: "room", "object" (any non-room node), "node"
#: (either: agent_at(object) means being close to it) or a VirtualHome property.
ARGUMENT_KINDS = {
    "agent_at": ("node",),
    "is_open": ("CAN_OPEN",),
    "is_switchedon": ("HAS_SWITCH",),
    "is_grabbed": ("GRABBABLE",),
    "is_touched": ("object",),
    "is_on": ("GRABBABLE", "SURFACES"),
    "is_in": ("GRABBABLE", "CONTAINERS"),
}
MAX_ENTRIES = 6
RUNS = 600


@dataclass
class Report:
    """What :func:`validate` found: the valid rows, errors and expected notes (by line)."""

    rows: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def load_scene(path: Path) -> dict[str, set[str]]:
    """``{kind: class names}`` of one scene file: "room", "object", "node" and properties."""
    graph = json.loads(path.read_text(encoding="utf-8"))
    kinds: dict[str, set[str]] = {"room": set(), "object": set()}
    for node in graph["nodes"]:
        name = node["class_name"]
        if node.get("category") == "Rooms":
            kinds["room"].add(name)
        elif node.get("category") != "Characters":
            kinds["object"].add(name)
            for prop in node.get("properties", []):
                kinds.setdefault(prop, set()).add(name)
    kinds["node"] = kinds["room"] | kinds["object"]
    return kinds


def atom_problems(formula: Formula, scene: dict[str, set[str]]) -> list[str]:
    """Why the atoms of *formula* do not fit *scene* (empty when they all do)."""
    problems = []
    for prop in formula.propositions():
        arity = PREDICATES.get(prop.predicate)
        if arity is None:
            problems.append(f"unknown predicate in {prop.name}")
        elif len(prop.args) != arity:
            problems.append(f"{prop.name}: {prop.predicate} takes {arity} argument(s)")
        else:
            for arg, kind in zip(prop.args, ARGUMENT_KINDS[prop.predicate], strict=True):
                if arg not in scene.get(kind, set()):
                    problems.append(f"{prop.name}: {arg!r} is not a {kind} of the scene")
    return problems


def sample_runs(atoms: list[str], rooms: set[str], seed: str) -> list[list[list[str]]]:
    """Random runs over *atoms*, the agent in exactly one room per state ("elsewhere" when the
    formula names none of them); every other atom flips with probability 0.3 per step."""
    rng = random.Random(seed)
    room_atoms = [a for a in atoms if a.startswith("agent_at(") and a[9:-1] in rooms]
    others = [a for a in atoms if a not in room_atoms]
    places: list[str | None] = [*room_atoms, None]
    runs = []
    for _ in range(RUNS):
        where = rng.choice(places)
        true = {a for a in others if rng.random() < 0.3}
        run = []
        for _ in range(rng.randint(1, 16)):
            run.append(sorted(true | ({where} if where else set())))
            if rng.random() < 0.6:
                where = rng.choice(places)
            true = {a for a in others if (a in true) != (rng.random() < 0.3)}
        runs.append(run)
    return runs


def entry_trace(atom: str, entries: int, dwell: int) -> list[list[str]]:
    """A trace in which *atom* is entered *entries* times and holds *dwell* states each time."""
    trace: list[list[str]] = [[]]
    for _ in range(entries):
        trace += [[atom]] * dwell + [[]]
    return trace


def count_problem(shape: str, formula: Formula) -> str | None:
    """Whether a count formula accepts exactly the entry counts of *shape*; a conjunction
    ("the kitchen at most twice and the bathroom at most once") is checked atom by atom."""
    groups: dict[frozenset[str], list[Formula]] = {}
    for part in formula.children if formula.op == "&" else (formula,):
        groups.setdefault(part.atoms(), []).append(part)
    for parts in groups.values():
        atoms = sorted(And(*parts).atoms())
        if len(atoms) != 1:
            return f"a count over {len(atoms)} atoms: expected one atom per conjunct"
        accepted = {
            dwell: [
                k
                for k in range(MAX_ENTRIES + 1)
                if evaluate(And(*parts), entry_trace(atoms[0], k, dwell))
            ]
            for dwell in (1, 2, 3)
        }
        ok = accepted[1]
        if any(other != ok for other in accepted.values()):
            return f"counts states, not entries: accepted entry counts by dwell {accepted}"
        if not ok or len(ok) == MAX_ENTRIES + 1:
            return f"accepts entry counts {ok} of 0..{MAX_ENTRIES}: no real bound"
        expected = {
            "at_most": list(range(max(ok) + 1)),
            "at_least": list(range(min(ok), MAX_ENTRIES + 1)),
            "exactly": ok[:1],
        }[shape]
        if ok != expected:
            return f"accepted entry counts {ok} are not an {shape} set"
    return None


def _field_problems(row: object) -> list[str]:
    if not isinstance(row, dict):
        return ["not a JSON object"]
    problems = []
    missing = [k for k, t in REQUIRED.items() if not isinstance(row.get(k), t) or not row[k]]
    if missing:
        problems.append(f"missing or non-str field(s) {', '.join(missing)}")
    problems += [
        f"field {k!r} must be a {t.__name__}"
        for k, t in OPTIONAL.items()
        if k in row and not isinstance(row[k], t)
    ]
    if isinstance(row.get("alternatives"), list) and not all(
        isinstance(a, str) for a in row["alternatives"]
    ):
        problems.append("every alternative must be a string")
    problems += [f"unknown field {k!r}" for k in row if k not in REQUIRED and k not in OPTIONAL]
    return problems


def _formula_problems(row: dict, scene: dict[str, set[str]]) -> tuple[list[str], list[str]]:
    problems: list[str] = []
    notes: list[str] = []
    texts = [row["formula"], *row.get("alternatives", [])]
    for i, text in enumerate(texts):
        where = "formula" if i == 0 else f"alternative {i}"
        try:
            formula = parse(text)
        except Exception as err:  # any parse failure is a defect of this line
            problems.append(f"{where} does not parse: {str(err).splitlines()[0]}")
            continue
        if re.search(r"[a-z_]+\s*\(", re.sub(r'"[^"]*"', "", text)):
            problems.append(f"{where}: an atom is not double-quoted")
        try:
            problems += [f"{where}: {p}" for p in atom_problems(formula, scene)]
        except Exception as err:  # an atom that is not even a proposition
            problems.append(f"{where}: {err}")
            continue
        if i == 0 and row["pattern"] in COUNT_SHAPES:
            # Its entry traces satisfy and violate a valid count formula: no sampling needed
            # (and "at most 5" would need runs with 6 entries, rare among sampled ones).
            problem = count_problem(COUNT_SHAPES[row["pattern"]], formula)
            if problem:
                problems.append(f"{where}: {problem}")
            continue
        runs = sample_runs(sorted(formula.atoms()), scene["room"], f"{row['id']}/{i}")
        verdicts = {evaluate(formula, run) for run in runs}
        if verdicts != {True, False}:
            message = f"{where} is {'always' if True in verdicts else 'never'} true on {RUNS} runs"
            (notes if row["pattern"] in MAY_BE_UNSATISFIABLE else problems).append(message)
    return problems, notes


def validate_lines(lines: Iterable[str], scenes_dir: Path = SCENES_DIR) -> Report:
    """Check every line; the report's messages name lines and ids, never sentences."""
    report = Report()
    scenes: dict[str, dict[str, set[str]]] = {}
    first_line_of: dict[tuple[str, str], int] = {}
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            report.errors.append(f"line {number}: not JSON ({err})")
            continue
        problems = _field_problems(row)
        notes: list[str] = []
        if not problems:
            for key, value in (("id", row["id"]), ("sentence", row["sentence"].strip().lower())):
                earlier = first_line_of.setdefault((key, value), number)
                if earlier != number:
                    problems.append(f"same {key} as line {earlier}")
            if row["pattern"] not in FAMILIES:
                problems.append(f"unknown pattern family {row['pattern']!r}")
            path = scenes_dir / f"{row['scene']}.json"
            if row["scene"] not in scenes and path.is_file():
                scenes[row["scene"]] = load_scene(path)
            if row["scene"] not in scenes:
                problems.append(f"unknown scene {row['scene']!r}")
            else:
                more, notes = _formula_problems(row, scenes[row["scene"]])
                problems += more
        label = row.get("id") if isinstance(row, dict) else None
        where = f"line {number}" + (f" ({label})" if isinstance(label, str) else "")
        report.errors += [f"{where}: {p}" for p in problems]
        report.notes += [f"{where}: {n}" for n in notes]
        if not problems:
            report.rows.append(row)
    return report


def validate(path: Path) -> Report:
    """Check the JSONL file at *path* (see the module docstring for what is checked)."""
    return validate_lines(Path(path).read_text(encoding="utf-8").splitlines())


def print_report(path: Path, report: Report) -> None:
    """Counts per pattern, style and scene, then the notes and the errors."""
    rows = report.rows
    print(f"{path}: {len(rows)} valid lines, {len(report.errors)} errors")
    print(f"{sum(bool(r.get('alternatives')) for r in rows)} valid lines carry alternatives")
    for key in ("pattern", "style", "scene"):
        print(f"\nby {key}:")
        for name, count in Counter(r[key] for r in rows).most_common():
            print(f"  {name:28s} {count:4d}")
    missing = [f for f in FAMILIES if f not in {r["pattern"] for r in rows}]
    if missing:
        print(f"\nfamilies with no valid line: {', '.join(missing)}")
    if report.notes:
        print(f"\n{len(report.notes)} expected notes (patrolling on finite traces, see README):")
        print("\n".join(f"  {n}" for n in report.notes))
    print(f"\n{len(report.errors)} errors")
    print("\n".join(f"  {e}" for e in report.errors))
    print("OK" if not report.errors else "FAILED")


def main(argv: list[str] | None = None) -> int:
    """Validate the file named on the command line; 0 valid, 1 invalid, 2 usage error."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: check_labels.py PATH/TO/sentences.jsonl", file=sys.stderr)
        return 2
    path = Path(args[0])
    if not path.is_file():
        print(f"check_labels.py: no such file: {path}", file=sys.stderr)
        return 2
    report = validate(path)
    print_report(path, report)
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main())
