"""Benchmark layouts written from a manifest: TOMATO, Video-TT, lmms-eval, Hugging Face (and the
rendered Vinoground pairs). Exports do not import each other; what they share lives in the core.

Importing this package registers the built-in layouts (:mod:`.registry`); :func:`all_exports`
lists every registered one, plugins included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tempogen.builders.exports.hf import export_hf
from tempogen.builders.exports.lmms_eval import export_lmms_eval
from tempogen.builders.exports.registry import EXPORTS, Export, register_export
from tempogen.builders.exports.tomato import export_tomato
from tempogen.builders.exports.videott import export_videott


@register_export("tomato", description="TOMATO's data/*.json and videos/ tree")
def _tomato(rows: list[dict[str, Any]], dataset_dir: Path, out_dir: Path) -> Any:
    return export_tomato(rows, dataset_dir, out_dir)


@register_export("videott", description="Video-TT question sets (videott.json)")
def _videott(rows: list[dict[str, Any]], dataset_dir: Path, out_dir: Path) -> Any:
    return export_videott(rows, out_dir)


@register_export("lmms_eval", description="an lmms-eval task folder")
def _lmms_eval(rows: list[dict[str, Any]], dataset_dir: Path, out_dir: Path) -> Any:
    return export_lmms_eval(rows, dataset_dir, out_dir)


@register_export("hf", description="a Hugging Face datasets layout (Parquet + card)")
def _hf(rows: list[dict[str, Any]], dataset_dir: Path, out_dir: Path) -> Any:
    return export_hf(rows, dataset_dir, out_dir)


def all_exports() -> list[Export]:
    """Every registered export, built-ins first, in registration order."""
    return list(EXPORTS.values())


__all__ = ["EXPORTS", "Export", "all_exports", "register_export"]
