"""Small path and timing helpers that motion patterns share."""

from __future__ import annotations

import numpy as np

from tempogen.generators.motion import SAMPLES, Scene

UNIT = {"left": (-1.0, 0.0), "right": (1.0, 0.0), "up": (0.0, -1.0), "down": (0.0, 1.0)}
SIGN = {"cw": 1.0, "ccw": -1.0}


def through(
    points: np.ndarray, knots: np.ndarray, frames: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Piecewise-linear positions passing ``points[i]`` at frame ``knots[i]``."""
    pts = np.asarray(points, dtype=np.float64)
    return np.interp(frames, knots, pts[:, 0]), np.interp(frames, knots, pts[:, 1])


def signed_sweep(scene: Scene, senses: tuple[str, ...], step: float) -> np.ndarray:
    """Cumulative angle (degrees) turning ``step`` per sample interval in each sense in turn;
    a change of sense happens on a sampled frame in the middle of the clip."""
    f = scene.frames
    rate = step / scene.interval
    if not senses:
        return np.zeros(scene.n)
    if len(senses) == 1:
        return SIGN[senses[0]] * rate * f
    fs = scene.sample_frame(scene.switch_sample())
    return SIGN[senses[0]] * rate * np.minimum(f, fs) + SIGN[senses[1]] * rate * np.maximum(
        f - fs, 0
    )


def fit_start(
    path: np.ndarray, width: float, height: float, margin: float, rng: np.random.Generator
) -> np.ndarray:
    """Shift a path (N x 2, relative) to a random place where it stays ``margin`` inside."""
    lo, hi = path.min(0), path.max(0)
    room_x = width - 2 * margin - (hi[0] - lo[0])
    room_y = height - 2 * margin - (hi[1] - lo[1])
    if room_x < 0 or room_y < 0:
        raise ValueError("path does not fit in the canvas")
    ox = margin - lo[0] + rng.uniform(0, room_x)
    oy = margin - lo[1] + rng.uniform(0, room_y)
    return path + np.array([ox, oy])


def event_samples(scene: Scene, gaps: list[int], start: int | None = None) -> list[int]:
    """Sample indices of events separated by ``gaps`` sample intervals, kept inside 1..14."""
    span = int(sum(gaps))
    hi = SAMPLES - 2 - span
    if hi < 1:
        raise ValueError(f"gaps {gaps} do not fit in {SAMPLES} samples")
    k0 = int(scene.rng.integers(1, hi + 1)) if start is None else start
    return [k0 + int(s) for s in np.concatenate([[0], np.cumsum(gaps)])]


def spaced_gaps(scene: Scene, count: int, lo: int = 2, hi: int = 3) -> list[int]:
    """``count - 1`` random gaps in [lo, hi] sample intervals that fit the clip."""
    budget = SAMPLES - 3
    while True:
        gaps = [int(g) for g in scene.rng.integers(lo, hi + 1, size=max(count - 1, 0))]
        if sum(gaps) <= budget:
            return gaps
        hi = max(lo, hi - 1)
