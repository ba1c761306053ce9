"""The quick benches' shared part (tests/bench/test_quick*.py): the table of benches and one
bench run at its quick size, its figures checked. The benches are split over two test files so
that pytest-xdist's two workers (`make test`, --dist loadfile) share them out."""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KEYS = ["bench", "figure", "ours", "peer", "peer_value", "unit", "ratio"]
# the benches tests/bench/test_quick_builds.py runs (whole builds, Ray, a URL, retrieval); the
# others run in tests/bench/test_quick.py
SECOND_FILE = ("generate", "ray", "remote", "retrieval")


def benches() -> list[str]:
    """The benches bench/run_all.py's table names (read from its source: importing it would
    put bench/ and the repository on this process's import path)."""
    tree = ast.parse((ROOT / "bench" / "run_all.py").read_text(encoding="utf-8"))
    (table,) = [
        node.value
        for node in tree.body
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "BENCHES"
    ]
    return list(ast.literal_eval(table))


def run_quick(name: str, tmp_path: Path) -> None:
    """``bench/run_all.py --quick --only NAME``: exit 0 and well-formed figures."""
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
