"""The export registry: built-ins are registered, and a new export is one module (the worked
example of docs/extend/export.md, ``examples/questions_csv.py``) that a build writes beside
the others."""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path

import pytest

from tempogen.builders.exports import EXPORTS, all_exports
from tempogen.builders.exports.registry import register_export

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "questions_csv.py"


def test_builtins_registered_in_order():
    names = [e.name for e in all_exports()]
    assert names[:4] == ["tomato", "videott", "hf", "lmms_eval"]
    assert all(e.description for e in all_exports())


def test_registering_a_name_twice_is_refused():
    with pytest.raises(ValueError, match="tomato"):
        register_export("tomato")(lambda rows, d, o: None)


@pytest.fixture
def example_export():
    spec = importlib.util.spec_from_file_location("questions_csv", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["questions_csv"] = mod
    spec.loader.exec_module(mod)
    try:
        yield EXPORTS["questions_csv"]
    finally:
        EXPORTS.pop("questions_csv", None)
        sys.modules.pop("questions_csv", None)


def test_the_example_writes_every_row(example_export, manifest):
    root, rows = manifest
    path = example_export(rows, root)
    assert path == root / "csv" / "questions.csv"
    with open(path, newline="", encoding="utf-8") as f:
        read = list(csv.DictReader(f))
    assert [r["id"] for r in read] == [r["id"] for r in rows]
    assert [r["answer"] for r in read] == [r["answer_text"] for r in rows]
    assert example_export in all_exports()


def test_a_plugin_reading_rows_as_dicts_still_reads_manifest_records(example_export, tmp_path):
    """``read_manifest`` gives :class:`Row` records; a plugin written when rows were dicts
    (``r["id"]``, ``r["task"]``) reads them through the Row's read-only mapping view, the
    documented compatibility path, and writes what it wrote from the dicts."""
    from kit import manifest_row

    from tempogen.manifest import read_manifest, write_manifest

    made = [manifest_row(id=f"direction-{i:04d}", task="direction") for i in range(2)]
    made.append(manifest_row(id="count-0000", task="count", options=["1", "2"], answer=0))
    write_manifest(tmp_path / "manifest.jsonl", made)
    records = read_manifest(tmp_path / "manifest.jsonl")
    with open(example_export(records, tmp_path), newline="", encoding="utf-8") as f:
        read = list(csv.DictReader(f))
    with open(example_export([r.to_json() for r in made], tmp_path / "dicts"), newline="") as f:
        assert read == list(csv.DictReader(f))
    assert [(r["id"], r["task"], r["answer"]) for r in read] == [
        ("direction-0000", "direction", "Rightwards."),
        ("direction-0001", "direction", "Rightwards."),
        ("count-0000", "count", "1"),
    ]


def test_the_page_includes_the_example_file():
    """docs/extend/export.md shows the file by including it: the code shown is the code tested."""
    page = (ROOT / "docs" / "extend" / "export.md").read_text(encoding="utf-8")
    assert '```python\n--8<-- "examples/questions_csv.py"\n```' in page
