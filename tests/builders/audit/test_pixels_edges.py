"""The 2D pixel reader (``builders/audit/pixels.py``) measures what the frames show, not what
the labels say, and measures it right. Frames are drawn here by the project's own 2D
compositor from hand-made labels (no video codec: pixels exact, milliseconds a test), then
read back and compared with the truth, or with the labels' claim after the frames were changed.

Each case's comment says what it pins. The reader's use inside ``audit verify`` (rendered
clips, encoded video, tampered rows) is tested in test_verify_edges.py and
test_pixel_tamper.py."""

from __future__ import annotations

import numpy as np
import pytest

from tempogen.builders.audit.pixels import (
    COLOR_TOL,
    _fill,
    _patch,
    best_turn,
    color_mask,
    pixel_labels,
    track_color,
)
from tempogen.generators.render2d import Compositor
from tempogen.labels import Labels, Query, Track

W, H, N = 160, 120, 12
FRAME = np.arange(N)
RED, GREEN, YELLOW, GREY = (230, 40, 40), (40, 200, 40), (240, 220, 40), (90, 90, 200)


def _draw(tracks: list[Track], query: Query, meta: dict | None = None) -> tuple[Labels, np.ndarray]:
    """Labels of ``tracks`` and every frame the 2D compositor draws from them (black ground)."""
    labels = Labels(W, H, 8.0, tuple(tracks), query, dict(meta or {}))
    comp = Compositor(labels, np.zeros((H, W, 3), np.uint8))
    return labels, np.stack([comp.frame(i).copy() for i in range(N)])


def _arrow(**states) -> Track:
    """A red arrow moving right 4 px a frame and turning 10 degrees clockwise a frame."""
    kw = {"x": 40.0 + 4 * FRAME, "y": 60.0, "angle": 10.0 * FRAME, "shape": "arrow", "size": 14}
    return Track.build("subject", N, color=RED, **{**kw, **states})


def _disc(name: str = "subject", **states) -> Track:
    kw = {"x": 80.0, "y": 60.0, "shape": "circle", "size": 16, "color": GREEN}
    return Track.build(name, N, **{**kw, **states})


SPIN = Query("rotation", ("subject",), "spin")
MOVE = Query("direction", ("subject",))


# ---- colour masks --------------------------------------------------------------------------


def test_a_colour_mask_takes_pixels_within_48_levels_of_the_colour() -> None:
    """The tolerance is a Euclidean RGB distance, inclusive: 48 levels off in one channel is
    the object, sqrt(48**2 + 8**2) ~ 48.7 is not; a given ``tol`` replaces it."""
    assert COLOR_TOL == 48.0
    frame = np.array(
        [[[100, 100, 100], [148, 100, 100], [148, 108, 100], [100, 52, 100], [0, 0, 0]]], np.uint8
    )
    assert color_mask(frame, (100, 100, 100)).tolist() == [[True, True, False, True, False]]
    assert color_mask(frame, (100, 100, 100), tol=10).tolist() == [
        [True, False, False, False, False]
    ]
    # far channels do not wrap around (255 vs 0 is far, not near)
    assert not color_mask(np.array([[[255, 255, 255]]], np.uint8), (0, 0, 0)).any()


# ---- gaps, patches, turns ------------------------------------------------------------------


def test_fill_carries_the_last_seen_value_over_frames_an_object_was_not_found() -> None:
    nan = np.nan
    assert _fill(np.array([nan, nan, 3.0, nan, 5.0, nan, nan])).tolist() == [3, 3, 3, 3, 5, 5, 5]
    assert _fill(np.array([1.0, 2.0])).tolist() == [1.0, 2.0]
    assert _fill(np.array([nan, nan])).tolist() == [0.0, 0.0]  # never seen: no place, not NaN
    v = np.array([nan, 4.0])
    _fill(v)
    assert np.isnan(v[0])  # the caller's array is left alone


