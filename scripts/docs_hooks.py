"""MkDocs hooks: pages that are generated from the code, so they cannot go stale.

A page holds a marker line ``<!-- generated: NAME -->``; :func:`on_page_markdown` replaces it
with the text ``GENERATED[NAME]()`` returns (the config reference from the schema, the CLI
reference from the parser, ...)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GENERATED: dict[str, Callable[[], str]] = {}


def package_tree(dest: Path = ROOT / "build" / "griffe") -> Path:
    """A tree of links shaped like the installed package (``tempogen/generators`` and the
    other stage folders under ``tempogen/``, as pyproject's package-dir maps them), so that
    mkdocstrings reads ``tempogen.generators.scene`` from source without importing it."""
    import tomllib  # Python 3.11 (the docs build's); the package itself supports 3.10

    dirs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    top = dest / "tempogen"
    if top.exists():
        import shutil

        shutil.rmtree(top)
    top.mkdir(parents=True)
    for entry in (ROOT / "tempogen").iterdir():
        (top / entry.name).symlink_to(entry)
    for name, folder in dirs["package-dir"].items():
        link = top / name.split(".")[-1]
        if name.count(".") == 1 and not link.exists():  # a staged tree may hold it already
            link.symlink_to(ROOT / folder)
    return dest


package_tree()  # at import, before mkdocstrings collects (its paths: [build/griffe])

_MARKER = re.compile(r"^<!-- generated: ([\w-]+) -->$", re.M)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Fill each ``<!-- generated: NAME -->`` marker; an unknown name fails the build."""

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in GENERATED:
            raise KeyError(f"{page.file.src_path}: no generator named {name!r}")
        return GENERATED[name]()

    return _MARKER.sub(fill, markdown)


def _config() -> str:
    from tempogen.config.reference import config_reference

    return config_reference()


def _cli() -> str:
    from tempogen.cli.reference import cli_reference

    return cli_reference()


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
