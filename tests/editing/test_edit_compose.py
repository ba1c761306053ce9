"""Joining clips: concat (with and without a black gap), Vinoground pairs, composites."""

from __future__ import annotations

import numpy as np
import pytest

from tempogen import observe
from tempogen.editing import (
    Clip,
    Mirror,
    Reverse,
    composite,
    concat,
    pair_with_black_gap,
)
from tempogen.editing.ops import COMPOSITE, COUNTERFACTUAL


def test_then_reversed_spin_is_cw_then_ccw(generated, keys) -> None:
    a = generated("spin", "cw")
    out = concat(a, Reverse()(a))
    assert out.num_frames == out.labels.num_frames == 2 * a.num_frames
    assert keys.labels(out) == "cw-ccw"
    assert keys.pixels(out) == "cw-ccw"
    assert out.variation == (COUNTERFACTUAL, COMPOSITE)
    assert out.edits == ({"op": "concat", "gap": None, "parts": [[], [{"op": "reverse"}]]},)


def test_then_reversed_slide_continues_at_the_seam(generated, keys) -> None:
    a = generated("slide", "left")
    out = concat(a, Reverse()(a))
    assert keys.labels(out) == "left-right"
    assert keys.pixels(out) == "left-right"
    x = out.labels.subject.x
    n = a.num_frames
    assert x[n - 1] == x[n]  # no jump cut: B starts where A ended


def test_concat_frames_and_labels_join(tiny, tiny_frames_ref, keys) -> None:
    out = concat(tiny, Reverse()(tiny))
    np.testing.assert_array_equal(
        out.to_array(), np.concatenate([tiny_frames_ref, tiny_frames_ref[::-1]])
    )
    x = tiny.labels.subject.x
    np.testing.assert_array_equal(out.labels.subject.x, np.concatenate([x, x[::-1]]))
    assert keys.labels(out) == "right-left"


def test_concat_with_gap_has_black_frames(tiny, tiny_frames_ref, keys, tmp_path) -> None:
    out = concat(tiny, Mirror("horizontal")(tiny), gap=1.5)  # 4 fps: 6 black frames
    n = tiny.num_frames
    assert out.num_frames == 2 * n + 6 == out.labels.num_frames
    frames = out.to_array()
    np.testing.assert_array_equal(frames[:n], tiny_frames_ref)
    assert not frames[n : n + 6].any()
    np.testing.assert_array_equal(frames[n + 6 :], tiny_frames_ref[:, :, ::-1])
    assert out.black[n : n + 6].all() and not out.black[:n].any() and not out.black[n + 6 :].any()
    vis = out.labels.subject.visible
    assert vis[:n].all() and not vis[n : n + 6].any() and vis[n + 6 :].all()
    # the object is hidden, not moved, during the gap
    np.testing.assert_array_equal(out.labels.subject.x[n : n + 6], tiny.labels.subject.x[-1])
    assert out.edits[0]["gap"] == 1.5
    # black frames stay black through later edits and in the written video
    rev = Reverse()(out)
    assert not rev.to_array()[n : n + 6].any()
    assert out.write(tmp_path / "gap.mp4") == 2 * n + 6


def test_concat_declared_facts() -> None:
    z = np.zeros((4, 8, 8, 3), np.uint8)
    a = Clip.from_array(z, 4.0, facts={"rotation": ["cw"], "count": 1})
    b = Reverse()(a)
    out = concat(a, b)
    assert out.facts == {"rotation": ["cw", "ccw"], "count": 2}
    assert out.labels is None


def test_pair_with_black_gap(tiny, tiny_frames_ref) -> None:
    neg = Reverse()(tiny)
    out = pair_with_black_gap(tiny, neg)  # 2 s at 4 fps: 8 black frames
    n = tiny.num_frames
    frames = out.to_array()
    assert out.num_frames == 2 * n + 8
    np.testing.assert_array_equal(frames[:n], tiny_frames_ref)
    assert not frames[n : n + 8].any()
    np.testing.assert_array_equal(frames[n + 8 :], tiny_frames_ref[::-1])
    assert out.facts == {
        "segments": {"pos": [0, n - 1], "gap": [n, n + 7], "neg": [n + 8, 2 * n + 7]}
    }
    assert out.labels is None
    assert out.variation == (COMPOSITE,)
    assert out.edits == ({"op": "pair_with_black_gap", "seconds": 2.0},)


def test_pair_gap_length_follows_fps(generated) -> None:
    a = generated("slide", "left")
    out = pair_with_black_gap(a, Reverse()(a), seconds=1.0)
    seg = out.facts["segments"]
    assert seg["gap"] == [a.num_frames, a.num_frames + 14]  # 15 fps
    assert out.black.sum() == 15


@pytest.mark.parametrize("layout", ["side_by_side", "picture_in_picture"])
def test_composite_keeps_a_question(generated, keys, layout) -> None:
    a, b = generated("spin", "cw"), generated("slide", "up", seed=3)
    assert a.labels.subject.color != b.labels.subject.color
    out = composite(a, b, layout)
    w, h = a.size
    assert out.size == (w, h) and out.num_frames == min(a.num_frames, b.num_frames)
    assert keys.labels(out) == keys.labels(a) == "cw"
    assert keys.pixels(out) == "cw"
    subj = out.labels.subject
    box = subj.bbox()
    assert box[:, :2].min() >= 0 and box[:, 2].max() <= w and box[:, 3].max() <= h
    assert subj.visible.all()
    names = [t.name for t in out.labels.tracks]
    assert names[: len(a.labels.tracks)] == [t.name for t in a.labels.tracks]
    assert "b:subject" in names and out.labels.track("b:subject").role == "distractor"
    assert out.labels.query == a.labels.query
    assert out.variation == (COMPOSITE,)
    assert out.edits[0]["op"] == "composite" and out.edits[0]["layout"] == layout


def test_side_by_side_puts_a_left_and_b_right(generated) -> None:
    a, b = generated("spin", "cw"), generated("slide", "up", seed=3)
    out = composite(a, b, "side_by_side")
    w, h = a.size
    np.testing.assert_allclose(out.labels.subject.x, a.labels.subject.x / 2)
    np.testing.assert_allclose(out.labels.track("b:subject").x, b.labels.subject.x / 2 + w / 2)
    np.testing.assert_allclose(out.labels.subject.scale, 0.5)
    n = out.num_frames
    idx = observe.uniform_indices(n, 4)
    frames = out.to_array()[idx]
    assert not frames[:, : h // 4 - 1].any() and not frames[:, h - h // 4 + 1 :].any()  # bars


def test_picture_in_picture_keeps_a_full_size(generated, keys) -> None:
    a, b = generated("slide", "left"), generated("spin", "ccw", seed=2)
    out = composite(a, b, "picture_in_picture")
    np.testing.assert_allclose(out.labels.subject.x, a.labels.subject.x)
    assert keys.labels(out) == "left"
    assert keys.pixels(out) == "left"
