"""observe: every fact derived from hand-built states, and the path classifier."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from kit import GESTURE_AT

from tempogen import observe
from tempogen.facts import answer_of as derive_answer
from tempogen.facts import get_fact
from tempogen.labels import Labels, Query, Track
from tempogen.questions import answer_key

W, H, FPS = 200, 100, 10.0
DIAG = math.hypot(W, H)


def labels(query: Query, *tracks: Track, fps: float = FPS) -> Labels:
    return Labels(W, H, fps, tuple(tracks), query)


def mover(x, y, name: str = "subject", **kw) -> Track:
    n = max(np.size(x), np.size(y))
    return Track.build(name, n, x=x, y=y, **kw)


def still(n: int, name: str, x: float = 100.0, y: float = 50.0, **kw) -> Track:
    return Track.build(name, n, x=x, y=y, **kw)


def answer_of(lab: Labels, idx=None):
    return derive_answer(lab, None if idx is None else np.asarray(idx))


# direction -----------------------------------------------------------------------------------

STEP = {"right": (4.0, 0.0), "left": (-4.0, 0.0), "down": (0.0, 3.0), "up": (0.0, -3.0)}


def path_of(steps: list[tuple[float, float]], start=(100.0, 50.0)):
    xy = np.concatenate([[start], start + np.cumsum(steps, axis=0)])
    return xy[:, 0], xy[:, 1]


@pytest.mark.parametrize("word", list(STEP))
def test_direction_single(word):
    x, y = path_of([STEP[word]] * 10)
    lab = labels(Query("direction", ("subject",)), mover(x, y))
    assert answer_of(lab) == (word,)


@pytest.mark.parametrize(
    "first,second", [("right", "up"), ("left", "down"), ("up", "left"), ("down", "up")]
)
def test_direction_two_legs(first, second):
    x, y = path_of([STEP[first]] * 8 + [STEP[second]] * 8)
    lab = labels(Query("direction", ("subject",)), mover(x, y))
    assert answer_of(lab) == (first, second)


def test_direction_none_when_still_or_drifting_below_threshold():
    lab = labels(Query("direction", ("subject",)), still(12, "subject"))
    assert answer_of(lab) == ()
    # 0.05 px per frame = 0.5 px/s, under MOVE_EPS * diagonal (~1.8 px/s here)
    assert 0.05 * FPS < observe.MOVE_EPS * DIAG
    x, y = path_of([(0.05, 0.0)] * 12)
    assert answer_of(labels(Query("direction", ("subject",)), mover(x, y))) == ()


def test_direction_ignores_diagonal_steps():
    diag_step = (3.0, 3.0)
    x, y = path_of([STEP["right"]] * 4 + [diag_step] * 6 + [STEP["right"]] * 4)
    lab = labels(Query("direction", ("subject",)), mover(x, y))
    assert answer_of(lab) == ("right",)  # the diagonal leg adds nothing, the runs merge
    x, y = path_of([diag_step] * 5 + [STEP["down"]] * 5 + [(-3.0, -3.0)] * 5)
    lab = labels(Query("direction", ("subject",)), mover(x, y))
    assert answer_of(lab) == ("down",)
    x, y = path_of([diag_step] * 12)
    assert answer_of(labels(Query("direction", ("subject",)), mover(x, y))) == ()


def test_direction_dominance_ratio():
    # 4 px right and 2 px down per frame: ratio 2 >= DOMINANCE reads as right
    x, y = path_of([(4.0, 2.0)] * 6)
    assert answer_of(labels(Query("direction", ("subject",)), mover(x, y))) == ("right",)
    # 4 and 3: ratio 1.33 has no clear direction
    x, y = path_of([(4.0, 3.0)] * 6)
    assert answer_of(labels(Query("direction", ("subject",)), mover(x, y))) == ()


def test_direction_from_sparse_samples_matches_every_frame():
    x, y = path_of([STEP["left"]] * 15 + [STEP["up"]] * 15)
    lab = labels(Query("direction", ("subject",)), mover(x, y))
    idx = observe.uniform_indices(lab.num_frames, 16)
    assert answer_of(lab, idx) == answer_of(lab) == ("left", "up")


# rotation: spin ------------------------------------------------------------------------------


def spin(angles, shape: str) -> Labels:
    tr = still(len(angles), "subject", shape=shape, angle=np.asarray(angles, float))
    return labels(Query("rotation", ("subject",), "spin"), tr)


@pytest.mark.parametrize("shape", ["triangle", "square", "star", "arrow", "block"])
def test_spin_senses(shape):
    i = np.arange(20)
    step = 0.3 * observe.period_of(shape)  # well under half the symmetry period
    assert answer_of(spin(step * i, shape)) == ("cw",)
    assert answer_of(spin(-step * i, shape)) == ("ccw",)
    both = step * np.minimum(i, 9) - step * np.maximum(i - 9, 0)
    assert answer_of(spin(both, shape)) == ("cw", "ccw")
    assert answer_of(spin(-both, shape)) == ("ccw", "cw")


def test_spin_none():
    i = np.arange(20)
    assert answer_of(spin(np.full(20, 33.0), "square")) == ()
    # a circle looks the same at every angle, so even a fast turn shows nothing
    assert answer_of(spin(30.0 * i, "circle")) == ()
    # 0.5 degrees per frame = 5 deg/s, under TURN_EPS
    assert 0.5 * FPS < observe.TURN_EPS
    assert answer_of(spin(0.5 * i, "triangle")) == ()


def _seen_sense(step: float, period: float) -> str:
    """The turn a viewer sees: the equivalent turn nearest zero (ties do not occur below)."""
    seen = step - period * round(step / period)
    return "cw" if seen > 0 else "ccw"


@pytest.mark.parametrize(
    "step,shape,expected",
    [
        (100.0, "square", "cw"),  # 100 = 90 + 10: looks like a slow clockwise turn
        (80.0, "square", "ccw"),  # 80 = 90 - 10: wagon wheel, reads backwards
        (-80.0, "square", "cw"),
        (260.0, "square", "ccw"),  # 260 = 270 - 10
        (100.0, "triangle", "ccw"),  # 100 = 120 - 20
        (100.0, "star", "cw"),  # 100 = 72 + 28
        (100.0, "arrow", "cw"),  # no symmetry: seen as turned
        (200.0, "arrow", "ccw"),  # 200 = 360 - 160
    ],
)
def test_spin_wagon_wheel(step, shape, expected):
    assert _seen_sense(step, observe.period_of(shape)) == expected
    lab = spin(step * np.arange(16), shape)
    assert answer_of(lab) == (expected,)
    np.testing.assert_allclose(
        np.abs(observe.turn_steps(lab, np.arange(16))),
        abs(step - observe.period_of(shape) * round(step / observe.period_of(shape))),
    )


def test_period_and_wrap():
    assert observe.period_of("square") == 90.0
    assert observe.period_of("triangle") == 120.0
    assert observe.period_of("circle") == 0.0
    assert observe.period_of("unknown-shape") == 360.0
    np.testing.assert_allclose(
        observe.wrap(np.array([10.0, 190.0, -190.0, 180.0, 370.0])), [10, -170, 170, 180, 10]
    )


# rotation: orbit -----------------------------------------------------------------------------


def orbit(theta_deg, r: float = 30.0, kind: str = "orbit", fact: str = "rotation") -> Labels:
    th = np.radians(np.asarray(theta_deg, float))
    cx, cy = 100.0, 50.0
    moon = mover(cx + r * np.cos(th), cy + r * np.sin(th), shape="circle")
    planet = still(len(th), "planet", cx, cy, role="prop")
    return labels(Query(fact, ("subject", "planet"), kind), moon, planet)


def test_orbit_senses():
    i = np.arange(25)
    # y grows downwards: angle 0 is right of the centre, 90 below it, so growing angle
    # goes right -> bottom -> left: clockwise on screen
    assert answer_of(orbit(20.0 * i)) == ("cw",)
    assert answer_of(orbit(-20.0 * i)) == ("ccw",)
    assert answer_of(orbit(20.0 * np.minimum(i, 12) - 20.0 * np.maximum(i - 12, 0))) == (
        "cw",
        "ccw",
    )
    assert answer_of(orbit(np.full(25, 45.0))) == ()


def test_orbit_ignores_the_moons_own_spin_and_wraps_at_360():
    i = np.arange(16)
    lab = orbit(200.0 * i)  # 200 degrees a step looks like 160 the other way
    assert answer_of(lab) == ("ccw",)
    # a square moon spinning ccw while orbiting cw: the orbit is what the query reads
    th = np.radians(20.0 * i)
    moon = mover(100 + 30 * np.cos(th), 50 + 30 * np.sin(th), shape="square", angle=-20.0 * i)
    lab = labels(
        Query("rotation", ("subject", "planet"), "orbit"), moon, still(16, "planet", role="prop")
    )
    assert answer_of(lab) == ("cw",)
    assert observe.observe(lab)["rotation"] == ("cw",)


# speed ---------------------------------------------------------------------------------------


def glide(x) -> Labels:
    return labels(Query("speed", ("subject",), "position"), mover(np.asarray(x, float), 50.0))


def test_speed_classes():
    i = np.arange(31, dtype=float)
    assert answer_of(glide(10 + 0.15 * i**2)) == "accelerating"
    assert answer_of(glide(10 + 0.15 * (30**2 - (30 - i) ** 2))) == "decelerating"
    assert answer_of(glide(10 + 4 * i)) == "constant"
    assert answer_of(glide(np.full(31, 80.0))) == "none"


def test_speed_from_rest_is_accelerating():
    i = np.arange(31, dtype=float)
    assert answer_of(glide(20 + 4 * np.maximum(i - 12, 0))) == "accelerating"


def test_speed_ambiguous_change_is_undetermined():
    # 1.3x faster at the end: neither constant (<= 1.15) nor accelerating (>= 1.6)
    steps = np.r_[np.full(15, 2.0), np.full(15, 2.6)]
    assert answer_of(glide(np.r_[10.0, 10 + np.cumsum(steps)])) is None


def test_speed_of_angle():
    i = np.arange(31, dtype=float)

    def turning(angle):
        tr = still(31, "subject", shape="arrow", angle=angle)
        return labels(Query("speed", ("subject",), "angle"), tr)

    assert answer_of(turning(6.0 * i)) == "constant"
    assert answer_of(turning(0.2 * i**2)) == "accelerating"
    assert answer_of(turning(np.zeros(31))) == "none"


# flashes -------------------------------------------------------------------------------------


def flashes(onsets, n: int = 40, length: int = 2, visible=True, fact="count") -> Labels:
    lit = np.zeros(n, bool)
    for s in onsets:
        lit[s : s + length] = True
    tr = still(n, "subject", lit=lit, visible=visible)
    return labels(Query(fact, ("subject",), "flash"), tr)


@pytest.mark.parametrize("onsets", [[], [5], [3, 12], [2, 9, 16, 30], [0, 6, 12, 18, 24, 30]])
def test_flash_count(onsets):
    assert answer_of(flashes(onsets)) == len(onsets)


def test_flash_events_are_runs_and_invisible_frames_do_not_count():
    lab = flashes([4, 20], length=5)
    assert observe.events(lab, np.arange(40)) == [(0.4, 0.8), (2.0, 2.4)]
    vis = np.ones(40, bool)
    vis[20:25] = False
    assert answer_of(flashes([4, 20], length=5, visible=vis)) == 1


@pytest.mark.parametrize(
    "gaps,expected",
    [
        ([10, 7, 5, 3], "increasing"),
        ([3, 5, 7, 10], "decreasing"),
        ([6, 6, 6, 6], "constant"),
        ([6, 5, 6, 6], "constant"),  # a frame of jitter
    ],
)
def test_flash_frequency(gaps, expected):
    onsets = np.concatenate([[2], 2 + np.cumsum(gaps)]).tolist()
    assert answer_of(flashes(onsets, fact="frequency")) == expected


def test_flash_frequency_none_and_undetermined():
    assert answer_of(flashes([], fact="frequency")) == "none"
    # fewer than four flashes cannot show a trend
    assert answer_of(flashes([2, 10, 14], fact="frequency")) is None
    # gaps alternate 4, 10, 4, 10 frames: no monotone trend
    assert answer_of(flashes([1, 5, 15, 19, 29], fact="frequency")) is None


def test_flash_frequency_constant_needs_every_gap_equal():
    # gaps of 10, 4, 4, 10 frames (1.0 s, 0.4 s, 0.4 s, 1.0 s): the rate speeds up and slows
    # down again, far beyond the one-frame slack, so it is not constant
    assert answer_of(flashes([1, 11, 15, 19, 29], fact="frequency")) is None


# bounces -------------------------------------------------------------------------------------


def floor(n: int, y: float = 90.0) -> Track:
    return Track.build("floor", n, x=W / 2, y=y, role="anchor", shape="floor", size=0, angle=-90.0)


@pytest.mark.parametrize("n,period", [(36, 10), (41, 8), (30, 12)])
def test_bounce_count_against_floor(n, period):
    i = np.arange(n)
    size = 5.0
    height = 25 * np.abs(np.sin(np.pi * i / period))  # touches down at multiples of `period`
    ball = mover(100.0 + i, 90.0 - size - height, size=size)
    lab = labels(Query("count", ("subject", "floor"), "bounce"), ball, floor(n))
    touches = sum(1 for k in range(n) if k % period == 0)
    assert answer_of(lab) == touches
    assert len(observe.events(lab, np.arange(n))) == touches


def test_bounce_uses_the_anchor_normal():
    # a wall on the right, normal pointing left (180 degrees): x distance is what counts
    n = 30
    i = np.arange(n)
    ball = mover(190.0 - 5.0 - 40 * np.abs(np.sin(np.pi * i / 10)), 50.0, size=5.0)
    wall = Track.build("wall", n, x=190.0, y=50.0, role="anchor", shape="floor", size=0, angle=180)
    lab = labels(Query("count", ("subject", "wall"), "bounce"), ball, wall)
    assert answer_of(lab) == 3
    # the same ball against a floor far below never touches it
    lab = labels(Query("count", ("subject", "floor"), "bounce"), ball, floor(n))
    assert answer_of(lab) == 0


# loops ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("step,n", [(30.0, 30), (-30.0, 30), (25.0, 60), (40.0, 10)])
def test_loop_count(step, n):
    lab = orbit(step * np.arange(n), kind="loop", fact="count")
    assert answer_of(lab) == int(abs(step) * (n - 1) // 360)


# order ---------------------------------------------------------------------------------------


def starter(name: str, n: int, start: int | None, x0: float) -> Track:
    """Rests until frame ``start`` and then moves down 2 px a frame (never, for None)."""
    i = np.arange(n)
    y = 30.0 + (0 if start is None else 2.0 * np.maximum(i - start, 0))
    return mover(np.full(n, x0), y, name=name, role="prop")


def order_labels(starts: dict[str, int | None], n: int = 31, kind="move") -> Labels:
    names = tuple(starts)
    if kind == "move":
        tracks = [starter(k, n, s, 40.0 + 40 * j) for j, (k, s) in enumerate(starts.items())]
    else:
        tracks = []
        for j, (k, s) in enumerate(starts.items()):
            lit = np.zeros(n, bool)
            if s is not None:
                lit[s:] = True
            tracks.append(still(n, k, 40.0 + 40 * j, role="cue", lit=lit))
    return labels(Query("order", names, kind), *tracks)


def test_order_move():
    lab = order_labels({"obj1": 8, "obj2": 4, "obj3": 12})
    # onsets are the first frames where the object has moved: start + 1
    assert answer_of(lab) == (("obj2",), ("obj1",), ("obj3",))
    lab = order_labels({"obj1": 6, "obj2": 6})
    assert answer_of(lab) == (("obj1", "obj2"),)
    lab = order_labels({"obj1": None, "obj2": 6})
    assert answer_of(lab) == (("obj2",),)
    assert answer_of(order_labels({"obj1": None, "obj2": None})) == ()


def test_order_lit():
    assert answer_of(order_labels({"a": 9, "b": 3, "c": 20}, kind="lit")) == (
        ("b",),
        ("a",),
        ("c",),
    )
    assert answer_of(order_labels({"a": 5, "b": 5, "c": None}, kind="lit")) == (("a", "b"),)
    assert answer_of(order_labels({"a": None, "b": None}, kind="lit")) == ()
    # lit from the very first frame: when it started cannot be seen
    assert answer_of(order_labels({"a": 0, "b": 5}, kind="lit")) is None


def test_order_seen_through_samples_merges_starts_between_samples():
    lab = order_labels({"obj1": 5, "obj2": 4})  # moved first at frames 6 and 5
    idx = observe.uniform_indices(31, 16)  # every other frame: 0, 2, 4, 6, ...
    assert answer_of(lab) == (("obj2",), ("obj1",))
    assert answer_of(lab, idx) == (("obj1", "obj2"),)


# classify_path -------------------------------------------------------------------------------

PD = math.hypot(640, 360)  # the diagonal the classifier compares extents with


def closed(vertices, scale: float = 100.0, at=(300.0, 180.0)) -> np.ndarray:
    v = np.asarray(vertices, float) * scale + np.asarray(at)
    return np.vstack([v, v[:1]])


def ring(k: int, r: float = 1.0, start_deg: float = 0.0, step_deg: float | None = None):
    step = 360.0 / k if step_deg is None else step_deg
    a = np.radians(start_deg + step * np.arange(k))
    return np.stack([r * np.cos(a), r * np.sin(a)], 1)


SHAPES = {
    "circle": closed(ring(40)),
    "circle_ccw": closed(ring(40)[::-1]),
    "triangle": closed(ring(3, start_deg=-90)),
    "triangle_down": closed(ring(3, start_deg=90)),
    "square": closed([[-1, -1], [1, -1], [1, 1], [-1, 1]]),
    "rectangle": closed([[-1.5, -0.6], [1.5, -0.6], [1.5, 0.6], [-1.5, 0.6]]),
    "square_with_edge_points": closed(
        [[-1, -1], [0, -1], [1, -1], [1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0]]
    ),
    "diamond": closed([[0, -1], [0.9, 0], [0, 1], [-0.9, 0]]),
    "trapezoid": closed([[-1, 0.7], [1, 0.7], [0.45, -0.7], [-0.45, -0.7]]),
    "trapezoid_flipped": closed([[-1, -0.7], [1, -0.7], [0.45, 0.7], [-0.45, 0.7]]),
    "star": closed(ring(5, start_deg=-90, step_deg=144)),
    "pentagon": closed(ring(5, start_deg=-90)),
    "parallelogram": closed([[-1, -0.5], [0.6, -0.5], [1, 0.5], [-0.6, 0.5]]),
}


def lemniscate(k: int, phase: float) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, k) + phase
    return np.stack([1.4 * np.sin(a), 0.8 * np.sin(a) * np.cos(a)], 1) * 100 + [300, 180]


@pytest.mark.parametrize(
    "name,expected",
    [
        ("circle", "circle"),
        ("circle_ccw", "circle"),
        ("triangle", "triangle"),
        ("triangle_down", "triangle"),
        ("square", "square"),
        ("rectangle", "square"),
        ("square_with_edge_points", "square"),
        ("diamond", "diamond"),
        ("trapezoid", "trapezoid"),
        ("trapezoid_flipped", "trapezoid"),
        ("star", "star"),
        ("pentagon", None),
        ("parallelogram", None),
    ],
)
def test_classify_path(name, expected):
    assert observe.classify_path(SHAPES[name], PD) == expected


@pytest.mark.parametrize(
    "k,phase", [(61, 0.1), (16, np.pi / 2 + 0.2), (33, 1.0), (61, np.pi / 2), (17, np.pi / 2)]
)
def test_classify_infinity(k, phase):
    # phase pi/2 with (k - 1) % 4 == 0 puts the crossing exactly on two samples
    pts = lemniscate(k, phase)
    assert observe.classify_path(pts, PD) == "infinity"
    assert observe.classify_path(np.round(pts, 2), PD) == "infinity"


def test_classify_infinity_with_the_crossing_on_a_vertex():
    # the crossing point is itself a sampled vertex, passed through twice
    fig8 = closed([[0, 0], [1, 1], [2, 0], [1, -1], [0, 0], [-1, 1], [-2, 0], [-1, -1]], 60)
    assert observe.classify_path(fig8, PD) == "infinity"


def test_classify_none_open_and_too_few():
    tiny = closed(ring(30), scale=0.02 * PD / 2 * 0.9)  # extent under 3% of the diagonal
    assert observe.classify_path(tiny, PD) == "none"
    assert observe.classify_path(np.full((10, 2), 50.0), PD) == "none"
    half = np.radians(np.linspace(0, 180, 20))
    arc = np.stack([np.cos(half), np.sin(half)], 1) * 100 + 200
    assert observe.classify_path(arc, PD) is None
    ell = np.array([[100.0, 100.0], [300.0, 100.0], [300.0, 300.0]])
    assert observe.classify_path(ell, PD) is None
    assert observe.classify_path(ell[:2], PD) is None


def test_trajectory_from_labels_uses_sampled_frames():
    verts = SHAPES["square"]
    n = 41  # 4 edges of 10 frames, corners on frames 0, 10, 20, 30, 40
    x = np.interp(np.arange(n), np.arange(0, n, 10), verts[:, 0])
    y = np.interp(np.arange(n), np.arange(0, n, 10), verts[:, 1])
    lab = Labels(640, 360, 10.0, (mover(x, y),), Query("trajectory", ("subject",)))
    assert answer_of(lab) == "square"
    assert answer_of(lab, [0, 10, 20, 30, 40]) == "square"
    # three corners alone draw a triangle-like open path: not closed
    assert answer_of(lab, [0, 10, 20, 30]) is None


# one frame, sampling, misuse -----------------------------------------------------------------


def _every_query() -> list[Labels]:
    n = 20
    i = np.arange(n, dtype=float)
    moving = mover(20 + 4 * i, 50.0, shape="square", angle=10 * i, lit=i % 5 == 1)
    other = starter("other", n, 3, 150.0)
    q = [
        Query("direction", ("subject",)),
        Query("rotation", ("subject",), "spin"),
        Query("rotation", ("subject", "other"), "orbit"),
        Query("speed", ("subject",), "position"),
        Query("frequency", ("subject",), "flash"),
        Query("count", ("subject",), "flash"),
        Query("count", ("subject", "other"), "loop"),
        Query("order", ("subject", "other"), "move"),
        Query("trajectory", ("subject",)),
    ]
    return [labels(qq, moving, other) for qq in q]


@pytest.mark.parametrize("lab", _every_query(), ids=lambda lab: lab.query.fact + lab.query.kind)
def test_single_frame_determines_nothing(lab):
    for idx in ([0], [lab.num_frames - 1], [7]):
        assert answer_of(lab, np.array(idx)) is None
        facts = observe.observe(lab, np.array(idx))
        assert facts and all(v is None for v in facts.values()), facts


def test_observe_reports_the_facts_the_query_supports():
    labs = {lab.query.fact + lab.query.kind: lab for lab in _every_query()}
    assert set(observe.observe(labs["direction"])) == {"direction", "speed"}
    assert set(observe.observe(labs["rotationorbit"])) == {"direction", "speed", "rotation"}
    assert set(observe.observe(labs["countflash"])) == {
        "direction",
        "speed",
        "count",
        "frequency",
    }
    assert set(observe.observe(labs["ordermove"])) == {"direction", "speed", "order"}
    assert set(observe.observe(labs["trajectory"])) == {"direction", "speed", "trajectory"}
    facts = observe.observe(labs["countflash"])
    assert facts["direction"] == ("right",) and facts["count"] == 4 and facts["speed"] == "constant"


@pytest.mark.parametrize("n,m", [(16, 16), (17, 16), (31, 16), (100, 16), (301, 16), (7, 3)])
def test_uniform_indices_is_tomato_sampling(n, m):
    idx = observe.uniform_indices(n, m)
    np.testing.assert_array_equal(idx, np.linspace(0, n - 1, m, dtype=int))
    assert idx[0] == 0 and idx[-1] == n - 1 and len(idx) == m
    assert np.all(np.diff(idx) > 0)


def test_unknown_fact_and_event_kind_raise():
    lab = labels(Query("smell", ("subject",)), still(5, "subject"))
    with pytest.raises(ValueError, match="unknown fact 'smell'"):
        answer_of(lab)
    lab = labels(Query("count", ("subject",), "wobble"), still(5, "subject"))
    with pytest.raises(ValueError, match="'wobble' has no events"):
        answer_of(lab)


# raises (jumps, squats, claps: the subject's height above an anchor line) -------------------


def hops(times: list[float], n: int = 120, lift: float = 12.0) -> Track:
    """Feet resting at y = 80 that leave the floor for 0.6 s from each start time."""
    t = np.arange(n) / FPS
    y = np.full(n, 80.0)
    for s in times:
        inside = (t >= s) & (t <= s + 0.6)
        y[inside] -= lift * np.sin(np.pi * (t[inside] - s) / 0.6)
    return mover(np.full(n, 100.0), y, size=3.0)


@pytest.mark.parametrize("k", [1, 2, 4, 6])
def test_raise_counts_jumps_above_the_floor(k):
    starts = [0.5 + 1.8 * i for i in range(k)]
    lab = labels(Query("count", ("subject", "floor"), "raise"), hops(starts), floor(120))
    assert answer_of(lab) == k
    assert observe.observe(lab)["count"] == k


def test_raise_ignores_a_swing_too_small_to_be_an_action():
    lab = labels(
        Query("count", ("subject", "floor"), "raise"), hops([1.0, 4.0], lift=3.0), floor(120)
    )
    assert answer_of(lab) == 0


def test_raise_reads_a_squat_against_a_line_above_the_head():
    n = 90
    t = np.arange(n) / FPS
    head_y = 20 + 15 * (np.sin(2 * np.pi * t / 3.0 - np.pi / 2) + 1) / 2  # dips 3 times
    ceiling = Track.build("ceiling", n, x=W / 2, y=5.0, role="anchor", shape="floor", angle=90.0)
    lab = labels(
        Query("count", ("subject", "ceiling"), "raise"), mover(np.full(n, 100.0), head_y), ceiling
    )
    assert answer_of(lab) == 3  # lowest points at 1.5 s, 4.5 s, 7.5 s


def _pair(left: int, right: int, n: int = 120) -> Labels:
    """Two people's feet hopping ``left`` and ``right`` times, each over its own floor line."""
    tracks = []
    for name, k, x in (("left", left, 60.0), ("right", right, 140.0)):
        hop = hops([0.5 + 1.8 * i for i in range(k)], n)
        tracks.append(replace(hop, name=name).with_states(x=np.full(n, x)))
        tracks.append(replace(floor(n), name=f"{name}_floor"))
    q = Query("more", ("left", "left_floor", "right", "right_floor"), "raise")
    return labels(q, *tracks)


