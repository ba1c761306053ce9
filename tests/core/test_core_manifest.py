"""The manifest schema: generated rows validate; broken rows name file, line and field."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import jsonschema
import pytest

from tempogen.config import config_from_dict
from tempogen.generators.build import plan, render_spec
from tempogen.io import write_jsonl
from tempogen.manifest import (
    MANIFEST_SCHEMA,
    SCHEMA_VERSION,
    read_manifest,
    validate_row,
)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, list[dict]]:
    """One rendered clip per task (160x90, 10 fps, 3 s) and its manifest."""
    out = tmp_path_factory.mktemp("schema")
    cfg = config_from_dict(
        {"size": [160, 90], "fps": 10, "duration": [3, 3], "samples_per_task": 1}
    )
    rows = [render_spec(s, out) for s in plan(cfg)]
    write_jsonl(out / "manifest.jsonl", rows)
    return out / "manifest.jsonl", rows


def write(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(MANIFEST_SCHEMA)
    assert MANIFEST_SCHEMA["$schema"].endswith("2020-12/schema")
    assert SCHEMA_VERSION == "1.0"


def test_generated_rows_validate(generated) -> None:
    path, rows = generated
    assert [r.to_json() for r in read_manifest(path)] == rows
    assert {r["task"] for r in rows} == {
        "count",
        "direction",
        "rotation",
        "shape&trend",
        "velocity&frequency",
        "visual_cues",
    }
    for r in rows:
        validate_row(r)
        validate_row({**r, "schema_version": SCHEMA_VERSION})  # the optional field


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda r: r["options"].__setitem__(0, 3), "options[0]: 3 is not of type 'string'"),
        (lambda r: r.pop("seed"), "seed: required field is missing"),
        (lambda r: r.__setitem__("task", "speed"), "task: 'speed' is not one of"),
        (lambda r: r.__setitem__("demonstration_type", "robot"), "demonstration_type:"),
        (lambda r: r.__setitem__("answer", -1), "answer: -1 is less than the minimum of 0"),
        (lambda r: r.__setitem__("answer", True), "answer: True is not of type 'integer'"),
        (lambda r: r.__setitem__("answer", 40), "answer: index 40 is out of range"),
        (lambda r: r.__setitem__("answer_text", "nope"), "answer_text: 'nope' is not options["),
        (lambda r: r.__setitem__("options", ["only one"]), "options: ['only one'] is too short"),
        (lambda r: r["variation"].__setitem__("zoom", 2), "variation.zoom: 2 is not one of"),
        (lambda r: r["variation"].pop("zoom"), "variation.zoom: required field is missing"),
        (lambda r: r.__setitem__("video_sha256", "abc"), "video_sha256: 'abc' does not match"),
        (lambda r: r.__setitem__("source", 3), "source: 3 is not of type"),
        (lambda r: r.__setitem__("edits", [{"axis": "x"}]), "edits[0].op: required field"),
        (lambda r: r.__setitem__("labels", []), "labels: [] is not of type 'object'"),
        (
            lambda r: r["labels"]["tracks"][0].__setitem__("x", [1.0, 2.0]),
            "labels.tracks[0].x: 2 values, expected one per frame",
        ),
    ],
)
def test_broken_row_names_line_and_field(generated, tmp_path, mutate, expected) -> None:
    _, rows = generated
    rows = copy.deepcopy(rows)
    mutate(rows[2])
    path = write(tmp_path / "manifest.jsonl", rows)
    with pytest.raises(ValueError) as exc:
        read_manifest(path)
    assert f"manifest.jsonl:3: {expected}" in str(exc.value)


def test_messages_stay_short(generated) -> None:
    row = copy.deepcopy(generated[1][0])
    row["labels"]["tracks"][0]["x"] = "x" * 5000
    with pytest.raises(ValueError, match=r"labels\.tracks\[0\]\.x") as exc:
        validate_row(row, "m.jsonl:1")
    assert len(str(exc.value)) < 400


def test_line_numbers_count_blank_lines(generated, tmp_path) -> None:
    rows = copy.deepcopy(generated[1][:2])
    rows[1]["options"] = "not a list"
    path = tmp_path / "manifest.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n\n" + json.dumps(rows[1]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"manifest\.jsonl:3: options: 'not a list'"):
        read_manifest(path)


def test_invalid_json_and_duplicates(generated, tmp_path) -> None:
    rows = generated[1]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(rows[0]) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl:2: not valid JSON"):
        read_manifest(bad)
    dup = write(tmp_path / "dup.jsonl", [rows[0], rows[1], rows[0]])
    with pytest.raises(ValueError, match=r"dup\.jsonl:3: id: .* duplicates line 1"):
        read_manifest(dup)


def test_schema_version_mismatch_is_clear(generated, tmp_path) -> None:
    rows = copy.deepcopy(generated[1][:2])
    rows[0]["schema_version"] = "0.9"
    path = write(tmp_path / "manifest.jsonl", rows)
    with pytest.raises(ValueError) as exc:
        read_manifest(path)
    assert "manifest.jsonl:1: schema version 0.9, this tempogen reads 1.0" in str(exc.value)
    rows[0]["schema_version"] = SCHEMA_VERSION
    assert len(read_manifest(write(path, rows))) == 2


def test_validate_row_defaults_to_row_id(generated) -> None:
    row = copy.deepcopy(generated[1][0])
    del row["question"]
    with pytest.raises(ValueError, match=r"row 'count-0000': question: required field"):
        validate_row(row)
    with pytest.raises(ValueError, match="expected a JSON object"):
        validate_row([1, 2], "m.jsonl:4")


def test_schema_file_is_shipped_and_agrees_with_the_code() -> None:
    from importlib import resources

    from tempogen import MANIFEST_SCHEMA_VERSION
    from tempogen.questions import TASKS, VARIATION_KEYS

    text = resources.files("tempogen").joinpath("schemas/manifest-row.schema.json").read_text()
    assert json.loads(text) == MANIFEST_SCHEMA
    props = MANIFEST_SCHEMA["properties"]
    assert props["schema_version"]["const"] == MANIFEST_SCHEMA_VERSION
    assert MANIFEST_SCHEMA["$id"].endswith(f"/{MANIFEST_SCHEMA_VERSION}")
    assert props["task"]["enum"] == list(TASKS)
    assert props["variation"]["required"] == list(VARIATION_KEYS)
    assert "plugins" not in MANIFEST_SCHEMA["required"]


# The keys of a generated row, in the order the generator wrote them before rows were typed.
GENERATED_ORDER = (
    "schema_version id video task generator demonstration_type question options option_keys "
    "answer answer_text answer_key labels variation source edits seed spec spec_hash "
    "video_sha256 num_frames fps width height note certificate"
).split()


def test_row_round_trips_generated_rows_exactly(generated) -> None:
    from tempogen.io import dumps
    from tempogen.manifest import Row

    for r in generated[1]:
        row = Row.from_json(r)
        assert isinstance(row.options, tuple) and row.plugins == ()
        back = row.to_json()
        assert back == r and list(back) == GENERATED_ORDER  # same keys, in today's order
        assert dumps(back) == dumps(r)


def test_row_keeps_unknown_fields_and_an_absent_schema_version(generated) -> None:
    from tempogen.manifest import Row

    r = {k: v for k, v in generated[1][0].items() if k != "schema_version"}
    r["fact"] = "count"
    back = Row.from_json(r).to_json()
    assert back == r and "schema_version" not in back


def test_plugins_are_written_only_when_a_row_has_some(generated, tmp_path) -> None:
    from tempogen.manifest import Row

    row = Row.from_json(generated[1][0])
    assert "plugins" not in row.to_json()
    with_plugins = row.edited(plugins=["my_patterns", "pkg.more"])
    assert with_plugins.plugins == ("my_patterns", "pkg.more")
    assert with_plugins.to_json()["plugins"] == ["my_patterns", "pkg.more"]
    validate_row(with_plugins.to_json())
    assert Row.from_json(with_plugins.to_json()) == with_plugins
    for bad, msg in (
        ([], "plugins: [] should be non-empty"),
        (["1x"], "plugins[0]: '1x' does not"),
    ):
        with pytest.raises(ValueError, match=re.escape(msg)):
            validate_row({**row.to_json(), "plugins": bad})


def test_write_manifest_validates_before_writing(generated, tmp_path) -> None:
    from tempogen.errors import InputFileError
    from tempogen.manifest import Row, write_manifest

    rows = copy.deepcopy(generated[1][:3])
    good = tmp_path / "good.jsonl"
    write_manifest(good, [Row.from_json(rows[0]), rows[1], rows[2]])
    plain = tmp_path / "plain.jsonl"
    write_jsonl(plain, rows)
    assert good.read_bytes() == plain.read_bytes()
    rows[1]["answer_text"] = "nope"
    bad = tmp_path / "bad.jsonl"
    with pytest.raises(InputFileError, match=r"bad\.jsonl:2: answer_text: 'nope' is not options"):
        write_manifest(bad, rows)
    with pytest.raises(InputFileError, match=r"dup\.jsonl:2: id: .* duplicates line 1"):
        write_manifest(tmp_path / "dup.jsonl", [generated[1][0], generated[1][0]])
    assert not bad.exists() and not (tmp_path / "dup.jsonl").exists()


def test_manifest_errors_are_input_file_errors(generated, tmp_path) -> None:
    from tempogen.errors import InputFileError

    path = tmp_path / "m.jsonl"
    path.write_text("{oops\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"m\.jsonl:1: not valid JSON"):
        read_manifest(path)
    with pytest.raises(InputFileError, match="cannot read"):
        read_manifest(tmp_path / "missing.jsonl")


def _json_types(hint: object) -> set[str]:
    """The JSON Schema types a ``Row`` field's annotation allows."""
    import enum
    import types
    import typing

    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return set().union(*(_json_types(a) for a in args))
    origin = typing.get_origin(hint) or hint
    if isinstance(origin, type) and issubclass(origin, enum.Enum):
        return {"enum"}
    return {
        str: {"string"},
        int: {"integer"},
        float: {"number"},
        tuple: {"array"},
        dict: {"object"},
        type(None): {"null"},
    }[origin]


