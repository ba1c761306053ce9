"""The type checker holds: it catches a wrong field of a Row or a wrong key of a labels' meta
(``make quality`` checks that the whole package passes), and every core module is strict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "typecheck.py"


def _typecheck(tmp_path: Path, *extra: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--extra-only", "--cache-dir", str(tmp_path / "cache")]
        + [str(e) for e in extra],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_wrong_types_are_caught(tmp_path):
    """mypy, as make quality runs it (the project's settings, the installed layout), reports
    each mistake of a module using rows and labels at its line, and nothing else. That the
    package itself is clean is make quality's check (a minute of mypy from an empty cache):
    this reads the package for its types only, in seconds."""
    bad = tmp_path / "uses_rows.py"
    bad.write_text(
        "from tempogen.kinds import Task\n"
        "from tempogen.labels import Labels\n"
        "from tempogen.manifest import Row, read_manifest\n"
        "\n"
        "\n"
        "def first_task(path: str) -> Task:\n"
        "    return read_manifest(path)[0].taks\n"  # line 7: no such field
        "\n"
        "\n"
        "def nouns(labels: Labels) -> dict[str, str]:\n"
        '    return labels.meta["nounz"]\n'  # line 11: no such meta key
        "\n"
        "\n"
        "def answer(row: Row) -> str:\n"
        "    return row.answer\n"  # line 15: answer is an int
        "\n"
        "\n"
        "def fine(row: Row) -> str:\n"
        '    return f\'{row.task} {row.meta.get("actor", "")} {row.options[row.answer]}\'\n',
        encoding="utf-8",
    )
    out = _typecheck(tmp_path, bad)
    errors = [ln for ln in out.stdout.splitlines() if ": error:" in ln]
    assert out.returncode == 1, out.stdout + out.stderr
    assert all(e.startswith(f"{bad}:") for e in errors), out.stdout
    by_line = {n: [e for e in errors if e.startswith(f"{bad}:{n}:")] for n in (7, 11, 15)}
    assert sum(map(len, by_line.values())) == len(errors), out.stdout  # line 19 is fine
    assert any('"Row" has no attribute "taks"' in e for e in by_line[7]), out.stdout
    assert any('"LabelsMeta" has no key "nounz"' in e for e in by_line[11]), out.stdout
    assert any('(got "int", expected "str")' in e for e in by_line[15]), out.stdout


def _covered(module: str, patterns: list[str]) -> bool:
    """Whether mypy's override ``patterns`` hold ``module`` (``a.b.*`` holds ``a.b`` too)."""
    return any(
        module == p or (p.endswith(".*") and (module + ".").startswith(p[:-1])) for p in patterns
    )


def test_every_core_module_is_strict():
    """A module added to the core is strict from its first line: each file under tempogen/
    is held to every flag of --strict. Not tempogen/__init__.py (no function to check; naming
    the package would make --strict-only check its whole tree) nor tempogen/facts/ (its own
    entry, from the work that typed the facts)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from typecheck import strict_modules
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    mods = strict_modules()
    files = sorted((ROOT / "tempogen").rglob("*.py"))
    names = [".".join(f.relative_to(ROOT).with_suffix("").parts) for f in files]
    names = [n.removesuffix(".__init__") for n in names if n != "tempogen.__init__"]
    core = [n for n in names if not _covered(n, ["tempogen.facts.*"])]
    assert {"tempogen.cli.app", "tempogen.config.load", "tempogen.observe"} <= set(core)
    assert [n for n in core if not _covered(n, mods)] == []
    assert not _covered("tempogen.cli", ["tempogen.config.*"])  # the matcher itself


def test_strict_set_names_real_core_modules():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from lint_imports import tomllib
        from typecheck import strict_modules
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    mods = strict_modules()
    assert {"tempogen.manifest", "tempogen.labels", "tempogen.kinds"} <= set(mods)
    dirs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for m in mods:
        # each package installs from its folder (tempogen.generators -> generators/)
        name = m.removesuffix(".*")
        package = max((p for p in dirs if name == p or name.startswith(p + ".")), key=len)
        rel = Path(dirs[package], *name[len(package) :].split(".")[1:])
        if m.endswith(".*"):  # a package and its modules
            assert (ROOT / rel / "__init__.py").is_file(), m
        else:
            assert (ROOT / rel.with_suffix(".py")).is_file() or (ROOT / rel).is_dir(), m