@pytest.mark.parametrize("left,right,key", [(3, 1, "left"), (2, 5, "right"), (1, 4, "right")])
def test_more_names_the_person_with_the_higher_count(left, right, key):
    lab = _pair(left, right)
    assert get_fact("more").counts(lab) == {"left": left, "right": right}
    assert answer_of(lab) == key
    assert answer_key("more", answer_of(lab, np.arange(0, 120, 2))) == key
    assert answer_of(lab, [0]) is None  # one frame shows no count


def test_more_refuses_a_tie_rather_than_guessing():
    lab = _pair(3, 3)
    assert answer_of(lab) is None
    with pytest.raises(ValueError, match="undetermined"):
        answer_key("more", answer_of(lab))
    with pytest.raises(ValueError, match="pairs"):
        answer_of(replace(lab, query=Query("more", ("left", "right"), "raise")))


def test_raise_frequency_increasing():
    starts = [0.3, 3.3, 5.5, 7.1, 8.3]  # gaps 3.0, 2.2, 1.6, 1.2
    lab = labels(Query("frequency", ("subject", "floor"), "raise"), hops(starts, n=100), floor(100))
    assert answer_of(lab) == "increasing"


# faster ---------------------------------------------------------------------------------------


def _walkers(v_left: float, v_right: float, n: int = 60, scale_right: float = 1.0) -> Labels:
    """Two tracks moving round circles at ``v`` pixels per second (at the first frame's depth;
    the right one seen at ``scale_right`` times that size, so it moves that much more on screen)."""
    t = np.arange(n) / FPS
    tracks = []
    for name, v, cx, k in (("left", v_left, 50.0, 1.0), ("right", v_right, 150.0, scale_right)):
        a = v * t / 20.0  # radius 20 px at scale 1
        tracks.append(mover(cx + k * 20 * np.cos(a), 50 + k * 20 * np.sin(a), name=name,
                            scale=np.full(n, k)))  # fmt: skip
    return labels(Query("faster", ("left", "right")), *tracks)


