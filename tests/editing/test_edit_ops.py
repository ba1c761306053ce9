"""Each op against its contract (``check_edit``) and against numpy on a tiny colour-coded clip.

Frame ``t`` of the tiny clip has its own background colour, so comparing a whole output with
a numpy expression (``frames[::-1]``, ``np.rot90``) checks which frame lands where and how
every pixel moved; its labels track a yellow square, which the pixels must agree with.
"""

from __future__ import annotations

import numpy as np
import pytest

from tempogen.editing import (
    Clip,
    Crop,
    EditError,
    Loop,
    Mirror,
    Reverse,
    Rotate,
    Speed,
    SpeedRamp,
    Trim,
    ZoomIn,
)
from tempogen.editing.ops import COUNTERFACTUAL, ZOOM
from tempogen.labels import Query


def _states(clip: Clip) -> dict[str, np.ndarray]:
    t = clip.labels.subject
    return {k: getattr(t, k) for k in ("x", "y", "angle", "scale", "visible", "lit")}


def assert_same_labels(a: Clip, b: Clip, angle_period: float | None = None) -> None:
    """Same canvas and states (angles equal modulo ``angle_period`` when given)."""
    assert (a.labels.width, a.labels.height, a.labels.fps) == (
        b.labels.width,
        b.labels.height,
        b.labels.fps,
    )
    sa, sb = _states(a), _states(b)
    for k in sa:
        if k == "angle" and angle_period:
            d = (sa[k] - sb[k]) % angle_period
            np.testing.assert_allclose(np.minimum(d, angle_period - d), 0, atol=1e-9)
        else:
            np.testing.assert_allclose(sa[k], sb[k], atol=1e-9, err_msg=k)


def assert_labels_follow_square(clip: Clip, centroids, atol: float = 0.6) -> None:
    """The labelled position is where the yellow pixels are, in every output frame."""
    got = centroids(clip.to_array())
    t = clip.labels.subject
    np.testing.assert_allclose(got[:, 0], t.x, atol=atol)
    np.testing.assert_allclose(got[:, 1], t.y, atol=atol)


class TestReverse:
    def test_contract(self, check_edit, tiny) -> None:
        check_edit(Reverse(), tiny)

    def test_frames_play_backwards(self, tiny, tiny_frames_ref) -> None:
        out = Reverse()(tiny)
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref[::-1])
        np.testing.assert_array_equal(out.labels.subject.x, tiny.labels.subject.x[::-1])

    def test_twice_is_identity(self, tiny, tiny_frames_ref) -> None:
        out = Reverse()(Reverse()(tiny))
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref)
        assert_same_labels(out, tiny)
        assert [e["op"] for e in out.edits] == ["reverse", "reverse"]
        assert out.variation == (COUNTERFACTUAL,)

    def test_direction_flips(self, tiny, keys) -> None:
        assert keys.labels(tiny) == "right"
        assert keys.labels(Reverse()(tiny)) == "left"


class TestSpeed:
    @pytest.mark.parametrize("factor", [2, 0.5, 1.5, 3.0])
    def test_contract(self, check_edit, tiny, factor) -> None:
        check_edit(Speed(factor), tiny)

    def test_double_speed_drops_every_other_frame(self, tiny, tiny_frames_ref) -> None:
        out = Speed(2)(tiny)
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref[0::2])
        np.testing.assert_array_equal(out.labels.subject.x, tiny.labels.subject.x[0::2])
        assert out.fps == tiny.fps

    def test_half_speed_repeats_frames(self, tiny, tiny_frames_ref, centroids) -> None:
        out = Speed(0.5)(tiny)
        assert out.num_frames == 2 * tiny.num_frames - 1
        assert np.all(np.diff(out.index) >= 0)
        assert set(out.index.tolist()) == set(range(tiny.num_frames))
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref[out.index])
        assert_labels_follow_square(out, centroids)

    def test_half_speed_holds_every_frame_equally(self, tiny) -> None:
        out = Speed(0.5)(tiny)
        np.testing.assert_array_equal(out.index, np.arange(out.num_frames) // 2)

    def test_speed_one_is_identity(self, tiny, tiny_frames_ref) -> None:
        out = Speed(1)(tiny)
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref)
        assert_same_labels(out, tiny)


class TestSpeedRamp:
    @pytest.mark.parametrize("start,end", [(0.5, 2.0), (2.0, 0.5), (1, 1)])
    def test_contract(self, check_edit, tiny, start, end) -> None:
        check_edit(SpeedRamp(start, end), tiny)

    def test_rising_ramp_takes_longer_steps_later(self, tiny, tiny_frames_ref) -> None:
        out = SpeedRamp(0.5, 2.0)(tiny)
        steps = np.diff(out.index)
        # the clip is played to its end, give or take the last step (at most ``end`` frames)
        assert out.index[0] == 0 and out.index[-1] >= tiny.num_frames - 1 - 2.0
        assert np.all(steps >= 0)
        assert steps[: len(steps) // 3].mean() < steps[-(len(steps) // 3) :].mean()
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref[out.index])
        np.testing.assert_array_equal(out.labels.subject.x, tiny.labels.subject.x[out.index])

    def test_flat_ramp_is_constant_speed(self, tiny) -> None:
        np.testing.assert_array_equal(SpeedRamp(2, 2)(tiny).index, Speed(2)(tiny).index)
        np.testing.assert_array_equal(SpeedRamp(1, 1)(tiny).index, np.arange(tiny.num_frames))


