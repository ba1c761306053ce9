"""Encoder backends against plain sentence-transformers: speed, and how far each backend's
top-k lists agree with fp32 (BENCHMARKS.md section 4)."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tempogen.retrieval.embed_models import (
    forbid_hub_access,
    resolve_model_path,
    usable_cores,
)

if TYPE_CHECKING:
    from tempogen.retrieval.embed_models import Backend


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

    from tempogen.retrieval.embed import Encoder  # the module that imports this one

    forbid_hub_access()
    from sentence_transformers import SentenceTransformer

    texts = list(texts)
    say = log or (lambda msg: None)
    t0 = time.perf_counter()
    plain = SentenceTransformer(str(resolve_model_path(None)), device="cpu")
    plain.encode(texts[:64])  # warm-up, as the Encoders below are warmed
    load = {"plain_fp32": time.perf_counter() - t0}
    encoders: dict[str, Encoder] = {}  # by backend name, looked up by every timed name
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
        "encoder_threads": usable_cores(),
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
