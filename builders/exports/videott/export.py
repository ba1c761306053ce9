"""One row's Video-TT question set, its complexity factors, and the ``videott.json`` export and reader."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from tempogen import observe
from tempogen.builders.exports.videott import events, motion  # noqa: F401  (register writers)
from tempogen.builders.exports.videott.text import (
    ALIASING_TURN,
    FACTORS,
    FAST,
    FILE_NAME,
    KINDS,
    NARRATIVE_OPS,
    SAMPLING_FRAMES,
    TECHNICAL_OPS,
    has_states,
    peak_speed,
    secs,
    uniq,
)
from tempogen.builders.exports.videott.writers import Ctx, question_entry, writer_of
from tempogen.errors import InputFileError, MissingFileError
from tempogen.facts import answer_of, describe
from tempogen.io import read_json, write_json
from tempogen.labels import Labels
from tempogen.manifest import provenance
from tempogen.questions import answer_key


def _edit_ops(edits: Any) -> list[str]:
    """Every op name in a row's edit records, nested concat/composite parts included."""
    out: list[str] = []
    for e in edits or []:
        if isinstance(e, dict):
            if isinstance(e.get("op"), str):
                out.append(e["op"])
            for part in e.get("parts") or []:
                out.extend(_edit_ops(part))
            if isinstance(e.get("with"), str):
                out.append(e["with"])
    return out


def complexity_factors(row: dict[str, Any]) -> dict[str, str]:
    """Video-TT's complexity factors (Sec. 3.1) that the clip really has, each with evidence.

    Computed from the states and the edit records: movement speed (peak speed above
    ``FAST`` canvas diagonals per second), spatial-temporal arrangement (an order question, or
    three or more visible objects), illusions (a turn near the aliasing limit between two of
    the 16 samples, or a symmetric shape that turns), unclear content (misleading text on the
    subject, or distractors), technical editing (reverse, speed, mirror, rotate, zoom, crop)
    and narrative editing (concatenated or composited clips).
    """
    out: dict[str, str] = {}
    ops = _edit_ops(row.get("edits"))
    if has_states(row):
        lab = Labels.from_json(row["labels"])
        q = lab.query
        subj = lab.subject
        text = [t for t in lab.tracks if t.text and t.name in q.objects]
        distractors = [t for t in lab.tracks if t.role == "distractor"]
        reasons = [f"{describe(t.name, lab)} carries the misleading word {t.text!r}" for t in text]
        if distractors:
            reasons.append(f"{len(distractors)} distractor object(s) share the frame")
        if reasons:
            out["unclear_content"] = "; ".join(reasons)
        peak, at, who = peak_speed(lab, q.objects)
        if peak > FAST:
            out["movement_speed"] = (
                f"{describe(who, lab)} peaks at {peak:.2f} frame diagonals per second at {secs(at)}"
            )
        shown = [t for t in lab.tracks if t.role != "anchor" and t.visible.any()]
        if q.fact == "order":
            out["spatial_temporal_arrangement"] = (
                f"the answer depends on when each of {len(q.objects)} objects starts"
            )
        elif len(shown) >= 3:
            out["spatial_temporal_arrangement"] = f"{len(shown)} objects are on screen"
        if q.about_turning:
            idx = observe.uniform_indices(lab.num_frames, SAMPLING_FRAMES)
            steps = observe.turn_steps(lab, idx)
            worst = float(np.abs(steps).max()) if len(steps) else 0.0
            order = observe.SYMMETRY.get(subj.shape, 1)
            turns = bool(np.any(np.abs(observe.turn_steps(lab, np.arange(lab.num_frames))) > 0))
            why = []
            if worst > ALIASING_TURN:
                why.append(
                    f"it turns up to {worst:.0f} degrees between two of {SAMPLING_FRAMES} "
                    "uniform samples, near the wagon-wheel limit"
                )
            if q.kind == "spin" and order >= 2 and turns:
                why.append(
                    f"the {subj.shape.replace('_', ' ')} looks the same every "
                    f"{360 // order} degrees"
                )
            if why:
                out["illusions"] = "; ".join(why)
    tech = [o for o in ops if o in TECHNICAL_OPS]
    if tech:
        out["technical_editing"] = "edited with " + ", ".join(dict.fromkeys(tech))
    narr = [o for o in ops if o in NARRATIVE_OPS]
    if narr:
        out["narrative_editing"] = "assembled with " + ", ".join(dict.fromkeys(narr))
    return {k: out[k] for k in FACTORS if k in out}


def _multiple_choice(ctx: Ctx) -> dict[str, Any]:
    row = ctx.row
    options = [str(o) for o in row["options"]]
    i = int(row["answer"])
    if not 0 <= i < len(options):
        raise InputFileError(f"row {ctx.id!r}: answer index {i} out of range")
    letter = chr(ord("A") + i)
    return {
        "qid": f"{ctx.id}/multiple_choice",
        "kind": "multiple_choice",
        "question": str(row["question"]),
        "options": options,
        "answer_index": i,
        "answer": options[i],
        "accepted": uniq([letter, f"{letter}. {options[i]}", options[i].rstrip(".")]),
    }


