"""``tempogen edit`` (YAML edit pipelines over a manifest) and ``tempogen import tomato``
(another benchmark's folder read as a manifest)."""

from __future__ import annotations

import argparse

from tempogen.cli.options import plugins_option


def _edit(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tqdm import tqdm

    from tempogen.builders.dataset.reading import open_manifest
    from tempogen.builders.dataset.variants import edit_manifest
    from tempogen.editing import load_pipelines

    pipelines = load_pipelines(args.pipeline)
    out = Path(args.out)
    total = len(open_manifest(args.manifest, args.plugins).rows) * len(pipelines)
    with tqdm(total=total, unit="edit", desc="editing", disable=args.quiet) as bar:
        report = edit_manifest(
            args.manifest,
            pipelines,
            out,
            plugins=args.plugins,
            strict=args.strict,
            keep_uncertified=args.keep_uncertified,
            on_done=bar.update,
        )
    print(f"wrote {len(report.rows)} edited clips to {out} (manifest: {report.manifest})")
    if report.refused:
        print(
            f"refused {len(report.refused)} edits (ops that cannot move those labels soundly, "
            "or answers the 16 frames do not show):"
        )
        for reason, n in report.by_reason():
            print(f"  {n:5d}  {reason}")
        for rid, name, _ in report.refused:
            print(f"refused: {rid}~{name}")
    if report.uncertified:
        print(
            f"kept {len(report.uncertified)} uncertified edits (--keep-uncertified; marked "
            "certificate.ok: false): their answers are not what TOMATO's 16 samples show"
        )
        for rid in report.uncertified:
            print(f"uncertified: {rid}")
    if report.declared:
        print(
            f"{len(report.declared)} edits rest on declared facts, not per-frame states "
            "(marked verified: declared)"
        )
    for rid, name, note in report.notes:
        print(f"note: {rid}~{name}: {note}")
    return 0


def _import_tomato(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from tempogen.builders.exports.tomato_import import import_tomato

    with tqdm(unit="question", desc="importing", disable=args.quiet) as bar:
        report = import_tomato(args.folder, args.out, on_row=bar.update)
    tasks = ", ".join(f"{t} {n}" for t, n in report.per_task.items())
    print(f"wrote {sum(report.per_task.values())} questions ({tasks}) to {report.manifest}")
    print(
        f"answers read as facts (edits move them): {report.as_facts}; "
        f"in free words (edits refused): {report.as_text}"
    )
    return 0


def add_edit(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``edit`` command."""
    e = sub.add_parser("edit", help="apply YAML edit pipelines to every clip of a manifest")
    e.add_argument(
        "--manifest", required=True, help="input manifest (JSONL); videos relative to it"
    )
    e.add_argument("--pipeline", required=True, help="YAML: a list of ops, or variant name -> list")
    e.add_argument("--out", required=True, help="output folder for edited clips and their manifest")
    e.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first edit an op refuses (default: skip it)",
    )
    e.add_argument(
        "--keep-uncertified",
        action="store_true",
        help="write edits whose answer TOMATO's 16 samples do not show, marked "
        "certificate.ok: false (default: refuse them)",
    )
    e.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    plugins_option(e)
    e.set_defaults(func=_edit)


def add_import(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``import`` command group (``import tomato``)."""
    im = sub.add_parser("import", help="read another benchmark's folder as a manifest")
    isub = im.add_subparsers(dest="import_cmd", required=True)
    it = isub.add_parser(
        "tomato", help="TOMATO's data/*.json and videos/ as manifest rows (answers as facts)"
    )
    it.add_argument("folder", help="TOMATO folder holding data/ and videos/")
    it.add_argument("--out", help="manifest to write (default: FOLDER/manifest.jsonl)")
    it.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    plugins_option(it)
    it.set_defaults(func=_import_tomato)