def test_a_patch_is_centred_on_the_given_point() -> None:
    """A 4x4 block at x 20..23, y 30..33 (centroid 21.5, 31.5): the patch of half-size 6 is
    13x13 with the block's mass centred, all of it inside."""
    mask = np.zeros((50, 60), bool)
    mask[30:34, 20:24] = True
    patch = _patch(mask, 21.5, 31.5, 6)
    assert patch.shape == (13, 13) and patch.dtype == np.float32
    yy, xx = np.mgrid[0:13, 0:13]
    assert patch.sum() == pytest.approx(16.0, abs=1e-3)
    assert (patch * xx).sum() / patch.sum() == pytest.approx(6.0, abs=1e-3)
    assert (patch * yy).sum() / patch.sum() == pytest.approx(6.0, abs=1e-3)


def _arrow_patch(angle: float) -> np.ndarray:
    _, frames = _draw([_arrow(x=80.0, angle=angle)], SPIN)
    mask = color_mask(frames[0], RED)
    yy, xx = np.nonzero(mask)
    return _patch(mask, xx.mean(), yy.mean(), 23)


@pytest.mark.parametrize("turn", [22.5, -37.5, 0.0, 57.0, -60.0])
def test_best_turn_finds_a_clockwise_turn_as_positive_to_half_a_degree(turn: float) -> None:
    """Clockwise on screen is positive; the coarse 4-degree search is refined to 0.5 degrees;
    both ends of the +-60 degree search are reachable."""
    got = best_turn(_arrow_patch(30.0), _arrow_patch(30.0 + turn))
    assert got == pytest.approx(turn, abs=1.0)


def test_best_turn_searches_only_within_max_deg() -> None:
    """A 50-degree turn searched within +-20 is read as at most 20 (and its 4-degree
    refinement), never as 50: the caller's bound is what a viewer can tell apart."""
    got = best_turn(_arrow_patch(0.0), _arrow_patch(50.0), max_deg=20.0)
    assert 15.0 <= got <= 24.0


def test_best_turn_of_an_empty_patch_is_no_turn() -> None:
    full = _arrow_patch(0.0)
    empty = np.zeros_like(full)
    assert best_turn(empty, full) == 0.0
    assert best_turn(full, empty) == 0.0


# ---- tracking one colour -------------------------------------------------------------------


def test_track_color_measures_the_centroid_and_area_in_every_frame() -> None:
    labels, frames = _draw([_disc(x=30.0 + 5 * FRAME, y=50.0 + 2 * FRAME)], MOVE)
    pt = track_color(frames, GREEN)
    assert np.abs(pt.x - labels.subject.x).max() < 0.2
    assert np.abs(pt.y - labels.subject.y).max() < 0.2
    assert (pt.area > 600).all() and (pt.area < np.pi * 16**2).all()


def test_track_color_measures_no_turn_unless_asked() -> None:
    _, frames = _draw([_arrow()], SPIN)
    pt = track_color(frames, RED)
    assert not pt.turn.any() and not pt.angle.any()


def test_track_color_uses_the_tolerance_it_is_given() -> None:
    """A disc drawn 30 levels off the colour asked for: found within the default 48, not
    within 10."""
    _, frames = _draw([_disc(color=(70, 200, 40))], MOVE)
    assert (track_color(frames, GREEN).area > 600).all()
    assert not track_color(frames, GREEN, tol=10.0).area.any()


def test_track_color_carries_the_last_place_over_frames_the_colour_is_missing() -> None:
    """Hidden in frames 0 and 5: no place before it was first seen (NaN), the last one after;
    its area is 0 there."""
    visible = np.ones(N, bool)
    visible[[0, 5]] = False
    _, frames = _draw([_disc(x=30.0 + 5 * FRAME, visible=visible)], MOVE)
    pt = track_color(frames, GREEN)
    assert np.isnan(pt.x[0]) and np.isnan(pt.y[0]) and pt.area[0] == 0
    assert pt.x[5] == pt.x[4] and pt.y[5] == pt.y[4] and pt.area[5] == 0
    assert pt.x[6] == pytest.approx(60.0, abs=0.2)


