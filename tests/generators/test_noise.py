"""Temporal-only noise encoding: one frame says nothing, the motion signal shows the object."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tempogen.generators.build import Spec, spec_scene
from tempogen.generators.noise import (
    NoiseEncoder,
    NotNoiseable,
    iou,
    level_cells,
    noise_nouns,
    recover_cells,
    single_frame_blind,
    single_frame_stats,
)
from tempogen.labels import Labels, Query, Track

W, H = 320, 180


def disc(cx: float, cy: float = 90.0, r: float = 24.0) -> np.ndarray:
    yy, xx = np.mgrid[0:H, 0:W]
    return (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r


def encode_clip(seed: int = 3, n: int = 6) -> tuple[NoiseEncoder, list[np.ndarray], list]:
    enc = NoiseEncoder(W, H, np.random.default_rng(seed))
    frames, cells = [], []
    for i in range(n):
        fg = enc.cells_of(disc(100 + 4 * i))
        cells.append(fg.copy())
        frames.append(enc.encode(fg).copy())
    return enc, frames, cells


def test_one_noise_frame_carries_no_shape_while_the_clean_one_does():
    enc, frames, cells = encode_clip()
    clean = np.where(disc(100)[..., None], 230, 40).astype(np.uint8).repeat(3, 2)
    # the same single-frame observer: it finds the disc in the clean frame, not in the noise
    seen_clean = single_frame_stats(level_cells(clean, enc.cell), cells[0])
    assert seen_clean["chi2_p"] < 1e-6
    assert not single_frame_blind([seen_clean])
    stats = [single_frame_stats(level_cells(f, enc.cell), c) for f, c in zip(frames, cells)]
    assert single_frame_blind(stats)
    assert min(s["chi2_p"] for s in stats) > 1e-3


def test_a_smooth_foreground_is_caught_by_the_single_frame_test():
    enc, frames, cells = encode_clip()
    levels = level_cells(frames[0], enc.cell)
    smooth = levels.copy()
    smooth[cells[0]] = levels[cells[0]].min()  # the shape drawn in one flat level
    assert not single_frame_blind([single_frame_stats(smooth, cells[0])])


def test_the_motion_signal_recovers_the_foreground():
    enc, frames, cells = encode_clip()
    for a in range(len(frames) - 1):
        still = recover_cells(
            level_cells(frames[a], enc.cell), level_cells(frames[a + 1], enc.cell)
        )
        assert iou(still, cells[a] & cells[a + 1]) > 0.8


def test_same_seed_same_bytes_other_seed_other_bytes():
    _, a, _ = encode_clip(seed=5)
    _, b, _ = encode_clip(seed=5)
    _, c, _ = encode_clip(seed=6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], c[0])


def _spec(motion: str, task: str, key: str, seed: int = 11) -> Spec:
    return Spec(
        id="t-0000", task=task, motion=motion, answer_key=key, seed=seed, width=W, height=H,
        fps=15, num_frames=60, distractors=0, misleading_text=False, background="solid",
        answer_pos=0, crf=18, preset="ultrafast", encoding="temporal_noise",
    )  # fmt: skip


def test_patterns_that_need_appearance_are_refused():
    with pytest.raises(NotNoiseable, match="blink.*appearance"):
        spec_scene(_spec("blink", "velocity&frequency", "increasing"))
    with pytest.raises(NotNoiseable, match="first_light"):
        spec_scene(_spec("first_light", "visual_cues", "none"))


def test_a_clip_too_fast_or_too_small_for_still_noise_is_refused():
    # a glide speeding up over 32 frames ends far past itself from one frame to the next
    with pytest.raises(NotNoiseable, match="radius in one frame"):
        spec_scene(replace(_spec("glide", "velocity&frequency", "accelerating"), num_frames=32))
    # a moon-sized subject is mostly rim at this cell size
    with pytest.raises(NotNoiseable, match="cells in radius"):
        spec_scene(_spec("loop_count", "count", "3"))


def test_noise_questions_name_no_colour_and_spec_hash_is_kept_for_plain_clips():
    labels = spec_scene(_spec("first_mover", "visual_cues", "obj1"))[0].labels()
    nouns = labels.meta["nouns"]
    assert nouns["obj1"] == "the left shape" and nouns["obj2"] == "the right shape"
    assert labels.meta["encoding"]["by"] == "x"
    plain = replace(_spec("slide", "direction", "left"), encoding="")
    assert "encoding" not in plain.to_json()
    assert "encoding" in _spec("slide", "direction", "left").to_json()


def test_the_planner_swaps_in_noise_without_touching_answers():
    from tempogen.config import ConfigError, config_from_dict
    from tempogen.generators.build import plan

    base = {"seed": 1, "size": [320, 180], "fps": 15, "samples_per_task": 10,
            "tasks": ["direction", "count"], "scenes3d": {"humans": 0, "objects": 0}}  # fmt: skip
    plain = plan(config_from_dict(base))
    noisy = plan(config_from_dict({**base, "style": {"temporal_noise": 0.3}}))
    assert plan(config_from_dict({**base, "style": {"temporal_noise": 0.3}})) == noisy
    assert [(s.id, s.motion, s.answer_key, s.seed) for s in plain] == [
        (s.id, s.motion, s.answer_key, s.seed) for s in noisy
    ]
    changed = [s for s in noisy if s.encoding]
    assert 0 < len(changed) <= 6 and all(s.distractors == 0 for s in changed)
    assert all(s.hash == p.hash for s, p in zip(noisy, plain) if not s.encoding)
    with pytest.raises(ConfigError, match="style.temporal_noise"):
        config_from_dict({**base, "style": {"temporal_noise": 1.5}}, "x.yaml")


def _two_shapes(a: dict, b: dict, n: int = 8) -> Labels:
    """Hand-built labels of two foreground shapes (states per frame as given)."""
    tracks = (
        Track.build("a", n, y=90.0, size=10.0, **a),
        Track.build("b", n, y=90.0, size=10.0, **b),
    )
    return Labels(W, H, 15.0, tracks, Query("order", ("a", "b"), "move"))


def test_objects_are_named_by_size_or_side_only_when_it_holds_in_every_frame():
    # b is 1.5 times a's size at frame 0 but shrinks to half of it: not "the larger shape"
    # (the audit ranks regions per frame); they stand far apart, so they go by side instead
    shrinks = np.linspace(1.5, 0.5, 8)
    nouns, tell = noise_nouns(_two_shapes({"x": 40.0}, {"x": 260.0, "scale": shrinks}))
    assert tell == {"by": "x", "order": ["a", "b"]}
    assert (nouns["a"], nouns["b"]) == ("the left shape", "the right shape")
    # b stays 1.3 to 2 times a's size throughout: named by size
    grows = np.linspace(1.3, 2.0, 8)
    nouns, tell = noise_nouns(_two_shapes({"x": 40.0}, {"x": 60.0, "scale": grows}))
    assert tell == {"by": "size", "order": ["a", "b"]}
    assert (nouns["a"], nouns["b"]) == ("the smaller shape", "the larger shape")
    # a starts far left of b but they swap sides: "the left shape" would name both in turn
    with pytest.raises(NotNoiseable, match="neither sized nor placed apart"):
        noise_nouns(_two_shapes({"x": np.linspace(40, 280, 8)}, {"x": np.linspace(280, 40, 8)}))
    # they keep their sides, far apart, while both move: named by side
    nouns, tell = noise_nouns(
        _two_shapes({"x": np.linspace(40, 120, 8)}, {"x": np.linspace(280, 200, 8)})
    )
    assert tell == {"by": "x", "order": ["a", "b"]}
