"""Type-check tempogen with mypy (settings in pyproject.toml's ``[tool.mypy]``).

The stage folders install as ``tempogen.generators``, ``tempogen.builders``, ... from top-level
folders, which mypy cannot map in place; this lays the package out as it installs (a symlink per
module, :func:`lint_imports.layout`) and runs mypy there, printing each error under the path of
the file in this checkout. ``--strict-only`` checks only the modules pyproject.toml holds to
every flag of ``--strict`` (fast: the rest is read for its types, its errors not reported);
``--extra-only FILE...`` checks only the files given (seconds: the test that mypy catches a
wrong field).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lint_imports import ROOT, layout, tomllib  # noqa: E402

CACHE = ROOT / "build" / "mypy-cache"
_WHERE = re.compile(r"^(?P<path>[^:\n]+\.pyi?)(?=:)", re.MULTILINE)


STRICT_FLAGS = (
    "disallow_any_generics",
    "disallow_subclassing_any",
    "disallow_untyped_calls",
    "disallow_untyped_defs",
    "disallow_incomplete_defs",
    "check_untyped_defs",
    "disallow_untyped_decorators",
    "warn_unused_ignores",
    "warn_return_any",
    "no_implicit_reexport",
    "strict_equality",
    "extra_checks",
)  # what --strict turns on per module (warn_redundant_casts is global in pyproject.toml)


def strict_modules() -> list[str]:
    """The modules pyproject.toml's mypy overrides hold to every flag of ``--strict``."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    return [
        m
        for o in cfg.get("overrides", [])
        if all(o.get(f) is True for f in STRICT_FLAGS)
        for m in o["module"]
    ]


def _checkout_path(tree: Path, match: re.Match[str]) -> str:
    """An error's path in the laid-out tree as the file's path in this checkout."""
    path = Path(tree, match["path"])
    if not path.exists():
        return match["path"]
    real = Path(os.path.realpath(path))
    return str(real.relative_to(ROOT)) if real.is_relative_to(ROOT) else str(real)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strict-only", action="store_true", help="check the strict modules only")
    ap.add_argument(
        "--extra-only",
        action="store_true",
        help="check only the extra files (the package is read for its types, not reported)",
    )
    ap.add_argument("--cache-dir", type=Path, default=CACHE, help=f"mypy's cache (default {CACHE})")
    ap.add_argument("extra", nargs="*", help="more files to check with the package (tests)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        layout(tree)
        if args.extra_only:
            targets = ["--follow-imports=silent", "--no-warn-unused-configs"]
        elif args.strict_only:  # as files: mypy takes modules or files, not both
            # a package's ``.*`` entry (itself and its modules): its folder
            paths = [tree.joinpath(*m.removesuffix(".*").split(".")) for m in strict_modules()]
            targets = [str(p.with_suffix(".py")) for p in paths if p.with_suffix(".py").exists()]
            targets += [str(p) for p in paths if p.is_dir() and any(p.glob("*.py"))]
            # the rest is read, not reported; so its overrides go unused here
            targets[:0] = ["--follow-imports=silent", "--no-warn-unused-configs"]
        else:
            targets = [str(tree / "tempogen")]
        cmd = [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(args.cache_dir.resolve()),
            *targets,
            *[str(Path(e).resolve()) for e in args.extra],
        ]
        env = {**os.environ, "MYPYPATH": tmp}
        proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
        out = _WHERE.sub(lambda m: _checkout_path(tree, m), proc.stdout)
        sys.stdout.write(out)
        sys.stderr.write(proc.stderr)
        return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
