"""A recorded person's marks: a bright belt round the hips that shows where the body is, and
a patch on each collar that shows which way the shoulders face.

A walking person's gloves swing with the arms and hide behind the body, so their midpoint is
a poor read of where the person is, and the line between them a poor read of which way the
body faces; the hips (the mesh's pelvis part) move with the body and show from every side,
and the collars (the tops of the shoulders, seen from above) turn with the torso and do not
swing. The belt takes the glove colour farthest in hue from both gloves; each collar the hue
farthest from the gloves and the marks before it. The pixel audit reads the person's position
as the belt's centroid (:func:`belt_states`), and a body's turn as the on-screen direction
from the right collar to the left one (:func:`collar_states`)."""

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
COLLARS = ("left_collar", "right_collar")  # each its own mark (the mesh part of that name)
MARK_SATURATION, MARK_VALUE = 0.85, 0.9


def belt_color(gloves: Sequence[RGB]) -> RGB:
    """The glove colour farthest in hue from every glove (ties: the first in the table)."""
    return max(HAND_COLORS.values(), key=lambda c: min(hue_gap(c, g) for g in gloves))


def mark_colors(gloves: Sequence[RGB]) -> dict[str, RGB]:
    """The belt's colour and each collar's: hues as far from the gloves and each other as the
    wheel allows (5-degree steps, the first of ties)."""
    marks: dict[str, RGB] = {"belt": belt_color(gloves)}
    for name in COLLARS:
        taken = [*gloves, *marks.values()]
        best = max(
            range(0, 360, 5),
            key=lambda h: min(hue_gap(_rgb(h), c) for c in taken),
        )
        marks[name] = _rgb(best)
    return marks


def _rgb(hue: float) -> RGB:
    r, g, b = colorsys.hsv_to_rgb(hue / 360.0, MARK_SATURATION, MARK_VALUE)
    return (int(round(r * 255)), int(round(g * 255)), int(round(b * 255)))


def mark_parts(name: str) -> list[int]:
    """The mesh parts (joint indices) a mark covers."""
    return [INDEX[p] for p in (PARTS if name == "belt" else (name,))]


def paint_marks(colors: np.ndarray, parts: np.ndarray, marks: dict[str, RGB]) -> np.ndarray:
    """Per-vertex colours with each mark's parts painted its colour."""
    out = np.array(colors, copy=True)
    for name, rgb in marks.items():
        out[np.isin(parts, mark_parts(name))] = rgb
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


def mark_track(frames: Sequence[np.ndarray], labels: Labels, mark: str) -> np.ndarray:
    """The centroid (pixels) of a mark in each frame; a frame where it is hidden takes its
    neighbours'; ValueError where it shows in no frame."""
    meta: dict[str, Any] = dict(labels.meta)
    marks = {k: tuple(int(v) for v in c) for k, c in meta["marks"].items()}
    gloves = [tuple(int(v) for v in c) for _, c in meta["look"]["hands"].values()]
    others = gloves + [c for k, c in marks.items() if k != mark]
    pts: list[tuple[float, float] | None] = []
    for f in frames:
        yy, xx = np.nonzero(belt_mask(f, marks[mark], others))  # type: ignore[arg-type]
        pts.append(None if len(xx) < MIN_PIXELS else (xx.mean() + 0.5, yy.mean() + 0.5))
    good = [i for i, p in enumerate(pts) if p is not None]
    if not good:
        raise ValueError(f"pixels: the {mark.replace('_', ' ')} is not visible in any frame")
    at = np.arange(len(pts))
    return np.stack(
        [np.interp(at, good, [pts[i][k] for i in good]) for k in (0, 1)],  # type: ignore[index]
        1,
    )


def collar_states(frames: Sequence[np.ndarray], labels: Labels, idx: np.ndarray) -> Labels:
    """The labels with the person's turn at ``idx`` read from the collars: the on-screen
    direction from the right collar to the left one, which a camera looking down sees turn
    the way the body turns seen from above."""
    d = mark_track(frames, labels, "left_collar") - mark_track(frames, labels, "right_collar")
    steps = np.degrees(np.diff(np.arctan2(d[:, 1], d[:, 0])))
    angle = np.concatenate([[0.0], np.cumsum((steps + 180.0) % 360.0 - 180.0)])
    return _with(labels, idx, angle=angle)


def belt_states(frames: Sequence[np.ndarray], labels: Labels, idx: np.ndarray) -> Labels:
    """The labels with the person's position at ``idx`` read from the belt's centroid: its
    first labelled position plus how far the belt has moved since."""
    c = mark_track(frames, labels, "belt")
    t = labels.track(labels.query.objects[0])
    return _with(labels, idx, x=t.x[idx[0]] + c[:, 0] - c[0, 0], y=t.y[idx[0]] + c[:, 1] - c[0, 1])


def _with(labels: Labels, idx: np.ndarray, **sampled: np.ndarray) -> Labels:
    """The labels with the asked-about track's states at ``idx`` replaced by ``sampled``."""
    name = labels.query.objects[0]
    n = labels.num_frames
    tracks = []
    for t in labels.tracks:
        if t.name != name:
            tracks.append(t)
            continue
        full = {}
        for k, v in sampled.items():
            full[k] = np.zeros(n)
            full[k][idx] = v
        tracks.append(t.with_states(**full))
    return labels.with_tracks(tuple(tracks), meta={**labels.meta, "measured": True})
