"""The caption-retrieval stage of ``make dataset``: offline caption pairs, their audit, and the
top-k candidate clips for each caption among the dataset's own clips (``library:`` corpus).

Everything lands in ``<dataset>/retrieval/``: ``pairs.jsonl``, ``audit.jsonl`` (one verdict per
pair) and ``audit_summary.txt``, ``candidates.jsonl`` (the ``tempogen retrieve`` format),
``summary.json`` (counts; the build hears the seconds per step) and ``index.html`` (the pairs with their
verdicts and candidate clips). No network; deterministic per seed. The stage is one unit of
work (``tempogen.resume``), recorded in ``retrieval/record.json`` and keyed by its config, the
seed, the embedding model and the manifest's bytes: a rerun on the same inputs reuses it whole.
Embeddings are also cached in ``retrieval/.emb_cache`` keyed by model and content.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tempogen.io import write_json, write_jsonl, write_text
from tempogen.resume import commit, lookup, spec_hash

if TYPE_CHECKING:
    from tempogen.config import RetrievalConfig
    from tempogen.retrieval.embed import Encoder

RETRIEVAL_DIR = "retrieval"
STEPS = ("pairs", "audit", "library", "search")
RECORD = "record.json"
# Bump when the stage writes something else for the same inputs: a rerun then redoes it.
# 2: candidates marked matched / no match, pairs discriminating; 3: no absolute folder or
# timings in the record and page, so a dataset's bytes do not depend on where or how fast
RETRIEVAL_VERSION = 3
FILES = {
    "pairs": "pairs.jsonl",
    "audit": "audit.jsonl",
    "audit_summary": "audit_summary.txt",
    "candidates": "candidates.jsonl",
    "page": "index.html",
}


def build_retrieval(
    out_dir: str | Path,
    cfg: RetrievalConfig,
    seed: int,
    *,
    encoder: Encoder | None = None,
    on_step: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run the stage for the dataset in ``out_dir`` (its manifest written), or reuse its last
    run on the same inputs; return the summary (``retrieval/summary.json`` plus ``reused``,
    and the seconds each step took when it ran). ``on_step`` hears each finished (or reused) step."""
    from tempogen.retrieval.audit import audit_pairs, report_rows, summary_table
    from tempogen.retrieval.captions import offline_pairs, write_pairs
    from tempogen.retrieval.corpus import load_library
    from tempogen.retrieval.embed import shared_encoder
    from tempogen.retrieval.search import retrieval_summary, retrieve, write_candidates
    from tempogen.retrieval.threshold import NO_MATCH_THRESHOLD
    from tempogen.video import sha256_file

    out = Path(out_dir)
    folder = out / RETRIEVAL_DIR
    cache = folder / ".emb_cache"
    enc = encoder or shared_encoder()
    spec = {
        "config": asdict(cfg),
        "seed": seed,
        "model": enc.model_id,
        "manifest": sha256_file(out / "manifest.jsonl"),
    }
    key = spec_hash(spec, RETRIEVAL_VERSION)
    outputs = [folder / name for name in (*FILES.values(), "summary.json")]
    done = lookup(folder / RECORD, key, outputs)
    if done is not None:
        for name in STEPS:
            if on_step is not None:
                on_step(name)
        return {**done["summary"], "reused": True}
    seconds: dict[str, float] = {}
    clock = time.perf_counter()

    def step(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        seconds[name] = round(now - clock, 3)
        clock = now
        if on_step is not None:
            on_step(name)

    pairs = offline_pairs(cfg.pairs, seed=seed, encoder=enc)
    write_pairs(folder / FILES["pairs"], pairs)
    step("pairs")
    verdicts = audit_pairs(pairs, encoder=enc, cache_dir=cache)
    write_jsonl(folder / FILES["audit"], report_rows(pairs, verdicts))
    write_text(folder / FILES["audit_summary"], summary_table(verdicts))
    step("audit")
    corpus = load_library(out)
    emb = enc.encode_corpus(corpus, cache)
    step("library")
    threshold = NO_MATCH_THRESHOLD if cfg.no_match_threshold is None else cfg.no_match_threshold
    rows = retrieve(
        [(p.pos, p.neg) for p in pairs],
        corpus,
        enc,
        cfg.top_k,
        cache_dir=cache,
        corpus_emb=emb,
        no_match_threshold=threshold,
    )
    write_candidates(folder / FILES["candidates"], rows)
    step("search")
    summary = {
        "pairs": len(pairs),
        "pairs_ok": sum(v.ok for v in verdicts),
        "top_k": cfg.top_k,
        "corpus_captions": len(corpus),
        **{k: v for k, v in retrieval_summary(rows).items() if k != "pairs"},
        "model": enc.model_id,
        "seconds": {**seconds, "total": round(sum(seconds.values()), 3)},
        "files": {k: f"{RETRIEVAL_DIR}/{name}" for k, name in FILES.items()},
    }
    timeless = {k: v for k, v in summary.items() if k != "seconds"}
    write_json(folder / "summary.json", timeless)
    source = "library:manifest.jsonl"  # folder-relative: the dataset moves and publishes as is
    _write_page(folder / FILES["page"], out, pairs, verdicts, rows, source, summary)
    commit(folder / RECORD, {"spec": spec, "spec_hash": key, "summary": timeless})
    return {**summary, "reused": False}


def _write_page(
    path: Path,
    out: Path,
    pairs: list[Any],
    verdicts: list[Any],
    rows: list[Any],
    source: str,
    summary: dict[str, Any],
) -> None:
    """A static page: every pair, its audit verdict, and its candidates linked to their clips
    (those below the no-match threshold marked), with the threshold's counts on top."""
    from tempogen.io import read_jsonl
    from tempogen.manifest import as_rows
    from tempogen.retrieval.search import summary_line

    # the build's own manifest, validated as it was written moments ago
    videos = {r.id: r.video for r in as_rows(read_jsonl(out / "manifest.jsonl"))}

    def cands(items: list[dict[str, Any]]) -> str:
        lis = []
        for c in items:
            vid = str(c["video_id"])
            video = videos.get(vid)
            link = f'<a href="../{escape(video)}">{escape(vid)}</a>' if video else escape(vid)
            lis.append(
                f'<li><a href="../index.html#s-{escape(vid)}"><img loading="lazy" '
                f'src="../sheets/{escape(vid)}.png" alt="{escape(vid)}"></a>'
                f"{c['score']:.3f}{'' if c['matched'] else ' (no match)'} {link}: "
                f"{escape(c['caption'])}</li>"
            )
        return f"<ol>{''.join(lis)}</ol>"

    blocks = []
    for p, v, r in zip(pairs, verdicts, rows):
        verdict = "ok" if v.ok else "; ".join(escape(m) for m in v.messages)
        flags = [f"{side}: no match" for side in ("pos", "neg") if r[f"{side}_no_match"]]
        flags += [] if r["discriminating"] else ["not discriminating (both match the same clips)"]
        verdict += "".join(f"; {f}" for f in flags)
        minor = f" / {', '.join(p.minor)}" if p.minor else ""
        blocks.append(
            f"<section><h3>{r['pair_index']}. {escape(p.major)}{escape(minor)}</h3>"
            f'<p class="v {"ok" if v.ok else "bad"}">audit: {verdict}</p>'
            f'<div class="cols"><div><p><b>pos</b> {escape(p.pos)}</p>{cands(r["pos_candidates"])}'
            f"</div><div><p><b>neg</b> {escape(p.neg)}</p>{cands(r['neg_candidates'])}</div>"
            "</div></section>"
        )
    css = (
        "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em}section{border-top:1px solid #ccc}"
        ".cols{display:flex;gap:2em}.cols>div{flex:1}img{width:160px;vertical-align:middle;"
        "margin-right:.5em}li{margin:.3em 0}.v.ok{color:#161}.v.bad{color:#a11}"
    )
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>caption retrieval</title><style>{css}</style></head><body>\n"
        "<h1>Caption pairs and their nearest clips</h1>\n"
        f"<p>{len(pairs)} offline caption pairs, audited (audit.jsonl), each caption searched "
        f"among {len(videos)} clips' captions ({escape(source)}); candidates.jsonl has the "
        'same lists. <a href="../index.html">All questions</a>.</p>\n'
        f"<p>{escape(summary_line(summary))}.</p>\n" + "\n".join(blocks) + "\n</body></html>\n"
    )
    write_text(path, page)
