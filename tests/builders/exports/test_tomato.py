"""TOMATO export: layout and schema, read-back through TOMATO's frame sampling, idempotence."""

from __future__ import annotations

import copy
import json
import os

import numpy as np
import pytest

from tempogen.builders.exports.tomato import export_tomato, read_tomato
from tempogen.questions import TASKS
from tempogen.video import VideoError

ENTRY_KEYS = {
    "question",
    "options",
    "answer",
    "key",
    "video_source_url",
    "motion_type",
    "variation",
    "demonstration_type",
    "note",
}


def _snapshot(out):
    """Every file under ``out`` with its bytes and inode."""
    return {
        p.relative_to(out).as_posix(): (p.read_bytes(), p.stat().st_ino)
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def test_export_layout_and_schema(manifest, tmp_path):
    root, rows = manifest
    out = tmp_path / "tomato"
    counts = export_tomato(rows, root, out)
    assert counts == {t: (2 if t == "count" else 1) for t in TASKS}
    assert sorted(p.name for p in (out / "data").iterdir()) == sorted(f"{t}.json" for t in TASKS)
    by_id = {r["id"]: r for r in rows}
    for t in TASKS:
        data = json.loads((out / "data" / f"{t}.json").read_text())
        want = [r["id"] for r in rows if r["task"] == t]
        assert list(data) == [str(i) for i in range(len(want))]
        assert [e["key"] for e in data.values()] == want
        for entry in data.values():
            row = by_id[entry["key"]]
            assert set(entry) == ENTRY_KEYS
            assert entry["answer"] == row["answer"] and isinstance(entry["answer"], int)
            assert entry["options"] == row["options"]
            assert entry["motion_type"] == row["generator"]
            assert entry["variation"] == row["variation"]
            assert entry["video_source_url"] == ""
            video = out / "videos" / "simulated" / f"{entry['key']}.mp4"
            assert os.path.samefile(video, root / row["video"])  # hard link
    assert not list(out.rglob(".*"))  # no temp files left


def test_empty_types_still_written(manifest, tmp_path):
    root, rows = manifest
    counts = export_tomato(rows[:1], root, tmp_path)
    assert sum(counts.values()) == 1
    for t in TASKS[1:]:
        assert json.loads((tmp_path / "data" / f"{t}.json").read_text()) == {}


def test_read_back_matches_written_frames(manifest, tmp_path, frames_of):
    root, rows = manifest
    export_tomato(rows, root, tmp_path)
    items = list(read_tomato(tmp_path))
    assert len(items) == len(rows)
    clip_of = {r["id"]: n for n, r in enumerate(rows)}
    idx = np.linspace(0, 19, 16, dtype=int)
    for item in items:
        assert item["frames"].shape == (16, 48, 64, 3) and item["frames"].dtype == np.uint8
        written = frames_of(clip_of[item["key"]])[idx].astype(int)
        err = np.abs(item["frames"].astype(int) - written).mean(axis=(1, 2, 3))
        assert err.max() < 6, err
        assert item["options"][item["answer"]] == "Rightwards."


def test_export_is_idempotent_and_replaces_stale(manifest, tmp_path, monkeypatch):
    root, rows = manifest
    export_tomato(rows, root, tmp_path)
    first = _snapshot(tmp_path)
    export_tomato(rows, root, tmp_path)
    assert _snapshot(tmp_path) == first
    stale = tmp_path / "videos" / "simulated" / f"{rows[0]['id']}.mp4"
    stale.unlink()
    stale.write_bytes(b"stale")
    export_tomato(rows, root, tmp_path)
    assert os.path.samefile(stale, root / rows[0]["video"])
    # A copy with the same content (no shared inode) is left alone.
    copied = tmp_path / "videos" / "simulated" / f"{rows[1]['id']}.mp4"
    copied.unlink()
    copied.write_bytes((root / rows[1]["video"]).read_bytes())
    ino = copied.stat().st_ino
    export_tomato(rows, root, tmp_path)
    assert copied.stat().st_ino == ino
    assert sorted(_snapshot(tmp_path)) == sorted(first)


def test_copy_when_link_fails(manifest, tmp_path, monkeypatch):
    root, rows = manifest

    def no_link(src, dst):
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", no_link)
    export_tomato(rows[:2], root, tmp_path)
    for row in rows[:2]:
        dst = tmp_path / "videos" / "simulated" / f"{row['id']}.mp4"
        assert not os.path.samefile(dst, root / row["video"])
        assert dst.read_bytes() == (root / row["video"]).read_bytes()
    assert not list(tmp_path.rglob(".*"))


def test_bad_task_names_id_and_field(manifest, tmp_path):
    root, rows = manifest
    bad = copy.deepcopy(rows)
    bad[2]["task"] = "colour"
    with pytest.raises(ValueError, match=rf"{bad[2]['id']}.*'task'"):
        export_tomato(bad, root, tmp_path)
    assert not (tmp_path / "data").exists()  # validated before writing


@pytest.mark.parametrize("answer", [4, -1])
def test_bad_answer_index_names_id(manifest, tmp_path, answer):
    root, rows = manifest
    bad = copy.deepcopy(rows)
    bad[3]["answer"] = answer
    bad[3].pop("answer_text")
    with pytest.raises(ValueError, match=bad[3]["id"]):
        export_tomato(bad, root, tmp_path)


def test_duplicate_id_rejected(manifest, tmp_path):
    root, rows = manifest
    with pytest.raises(ValueError, match="duplicated"):
        export_tomato([rows[0], rows[0]], root, tmp_path)


def test_read_missing_and_empty_video(manifest, tmp_path):
    root, rows = manifest
    export_tomato(rows[:1], root, tmp_path)
    video = tmp_path / "videos" / "simulated" / f"{rows[0]['id']}.mp4"
    video.unlink()
    with pytest.raises(FileNotFoundError, match=rows[0]["id"]):
        list(read_tomato(tmp_path))
    video.write_bytes(b"")
    with pytest.raises(VideoError, match=rows[0]["id"]):
        list(read_tomato(tmp_path))
