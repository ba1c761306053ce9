"""The ``tempogen`` parser and entry point: each command group builds its own subparser (in
its module beside this one); :func:`main` maps what a command raises to its exit code."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from tempogen.cli.audit import add_audit, add_validate
from tempogen.cli.build import add_generate
from tempogen.cli.edit import add_edit, add_import
from tempogen.cli.evaluate import add_eval
from tempogen.cli.human import add_human
from tempogen.cli.listing import add_formats, add_motions
from tempogen.cli.reference import add_epilogs
from tempogen.cli.retrieval import add_captions, add_retrieve

# each adds its command (group) to the subparsers, in the order ``tempogen --help`` lists them
COMMANDS = (
    add_generate,
    add_edit,
    add_audit,
    add_validate,
    add_eval,
    add_captions,
    add_retrieve,
    add_human,
    add_import,
    add_motions,
    add_formats,
)


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: every command and its options, in ``--help``'s order."""
    p = argparse.ArgumentParser(
        prog="tempogen",
        description="Build, edit, audit and score video benchmarks for visual temporal "
        "reasoning (TOMATO, Vinoground and Video-TT layouts).",
    )
    sub = p.add_subparsers(dest="command", required=True)
    for add in COMMANDS:
        add(sub)
    add_epilogs(p)  # each command's --help names its section of the CLI reference
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point. A user's error (:class:`~tempogen.errors.TempogenError`) becomes one clear
    line on stderr and exit code 2 (:data:`~tempogen.errors.EXIT_USER`, as a failed check the
    user asked for); anything else is a bug: its traceback, exit code 1.
    ``--plugins`` are imported here, before any command reads a config, manifest or pipeline
    that may need them."""
    from tempogen.errors import EXIT_USER, TempogenError
    from tempogen.executor import Stopped, stop_on_signals
    from tempogen.plugins import load_plugins

    args = build_parser().parse_args(argv)
    if getattr(args, "jobs", None) is not None and args.jobs < 1:
        print("tempogen: error: -j/--jobs must be at least 1", file=sys.stderr)
        return EXIT_USER
    try:
        with stop_on_signals():
            load_plugins(getattr(args, "plugins", ()), "--plugins", folder=os.getcwd())
            return int(args.func(args) or 0)
    except TempogenError as exc:
        print(f"tempogen: error: {exc}", file=sys.stderr)
        return EXIT_USER
    except BrokenPipeError:  # output piped into head: stop quietly
        sys.stderr.close()
        return 0
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: workers and temp files are gone
        signum = exc.signum if isinstance(exc, Stopped) else 2
        how = "stopped by SIGTERM" if signum == 15 else "interrupted"
        print(f"tempogen: {how}; finished work is kept and a rerun resumes", file=sys.stderr)
        return 128 + signum
