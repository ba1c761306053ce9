"""A versioned JSON Schema of one unified-manifest row, and a validating manifest reader.

``MANIFEST_SCHEMA`` (JSON Schema draft 2020-12) states the fields every row of
``manifest.jsonl`` carries and their types; :func:`validate_row` adds the checks a schema
cannot express (the answer indexes the options and names ``answer_text``; per-frame arrays
agree in length). Errors name the file, the line and the JSON path of the field, so a broken
manifest is fixed without guessing. A row without ``schema_version`` is read as the current
version (manifests written before the field existed).
"""

from __future__ import annotations

import os
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from tempogen import MANIFEST_SCHEMA_VERSION
from tempogen.io import read_jsonl
from tempogen.questions import TASKS, VARIATION_KEYS

SCHEMA_VERSION = MANIFEST_SCHEMA_VERSION
DEMONSTRATION_TYPES = ("human", "object", "simulated")
HEX64 = "^[0-9a-f]{64}$"
STATE_ARRAYS = ("x", "y", "angle", "scale", "visible", "lit")
MAX_MESSAGE = 240

_TRACK = {
    "type": "object",
    "required": ["name", "role", "shape", *STATE_ARRAYS],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "role": {"type": "string"},
        "shape": {"type": "string"},
        "text": {"type": "string"},
        **{k: {"type": "array", "items": {"type": "number"}} for k in STATE_ARRAYS},
    },
}

MANIFEST_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": f"https://tempogen.invalid/schema/manifest-row/{SCHEMA_VERSION}",
    "title": "tempogen unified manifest row",
    "description": (
        "One question of a tempogen dataset: its clip, question, options, answer, exact labels, "
        "TOMATO variation flags and provenance."
    ),
    "type": "object",
    "required": [
        "id",
        "video",
        "task",
        "generator",
        "demonstration_type",
        "question",
        "options",
        "answer",
        "answer_text",
        "labels",
        "variation",
        "source",
        "edits",
        "seed",
        "spec_hash",
        "video_sha256",
    ],
    "properties": {
        "schema_version": {"const": SCHEMA_VERSION},
        "id": {"type": "string", "minLength": 1, "pattern": "^[^/\\\\]+$"},
        "video": {"type": "string", "minLength": 1},
        "task": {"enum": list(TASKS)},
        "generator": {"type": "string", "minLength": 1},
        "demonstration_type": {"enum": list(DEMONSTRATION_TYPES)},
        "question": {"type": "string", "minLength": 1},
        "options": {"type": "array", "minItems": 2, "items": {"type": "string"}},
        "answer": {"type": "integer", "minimum": 0},
        "answer_text": {"type": "string"},
        "answer_key": {"type": "string"},
        "option_keys": {"type": "array", "items": {"type": "string"}},
        "labels": {
            "type": "object",
            "if": {"required": ["tracks"]},
            "then": {
                "required": ["width", "height", "fps", "query", "tracks"],
                "properties": {
                    "width": {"type": "integer", "minimum": 1},
                    "height": {"type": "integer", "minimum": 1},
                    "fps": {"type": "number", "exclusiveMinimum": 0},
                    "query": {
                        "type": "object",
                        "required": ["fact", "objects"],
                        "properties": {
                            "fact": {"type": "string"},
                            "objects": {"type": "array", "items": {"type": "string"}},
                            "kind": {"type": "string"},
                        },
                    },
                    "tracks": {"type": "array", "items": _TRACK},
                },
            },
        },
        "variation": {
            "type": "object",
            "required": list(VARIATION_KEYS),
            "additionalProperties": False,
            "properties": {k: {"enum": [0, 1]} for k in VARIATION_KEYS},
        },
        "source": {"type": ["string", "null"]},
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["op"],
                "properties": {"op": {"type": "string", "minLength": 1}},
            },
        },
        "seed": {"type": "integer", "minimum": 0},
        "spec_hash": {"type": "string", "pattern": HEX64},
        "spec": {"type": "object"},
        "video_sha256": {"type": "string", "pattern": HEX64},
        "num_frames": {"type": "integer", "minimum": 1},
        "fps": {"type": "number", "exclusiveMinimum": 0},
        "width": {"type": "integer", "minimum": 1},
        "height": {"type": "integer", "minimum": 1},
        "note": {"type": "string"},
        "certificate": {"type": "object"},
    },
}


