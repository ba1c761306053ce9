"""Benches cannot rot: every bench under bench/ runs at a small size and reports its figures."""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEYS = ["bench", "figure", "ours", "peer", "peer_value", "unit", "ratio"]


def _benches() -> list[str]:
    """The benches bench/run_all.py's table names (read from its source: importing it would
    put bench/ and the repository on this process's import path)."""
    tree = ast.parse((ROOT / "bench" / "run_all.py").read_text(encoding="utf-8"))
    (table,) = [
        node.value
        for node in tree.body
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "BENCHES"
    ]
    return list(ast.literal_eval(table))


def test_make_bench_runs_every_bench() -> None:
    """Every bench under bench/ is in run_all's table (none forgotten, none unknown)."""
    benches = {p.stem.removeprefix("bench_") for p in (ROOT / "bench").glob("bench_*.py")}
    assert set(_benches()) == benches


# One test per bench (``make bench QUICK=1`` runs them all in one process): a failure names
# its bench, and ``-k`` reruns one.
@pytest.mark.slow
@pytest.mark.parametrize("name", _benches())
def test_make_bench_quick_runs_every_bench(name: str, tmp_path) -> None:
    out = tmp_path / "results.jsonl"
    proc = subprocess.run(
        [sys.executable, "bench/run_all.py", "--quick", "--only", name, "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and {r["bench"] for r in rows} == {name}
    for r in rows:
        assert sorted(r) == sorted(KEYS), r
        assert all(math.isfinite(r[k]) and r[k] > 0 for k in ("ours", "peer_value", "ratio")), r
        assert math.isclose(r["ratio"], r["ours"] / r["peer_value"], rel_tol=1e-3), r
    if name == "human":
        figures = {r["figure"] for r in rows}
        assert any(f.startswith("human clip") for f in figures)  # issue 12: vs the naive loop
        assert any(f.startswith("3D-object clip") for f in figures)


def test_gpu_frame_dump_is_deterministic_and_compares(tmp_path) -> None:
    """scripts/device/dump_frames.py (the GPU comparison): one GL gives identical frames."""
    script = ROOT / "scripts" / "device" / "dump_frames.py"
    args = ["--frames", "30", "--motions", "cube_spin"]
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    for out, extra in ((first, []), (second, ["--compare", str(first)])):
        proc = subprocess.run(
            [sys.executable, str(script), str(out), *args, *extra],
            cwd=ROOT, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("cube_spin_")]
    assert [ln.split(":")[0] for ln in lines] == ["cube_spin_0", "cube_spin_15", "cube_spin_29"]
    assert all("max 0, mean 0.000" in ln for ln in lines), lines
