"""The 3D pixel reader (``builders/audit/pixels3d.py``) reads states from pixels, never from
the labels it is handed: each case paints frames (flat and shaded discs on a grey floor, as a
render shows them) and checks the states or the answer read back; the broken inputs (the same
frames mirrored with the labels kept, a paint shown in no frame, a hidden glove on a turning
body) must come out as the other answer or a refusal naming what is missing. Frames are drawn
with OpenCV in milliseconds: no render is needed to pin what the reader does with pixels
(tests/builders/audit/test_verify3d.py and test_pixel_tamper.py run it on real renders)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tempogen.builders.audit.pixels3d import (
    GLOVE_JITTER,
    LIT_AREA,
    _running,
    centroid,
    glove_mask,
    glove_size,
    hue_mask,
    hue_of,
    paints,
    pixel_states_3d,
    saturation_of,
    with_measured,
)
from tempogen.facts import answer_of
from tempogen.labels import Labels, Query, Track
from tempogen.questions import answer_key

W, H, N = 200, 120, 12
IDX = np.arange(N)
FLOOR = (118, 118, 118)
ORANGE, BLUE, GREEN = (249, 115, 22), (37, 99, 235), (45, 205, 70)
RED_GLOVE, GREEN_GLOVE = (232, 32, 48), (45, 205, 70)


def _hsv_rgb(h: int, s: int, v: int) -> tuple[int, int, int]:
    """The RGB colour OpenCV reads back as exactly (h, s, v)."""
    rgb = cv2.cvtColor(np.uint8([[[h, s, v]]]), cv2.COLOR_HSV2RGB)[0, 0]
    back = cv2.cvtColor(np.uint8([[rgb]]), cv2.COLOR_RGB2HSV)[0, 0]
    assert tuple(int(v) for v in back) == (h, s, v)  # the case really sits on its boundary
    return tuple(int(v) for v in rgb)


def _frame() -> np.ndarray:
    f = np.empty((H, W, 3), np.uint8)
    f[:] = FLOOR
    return f


def _disc(f: np.ndarray, x: float, y: float, r: int, rgb, shade: bool = True) -> None:
    """A disc of paint ``rgb``, its lower half in shadow (darker, same hue) when ``shade``."""
    cv2.circle(f, (int(round(x)), int(round(y))), r, tuple(int(v) for v in rgb), -1)
    if shade:
        dark = tuple(int(0.6 * v) for v in rgb)
        cv2.ellipse(f, (int(round(x)), int(round(y))), (r, r), 0, 0, 180, dark, -1)


def _key(labels: Labels) -> str:
    return answer_key(labels.query.fact, answer_of(labels, IDX))


# --- hue_mask: the paint's pixels -----------------------------------------------------------------


def _swatch(rgb) -> np.ndarray:
    f = _frame()
    f[40:60, 40:60] = rgb
    return f


@pytest.mark.parametrize(
    "hsv,inside",
    [
        ((11, 255, 255), True),  # 11 hue units from red: within the tolerance
        ((12, 255, 255), False),  # 12: not
        ((178, 255, 255), True),  # 2 units the other way round the hue circle
        ((169, 255, 255), True),  # 11 units that way: still within
        ((168, 255, 255), False),  # 12: not
        ((0, 111, 255), True),  # saturated enough
        ((0, 110, 255), False),  # a pale pink is floor-like, not paint
        ((0, 255, 51), True),  # dark but not black
        ((0, 255, 50), False),  # too dark to have a hue
    ],
)
def test_a_paint_is_its_hue_saturated_and_lit(hsv, inside) -> None:
    m = hue_mask(_swatch(_hsv_rgb(*hsv)), (255, 0, 0), [])
    assert bool(m[50, 50]) is inside and int(m.sum()) == (400 if inside else 0)


def test_a_pixel_goes_to_the_nearest_saturated_paint() -> None:
    """Hue 8 is within the tolerance of red (0) but nearer an orange paint (hue 11): it is
    the orange's; a pale paint of hue 9 has no hue to claim it with."""
    f = _swatch(_hsv_rgb(8, 255, 255))
    assert hue_mask(f, (255, 0, 0), []).sum() == 400
    orange = _hsv_rgb(11, 255, 255)
    assert hue_mask(f, (255, 0, 0), [orange]).sum() == 0
    assert hue_mask(f, orange, [(255, 0, 0)]).sum() == 400
    pale = _hsv_rgb(9, 110, 255)  # saturation 110: the most a grey-ish paint has
    assert saturation_of(pale) == 110 and hue_of(pale) == 9
    assert hue_mask(f, (255, 0, 0), [pale]).sum() == 400
    assert hue_mask(f, (255, 0, 0), [(200, 0, 0)]).sum() == 400  # the same hue: not a rival


