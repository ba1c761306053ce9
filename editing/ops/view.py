"""``crop`` and ``zoom_in``: a closer view. Both keep every answer: they scale and shift the
picture (never flip it), and refuse when an object the question reads would leave the view."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tempogen.config import MAX_SIDE
from tempogen.editing.clip import Clip
from tempogen.editing.ops.base import ZOOM, SpaceOp, register_op
from tempogen.errors import EditError


def _even(v: float) -> int:
    return max(2, int(round(v / 2)) * 2)


@register_op
@dataclass(frozen=True)
class Crop(SpaceOp):
    """Keep the box (x0, y0, x1, y1) in pixels, scaled to ``size`` (default: the box's size)."""

    box: tuple[float, float, float, float]
    size: tuple[int, int] | None = None
    name: ClassVar[str] = "crop"
    variation: ClassVar[str] = ZOOM
    edit: ClassVar[str] = "zoom"  # each fact declares it (``Fact.edits``)
    takes_list: ClassVar[bool] = True  # ``{crop: [x0, y0, x1, y1]}`` is the box

    def __post_init__(self) -> None:
        # YAML gives lists; keep the op frozen, hashable and equal to its tuple twin
        if isinstance(self.box, list):
            object.__setattr__(self, "box", tuple(self.box))
        if isinstance(self.size, list):
            object.__setattr__(self, "size", tuple(self.size))

    def validate(self) -> None:
        x0, y0, x1, y1 = self.box
        if min(x0, y0) < 0 or x1 <= x0 or y1 <= y0:
            raise EditError(f"box: expected x0, y0 >= 0, x1 > x0 and y1 > y0, got {list(self.box)}")
        if self.size is not None and not all(2 <= v <= MAX_SIDE and v % 2 == 0 for v in self.size):
            raise EditError(
                f"size: width and height must be even, from 2 to {MAX_SIDE}, got {list(self.size)}"
            )

    def maps(self, clip: Clip) -> tuple[np.ndarray, tuple[int, int]]:
        w, h = clip.size
        try:
            x0, y0, x1, y1 = (float(v) for v in self.box)
        except (TypeError, ValueError):
            raise EditError(
                f"crop: box must be four numbers (x0, y0, x1, y1), got {self.box!r}"
            ) from None
        if not (0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h):
            raise EditError(f"crop: box {list(self.box)} is not inside the {w}x{h} frame")
        out = self.size or (_even(x1 - x0), _even(y1 - y0))
        s = out[0] / (x1 - x0)
        if abs(out[1] / (y1 - y0) - s) > 0.02 * s:
            raise EditError(
                f"crop: box {list(self.box)} and size {list(out)} differ in aspect ratio"
            )
        return np.array([[s, 0, -s * x0], [0, s, -s * y0]]), (int(out[0]), int(out[1]))


# Facts that depend only on an object's own appearance, not on where it is on screen: a view
# that follows the subject keeps them; every other fact gets a fixed zoom box instead.
MAX_MARGIN = 10.0  # the view's margin, in subject sizes: beyond it nothing is zoomed
MAX_SMOOTH = 10.0  # seconds of the moving average a following view glides by
FOLLOW_SAFE = {("rotation", "spin"), ("count", "flash"), ("frequency", "flash"), ("order", "lit")}


@register_op
@dataclass(frozen=True)
class ZoomIn(SpaceOp):
    """A zoomed-in view of ``subject`` at the clip's size: following its smoothed box when the
    question does not depend on screen position, else one fixed box around its whole path."""

    subject: str = "main"
    margin: float = 0.2
    smooth: float = 0.5
    name: ClassVar[str] = "zoom_in"
    variation: ClassVar[str] = ZOOM
    edit: ClassVar[str] = "zoom"  # each fact declares it (``Fact.edits``)

    def validate(self) -> None:
        if not 0 <= self.margin <= MAX_MARGIN:
            raise EditError(f"margin: must be from 0 to {MAX_MARGIN:g}, got {self.margin!r}")
        if not 0 <= self.smooth <= MAX_SMOOTH:
            raise EditError(
                f"smooth: must be from 0 to {MAX_SMOOTH:g} seconds, got {self.smooth!r}"
            )

    def maps(self, clip: Clip) -> tuple[np.ndarray, tuple[int, int]]:
        if clip.labels is None:
            raise EditError(
                "zoom_in: needs per-frame labels to find the subject; use crop(box) for an external clip"
            )
        if self.margin < 0:
            raise EditError(f"zoom_in: margin must be >= 0, got {self.margin}")
        labels = clip.labels
        name = labels.query.objects[0] if self.subject in ("main", "subject") else self.subject
        try:
            box = labels.track(name).bbox()
        except KeyError:
            raise EditError(
                f"zoom_in: no object named {name!r}; objects: {[t.name for t in labels.tracks]}"
            ) from None
        asked = [labels.track(o) for o in labels.query.objects if labels.track(o).role != "anchor"]
        follow = (labels.query.fact, labels.query.kind) in FOLLOW_SAFE and len(asked) == 1
        if not follow:  # the view must keep every object the question reads
            boxes = np.stack([t.bbox() for t in asked] + [box])
            box = np.concatenate([boxes[..., :2].min(0), boxes[..., 2:].max(0)], axis=1)
        w, h = clip.size
        bw, bh = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
        if follow:
            cx = _smooth((box[:, 0] + box[:, 2]) / 2, self.smooth * clip.fps)
            cy = _smooth((box[:, 1] + box[:, 3]) / 2, self.smooth * clip.fps)
            half = float(np.max(np.maximum(bw, bh * w / h))) / 2
        else:
            x0, y0, x1, y1 = box[:, 0].min(), box[:, 1].min(), box[:, 2].max(), box[:, 3].max()
            cx = np.full(len(box), (x0 + x1) / 2)
            cy = np.full(len(box), (y0 + y1) / 2)
            half = max(x1 - x0, (y1 - y0) * w / h) / 2
        vw = half * (1 + 2 * self.margin)  # half-width of the view, in source pixels
        vh = vw * h / w
        if vw >= w / 2 - 1e-9:
            raise EditError(
                f"zoom_in: {name!r} with margin {self.margin} needs the whole frame; nothing to zoom"
            )
        cx = np.clip(cx, vw, w - vw)
        cy = np.clip(cy, vh, h - vh)
        s = (w / 2) / vw
        m = np.zeros((len(cx), 2, 3))
        m[:, 0, 0] = m[:, 1, 1] = s
        m[:, 0, 2] = w / 2 - s * cx
        m[:, 1, 2] = h / 2 - s * cy
        return m, (w, h)


def _smooth(v: np.ndarray, window: float) -> np.ndarray:
    """Moving average with edge padding, so the view glides rather than jitters."""
    k = max(1, int(round(window)))
    if k <= 1 or len(v) < 3:
        return v
    pad = np.pad(v, (k, k), mode="edge")
    c = np.convolve(pad, np.ones(2 * k + 1) / (2 * k + 1), mode="same")
    return c[k:-k]
