"""Simulated people in temporal noise: one silhouette, read from the motion signal alone
(its top edge for jumps, its centroid for a side step), certified and verified."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tempogen.builders.audit.verify import verify_row
from tempogen.generators.build import Spec, render_spec, spec_scene
from tempogen.generators.motion import get_motion
from tempogen.generators.noise import NotNoiseable, check_eligible
from tempogen.video import VideoWriter, read_video

W, H = 320, 180


def _spec(motion: str, task: str, key: str, seed: int, encoding: str = "temporal_noise") -> Spec:
    return Spec(
        id=f"{motion}-{seed}", task=task, motion=motion, answer_key=key, seed=seed, width=W,
        height=H, fps=15, num_frames=60, distractors=0, misleading_text=False,
        background="grid", answer_pos=0, crf=18, preset="ultrafast", encoding=encoding,
    )  # fmt: skip


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("noisehuman")
    rows = {
        "jumps": render_spec(_spec("jumps", "count", "2", 13), out),
        "side_step": render_spec(_spec("side_step", "direction", "left-right", 22), out),
    }
    return out, rows


@pytest.mark.slow
@pytest.mark.parametrize("motion", ["jumps", "side_step"])
def test_a_person_in_noise_is_read_from_the_silhouette(rendered, motion):
    out, rows = rendered
    row = rows[motion]
    cert = row["certificate"]["temporal_noise"]
    assert cert["single_frame_blind"] and cert["min_iou"] >= 0.5
    assert "people" not in row["labels"]["meta"]  # one silhouette, no companion
    assert "the person" in row["question"] and " in " not in row["question"].split("person")[1]
    verdict = verify_row(row, out)
    assert verdict.ok and verdict.seen == row["answer_key"]


@pytest.mark.slow
def test_a_person_whose_noise_is_redrawn_every_frame_fails(rendered, tmp_path):
    out, rows = rendered
    row = rows["jumps"]
    cell = row["labels"]["meta"]["encoding"]["cell"]
    rng = np.random.default_rng(0)
    (tmp_path / "videos").mkdir()
    with VideoWriter(tmp_path / "videos" / "x.mp4", row["fps"], W, H) as vw:
        for f in read_video(out / row["video"]):  # the silhouette's cells redrawn too
            gh, gw = -(-f.shape[0] // cell), -(-f.shape[1] // cell)
            cells = (rng.integers(0, 8, (gh, gw)) * 36).astype(np.uint8)
            big = np.repeat(np.repeat(cells, cell, 0), cell, 1)[: f.shape[0], : f.shape[1]]
            vw.write(np.repeat(big[..., None], 3, 2))
    verdict = verify_row({**row, "video": "videos/x.mp4"}, tmp_path)
    assert not verdict.ok and verdict.seen is None


def test_a_second_silhouette_is_refused_and_a_companion_is_left_out():
    with pytest.raises(NotNoiseable, match="walk_faster.*appearance"):
        spec_scene(_spec("walk_faster", "velocity&frequency", "left", 5))
    # seed 2 gives this jumps clip a companion when plain; the noise clip has none
    plain = spec_scene(_spec("jumps", "count", "0", 2, encoding=""))[0].labels()
    assert "people" in plain.meta
    noisy = spec_scene(_spec("jumps", "count", "0", 2))[0].labels()
    assert "people" not in noisy.meta and noisy.meta["encoding"]["by"] == "one"
    with pytest.raises(NotNoiseable, match="second person"):
        check_eligible(get_motion("jumps"), replace(noisy, meta={**noisy.meta, "people": [1, 2]}))
