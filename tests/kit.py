"""The test kit: what many test files need the same way (``from kit import ...``; ``tests/`` is
on the import path through its conftest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def tempogen(
    *args: str | Path,
    cwd: Path = REPO,
    pythonpath: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``python -m tempogen.cli ARGS`` in a fresh process (nothing imported yet) run from
    ``cwd``; ``pythonpath`` replaces PYTHONPATH ("" clears it), ``env`` adds variables."""
    environ = dict(os.environ)
    if pythonpath is not None:
        environ.pop("PYTHONPATH", None)
        if pythonpath:
            environ["PYTHONPATH"] = pythonpath
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "tempogen.cli", *map(str, args)],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Rows as JSON lines at ``path``; the path."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
