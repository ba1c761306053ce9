"""observe at its edges: the fewest frames a fact needs, thresholds on both sides, the body
frame at any size or turn, bounce contacts at the clip's ends, and paths that barely close.

Each case builds per-frame states by hand and reads the facts :mod:`tempogen.observe` derives
from them, as the generator (labels), the certifier (16 samples) and the pixel verifier
(measured states) do. Found missing by mutation testing (issue 24 H): each comment says what
the case pins, in the words a label would use.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from kit import GESTURE_AT

from tempogen import observe
from tempogen.labels import Labels, Query, Track
from tempogen.observe import shapes

W, H, FPS = 200, 100, 10.0
DIAG = math.hypot(W, H)  # 223.6: the still threshold MOVE_EPS * DIAG is 1.79 px/s


def labels(query: Query, *tracks: Track, fps: float = FPS, size=(W, H), meta=None) -> Labels:
    return Labels(size[0], size[1], fps, tuple(tracks), query, dict(meta or {}))


def mover(x, y, name: str = "subject", **kw) -> Track:
    states = [x, y] + [kw[k] for k in ("angle", "scale", "lit", "visible") if k in kw]
    n = max(np.size(v) for v in states)
    return Track.build(name, n, x=x, y=y, **kw)


def glide(steps, fps: float = FPS, size=(W, H)) -> Labels:
    """A subject moving right by each of ``steps`` pixels, one step a frame."""
    x = np.concatenate([[20.0], 20.0 + np.cumsum(steps)])
    return labels(Query("speed", ("subject",), "position"), mover(x, 50.0), fps=fps, size=size)


def every(lab: Labels) -> np.ndarray:
    return np.arange(lab.num_frames)


# the fewest frames each fact needs ---------------------------------------------------------


def test_two_samples_show_a_move_a_turn_a_change_of_size_and_a_count():
    # two frames are enough to see a move, a turn, an approach, a start and a flash
    lab = labels(Query("direction", ("subject",)), mover(20 + 4.0 * np.arange(10), 50.0))
    assert observe.direction(lab, np.array([0, 5]), lab.subject) == ("right",)
    spin = labels(
        Query("rotation", ("subject",), "spin"),
        mover(100.0, 50.0, shape="arrow", angle=[0.0, 30.0]),
    )
    assert observe.rotation(spin, np.array([0, 1])) == ("cw",)
    near = labels(Query("approach", ("subject",)), mover([100.0] * 2, 50.0, scale=[1.0, 1.5]))
    assert observe.approach(near, np.array([0, 1]), near.subject) == ("towards",)
    assert observe.mean_speed(lab, np.array([0, 1]), lab.subject) == pytest.approx(40.0)
    pair = labels(
        Query("order", ("a", "b"), "move"),
        mover([10.0, 20.0], 30.0, name="a"),
        mover([50.0, 50.0], 30.0, name="b"),
    )
    assert observe.order(pair, np.array([0, 1])) == (("a",),)
    flash = labels(Query("count", ("subject",), "flash"), mover([9.0] * 2, 9.0, lit=[0, 1]))
    assert observe.count(flash, np.array([0, 1])) == 1
    # a jump seen in two frames: feet on the floor, then 20 px up
    jump = bouncer([0.0, 20.0], kind="raise")
    assert observe.count(jump, np.array([0, 1])) == 1
    # an orbit seen twice shows no whole lap: a count of 0, not undetermined
    th = np.radians([0.0, 90.0])
    loop = labels(
        Query("count", ("subject", "planet"), "loop"),
        mover(100 + 30 * np.cos(th), 50 + 30 * np.sin(th)),
        mover([100.0] * 2, 50.0, name="planet", role="prop"),
    )
    assert observe.count(loop, np.array([0, 1])) == 0


def test_three_samples_show_a_speed_a_bounce_and_no_flash():
    assert observe.speed(glide([4.0] * 9), np.array([0, 4, 8]), glide([4.0] * 9).subject) == (
        "constant"
    )
    # high, on the floor, high again: one bounce, seen in three frames
    assert observe.count(bouncer([10.0, 0.0, 10.0]), np.arange(3)) == 1
    # a light never lit in three frames: it does not flash ("none"), which is determined
    dark = labels(Query("frequency", ("subject",), "flash"), mover([9.0] * 3, 9.0))
    assert observe.frequency(dark, np.arange(3)) == "none"
    # a subject that stays put over three frames draws no shape: "none", not undetermined
    still = labels(Query("trajectory", ("subject",)), mover([300.0] * 3, 180.0), size=(640, 360))
    assert observe.trajectory(still, np.arange(3)) == "none"
    assert observe.classify_path(np.full((3, 2), 50.0), 734.0) == "none"


def test_next_gesture_from_two_samples():
    lab = gesturing([("left_up", 1), ("clap", 1)], "left_up")
    assert observe.next_gesture(lab, np.array([0, 1])) == "clap"


def test_every_fact_of_observe_comes_from_its_reader():
    """observe() is what the manifest stores as a clip's facts: each fact the query supports,
    with the value its own reader gives."""
    i = np.arange(31, dtype=float)
    # the speed of a turn, not of a position: the arrow stays put and spins faster and faster
    turning = labels(
        Query("speed", ("subject",), "angle"), mover(100.0, 50.0, shape="arrow", angle=0.2 * i**2)
    )
    assert observe.observe(turning)["speed"] == "accelerating"
    # a spin is read as a rotation even though no second object is named
    spin = labels(
        Query("rotation", ("subject",), "spin"), mover(100.0, 50.0, shape="arrow", angle=10 * i)
    )
    assert observe.observe(spin)["rotation"] == ("cw",)
    # an orbit query reports the orbit's sense whatever fact it asks
    th = np.radians(20.0 * i)
    moon, planet = (
        mover(100 + 30 * np.cos(th), 50 + 30 * np.sin(th)),
        mover(100.0 + 0 * i, 50.0, name="planet", role="prop"),
    )
    facts = observe.observe(
        labels(Query("direction", ("subject", "planet"), "orbit"), moon, planet)
    )
    assert facts["rotation"] == ("cw",)
    lit = np.zeros(40, bool)
    for s in (2, 8, 14, 20):
        lit[s : s + 2] = True
    flashing = labels(Query("frequency", ("subject",), "flash"), mover([9.0] * 40, 9.0, lit=lit))
    assert observe.observe(flashing)["frequency"] == "constant"
    pair = labels(
        Query("order", ("a", "b"), "move"),
        mover(10.0 + 2 * np.maximum(i - 5, 0), 30.0, name="a"),
        mover(10.0 + 2 * np.maximum(i - 2, 0), 60.0, name="b"),
    )
    assert observe.observe(pair)["order"] == (("b",), ("a",))
    square = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]], float) * 100 + [300, 180]
    k = np.arange(41)
    sx, sy = (np.interp(k, np.arange(0, 41, 10), square[:, c]) for c in (0, 1))
    drawn = labels(Query("trajectory", ("subject",)), mover(sx, sy), size=(640, 360))
    assert observe.observe(drawn)["trajectory"] == "square"
    near = labels(Query("approach", ("subject",)), mover(100.0 + 0 * i, 50.0, scale=1 + 0.05 * i))
    assert observe.observe(near)["approach"] == ("towards",)
    ges = gesturing([("left_up", 3), (None, 2), ("clap", 3)], "left_up")
    assert observe.observe(ges)["next"] == "clap"


# direction -----------------------------------------------------------------------------------


def test_direction_reads_sub_pixel_steps_by_their_sign():
    # half a pixel a frame (5 px/s) is a clear move: right is right, down is down
    right = labels(Query("direction", ("subject",)), mover(20 + 0.5 * np.arange(12), 50.0))
    assert observe.direction(right, every(right), right.subject) == ("right",)
    down = labels(Query("direction", ("subject",)), mover(100.0, 20 + 0.5 * np.arange(12)))
    assert observe.direction(down, every(down), down.subject) == ("down",)


def test_still_threshold_is_a_share_of_the_diagonal():
    # 1.7 px/s is under 0.8% of the diagonal (1.79 px/s) but over 0.8% of the width (1.6):
    # still; 1.85 px/s moves
    for per_frame, want in ((0.17, ()), (0.185, ("right",))):
        lab = labels(Query("direction", ("subject",)), mover(20 + per_frame * np.arange(12), 50.0))
        assert observe.direction(lab, every(lab), lab.subject) == want
        assert observe.speed(lab, every(lab), lab.subject) == ("none" if not want else "constant")


def test_direction_goes_on_after_a_pause():
    x = np.r_[20 + 4.0 * np.arange(6), [40.0] * 4, [40.0] * 6]
    y = np.r_[[50.0] * 10, 50 - 3.0 * np.arange(1, 7)]
    lab = labels(Query("direction", ("subject",)), mover(x, y))
    assert observe.direction(lab, every(lab), lab.subject) == ("right", "up")


def test_repeated_samples_of_a_short_clip_add_no_direction():
    # TOMATO's 16 samples of a 10-frame clip repeat frames: a repeat is no move at all
    idx = observe.uniform_indices(10, 16)
    assert len(set(idx.tolist())) < len(idx)
    lab = labels(Query("direction", ("subject",)), mover(20 + 4.0 * np.arange(10), 50.0))
    assert observe.direction(lab, idx, lab.subject) == ("right",)
    still = labels(Query("direction", ("subject",)), mover([60.0] * 10, 50.0))
    assert observe.direction(still, idx, still.subject) == ()


def test_direction_dominance_and_still_threshold_are_inclusive():
    # a step exactly 1.8 times longer along one axis has that direction
    for step, want in (((9.0, 5.0), "right"), ((5.0, 9.0), "down")):
        x = 20 + step[0] * np.arange(6)
        y = 20 + step[1] * np.arange(6)
        lab = labels(Query("direction", ("subject",)), mover(x, y))
        assert observe.direction(lab, every(lab), lab.subject) == (want,)
    # exactly the still threshold moves: on a 300 x 400 canvas at 1 fps it is 4 px/s
    assert observe.MOVE_EPS * 500.0 == 4.0
    lab = glide([4.0] * 5, fps=1.0, size=(300, 400))
    assert observe.direction(lab, every(lab), lab.subject) == ("right",)
    assert observe.speed(lab, every(lab), lab.subject) == "constant"


# approach ------------------------------------------------------------------------------------


def person(scale) -> Labels:
    scale = np.asarray(scale, float)
    return labels(Query("approach", ("subject",)), mover([100.0] * len(scale), 50.0, scale=scale))


def test_approach_counts_from_the_first_frame_in_three_samples():
    # 10% larger a frame: 21% (over the 13% band) from the first frame, 9% from the second
    lab = person([1.0, 1.1, 1.2])
    assert observe.approach(lab, every(lab), lab.subject) == ("towards",)
    lab = person([1.0, 1.2, 1.0])
    assert observe.approach(lab, every(lab), lab.subject) == ("towards", "away")


def test_approach_refuses_sizes_it_cannot_read():
    # a size of zero or not a number (the subject not measured) is undetermined, not a move
    for bad in (0.0, float("nan")):
        lab = person([1.0, 1.5, bad, 1.5])
        assert observe.approach(lab, every(lab), lab.subject) is None


def _sizes_at_log_step(step: float) -> tuple[float, float]:
    """Two scales whose float logs differ by exactly ``step``."""
    for s0 in np.linspace(1.0, 3.0, 2001):
        s1 = s0 * math.exp(step)
        for k in range(-8, 9):
            c = s1 + k * np.spacing(s1)
            if float(np.log(c)) - float(np.log(s0)) == step:
                return float(s0), float(c)
    raise AssertionError(f"no float scales whose logs differ by exactly {step}")


def test_approach_band_is_inclusive():
    # a change of size of exactly the band (log 0.12) is a move in depth, each way
    (a, up), (b, down) = (_sizes_at_log_step(s) for s in (observe.DEPTH_BAND, -observe.DEPTH_BAND))
    cases = {
        (a, up): ("towards",),
        (b, down): ("away",),
        (a, up, a): ("towards", "away"),
        (b, down, b): ("away", "towards"),
    }
    for scales, want in cases.items():
        lab = person(scales)
        assert observe.approach(lab, every(lab), lab.subject) == want, scales


# rotation ------------------------------------------------------------------------------------


def orbiting(step_deg: float, n: int, fact="rotation", kind="orbit", fps=FPS) -> Labels:
    th = np.radians(step_deg * np.arange(n))
    moon = mover(100 + 30 * np.cos(th), 50 + 30 * np.sin(th))
    planet = mover([100.0] * n, 50.0, name="planet", role="prop")
    return labels(Query(fact, ("subject", "planet"), kind), moon, planet, fps=fps)


def test_turn_steps_are_what_a_viewer_sees():
    # an orbit of 200 degrees a step is seen as 160 the other way
    lab = orbiting(200.0, 6)
    np.testing.assert_allclose(observe.turn_steps(lab, every(lab)), -160.0)
    # a circle shows no turn at all, one step fewer than frames, none from one frame
    ball = labels(
        Query("rotation", ("subject",), "spin"),
        mover([50.0] * 6, 50.0, shape="circle", angle=30.0 * np.arange(6)),
    )
    np.testing.assert_array_equal(observe.turn_steps(ball, every(ball)), np.zeros(5))
    assert observe.turn_steps(ball, np.array([2])).shape == (0,)


def test_slow_turns_and_the_turn_threshold():
    # half a degree a frame at 30 fps (15 deg/s) is a clockwise turn
    slow = labels(
        Query("rotation", ("subject",), "spin"),
        mover(50.0, 50.0, shape="arrow", angle=0.5 * np.arange(20)),
        fps=30.0,
    )
    assert observe.rotation(slow, every(slow)) == ("cw",)
    # exactly TURN_EPS (8 deg/s) turns
    edge = labels(
        Query("rotation", ("subject",), "spin"),
        mover(50.0, 50.0, shape="arrow", angle=8.0 * np.arange(5)),
        fps=1.0,
    )
    assert observe.rotation(edge, every(edge)) == ("cw",)


def test_loop_count_reads_exact_laps_and_only_the_samples():
    # twelve steps of 30 degrees counter-clockwise: exactly one lap
    assert observe.count(orbiting(-30.0, 13, "count", "loop"), np.arange(13)) == 1
    assert observe.count(orbiting(30.0, 13, "count", "loop"), np.arange(13)) == 1
    # 100 degrees a frame, seen every other frame: 200 a step reads as 160 backwards
    fast = orbiting(100.0, 20, "count", "loop")
    assert observe.count(fast, every(fast)) == 5
    assert observe.count(fast, np.arange(0, 20, 2)) == 4


# speed ---------------------------------------------------------------------------------------


def test_speed_threshold_follows_what_moves():
    # 5 deg/s of turning is still (under TURN_EPS); 5 px/s of moving is a glide
    i = np.arange(31, dtype=float)
    turning = labels(
        Query("speed", ("subject",), "angle"), mover(100.0, 50.0, shape="arrow", angle=0.5 * i)
    )
    assert observe.speed(turning, every(turning), turning.subject, "angle") == "none"
    moving = glide([0.5] * 30)
    assert observe.speed(moving, every(moving), moving.subject, "position") == "constant"


def test_speed_compares_the_first_and_last_thirds():
    def reads(v):
        lab = glide(v)
        return observe.speed(lab, every(lab), lab.subject)

    assert reads([4.0, 4.0, 8.0]) == "accelerating"  # from 4 samples: first and last step
    assert reads([4.0] * 4 + [8.0] * 2) == "accelerating"  # faster in the last third only
    # the last step alone is 1.8x, the last third 1.4x: undetermined
    assert reads([4.0] * 5 + [7.2]) is None
    # a slow steady glide (1.5x the still threshold) is constant, and slowing from it decelerates
    eps = observe.MOVE_EPS * DIAG / FPS  # px a frame
    assert reads([1.5 * eps] * 9) == "constant"
    assert reads([1.5 * eps] * 3 + [3 * eps] * 3 + [0.6 * eps] * 3) == "decelerating"
    # from nearly at rest to still slow: undetermined, not accelerating
    assert reads([0.45 * eps] * 3 + [2 * eps] * 3 + [0.9 * eps] * 3) is None
    # a move between two rests neither speeds up nor slows down overall
    assert reads([0.0] * 3 + [4.0] * 3 + [0.0] * 3) is None


def test_speed_ratios_are_inclusive():
    # 1 fps on a 300 x 400 canvas: the still threshold is 4 px/s and the steps are exact
    def reads(v):
        lab = glide(v, fps=1.0, size=(300, 400))
        return observe.speed(lab, every(lab), lab.subject)

    assert reads([10.0, 13.0, 16.0]) == "accelerating"  # last / first = 1.6 exactly
    assert reads([16.0, 13.0, 10.0]) == "decelerating"  # 1 / 1.6 exactly
    assert reads([20.0, 21.0, 23.0]) == "constant"  # 1.15 exactly
    assert reads([2.0, 5.0, 2.0]) == "constant"  # the first third at exactly half the threshold
    assert reads([0.0, 2.0, 4.0]) == "accelerating"  # from rest to exactly the threshold


# mean speed and faster -----------------------------------------------------------------------


def test_mean_speed_is_read_at_depth_over_the_samples_seen():
    # coming closer at a steady pace: the screen step grows with the size, the speed does not
    n = 20
    s = 1 + 0.1 * np.arange(n)
    x = np.concatenate([[20.0], 20 + np.cumsum(10 * 0.5 * (s[1:] + s[:-1]))])
    lab = labels(Query("faster", ("subject",)), mover(x, 50.0, scale=s))
    assert observe.mean_speed(lab, every(lab), lab.subject) == pytest.approx(100.0)
    assert observe.mean_speed(lab, np.arange(5, 15), lab.subject) == pytest.approx(100.0)
    assert observe.mean_speed(lab, np.array([3, 4]), lab.subject) == pytest.approx(100.0)
    # a person at half size moving 10 px/s on screen moves 20 px/s at the first frame's depth
    far = labels(Query("faster", ("subject",)), mover(20 + 1.0 * np.arange(n), 50.0, scale=0.5))
    assert observe.mean_speed(far, every(far), far.subject) == pytest.approx(20.0)


def walkers(vl: float, vr: float, fps: float = FPS, size=(W, H), n: int = 12) -> Labels:
    t = np.arange(n) / fps
    return labels(
        Query("faster", ("left", "right")),
        mover(20 + vl * t, 30.0, name="left"),
        mover(20 + vr * t, 70.0, name="right"),
        fps=fps,
        size=size,
    )


def test_fastest_needs_a_move_and_a_clear_lead():
    # the quicker one moves 1.7 px/s, under the still threshold: no one is faster
    lab = walkers(1.7, 0.1)
    assert observe.fastest(lab, every(lab)) is None
    # exactly 1.25 times the other, and exactly the still threshold, are enough
    lab = walkers(25.0, 20.0, fps=1.0, size=(300, 400))
    assert observe.fastest(lab, every(lab)) == "left"
    lab = walkers(0.0, 4.0, fps=1.0, size=(300, 400))
    assert observe.fastest(lab, every(lab)) == "right"


# flashes, raises and frequency ---------------------------------------------------------------


def flashes(onsets, n: int, length: int = 2, fps: float = FPS) -> Labels:
    lit = np.zeros(n, bool)
    for s in onsets:
        lit[s : s + length] = True
    return labels(
        Query("frequency", ("subject",), "flash"), mover([9.0] * n, 9.0, lit=lit), fps=fps
    )


def test_a_flash_lit_to_the_last_frame_ends_there():
    lab = flashes([5, 30], 40, length=10)
    assert observe.events(lab, every(lab)) == [(0.5, 1.4), (3.0, 3.9)]


def frequency_of(gaps, fps: float = FPS) -> str | None:
    onsets = np.concatenate([[2], 2 + np.cumsum(gaps)]).astype(int)
    lab = flashes(onsets.tolist(), int(onsets[-1]) + 5, fps=fps)
    return observe.frequency(lab, every(lab))


@pytest.mark.parametrize(
    "gaps,want",
    [
        ([6, 6, 6], "constant"),  # four flashes are enough to read a rate
        ([10, 5, 5, 5], "increasing"),  # faster after the first gap, then steady
        ([10, 9, 8, 5], "increasing"),  # the first gap against the last
        ([40, 30, 32, 20], "increasing"),  # 0.2 s back, within 10% of a 3 s gap
        ([12, 8, 10, 5], None),  # 0.2 s back is more than 1.5 frames at 10 fps
        ([25, 27, 23, 25], "constant"),  # 2.5 s apart, within 10%
    ],
)
def test_frequency_trend_and_slack(gaps, want):
    assert frequency_of(gaps) == want


def test_frequency_thresholds_are_inclusive():
    # at 1 fps a first gap of exactly 1.35 times the last speeds up, and the reverse slows down
    assert frequency_of([27, 24, 22, 20], fps=1.0) == "increasing"
    assert frequency_of([20, 22, 24, 27], fps=1.0) == "decreasing"
    # at 2 fps, gaps of 14, 8, 9, 9 s (mean 10, slack 1 s): a step back of exactly the slack
    assert frequency_of([28, 16, 18, 18], fps=2.0) == "increasing"
    assert frequency_of([18, 18, 16, 28], fps=2.0) == "decreasing"


def bouncer(h, size: float = 5.0, scale=1.0, kind: str = "bounce", canvas=(W, H)) -> Labels:
    """A ball whose height above a floor at y = 90 (its edge to the floor) follows ``h``."""
    h = np.asarray(h, float)
    n = len(h)
    sc = np.broadcast_to(np.asarray(scale, float), (n,))
    ball = mover([100.0] * n, 90.0 - size * sc - h, size=size, scale=sc)
    floor = Track.build(
        "floor", n, x=W / 2, y=90.0, role="anchor", shape="floor", size=0, angle=-90.0
    )
    return labels(Query("count", ("subject", "floor"), kind), ball, floor, size=canvas)


def bounces(h, **kw) -> list[tuple[float, float]]:
    lab = bouncer(h, **kw)
    return observe.events(lab, every(lab))


def test_raise_is_strictly_above_half_and_needs_a_big_enough_swing():
    # raised: strictly above half the height's range
    assert bounces([0.0, 5.0, 10.0, 5.0, 0.0], kind="raise") == [(0.2, 0.2)]
    assert bounces([0.0, 3.0, 10.0, 3.0, 0.0], kind="raise") == [(0.2, 0.2)]
    # a swing of 6.5 px is under 3% of the diagonal (6.7 px): no action
    assert bounces([0.0, 6.5, 0.0, 6.5, 0.0], kind="raise") == []
    # exactly 3% of the diagonal is enough: 15 px on a 300 x 400 canvas
    assert bounces([0.0, 15.0, 0.0], kind="raise", canvas=(300, 400)) == [(0.1, 0.1)]


# bounces -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "h,want",
    [
        # a bounce in the second and in the last-but-one sample
        ([10, 0, 10, 20, 30], [(0.1, 0.1)]),
        ([30, 20, 10, 0, 10], [(0.3, 0.3)]),
        # a contact held for three frames 2 px up is one bounce, spanning them
        ([20, 10, 2, 2, 2, 10, 20, 10, 2, 10, 20], [(0.2, 0.4), (0.8, 0.8)]),
        ([20, 10, 2, 2, 10], [(0.2, 0.3)]),
        # the contact is the lowest sample, not the half-pixel ones around it
        ([20, 10, 0.5, 0, 0.5, 10, 20], [(0.3, 0.3)]),
        # a ball that lands and stays down has not bounced
        ([20, 10, 0, 0, 0], []),
        ([40, 20, 0, 0], []),
        # a bounce in the second sample and a touch in the last
        ([20, 3, 20, 30, 20, 0], [(0.1, 0.1), (0.5, 0.5)]),
        # a bounce sampled 3 px above the floor still counts
        ([40, 20, 0, 20, 40, 20, 3, 20, 40], [(0.2, 0.2), (0.6, 0.6)]),
        # a low turning point at exactly half the range counts
        ([40, 0, 40, 20, 40, 0, 40], [(0.1, 0.1), (0.3, 0.3), (0.5, 0.5)]),
        # a dip in the upper half (a ball juggled high) is no bounce on the floor
        ([40, 20, 0, 20, 40, 23, 40, 20, 3, 20, 40], [(0.2, 0.2), (0.8, 0.8)]),
        ([40, 20, 3, 20, 40, 23, 40, 20, 3, 20, 40], [(0.2, 0.2), (0.8, 0.8)]),
        # a hundredth-of-a-pixel wiggle at the apex is no bounce either
        ([0, 20, 40, 39.99, 40, 20, 0], [(0.0, 0.0), (0.6, 0.6)]),
        # a 0.2 px wiggle on the way down (rounding) is not a bounce, before or after a real one
        ([40, 20, 0, 20, 40, 20, 0.3, 0.5, 0.0, 20, 40], [(0.2, 0.2), (0.8, 0.8)]),
        ([40, 20, 0.03, 0.04, 0.0, 20, 40], [(0.4, 0.4)]),
    ],
)
def test_bounce_contacts(h, want):
    assert bounces(h) == want


@pytest.mark.parametrize(
    "h,kw,want",
    [
        # at the clip's start: on the floor and rising is a touch; in the air rising is not;
        # resting then rising shows no bounce
        ([0.5, 10, 20, 30], {}, [(0.0, 0.0)]),
        ([20, 30, 40], {}, []),
        ([0, 0, 10, 20], {}, []),
        # still falling in the first frame: the contact is the second frame
        ([1.0, 0.2, 5, 10, 20], {}, [(0.1, 0.1)]),
        # a touch is within 8% of the ball's drawn radius plus a pixel, at that frame's size
        ([2.5, 20, 40], {"size": 25.0}, [(0.0, 0.0)]),
        ([3.0, 20, 40], {"size": 25.0}, [(0.0, 0.0)]),  # exactly 0.08 * 25 + 1
        ([1.5, 20, 40], {"scale": 2.0}, [(0.0, 0.0)]),
        ([2.0, 20, 40], {"scale": 2.0}, []),
        ([1.6, 20, 40], {"scale": [2.0, 1.0, 1.0]}, [(0.0, 0.0)]),
        # the same at the clip's end
        ([40, 20, 0.2, 20, 0.5], {}, [(0.2, 0.2), (0.4, 0.4)]),
        ([40, 20, 3.0], {"size": 25.0}, [(0.2, 0.2)]),
        ([40, 20, 1.6], {"scale": [1.0, 1.0, 2.0]}, [(0.2, 0.2)]),
    ],
)
def test_bounce_touches_at_the_ends(h, kw, want):
    assert bounces(h, **kw) == want


def test_bounce_reads_height_along_the_anchor_normal_wherever_the_anchor_point_is():
    # a wall at x = 190 facing left; the wall's anchor point is 30 px below the ball's path
    n = 30
    i = np.arange(n)
    ball = mover(190.0 - 5.0 - 40 * np.abs(np.sin(np.pi * i / 10)), 50.0, size=5.0)
    wall = Track.build(
        "wall", n, x=190.0, y=80.0, role="anchor", shape="floor", size=0, angle=180.0
    )
    lab = labels(Query("count", ("subject", "wall"), "bounce"), ball, wall)
    assert observe.count(lab, every(lab)) == 3
    # starting on its way out from the wall, the ball has not touched it in the first frame
    ball = ball.with_states(x=190.0 - 5.0 - 40 * np.abs(np.sin(np.pi * (i + 2) / 10)))
    lab = labels(Query("count", ("subject", "wall"), "bounce"), ball, wall)
    assert observe.count(lab, every(lab)) == 3
    # on a 45-degree slope (normal up and to the right) the height is along that normal: a
    # ball starting on the slope touches it in the first frame
    n_hat = np.array([math.cos(math.radians(-45.0)), math.sin(math.radians(-45.0))])
    d = 5.0 + 40 * np.abs(np.sin(np.pi * i / 10))
    ball = mover(100 + d * n_hat[0], 60 + d * n_hat[1], size=5.0)
    slope = Track.build(
        "slope", n, x=100.0, y=60.0, role="anchor", shape="floor", size=0, angle=-45.0
    )
    lab = labels(Query("count", ("subject", "slope"), "bounce"), ball, slope)
    assert observe.events(lab, every(lab)) == [(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)]
    # nor has a ball that starts 20 px above the floor and rises
    assert bounces([20.0, 30.0, 40.0, 30.0, 20.0, 10.0]) == []


# order ---------------------------------------------------------------------------------------


def starter(x, y=30.0, angle=0.0, name="subject") -> Track:
    return mover(np.asarray(x, float), y, name=name, angle=angle)


def onset_of(track: Track, measured: bool = False) -> int | None:
    meta = {"measured": True} if measured else {}
    lab = labels(Query("order", (track.name,), "move"), track, meta=meta)
    return observe.onset(lab, every(lab), track, "move")


def test_onset_tolerances_of_exact_and_measured_states():
    # exact states: half a pixel or half a degree is a start
    assert onset_of(starter([10, 10, 10, 10.5, 11])) == 3
    assert onset_of(starter([10.0] * 5, angle=[0, 0, 0, 0.5, 1])) == 3
    # measured states jitter: a pixel is noise (exactly 1.5 px too), two pixels is a start
    x = [10, 11, 10, 9, 10, 12, 14]
    assert onset_of(starter(x), measured=True) == 5
    assert onset_of(starter([10, 11.5, 10, 11.5, 13]), measured=True) == 4
    # and two degrees of wobble is noise (three exactly too), 3.5 a start
    assert onset_of(starter([10.0] * 6, angle=[0, 2, -2, 3, 3.5, 6]), measured=True) == 4
    assert onset_of(starter([10.0] * 6), measured=False) is None


def test_onset_is_against_the_first_sample():
    # moved between the first two samples and then still: it started at the second
    assert onset_of(starter([10, 20, 20, 20])) == 1
    assert onset_of(mover([10.0] * 4, [30.0, 40.0, 40.0, 40.0])) == 1
    assert onset_of(starter([10.0] * 4, angle=[0, 20, 20, 20])) == 1
    # standing turned 45 degrees and never turning: no start
    assert onset_of(starter([10.0] * 4, angle=45.0)) is None


# gestures ------------------------------------------------------------------------------------

POSES = GESTURE_AT  # kit.py: hand positions per gesture
CROWN, SHOULDERS = (100.0, 15.0), ((120.0, 50.0), (80.0, 50.0))


def gesturing(seq, anchor: str, hands=None) -> Labels:
    """A person holding each (pose, frames) of ``seq``; ``hands`` gives explicit
    (left, right) hand positions per frame instead."""
    if hands is None:
        hands = [POSES[p] for p, k in seq for _ in range(k)]
    n = len(hands)
    left, right = (np.array([h[k] for h in hands]) for k in (0, 1))
    anchors = [
        Track.build(name, n, x=x, y=y, role="anchor", shape="anchor", size=0)
        for name, (x, y) in (
            ("crown", CROWN),
            ("shoulder1", SHOULDERS[0]),
            ("shoulder2", SHOULDERS[1]),
        )
    ]
    objects = ("left_hand", "right_hand", "crown", "shoulder1", "shoulder2")
    return labels(
        Query("next", objects, anchor),
        mover(left[:, 0], left[:, 1], name="left_hand", shape="hand"),
        mover(right[:, 0], right[:, 1], name="right_hand", shape="hand"),
        *anchors,
    )


def read(lab: Labels) -> list[str | None]:
    return observe.gesture_frames(lab, every(lab))


SEQ = [("right_up", 2), (None, 1), ("arms_out", 2), (None, 1), ("left_up", 2), ("clap", 2)]
SEEN = ["right_up"] * 2 + [None] + ["arms_out"] * 2 + [None] + ["left_up"] * 2 + ["clap"] * 2


def moved(lab: Labels, f) -> Labels:
    return lab.with_tracks(tuple(t.with_states(**dict(zip("xy", f(t.x, t.y)))) for t in lab.tracks))


@pytest.mark.parametrize("deg", [30.0, 90.0, 200.0])
def test_gestures_read_the_same_with_the_body_turned(deg):
    a = math.radians(deg)

    def turn(x, y):
        dx, dy = x - 100.0, y - 50.0
        return 100 + dx * math.cos(a) - dy * math.sin(a), 50 + dx * math.sin(a) + dy * math.cos(a)

    assert read(moved(gesturing(SEQ, "left_up"), turn)) == SEEN


def test_gestures_read_the_same_at_a_fiftieth_of_the_size():
    # shoulders 0.8 px apart, the head 0.7 px above them: no threshold is in pixels
    small = moved(gesturing(SEQ, "left_up"), lambda x, y: (0.02 * x, 0.02 * y))
    assert read(small) == SEEN


def test_a_frame_without_shoulders_reads_nothing_and_the_next_frames_still_read():
    lab = gesturing(SEQ, "left_up")
    s2 = lab.track("shoulder2")
    x = s2.x.copy()
    x[1] = SHOULDERS[0][0]  # both shoulders at one point in frame 1
    lab = lab.with_tracks(
        tuple(t.with_states(x=x) if t.name == "shoulder2" else t for t in lab.tracks)
    )
    assert read(lab) == ["right_up", None] + SEEN[2:]


@pytest.mark.parametrize(
    "left,right,want",
    [
        # a hand level with the top of the head is not raised
        ((112.0, 15.0), (88.0, 100.0), None),
        ((112.0, 100.0), (88.0, 15.0), None),
        # one hand up needs the other below the shoulders: at shoulder height or higher,
        # the pose is on its way to both hands up
        ((112.0, 5.0), (88.0, 50.0), None),
        ((112.0, 5.0), (88.0, 30.0), None),
        ((112.0, 50.0), (88.0, 5.0), None),
        ((112.0, 30.0), (88.0, 5.0), None),
        ((104.0, 5.0), (100.0, 25.0), None),  # close together, one raised: no clap
        # hands one above the other in front of the body are not together
        ((100.0, 55.0), (100.0, 85.0), None),
        # together but off to one side (0.8 shoulder widths from the midline): no clap
        ((70.0, 62.0), (66.0, 62.0), None),
        # apart in front of the chest: not out to the sides
        ((115.0, 60.0), (85.0, 60.0), None),
        # the gestures themselves, for contrast
        ((112.0, 5.0), (88.0, 100.0), "left_up"),
        ((104.0, 62.0), (96.0, 62.0), "clap"),
    ],
)
def test_gesture_poses(left, right, want):
    assert read(gesturing(None, "clap", hands=[POSES[None], (left, right)]))[1] == want


# paths ---------------------------------------------------------------------------------------

PD = math.hypot(640, 360)


def poly(vertices, per_side: int = 1, scale: float = 100.0, at=(300.0, 180.0)) -> np.ndarray:
    """A closed path through ``vertices`` with ``per_side`` samples on each side."""
    v = np.asarray(vertices, float) * scale + np.asarray(at)
    v = np.vstack([v, v[:1]])
    out = [
        v[k] + (v[k + 1] - v[k]) * j / per_side for k in range(len(v) - 1) for j in range(per_side)
    ]
    return np.vstack([out, v[:1]])


def arc(deg_from: float, deg_to: float, k: int = 60, r: float = 100.0) -> np.ndarray:
    a = np.radians(np.linspace(deg_from, deg_to, k))
    return np.stack([300 + r * np.cos(a), 180 + r * np.sin(a)], 1)


def turned(vertices, deg: float, sx: float = 1.0) -> list[list[float]]:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return [[sx * x * c - y * s, sx * x * s + y * c] for x, y in vertices]


SQ = [[-1, -1], [1, -1], [1, 1], [-1, 1]]


@pytest.mark.parametrize(
    "points,want",
    [
        (poly(turned(SQ, 3.0)), "square"),  # tilted 3 degrees: still square
        (poly(turned(SQ, 20.0)), None),  # turned 20 degrees: neither square nor diamond
        (poly(turned(SQ, 45.0, sx=2.0)), None),  # a 2:1 rectangle on its corner: no diamond
        (poly(turned(SQ, 45.0)), "diamond"),
        # a corner cut by sampling into two 45-degree bends 14 px apart is still one corner
        (poly([[-1, -1], [0.9, -1], [1, -0.9], [1, 1], [-1, 1]]), "square"),
        # one pair of sides 8.5 degrees apart (over the 8 allowed), the other parallel
        (poly([[-1, -1], [1, -1], [1, 1.15], [-1, 0.85]]), "trapezoid"),
        # an 8 drawn with four strokes crosses itself once
        (poly([[0, 0], [1, 1], [1, 0], [0, 1]]), "infinity"),
        (poly([[1, 0], [0, 1], [0, 0], [1, 1]]), "infinity"),
        # a circle stopped 11.5 degrees short of closing (a gap of 10% of its size) is open
        (arc(0, 348.5), None),
        # one stopped 3.4 degrees short (3%) closes
        (arc(0, 356.6), "circle"),
    ],
)
def test_classify_path_edges(points, want):
    assert observe.classify_path(points, PD) == want


def test_a_path_exactly_three_percent_of_the_diagonal_across_is_read():
    assert 0.03 * 500.0 == 15.0
    assert observe.classify_path(poly(SQ, scale=7.5), 500.0) == "square"


def test_trajectory_size_threshold_is_a_share_of_the_diagonal():
    # a circle 21 px across: under 3% of the diagonal (22 px), over 3% of the width (19.2 px)
    pts = arc(0, 360, 40, r=10.5)
    lab = labels(Query("trajectory", ("subject",)), mover(pts[:, 0], pts[:, 1]), size=(640, 360))
    assert observe.trajectory(lab, every(lab)) == "none"


def test_a_square_drawn_with_jitter_is_still_a_square():
    # 25 samples a side, each up to 3 px (1.5% of the side) off the line: the outline's
    # tolerance (2% of the size) keeps the four corners and drops the wobble
    for seed in range(6):
        pts = poly(SQ, per_side=25)
        pts[1:-1] += np.random.default_rng(seed).uniform(-3.0, 3.0, pts[1:-1].shape)
        assert observe.classify_path(pts, PD) == "square", seed


def test_outline_is_scale_free():
    tri = [[0, -1], [0.87, 0.5], [-0.87, 0.5]]
    for scale in (100.0, 0.4):
        shape = observe.outline(poly(tri, per_side=5, scale=scale, at=(0.0, 0.0)))
        assert shape is not None and len(shape.corners) == 3 and shape.crossings == 0
    assert observe.outline(np.full((10, 2), 5.0)) is None


def test_a_corner_cut_by_sampling_is_one_corner_at_the_sharper_bend():
    # the square's top-right corner cut into two bends 10 px apart, 60 and 30 degrees
    cut = [[-1, -1], [0.9, -1], [1, -1 + 0.1 * math.tan(math.radians(60))], [1, 1], [-1, 1]]
    shape = observe.outline(poly(cut))
    assert len(shape.corners) == 4
    bend = int(np.argmin(np.hypot(*(shape.ring - (390.0, 80.0)).T)))
    assert bend in shape.corners  # the 60-degree bend, not the 30-degree one
    assert observe.classify_path(poly(cut), PD) == "square"


def test_a_teardrop_is_no_circle_wherever_its_point_is():
    # a round path with one sharp point, drawn from the point or from the far side
    a = np.radians(np.linspace(25, 335, 40))
    drop = np.vstack(
        [[[150.0, 180.0]], np.stack([300 - 100 * np.cos(a), 180 + 100 * np.sin(a)], 1)]
    )
    for start in (0, 20):
        path = np.roll(drop, -start, axis=0)
        assert observe.classify_path(np.vstack([path, path[:1]]), PD) is None


def turns_of(ring: np.ndarray) -> np.ndarray:
    """Signed turn in degrees at each vertex of a closed ring (the exterior angle)."""
    u = ring - np.roll(ring, 1, axis=0)
    v = np.roll(ring, -1, axis=0) - ring
    return np.degrees(np.arctan2(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0], (u * v).sum(1)))


def test_a_cut_corner_where_the_ring_closes_counts_once():
    # a square ring that starts and ends on the two 45-degree bends of its cut top-left
    # corner: the two bends are one corner (at either of them: they turn alike)
    ring = np.array([[-0.9, -1], [1, -1], [1, 1], [-1, 1], [-1, -0.9]]) * 100 + [300, 180]
    turns = turns_of(ring)
    np.testing.assert_allclose(turns, [45, 90, 90, 90, 45])
    corners = shapes._corners(ring, turns, 200.0)
    assert sorted(corners) in ([0, 1, 2, 3], [1, 2, 3, 4])
    # a three-quarter disc whose only corner is cut the same way: two groups of bends
    a = np.radians(np.arange(0, 271, 15))
    arc = np.stack([100 * np.cos(a), 100 * np.sin(a)], 1)
    ring = np.vstack([[[100.0, -90.0]], arc, [[90.0, -100.0]]]) + [300, 180]
    turns = turns_of(ring)
    assert np.all(np.abs(turns[1:-1]) < 20) and np.allclose(turns[[0, -1]], 45)
    assert shapes._corners(ring, turns, 200.0) in ([0], [len(ring) - 1])
    # cut into three bends 15 px apart (26, 26 and 38 degrees), the ring closing between the
    # second and the third: the first and last are 29 px apart, yet all three are one corner,
    # at the sharpest bend
    k, last = (
        np.array([77.3, -100.0]),
        np.array([77.3, -100.0])
        + 15 * np.array([math.cos(math.radians(26)), math.sin(math.radians(26))]),
    )
    first = last + 15 * np.array([math.cos(math.radians(52)), math.sin(math.radians(52))])
    arc3 = np.stack([first[0] * np.cos(a), 100 * np.sin(a)], 1)
    ring = np.vstack([[first], arc3, [k, last]]) + [300, 180]
    turns = turns_of(ring)
    assert np.all(np.abs(turns[1:-2]) < 20) and np.linalg.norm(ring[-2] - ring[0]) > 24
    assert shapes._corners(ring, turns, 200.0) == [0]
    # and uncut: a single corner, the one group of bends
    ring = np.vstack([[[100.0, -100.0]], arc]) + [300, 180]
    assert shapes._corners(ring, turns_of(ring), 200.0) == [0]


def test_bends_under_twenty_degrees_are_no_part_of_a_corner():
    # a three-quarter disc (10-degree steps) whose corner is rounded off by bends of 35 and 17
    # degrees 15 px apart and one of 38 degrees 30 px further on: no corner (under 50 each,
    # and the 17-degree bend joins none)
    def step(p, deg, length):
        return p + length * np.array([math.cos(math.radians(deg)), math.sin(math.radians(deg))])

    p_a = np.array([69.24, -100.0])
    p_b = step(p_a, 35, 15)
    p_c = step(p_b, 52, 30)
    a = np.radians(np.arange(0, 271, 10))
    arc = np.stack([p_c[0] * np.cos(a), 100 * np.sin(a)], 1)
    ring = np.vstack([[p_c], arc, [p_a, p_b]]) + [300, 180]
    turns = turns_of(ring)
    np.testing.assert_allclose(turns[[0, -2, -1]], [38, 35, 17], atol=0.5)
    assert np.all(np.abs(turns[1:-2]) < 14)
    assert shapes._corners(ring, turns, 200.0) == []


def test_segments_that_touch_or_miss_do_not_cross_at_any_scale():
    # a T: one segment ends on the other; and a pair that misses
    t_pairs = [((0, 0), (2, 0), (1, 0), (1, 1)), ((0, 0), (2, 0), (1, -1), (1, 0))]
    miss = ((0, 0), (0.5, 0), (1, -1), (1, 1))
    cross = ((0, 0), (2, 0), (1, -1), (1, 1))
    for scale in (100.0, 1.0, 0.01):
        for p1, p2, p3, p4 in t_pairs + [miss]:
            a, b, c, d = (np.array(p, float) * scale for p in (p1, p2, p3, p4))
            for args in ((a, b, c, d), (c, d, a, b), (b, a, d, c), (d, c, b, a)):
                assert not shapes._segments_cross(*args), (scale, args)
        a, b, c, d = (np.array(p, float) * scale for p in cross)
        assert shapes._segments_cross(a, b, c, d) and shapes._segments_cross(c, d, a, b)


def test_parallel_is_judged_by_angle_at_any_length():
    for k in (100.0, 1.0, 0.01):
        assert shapes._parallel(np.array([k, 0.0]), np.array([-2 * k, 0.0]))
        assert not shapes._parallel(np.array([k, 0.0]), np.array([k, k]))
