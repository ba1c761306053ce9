"""``tempogen validate``: a freshly built dataset passes file by file; a corrupted manifest or
export fails with exit 2 and a message naming the file, the line (or record) and the field."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tempogen.cli import main

CONFIG = """
seed: 4
size: [160, 90]
fps: 10
duration: [3, 3]
samples_per_task: 1
variants: {share: 0.5}
vinoground: {pairs: 2}
retrieval: {pairs: 0}
scenes3d: {humans: 0, objects: 0}
"""
FILES = (
    "manifest.jsonl",
    *(f"tomato/data/{t}.json" for t in ("count", "direction", "rotation")),
    *(f"tomato/data/{t}.json" for t in ("shape&trend", "velocity&frequency", "visual_cues")),
    "vinoground/vinoground.csv",
    "vinoground/vinoground_textscore.json",
    "vinoground/vinoground_videoscore.json",
    "videott/videott.json",
    "hf/data/test.parquet",
    "lmms_eval/tempogen_tomato/tempogen_tomato.yaml",
    "lmms_eval/tempogen_tomato/test.jsonl",
)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("validate")
    (root / "c.yaml").write_text(CONFIG, encoding="utf-8")
    res = subprocess.run(
        [sys.executable, "-m", "tempogen.cli", "generate", "--config", str(root / "c.yaml")]
        + ["--out", str(root / "ds"), "-j", "1", "-q"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    return root / "ds"


@pytest.fixture
def dataset(built, tmp_path) -> Path:
    """A copy of the built dataset, free to corrupt."""
    return Path(shutil.copytree(built, tmp_path / "ds"))


def validate(path: Path, capsys) -> tuple[int, list[str], list[str]]:
    code = main(["validate", str(path)])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


@pytest.mark.slow
def test_a_built_dataset_is_valid_file_by_file(built, capsys) -> None:
    code, out, err = validate(built, capsys)
    assert code == 0 and err == []
    assert [line.split(": valid ")[0] for line in out] == [str(built / f) for f in FILES]
    n = len((built / "manifest.jsonl").read_text().splitlines())
    assert f"{built / 'manifest.jsonl'}: valid manifest, {n} rows" in out
    assert f"{built / 'hf/data/test.parquet'}: valid Hugging Face Parquet, {n} records" in out


@pytest.mark.slow
@pytest.mark.parametrize(
    "target, expected",
    [
        ("manifest.jsonl", "manifest.jsonl: valid manifest"),
        ("tomato", "tomato/data/count.json: valid TOMATO data, "),
        ("tomato/data/rotation.json", "tomato/data/rotation.json: valid TOMATO data"),
        ("videott", "videott/videott.json: valid Video-TT"),
        ("vinoground", "vinoground/vinoground.csv: valid Vinoground pairs, 2 pairs"),
        ("hf", "hf/data/test.parquet: valid Hugging Face Parquet"),
        ("lmms_eval", "lmms_eval/tempogen_tomato/test.jsonl: valid lmms-eval documents"),
    ],
)
def test_one_file_or_export_folder(built, capsys, target, expected) -> None:
    code, out, err = validate(built / target, capsys)
    assert code == 0 and err == [], err
    assert any(line.startswith(f"{built}/{expected}") for line in out), out


def _rewrite_jsonl(path: Path, line: int, change: Callable[[dict], None]) -> None:
    rows = [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines()]
    change(rows[line - 1])
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _rewrite_json(path: Path, change: Callable[[object], None], indent: int | None = 2) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=indent) + "\n", encoding="utf-8")


def _rewrite_csv_cell(path: Path, line: int, column: int, value: str) -> None:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    rows[line - 1][column] = value
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def _rewrite_parquet(path: Path, record: int, column: str, value: object) -> None:
    table = pq.read_table(path)
    rows = table.to_pylist()
    rows[record][column] = value
    pq.write_table(table.from_pylist(rows, schema=table.schema), path)


def _csv_cell(path: Path, line: int, column: int) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))[line - 1][column]


def _vino_absolute(ds: Path) -> None:
    """The pair's own video, copied outside the export and named by its absolute path."""
    csv_path = ds / "vinoground/vinoground.csv"
    outside = ds.parent / "outside_pos.mp4"
    shutil.copy(ds / "vinoground" / "videos" / f"{_csv_cell(csv_path, 2, 3)}.mp4", outside)
    _rewrite_csv_cell(csv_path, 2, 3, str(outside)[: -len(".mp4")])


def _lmms_absolute(ds: Path) -> None:
    """A document's own video, copied outside the dataset and named by its absolute path."""
    path = ds / "lmms_eval/tempogen_tomato/test.jsonl"
    outside = ds.parent / "outside_doc.mp4"

    def change(r: dict) -> None:
        shutil.copy(ds / r["video"], outside)
        r["video"] = str(outside)

    _rewrite_jsonl(path, 4, change)


