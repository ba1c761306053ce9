"""Export manifest rows as a Hugging Face ``datasets`` folder: Parquet data plus a dataset card.

Layout (loadable with ``datasets.load_dataset(out_dir)``, ready to upload as a dataset repo):
``data/test.parquet`` with one flattened row per question, ``videos/{id}.mp4`` (hard links to
the dataset's videos, copies where linking fails) and ``README.md``, whose YAML front matter
declares the ``default`` config's ``test`` split, the licence and the task categories.
Nested labels, edits and certificates are stored as JSON strings, so every row has one schema.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from tempogen import __version__
from tempogen.errors import InputFileError, MissingFileError
from tempogen.io import atomic_path, dumps, write_text
from tempogen.manifest import DECLARED, RowLike, provenance
from tempogen.questions import VARIATION_KEYS
from tempogen.video import place_video

DATA_FILE = "data/test.parquet"
VARIATION_TYPE = pa.struct([(k, pa.int8()) for k in VARIATION_KEYS])
SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("video", pa.string()),
        ("task", pa.string()),
        ("generator", pa.string()),
        ("demonstration_type", pa.string()),
        ("question", pa.string()),
        ("options", pa.list_(pa.string())),
        ("answer", pa.int64()),
        ("answer_text", pa.string()),
        ("answer_key", pa.string()),
        ("variation", VARIATION_TYPE),
        ("source", pa.string()),
        ("pair", pa.string()),
        ("edits", pa.string()),
        ("seed", pa.int64()),
        ("spec_hash", pa.string()),
        ("video_sha256", pa.string()),
        ("num_frames", pa.int64()),
        ("fps", pa.float64()),
        ("width", pa.int64()),
        ("height", pa.int64()),
        ("labels", pa.string()),
        ("certificate", pa.string()),
        ("encoding", pa.string()),
    ]
)
COLUMN_DOCS = {
    "id": "unique question id (also the video's file name)",
    "video": "path of the clip, relative to this folder",
    "task": "TOMATO reasoning type",
    "generator": "motion pattern that made the clip",
    "demonstration_type": "human, object or simulated (TOMATO's demonstration types)",
    "question": "question text",
    "options": "answer options, in display order",
    "answer": "index of the right option",
    "answer_text": "text of the right option",
    "answer_key": "stable key of the answer (e.g. `cw-ccw`)",
    "variation": "TOMATO variation flags (0/1): counterfactual, composite, zoom, first_person",
    "source": "id of the clip an edited variant was made from (null for an original)",
    "pair": "minimal pair id shared by two clips of one scene with the answer flipped (null: none)",
    "edits": "JSON list of the edit ops applied",
    "seed": "generation seed of the clip",
    "spec_hash": "hash of everything that determines the clip",
    "video_sha256": "SHA-256 of the mp4 file",
    "num_frames": "frames in the clip",
    "fps": "frames per second",
    "width": "frame width in pixels",
    "height": "frame height in pixels",
    "labels": "JSON: per-frame object states, the query and derived facts",
    "certificate": "JSON: the answer from TOMATO's 16 uniform samples and from single frames",
    "encoding": "'' (plain) or 'temporal_noise' (every frame alone is noise; see the README)",
}
# Columns written only when some row's answer is not certified from its states (see
# :func:`tempogen.manifest.provenance`): a dataset whose answers all are keeps :data:`SCHEMA`.
PROVENANCE_SCHEMA = pa.schema([("certified", pa.bool_()), ("verified", pa.string())])
PROVENANCE_DOCS = {
    "certified": "false: kept although TOMATO's 16 samples do not show its answer "
    "(`tempogen edit --keep-uncertified`); null: certified from its states",
    "verified": f"'{DECLARED}': the answer rests on declared facts, not per-frame states, "
    "and nothing here confirms it; null: derived from the clip's states",
}
TASK_CATEGORIES = ("video-text-to-text", "visual-question-answering")


def _safe_id(row_id: Any) -> str:
    if (
        not isinstance(row_id, str)
        or not row_id
        or row_id in (".", "..")
        or any(c in row_id for c in "/\\\0")
    ):
        raise InputFileError(f"row {row_id!r}: field 'id' must be a plain file name")
    return row_id


def _json_or_none(v: Any) -> str | None:
    return None if v is None else dumps(v)


def flatten(row: RowLike, video: str) -> dict[str, Any]:
    """One Parquet record of a manifest row (missing optional fields become null)."""
    rid = row.get("id", "<no id>")
    for f in ("id", "question", "options", "answer"):
        if f not in row:
            raise InputFileError(f"row {rid!r}: missing field {f!r}")
    options = row["options"]
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise InputFileError(f"row {rid!r}: field 'options' must be a list of strings")
    answer = row["answer"]
    if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(options):
        raise InputFileError(f"row {rid!r}: field 'answer' {answer!r} is not an index into options")
    variation = row.get("variation") or {}
    return {
        "id": row["id"],
        "video": video,
        "task": row.get("task"),
        "generator": row.get("generator"),
        "demonstration_type": row.get("demonstration_type"),
        "question": row["question"],
        "options": list(options),
        "answer": int(answer),
        "answer_text": row.get("answer_text", options[answer]),
        "answer_key": row.get("answer_key"),
        "variation": {k: int(variation.get(k, 0)) for k in VARIATION_KEYS},
        "source": row.get("source"),
        "pair": row.get("pair"),
        "edits": dumps(row.get("edits") or []),
        "seed": row.get("seed"),
        "spec_hash": row.get("spec_hash"),
        "video_sha256": row.get("video_sha256"),
        "num_frames": row.get("num_frames"),
        "fps": None if row.get("fps") is None else float(row["fps"]),
        "width": row.get("width"),
        "height": row.get("height"),
        "labels": _json_or_none(row.get("labels")),
        "certificate": _json_or_none(row.get("certificate")),
        "encoding": (row.get("spec") or {}).get("encoding", ""),
        **provenance(row),  # columns of their own only where some row has them
    }


def table_schema(records: list[dict[str, Any]]) -> pa.Schema:
    """:data:`SCHEMA`, plus the provenance columns when some record carries them."""
    if any(k in r for r in records for k in PROVENANCE_SCHEMA.names):
        return pa.schema(list(SCHEMA) + list(PROVENANCE_SCHEMA))
    return SCHEMA


def size_category(n: int) -> str:
    """The Hub's ``size_categories`` bucket for ``n`` rows."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M" if n < 1_000_000 else "n>1M"


