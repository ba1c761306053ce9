"""``tempogen validate``: check a manifest, an export or a whole dataset folder against its
format. Every problem names the file, the line (or record) and the field, so it can be fixed
without guessing; a valid file gets a one-line summary.

Kinds: the unified manifest (``*.jsonl``: schema, repeated ids, plugins, motion patterns, each
row against itself, each video opened, decoded and compared with its row), TOMATO
(``tomato/`` or one ``tomato/data/*.json``), Video-TT (``videott.json``), Vinoground (the
folder, its CSV or its question lists), the Hugging Face folder (``hf/``) and the lmms-eval
task folder (``lmms_eval/``). A dataset folder checks everything in it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from tempogen.builders.audit.validate_formats import (
    LMMS_FIELDS,
    check_hf_folder,
    check_lmms_eval,
    check_tomato,
    check_videott,
    check_vinoground,
    is_hf,
    is_lmms_eval,
    is_tomato,
    is_videott,
    is_vinoground,
    validate_hf,
    validate_lmms_eval,
    validate_tomato,
    validate_videott,
    validate_vinoground,
)
from tempogen.builders.audit.validate_manifest import (
    check_manifest,
    inside,
    row_contradiction,
    video_problem,
)
from tempogen.builders.exports import FORMATS, Format
from tempogen.builders.exports.registry import MAX_PROBLEMS, FileCheck
from tempogen.errors import InputFileError

__all__ = [  # the manifest check lives in validate_manifest, the format checks in validate_formats
    "LMMS_FIELDS",
    "MAX_PROBLEMS",
    "FileCheck",
    "check_hf_folder",
    "check_lmms_eval",
    "check_manifest",
    "check_tomato",
    "check_videott",
    "check_vinoground",
    "inside",
    "is_hf",
    "is_lmms_eval",
    "is_tomato",
    "is_videott",
    "is_vinoground",
    "row_contradiction",
    "validate_hf",
    "validate_lmms_eval",
    "validate_path",
    "validate_tomato",
    "validate_videott",
    "validate_vinoground",
    "video_problem",
]


def _format_of(path: Path) -> Format | None:
    """The first registered format with a validator that takes ``path`` as its own."""
    return next((f for f in FORMATS.values() if f.validate and f.is_mine(path)), None)


def _check_file(path: Path, plugins: Sequence[str], under: Sequence[Path]) -> list[FileCheck]:
    fmt = _format_of(path)
    if fmt is not None and fmt.validate is not None:
        return fmt.validate(path)
    if path.suffix == ".jsonl":
        return [check_manifest(path, plugins, under)]
    raise InputFileError(
        f"{path}: not a file tempogen validates (a manifest .jsonl, or a file of a format: "
        f"{_known()})"
    )


def _known() -> str:
    return ", ".join(f.name for f in FORMATS.values() if f.validate)


def validate_path(
    path: str | os.PathLike[str],
    plugins: Sequence[str] = (),
    videos_under: Sequence[str | os.PathLike[str]] = (),
) -> list[FileCheck]:
    """Check a manifest, an export file or folder, or a dataset folder (its manifest and every
    registered format's folder in it); one :class:`FileCheck` per file checked. A manifest's
    videos must lie in its folder, or under one of ``videos_under``."""
    p = Path(path)
    under = tuple(Path(u) for u in videos_under)
    if p.is_file():
        return _check_file(p, plugins, under)
    if not p.is_dir():
        raise InputFileError(f"{p}: no such file or folder")
    if (p / "manifest.jsonl").is_file():
        checks = [check_manifest(p / "manifest.jsonl", plugins, under)]
        for folder in dict.fromkeys(p / f.folder for f in FORMATS.values() if f.validate):
            fmt = _format_of(folder) if folder.is_dir() else None
            if fmt is not None and fmt.validate is not None:
                checks.extend(fmt.validate(folder))
        return checks
    fmt = _format_of(p)
    if fmt is None or fmt.validate is None:
        raise InputFileError(
            f"{p}: neither a dataset folder (manifest.jsonl) nor an export tempogen knows "
            f"({_known()})"
        )
    return fmt.validate(p)
