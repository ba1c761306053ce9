"""scripts/reliability.py, the run RELIABILITY.md records, at a small size: a build killed
twice resumes to the clean manifest, and SIGTERM and Ctrl-C stop a build cleanly. The stops
are timed, so this runs alone after the parallel pass (marker serial); the script's bad-input
catalogue runs in the parallel pass (tests/core/test_core_reliability_catalogue.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "reliability.py"
pytestmark = pytest.mark.serial  # stop timings: run alone (Makefile)


@pytest.mark.slow
def test_reliability_run_small(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("reliability", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "r.json"
    argv = ["--kills", "2", "--signals", "2", "--samples", "1", "--out", str(out)]
    rc = module.main([*argv, "--part", "builds"])
    report = json.loads(out.read_text())
    assert sorted(report) == ["kills", "signals", "wall_s"]
    k = report["kills"]
    assert k["kills"] == 2 and k["final_exit"] == 0
    assert k["manifest_identical"] and not k["videos_undecodable"] and not k["hidden_files_left"]
    sg = report["signals"]
    assert sg["clean_stops"] == len(sg["stops"]) == 2, json.dumps(sg["stops"], indent=1)
    assert sg["final_exit"] == 0 and sg["manifest_identical"]
    assert rc == 0
