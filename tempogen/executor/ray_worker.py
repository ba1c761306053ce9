"""What a Ray worker runs: one unit in a temp folder of its own (or under a shared ``out_dir``),
its new files sent back to the driver as :class:`Outputs`."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tempogen import resume


@dataclass
class Outputs:
    """The files a unit wrote in a worker's temp folder, to be written again by the driver.

    ``files``: plain outputs (``out_dir``-relative path, bytes), written first. ``commits``:
    each unit record committed through :func:`tempogen.resume.commit`, with the bytes of the
    outputs it staged; the driver commits them the same way, so the record still comes last.
    """

    files: list[tuple[str, bytes]] = field(default_factory=list)
    commits: list[tuple[str, dict[str, Any], list[tuple[str, bytes]]]] = field(default_factory=list)

    @property
    def nbytes(self) -> int:
        staged = sum(len(b) for _, _, out in self.commits for _, b in out)
        return sum(len(b) for _, b in self.files) + staged

    def write(self, out_dir: Path) -> None:
        """Write every file atomically under ``out_dir``, each unit's record last."""
        from tempogen.io import write_bytes

        for rel, data in self.files:
            write_bytes(out_dir / rel, data)
        for record, row, staged in self.commits:
            for rel, data in staged:
                write_bytes(resume.staging(out_dir / rel), data)
            resume.commit(out_dir / record, row, staged=[out_dir / rel for rel, _ in staged])


_READY: dict[str, Any] = {"plugins": None}


def _prepare(plugins: tuple[str, ...], folders: tuple[str, ...]) -> None:
    """Make a fresh worker process like a forked one: plugins imported (from the folders the
    driver found them in, on a shared path), OpenCV on one thread."""
    if _READY["plugins"] == plugins:
        return
    import cv2

    cv2.setNumThreads(1)
    if plugins:
        from tempogen.plugins import load_worker_plugins

        load_worker_plugins(plugins, folders)
    _READY["plugins"] = plugins


def run_unit(
    fn: Callable[[Any, Path], Any],
    item: Any,
    shared_out: str | None,
    inputs: dict[str, bytes],
    plugins: tuple[str, ...] = (),
    folders: tuple[str, ...] = (),
) -> tuple[Any, Outputs | None]:
    """Run one unit in a worker: under ``shared_out`` itself, else in a temp folder of its own
    whose new files come back as :class:`Outputs` (the ``inputs`` are written there first)."""
    _prepare(tuple(plugins), tuple(folders))
    if shared_out is not None:
        return fn(item, Path(shared_out)), None
    with tempfile.TemporaryDirectory(prefix="tempogen-unit-") as tmp:
        root = Path(tmp)
        for rel, data in inputs.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        with resume.journal() as committed:
            result = fn(item, root)
        return result, _collect(root, committed, set(inputs))


def _collect(
    root: Path, committed: list[tuple[Path, dict[str, Any], list[Path]]], skip: set[str]
) -> Outputs:
    """The files a unit left under ``root``: its committed records (those it did not discard
    afterwards) with their staged outputs, and every other new file."""
    out = Outputs()
    claimed = set(skip)
    for record, row, staged in committed:
        if not record.is_file() or not all(p.is_file() for p in staged):
            continue  # committed, then discarded by the unit (a variant that did not read back)
        rels = [p.relative_to(root).as_posix() for p in staged]
        out.commits.append(
            (record.relative_to(root).as_posix(), row, [(r, (root / r).read_bytes()) for r in rels])
        )
        claimed.update([record.relative_to(root).as_posix(), *rels])
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and rel not in claimed and not path.name.startswith("."):
            out.files.append((rel, path.read_bytes()))
    return out
