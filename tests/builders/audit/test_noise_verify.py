"""A build with temporal noise on: 2D and 3D noise clips are rendered, certified from their
motion signal, verified from pixels, exported with their encoding and shown on noise.html."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest

from tempogen.builders.audit.noise import noise_states
from tempogen.builders.audit.verify import verify_manifest, verify_row
from tempogen.builders.dataset.build import build_dataset
from tempogen.config import config_from_dict
from tempogen.labels import Labels
from tempogen.video import VideoWriter, read_video

CONFIG = {
    "seed": 3,
    "size": [320, 180],
    "fps": 15,
    "duration": [4.0, 6.0],
    "samples_per_task": 3,
    "tasks": ["velocity&frequency"],
    "motions": ["glide", "ball_pace3d"],
    "style": {"temporal_noise": 1.0},
    "variants": {"share": 0},
    "vinoground": {"pairs": 0},
    "retrieval": {"pairs": 0},
    "shortcuts": "off",
    "scenes3d": {"humans": 0, "objects": 0.34, "duration": [3.0, 4.0]},
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("noise") / "ds"
    build_dataset(config_from_dict(CONFIG, "noise.yaml"), out, jobs=1, progress=False)
    rows = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    return out, rows


@pytest.mark.slow
def test_noise_clips_of_2d_and_3d_patterns_ship_certified(built):
    out, rows = built
    noisy = [r for r in rows if r["spec"].get("encoding") == "temporal_noise"]
    assert {r["generator"] for r in noisy} == {"glide", "ball_pace3d"}
    for r in noisy:
        cert = r["certificate"]["temporal_noise"]
        assert cert["pixel_answer"] == r["answer_key"]
        assert cert["single_frame_blind"] and cert["min_iou"] >= 0.5
        assert r["labels"]["meta"]["encoding"]["style"] == "temporal_noise"
        assert "temporal noise" in r["note"]
        for colour in ("red", "blue", "green", "yellow", "orange", "purple", "cyan", "magenta"):
            assert colour not in r["question"] and colour not in " ".join(r["options"])
        assert r["spec"]["distractors"] == 0 and not r["spec"]["misleading_text"]
        assert (out / "noise" / f"{r['id']}-motion.png").is_file()
    page = (out / "noise.html").read_text()
    assert all(r["id"] in page for r in noisy)
    assert 'href="noise.html"' in (out / "index.html").read_text()
    table = pq.read_table(out / "hf" / "data" / "test.parquet").to_pylist()
    assert {t["id"] for t in table if t["encoding"] == "temporal_noise"} == {r["id"] for r in noisy}
    entries = json.loads((out / "tomato" / "data" / "velocity&frequency.json").read_text())
    assert sum("temporal noise" in e["note"] for e in entries.values()) == len(noisy)
    report = verify_manifest(out / "manifest.jsonl")
    assert report.agreed == report.checked == len(rows)


@pytest.mark.slow
def test_a_noise_clip_whose_foreground_is_redrawn_fails_verification(built, tmp_path):
    """The same clip re-encoded with its foreground noise redrawn each frame (no coherence
    left) must not verify: the pixels then no longer show the subject."""
    out, rows = built
    row = next(r for r in rows if r["generator"] == "glide" and r["spec"].get("encoding"))
    labels = Labels.from_json(row["labels"])
    frames = read_video(out / row["video"])
    rng = np.random.default_rng(0)
    cell = labels.meta["encoding"]["cell"]
    broken = tmp_path / "videos"
    broken.mkdir()
    with VideoWriter(broken / "x.mp4", row["fps"], row["width"], row["height"]) as vw:
        for f in frames:  # every cell redrawn: what a broken encoder would write
            gh, gw = -(-f.shape[0] // cell), -(-f.shape[1] // cell)
            cells = (rng.integers(0, 16, (gh, gw)) * 17).astype(np.uint8)
            big = np.repeat(np.repeat(cells, cell, 0), cell, 1)[: f.shape[0], : f.shape[1]]
            vw.write(np.repeat(big[..., None], 3, 2))
    idx = np.linspace(0, labels.num_frames - 1, 16).astype(int)
    bad = {**row, "video": "videos/x.mp4"}
    assert not verify_row(bad, tmp_path).ok
    shutil.copy(out / row["video"], broken / "good.mp4")
    good = {**row, "video": "videos/good.mp4"}
    assert verify_row(good, tmp_path).ok
    _, cert = noise_states(broken / "good.mp4", labels, idx, "2d")
    assert cert["single_frame_blind"]