class TestTrim:
    @pytest.mark.parametrize("start,end", [(0.5, 2.0), (1.0, None), (0.0, 100.0)])
    def test_contract(self, check_edit, tiny, start, end) -> None:
        check_edit(Trim(start, end), tiny)

    @pytest.mark.parametrize(
        "start,end,sl",
        [(0.5, 2.0, slice(2, 8)), (1.0, None, slice(4, None)), (2.0, 100.0, slice(8, None))],
    )
    def test_cuts_by_seconds(self, tiny, tiny_frames_ref, start, end, sl) -> None:
        out = Trim(start, end)(tiny)  # 4 fps: second s is frame 4 s
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref[sl])
        np.testing.assert_array_equal(out.labels.subject.x, tiny.labels.subject.x[sl])

    @pytest.mark.parametrize("start,end", [(3.0, None), (-1.0, 2.0), (1.0, 1.0), (2.0, 1.0)])
    def test_empty_range_refuses(self, tiny, start, end) -> None:
        with pytest.raises(EditError, match=r"trim: .* holds no frame of a 3\.00 s clip"):
            Trim(start, end)(tiny)


def counting(clip: Clip) -> Clip:
    """The tiny clip asking how often its square flashes (lit on frames 4-5): a question
    ``loop`` declares (it multiplies counts); it refuses direction questions (seam jumps)."""
    track = clip.labels.subject
    lit = np.zeros(track.num_frames, bool)
    lit[4:6] = True
    labels = clip.labels.with_tracks(
        (track.with_states(lit=lit),), query=Query("count", ("subject",), kind="flash")
    )
    return clip.evolve(labels=labels)


class TestLoop:
    @pytest.mark.parametrize("times", [1, 2, 3])
    def test_contract(self, check_edit, tiny, times) -> None:
        check_edit(Loop(times), counting(tiny))

    def test_refuses_direction_seams(self, tiny) -> None:
        with pytest.raises(EditError, match="loop 2: cannot transform label 'direction'"):
            Loop(2)(tiny)

    def test_tiles(self, tiny, tiny_frames_ref) -> None:
        out = Loop(2)(counting(tiny))
        np.testing.assert_array_equal(out.to_array(), np.concatenate([tiny_frames_ref] * 2))
        np.testing.assert_array_equal(out.labels.subject.x, np.tile(tiny.labels.subject.x, 2))

    @pytest.mark.parametrize("times", [0, -1, 1.5, "2"])
    def test_bad_times(self, times) -> None:
        with pytest.raises(EditError, match="loop: times must be a positive integer"):
            Loop(times)


class TestMirror:
    @pytest.mark.parametrize("axis", ["horizontal", "vertical"])
    def test_contract(self, check_edit, tiny, axis) -> None:
        check_edit(Mirror(axis), tiny)

    def test_horizontal(self, tiny, tiny_frames_ref, centroids) -> None:
        out = Mirror("horizontal")(tiny)
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref[:, :, ::-1])
        assert_labels_follow_square(out, centroids, atol=1e-9)

    def test_vertical(self, tiny, tiny_frames_ref, centroids) -> None:
        out = Mirror("vertical")(tiny)
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref[:, ::-1])
        assert_labels_follow_square(out, centroids, atol=1e-9)

    @pytest.mark.parametrize("axis", ["horizontal", "vertical"])
    def test_twice_is_identity(self, tiny, tiny_frames_ref, axis) -> None:
        out = Mirror(axis)(Mirror(axis)(tiny))
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref)
        np.testing.assert_allclose(out.affine, tiny.affine, atol=1e-12)
        assert_same_labels(out, tiny)

    def test_direction(self, tiny, keys) -> None:
        assert keys.labels(Mirror("horizontal")(tiny)) == "left"
        assert keys.labels(Mirror("vertical")(tiny)) == "right"

    def test_bad_axis(self) -> None:
        with pytest.raises(EditError, match="mirror: axis must be 'horizontal' or 'vertical'"):
            Mirror("diagonal")


