"""Edit ops: small frozen objects mapping a clip (frames and labels) to a new clip.

Temporal ops select output frames (``reverse``, ``speed``, ``speed_ramp``, ``trim``, ``loop``);
spatial ops add a similarity map per frame (``mirror``, ``rotate``, ``crop``, ``zoom_in``);
``concat``, ``pair_with_black_gap`` and ``composite`` join clips. Each op moves the labels
with the frames (see :mod:`tempogen.editing.algebra`) or refuses, and records itself in the
clip's edit history and TOMATO variation flags.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np

from tempogen.editing import algebra
from tempogen.editing.clip import Clip, EditError
from tempogen.labels import Labels

# TOMATO's variation flag each kind of edit sets.
COUNTERFACTUAL, COMPOSITE, ZOOM = "counterfactual", "composite", "zoom"


class Op:
    """Base of the single-clip ops: ``op(clip)`` returns the edited clip."""

    name: ClassVar[str] = ""
    variation: ClassVar[str] = COUNTERFACTUAL

    def __call__(self, clip: Clip) -> Clip:
        out = self.apply(clip)
        record = {"op": self.name, **asdict(self)}  # type: ignore[call-overload]
        keep = not self.variation or self.variation in clip.variation
        flags = clip.variation if keep else clip.variation + (self.variation,)
        return out.evolve(edits=clip.edits + (record,), variation=flags)

    def apply(self, clip: Clip) -> Clip:
        raise NotImplementedError


# -- time -------------------------------------------------------------------------------------
class _TimeOp(Op):
    """An op that only chooses which current frames are shown, in what order."""

    def select(self, clip: Clip) -> np.ndarray:
        raise NotImplementedError

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def apply(self, clip: Clip) -> Clip:
        sel = self.select(clip)
        if len(sel) == 0:
            raise EditError(f"{self.name}: the edit leaves no frames")
        labels = algebra.retime(clip.labels, sel) if clip.labels is not None else None
        black = clip.black[sel] if clip.black is not None else None
        facts = self.facts(clip.facts) if clip.facts else {}
        return clip.evolve(
            index=clip.index[sel], affine=clip.affine[sel], labels=labels, facts=facts, black=black
        )


@dataclass(frozen=True)
class Reverse(_TimeOp):
    """Play the clip backwards."""

    name: ClassVar[str] = "reverse"

    def select(self, clip: Clip) -> np.ndarray:
        return np.arange(clip.num_frames)[::-1]

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        return algebra.facts_reverse(facts)


@dataclass(frozen=True)
class Speed(_TimeOp):
    """Play ``factor`` times faster (frames dropped) or slower (frames repeated); fps stays."""

    factor: float
    name: ClassVar[str] = "speed"

    def __post_init__(self) -> None:
        if not (
            isinstance(self.factor, int | float) and self.factor > 0 and math.isfinite(self.factor)
        ):
            raise EditError(f"speed: factor must be a positive number, got {self.factor!r}")

    def select(self, clip: Clip) -> np.ndarray:
        n = clip.num_frames
        m = int(math.floor((n - 1) / self.factor)) + 1
        # floor, not round: slow motion holds every frame equally long (no 2-1-3 judder)
        return np.minimum(np.floor(np.arange(m) * self.factor + 1e-9).astype(int), n - 1)

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        return algebra.facts_speed(facts, self.factor)


@dataclass(frozen=True)
class SpeedRamp(_TimeOp):
    """Playback rate changing linearly from ``start`` to ``end`` times normal over the clip."""

    start: float
    end: float
    name: ClassVar[str] = "speed_ramp"

    def __post_init__(self) -> None:
        for k in ("start", "end"):
            v = getattr(self, k)
            if not (isinstance(v, int | float) and v > 0 and math.isfinite(v)):
                raise EditError(f"speed_ramp: {k} must be a positive number, got {v!r}")

    def select(self, clip: Clip) -> np.ndarray:
        n = clip.num_frames
        pos, out = 0.0, []
        while pos <= n - 1 + 1e-9:
            out.append(min(int(round(pos)), n - 1))
            u = pos / max(n - 1, 1)
            pos += self.start + (self.end - self.start) * u
        return np.array(out, dtype=int)

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        ramped = algebra.facts_ramp(facts, self.start, self.end)
        return algebra.facts_speed(ramped, max(self.start, self.end))


@dataclass(frozen=True)
class Trim(_TimeOp):
    """Keep the part between ``start`` and ``end`` seconds (end exclusive; None = to the end)."""

    start: float = 0.0
    end: float | None = None
    name: ClassVar[str] = "trim"
    variation: ClassVar[str] = ""  # a cut is neither counterfactual, composite nor zoom

    def select(self, clip: Clip) -> np.ndarray:
        a = int(round(self.start * clip.fps))
        b = clip.num_frames if self.end is None else int(round(self.end * clip.fps))
        if self.start < 0 or a >= min(b, clip.num_frames):
            raise EditError(
                f"trim: [{self.start}, {self.end}) s holds no frame of a {clip.num_frames / clip.fps:.2f} s clip"
            )
        return np.arange(a, min(b, clip.num_frames))

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        if facts:
            raise EditError(
                f"trim: cannot transform labels {sorted(facts)} soundly: the cut may remove what they describe"
            )
        return facts


@dataclass(frozen=True)
class Loop(_TimeOp):
    """Play the clip ``times`` times in a row."""

    times: int = 2
    name: ClassVar[str] = "loop"
    variation: ClassVar[str] = COMPOSITE

    def __post_init__(self) -> None:
        if not isinstance(self.times, int) or self.times < 1:
            raise EditError(f"loop: times must be a positive integer, got {self.times!r}")

    def select(self, clip: Clip) -> np.ndarray:
        return np.tile(np.arange(clip.num_frames), self.times)

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        return algebra.facts_loop(facts, self.times)


# -- space ------------------------------------------------------------------------------------
def _compose(m: np.ndarray, maps: np.ndarray) -> np.ndarray:
    """Per-frame ``m[j] o maps[j]`` for 2x3 affine maps (``m`` may be one map or one per frame)."""
    m = np.broadcast_to(m, maps.shape)
    lin = np.einsum("nij,njk->nik", m[:, :, :2], maps[:, :, :2])
    t = np.einsum("nij,nj->ni", m[:, :, :2], maps[:, :, 2]) + m[:, :, 2]
    return np.concatenate([lin, t[:, :, None]], axis=2)


class _SpaceOp(Op):
    """An op that maps every frame's pixels through a similarity transform."""

    def maps(self, clip: Clip) -> tuple[np.ndarray, tuple[int, int]]:
        raise NotImplementedError

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def apply(self, clip: Clip) -> Clip:
        m, size = self.maps(clip)
        m = np.broadcast_to(m, (clip.num_frames, 2, 3))
        labels = algebra.move(clip.labels, m, size, self.name) if clip.labels is not None else None
        facts = self.facts(clip.facts) if clip.facts else {}
        return clip.evolve(affine=_compose(m, clip.affine), size=size, labels=labels, facts=facts)


