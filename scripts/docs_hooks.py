"""MkDocs hooks: pages that are generated from the code, so they cannot go stale.

A page holds a marker line ``<!-- generated: NAME -->``; :func:`on_page_markdown` replaces it
with the text ``GENERATED[NAME]()`` returns (the config reference from the schema, the CLI
reference from the parser, ...)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GENERATED: dict[str, Callable[[], str]] = {}


def package_tree(dest: Path = ROOT / "build" / "griffe") -> Path:
    """A tree of links shaped like the installed package (``tempogen/generators`` and the
    other stage folders under ``tempogen/``, as pyproject's package-dir maps them), so that
    mkdocstrings reads ``tempogen.generators.scene`` from source without importing it. Only
    missing links are made and dangling ones removed, so two builds at once do not collide."""
    import tomllib  # Python 3.11 (the docs build's); the package itself supports 3.10

    dirs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    links = {e.name: e for e in (ROOT / "tempogen").iterdir()}
    for name, folder in dirs["package-dir"].items():
        if name.count(".") == 1:
            links[name.split(".")[1]] = ROOT / folder
    top = dest / "tempogen"
    top.mkdir(parents=True, exist_ok=True)
    for entry in top.iterdir():
        if entry.name not in links or not entry.exists():
            entry.unlink(missing_ok=True)
    for name, target in links.items():
        try:
            (top / name).symlink_to(target)
        except FileExistsError:
            pass
    return dest


package_tree()  # at import: mkdocstrings finds its paths before any hook's on_config runs


_MARKER = re.compile(r"^<!-- generated: ([\w-]+) -->$", re.M)


_DEFAULT = re.compile(r"\{\{ *default\.(\w+) *\}\}")


def default_numbers(markdown: str, where: str, numbers: dict[str, Any] | None = None) -> str:
    """``markdown`` with each ``{{ default.NAME }}`` replaced by that number of the default
    build (docs/default-build.json, counted from a real build by scripts/default_numbers.py);
    an unknown name is an error naming the page."""
    if numbers is None and _DEFAULT.search(markdown):
        numbers = json.loads((ROOT / "docs" / "default-build.json").read_text())

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        assert numbers is not None
        if name not in numbers:
            raise KeyError(
                f"{where}: {{{{ default.{name} }}}}: not a number of the default build "
                f"(docs/default-build.json has {', '.join(sorted(numbers))})"
            )
        value = numbers[name]
        return f"{value:,}" if isinstance(value, int) and abs(value) >= 10_000 else str(value)

    return _DEFAULT.sub(fill, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Fill each ``<!-- generated: NAME -->`` marker and each ``{{ default.NAME }}`` number;
    an unknown name fails the build."""

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in GENERATED:
            raise KeyError(f"{page.file.src_path}: no generator named {name!r}")
        return GENERATED[name]()

    return default_numbers(_MARKER.sub(fill, markdown), page.file.src_path)


def _config() -> str:
    from tempogen.config.reference import config_reference

    return config_reference()


def _cli() -> str:
    from tempogen.cli.app import build_parser
    from tempogen.cli.reference import cli_reference

    return cli_reference(build_parser())


def _manifest() -> str:
    from tempogen.cli.reference import manifest_reference

    return manifest_reference()


def _formats() -> str:
    from tempogen.cli.reference import formats_reference

    return formats_reference()


def _exit_codes() -> str:
    from tempogen.cli.reference import exit_codes_reference

    return exit_codes_reference()


GENERATED.update(
    {
        "config": _config,
        "cli": _cli,
        "manifest": _manifest,
        "formats": _formats,
        "exit-codes": _exit_codes,
    }
)