def test_a_pixel_halfway_between_two_paints_is_neither_paints() -> None:
    """Hue 5 is 5 units from red (0) and from a paint of hue 10: no guess, it is left out."""
    f = _swatch(_hsv_rgb(5, 255, 255))
    other = _hsv_rgb(10, 255, 255)
    assert hue_mask(f, (255, 0, 0), [other]).sum() == 0
    assert hue_mask(f, other, [(255, 0, 0)]).sum() == 0


def test_two_objects_of_near_hues_are_each_measured_where_they_are() -> None:
    """A red ball and a red-orange one (hues 0 and 5, each within the tolerance of the
    other): each pixel goes to the nearer paint, so each ball is measured where it is."""
    red, ember = (255, 0, 0), _hsv_rgb(5, 255, 255)
    xa, xb = 40.0 + 6.0 * IDX, 160.0 - 6.0 * IDX
    a = Track.build("a", N, x=xa, y=40.0, color=red, size=8.0)
    b = Track.build("b", N, x=xb, y=80.0, color=ember, size=8.0)
    labels = Labels(W, H, 10.0, (a, b), Query("direction", ("a", "b")), {})
    frames = []
    for i in IDX:
        f = _frame()
        _disc(f, xa[i], 40.0, 8, red, shade=False)
        _disc(f, xb[i], 80.0, 8, ember, shade=False)
        frames.append(f)
    got = pixel_states_3d(frames, labels, IDX)
    assert np.abs(got.track("a").x - xa).max() < 1.0 and np.abs(got.track("b").x - xb).max() < 1.0


def test_blobs_a_fifth_the_largest_are_kept_smaller_ones_dropped() -> None:
    f = _frame()
    f[10:20, 10:30] = (255, 0, 0)  # 200 px
    f[50:54, 60:70] = (255, 0, 0)  # 40 px: a fifth, a painted band's other half
    f[80:83, 100:113] = (255, 0, 0)  # 39 px: a speck
    m = hue_mask(f, (255, 0, 0), [])
    assert int(m.sum()) == 240 and not m[81, 105]
    assert hue_mask(_frame(), (255, 0, 0), []).sum() == 0  # nothing painted


def test_a_centroid_needs_six_pixels_and_is_in_label_coordinates() -> None:
    m = np.zeros((10, 10), bool)
    m[2, 3:8] = True  # 5 pixels: too few
    assert centroid(m) is None
    m[3, 5] = True
    x, y = centroid(m)
    assert (x, y) == pytest.approx((5.0 + 0.5, (5 * 2 + 3) / 6 + 0.5))


def test_the_scenes_paints_are_its_record_else_its_tracks_colours() -> None:
    a = Track.build("a", 2, x=0.0, y=0.0, color=BLUE)
    floor = Track.build("floor", 2, x=0.0, y=0.0, role="anchor", color=(9, 9, 9))
    q = Query("direction", ("a",))
    assert paints(Labels(W, H, 10.0, (a, floor), q, {})) == [BLUE]  # the anchor has no paint
    listed = {"paints": [[249, 115, 22], [37, 99, 235], [37, 99, 235]]}
    assert paints(Labels(W, H, 10.0, (a,), q, listed)) == [BLUE, ORANGE]


def test_measured_states_replace_the_sampled_frames_only() -> None:
    a = Track.build("a", 6, x=np.arange(6.0), y=5.0)
    b = Track.build("b", 6, x=7.0, y=7.0)
    labels = Labels(W, H, 10.0, (a, b), Query("direction", ("a",)), {"k": 1})
    out = with_measured(labels, np.array([1, 4]), {"a": {"x": np.array([10.0, 40.0])}})
    assert list(out.track("a").x) == [0.0, 10.0, 0.0, 0.0, 40.0, 0.0]
    assert list(out.track("a").y) == [5.0] * 6 and list(out.track("b").x) == [7.0] * 6
    assert out.meta == {"k": 1, "measured": True}
    first_unread = Labels(W, H, 10.0, (b, a), Query("direction", ("a",)), {})
    out = with_measured(first_unread, np.array([1, 4]), {"a": {"x": np.array([10.0, 40.0])}})
    assert list(out.track("a").x) == [0.0, 10.0, 0.0, 0.0, 40.0, 0.0]  # read though not first


