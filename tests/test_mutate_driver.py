"""`make mutate`'s driver (scripts/mutate.py) at a tiny size, so it cannot rot unnoticed.

A throwaway project maps ``minipkg.sub`` to ``sub/`` (the same package-dir trick as this
repository). One function is fully tested; the other (the planted survivor) is called but its
result is never checked, so every mutant of it must be reported as surviving, never as killed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PYPROJECT = """\
[tool.setuptools]
package-dir = { "minipkg" = "minipkg", "minipkg.sub" = "sub" }

[tool.pytest.ini_options]
testpaths = ["tests"]
"""

CALC = """\
def double(x):
    return x * 2


def planted(x):
    return x - 1
"""

TEST_CALC = """\
from minipkg.sub.calc import double, planted


def test_double():
    assert double(3) == 6


def test_planted_runs():
    planted(3)  # covered, never checked
"""


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for rel, text in {
        "pyproject.toml": PYPROJECT,
        "minipkg/__init__.py": "",
        "sub/__init__.py": "",
        "sub/calc.py": CALC,
        "tests/test_calc.py": TEST_CALC,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.mark.slow  # the mutation driver end to end (pytest per mutant)
def test_driver_kills_tested_mutants_and_reports_the_planted_survivor(tmp_path):
    root = _project(tmp_path)
    out = tmp_path / "mutate.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "mutate.py"),
            "--root",
            str(root),
            "--work",
            str(tmp_path / "work"),
            "--module",
            "calc=sub/calc.py:tests/test_calc.py",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [result] = json.loads(out.read_text())
    assert result["module"] == "calc" and not result["error"]
    killed, survived = result["killed"], result["survived"]
    # mutants are named by the import path, which only the staged layout gives
    assert killed and all(".sub.calc.x_double__" in k for k in killed), result
    assert survived and all(".sub.calc.x_planted__" in s for s in survived), result
    assert not result["no_tests"] and not result["other"], result
    assert 3 <= result["mutants"] <= 6, result
    assert result["score"] == round(100 * len(killed) / result["mutants"], 2)
    assert "survived: minipkg.sub.calc.x_planted__" in proc.stdout
