"""Check the held-out translation set: every line well formed, every formula parses, every atom
names a room or object of its scene with a predicate that object supports, and every formula
is neither always true nor always false on sampled runs.

Run from the repository root::

    .venv/bin/python data/translation/heldout/check.py

Exit status 0 when every sentence passes, 1 otherwise. It reads ``safetychip.ltl`` (the formula
syntax) and the scene files only, never ``safetychip.translate``.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from safetychip.ltl import Proposition, evaluate, parse  # noqa: E402

SET = HERE / "sentences.jsonl"
SCENES = ROOT / "data" / "virtualhome" / "scenes"

PATTERNS = (
    "visit", "sequenced_visit", "ordered_visit", "strictly_ordered_visit", "patrolling",
    "global_avoidance", "past_avoidance", "future_avoidance", "upper_restricted_avoidance",
    "lower_restricted_avoidance", "exact_restricted_avoidance", "delayed_reaction",
    "prompt_reaction", "bounded_delay", "wait", "state_condition", "state_condition_unless",
)  # fmt: skip
STYLES = ("terse", "chatty", "passive", "list", "typo", "formal", "nonnative", "technical",
          "plain")  # fmt: skip
REQUIRED = ("id", "scene", "sentence", "formula", "pattern", "style")

# What each predicate asks of its arguments (VirtualHome properties); None: any node.
NEEDS: dict[str, tuple[str | None, ...]] = {
    "agent_at": (None,),
    "is_open": ("CAN_OPEN",),
    "is_switchedon": ("HAS_SWITCH",),
    "is_grabbed": ("GRABBABLE",),
    "is_touched": (None,),
    "is_on": ("GRABBABLE", "SURFACES"),
    "is_in": ("GRABBABLE", "CONTAINERS"),
}
#: Patterns whose formula may be unsatisfiable with one room at a time: on finite traces
#: G F a holds only when a holds at the last position, so two rooms patrolled "forever" can
#: not both be the last room (see README).
MAY_BE_UNSATISFIABLE = {"patrolling"}


def load_scene(name: str) -> tuple[set[str], dict[str, set[str]]]:
    """Rooms and, per object class name, the union of its properties."""
    graph = json.loads((SCENES / f"{name}.json").read_text())
    rooms = {n["class_name"] for n in graph["nodes"] if n.get("category") == "Rooms"}
    props: dict[str, set[str]] = {}
    for node in graph["nodes"]:
        if node.get("category") not in ("Rooms", "Characters"):
            props.setdefault(node["class_name"], set()).update(node.get("properties", []))
    return rooms, props


def atom_problems(atom: str, rooms: set[str], props: dict[str, set[str]]) -> list[str]:
    """Why *atom* does not fit the scene (empty when it does)."""
    p = Proposition.parse(atom)
    if p.predicate not in NEEDS:
        return [f"unknown predicate {p.predicate!r} in {atom}"]
    needs = NEEDS[p.predicate]
    if len(p.args) != len(needs):
        return [f"{atom}: {p.predicate} takes {len(needs)} argument(s)"]
    out = []
    for arg, need in zip(p.args, needs):
        if arg in rooms and p.predicate == "agent_at":
            continue
        if arg not in props:
            out.append(f"{atom}: {arg!r} is not a room or object of the scene")
        elif need is not None and need not in props[arg]:
            out.append(f"{atom}: {arg!r} lacks {need}")
    return out


def sample_runs(atoms: list[str], rooms: set[str], seed: str, n: int = 600) -> list[list[set]]:
    """Runs over *atoms* with the agent in exactly one room per state (a scene room not in the
    formula stands for "elsewhere"); other atoms flip with probability 0.3 per step."""
    rng = random.Random(seed)
    room_atoms = [a for a in atoms if a.startswith("agent_at(") and a[9:-1] in rooms]
    other = [a for a in atoms if a not in room_atoms]
    places = [*room_atoms, None]
    runs = []
    for _ in range(n):
        length = rng.randint(1, 16)
        where = rng.choice(places)
        true = {a for a in other if rng.random() < 0.3}
        run = []
        for _ in range(length):
            run.append(({where} - {None}) | true)
            if rng.random() < 0.6:
                where = rng.choice(places)
            true = {a for a in other if (a in true) != (rng.random() < 0.3)}
        runs.append(run)
    return runs


def main() -> int:
    """Check every line of the set, print the counts and the problems; 1 if any error."""
    errors: list[str] = []
    notes: list[str] = []
    rows = []
    for k, line in enumerate(SET.read_text(encoding="utf-8").splitlines(), 1):
        try:
            rows.append((k, json.loads(line)))
        except json.JSONDecodeError as e:
            errors.append(f"line {k}: not JSON ({e})")
    ids = Counter(r.get("id") for _, r in rows)
    sentences = Counter(r.get("sentence", "").strip().lower() for _, r in rows)
    errors += [f"id {i!r} appears {c} times" for i, c in ids.items() if c > 1]
    errors += [f"sentence {s!r} appears {c} times" for s, c in sentences.items() if c > 1]
    scenes: dict[str, tuple[set[str], dict[str, set[str]]]] = {}
    for k, row in rows:
        where = f"line {k} ({row.get('id')})"
        missing = [key for key in REQUIRED if not row.get(key)]
        if missing:
            errors.append(f"{where}: missing {missing}")
            continue
        if row["pattern"] not in PATTERNS:
            errors.append(f"{where}: unknown pattern {row['pattern']!r}")
        if row["style"] not in STYLES:
            errors.append(f"{where}: unknown style {row['style']!r}")
        if not (SCENES / f"{row['scene']}.json").is_file():
            errors.append(f"{where}: no scene {row['scene']!r}")
            continue
        rooms, props = scenes.setdefault(row["scene"], load_scene(row["scene"]))
        try:
            formula = parse(row["formula"])
        except Exception as e:  # any parse failure is reported as a line error
            errors.append(f"{where}: formula does not parse: {e}")
            continue
        atoms = sorted(formula.atoms())
        unquoted = re.sub(r'"[^"]*"', "", row["formula"])
        if re.search(r"[a-z_]+\(", unquoted):
            errors.append(f"{where}: an atom is not double-quoted in {row['formula']}")
        for atom in atoms:
            errors += [f"{where}: {p}" for p in atom_problems(atom, rooms, props)]
        verdicts = {evaluate(formula, run) for run in sample_runs(atoms, rooms, row["id"])}
        if verdicts != {True, False}:
            message = f"{where}: {'always' if True in verdicts else 'never'} true on 600 runs"
            (notes if row["pattern"] in MAY_BE_UNSATISFIABLE else errors).append(message)
    report(rows, errors, notes)
    return 1 if errors else 0


def report(rows: list, errors: list[str], notes: list[str]) -> None:
    """Print the counts per field, the expected notes and the errors."""
    data = [r for _, r in rows]
    print(f"{len(data)} sentences in {SET.relative_to(ROOT)}")
    for field in ("pattern", "style", "scene", "voice", "several"):
        counts = Counter(str(r.get(field)) for r in data)
        print(f"\nby {field}:")
        for name, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {name:28s} {c:4d}")
    if notes:
        print(
            f"\n{len(notes)} expected notes (patrolling is unsatisfiable with one room at a "
            "time when two or more rooms are patrolled; see README):"
        )
        for n in notes:
            print("  " + n)
    print(f"\n{len(errors)} errors")
    for e in errors:
        print("  " + e)
    print("OK" if not errors else "FAILED")


if __name__ == "__main__":
    sys.exit(main())