@dataclass(frozen=True)
class Mirror(_SpaceOp):
    """Flip left-right (``horizontal``) or top-bottom (``vertical``)."""

    axis: str = "horizontal"
    name: ClassVar[str] = "mirror"

    def __post_init__(self) -> None:
        if self.axis not in ("horizontal", "vertical"):
            raise EditError(f"mirror: axis must be 'horizontal' or 'vertical', got {self.axis!r}")

    def maps(self, clip: Clip) -> tuple[np.ndarray, tuple[int, int]]:
        w, h = clip.size
        if self.axis == "horizontal":
            return np.array([[-1.0, 0, w - 1], [0, 1, 0]]), (w, h)
        return np.array([[1.0, 0, 0], [0, -1, h - 1]]), (w, h)

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        return algebra.facts_mirror(facts, self.axis)


@dataclass(frozen=True)
class Rotate(_SpaceOp):
    """Rotate the picture clockwise by 90, 180 or 270 degrees (the canvas turns with it)."""

    degrees: int = 90
    name: ClassVar[str] = "rotate"

    def __post_init__(self) -> None:
        if self.degrees not in (90, 180, 270):
            raise EditError(f"rotate: degrees must be 90, 180 or 270, got {self.degrees!r}")

    def maps(self, clip: Clip) -> tuple[np.ndarray, tuple[int, int]]:
        w, h = clip.size
        if self.degrees == 90:
            return np.array([[0.0, -1, h - 1], [1, 0, 0]]), (h, w)
        if self.degrees == 180:
            return np.array([[-1.0, 0, w - 1], [0, -1, h - 1]]), (w, h)
        return np.array([[0.0, 1, 0], [-1, 0, w - 1]]), (h, w)

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        return algebra.facts_rotate(facts, self.degrees)


def _even(v: float) -> int:
    return max(2, int(round(v / 2)) * 2)


