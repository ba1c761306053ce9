"""scripts/reliability.py's bad-input catalogue (RELIABILITY.md): every case is a clear exit-2
error naming its place, with no traceback, its inputs intact and nothing written outside its
folder. The catalogue mostly waits (slow and refusing servers, bounded children), so it runs
in make test's parallel pass, here, early in the run where that wait overlaps other files'
work; tests/test_reliability.py runs the script's timed kills and signals alone afterwards."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "reliability.py"


@pytest.mark.slow
def test_reliability_bad_inputs_are_clear_errors(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("reliability", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "r.json"
    rc = module.main(["--part", "bad-inputs", "--out", str(out)])
    report = json.loads(out.read_text())
    assert sorted(report) == ["bad_inputs", "wall_s"]
    bad = report["bad_inputs"]
    unclear = [c for c in bad["cases"] if not c["clear"]]
    assert not unclear, unclear
    assert bad["total"] >= 45
    assert rc == 0
