"""End to end through the command line: ``tempogen edit`` on an external clip, and
``tempogen audit verify`` on a freshly generated dataset (with one answer corrupted)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from kit import read_jsonl as _read_jsonl
from kit import tempogen
from kit import write_jsonl as _write_jsonl

from tempogen import observe
from tempogen.builders.audit.pixels import pixel_labels
from tempogen.editing import Mirror, Reverse, run_pipeline
from tempogen.facts import answer_of
from tempogen.generators.motion import SAMPLES
from tempogen.video import probe, read_video, write_video

QUESTION = "Which direction(s) does the square rotate in?"
PIPELINES = (
    "{rev: [reverse], mirror: [{mirror: horizontal}], both: [reverse, {mirror: horizontal}]}\n"
)


@pytest.mark.slow
def test_edit_external_clip(tmp_path, generated) -> None:
    spin = generated("spin", "cw")
    src = tmp_path / "in"
    src.mkdir()
    # a user's recording: just a video, no per-frame tracks, and a declared answer
    write_video(src / "ext1.mp4", spin.to_array(), spin.fps)
    row = {
        "id": "ext1",
        "video": "ext1.mp4",
        "task": "rotation",
        "fact": "rotation",
        "question": QUESTION,
        "labels": {"rotation": ["clockwise"]},
    }
    _write_jsonl(src / "manifest.jsonl", [row])
    (src / "edits.yaml").write_text(PIPELINES, encoding="utf-8")
    out = tmp_path / "out"

    res = tempogen(
        "edit", "--manifest", src / "manifest.jsonl", "--pipeline", src / "edits.yaml", "--out", out
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().startswith("wrote 3 edited clips to")

    rows = {r["id"]: r for r in _read_jsonl(out / "manifest.jsonl")}
    assert sorted(rows) == ["ext1~both", "ext1~mirror", "ext1~rev"]
    expected = {
        "ext1~rev": (["ccw"], "Counter-clockwise throughout."),
        "ext1~mirror": (["ccw"], "Counter-clockwise throughout."),
        "ext1~both": (["cw"], "Clockwise throughout."),
    }
    ops = {"ext1~rev": [Reverse()], "ext1~mirror": [Mirror()], "ext1~both": [Reverse(), Mirror()]}
    for rid, (rotation, text) in expected.items():
        r = rows[rid]
        assert r["labels"] == {"rotation": rotation}
        assert r["answer_text"] == text
        assert r["options"][r["answer"]] == text
        assert r["answer_key"] == rotation[0]
        assert r["question"] == QUESTION and r["source"] == "ext1"
        assert r["variation"]["counterfactual"] == 1
        video = out / r["video"]
        info = probe(video)
        assert (info.num_frames, info.width, info.height) == (spin.num_frames, *spin.size)
        assert r["num_frames"] == spin.num_frames
        # the written pixels show what the new label says (tracked with the source's colours)
        moved = run_pipeline(spin, ops[rid]).labels
        idx = observe.uniform_indices(info.num_frames, SAMPLES)
        seen = answer_of(pixel_labels(read_video(video, idx), moved, idx, rotation=True), idx)
        assert list(seen) == rotation, rid


def _edit(tmp_path: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``tempogen edit`` forked from this process (test_edit_external_clip keeps a fresh one)."""
    return tempogen(
        "edit", "--manifest", tmp_path / "m.jsonl", "--pipeline", tmp_path / "p.yaml",
        "--out", out, "-q", *extra, fork=True,
    )  # fmt: skip


@pytest.fixture
def mixed(tmp_path, tiny_frames_ref) -> Path:
    """A manifest of two clips: one whose order label reverse cannot move, one it can."""
    write_video(tmp_path / "ext2.mp4", tiny_frames_ref, 4.0)
    rows = [
        {"id": "ext2", "video": "ext2.mp4", "labels": {"order": [["a"], ["b"]]}},
        {"id": "ext3", "video": "ext2.mp4", "labels": {"rotation": ["clockwise"]}},
    ]
    _write_jsonl(tmp_path / "m.jsonl", rows)
    (tmp_path / "p.yaml").write_text("[reverse]\n", encoding="utf-8")
    return tmp_path


