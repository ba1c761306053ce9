"""Edges of ``crop`` and ``zoom_in`` (``editing/ops/view.py``) the other edit tests leave open.

Each case pins what a user sees: a parameter's range and the words of its refusal, the size
a crop writes, and where a following zoom keeps its subject. Mutation testing (``make mutate
MODULES=ops.view``) found each of these unchecked.
"""

from __future__ import annotations

import numpy as np
import pytest

from tempogen.config import MAX_SIDE
from tempogen.editing import Clip, Crop, ZoomIn, make_op
from tempogen.editing.ops.view import MAX_MARGIN, MAX_SMOOTH
from tempogen.errors import EditError
from tempogen.labels import Labels, Query, Track


def external(w: int = 64, h: int = 48) -> Clip:
    """A clip without per-frame states (nothing to keep in view): frame t is grey 50 * t."""
    return Clip.from_array(np.stack([np.full((h, w, 3), 50 * t, np.uint8) for t in range(3)]), 4.0)


BOX_WORDS = "crop: box: expected x0, y0 >= 0, x1 > x0 and y1 > y0, got "


# -- crop's parameters -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "box",
    [[-1, 0, 10, 10], [0, -1, 10, 10], [5, 0, 5, 10], [5, 0, 4, 10], [0, 5, 10, 5], [0, 5, 10, 4]],
)
def test_crop_refuses_a_box_that_is_not_a_box(box) -> None:
    """Each corner rule alone refuses: a negative corner, or a side of no (or negative) length."""
    with pytest.raises(EditError) as err:
        make_op("crop", box)
    assert str(err.value) == BOX_WORDS + str(box)


def test_crop_box_may_start_at_the_frame_edge() -> None:
    assert make_op("crop", [0, 0, 10, 10]).box == (0, 0, 10, 10)


@pytest.mark.parametrize("size", [[2, 2], [MAX_SIDE, 2], [64, 48]])
def test_crop_size_from_2_to_max_side_even(size) -> None:
    """Even sizes from 2 to MAX_SIDE are taken, and kept as a tuple (the op is hashable and
    equal to the same op written with tuples)."""
    op = make_op("crop", {"box": [0, 0, 10, 10], "size": size})
    assert op.size == tuple(size)
    assert op == Crop((0, 0, 10, 10), tuple(size)) and hash(op) == hash(
        Crop((0, 0, 10, 10), tuple(size))
    )


@pytest.mark.parametrize("size", [[3, 4], [4, 3], [0, 2], [MAX_SIDE + 2, 2], [-2, 2]])
def test_crop_refuses_an_odd_or_out_of_range_size(size) -> None:
    with pytest.raises(EditError) as err:
        make_op("crop", {"box": [0, 0, 10, 10], "size": size})
    assert str(err.value) == (
        f"crop: size: width and height must be even, from 2 to {MAX_SIDE}, got {size}"
    )


# -- crop on a clip ------------------------------------------------------------------------------
def test_crop_box_on_the_frame_edges_and_a_degenerate_box() -> None:
    """The whole frame is a box; a box of no height is refused as not inside (made directly,
    without ``make_op``'s check); a tiny box still writes an even size of at least 2."""
    assert Crop((0, 0, 64, 48))(external()).size == (64, 48)
    with pytest.raises(EditError) as err:
        Crop((0, 5, 10, 5))(external())
    assert str(err.value) == "crop: box [0, 5, 10, 5] is not inside the 64x48 frame"
    out = Crop((13, 9, 14, 10))(external())  # 1x1 pixel of the square: written at 2x2
    assert out.size == (2, 2)
    assert out.to_array().shape[1:3] == (2, 2)


def test_crop_aspect_tolerance_grows_with_the_scale() -> None:
    """2% of the scale: a crop blown up 2x may differ in aspect by up to 0.04 (here 0.03),
    one shrunk to half may not by 0.015 (over 2% of 0.5)."""
    out = Crop((0, 0, 20, 32.5), (40, 66))(external())  # 2.0 wide, 66 / 32.5 = 2.03 high
    assert out.size == (40, 66)
    # exactly 2% is still allowed: 4 px blown up to 100 wide and 98 high (24.5 = 25 - 2%)
    assert Crop((0, 0, 4, 4), (100, 98))(external()).size == (100, 98)
    with pytest.raises(EditError) as err:
        Crop((0, 0, 40, 40), (20, 20.6))(external())
    assert str(err.value) == "crop: box [0, 0, 40, 40] and size [20, 20.6] differ in aspect ratio"


# -- zoom_in's parameters ----------------------------------------------------------------------
@pytest.mark.parametrize("value", [0, MAX_MARGIN])
def test_zoom_margin_range_ends_are_allowed(value) -> None:
    assert make_op("zoom_in", {"margin": value}).margin == value


@pytest.mark.parametrize("value", [0, MAX_SMOOTH])
def test_zoom_smooth_range_ends_are_allowed(value) -> None:
    assert make_op("zoom_in", {"smooth": value}).smooth == value


def test_zoom_refusals_name_the_parameter() -> None:
    with pytest.raises(EditError) as err:
        make_op("zoom_in", {"margin": MAX_MARGIN + 1})
    assert str(err.value) == f"zoom_in: margin: must be from 0 to {MAX_MARGIN:g}, got 11.0"
    with pytest.raises(EditError) as err:
        make_op("zoom_in", {"smooth": -0.5})
    assert str(err.value) == f"zoom_in: smooth: must be from 0 to {MAX_SMOOTH:g} seconds, got -0.5"


