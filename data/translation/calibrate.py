"""Fit the retrieval translator's confidence and write ``calibration.json``.

Run ``.venv/bin/python data/translation/calibrate.py`` from the repository root (about a
minute), after ``make_examples.py``.

Which sentences. The retrieval translator reads only what the grammar and the frame reader
refuse, so its confidence is fitted on those sentences: every development sentence
(``utterances.jsonl``, ``paraphrases.jsonl`` without its ``fresh`` split, and the sets by
other hands of ``make_examples.SETS``) that the grammar and the frame reader both refuse is
lifted and read by the retrieval translator, and its first reading is graded by language
equivalence with the label (a set by other hands in the project's conventions,
``make_examples.project_label``; alternatives accepted). A set by other hands is read with
its own examples left out (``RetrievalTranslator.leaving_out``), as a new writer's sentences
would be.

The fit. Confidence = logistic(intercept + w1 · best score + w2 · vote share + w3 · share of
placeholders whose clause was not read), fitted on all those outcomes; the threshold is the
least confidence at which the accepted readings that also fit the sentence (no misfit, not
ambiguous, as the translator checks) are right at least 90 % of the time (``TARGET``), and
the 20 least confident of them at least 80 %.

The report. Besides the in-sample figures, each set by other hands is checked with a fit
that never saw it (the fit and threshold chosen on the other sets): how many of its
sentences reach the retrieval translator, how many it then accepts, and how many of those
are right. That is the figure to expect on a new writer's sentences.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from make_examples import SETS, project_label  # noqa: E402

from safetychip.automata import equivalent  # noqa: E402
from safetychip.errors import OutOfGrammarError, SafetyChipError  # noqa: E402
from safetychip.experiments import scene_vocabulary  # noqa: E402
from safetychip.ltl import parse  # noqa: E402
from safetychip.translate import RetrievalTranslator, Translator, load_utterances  # noqa: E402
from safetychip.translate._assemble import ground_formula  # noqa: E402
from safetychip.translate._retrieve import CALIBRATION, Reading, calibrate  # noqa: E402

HERE = Path(__file__).parent
OURS = ("utterances.jsonl", "paraphrases.jsonl")
#: The share of accepted readings that must be right.
TARGET = 0.9


def _refused(translator: Translator, lifted: str) -> bool:
    """Whether the grammar and the frame reader both refuse *lifted*."""
    readers = [translator.lifted_translator, translator.frames]
    for read in readers:
        if read is None:
            continue
        try:
            read(lifted)
        except OutOfGrammarError:
            continue
        return False
    return True


def outcomes() -> list[dict]:
    """One outcome per development sentence that reaches the retrieval translator."""
    base = RetrievalTranslator(calibration={"weights": [0, 0, 0], "threshold": 0,
                                            "ambiguity": 1})  # fmt: skip
    found = []
    for name in (*OURS, *SETS):
        path = HERE / name if name in OURS else HERE / name / "sentences.jsonl"
        rows = [r for r in load_utterances(path) if r.get("split") != "fresh"]
        retrieval = base.leaving_out(r["id"] for r in rows)
        translators: dict[str, Translator] = {}
        for row in rows:
            scene = row["scene"]
            if scene not in translators:
                translators[scene] = Translator(scene_vocabulary(scene), retrieval=False,
                                                embedder=retrieval.embedder)  # fmt: skip
            try:
                lifted = translators[scene].lift(row["sentence"])
            except SafetyChipError:
                continue
            if not _refused(translators[scene], lifted.text):
                continue
            readings = retrieval.readings(lifted.text)
            if not readings:
                continue
            best = readings[0]
            label = project_label(row) if name in SETS else row["formula"]
            labels = [parse(label), *map(parse, row.get("alternatives", ()))]
            try:
                grounded = ground_formula(best.formula, lifted.placeholders)
                right = any(equivalent(grounded, f) for f in labels)
            except SafetyChipError:
                right = False
            fits = retrieval.misfit(lifted.text, best) is None and not retrieval.ambiguous(
                lifted.text, readings
            )
            found.append({"set": name, "similarity": best.similarity, "share": best.share,
                          "unread": best.unread, "fits": fits, "right": bool(right)})  # fmt: skip
    return found


def _features(items: list[dict]) -> list[tuple[float, float, float, bool]]:
    return [(o["similarity"], o["share"], o["unread"], o["right"]) for o in items]


def _accepted(fit: dict, items: list[dict]) -> list[dict]:
    probe = RetrievalTranslator(embedder=None, calibration=fit)
    return [
        o
        for o in items
        if o["fits"]
        and probe.confidence(
            (Reading(parse("a"), "", o["share"], o["similarity"], "", o["unread"]),)
        )
        >= fit["threshold"]
    ]


def main() -> None:
    """Fit, check each set by other hands with a fit that never saw it, write the file."""
    items = outcomes()
    fit = calibrate(_features(items), among=[o["fits"] for o in items], target=TARGET)
    report: dict = {"sentences": len(items), "by_set": {}, "unseen": {}}
    for name in (*OURS, *SETS):
        mine = [o for o in items if o["set"] == name]
        accepted = _accepted(fit, mine)
        report["by_set"][name] = {
            "reach_retrieval": len(mine),
            "first_reading_right": sum(o["right"] for o in mine),
            "accepted": len(accepted),
            "accepted_right": sum(o["right"] for o in accepted),
        }
    for name in SETS:
        others = [o for o in items if o["set"] != name]
        unseen = calibrate(_features(others), among=[o["fits"] for o in others], target=TARGET)
        mine = [o for o in items if o["set"] == name]
        accepted = _accepted(unseen, mine)
        report["unseen"][name] = {
            "reach_retrieval": len(mine),
            "first_reading_right": sum(o["right"] for o in mine),
            "threshold": unseen["threshold"],
            "accepted": len(accepted),
            "accepted_right": sum(o["right"] for o in accepted),
        }
    fit["report"] = report
    CALIBRATION.write_text(json.dumps(fit, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(fit, indent=1))


if __name__ == "__main__":
    main()
