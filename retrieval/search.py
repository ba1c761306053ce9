"""Top-k caption retrieval with FAISS (exact inner product by default) and a review log.

Vinoground (Sec. 3.2) retrieves the top 20 VATEX captions for each generated caption and has a
person accept or reject them; ``retrieve`` produces those candidates, ``record_review`` the log.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

import faiss
import numpy as np

from tempogen.errors import ConfigurationError, InputFileError
from tempogen.io import dumps, read_jsonl_lines, write_jsonl, write_text
from tempogen.retrieval.no_match import NO_MATCH_THRESHOLD

if TYPE_CHECKING:
    from tempogen.retrieval.corpus import Corpus
    from tempogen.retrieval.embed import Encoder

__all__ = [
    "Candidate",
    "RetrievalRow",
    "IndexKind",
    "build_index",
    "gpu_available",
    "load_reviews",
    "read_query_pairs",
    "recall_at_k",
    "record_review",
    "retrieve",
    "review_history",
    "retrieval_summary",
    "search",
    "summary_line",
    "write_candidates",
]

IndexKind = Literal["flat", "hnsw", "ivf"]

MAX_TOP_K = 1_000
"""The most candidates per caption ``retrieve`` gives (Vinoground reviews 20)."""


def gpu_available() -> bool:
    """True when this faiss build has GPU support and sees at least one GPU."""
    try:
        return hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus() > 0
    except Exception:  # a faiss-gpu build without a usable driver
        return False


def build_index(
    emb: np.ndarray,
    kind: IndexKind = "flat",
    *,
    use_gpu: bool | None = None,
    hnsw_m: int = 32,
    ef_construction: int = 80,
    ef_search: int = 128,
    nlist: int | None = None,
    nprobe: int = 16,
) -> faiss.Index:
    """Inner-product index over unit vectors: exact ``flat`` (IndexFlatIP), or approximate
    ``hnsw`` / ``ivf``; flat and ivf move to a GPU when faiss-gpu sees one (use_gpu=None)."""
    x = np.ascontiguousarray(emb, dtype=np.float32)
    if x.ndim != 2 or len(x) == 0:
        raise ValueError(f"need a non-empty (n, d) embedding matrix, got shape {x.shape}")
    d = x.shape[1]
    if kind == "flat":
        index: faiss.Index = faiss.IndexFlatIP(d)
    elif kind == "hnsw":
        index = faiss.IndexHNSWFlat(d, hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = ef_construction
        index.hnsw.efSearch = ef_search
    elif kind == "ivf":
        # ~4 sqrt(n) lists, but at least 39 training points per list (faiss's minimum)
        nlist = nlist or max(1, min(4096, int(4 * np.sqrt(len(x))), len(x) // 39))
        nlist = min(nlist, len(x))
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(d), d, nlist, faiss.METRIC_INNER_PRODUCT)
        index.train(x)
        index.nprobe = min(nprobe, nlist)
    else:
        raise ValueError(f"index kind must be flat, hnsw or ivf, got {kind!r}")
    if (use_gpu if use_gpu is not None else gpu_available()) and kind != "hnsw":
        if not gpu_available():
            raise RuntimeError("use_gpu=True but faiss has no GPU support or sees no GPU")
        index = faiss.index_cpu_to_gpu(faiss.StandardGpuResources(), 0, index)
    index.add(x)
    return index


def search(index: faiss.Index, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(scores, ids) of the top ``k`` per query, best first; ids are -1 past the corpus end."""
    q = np.ascontiguousarray(queries, dtype=np.float32)
    return index.search(q, min(k, index.ntotal))


def recall_at_k(
    emb: np.ndarray, queries: np.ndarray, k: int = 20, index: faiss.Index | None = None, **kw: Any
) -> dict[str, float]:
    """Recall@k of an approximate index (default HNSW) against exact IndexFlatIP, with timings."""
    exact = build_index(emb, "flat", use_gpu=False)
    t0 = time.perf_counter()
    approx = index if index is not None else build_index(emb, kw.pop("kind", "hnsw"), **kw)
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    _, ids_exact = search(exact, queries, k)
    t_exact = time.perf_counter() - t0
    t0 = time.perf_counter()
    _, ids_approx = search(approx, queries, k)
    t_approx = time.perf_counter() - t0
    hits = [
        len(set(a[a >= 0]) & set(e[e >= 0])) / max(1, (e >= 0).sum())
        for a, e in zip(ids_approx, ids_exact)
    ]
    return {
        "recall": float(np.mean(hits)),
        "k": float(k),
        "build_s": t_build,
        "exact_search_s": t_exact,
        "approx_search_s": t_approx,
    }


