"""Validate the second held-out translation set (``sentences.jsonl`` beside this file).

Checks every line: the JSON fields and their types, unique ids, a known pattern family and
scene, that the formula and every alternative parse, that every atom uses a known predicate
with the right number of arguments and names rooms / objects the scene contains (with the
property the predicate needs: a room for ``agent_at``, ``CAN_OPEN`` for ``is_open``, ...), and,
for the three count families, that the formula counts *entries* (rising edges): it is run on
traces with k = 0..6 entries, each entry lasting 1, 2 or 3 states: the accepted k must not
depend on how long each entry lasts, must not be every k, and must form the shape the family
promises (at most n, at least n, exactly n). Prints counts per family, style and scene.

This file never imports the translator. Run from the repository root::

    .venv/bin/python data/translation/heldout_2/check.py

Exit status 0 when every line is valid, 1 otherwise (each problem is printed).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from safetychip.ltl import PREDICATES, And, Formula, evaluate, parse

HERE = Path(__file__).resolve().parent
SCENES_DIR = HERE.parents[1] / "virtualhome" / "scenes"
SENTENCES = HERE / "sentences.jsonl"

FAMILIES = (
    "visit",
    "sequenced_visit",
    "ordered_visit",
    "strictly_ordered_visit",
    "patrolling",
    "global_avoidance",
    "past_avoidance",
    "future_avoidance",
    "upper_restricted_avoidance",
    "lower_restricted_avoidance",
    "exact_restricted_avoidance",
    "delayed_reaction",
    "prompt_reaction",
    "bounded_delay",
    "wait",
    "state_condition",
    "state_condition_unless",
)
COUNT_FAMILIES = {
    "upper_restricted_avoidance": "at_most",
    "lower_restricted_avoidance": "at_least",
    "exact_restricted_avoidance": "exactly",
}
STRONG_NEXT_FAMILIES = ("prompt_reaction", "bounded_delay")
REQUIRED = {"id": str, "scene": str, "sentence": str, "formula": str, "pattern": str, "style": str}
OPTIONAL = {"alternatives": list}
MAX_ENTRIES = 6

# Which scene nodes each predicate argument may name: a category or a property.
ARGUMENT_KINDS = {
    "agent_at": ("room",),
    "is_open": ("CAN_OPEN",),
    "is_switchedon": ("HAS_SWITCH",),
    "is_grabbed": ("GRABBABLE",),
    "is_touched": ("object",),
    "is_on": ("GRABBABLE", "SURFACES"),
    "is_in": ("GRABBABLE", "CONTAINERS"),
}


def load_scenes() -> dict[str, dict[str, set[str]]]:
    """Map each scene name to ``{kind: names}``, kinds being "room", "object" and properties."""
    scenes: dict[str, dict[str, set[str]]] = {}
    for path in sorted(SCENES_DIR.glob("*.json")):
        data = json.loads(path.read_text())
        kinds: dict[str, set[str]] = {"room": set(), "object": set()}
        for node in data["nodes"]:
            name = node["class_name"]
            if node["category"] == "Rooms":
                kinds["room"].add(name)
            elif node["category"] != "Characters":
                kinds["object"].add(name)
                for prop in node.get("properties", []):
                    kinds.setdefault(prop, set()).add(name)
        scenes[data["name"]] = kinds
    return scenes


def atom_problems(formula: Formula, scene: dict[str, set[str]]) -> list[str]:
    """Problems with the atoms of *formula* in *scene* (empty when all are fine)."""
    problems = []
    for prop in formula.propositions():
        arity = PREDICATES.get(prop.predicate)
        if arity is None:
            problems.append(f"unknown predicate in {prop.name}")
            continue
        if len(prop.args) != arity:
            problems.append(f"{prop.name} needs {arity} argument(s)")
            continue
        for arg, kind in zip(prop.args, ARGUMENT_KINDS[prop.predicate], strict=True):
            if arg not in scene.get(kind, set()):
                problems.append(f"{prop.name}: {arg!r} is not a {kind} in this scene")
    return problems


def entry_trace(atom: str, entries: int, dwell: int) -> list[list[str]]:
    """A trace where *atom* is entered *entries* times, holding *dwell* states each time."""
    trace: list[list[str]] = [[]]
    for _ in range(entries):
        trace += [[atom]] * dwell + [[]]
    return trace


def count_problem(family: str, formula: Formula) -> str | None:
    """Whether a count formula over one atom accepts exactly the entry counts its family says.

    A conjunction ("kitchen at most twice, bathroom at most once") is checked atom by atom:
    its conjuncts are grouped by the atoms they mention, and each group must be over one atom.
    """
    groups: dict[frozenset[str], list[Formula]] = {}
    for part in formula.children if formula.op == "&" else (formula,):
        groups.setdefault(part.atoms(), []).append(part)
    for parts in groups.values():
        problem = _count_problem(family, And(*parts))
        if problem:
            return problem
    return None


def _count_problem(family: str, formula: Formula) -> str | None:
    atoms = sorted(formula.atoms())
    if len(atoms) != 1:
        return f"a count over {len(atoms)} atoms: expected one atom per conjunct"
    accepted = {
        dwell: [
            k for k in range(MAX_ENTRIES + 1) if evaluate(formula, entry_trace(atoms[0], k, dwell))
        ]
        for dwell in (1, 2, 3)
    }
    ok = accepted[1]
    if any(other != ok for other in accepted.values()):
        return f"counts states, not entries: accepted counts by dwell time {accepted}"
    if not ok or len(ok) == MAX_ENTRIES + 1:
        return f"accepts {ok} of the entry counts 0..{MAX_ENTRIES}: no real bound"
    shape = COUNT_FAMILIES[family]
    expected = {
        "at_most": list(range(0, max(ok) + 1)),
        "at_least": list(range(min(ok), MAX_ENTRIES + 1)),
        "exactly": [ok[0]],
    }[shape]
    if ok != expected:
        return f"accepted entry counts {ok} are not an {shape} set"
    return None


def check_line(line: str, scenes: dict, seen: set[str]) -> list[str]:
    """All problems on one line of the file."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as err:
        return [f"not JSON ({err})"]
    if not isinstance(row, dict):
        return ["not a JSON object"]
    problems = [f"missing or non-{t.__name__} field {k!r}" for k, t in REQUIRED.items()
                if not isinstance(row.get(k), t)]  # fmt: skip
    problems += [f"field {k!r} must be a {t.__name__}" for k, t in OPTIONAL.items()
                 if k in row and not isinstance(row[k], t)]  # fmt: skip
    problems += [f"unknown field {k!r}" for k in row if k not in REQUIRED and k not in OPTIONAL]
    if problems:
        return problems
    if row["id"] in seen:
        problems.append(f"duplicate id {row['id']}")
    seen.add(row["id"])
    if not row["sentence"].strip():
        problems.append("empty sentence")
    if row["pattern"] not in FAMILIES:
        problems.append(f"unknown pattern family {row['pattern']!r}")
    scene = scenes.get(row["scene"])
    if scene is None:
        return [*problems, f"unknown scene {row['scene']!r}"]
    texts = [row["formula"], *row.get("alternatives", [])]
    for i, text in enumerate(texts):
        where = "formula" if i == 0 else f"alternative {i}"
        try:
            formula = parse(text)
        except Exception as err:  # any parse failure is a defect of this line
            problems.append(f"{where} does not parse: {err}")
            continue
        problems += [f"{where}: {p}" for p in atom_problems(formula, scene)]
        if i == 0 and row["pattern"] in COUNT_FAMILIES:
            problem = count_problem(row["pattern"], formula)
            if problem:
                problems.append(f"{where}: {problem}")
    if row["pattern"] in STRONG_NEXT_FAMILIES and not any("X[!]" in t for t in texts):
        problems.append("a prompt / bounded reaction needs a strong-next reading")
    return problems


def main() -> int:
    """Validate the file, print the problems and the counts; 0 when valid."""
    scenes = load_scenes()
    seen: set[str] = set()
    rows = []
    failures = 0
    for number, line in enumerate(SENTENCES.read_text().splitlines(), 1):
        problems = check_line(line, scenes, seen)
        for problem in problems:
            print(f"line {number}: {problem}")
        failures += bool(problems)
        if not problems:
            rows.append(json.loads(line))
    print(f"{len(rows)} valid lines, {failures} with problems")
    with_alts = sum(bool(r.get("alternatives")) for r in rows)
    print(f"{with_alts} lines carry alternatives")
    for field in ("pattern", "style", "scene"):
        counts = Counter(r[field] for r in rows)
        print(f"\nper {field}:")
        for name, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {name:28s} {count:3d}")
    missing = [f for f in FAMILIES if f not in {r["pattern"] for r in rows}]
    if missing:
        print(f"families with no sentence: {missing}")
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
