"""The noise reader (``builders/audit/noise.py``) reads what the motion signal shows, never the
labels: each case feeds it a clip (or a motion signal) and checks the states or the answer it
gives, and the broken cases (a mirrored noise clip with its labels kept, a silhouette too small
to be a person, a question a silhouette cannot show) must come out as a disagreement or a
refusal naming the frame or the question. Clips are small discs encoded as noise through a real
file (codec included) in about a second each; one rendered 2D spin covers the turn reader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tempogen.builders.audit.noise import (
    JITTER,
    MIN_BODY,
    MIN_CELLS,
    _dead_band,
    is_noise,
    noise_states,
    regions,
    silhouette_states,
)
from tempogen.builders.audit.verify import verify_row
from tempogen.facts import answer_of
from tempogen.generators.build import Spec, render_spec
from tempogen.generators.noise import NoiseClip, encoding_meta
from tempogen.labels import Labels, Query, Track
from tempogen.observe import uniform_indices
from tempogen.questions import answer_key
from tempogen.video import VideoWriter, read_video

W, H, N, FPS = 160, 96, 24, 8.0
CELL = 2
IDX = uniform_indices(N, 16)


# --- is_noise: which rows the noise reader takes -------------------------------------------


def test_is_noise_reads_the_encoding_style_only() -> None:
    assert is_noise({"meta": {"encoding": {"style": "temporal_noise", "cell": 2}}})
    assert not is_noise({"meta": {"encoding": {"style": ""}}})  # a plain clip
    assert not is_noise({"meta": {"encoding": "temporal_noise"}})  # not the recorded shape
    assert not is_noise({"meta": None}) and not is_noise({})  # no meta at all


# --- regions: the still regions, named the way the question names them ----------------------


def _blob(mask: np.ndarray, col: int, row: int, cells: int) -> None:
    """Mark ``cells`` cells in one column-major run starting at (row, col), 4 rows tall."""
    for k in range(cells):
        mask[row + k % 4, col + k // 4] = True


def _still() -> np.ndarray:
    """Regions of 2 (chance: dropped), 3, 12 and 20 cells, left to right 20, 3, 12 (the 2 at
    the far right)."""
    m = np.zeros((12, 60), bool)
    _blob(m, 2, 1, 20)  # leftmost, largest
    _blob(m, 20, 6, 3)
    _blob(m, 35, 2, 12)
    _blob(m, 55, 1, 2)
    return m


def _areas(found: list[np.ndarray]) -> list[int]:
    return [int(r.sum()) for r in found]


def test_regions_by_size_are_the_k_largest_smallest_first() -> None:
    still = _still()
    assert _areas(regions(still, 3, "size")) == [3, 12, 20]
    assert _areas(regions(still, 2, "size")) == [12, 20]  # the k largest, then smallest first
    assert _areas(regions(still, 9, "size")) == [3, 12, 20]  # the 2-cell one is chance


def test_regions_by_place_are_leftmost_first() -> None:
    assert _areas(regions(_still(), 3, "x")) == [20, 3, 12]
    # by place a region high in the frame is not first: only x counts
    m = np.zeros((20, 30), bool)
    _blob(m, 2, 14, 8)  # left, low
    _blob(m, 20, 0, 8)  # right, high
    left, right = regions(m, 2, "x")
    assert left[14:18, 2:4].all() and right[0:4, 20:22].all()


def test_one_object_takes_every_region_a_fifth_the_largest() -> None:
    m = np.zeros((12, 60), bool)
    _blob(m, 2, 1, 20)
    _blob(m, 20, 6, 4)  # exactly a fifth of 20: a thin part split off, kept
    _blob(m, 35, 2, 3)  # less than a fifth: left out
    (one,) = regions(m, 1, "one")
    assert int(one.sum()) == 24 and not one[2:5, 35].any()
    assert regions(np.zeros((5, 5), bool), 1, "one") == []  # nothing still: no region
    tiny = np.zeros((5, 5), bool)
    tiny[1, 1] = tiny[2, 2] = True  # one diagonal region of 2 cells: chance agreement
    assert MIN_CELLS == 3 and regions(tiny, 1, "size") == []
    tiny[3, 3] = True  # three cells touching corner to corner are one region
    assert _areas(regions(tiny, 1, "size")) == [3]


# --- noise_states on clips encoded as noise --------------------------------------------------


def _labels(
    discs: dict[str, tuple], tell: dict, kind: str = "", cell: int = CELL, size=(W, H)
) -> Labels:
    """Discs ``name -> (x per frame, y per frame, radius, colour)`` and a direction question on
    the first, encoded as noise with ``tell`` (how its regions are named)."""
    tracks = tuple(
        Track.build(name, len(x), x=x, y=y, shape="circle", color=c, size=r)
        for name, (x, y, r, c) in discs.items()
    )
    labels = Labels(*size, FPS, tracks, Query("direction", tuple(discs), kind), {})
    return Labels(*size, FPS, tracks, labels.query, {"encoding": encoding_meta(labels, cell, tell)})


def _noise_video(labels: Labels, path: Path, mirror: bool = False) -> Path:
    """``labels``' discs encoded as temporal noise and written through the codec; with
    ``mirror`` the frames are written flipped left to right (the labels are not)."""
    w, h, n = labels.width, labels.height, labels.num_frames
    yy, xx = np.mgrid[0:h, 0:w]

    def masks():
        for i in range(n):
            mask = np.zeros((h, w), bool)
            for t in labels.tracks:
                mask |= (xx - t.x[i]) ** 2 + (yy - t.y[i]) ** 2 <= t.size**2
            yield np.zeros((h, w, 3), np.uint8), mask

    clip = NoiseClip(labels, masks(), np.random.default_rng(7), uniform_indices(n, 16))
    with VideoWriter(path, FPS, w, h) as vw:
        for frame in clip.frames():
            vw.write(np.ascontiguousarray(frame[:, ::-1]) if mirror else frame)
    return path


RIGHT = 40.0 + 2.0 * np.arange(N)  # 2 px a frame: the radius's 0.35 at most, as noise needs


def _answer(labels: Labels) -> str:
    return answer_key(labels.query.fact, answer_of(labels, IDX))


@pytest.mark.parametrize("renderer", ["2d", "object3d"])
def test_a_disc_in_noise_is_read_from_the_motion_signal(renderer: str, tmp_path) -> None:
    """The 2D colour reader and the 3D hue reader both get the regions painted in the disc's
    colour: the measured centre follows the true one within a cell or two, and the answer is
    the labels' own. The same video mirrored, labels kept, reads the other way."""
    labels = _labels({"subject": (RIGHT, np.full(N, 48.0), 14.0, (220, 40, 40))}, {"by": "one"})
    labels = _with_order(labels, ["subject"])
    measured, cert = noise_states(_noise_video(labels, tmp_path / "d.mp4"), labels, IDX, renderer)
    assert cert["single_frame_blind"]
    got, true = measured.track("subject"), labels.track("subject")
    assert np.abs(got.x[IDX] - true.x[IDX]).max() <= 3 * CELL
    assert np.abs(got.y[IDX] - true.y[IDX]).max() <= 3 * CELL
    assert _answer(measured) == _answer(labels) == "right"
    mirrored, _ = noise_states(
        _noise_video(labels, tmp_path / "m.mp4", mirror=True), labels, IDX, renderer
    )
    assert _answer(mirrored) == "left"  # what the pixels show, not the kept labels
    assert np.abs(mirrored.track("subject").x[IDX] - (W - true.x[IDX])).max() <= 3 * CELL