@pytest.mark.parametrize("vl,vr,key", [(30.0, 15.0, "left"), (10.0, 25.0, "right")])
def test_faster_names_the_quicker_one(vl, vr, key):
    lab = _walkers(vl, vr)
    assert answer_of(lab) == key
    assert answer_of(lab, observe.uniform_indices(60, 16)) == key
    assert answer_of(lab, [7]) is None  # one frame shows no speed
    assert observe.mean_speed(lab, np.arange(60), lab.track("left")) == pytest.approx(vl, rel=0.01)


def test_faster_reads_speed_at_depth_and_refuses_near_ties():
    # twice as large on screen (nearer the camera) at 0.6 of the speed: the far one is faster
    assert answer_of(_walkers(20.0, 12.0, scale_right=2.0)) == "left"
    assert answer_of(_walkers(20.0, 18.0)) is None  # within FASTER_RATIO: no clear winner
    assert answer_of(_walkers(0.0, 0.0)) is None  # no one moves


# next (what a person does right after a gesture) -------------------------------------------


def _gesturing(seq: list[str], anchor: str, hold: int = 4) -> Labels:
    """Labels of a person making each gesture of ``seq`` for ``hold`` frames, at rest between."""
    poses = [None]
    for g in seq:
        poses += [g] * hold + [None] * 2
    left, right = (np.array([GESTURE_AT[p][k] for p in poses]) for k in (0, 1))
    n = len(poses)
    anchors = [
        Track.build(name, n, x=x, y=y, role="anchor", shape="anchor", size=0)
        for name, x, y in (
            ("crown", 100.0, 15.0),
            ("shoulder1", 120.0, 50.0),
            ("shoulder2", 80.0, 50.0),
        )
    ]
    objects = ("left_hand", "right_hand", "crown", "shoulder1", "shoulder2")
    return labels(
        Query("next", objects, anchor),
        mover(left[:, 0], left[:, 1], name="left_hand", shape="hand"),
        mover(right[:, 0], right[:, 1], name="right_hand", shape="hand"),
        *anchors,
    )


