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
    print(f"wrote {summary.clips} clips ({summary.frames:,} frames) to {summary.out_dir}: {tasks}")
    print(
        f"manifest: {summary.out_dir / 'manifest.jsonl'}; TOMATO layout: {summary.out_dir / 'tomato'}"
    )
    print(f"index: {summary.out_dir / 'index.html'}")
    return 0


def _motions(args: argparse.Namespace) -> int:
    from tempogen.generators.motion import motions_for
    from tempogen.questions import TASKS

    for task in TASKS:
        for m in motions_for(task):
            print(f"{task:20s} {m.name:14s} {m.fact:10s} {', '.join(m.keys())}")
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
    except KeyboardInterrupt:
        print("tempogen: interrupted; finished clips are kept and a rerun resumes", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