def _with_order(labels: Labels, order: list[str]) -> Labels:
    enc = {**labels.meta["encoding"], "order": order}
    return Labels(labels.width, labels.height, FPS, labels.tracks, labels.query, {"encoding": enc})


def _follows(measured: Labels, labels: Labels, name: str) -> bool:
    got, true = measured.track(name), labels.track(name)
    return bool(
        np.abs(got.x[IDX] - true.x[IDX]).max() <= 3 * CELL
        and np.abs(got.y[IDX] - true.y[IDX]).max() <= 3 * CELL
    )


def test_two_discs_are_named_by_place_not_by_height(tmp_path) -> None:
    """``a`` is left and low, moving down; ``b`` right and high, moving up: named leftmost
    first, each region is painted as its own object and each track follows its own disc."""
    a = (np.full(N, 40.0), 40.0 + 1.0 * np.arange(N), 12.0, (220, 40, 40))
    b = (np.full(N, 115.0), 55.0 - 1.0 * np.arange(N), 12.0, (40, 40, 220))
    labels = _with_order(_labels({"a": a, "b": b}, {"by": "x"}), ["a", "b"])
    video = _noise_video(labels, tmp_path / "ab.mp4")
    for renderer in ("2d", "object3d"):
        measured, _ = noise_states(video, labels, IDX, renderer)
        assert _follows(measured, labels, "a") and _follows(measured, labels, "b"), renderer