def test_track_color_measures_turns_between_frames_where_it_is_seen() -> None:
    """10 degrees clockwise a frame: turn 0 in the first frame, then 10 (within 1.5); over a
    frame where the arrow is hidden the turn is 0 there and the next frame's turn spans the
    gap (20), so the summed angle is right again after it."""
    visible = np.ones(N, bool)
    visible[6] = False
    labels, frames = _draw([_arrow(visible=visible)], SPIN)
    pt = track_color(frames, RED, rotation=True, max_turn=60.0, patch_half=23)
    assert pt.turn[0] == 0.0 and pt.turn[6] == 0.0
    assert pt.turn[7] == pytest.approx(20.0, abs=1.5)
    others = [k for k in range(1, N) if k not in (6, 7)]
    assert np.abs(pt.turn[others] - 10.0).max() <= 1.5
    seen = FRAME != 6  # where hidden, the angle stays where it was last seen
    assert np.abs(pt.angle[seen] - 10.0 * FRAME[seen]).max() <= 1.5
    assert pt.angle[6] == pt.angle[5]
    assert np.array_equal(pt.angle, np.cumsum(pt.turn))


def test_track_color_bounds_each_turn_by_max_turn() -> None:
    _, frames = _draw([_arrow(angle=30.0 * FRAME)], SPIN)
    free = track_color(frames, RED, rotation=True, max_turn=60.0, patch_half=23)
    bound = track_color(frames, RED, rotation=True, max_turn=12.0, patch_half=23)
    assert np.abs(free.turn[1:] - 30.0).max() <= 1.5
    assert bound.turn[1:].max() <= 16.0


# ---- labels from pixels --------------------------------------------------------------------


def _scene(**arrow) -> tuple[Labels, np.ndarray]:
    """A turning arrow (the subject), a square distractor turning 15 degrees a frame, a lamp
    lit every third frame, and an invisible floor anchor, with meta to keep."""
    tracks = [
        _arrow(**arrow),
        Track.build(
            "box",
            N,
            x=120.0,
            y=90.0 - 2 * FRAME,
            angle=15.0 * FRAME,
            shape="square",
            size=12,
            color=GREY,
            role="distractor",
        ),
        Track.build(
            "lamp",
            N,
            x=120.0,
            y=25.0,
            shape="circle",
            size=8,
            color=YELLOW,
            role="cue",
            lit=FRAME % 3 == 0,
        ),
        Track.build(
            "floor",
            N,
            x=80.0,
            y=200.0,
            angle=90.0,
            shape="anchor",
            size=1,
            role="anchor",
            visible=False,
        ),
    ]
    return _draw(tracks, SPIN, {"seed": 7})


IDX = np.array([0, 3, 4, 7, 9, 11])


def test_pixel_labels_reads_places_from_the_frames_at_the_given_indices() -> None:
    """Positions at the sampled frames are the frames' (not the labels'); frames in between
    hold the first sample's value (observe the result at the same indices)."""
    labels, frames = _scene()
    got = pixel_labels(frames[IDX], labels, IDX)
    arrow, box = got.track("subject"), got.track("box")
    assert got.num_frames == N
    assert np.abs(arrow.x[IDX] - labels.subject.x[IDX]).max() < 0.5
    assert np.abs(box.y[IDX] - labels.track("box").y[IDX]).max() < 0.5
    rest = np.setdiff1d(FRAME, IDX)
    assert (arrow.x[rest] == arrow.x[0]).all() and (box.y[rest] == box.y[0]).all()
    assert got.meta == {"seed": 7, "measured": True}
    assert labels.meta == {"seed": 7}


def test_pixel_labels_reads_the_pixels_not_the_labels() -> None:
    """Frames drawn from other states (the arrow moving left) under the original labels: the
    result follows the frames; the labels' own positions are nowhere in it."""
    labels, _ = _scene()
    _, moved = _scene(x=100.0 - 4 * FRAME)
    got = pixel_labels(moved, labels)
    assert np.abs(got.subject.x - (100.0 - 4 * FRAME)).max() < 0.5
    assert got.subject.x[-1] < got.subject.x[0]


def test_pixel_labels_measures_only_the_subject_turn_and_only_when_asked() -> None:
    labels, frames = _scene()
    spun = pixel_labels(frames[IDX], labels, IDX, rotation=True)
    truth = labels.subject.angle[IDX] - labels.subject.angle[IDX[0]]
    assert np.abs(spun.subject.angle[IDX] - truth).max() <= 2.0
    assert not spun.track("box").angle.any()  # a distractor's turn is not measured
    still = pixel_labels(frames[IDX], labels, IDX)
    assert not still.subject.angle.any()


