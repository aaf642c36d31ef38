r"""``safetychip translate``: English constraints to grounded formulas, as JSON.

Registered in :data:`safetychip.cli.COMMAND_MODULES`; heavy imports happen in ``run``.

Examples
--------
>>> from safetychip.cli import main
>>> main(["translate", "Never pick up the phone", "--scene", "spot_demo", "--no-embed",
...       "--indent", "1"])  # doctest: +ELLIPSIS
{
 "sentence": "Never pick up the phone",
...
 "formula": "G!\"is_grabbed(phone)\"",
...
0
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from .._io import read_json
from ._common import (
    EXIT_INPUT,
    EXIT_OK,
    Command,
    InputError,
    add_model_arguments,
    error,
    model_from_args,
)

if TYPE_CHECKING:
    pass

__all__ = ["COMMANDS"]


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "sentence",
        nargs="?",
        default="-",
        metavar="SENTENCE",
        help="one constraint in English; omit it or give '-' for batch mode "
        '(JSON lines {"sentence": ...} on stdin)',
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--scene",
        metavar="SCENE",
        help="the vocabulary of a scene: apartment_1, apartment_2, spot_demo, or a scene JSON file",
    )
    where.add_argument(
        "--vocabulary",
        metavar="FILE",
        help="a text file with one name per line, instead of a scene",
    )
    add_model_arguments(p)
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="T",
        help="least cosine similarity for grounding an expression that matches no "
        "name (default 0.65)",
    )
    p.add_argument(
        "--no-embed",
        action="store_true",
        help="never embed: an expression that matches no name is an error",
    )
    p.add_argument(
        "--evaluate",
        nargs="?",
        const="",
        default=None,
        metavar="FILE",
        help="evaluate on labelled utterances (default: data/translation/"
        "utterances.jsonl) and print, per pattern and family, the first candidate's right / "
        "refused / wrong counts and the candidate sets' coverage, mean size and silently "
        "wrong singletons",
    )
    p.add_argument(
        "--split",
        default="all",
        metavar="SPLIT",
        help="with --evaluate: only the rows of this split, e.g. dev or test (default: all)",
    )
    p.add_argument(
        "--pick",
        type=int,
        metavar="N",
        help="take candidate N of the sentence's candidate set (numbered from 1, as printed); "
        "after a refusal, N numbers the readings the readers considered",
    )
    p.add_argument(
        "--confidence",
        type=float,
        default=None,
        metavar="P",
        help="least probability at which a set of one candidate is accepted without a pick "
        "(default 0.9)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON even on a terminal (the default when stdout is piped)",
    )
    p.add_argument("--indent", type=int, metavar="N", help="indent the JSON by N spaces")


def _translator(args: argparse.Namespace, vocabulary: Any, **options: Any) -> Any:
    from ..translate import Translator

    options["model"] = model_from_args(args)
    if args.no_embed:
        options["embedder"] = None
    if args.threshold is not None:
        options["threshold"] = args.threshold
    if args.confidence is not None:
        options["confidence"] = args.confidence
    return Translator(vocabulary, **options)


def _run(args: argparse.Namespace) -> int:
    from ..errors import SafetyChipError
    from ..experiments import scene_vocabulary
    from ..translate import Vocabulary

    if args.evaluate is not None:
        return _evaluate(args)
    if args.scene is None and args.vocabulary is None:
        raise ValueError("say which names to ground in: --scene SCENE or --vocabulary FILE")
    vocabulary = (
        Vocabulary.from_file(args.vocabulary) if args.vocabulary else scene_vocabulary(args.scene)
    )
    translator = _translator(args, vocabulary)
    if args.sentence != "-":
        answer = _with_read_back(_picked(translator, args.sentence, args.pick), vocabulary)
        if args.json or args.indent is not None or not sys.stdout.isatty():
            sys.stdout.write(json.dumps(answer, indent=args.indent, ensure_ascii=False) + "\n")
        else:
            sys.stdout.write(_human(answer))
        return EXIT_OK
    failed = 0
    for number, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            item = read_json(line, "", InputError)
            if not isinstance(item, dict) or not isinstance(item.get("sentence"), str):
                raise ValueError('expected an object {"sentence": "..."}')
            pick = item.get("pick", args.pick)
            answer = {
                "line": number,
                **_with_read_back(_picked(translator, item["sentence"], pick), vocabulary),
            }
        except (SafetyChipError, ValueError) as err:
            failed += 1
            answer = {"line": number, "error": str(err), "type": type(err).__name__}
            error("translate", f"line {number}: {err}")
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return EXIT_INPUT if failed else EXIT_OK


def _picked(translator: Any, sentence: str, pick: object) -> Any:
    """The translation of *sentence*, with candidate *pick* (numbered from 1) taken when
    given; after a refusal, *pick* numbers the readings the readers considered.

    Raises
    ------
    ValueError
        If *pick* is not a whole number.
    """
    from ..errors import OutOfGrammarError

    if pick is None:
        return translator(sentence)
    if isinstance(pick, bool) or not isinstance(pick, int):
        raise ValueError(f"pick must be a candidate number such as 1, got {pick!r}")
    try:
        translation = translator(sentence)
    except OutOfGrammarError as err:
        if not getattr(err, "considered", ()):
            raise
        translation = translator.translate(sentence, keep_all=True)
    count = len(translation.candidates)
    if not 1 <= pick <= count:
        raise ValueError(f"--pick {pick}: {sentence!r} has {count} candidate"
                         f"{'s' if count != 1 else ''}: pick one of 1 to {count}")  # fmt: skip
    return translation.choose(pick - 1)


def _with_read_back(translation: Any, vocabulary: Any) -> dict:
    """The translation's JSON with what a person checks it by: the formula read back in
    English (a class name of *vocabulary* with its instances) and the shortest accepted and
    rejected traces in the scene's words."""
    from ..translate import back_translate, witnesses

    accepted, rejected = witnesses(translation.formula)
    return {
        **translation.to_dict(),
        "back_translation": back_translate(translation.formula, vocabulary=vocabulary).text,
        "accepted_trace": accepted.text if accepted is not None else None,
        "rejected_trace": rejected.text if rejected is not None else None,
    }


