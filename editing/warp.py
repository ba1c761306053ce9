"""Warping frames by a 2x3 similarity map, as RGB or plane by plane in I420 (so an edited clip
stays in YUV from decoder to encoder), with exact fast paths for crops, flips and quarter
turns."""

from __future__ import annotations

import av
import cv2
import numpy as np

# I420 (limited range) of RGB black, as cv2.COLOR_RGB2YUV_I420 (and so VideoWriter) makes it.
BLACK_I420 = tuple(
    int(v) for v in cv2.cvtColor(np.zeros((2, 2, 3), np.uint8), cv2.COLOR_RGB2YUV_I420).ravel()[3:]
)


class I420Buffer:
    """One reusable I420 frame: a contiguous (h * 3 / 2, w) array and its plane views."""

    def __init__(self, w: int, h: int) -> None:
        self.w, self.h = w, h
        self.data = np.empty((h * 3 // 2, w), np.uint8)
        flat = self.data.reshape(-1)
        n, q = w * h, (w // 2) * (h // 2)
        self.planes = (
            flat[:n].reshape(h, w),
            flat[n : n + q].reshape(h // 2, w // 2),
            flat[n + q : n + 2 * q].reshape(h // 2, w // 2),
        )

    def from_rgb(self, rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV_I420, dst=self.data)
        return self.planes


def i420_planes(frame: av.VideoFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Views of a decoded frame's planes when it is plain (limited-range) yuv420p, else None.

    Other formats (full range, 4:2:2, 10-bit, ...) go through RGB as before.
    """
    if frame.format.name != "yuv420p" or frame.color_range == 2:  # 2: AVCOL_RANGE_JPEG
        return None
    out = []
    for plane in frame.planes:
        step = plane.line_size
        if step < plane.width:
            return None
        a = np.frombuffer(memoryview(plane), np.uint8).reshape(plane.height, step)
        out.append(a[:, : plane.width])
    return out[0], out[1], out[2]


def _chroma_map(m: np.ndarray) -> np.ndarray:
    """The luma-pixel map ``m`` as a map between chroma-sample coordinates of I420 planes.

    Chroma sample ``c`` covers luma pixels ``2c`` and ``2c + 1`` (centred at ``2c + 0.5``,
    as ``cv2.COLOR_RGB2YUV_I420`` averages them), so ``c' = A c + (t + A(0.5, 0.5) - 0.5) / 2``.
    Flips and 90-degree turns of even-sized frames come out as exact index maps.
    """
    mc = m.astype(np.float64, copy=True)
    mc[:, 2] = (m[:, 2] + m[:, :2] @ np.array([0.5, 0.5]) - 0.5) / 2
    return mc


def _warp_plane(src: np.ndarray, m: np.ndarray, out: np.ndarray, fill: int) -> np.ndarray:
    """Warp one 8-bit plane by the 2x3 map ``m`` into ``out``; returns the result, which for
    an exact crop is a view of ``src`` (no copy). Flips, quarter turns and integer shifts
    are exact copies; anything else is a bilinear ``cv2.warpAffine``."""
    h, w = out.shape
    sh, sw = src.shape
    lin = m[:, :2]
    if (
        abs(lin[0, 1]) < 1e-12
        and abs(lin[1, 0]) < 1e-12
        and abs(abs(lin[0, 0]) - 1) < 1e-12
        and abs(abs(lin[1, 1]) - 1) < 1e-12
    ):
        tx, ty = m[0, 2], m[1, 2]
        if abs(tx - round(tx)) < 1e-6 and abs(ty - round(ty)) < 1e-6:
            fx, fy = lin[0, 0] < 0, lin[1, 1] < 0
            # Output pixel (x, y) shows source (sx * (x - tx), sy * (y - ty)).
            x0 = int(round(tx)) - (w - 1) if fx else -int(round(tx))
            y0 = int(round(ty)) - (h - 1) if fy else -int(round(ty))
            if 0 <= x0 and 0 <= y0 and x0 + w <= sw and y0 + h <= sh:
                part = src[y0 : y0 + h, x0 : x0 + w]
                if fx and fy:
                    cv2.flip(part, -1, dst=out)
                elif fx:
                    cv2.flip(part, 1, dst=out)
                elif fy:
                    cv2.flip(part, 0, dst=out)
                else:
                    return part
                return out
    if (h, w) == (sw, sh):  # a quarter turn of the whole frame
        if np.allclose(m, [[0, -1, sh - 1], [1, 0, 0]], atol=1e-9):
            cv2.rotate(src, cv2.ROTATE_90_CLOCKWISE, dst=out)
            return out
        if np.allclose(m, [[0, 1, 0], [-1, 0, sw - 1]], atol=1e-9):
            cv2.rotate(src, cv2.ROTATE_90_COUNTERCLOCKWISE, dst=out)
            return out
    cv2.warpAffine(
        src,
        m,
        (w, h),
        dst=out,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=fill,
    )
    return out


def warp_i420(
    src: tuple[np.ndarray, np.ndarray, np.ndarray],
    m: np.ndarray,
    out: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Apply a 2x3 luma map to I420 planes; returns the planes to encode (``out`` or views)."""
    mc = _chroma_map(m)
    return (
        _warp_plane(src[0], m, out[0], BLACK_I420[0]),
        _warp_plane(src[1], mc, out[1], BLACK_I420[1]),
        _warp_plane(src[2], mc, out[2], BLACK_I420[2]),
    )


def warp_rgb(src: np.ndarray, m: np.ndarray, out: np.ndarray) -> None:
    """Apply a 2x3 map into ``out``, with fast paths for identity and flips."""
    h, w = out.shape[:2]
    sh, sw = src.shape[:2]
    if (sw, sh) == (w, h):
        if np.allclose(m, [[1, 0, 0], [0, 1, 0]]):
            out[:] = src
            return
        if np.allclose(m, [[-1, 0, w - 1], [0, 1, 0]]):
            cv2.flip(src, 1, dst=out)
            return
        if np.allclose(m, [[1, 0, 0], [0, -1, h - 1]]):
            cv2.flip(src, 0, dst=out)
            return
    a, b = m[0, 0], m[0, 1]
    if abs(b) < 1e-12 and abs(m[1, 0]) < 1e-12 and a > 0 and abs(m[1, 1] - a) < 1e-12:
        # Pure zoom/crop: resize the covered region only (much cheaper than a full warp).
        x0, y0 = -m[0, 2] / a, -m[1, 2] / a
        x1, y1 = x0 + w / a, y0 + h / a
        if 0 <= x0 and 0 <= y0 and x1 <= sw + 1e-6 and y1 <= sh + 1e-6:
            if abs(x0 - round(x0)) < 1e-6 and abs(y0 - round(y0)) < 1e-6 and abs(a - 1) < 1e-12:
                out[:] = src[
                    int(round(y0)) : int(round(y0)) + h, int(round(x0)) : int(round(x0)) + w
                ]
                return
    cv2.warpAffine(src, m, (w, h), dst=out, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
