"""Near-duplicate caption pairs: embedding neighbours (an exact FAISS range search) and Jaccard
neighbours of word multisets (thresholds and how they were chosen: :mod:`tempogen.retrieval.audit`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from tempogen.retrieval.events import words
from tempogen.retrieval.pairs import CaptionPair

if TYPE_CHECKING:
    from tempogen.retrieval.embed import Encoder


NEAR_DUPLICATE_THRESHOLD = 0.8
"""Jaccard index of two pairs' word multisets at or above which the later is a near-duplicate."""
EMBEDDING_THRESHOLD = 0.88
"""Cosine of two pair embeddings at or above which the later is a near-duplicate (see above)."""

NearDupMode = Literal["embedding", "jaccard", "off"]

NeighborFn = Callable[[Sequence[CaptionPair], float], Iterable[tuple[int, int, float]]]
"""Finds similar pairs: (pairs, threshold) -> (i, j, score) with i < j and score >= threshold.
The built-in ones are :func:`embedding_neighbors` and :func:`jaccard_neighbors`."""


def pair_vectors(
    pairs: Sequence[CaptionPair], encoder: Encoder, cache_dir: Any = None
) -> np.ndarray:
    """One unit vector per pair: the normalised sum of its pos and neg caption embeddings."""
    emb = encoder.encode_cached([c for p in pairs for c in (p.pos, p.neg)], cache_dir)
    vec = emb[0::2] + emb[1::2]
    vec /= np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12)
    return np.ascontiguousarray(vec, dtype=np.float32)


def embedding_neighbors(
    pairs: Sequence[CaptionPair],
    threshold: float = EMBEDDING_THRESHOLD,
    *,
    encoder: Encoder | None = None,
    cache_dir: str | Path | None = None,
) -> list[tuple[int, int, float]]:
    """All (i, j, cosine), i < j, of pairs whose embeddings (:func:`pair_vectors`) are at least
    ``threshold`` similar, by an exact FAISS inner-product range search."""
    import faiss

    from tempogen.retrieval.embed import shared_encoder

    if not -1 <= threshold <= 1:
        raise ValueError(f"threshold must be a cosine in [-1, 1], got {threshold}")
    if len(pairs) < 2:
        return []
    vec = pair_vectors(pairs, encoder or shared_encoder(), cache_dir)
    index = faiss.IndexFlatIP(vec.shape[1])
    index.add(vec)
    # faiss keeps scores strictly above the radius; the margin keeps ">= threshold" for equal
    # pairs whose cosine rounds to just under 1.0
    lims, scores, ids = index.range_search(vec, threshold - 1e-5)
    out = []
    for i in range(len(pairs)):
        for score, j in zip(scores[lims[i] : lims[i + 1]], ids[lims[i] : lims[i + 1]]):
            if i < j and score >= threshold - 1e-5:
                out.append((i, int(j), min(float(score), 1.0)))
    out.sort()
    return out


_OPPOSITES: tuple[tuple[str, str], ...] = (
    ("left", "right"),
    ("up", "down"),
    ("in", "out"),
    ("on", "off"),
    ("forward", "backward"),
    ("forwards", "backwards"),
    ("toward", "away"),
    ("clockwise", "counterclockwise"),
    ("upward", "downward"),
    ("above", "below"),
    ("into", "out"),
)


def opposite_directions(a: CaptionPair, b: CaptionPair) -> bool:
    """Whether one pair names a direction where the other names its opposite ("pans left" /
    "pans right"): sentence embeddings hardly tell these apart, so they are other pairs."""
    wa, wb = set(pair_items(a)), set(pair_items(b))
    return any(
        len(sa := wa & {x, y}) == 1 and len(sb := wb & {x, y}) == 1 and sa != sb
        for x, y in _OPPOSITES
    )


def pair_items(pair: CaptionPair) -> Counter[str]:
    """The pair's word multiset (pos and neg together): what near-duplicates compare."""
    return Counter(words(pair.pos)) + Counter(words(pair.neg))


def jaccard(a: Counter[str], b: Counter[str]) -> float:
    """Multiset Jaccard index: shared counts over total counts."""
    inter = sum((a & b).values())
    union = sum((a | b).values())
    return inter / union if union else 1.0


class NearDuplicateIndex:
    """Incremental exact search for pairs at Jaccard >= threshold, by prefix filtering.

    Every multiset becomes a set of (word, k-th occurrence) items ordered rarest first; two
    sets at Jaccard >= t must share an item among their first |x| - ceil(t|x|) + 1.
    """

    def __init__(self, pairs: Sequence[CaptionPair], threshold: float) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold
        self.items = [
            frozenset((w, k) for w, c in pair_items(p).items() for k in range(c)) for p in pairs
        ]
        df: Counter[tuple[str, int]] = Counter()
        for items in self.items:
            df.update(items)
        rank = {item: r for r, item in enumerate(sorted(df, key=lambda x: (df[x], x)))}
        self._prefixes = []
        for items in self.items:
            ordered = sorted(items, key=rank.__getitem__)
            keep = len(ordered) - math.ceil(threshold * len(ordered) - 1e-9) + 1
            self._prefixes.append(ordered[: max(keep, 1)])
        self._postings: dict[tuple[str, int], list[int]] = {}
        self.added: list[int] = []

    def query(self, i: int) -> list[tuple[int, float]]:
        """Already added pairs similar to pair ``i``, as (index, score), index order."""
        seen: set[int] = set()
        for item in self._prefixes[i]:
            seen.update(self._postings.get(item, ()))
        out = []
        a = self.items[i]
        for j in sorted(seen):
            b = self.items[j]
            inter = len(a & b)
            union = len(a) + len(b) - inter
            score = inter / union if union else 1.0
            if score >= self.threshold:
                out.append((j, score))
        return out

    def insert(self, i: int) -> None:
        for item in self._prefixes[i]:
            self._postings.setdefault(item, []).append(i)
        self.added.append(i)

    def add(self, i: int) -> bool:
        """Insert pair ``i`` unless it is similar to one already added; say whether added."""
        if self.query(i):
            return False
        self.insert(i)
        return True


def jaccard_neighbors(
    pairs: Sequence[CaptionPair], threshold: float = NEAR_DUPLICATE_THRESHOLD
) -> list[tuple[int, int, float]]:
    """All (i, j, score), i < j, whose word multisets have Jaccard >= threshold."""
    index = NearDuplicateIndex(pairs, threshold)
    out: list[tuple[int, int, float]] = []
    for j in range(len(pairs)):
        out.extend((i, j, score) for i, score in index.query(j))
        index.insert(j)
    return out