# --- pixel_states_3d: positions ---------------------------------------------------------------------


def _two_balls(hidden: tuple[int, ...] = ()) -> tuple[Labels, list[np.ndarray]]:
    """An orange ball rolling right and a blue one rising, a grey floor anchor, and a green
    paint in the scene that is not drawn; the orange ball is hidden in ``hidden`` frames."""
    xa = 40.0 + 8.0 * IDX
    yb = 100.0 - 5.0 * IDX
    a = Track.build("a", N, x=xa, y=np.full(N, 40.0), color=ORANGE, size=10.0)
    b = Track.build("b", N, x=np.full(N, 170.0), y=yb, color=BLUE, size=9.0)
    floor = Track.build("floor", N, x=100.0, y=118.0, role="anchor", shape="line", color=FLOOR)
    meta = {"paints": [list(ORANGE), list(BLUE), list(GREEN)]}
    query = Query("direction", ("a", "floor", "b"))  # the anchor between the two read
    labels = Labels(W, H, 10.0, (a, b, floor), query, meta)
    frames = []
    for i in IDX:
        f = _frame()
        if i not in hidden:
            _disc(f, xa[i], 40.0, 10, ORANGE)
        _disc(f, 170.0, yb[i], 9, BLUE)
        frames.append(f)
    return labels, frames


def test_each_object_is_its_paints_centroid_and_the_anchor_is_left_alone() -> None:
    labels, frames = _two_balls()
    got = pixel_states_3d(frames, labels, IDX)
    assert np.abs(got.track("a").x - labels.track("a").x).max() < 1.0
    assert np.abs(got.track("a").y - 40.0).max() < 3.0  # the shadow's half shifts it a little
    assert np.abs(got.track("b").y - labels.track("b").y).max() < 3.0
    assert got.track("floor") == labels.track("floor") and got.meta["measured"]
    assert _key(got) == _key(labels) == "right"


def test_mirrored_frames_with_their_labels_kept_read_the_other_way() -> None:
    labels, frames = _two_balls()
    got = pixel_states_3d([np.ascontiguousarray(f[:, ::-1]) for f in frames], labels, IDX)
    assert _key(got) == "left" != _key(labels)
    assert np.abs(got.track("a").x - (W - labels.track("a").x)).max() < 1.5
    assert np.abs(got.track("b").x - (W - 170.0)).max() < 1.5  # each object, past the anchor


def test_a_clip_longer_than_its_samples_is_measured_at_the_samples() -> None:
    """Labels of 24 frames, 12 sampled (every other): the measurements land on the sampled
    frames and the answer is read there."""
    labels, frames = _two_balls()
    twice = tuple(
        Track.build(t.name, 2 * N, x=np.repeat(t.x, 2), y=np.repeat(t.y, 2), role=t.role,
                    shape=t.shape, color=t.color, size=t.size)
        for t in labels.tracks
    )  # fmt: skip
    long = Labels(W, H, 10.0, twice, labels.query, labels.meta)
    idx = np.arange(0, 2 * N, 2)
    got = pixel_states_3d(frames, long, idx)
    assert np.abs(got.track("a").x[idx] - labels.track("a").x).max() < 1.0
    assert answer_key("direction", answer_of(got, idx)) == "right"


def test_a_hidden_frame_takes_its_neighbours_and_a_paint_never_shown_is_refused() -> None:
    labels, frames = _two_balls(hidden=(0, 5, 6))
    got = pixel_states_3d(frames, labels, IDX).track("a")
    assert got.x[5] == pytest.approx(got.x[4] + (got.x[7] - got.x[4]) / 3)
    assert got.x[0] == pytest.approx(got.x[1])  # before the first sight: held
    labels, frames = _two_balls(hidden=tuple(IDX))
    with pytest.raises(ValueError, match="^pixels: a is not visible in any sampled frame$"):
        pixel_states_3d(frames, labels, IDX)


# --- lamps ---------------------------------------------------------------------------------------------


