"""``tempogen captions`` (generate and audit caption pairs) and ``tempogen retrieve`` (top-k
corpus captions for them)."""

from __future__ import annotations

import argparse

from tempogen.cli.options import MAX_PAIRS, MAX_TOP_K
from tempogen.errors import EXIT_OK, EXIT_USER


def _captions_generate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tempogen.paths import check_not_input
    from tempogen.retrieval.captions import load_pairs, offline_pairs, write_pairs

    source = None if args.source in ("offline", "llm") else args.source
    check_not_input([("--out", args.out)], [source, args.llm_config])
    if args.source == "offline":
        pairs = offline_pairs(args.n, seed=args.seed)
    elif args.source == "llm":
        from tempogen.errors import ExternalServiceError
        from tempogen.retrieval.llm import generate_llm_pairs, load_llm_options, resolve_config

        options = load_llm_options(args.llm_config) if args.llm_config else {}
        for key in ("timeout", "max_attempts"):
            if getattr(args, key) is not None:
                options[key] = getattr(args, key)
        url, model = options.pop("base_url", None), options.pop("model", None)
        config = resolve_config(args.base_url or url, args.api_key, args.model or model, **options)
        cache = Path(args.cache_dir) if args.cache_dir else Path(args.out).parent / ".llm-cache"
        result = generate_llm_pairs(args.n, config, cache_dir=cache)
        pairs = result.pairs
        write_pairs(args.out, pairs)
        print(f"wrote {len(pairs)} caption pairs to {args.out}")
        if len(pairs) < args.n:  # partial: kept, cached, and an error so scripts notice
            why = result.error or "; ".join(result.log[-1:])
            raise ExternalServiceError(
                f"got {len(pairs)} of {args.n} caption pairs from {config.endpoint} "
                f"({result.requests} requests, {result.cache_hits} cached replies): {why}; "
                f"the {len(pairs)} are in {args.out} and a rerun resumes from {cache}"
            )
        return 0
    else:
        pairs = load_pairs(args.source)[: args.n]
    write_pairs(args.out, pairs)
    print(f"wrote {len(pairs)} caption pairs to {args.out}")
    return 0


def _captions_audit(args: argparse.Namespace) -> int:
    from tempogen.io import write_jsonl
    from tempogen.paths import check_not_input
    from tempogen.retrieval.audit import (
        EMBEDDING_THRESHOLD,
        NEAR_DUPLICATE_THRESHOLD,
        audit_pairs,
        report_rows,
        summary_table,
    )
    from tempogen.retrieval.captions import load_pairs

    check_not_input([("--report", args.report)], [args.file])
    pairs = load_pairs(args.file)
    encoder = cache = None
    if args.near_dup == "embedding":
        from tempogen.retrieval.embed import Encoder, default_cache_dir

        encoder = Encoder(args.model)
        cache = args.cache_dir or default_cache_dir() / "embeddings"
    verdicts = audit_pairs(
        pairs, args.threshold, near_dup=args.near_dup, encoder=encoder, cache_dir=cache
    )
    if args.report:
        write_jsonl(args.report, report_rows(pairs, verdicts))
    print(summary_table(verdicts))
    for i, (p, v) in enumerate(zip(pairs, verdicts, strict=True)):
        if not v.ok:
            line = p.provenance.get("line")
            print(f"pair {i + 1}{f' (line {line})' if line else ''}: {p.pos!r} / {p.neg!r}")
            for m in v.messages:
                print(f"  {m}")
    bad = sum(not v.ok for v in verdicts)
    default = {"embedding": EMBEDDING_THRESHOLD, "jaccard": NEAR_DUPLICATE_THRESHOLD}
    how = (
        "near-duplicates not searched"
        if args.near_dup == "off"
        else f"near-duplicates by {args.near_dup} >= "
        f"{args.threshold if args.threshold is not None else default[args.near_dup]}"
    )
    print(f"{len(verdicts) - bad}/{len(verdicts)} pairs pass ({how})")
    return EXIT_USER if args.strict and bad else EXIT_OK


