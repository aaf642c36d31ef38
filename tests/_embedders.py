"""Deterministic embedders for tests (not models): what a test needs from MiniLM is vectors
that are close for sentences sharing words, without loading a model."""

from __future__ import annotations

import numpy as np

from safetychip.llm import Embedder


class WordsEmbedder(Embedder):
    """A deterministic test stand-in for MiniLM (not a model): hashed bags of words."""

    def __init__(self):
        super().__init__("bag-of-words test stand-in")

    def _embed(self, texts):
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace(",", " ").split():
                out[i, sum(map(ord, w)) % 64] += 1
        return out