def _lamp_frames(cover: list[int], kind: str) -> tuple[Labels, list[np.ndarray]]:
    """An orange lamp of radius 10 whose paint shows over ``cover[i]`` pixels in frame i (a
    lit lamp shows more than a quarter of its disc, pi 10^2 / 4 = 78.5 pixels)."""
    n = 2 * len(cover)  # the clip has twice the frames sampled
    lamp = Track.build("lamp", n, x=60.0, y=60.0, color=ORANGE, size=10.0, role="cue")
    near = _hsv_rgb(16, 255, 255)  # a second lamp 4 hue units from the first, always lit
    other = Track.build("other", n, x=150.0, y=60.0, color=near, size=10.0, role="cue")
    meta = {"paints": [list(ORANGE), list(near)]}
    labels = Labels(W, H, 10.0, (lamp, other), Query("frequency", ("lamp",), kind), meta)
    frames = []
    for c in cover:
        f = _frame()
        rows, rest = divmod(c, 10)
        f[55 : 55 + rows, 55:65] = ORANGE
        f[55 + rows, 55 : 55 + rest] = ORANGE
        cv2.circle(f, (150, 60), 10, near, -1)
        frames.append(f)
    return labels, frames


@pytest.mark.parametrize("kind", ["lit", "flash"])
def test_a_lamp_is_lit_where_its_paint_covers_a_quarter_of_its_disc(kind: str) -> None:
    assert LIT_AREA == 0.25
    cover = [0, 79, 78, 100, 20]
    labels, frames = _lamp_frames(cover, kind)
    lit = pixel_states_3d(frames, labels, np.arange(0, 10, 2)).track("lamp").lit
    assert list(lit[::2]) == [False, True, False, True, False]  # the other lamp's light is its own


# --- spins: a marked part going round the centre ---------------------------------------------------------


def _spinner(sense: int, kind: str = "spin", mark: bool = True) -> tuple[Labels, list[np.ndarray]]:
    """An orange block drifting right with a blue mark going round it ``sense`` (+1: angle
    growing, clockwise on screen)."""
    angle = sense * 25.0 * IDX
    cx = 80.0 + 2.0 * IDX
    mx = cx + 18 * np.cos(np.radians(angle))
    my = 60.0 + 18 * np.sin(np.radians(angle))
    body = Track.build(
        "subject", N, x=cx, y=60.0, shape="square", color=ORANGE, size=24.0, angle=angle
    )
    tracks = (body,)
    if mark:
        tracks += (Track.build("mark", N, x=mx, y=my, color=BLUE, size=5.0, role="prop"),)
    near = _hsv_rgb(17, 255, 255)  # a still decoy ball 5 hue units from the block's paint
    meta = {"paints": [list(ORANGE), list(BLUE), list(near)]}
    labels = Labels(W, H, 10.0, tracks, Query("rotation", ("subject",), kind), meta)
    frames = []
    for i in IDX:
        f = _frame()
        _disc(f, cx[i], 60.0, 24, ORANGE, shade=False)
        _disc(f, mx[i], my[i], 6, BLUE, shade=False)
        _disc(f, 175.0, 20.0, 12, near, shade=False)  # big enough to be kept as a part
        frames.append(f)
    return labels, frames


@pytest.mark.parametrize("kind", ["spin", "angle"])
def test_a_spin_is_read_from_the_mark_going_round_the_centre(kind: str) -> None:
    for sense, truth in ((1, "cw"), (-1, "ccw")):
        labels, frames = _spinner(sense, kind)
        got = pixel_states_3d(frames, labels, IDX).track("subject")
        step = np.diff(got.angle)
        assert np.allclose(step, 25.0 * sense, atol=3.0), (kind, step)
        assert np.abs(got.x - labels.track("subject").x).max() < 1.5  # the whole block's centre
        assert np.abs(got.y - 60.0).max() < 1.5
        if kind == "spin":
            assert _key(pixel_states_3d(frames, labels, IDX)) == truth
            mirrored = [np.ascontiguousarray(f[:, ::-1]) for f in frames]
            assert _key(pixel_states_3d(mirrored, labels, IDX)) != truth


def test_a_spin_whose_mark_is_never_seen_is_refused() -> None:
    labels, frames = _spinner(1)
    for f in frames:
        f[np.all(f == BLUE, axis=-1)] = FLOOR  # the mark painted out
    with pytest.raises(ValueError, match="^pixels: the mark is not visible in any sampled frame$"):
        pixel_states_3d(frames, labels, IDX)


def test_a_spin_without_a_mark_track_is_read_as_positions() -> None:
    labels, frames = _spinner(1, mark=False)
    got = pixel_states_3d(frames, labels, IDX).track("subject")
    assert list(got.angle) == list(labels.track("subject").angle)  # no turn read, none invented
    assert np.abs(got.x - labels.track("subject").x).max() < 2.5  # the mark hides some paint


