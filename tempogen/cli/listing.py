"""``tempogen motions`` and ``tempogen formats``: what the registries hold, plugins included."""

from __future__ import annotations

import argparse

from tempogen.cli.options import plugins_option


def _motions(args: argparse.Namespace) -> int:
    from tempogen.generators.motion import motions_for
    from tempogen.questions import TASKS

    row = "{:20s} {:18s} {:9s} {:10s} {:10s} {}"
    print(row.format("TASK", "MOTION", "RENDERER", "FROM", "FACT", "ANSWERS"))
    for task in TASKS:
        for m in motions_for(task):
            print(row.format(task, m.name, m.renderer, "pattern", m.fact, ", ".join(m.keys())))
        for m in motions_for(task, sourced=True):  # cut from files a config's mocap: names
            answers = "those its windows certify, of: " + ", ".join(m.keys())
            print(row.format(task, m.name, m.renderer, "mocap", m.fact, answers))
    return 0


def _formats(args: argparse.Namespace) -> int:
    from tempogen.builders.exports import FORMATS

    parts = ("write", "validate", "score", "run")
    width = max(len("FORMAT"), *(len(n) for n in FORMATS))
    print(f"{'FORMAT':{width}s}  {'FOLDER':12s} {'DOES':26s} DESCRIPTION")
    for name, f in FORMATS.items():
        does = ",".join(p for p in parts if getattr(f, p))
        print(f"{name:{width}s}  {f.folder + '/':12s} {does:26s} {f.description}".rstrip())
    return 0


def add_motions(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``motions`` command."""
    m = sub.add_parser(
        "motions",
        help="list registered motion patterns and their answers (FROM mocap: cut from the files "
        "a config's mocap: section names)",
    )
    plugins_option(m)
    m.set_defaults(func=_motions)


def add_formats(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``formats`` command."""
    fm = sub.add_parser("formats", help="list registered benchmark formats and what each does")
    plugins_option(fm)
    fm.set_defaults(func=_formats)
