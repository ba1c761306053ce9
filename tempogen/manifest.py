"""The manifest row: one typed record, its versioned JSON Schema, and a validating reader/writer.

``tempogen/schemas/manifest-row.schema.json`` (JSON Schema draft 2020-12, shipped with the
package and loaded as ``MANIFEST_SCHEMA``) states the fields every row of ``manifest.jsonl``
carries and their types; :func:`validate_row` adds the checks a schema cannot express (the
answer indexes the options and names ``answer_text``; per-frame arrays agree in length).
:class:`Row` is the record both the generator and the edit step build; :func:`write_manifest`
validates every row before it writes. Errors name the file, the line and the JSON path of the
field, so a broken manifest is fixed without guessing. A row without ``schema_version`` is read
as the current version (manifests written before the field existed).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from importlib import resources
from typing import Any, cast

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from tempogen import MANIFEST_SCHEMA_VERSION
from tempogen.errors import InputFileError
from tempogen.io import read_jsonl_lines, write_jsonl
from tempogen.kinds import DemonstrationType, Task, TextEnum
from tempogen.labels import LabelsMeta
from tempogen.plugins import import_manifest_plugins, row_plugins  # noqa: F401  (re-exported)

SCHEMA_VERSION = MANIFEST_SCHEMA_VERSION
# ``verified`` of a row whose answer rests on declared facts (no per-frame states confirm it)
DECLARED = "declared"
SCHEMA_FILE = "schemas/manifest-row.schema.json"
DEMONSTRATION_TYPES = tuple(d.value for d in DemonstrationType)
MAX_MESSAGE = 240


def _load_schema() -> dict[str, Any]:
    """The shipped schema; it must be the version this code writes (a mismatch is a bug)."""
    text = resources.files("tempogen").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema = cast(dict[str, Any], json.loads(text))
    version = schema["properties"]["schema_version"]["const"]
    if version != SCHEMA_VERSION or not schema["$id"].endswith(f"/{SCHEMA_VERSION}"):
        raise RuntimeError(f"{SCHEMA_FILE} is version {version}, tempogen writes {SCHEMA_VERSION}")
    return schema


MANIFEST_SCHEMA: dict[str, Any] = _load_schema()
_TRACK = MANIFEST_SCHEMA["$defs"]["track"]
STATE_ARRAYS = tuple(k for k, v in _TRACK["properties"].items() if v.get("type") == "array")


def _without_frame_items(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with per-frame arrays checked as arrays only: jsonschema descends into every
    number (seconds for a dataset); their element types are checked in :func:`_extra_checks`."""
    out = cast(dict[str, Any], json.loads(json.dumps(schema)))
    for k in STATE_ARRAYS:
        out["$defs"]["track"]["properties"][k] = {"type": "array"}
    return out


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
    mocap = row.get("mocap")
    if mocap is not None:
        start, end = mocap["window"]["frames"]
        if end <= start:
            return "mocap.window.frames", f"[{start}, {end}) is an empty window"
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
    """Raise :class:`InputFileError` ``"{where}: {json path}: {problem}"`` if ``row`` is not a
    valid manifest row of this schema version; ``where`` defaults to the row's id."""
    if not where:
        rid = row.get("id") if isinstance(row, dict) else None
        where = f"row {rid!r}" if rid is not None else "row"
    if not isinstance(row, dict):
        raise InputFileError(f"{where}: expected a JSON object, got {type(row).__name__}")
    version = row.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise InputFileError(
            f"{where}: schema version {version}, this tempogen reads {SCHEMA_VERSION}"
        )
    err = best_match(_VALIDATOR.iter_errors(row))
    if err is not None:
        path, msg = _message(err)
        raise InputFileError(f"{where}: {path}: {msg}")
    extra = _extra_checks(row)
    if extra is not None:
        raise InputFileError(f"{where}: {extra[0]}: {extra[1]}")


_LISTS = ("plugins", "options", "option_keys", "edits")  # JSON lists held as tuples
_ENUMS: dict[str, type[TextEnum]] = {"task": Task, "demonstration_type": DemonstrationType}


