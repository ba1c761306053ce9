"""The import layers hold: the core imports no stage, stages import no builders, exports stand
alone (import-linter contracts in pyproject.toml, run on the installed layout)."""

from __future__ import annotations

import json
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


def _structure():
    """scripts/structure.py, imported from its folder (it is a script, not a package module)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import structure
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return structure


def test_no_import_cycles_and_no_module_over_500_lines():
    # a fresh process: with tempogen imported, grimp would walk the installed core alone
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "structure.py"), "--sizes"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    m = json.loads(out.stdout)
    assert "tempogen.generators.motion" in m["sizes"] and m["modules"] > 150  # every stage walked
    s = _structure()
    assert m["module_cycles"] == [], m["module_cycles"]
    assert m["part_cycles"] == [], m["part_edges"]
    assert m["part_edges"]["core"] == []  # the core imports no stage
    assert not s.too_long(m["sizes"]), s.too_long(m["sizes"])  # every stage and the core


def test_no_module_imports_another_modules_private_name():
    assert _structure().private_imports(ROOT) == []


def test_structure_checks_catch_a_long_module_and_a_private_import(tmp_path):
    # the two checks above, fed the thing each exists to catch
    s = _structure()
    assert s.too_long({"tempogen.a": 500, "tempogen.generators.b": 501}) == {
        "tempogen.generators.b": 501
    }
    pkg = tmp_path / "generators"
    pkg.mkdir()
    (pkg / "a.py").write_text("def _helper():\n    return 1\n")
    (pkg / "b.py").write_text("from __future__ import annotations\n\nfrom .a import _helper\n")
    (pkg / "c.py").write_text(
        "from tempogen.generators.a import (\n    __all__,\n    _helper as h,\n)\n"
    )
    assert s.private_imports(tmp_path) == [
        "generators/b.py:3: _helper from a",
        "generators/c.py:1: _helper from tempogen.generators.a",
    ]
