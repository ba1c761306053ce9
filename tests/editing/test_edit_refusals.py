"""Refusals with clear messages, and no output file left behind when writing fails."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tempogen.editing import (
    Clip,
    Crop,
    EditError,
    Reverse,
    Speed,
    SpeedRamp,
    ZoomIn,
    composite,
    concat,
    make_op,
    pair_with_black_gap,
    parse_pipeline,
)
from tempogen.labels import Labels, Query, Track
from tempogen.video import VideoError, probe, write_video


def test_zoom_in_needs_labels(tiny_frames_ref) -> None:
    clip = Clip.from_array(tiny_frames_ref, 4.0, facts={"rotation": ["cw"]})
    with pytest.raises(EditError, match=r"zoom_in: needs per-frame labels.*use crop\(box\)"):
        ZoomIn()(clip)


@pytest.mark.parametrize(
    "box",
    [(0, 0, 100, 48), (-2, 0, 30, 20), (10, 10, 10, 30), (40, 0, 20, 20), (0, 30, 40, 60)],
)
def test_crop_box_outside_frame(tiny, box) -> None:
    with pytest.raises(EditError, match=r"crop: box \[.*\] is not inside the 64x48 frame") as e:
        Crop(box)(tiny)
    assert str(list(box)) in str(e.value)


def test_crop_box_not_numbers(tiny) -> None:
    with pytest.raises(EditError, match=r"crop: box must be four numbers .* got \('a', 0, 8, 8\)"):
        Crop(("a", 0, 8, 8))(tiny)
    with pytest.raises(EditError, match="crop: box must be four numbers"):
        Crop((0, 0, 8))(tiny)


def test_crop_aspect_mismatch(tiny) -> None:
    with pytest.raises(
        EditError, match=r"box \[8, 4, 56, 36\] and size \[48, 48\] differ in aspect"
    ):
        Crop((8, 4, 56, 36), size=(48, 48))(tiny)


def test_crop_that_cuts_the_subject_out(tiny) -> None:
    # the square starts at x 12..19 and ends at x 34..41: a right-hand box loses it early on
    with pytest.raises(EditError) as e:
        Crop((32, 0, 64, 24))(tiny)
    msg = str(e.value)
    assert msg.startswith(
        "crop: object 'subject' (the square) leaves the output frame at frames [0, 1,"
    )
    assert "its labels would not be visible" in msg


def test_crop_keeps_subject_but_hides_others(tiny_frames_ref) -> None:
    n = len(tiny_frames_ref)
    subject = Track.build("subject", n, x=15.5 + 2 * np.arange(n), y=11.5, shape="square", size=6)
    far = Track.build("other", n, x=58, y=42, role="distractor", size=3)
    labels = Labels(64, 48, 4.0, (subject, far), Query("direction", ("subject",)))
    out = Crop((8, 4, 56, 36))(Clip.from_array(tiny_frames_ref, 4.0, labels))
    assert out.labels.track("subject").visible.all()
    assert not out.labels.track("other").visible.any()  # a non-queried object may leave


@pytest.mark.parametrize("factor", [0, -1, -0.5, float("inf"), float("nan"), "2", None])
def test_speed_needs_positive_factor(factor) -> None:
    with pytest.raises(EditError, match=r"speed: factor must be a positive number, got "):
        Speed(factor)


@pytest.mark.parametrize(
    "start,end,bad", [(1, 0, "end"), (1, -2, "end"), (0, 1, "start"), (1, float("inf"), "end")]
)
def test_speed_ramp_needs_positive_rates(start, end, bad) -> None:
    with pytest.raises(EditError, match=f"speed_ramp: {bad} must be a positive number, got"):
        SpeedRamp(start, end)


def test_unknown_op_in_pipeline() -> None:
    with pytest.raises(EditError) as e:
        parse_pipeline(["reverse", {"mirror": "horizontal"}, "rewind"])
    assert str(e.value) == (
        "pipeline[2]: unknown op 'rewind'; known: mirror, rotate, concat, composite, loop, "
        "reverse, speed, speed_ramp, trim, crop, zoom_in"
    )


def test_make_op_bad_parameters() -> None:
    with pytest.raises(
        EditError, match=r"^speed: unknown parameter\(s\) \['fast'\]; parameters: factor"
    ):
        make_op("speed", {"fast": 2})
    with pytest.raises(EditError, match=r"^mirror: axis must be"):
        make_op("mirror", "sideways")


def _labels(name: str, n: int, color=(255, 255, 0)) -> Labels:
    t = Track.build(name, n, x=15.5 + 2 * np.arange(n), y=11.5, shape="square", color=color, size=6)
    return Labels(64, 48, 4.0, (t,), Query("direction", (name,)))


def test_concat_different_objects(tiny_frames_ref) -> None:
    a = Clip.from_array(tiny_frames_ref, 4.0, _labels("subject", 12))
    b = Clip.from_array(tiny_frames_ref, 4.0, _labels("ball", 12))
    with pytest.raises(EditError, match="concat: clips show different objects or questions"):
        concat(a, b)


def test_concat_object_that_looks_different(tiny_frames_ref) -> None:
    a = Clip.from_array(tiny_frames_ref, 4.0, _labels("subject", 12))
    b = Clip.from_array(tiny_frames_ref, 4.0, _labels("subject", 12, color=(0, 0, 255)))
    with pytest.raises(
        EditError, match="concat: object 'subject' looks different in the two clips"
    ):
        concat(a, b)


def test_concat_labels_with_unlabelled(tiny, tiny_frames_ref) -> None:
    with pytest.raises(EditError, match="one clip has per-frame labels and the other does not"):
        concat(tiny, Clip.from_array(tiny_frames_ref, 4.0))


@pytest.mark.parametrize("join", [concat, pair_with_black_gap, composite])
def test_joins_need_same_format(tiny, tiny_frames_ref, join) -> None:
    other = Clip.from_array(tiny_frames_ref, 8.0, tiny.labels)
    with pytest.raises(
        EditError, match=r"clips differ in size or fps: \(64, 48\)@4.0 vs \(64, 48\)@8.0"
    ):
        join(tiny, other)


def test_composite_unknown_layout(tiny) -> None:
    with pytest.raises(EditError) as e:
        composite(tiny, tiny, layout="grid")
    assert str(e.value) == (
        "composite: layout must be 'side_by_side' or 'picture_in_picture', got 'grid'"
    )


def test_pair_gap_must_hold_a_frame(tiny) -> None:
    with pytest.raises(EditError, match="the gap must hold at least one frame, got 0.1 s"):
        pair_with_black_gap(tiny, tiny, seconds=0.1)


def test_one_frame_clip_and_empty_array() -> None:
    clip = Clip.from_array(np.zeros((1, 4, 4, 3), np.uint8), 4.0)
    assert Speed(3)(clip).num_frames == 1
    with pytest.raises(EditError, match=r"frames must be \(T, H, W, 3\) with T > 0"):
        Clip.from_array(np.zeros((0, 4, 4, 3), np.uint8), 4.0)


# -- failed writes leave nothing behind -----------------------------------------------------
class _Exploding(np.ndarray):
    """Frames that fail to load from frame 5 on, like a source that breaks mid-read."""

    def __getitem__(self, i):
        if isinstance(i, int | np.integer) and i >= 5:
            raise OSError(f"cannot read frame {i}")
        return super().__getitem__(i)


@pytest.mark.parametrize("reverse", [False, True], ids=["in-order", "reversed"])
def test_write_failing_midway_leaves_no_file(tmp_path, tiny_frames_ref, reverse) -> None:
    clip = Clip.from_array(tiny_frames_ref.view(_Exploding), 4.0)
    if reverse:
        clip = Reverse()(clip)
    target = tmp_path / "out" / "clip.mp4"
    with pytest.raises(OSError, match="cannot read frame 5"):
        clip.write(target)
    assert not target.exists()
    assert list(target.parent.iterdir()) == []  # no temporary file either


def test_failed_write_keeps_previous_file(tmp_path, tiny_frames_ref) -> None:
    target = tmp_path / "clip.mp4"
    write_video(target, tiny_frames_ref[:3], 4.0)
    before = target.read_bytes()
    with pytest.raises(OSError):
        Clip.from_array(tiny_frames_ref.view(_Exploding), 4.0).write(target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["clip.mp4"]


@pytest.mark.parametrize("reverse", [False, True], ids=["in-order", "reversed"])
def test_source_video_shorter_than_promised(tmp_path: Path, tiny_frames_ref, reverse) -> None:
    src = tmp_path / "src.mp4"
    write_video(src, tiny_frames_ref, 4.0)
    clip = Clip.from_video(src)
    assert clip.num_frames == 12
    write_video(src, tiny_frames_ref[:5], 4.0)  # the file is truncated after opening
    if reverse:
        clip = Reverse()(clip)
    target = tmp_path / "edited.mp4"
    with pytest.raises(VideoError, match=f"^{src}: ended at frame 4, edit needs frame 11$"):
        clip.write(target)
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src.mp4"]


def test_corrupt_source_video(tmp_path, tiny_frames_ref) -> None:
    src = tmp_path / "src.mp4"
    write_video(src, tiny_frames_ref, 4.0)
    data = src.read_bytes()
    src.write_bytes(data[: len(data) // 2])
    with pytest.raises(VideoError, match=f"^{src}: not a readable video"):
        Clip.from_video(src)
    src.write_bytes(b"not a video" * 50)
    with pytest.raises(VideoError, match=f"^{src}: not a readable video"):
        Clip.from_video(src)
    with pytest.raises(VideoError, match="nope.mp4: no such video file"):
        Clip.from_video(tmp_path / "nope.mp4")


def test_from_video_round_trip(tmp_path, tiny_frames_ref) -> None:
    src = tmp_path / "src.mp4"
    write_video(src, tiny_frames_ref, 4.0)
    clip = Reverse()(Clip.from_video(src))
    assert clip.write(tmp_path / "rev.mp4") == 12
    assert probe(tmp_path / "rev.mp4").num_frames == 12
    frames = clip.to_array()
    # lossy codec: compare each frame's mean colour with the reversed source
    np.testing.assert_allclose(
        frames.mean(axis=(1, 2)), tiny_frames_ref[::-1].mean(axis=(1, 2)), atol=4
    )
