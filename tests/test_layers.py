"""The import layers hold: the core imports no stage, stages import no builders, exports stand
alone (import-linter contracts in pyproject.toml, run on the installed layout)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_kept():
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "lint_imports.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "3 kept, 0 broken" in out.stdout


def test_no_import_cycles_and_builders_modules_small():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from structure import measure
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    m = measure()
    assert m["module_cycles"] == [], m["module_cycles"]
    assert m["part_cycles"] == [], m["part_edges"]
    assert m["part_edges"]["core"] == []  # the core imports no stage
    big = {k: n for k, n in m["sizes"].items() if k.startswith("tempogen.builders.") and n > 500}
    assert not big, big
