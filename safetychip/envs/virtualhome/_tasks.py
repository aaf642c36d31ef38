"""Task suites: instructions, goals, example plans and constraints in VirtualHome scenes.

Two suites live under ``data/virtualhome/tasks/`` as JSON lines, one task a line:

``four_room``
    Navigation constraints only, over ``agent_at`` of the kitchen, bathroom, bedroom and
    living room.
``mobile_manipulation``
    Constraints over the six object predicates and ``agent_at``.

Each task has an ``id``, ``scene``, ``suite``, ``instruction``, ``description``,
``initial`` and ``goal`` literals, an ``example_plan`` (templated English) with its
``example_script`` (VirtualHome lines) — written as an in-context example that ignores the
constraints — a ``reference_plan`` that reaches the goal and satisfies every constraint, and
five ``constraints``. A constraint has a ``sentence``, a ``formula`` in Spot's syntax, the
specification ``pattern`` it instantiates, the pattern's ``args`` (literals) and, for
``at_most``, a ``bound``.

Examples
--------
>>> tasks = load_tasks(suite="four_room")
>>> task = tasks[0]
>>> task.id, len(task.constraints), task.constraints[0].pattern
('four_room/apartment_1/01', 5, 'not_before')
>>> print(task.constraints[0].formula)
!"agent_at(kitchen)" W "agent_at(bathroom)"
"""

from __future__ import annotations

import html
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from safetychip.errors import DataFileError

__all__ = ["PATTERNS", "SUITES", "TASK_DIR", "Constraint", "Task", "load_tasks"]

#: Where the task suites live (``data/virtualhome/tasks`` in the repository).
TASK_DIR = Path(__file__).resolve().parents[3] / "data" / "virtualhome" / "tasks"

#: The task suites, each a file ``<suite>.jsonl`` in :data:`TASK_DIR`.
SUITES = ("four_room", "mobile_manipulation")

#: Specification pattern -> its formula shape, for args p, q and bound n. The names follow
#: :mod:`safetychip.ltl`'s patterns, except that ``immediate_response`` uses the weak next
#: (the response may be owed when the trace ends: p often persists, like a salmon left in
#: the microwave) and ``absence_from`` also forbids q at the moment p starts.
PATTERNS: dict[str, str] = {
    "never": "G!p",
    "not_before": "!p W q",
    "before": "!q W p",
    "response": "G(p -> Fq)",
    "immediate_response": "G(p -> Xq)",
    "absence_after": "G(p -> XG!q)",
    "absence_from": "G(p -> G!q)",
    "at_most": "!F(p & (p U (!p & (!p U Fp))))  (n = 1; each extra entry nests once more)",
}

_ATOM = re.compile(r'"([^"]+)"')


@dataclass(frozen=True)
class Constraint:
    """One English sentence and its finite-trace LTL formula.

    Attributes
    ----------
    sentence : str
    formula : str
        Spot syntax, predicates as double-quoted atoms.
    pattern : str
        A key of :data:`PATTERNS`.
    args : tuple of str
        The pattern's literals (``p``, then ``q``), possibly negated with ``!``.
    bound : int or None
        The ``n`` of ``at_most``.
    """

    sentence: str
    formula: str
    pattern: str
    args: tuple[str, ...]
    bound: int | None = None

    @property
    def propositions(self) -> tuple[str, ...]:
        """The atoms of the formula, in order of first occurrence."""
        return tuple(dict.fromkeys(_ATOM.findall(self.formula)))


@dataclass(frozen=True)
class Task:
    """A task of a suite; see the module docstring for the fields."""

    id: str
    scene: str
    suite: str
    instruction: str
    description: str
    initial: tuple[str, ...]
    goal: tuple[str, ...]
    example_plan: tuple[str, ...]
    example_script: tuple[str, ...]
    reference_plan: tuple[str, ...]
    constraints: tuple[Constraint, ...]

    @property
    def propositions(self) -> tuple[str, ...]:
        """Every proposition the constraints and the goal mention, sorted."""
        names = {p for c in self.constraints for p in c.propositions}
        names.update(literal.lstrip("!") for literal in self.goal)
        return tuple(sorted(names))

    def __repr__(self) -> str:
        return f"<Task {self.id}: {self.instruction!r}>"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{k}</td><td style='text-align:left'>{html.escape(c.sentence)}</td>"
            f"<td style='text-align:left'><code>{html.escape(c.formula)}</code></td></tr>"
            for k, c in enumerate(self.constraints, 1)
        )
        return (
            f"<p><b>{html.escape(self.id)}</b> ({html.escape(self.scene)}): "
            f"{html.escape(self.instruction)}<br>goal: <code>"
            f"{html.escape(' & '.join(self.goal))}</code></p><table>{rows}</table>"
        )


def load_tasks(
    path: str | os.PathLike[str] | None = None,
    *,
    suite: str | None = None,
    scene: str | None = None,
) -> list[Task]:
    """Load tasks from a JSON-lines file, or every suite of :data:`TASK_DIR`.

    Parameters
    ----------
    path : str or path, optional
        One ``.jsonl`` file; by default every suite in :data:`TASK_DIR`.
    suite, scene : str, optional
        Keep only the tasks of this suite or scene.

    Raises
    ------
    DataFileError
        If a file is missing or a line is not a valid task (the message names the file
        and the line).
    ValueError
        If *suite* is not one of :data:`SUITES`.
    """
    if suite is not None and suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; choose one of {', '.join(SUITES)}")
    paths = [Path(path)] if path is not None else [TASK_DIR / f"{s}.jsonl" for s in SUITES]
    tasks = [task for p in paths for task in _read(p)]
    return [
        t
        for t in tasks
        if (suite is None or t.suite == suite) and (scene is None or t.scene == scene)
    ]


_FIELDS = {
    "id": str,
    "scene": str,
    "suite": str,
    "instruction": str,
    "description": str,
    "initial": list,
    "goal": list,
    "example_plan": list,
    "example_script": list,
    "reference_plan": list,
    "constraints": list,
}
_CONSTRAINT_FIELDS = {"sentence": str, "formula": str, "pattern": str, "args": list}


def _read(path: Path) -> list[Task]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise DataFileError(str(path), "no such file") from None
    tasks = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataFileError(str(path), f"{where}: not valid JSON: {exc}") from None
        _require(data, _FIELDS, path, where)
        constraints = []
        for k, item in enumerate(data["constraints"], 1):
            _require(item, _CONSTRAINT_FIELDS, path, f"{where}, constraint {k}")
            if item["pattern"] not in PATTERNS:
                raise DataFileError(
                    str(path),
                    f"{where}, constraint {k}: unknown pattern {item['pattern']!r}; "
                    f"valid: {', '.join(PATTERNS)}",
                )
            constraints.append(
                Constraint(
                    item["sentence"],
                    item["formula"],
                    item["pattern"],
                    tuple(item["args"]),
                    item.get("bound"),
                )
            )
        fields = {key: data[key] for key in _FIELDS}
        tuples = {k: tuple(v) for k, v in fields.items() if isinstance(v, list)}
        tasks.append(Task(**{**fields, **tuples, "constraints": tuple(constraints)}))
    return tasks


def _require(data: Any, fields: dict[str, type], path: Path, where: str) -> None:
    if not isinstance(data, dict):
        raise DataFileError(str(path), f"{where}: expected a JSON object")
    for key, kind in fields.items():
        if not isinstance(data.get(key), kind):
            raise DataFileError(
                str(path), f"{where}: field {key!r} is missing or not a {kind.__name__}"
            )
