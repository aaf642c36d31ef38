"""Fit the retrieval translator's confidence and write ``calibration.json``.

Run ``.venv/bin/python data/translation/calibrate.py`` from the repository root (about a
minute). Every development sentence (``utterances.jsonl`` and ``paraphrases.jsonl``; never
anything under ``heldout/``) is lifted and read by the retrieval translator alone, whatever
the grammar would say, and its first reading is graded by language equivalence with the
label. The logistic confidence is fitted on the calibration split (``utterances`` ``dev``
and ``paraphrases`` ``cal``), its threshold chosen so that the accepted calibration readings
are right at least 95 % of the time; the reliability is then reported on the other split
(``utterances`` ``test`` and ``paraphrases`` ``check``), by bins of confidence.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from safetychip.automata import equivalent  # noqa: E402
from safetychip.cli.translate import scene_vocabulary  # noqa: E402
from safetychip.errors import SafetyChipError  # noqa: E402
from safetychip.ltl import parse  # noqa: E402
from safetychip.translate import RetrievalTranslator, Translator, load_utterances  # noqa: E402
from safetychip.translate._assemble import ground_formula  # noqa: E402
from safetychip.translate._retrieve import CALIBRATION, calibrate  # noqa: E402

HERE = Path(__file__).parent
CAL = {"dev", "cal"}


def outcomes() -> tuple[list, list]:
    rows = load_utterances(HERE / "utterances.jsonl") + load_utterances(HERE / "paraphrases.jsonl")
    translators: dict[str, Translator] = {}
    retrieval = RetrievalTranslator(calibration={"weights": [0, 0, 0], "threshold": 0,
                                                 "ambiguity": 1})  # fmt: skip
    cal, check = [], []
    for row in rows:
        if row["split"] == "fresh":
            continue  # measured once, never used for fitting or checking
        scene = row["scene"]
        if scene not in translators:
            translators[scene] = Translator(scene_vocabulary(scene), embedder=retrieval.embedder)
        try:
            lifted = translators[scene].lift(row["sentence"])
        except SafetyChipError:
            continue
        readings = retrieval.readings(lifted.text)
        if not readings:
            continue
        best = readings[0]
        try:
            right = equivalent(ground_formula(best.formula, lifted.placeholders),
                               parse(row["formula"]))  # fmt: skip
        except SafetyChipError:
            right = False
        item = (best.similarity, best.share, best.unread, bool(right))
        (cal if row["split"] in CAL else check).append(item)
    return cal, check


def main() -> None:
    cal, check = outcomes()
    fit = calibrate(cal)
    probe = RetrievalTranslator(embedder=None, calibration=fit)
    from safetychip.translate._retrieve import Reading

    def confidence(s: float, v: float, u: float) -> float:
        return probe.confidence((Reading(parse("a"), "", v, s, "", u),))

    report = {"calibration_sentences": len(cal), "check_sentences": len(check), "bins": []}
    for name, items in (("calibration", cal), ("check", check)):
        accepted = [
            (c, ok) for s, v, u, ok in items if (c := confidence(s, v, u)) >= fit["threshold"]
        ]
        right = sum(ok for _, ok in accepted)
        report[name] = {
            "first_reading_right": sum(ok for *_, ok in items),
            "total": len(items),
            "accepted": len(accepted),
            "accepted_right": right,
        }
    for lo in (0.0, 0.2, 0.4, 0.6, 0.8):
        inside = [ok for s, v, u, ok in check if lo <= confidence(s, v, u) < lo + 0.2 + 1e-9]
        if inside:
            report["bins"].append(
                {
                    "confidence": f"{lo:.1f}-{lo + 0.2:.1f}",
                    "n": len(inside),
                    "right": round(sum(inside) / len(inside), 3),
                }  # fmt: skip
            )
    fit["report"] = report
    CALIBRATION.write_text(json.dumps(fit, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(fit, indent=1))


if __name__ == "__main__":
    main()