class TestRotate:
    @pytest.mark.parametrize("degrees", [90, 180, 270])
    def test_contract(self, check_edit, tiny, degrees) -> None:
        check_edit(Rotate(degrees), tiny)

    @pytest.mark.parametrize(
        "degrees,expected",
        [
            (90, lambda f: np.rot90(f, k=-1, axes=(1, 2))),  # clockwise
            (180, lambda f: f[:, ::-1, ::-1]),
            (270, lambda f: np.rot90(f, k=1, axes=(1, 2))),
        ],
    )
    def test_frames(self, tiny, tiny_frames_ref, centroids, degrees, expected) -> None:
        out = Rotate(degrees)(tiny)
        ref = expected(tiny_frames_ref)
        assert out.size == (ref.shape[2], ref.shape[1])
        np.testing.assert_array_equal(out.to_array(), ref)
        assert_labels_follow_square(out, centroids, atol=1e-6)

    def test_quarter_turn_swaps_size(self, tiny) -> None:
        out = Rotate(90)(tiny)
        assert out.size == (48, 64) and (out.labels.width, out.labels.height) == (48, 64)
        assert Rotate(180)(tiny).size == (64, 48)

    @pytest.mark.parametrize("turns", [[90] * 4, [90, 270], [180, 180], [270, 90]])
    def test_full_turn_is_identity(self, tiny, tiny_frames_ref, turns) -> None:
        out = tiny
        for d in turns:
            out = Rotate(d)(out)
        assert out.size == tiny.size
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref)
        # cumulative angles may gain whole turns; positions come back exactly
        assert_same_labels(out, tiny, angle_period=360.0)

    def test_direction_turns_clockwise(self, tiny, keys) -> None:
        assert keys.labels(Rotate(90)(tiny)) == "down"
        assert keys.labels(Rotate(180)(tiny)) == "left"
        assert keys.labels(Rotate(270)(tiny)) == "up"

    @pytest.mark.parametrize("degrees", [0, 45, 360, -90, "90"])
    def test_bad_degrees(self, degrees) -> None:
        with pytest.raises(EditError, match="rotate: degrees must be 90, 180 or 270"):
            Rotate(degrees)


class TestCrop:
    def test_contract(self, check_edit, tiny) -> None:
        check_edit(Crop((8, 4, 56, 36)), tiny)

    def test_integer_box_is_slicing(self, tiny, tiny_frames_ref, centroids) -> None:
        out = Crop((8, 4, 56, 36))(tiny)
        assert out.size == (48, 32)
        np.testing.assert_array_equal(out.to_array(), tiny_frames_ref[:, 4:36, 8:56])
        np.testing.assert_allclose(out.labels.subject.x, tiny.labels.subject.x - 8)
        np.testing.assert_allclose(out.labels.subject.y, tiny.labels.subject.y - 4)
        assert_labels_follow_square(out, centroids, atol=1e-9)

    def test_scaled_box(self, check_edit, tiny, centroids) -> None:
        out = check_edit(Crop((8, 4, 56, 36), size=(96, 64)), tiny)
        assert out.size == (96, 64)
        np.testing.assert_allclose(out.labels.subject.scale, 2.0)
        np.testing.assert_allclose(out.labels.subject.x, 2 * (tiny.labels.subject.x - 8))
        assert_labels_follow_square(out, centroids, atol=1.0)

    def test_flag_is_zoom(self, tiny) -> None:
        out = Crop((8, 4, 56, 36))(Reverse()(tiny))
        assert out.variation == (COUNTERFACTUAL, ZOOM)


class TestZoomIn:
    def test_contract(self, check_edit, tiny) -> None:
        check_edit(ZoomIn(), tiny)

    @pytest.mark.parametrize("margin", [0.0, 0.2, 0.4])
    def test_subject_fills_more_and_stays_in_view(self, tiny, centroids, margin) -> None:
        out = ZoomIn(margin=margin)(tiny)
        assert out.size == tiny.size
        t = out.labels.subject
        assert np.all(t.scale > 1.0)
        box = t.bbox()
        assert box[:, :2].min() >= -0.5 and box[:, 2].max() <= 64.5 and box[:, 3].max() <= 48.5
        assert_labels_follow_square(out, centroids, atol=1.0)

    def test_named_subject(self, tiny) -> None:
        a, b = ZoomIn(subject="subject")(tiny), ZoomIn(subject="main")(tiny)
        np.testing.assert_array_equal(a.affine, b.affine)

    def test_unknown_subject(self, tiny) -> None:
        with pytest.raises(
            EditError, match=r"zoom_in: no object named 'moon'; objects: \['subject'\]"
        ):
            ZoomIn(subject="moon")(tiny)

    def test_margin_wider_than_frame(self, tiny) -> None:
        with pytest.raises(EditError, match="'subject' with margin 0.5 needs the whole frame"):
            ZoomIn(margin=0.5)(tiny)

    def test_negative_margin(self, tiny) -> None:
        with pytest.raises(EditError, match="zoom_in: margin must be >= 0"):
            ZoomIn(margin=-0.1)(tiny)


@pytest.mark.parametrize(
    "ops",
    [
        [Reverse(), Mirror("horizontal")],
        [Speed(2), Rotate(90), Crop((4, 4, 44, 60))],
        [Mirror("vertical"), ZoomIn(margin=0.3), Reverse()],
        [Loop(2), Rotate(270), Speed(0.5)],
    ],
    ids=["reverse-mirror", "speed-rotate-crop", "mirror-zoom-reverse", "loop-rotate-slow"],
)
def test_chains_keep_labels_on_the_square(check_edit, tiny, centroids, ops) -> None:
    out = counting(tiny) if any(isinstance(op, Loop) for op in ops) else tiny
    for op in ops:
        out = check_edit(op, out)
    assert [e["op"] for e in out.edits] == [op.name for op in ops]
    assert_labels_follow_square(out, centroids, atol=1.0)
