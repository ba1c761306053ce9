"""``tempogen motions`` and ``tempogen formats``: what the registries hold, plugins included."""

from __future__ import annotations

import argparse

from tempogen.cli.options import plugins_option


def _motions(args: argparse.Namespace) -> int:
    from tempogen.generators.motion import motions_for
    from tempogen.questions import TASKS

    for task in TASKS:
        for m in motions_for(task):
            print(f"{task:20s} {m.name:16s} {m.renderer:9s} {m.fact:10s} {', '.join(m.keys())}")
    return 0


def _formats(args: argparse.Namespace) -> int:
    from tempogen.builders.exports import FORMATS

    parts = ("write", "validate", "score", "run")
    for line in FORMATS.listing(
        lambda f: (
            f"{f.folder + '/':12s} {','.join(p for p in parts if getattr(f, p)):26s} "
            f"{f.description}"
        )
    ):
        print(line)
    return 0


def add_motions(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``motions`` command."""
    m = sub.add_parser("motions", help="list registered motion patterns and their answers")
    plugins_option(m)
    m.set_defaults(func=_motions)


def add_formats(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``formats`` command."""
    fm = sub.add_parser("formats", help="list registered benchmark formats and what each does")
    plugins_option(fm)
    fm.set_defaults(func=_formats)
