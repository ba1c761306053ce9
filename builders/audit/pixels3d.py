"""Measure states from pixels of shaded 3D renders: hue masks, centroids, marked turns.

Lighting changes a painted surface's brightness, not its hue, and floor and sky are
unsaturated, so an object is the large saturated blobs whose hue is nearest its paint among
every paint in the scene (``labels.meta["paints"]``). Positions are blob centroids; a spin
(its sense, or its speed: query kind ``angle``) is read from a marked part (``mark`` track)
going round the object's centre, which holds even when the object is seen obliquely and its
outline does not turn rigidly on screen. A lamp is lit where its paint covers a good part of
its disc (an unlit lamp is a greyed paint, too unsaturated for any hue mask).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import cv2
import numpy as np

from tempogen.labels import Labels

HUE_TOL = 12.0  # OpenCV hue units (0..180)
MIN_SATURATION = 110
MIN_VALUE = 50
# Chroma (max - min of RGB) separates paint from backdrop at any brightness, where saturation
# does not: a dark sky pixel (34, 30, 54) has saturation 113. Skies and floors are drawn with
# at most 24 levels of chroma (make_background's tint of +-12, the floor's +-10 a channel); an
# NVIDIA GL's dithered gradient put such pixels just over MIN_VALUE, inside a violet's mask.
MIN_CHROMA = 40
GLOVE_JITTER = 3.0  # px a still glove's centroid wanders (shading at its rim, the codec)
LIT_AREA = 0.25  # share of a lamp's labelled disc (pi * size^2) its paint covers when lit


def hue_of(rgb: Sequence[int]) -> float:
    """OpenCV hue (0..180) of one RGB colour."""
    return float(cv2.cvtColor(np.array([[list(rgb)]], np.uint8), cv2.COLOR_RGB2HSV)[0, 0, 0])


def saturation_of(rgb: Sequence[int]) -> float:
    """OpenCV saturation (0..255) of one RGB colour."""
    return float(cv2.cvtColor(np.array([[list(rgb)]], np.uint8), cv2.COLOR_RGB2HSV)[0, 0, 1])


def hue_mask(
    frame: np.ndarray,
    rgb: Sequence[int],
    others: Sequence[Sequence[int]],
    hsv: np.ndarray | None = None,
) -> np.ndarray:
    """Large saturated blobs whose hue is nearer ``rgb``'s than any other paint's."""
    hsv = cv2.cvtColor(frame, cv2.COLOR_RGB2HSV) if hsv is None else hsv
    hue = hsv[..., 0].astype(np.float32)

    def dist(h: float) -> np.ndarray:
        d = np.abs(hue - h)
        return np.minimum(d, 180 - d)

    own = hue_of(rgb)
    d = dist(own)
    nearest = np.full(d.shape, 1e9, np.float32)
    for o in others:
        if hue_of(o) != own and saturation_of(o) > MIN_SATURATION:  # a grey has no hue
            nearest = np.minimum(nearest, dist(hue_of(o)))
    m = (d < HUE_TOL) & (d < nearest) & (hsv[..., 1] > MIN_SATURATION) & (hsv[..., 2] > MIN_VALUE)
    m &= painted(hsv)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(m.astype(np.uint8), connectivity=8)
    if n <= 1:
        return m
    area = stats[1:, cv2.CC_STAT_AREA]
    keep = 1 + np.flatnonzero(area >= 0.2 * area.max())  # a painted band may split a ball
    return np.isin(lab, keep)


def painted(hsv: np.ndarray) -> np.ndarray:
    """Pixels with more chroma than any sky or floor (MIN_CHROMA), from an HSV frame."""
    return hsv[..., 1].astype(np.uint16) * hsv[..., 2] > MIN_CHROMA * 255


def centroid(mask: np.ndarray) -> tuple[float, float] | None:
    """Centre of a mask in label coordinates (pixel i spans [i, i + 1)); None if empty."""
    yy, xx = np.nonzero(mask)
    if len(xx) <= 5:
        return None
    return float(xx.mean() + 0.5), float(yy.mean() + 0.5)


def paints(labels: Labels) -> list[tuple[int, int, int]]:
    """Every paint of the scene: the labels' record of them, else the tracks' colours."""
    listed = labels.meta.get("paints") or [t.color for t in labels.tracks if t.role != "anchor"]
    rgb = {tuple(int(v) for v in c) for c in listed}
    return sorted(cast(set[tuple[int, int, int]], rgb))


def with_measured(
    labels: Labels, idx: np.ndarray, states: dict[str, dict[str, np.ndarray]]
) -> Labels:
    """The labels with the named tracks' states at ``idx`` replaced by measurements."""
    n = labels.num_frames
    tracks = []
    for t in labels.tracks:
        if t.name not in states:
            tracks.append(t)
            continue
        full = {}
        for k, v in states[t.name].items():
            a = np.zeros(n)
            a[idx] = v
            full[k] = a
        tracks.append(t.with_states(**full))
    return labels.with_tracks(tuple(tracks), meta={**labels.meta, "measured": True})


