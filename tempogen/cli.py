"""The ``tempogen`` command: parses arguments, calls the library, prints. Heavy imports stay
inside the command bodies so ``tempogen --help`` is instant."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _generate(args: argparse.Namespace) -> int:
    from tempogen.builders.dataset import build_dataset
    from tempogen.config import load_config

    cfg = load_config(args.config)
    summary = build_dataset(cfg, args.out, jobs=args.jobs, progress=not args.quiet)
    tasks = ", ".join(f"{k} {v}" for k, v in summary.per_task.items())
    print(
        f"wrote {summary.clips} clips ({summary.variants} edited variants; "
        f"{summary.frames:,} frames rendered) to {summary.out_dir}: {tasks}"
    )
    print(
        f"manifest: {summary.out_dir / 'manifest.jsonl'}; TOMATO layout: {summary.out_dir / 'tomato'}"
    )
    print(f"index: {summary.out_dir / 'index.html'}; report: {summary.out_dir / 'report.html'}")
    print(
        "also: videott/ (Video-TT-style questions), lmms_eval/ (task folder), hf/ (datasets layout)"
    )
    return 0


def _motions(args: argparse.Namespace) -> int:
    from tempogen.generators.motion import motions_for
    from tempogen.questions import TASKS

    for task in TASKS:
        for m in motions_for(task):
            print(f"{task:20s} {m.name:14s} {m.fact:10s} {', '.join(m.keys())}")
    return 0


def _edit(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tempogen.builders.variants import Variant, edit_row
    from tempogen.editing import load_pipelines
    from tempogen.io import read_jsonl, write_jsonl

    manifest = Path(args.manifest)
    rows = read_jsonl(manifest)
    pipelines = load_pipelines(args.pipeline)
    out = Path(args.out)
    written = []
    for row in rows:
        for name, ops in pipelines.items():
            written.append(
                edit_row(
                    row, manifest.parent, Variant(name, tuple(ops)), out, require_certificate=False
                )
            )
    write_jsonl(out / "manifest.jsonl", written)
    print(f"wrote {len(written)} edited clips to {out} (manifest: {out / 'manifest.jsonl'})")
    return 0


def _audit_verify(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from tempogen.builders.verify import verify_manifest

    bar = tqdm(unit="clip", desc="verifying from pixels", disable=args.quiet, dynamic_ncols=True)
    try:
        report = verify_manifest(
            args.manifest, sample=args.sample, jobs=args.jobs or 1, on_done=bar.update
        )
    finally:
        bar.close()
    for v in report.disagreements:
        print(
            f"DISAGREE {v.id}: manifest says {v.expected!r}, pixels say {v.seen!r} {v.detail}".rstrip()
        )
    if report.skipped:
        print(f"skipped {report.skipped} rows without per-frame labels")
    print(f"verified {report.agreed}/{report.checked} ({report.percent:.1f}%)")
    return 0 if report.checked and report.percent >= args.min else 1


def _audit_validity(args: argparse.Namespace) -> int:
    from tempogen.builders.schema import read_manifest
    from tempogen.builders.validity import format_report, validity_report
    from tempogen.io import write_json

    report = validity_report(read_manifest(args.manifest), seed=args.seed)
    print(format_report(report))
    if args.out:
        write_json(args.out, {k: v for k, v in report.items() if k != "rows"})
    return 0


def _eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tempogen.builders import scoring

    dataset = Path(args.dataset)
    sub = {"videott": "videott.json", "vinoground": "vinoground.csv"}.get(args.benchmark)
    if sub and not (dataset / sub).exists() and (dataset / args.benchmark / sub).exists():
        dataset = dataset / args.benchmark  # a tempogen dataset root: use its export
    score = {
        "tomato": scoring.score_tomato,
        "vinoground": scoring.score_vinoground,
        "videott": scoring.score_videott,
    }[args.benchmark]
    scores = score(dataset, args.predictions)
    print(scoring.format_scores(scores))
    if args.out:
        scoring.write_scores(args.out, scores)
        print(f"scores written to {args.out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tempogen", description=__doc__.split("\n")[0] if __doc__ else None
    )
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="render a dataset from a config")
    g.add_argument(
        "--config", default="configs/default.yaml", help="YAML config (default: %(default)s)"
    )
    g.add_argument("--out", default="dataset", help="output folder (default: %(default)s)")
    g.add_argument(
        "-j", "--jobs", type=int, default=None, help="worker processes (default: all cores)"
    )
    g.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    g.set_defaults(func=_generate)
    e = sub.add_parser("edit", help="apply YAML edit pipelines to every clip of a manifest")
    e.add_argument(
        "--manifest", required=True, help="input manifest (JSONL); videos relative to it"
    )
    e.add_argument("--pipeline", required=True, help="YAML: a list of ops, or variant name -> list")
    e.add_argument("--out", required=True, help="output folder for edited clips and their manifest")
    e.set_defaults(func=_edit)
    a = sub.add_parser("audit", help="check a dataset")
    asub = a.add_subparsers(dest="audit", required=True)
    v = asub.add_parser("verify", help="re-derive every simulated answer from the video's pixels")
    v.add_argument("--manifest", required=True, help="manifest (JSONL) to verify")
    v.add_argument(
        "--min",
        type=float,
        default=99.0,
        help="agreement %% needed to exit 0 (default %(default)s)",
    )
    v.add_argument(
        "--sample", type=int, default=None, help="verify an evenly spread sample of N rows"
    )
    v.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default 1)")
    v.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    v.set_defaults(func=_audit_verify)
    va = asub.add_parser("validity", help="certificates and kappa / tau / rho of an ideal observer")
    va.add_argument("--manifest", required=True, help="manifest (JSONL) to audit")
    va.add_argument("--seed", type=int, default=0, help="seed of the shuffled and random settings")
    va.add_argument("--out", default=None, help="also write the figures as JSON here")
    va.set_defaults(func=_audit_validity)
    ev = sub.add_parser("eval", help="score model predictions against a dataset")
    ev.add_argument("benchmark", choices=["tomato", "vinoground", "videott"])
    ev.add_argument(
        "--dataset", required=True, help="dataset folder (ours, or the benchmark's layout)"
    )
    ev.add_argument("--predictions", required=True, help="predictions JSONL, or a results folder")
    ev.add_argument("--out", default=None, help="write the scores as JSON here")
    ev.set_defaults(func=_eval)
    m = sub.add_parser("motions", help="list registered motion patterns and their answers")
    m.set_defaults(func=_motions)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; library errors become one clear line on stderr and exit code 2."""
    from tempogen.errors import USER_ERRORS

    args = build_parser().parse_args(argv)
    if getattr(args, "jobs", None) is not None and args.jobs < 1:
        print("tempogen: error: -j/--jobs must be at least 1", file=sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except USER_ERRORS as exc:
        print(f"tempogen: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head: stop quietly
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("tempogen: interrupted; finished clips are kept and a rerun resumes", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
