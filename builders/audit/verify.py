"""Pixel verification: re-derive each simulated clip's answer from its video's pixels.

For every manifest row with per-frame labels, decode TOMATO's 16 uniformly sampled frames,
find each object by its colour, measure positions, turns and lamp states, and answer the
question from those measurements with the same observer the generator used. What is read
from the manifest: each object's colour, size and role, what the question asks about, and
where an invisible floor line lies. Every position, turn and lit state comes from pixels.

Rows without per-frame labels cannot be checked this way: an external clip's declared answer,
a row marked ``"verified": "declared"`` (an edit of one, an imported TOMATO answer), or an
answer in free words. They are listed apart as "declared, not verified" and never counted as
agreeing. (The pixel readers find objects by the colours and sizes the per-frame labels
record; an external clip records none, and a reader that guessed which pixels are the
subject would certify a guess.)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tempogen import observe
from tempogen.builders.audit.noise import is_noise, noise_states
from tempogen.builders.audit.pixels import pixel_labels
from tempogen.builders.audit.pixels3d import pixel_states_3d
from tempogen.builders.dataset.reading import needs_motion, open_manifest, row_motion
from tempogen.errors import InputFileError
from tempogen.executor import Executor, LocalExecutor, Stage
from tempogen.facts import answer_of
from tempogen.generators.motion import SAMPLES
from tempogen.labels import Labels
from tempogen.manifest import MANIFEST_SCHEMA, Row, RowLike, as_row
from tempogen.questions import answer_key
from tempogen.video import VideoError, read_video


@dataclass(frozen=True)
class Verdict:
    """One row's check: the manifest's answer key and the one the pixels give."""

    id: str
    expected: str
    seen: str | None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.seen == self.expected


def verify_row(given: RowLike, manifest_dir: Path) -> Verdict | None:
    """Check one row; None for rows without per-frame labels (external clips, a user's clip
    record as JSON). A row with them is a manifest row and is read as a :class:`Row`."""
    if not needs_motion(given):
        return None
    row = as_row(given)
    if row.answer_key is None:
        raise InputFileError(f"row {row.id!r}: answer_key: required to check per-frame labels")
    labels = Labels.from_json(row.labels)
    motion = row_motion(row, f"row {row.id!r}")
    fact = motion.fact
    idx = observe.uniform_indices(labels.num_frames, SAMPLES)
    if is_noise(row.labels):
        return _verify_noise(row, row.answer_key, manifest_dir, labels, idx, motion)
    expected = row.answer_key
    try:
        frames = list(read_video(manifest_dir / row.video, idx))
    except VideoError as exc:
        return Verdict(row.id, expected, None, str(exc))
    try:
        measured = motion.pixel_states(frames, labels, idx)
        if measured is None and motion.renderer != "2d":
            measured = pixel_states_3d(frames, labels, idx)
        if measured is None:
            spin = labels.query.fact == "rotation" and labels.query.kind == "spin"
            measured = pixel_labels(frames, labels, idx, rotation=spin)
    except ValueError as exc:  # what the answer is read from is not in the pixels
        return Verdict(row.id, expected, None, str(exc))
    value = answer_of(measured, idx)
    seen = None if value is None else answer_key(fact, value)
    detail = "" if value is not None else "pixels do not determine an answer"
    return Verdict(row.id, expected, seen, detail)


def _verify_noise(
    row: Row, expected: str, manifest_dir: Path, labels: Labels, idx: Any, motion: Any
) -> Verdict:
    """A temporal-noise row: answered from the motion signal, and failed outright when a
    single frame shows where the objects are."""
    try:
        measured, cert = noise_states(manifest_dir / row.video, labels, idx, motion.renderer)
    except (VideoError, ValueError) as exc:
        return Verdict(row.id, expected, None, str(exc))
    if not cert["single_frame_blind"]:
        return Verdict(row.id, expected, None, f"a single frame shows it: {cert}")
    value = answer_of(measured, idx)
    seen = None if value is None else answer_key(motion.fact, value)
    detail = "" if value is not None else "the motion signal does not determine an answer"
    return Verdict(row.id, expected, seen, detail)


@dataclass(frozen=True)
class Declared:
    """A row whose answer rests on a declaration: nothing in it can be read from pixels."""

    id: str
    reason: str


# Why a row cannot be verified from pixels (the report groups rows by these).
FREE_WORDS = "answer in free words"
DECLARED_MARK = "marked verified: declared"
NO_STATES = "declared fact, no per-frame labels"


def declared_reason(row: RowLike) -> str | None:
    """Why ``row`` cannot be verified from pixels, or None when it has per-frame labels."""
    labels = row.get("labels") or {}
    if "tracks" in labels:
        return None
    if not row.get("answer_key") or not labels:
        return FREE_WORDS
    if row.get("verified") == "declared":
        return DECLARED_MARK
    return NO_STATES


@dataclass(frozen=True)
class Report:
    """Agreement between manifest answers and pixel answers; the rows nothing could check."""

    verdicts: list[Verdict]
    declared: list[Declared]

    @property
    def skipped(self) -> int:
        """Rows not verified (declared): never counted as agreeing."""
        return len(self.declared)

    @property
    def checked(self) -> int:
        return len(self.verdicts)

    @property
    def agreed(self) -> int:
        return sum(v.ok for v in self.verdicts)

    @property
    def percent(self) -> float:
        return 100.0 * self.agreed / self.checked if self.checked else 0.0

    @property
    def disagreements(self) -> list[Verdict]:
        return [v for v in self.verdicts if not v.ok]


def _manifest_row(row: dict[str, Any], where: str) -> Row:
    """A row with per-frame labels as a :class:`Row`, not validated: verify reports a wrong
    answer rather than refusing it; a field the record cannot lack is an error naming it."""
    missing = [f for f in MANIFEST_SCHEMA["required"] if f not in row]
    if missing:
        raise InputFileError(f"{where}: {missing[0]}: required field is missing")
    return as_row(row)


def _video(row: Row) -> list[str]:
    return [row.video] if row.tracks else []


# A pixel check: reads one video, writes nothing.
VERIFY = Stage("verify", verify_row, inputs=_video, resumable=False, chunksize=2)


def verify_manifest(
    path: str | os.PathLike[str],
    sample: int | None = None,
    jobs: int = 1,
    on_done: Callable[[], None] | None = None,
    plugins: Sequence[str] = (),
    executor: Executor | None = None,
) -> Report:
    """Verify every row of a manifest (or an evenly spread ``sample`` of them), over ``jobs``
    local processes or on ``executor`` when given.

    The motion plugins the rows name (and ``plugins``) are imported first; a missing one, or a
    row whose pattern nobody registers, is an error naming the manifest line.
    """
    path = Path(path)
    opened = open_manifest(path, plugins)
    lines = opened.lines
    if not lines:
        raise InputFileError(f"{path}: holds no rows to verify")
    if sample is not None and sample < len(lines):
        step = len(lines) / sample
        lines = [lines[int(i * step)] for i in range(sample)]
    declared: list[Declared] = []
    checkable: list[Row] = []
    for n, row in lines:
        why = declared_reason(row)
        if why is None:  # per-frame labels: a manifest row (its answer may be wrong: checked)
            checkable.append(_manifest_row(row, f"{path}:{n}"))
        else:
            declared.append(Declared(str(row.get("id")), why))
            if on_done:
                on_done()
    verdicts = []
    for v in (executor or LocalExecutor(jobs)).imap(VERIFY, checkable, path.parent, opened.plugins):
        verdicts.append(v)
        if on_done:
            on_done()
    return Report(verdicts, declared)