# --- simulated people: gloves -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hsv,inside",
    [
        ((178 - 10, 255, 255), True),  # 20 degrees of hue from the red glove's 356
        ((178 - 11, 255, 255), False),  # 22 degrees
        ((8, 255, 255), True),  # 10 units the other way, through 0
        ((178, 120, 255), True),  # saturated enough
        ((178, 119, 255), False),
        ((178, 255, 50), True),  # lit enough
        ((178, 255, 49), False),
    ],
)
def test_a_glove_is_its_hue_saturated_and_lit(hsv, inside) -> None:
    assert hue_of(RED_GLOVE) == 178
    m = glove_mask(_swatch(_hsv_rgb(*hsv)), RED_GLOVE)
    assert bool(m[50, 50]) is inside and int(m.sum()) == (400 if inside else 0)


def _person(query: Query, tracks: tuple[Track, ...], meta: dict | None = None) -> Labels:
    look = {"hands": {"left": ["red", list(RED_GLOVE)], "right": ["green", list(GREEN_GLOVE)]}}
    return Labels(W, H, 10.0, tracks, query, {"look": look, **(meta or {})})


def _gloves(left: list, right: list, r: int = 5) -> list[np.ndarray]:
    """Frames with the red (left) and green (right) gloves at the given points (None: hidden)."""
    frames = []
    for pl, pr in zip(left, right):
        f = _frame()
        for p, rgb in ((pl, RED_GLOVE), (pr, GREEN_GLOVE)):
            if p is not None:
                _disc(f, p[0], p[1], r if len(p) == 2 else p[2], rgb, shade=False)
        frames.append(f)
    return frames


def test_a_hand_is_its_gloves_centroid_and_a_mirror_reads_the_other_way() -> None:
    xs = 60.0 + 6.0 * IDX
    hand = Track.build("hand", N, x=xs, y=50.0, shape="hand", color=RED_GLOVE, size=5.0)
    labels = _person(Query("direction", ("hand",)), (hand,))
    frames = _gloves([(x, 50.0) for x in xs], [(150.0, 80.0)] * N)
    got = pixel_states_3d(frames, labels, IDX)
    assert np.abs(got.track("hand").x - xs).max() < 1.0 and _key(got) == "right"
    mirrored = [np.ascontiguousarray(f[:, ::-1]) for f in frames]
    assert _key(pixel_states_3d(mirrored, labels, IDX)) == "left"


def test_a_hand_in_a_clip_longer_than_its_samples_is_measured_at_the_samples() -> None:
    """Labels of 24 frames, the gloves sampled at every other one: the hand's measured
    positions land on the sampled frames."""
    xs = 60.0 + 6.0 * IDX
    hand = Track.build(
        "hand", 2 * N, x=np.repeat(xs, 2), y=50.0, shape="hand", color=RED_GLOVE, size=5.0
    )
    labels = _person(Query("direction", ("hand",)), (hand,))
    frames = _gloves([(x, 50.0) for x in xs], [(150.0, 80.0)] * N)
    idx = np.arange(0, 2 * N, 2)
    got = pixel_states_3d(frames, labels, idx)
    assert np.abs(got.track("hand").x[idx] - xs).max() < 1.0
    assert answer_key("direction", answer_of(got, idx)) == "right"


def test_a_hand_at_rest_before_it_moves_reads_as_still_whatever_its_jitter() -> None:
    """``move`` (which hand starts first): a still glove's centroid wanders up to 3 px; until
    the first real move it reads as where it started, after it every sample is measured."""
    assert GLOVE_JITTER == 3.0
    dx = [0, 2, -3, 1, 9, 14, 12, 15, 20, 22, 8, 2]  # rest (within 3 px), a move, a return
    hand = Track.build("obj1", N, x=60.0, y=50.0, shape="hand", color=RED_GLOVE, size=5.0)
    other_hand = Track.build("obj2", N, x=150.0, y=50.0, shape="hand", color=GREEN_GLOVE)
    labels = _person(Query("order", ("obj1", "obj2"), "move"), (hand, other_hand))
    frames = _gloves([(60.0 + d, 50.0) for d in dx], [(150.0, 50.0 + 2 * i) for i in IDX])
    read = pixel_states_3d(frames, labels, IDX)
    x = read.track("obj1").x
    assert np.allclose(x[:4], x[0]) and x[0] == pytest.approx(60.5, abs=0.6)
    assert x[4] == pytest.approx(x[0] + 9, abs=0.6) and x[6] == pytest.approx(x[0] + 12, abs=0.6)
    assert x[-1] == pytest.approx(x[0] + 2, abs=0.6)  # back near the start, after moving: read
    y2 = read.track("obj2").y  # the second hand is read too: it starts moving at once
    assert y2[-1] - y2[0] == pytest.approx(22.0, abs=0.6) and y2[2] - y2[0] == pytest.approx(
        4.0, abs=0.6
    )
    other = _person(Query("direction", ("obj1",)), (hand,))
    x = pixel_states_3d(frames, other, IDX).track("obj1").x  # another question: as measured
    assert x[2] == pytest.approx(x[0] - 3, abs=0.6)
    hidden = _gloves([None] * N, [(150.0, 50.0)] * N)
    with pytest.raises(ValueError, match="^pixels: the hand 'obj1' is not visible in any sampled"):
        pixel_states_3d(hidden, labels, IDX)


