"""Export manifest rows in TOMATO's layout, and read them back as TOMATO's evaluator does.

Layout: ``data/{reasoning_type}.json`` (one object keyed "0", "1", ...) and
``videos/{demonstration_type}/{key}.mp4``, so TOMATO's own evaluation code runs on it unchanged.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tempogen.errors import InputFileError, MissingFileError
from tempogen.io import parse_json, read_json, read_text, write_text
from tempogen.manifest import DECLARED, Row, provenance
from tempogen.questions import TASKS, VARIATION_KEYS
from tempogen.video import VideoError, place_video

REQUIRED_FIELDS = (
    "id",
    "video",
    "task",
    "generator",
    "demonstration_type",
    "question",
    "options",
    "answer",
    "variation",
)
# The fields of one TOMATO entry, as TOMATO's evaluator reads them.
ENTRY_FIELDS = (
    "question",
    "options",
    "answer",
    "key",
    "video_source_url",
    "motion_type",
    "variation",
    "demonstration_type",
    "note",
)


def _safe_component(row_id: Any, field: str, value: Any) -> str:
    """A value used as a file or folder name must be one plain path component."""
    if not isinstance(value, str) or not value or value in (".", "..") or "/" in value:
        raise InputFileError(
            f"row {row_id!r}: field {field!r} must be a plain file name, got {value!r}"
        )
    if "\\" in value or "\0" in value:
        raise InputFileError(
            f"row {row_id!r}: field {field!r} must be a plain file name, got {value!r}"
        )
    return value


def _entry(row: Mapping[str, Any]) -> dict[str, Any]:
    """Validate one manifest row and build its TOMATO entry; errors name the row id and field.

    It reads the row as JSON, not as a :class:`Row`: TOMATO's layout needs only
    :data:`REQUIRED_FIELDS`, and rows of other benchmarks (``tempogen import tomato``) or a
    script's own dicts may carry no more than those.
    """
    row_id = row.get("id", "<no id>")
    missing = [f for f in REQUIRED_FIELDS if f not in row]
    if missing:
        raise InputFileError(f"row {row_id!r}: missing field(s) {missing}")
    key = _safe_component(row_id, "id", row["id"])
    if row["task"] not in TASKS:
        raise InputFileError(
            f"row {key!r}: field 'task' has unknown value {row['task']!r}; expected one of {TASKS}"
        )
    _safe_component(key, "demonstration_type", row["demonstration_type"])
    options = row["options"]
    if not isinstance(options, list) or not options or not all(isinstance(o, str) for o in options):
        raise InputFileError(f"row {key!r}: field 'options' must be a non-empty list of strings")
    answer = row["answer"]
    if isinstance(answer, bool) or not isinstance(answer, int):
        raise InputFileError(f"row {key!r}: field 'answer' must be an int index, got {answer!r}")
    if not 0 <= answer < len(options):
        raise InputFileError(
            f"row {key!r}: field 'answer' index {answer} is out of range for {len(options)} options"
        )
    if "answer_text" in row and row["answer_text"] != options[answer]:
        raise InputFileError(
            f"row {key!r}: field 'answer_text' {row['answer_text']!r} is not options[{answer}] "
            f"{options[answer]!r}"
        )
    variation = row["variation"]
    if not isinstance(variation, dict) or set(variation) != set(VARIATION_KEYS):
        raise InputFileError(
            f"row {key!r}: field 'variation' must have exactly the keys {VARIATION_KEYS}, "
            f"got {variation!r}"
        )
    if any(variation[k] not in (0, 1) for k in VARIATION_KEYS):
        raise InputFileError(
            f"row {key!r}: field 'variation' values must be 0 or 1, got {variation!r}"
        )
    entry = {
        "question": str(row["question"]),
        "options": list(options),
        "answer": int(answer),
        "key": key,
        "video_source_url": "",
        "motion_type": str(row["generator"]),
        "variation": {k: int(variation[k]) for k in VARIATION_KEYS},
        "demonstration_type": row["demonstration_type"],
        "note": str(row.get("note", "")),
    }
    if row.get("pair"):  # a minimal pair's id, for instance accuracy (TOMATO ignores it)
        entry["pair"] = str(row["pair"])
    entry.update(provenance(row))  # an uncertified or declared answer says so (TOMATO ignores it)
    return entry


def _write_if_changed(path: Path, text: str) -> None:
    """Atomically write ``text`` unless the file already holds exactly it (keeps mtimes stable)."""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        if path.read_text(encoding="utf-8") == text:
            return
    write_text(path, text)


def export_tomato(
    rows: Iterable[Row | Mapping[str, Any]], manifest_dir: Path, out_dir: Path
) -> dict[str, int]:
    """Write ``rows`` as TOMATO's ``data/*.json`` and ``videos/`` tree; returns rows per type.

    All rows are validated before anything is written. Rerunning is idempotent: a JSON file is
    rewritten only when it changes; a video in place (same inode or same hash) is left alone.
    """
    manifest_dir, out_dir = Path(manifest_dir), Path(out_dir)
    per_type: dict[str, dict[str, dict[str, Any]]] = {t: {} for t in TASKS}
    jobs: list[tuple[Path, Path, str | None]] = []
    seen: dict[str, str] = {}
    for given in rows:
        row = given.to_json() if isinstance(given, Row) else given
        entry = _entry(row)
        key = entry["key"]
        if key in seen:
            raise InputFileError(
                f"row {key!r}: field 'id' is duplicated (video names must be unique)"
            )
        seen[key] = row["task"]
        src = manifest_dir / row["video"]
        if not src.is_file():
            raise MissingFileError(f"row {key!r}: field 'video': no such file {src}")
        bucket = per_type[row["task"]]
        bucket[str(len(bucket))] = entry
        dst = out_dir / "videos" / entry["demonstration_type"] / f"{key}.mp4"
        jobs.append((src, dst, row.get("video_sha256")))
    for src, dst, sha in jobs:
        place_video(src, dst, sha)
    for task, entries in per_type.items():
        _write_if_changed(out_dir / "data" / f"{task}.json", json.dumps(entries, indent=2) + "\n")
    return {task: len(entries) for task, entries in per_type.items()}


def read_data_file(path: Path) -> dict[str, dict[str, Any]]:
    """Load one ``data/{type}.json``; a malformed file raises an error naming it."""
    data = read_json(path, "TOMATO data file")  # a repeated question id is refused, not dropped
    if not isinstance(data, dict):
        raise InputFileError(f"{path}: expected a JSON object keyed by question id")
    return data


def _read_all_frames(path: Path) -> list[np.ndarray]:
    """Decode every frame with ``cv2.VideoCapture`` until ``read`` fails, as TOMATO does."""
    if not path.is_file():
        raise MissingFileError(f"{path}: video listed in TOMATO data is missing")
    cap = cv2.VideoCapture(str(path))
    frames: list[np.ndarray] = []
    try:
        if not cap.isOpened():
            raise VideoError(f"{path}: OpenCV cannot open this file as a video")
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            frames.append(frame)
    finally:
        cap.release()
    if not frames:
        raise VideoError(f"{path}: decoded zero frames")
    return frames


def read_tomato(out_dir: Path, num_frames: int = 16) -> Iterator[dict]:
    """Yield every TOMATO entry with ``num_frames`` RGB frames sampled as TOMATO's evaluator does.

    Each item has reasoning_type, id, question, options, answer and frames (T, H, W, 3) uint8.
    """
    out_dir = Path(out_dir)
    files = [(t, out_dir / "data" / f"{t}.json") for t in TASKS]
    files = [(t, p) for t, p in files if p.is_file()]
    if not files:
        raise MissingFileError(f"{out_dir / 'data'}: no TOMATO reasoning-type JSON files")
    for reasoning_type, data_path in files:
        data = read_data_file(data_path)
        for qid, entry in data.items():
            video = out_dir / "videos" / entry["demonstration_type"] / f"{entry['key']}.mp4"
            frames = _read_all_frames(video)
            idx = np.linspace(0, len(frames) - 1, num_frames, dtype=int)
            sampled = np.stack([cv2.cvtColor(frames[i], cv2.COLOR_BGR2RGB) for i in idx])
            yield {
                "reasoning_type": reasoning_type,
                "id": qid,
                "key": entry["key"],
                "question": entry["question"],
                "options": entry["options"],
                "answer": entry["answer"],
                "frames": sampled,
            }


def key_lines(text: str) -> dict[str, int]:
    """Line of each top-level key in a ``data/*.json`` written with ``indent=2``."""
    out: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r'^  ("(?:[^"\\]|\\.)*"): ', line)
        if m:
            out.setdefault(json.loads(m.group(1)), n)
    return out


def _plain(value: Any) -> bool:
    return (
        isinstance(value, str)
        and value not in ("", ".", "..")
        and not any(c in value for c in "/\\\0")
    )


def entry_problem(entry: Any) -> tuple[str, str] | None:
    """The first problem of one TOMATO entry as (field, message), or None when it is valid."""
    if not isinstance(entry, dict):
        return "(entry)", f"expected an object, got {type(entry).__name__}"
    missing = [f for f in ENTRY_FIELDS if f not in entry]
    if missing:
        return missing[0], "required field is missing"
    for f in ("question", "video_source_url", "motion_type", "note"):
        if not isinstance(entry[f], str):
            return f, f"expected a string, got {entry[f]!r}"
    if not entry["question"]:
        return "question", "must not be empty"
    for f in ("key", "demonstration_type"):
        if not _plain(entry[f]):
            return f, f"must be a plain file name, got {entry[f]!r}"
    options = entry["options"]
    if not isinstance(options, list) or len(options) < 2:
        return "options", f"expected a list of at least 2 strings, got {options!r}"
    for i, o in enumerate(options):
        if not isinstance(o, str):
            return f"options[{i}]", f"expected a string, got {o!r}"
    answer = entry["answer"]
    if isinstance(answer, bool) or not isinstance(answer, int):
        return "answer", f"expected an int index, got {answer!r}"
    if not 0 <= answer < len(options):
        return "answer", f"index {answer} is out of range for {len(options)} options"
    variation = entry["variation"]
    if not isinstance(variation, dict) or set(variation) != set(VARIATION_KEYS):
        return "variation", f"expected exactly the keys {list(VARIATION_KEYS)}, got {variation!r}"
    for k in VARIATION_KEYS:
        if isinstance(variation[k], bool) or variation[k] not in (0, 1):
            return f"variation.{k}", f"expected 0 or 1, got {variation[k]!r}"
    if "pair" in entry and not (isinstance(entry["pair"], str) and entry["pair"]):
        return "pair", f"expected a minimal pair's id (a non-empty string), got {entry['pair']!r}"
    if "certified" in entry and entry["certified"] is not False:
        return (
            "certified",
            f"present only as false (an uncertified answer), got {entry['certified']!r}",
        )
    if "verified" in entry and entry["verified"] != DECLARED:
        return "verified", f"present only as {DECLARED!r}, got {entry['verified']!r}"
    return None


def check_data_file(path: str | os.PathLike[str]) -> tuple[int, list[str]]:
    """Check one ``data/{type}.json`` and the videos it names (``../videos/{type}/{key}.mp4``).

    Returns (entries, problems); each problem reads ``{path}:{line}: entry '3' (key): field:
    message`` so the bad entry is found in the file.
    """
    path = Path(path)
    try:
        text = read_text(path, "TOMATO data file")
        data = parse_json(text, path)  # a repeated question id names both lines
    except InputFileError as exc:
        return 0, [str(exc)]
    if not isinstance(data, dict):
        return 0, [f"{path}: expected a JSON object keyed by question id"]
    if path.stem not in TASKS:
        return len(data), [f"{path}: not a TOMATO reasoning type; known: {', '.join(TASKS)}"]
    lines = key_lines(text)
    problems: list[str] = []
    keys: dict[str, str] = {}
    for qid, entry in data.items():
        key = entry.get("key") if isinstance(entry, dict) else None
        where = f"{path}:{lines.get(qid, '?')}: entry {qid!r}" + (f" ({key})" if key else "")
        bad = entry_problem(entry)
        if bad is None and key in keys:
            bad = ("key", f"{key!r} repeats entry {keys[key]!r}")
        if bad is None:
            video = path.parent.parent / "videos" / entry["demonstration_type"] / f"{key}.mp4"
            if not video.is_file():
                bad = ("key", f"no video {video}")
        if bad is not None:
            problems.append(f"{where}: {bad[0]}: {bad[1]}")
        if isinstance(key, str):
            keys.setdefault(key, qid)
    return len(data), problems
