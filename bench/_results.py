"""The one format every bench reports its headline figures in (bench/results.jsonl).

A figure compares ours with a peer measured in the same run: ``ratio`` is ours over the peer
with higher better for us, so a lower-is-better measurement (seconds) is given as a rate."""

from __future__ import annotations

import math
from typing import Any

KEYS = ("bench", "figure", "ours", "peer", "peer_value", "unit", "ratio")


def figure(bench: str, name: str, ours: float, peer: str, peer_value: float, unit: str) -> dict:
    """One results.jsonl row; both values must be finite and positive (a rate or a share)."""
    for what, v in (("ours", ours), ("peer_value", peer_value)):
        if not (isinstance(v, int | float) and math.isfinite(v) and v > 0):
            raise ValueError(f"{bench}: {name}: {what} must be a finite positive number, got {v!r}")
    ours, peer_value = _sig(ours), _sig(peer_value)
    return {
        "bench": bench,
        "figure": name,
        "ours": ours,
        "peer": peer,
        "peer_value": peer_value,
        "unit": unit,
        "ratio": _sig(ours / peer_value),
    }


def _sig(v: float) -> float:
    """Six significant digits: readable, and a small share (0.0055) keeps its precision."""
    return float(f"{float(v):.6g}")


def check(rows: list[dict[str, Any]]) -> None:
    """Every row has exactly the keys and a ratio that is ours over the peer's value."""
    for row in rows:
        if tuple(row) != KEYS:
            raise ValueError(f"results row has keys {list(row)}, expected {list(KEYS)}")
        if not math.isclose(row["ratio"], row["ours"] / row["peer_value"], rel_tol=1e-3):
            raise ValueError(f"{row['bench']}: {row['figure']}: ratio is not ours / peer")


def build_options(p: Any, name: str, jobs_help: str) -> None:
    """The options every whole-build bench takes: config, clips per task, jobs, results file."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    p.add_argument("--config", type=Path, default=root / "configs" / "default.yaml")
    p.add_argument("--samples", type=int, default=None, help="clips per task (default: config's)")
    p.add_argument("--jobs", type=int, default=2, help=f"{jobs_help} (default: 2)")
    p.add_argument("--out", type=Path, default=root / "bench" / "out" / f"{name}.json")


def save(out: Any, result: dict[str, Any]) -> None:
    """Write a bench's result JSON and print its figures, one per line."""
    import json

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for k, v in result["figures"].items():
        print(f"{k:>24}: {v}")