def test_pixel_labels_searches_a_turn_within_half_the_shape_period() -> None:
    """A square looks the same every 90 degrees: a square turning 43 degrees clockwise a
    frame, just under half its period, is read as clockwise (43), never as its alias, 47
    counter-clockwise; an arrow (no symmetry) turning -100 a frame is read as -100."""
    sq = Track.build(
        "subject", N, x=80.0, y=60.0, angle=43.0 * FRAME, shape="square", size=16, color=GREEN
    )
    labels, frames = _draw([sq], SPIN)
    got = pixel_labels(frames, labels, rotation=True).subject.angle
    assert np.abs(np.diff(got) - 43.0).max() <= 1.5
    labels, frames = _draw([_arrow(angle=-100.0 * FRAME)], SPIN)
    got = pixel_labels(frames, labels, rotation=True).subject.angle
    assert np.abs(np.diff(got) + 100.0).max() <= 1.5


def test_pixel_labels_lamps_are_lit_where_their_full_colour_shows() -> None:
    """A cue is lit in a frame where its full colour shows and visible in every frame (an
    unlit lamp is still there); other objects are never lit."""
    labels, frames = _scene()
    got = pixel_labels(frames[IDX], labels, IDX)
    lamp = got.track("lamp")
    assert lamp.lit[IDX].tolist() == (IDX % 3 == 0).tolist()
    assert lamp.visible.all() and lamp.visible.dtype == bool and lamp.lit.dtype == bool
    assert not got.subject.lit.any() and not got.track("box").lit.any()
    assert got.subject.visible[IDX].all()


def test_pixel_labels_keeps_anchors_as_they_are() -> None:
    """An invisible floor is not in the pixels: its place comes from the labels."""
    labels, frames = _scene()
    floor = pixel_labels(frames[IDX], labels, IDX).track("floor")
    assert floor == labels.track("floor")


def test_an_anchor_listed_first_does_not_hide_the_objects_after_it() -> None:
    labels, frames = _scene()
    first = labels.with_tracks((labels.track("floor"), *labels.tracks[:-1]))
    got = pixel_labels(frames[IDX], first, IDX)
    assert [t.name for t in got.tracks] == ["floor", "subject", "box", "lamp"]
    assert np.abs(got.subject.x[IDX] - labels.subject.x[IDX]).max() < 0.5
    assert got.track("lamp").lit[IDX].tolist() == (IDX % 3 == 0).tolist()


@pytest.mark.parametrize(("inside", "seen"), [(2.0, False), (6.0, True), (16.0, True)])
def test_an_object_mostly_off_the_frame_is_not_seen(inside: float, seen: bool) -> None:
    """A disc of radius 16 reaching ``inside`` px into the frame: a 2 px sliver (27 pixels,
    under a quarter of a disc of half its radius) is not seen, 6 px (115 pixels) is."""
    labels, frames = _draw([_disc(x=inside - 16.0)], MOVE)
    got = pixel_labels(frames, labels)
    assert got.subject.visible.tolist() == [seen] * N


def test_a_zoomed_out_object_is_still_seen() -> None:
    """Drawn at scale 0.2 (radius 3.2 px, about 34 pixels): seen, since what counts is a
    quarter of the drawn size's half-radius disc, not the nominal size's."""
    labels, frames = _draw([_disc(scale=0.2)], MOVE)
    assert pixel_labels(frames, labels).subject.visible.all()


def test_an_object_shrunk_to_nothing_is_not_seen() -> None:
    """Scale 0 draws no pixel: nothing found is nothing seen, however small the threshold."""
    labels, frames = _draw([_disc(scale=0.0)], MOVE)
    assert not frames.any()
    assert not pixel_labels(frames, labels).subject.visible.any()


def test_a_hidden_object_is_not_seen_and_keeps_its_last_place() -> None:
    visible = np.ones(N, bool)
    visible[IDX[2]] = False
    labels, frames = _scene(visible=visible)
    got = pixel_labels(frames[IDX], labels, IDX).subject
    assert got.visible[IDX].tolist() == [True, True, False, True, True, True]
    assert got.x[IDX[2]] == got.x[IDX[1]]
