"""The export registry: built-ins are registered, and a new export is one module (the README's
worked example, ``examples/questions_csv.py``) that a build writes beside the others."""

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


def test_readme_example_writes_every_row(example_export, manifest):
    root, rows = manifest
    path = example_export(rows, root)
    assert path == root / "csv" / "questions.csv"
    with open(path, newline="", encoding="utf-8") as f:
        read = list(csv.DictReader(f))
    assert [r["id"] for r in read] == [r["id"] for r in rows]
    assert [r["answer"] for r in read] == [r["answer_text"] for r in rows]
    assert example_export in all_exports()


def test_readme_shows_the_example_verbatim():
    body = EXAMPLE.read_text(encoding="utf-8").split('"""', 2)[2].strip()
    assert body in (ROOT / "README.md").read_text(encoding="utf-8")
