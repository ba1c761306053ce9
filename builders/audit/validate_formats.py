"""The format checks of ``tempogen validate``: TOMATO, Video-TT, Vinoground, the Hugging Face
folder and the lmms-eval task folder, each as two parts the format registry holds
(``builders.exports``): whether a path is one of its own, and the check of it."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from tempogen.builders.audit.validate_manifest import inside
from tempogen.builders.eval.common import VINO_MAJOR
from tempogen.builders.exports.hf import DATA_FILE as HF_DATA_FILE
from tempogen.builders.exports.hf import check_hf
from tempogen.builders.exports.lmms_eval import TASK as LMMS_TASK
from tempogen.builders.exports.registry import FileCheck
from tempogen.builders.exports.tomato import check_data_file
from tempogen.builders.exports.videott import FILE_NAME as VIDEOTT_FILE
from tempogen.builders.exports.videott import read_videott
from tempogen.builders.exports.vinoground import CSV_COLUMNS, read_vinoground
from tempogen.errors import InputFileError, TempogenError
from tempogen.io import read_json, read_text
from tempogen.manifest import read_lines
from tempogen.questions import TASKS, VARIATION_KEYS


def check_tomato(path: Path) -> FileCheck:
    """One TOMATO ``data/{type}.json`` and the videos it names."""
    n, problems = check_data_file(path)
    return FileCheck(path, "TOMATO data", n, "question", tuple(problems))


def check_videott(path: Path) -> FileCheck:
    """A Video-TT ``videott.json``, its videos included (the first problem only)."""
    try:
        n = len(read_videott(path, check_videos=True))
    except (ValueError, FileNotFoundError) as exc:
        return FileCheck(path, "Video-TT", 0, "question set", (str(exc),))
    return FileCheck(path, "Video-TT", n, "question set")


def check_hf_folder(folder: Path) -> FileCheck:
    """A Hugging Face ``datasets`` folder (``data/test.parquet``, videos, card)."""
    n, problems = check_hf(folder)
    return FileCheck(folder / HF_DATA_FILE, "Hugging Face Parquet", n, "record", tuple(problems))


def _vinoground_csv(path: Path) -> tuple[int, list[str], dict[str, list[str]]]:
    """Rows, problems and ``index -> row`` of ``vinoground.csv`` (problems name line, column)."""
    problems: list[str] = []
    pairs: dict[str, list[str]] = {}
    try:
        text = read_text(path, "Vinoground CSV")  # bounded; not UTF-8 names the line
    except TempogenError as exc:
        return 0, [str(exc)], pairs
    with io.StringIO(text, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != list(CSV_COLUMNS):
            return 0, [f"{path}:1: header: expected {','.join(CSV_COLUMNS)}, got {header}"], pairs
        n = 0
        for row in reader:
            n += 1
            where = f"{path}:{reader.line_num}"
            if len(row) != len(CSV_COLUMNS):
                problems.append(f"{where}: expected {len(CSV_COLUMNS)} columns, got {len(row)}")
                continue
            rec = dict(zip(CSV_COLUMNS, row, strict=True))
            bad = _vinoground_row_problem(rec, pairs, path.parent)
            if bad is not None:
                problems.append(f"{where}: {bad[0]}: {bad[1]}")
            pairs.setdefault(rec["index"], row)
    return n, problems, pairs


def _vinoground_row_problem(
    rec: dict[str, str], pairs: dict[str, list[str]], root: Path
) -> tuple[str, str] | None:
    if not rec["index"].isdigit():
        return "index", f"expected a pair number, got {rec['index']!r}"
    if rec["index"] in pairs:
        return "index", f"pair {rec['index']} is repeated"
    if rec["major"] not in VINO_MAJOR:
        return "major", f"{rec['major']!r} is not one of {list(VINO_MAJOR)}"
    for side in ("pos", "neg"):
        try:
            start, end = float(rec[f"{side}_start"]), float(rec[f"{side}_end"])
        except ValueError:
            return f"{side}_start", "start and end must be numbers of seconds"
        if not 0 <= start < end:
            return f"{side}_end", f"segment {start}..{end} is empty"
        if not rec[f"{side}_cal"].strip():
            return f"{side}_cal", "the caption is empty"
        video = root / "videos" / f"{rec[f'{side}_vid']}.mp4"
        if not inside(video, [root]):
            return f"{side}_vid", f"{rec[f'{side}_vid']!r} leaves the folder {root}"
        if not video.is_file():
            return f"{side}_vid", f"no video videos/{rec[f'{side}_vid']}.mp4"
    return None


def _vinoground_questions(path: Path, pairs: dict[str, list[str]]) -> tuple[int, list[str]]:
    """Questions and problems of one ``vinoground_{text,video}score.json`` list."""
    try:
        data = read_json(path, "Vinoground questions")  # bounded, UTF-8, no repeated keys
    except TempogenError as exc:
        return 0, [str(exc)]
    if not isinstance(data, list):
        return 0, [f"{path}: expected a JSON list of questions"]
    problems, seen = [], set()
    for i, q in enumerate(data):
        idx = q.get("idx") if isinstance(q, dict) else None
        where = f"{path}: record {i}" + (f" ({idx})" if isinstance(idx, str) else "")
        bad = None
        if not isinstance(q, dict):
            bad = ("(record)", f"expected an object, got {type(q).__name__}")
        elif not isinstance(idx, str) or not re.fullmatch(r"\d+_(pos|neg)", idx):
            bad = ("idx", f"expected '{{pair}}_pos' or '{{pair}}_neg', got {idx!r}")
        elif idx.rsplit("_", 1)[0] not in pairs:
            bad = ("idx", f"pair {idx.rsplit('_', 1)[0]} is not in vinoground.csv")
        elif idx in seen:
            bad = ("idx", f"{idx!r} is repeated")
        elif q.get("GT") not in ("A", "B"):
            bad = ("GT", f"expected 'A' or 'B', got {q.get('GT')!r}")
        elif not isinstance(q.get("question"), str) or not q["question"]:
            bad = ("question", "expected a non-empty string")
        elif not isinstance(q.get("video_name"), str) or not inside(
            path.parent / q["video_name"], [path.parent]
        ):
            bad = ("video_name", f"{q.get('video_name')!r} is no video in {path.parent}")
        elif not (path.parent / q["video_name"]).is_file():
            bad = ("video_name", f"no such video {q.get('video_name')!r}")
        if bad is not None:
            problems.append(f"{where}: {bad[0]}: {bad[1]}")
        if isinstance(idx, str):
            seen.add(idx)
    missing = [f"{p}_{s}" for p in pairs for s in ("pos", "neg") if f"{p}_{s}" not in seen]
    if missing and not problems:
        problems.append(f"{path}: idx: no question for {', '.join(missing[:5])}")
    return len(data), problems


def check_vinoground(folder: Path) -> list[FileCheck]:
    """A Vinoground folder: the CSV, both question lists, and (when those are sound) every
    video decoding with a black gap in each concatenated clip."""
    csv_path = folder / "vinoground.csv"
    n, problems, pairs = _vinoground_csv(csv_path)
    checks = [FileCheck(csv_path, "Vinoground pairs", n, "pair", tuple(problems))]
    for kind in ("text", "video"):
        path = folder / f"vinoground_{kind}score.json"
        m, qp = _vinoground_questions(path, pairs)
        checks.append(FileCheck(path, f"Vinoground {kind} questions", m, "question", tuple(qp)))
    if all(c.ok for c in checks):
        try:
            read_vinoground(folder)
        except (ValueError, OSError) as exc:
            last = checks[-1]
            checks[-1] = FileCheck(last.path, last.kind, last.records, last.noun, (str(exc),))
    return checks


LMMS_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str,
    "video": str,
    "task": str,
    "demonstration_type": str,
    "generator": str,
    "question": str,
    "options": list,
    "answer": str,
    "answer_index": int,
    "answer_text": str,
    "variation": dict,
}


def _lmms_doc_problem(doc: dict[str, Any], videos: Path | None) -> tuple[str, str] | None:
    for k, typ in LMMS_FIELDS.items():
        if k not in doc:
            return k, "required field is missing"
        if not isinstance(doc[k], typ) or isinstance(doc[k], bool):
            return k, f"expected {getattr(typ, '__name__', typ)}, got {doc[k]!r}"
    options, i = doc["options"], doc["answer_index"]
    if len(options) < 2 or not all(isinstance(o, str) for o in options):
        return "options", "expected a list of at least 2 strings"
    if not 0 <= i < len(options):
        return "answer_index", f"{i} is not an index into {len(options)} options"
    if doc["answer"] != chr(ord("A") + i):
        return "answer", f"{doc['answer']!r} is not the letter of option {i}"
    if doc["answer_text"] != options[i]:
        return "answer_text", f"{doc['answer_text']!r} is not options[{i}] {options[i]!r}"
    if doc["task"] not in TASKS:
        return "task", f"{doc['task']!r} is not one of {list(TASKS)}"
    if set(doc["variation"]) != set(VARIATION_KEYS):
        return "variation", f"expected exactly the keys {list(VARIATION_KEYS)}"
    if videos is not None and not inside(videos / doc["video"], [videos]):
        return "video", f"{doc['video']!r} leaves the dataset folder {videos}"
    if videos is not None and not (videos / doc["video"]).is_file():
        return "video", f"no such file {videos / doc['video']}"
    return None


def check_lmms_eval(task_dir: Path) -> list[FileCheck]:
    """An lmms-eval task folder: its YAML is there and every document of ``test.jsonl`` is a
    sound question whose video is found (under the dataset folder the YAML records, or the
    folder the export sits in)."""
    yaml_path = task_dir / f"{LMMS_TASK}.yaml"
    data = task_dir / "test.jsonl"
    checks = []
    videos = None
    try:
        text = yaml_path.read_text(encoding="utf-8")
        m = re.search(r"^  dataset_dir: (.+)$", text, re.M)
        recorded = Path(json.loads(m.group(1))) if m else None
        for cand in (recorded, task_dir.parent.parent):
            if cand is not None and cand.is_dir():
                videos = cand
                break
        checks.append(FileCheck(yaml_path, "lmms-eval task YAML", 1, "task"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        checks.append(
            FileCheck(yaml_path, "lmms-eval task YAML", 0, "task", (f"{yaml_path}: {exc}",))
        )
    try:
        lines = read_lines(data)
    except InputFileError as exc:
        return [*checks, FileCheck(data, "lmms-eval documents", 0, "document", (str(exc),))]
    problems: list[str] = []
    seen: dict[object, int] = {}  # document id -> the line that first gave it
    for n, doc in lines:
        bad = _lmms_doc_problem(doc, videos)
        if bad is None and doc["id"] in seen:
            bad = ("id", f"{doc['id']!r} repeats line {seen[doc['id']]}")
        if bad is not None:
            problems.append(f"{data}:{n}: {bad[0]}: {bad[1]}")
        else:
            seen[doc["id"]] = n
    checks.append(FileCheck(data, "lmms-eval documents", len(lines), "document", tuple(problems)))
    return checks


def _tomato_folder(folder: Path) -> list[FileCheck]:
    files = sorted((folder / "data").glob("*.json"))
    if not files:
        raise InputFileError(f"{folder / 'data'}: no TOMATO reasoning-type JSON files")
    return [check_tomato(p) for p in files]


# Each built-in format's two validation parts (registered in ``builders.exports``): whether
# a file or folder is one of its own, and the check of it.


def is_tomato(path: Path) -> bool:
    """A TOMATO folder (``data/{task}.json``), or one ``data/*.json`` (not Vinoground's)."""
    if path.is_dir():
        return (path / "data").is_dir() and any(
            (path / "data" / f"{t}.json").is_file() for t in TASKS
        )
    return path.suffix == ".json" and path.parent.name == "data" and not is_vinoground(path)


def validate_tomato(path: Path) -> list[FileCheck]:
    return _tomato_folder(path) if path.is_dir() else [check_tomato(path)]


def is_videott(path: Path) -> bool:
    return (path / VIDEOTT_FILE).is_file() if path.is_dir() else path.name == VIDEOTT_FILE


def validate_videott(path: Path) -> list[FileCheck]:
    return [check_videott(path / VIDEOTT_FILE if path.is_dir() else path)]


def is_vinoground(path: Path) -> bool:
    if path.is_dir():
        return (path / "vinoground.csv").is_file()
    return path.name == "vinoground.csv" or path.name.startswith("vinoground_")


def validate_vinoground(path: Path) -> list[FileCheck]:
    return check_vinoground(path if path.is_dir() else path.parent)


def is_hf(path: Path) -> bool:
    return (path / HF_DATA_FILE).is_file() if path.is_dir() else path.suffix == ".parquet"


def validate_hf(path: Path) -> list[FileCheck]:
    return [check_hf_folder(path if path.is_dir() else path.parent.parent)]


def _lmms_task_folder(folder: Path) -> bool:
    return (folder / f"{LMMS_TASK}.yaml").is_file() or (folder / "test.jsonl").is_file()


def is_lmms_eval(path: Path) -> bool:
    """A task folder (its YAML or ``test.jsonl``) or a folder holding one; the task YAML, or
    a ``test.jsonl`` beside it."""
    if path.is_dir():
        return _lmms_task_folder(path) or (path / LMMS_TASK).is_dir()
    if path.name == "test.jsonl":
        return (path.parent / f"{LMMS_TASK}.yaml").is_file()
    return path.suffix == ".yaml" and path.stem == LMMS_TASK


def validate_lmms_eval(path: Path) -> list[FileCheck]:
    if path.is_file():
        return check_lmms_eval(path.parent)
    return check_lmms_eval(path if _lmms_task_folder(path) else path / LMMS_TASK)