def _without_frame_items(schema: Any) -> Any:
    """The schema with per-frame arrays checked as arrays only: jsonschema descends into every
    number (seconds for a dataset); their element types are checked with numpy instead."""
    if isinstance(schema, dict):
        if schema is _TRACK:
            props = {
                k: ({"type": "array"} if k in STATE_ARRAYS else v)
                for k, v in _TRACK["properties"].items()
            }
            return {**_TRACK, "properties": props}
        return {k: _without_frame_items(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_without_frame_items(v) for v in schema]
    return schema


_VALIDATOR = jsonschema.Draft202012Validator(_without_frame_items(MANIFEST_SCHEMA))


def json_path(parts: Any) -> str:
    """A JSON path as written in messages: ``options[0]``, ``labels.tracks[2].x``."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += f".{p}" if out else str(p)
    return out or "(row)"


def _message(err: ValidationError) -> tuple[str, str]:
    """(JSON path, message) of a schema error, naming a missing field itself."""
    if err.validator == "required" and isinstance(err.instance, dict):
        missing = [k for k in err.validator_value if k not in err.instance]
        if missing:
            return json_path([*err.absolute_path, missing[0]]), "required field is missing"
    if err.validator == "const" and list(err.absolute_path) == ["schema_version"]:
        return "schema_version", f"{err.instance!r}, this tempogen reads {SCHEMA_VERSION!r}"
    msg = err.message
    if len(msg) > MAX_MESSAGE:  # a long array's repr would bury the point
        msg = msg[: MAX_MESSAGE - 60] + " ... " + msg[-55:]
    return json_path(err.absolute_path), msg


def _first_non_number(values: list[Any]) -> int | None:
    """Index of the first element that is not a JSON number (booleans are not numbers)."""
    number = (int, float)
    for j, v in enumerate(values):
        if type(v) not in number:
            return j
    return None


def _extra_checks(row: dict[str, Any]) -> tuple[str, str] | None:
    """The first violation of a rule JSON Schema cannot state, as (path, message)."""
    options, answer = row["options"], row["answer"]
    if answer >= len(options):
        return "answer", f"index {answer} is out of range for {len(options)} options"
    if row["answer_text"] != options[answer]:
        return "answer_text", f"{row['answer_text']!r} is not options[{answer}] {options[answer]!r}"
    keys = row.get("option_keys")
    if keys is not None:
        if len(keys) != len(options):
            return "option_keys", f"{len(keys)} keys for {len(options)} options"
        if "answer_key" in row and keys[answer] != row["answer_key"]:
            return (
                "answer_key",
                f"{row['answer_key']!r} is not option_keys[{answer}] {keys[answer]!r}",
            )
    tracks = row["labels"].get("tracks")
    if tracks:
        want = row.get("num_frames", len(tracks[0]["x"]))
        for i, tr in enumerate(tracks):
            for k in STATE_ARRAYS:
                bad = _first_non_number(tr[k])
                if bad is not None:
                    return (
                        f"labels.tracks[{i}].{k}[{bad}]",
                        f"{tr[k][bad]!r} is not of type 'number'",
                    )
                if len(tr[k]) != want:
                    return (
                        f"labels.tracks[{i}].{k}",
                        f"{len(tr[k])} values, expected one per frame ({want})",
                    )
        names = {tr["name"] for tr in tracks}
        for j, obj in enumerate(row["labels"]["query"]["objects"]):
            if obj not in names:
                return f"labels.query.objects[{j}]", f"{obj!r} names no track"
    return None


def validate_row(row: Any, where: str = "") -> None:
    """Raise ``ValueError("{where}: {json path}: {problem}")`` if ``row`` is not a valid
    manifest row of this schema version; ``where`` defaults to the row's id."""
    if not where:
        rid = row.get("id") if isinstance(row, dict) else None
        where = f"row {rid!r}" if rid is not None else "row"
    if not isinstance(row, dict):
        raise ValueError(f"{where}: expected a JSON object, got {type(row).__name__}")
    version = row.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise ValueError(f"{where}: schema version {version}, this tempogen reads {SCHEMA_VERSION}")
    err = best_match(_VALIDATOR.iter_errors(row))
    if err is not None:
        path, msg = _message(err)
        raise ValueError(f"{where}: {path}: {msg}")
    extra = _extra_checks(row)
    if extra is not None:
        raise ValueError(f"{where}: {extra[0]}: {extra[1]}")


def read_manifest(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read ``manifest.jsonl``, validating every row; errors name ``file:line`` and the field.

    Also refuses duplicated ids and rows of another schema version.
    """
    rows = read_jsonl(path)  # JSON errors: "{path}:{line}: not valid JSON: ..."
    with open(path, encoding="utf-8") as f:
        lines = [n for n, text in enumerate(f, 1) if text.strip()]
    first: dict[str, int] = {}
    for row, n in zip(rows, lines):
        where = f"{path}:{n}"
        validate_row(row, where)
        if row["id"] in first:
            raise ValueError(f"{where}: id: {row['id']!r} duplicates line {first[row['id']]}")
        first[row["id"]] = n
    return rows