@pytest.mark.slow
def test_edit_skips_what_an_op_refuses_and_tables_the_reasons(mixed) -> None:
    out = mixed / "out"
    res = _edit(mixed, out)
    assert res.returncode == 0, res.stderr
    assert [r["id"] for r in _read_jsonl(out / "manifest.jsonl")] == ["ext3~p"]
    assert "refused 1 edits" in res.stdout
    table = res.stdout.split("refused 1 edits")[1]
    assert re.search(r"\n\s+1\s+p: reverse: cannot transform label 'order' soundly", table)
    assert not list(out.glob("videos/ext2*"))


@pytest.mark.slow
def test_edit_strict_stops_at_the_first_refusal_naming_the_row(mixed) -> None:
    out = mixed / "out"
    res = _edit(mixed, out, "--strict")
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"tempogen: error: {mixed / 'm.jsonl'}:1: row 'ext2': p: reverse")
    assert not (out / "manifest.jsonl").exists()


@pytest.mark.slow
def test_edit_where_every_edit_is_refused_is_an_error(mixed) -> None:
    rows = _read_jsonl(mixed / "m.jsonl")[:1]
    _write_jsonl(mixed / "m.jsonl", rows)
    out = mixed / "out"
    res = _edit(mixed, out)
    assert res.returncode == 2
    assert (
        "every edit was refused, nothing written: p: reverse: cannot transform label 'order'"
        in (res.stderr)
    )
    assert not (out / "manifest.jsonl").exists()
    assert not list(out.glob("videos/*.mp4"))


@pytest.mark.slow
def test_edit_never_writes_over_its_input_manifest(mixed) -> None:
    before = (mixed / "m.jsonl").read_bytes()
    (mixed / "manifest.jsonl").write_bytes(before)
    res = tempogen(
        "edit", "--manifest", mixed / "manifest.jsonl", "--pipeline", mixed / "p.yaml",
        "--out", mixed, "-q", fork=True,
    )  # fmt: skip
    assert res.returncode == 2
    assert "holds the input manifest" in res.stderr and "another folder" in res.stderr
    assert (mixed / "manifest.jsonl").read_bytes() == before
    assert not list(mixed.glob("videos/*.mp4"))


@pytest.mark.slow
def test_audit_verify_agrees(tiny_dataset) -> None:
    rows = _read_jsonl(tiny_dataset / "manifest.jsonl")
    res = tempogen(
        "audit", "verify", "--manifest", tiny_dataset / "manifest.jsonl", "-j", "2", "-q"
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "DISAGREE" not in res.stdout
    last = res.stdout.strip().splitlines()[-1]
    m = re.fullmatch(r"verified (\d+)/(\d+) \(100\.0%\)", last)
    assert m and m.group(1) == m.group(2) == str(len(rows)), last


@pytest.mark.slow
def test_audit_verify_finds_a_wrong_answer(tiny_dataset) -> None:
    rows = _read_jsonl(tiny_dataset / "manifest.jsonl")
    victim = next(r for r in rows if "tracks" in r["labels"] and len(r["option_keys"]) > 1)
    right = victim["answer_key"]
    wrong = next(k for k in victim["option_keys"] if k != right)
    bad = [dict(r, answer_key=wrong) if r["id"] == victim["id"] else r for r in rows]
    path = tiny_dataset / "corrupt.jsonl"  # beside the original: videos resolve the same
    _write_jsonl(path, bad)

    res = tempogen("audit", "verify", "--manifest", path, "--min", "100", "-j", "2", "-q")
    assert res.returncode == 2
    out = res.stdout.strip().splitlines()
    assert out[0] == f"DISAGREE {victim['id']}: manifest says {wrong!r}, pixels say {right!r}"
    assert [line for line in out if line.startswith("DISAGREE")] == out[:1]
    n = len(rows)
    assert out[-1] == f"verified {n - 1}/{n} ({100 * (n - 1) / n:.1f}%)"

    lenient = tempogen("audit", "verify", "--manifest", path, "--min", "90", "-j", "2", "-q")
    assert lenient.returncode == 0
