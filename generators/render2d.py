"""Anti-aliased 2D rendering of tracks onto backgrounds, streamed frame by frame.

Each object is drawn once, supersampled, into a small premultiplied RGBA sprite; every frame
warps that sprite (rotation, scale, sub-pixel position) into a reused canvas buffer. No clip
is ever stacked in memory.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from tempogen.choices import BACKGROUNDS
from tempogen.labels import Labels, Track

SUPERSAMPLE = 4


def shape_polygon(shape: str, r: float) -> list[np.ndarray]:
    """Outline(s) of a shape of circumradius ``r`` centred on the origin, pointing right."""
    if shape == "circle":
        a = np.linspace(0, 2 * math.pi, 64, endpoint=False)
        return [np.stack([r * np.cos(a), r * np.sin(a)], 1)]
    if shape == "square":
        s = r / math.sqrt(2)
        return [np.array([[-s, -s], [s, -s], [s, s], [-s, s]])]
    if shape == "triangle":
        a = np.radians([0, 120, 240])
        return [np.stack([r * np.cos(a), r * np.sin(a)], 1)]
    if shape == "star":
        a = np.radians(np.arange(10) * 36.0)
        rad = np.where(np.arange(10) % 2 == 0, r, r * 0.45)
        return [np.stack([rad * np.cos(a), rad * np.sin(a)], 1)]
    if shape == "arrow":
        return [
            np.array(
                [
                    [r, 0],
                    [0.1 * r, -0.75 * r],
                    [0.1 * r, -0.3 * r],
                    [-0.95 * r, -0.3 * r],
                    [-0.95 * r, 0.3 * r],
                    [0.1 * r, 0.3 * r],
                    [0.1 * r, 0.75 * r],
                ]
            )
        ]
    if shape in ("block", "text_block"):
        w, h = r * 0.92, r * 0.42
        return [np.array([[-w, -h], [w, -h], [w, h], [-w, h]])]
    raise ValueError(f"unknown shape {shape!r}")


@dataclass(frozen=True)
class Sprite:
    """Premultiplied float32 RGB and alpha of one object, centred in an odd square."""

    rgb: np.ndarray  # (s, s, 3) premultiplied
    alpha: np.ndarray  # (s, s, 1)

    @property
    def side(self) -> int:
        return self.alpha.shape[0]


def _text_color(color: tuple[int, int, int]) -> tuple[int, int, int]:
    lum = 0.299 * color[0] + 0.587 * color[1] + 0.114 * color[2]
    return (20, 20, 20) if lum > 140 else (245, 245, 245)


def make_sprite(track: Track, lit: bool = False) -> Sprite:
    """Rasterise a track's shape once, supersampled then area-averaged for anti-aliasing.

    Lamps (role ``cue``) are drawn dim when off and full colour with a halo when lit.
    """
    r = track.size
    side = int(math.ceil(2 * r * 1.35)) | 1
    ss = side * SUPERSAMPLE
    c = (side / 2.0) * SUPERSAMPLE
    color = np.array(track.color, dtype=np.float32)
    has_light = track.role == "cue"
    on = bool(lit)
    mask = np.zeros((ss, ss), np.uint8)
    polys = [
        np.round((p * SUPERSAMPLE + c) * 16).astype(np.int32) for p in shape_polygon(track.shape, r)
    ]
    cv2.fillPoly(mask, polys, 255, cv2.LINE_AA, shift=4)
    rgb = np.zeros((ss, ss, 3), np.uint8)
    fill = color if (on or not has_light) else color * 0.35 + 40
    rgb[:] = np.clip(fill, 0, 255).astype(np.uint8)
    if track.text:
        font, scale = cv2.FONT_HERSHEY_DUPLEX, 0.5 * SUPERSAMPLE * r / 40
        (tw, th), _ = cv2.getTextSize(track.text, font, scale, max(1, SUPERSAMPLE))
        org = (int(c - tw / 2), int(c + th / 2))
        cv2.putText(
            rgb,
            track.text,
            org,
            font,
            scale,
            _text_color(track.color),
            max(1, SUPERSAMPLE),
            cv2.LINE_AA,
        )
    alpha = cv2.resize(mask, (side, side), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    small = cv2.resize(rgb, (side, side), interpolation=cv2.INTER_AREA).astype(np.float32)
    if has_light and on:
        halo = cv2.GaussianBlur(alpha, (0, 0), r * 0.12 + 1)
        ring = np.clip(halo * 1.6 - alpha, 0, 1)
        glow = np.full_like(small, 255.0)
        small = (small * alpha[..., None] + glow * ring[..., None] * 0.8).astype(np.float32)
        alpha = np.clip(alpha + ring * 0.8, 0, 1)
        return Sprite(small.astype(np.float32), alpha[..., None])
    return Sprite((small * alpha[..., None]).astype(np.float32), alpha[..., None])


def make_background(kind: str, width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """A static background with low saturation, so coloured objects stand out."""
    base = rng.uniform(60, 225)
    tint = rng.uniform(-12, 12, size=3)
    c0 = np.clip(base + tint, 0, 255).astype(np.float32)
    if kind == "solid":
        img = np.broadcast_to(c0, (height, width, 3)).copy()
    elif kind == "gradient":
        c1 = np.clip(c0 + rng.choice([-1, 1]) * rng.uniform(40, 80), 0, 255)
        ang = rng.uniform(0, 2 * math.pi)
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        u = (xx * math.cos(ang) + yy * math.sin(ang)) / (
            abs(width * math.cos(ang)) + abs(height * math.sin(ang))
        )
        u = (u - u.min()) / max(float(np.ptp(u)), 1e-6)
        img = c0 * (1 - u[..., None]) + c1 * u[..., None]
    elif kind == "grid":
        img = np.broadcast_to(c0, (height, width, 3)).copy()
        step = int(rng.integers(24, 64))
        line = np.clip(c0 + (-35 if base > 128 else 35), 0, 255)
        img[::step, :] = line
        img[:, ::step] = line
    elif kind == "noise":
        small = rng.normal(0, 1, size=(height // 8 + 1, width // 8 + 1)).astype(np.float32)
        noise = cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)[:height, :width]
        img = c0 + noise[..., None] * rng.uniform(6, 14)
    else:
        raise ValueError(f"unknown background {kind!r}; known: {BACKGROUNDS}")
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_floor(bg: np.ndarray, track: Track) -> None:
    """Draw a floor anchor as a line through its point, perpendicular to its normal angle."""
    x, y, a = float(track.x[0]), float(track.y[0]), math.radians(float(track.angle[0]))
    tx, ty = -math.sin(a), math.cos(a)
    big = 4 * max(bg.shape)
    p0 = (int(round((x - tx * big) * 16)), int(round((y - ty * big) * 16)))
    p1 = (int(round((x + tx * big) * 16)), int(round((y + ty * big) * 16)))
    cv2.line(bg, p0, p1, track.color, 3, cv2.LINE_AA, shift=4)


def _is_static(t: Track) -> bool:
    return all(bool(np.all(a == a[0])) for a in (t.x, t.y, t.angle, t.scale, t.visible, t.lit))


class Compositor:
    """Draws the tracks of one clip over its background, one frame at a time."""

    def __init__(self, labels: Labels, background: np.ndarray) -> None:
        self.labels = labels
        self.bg = np.ascontiguousarray(background, dtype=np.uint8).copy()
        for tr in labels.tracks:
            if tr.role == "anchor" and tr.shape == "floor":
                draw_floor(self.bg, tr)
        self.out = np.empty_like(self.bg)
        order = {"distractor": 0, "prop": 1, "cue": 2, "subject": 3}
        tracks = sorted(
            (t for t in labels.tracks if t.role != "anchor"), key=lambda t: order.get(t.role, 0)
        )
        self.sprites: dict[tuple[str, bool], Sprite] = {}
        for t in tracks:
            for state in sorted({bool(v) for v in t.lit}):
                self.sprites[(t.name, state)] = make_sprite(t, state)
        # Objects that never change are drawn into the background once, as long as nothing
        # that moves is drawn beneath them.
        moving = [i for i, t in enumerate(tracks) if not _is_static(t)]
        first_moving = moving[0] if moving else len(tracks)
        self.tracks = tracks[first_moving:]
        self.out[:] = self.bg
        for t in tracks[:first_moving]:
            if t.visible[0]:
                self._blit(
                    self.sprites[(t.name, bool(t.lit[0]))],
                    float(t.x[0]),
                    float(t.y[0]),
                    float(t.angle[0]),
                    float(t.scale[0]),
                )
        self.bg = self.out.copy()

    def _blit(self, sprite: Sprite, x: float, y: float, angle: float, scale: float) -> None:
        s = sprite.side
        half = (s - 1) / 2.0
        ext = int(math.ceil(half * scale * 1.42)) + 2
        x0, y0 = int(math.floor(x)) - ext, int(math.floor(y)) - ext
        w = h = 2 * ext + 1
        H, W = self.out.shape[:2]
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x0 + w, W), min(y0 + h, H)
        if cx0 >= cx1 or cy0 >= cy1:
            return
        m = cv2.getRotationMatrix2D((half, half), -angle, scale)
        m[0, 2] += x - half - cx0
        m[1, 2] += y - half - cy0
        size = (cx1 - cx0, cy1 - cy0)
        a = cv2.warpAffine(sprite.alpha, m, size, flags=cv2.INTER_LINEAR)
        if not a.any():
            return
        rgb = cv2.warpAffine(sprite.rgb, m, size, flags=cv2.INTER_LINEAR)
        roi = self.out[cy0:cy1, cx0:cx1]
        blended = roi.astype(np.float32) * (1.0 - a[..., None]) + rgb
        np.clip(blended + 0.5, 0, 255, out=blended)
        roi[:] = blended

    def frame(self, i: int) -> np.ndarray:
        """Frame ``i`` as uint8 RGB; the returned array is reused by the next call."""
        np.copyto(self.out, self.bg)
        for t in self.tracks:
            if not t.visible[i]:
                continue
            sprite = self.sprites[(t.name, bool(t.lit[i]))]
            self._blit(sprite, float(t.x[i]), float(t.y[i]), float(t.angle[i]), float(t.scale[i]))
        return self.out

    def frames(self) -> Iterator[np.ndarray]:
        for i in range(self.labels.num_frames):
            yield self.frame(i)


class Coverage:
    """Per-frame coverage of some tracks, as a uint8 mask (0..255) reused between frames:
    what a noise-encoded clip holds still (``generators/noise.py``)."""

    def __init__(self, labels: Labels, names: list[str]) -> None:
        self.tracks = [labels.track(n) for n in names]
        self.alphas = {t.name: make_sprite(t, bool(t.lit[0])).alpha[..., 0] for t in self.tracks}
        self.out = np.zeros((labels.height, labels.width), np.uint8)

    def frame(self, i: int) -> np.ndarray:
        """Coverage at frame ``i`` (the array is reused by the next call)."""
        self.out[:] = 0
        H, W = self.out.shape
        for t in self.tracks:
            if not t.visible[i]:
                continue
            alpha = self.alphas[t.name]
            half = (alpha.shape[0] - 1) / 2.0
            x, y, scale = float(t.x[i]), float(t.y[i]), float(t.scale[i])
            ext = int(math.ceil(half * scale * 1.42)) + 2
            x0, y0 = int(math.floor(x)) - ext, int(math.floor(y)) - ext
            cx0, cy0 = max(x0, 0), max(y0, 0)
            cx1, cy1 = min(x0 + 2 * ext + 1, W), min(y0 + 2 * ext + 1, H)
            if cx0 >= cx1 or cy0 >= cy1:
                continue
            m = cv2.getRotationMatrix2D((half, half), -float(t.angle[i]), scale)
            m[0, 2] += x - half - cx0
            m[1, 2] += y - half - cy0
            a = cv2.warpAffine(alpha, m, (cx1 - cx0, cy1 - cy0), flags=cv2.INTER_LINEAR)
            roi = self.out[cy0:cy1, cx0:cx1]
            np.maximum(roi, (a * 255 + 0.5).astype(np.uint8), out=roi)
        return self.out
