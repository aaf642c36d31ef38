"""Fit the candidate score, choose the conformal threshold, and write ``candidates.json``.

Run ``.venv/bin/python data/translation/calibrate_candidates.py`` from the repository root
(about seven minutes; ``--samples FILE`` keeps the translated sentences, ``--from FILE`` refits
from them without translating again).

**Which sentences.** Every development sentence with a label: our own (``utterances.jsonl``,
``paraphrases.jsonl`` without its ``fresh`` split), the sets by other hands whose sentences are
retrieval examples (``make_examples.SETS``), and the three sets by other hands that are not
(``fresh_17``, ``fresh_18``, ``heldout_2``). A set by other hands is read with its own examples
left out (``RetrievalTranslator.leaving_out``), as a new writer's sentences are. Each sentence is
translated with a score that keeps every candidate, and each candidate is graded by language
equivalence with the label, an alternative, or the label in the project's conventions
(``make_examples.project_label``).

**Three roles, never mixed.**

- *fit*: our sentences and every other set of ``SETS`` (``SETS[0::2]``): the logistic weights;
- *calibrate*: the rest of ``SETS`` (``SETS[1::2]``): the split-conformal threshold for
  ``ALPHA``, or, when the readers propose the right formula for fewer than ``1 - ALPHA`` of
  these sentences (so that no threshold reaches that coverage), for their own miss rate plus
  ``SLACK``; then raised until at most ``MAX_SILENT`` of these sentences get a silently wrong
  singleton;
- *check*: ``fresh_17``, ``fresh_18``, ``heldout_2``: coverage, mean set size, top-1 and silently
  wrong singletons on sentences neither step saw, reported in the file.

The same is done for a translator without the retrieval translator (no embedder), whose
candidates come from the slot reader only.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from make_examples import SETS, project_label  # noqa: E402

from safetychip.experiments import scene_vocabulary  # noqa: E402
from safetychip.llm import MiniLMEmbedder  # noqa: E402
from safetychip.translate import (  # noqa: E402
    RetrievalTranslator,
    Translator,
    evaluate,
    load_utterances,
)
from safetychip.translate._candidates import (  # noqa: E402
    FEATURES,
    SCORES,
    Scores,
    conformal_threshold,
    fit,
)
from safetychip.translate._pipeline import CONFIDENCE  # noqa: E402

HERE = Path(__file__).parent
OURS = ("utterances.jsonl", "paraphrases.jsonl")
CHECK = ("fresh_17", "fresh_18", "heldout_2")
ROLES = {
    **{name: "fit" for name in (*OURS, *SETS[0::2])},
    **{name: "calibrate" for name in SETS[1::2]},
    **{name: "check" for name in CHECK},
}
#: The miscoverage the threshold is chosen for.
ALPHA = 0.05
#: When the readers miss the right formula on more than ALPHA of the calibration sentences, no
#: threshold reaches 1 - ALPHA: the threshold is chosen for the readers' own miss rate plus this
#: (half a point of coverage traded for the candidates almost never right).
SLACK = 0.005
#: The most silently wrong singletons (a set of one, accepted without a pick, that is wrong)
#: allowed on the calibration sentences: the threshold is raised (the sets grow) until they
#: are at most this share, since a silent singleton is the only dangerous outcome.
MAX_SILENT = 0.01
#: Keeps every candidate: what the fit and the threshold are chosen from.
OPEN = Scores(dict.fromkeys(FEATURES, 0.0), 0.0, math.inf, ALPHA)


def _rows(name: str) -> list[dict]:
    path = HERE / name if name in OURS else HERE / name / "sentences.jsonl"
    rows = [r for r in load_utterances(path) if r.get("split") != "fresh"]
    if name not in OURS:
        for r in rows:
            r["alternatives"] = [*r["alternatives"], project_label(r)]
    return rows


def samples(retrieval: bool) -> dict[str, list[dict]]:
    """Per set, each sentence's candidates (features, right) and whether it was refused."""
    from tqdm.auto import tqdm

    embedder = MiniLMEmbedder() if retrieval else None
    base = RetrievalTranslator(embedder) if retrieval else None
    out = {}
    for name in tqdm(ROLES, desc="sets"):
        rows = _rows(name)
        reader = base.leaving_out(r["id"] for r in rows) if base is not None else False
        vocabularies: dict = {}

        def make(scene: str, reader=reader, vocabularies=vocabularies) -> Translator:
            if scene not in vocabularies:
                vocabularies[scene] = scene_vocabulary(scene)
            return Translator(vocabularies[scene], embedder=embedder, retrieval=reader,
                              scores=OPEN)  # fmt: skip

        result = evaluate(make, rows)
        out[name] = [
            {"id": r["id"], "pattern": r["pattern"], "error": r["error"],
             "candidates": [(c["features"], c["right"]) for c in r["candidates"]]}
            for r in result.rows
        ]  # fmt: skip
    return out