def test_a_held_prop_lights_up_where_its_paint_covers_a_quarter_of_its_disc() -> None:
    ball = Track.build("obj1", 4, x=60.0, y=60.0, shape="ball", color=ORANGE, size=10.0)
    other = Track.build("obj2", 4, x=150.0, y=60.0, shape="ball", color=BLUE, size=10.0)
    props = {"props": [list(ORANGE), list(BLUE)]}
    labels = _person(Query("order", ("obj1", "obj2"), "lit"), (ball, other), props)
    frames = []
    for c, c2 in ((100, 0), (78, 0), (79, 100), (0, 100)):
        f = _frame()
        for x0, rgb, cover in ((55, ORANGE, c), (145, BLUE, c2)):
            rows, rest = divmod(cover, 10)
            f[55 : 55 + rows, x0 : x0 + 10] = rgb
            f[55 + rows, x0 : x0 + rest] = rgb
        frames.append(f)
    read = pixel_states_3d(frames, labels, np.arange(4))
    assert list(read.track("obj1").lit) == [True, False, True, False]
    assert list(read.track("obj2").lit) == [False, False, True, True]  # each prop is read


def test_a_held_prop_moving_is_its_paints_centroid() -> None:
    xs = 150.0 - 6.0 * IDX
    ball = Track.build("obj1", N, x=xs, y=60.0, shape="ball", color=ORANGE, size=6.0)
    labels = _person(Query("direction", ("obj1",)), (ball,), {"props": [list(ORANGE)]})
    frames = []
    for x in xs:
        f = _frame()
        _disc(f, x, 60.0, 6, ORANGE, shade=False)
        frames.append(f)
    got = pixel_states_3d(frames, labels, IDX)
    assert np.abs(got.track("obj1").x - xs).max() < 1.0 and _key(got) == "left"
    assert list(got.track("obj1").lit) == list(ball.lit)  # not a light question: no light read
    mirrored = [np.ascontiguousarray(f[:, ::-1]) for f in frames]
    assert _key(pixel_states_3d(mirrored, labels, IDX)) == "right"  # the pixels, not the labels


def test_a_person_coming_closer_is_read_from_the_gloves_size() -> None:
    """The gloves' radius doubles from 4 to 8 px: the person's scale doubles (as the square
    root of the gloves' area), from the labelled first scale of 1.5."""
    radii = [4, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8]
    person = Track.build("person", N, x=100.0, y=60.0, shape="human", scale=1.5 + 0.1 * IDX)
    labels = _person(Query("approach", ("person",)), (person,))
    frames = _gloves([(70, 60, r) for r in radii], [(130, 60, r) for r in radii])
    got = pixel_states_3d(frames, labels, IDX)
    scale = got.track("person").scale
    assert scale[0] == 1.5 and scale[-1] == pytest.approx(3.0, rel=0.1)  # from the first
    assert _key(got) == "towards"
    assert _key(pixel_states_3d(frames[::-1], labels, IDX)) == "away"  # reversed: recedes


def test_the_gloves_size_fills_unseen_frames_and_smooths_a_swinging_hand() -> None:
    hands = {"left": ["red", list(RED_GLOVE)], "right": ["green", list(GREEN_GLOVE)]}
    frames = _gloves([(70, 60, 6)] * 6, [(130, 60, 6)] * 6)
    frames[1] = _frame()  # both hidden: takes its neighbours' size
    frames[3] = _gloves([(70, 60, 12)], [(130, 60, 6)])[0]  # one swinging near the camera
    size = glove_size(frames, hands)
    assert np.allclose(size, size[0])  # the swing is a one-sample spike: the median drops it
    ramp = _gloves([(70, 60, r) for r in (4, 6, 8)], [(130, 60, r) for r in (4, 6, 8)])
    grow = glove_size(ramp, hands)
    assert grow[0] < grow[1] < grow[2]  # a steady approach is kept
    with pytest.raises(ValueError, match="^pixels: no glove is visible in any sampled frame$"):
        glove_size([_frame()] * 3, hands)
    spike = _gloves([(70, 60, 6), (70, 60, 12), (70, 60, 6)], [(130, 60, 6)] * 3)
    assert np.allclose(glove_size(spike, hands), glove_size(spike[:1], hands)[0])  # 3: smoothed
    two = glove_size(frames[:2], hands)  # too few to smooth: as measured
    assert two[0] == pytest.approx(np.sqrt(glove_mask(frames[0], RED_GLOVE).sum() * 2))