def _human(answer: dict) -> str:
    """The read-back for a person at a terminal.

    >>> print(_human({"sentence": "s", "formula": "G!a", "pattern": "never",
    ...               "translator": "t", "stand_in": False, "back_translation": "Never a.",
    ...               "accepted_trace": "start: satisfies", "rejected_trace": None,
    ...               "grounding": [], "parts": []}), end="")
    sentence      s
    formula       G!a   (never; t)
    reads back    Never a.
    satisfied by  start: satisfies
    violated by   (no trace violates it)
    """
    rows = [
        ("sentence", answer["sentence"]),
        ("formula", f"{answer['formula']}   ({answer['pattern'] or 'no pattern'}; "
                    f"{answer['translator']}{', offline stand-in' if answer['stand_in'] else ''})"),
        ("reads back", answer["back_translation"]),
        ("satisfied by", answer["accepted_trace"] or "(no trace satisfies it)"),
        ("violated by", answer["rejected_trace"] or "(no trace violates it)"),
    ]  # fmt: skip
    rows += [
        ("grounded", f"{g['expression']!r} -> {g['name']} ({g['method']}, {g['score']:.2f})")
        for g in answer["grounding"]
        if g["method"] != "exact"
    ]
    rows += [("part", f"{p['formula']}   {p['sentence']}") for p in answer["parts"]]
    rows += [
        ("respelled", f"{c['written']!r} read as {c['read']!r}")
        for c in answer.get("corrections", ())
    ]
    rows += [("set aside", r["note"]) for r in answer.get("set_aside", ())]
    rows += _candidate_rows(answer)
    return "".join(f"{k:<13} {v}\n" for k, v in rows)


def _candidate_rows(answer: dict) -> list[tuple[str, str]]:
    r"""The candidate set for a person: numbered readings, the traces that tell them apart,
    and whether the formula is settled or waits for a pick.

    >>> rows = _candidate_rows({"settled": False, "picked": None, "candidates": [
    ...     {"number": 1, "formula": "G!a", "pattern": "never", "probability": 0.6,
    ...      "back_translation": "Never a.", "distinguishing": [
    ...          {"other": 2, "trace": "start with a: reading 1 forbids it"}]},
    ...     {"number": 2, "formula": "F!a", "pattern": None, "probability": 0.3,
    ...      "back_translation": "At some point not a.", "distinguishing": []}]})
    >>> print("".join(f"{k:<13} {v}\n" for k, v in rows), end="")
    candidate 1   G!a   (never; probability 0.60)  Never a.
    candidate 2   F!a   (no pattern; probability 0.30)  At some point not a.
    1 or 2?       start with a: reading 1 forbids it
    status        not settled: pick one with --pick N
    """
    found = answer.get("candidates") or []
    rows = []
    for c in found:
        p = "uncalibrated" if c["probability"] is None else f"probability {c['probability']:.2f}"
        pattern = c["pattern"] or "no pattern"
        rows.append((f"candidate {c['number']}",
                     f"{c['formula']}   ({pattern}; {p})  {c['back_translation']}"))  # fmt: skip
    for c in found:
        rows += [(f"{c['number']} or {d['other']}?", d["trace"])
                 for d in c["distinguishing"] if d["other"] > c["number"]]  # fmt: skip
    if answer.get("picked") is not None:
        rows.append(("status", f"candidate {answer['picked'] + 1} picked"))
    elif found:
        rows.append(("status", "settled: one candidate, probable enough" if answer["settled"]
                     else "not settled: pick one with --pick N"))  # fmt: skip
    return rows


