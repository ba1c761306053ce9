"""The export registry: every layout a dataset's manifest is written as, by name and folder.

An export is a function ``write(rows, dataset_dir, out_dir)`` registered under a name with
:func:`register_export`; a build writes every registered export into ``dataset_dir / folder``,
in registration order. A new layout is one module that registers itself: name it in a config's
``plugins:`` and ``make dataset`` writes it too (see the README's worked example).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tempogen.text import first_sentence

WriteFn = Callable[[list[dict[str, Any]], Path, Path], Any]


@dataclass(frozen=True)
class Export:
    """One registered layout: its name, the folder it writes under a dataset, its writer."""

    name: str
    folder: str
    write: WriteFn
    description: str = ""

    def __call__(self, rows: list[dict[str, Any]], dataset_dir: str | os.PathLike[str]) -> Any:
        """Write ``rows`` (manifest rows) into ``dataset_dir / folder``."""
        base = Path(dataset_dir)
        return self.write(rows, base, base / self.folder)


EXPORTS: dict[str, Export] = {}


def register_export(
    name: str, folder: str | None = None, description: str = ""
) -> Callable[[WriteFn], WriteFn]:
    """Decorator: register ``write(rows, dataset_dir, out_dir)`` as the export ``name``."""

    def deco(fn: WriteFn) -> WriteFn:
        if name in EXPORTS:
            raise ValueError(f"export {name!r} is registered twice")
        text = description or first_sentence(fn.__doc__)
        EXPORTS[name] = Export(name, folder or name, fn, text)
        return fn

    return deco
