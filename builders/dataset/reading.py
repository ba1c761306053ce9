"""Open a manifest for a command that reads it: its rows with their line numbers, the motion
plugins it was built with checked against those the user allowed, and the motion pattern of
every row that needs one.

A dataset built with a plugin motion names the plugin in each row (``plugins``); a manifest is
data, so ``tempogen audit verify``, ``tempogen edit`` and ``tempogen validate`` import those
modules only when the user names them with ``--plugins`` too (:mod:`tempogen.plugins`), and
otherwise stop naming the line. Problems are errors naming ``file:line``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tempogen.errors import InputFileError
from tempogen.generators.motion import Motion, get_motion
from tempogen.manifest import (
    Row,
    RowLike,
    import_manifest_plugins,
    is_manifest_row,
    read_lines,
    row_plugins,
    validate_row,
)


@dataclass(frozen=True)
class OpenManifest:
    """A manifest's rows, the line each came from, and the plugins imported for them."""

    path: Path
    lines: list[tuple[int, dict[str, Any]]]
    plugins: tuple[str, ...]

    @property
    def rows(self) -> list[dict[str, Any]]:
        return [row for _, row in self.lines]


def needs_motion(row: RowLike) -> bool:
    """Rows with per-frame tracks are answered, edited and verified through their pattern."""
    labels = row.labels if isinstance(row, Row) else row.get("labels")
    return isinstance(labels, dict) and "tracks" in labels


def row_motion(row: RowLike, where: str) -> Motion:
    """The registered motion pattern a row names; an unknown one is an :class:`InputFileError`
    naming ``where``, the generator and the plugins the row asked for."""
    name = row.generator if isinstance(row, Row) else row.get("generator")
    if not isinstance(name, str) or not name:
        raise InputFileError(f"{where}: generator: expected a motion pattern name, got {name!r}")
    try:
        return get_motion(name)
    except KeyError:
        plugins = row_plugins(row.to_json() if isinstance(row, Row) else row, where)
        why = (
            f"its plugins {list(plugins)} do not register it"
            if plugins
            else "no plugin registers it (name the module that does with --plugins)"
        )
        raise InputFileError(
            f"{where}: generator: unknown motion pattern {name!r}; {why}"
        ) from None


def open_manifest(
    path: str | os.PathLike[str], plugins: Sequence[str] = (), *, validate: bool = False
) -> OpenManifest:
    """Read a manifest, import ``plugins`` (``--plugins``), refuse a row naming a plugin the
    user did not allow, and resolve every row's pattern.

    With ``validate`` every manifest row (see :func:`~tempogen.manifest.is_manifest_row`) must
    pass the schema; a user's clip records with declared facts are taken as they are.
    """
    path = Path(path)
    lines = read_lines(path)
    if validate:
        for n, row in lines:
            if is_manifest_row(row):
                validate_row(row, f"{path}:{n}")
    loaded = import_manifest_plugins(lines, path, plugins)
    for n, row in lines:
        if needs_motion(row):
            row_motion(row, f"{path}:{n}")
    return OpenManifest(path, lines, loaded)
