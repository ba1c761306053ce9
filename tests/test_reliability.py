"""scripts/reliability.py, the run RELIABILITY.md records, at a small size: every bad input in
its catalogue is a clear exit-2 error (inputs intact, nothing written outside), a build killed
twice resumes to the clean manifest, and SIGTERM and Ctrl-C stop a build cleanly.

The catalogue (mostly waiting on slow or refusing servers, little CPU) runs in the parallel
pass; the kills and signals, whose stops are timed, run alone afterwards (marker serial)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "reliability.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reliability", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_reliability_bad_inputs_are_clear_errors(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    rc = _script().main(["--part", "bad-inputs", "--out", str(out)])
    report = json.loads(out.read_text())
    assert sorted(report) == ["bad_inputs", "wall_s"]
    bad = report["bad_inputs"]
    unclear = [c for c in bad["cases"] if not c["clear"]]
    assert not unclear, unclear
    assert bad["total"] >= 45
    assert rc == 0


@pytest.mark.slow
@pytest.mark.serial  # stop timings: run alone (Makefile)
def test_reliability_run_small(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    argv = ["--kills", "2", "--signals", "2", "--samples", "1", "--out", str(out)]
    rc = _script().main([*argv, "--part", "builds"])
    report = json.loads(out.read_text())
    assert sorted(report) == ["kills", "signals", "wall_s"]
    k = report["kills"]
    assert k["kills"] == 2 and k["final_exit"] == 0
    assert k["manifest_identical"] and not k["videos_undecodable"] and not k["hidden_files_left"]
    sg = report["signals"]
    assert sg["clean_stops"] == len(sg["stops"]) == 2, sg["stops"]
    assert sg["final_exit"] == 0 and sg["manifest_identical"]
    assert rc == 0
