"""Benchmark caption embedding and retrieval at Vinoground's scale (issue 5).

Writes a synthetic VATEX-format corpus (9,000 videos x 5 English captions = 45,000 captions),
then measures in one run: plain ``SentenceTransformer.encode`` (fp32) against our Encoder
backends with their top-20 agreement, the cached second run, exact top-20 search for 1,000
queries with FAISS, and the process's peak memory.

    .venv/bin/python bench/bench_retrieval.py [--videos 9000] [--out bench/out/retrieval.json]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tempogen.io import write_json
from tempogen.retrieval.corpus import load_vatex
from tempogen.retrieval.embed import Encoder, benchmark
from tempogen.retrieval.search import build_index, search

SUBJECTS = [
    "a man",
    "a woman",
    "a boy",
    "a girl",
    "two people",
    "a child",
    "an old man",
    "a dog",
    "a group of friends",
    "a chef",
    "a teenager",
    "a musician",
    "a player",
    "a worker",
]
ACTIONS = [
    "plays the guitar",
    "rides a bike",
    "cooks pasta",
    "washes a car",
    "paints a wall",
    "throws a ball",
    "reads a book",
    "dances on a stage",
    "cuts vegetables",
    "swims in a pool",
    "fixes a tire",
    "climbs a rock",
    "walks a dog",
    "types on a laptop",
    "sweeps the floor",
    "pours water into a glass",
    "opens a door",
    "jumps on a trampoline",
    "skates down a ramp",
    "sings into a microphone",
    "folds laundry",
    "plants a tree",
    "kicks a football",
]
PLACES = [
    "in a park",
    "in the kitchen",
    "on the street",
    "at the beach",
    "in a gym",
    "at home",
    "in a garage",
    "on a field",
    "in a classroom",
    "by a lake",
    "in the snow",
    "at night",
]
EXTRAS = [
    "",
    "while talking",
    "very slowly",
    "and then smiles",
    "with a friend",
    "for a while",
    "in front of a crowd",
    "before leaving",
    "and laughs",
]


def synthetic_vatex(path: Path, videos: int, seed: int = 0) -> None:
    """VATEX-style JSON: ids ``<yt>_<start:06d>_<end:06d>``, 10 English captions each."""
    rng = np.random.default_rng(seed)
    alphabet = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
    items = []
    for _ in range(videos):
        yt = "".join(rng.choice(alphabet, 11))
        start = int(rng.integers(0, 500))
        caps = []
        for _ in range(10):
            parts = [
                rng.choice(SUBJECTS),
                rng.choice(ACTIONS),
                rng.choice(PLACES),
                rng.choice(EXTRAS),
            ]
            caps.append(" ".join(p for p in parts if p).strip() + ".")
        items.append({"videoID": f"{yt}_{start:06d}_{start + 10:06d}", "enCap": caps})
    path.write_text(json.dumps(items))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--videos", type=int, default=9000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--out", default="bench/out/retrieval.json")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tempogen-bench-retrieval-"))
    vatex = tmp / "vatex.json"
    synthetic_vatex(vatex, args.videos)
    corpus = load_vatex(vatex)
    texts = corpus.captions
    print(f"corpus: {len(texts):,} captions ({len(set(texts)):,} distinct)", flush=True)

    speeds = benchmark(texts, k=20, n_queries=500)
    enc = Encoder()
    cache = tmp / "cache"
    t0 = time.perf_counter()
    emb = enc.encode_corpus(corpus, cache_dir=cache)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    emb2 = enc.encode_corpus(corpus, cache_dir=cache)
    second = time.perf_counter() - t0
    assert np.array_equal(emb, emb2)
    queries = enc.encode(
        [f"{s} {a}" for s, a in zip(SUBJECTS * 100, ACTIONS * 100, strict=False)][: args.queries]
    )
    index = build_index(emb, "flat")
    t0 = time.perf_counter()
    search(index, queries, 20)
    search_s = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    res = {
        "captions": len(texts),
        "distinct": len(set(texts)),
        "speeds": speeds,
        "first_run_with_cache_write_s": first,
        "second_run_cached_s": second,
        f"exact_top20_{len(queries)}_queries_s": search_s,
        "peak_rss_mb": peak_mb,
        "command": " ".join(sys.argv),
    }
    write_json(args.out, res)
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