def test_a_glove_seen_by_five_pixels_is_not_seen() -> None:
    """Five glove-coloured pixels are a speck (the codec, a rim), not a glove: that frame takes
    its neighbours' size; six pixels are a glove, measured."""
    hands = {"left": ["red", list(RED_GLOVE)], "right": ["green", list(GREEN_GLOVE)]}
    frames = [_frame() for _ in range(5)]
    for f in frames:
        f[10:20, 10:20] = RED_GLOVE  # 100 px
    frames[2] = _frame()
    frames[2][50, 50:55] = RED_GLOVE  # 5 px: not seen
    frames[4] = _frame()
    frames[4][50, 50:56] = RED_GLOVE  # 6 px: seen
    sizes = [glove_size([f], hands)[0] for f in (frames[0], frames[4])]
    assert sizes == [pytest.approx(10.0), pytest.approx(np.sqrt(6))]
    size = glove_size(frames[:4], hands)
    assert np.allclose(size, 10.0)  # the speck's frame took its neighbours' 100 px
    with pytest.raises(ValueError, match="no glove is visible"):
        glove_size([frames[2]], hands)


def test_a_running_window_holds_its_ends() -> None:
    v = np.array([1.0, 5.0, 2.0, 8.0, 3.0])
    assert list(_running(v, 3, np.median)) == [1.0, 2.0, 5.0, 3.0, 3.0]
    assert list(_running(v, 3, np.mean)) == pytest.approx([7 / 3, 8 / 3, 5.0, 13 / 3, 14 / 3])


def test_a_body_turn_is_the_turn_from_the_right_glove_to_the_left() -> None:
    """Gloves on a circle round the body, 20 degrees a frame: the measured angle turns by as
    much, through the wrap at 180 degrees; the mirror turns the other way; a glove hidden in
    one frame is refused (the turn cannot be read)."""
    ang = np.radians(100.0 + 20.0 * IDX)
    left = [(100 + 30 * np.cos(a), 60 + 30 * np.sin(a)) for a in ang]
    right = [(100 - 30 * np.cos(a), 60 - 30 * np.sin(a)) for a in ang]
    person = Track.build("person", N, x=100.0, y=60.0, shape="human", angle=20.0 * IDX)
    labels = _person(Query("rotation", ("person",), "spin"), (person,))
    frames = _gloves(left, right)
    got = pixel_states_3d(frames, labels, IDX)
    assert np.allclose(got.track("person").angle, 20.0 * IDX, atol=2.0)
    assert got.track("person").angle[0] == 0.0  # counted from the first sample
    assert _key(got) == _key(labels) == "cw"
    mirrored = [np.ascontiguousarray(f[:, ::-1]) for f in frames]
    assert _key(pixel_states_3d(mirrored, labels, IDX)) == "ccw"
    frames[5] = _gloves([None], [right[5]])[0]
    with pytest.raises(
        ValueError, match="^pixels: a glove is hidden, the body's turn cannot be read$"
    ):
        pixel_states_3d(frames, labels, IDX)


