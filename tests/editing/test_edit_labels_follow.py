"""Labels move with frames on real generated patterns, and the pixels agree.

Each case renders a motion pattern (labels from ``make_labels``, frames from the compositor),
applies an op, and checks two things: the answer re-derived from the moved labels is the one
the edit algebra predicts (reverse of left is right, a mirror turns cw into ccw...), and the
answer measured from the edited pixels at TOMATO's 16 uniform frames is that same answer.
"""

from __future__ import annotations

import numpy as np
import pytest

from tempogen import observe
from tempogen.editing import Mirror, Reverse, Rotate, Speed, SpeedRamp, ZoomIn
from tempogen.generators.motion import SAMPLES

H, V = Mirror("horizontal"), Mirror("vertical")

# (pattern, answer key before, op, answer key after)
CASES = [
    ("slide", "left", Reverse(), "right"),
    ("slide", "left-up", Reverse(), "down-right"),
    ("orbit", "cw-ccw", Reverse(), "cw-ccw"),
    ("spin", "cw", Reverse(), "ccw"),
    ("glide", "accelerating", Reverse(), "decelerating"),
    ("blink", "increasing", Reverse(), "decreasing"),
    ("bounce_count", "3", Reverse(), "3"),
    ("draw", "triangle", Reverse(), "triangle"),
    ("slide", "left", H, "right"),
    ("slide", "left-up", H, "right-up"),
    ("spin", "cw", H, "ccw"),
    ("orbit", "cw-ccw", H, "ccw-cw"),
    ("glide", "accelerating", H, "accelerating"),
    ("first_light", "obj1", H, "obj1"),
    ("slide", "left", V, "left"),
    ("slide", "left-up", V, "left-down"),
    ("spin", "cw", V, "ccw"),
    ("bounce_count", "3", V, "3"),
    ("slide", "left", Rotate(90), "up"),
    ("slide", "left-up", Rotate(90), "up-right"),
    ("slide", "left", Rotate(180), "right"),
    ("slide", "left", Rotate(270), "down"),
    ("spin", "cw", Rotate(90), "cw"),
    ("orbit", "cw-ccw", Rotate(270), "cw-ccw"),
    ("draw", "triangle", Rotate(90), "triangle"),
    ("blink", "increasing", Rotate(180), "increasing"),
    ("glide", "constant", SpeedRamp(0.5, 2.0), "accelerating"),
    ("glide", "constant", SpeedRamp(2.0, 0.5), "decelerating"),
    ("slide", "left", Speed(2), "left"),
    ("spin", "cw", ZoomIn(), "cw"),
    ("first_light", "obj1", ZoomIn(), "obj1"),
    ("slide", "left", ZoomIn(margin=0.3), "left"),
]


def _id(case) -> str:
    name, key, op, _ = case
    params = "-".join(str(v) for v in vars(op).values())
    return f"{name}:{key}>{op.name}{'-' + params if params else ''}"


@pytest.mark.parametrize("name,key,op,expected", CASES, ids=[_id(c) for c in CASES])
def test_answer_follows_edit(generated, keys, name, key, op, expected) -> None:
    clip = generated(name, key)
    assert keys.labels(clip) == key
    out = op(clip)
    assert keys.labels(out) == expected
    idx = observe.uniform_indices(out.num_frames, SAMPLES)
    assert keys.labels(out, idx) == expected  # still answerable from 16 frames
    assert keys.pixels(out) == expected


def test_counts_survive_every_reorientation(generated, keys) -> None:
    clip = generated("bounce_count", "3")
    for op in (Reverse(), H, V, Rotate(90), Rotate(180), Rotate(270)):
        assert keys.labels(op(clip)) == "3", op


def test_rotation_labels_match_pixels_through_a_chain(generated, keys) -> None:
    out = generated("spin", "cw")
    for op in (Reverse(), H, Rotate(90), ZoomIn()):
        out = op(out)
    assert keys.labels(out) == "cw"  # reverse and mirror each flip the sense
    assert keys.pixels(out) == "cw"


@pytest.mark.parametrize("op", [Rotate(90), Rotate(270)], ids=["rotate90", "rotate270"])
def test_quarter_turn_moves_canvas_and_positions(generated, op) -> None:
    clip = generated("slide", "left")
    out = op(clip)
    w, h = clip.size
    assert out.size == (h, w) == (out.labels.width, out.labels.height)
    src, dst = clip.labels.subject, out.labels.subject
    if op.degrees == 90:  # clockwise: (x, y) -> (h - 1 - y, x)
        np.testing.assert_allclose(dst.x, h - 1 - src.y)
        np.testing.assert_allclose(dst.y, src.x)
    else:
        np.testing.assert_allclose(dst.x, src.y)
        np.testing.assert_allclose(dst.y, w - 1 - src.x)
    np.testing.assert_allclose(np.diff(dst.angle), np.diff(src.angle))


def test_mirror_reverses_turning_in_states(generated) -> None:
    clip = generated("spin", "cw")
    out = H(clip)
    np.testing.assert_allclose(
        np.diff(out.labels.subject.angle), -np.diff(clip.labels.subject.angle)
    )