def test_two_discs_are_named_by_size_smallest_first(tmp_path) -> None:
    """The question names the small disc first; it sits on the right, so a reader that named
    regions by place, or the big one first, would swap them."""
    big = (np.full(N, 45.0) + 0.5 * np.arange(N), np.full(N, 48.0), 16.0, (220, 40, 40))
    small = (np.full(N, 120.0), 30.0 + 1.0 * np.arange(N), 11.0, (40, 40, 220))
    labels = _with_order(_labels({"small": small, "big": big}, {"by": "size"}), ["small", "big"])
    measured, _ = noise_states(_noise_video(labels, tmp_path / "sb.mp4"), labels, IDX, "2d")
    assert _follows(measured, labels, "small") and _follows(measured, labels, "big")


def test_a_frame_size_off_the_cell_grid_is_cropped_to_the_frame(tmp_path) -> None:
    """3-pixel cells on a 164 x 100 frame overhang it (a 165 x 102 grid); the painted frame is
    cut to the clip's size, so the pixel reader measures the disc where it is."""
    disc = {"subject": (RIGHT, np.full(N, 48.0), 15.0, (220, 40, 40))}
    labels = _with_order(_labels(disc, {"by": "one"}, cell=3, size=(164, 100)), ["subject"])
    video = _noise_video(labels, tmp_path / "d.mp4")
    for renderer in ("2d", "object3d"):
        measured, _ = noise_states(video, labels, IDX, renderer)
        assert _follows(measured, labels, "subject"), renderer


@pytest.mark.parametrize("renderer", ["2d", "object3d", "human"])
def test_a_disc_at_rest_reads_exactly_at_rest(renderer: str, tmp_path) -> None:
    """Its still region's rim gains and loses cells by chance, so its centroid wanders by a
    fraction of a cell; every reader's positions go through the dead band of a cell, so each
    sample reads where the first one did."""
    still = {"subject": (np.full(N, 80.0), np.full(N, 48.0), 14.0, (220, 40, 40))}
    labels = _with_order(_labels(still, {"by": "one"}), ["subject"])
    measured, _ = noise_states(_noise_video(labels, tmp_path / "s.mp4"), labels, IDX, renderer)
    x, y = measured.track("subject").x[IDX], measured.track("subject").y[IDX]
    assert list(x) == [x[0]] * 16 and list(y) == [y[0]] * 16 and _answer(measured) == "none"


def test_a_long_clip_is_read_at_the_frames_sampled(tmp_path) -> None:
    """60 frames, 16 sampled: the frames read are the sampled ones and their successors, not
    the first ones, and each is measured where it is."""
    n = 60
    xs = 30.0 + 1.7 * np.arange(n)
    labels = _with_order(
        _labels({"subject": (xs, np.full(n, 48.0), 14.0, (220, 40, 40))}, {"by": "one"}),
        ["subject"],
    )
    idx = uniform_indices(n, 16)
    measured, _ = noise_states(_noise_video(labels, tmp_path / "l.mp4"), labels, idx, "2d")
    assert np.abs(measured.track("subject").x[idx] - xs[idx]).max() <= 3 * CELL


