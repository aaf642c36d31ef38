"""Write ``examples.jsonl`` (and its vectors): the labelled sentences by other hands that are
development data, lifted, as examples for the retrieval translator
(:class:`safetychip.translate.RetrievalTranslator`) beside our templates.

Run ``.venv/bin/python data/translation/make_examples.py`` from the repository root (about
half a minute). Each sentence of :data:`SETS` is lifted as the translator lifts it (its
scene's names become ``[a]``, ``[b]``… in order of first mention) and its label is lifted
with the same letters; a sentence whose label names something the lifting did not find, or
whose lifting fails, is left out and counted. The labels are put in the project's
conventions first: ``heldout/`` writes the weak next for prompt reactions and bounded
delays, and ``G(a -> G !b)`` for "once a, never b", where the project reads the strong next
``X[!]`` and ``G(a -> X G !b)`` (their READMEs say so). A row keeps its set's name in
``set``, so that a set can be scored with none of its own sentences voting
(``RetrievalTranslator(without={"fresh"})``).

The set still unscored (``heldout_2/``) is never read here.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from safetychip.errors import SafetyChipError  # noqa: E402
from safetychip.experiments import scene_vocabulary  # noqa: E402
from safetychip.ltl import parse  # noqa: E402
from safetychip.translate import Translator, load_utterances  # noqa: E402
from safetychip.translate._retrieve import EXAMPLES, clause_literals, write_library  # noqa: E402

HERE = Path(__file__).parent
#: The sets by other hands that are development data (each scored once before it became so).
SETS = ("dev_other", "fresh", "heldout", "fresh_2", "fresh_3", "fresh_4", "fresh_5", "fresh_6",
        "fresh_7", "fresh_8", "fresh_9", "fresh_10", "fresh_11",
        "fresh_12", "fresh_13", "fresh_14", "fresh_15", "fresh_16")  # fmt: skip
#: Their pattern names -> the project's (``safetychip.ltl.PATTERNS``).
PATTERN = {
    "visit": "visit",
    "sequenced_visit": "sequenced_visit",
    "ordered_visit": "ordered_visit",
    "strictly_ordered_visit": "strictly_ordered_visit",
    "patrolling": "patrolling",
    "global_avoidance": "never",
    "past_avoidance": "not_before",
    "future_avoidance": "absence_after",
    "upper_restricted_avoidance": "at_most",
    "lower_restricted_avoidance": "at_least",
    "exact_restricted_avoidance": "exactly",
    "delayed_reaction": "response",
    "prompt_reaction": "immediate_response",
    "bounded_delay": "bounded_delay",
    "wait": "wait",
    "state_condition": "avoid_while",
    "state_condition_unless": "avoid_unless",
}
_ATOM = re.compile(r'"(\w+)\(([^)]*)\)"')


def project_label(row: dict) -> str:
    """The label in the project's conventions (strong next; "once a, never b" from the next
    step on)."""
    formula = row["formula"]
    if row["pattern"] in ("prompt_reaction", "bounded_delay"):
        formula = re.sub(r"\bX(?!\[)", "X[!]", formula)
    if row["pattern"] == "future_avoidance" and "X" not in formula:
        formula = re.sub(r"->\s*G", "-> X G", formula, count=1)
    return formula


def example(row: dict, translator: Translator) -> tuple[dict | None, str]:
    """The lifted example of one labelled sentence, or None and why it is left out."""
    try:
        lifted = translator.lift(row["sentence"])
    except SafetyChipError as err:
        return None, f"not lifted ({type(err).__name__})"
    letter: dict[str, str] = {}
    for x, name in lifted.placeholders.items():
        letter.setdefault(name, x)
    unnamed: list[str] = []

    def lift_atom(m: re.Match[str]) -> str:
        args = [a.strip() for a in m.group(2).split(",")]
        if any(a not in letter for a in args):
            unnamed.append(m.group(0))
            return m.group(0)
        return '"{}({})"'.format(m.group(1), ",".join(letter[a] for a in args))

    formula = _ATOM.sub(lift_atom, project_label(row))
    if unnamed:
        return None, "the label names what the lifting did not find"
    said = set(re.findall(r"\[([a-z])\]", lifted.text))
    used = {x for m in _ATOM.finditer(formula) for x in m.group(2).split(",")}
    if said != used:
        return None, "a placeholder the label does not use"
    atoms: dict[str, set[str]] = {}
    for m in _ATOM.finditer(formula):
        if "," not in m.group(2):
            atoms.setdefault(m.group(2), set()).add(m.group(0))
    # each placeholder's literal as its own clause says it ("[b] is off": not switched on), so
    # that a sentence's clause fills the same role the same way
    own = clause_literals(lifted.text)
    roles = {}
    for x, found in sorted(atoms.items()):
        if len(found) == 1:
            (atom,) = found
            clause = str(own[x]) if x in own else ""
            roles[x] = clause if clause in (atom, f"!{atom}") else atom
    parse(formula)
    return {
        "text": lifted.text,
        "formula": formula,
        "pattern": PATTERN[row["pattern"]],
        "roles": roles,
        "set": row["set"],
        "id": row["id"],
    }, ""


def main() -> None:
    """Lift every set, write the library and print what was left out."""
    translators: dict[str, Translator] = {}
    rows, left_out = [], Counter()
    for name in SETS:
        for row in load_utterances(HERE / name / "sentences.jsonl"):
            scene = row["scene"]
            if scene not in translators:
                translators[scene] = Translator(scene_vocabulary(scene), retrieval=False)
            found, why = example({**row, "set": name}, translators[scene])
            if found is None:
                left_out[f"{name}: {why}"] += 1
            else:
                rows.append(found)
    summary = write_library(rows, EXAMPLES)
    print(json.dumps({**summary, "left_out": dict(left_out)}, indent=1))


if __name__ == "__main__":
    main()
