"""A deterministic bag-of-words embedder: an offline stand-in for MiniLM in tests and doctests.

Its vectors hash each lower-case word to a fixed dimension, so commands sharing words are
similar and nothing needs torch; it is no language model, and its scores say nothing about
MiniLM's.

Examples
--------
>>> e = WordEmbedder()
>>> v = e.encode(["push the vase", "push the vase", "walk to the kitchen"])
>>> round(float(v[0] @ v[1]), 3), float(v[0] @ v[2]) < 0.5
(1.0, True)
"""

from __future__ import annotations

import re
import zlib

import numpy as np

from ..llm import Embedder

__all__ = ["WordEmbedder"]


class WordEmbedder(Embedder):
    """Unit-norm counts of hashed words (CRC-32 modulo *dim*).

    Parameters
    ----------
    dim : int
        The vectors' length.
    """

    def __init__(self, dim: int = 256) -> None:
        super().__init__(f"words-{dim}")
        self.size = dim

    def _embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self.size), np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                vectors[row, zlib.crc32(word.encode()) % self.size] += 1.0
        return vectors