def _outcome(scores: Scores, rows: list[dict]) -> dict:
    """Coverage, mean set size, top-1 right, refused and silently wrong singletons of *rows*
    under *scores*."""
    covered = size = top = silent = refused = 0
    for row in rows:
        scored = sorted(
            ((scores.probability(f), r) for f, r in row["candidates"]), key=lambda x: -x[0]
        )
        kept = [(p, r) for p, r in scored if scores.keeps(p)]
        size += len(kept)
        covered += any(r for _, r in kept)
        refused += not kept
        top += bool(kept) and kept[0][1]
        silent += len(kept) == 1 and kept[0][0] >= CONFIDENCE and not kept[0][1]
    n = max(1, len(rows))
    return {"sentences": len(rows), "coverage": round(covered / n, 4),
            "mean_set_size": round(size / n, 3), "top1_right": round(top / n, 4),
            "refused": refused, "silent_singletons": silent}  # fmt: skip


def calibrate(found: dict[str, list[dict]]) -> Scores:
    """The fitted weights and conformal threshold, with the report."""
    training = [c for name, rows in found.items() if ROLES[name] == "fit"
                for row in rows for c in row["candidates"]]  # fmt: skip
    weights, intercept = fit(training)
    scored = Scores(weights, intercept, math.inf, ALPHA)
    nonconformity = []
    for name, rows in found.items():
        if ROLES[name] != "calibrate":
            continue
        for row in rows:
            right = [scored.probability(f) for f, r in row["candidates"] if r]
            nonconformity.append(1.0 - max(right) if right else math.inf)
    recall = sum(math.isfinite(s) for s in nonconformity) / len(nonconformity)
    alpha = ALPHA
    threshold = conformal_threshold(nonconformity, alpha)
    if math.isinf(threshold):  # the readers miss more than alpha: the least alpha they allow
        alpha = round(1 - recall + SLACK, 4)
        threshold = conformal_threshold(nonconformity, alpha)
    rows = [r for name, found_rows in found.items() if ROLES[name] == "calibrate"
            for r in found_rows]  # fmt: skip
    steps = sorted({1.0 - scored.probability(f) for r in rows for f, _ in r["candidates"]})
    while (_outcome(Scores(weights, intercept, threshold, alpha), rows)["silent_singletons"]
           > MAX_SILENT * len(rows)):  # fmt: skip
        threshold = next((q for q in steps if q > threshold + 1e-12), math.inf)
    scores = Scores(weights, intercept, threshold, alpha)
    report = {
        "alpha_asked": ALPHA,
        "alpha": alpha,
        "max_silent": MAX_SILENT,
        "roles": {role: [n for n in found if ROLES[n] == role]
                  for role in ("fit", "calibrate", "check")},
        "candidates_fitted": len(training),
        "calibration_sentences": len(nonconformity),
        "readers_recall_on_calibration": round(recall, 4),
        "by_set": {name: {"role": ROLES[name], **_outcome(scores, rows)}
                   for name, rows in found.items()},
        "check": _outcome(scores, [r for n, rows in found.items() if ROLES[n] == "check"
                                   for r in rows]),
    }  # fmt: skip
    return Scores(weights, intercept, threshold, alpha, report)


def main() -> None:
    """Translate (or read the samples), fit, write :data:`SCORES`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=Path, help="write the translated sentences here")
    parser.add_argument("--from", dest="source", type=Path, help="refit from these samples")
    args = parser.parse_args()
    if args.source:
        found = json.loads(args.source.read_text(encoding="utf-8"))
    else:
        found = {"with_retrieval": samples(True), "without_retrieval": samples(False)}
        if args.samples:
            args.samples.write_text(json.dumps(found), encoding="utf-8")
    data: dict = {"features": list(FEATURES), "alpha": ALPHA}
    for key, sets in found.items():
        data[key] = calibrate(sets).to_dict()
        print(key, json.dumps(data[key]["report"]["check"]), file=sys.stderr)
    SCORES.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
