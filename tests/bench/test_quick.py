"""Benches cannot rot: every bench under bench/ runs at a small size and reports its figures
(the build benches in test_quick_builds.py, the rest here)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from quick_bench import ROOT, SECOND_FILE, benches, run_quick


def test_make_bench_runs_every_bench() -> None:
    """Every bench under bench/ is in run_all's table (none forgotten, none unknown)."""
    files = {p.stem.removeprefix("bench_") for p in (ROOT / "bench").glob("bench_*.py")}
    assert set(benches()) == files
    assert set(SECOND_FILE) <= files  # the other file's share names real benches


# One test per bench (``make bench QUICK=1`` runs them all in one process): a failure names
# its bench, and ``-k`` reruns one.
@pytest.mark.slow
@pytest.mark.parametrize("name", [b for b in benches() if b not in SECOND_FILE])
def test_make_bench_quick_runs_every_bench(name: str, tmp_path) -> None:
    run_quick(name, tmp_path)


@pytest.mark.slow  # a bench run end to end
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