class Candidate(TypedDict):
    """One corpus caption retrieved for a pair's caption (a line of ``candidates.jsonl``)."""

    rank: int  # 1 = best
    score: float  # cosine similarity, rounded to 6 places
    matched: bool  # at or above the no-match threshold
    video_id: str
    youtube_id: str | None
    start: float | None
    end: float | None
    caption: str


class RetrievalRow(TypedDict):
    """What :func:`retrieve` finds for one (positive, negative) caption pair. A ``TypedDict``
    so it is written as JSON as it is, keys in this order."""

    pair_index: int
    pos: str
    neg: str
    pos_candidates: list[Candidate]
    neg_candidates: list[Candidate]
    pos_no_match: bool  # no positive candidate matched
    neg_no_match: bool
    discriminating: bool  # the two captions match different clips
    no_match_threshold: float


def retrieve(
    pairs_pos_neg: Sequence[tuple[str, str]],
    corpus: Corpus,
    encoder: Encoder,
    top_k: int = 20,
    *,
    index: IndexKind = "flat",
    cache_dir: str | os.PathLike[str] | None = None,
    corpus_emb: np.ndarray | None = None,
    no_match_threshold: float = NO_MATCH_THRESHOLD,
) -> list[RetrievalRow]:
    """Top-``top_k`` corpus captions for each pair's positive and negative caption.

    One row per pair: {pair_index, pos, neg, pos_candidates, neg_candidates, pos_no_match,
    neg_no_match, discriminating, no_match_threshold}, where a candidate is {rank, score,
    matched, video_id, youtube_id, start, end, caption}, best first. A candidate scoring below
    ``no_match_threshold`` (cosine; see :mod:`tempogen.retrieval.threshold`) is not a match,
    and a side whose best candidate is none has no match in the corpus. A pair whose two
    captions match the same clips (the same video ids among the matched candidates; none on
    either side counts as the same) is not discriminating.
    """
    if len(corpus) == 0:
        raise InputFileError(f"corpus {corpus.source or '(unnamed)'}: holds no captions")
    if not 1 <= top_k <= MAX_TOP_K:
        raise ConfigurationError(f"--top-k: must be within 1..{MAX_TOP_K}, got {top_k}")
    for i, pair in enumerate(pairs_pos_neg):
        if len(pair) != 2 or not all(isinstance(c, str) and c.strip() for c in pair):
            raise InputFileError(
                f"pair {i + 1}: expected (pos, neg) non-empty strings, got {pair!r}"
            )
    emb = corpus_emb if corpus_emb is not None else encoder.encode_corpus(corpus, cache_dir)
    if emb.shape[0] != len(corpus):
        raise ValueError(f"{emb.shape[0]} embeddings for a corpus of {len(corpus)} entries")
    idx = build_index(emb, index)
    texts = [c for pair in pairs_pos_neg for c in pair]
    if not texts:
        return []
    scores, ids = search(idx, encoder.encode(texts), top_k)

    def candidates(row: int) -> list[Candidate]:
        out = []
        for rank, (s, j) in enumerate(zip(scores[row], ids[row]), 1):
            if j < 0:
                continue
            found = {
                "rank": rank,
                "score": round(float(s), 6),
                "matched": bool(s >= no_match_threshold),
                **corpus[int(j)].as_dict(),
            }
            out.append(cast(Candidate, found))
        return out

    rows: list[RetrievalRow] = []
    for i, (pos, neg) in enumerate(pairs_pos_neg):
        pos_c, neg_c = candidates(2 * i), candidates(2 * i + 1)
        rows.append(
            RetrievalRow(
                pair_index=i,
                pos=pos,
                neg=neg,
                pos_candidates=pos_c,
                neg_candidates=neg_c,
                pos_no_match=not any(c["matched"] for c in pos_c),
                neg_no_match=not any(c["matched"] for c in neg_c),
                discriminating=_matched_ids(pos_c) != _matched_ids(neg_c),
                no_match_threshold=no_match_threshold,
            )
        )
    return rows


