"""The translator's scores on every labelled English set, as ``safetychip reproduce`` writes them.

:func:`translation_scores` runs the offline translator (slot reader, retrieval over
MiniLM) on each labelled set under ``data/translation/`` and, replayed from
``data/recordings/``, the translator driven by the local model
(:data:`~safetychip.llm.LOCAL_MODEL`) on the development utterances.
:func:`write_translation_scores` writes them as ``01_translation_scores.md``: the three
counts of issue 12 (right, refused or flagged, silently wrong) per set, and per pattern for
the sets written by other hands. Timings are left out so that the file only changes when
the results do (``benchmarks/bench_translation.py`` prints them).

Examples
--------
>>> [s.name for s in SETS][:2]
['utterances.jsonl', 'paraphrases.jsonl']
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

from .._io import atomic_write_text
from ..paths import DATA_DIR
from ..translate import (
    EvaluationResult,
    RetrievalTranslator,
    Translator,
    Vocabulary,
    evaluate,
    load_utterances,
)
from ._report import markdown_table

__all__ = [
    "SETS",
    "TRANSLATION_RECORDING",
    "LabelledSet",
    "translation_scores",
    "write_translation_scores",
]


@dataclass(frozen=True)
class LabelledSet:
    """One labelled file under ``data/translation/``: its path there, who wrote it, and
    whether the translator was developed on it."""

    path: str
    written_by: str
    development: bool

    @property
    def name(self) -> str:
        """The path, as the tables name the set."""
        return self.path


#: The labelled sets, in the order the report lists them.
SETS: tuple[LabelledSet, ...] = (
    LabelledSet("utterances.jsonl", "the project (beside the first grammar)", True),
    LabelledSet("paraphrases.jsonl", "the project (other styles)", True),
    LabelledSet("dev_other/sentences.jsonl", "another hand, for development", True),
    LabelledSet(
        "heldout/sentences.jsonl", "another hand; scored once (36.1 %), then development", True
    ),
    LabelledSet(
        "fresh/sentences.jsonl", "another hand; scored once (57.1 %), then development", True
    ),
    LabelledSet(
        "fresh_2/sentences.jsonl", "another hand; scored once (67.6 %), then development", True
    ),
    LabelledSet(
        "fresh_3/sentences.jsonl", "another hand; scored once (62.4 %), then development", True
    ),
    LabelledSet(
        "fresh_4/sentences.jsonl", "another hand; scored once (54.7 %), then development", True
    ),
    LabelledSet(
        "fresh_5/sentences.jsonl", "another hand; scored once (74.1 %), then development", True
    ),
    LabelledSet(
        "fresh_6/sentences.jsonl", "another hand; scored once (76.2 %), then development", True
    ),
    LabelledSet(
        "fresh_7/sentences.jsonl", "another hand; scored once (71.8 %), then development", True
    ),
    LabelledSet(
        "fresh_8/sentences.jsonl", "another hand; scored once (60.9 %), then development", True
    ),
    LabelledSet(
        "fresh_9/sentences.jsonl", "another hand; scored once (62.6 %), then development", True
    ),
    LabelledSet(
        "fresh_10/sentences.jsonl", "another hand; scored once (67.6 %), then development", True
    ),
    LabelledSet(
        "fresh_11/sentences.jsonl", "another hand; scored once (72.1 %), then development", True
    ),
    LabelledSet(
        "fresh_12/sentences.jsonl", "another hand; scored once (77.6 %), then development", True
    ),
    LabelledSet(
        "fresh_13/sentences.jsonl", "another hand; scored once (67.6 %), then development", True
    ),
    LabelledSet(
        "fresh_14/sentences.jsonl", "another hand; scored once (60.6 %), then development", True
    ),
    LabelledSet(
        "fresh_15/sentences.jsonl", "another hand; scored once (47.6 %), then development", True
    ),
    LabelledSet(
        "fresh_16/sentences.jsonl", "another hand; scored once (53.2 %), then development", True
    ),
    LabelledSet(
        "fresh_17/sentences.jsonl", "another hand; scored once (60.3 %), then development", True
    ),
    LabelledSet(
        "fresh_18/sentences.jsonl", "another hand; scored once (59.1 %), then development", True
    ),
    LabelledSet(
        "heldout_2/sentences.jsonl", "another hand; scored once (74.5 %), then development", True
    ),
    LabelledSet(
        "fresh_19/sentences.jsonl",
        "another hand; scored once (86.9 %, coverage 90.3 %), then development",
        True,
    ),
    LabelledSet(
        "fresh_20/sentences.jsonl",
        "another hand; scored once (87.8 %, coverage 92.3 %), then development",
        True,
    ),
    LabelledSet(
        "fresh_21/sentences.jsonl",
        "another hand; scored once (74.2 %, coverage 81.4 %), then development",
        True,
    ),
    LabelledSet(
        "fresh_22/sentences.jsonl",
        "another hand; scored once (74.7 %, coverage 84.2 %), then development",
        True,
    ),
    LabelledSet(
        "fresh_23/sentences.jsonl",
        "another hand; scored once by the issue34r rewrite (73.8 %, coverage 81.9 %), "
        "then development",
        True,
    ),
    LabelledSet(
        "fresh_24/sentences.jsonl",
        "another hand; scored once by the issue34r rewrite (56.6 %, coverage 65.2 %), "
        "then development",
        True,
    ),
    LabelledSet(
        "fresh_25/sentences.jsonl",
        "another hand; scored once (80.5 %, coverage 85.1 %), then development",
        True,
    ),
    LabelledSet(
        "fresh_26/sentences.jsonl",
        "another hand; scored once (73.8 %, coverage 83.7 %), then development",
        True,
    ),
)

#: The local model's replies to the translator over ``utterances.jsonl``, under ``data/``.
TRANSLATION_RECORDING = Path("recordings") / "01_smollm2_135m_translation.sqlite"

_HEADER = ("set", "written by", "n", "right", "refused or flagged", "wrong first",
           "accuracy", "of the rest refused", "coverage", "mean set size",
           "silently wrong singletons")  # fmt: skip


def translation_scores(
    vocabulary: Callable[[str], Vocabulary],
    *,
    data: str | os.PathLike[str] = DATA_DIR,
    sets: tuple[LabelledSet, ...] = SETS,
    progress: bool = False,
) -> dict[str, EvaluationResult]:
    """Evaluate the offline translator on each of *sets* that exists under
    ``data/translation/``, keyed by the set's path.

    Parameters
    ----------
    vocabulary : callable
        ``vocabulary(scene) -> Vocabulary`` for a row's ``scene``
        (:func:`safetychip.experiments.scene_vocabulary`).
    data : str or path
        The folder holding ``translation/``.
    sets : tuple of LabelledSet
        The sets to score (those that exist).
    progress : bool
        Show a progress bar over the sets.

    The sets are scored side by side, one process per core (the ``"processes"`` executor
    of :func:`~safetychip.experiments.run_cells`), so *vocabulary* must be a module-level
    function.
    """
    from ._executors import run_cells

    folder = Path(data) / "translation"
    cells = [{"id": s.path, "folder": str(folder)} for s in sets if (folder / s.path).is_file()]
    scored = run_cells(partial(_score_set, vocabulary), cells, executor="processes",
                       progress=progress, desc="labelled sets")  # fmt: skip
    results = {}
    for cell, record in zip(cells, scored):
        if "error" in record:
            raise RuntimeError(f"scoring {cell['id']} failed: {record['error']}")
        results[cell["id"]] = EvaluationResult(record["translator"], record["rows"],
                                               record["stand_in"])  # fmt: skip
    return results


@cache
def _retrieval() -> RetrievalTranslator:
    """The retrieval reader with every example, built once per process; its encoder runs on
    one thread, as the sets are scored one process per core."""
    from ..llm import MiniLMEmbedder

    return RetrievalTranslator(MiniLMEmbedder(threads=1))


def _score_set(vocabulary: Callable[[str], Vocabulary], cell: dict) -> dict:
    """Score the set ``cell["id"]`` under ``cell["folder"]``: the cell function of
    :func:`translation_scores`."""
    rows = load_utterances(Path(cell["folder"]) / cell["id"])
    # a set whose sentences are retrieval examples is scored without them
    own = _retrieval().leaving_out(r["id"] for r in rows)
    result = evaluate(partial(_translator, vocabulary, own), rows)
    return {"id": cell["id"], "translator": result.translator, "rows": result.rows,
            "stand_in": result.stand_in}  # fmt: skip


def _translator(
    vocabulary: Callable[[str], Vocabulary], retrieval: RetrievalTranslator, scene: str
) -> Translator:
    return Translator(vocabulary(scene), retrieval=retrieval)


def _counts(result: EvaluationResult) -> list[object]:
    right, refused, wrong = (sum(v[i] for v in result.outcomes().values()) for i in range(3))
    n = right + refused + wrong
    rest = refused + wrong
    return [n, right, refused, wrong, f"{right / n:.1%}", f"{refused / rest:.1%}" if rest else "–",
            f"{result.coverage():.1%}", f"{result.mean_set_size():.2f}",
            result.silent_singletons()]  # fmt: skip


def _replay_local_model(
    vocabulary: Callable[[str], Vocabulary], recording: Path, data: Path
) -> EvaluationResult:
    from ..llm import CachedModel, local_model

    model = CachedModel(local_model(), recording, mode="replay")
    rows = load_utterances(data / "translation" / SETS[0].path)
    return evaluate(
        lambda scene: Translator(vocabulary(scene), model=model, offline_readers=False), rows
    )


def write_translation_scores(
    folder: str | os.PathLike[str],
    vocabulary: Callable[[str], Vocabulary],
    *,
    data: str | os.PathLike[str] = DATA_DIR,
    progress: bool = False,
) -> list[Path]:
    """Write ``01_translation_scores.md`` into *folder* and return its path.

    Parameters
    ----------
    folder : str or path
        Where to write.
    vocabulary : callable
        As for :func:`translation_scores`.
    data : str or path
        The folder holding ``translation/`` and, when it was recorded,
        :data:`TRANSLATION_RECORDING`: the translator driven by the local model on
        ``utterances.jsonl``, replayed offline and reported under the model's name.
    progress : bool
        Show a progress bar over the sets.
    """
    results = translation_scores(vocabulary, data=data, progress=progress)
    recording = Path(data) / TRANSLATION_RECORDING
    local_model = (
        _replay_local_model(vocabulary, recording, Path(data)) if recording.is_file() else None
    )
    about = {s.path: s for s in SETS}
    rows = [[f"`{path}`", about[path].written_by, *_counts(r)] for path, r in results.items()]
    if local_model is not None:
        rows.append([f"`utterances.jsonl`, {local_model.translator} alone (replayed)",
                     "the project (beside the first grammar)", *_counts(local_model)])  # fmt: skip
    parts = [
        "# English to LTL: the translator's scores",
        "",
        "Written by `safetychip reproduce` (step `translation_scores`). A translation is a "
        "candidate set: the readings of the slot reader and of retrieval over "
        "all-MiniLM-L6-v2, language-equivalent ones pooled, each with a calibrated "
        "probability, most probable first (`data/translation/candidates.json`). A formula is "
        "right when it accepts exactly the traces of the label or of one of the label's "
        "`alternatives`. *Right*, *refused* (an empty set) and *wrong first* grade the first "
        "candidate; *coverage* is the share of sentences whose set holds a right formula; a "
        "*silently wrong singleton* is a set of one, probable enough to be accepted without a "
        "pick, that is wrong: the one outcome no person is asked about. Retrieval votes with "
        "our templates and with the sentences of the development sets by other hands "
        "(`examples.jsonl`); a set is scored with its own sentences left out of that library.",
        "",
        markdown_table(rows, _HEADER, "llrrrrrrrrr"),
    ]
    for path, result in results.items():
        if not about[path].written_by.startswith("another hand"):
            continue
        parts += ["", f"## `{path}` by pattern ({about[path].written_by})", "",
                  result.markdown()]  # fmt: skip
    target = Path(folder) / "01_translation_scores.md"
    atomic_write_text(target, "\n".join(parts) + "\n")
    return [target]