# -- zoom_in following a subject -----------------------------------------------------------------
def spinner(
    n: int = 12,
    fps: float = 4.0,
    x0=40.0,
    y0=40.0,
    dx=4.0,
    dy=2.0,
    fact="rotation",
    kind="spin",
    anchor: bool = False,
) -> Clip:
    """A small square sliding 4 px right and 2 px down a frame over grey, asked about its spin:
    a question a view that follows the subject keeps (its own turning, not where it is)."""
    t = np.arange(n)
    tracks = [Track.build("subject", n, x=x0 + dx * t, y=y0 + dy * t, shape="square", size=6.0)]
    objects = ("subject",)
    if anchor:  # a fixed centre the question names too
        tracks.append(Track.build("post", n, x=150.0, y=110.0, role="anchor", size=4.0))
        objects = ("subject", "post")
    labels = Labels(160, 120, fps, tuple(tracks), Query(fact, objects, kind))
    return Clip.from_array(np.full((n, 120, 160, 3), 128, np.uint8), fps, labels)


@pytest.mark.parametrize("smooth", [0.0, 0.25])  # a window of at most one frame at 4 fps
def test_zoom_without_smoothing_keeps_the_subject_centred(smooth) -> None:
    out = ZoomIn(smooth=smooth)(spinner())
    np.testing.assert_allclose(out.labels.subject.x, 80.0)
    np.testing.assert_allclose(out.labels.subject.y, 60.0)


def test_zoom_smoothing_glides_behind_a_slide_only_at_its_ends() -> None:
    """0.5 s at 4 fps averages 5 frames (2 a side, the ends padded): the steady middle of the
    slide stays centred, the view starts ahead of the subject and ends behind it."""
    sub = ZoomIn(smooth=0.5)(spinner()).labels.subject
    np.testing.assert_allclose(sub.x[2:-2], 80.0)
    np.testing.assert_allclose(sub.y[2:-2], 60.0)
    assert sub.x[0] < 70 and sub.x[-1] > 90
    assert sub.y[0] < 55 and sub.y[-1] > 65
    # a clip of three frames is smoothed too
    x3 = ZoomIn(smooth=0.5)(spinner(3)).labels.subject.x
    assert x3[0] < 79 and x3[-1] > 81


def test_zoom_follows_the_subject_when_the_question_also_names_an_anchor() -> None:
    """A spin about a fixed anchor still reads one moving object: the view follows it."""
    out = ZoomIn(smooth=0)(spinner(anchor=True))
    np.testing.assert_allclose(out.labels.subject.x, 80.0)


def test_zoom_on_a_position_question_frames_the_whole_path_still() -> None:
    """A direction question keeps one fixed box around the subject's whole path, centred."""
    clip = spinner(fact="direction", kind="")
    out = ZoomIn()(clip)
    box = out.labels.subject.bbox()
    assert np.isclose((box[:, 0].min() + box[:, 2].max()) / 2, 80.0)
    assert np.isclose((box[:, 1].min() + box[:, 3].max()) / 2, 60.0)
    assert np.allclose(out.affine, out.affine[0])  # the view does not move


@pytest.mark.parametrize(
    ("x0", "y0", "dx", "dy"),
    [
        (7.0, 60.0, 0.0, 1.0),
        (153.0, 60.0, 0.0, 1.0),
        (80.0, 7.0, 1.0, 0.0),
        (80.0, 113.0, 1.0, 0.0),
    ],
    ids=["left", "right", "top", "bottom"],
)
def test_a_following_view_stays_inside_the_frame_at_its_edges(x0, y0, dx, dy) -> None:
    """A subject against an edge is not centred: the view stops at the edge, so the window
    of the source it shows lies inside the source frame (no border from outside it)."""
    out = ZoomIn(smooth=0)(spinner(x0=x0, y0=y0, dx=dx, dy=dy))
    m = out.affine  # source -> output pixels, per frame: x' = s x + tx
    s, tx, ty = m[:, 0, 0], m[:, 0, 2], m[:, 1, 2]
    assert ((0 - tx) / s >= -1e-9).all() and ((160 - tx) / s <= 160 + 1e-9).all()
    assert ((0 - ty) / s >= -1e-9).all() and ((120 - ty) / s <= 120 + 1e-9).all()
    if x0 < 80 or y0 < 60:  # the left and top edges: no pixel of the view is from outside
        assert out.to_array().min() == 128
    sub = out.labels.subject
    assert not np.allclose(sub.x, 80.0) or not np.allclose(sub.y, 60.0)


def test_zoom_needing_the_whole_frame_is_refused_at_exactly_half() -> None:
    """The subject's view is 16 px (its 12 px box at the frame's aspect): margin 4.5 makes it
    the whole 160 px frame (refused), margin 4.46875 one pixel less (zoomed)."""
    with pytest.raises(EditError) as err:
        ZoomIn(margin=4.5)(spinner())
    assert str(err.value) == (
        "zoom_in: 'subject' with margin 4.5 needs the whole frame; nothing to zoom"
    )
    assert ZoomIn(margin=4.46875, smooth=0)(spinner(dx=0.0, dy=0.0)).size == (160, 120)


def test_zoom_subject_alias_follows_the_questions_first_object() -> None:
    """``subject: subject`` (like ``main``) means the object the question asks about, whatever
    its track is called; an external clip has no objects to zoom on."""
    clip = spinner()
    ball = Track.build("ball", 12, x=40 + 4.0 * np.arange(12), y=60.0, shape="square", size=6.0)
    labels = Labels(160, 120, 4.0, (ball,), Query("rotation", ("ball",), "spin"))
    out = ZoomIn(subject="subject", smooth=0)(clip.evolve(labels=labels))
    np.testing.assert_allclose(out.labels.track("ball").x, 80.0)
    with pytest.raises(EditError) as err:
        ZoomIn()(external())
    assert str(err.value) == (
        "zoom_in: needs per-frame labels to find the subject; use crop(box) for an external clip"
    )