def read_query_pairs(path: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """The (pos, neg) caption pairs of a JSON-lines file to retrieve for; a row without two
    non-empty captions, or a file with none, is an :class:`InputFileError` naming it."""
    pairs = []
    for line, r in read_jsonl_lines(path):
        for key in ("pos", "neg"):
            if not isinstance(r.get(key), str) or not r[key].strip():
                raise InputFileError(
                    f"{path}:{line}: {key}: needs a non-empty caption (a pair is 'pos' and 'neg')"
                )
        pairs.append((r["pos"], r["neg"]))
    if not pairs:
        raise InputFileError(f"{path}: no caption pairs in this file")
    return pairs


def _matched_ids(candidates: list[Candidate]) -> set[str]:
    """The video ids of the candidates at or above the no-match threshold."""
    return {c["video_id"] for c in candidates if c["matched"]}


def retrieval_summary(rows: Sequence[RetrievalRow]) -> dict[str, Any]:
    """Counts over :func:`retrieve` rows: pairs, pairs with no match on either side (both
    captions below the threshold), on one side only, and pairs whose two captions retrieve the
    same clips or none (not discriminating), with the threshold used."""
    both = sum(r["pos_no_match"] and r["neg_no_match"] for r in rows)
    return {
        "pairs": len(rows),
        "no_match_threshold": rows[0]["no_match_threshold"] if rows else NO_MATCH_THRESHOLD,
        "pairs_no_match": both,
        "pairs_one_side_no_match": sum(r["pos_no_match"] != r["neg_no_match"] for r in rows),
        "pairs_not_discriminating": sum(not r["discriminating"] for r in rows),
    }


def summary_line(summary: dict[str, Any]) -> str:
    """One line for a terminal or a report: the threshold and what it flagged."""
    return (
        f"no-match threshold {summary['no_match_threshold']:.3f} (cosine): "
        f"{summary['pairs_no_match']}/{summary['pairs']} pairs have no match on either side, "
        f"{summary['pairs_one_side_no_match']} on one side; "
        f"{summary['pairs_not_discriminating']} not discriminating (both captions retrieve "
        "the same clips, or none)"
    )


def write_candidates(path: str | os.PathLike[str], rows: Sequence[RetrievalRow]) -> None:
    """Write retrieval rows as JSON lines, atomically."""
    write_jsonl(path, rows)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock beside ``path`` so two reviewers never drop each other's lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def record_review(
    path: str | os.PathLike[str],
    pair_index: int,
    decision: Literal["accept", "reject"],
    video_id: str,
    note: str = "",
    *,
    side: Literal["pos", "neg"] | None = None,
) -> dict[str, Any]:
    """Append one review decision; the file is rewritten atomically with every earlier line
    kept byte for byte, so history is never lost. Returns the recorded row."""
    if decision not in ("accept", "reject"):
        raise ValueError(f"decision must be 'accept' or 'reject', got {decision!r}")
    if isinstance(pair_index, bool) or not isinstance(pair_index, int) or pair_index < 0:
        raise ValueError(f"pair_index must be a non-negative int, got {pair_index!r}")
    if side not in (None, "pos", "neg"):
        raise ValueError(f"side must be 'pos', 'neg' or None, got {side!r}")
    path = Path(path)
    with _locked(path):
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old and not old.endswith("\n"):
            old += "\n"
        seq = sum(1 for line in old.splitlines() if line.strip())
        row = {
            "seq": seq,
            "pair_index": pair_index,
            "side": side,
            "decision": decision,
            "video_id": video_id,
            "note": note,
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        write_text(path, old + dumps(row) + "\n")
    return row


def review_history(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every review row in file order (empty when the file does not exist yet); a bad line is
    an :class:`InputFileError` naming ``file:line`` (:func:`tempogen.io.read_jsonl_lines`)."""
    path = Path(path)
    if not path.exists():
        return []
    rows = []
    for n, row in read_jsonl_lines(path):
        if isinstance(row.get("pair_index"), bool) or not isinstance(row.get("pair_index"), int):
            raise InputFileError(f"{path}:{n}: pair_index: expected an integer")
        rows.append(row)
    return rows


def load_reviews(path: str | os.PathLike[str]) -> dict[int, dict[str, Any]]:
    """The latest decision per pair: {pair_index: row}."""
    return {int(row["pair_index"]): row for row in review_history(path)}