@dataclass(frozen=True, kw_only=True)
class Row:
    """One manifest row: a question about one clip, its exact labels and its provenance.

    Fields are the schema's, in the order rows are written; optional ones are ``None`` (or an
    empty ``plugins``) when absent and then left out of :meth:`to_json`. ``extra`` keeps fields
    the schema does not name, so reading and writing a row loses nothing. ``task`` and
    ``demonstration_type`` are enums (:mod:`tempogen.kinds`); a plain string is converted.

    Read fields as attributes (``row.task``). ``row["task"]``, :meth:`get`, ``in``,
    :meth:`keys`, :meth:`items` and iteration are a read-only view of :meth:`to_json` kept for
    plugin formats and scripts written when rows were dicts; new code should not use them. A
    Row is not a dict: it does not equal one (compare ``row.to_json()``) and ``json.dumps``
    takes ``row.to_json()``.
    """

    schema_version: str | None = SCHEMA_VERSION
    id: str
    video: str
    task: Task
    generator: str
    plugins: tuple[str, ...] = ()
    demonstration_type: DemonstrationType
    question: str
    options: tuple[str, ...]
    option_keys: tuple[str, ...] | None = None
    answer: int
    answer_text: str
    answer_key: str | None = None
    labels: dict[str, Any]
    variation: dict[str, int]
    source: str | None
    edits: tuple[dict[str, Any], ...]
    seed: int
    spec: dict[str, Any] | None = None
    spec_hash: str
    video_sha256: str
    num_frames: int | None = None
    fps: float | None = None
    width: int | None = None
    height: int | None = None
    note: str | None = None
    certificate: dict[str, Any] | None = None
    verified: str | None = None  # "declared": the answer rests on declared facts (absent: states)
    pair: str | None = None  # a minimal pair's id, shared by its two rows (absent: no pair)
    mocap: dict[str, Any] | None = None  # a mocap clip's file, sha256, window and joint map
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in _LISTS:  # callers pass lists; a frozen record holds tuples
            value = getattr(self, name)
            if isinstance(value, list):
                object.__setattr__(self, name, tuple(value))
        for name, enum in _ENUMS.items():  # callers may pass the plain string
            value = getattr(self, name)
            if not isinstance(value, enum):
                object.__setattr__(self, name, enum(value))

    def to_json(self) -> dict[str, Any]:
        """The row as written to ``manifest.jsonl`` (lists for tuples, absent fields left out)."""
        out: dict[str, Any] = {}
        for f in _FIELDS:
            value = getattr(self, f)
            if value is None and f != "source":
                continue
            if f == "plugins" and not value:
                continue
            out[f] = _plain(f, value)
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: Any, where: str = "") -> Row:
        """A validated row from its JSON object; errors name ``where`` and the field."""
        validate_row(data, where)
        return cls._from_valid(data)

    @classmethod
    def _from_valid(cls, data: Mapping[str, Any]) -> Row:
        """A row from a JSON object already validated (no second pass over its arrays)."""
        known = {k: v for k, v in data.items() if k in _FIELDS}
        known.setdefault("schema_version", None)  # absent stays absent when written back
        return cls(**known, extra={k: v for k, v in data.items() if k not in _FIELDS})

    def edited(self, **changes: Any) -> Row:
        """This row with ``changes`` applied (an edited variant's row starts from its source)."""
        return dataclasses.replace(self, **changes)

    @property
    def tracks(self) -> list[dict[str, Any]]:
        """The per-frame tracks of the labels (empty for a row of declared facts)."""
        return cast(list[dict[str, Any]], self.labels.get("tracks") or [])

    @property
    def meta(self) -> LabelsMeta:
        """The labels' ``meta`` (see :class:`tempogen.labels.LabelsMeta`); empty when absent."""
        return cast(LabelsMeta, self.labels.get("meta") or {})

    # -- the dict view: rows were dicts before they were records ---------------------------

    def __getitem__(self, key: str) -> Any:
        """``row["task"]``: the field as :meth:`to_json` writes it; KeyError when absent."""
        if key in _FIELDS:
            value = getattr(self, key)
            if (value is None and key != "source") or (key == "plugins" and not value):
                raise KeyError(key)
            return _plain(key, value)
        return self.extra[key]

    def get(self, key: str, default: Any = None) -> Any:
        """``row.get("note")``: as ``to_json().get``."""
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key, _ABSENT) is not _ABSENT

    def keys(self) -> Iterator[str]:
        """The keys :meth:`to_json` writes, in order (so ``dict(row)`` and ``{**row}`` work)."""
        return iter(self.to_json())

    def __iter__(self) -> Iterator[str]:
        return self.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        """``(key, value)`` as :meth:`to_json` has them."""
        return iter(self.to_json().items())


_ABSENT = object()


def _plain(name: str, value: Any) -> Any:
    """A field's value as JSON holds it: a list for a tuple, the string for an enum."""
    if name in _LISTS:
        return list(value)
    if isinstance(value, TextEnum):
        return value.value
    return value


