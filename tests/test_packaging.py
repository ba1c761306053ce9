"""The wheel holds every subpackage: each folder with an ``__init__.py`` under the mapped
stage folders is listed in pyproject's ``packages`` (an editable install hides a missing one;
a GPU node installing the wheel found ``tempogen.editing.ops`` missing)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_in_the_wheel() -> None:
    try:
        import tomllib
    except ImportError:  # Python 3.10: pytest itself depends on tomli there
        import tomli as tomllib
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setup["packages"])
    found = set()
    for name, folder in setup["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            if "__pycache__" not in rel:
                found.add(".".join((name, *rel)))
    assert found <= listed, sorted(found - listed)
