"""Caption pairs in user files: CSV (``pos,neg`` or Vinoground's ``pos_cal,neg_cal``) or JSON
lines in, JSON lines out, through the project's readers and atomic writers (:mod:`tempogen.io`)."""

from __future__ import annotations

import csv
import io
import itertools
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tempogen.errors import InputFileError, MissingFileError
from tempogen.io import read_jsonl_lines, read_text, write_jsonl
from tempogen.retrieval.pairs import CaptionPair


def _file_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    with open(path, "rb") as f:
        for line in itertools.islice(f, 1000):
            if line.strip():
                return "jsonl" if line.lstrip(b"\xef\xbb\xbf \t").startswith(b"{") else "csv"
    return "jsonl"


MAX_PAIRS = 10_000
"""The most pairs one ``captions generate -n`` asks for (Vinoground has 500): more would be
thousands of LLM requests, so it is refused up front."""


def load_pairs(path: str | os.PathLike[str]) -> list[CaptionPair]:
    """Read a CSV (header with ``pos,neg``, optional ``major,minor``) or JSONL file of pairs.

    Vinoground's own ``vinoground.csv`` columns ``pos_cal,neg_cal`` are accepted too. Both go
    through the project's readers (:mod:`tempogen.io`): bytes that are not UTF-8, bad JSON, a
    repeated key, a lone surrogate or a bad pair are an :class:`InputFileError` naming
    ``file:line``.
    """
    path = Path(path)
    if not path.exists():
        raise MissingFileError(f"{path}: no such file")
    if path.is_dir():
        raise InputFileError(f"{path}: is a folder, expected a CSV or JSONL file of pairs")
    source = f"file:{path.name}"
    pairs: list[CaptionPair] = []
    if _file_format(path) == "csv":
        text = read_text(path, "caption pairs")
        reader = csv.reader(io.StringIO(text, newline=""))
        try:
            header = next(reader, None)
            if header is None:
                raise InputFileError(f"{path}:1: empty file, expected a header with pos,neg")
            cols = [h.strip().lower() for h in header]
            pos_col = _column(cols, ("pos", "pos_cal"))
            neg_col = _column(cols, ("neg", "neg_cal"))
            if pos_col is None or neg_col is None:
                raise InputFileError(
                    f"{path}:1: header must name columns pos and neg, found {', '.join(cols)}"
                )
            named = {k: i for i, k in enumerate(cols)}
            for row in reader:
                line = reader.line_num
                if not any(c.strip() for c in row):
                    continue
                rec: dict[str, Any] = {k: row[i] if i < len(row) else "" for k, i in named.items()}
                rec["pos"], rec["neg"] = _cell(row, pos_col), _cell(row, neg_col)
                rec["source"] = source
                rec["provenance"] = {"file": str(path), "line": line}
                pairs.append(_located(path, line, rec))
        except csv.Error as exc:
            raise InputFileError(f"{path}:{reader.line_num}: not valid CSV: {exc}") from exc
    else:
        for line, rec in read_jsonl_lines(path):
            rec.setdefault("source", source)
            if not rec.get("provenance"):
                rec["provenance"] = {"file": str(path), "line": line}
            pairs.append(_located(path, line, rec))
    return pairs


def _column(cols: list[str], names: Iterable[str]) -> int | None:
    for name in names:
        if name in cols:
            return cols.index(name)
    return None


def _cell(row: list[str], i: int) -> str:
    return row[i] if i < len(row) else ""


def _located(path: Path, line: int, rec: dict[str, Any]) -> CaptionPair:
    try:
        return CaptionPair.from_json(rec)
    except (ValueError, TypeError, AttributeError) as exc:
        raise InputFileError(f"{path}:{line}: {exc}") from exc


def write_pairs(path: str | os.PathLike[str], pairs: Iterable[CaptionPair]) -> None:
    """Write pairs as JSON lines, atomically (complete file or none)."""
    write_jsonl(path, (p.to_json() for p in pairs))