def test_row_record_and_schema_agree() -> None:
    """Row's fields are the schema's properties, required exactly where the schema requires
    them, each of the JSON type the schema states; its enums hold the schema's values."""
    import dataclasses
    import typing

    from tempogen.kinds import DemonstrationType, Task
    from tempogen.manifest import Row

    props = MANIFEST_SCHEMA["properties"]
    fields = {f.name: f for f in dataclasses.fields(Row) if f.name != "extra"}
    assert set(fields) == set(props)
    no_default = {
        n
        for n, f in fields.items()
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    assert no_default == set(MANIFEST_SCHEMA["required"])
    hints = typing.get_type_hints(Row)
    for name, prop in props.items():
        allowed = _json_types(hints[name])
        if "enum" in prop:
            want = {"enum"}
        elif "const" in prop:
            want = {"string"}
        else:
            want = set(prop["type"] if isinstance(prop["type"], list) else [prop["type"]])
        if name in no_default:  # required: None only where the schema allows null
            assert allowed == want, name
        else:  # optional: None (or an empty default) stands for absent
            assert allowed - {"null"} == want - {"null"}, name
    assert [t.value for t in Task] == props["task"]["enum"]
    assert [d.value for d in DemonstrationType] == props["demonstration_type"]["enum"]


def test_read_manifest_gives_records_that_write_back_byte_identical(generated, tmp_path) -> None:
    """read_manifest returns Row records (attributes, enums); written back they are the same
    bytes; the dict view of old callers reads the same values as the JSON."""
    from tempogen.kinds import Task
    from tempogen.manifest import Row, write_manifest

    path, rows = generated
    read = read_manifest(path)
    assert all(isinstance(r, Row) for r in read)
    assert {r.task for r in read} == set(Task)
    assert read[0].task is Task(rows[0]["task"])
    out = tmp_path / "again.jsonl"
    write_manifest(out, read)
    assert out.read_bytes() == path.read_bytes()
    for r, j in zip(read, rows, strict=True):
        assert dict(r) == j and {**r} == j and list(r) == list(j) and dict(r.items()) == j
        assert [r[k] for k in j] == list(j.values())
        assert "answer_key" in r and "nope" not in r and r.get("nope", 7) == 7
        with pytest.raises(KeyError):
            r["nope"]


def test_the_kit_builds_complete_valid_rows_overridable_by_keyword() -> None:
    """``kit.manifest_row``: every field a build writes, valid as written; an override keeps
    the answer's text and key in step with the options, unless they are given too."""
    from kit import manifest_row

    from tempogen.errors import InputFileError
    from tempogen.manifest import Row

    row = manifest_row()
    assert isinstance(row, Row) and set(MANIFEST_SCHEMA["required"]) <= set(row.to_json())
    validate_row(row.to_json())
    assert len(row.tracks[0]["x"]) == row.num_frames == 8
    keyed = manifest_row(num_frames=30, options=["Up.", "Down."], option_keys=["up", "down"])
    validate_row(keyed.to_json())
    assert (keyed.answer_text, keyed.answer_key, keyed.num_frames) == ("Down.", "down", 30)
    assert manifest_row(answer_text="Upwards.").answer_text == "Upwards."  # as given
    with pytest.raises(InputFileError, match="answer_text"):
        validate_row(manifest_row(answer_text="Upwards.").to_json())  # a broken row on purpose
