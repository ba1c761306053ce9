"""Derive task facts from per-frame states, seen only at chosen frames.

This is the one place where a fact's value is computed from states (each
:class:`tempogen.facts.Fact` derives through these functions). The generator calls it on every
frame to label a clip and on TOMATO's 16 uniform samples to certify that the question can be
answered from them; edit ops never touch facts, they map states and facts are re-derived; the
pixel verifier feeds it states tracked from pixels. An observer that sees a single frame
learns nothing about motion, so it answers ``None`` (undetermined).

Thresholds are rates (pixels or degrees per second), so the answer does not depend on how
densely the frames are sampled, only on what the sampled states show.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from tempogen.labels import Labels, Track

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
FREQ_RATIO = 1.35  # first/last interval ratio that reads as a change of frequency
CONST_FREQ = 1.1
CORNER_DEG = 50.0  # turning angle at a sampled point that reads as a corner
FASTER_RATIO = 1.25  # mean-speed ratio that reads as one actor being faster than the rest
DEPTH_BAND = 0.12  # log apparent-size change (about 13%) a move in depth must exceed to show
# Gestures of a person (fact ``next``), in shoulder widths of the body frame the anchors give
GESTURES = ("left_up", "right_up", "both_up", "clap", "arms_out")
ABOVE_HEAD = 0.1  # a raised hand: this far above the top of the head
CLAP_GAP = 0.6  # hands together: centres closer than this
CLAP_SIDE = 0.6  # ... and in front of the chest: their midpoint within this of the midline
CLAP_LOW = -1.2  # ... and no lower than this below the shoulders (a clap, not hands at rest)
OUT_SIDE = 1.3  # an arm out to the side: the hand this far from the midline ...
OUT_HEIGHT = 0.6  # ... and within this of shoulder height


def uniform_indices(n: int, m: int) -> np.ndarray:
    """TOMATO's sampling: ``np.linspace(0, n - 1, m, dtype=int)``."""
    return np.linspace(0, n - 1, m, dtype=int)


def period_of(shape: str) -> float:
    """Degrees after which the shape looks the same (360 for no symmetry, 0 for a circle)."""
    order = SYMMETRY.get(shape, 1)
    return 0.0 if order == 0 else 360.0 / order


def wrap(d: np.ndarray, period: float = 360.0) -> np.ndarray:
    """Wrap angle differences into (-period/2, period/2]: what a viewer sees between frames."""
    return -((-np.asarray(d) + period / 2) % period - period / 2)