def _retrieve(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tempogen.errors import InputFileError
    from tempogen.paths import check_not_input
    from tempogen.retrieval.corpus import load_corpus
    from tempogen.retrieval.embed import Encoder
    from tempogen.retrieval.search import (
        read_query_pairs,
        retrieval_summary,
        retrieve,
        summary_line,
        write_candidates,
    )
    from tempogen.retrieval.threshold import NO_MATCH_THRESHOLD

    corpora = [c.split(":", 1)[-1] for c in args.corpus]
    check_not_input([("--out", args.out)], [args.pairs, *corpora])
    pairs = read_query_pairs(args.pairs)
    corpus = load_corpus(args.corpus)
    if len(corpus) == 0:
        raise InputFileError(f"corpus {corpus.source}: holds no captions")
    cache = Path(args.cache_dir) if args.cache_dir else Path(args.out).parent / ".emb_cache"
    out = retrieve(
        pairs,
        corpus,
        Encoder(args.model),
        args.top_k,
        index=args.index,
        cache_dir=cache,
        no_match_threshold=NO_MATCH_THRESHOLD
        if args.no_match_threshold is None
        else args.no_match_threshold,
    )
    write_candidates(args.out, out)
    print(
        f"wrote top-{args.top_k} candidates for {len(out)} pairs from {len(corpus)} captions to {args.out}"
    )
    print(summary_line(retrieval_summary(out)))
    return 0


def add_captions(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``captions`` command group."""
    from tempogen.cli.argtypes import bounded_int, finite_float

    cap = sub.add_parser("captions", help="temporal-counterfactual caption pairs")
    csub = cap.add_subparsers(dest="captions", required=True)
    cg = csub.add_parser("generate", help="write caption pairs: offline, from an LLM, or a file")
    cg.add_argument("--source", required=True, help="offline | llm | a CSV/JSONL file of pairs")
    cg.add_argument(
        "-n", type=bounded_int(1, MAX_PAIRS), default=100,
        help=f"how many pairs, 1..{MAX_PAIRS} (default %(default)s)",
    )  # fmt: skip
    cg.add_argument("--out", required=True, help="pairs JSONL to write")
    cg.add_argument("--seed", type=int, default=0, help="seed of the offline generator")
    cg.add_argument(
        "--base-url", default=None, help="OpenAI-compatible endpoint (or TEMPOGEN_LLM_BASE_URL)"
    )
    cg.add_argument("--api-key", default=None, help="API key (or TEMPOGEN_LLM_API_KEY)")
    cg.add_argument("--model", default=None, help="model name (or TEMPOGEN_LLM_MODEL)")
    cg.add_argument("--cache-dir", default=None, help="LLM response cache (default: beside --out)")
    cg.add_argument("--llm-config", default=None, help="YAML: base_url, model, timeout, ...")
    cg.add_argument(
        "--timeout", type=finite_float(0.1, 3600), default=None,
        help="deadline in seconds for each whole LLM request, 0.1..3600 (default 60)",
    )  # fmt: skip
    cg.add_argument(
        "--max-attempts", type=bounded_int(1, 50), default=None,
        help="tries per LLM request, 1..50 (default 5)",
    )  # fmt: skip
    cg.set_defaults(func=_captions_generate)
    ca = csub.add_parser("audit", help="check pairs: same words, temporal order, duplicates")
    ca.add_argument("file", help="pairs as CSV (pos,neg[,major,minor]) or JSONL")
    ca.add_argument("--strict", action="store_true", help="exit 2 when any pair fails")
    ca.add_argument("--report", default=None, help="write a JSONL verdict per pair here")
    ca.add_argument(
        "--near-dup",
        default="embedding",
        choices=["embedding", "jaccard", "off"],
        help="near-duplicate search: sentence embeddings + FAISS (default), shared words "
        "(fast, no model) or none; exact duplicates are always found",
    )
    ca.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="near-duplicate similarity (default: cosine 0.88 for embedding, 0.8 for jaccard)",
    )
    ca.add_argument("--model", default=None, help="sentence-transformers model name or local path")
    ca.add_argument(
        "--cache-dir", default=None, help="embedding cache (default: ~/.cache/tempogen/embeddings)"
    )
    ca.set_defaults(func=_captions_audit)


def add_retrieve(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``retrieve`` command."""
    from tempogen.cli.argtypes import bounded_int

    rt = sub.add_parser(
        "retrieve", help="top-k corpus captions (and their videos) for caption pairs"
    )
    rt.add_argument("--pairs", required=True, help="pairs JSONL (rows with pos and neg)")
    rt.add_argument(
        "--corpus",
        required=True,
        action="append",
        help="vatex:PATH | jsonl:PATH | library:DIR (repeatable)",
    )
    rt.add_argument(
        "--top-k", type=bounded_int(1, MAX_TOP_K), default=20,
        help=f"candidates per caption, 1..{MAX_TOP_K} (default %(default)s)",
    )  # fmt: skip
    rt.add_argument("--out", required=True, help="candidates JSONL to write")
    rt.add_argument("--model", default=None, help="sentence-transformers model name or local path")
    rt.add_argument(
        "--index",
        default="flat",
        choices=["flat", "hnsw", "ivf"],
        help="FAISS index (default exact)",
    )
    rt.add_argument("--cache-dir", default=None, help="embedding cache (default: beside --out)")
    rt.add_argument(
        "--no-match-threshold",
        type=float,
        default=None,
        help="cosine below which a candidate is no match (default: the value calibrated for "
        "the bundled model by scripts/calibrate_no_match.py)",
    )
    rt.set_defaults(func=_retrieve)
