"""The wheel holds every subpackage: each folder with an ``__init__.py`` under the mapped
stage folders is listed in pyproject's ``packages`` (an editable install hides a missing one;
a GPU node installing the wheel found ``tempogen.editing.ops`` missing)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setuptools() -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10: pytest itself depends on tomli there
        import tomli as tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_shipped_asset_is_in_the_wheel() -> None:
    """Each data file under assets/ (the body model, the motion-capture clips and their
    licences) matches a package-data pattern: the wheel held no BVH file before."""
    patterns = _setuptools()["package-data"]["tempogen.assets"]
    assets = ROOT / "assets"
    files = [
        p.relative_to(assets) for p in assets.rglob("*")
        if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts
    ]  # fmt: skip
    missing = [
        str(f)
        for f in files
        if not any(f.match(pat) and len(f.parts) == len(Path(pat).parts) for pat in patterns)
    ]
    assert files and not missing, missing


def test_every_subpackage_is_in_the_wheel() -> None:
    setup = _setuptools()
    listed = set(setup["packages"])
    found = set()
    for name, folder in setup["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            if "__pycache__" not in rel:
                found.add(".".join((name, *rel)))
    assert found <= listed, sorted(found - listed)
