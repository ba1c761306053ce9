"""Check the import layers (import-linter contracts in pyproject.toml) on the installed layout.

The stage folders install as ``tempogen.generators``, ``tempogen.builders``, ... from top-level
folders, which import-linter cannot walk in place; this lays the package out as it installs (a
symlink per module) in a temporary folder and runs ``lint-imports`` there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def layout(dest: Path) -> None:
    """Mirror the installed package tree of ``tempogen`` under ``dest`` with symlinks."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    for pkg in tool["packages"]:
        src = ROOT / tool["package-dir"].get(pkg, pkg.replace(".", "/"))
        if pkg not in tool["package-dir"]:  # a subpackage: under its parent's folder
            parent, _, leaf = pkg.rpartition(".")
            src = ROOT / tool["package-dir"].get(parent, parent.replace(".", "/")) / leaf
            while not src.is_dir() and "." in parent:
                parent, _, up = parent.rpartition(".")
                leaf = f"{up}/{leaf}"
                src = ROOT / tool["package-dir"].get(parent, parent.replace(".", "/")) / leaf
        out = dest.joinpath(*pkg.split("."))
        out.mkdir(parents=True, exist_ok=True)
        for f in src.glob("*.py"):
            (out / f.name).symlink_to(f)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        layout(Path(tmp))
        env = {**os.environ, "PYTHONPATH": tmp}
        exe = Path(sys.executable).with_name("lint-imports")
        cmd = [str(exe), str(ROOT / "pyproject.toml"), "--no-cache"]
        return subprocess.call(cmd, cwd=tmp, env=env)


if __name__ == "__main__":
    sys.exit(main())
