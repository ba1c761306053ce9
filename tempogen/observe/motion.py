"""Facts of motion read between sampled frames: direction, depth, rotation, speed, the
fastest actor. Thresholds are rates, so the answer does not depend on the sampling density."""

from __future__ import annotations

import math

import numpy as np

from tempogen.labels import Labels, Track
from tempogen.observe.sampling import collapse, sample_times

# Rotational symmetry order of each drawable shape: a square looks the same after 90 degrees,
# so a viewer reads any turn between two frames modulo 360/order. 0 = no visible rotation.
SYMMETRY = {
    "circle": 0,
    "square": 4,
    "triangle": 3,
    "star": 5,
    "arrow": 1,
    "block": 2,
    "text_block": 1,
    "anchor": 0,
}

MOVE_EPS = 0.008  # canvas diagonals per second below which an object counts as still
TURN_EPS = 8.0  # degrees per second below which an object counts as not rotating
DOMINANCE = 1.8  # |major|/|minor| displacement for a step to have one clear direction
SPEED_RATIO = 1.6  # last/first third speed ratio that reads as accelerating
CONST_RATIO = 1.15  # within this ratio the speed reads as constant
FASTER_RATIO = 1.25  # mean-speed ratio that reads as one actor being faster than the rest
DEPTH_BAND = 0.12  # log apparent-size change (about 13%) a move in depth must exceed to show


def period_of(shape: str) -> float:
    """Degrees after which the shape looks the same (360 for no symmetry, 0 for a circle)."""
    order = SYMMETRY.get(shape, 1)
    return 0.0 if order == 0 else 360.0 / order


def wrap(d: np.ndarray, period: float = 360.0) -> np.ndarray:
    """Wrap angle differences into (-period/2, period/2]: what a viewer sees between frames."""
    return -((-np.asarray(d) + period / 2) % period - period / 2)


def direction(labels: Labels, idx: np.ndarray, track: Track) -> tuple[str, ...] | None:
    """Sequence of dominant screen directions the track moves in (collapsed runs)."""
    if len(idx) < 2:
        return None
    diag = math.hypot(labels.width, labels.height)
    t = sample_times(labels, idx)
    dx, dy, dt = np.diff(track.x[idx]), np.diff(track.y[idx]), np.diff(t)
    tokens: list[str] = []
    for ax, ay, st in zip(dx, dy, dt):
        if st <= 0 or math.hypot(ax, ay) / st < MOVE_EPS * diag:
            continue
        if abs(ax) >= DOMINANCE * abs(ay):
            tokens.append("right" if ax > 0 else "left")
        elif abs(ay) >= DOMINANCE * abs(ax):
            tokens.append("down" if ay > 0 else "up")
    return collapse(tokens)


def approach(labels: Labels, idx: np.ndarray, track: Track) -> tuple[str, ...] | None:
    """Whether the track comes ``towards`` the camera or goes ``away``, in order, read from its
    apparent size (``scale``: pixels per metre against frame 0) at the sampled frames.

    A viewer judges depth from how big the subject looks. Its log size is followed with a
    dead-band: a run counts once the size grows or shrinks by :data:`DEPTH_BAND` from the last
    turning point, so a person standing still, or the jitter of a measured outline, reads no
    motion in depth (``()``, key ``none``).
    """
    if len(idx) < 2:
        return None
    s = np.asarray(track.scale[idx], dtype=np.float64)
    if not np.all(np.isfinite(s)) or np.any(s <= 0):
        return None
    log = np.log(s)
    tokens: list[str] = []
    lo = hi = ext = float(log[0])  # extremes before a trend; the trend's extreme after
    for v in map(float, log[1:]):
        if not tokens:
            lo, hi = min(lo, v), max(hi, v)
            if v - lo >= DEPTH_BAND or hi - v >= DEPTH_BAND:
                tokens.append("towards" if v - lo >= DEPTH_BAND else "away")
                ext = v
        elif tokens[-1] == "towards":
            ext = max(ext, v)
            if ext - v >= DEPTH_BAND:
                tokens.append("away")
                ext = v
        else:
            ext = min(ext, v)
            if v - ext >= DEPTH_BAND:
                tokens.append("towards")
                ext = v
    return tuple(tokens)


