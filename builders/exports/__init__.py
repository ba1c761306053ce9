"""Benchmark layouts written from a manifest: TOMATO, Video-TT, lmms-eval, Hugging Face (and the
rendered Vinoground pairs). Exports do not import each other; what they share lives in the core.

Importing this package registers the built-in formats (:mod:`.registry`), each once with all
its parts: writer, validator, scorer, model runner, owned folder. The validators, scorers and
runners live in ``builders.audit`` and ``builders.eval`` and are imported when first called,
so listing formats costs no video or model import. :func:`all_exports` lists every format
that writes, plugins included.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

from tempogen.builders.exports.hf import export_hf
from tempogen.builders.exports.lmms_eval import export_lmms_eval
from tempogen.builders.exports.registry import (
    EXPORTS,
    FORMATS,
    Export,
    FileCheck,
    Format,
    RunContext,
    format_with,
    formats_with,
    register_export,
    register_format,
)
from tempogen.builders.exports.tomato import export_tomato
from tempogen.builders.exports.videott import export_videott


def _part(module: str, name: str) -> Any:
    """``tempogen.builders.<module>.<name>``, imported on the first call."""

    def call(*args: Any) -> Any:
        return getattr(importlib.import_module(f"tempogen.builders.{module}"), name)(*args)

    call.__name__ = name
    return call


def _tomato(rows: list[dict[str, Any]], dataset_dir: Path, out_dir: Path) -> Any:
    return export_tomato(rows, dataset_dir, out_dir)


def _videott(rows: list[dict[str, Any]], dataset_dir: Path, out_dir: Path) -> Any:
    return export_videott(rows, out_dir)


def _lmms_eval(rows: list[dict[str, Any]], dataset_dir: Path, out_dir: Path) -> Any:
    return export_lmms_eval(rows, dataset_dir, out_dir)


def _hf(rows: list[dict[str, Any]], dataset_dir: Path, out_dir: Path) -> Any:
    return export_hf(rows, dataset_dir, out_dir)


# Registration order is the order builds write, ``validate`` checks and ``eval run`` asks
# (the order each of them had when it kept its own list, but for the writes of hf and lmms_eval).
register_format(
    Format(
        "tomato", write=_tomato, description="TOMATO's data/*.json and videos/ tree",
        claims=_part("audit.validate_formats", "is_tomato"),
        validate=_part("audit.validate_formats", "validate_tomato"),
        score=_part("eval.scoring", "score_tomato"), reads=("data/*.json", "tomato/data/*.json"),
        run=_part("eval.runner", "run_tomato_set"), run_needs="manifest.jsonl",
        run_writes=("tomato.jsonl",),
    )
)  # fmt: skip
register_format(
    Format(
        "vinoground", description="Vinoground's rendered caption pairs (vinoground.csv)",
        claims=_part("audit.validate_formats", "is_vinoground"),
        validate=_part("audit.validate_formats", "validate_vinoground"),
        score=_part("eval.scoring", "score_vinoground"), data_file="vinoground.csv",
        reads=("vinoground.csv", "vinoground_*score.json"),
        run=_part("eval.runner", "run_vinoground_set"), run_needs="vinoground/vinoground.csv",
    )
)  # fmt: skip
register_format(
    Format(
        "videott", write=_videott, description="Video-TT question sets (videott.json)",
        claims=_part("audit.validate_formats", "is_videott"),
        validate=_part("audit.validate_formats", "validate_videott"),
        score=_part("eval.scoring", "score_videott"), data_file="videott.json",
        reads=("videott.json",),
        run=_part("eval.runner", "run_videott_set"), run_needs="videott/videott.json",
        run_writes=("videott.jsonl",),
    )
)  # fmt: skip
register_format(
    Format(
        "hf", write=_hf, description="a Hugging Face datasets layout (Parquet + card)",
        claims=_part("audit.validate_formats", "is_hf"),
        validate=_part("audit.validate_formats", "validate_hf"),
    )
)  # fmt: skip
register_format(
    Format(
        "lmms_eval", write=_lmms_eval, description="an lmms-eval task folder",
        claims=_part("audit.validate_formats", "is_lmms_eval"),
        validate=_part("audit.validate_formats", "validate_lmms_eval"),
    )
)  # fmt: skip


def all_exports() -> list[Format]:
    """Every registered format that writes, built-ins first, in registration order."""
    return formats_with("write")


def written_formats(dataset_dir: str | os.PathLike[str]) -> list[Format]:
    """The registered formats (plugins included) whose folder this dataset holds, in
    registration order: what the build's index links to."""
    root = Path(dataset_dir)
    return [f for f in FORMATS.values() if f.folder and (root / f.folder).exists()]


__all__ = [
    "EXPORTS",
    "FORMATS",
    "Export",
    "FileCheck",
    "Format",
    "RunContext",
    "all_exports",
    "written_formats",
    "format_with",
    "formats_with",
    "register_export",
    "register_format",
]
