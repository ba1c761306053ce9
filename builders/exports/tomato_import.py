"""``tempogen import tomato DIR``: TOMATO's own folder (``data/*.json``, ``videos/{type}/
{key}.mp4``) as a tempogen manifest, so edit, export, eval and validate read it.

TOMATO stores a question, shuffled options and the right one's index, not labels. Where an
answer is worded as one of the facts tempogen reads (``Clockwise throughout.``, ``Left``,
``3``, ``Square/rectangle``, ``Accelerating``), it becomes that fact (``labels``, plus
``answer_key`` and, when every option reads, ``option_keys``), so a mirror or a reverse can
move it; an answer in free words (most visual cues) stays text, and edits of it are refused.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tempogen.builders.exports.tomato import check_data_file, key_lines, read_data_file
from tempogen.errors import InputFileError, MissingFileError, OutputError
from tempogen.facts import get_fact
from tempogen.io import content_hash
from tempogen.labels import Labels, Query
from tempogen.manifest import DECLARED, SCHEMA_VERSION, write_manifest
from tempogen.paths import safe_name
from tempogen.questions import TASKS
from tempogen.video import sha256_file

GENERATOR = "tomato"  # the generator of every imported row: TOMATO's own videos
# the facts a task's answers may be worded as, tried in order
TASK_FACTS = {
    "count": ("count",),
    "direction": ("direction",),
    "rotation": ("rotation",),
    "shape&trend": ("trajectory",),
    "velocity&frequency": ("speed", "frequency"),
    "visual_cues": (),
}
_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven")
_SIDES = ("left", "right", "up", "down")


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _wordings(fact: str) -> dict[str, str]:
    """Normalised wording -> key: our own option texts plus the paper's (Table 6)."""
    f = get_fact(fact)
    dummy = Labels(2, 2, 1.0, (), Query(fact, ()), {})
    out = {_norm(f.option_text(k, dummy)): k for k in f.keys()}
    if fact == "count":
        out.update({w: str(i) for i, w in enumerate(_WORDS)})
    elif fact == "direction":
        for a in _SIDES:
            out[a] = a
            for b in _SIDES:
                if a != b and f"{a}-{b}" in f.keys():
                    out[_norm(f"first to the {a} then to the {b}")] = f"{a}-{b}"
                    out[_norm(f"{a} then {b}")] = f"{a}-{b}"
    elif fact == "trajectory":
        out.update({"square": "square", "rectangle": "square", "infinity": "infinity"})
        out.update({"circle": "circle", "not drawing": "none"})
    elif fact == "speed":
        out.update({"constant": "constant", "speeding up": "accelerating"})
        out.update({"slowing down": "decelerating"})
    return out


def read_answer(task: str, options: list[str], answer: int) -> tuple[str, str, list[str] | None]:
    """(fact, answer key, option keys or None) for an answer worded as a fact tempogen
    reads; ("", "", None) for free words."""
    for fact in TASK_FACTS.get(task, ()):
        table = _wordings(fact)
        keys = [table.get(_norm(o)) for o in options]
        key = keys[answer]
        if key is not None:
            named = [k for k in keys if k is not None]
            whole = named if len(named) == len(keys) and len(set(named)) == len(named) else None
            return fact, key, whole
    return "", "", None


def _fact_value(fact: str, key: str) -> Any:
    value = get_fact(fact).value(key)
    return list(value) if isinstance(value, tuple) else value


@dataclass
class ImportReport:
    """What an import wrote: rows per task, and how many answers became facts."""

    manifest: Path
    per_task: dict[str, int] = field(default_factory=dict)
    as_facts: int = 0
    as_text: int = 0


def import_tomato(
    folder: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    on_row: Callable[[], None] | None = None,
) -> ImportReport:
    """Read a TOMATO folder and write its questions as manifest rows to ``out`` (default
    ``folder/manifest.jsonl``), videos referred to where they are. Every data file is checked
    first (``file:line: entry 'id' (key): field: problem``); nothing is written unless all
    entries and their videos are sound. ``on_row`` is called per question (progress)."""
    root = Path(folder)
    files = [(t, root / "data" / f"{t}.json") for t in TASKS]
    files = [(t, p) for t, p in files if p.is_file()]
    if not files:
        raise MissingFileError(
            f"{root / 'data'}: no TOMATO data files ({', '.join(t + '.json' for t in TASKS)})"
        )
    problems = [p for _, path in files for p in check_data_file(path)[1]]
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise InputFileError("; ".join(problems[:3]) + more)
    for _, path in files:
        _check_names(path)
    target = Path(out) if out is not None else root / "manifest.jsonl"
    _check_target(target)
    report = ImportReport(target)
    rows = []
    for task, path in files:
        for qid, entry in read_data_file(path).items():
            rows.append(_row(task, qid, entry, root, target.parent, report))
            if on_row:
                on_row()
        report.per_task[task] = sum(1 for r in rows if r["task"] == task)
    write_manifest(target, rows)
    return report


def _check_names(path: Path) -> None:
    """Question ids, keys and demonstration types become the rows' ids and video paths
    (and, through ``tempogen edit``, file names): each must be a safe name
    (:func:`tempogen.paths.safe_name`), refused naming ``file:line`` and the entry."""
    lines = key_lines(path.read_text(encoding="utf-8"))
    for qid, entry in read_data_file(path).items():
        where = f"{path}:{lines.get(qid, '?')}: entry {qid!r}"
        safe_name(qid, where, "question id")
        safe_name(entry["key"], where, "key")
        safe_name(entry["demonstration_type"], where, "demonstration_type")


def _check_target(target: Path) -> None:
    """Write over a manifest only if an earlier import wrote it."""
    if not target.exists():
        return
    try:
        with open(target, encoding="utf-8") as f:
            first = json.loads(f.readline() or "{}")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        first = {}
    if first.get("generator") != GENERATOR:
        raise OutputError(
            f"{target}: exists and was not written by `tempogen import tomato`; "
            "choose another --out"
        )


def _row(
    task: str, qid: str, entry: dict[str, Any], root: Path, out_dir: Path, report: ImportReport
) -> dict[str, Any]:
    video = root / "videos" / entry["demonstration_type"] / f"{entry['key']}.mp4"
    options, answer = list(entry["options"]), int(entry["answer"])
    fact, key, keys = read_answer(task, options, answer)
    row: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "id": f"tomato-{task.replace('&', '_')}-{qid}",
        "video": Path(os.path.relpath(video, out_dir)).as_posix(),
        "task": task,
        "generator": GENERATOR,
        "demonstration_type": entry["demonstration_type"],
        "question": entry["question"],
        "options": options,
        "answer": answer,
        "answer_text": options[answer],
        "labels": {fact: _fact_value(fact, key)} if fact else {},
        "variation": dict(entry["variation"]),
        "source": None,
        "edits": [],
        "seed": 0,
        "spec_hash": content_hash({"tomato": task, "id": qid, "entry": entry}),
        "video_sha256": sha256_file(video),
    }
    if fact:
        row["answer_key"] = key
        if keys is not None:
            row["option_keys"] = keys
        report.as_facts += 1
    else:
        report.as_text += 1
    note = " ".join(s for s in (entry.get("note") or "", f"TOMATO key {entry['key']}") if s)
    row["note"] = note
    row["verified"] = DECLARED  # TOMATO's own answer: no per-frame states confirm it
    return row
