"""Labels: track construction, boxes, temporal take, JSON round trips and validation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tempogen.labels import Labels, Query, Track

N = 6


def _track(name: str = "subject", n: int = N, **kw) -> Track:
    kw.setdefault("x", np.arange(n) * 10.0 + 5)
    kw.setdefault("y", 40.0)
    return Track.build(name, n, **kw)


def _same_track(a: Track, b: Track) -> None:
    assert (a.name, a.role, a.shape, a.color, a.size, a.text) == (
        b.name,
        b.role,
        b.shape,
        b.color,
        b.size,
        b.text,
    )
    for k in ("x", "y", "angle", "scale", "visible", "lit"):
        va, vb = getattr(a, k), getattr(b, k)
        assert va.dtype == vb.dtype, k
        np.testing.assert_array_equal(va, vb, err_msg=k)


# Track.build ---------------------------------------------------------------------------------


def test_build_broadcasts_scalars_to_every_frame():
    t = Track.build("s", 4, x=3, y=[1, 2, 3, 4], angle=15, scale=2, visible=False, lit=1)
    np.testing.assert_array_equal(t.x, [3.0, 3.0, 3.0, 3.0])
    np.testing.assert_array_equal(t.y, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(t.angle, [15.0] * 4)
    np.testing.assert_array_equal(t.scale, [2.0] * 4)
    assert t.x.dtype == np.float64 and t.y.dtype == np.float64
    assert t.visible.dtype == bool and not t.visible.any()
    assert t.lit.dtype == bool and t.lit.all()
    assert t.num_frames == 4


def test_build_defaults():
    t = Track.build("s", 3, x=0, y=0)
    assert t.role == "subject" and t.shape == "circle" and t.text == ""
    np.testing.assert_array_equal(t.angle, np.zeros(3))
    np.testing.assert_array_equal(t.scale, np.ones(3))
    assert t.visible.all() and not t.lit.any()


def test_build_copies_and_freezes_arrays():
    xs = np.arange(4, dtype=np.float64)
    t = Track.build("s", 4, x=xs, y=0)
    xs[0] = 99.0
    assert t.x[0] == 0.0, "track must not alias the caller's array"
    with pytest.raises(ValueError):
        t.x[1] = 5.0  # read-only


@pytest.mark.parametrize("field", ["x", "y", "angle", "scale", "visible", "lit"])
@pytest.mark.parametrize("bad", [[1.0, 2.0], np.zeros(5), np.zeros((4, 1)), np.zeros((2, 2))])
def test_build_rejects_wrong_shape_naming_the_field(field, bad):
    kw = {"x": 0.0, "y": 0.0, field: bad}
    with pytest.raises(ValueError, match=rf"track field '{field}': expected shape \(4,\)"):
        Track.build("s", 4, **kw)


def test_build_rejects_unknown_role():
    with pytest.raises(ValueError, match="role must be one of"):
        Track.build("s", 3, x=0, y=0, role="hero")


def test_color_and_size_are_normalised():
    t = Track.build("s", 2, x=0, y=0, color=(np.uint8(10), 20.0, 30), size=np.float32(4))
    assert t.color == (10, 20, 30) and all(type(c) is int for c in t.color)
    assert type(t.size) is float and t.size == 4.0


# bbox ----------------------------------------------------------------------------------------


def test_bbox_is_centre_plus_minus_size_times_scale():
    x = np.array([10.0, 20.0, 30.0])
    y = np.array([5.0, 6.0, 7.0])
    scale = np.array([1.0, 0.5, 2.0])
    t = Track.build("s", 3, x=x, y=y, size=4.0, scale=scale)
    box = t.bbox()
    assert box.shape == (3, 4)
    # frame by frame, by hand: radius = 4 * scale = 4, 2, 8
    np.testing.assert_allclose(box[0], [6, 1, 14, 9])
    np.testing.assert_allclose(box[1], [18, 4, 22, 8])
    np.testing.assert_allclose(box[2], [22, -1, 38, 15])


# take ----------------------------------------------------------------------------------------


def test_take_reverses_and_keeps_identity():
    t = _track(angle=np.arange(N) * 7.0, lit=np.arange(N) % 2 == 0, color=(1, 2, 3), size=3)
    r = t.take(np.arange(N)[::-1])
    assert r.num_frames == N
    for k in ("x", "y", "angle", "scale", "visible", "lit"):
        np.testing.assert_array_equal(getattr(r, k), getattr(t, k)[::-1], err_msg=k)
    assert (r.name, r.role, r.shape, r.color, r.size) == (t.name, t.role, t.shape, t.color, t.size)
    # the original is untouched
    np.testing.assert_array_equal(t.x, np.arange(N) * 10.0 + 5)


def test_take_can_change_length_and_repeat_frames():
    t = _track()
    idx = [0, 0, 2, 5, 5, 5, 1]
    r = t.take(np.array(idx))
    assert r.num_frames == len(idx)
    np.testing.assert_array_equal(r.x, [5.0, 5.0, 25.0, 55.0, 55.0, 55.0, 15.0])
    assert r.visible.dtype == bool and r.lit.dtype == bool
    short = t.take(np.array([3]))
    assert short.num_frames == 1 and short.x.tolist() == [35.0]


def test_take_rejects_out_of_range_index():
    with pytest.raises(IndexError):
        _track().take(np.array([0, N]))


# JSON ----------------------------------------------------------------------------------------


def test_track_json_round_trip_is_exact_for_two_decimal_values():
    t = Track.build(
        "moon",
        5,
        x=[1.25, 2.5, 3.75, 5.0, 6.25],
        y=[10.0, 9.5, 9.0, 8.5, 8.0],
        role="cue",
        shape="star",
        color=(250, 204, 21),
        size=7.5,
        angle=[0.0, -15.5, -31.0, -46.5, -62.0],
        scale=[1.0, 1.1, 1.2, 1.3, 1.4],
        visible=[True, True, False, True, True],
        lit=[False, True, True, False, False],
        text="LEFT",
    )
    d = json.loads(json.dumps(t.to_json()))
    assert d["visible"] == [1, 1, 0, 1, 1] and d["lit"] == [0, 1, 1, 0, 0]
    assert d["bbox"][2] == [3.75 - 9.0, 9.0 - 9.0, 3.75 + 9.0, 9.0 + 9.0]
    _same_track(Track.from_json(d), t)


def test_track_json_rounds_to_the_requested_decimals():
    t = Track.build("s", 2, x=[1.23456, 2.0], y=[0.0049, 0.0051], size=3.14159)
    d = t.to_json()
    assert d["x"] == [1.23, 2.0] and d["y"] == [0.0, 0.01] and d["size"] == 3.14
    d4 = t.to_json(decimals=4)
    assert d4["x"] == [1.2346, 2.0] and d4["size"] == 3.1416


def _labels(**kw) -> Labels:
    tracks = kw.pop(
        "tracks",
        (
            _track("subject", shape="square", color=(220, 38, 38), size=6),
            _track("planet", role="prop", x=100.0, y=50.0, size=12),
        ),
    )
    query = kw.pop(
        "query", Query("rotation", ("subject", "planet"), "orbit", (("a", 1), ("b", "x")))
    )
    return Labels(
        width=kw.pop("width", 160),
        height=kw.pop("height", 90),
        fps=kw.pop("fps", 10.0),
        tracks=tracks,
        query=query,
        meta=kw.pop("meta", {"nouns": {"subject": "the red square"}}),
    )


def test_labels_json_round_trip():
    lab = _labels()
    d = json.loads(json.dumps(lab.to_json()))
    assert d["num_frames"] == N
    assert d["query"] == {
        "fact": "rotation",
        "objects": ["subject", "planet"],
        "kind": "orbit",
        "declared": {"a": 1, "b": "x"},
    }
    back = Labels.from_json(d)
    assert (back.width, back.height, back.fps, back.meta) == (160, 90, 10.0, lab.meta)
    assert back.query == lab.query
    assert back.query.declared_value("b") == "x" and back.query.declared_value("zz", 3) == 3
    assert len(back.tracks) == 2
    for a, b in zip(back.tracks, lab.tracks):
        _same_track(a, b)
    # a second round trip is byte-stable
    assert json.dumps(back.to_json(), sort_keys=True) == json.dumps(d, sort_keys=True)


def test_labels_accessors():
    lab = _labels()
    assert lab.num_frames == N
    assert lab.subject.name == "subject"
    assert lab.track("planet").role == "prop"
    with pytest.raises(KeyError, match="nope"):
        lab.track("nope")
    moved = lab.with_tracks(tuple(t.take(np.array([0, 1])) for t in lab.tracks), fps=5.0)
    assert moved.num_frames == 2 and moved.fps == 5.0 and lab.num_frames == N


# validation ----------------------------------------------------------------------------------


def test_labels_rejects_tracks_of_different_lengths():
    with pytest.raises(ValueError, match=r"differ in length: \[4, 6\]"):
        _labels(tracks=(_track("subject"), _track("planet", n=4)))


def test_labels_rejects_duplicate_names():
    with pytest.raises(ValueError, match="duplicate track names"):
        _labels(tracks=(_track("subject"), _track("subject", x=1.0)))


def test_labels_rejects_query_naming_a_missing_track():
    with pytest.raises(ValueError, match="query names track 'planet'"):
        _labels(tracks=(_track("subject"),))


def test_with_tracks_revalidates():
    lab = _labels()
    with pytest.raises(ValueError, match="differ in length"):
        lab.with_tracks((lab.tracks[0].take(np.array([0, 1])), lab.tracks[1]))