@dataclass(frozen=True)
class Crop(_SpaceOp):
    """Keep the box (x0, y0, x1, y1) in pixels, scaled to ``size`` (default: the box's size)."""

    box: tuple[float, float, float, float]
    size: tuple[int, int] | None = None
    name: ClassVar[str] = "crop"
    variation: ClassVar[str] = ZOOM

    def __post_init__(self) -> None:
        # YAML gives lists; keep the op frozen, hashable and equal to its tuple twin
        if isinstance(self.box, list):
            object.__setattr__(self, "box", tuple(self.box))
        if isinstance(self.size, list):
            object.__setattr__(self, "size", tuple(self.size))

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

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        return dict(facts)


# Facts that depend only on an object's own appearance, not on where it is on screen: a view
# that follows the subject keeps them; every other fact gets a fixed zoom box instead.
FOLLOW_SAFE = {("rotation", "spin"), ("count", "flash"), ("frequency", "flash"), ("order", "lit")}


@dataclass(frozen=True)
class ZoomIn(_SpaceOp):
    """A zoomed-in view of ``subject`` at the clip's size: following its smoothed box when the
    question does not depend on screen position, else one fixed box around its whole path."""

    subject: str = "main"
    margin: float = 0.2
    smooth: float = 0.5
    name: ClassVar[str] = "zoom_in"
    variation: ClassVar[str] = ZOOM

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

    def facts(self, facts: dict[str, Any]) -> dict[str, Any]:
        return dict(facts)


def _smooth(v: np.ndarray, window: float) -> np.ndarray:
    """Moving average with edge padding, so the view glides rather than jitters."""
    k = max(1, int(round(window)))
    if k <= 1 or len(v) < 3:
        return v
    pad = np.pad(v, (k, k), mode="edge")
    c = np.convolve(pad, np.ones(2 * k + 1) / (2 * k + 1), mode="same")
    return c[k:-k]


OPS: dict[str, type[Op]] = {
    cls.name: cls for cls in (Reverse, Speed, SpeedRamp, Trim, Loop, Mirror, Rotate, Crop, ZoomIn)
}


def make_op(name: str, params: Any = None) -> Op:
    """Build an op from its name and parameters (a mapping, a list, one value, or none)."""
    cls = OPS.get(name)
    if cls is None:
        raise EditError(f"unknown op {name!r}; known ops: {', '.join(sorted(OPS))}")
    try:
        if params is None:
            return cls()
        if isinstance(params, dict):
            return cls(**params)
        if isinstance(params, list | tuple) and name not in ("crop",):
            return cls(*params)
        return cls(params)
    except TypeError as exc:
        raise EditError(f"{name}: bad parameters {params!r}: {exc}") from None


# -- several clips ----------------------------------------------------------------------------
def _same_format(a: Clip, b: Clip, op: str) -> None:
    if a.size != b.size or not math.isclose(a.fps, b.fps):
        raise EditError(f"{op}: clips differ in size or fps: {a.size}@{a.fps} vs {b.size}@{b.fps}")


def _joined_labels(a: Labels, b: Labels, gap: int, op: str) -> Labels:
    """A's states, then ``gap`` hidden frames holding A's last state, then B's states."""
    if a.query != b.query or [t.name for t in a.tracks] != [t.name for t in b.tracks]:
        raise EditError(
            f"{op}: clips show different objects or questions; their labels cannot be joined"
        )
    tracks = []
    for ta, tb in zip(a.tracks, b.tracks, strict=True):
        if (ta.shape, ta.color, ta.size) != (tb.shape, tb.color, tb.size):
            raise EditError(f"{op}: object {ta.name!r} looks different in the two clips")
        hold = (
            ta.take(np.full(gap, ta.num_frames - 1)).with_states(visible=np.zeros(gap, bool))
            if gap
            else None
        )
        parts = [ta] + ([hold] if hold is not None else []) + [tb]
        tracks.append(
            ta.with_states(
                **{
                    k: np.concatenate([getattr(p, k) for p in parts])
                    for k in ("x", "y", "angle", "scale", "visible", "lit")
                }
            )
        )
    return a.with_tracks(tuple(tracks))