def _fill(points: list[tuple[float, float] | None], what: str) -> np.ndarray:
    """Centroids per frame; a frame where the colour is hidden takes its neighbours' mean."""
    good = [i for i, p in enumerate(points) if p is not None]
    if not good:
        raise ValueError(f"pixels: {what} is not visible in any sampled frame")
    xs = np.array([p[0] for p in points if p is not None])
    ys = np.array([p[1] for p in points if p is not None])
    at = np.arange(len(points))
    return np.c_[np.interp(at, good, xs), np.interp(at, good, ys)]


def pixel_states_3d(frames: Sequence[np.ndarray], labels: Labels, idx: np.ndarray) -> Labels:
    """Labels whose tracks' positions (a marked spin's angle, a lamp's light) come from the
    frames at ``idx``; what the query reads is then answered by :mod:`tempogen.observe`."""
    if "hands" in labels.meta.get("look", {}):
        return human_pixel_states(frames, labels, idx)
    all_paints = paints(labels)
    q = labels.query
    hsvs = [cv2.cvtColor(f, cv2.COLOR_RGB2HSV) for f in frames]
    names = {t.name for t in labels.tracks}

    def track_of(rgb: Sequence[int], what: str) -> np.ndarray:
        rest = [p for p in all_paints if tuple(p) != tuple(rgb)]
        pts = [centroid(hue_mask(f, rgb, rest, hsv)) for f, hsv in zip(frames, hsvs)]
        return _fill(pts, what)

    states: dict[str, dict[str, np.ndarray]] = {}
    subject = labels.subject
    if q.kind in ("lit", "flash"):  # lamps: whether each shows its paint
        for name in q.objects:
            t = labels.track(name)
            rest = [p for p in all_paints if tuple(p) != tuple(t.color)]
            area = np.array([hue_mask(f, t.color, rest, hsv).sum() for f, hsv in zip(frames, hsvs)])
            states[name] = {"lit": area >= LIT_AREA * np.pi * t.size**2}
        return with_measured(labels, idx, states)
    if q.kind in ("spin", "angle") and "mark" in names:
        mark = labels.track("mark")
        rest = [p for p in all_paints if tuple(p) not in (tuple(mark.color), tuple(subject.color))]
        m = track_of(mark.color, "the mark")
        whole = []
        for f, hsv in zip(frames, hsvs):
            a = hue_mask(f, subject.color, [*rest, mark.color], hsv)
            b = hue_mask(f, mark.color, [*rest, subject.color], hsv)
            whole.append(centroid(a | b))
        c = _fill(whole, "the spinning object")
        d = m - c
        angle = np.degrees(np.unwrap(np.arctan2(d[:, 1], d[:, 0])))
        states[subject.name] = {"x": c[:, 0], "y": c[:, 1], "angle": angle}
        return with_measured(labels, idx, states)
    for name in q.objects:
        t = labels.track(name)
        if t.role == "anchor":
            continue
        c = track_of(t.color, name)
        states[name] = {"x": c[:, 0], "y": c[:, 1]}
    return with_measured(labels, idx, states)


GLOVE_HUE_TOL = 20.0  # degrees of hue (0..360) around a glove's own
GLOVE_MIN_SATURATION = 120


def glove_mask(frame: np.ndarray, rgb: Sequence[int], hsv: np.ndarray | None = None) -> np.ndarray:
    """Pixels of a simulated human's glove: its hue, well saturated (the body's clothes, the
    floor and the sky are muted)."""
    hsv = cv2.cvtColor(frame, cv2.COLOR_RGB2HSV) if hsv is None else hsv
    d = np.abs(hsv[..., 0].astype(np.float32) * 2 - 2 * hue_of(rgb))
    d = np.minimum(d, 360 - d)
    m = (d <= GLOVE_HUE_TOL) & (hsv[..., 1] >= GLOVE_MIN_SATURATION) & (hsv[..., 2] >= MIN_VALUE)
    return m & painted(hsv)


def _gloves(frames: Sequence[np.ndarray], hands: dict[str, Any]) -> dict[str, np.ndarray]:
    """Per-frame centroid of each glove (NaN where it is hidden)."""
    out: dict[str, np.ndarray] = {}
    for side in ("left", "right"):
        rgb = hands[side][1]
        pts = [centroid(glove_mask(f, rgb)) for f in frames]
        out[side] = np.array([p if p is not None else (np.nan, np.nan) for p in pts])
    return out


