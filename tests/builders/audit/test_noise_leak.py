"""Noise certification catches a texture-only leak: a foreground whose cells have the same
grey levels as the background (its level histogram says nothing) but a smoother texture (each
cell the same level as its right neighbour) shows its shape in one frame, so the clip must
fail certification when it is made (``NoiseClip.certify``) and when it is audited
(``verify_row``), while the same clip with an honest texture passes both."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tempogen.builders.audit.verify import verify_row
from tempogen.config import config_from_dict
from tempogen.errors import GenerationError
from tempogen.generators.build import plan, render_spec
from tempogen.generators.noise import (
    LEVELS,
    MIN_P,
    NoiseClip,
    certify_levels,
    encoding_meta,
    level_cells,
    pair,
    recover_cells,
)
from tempogen.labels import Labels, Query, Track
from tempogen.observe import uniform_indices
from tempogen.video import VideoWriter, read_video

W, H, N, FPS = 160, 96, 24, 8.0
CELL = 2


def striped(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Level indices with a uniform histogram in which every even cell's right neighbour
    repeats it: a texture only neighbour agreement can tell from fresh noise."""
    levels = rng.integers(0, LEVELS, shape)
    levels[:, 1::2] = levels[:, 0::2][:, : levels[:, 1::2].shape[1]]
    return levels


def _disc_labels() -> Labels:
    x = 50.0 + 2.0 * np.arange(N)
    track = Track.build("subject", N, x=x, y=np.full(N, 48.0), shape="circle", color=(255, 0, 0))
    labels = Labels(W, H, FPS, (track,), Query("direction", ("subject",)), {})
    meta = {"encoding": encoding_meta(labels, CELL, {"by": "one", "order": ["subject"]})}
    return Labels(W, H, FPS, (track,), labels.query, meta)


def _masks(labels: Labels):
    yy, xx = np.mgrid[0:H, 0:W]
    t = labels.track("subject")
    for i in range(N):
        mask = (xx - t.x[i]) ** 2 + (yy - t.y[i]) ** 2 <= t.size**2
        yield np.zeros((H, W, 3), np.uint8), mask


def _certify(tmp_path: Path, leak: bool) -> tuple[NoiseClip, dict[int, np.ndarray]]:
    """A moving disc encoded as noise through a file (codec included), its foreground texture
    striped when ``leak``: what a broken encoder would write."""
    labels = _disc_labels()
    idx = uniform_indices(N, 16)
    clip = NoiseClip(labels, _masks(labels), np.random.default_rng(1), idx)
    enc = clip.encoder
    if leak:
        enc.texture = enc.palette[striped(np.random.default_rng(2), enc.texture.shape)]
    path = tmp_path / f"disc-{leak}.mp4"
    with VideoWriter(path, FPS, W, H) as vw:
        for frame in clip.frames():
            vw.write(frame)
    return clip, dict(zip(clip.read, read_video(path, clip.read)))


def test_an_honest_noise_clip_is_certified(tmp_path) -> None:
    clip, decoded = _certify(tmp_path, leak=False)
    cert, _ = clip.certify(decoded)
    assert cert["single_frame_blind"] and cert["min_iou"] >= 0.5


def test_a_texture_only_leak_fails_certification(tmp_path) -> None:
    clip, decoded = _certify(tmp_path, leak=True)
    levels = {i: level_cells(decoded[i], CELL) for i in clip.read}
    cert, _ = certify_levels(levels, clip.idx, clip.n, clip.truth)
    # the leak is in the texture alone: the level histogram passes, neighbour agreement not
    assert cert["single_frame_min_p"] > MIN_P / len(clip.idx), cert
    assert cert["neighbour_same_in"] > cert["neighbour_same_out"] + 0.2, cert
    assert not cert["single_frame_blind"], cert
    with pytest.raises(GenerationError, match="a single frame shows the foreground"):
        clip.certify(decoded)
    # the audit's own reading (inside the recovered motion signal, no truth) fails it too
    cert, _ = certify_levels(levels, clip.idx, clip.n)
    assert not cert["single_frame_blind"], cert


NOISE_BUILD = {
    "seed": 3,
    "size": [320, 180],
    "fps": 15,
    "duration": [4.0, 5.0],
    "samples_per_task": 1,
    "tasks": ["velocity&frequency"],
    "motions": ["glide"],
    "style": {"temporal_noise": 1.0},
    "variants": {"share": 0},
    "vinoground": {"pairs": 0},
    "retrieval": {"pairs": 0},
    "shortcuts": "off",
}


def test_verify_fails_a_noise_clip_whose_foreground_texture_shows(tmp_path) -> None:
    """A rendered noise clip re-encoded with its still foreground given a striped texture
    (still, so the motion signal and the answer are intact) is refused by ``audit verify``."""
    (spec,) = plan(config_from_dict(NOISE_BUILD, "noise.yaml"))
    assert spec.encoding == "temporal_noise"
    row = render_spec(spec, tmp_path)
    assert verify_row(row, tmp_path).ok
    cell = int(row["labels"]["meta"]["encoding"]["cell"])
    frames = read_video(tmp_path / row["video"])
    levels = [level_cells(f, cell) for f in frames]
    n = len(levels)
    stripe = striped(np.random.default_rng(5), levels[0].shape)
    palette = np.round(np.linspace(0, 255, LEVELS)).astype(np.uint8)
    with VideoWriter(
        tmp_path / "videos" / "leak.mp4", row["fps"], row["width"], row["height"]
    ) as vw:
        for i, lv in enumerate(levels):
            still = recover_cells(*(levels[f] for f in pair(i, n)))
            if i:
                still |= recover_cells(levels[i - 1], lv)
            out = np.where(still, stripe, lv)
            big = np.repeat(np.repeat(palette[out], cell, 0), cell, 1)[
                : row["height"], : row["width"]
            ]
            vw.write(np.repeat(big[..., None], 3, 2))
    verdict = verify_row({**row, "video": "videos/leak.mp4"}, tmp_path)
    assert verdict is not None and not verdict.ok, verdict
    assert "a single frame shows it" in verdict.detail, verdict
