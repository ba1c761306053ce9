"""Through the codec: answers read from decoded mp4 pixels match the manifest's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tempogen import observe
from tempogen.builders.pixels import pixel_labels
from tempogen.config import config_from_dict
from tempogen.generators.build import plan, render_spec
from tempogen.generators.motion import SAMPLES, get_motion
from tempogen.labels import Labels
from tempogen.questions import answer_key
from tempogen.video import probe, read_video, sha256_file


@pytest.mark.slow
def test_decoded_pixels_agree_with_manifest(tmp_path: Path) -> None:
    cfg = config_from_dict(
        {"seed": 11, "size": [320, 180], "fps": 15, "duration": [3, 5], "samples_per_task": 2}
    )
    for spec in plan(cfg):
        row = render_spec(spec, tmp_path)
        video = tmp_path / row["video"]
        assert sha256_file(video) == row["video_sha256"]
        info = probe(video)
        assert (info.num_frames, info.width, info.height) == (row["num_frames"], 320, 180)
        labels = Labels.from_json(row["labels"])
        idx = observe.uniform_indices(info.num_frames, SAMPLES)
        frames = list(read_video(video, idx))
        spin = labels.query.fact == "rotation" and labels.query.kind == "spin"
        got = observe.answer(pixel_labels(frames, labels, idx, rotation=spin), idx)
        fact = get_motion(row["generator"]).fact
        assert got is not None and answer_key(fact, got) == row["answer_key"], row["id"]
        assert row["options"][row["answer"]] == row["answer_text"]