@pytest.fixture(scope="module")
def spin(tmp_path_factory):
    """A rendered 2D ``spin`` clip, turning clockwise, in temporal noise."""
    out = tmp_path_factory.mktemp("noisespin")
    spec = Spec(
        id="spin-cw", task="rotation", motion="spin", answer_key="cw", seed=3, width=320,
        height=180, fps=10, num_frames=30, distractors=0, misleading_text=False,
        background="grid", answer_pos=0, crf=18, preset="ultrafast", encoding="temporal_noise",
    )  # fmt: skip
    return out, render_spec(spec, out)


def test_a_spin_in_noise_is_read_from_the_turning_region_and_a_mirror_disagrees(spin) -> None:
    """The turn is read from the painted region's outline (the 2D reader's rotation mode):
    the honest clip verifies as ``cw``; mirrored with its labels kept it reads ``ccw``."""
    out, row = spin
    verdict = verify_row(row, out)
    assert verdict.ok and verdict.seen == "cw", verdict
    frames = read_video(out / row["video"])
    with VideoWriter(
        out / "videos" / "mirrored.mp4", row["fps"], row["width"], row["height"]
    ) as vw:
        for f in frames:
            vw.write(np.ascontiguousarray(f[:, ::-1]))
    verdict = verify_row({**row, "video": "videos/mirrored.mp4"}, out)
    assert not verdict.ok and verdict.seen == "ccw", verdict


# --- silhouette_states: a person is one still silhouette ------------------------------------

SN = 16
SIDX = np.arange(SN)
SHIFT = [0, 1, 3, 2, 4, 4, 5, 6, 6, 7, 5, 4, 3, 2, 1, 0]  # cells the silhouette moves


def _person_labels(kind: str) -> Labels:
    """A person labelled walking (x 100 + 7 px a frame, y 60 + 3 px); the floor anchor is
    the query's first object, so the person is not the first track read."""
    person = Track.build("person", SN, x=100.0 + 7.0 * SIDX, y=60.0 + 3.0 * SIDX, shape="human")
    floor = Track.build("floor", SN, x=0.0, y=170.0, role="anchor", shape="line")
    return Labels(320, 180, 15.0, (floor, person), Query("count", ("floor", "person"), kind), {})


def _body(rows: slice, cols: slice, shape: tuple[int, int] = (40, 60)) -> np.ndarray:
    m = np.zeros(shape, bool)
    m[rows, cols] = True
    return m


def _jumper(k: int) -> np.ndarray:
    """Sample ``k``: a 50-cell body (rows 10-19) moved ``SHIFT[k]`` cells right, its raised
    arms a separate 12-cell region (a fifth of the body or more) whose top is 6 - k % 4."""
    s, top = SHIFT[k], 6 - k % 4
    return _body(slice(10, 20), slice(5 + s, 10 + s)) | _body(
        slice(top, top + 3), slice(6 + s, 10 + s)
    )


def test_a_jump_is_read_from_the_top_edge_of_the_whole_silhouette() -> None:
    """A ``raise`` question carries the person by the silhouette's top edge, which here is the
    raised arms (split off from the body: still the person's): 1 cell of 3 px up or down for
    each cell the arms' top moves; sideways by the centroid. Both start at the labelled
    first position; the anchor is not carried."""
    motion = [_jumper(k) for k in SIDX]
    got = silhouette_states(motion, _person_labels("raise"), SIDX, 3)
    top = np.array([6 - k % 4 for k in SIDX])
    assert list(got.track("person").y) == list(60.0 + 3.0 * (top - top[0]))
    assert list(got.track("person").x) == pytest.approx(list(100.0 + 3.0 * np.array(SHIFT)))
    assert list(got.track("floor").y) == [170.0] * SN


def test_a_side_step_is_read_from_the_silhouettes_centroid() -> None:
    """Without a ``raise`` question the centroid carries the person both ways: the silhouette
    moved (SHIFT[k] cells right, k % 3 cells down) of 3 px is that many px from the start."""
    motion = [
        _body(slice(10 + k % 3, 20 + k % 3), slice(5 + SHIFT[k], 10 + SHIFT[k])) for k in SIDX
    ]
    got = silhouette_states(motion, _person_labels(""), SIDX, 3).track("person")
    assert list(got.x) == pytest.approx(list(100.0 + 3.0 * np.array(SHIFT)))
    assert list(got.y) == pytest.approx(list(60.0 + 3.0 * (SIDX % 3)))