def _collapse(tokens: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for t in tokens:
        if not out or out[-1] != t:
            out.append(t)
    return tuple(out)


def _times(labels: Labels, idx: np.ndarray) -> np.ndarray:
    return np.asarray(idx, dtype=np.float64) / labels.fps


def direction(labels: Labels, idx: np.ndarray, track: Track) -> tuple[str, ...] | None:
    """Sequence of dominant screen directions the track moves in (collapsed runs)."""
    if len(idx) < 2:
        return None
    diag = math.hypot(labels.width, labels.height)
    t = _times(labels, idx)
    dx, dy, dt = np.diff(track.x[idx]), np.diff(track.y[idx]), np.diff(t)
    tokens: list[str] = []
    for ax, ay, st in zip(dx, dy, dt):
        if st <= 0 or math.hypot(ax, ay) / st < MOVE_EPS * diag:
            continue
        if abs(ax) >= DOMINANCE * abs(ay):
            tokens.append("right" if ax > 0 else "left")
        elif abs(ay) >= DOMINANCE * abs(ax):
            tokens.append("down" if ay > 0 else "up")
    return _collapse(tokens)


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
    return np.degrees(np.arctan2(track.y[idx] - center.y[idx], track.x[idx] - center.x[idx]))


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
    dt = np.diff(_times(labels, idx))
    tokens = ["cw" if a > 0 else "ccw" for a, st in zip(d, dt) if abs(a) / st >= TURN_EPS]
    return _collapse(tokens)


def _step_speeds(labels: Labels, idx: np.ndarray, track: Track, kind: str) -> np.ndarray:
    dt = np.diff(_times(labels, idx))
    if kind == "angle":
        return np.abs(wrap(np.diff(track.angle[idx]), 360.0)) / dt
    return np.hypot(np.diff(track.x[idx]), np.diff(track.y[idx])) / dt


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
    t = _times(labels, idx)
    step = np.hypot(np.diff(track.x[idx]), np.diff(track.y[idx]))
    scale = 0.5 * (track.scale[idx][1:] + track.scale[idx][:-1])
    return float((step / np.maximum(scale, 1e-9)).sum() / max(t[-1] - t[0], 1e-9))


def fastest(labels: Labels, idx: np.ndarray) -> str | None:
    """The query object that moves clearly faster (``FASTER_RATIO``) than every other one;
    None when undetermined (one frame, no one moving, or no clear winner)."""
    v = {name: mean_speed(labels, idx, labels.track(name)) for name in labels.query.objects}
    if any(x is None for x in v.values()):
        return None
    ranked = sorted(v.items(), key=lambda kv: -kv[1])
    (top, vt), (_, v2) = ranked[0], ranked[1]
    if vt < MOVE_EPS * math.hypot(labels.width, labels.height):
        return None
    return top if vt >= FASTER_RATIO * v2 else None


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) positions of runs of True, inclusive."""
    runs, start = [], None
    for i, v in enumerate(mask):
        if v and start is None:
            start = i
        elif not v and start is not None:
            runs.append((start, i - 1))
            start = None
    if start is not None:
        runs.append((start, len(mask) - 1))
    return runs


def floor_height(labels: Labels, idx: np.ndarray) -> np.ndarray:
    """Distance of the subject's edge above the floor anchor (along the anchor's normal)."""
    q = labels.query
    subj, floor = labels.track(q.objects[0]), labels.track(q.objects[1])
    a = np.radians(floor.angle[idx])
    h = (subj.x[idx] - floor.x[idx]) * np.cos(a) + (subj.y[idx] - floor.y[idx]) * np.sin(a)
    return h - subj.size * subj.scale[idx]


FLAT_PX = 0.05  # px: a bounce's fall and rise exceed this, far above the labels' 0.01 px rounding
PROMINENCE = 0.01  # and 1% of the height's range


def contact_mask(labels: Labels, idx: np.ndarray) -> np.ndarray:
    """Sampled frames where the subject bounces: the low turning points of its height.

    A bounce is where the height stops falling and starts rising, in the lower half of its
    range. This reads a bounce whether or not a sampled frame caught the exact contact, as a
    viewer does; heights that hover or wiggle high up (an apex) do not count.
    """
    h = floor_height(labels, idx)
    mask = np.zeros(len(h), bool)
    if len(h) < 3:
        return mask
    low = h.min() + 0.5 * (h.max() - h.min())
    # a bounce falls and rises by a visible amount: wiggles of a few hundredths of a pixel
    # (an apex after the labels' 0.01 px rounding) are not low turning points
    from scipy.signal import find_peaks

    deep = set(find_peaks(-h, prominence=max(FLAT_PX, PROMINENCE * (h.max() - h.min())))[0])
    i = 1
    while i < len(h) - 1:
        j = i
        while j + 1 < len(h) - 1 and abs(h[j + 1] - h[i]) < 1e-9:
            j += 1  # a flat run counts once
        if h[i - 1] > h[i] and h[j + 1] > h[j] and h[i] <= low and deep & set(range(i, j + 1)):
            mask[i : j + 1] = True
        i = j + 1
    # at either end only a visible touch counts: the turning point itself may lie outside
    subj = labels.track(labels.query.objects[0])
    touch = 0.08 * subj.size * subj.scale[idx] + 1.0
    if h[0] <= touch[0] and h[1] > h[0]:
        mask[0] = True
    if h[-1] <= touch[-1] and h[-2] > h[-1]:
        mask[-1] = True
    return mask


EVENT_KINDS = ("flash", "bounce", "raise", "loop")  # query kinds whose facts are events
RAISE_MIN = 0.03  # canvas diagonals: a smaller swing of the height is not an action


def raised_mask(labels: Labels, idx: np.ndarray) -> np.ndarray:
    """Sampled frames where the subject is raised: its height above the anchor line (along
    the anchor's normal) lies in the upper half of its range. A jump lifts the feet off the
    floor; with the line placed elsewhere the same rule reads a squat, a clap or a wave."""
    h = floor_height(labels, idx)
    if len(h) < 2 or h.max() - h.min() < RAISE_MIN * math.hypot(labels.width, labels.height):
        return np.zeros(len(h), bool)
    return h > h.min() + 0.5 * (h.max() - h.min())


def events(labels: Labels, idx: np.ndarray) -> list[tuple[float, float]] | None:
    """Repeated events of the query's kind as (start, end) times in seconds."""
    q = labels.query
    subj = labels.track(q.objects[0])
    t = _times(labels, idx)
    if q.kind == "flash":
        mask = subj.lit[idx] & subj.visible[idx]
    elif q.kind == "bounce":
        mask = contact_mask(labels, idx)
    elif q.kind == "raise":
        mask = raised_mask(labels, idx)
    elif q.kind == "loop":
        if len(idx) < 2:
            return None
        turned = np.concatenate([[0.0], np.cumsum(turn_steps(labels, idx))])
        laps = np.floor(np.abs(turned) / 360.0 + 1e-4)
        ends = [i for i in range(1, len(laps)) if laps[i] > laps[i - 1]]
        return [(float(t[i]), float(t[i])) for i in ends]
    else:
        raise ValueError(f"query kind {q.kind!r} has no events (flash, bounce, raise or loop)")
    return [(float(t[s]), float(t[e])) for s, e in _runs(mask)]


def count(labels: Labels, idx: np.ndarray) -> int | None:
    """How many times the repeated action happens."""
    if len(idx) < 2:
        return None
    ev = events(labels, idx)
    return None if ev is None else len(ev)


def frequency(labels: Labels, idx: np.ndarray) -> str | None:
    """``increasing``/``decreasing``/``constant``/``none``: how often the action repeats."""
    if len(idx) < 3:
        return None
    ev = events(labels, idx)
    if ev is None:
        return None
    if len(ev) == 0:
        return "none"
    if len(ev) < 4:
        return None
    gaps = np.diff([s for s, _ in ev])
    ratio = gaps[0] / gaps[-1]
    # frames are whole numbers: gaps meant to be equal may differ by a frame
    slack = max(0.1 * gaps.mean(), 1.5 / labels.fps)
    if ratio >= FREQ_RATIO and np.all(np.diff(gaps) <= slack):
        return "increasing"
    if ratio <= 1 / FREQ_RATIO and np.all(np.diff(gaps) >= -slack):
        return "decreasing"
    if np.all(np.abs(gaps - gaps.mean()) <= max((CONST_FREQ - 1) * gaps.mean(), slack)):
        return "constant"
    return None


def onset(labels: Labels, idx: np.ndarray, track: Track, kind: str) -> int | None:
    """Position in ``idx`` of the first sampled frame where the track has started its action."""
    if kind == "lit":
        on = track.lit[idx] & track.visible[idx]
    else:
        # exact states move from the first frame on; states measured from pixels jitter
        tol, turn_tol = (1.5, 3.0) if labels.meta.get("measured") else (0.05, 0.05)
        moved = np.hypot(track.x[idx] - track.x[idx[0]], track.y[idx] - track.y[idx[0]])
        on = (moved > tol) | (np.abs(track.angle[idx] - track.angle[idx[0]]) > turn_tol)
    hits = np.flatnonzero(on)
    return int(hits[0]) if len(hits) else None


def order(labels: Labels, idx: np.ndarray) -> tuple[tuple[str, ...], ...] | None:
    """Groups of objects by the sampled frame where their action starts, earliest first."""
    if len(idx) < 2:
        return None
    q = labels.query
    starts: dict[int, list[str]] = {}
    for name in q.objects:
        tr = labels.track(name)
        k = onset(labels, idx, tr, q.kind)
        if k is not None and k == 0 and q.kind == "lit":
            return None  # already lit in the first frame: its start is not visible
        if k is not None:
            starts.setdefault(k, []).append(name)
    return tuple(tuple(starts[k]) for k in sorted(starts))


def _segments_cross(p1, p2, p3, p4) -> bool:
    def orient(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    d1, d2 = orient(p3, p4, p1), orient(p3, p4, p2)
    d3, d4 = orient(p1, p2, p3), orient(p1, p2, p4)
    return d1 * d2 < 0 and d3 * d4 < 0


def _parallel(u: np.ndarray, v: np.ndarray, tol_deg: float = 8.0) -> bool:
    c = abs(np.dot(u, v)) / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-12)
    return c >= math.cos(math.radians(tol_deg))


def _corners(ring: np.ndarray, turns: np.ndarray, extent: float) -> list[int]:
    """Corners of a closed ring: sharp turns, where a corner cut by sampling (two nearby
    points each turning part of the way) counts once, at the point turning most."""
    n = len(ring)
    cand = [i for i in range(n) if abs(turns[i]) >= CORNER_DEG / 2.5]
    groups: list[list[int]] = []
    for i in cand:
        if groups and np.linalg.norm(ring[i] - ring[groups[-1][-1]]) < 0.12 * extent:
            groups[-1].append(i)
        else:
            groups.append([i])
    if (
        len(groups) > 1
        and np.linalg.norm(ring[groups[0][0]] - ring[groups[-1][-1]]) < 0.12 * extent
    ):
        groups[0] = groups.pop() + groups[0]  # the ring closes: first and last may be one
    return [
        max(g, key=lambda k: abs(turns[k])) for g in groups if abs(turns[g].sum()) >= CORNER_DEG
    ]


@dataclass(frozen=True)
class Outline:
    """A closed path as a viewer reads it: simplified ring, turn at each ring point (degrees),
    corner positions in the ring, and how often the path crosses itself."""

    ring: np.ndarray
    turns: np.ndarray
    corners: list[int]
    crossings: int


def outline(points: np.ndarray) -> Outline | None:
    """Simplify a closed path (Douglas-Peucker keeps corners, drops jitter) and read its
    corners and self-crossings; None when it is too short or open to read."""
    pts = np.asarray(points, dtype=np.float64)
    if len(pts) < 3:
        return None
    extent = float(np.ptp(pts, axis=0).max())
    if extent <= 0 or np.linalg.norm(pts[-1] - pts[0]) > 0.08 * extent:
        return None  # not a closed drawing
    # closing the ring first makes the start point no special vertex
    ring = cv2.approxPolyDP(pts[:-1].astype(np.float32).reshape(-1, 1, 2), 0.02 * extent, True)
    ring = ring.reshape(-1, 2).astype(np.float64)
    if len(ring) < 3:
        return None
    closed = np.vstack([ring, ring[:1]])
    segs = list(zip(closed[:-1], closed[1:]))
    crossings = sum(
        _segments_cross(*segs[i], *segs[j])
        for i in range(len(segs))
        for j in range(i + 2, len(segs))
        if not (i == 0 and j == len(segs) - 1)
    )
    n = len(ring)
    turns = []
    for i in range(n):
        u, v = ring[i] - ring[i - 1], ring[(i + 1) % n] - ring[i]
        turns.append(math.degrees(math.atan2(u[0] * v[1] - u[1] * v[0], float(np.dot(u, v)))))
    turns_a = np.asarray(turns)
    return Outline(ring, turns_a, _corners(ring, turns_a, extent), int(crossings))


def classify_path(points: np.ndarray, diag: float) -> str | None:
    """Shape class of a closed path given by ordered points (N x 2), as a viewer reads it.

    ``none`` when it barely moves; otherwise circle, triangle, square, trapezoid, diamond,
    infinity or star, or ``None`` when the points fit no class.
    """
    pts = np.asarray(points, dtype=np.float64)
    if len(pts) < 3:
        return None
    if np.ptp(pts, axis=0).max() < 0.03 * diag:
        return "none"
    shape = outline(pts)
    if shape is None:
        return None
    ring, turns, corners, crossings = shape.ring, shape.turns, shape.corners, shape.crossings
    if crossings >= 5 and len(corners) == 5:
        return "star"
    if crossings == 1:
        return "infinity"  # one self-crossing: a figure eight, sampled coarsely or not
    if crossings:
        return None
    if not corners:
        return "circle" if abs(abs(turns.sum()) - 360) < 30 else None
    if len(corners) == 3:
        return "triangle"
    if len(corners) != 4:
        return None
    q = ring[corners]
    sides = [q[(i + 1) % 4] - q[i] for i in range(4)]
    par_a, par_b = _parallel(sides[0], sides[2]), _parallel(sides[1], sides[3])
    if par_a and par_b:
        axis_aligned = all(min(abs(s[0]), abs(s[1])) < 0.1 * np.linalg.norm(s) for s in sides)
        diagonal = all(abs(abs(s[0]) - abs(s[1])) < 0.35 * np.linalg.norm(s) for s in sides)
        lengths = [np.linalg.norm(s) for s in sides]
        rhombus = max(lengths) / min(lengths) < 1.15
        if axis_aligned:
            return "square"
        if diagonal and rhombus:
            return "diamond"
        return None
    if par_a != par_b:
        return "trapezoid"
    return None


def trajectory(labels: Labels, idx: np.ndarray) -> str | None:
    """Shape the subject's path draws over the sampled frames."""
    subj = labels.subject
    if len(idx) < 3:
        return None
    pts = np.stack([subj.x[idx], subj.y[idx]], axis=1)
    return classify_path(pts, math.hypot(labels.width, labels.height))


def gesture_frames(labels: Labels, idx: np.ndarray) -> list[str | None]:
    """The gesture each sampled frame shows (None: rest or a pose between gestures).

    The query's objects are (left hand, right hand, top of the head, one shoulder, the other
    shoulder). The shoulders give the body's frame on screen: across (their line), up (square
    to it, towards the head) and the scale (their distance), so no threshold is in pixels and
    a picture flipped, turned or zoomed reads the same. A hand is raised above the top of the
    head by ``ABOVE_HEAD``; one hand up needs the other below the shoulders, so a pose half
    way to both hands up is no one-hand gesture.
    """
    left, right, crown, s1, s2 = (labels.track(n) for n in labels.query.objects[:5])
    out: list[str | None] = []
    for i in idx:
        a, b = np.array([s1.x[i], s1.y[i]]), np.array([s2.x[i], s2.y[i]])
        c, across = 0.5 * (a + b), b - a
        w = float(np.hypot(*across))
        if w <= 1e-9:
            out.append(None)
            continue
        u_across = across / w
        u_up = np.array([-u_across[1], u_across[0]])
        head = np.array([crown.x[i], crown.y[i]]) - c
        if head @ u_up < 0:
            u_up = -u_up
        top = float(head @ u_up) / w

        axes = np.stack([u_across, u_up]) / w
        al, bl = axes @ (np.array([left.x[i], left.y[i]]) - c)
        ar, br = axes @ (np.array([right.x[i], right.y[i]]) - c)
        up_l, up_r = bl > top + ABOVE_HEAD, br > top + ABOVE_HEAD
        gap = math.hypot(al - ar, bl - br)
        if up_l and up_r:
            g: str | None = "both_up"
        elif up_l and br < 0:
            g = "left_up"
        elif up_r and bl < 0:
            g = "right_up"
        elif up_l or up_r:
            g = None
        elif gap < CLAP_GAP and abs(al + ar) < 2 * CLAP_SIDE and min(bl, br) > CLAP_LOW:
            g = "clap"
        elif (
            al * ar < 0 and min(abs(al), abs(ar)) > OUT_SIDE and max(abs(bl), abs(br)) < OUT_HEIGHT
        ):
            g = "arms_out"
        else:
            g = None
        out.append(g)
    return out


def gestures(labels: Labels, idx: np.ndarray) -> tuple[str, ...]:
    """The gestures the sampled frames show in order: rest ignored, repeats merged."""
    return _collapse([g for g in gesture_frames(labels, idx) if g is not None])


def next_gesture(labels: Labels, idx: np.ndarray) -> str | None:
    """The gesture right after the query's anchor gesture (``query.kind``). None when
    undetermined: one frame, the anchor never seen, seen last, or followed by different
    gestures at different times."""
    if len(idx) < 2:
        return None
    seq = gestures(labels, idx)
    anchor = labels.query.kind
    after = {seq[k + 1] if k + 1 < len(seq) else None for k, g in enumerate(seq) if g == anchor}
    if len(after) != 1 or None in after:
        return None
    return after.pop()


def observe(labels: Labels, idx: np.ndarray | None = None) -> dict[str, Any]:
    """All facts the query's objects support, from the states at ``idx`` (default: all)."""
    n = labels.num_frames
    idx = np.arange(n) if idx is None else np.asarray(idx, dtype=np.int64)
    q = labels.query
    subj = labels.subject
    facts: dict[str, Any] = {
        "direction": direction(labels, idx, subj),
        "speed": speed(labels, idx, subj, q.kind if q.fact == "speed" else "position"),
    }
    if q.fact == "rotation" or q.kind == "orbit":
        facts["rotation"] = rotation(labels, idx)
    if q.kind in EVENT_KINDS:
        facts["count"] = count(labels, idx)
        facts["frequency"] = frequency(labels, idx)
    if q.fact == "order":
        facts["order"] = order(labels, idx)
    if q.fact == "trajectory":
        facts["trajectory"] = trajectory(labels, idx)
    if q.fact == "approach":
        facts["approach"] = approach(labels, idx, subj)
    if q.fact == "next":
        facts["next"] = next_gesture(labels, idx)
    return facts