def test_the_rest_of_a_person_is_carried_by_the_gloves_midpoint() -> None:
    """A side step: the head (no paint of its own) starts at its labelled place and moves as
    the gloves' midpoint does, both ways; one glove hidden, the other carries it; both hidden,
    the neighbours' midpoint; never seen, refused. The whole person (shape ``human``) in a
    direction question is carried the same way, and mirrored it walks the other way."""
    xs = 60.0 + 5.0 * IDX
    ys = 70.0 + 2.0 * IDX
    head = Track.build("head", N, x=xs + 3.0, y=20.0 + 4.0 * IDX, shape="circle", size=6.0)
    floor = Track.build("floor", N, x=100.0, y=118.0, role="anchor", shape="line")
    frames = _gloves(
        [(x - 20, y) for x, y in zip(xs, ys)], [(x + 20, y + 4) for x, y in zip(xs, ys)]
    )
    frames[3] = _gloves([None], [(xs[3] + 20, ys[3] + 4)])[0]  # left hidden: the right's place
    frames[6] = _frame()  # both hidden: halfway between its neighbours
    with_floor = _person(Query("direction", ("floor", "head")), (floor, head))
    read = pixel_states_3d(frames, with_floor, IDX)
    assert read.track("floor") == floor  # the anchor (first in the query) is not carried
    got = read.track("head")
    assert got.x[0] == xs[0] + 3.0 and got.y[0] == 20.0
    seen = [0, 1, 2, 4, 5, 6, 7]
    assert np.allclose(got.x[seen] - xs[seen], 3.0, atol=0.6)
    assert np.allclose(got.y[seen] - ys[seen], 20.0 - 70.0, atol=0.6)
    assert got.x[3] == pytest.approx(xs[3] + 3.0 + 20.0, abs=0.6)  # the right glove alone
    with pytest.raises(ValueError, match="^pixels: the gloves is not visible in any sampled"):
        pixel_states_3d([_frame()] * N, with_floor, IDX)

    whole = _gloves([(x - 20, 70.0) for x in xs], [(x + 20, 74.0) for x in xs])
    labels = _person(Query("direction", ("head",)), (head,))
    assert _key(pixel_states_3d(whole, labels, IDX)) == "right"
    person = Track.build("person", N, x=xs, y=60.0, shape="human")
    walker = _person(Query("direction", ("person",)), (person,))
    assert _key(pixel_states_3d(whole, walker, IDX)) == "right"
    mirrored = [np.ascontiguousarray(f[:, ::-1]) for f in whole]
    assert _key(pixel_states_3d(mirrored, walker, IDX)) == "left"

    # two people: the head is the second's, whose gloves are blue and orange
    second = {"hands": {"left": ["blue", list(BLUE)], "right": ["orange", list(ORANGE)]}}
    first = {"hands": {"left": ["red", list(RED_GLOVE)], "right": ["green", list(GREEN_GLOVE)]}}
    meta = {"people": [first, second], "owners": {"head": 1}}
    flat = Track.build("head", N, x=xs + 3.0, y=20.0, shape="circle", size=6.0)
    labels2 = _person(Query("direction", ("head",)), (flat,), meta)
    frames2 = []
    for i, x in enumerate(xs):
        f = _gloves([(x - 20, 70.0)], [(x + 20, 74.0)])[0]  # the first person walks right
        _disc(f, 150.0 - 4 * i, 100.0, 5, BLUE, shade=False)  # the second walks left
        _disc(f, 190.0 - 4 * i, 100.0, 5, ORANGE, shade=False)
        frames2.append(f)
    assert _key(pixel_states_3d(frames2, labels2, IDX)) == "left"


# --- one real render: a spinning cube, mirrored with its labels kept ------------------------------


def test_a_rendered_spin_verifies_and_its_mirror_with_labels_kept_disagrees(tmp_path) -> None:
    """A small ``cube_spin`` render (shaded, lit, through the codec) is read right by the hue
    reader; the same video mirrored, its row untouched, reads the other sense."""
    from dataclasses import replace

    from tempogen.builders.audit.verify import verify_row
    from tempogen.config import config_from_dict
    from tempogen.generators.build import plan, render_spec
    from tempogen.video import VideoWriter, read_video

    cfg = config_from_dict(
        {"tasks": ["rotation"], "motions": ["cube_spin"], "samples_per_task": 1,
         "size": [320, 180], "fps": 8, "duration": [3, 3],
         "scenes3d": {"humans": 0.0, "objects": 1.0, "duration": [3, 3]},
         "variants": {"share": 0}, "vinoground": {"pairs": 0}, "retrieval": {"pairs": 0},
         "shortcuts": "off"},
        "cube.yaml",
    )  # fmt: skip
    row = render_spec(replace(plan(cfg)[0], answer_key="cw"), tmp_path)
    verdict = verify_row(row, tmp_path)
    assert verdict.ok and verdict.seen == "cw", verdict
    with VideoWriter(tmp_path / "videos" / "m.mp4", row["fps"], row["width"], row["height"]) as vw:
        for f in read_video(tmp_path / row["video"]):
            vw.write(np.ascontiguousarray(f[:, ::-1]))
    verdict = verify_row({**row, "video": "videos/m.mp4"}, tmp_path)
    assert not verdict.ok and verdict.seen == "ccw", verdict
