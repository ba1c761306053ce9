"""A recorded person's belt: a bright band round the hips that shows where the body is.

A walking person's gloves swing with the arms and hide behind the body, so their midpoint is
a poor read of where the person is; the hips (the mesh's pelvis part) move with the body and
show from every side. The belt takes the glove colour farthest in hue from both gloves, and
the pixel audit reads the person's position as the belt's centroid (:func:`belt_states`)."""

from __future__ import annotations

import colorsys
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from tempogen.generators.humans.look import HAND_COLORS, RGB, hue_gap
from tempogen.generators.skeleton import INDEX
from tempogen.labels import Labels

HUE_TOL = 20.0  # degrees of hue round the belt's own that read as belt
MIN_SATURATION = 120
MIN_VALUE = 50
MIN_PIXELS = 6  # fewer belt pixels than this: the belt is hidden in that frame
PARTS = ("pelvis",)  # the mesh parts the belt covers


def belt_color(gloves: Sequence[RGB]) -> RGB:
    """The glove colour farthest in hue from every glove (ties: the first in the table)."""
    return max(HAND_COLORS.values(), key=lambda c: min(hue_gap(c, g) for g in gloves))


def paint_belt(colors: np.ndarray, parts: np.ndarray, belt: RGB) -> np.ndarray:
    """Per-vertex colours with the belt's parts painted ``belt``."""
    out = np.array(colors, copy=True)
    out[np.isin(parts, [INDEX[p] for p in PARTS])] = belt
    return out


def _hue(rgb: Sequence[int]) -> float:
    return 360.0 * colorsys.rgb_to_hsv(*(c / 255.0 for c in rgb))[0]


def belt_mask(frame: np.ndarray, belt: RGB, others: Sequence[RGB]) -> np.ndarray:
    """Pixels whose hue is within :data:`HUE_TOL` of the belt's and nearer it than any of
    ``others`` (the gloves), well saturated and lit."""
    hsv = cv2.cvtColor(frame, cv2.COLOR_RGB2HSV)
    h = hsv[..., 0].astype(np.float32) * 2.0

    def gap(target: float) -> np.ndarray:
        d = np.abs(h - target) % 360.0
        return np.minimum(d, 360.0 - d)

    own = gap(_hue(belt))
    mask = (own <= HUE_TOL) & (hsv[..., 1] >= MIN_SATURATION) & (hsv[..., 2] >= MIN_VALUE)
    for o in others:
        mask &= own < gap(_hue(o))
    return np.asarray(mask)


def belt_states(frames: Sequence[np.ndarray], labels: Labels, idx: np.ndarray) -> Labels:
    """The labels with the person's position at ``idx`` read from the belt's centroid: its
    first labelled position plus how far the belt has moved since (a hidden frame takes its
    neighbours'); ValueError where the belt shows in no sampled frame."""
    meta: dict[str, Any] = dict(labels.meta)
    belt = tuple(int(v) for v in meta["belt"])
    gloves = [tuple(int(v) for v in c) for _, c in meta["look"]["hands"].values()]
    pts: list[tuple[float, float] | None] = []
    for f in frames:
        yy, xx = np.nonzero(belt_mask(f, belt, gloves))  # type: ignore[arg-type]
        pts.append(None if len(xx) < MIN_PIXELS else (xx.mean() + 0.5, yy.mean() + 0.5))
    good = [i for i, p in enumerate(pts) if p is not None]
    if not good:
        raise ValueError("pixels: the belt is not visible in any sampled frame")
    at = np.arange(len(pts))
    c = np.stack(
        [np.interp(at, good, [pts[i][k] for i in good]) for k in (0, 1)],  # type: ignore[index]
        1,
    )
    name = labels.query.objects[0]
    n = labels.num_frames
    tracks = []
    for t in labels.tracks:
        if t.name != name:
            tracks.append(t)
            continue
        x, y = np.zeros(n), np.zeros(n)
        x[idx] = t.x[idx[0]] + c[:, 0] - c[0, 0]
        y[idx] = t.y[idx[0]] + c[:, 1] - c[0, 1]
        tracks.append(t.with_states(x=x, y=y))
    return labels.with_tracks(tuple(tracks), meta={**labels.meta, "measured": True})
