"""Frame sampling: exact indices for each scheme, hand-picked frames, frames read and written."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from tempogen.builders.audit.sampling import (
    SETTINGS,
    frames_at,
    handpicked_single,
    random_single,
    setting_indices,
    shuffled,
    uniform,
    vinoground,
    write_frames,
    write_grid,
)
from tempogen.labels import Labels, Query, Track
from tempogen.sheets import contact_sheet
from tempogen.video import write_video

SIZES = [(n, m) for n in (1, 2, 16, 17, 61, 100, 301) for m in (1, 2, 3, 8, 16, 80)]


def _labels(tracks: list[Track], fact: str = "direction", kind: str = "", objects=None) -> Labels:
    objects = tuple(objects or [tracks[0].name])
    return Labels(320, 180, 15.0, tuple(tracks), Query(fact, objects, kind))


def _track(name: str = "subject", **states) -> Track:
    n = len(next(v for v in states.values() if np.ndim(v)))
    states.setdefault("x", 100.0)
    states.setdefault("y", 90.0)
    return Track.build(name, n, **states)


@pytest.mark.parametrize("n,m", SIZES)
def test_uniform_is_tomatos_linspace(n, m):
    assert np.array_equal(uniform(n, m), np.linspace(0, n - 1, m, dtype=int))


def test_uniform_hand_values():
    assert uniform(10, 4).tolist() == [0, 3, 6, 9]
    assert uniform(151, 16).tolist() == list(range(0, 151, 10))
    with pytest.raises(ValueError):
        uniform(0, 16)


@pytest.mark.parametrize("n,m", SIZES)
def test_shuffled_is_a_seeded_permutation_of_uniform(n, m):
    a = shuffled(n, m, seed=3)
    assert np.array_equal(np.sort(a), uniform(n, m))
    assert np.array_equal(a, shuffled(n, m, seed=3))
    assert np.array_equal(a, uniform(n, m)[np.random.default_rng(3).permutation(m)])


def test_shuffled_orders_differ_between_seeds():
    orders = {tuple(shuffled(200, 16, s)) for s in range(5)}
    assert len(orders) == 5
    assert all(o != tuple(uniform(200, 16)) for o in orders)


def test_random_single_is_one_seeded_frame():
    for seed in range(20):
        f = random_single(50, seed)
        assert f.shape == (1,) and 0 <= f[0] < 50
        assert f[0] == np.random.default_rng(seed).integers(50)
        assert np.array_equal(f, random_single(50, seed))


# The whole grid, 5 x 4 x 4 x 5 = 400 cases, in one test per sample count (each case named in
# its failure): 400 tests would cost pytest more than the checks do.
@pytest.mark.parametrize("m", [3, 4, 8, 16, 32])
def test_vinoground_always_shows_the_gap(m):
    grid = itertools.product([1, 2, 7, 30, 91], [1, 2, 5, 60], [1, 3, 45, 120])
    for n_pos, n_gap, n_neg in grid:
        case = (n_pos, n_gap, n_neg, m)
        idx = vinoground(n_pos, n_gap, n_neg, m)
        total = n_pos + n_gap + n_neg
        assert len(idx) == m, case
        assert np.any((idx >= n_pos) & (idx < n_pos + n_gap)), case
        assert idx[0] == 0 and idx[-1] == total - 1, case  # both clips stay in view
        assert np.all(np.diff(idx) >= 0), case
        if np.any((uniform(total, m) >= n_pos) & (uniform(total, m) < n_pos + n_gap)):
            assert np.array_equal(idx, uniform(total, m)), case  # untouched if a sample hits it


def test_vinoground_hand_example():
    # 21 frames: uniform 4 is [0, 6, 13, 20]; the gap is frame 10; 13 is nearer than 6.
    assert vinoground(10, 1, 10, 4).tolist() == [0, 6, 10, 20]
    with pytest.raises(ValueError):
        vinoground(10, 0, 10, 4)
    with pytest.raises(ValueError):
        vinoground(10, 2, 10, 2)


def test_handpicked_is_the_frame_farthest_from_the_start():
    tr = _track(x=[100, 105, 110, 130, 120, 100])
    assert handpicked_single(_labels([tr])).tolist() == [3]
    diag = _track(x=[0, 3, 6, 9], y=[0, -4, 8, 0])  # distances 0, 5, 10, 9
    assert handpicked_single(_labels([diag])).tolist() == [2]


def test_handpicked_uses_the_angle_for_a_spin():
    tr = _track(angle=[0, 10, -50, 20])
    assert handpicked_single(_labels([tr], "rotation", "spin")).tolist() == [2]


def test_handpicked_is_the_first_lit_frame_for_lamps():
    flash = _track(lit=[0, 0, 0, 1, 1, 0, 1], x=np.linspace(0, 60, 7))
    assert handpicked_single(_labels([flash], "count", "flash")).tolist() == [3]
    a = _track("obj1", lit=[0, 0, 0, 0, 1, 1])
    b = _track("obj2", lit=[0, 0, 1, 1, 1, 1])
    lamps = _labels([a, b], "order", "lit", ["obj1", "obj2"])
    assert handpicked_single(lamps).tolist() == [2]  # the first object to light is obj2
    dark = _track(lit=[0, 0, 0, 0], x=[0, 9, 4, 1])
    assert handpicked_single(_labels([dark], "count", "flash")).tolist() == [1]


def test_setting_indices_cover_every_setting():
    labels = _labels([_track(x=np.linspace(0, 100, 61))])
    got = {s: setting_indices(s, labels, seed=4) for s in SETTINGS}
    assert np.array_equal(got["uniform16"], uniform(61, 16))
    assert np.array_equal(got["shuffled16"], shuffled(61, 16, 4))
    assert np.array_equal(got["random1"], random_single(61, 4))
    assert got["handpicked1"].tolist() == [60]
    with pytest.raises(ValueError):
        setting_indices("uniform8", labels)


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """A 20-frame clip whose frame i is a flat colour (12 i, 240 - 12 i, 90)."""
    frames = np.empty((20, 48, 64, 3), np.uint8)
    for i in range(20):
        frames[i] = (12 * i, 240 - 12 * i, 90)
    path = tmp_path_factory.mktemp("clip") / "c.mp4"
    write_video(path, frames, fps=10)
    return path, frames


def test_frames_at_returns_frames_in_the_order_asked(clip):
    path, frames = clip
    got = frames_at(path, [5, 0, 5, 19])
    assert got.shape == (4, 48, 64, 3)
    for g, i in zip(got, [5, 0, 5, 19]):
        means = frames.reshape(20, -1, 3).mean(1)
        assert np.argmin(np.abs(means - g.reshape(-1, 3).mean(0)).sum(1)) == i


def test_write_frames_png_is_exact_and_jpg_close(tmp_path, clip):
    _, frames = clip
    paths = write_frames(tmp_path / "png", frames[:3])
    assert [p.name for p in paths] == ["000.png", "001.png", "002.png"]
    for p, f in zip(paths, frames[:3]):
        assert np.array_equal(cv2.cvtColor(cv2.imread(str(p)), cv2.COLOR_BGR2RGB), f)
    jpgs = write_frames(tmp_path / "jpg", frames[:2], fmt="jpg")
    assert [p.suffix for p in jpgs] == [".jpg", ".jpg"]
    back = cv2.cvtColor(cv2.imread(str(jpgs[1])), cv2.COLOR_BGR2RGB).astype(int)
    assert np.abs(back - frames[1]).max() <= 3
    assert not list((tmp_path / "png").glob(".*"))  # no temp files left behind
    with pytest.raises(ValueError):
        write_frames(tmp_path / "gif", frames[:1], fmt="gif")


def test_write_grid_is_the_contact_sheet(tmp_path, clip):
    _, frames = clip
    idx = uniform(20, 16)
    write_grid(tmp_path / "g.png", frames[idx], idx)
    sheet = cv2.cvtColor(cv2.imread(str(tmp_path / "g.png")), cv2.COLOR_BGR2RGB)
    assert np.array_equal(sheet, contact_sheet(frames[idx], [int(i) for i in idx]))