def concat(a: Clip, b: Clip, gap: float | None = None) -> Clip:
    """A then B (TOMATO's composite motions), with an optional black gap of ``gap`` seconds.

    Both clips must show the same objects and question; the joined states answer it anew.
    """
    _same_format(a, b, "concat")
    g = int(round((gap or 0) * a.fps))
    labels = (
        _joined_labels(a.labels, b.labels, g, "concat")
        if a.labels is not None and b.labels is not None
        else None
    )
    if (a.labels is None) != (b.labels is None):
        raise EditError("concat: one clip has per-frame labels and the other does not")
    facts = algebra.facts_concat(a.facts, b.facts) if (a.facts or b.facts) else {}
    w, h = a.size
    frames = np.concatenate([a.to_array(), np.zeros((g, h, w, 3), np.uint8), b.to_array()])
    black = np.zeros(len(frames), bool)
    black[a.num_frames : a.num_frames + g] = True
    out = Clip.from_array(frames, a.fps, labels, facts).evolve(black=black)
    record = {"op": "concat", "gap": gap, "parts": [list(a.edits), list(b.edits)]}
    return out.evolve(
        edits=(record,), variation=tuple(dict.fromkeys(a.variation + b.variation + (COMPOSITE,)))
    )


def pair_with_black_gap(pos: Clip, neg: Clip, seconds: float = 2.0) -> Clip:
    """Vinoground's video-score format: positive clip, ``seconds`` of black, negative clip.

    The result carries which frames belong to which caption, not merged object labels.
    """
    _same_format(pos, neg, "pair_with_black_gap")
    g = int(round(seconds * pos.fps))
    if g < 1:
        raise EditError(
            f"pair_with_black_gap: the gap must hold at least one frame, got {seconds} s"
        )
    w, h = pos.size
    frames = np.concatenate([pos.to_array(), np.zeros((g, h, w, 3), np.uint8), neg.to_array()])
    black = np.zeros(len(frames), bool)
    black[pos.num_frames : pos.num_frames + g] = True
    segments = {
        "pos": [0, pos.num_frames - 1],
        "gap": [pos.num_frames, pos.num_frames + g - 1],
        "neg": [pos.num_frames + g, len(frames) - 1],
    }
    out = Clip.from_array(frames, pos.fps, None, {"segments": segments}).evolve(black=black)
    return out.evolve(
        edits=({"op": "pair_with_black_gap", "seconds": seconds},), variation=(COMPOSITE,)
    )


def composite(a: Clip, b: Clip, layout: str = "side_by_side") -> Clip:
    """Two clips in one frame: side by side (each at half size) or B as a picture in A.

    The question stays A's; B's objects join as extra objects (renamed ``b:<name>``).
    """
    if layout not in ("side_by_side", "picture_in_picture"):
        raise EditError(
            f"composite: layout must be 'side_by_side' or 'picture_in_picture', got {layout!r}"
        )
    _same_format(a, b, "composite")
    n = min(a.num_frames, b.num_frames)
    w, h = a.size
    if layout == "side_by_side":
        ma = np.array([[0.5, 0, 0], [0, 0.5, h / 4]])
        mb = np.array([[0.5, 0, w / 2], [0, 0.5, h / 4]])
    else:
        ma = np.array([[1.0, 0, 0], [0, 1, 0]])
        s = 0.3
        mb = np.array([[s, 0, w * (1 - s) - 8], [0, s, 8]])
    import cv2

    fa, fb = a.to_array()[:n], b.to_array()[:n]
    frames = np.zeros((n, h, w, 3), np.uint8)
    for j in range(n):
        cv2.warpAffine(fa[j], ma, (w, h), dst=frames[j], flags=cv2.INTER_AREA)
        small = cv2.warpAffine(fb[j], mb, (w, h), flags=cv2.INTER_AREA)
        mask = cv2.warpAffine(
            np.ones(fb[j].shape[:2], np.uint8), mb, (w, h), flags=cv2.INTER_NEAREST
        ).astype(bool)
        frames[j][mask] = small[mask]
    labels = None
    if a.labels is not None:
        la = algebra.move(
            algebra.retime(a.labels, np.arange(n)),
            np.broadcast_to(ma, (n, 2, 3)),
            (w, h),
            "composite",
        )
        tracks = list(la.tracks)
        if b.labels is not None:
            lb = algebra.move(
                algebra.retime(b.labels, np.arange(n)),
                np.broadcast_to(mb, (n, 2, 3)),
                (w, h),
                "composite",
            )
            from dataclasses import replace

            for t in lb.tracks:
                role = "distractor" if t.role != "anchor" else "anchor"
                tracks.append(replace(t, name=f"b:{t.name}", role=role))
        labels = la.with_tracks(tuple(tracks))
    out = Clip.from_array(frames, a.fps, labels, dict(a.facts))
    record = {"op": "composite", "layout": layout, "parts": [list(a.edits), list(b.edits)]}
    return out.evolve(
        edits=(record,), variation=tuple(dict.fromkeys(a.variation + b.variation + (COMPOSITE,)))
    )