def question_set(row: dict[str, Any]) -> dict[str, Any]:
    """The five Video-TT questions of one row, its rationale, complexity factors and 16-frame
    sampling check (without ``video``, which depends on where the set is written).

    Raises ``ValueError`` for a row without per-frame states, or whose states disagree with
    its answer key.
    """
    if not has_states(row):
        raise InputFileError(
            f"row {row.get('id', '?')!r}: no per-frame states (labels.tracks); a Video-TT "
            "question set needs them"
        )
    ctx = Ctx(row)
    parts = writer_of(ctx.fact)(ctx)
    rationale = parts["rationale"]
    questions = []
    for kind in KINDS[:-1]:
        q = question_entry(ctx, kind, *parts[kind])
        q["rationale"] = rationale
        questions.append(q)
    questions.append(_multiple_choice(ctx))
    idx = observe.uniform_indices(ctx.n, SAMPLING_FRAMES)
    sampled = answer_of(ctx.labels, idx)
    factors = complexity_factors(row)
    return {
        "video_id": ctx.id,
        "task": row.get("task"),
        "generator": row.get("generator"),
        "answer_key": ctx.key,
        "duration_s": round(ctx.duration, 3),
        "rationale": rationale,
        "complexity_factors": list(factors),
        "complexity_evidence": factors,
        "sampling_check": {
            "uniform_frames": SAMPLING_FRAMES,
            "answer_from_samples": None if sampled is None else answer_key(ctx.fact, sampled),
            "answerable": sampled is not None and answer_key(ctx.fact, sampled) == ctx.key,
        },
        "questions": questions,
        **provenance(row),  # kept although uncertified: says so
    }


def export_videott(
    rows: Iterable[dict[str, Any]],
    out_dir: str | os.PathLike[str],
    dataset_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """Write ``out_dir/videott.json`` (atomically) for every row with per-frame states.

    ``dataset_dir`` is the folder the rows' ``video`` paths are relative to (the manifest's
    folder); by default ``out_dir``'s parent, so entries reference ``../videos/{id}.mp4``.
    Rows without states are skipped. Returns the written path.
    """
    out = Path(out_dir)
    base = Path(dataset_dir) if dataset_dir is not None else out.parent
    entries = []
    seen: set[str] = set()
    for row in rows:
        if not has_states(row):
            continue
        entry = question_set(row)
        if entry["video_id"] in seen:
            raise InputFileError(f"row {entry['video_id']!r}: duplicated id")
        seen.add(entry["video_id"])
        rel = os.path.relpath(os.path.abspath(base / row["video"]), os.path.abspath(out))
        entries.append({"video_id": entry["video_id"], "video": Path(rel).as_posix(), **entry})
    path = out / FILE_NAME
    write_json(path, entries)
    return path


ENTRY_FIELDS = {
    "video_id": str,
    "video": str,
    "complexity_factors": list,
    "questions": list,
}
QUESTION_FIELDS = {"qid": str, "kind": str, "question": str, "answer": str, "accepted": list}


def _check_entry(entry: Any, where: str, base: Path, check_videos: bool) -> None:
    if not isinstance(entry, dict):
        raise InputFileError(f"{where}: expected an object, got {type(entry).__name__}")
    for k, typ in ENTRY_FIELDS.items():
        if not isinstance(entry.get(k), typ):
            raise InputFileError(
                f"{where}: field {k!r} must be a {typ.__name__}, got {entry.get(k)!r}"
            )
    vid = entry["video_id"]
    bad = [f for f in entry["complexity_factors"] if f not in FACTORS]
    if bad:
        raise InputFileError(f"{where}: unknown complexity factor(s) {bad}; known: {FACTORS}")
    kinds = [q.get("kind") if isinstance(q, dict) else None for q in entry["questions"]]
    if kinds != list(KINDS):
        raise InputFileError(f"{where}: questions must be {list(KINDS)} in order, got {kinds}")
    for q in entry["questions"]:
        qw = f"{where}: question {q['kind']!r}"
        for k, typ in QUESTION_FIELDS.items():
            if not isinstance(q.get(k), typ) or (typ is str and not q[k]):
                raise InputFileError(f"{qw}: field {k!r} must be a non-empty {typ.__name__}")
        if q["qid"] != f"{vid}/{q['kind']}":
            raise InputFileError(f"{qw}: qid {q['qid']!r} must be {vid + '/' + q['kind']!r}")
        if not q["accepted"] or not all(isinstance(a, str) for a in q["accepted"]):
            raise InputFileError(f"{qw}: 'accepted' must be a non-empty list of strings")
        if q["kind"] == "multiple_choice":
            opts, i = q.get("options"), q.get("answer_index")
            if not isinstance(opts, list) or len(opts) < 2:
                raise InputFileError(f"{qw}: 'options' must list at least two strings")
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(opts):
                raise InputFileError(f"{qw}: 'answer_index' {i!r} is not an index into options")
            if opts[i] != q["answer"]:
                raise InputFileError(f"{qw}: answer {q['answer']!r} is not options[{i}]")
    if check_videos and not (base / entry["video"]).is_file():
        raise MissingFileError(f"{where}: video {entry['video']!r} not found under {base}")


def read_videott(path: str | os.PathLike[str], check_videos: bool = False) -> list[dict[str, Any]]:
    """Read a ``videott.json`` back, validating every entry; errors name the entry and field.

    With ``check_videos`` every referenced video must exist (paths are relative to the file).
    """
    path = Path(path)
    data = read_json(path, "Video-TT file")  # bounded, UTF-8, valid, no repeated keys
    if not isinstance(data, list):
        raise InputFileError(f"{path}: expected a JSON list of question sets")
    seen: set[str] = set()
    for i, entry in enumerate(data):
        vid = entry.get("video_id") if isinstance(entry, dict) else None
        where = f"{path}: entry {i}" + (f" ({vid})" if vid else "")
        _check_entry(entry, where, path.parent, check_videos)
        if vid in seen:
            raise InputFileError(f"{where}: video_id {vid!r} is duplicated")
        seen.add(str(vid))  # a str: _check_entry checked each field's type
    return data