def _evaluate(args: argparse.Namespace) -> int:
    from ..experiments import scene_vocabulary
    from ..translate import UTTERANCES, RetrievalTranslator, evaluate, load_utterances

    rows = load_utterances(args.evaluate or UTTERANCES, split=args.split)
    # a set by other hands whose sentences are retrieval examples is scored without them
    retrieval = RetrievalTranslator(None if args.no_embed else "minilm")
    retrieval = retrieval.leaving_out(r["id"] for r in rows)
    result = evaluate(
        lambda scene: _translator(args, scene_vocabulary(scene), retrieval=retrieval), rows
    )
    summary = result.to_dict()
    summary["rows"] = [r for r in summary["rows"] if not r["correct"]]
    sys.stdout.write(json.dumps(summary, indent=args.indent, ensure_ascii=False) + "\n")
    print(result.table(), file=sys.stderr)
    print(result.scores(), file=sys.stderr)
    print(result.set_scores(), file=sys.stderr)
    return EXIT_OK


_EPILOG = """\
On a terminal, one sentence prints its read-back: the formula, the formula read back in
English, and the shortest traces that satisfy and violate it, in the scene's words.

JSON output (--json, or whenever stdout is piped; one object per sentence): sentence,
translator ("offline-slots", "offline-retrieval-minilm" or the model's name),
stand_in (true if an offline stand-in answered: not an LLM result), expressions
(recognised spans), grounding (expression, name, score, method: exact, spelling or
embedding, nearest candidates), lifted (sentence with placeholders [a], [b], the lifted
formula, the placeholders), formula (grounded, Spot syntax), parts (one constraint per
thing of a list), corrections (misspelt words read as names), set_aside (clauses left out
as a reason or a remark: they hold no rule and are about something outside the scene),
pattern, family, back_translation, accepted_trace and rejected_trace; then the candidate
set: candidates (each with number, formula, pattern, probability -- calibrated, null for a
language model's reading --, readers, back_translation, and distinguishing: for each other
candidate, the shortest trace on which the two disagree), settled (true when one candidate
is probable enough to be accepted without a pick) and picked. A formula that is not settled
is not enforced until a person picks it: --pick N, or "pick": N in a batch line.

Batch mode (no SENTENCE): each stdin line {"sentence": "..."} gets one output line with its
"line" number; a bad line gives {"line": N, "error": "...", "type": "..."} and the batch
goes on. --evaluate FILE scores any labelled JSON lines file (sentence, scene, formula and
optionally pattern) by language equivalence: JSON on stdout, with the rows that failed; on
stderr a table per pattern and the counts right / refused or flagged ambiguous / silently
wrong.

exit status: 0 translated; 2 bad input or a sentence that could not be translated (batch:
some line failed)

examples:
  safetychip translate "Never pick up the phone" --scene apartment_1
  safetychip translate "Don't enter the kitchen before the bathroom" --vocabulary names.txt
  echo '{"sentence": "Visit the statue before the TV"}' | safetychip translate --scene spot_demo
  safetychip translate --evaluate --split test
  safetychip translate "Stay out of the bathroom" --scene apartment_2 --model gpt-4o-mini
"""


COMMANDS = (
    Command(
        "translate",
        "English constraints to grounded finite-trace LTL formulas (JSON)",
        _configure,
        _run,
        epilog=_EPILOG,
        description="Translate one English constraint (or JSON lines on stdin) into a\n"
        "grounded finite-trace LTL formula over a scene's vocabulary: recognise the referring\n"
        "expressions, ground them, lift, translate (offline slot reader and retrieval, or\n"
        "--model), assemble and check.",
    ),
)