def _orbit_angle(track: Track, center: Track, idx: np.ndarray) -> np.ndarray:
    deg: np.ndarray = np.degrees(
        np.arctan2(track.y[idx] - center.y[idx], track.x[idx] - center.x[idx])
    )
    return deg


def turn_steps(labels: Labels, idx: np.ndarray) -> np.ndarray:
    """Signed degrees turned between consecutive sampled frames, as a viewer reads them."""
    q = labels.query
    subj = labels.track(q.objects[0])
    if q.kind in ("orbit", "loop"):
        return wrap(np.diff(_orbit_angle(subj, labels.track(q.objects[1]), idx)), 360.0)
    period = period_of(subj.shape)
    if period == 0:
        return np.zeros(max(len(idx) - 1, 0))
    return wrap(np.diff(subj.angle[idx]), period)


def rotation(labels: Labels, idx: np.ndarray) -> tuple[str, ...] | None:
    """Sequence of rotation senses (``cw``/``ccw``), spin or orbit as the query says."""
    if len(idx) < 2:
        return None
    d = turn_steps(labels, idx)
    dt = np.diff(sample_times(labels, idx))
    tokens = ["cw" if a > 0 else "ccw" for a, st in zip(d, dt) if abs(a) / st >= TURN_EPS]
    return collapse(tokens)


def _step_speeds(labels: Labels, idx: np.ndarray, track: Track, kind: str) -> np.ndarray:
    dt = np.diff(sample_times(labels, idx))
    step: np.ndarray
    if kind == "angle":
        step = np.abs(wrap(np.diff(track.angle[idx]), 360.0))
    else:
        step = np.hypot(np.diff(track.x[idx]), np.diff(track.y[idx]))
    return step / dt


def speed(labels: Labels, idx: np.ndarray, track: Track, kind: str = "position") -> str | None:
    """``accelerating``/``decelerating``/``constant``/``none`` from the first and last third."""
    if len(idx) < 3:
        return None
    v = _step_speeds(labels, idx, track, kind)
    eps = TURN_EPS if kind == "angle" else MOVE_EPS * math.hypot(labels.width, labels.height)
    if v.max() < eps:
        return "none"
    k = max(1, len(v) // 3)
    first, last = v[:k].mean(), v[-k:].mean()
    if first < eps / 2:
        return "accelerating" if last >= eps else None
    ratio = last / first
    if ratio >= SPEED_RATIO:
        return "accelerating"
    if ratio <= 1 / SPEED_RATIO:
        return "decelerating"
    if 1 / CONST_RATIO <= ratio <= CONST_RATIO:
        return "constant"
    return None


def mean_speed(labels: Labels, idx: np.ndarray, track: Track) -> float | None:
    """Mean speed over the sampled frames in pixels per second at the first frame's depth:
    each step's on-screen move divided by the track's scale there, so a person farther away
    is not read as slower. None from fewer than two frames."""
    if len(idx) < 2:
        return None
    t = sample_times(labels, idx)
    step = np.hypot(np.diff(track.x[idx]), np.diff(track.y[idx]))
    scale = 0.5 * (track.scale[idx][1:] + track.scale[idx][:-1])
    return float((step / np.maximum(scale, 1e-9)).sum() / max(t[-1] - t[0], 1e-9))


def fastest(labels: Labels, idx: np.ndarray) -> str | None:
    """The query object that moves clearly faster (``FASTER_RATIO``) than every other one;
    None when undetermined (one frame, no one moving, or no clear winner)."""
    speeds = {name: mean_speed(labels, idx, labels.track(name)) for name in labels.query.objects}
    v = {name: x for name, x in speeds.items() if x is not None}
    if len(v) < len(speeds):
        return None
    ranked = sorted(v.items(), key=lambda kv: -kv[1])
    (top, vt), (_, v2) = ranked[0], ranked[1]
    if vt < MOVE_EPS * math.hypot(labels.width, labels.height):
        return None
    return top if vt >= FASTER_RATIO * v2 else None