def _table(counter: Counter[Any], head: str) -> str:
    lines = [f"| {head} | questions |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in sorted(counter.items(), key=lambda kv: str(kv[0]))]
    return "\n".join(lines)


def dataset_card(records: list[dict[str, Any]], config: dict[str, Any] | None) -> str:
    """README.md text: Hub front matter, then counts, provenance and licences."""
    n = len(records)
    tasks = Counter(r["task"] for r in records)
    gens = Counter(r["generator"] for r in records)
    demos = Counter(r["demonstration_type"] for r in records)
    variations = Counter(
        "+".join(k for k in VARIATION_KEYS if r["variation"][k]) or "original" for r in records
    )
    external = [r for r in records if r["demonstration_type"] != "simulated"]
    front = "\n".join(
        [
            "---",
            "license: mit",
            "pretty_name: tempogen visual temporal reasoning",
            "language:",
            "- en",
            "task_categories:",
            *[f"- {c}" for c in TASK_CATEGORIES],
            "tags:",
            "- temporal-reasoning",
            "- synthetic",
            "- video",
            "- tomato",
            "size_categories:",
            f"- {size_category(n)}",
            "configs:",
            "- config_name: default",
            "  data_files:",
            "  - split: test",
            f"    path: {DATA_FILE}",
            "---",
        ]
    )
    from tempogen.generators.planning import RENDER_VERSION

    who = f"tempogen {__version__} (render version {RENDER_VERSION})"
    if config:
        made = (
            f"Generated by {who} from a config with seed {config.get('seed')}, "
            f"size {config.get('size')}, {config.get('fps')} fps, clip durations "
            f"{config.get('duration')} s and {config.get('samples_per_task')} questions per "
            f"task (full config below)."
        )
        cfg_block = "```json\n" + json.dumps(config, indent=2, sort_keys=True) + "\n```"
    else:
        made = f"Generated by {who}."
        cfg_block = ""
    licence = (
        "The generated clips, questions and labels are released under the MIT licence, like "
        "tempogen itself."
    )
    if external:
        licence += (
            f" {len(external)} question(s) use external clips (demonstration type other than "
            "`simulated`): those videos keep their owners' licences; check them before "
            "redistributing."
        )
    docs = dict(COLUMN_DOCS)
    uncertified = sum(r.get("certified") is False for r in records)
    declared = sum(r.get("verified") == DECLARED for r in records)
    caveat = ""
    if uncertified or declared:
        docs.update(PROVENANCE_DOCS)
        caveat = "\n\n## Answers not certified from states\n\n" + " ".join(
            s
            for s in (
                f"{uncertified} question(s) were kept although TOMATO's 16 uniform samples do "
                "not show their answer (`certified` is false): score them apart."
                if uncertified
                else "",
                f"{declared} question(s) rest on declared facts, not per-frame states "
                f"(`verified` is `{DECLARED}`): no certificate confirms their answers."
                if declared
                else "",
            )
            if s
        )
    cols = "\n".join(f"| `{k}` | {v} |" for k, v in docs.items())
    body = f"""
# tempogen visual temporal reasoning

Procedurally rendered videos with questions that can only be answered by reading frames as an
ordered sequence (direction, rotation, speed and frequency, trajectory shape, which comes
first, how many times), in the format of TOMATO (Shangguan et al., 2024). Every answer is
computed from exact per-frame object states and certified answerable from the 16 uniformly
sampled frames TOMATO's evaluator shows a model.

{n} questions, split `test`.{caveat}

## Counts

{_table(tasks, "task")}

{_table(variations, "variation")}

{_table(demos, "demonstration type")}

{_table(gens, "generator")}

## Columns

| column | meaning |
|---|---|
{cols}

## Loading

```python
from datasets import load_dataset

ds = load_dataset("path/to/this/folder", split="test")
row = ds[0]  # row["video"] is relative to the folder; json.loads(row["labels"]) for states
```

## How it was made

{made} Clips are rendered from per-frame states (render version and spec hash per row in
`spec_hash`); edited variants (reverse, mirror, rotation, speed changes, zoom, clip followed
by its reversal) re-derive their answers from the moved states. The right option's position
and the answer classes are balanced within each task.

{cfg_block}

## Licence

{licence}
"""
    return front + "\n" + body.rstrip() + "\n"


def export_hf(
    rows: Iterable[RowLike],
    dataset_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    link_videos: bool = True,
) -> Path:
    """Write ``out_dir/data/test.parquet``, ``out_dir/README.md`` and (by default) the videos.

    ``dataset_dir`` holds the rows' videos (their ``video`` paths are relative to it) and,
    when present, the build's ``config.json`` quoted in the card. With ``link_videos`` each
    video is hard-linked (or copied) to ``out_dir/videos/{id}.mp4`` and the ``video`` column
    points there; without, ``video`` is the path from ``out_dir`` to the original file.
    Returns ``out_dir``.
    """
    base, out = Path(dataset_dir), Path(out_dir)
    records, jobs, seen = [], [], set()
    for row in rows:
        rid = _safe_id(row.get("id"))
        if rid in seen:
            raise InputFileError(f"row {rid!r}: field 'id' is duplicated")
        seen.add(rid)
        if "video" not in row:
            raise InputFileError(f"row {rid!r}: missing field 'video'")
        src = base / row["video"]
        if not src.is_file():
            raise MissingFileError(f"row {rid!r}: field 'video': no such file {src}")
        if link_videos:
            video = f"videos/{rid}.mp4"
            jobs.append((src, out / video, row.get("video_sha256")))
        else:
            rel = os.path.relpath(os.path.abspath(src), os.path.abspath(out))
            video = Path(rel).as_posix()
        records.append(flatten(row, video))
    for src, dst, sha in jobs:
        place_video(src, dst, sha)
    table = pa.Table.from_pylist(records, schema=table_schema(records))
    with atomic_path(out / DATA_FILE) as tmp:
        pq.write_table(table, tmp)
    config = None
    cfg_path = base / "config.json"
    if cfg_path.is_file():
        try:
            config = json.loads(cfg_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            config = None
    write_text(out / "README.md", dataset_card(records, config))
    return out


def _record_problem(rec: dict[str, Any], base: Path) -> tuple[str, str] | None:
    """The first problem of one Parquet record as (column, message), or None."""
    try:
        _safe_id(rec["id"])
    except ValueError:
        return "id", f"must be a plain file name, got {rec['id']!r}"
    for col in ("video", "question"):
        if not isinstance(rec[col], str) or not rec[col]:
            return col, f"expected a non-empty string, got {rec[col]!r}"
    options, answer = rec["options"], rec["answer"]
    if not options or len(options) < 2 or any(o is None for o in options):
        return "options", f"expected at least 2 strings, got {options!r}"
    if answer is None or not 0 <= answer < len(options):
        return "answer", f"{answer!r} is not an index into {len(options)} options"
    if rec["answer_text"] != options[answer]:
        return "answer_text", f"{rec['answer_text']!r} is not options[{answer}] {options[answer]!r}"
    variation = rec["variation"] or {}
    for k in VARIATION_KEYS:
        if variation.get(k) not in (0, 1):
            return f"variation.{k}", f"expected 0 or 1, got {variation.get(k)!r}"
    if rec.get("certified") not in (None, False):
        return "certified", f"false or null, got {rec['certified']!r}"
    if rec.get("verified") not in (None, DECLARED):
        return "verified", f"{DECLARED!r} or null, got {rec['verified']!r}"
    for col in ("edits", "labels", "certificate"):
        if rec[col] is not None:
            try:
                json.loads(rec[col])
            except json.JSONDecodeError as exc:
                return col, f"not valid JSON: {exc.msg}"
    if not (base / rec["video"]).is_file():
        return "video", f"no such file {base / rec['video']}"
    return None


def check_hf(out_dir: str | os.PathLike[str]) -> tuple[int, list[str]]:
    """Check an exported folder: ``data/test.parquet`` has :data:`SCHEMA`'s columns and types,
    every record is a sound question whose video exists, and ``README.md`` is there.

    Returns (records, problems); each problem names the file, the record and the column.
    """
    out = Path(out_dir)
    path = out / DATA_FILE
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        return 0, [f"{path}: cannot read as Parquet: {exc}"]
    problems = []
    optional = [f for f in PROVENANCE_SCHEMA if f.name in table.schema.names]
    for fld in list(SCHEMA) + optional:
        if fld.name not in table.schema.names:
            problems.append(f"{path}: column {fld.name}: missing")
        elif not table.schema.field(fld.name).type.equals(fld.type):
            got = table.schema.field(fld.name).type
            problems.append(f"{path}: column {fld.name}: type {got}, expected {fld.type}")
    if problems:
        return table.num_rows, problems
    seen: dict[str, int] = {}
    for i, rec in enumerate(table.to_pylist()):
        bad = _record_problem(rec, out)
        if bad is None and rec["id"] in seen:
            bad = ("id", f"{rec['id']!r} repeats record {seen[rec['id']]}")
        if bad is not None:
            problems.append(f"{path}: record {i} (id {rec['id']!r}): {bad[0]}: {bad[1]}")
        seen.setdefault(rec["id"], i)
    if not (out / "README.md").is_file():
        problems.append(f"{out / 'README.md'}: missing (the dataset card)")
    return table.num_rows, problems