def test_next_reads_each_gesture_and_the_one_after_the_anchor():
    seq = ["left_up", "clap", "arms_out", "right_up", "both_up"]
    lab = _gesturing(seq, "clap")
    n = lab.num_frames
    assert observe.gestures(lab, np.arange(n)) == tuple(seq)
    assert answer_of(lab) == "arms_out"
    assert answer_key("next", answer_of(lab)) == "arms_out"
    assert answer_of(lab, [3]) is None  # one frame shows no order
    assert answer_of(_gesturing(seq, "both_up")) is None  # the anchor is last
    assert answer_of(_gesturing(seq[:2], "arms_out")) is None  # the anchor never happens


def test_next_depends_on_the_order_of_the_gestures():
    """Swapping two gestures changes the answer: the fact reads order, not which gestures."""
    assert answer_of(_gesturing(["left_up", "clap", "arms_out"], "left_up")) == "clap"
    assert answer_of(_gesturing(["left_up", "arms_out", "clap"], "left_up")) == "arms_out"
    assert answer_of(_gesturing(["clap", "left_up", "arms_out"], "left_up")) == "arms_out"


def test_next_reads_the_body_frame_not_the_screen():
    """Mirrored, turned upside down or zoomed, the same person makes the same gestures."""
    lab = _gesturing(["right_up", "arms_out", "left_up", "clap"], "left_up")

    def moved(fx, fy) -> Labels:
        return lab.with_tracks(tuple(t.with_states(x=fx(t.x), y=fy(t.y)) for t in lab.tracks))

    for fx, fy in [
        (lambda x: W - 1 - x, lambda y: y),  # mirror left-right
        (lambda x: x, lambda y: H - 1 - y),  # mirror top-bottom
        (lambda x: 0.5 * x + 3, lambda y: 0.5 * y + 1),  # zoom out
    ]:
        assert observe.gestures(moved(fx, fy), np.arange(lab.num_frames)) == (
            "right_up", "arms_out", "left_up", "clap"
        )  # fmt: skip
        assert answer_of(moved(fx, fy)) == "clap"


def test_next_options_leave_out_the_anchor():
    lab = _gesturing(["left_up", "clap"], "left_up")
    lab = replace(lab, meta={"gloves": {"left": "red", "right": "blue"}})
    fact = get_fact("next")
    rng = np.random.default_rng(0)
    for pos in range(4):
        opts = fact.choose_options("clap", lab, rng, answer_pos=pos)
        assert len(opts) == 4 and opts[pos] == "clap" and "left_up" not in opts
    assert fact.option_text("right_up", lab) == "Raises the blue hand."
