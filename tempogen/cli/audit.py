"""``tempogen audit`` (verify, validity, shortcuts, captions-eval) and ``tempogen validate``:
the commands that check a dataset."""

from __future__ import annotations

import argparse
import sys

from tempogen.cli.options import executor_options, plugins_option
from tempogen.errors import EXIT_OK, EXIT_USER


def _validate(args: argparse.Namespace) -> int:
    from tempogen.builders.audit.validate import validate_path

    checks = validate_path(args.path, plugins=args.plugins, videos_under=args.videos_under)
    for c in checks:
        if c.ok:
            print(c.summary())
        for m in c.messages():
            print(m, file=sys.stderr)
    bad = [c for c in checks if not c.ok]
    if bad:
        print(f"tempogen: error: {len(bad)} of {len(checks)} files are invalid", file=sys.stderr)
    return 2 if bad else 0


def _audit_verify(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from tempogen.builders.audit.verify import verify_manifest
    from tempogen.executor import make_executor

    kind = args.executor or ("ray" if args.address else "local")
    bar = tqdm(unit="clip", desc="verifying from pixels", disable=args.quiet, dynamic_ncols=True)
    try:
        with make_executor(kind, args.jobs or 1, args.address) as executor:
            report = verify_manifest(
                args.manifest,
                sample=args.sample,
                on_done=bar.update,
                plugins=args.plugins,
                executor=executor,
            )
    finally:
        bar.close()
    for v in report.disagreements:
        print(
            f"DISAGREE {v.id}: manifest says {v.expected!r}, pixels say {v.seen!r} {v.detail}".rstrip()
        )
    reasons: dict[str, list[str]] = {}
    for d in report.declared:
        reasons.setdefault(d.reason, []).append(d.id)
    for why, ids in reasons.items():
        print(f"DECLARED, not verified ({why}): {', '.join(ids)}")
    summary = f"verified {report.agreed}/{report.checked} ({report.percent:.1f}%)"
    if report.declared:
        summary += f"; {len(report.declared)} declared, not verified"
    print(summary)
    if not report.checked:
        print(
            f"{args.manifest}: no row has per-frame labels: nothing was verified from pixels",
            file=sys.stderr,
        )
        return EXIT_USER
    # exact by default: a pass mark below 100% only by an explicit --min
    passed = 100 * report.agreed >= args.min * report.checked
    if passed and report.disagreements:
        print(f"{len(report.disagreements)} disagreement(s) accepted by --min {args.min:g}")
    return EXIT_OK if passed else EXIT_USER


def _audit_validity(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tempogen.builders.audit.validity import dataset_seed, format_report, validity_report
    from tempogen.io import write_json
    from tempogen.manifest import read_manifest
    from tempogen.paths import check_not_input

    config = Path(args.manifest).parent / "config.json"  # where dataset_seed reads the seed
    check_not_input([("--out", args.out)], [args.manifest, config])
    seed = dataset_seed(args.manifest) if args.seed is None else args.seed
    report = validity_report(read_manifest(args.manifest), seed=seed)
    print(format_report(report))
    if args.out:
        write_json(args.out, {k: v for k, v in report.items() if k != "rows"})
    return 0


def _audit_shortcuts(args: argparse.Namespace) -> int:
    from tempogen.builders.audit.shortcuts import format_shortcuts, manifest_shortcuts
    from tempogen.io import write_json
    from tempogen.paths import check_not_input

    check_not_input([("--out", args.out)], [args.manifest])
    baselines = [b.strip() for b in args.baselines.split(",") if b.strip()]
    report = manifest_shortcuts(args.manifest, baselines, model=args.model)
    print(format_shortcuts(report))
    if args.out:
        write_json(args.out, report)
    return EXIT_OK if report["passed"] else EXIT_USER


def _audit_captions_eval(args: argparse.Namespace) -> int:
    from tempogen.retrieval.audit_eval import (
        LABELLED_PAIRS,
        evaluate_audit,
        format_evaluation,
        load_labelled,
    )

    rows = load_labelled(args.labelled or LABELLED_PAIRS)  # a bad file fails before the model
    encoder = cache = None
    if args.near_dup == "embedding":
        from tempogen.retrieval.embed import Encoder, default_cache_dir

        encoder = Encoder(args.model)
        cache = args.cache_dir or default_cache_dir() / "embeddings"
    ev = evaluate_audit(rows, near_dup=args.near_dup, encoder=encoder, cache_dir=cache)
    print(format_evaluation(ev), end="")
    return 0


def add_audit(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``audit`` command group."""
    from tempogen.cli.argtypes import finite_float, positive_int, seed_int

    a = sub.add_parser("audit", help="check a dataset")
    asub = a.add_subparsers(dest="audit", required=True)
    v = asub.add_parser("verify", help="re-derive every simulated answer from the video's pixels")
    v.add_argument("--manifest", required=True, help="manifest (JSONL) to verify")
    v.add_argument(
        "--min",
        type=finite_float(0, 100),
        default=100.0,
        metavar="PERCENT",
        help="agreement needed to exit 0, 0..100 (default 100: any disagreement exits 2)",
    )
    v.add_argument(
        "--sample", type=positive_int, default=None, help="verify an evenly spread sample of N rows"
    )
    v.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default 1)")
    v.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    plugins_option(v)
    executor_options(v, "local")
    v.set_defaults(func=_audit_verify)
    va = asub.add_parser("validity", help="certificates and kappa / tau / rho of an ideal observer")
    va.add_argument("--manifest", required=True, help="manifest (JSONL) to audit")
    va.add_argument(
        "--seed", type=seed_int, default=None,
        help="seed of the shuffled and random settings (default: the build's, from config.json)",
    )  # fmt: skip
    va.add_argument("--out", default=None, help="also write the figures as JSON here")
    plugins_option(va)
    va.set_defaults(func=_audit_validity)
    sc = asub.add_parser(
        "shortcuts", help="blind baselines (option position, rank, text, metadata) vs chance"
    )
    sc.add_argument("--manifest", required=True, help="manifest (JSONL) to audit")
    sc.add_argument(
        "--baselines", default="position,rank,text,metadata",
        help="comma-separated: position, rank, text, metadata (default: all)",
    )  # fmt: skip
    sc.add_argument("--model", default=None, help="sentence-transformers model (default: ours)")
    sc.add_argument("--out", default=None, help="also write the report as JSON here")
    plugins_option(sc)
    sc.set_defaults(func=_audit_shortcuts)
    ce = asub.add_parser(
        "captions-eval", help="precision and recall of the caption audit on labelled pairs"
    )
    ce.add_argument(
        "--labelled", default=None, help="labelled pairs JSONL (default: the shipped set)"
    )
    ce.add_argument(
        "--near-dup", default="embedding", choices=["embedding", "jaccard", "off"],
        help="near-duplicate search of the audit (default %(default)s)",
    )  # fmt: skip
    ce.add_argument("--model", default=None, help="sentence-transformers model name or local path")
    ce.add_argument(
        "--cache-dir", default=None, help="embedding cache (default: ~/.cache/tempogen/embeddings)"
    )
    ce.set_defaults(func=_audit_captions_eval)


def add_validate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``validate`` command."""
    vd = sub.add_parser(
        "validate",
        help="check a manifest, an export or a dataset folder; problems name file, line, field",
    )
    vd.add_argument(
        "path",
        help="manifest.jsonl, tomato/ (or one data/*.json), videott.json, vinoground/, hf/, "
        "lmms_eval/, or a dataset folder (all of them)",
    )
    vd.add_argument(
        "--videos-under",
        action="append",
        default=[],
        metavar="DIR",
        help="a manifest's videos may also lie under DIR (default: only in the manifest's "
        "folder), e.g. TOMATO's own videos for an `import tomato --out` kept elsewhere",
    )
    plugins_option(vd)
    vd.set_defaults(func=_validate)