def test_a_silhouette_smaller_than_a_body_is_refused_naming_the_frame() -> None:
    ok = _body(slice(10, 14), slice(5, 10))  # 20 cells: the least a person framed whole shows
    small = _body(slice(10, 13), slice(5, 11))  # 18 cells: a chance region, not a person
    assert MIN_BODY == 20 and int(ok.sum()) == MIN_BODY
    silhouette_states([ok] * SN, _person_labels(""), SIDX, 3)
    idx = np.arange(0, 2 * SN, 2)
    with pytest.raises(ValueError, match=r"no silhouette in the motion signal at frame 6$"):
        silhouette_states([ok] * 3 + [small] + [ok] * 12, _person_labels(""), idx, 3)
    with pytest.raises(ValueError, match="at frame 0"):
        silhouette_states([np.zeros((40, 60), bool)] * SN, _person_labels(""), SIDX, 3)


def test_a_question_a_silhouette_cannot_show_is_refused() -> None:
    body = [_body(slice(10, 20), slice(5, 10))] * SN
    with pytest.raises(ValueError, match="cannot show a 'spin' question"):
        silhouette_states(body, _person_labels("spin"), SIDX, 3)


def test_a_person_clip_in_noise_goes_to_the_silhouette_reader(tmp_path) -> None:
    """A ``human`` row is read from its one silhouette: the two discs here are one region to
    it, so both tracks move as their union does (a region reader would move them apart)."""
    a = (np.full(N, 40.0), 40.0 + 1.0 * np.arange(N), 12.0, (220, 40, 40))
    b = (np.full(N, 115.0), 55.0 - 1.0 * np.arange(N), 12.0, (40, 40, 220))
    labels = _with_order(_labels({"a": a, "b": b}, {"by": "one"}), ["a", "b"])
    measured, _ = noise_states(_noise_video(labels, tmp_path / "ab.mp4"), labels, IDX, "human")
    ya, yb = measured.track("a").y[IDX], measured.track("b").y[IDX]
    assert np.allclose(ya - ya[0], yb - yb[0])


# --- _dead_band: a still object reads as still -------------------------------------------------


def _wander(dx: list[float], dy: list[float] | None = None) -> Labels:
    """A subject wandering by (dx, dy) px, and an anchor (listed first) that moves too."""
    n = len(dx)
    dy = dy or [0.0] * n
    t = Track.build("subject", n, x=100.0 + np.array(dx), y=50.0 + np.array(dy))
    anchor = Track.build("post", n, x=100.0 + np.array(dx), y=10.0, role="anchor", shape="line")
    return Labels(320, 180, 15.0, (anchor, t), Query("direction", ("subject",)), {})


def test_a_centroid_wandering_within_the_jitter_is_held_still() -> None:
    """With a 2-pixel cell the band is 2 px (``JITTER`` cells): a wander of 2 px or less from
    the last kept position (either way, or both) is that position; 2.8 px is a move, and the
    next wander is measured from there."""
    assert JITTER == 1.0
    labels = _wander([0.0, 1.0, 0.0, 2.0, 3.0, 0.0, -1.5], [0.0, 1.0, 2.0, 2.0, 3.0, 0.0, 1.3])
    held = _dead_band(labels, np.arange(7), JITTER * CELL)
    assert list(held.track("subject").x) == [100.0, 100.0, 100.0, 102.0, 102.0, 100.0, 100.0]
    assert list(held.track("subject").y) == [50.0, 50.0, 50.0, 52.0, 52.0, 50.0, 50.0]
    assert held.track("post") == labels.track("post")  # an anchor is not read, so not held


def test_the_dead_band_only_touches_the_sampled_frames() -> None:
    labels = _wander([0.0, 5.0, 1.0, 9.0, 0.5])
    x = _dead_band(labels, np.array([0, 2, 4]), 2.0).track("subject").x
    assert list(x) == [100.0, 105.0, 100.0, 109.0, 100.0]
