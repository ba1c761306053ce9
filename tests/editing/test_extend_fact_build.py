"""The new fact of docs/extend/fact.md (``examples/last_direction.py``) builds end to end,
with every export, caption pairs and the retrieval library, as a user runs it:
a pattern of its own asks it (``examples/slide_last.py``), ``tempogen generate`` writes every
export from ``examples/last_direction.yaml``, and ``audit verify`` and ``validate`` pass.

A fact is one file: nothing in tempogen names ``last_direction``, so each stage that used to
switch on a fact's name (the Video-TT export stopped on a bare ``KeyError``) reads it from
the fact registry, or words it from the fact's own options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit import read_jsonl, run_cli

from tempogen.builders.exports.registry import FORMATS

pytestmark = pytest.mark.slow  # one small build (4 clips) and its audits, end to end

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PLUGINS = "last_direction,slide_last"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("last_direction") / "ds"
    gen = run_cli("generate", "--config", EXAMPLES / "last_direction.yaml", "--out", out, "-q")
    assert gen.returncode == 0, gen.stderr
    return out


def test_every_row_asks_the_new_fact_and_every_export_is_written(built) -> None:
    rows = read_jsonl(built / "manifest.jsonl")
    assert len(rows) == 4
    assert {r["labels"]["query"]["fact"] for r in rows} == {"last_direction"}
    assert {r["answer_key"] for r in rows} <= {"left", "right", "up", "down", "none"}
    for fmt in FORMATS.values():
        assert any((built / fmt.folder).rglob("*")), f"{fmt.name}: nothing in {fmt.folder}/"
    sets = json.loads((built / "videott" / "videott.json").read_text(encoding="utf-8"))
    assert [s["answer_key"] for s in sets] == [r["answer_key"] for r in rows]
    for s, row in zip(sets, rows, strict=True):
        primary = s["questions"][0]
        assert primary["question"] == row["question"]
        assert primary["answer"] == row["answer_text"]
        assert s["sampling_check"]["answerable"] is True
    library = (built / "retrieval" / "record.json").read_text(encoding="utf-8")
    assert json.loads(library)["summary"]["corpus_captions"] == len(rows)


def test_the_build_verifies_from_pixels_and_validates(built) -> None:
    verify = run_cli(
        "audit", "verify", "--manifest", built / "manifest.jsonl", "--plugins", PLUGINS,
        pythonpath=str(EXAMPLES),
    )  # fmt: skip
    assert verify.returncode == 0, verify.stderr
    assert "verified 4/4 (100.0%)" in verify.stdout + verify.stderr
    valid = run_cli("validate", built, "--plugins", PLUGINS, pythonpath=str(EXAMPLES))
    assert valid.returncode == 0, valid.stderr
    assert "valid Video-TT, 4 question sets" in valid.stdout
