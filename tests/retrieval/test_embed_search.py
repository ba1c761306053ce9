"""Encoder, cache, FAISS retrieval and the review log, on the bundled all-MiniLM-L6-v2."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from headless import require_tool

from tempogen.retrieval.corpus import Corpus, CorpusEntry
from tempogen.retrieval.embed import Encoder, ModelNotFoundError
from tempogen.retrieval.search import (
    build_index,
    load_reviews,
    recall_at_k,
    record_review,
    retrieve,
    review_history,
    write_candidates,
)

SUBJ = ["a man", "a woman", "a young boy", "a girl", "a chef", "an old man", "a dog", "a crowd"]
VERB = ["is playing", "is cutting", "throws", "picks up", "is riding", "washes", "paints", "kicks"]
OBJ = ["a guitar", "some onions", "a red ball", "a bicycle", "the dishes", "a fence", "a box"]
PLACE = ["in a park", "in the kitchen", "on the street", "at the beach", "in a gym", "on a stage"]
TARGET = "a man pours coffee into a cup, then stirs it with a spoon"
PARAPHRASE = "someone fills a mug with coffee and afterwards stirs it using a spoon"


def synthetic_corpus(n: int = 200, seed: int = 0) -> Corpus:
    rng = random.Random(seed)
    entries = [
        CorpusEntry(
            f"yt{i:04d}-_x_{i:06d}_{i + 10:06d}",
            f"{rng.choice(SUBJ)} {rng.choice(VERB)} {rng.choice(OBJ)} {rng.choice(PLACE)}",
            f"yt{i:04d}-_x",
            float(i),
            float(i + 10),
        )
        for i in range(n)
    ]
    entries.insert(n // 2, CorpusEntry("target_000003_000009", TARGET, "target", 3.0, 9.0))
    return Corpus(tuple(entries), source="synthetic")


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder()


@pytest.mark.slow  # loads the embedding model
def test_embeddings_normalized_and_deduplicated(encoder: Encoder) -> None:
    emb = encoder.encode(["a dog runs", "a cat sleeps", "a dog runs"])
    assert emb.dtype == np.float32 and emb.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(emb[0], emb[2])
    # same vectors as plain SentenceTransformer.encode
    ref = encoder.model.encode(["a cat sleeps"], normalize_embeddings=True)
    np.testing.assert_allclose(emb[1], ref[0], atol=1e-5)


@pytest.mark.slow  # loads the embedding model
def test_paraphrase_found_in_top20(encoder: Encoder, tmp_path: Path) -> None:
    corpus = synthetic_corpus()
    rows = retrieve([(PARAPHRASE, "a dog is kicking a red ball at the beach")], corpus, encoder)
    (r,) = rows
    assert r["pos"] == PARAPHRASE and len(r["pos_candidates"]) == 20
    top = [c["video_id"] for c in r["pos_candidates"]]
    assert "target_000003_000009" in top[:20]
    assert top[0] == "target_000003_000009"
    first = r["pos_candidates"][0]
    assert first["rank"] == 1 and (first["youtube_id"], first["start"], first["end"]) == (
        "target",
        3.0,
        9.0,
    )
    scores = [c["score"] for c in r["pos_candidates"]]
    assert scores == sorted(scores, reverse=True)
    assert "target_000003_000009" not in [c["video_id"] for c in r["neg_candidates"][:3]]
    # corpora without YouTube fields give None
    bare = Corpus(tuple(CorpusEntry(e.video_id, e.caption) for e in corpus))
    c0 = retrieve([(PARAPHRASE, TARGET)], bare, encoder, top_k=3)[0]["pos_candidates"][0]
    assert c0["youtube_id"] is None and c0["start"] is None
    out = tmp_path / "cand.jsonl"
    write_candidates(out, rows)
    assert out.read_text().count("\n") == 1


@pytest.mark.slow  # loads the embedding model
def test_cache_second_run_faster_and_identical(encoder: Encoder, tmp_path: Path) -> None:
    corpus = synthetic_corpus(600, seed=1)
    t0 = time.perf_counter()
    first = encoder.encode_corpus(corpus, tmp_path)
    t_first = time.perf_counter() - t0
    files = list(tmp_path.glob("emb-*.npy"))
    assert len(files) == 1 and not list(tmp_path.glob(".*.tmp"))
    t0 = time.perf_counter()
    second = encoder.encode_corpus(corpus, tmp_path)
    t_second = time.perf_counter() - t0
    print(f"\nencode {len(corpus)} captions: {t_first:.3f}s, cached load: {t_second:.4f}s")
    np.testing.assert_array_equal(first, second)
    assert t_second < t_first / 5
    # another corpus or another backend gets another key
    other = synthetic_corpus(600, seed=2)
    assert encoder.cache_path(other, tmp_path) != files[0]
    assert Encoder(backend="int8").cache_path(corpus, tmp_path) != files[0]


def test_hnsw_recall_against_exact() -> None:
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(50, 384))
    x = centers[rng.integers(0, 50, 4000)] + 0.6 * rng.normal(size=(4000, 384))
    x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    q = x[rng.choice(4000, 200, replace=False)] + 0.05 * rng.normal(size=(200, 384))
    q = (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)
    rep = recall_at_k(x, q, k=20, kind="hnsw")
    print(f"\nHNSW recall@20 vs exact on 4000 vectors: {rep['recall']:.4f} {rep}")
    assert rep["recall"] >= 0.95
    rep_ivf = recall_at_k(x, q, k=20, kind="ivf", nprobe=16)
    print(f"IVF recall@20 vs exact: {rep_ivf['recall']:.4f}")
    assert rep_ivf["recall"] >= 0.8
    assert recall_at_k(x, q, k=20, index=build_index(x, "flat"))["recall"] == 1.0


def test_review_file_keeps_history(tmp_path: Path) -> None:
    path = tmp_path / "reviews.jsonl"
    record_review(path, 0, "accept", "abc_000001_000005", "good match")
    record_review(path, 1, "reject", "xyz_000002_000006")
    before = path.read_text()
    record_review(path, 0, "reject", "abc_000001_000005", "on second look, wrong order")
    after = path.read_text()
    assert after.startswith(before)  # earlier lines kept byte for byte
    hist = review_history(path)
    assert [(h["seq"], h["pair_index"], h["decision"]) for h in hist] == [
        (0, 0, "accept"),
        (1, 1, "reject"),
        (2, 0, "reject"),
    ]
    latest = load_reviews(path)
    assert latest[0]["decision"] == "reject" and latest[0]["note"].startswith("on second")
    assert latest[1]["decision"] == "reject"
    with pytest.raises(ValueError, match="decision"):
        record_review(path, 0, "maybe", "abc")  # type: ignore[arg-type]
    assert path.read_text() == after


@pytest.mark.slow  # imports torch and the sentence model library
def test_unknown_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="not available locally"):
        Encoder("no-such-org/no-such-model-xyz").encode(["x"])
    not_a_folder = tmp_path / "weights.bin"
    not_a_folder.write_bytes(b"")
    with pytest.raises(ModelNotFoundError, match="model folder"):
        Encoder(not_a_folder)


@pytest.mark.slow  # loads the embedding model
def test_onnx_backend_matches_plain_fp32_and_needs_no_torch() -> None:
    """The default backend: same vectors as sentence-transformers (fp32), same tokens, and a
    fresh process encodes from the cached export without importing torch."""
    texts = [e.caption for e in synthetic_corpus(150, seed=4)] + [TARGET, PARAPHRASE, "x"]
    onnx = Encoder(backend="onnx")
    ref = Encoder(backend="torch")
    a, b = onnx.encode(texts), ref.encode(texts)
    assert a.shape == b.shape == (len(texts), 384) and onnx.dim == 384
    np.testing.assert_allclose(a, b, atol=1e-5)
    ids = ref.model.tokenizer(texts)["input_ids"]
    assert [e.ids for e in onnx.tokenizer.encode_batch(texts)] == ids
    assert onnx.onnx_path().is_file()
    code = (
        "import sys; from tempogen.retrieval.embed import Encoder; "
        "v = Encoder().encode(['a man eats then watches tv']); "
        "print(v.shape, 'torch' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.stdout.split() == ["(1,", "384)", "False"], run.stderr


@pytest.mark.slow  # loads the embedding model
def test_int8_backends_are_close_but_not_exact() -> None:
    texts = [e.caption for e in synthetic_corpus(100, seed=5)]
    ref = Encoder(backend="onnx").encode(texts)
    q8 = Encoder(backend="onnx-int8").encode(texts)
    cos = np.sum(ref * q8, axis=1)
    assert cos.min() > 0.95 and np.abs(ref - q8).max() > 1e-4
    assert Encoder(backend="onnx-int8").onnx_path().name == "model-int8.onnx"
    with pytest.raises(ValueError, match="backend must be one of"):
        Encoder(backend="fp16")  # type: ignore[arg-type]


@pytest.mark.slow
def test_onnx_export_is_written_once_and_reused(tmp_path: Path) -> None:
    enc = Encoder(onnx_dir=tmp_path)
    first = enc.encode(["a dog runs then sits"])
    (path,) = tmp_path.glob("*/model.onnx")
    stamp = path.stat().st_mtime_ns
    again = Encoder(onnx_dir=tmp_path).encode(["a dog runs then sits"])
    np.testing.assert_array_equal(first, again)
    assert path.stat().st_mtime_ns == stamp and not list(tmp_path.glob("*/.*.tmp"))


@pytest.mark.slow  # loads the embedding model
def test_encode_cached_reuses_the_file(encoder: Encoder, tmp_path: Path) -> None:
    texts = ["a dog runs then sits", "a cat sleeps", "a dog runs then sits"]
    first = encoder.encode_cached(texts, tmp_path)
    (path,) = tmp_path.glob("emb-*.npy")
    path.write_bytes(b"damaged")  # a damaged cache file is recomputed, not trusted
    np.testing.assert_array_equal(encoder.encode_cached(texts, tmp_path), first)
    stamp = path.stat().st_mtime_ns
    np.testing.assert_array_equal(encoder.encode_cached(texts, tmp_path), first)
    assert path.stat().st_mtime_ns == stamp
    assert encoder.encode_cached(texts[:2], tmp_path).shape == (2, 384)
    assert len(list(tmp_path.glob("emb-*.npy"))) == 2


@pytest.mark.slow
def test_first_export_and_run_make_no_telemetry_lookup(tmp_path):
    strace = require_tool("strace")  # watches the DNS queries
    # issue 13 item 13: onnxruntime's 1DS telemetry looked up mobile.events.data.microsoft.com
    script = (
        "from tempogen.retrieval.embed import Encoder\n"
        "print(Encoder().encode(['a man eats then watches tv']).shape)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORT_")}
    env["TEMPOGEN_CACHE"] = str(tmp_path / "cache")  # a fresh export, as on a first run
    log = tmp_path / "strace.log"
    proc = subprocess.run(
        [strace, "-f", "-e", "trace=sendto,connect", "-o", str(log), sys.executable, "-c", script],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "cache").exists()
    sent = log.read_text()
    assert "events" not in sent and "microsoft" not in sent
