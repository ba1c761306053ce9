"""Measure object states from pixels alone: colour segmentation, centroids, rotation, lamps.

Every generated object has a colour no other object or background shares, so a colour mask
finds it. Position is the mask's centroid, rotation is the angle that best aligns one frame's
mask with the next, a lamp is lit when its full colour shows. Feeding these measured states
to :mod:`tempogen.observe` answers a question from the video's pixels, which is how labels
are checked against what a viewer actually sees.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from tempogen.labels import Labels, Track

COLOR_TOL = 48.0  # RGB distance within which a pixel belongs to an object's colour


def color_mask(frame: np.ndarray, rgb: tuple[int, int, int], tol: float = COLOR_TOL) -> np.ndarray:
    """Boolean mask of pixels within ``tol`` (Euclidean RGB) of ``rgb``."""
    d = frame.astype(np.int32) - np.asarray(rgb, dtype=np.int32)
    return (d * d).sum(axis=2) <= tol * tol


@dataclass(frozen=True)
class PixelTrack:
    """Per-frame measurements of one colour: centroid, area, and turn since the last frame."""

    x: np.ndarray
    y: np.ndarray
    area: np.ndarray
    turn: np.ndarray  # degrees turned since the previous frame (clockwise positive)

    @property
    def angle(self) -> np.ndarray:
        return np.cumsum(self.turn)


def _patch(mask: np.ndarray, cx: float, cy: float, half: int) -> np.ndarray:
    """A float patch of the mask centred (sub-pixel) on ``(cx, cy)``."""
    m = np.array([[1, 0, half - cx], [0, 1, half - cy]], np.float32)
    return cv2.warpAffine(
        mask.astype(np.float32), m, (2 * half + 1, 2 * half + 1), flags=cv2.INTER_LINEAR
    )


def best_turn(a: np.ndarray, b: np.ndarray, max_deg: float = 60.0) -> float:
    """Angle (clockwise positive) that rotates patch ``a`` onto patch ``b`` best.

    A coarse 4-degree search over +-``max_deg``, then a 0.5-degree refinement.
    """
    if a.sum() == 0 or b.sum() == 0:
        return 0.0
    h = (a.shape[0] - 1) / 2.0

    def err(deg: float) -> float:
        m = cv2.getRotationMatrix2D((h, h), -float(deg), 1.0)
        return float(np.abs(cv2.warpAffine(a, m, a.shape[::-1], flags=cv2.INTER_LINEAR) - b).sum())

    coarse = min(np.arange(-max_deg, max_deg + 1e-9, 4.0), key=err)
    return float(min(np.arange(coarse - 4.0, coarse + 4.01, 0.5), key=err))


def track_color(
    frames: Iterable[np.ndarray],
    rgb: tuple[int, int, int],
    *,
    tol: float = COLOR_TOL,
    rotation: bool = False,
    max_turn: float = 60.0,
    patch_half: int = 48,
) -> PixelTrack:
    """Centroid and area of a colour in every frame; with ``rotation``, the turn per frame."""
    xs: list[float] = []
    ys: list[float] = []
    areas, turns = [], []
    prev = None
    for frame in frames:
        mask = color_mask(frame, rgb, tol)
        area = int(mask.sum())
        if area:
            yy, xx = np.nonzero(mask)
            cx, cy = float(xx.mean()), float(yy.mean())
        else:
            cx, cy = (xs[-1], ys[-1]) if xs else (np.nan, np.nan)
        turn = 0.0
        if rotation and area:
            patch = _patch(mask, cx, cy, patch_half)
            if prev is not None:
                turn = best_turn(prev, patch, max_turn)
            prev = patch
        xs.append(cx)
        ys.append(cy)
        areas.append(area)
        turns.append(turn)
    return PixelTrack(np.array(xs), np.array(ys), np.array(areas), np.array(turns))


def pixel_labels(
    frames: list[np.ndarray] | np.ndarray,
    labels: Labels,
    indices: np.ndarray | None = None,
    rotation: bool = False,
) -> Labels:
    """The labels with every drawn object's states replaced by what the pixels show.

    ``frames`` are the clip's frames at ``indices`` (default: every frame); observe the
    result at those same indices. Only each object's colour, size, shape and role are read
    from ``labels`` (plus the query, which says what is asked); positions, turns, visibility
    and lamp states come from the frames. Anchors (invisible floors) keep their place.
    With ``rotation`` the subject's turn between consecutive given frames is searched within
    half its shape's symmetry period, the most a viewer can tell apart.
    """
    from tempogen.observe import period_of

    n = labels.num_frames
    idx = np.arange(n) if indices is None else np.asarray(indices, dtype=np.int64)
    tracks: list[Track] = []
    for tr in labels.tracks:
        if tr.role == "anchor":
            tracks.append(tr)
            continue
        spin = rotation and tr.name == labels.query.objects[0]
        half = min(180.0, period_of(tr.shape) / 2.0) if spin else 0.0
        size = tr.size * float(np.median(tr.scale[idx]))  # drawn size after zooms
        patch = int(size * 1.5) + 2
        pt = track_color(frames, tr.color, rotation=spin, max_turn=half - 1.0, patch_half=patch)
        full = np.pi * (size * 0.5) ** 2  # well under any shape's area at full size
        seen = pt.area > 0.25 * full
        lit = seen if tr.role == "cue" else np.zeros(len(seen), bool)
        states = {
            "x": _fill(pt.x),
            "y": _fill(pt.y),
            "angle": pt.angle if spin else np.zeros(len(seen)),
            "visible": seen | (tr.role == "cue"),
            "lit": lit,
        }
        full_states = {}
        for key, v in states.items():
            arr = np.repeat(v[:1], n) if len(v) else np.zeros(n)
            arr = arr.astype(v.dtype)
            arr[idx] = v
            full_states[key] = arr
        tracks.append(tr.with_states(**full_states))
    return labels.with_tracks(tuple(tracks), meta={**labels.meta, "measured": True})


def _fill(v: np.ndarray) -> np.ndarray:
    """Carry the last seen value over frames where an object was not found."""
    out = v.copy()
    if np.isnan(out).all():
        return np.zeros_like(out)
    first = int(np.flatnonzero(~np.isnan(out))[0])
    out[:first] = out[first]
    for i in range(first + 1, len(out)):
        if np.isnan(out[i]):
            out[i] = out[i - 1]
    return out
