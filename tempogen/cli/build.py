"""``tempogen generate``: build a dataset from a config (or, with ``--dry-run``, print its
plan)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tempogen.cli.options import executor_options, plugins_option

if TYPE_CHECKING:
    from tempogen.config import DatasetConfig, Estimate


def _generate(args: argparse.Namespace) -> int:
    from tempogen.builders.dataset.build import build_dataset
    from tempogen.config import check_estimate, config_estimate, load_config

    cfg = load_config(args.config)
    est = check_estimate(config_estimate(cfg), cfg.source, args.allow_large, "pass --allow-large")
    if args.dry_run:
        return _plan_only(cfg, est)
    if not args.quiet:
        print(f"estimate: {est.line()}", file=sys.stderr)
    summary = build_dataset(
        cfg,
        args.out,
        jobs=args.jobs,
        progress=not args.quiet,
        replace=args.replace,
        executor=args.executor,
        address=args.address,
        work_dir=args.work,
    )
    tasks = ", ".join(f"{k} {v}" for k, v in summary.per_task.items())
    new = summary.frames - summary.reused_frames
    reused = (
        f", {summary.reused_frames:,} reused from an earlier run" if summary.reused_frames else ""
    )
    print(
        f"wrote {summary.clips} clips ({summary.variants} edited variants; "
        f"{new:,} frames rendered{reused}) to {summary.where()}: {tasks}"
    )
    if summary.mocap is not None:
        print(summary.mocap)
    print(f"manifest: {summary.where('manifest.jsonl')}; TOMATO layout: {summary.where('tomato')}")
    print(f"index: {summary.where('index.html')}; report: {summary.where('report.html')}")
    if summary.url is not None:
        print(f"working copy (a rerun resumes from it): {summary.out_dir}")
    also = _also_written(summary.out_dir)
    if also:
        print("also: " + also)
    return 0


def _also_written(out_dir: Path) -> str:
    """The formats this build wrote beside TOMATO's, plugins included (a Vinoground folder
    only when the config asked for pairs)."""
    from tempogen.builders.exports import written_formats

    return "; ".join(
        f"{f.folder}/: {f.description}" for f in written_formats(out_dir) if f.name != "tomato"
    )


def _plan_only(cfg: DatasetConfig, est: Estimate) -> int:
    """``generate --dry-run``: the estimate and the planned clips; nothing is written."""
    from tempogen.generators.build import plan

    specs = plan(cfg)
    frames = sum(s.num_frames for s in specs)
    print(f"estimate: {est.line()}")
    print(f"plan: {len(specs)} clips, {frames:,} frames before edited variants; nothing written")
    return 0


def add_generate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``generate`` command."""
    g = sub.add_parser("generate", help="render a dataset from a config")
    g.add_argument(
        "--config", default="configs/default.yaml", help="YAML config (default: %(default)s)"
    )
    g.add_argument(
        "--out",
        default="dataset",
        help="output folder, or an fsspec URL (s3://..., ftp://...) to publish to "
        "(default: %(default)s)",
    )
    g.add_argument(
        "--work",
        default=None,
        help="local working copy of a URL --out (default: under $TEMPOGEN_CACHE, "
        "~/.cache/tempogen)",
    )
    g.add_argument(
        "-j", "--jobs", type=int, default=None, help="worker processes (default: all cores)"
    )
    g.add_argument(
        "--allow-large",
        action="store_true",
        help="build even past the cost limits (a clip over 144,000 frames, over 8 GB of memory "
        "a process, or over a day of one core's time by the estimate)",
    )
    g.add_argument(
        "--dry-run",
        action="store_true",
        help="print the estimate and the planned clips, and write nothing",
    )
    g.add_argument(
        "--replace",
        action="store_true",
        help="delete a dataset built in --out with another config first (default: refuse)",
    )
    g.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    plugins_option(g)
    executor_options(g, "the config's executor, else local")
    g.set_defaults(func=_generate)