CORRUPTIONS = {
    "manifest answer_text": (
        lambda ds: _rewrite_jsonl(
            ds / "manifest.jsonl", 3, lambda r: r.__setitem__("answer_text", "nope")
        ),
        "manifest.jsonl:3: answer_text: 'nope' is not options[",
    ),
    "manifest missing seed": (
        lambda ds: _rewrite_jsonl(ds / "manifest.jsonl", 2, lambda r: r.pop("seed")),
        "manifest.jsonl:2: seed: required field is missing",
    ),
    "manifest unknown generator": (
        lambda ds: _rewrite_jsonl(
            ds / "manifest.jsonl", 4, lambda r: r.__setitem__("generator", "no_such_motion")
        ),
        "manifest.jsonl:4: generator: unknown motion pattern 'no_such_motion'",
    ),
    "manifest missing video": (
        lambda ds: _rewrite_jsonl(
            ds / "manifest.jsonl", 1, lambda r: r.__setitem__("video", "videos/gone.mp4")
        ),
        "manifest.jsonl:1: video: no such file",
    ),
    "manifest video outside": (
        lambda ds: _rewrite_jsonl(
            ds / "manifest.jsonl", 2, lambda r: r.__setitem__("video", "../" * 40 + "etc/hosts")
        ),
        "manifest.jsonl:2: video: '" + "../" * 40 + "etc/hosts' leaves the dataset folder",
    ),
    "vinoground video outside": (
        _vino_absolute,
        "vinoground/vinoground.csv:2: pos_vid: ",
    ),
    "lmms video outside": (
        _lmms_absolute,
        "lmms_eval/tempogen_tomato/test.jsonl:4: video: ",
    ),
    "tomato options": (
        lambda ds: _rewrite_json(
            ds / "tomato/data/count.json", lambda d: d["0"].__setitem__("options", 5)
        ),
        "tomato/data/count.json:2: entry '0' (count-0000): options: expected a list",
    ),
    "tomato variation": (
        lambda ds: _rewrite_json(
            ds / "tomato/data/rotation.json", lambda d: d["0"]["variation"].__setitem__("zoom", 3)
        ),
        "tomato/data/rotation.json:2: entry '0' (rotation-0000): variation.zoom: expected 0 or 1",
    ),
    "videott factors": (
        lambda ds: _rewrite_json(
            ds / "videott/videott.json", lambda d: d[1].__setitem__("complexity_factors", "x")
        ),
        "videott/videott.json: entry 1 (direction-0000): field 'complexity_factors' must be a list",
    ),
    "vinoground csv major": (
        lambda ds: _rewrite_csv_cell(ds / "vinoground/vinoground.csv", 3, 1, "bogus"),
        "vinoground/vinoground.csv:3: major: 'bogus' is not one of",
    ),
    "vinoground GT": (
        lambda ds: _rewrite_json(
            ds / "vinoground/vinoground_textscore.json",
            lambda d: d[1].__setitem__("GT", "C"),
            indent=None,
        ),
        "vinoground/vinoground_textscore.json: record 1 (0_neg): GT: expected 'A' or 'B'",
    ),
    "hf answer_text": (
        lambda ds: _rewrite_parquet(ds / "hf/data/test.parquet", 1, "answer_text", "nope"),
        "hf/data/test.parquet: record 1 (id 'direction-0000'): answer_text: 'nope' is not",
    ),
    "lmms answer letter": (
        lambda ds: _rewrite_jsonl(
            ds / "lmms_eval/tempogen_tomato/test.jsonl", 4, lambda r: r.__setitem__("answer", "Z")
        ),
        "lmms_eval/tempogen_tomato/test.jsonl:4: answer: 'Z' is not the letter of option",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_a_corrupt_file_is_named_with_its_line_and_field(dataset, capsys, name) -> None:
    corrupt, message = CORRUPTIONS[name]
    corrupt(dataset)
    code, out, err = validate(dataset, capsys)
    assert code == 2
    assert err[0].startswith(f"{dataset}/{message}"), err
    assert err[-1] == f"tempogen: error: 1 of {len(FILES)} files are invalid"
    bad_file = message.split(":")[0]
    assert all(not line.startswith(f"{dataset}/{bad_file}:") for line in out)
    assert len(out) == len(FILES) - 1  # every other file still reads as valid


def test_not_a_known_file_or_folder(tmp_path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("hi")
    for path, msg in (
        (tmp_path / "notes.txt", "not a file tempogen validates"),
        (tmp_path, "neither a dataset folder (manifest.jsonl) nor an export"),
        (tmp_path / "missing", "no such file or folder"),
    ):
        code, out, err = validate(path, capsys)
        assert code == 2 and out == [] and len(err) == 1
        assert err[0].startswith(f"tempogen: error: {path}: {msg}")
