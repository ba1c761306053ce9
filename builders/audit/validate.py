"""``tempogen validate``: check a manifest, an export or a whole dataset folder against its
format. Every problem names the file, the line (or record) and the field, so it can be fixed
without guessing; a valid file gets a one-line summary.

Kinds: the unified manifest (``*.jsonl``: schema, repeated ids, plugins, motion patterns, each
row against itself, each video opened, decoded and compared with its row), TOMATO
(``tomato/`` or one ``tomato/data/*.json``), Video-TT (``videott.json``), Vinoground (the
folder, its CSV or its question lists), the Hugging Face folder (``hf/``) and the lmms-eval
task folder (``lmms_eval/``). A dataset folder checks everything in it.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import av

from tempogen.builders.dataset.reading import needs_motion, row_motion
from tempogen.builders.eval.common import VINO_MAJOR
from tempogen.builders.exports import FORMATS, Format
from tempogen.builders.exports.hf import DATA_FILE as HF_DATA_FILE
from tempogen.builders.exports.hf import check_hf
from tempogen.builders.exports.lmms_eval import TASK as LMMS_TASK
from tempogen.builders.exports.registry import MAX_PROBLEMS, FileCheck  # noqa: F401 (re-exported)
from tempogen.builders.exports.tomato import check_data_file
from tempogen.builders.exports.videott import FILE_NAME as VIDEOTT_FILE
from tempogen.builders.exports.videott import read_videott
from tempogen.builders.exports.vinoground import CSV_COLUMNS, read_vinoground
from tempogen.errors import InputFileError, PluginError, TempogenError
from tempogen.facts import FACTS, Fact, FactError, get_fact
from tempogen.io import read_json, read_text
from tempogen.labels import Labels
from tempogen.manifest import (
    import_manifest_plugins,
    manifest_problems,
    read_lines,
)
from tempogen.questions import TASKS, VARIATION_KEYS, option_text
from tempogen.video import sha256_file


def check_manifest(
    path: Path, plugins: Sequence[str] = (), videos_under: Sequence[Path] = ()
) -> FileCheck:
    """A unified manifest: every row against the schema, ids unique, the plugins it names
    allowed and importable, every row's motion pattern registered, every row agreeing with
    itself (:func:`row_contradiction`) and every video sound (:func:`video_problem`)."""

    def result(problems: list[str], n: int = 0) -> FileCheck:
        return FileCheck(path, "manifest", n, "row", tuple(problems))

    try:
        lines = read_lines(path)
    except InputFileError as exc:
        return result([str(exc)])
    problems = manifest_problems(lines, path)
    try:
        import_manifest_plugins(lines, path, plugins)
    except (PluginError, InputFileError) as exc:
        return result([*problems.values(), str(exc)], len(lines))
    roots = (path.parent, *videos_under)
    for n, row in lines:
        if n in problems:
            continue
        where = f"{path}:{n}"
        try:
            if needs_motion(row):
                row_motion(row, where)
        except InputFileError as exc:
            problems[n] = str(exc)
            continue
        bad = row_contradiction(row) or video_problem(row, roots)
        if bad is not None:
            problems[n] = f"{where}: {bad[0]}: {bad[1]}"
    return result([problems[n] for n in sorted(problems)], len(lines))


def _key(fact: Fact, value: Any) -> str | None:
    """A stored fact value's answer key (JSON lists read as the tuples facts derive), or None
    when it has none (undetermined, or not a value of the fact)."""

    def tup(v: Any) -> Any:
        return tuple(tup(x) for x in v) if isinstance(v, list) else v

    try:
        return fact.key(tup(value))
    except Exception:  # a value of another shape: no key, which the caller reports
        return None


def row_contradiction(row: dict[str, Any]) -> tuple[str, str] | None:
    """The first field of a schema-valid row that contradicts the row's own answer, as
    (field, problem); None when they agree.

    The answer is ``answer_key`` (else ``option_keys[answer]``); it must be the key of
    ``labels.answer`` (the fact read from every frame's states), of the certificate's 16- and
    80-frame readings (unless the row says ``certificate.ok: false``), of the one fact a row
    without states declares in ``labels``, and each option must be its key's wording. The
    schema already ties ``answer``, ``answer_text``, ``answer_key`` and ``option_keys``
    together (:func:`~tempogen.manifest.validate_row`). Only fields present are checked: an
    imported TOMATO row with a free-word answer has no key to check.
    """
    keys, labels = row.get("option_keys"), row["labels"]
    claimed = row.get("answer_key", keys[row["answer"]] if keys else None)
    if claimed is None:
        return None
    if "tracks" in labels:
        fact_name = labels["query"]["fact"]
    else:  # declared facts (an imported row): the one the row names, if it names one
        named = [k for k in labels if k in FACTS]
        if len(named) != 1:
            return None
        fact_name = named[0]
    try:
        fact = get_fact(fact_name)
    except FactError as exc:
        return ("labels.query.fact" if "tracks" in labels else "labels"), str(exc)
    field = "answer_key" if "answer_key" in row else f"option_keys[{row['answer']}]"
    if "tracks" not in labels:
        seen = _key(fact, labels[fact_name])
        if seen != claimed:
            return f"labels.{fact_name}", _disagree(labels[fact_name], seen, field, claimed)
        return None
    if "answer" in labels:
        seen = _key(fact, labels["answer"])
        if seen != claimed:
            return "labels.answer", _disagree(labels["answer"], seen, field, claimed)
    cert = row.get("certificate")
    if isinstance(cert, dict) and cert.get("ok") is not False:
        for name in ("sampled", "sampled_80"):
            if name in cert and _key(fact, cert[name]) != claimed:
                seen = _key(fact, cert[name])
                return f"certificate.{name}", _disagree(cert[name], seen, field, claimed)
    if keys:
        try:
            states = Labels.from_json(labels)
            wording = [option_text(fact_name, k, states) for k in keys]
        except Exception as exc:  # a key the fact has no wording for, labels it cannot read
            return "option_keys", f"cannot word the options from their keys: {exc!r}"
        for i, (text, want) in enumerate(zip(row["options"], wording, strict=True)):
            if text != want:
                return f"options[{i}]", f"{text!r} is not the wording of {keys[i]!r} ({want!r})"
    return None


def _disagree(value: Any, key: str | None, field: str, claimed: str) -> str:
    said = f"key {key!r}" if key is not None else "no answer key"
    return f"{value!r} ({said}) contradicts {field} {claimed!r}"


def inside(path: Path, roots: Sequence[Path]) -> bool:
    """Whether ``path``, links followed, lies in one of ``roots`` (a dataset's folder)."""
    real = path.resolve()
    return any(real.is_relative_to(r.resolve()) for r in roots)


def video_problem(row: dict[str, Any], roots: Sequence[Path]) -> tuple[str, str] | None:
    """The first problem of a row's video, as (field, problem): its path leaves the dataset
    folder (``roots[0]``, or another of ``roots``), it is missing, it does not open and
    decode as a video, or its size, frame count or sha256 is not the row's."""
    rel = row["video"]
    path = roots[0] / rel
    if Path(rel).is_absolute() or not inside(path, roots):
        return "video", f"{rel!r} leaves the dataset folder {roots[0]}"
    if not path.is_file():
        return "video", f"no such file {path}"
    try:
        with av.open(str(path)) as c:
            if not c.streams.video:
                return "video", f"{path} holds no video stream"
            stream = c.streams.video[0]
            size = (stream.codec_context.width, stream.codec_context.height)
            next(c.decode(stream), None)  # the first frame decodes
            c.seek(0)
            frames = sum(1 for pkt in c.demux(stream) if pkt.size)
    except (av.error.FFmpegError, ValueError, OSError) as exc:
        return "video", f"{path} is not a readable video: {exc}"
    for name, have in (("width", size[0]), ("height", size[1]), ("num_frames", frames)):
        if name in row and row[name] != have:
            return name, f"{row[name]} but the video {path} has {have}"
    if "video_sha256" in row and sha256_file(path) != row["video_sha256"]:
        return "video_sha256", f"the video {path} is another file (its sha256 differs)"
    return None


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
    problems, seen = [], {}
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


def _format_of(path: Path) -> Format | None:
    """The first registered format with a validator that takes ``path`` as its own."""
    return next((f for f in FORMATS.values() if f.validate and f.is_mine(path)), None)


def _check_file(path: Path, plugins: Sequence[str], under: Sequence[Path]) -> list[FileCheck]:
    fmt = _format_of(path)
    if fmt is not None and fmt.validate is not None:
        return fmt.validate(path)
    if path.suffix == ".jsonl":
        return [check_manifest(path, plugins, under)]
    raise InputFileError(
        f"{path}: not a file tempogen validates (a manifest .jsonl, or a file of a format: "
        f"{_known()})"
    )


def _known() -> str:
    return ", ".join(f.name for f in FORMATS.values() if f.validate)


def validate_path(
    path: str | os.PathLike[str],
    plugins: Sequence[str] = (),
    videos_under: Sequence[str | os.PathLike[str]] = (),
) -> list[FileCheck]:
    """Check a manifest, an export file or folder, or a dataset folder (its manifest and every
    registered format's folder in it); one :class:`FileCheck` per file checked. A manifest's
    videos must lie in its folder, or under one of ``videos_under``."""
    p = Path(path)
    under = tuple(Path(u) for u in videos_under)
    if p.is_file():
        return _check_file(p, plugins, under)
    if not p.is_dir():
        raise InputFileError(f"{p}: no such file or folder")
    if (p / "manifest.jsonl").is_file():
        checks = [check_manifest(p / "manifest.jsonl", plugins, under)]
        for folder in dict.fromkeys(p / f.folder for f in FORMATS.values() if f.validate):
            fmt = _format_of(folder) if folder.is_dir() else None
            if fmt is not None and fmt.validate is not None:
                checks.extend(fmt.validate(folder))
        return checks
    fmt = _format_of(p)
    if fmt is None or fmt.validate is None:
        raise InputFileError(
            f"{p}: neither a dataset folder (manifest.jsonl) nor an export tempogen knows "
            f"({_known()})"
        )
    return fmt.validate(p)
