"""``tempogen audit verify`` is exact by default, through the command line: one wrong answer
among many is exit 1 naming the row; a lower pass mark only by an explicit, valid ``--min``;
rows nothing can read from pixels (declared facts, free words, edits of declared clips) are
listed apart and never counted as agreeing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kit import tempogen

CONFIG = """\
seed: 5
size: [128, 96]
fps: 8
duration: [3.0, 4.0]
samples_per_task: 3
tasks: [direction]
scenes3d: {humans: 0.0, objects: 0.0}
variants: {share: 0.0}
vinoground: {pairs: 0}
retrieval: {pairs: 0}
shortcuts: "off"
"""


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, list[dict]]:
    """Three rendered direction clips with per-frame labels (seconds to build)."""
    root = tmp_path_factory.mktemp("exact")
    (root / "mini.yaml").write_text(CONFIG, encoding="utf-8")
    res = tempogen("generate", "--config", root / "mini.yaml", "--out", root / "ds", "-q")
    assert res.returncode == 0, res.stderr
    return root / "ds", _rows(root / "ds" / "manifest.jsonl")


def _flipped(rows: list[dict]) -> tuple[list[dict], dict, str]:
    victim = rows[1]
    wrong = next(k for k in victim["option_keys"] if k != victim["answer_key"])
    return [dict(r, answer_key=wrong) if r is victim else r for r in rows], victim, wrong


def _copies(rows: list[dict], n: int) -> list[dict]:
    """``n`` more copies of each row under new ids (the same videos): a manifest of many rows."""
    return [dict(r, id=f"{r['id']}-copy{i}") for i in range(n) for r in rows]


def _declared_rows(rows: list[dict]) -> list[dict]:
    """Rows without per-frame labels: a declared fact (an external clip), a variant edited from
    one, and a free-word answer; each claims an answer nothing here can read from pixels."""
    base = {k: v for k, v in rows[0].items() if k not in ("labels", "certificate", "spec")}
    value = rows[0]["answer_key"].split("-")
    return [
        dict(base, id="ext-declared", labels={"direction": value}),
        dict(base, id="ext-declared~rev", labels={"direction": value}, verified="declared"),
        dict(base, id="ext-words", labels={}, answer_key="", answer_text="A person waves."),
    ]


@pytest.mark.slow  # a build, then audit verify reads its pixels
def test_one_wrong_answer_fails_by_default_naming_the_row(built) -> None:
    """The report's case: one answer flipped among 120 rows was 119/120 and exit 0."""
    ds, rows = built
    bad, victim, wrong = _flipped(rows)
    path = _write(ds / "flip120.jsonl", bad + _copies(rows, 39))
    res = tempogen("audit", "verify", "--manifest", path, "-j", "2", "-q")
    assert res.returncode == 2, res.stdout + res.stderr
    out = res.stdout.strip().splitlines()
    right = victim["answer_key"]
    assert out == [
        f"DISAGREE {victim['id']}: manifest says {wrong!r}, pixels say {right!r}",
        "verified 119/120 (99.2%)",
    ]


@pytest.mark.slow  # a build, then audit verify reads its pixels
def test_a_lower_pass_mark_is_explicit(built) -> None:
    ds, rows = built
    bad, victim, _ = _flipped(rows)
    path = _write(ds / "flip.jsonl", bad)
    res = tempogen("audit", "verify", "--manifest", path, "--min", "60", "-q")
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"DISAGREE {victim['id']}" in res.stdout  # still named
    assert "1 disagreement(s) accepted by --min 60" in res.stdout
    assert tempogen("audit", "verify", "--manifest", path, "--min", "70", "-q").returncode == 2


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--min", "nan", "must be a finite number, got 'nan'"),
        ("--min", "-1", "must be in [0, 100], got '-1'"),
        ("--min", "100.5", "must be in [0, 100], got '100.5'"),
        ("--min", "inf", "must be a finite number, got 'inf'"),
        ("--min", "most", "expected a number, got 'most'"),
        ("--sample", "-3", "must be at least 1, got '-3'"),
        ("--sample", "0", "must be at least 1, got '0'"),
    ],
)
def test_bad_pass_marks_and_counts_are_usage_errors(tmp_path, option, value, says) -> None:
    manifest = _write(tmp_path / "m.jsonl", [])
    res = tempogen("audit", "verify", "--manifest", manifest, f"{option}={value}", "-q")
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"{option}: {says}" in res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.slow  # a build, then audit verify reads its pixels
def test_declared_rows_are_listed_apart_never_agreed(built) -> None:
    ds, rows = built
    path = _write(ds / "declared.jsonl", rows + _declared_rows(rows))
    res = tempogen("audit", "verify", "--manifest", path, "-q")
    assert res.returncode == 0, res.stdout + res.stderr
    out = res.stdout.strip().splitlines()
    assert out == [
        "DECLARED, not verified (declared fact, no per-frame labels): ext-declared",
        "DECLARED, not verified (marked verified: declared): ext-declared~rev",
        "DECLARED, not verified (answer in free words): ext-words",
        "verified 3/3 (100.0%); 3 declared, not verified",
    ]


@pytest.mark.slow  # a build, then audit verify reads its pixels
def test_declared_rows_do_not_hide_a_disagreement(built) -> None:
    """Declared rows neither raise the agreement nor count towards the pass mark."""
    ds, rows = built
    bad, victim, _ = _flipped(rows)
    path = _write(ds / "both.jsonl", bad + _declared_rows(rows) * 10)
    res = tempogen("audit", "verify", "--manifest", path, "--min", "90", "-q")
    assert res.returncode == 2, res.stdout
    assert res.stdout.strip().splitlines()[-1] == (
        "verified 2/3 (66.7%); 30 declared, not verified"
    )


@pytest.mark.slow  # a build, then audit verify reads its pixels
def test_only_declared_rows_verify_nothing(built) -> None:
    ds, rows = built
    path = _write(ds / "only.jsonl", _declared_rows(rows))
    res = tempogen("audit", "verify", "--manifest", path, "-q")
    assert res.returncode == 2, res.stdout
    assert "nothing was verified from pixels" in res.stderr
    assert "verified 0/3" not in res.stdout and "3 declared, not verified" in res.stdout


def test_an_empty_manifest_is_a_user_error_naming_it(tmp_path) -> None:
    """Nothing to verify because the file holds no rows: exit 2 naming the file, not the
    audit verdict (exit 1) that a manifest of declared rows gets."""
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    res = tempogen("audit", "verify", "--manifest", path, "-q")
    assert res.returncode == 2, res.stderr
    assert f"{path}: holds no rows to verify" in res.stderr
