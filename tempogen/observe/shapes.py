"""The shape a path draws, as a viewer reads it: a closed path simplified to a ring, its
corners and self-crossings, and the class (circle, triangle, square, ...) they make."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from tempogen.labels import Labels

CORNER_DEG = 50.0  # turning angle at a sampled point that reads as a corner
CORNER_PART = 2.5  # a point turning CORNER_DEG / this may be part of a corner cut by sampling
CORNER_MERGE = 0.12  # corner parts closer than this share of the path's extent are one corner
CLOSED_GAP = 0.08  # a path whose ends lie farther apart (share of its extent) is not closed
SIMPLIFY = 0.02  # Douglas-Peucker tolerance, a share of the path's extent: drops jitter
STILL_PATH = 0.03  # canvas diagonals: a path within this reads as no shape (``none``)
CIRCLE_TURN = 30  # degrees a cornerless ring's total turn may miss 360 by and read as a circle
PARALLEL_DEG = 8.0  # sides within this angle read as parallel
AXIS_TOL = 0.1  # a side this little off the axes (share of its length) is axis-aligned
DIAGONAL_TOL = 0.35  # a side this close to 45 degrees (share of its length) is diagonal
RHOMBUS_RATIO = 1.15  # longest / shortest side of a diamond


def _segments_cross(p1: np.ndarray, p2: np.ndarray, p3: np.ndarray, p4: np.ndarray) -> bool:
    """Whether segments p1-p2 and p3-p4 (2D points) cross at a point inside both."""

    def orient(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
        return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))

    d1, d2 = orient(p3, p4, p1), orient(p3, p4, p2)
    d3, d4 = orient(p1, p2, p3), orient(p1, p2, p4)
    return d1 * d2 < 0 and d3 * d4 < 0


def _parallel(u: np.ndarray, v: np.ndarray, tol_deg: float = PARALLEL_DEG) -> bool:
    c = abs(np.dot(u, v)) / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-12)
    return bool(c >= math.cos(math.radians(tol_deg)))


def _corners(ring: np.ndarray, turns: np.ndarray, extent: float) -> list[int]:
    """Corners of a closed ring: sharp turns, where a corner cut by sampling (two nearby
    points each turning part of the way) counts once, at the point turning most."""
    n = len(ring)
    cand = [i for i in range(n) if abs(turns[i]) >= CORNER_DEG / CORNER_PART]
    groups: list[list[int]] = []
    for i in cand:
        if groups and np.linalg.norm(ring[i] - ring[groups[-1][-1]]) < CORNER_MERGE * extent:
            groups[-1].append(i)
        else:
            groups.append([i])
    if (
        len(groups) > 1
        and np.linalg.norm(ring[groups[0][0]] - ring[groups[-1][-1]]) < CORNER_MERGE * extent
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
    if extent <= 0 or np.linalg.norm(pts[-1] - pts[0]) > CLOSED_GAP * extent:
        return None  # not a closed drawing
    # closing the ring first makes the start point no special vertex
    ring = cv2.approxPolyDP(pts[:-1].astype(np.float32).reshape(-1, 1, 2), SIMPLIFY * extent, True)
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
    if np.ptp(pts, axis=0).max() < STILL_PATH * diag:
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
        return "circle" if abs(abs(turns.sum()) - 360) < CIRCLE_TURN else None
    if len(corners) == 3:
        return "triangle"
    if len(corners) != 4:
        return None
    q = ring[corners]
    sides = [q[(i + 1) % 4] - q[i] for i in range(4)]
    par_a, par_b = _parallel(sides[0], sides[2]), _parallel(sides[1], sides[3])
    if par_a and par_b:
        axis_aligned = all(min(abs(s[0]), abs(s[1])) < AXIS_TOL * np.linalg.norm(s) for s in sides)
        diagonal = all(abs(abs(s[0]) - abs(s[1])) < DIAGONAL_TOL * np.linalg.norm(s) for s in sides)
        lengths = [np.linalg.norm(s) for s in sides]
        rhombus = max(lengths) / min(lengths) < RHOMBUS_RATIO
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
