"""Resumable stages: a unit of work is finished when its record is committed after its outputs.

Every stage that writes files (clips, edited variants, Vinoground pairs, caption retrieval)
names each unit of work by a hash of its spec and the code version that produced it, writes
the unit's outputs, then commits a JSON record holding that hash. A rerun calls :func:`lookup`:
the record comes back only if its hash matches and every output is still there (and, for
outputs whose sha256 the record holds, still the same bytes); anything else (no record, a
corrupt one, a changed spec or version, a missing or altered output) means the unit is redone.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from tempogen import __version__
from tempogen.io import content_hash, dumps, write_text

__all__ = [
    "HASH_FIELD",
    "Unfinished",
    "spec_hash",
    "lookup",
    "probe",
    "journal",
    "staging",
    "discard_on_error",
    "commit",
]

HASH_FIELD = "spec_hash"  # the record field that names its unit
_PROBE: contextvars.ContextVar[bool] = contextvars.ContextVar("tempogen_probe", default=False)
_JOURNAL: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "tempogen_journal", default=None
)


class Unfinished(Exception):
    """Raised by :func:`lookup` under :func:`probe` when the unit is not finished yet."""


@contextlib.contextmanager
def probe() -> Iterator[None]:
    """Within the block, a :func:`lookup` that finds no finished unit raises
    :class:`Unfinished` instead of returning None, so a stage's unit function called here
    returns only what is already done, and never does the work (a distributed driver asks
    this before sending a unit to a worker)."""
    token = _PROBE.set(True)
    try:
        yield
    finally:
        _PROBE.reset(token)


@contextlib.contextmanager
def journal() -> Iterator[list[tuple[Path, dict[str, Any], list[Path]]]]:
    """Within the block, every :func:`commit` is also listed (record, data, staged outputs),
    so a worker can send what its unit committed to the driver that writes it for real."""
    entries: list[tuple[Path, dict[str, Any], list[Path]]] = []
    token = _JOURNAL.set(entries)
    try:
        yield entries
    finally:
        _JOURNAL.reset(token)


def spec_hash(spec: Any, version: int) -> str:
    """The hash naming a unit of work: its spec (JSON-able), the stage's version and tempogen's.

    Bumping ``version`` (or releasing a new tempogen) changes every hash, so every unit is redone.
    """
    return content_hash({"spec": spec, "render": version, "tempogen": __version__})


def lookup(
    record: Path,
    expected_hash: str,
    outputs: Iterable[Path] = (),
    digests: Mapping[str, Path] | None = None,
) -> dict[str, Any] | None:
    """The committed record of a finished unit, or None when the unit must be (re)done.

    ``outputs`` must all exist; ``digests`` maps a record field to the file whose sha256 that
    field must equal (costs a read of the file, so meant for the few outputs worth it).
    Under :func:`probe`, raises :class:`Unfinished` instead of returning None.
    """
    found = _lookup(record, expected_hash, outputs, digests)
    if found is None and _PROBE.get():
        raise Unfinished(str(record))
    return found


def _lookup(
    record: Path,
    expected_hash: str,
    outputs: Iterable[Path],
    digests: Mapping[str, Path] | None,
) -> dict[str, Any] | None:
    record = Path(record)
    digests = dict(digests or {})
    if not record.is_file() or not all(Path(p).is_file() for p in (*outputs, *digests.values())):
        return None
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None  # a damaged record is a unit to redo, not an error
    if not isinstance(data, dict) or data.get(HASH_FIELD) != expected_hash:
        return None
    if digests:
        from tempogen.video import sha256_file

        for field, path in digests.items():
            if data.get(field) != sha256_file(path):
                return None
    return data


def staging(final: Path) -> Path:
    """The hidden name beside ``final`` an output is written under until its unit commits."""
    final = Path(final)
    return final.with_name(f".{final.name}.partial")


@contextlib.contextmanager
def discard_on_error(*paths: Path) -> Iterator[None]:
    """Remove ``paths`` if the block fails, so no stray partial output outlives an error."""
    try:
        yield
    except BaseException:
        for path in paths:
            with contextlib.suppress(OSError):
                Path(path).unlink()
        raise


def commit(record: Path, data: Mapping[str, Any], staged: Iterable[Path] = ()) -> None:
    """Finish a unit: write its record atomically, then move each staged output into place.

    ``staged`` are final paths whose content sits at :func:`staging` names. The record goes
    first: a kill in between leaves a record whose output is missing (:func:`lookup` redoes
    the unit), never an output under its final name that no record vouches for.
    """
    if not isinstance(data.get(HASH_FIELD), str):
        raise ValueError(f"{record}: a record needs its {HASH_FIELD!r} to be committed")
    staged = [Path(p) for p in staged]
    missing = [str(staging(p)) for p in staged if not staging(p).is_file()]
    if missing:
        raise FileNotFoundError(f"{record}: staged outputs missing: {', '.join(missing)}")
    write_text(record, dumps(dict(data)) + "\n")
    for final in staged:
        os.replace(staging(final), final)
    entries = _JOURNAL.get()
    if entries is not None:
        entries.append((Path(record), dict(data), staged))
