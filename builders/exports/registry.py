"""The format registry: every benchmark layout a dataset holds, as one object registered once.

A :class:`Format` names its folder under a dataset and the parts it has: ``write`` (rows ->
files, run by every build), ``validate`` (``tempogen validate``), ``score`` (``tempogen
eval NAME``), ``run`` (``tempogen eval run``: ask a model its questions) and the top-level
entries it ``owns`` (what ``generate --replace`` deletes and the build's ledger lists). Every
command reads :data:`FORMATS`, so a plugin module that calls :func:`register_format` (or the
older :func:`register_export`, a format that only writes) gets all of them: name it in a
config's ``plugins:`` or with ``--plugins`` (docs/extend/export.md's worked example).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tempogen.registry import Registry
from tempogen.text import first_sentence

MAX_PROBLEMS = 20  # per file: past this a file is clearly broken throughout

WriteFn = Callable[[list[dict[str, Any]], Path, Path], Any]


@dataclass(frozen=True)
class FileCheck:
    """One checked file: what it is, how many records it holds, and what is wrong with it."""

    path: Path
    kind: str
    records: int
    noun: str
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        """``{path}: valid {kind}, {n} {noun}s``."""
        plural = "" if self.records == 1 else "s"
        return f"{self.path}: valid {self.kind}, {self.records} {self.noun}{plural}"

    def messages(self) -> list[str]:
        """The problems, at most :data:`MAX_PROBLEMS` of them and a count of the rest."""
        out = list(self.problems[:MAX_PROBLEMS])
        if len(self.problems) > MAX_PROBLEMS:
            out.append(f"{self.path}: ... and {len(self.problems) - MAX_PROBLEMS} more problems")
        return out


@dataclass
class RunContext:
    """What ``tempogen eval run`` hands a format's ``run``: the dataset root, ``ask`` (one
    chat request -> the reply, cached and retried), the output folder and the run's options.
    ``predictions`` is where the caller asked for this set's predictions (None: the
    format's own name under ``out``)."""

    root: Path
    ask: Callable[[list[dict[str, Any]]], str]
    out: Path
    model: str
    settings: Sequence[str] = ("uniform16",)
    limit: int | None = None
    progress: bool = True
    predictions: Path | None = None


ValidateFn = Callable[[Path], list[FileCheck]]
ScoreFn = Callable[[Path, str], dict[str, Any]]  # (dataset folder, predictions as given)
RunFn = Callable[[RunContext], tuple[Path, dict[str, Any]]]


@dataclass(frozen=True)
class Format:
    """One benchmark layout and everything tempogen does with it; each part is optional.

    - ``write(rows, dataset_dir, out_dir)``: write the layout into ``dataset_dir / folder``.
    - ``claims(path)``: is this file or folder one of this format's (default: a folder named
      ``folder``); ``validate(path)`` then checks it, one :class:`FileCheck` per file.
    - ``score(dataset, predictions)``: a scores dict with ``benchmark``, ``models`` (empty
      when no prediction matched) and ``problems`` (``{"where", "reason"}``); ``reads``:
      globs, under the folder scored, of the data files it reads; ``data_file``: the file
      that marks the format's folder (so ``eval`` takes a dataset root too); ``show``:
      the scores as text lines (default: one line per model).
    - ``run(ctx)``: ask a model every question (a :class:`RunContext`), return the
      predictions' path and their scores; ``run_needs``: the file under a dataset root
      whose presence means there is something to ask; ``run_writes``: the files it writes
      under ``ctx.out``.
    - ``owns``: the top-level entries of a dataset it writes (default: its ``folder``).
    """

    name: str
    folder: str = ""
    write: WriteFn | None = None
    description: str = ""
    claims: Callable[[Path], bool] | None = None
    validate: ValidateFn | None = None
    score: ScoreFn | None = None
    reads: tuple[str, ...] = ()
    data_file: str | None = None
    show: Callable[[dict[str, Any]], list[str]] | None = None
    run: RunFn | None = None
    run_needs: str | None = None
    run_writes: tuple[str, ...] = ()
    owns: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.folder:
            object.__setattr__(self, "folder", self.name)
        if not self.owns:
            object.__setattr__(self, "owns", (self.folder,))

    def __call__(self, rows: list[dict[str, Any]], dataset_dir: str | os.PathLike[str]) -> Any:
        """Write ``rows`` (manifest rows) into ``dataset_dir / folder``."""
        if self.write is None:
            raise TypeError(f"format {self.name!r} has no writer")
        base = Path(dataset_dir)
        return self.write(rows, base, base / self.folder)

    def is_mine(self, path: Path) -> bool:
        """Whether ``path`` (a file or folder) is one of this format's, by :attr:`claims`."""
        if self.claims is not None:
            return self.claims(path)
        return path.is_dir() and path.name == self.folder


Export = Format  # the name a format that only writes had before formats did more

FORMATS: Registry[Format] = Registry("format")
EXPORTS = FORMATS  # the same registry, under the name plugins and tests have used


def register_format(fmt: Format) -> Format:
    """Register ``fmt`` under its name (a name taken is refused); returns it."""
    return FORMATS.add(fmt.name, fmt)


def register_export(
    name: str, folder: str | None = None, description: str = ""
) -> Callable[[WriteFn], WriteFn]:
    """Decorator: register ``write(rows, dataset_dir, out_dir)`` as the format ``name`` that
    only writes (:func:`register_format` gives it a validator, a scorer, a runner too)."""

    def deco(fn: WriteFn) -> WriteFn:
        text = description or first_sentence(fn.__doc__)
        register_format(Format(name, folder or name, fn, text))
        return fn

    return deco


def formats_with(part: str) -> list[Format]:
    """The registered formats that have ``part`` (``"write"``, ``"validate"``, ``"score"``,
    ``"run"``), in registration order."""
    return [f for f in FORMATS.values() if getattr(f, part) is not None]


def format_with(part: str, name: str, where: str = "", also: Sequence[str] = ()) -> Format:
    """The format ``name`` if it has ``part``; else the registry's error naming the formats
    that have it (and ``also``, other words the caller takes, such as ``run``)."""
    fmt = FORMATS.get(name)
    if fmt is None or getattr(fmt, part) is None:
        known = [*(f.name for f in formats_with(part)), *also]
        raise FORMATS.unknown(name, where, known)
    return fmt


def owned_entries() -> tuple[str, ...]:
    """The top-level entries of a dataset that its formats write, in registration order."""
    return tuple(dict.fromkeys(e for f in FORMATS.values() for e in f.owns))