_FIELDS = tuple(f.name for f in fields(Row) if f.name != "extra")

# A row as a stage that also takes JSON reads it: a Row, or a dict of its JSON (from the build
# pipeline, a plugin or a script); both answer ``row["task"]`` and ``row.get("note")``.
RowLike = Row | Mapping[str, Any]


def as_row(row: RowLike) -> Row:
    """``row`` as a :class:`Row`: a dict (a row from the build pipeline, already valid) is
    converted without validating it again."""
    return row if isinstance(row, Row) else Row._from_valid(row)


def as_rows(rows: Iterable[RowLike]) -> list[Row]:
    """Every row as a :class:`Row` (see :func:`as_row`): what a stage that reads rows takes."""
    return [as_row(r) for r in rows]


def is_manifest_row(row: dict[str, Any]) -> bool:
    """Whether a row claims to be a manifest row (it has per-frame tracks or a schema
    version) and so must validate, rather than a user's clip record with declared facts,
    which ``tempogen edit`` also reads."""
    labels = row.get("labels")
    return "schema_version" in row or (isinstance(labels, dict) and "tracks" in labels)


def provenance(row: RowLike) -> dict[str, Any]:
    """How a row's answer is known, as every export's metadata says it: ``certified: false``
    for a row kept although its states do not certify it (``tempogen edit
    --keep-uncertified``), ``verified: "declared"`` for an answer resting on declared facts
    (labels without per-frame states); empty for a row certified from its states, so those
    exports keep their fields."""
    out: dict[str, Any] = {}
    # read as JSON: exports take rows of other benchmarks that carry only the fields they use
    cert = row.get("certificate")
    if isinstance(cert, dict) and cert.get("ok") is False:
        out["certified"] = False
    labels = row.get("labels")
    # a row written before the field existed: labels without tracks are declared facts
    if row.get("verified") == DECLARED or (isinstance(labels, dict) and not labels.get("tracks")):
        out["verified"] = DECLARED
    return out


def _as_json(row: Row | dict[str, Any]) -> dict[str, Any]:
    return row.to_json() if isinstance(row, Row) else row


read_lines = read_jsonl_lines  # one reader of JSON lines for every manifest and export


def manifest_problems(
    lines: Sequence[tuple[int, dict[str, Any]]], path: str | os.PathLike[str]
) -> dict[int, str]:
    """The problem of each bad row (invalid, or an id seen before), by line number, as
    messages ``"{path}:{line}: {field}: {problem}"``; empty when every row is valid."""
    problems: dict[int, str] = {}
    first: dict[str, int] = {}
    for n, row in lines:
        where = f"{path}:{n}"
        try:
            validate_row(row, where)
        except InputFileError as exc:
            problems[n] = str(exc)
            continue
        if row["id"] in first:
            problems[n] = f"{where}: id: {row['id']!r} duplicates line {first[row['id']]}"
        else:
            first[row["id"]] = n
    return problems


def read_manifest(path: str | os.PathLike[str]) -> list[Row]:
    """Read ``manifest.jsonl`` as :class:`Row` records, validating every row; errors name
    ``file:line`` and the field.

    Also refuses duplicated ids and rows of another schema version. The first problem raises
    :class:`InputFileError`.
    """
    lines = read_lines(path)
    problems = manifest_problems(lines, path)
    if problems:
        raise InputFileError(next(iter(problems.values())))
    return [Row._from_valid(row) for _, row in lines]


def write_manifest(path: str | os.PathLike[str], rows: Iterable[Row | dict[str, Any]]) -> None:
    """Validate every row (as ``path:line``), then write ``manifest.jsonl`` atomically.

    Nothing is written when a row is invalid or an id repeats: the first problem raises
    :class:`InputFileError` naming the line it would have had and the field.
    """
    out = [_as_json(r) for r in rows]
    problems = manifest_problems(list(enumerate(out, 1)), path)
    if problems:
        raise InputFileError(next(iter(problems.values())))
    write_jsonl(path, out)


__all__ = [
    "DECLARED",
    "DEMONSTRATION_TYPES",
    "MANIFEST_SCHEMA",
    "SCHEMA_VERSION",
    "STATE_ARRAYS",
    "Row",
    "RowLike",
    "as_row",
    "as_rows",
    "import_manifest_plugins",
    "is_manifest_row",
    "json_path",
    "manifest_problems",
    "provenance",
    "read_lines",
    "read_manifest",
    "row_plugins",
    "validate_row",
    "write_manifest",
]