def _running(v: np.ndarray, k: int, how: Any) -> np.ndarray:
    """``how`` (np.median, np.mean) over a window of ``k`` samples, the ends held."""
    h = k // 2
    pad = np.r_[np.full(h, v[0]), v, np.full(h, v[-1])]
    return how(np.lib.stride_tricks.sliding_window_view(pad, k), axis=1)


def glove_size(frames: Sequence[np.ndarray], hands: dict[str, Any]) -> np.ndarray:
    """A person's apparent size per frame (pixels, up to a constant): the square root of both
    gloves' area together. Hands hang at the sides whichever way the body faces, so their
    area follows the distance from the camera; a frame with no glove in view takes its
    neighbours' value, and a 3-sample running median, then mean, of the log size takes out a
    swinging or turning hand's jitter (colour is stored at half resolution: small gloves
    come in 2x2 blocks)."""
    area = np.zeros(len(frames))
    for i, f in enumerate(frames):
        hsv = cv2.cvtColor(f, cv2.COLOR_RGB2HSV)
        area[i] = sum(glove_mask(f, hands[side][1], hsv).sum() for side in ("left", "right"))
    seen = area > 5
    if not seen.any():
        raise ValueError("pixels: no glove is visible in any sampled frame")
    log = 0.5 * np.log(np.interp(np.arange(len(frames)), np.flatnonzero(seen), area[seen]))
    if len(log) >= 3:
        log = _running(_running(log, 3, np.median), 3, np.mean)
    return np.exp(log)


def human_pixel_states(frames: Sequence[np.ndarray], labels: Labels, idx: np.ndarray) -> Labels:
    """States of simulated humans read from their bright gloves (and bright props).

    Every object the question reads is measured (an order question reads several). A hand
    or a held prop is its paint's centroid; a held prop that lights up is lit where its
    paint covers a good part of its disc. How near the person is (an ``approach`` question)
    is the gloves' on-screen size (:func:`glove_size`). A body turn is the on-screen
    direction from the right glove to the left one, which an elevated camera sees turn the way the body turns
    seen from above. Any other object (feet, head, the whole person) is carried by the
    gloves: its labelled first position plus how far the gloves' midpoint has moved since.
    With several people (``meta["people"]``), each track is read from the gloves of the
    person who carries it (``meta["owners"]``); every glove in a scene differs in hue.
    """
    people = labels.meta.get("people") or [labels.meta["look"]]
    owners = labels.meta.get("owners", {})
    props = {tuple(int(v) for v in c) for c in labels.meta.get("props", [])}
    states: dict[str, dict[str, np.ndarray]] = {}
    for name in labels.query.objects:
        t = labels.track(name)
        if t.role == "anchor":
            continue
        hands = people[int(owners.get(name, 0))]["hands"]
        if labels.query.kind == "lit" and tuple(int(v) for v in t.color) in props:
            area = np.array([glove_mask(f, t.color).sum() for f in frames])  # lit: its paint shows
            states[name] = {"lit": area >= LIT_AREA * np.pi * t.size**2}
            continue
        if t.shape == "hand" or tuple(int(v) for v in t.color) in props:
            pts = [centroid(glove_mask(f, t.color)) for f in frames]
            c = _fill(pts, f"the {t.shape} {name!r}")
            if labels.query.kind == "move":  # when it starts: not a centroid's jitter at rest
                still = np.hypot(*(c - c[0]).T) <= GLOVE_JITTER
                c[still & (np.cumsum(~still) == 0)] = c[0]
            states[name] = {"x": c[:, 0], "y": c[:, 1]}
            continue
        if t.shape == "human" and labels.query.fact == "approach":  # apparent size only
            size = glove_size(frames, hands)
            states[name] = {"scale": t.scale[idx[0]] * size / size[0]}
            continue
        g = _gloves(frames, hands)
        if t.shape == "human" and labels.query.kind == "spin":
            d = g["left"] - g["right"]
            if np.isnan(d).any():
                raise ValueError("pixels: a glove is hidden, the body's turn cannot be read")
            steps = np.degrees(np.diff(np.arctan2(d[:, 1], d[:, 0])))
            steps = (steps + 180.0) % 360.0 - 180.0
            states[name] = {"angle": np.concatenate([[0.0], np.cumsum(steps)])}
            continue
        both = np.stack([g["left"], g["right"]])
        seen = (~np.isnan(both[..., 0])).sum(axis=0)[:, None]
        mid = np.where(seen > 0, np.nansum(both, axis=0) / np.maximum(seen, 1), np.nan)
        c = _fill([None if np.isnan(p[0]) else (p[0], p[1]) for p in mid], "the gloves")
        x = t.x[idx[0]] + c[:, 0] - c[0, 0]
        y = t.y[idx[0]] + c[:, 1] - c[0, 1]
        states[name] = {"x": x, "y": y}
    return with_measured(labels, idx, states)
