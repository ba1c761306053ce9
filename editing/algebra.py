"""Label algebra: what every op does to every label kind.

Per-frame states (tracks) move with the frames exactly: a time op selects states, a spatial
op maps positions, angles and scales through the same similarity transform. Task facts are
then re-derived from the moved states by :mod:`tempogen.observe`. Per-frame meta moves too:
3D joints are retimed with the frames and dropped by a picture transform (with the camera
that projected them); a temporal-noise clip is refused, since no op re-certifies its noise.

Clips that carry only declared facts (an external video with ``rotation: [clockwise]`` in
its manifest) go through their facts' label kernels instead (each fact's module registers
its own: :mod:`tempogen.facts.kernels`). A fact with no kernel for an op makes the op refuse,
naming the fact; nothing stale passes through.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Literal

import numpy as np

from tempogen.editing.clip import EditError, similarity_parts
from tempogen.facts.kernels import KernelRefusal, get_kernel, has_kernel, refusal, through
from tempogen.labels import Labels

# -- per-frame states -----------------------------------------------------------------------
# What ``labels.meta`` holds per frame or per view, and so must move with the frames:
# each subject's 3D points (one per frame) and the camera that projects them into the picture.
FRAME_META: tuple[Literal["joints3d"], ...] = ("joints3d",)
VIEW_META: tuple[Literal["camera"], ...] = ("camera",)


def _unmovable(labels: Labels, op: str) -> None:
    """Refuse to edit a temporal-noise clip: its certificate (one frame alone is noise, the
    motion signal shows the objects) and its region order are not re-derived by any op."""
    if "encoding" in labels.meta:
        raise EditError(
            f"{op}: a temporal-noise clip cannot be edited: its noise certificate and the "
            "order its objects are named in would not be re-checked"
        )


def retime(labels: Labels, sel: np.ndarray, fps: float | None = None, op: str = "retime") -> Labels:
    """States at the selected frames (reverse, speed, trim, loop); per-frame meta (3D joints)
    is taken at the same frames."""
    _unmovable(labels, op)
    meta = labels.meta.copy()
    for key in FRAME_META:
        if key in meta:
            meta[key] = {k: [v[int(i)] for i in sel] for k, v in meta[key].items()}
    return labels.with_tracks(
        tuple(t.take(sel) for t in labels.tracks), fps=fps or labels.fps, meta=meta
    )


def unprojected(labels: Labels) -> Labels:
    """Labels without the 3D joints and camera: after a picture transform, a join or a
    composite, the recorded camera no longer maps those points to what the frames show."""
    drop = FRAME_META + VIEW_META
    if not any(k in labels.meta for k in drop):
        return labels
    meta = labels.meta.copy()
    for key in drop:
        meta.pop(key, None)
    return replace(labels, meta=meta)


def move(labels: Labels, maps: np.ndarray, size: tuple[int, int], op: str) -> Labels:
    """States through per-frame similarity maps (mirror, rotate, crop, zoom, composite).

    Positions map as points, angles as orientations (a reflection reverses the sense of
    turning), scales by the map's scale. The queried objects must stay inside the new frame;
    other objects that leave it become invisible.
    """
    _unmovable(labels, op)
    parts = [similarity_parts(m) for m in maps]
    scale = np.array([p[0] for p in parts])
    theta = np.array([p[1] for p in parts])
    refl = np.array([p[2] for p in parts])
    w, h = size
    tracks = []
    for t in labels.tracks:
        x = maps[:, 0, 0] * t.x + maps[:, 0, 1] * t.y + maps[:, 0, 2]
        y = maps[:, 1, 0] * t.x + maps[:, 1, 1] * t.y + maps[:, 1, 2]
        angle = np.where(refl, theta - t.angle, t.angle + theta)
        angle = _keep_turns(t.angle, angle, refl)
        new = t.with_states(x=x, y=y, angle=angle, scale=t.scale * scale)
        if t.role != "anchor":
            box = new.bbox()
            inside = (
                (box[:, 0] >= -0.5)
                & (box[:, 1] >= -0.5)
                & (box[:, 2] <= w + 0.5)
                & (box[:, 3] <= h + 0.5)
            )
            if t.name in labels.query.objects and not inside.all():
                frames = np.flatnonzero(~inside)
                raise EditError(
                    f"{op}: object {t.name!r} ({labels.meta.get('nouns', {}).get(t.name, t.name)}) "
                    f"leaves the output frame at frames {frames[:5].tolist()}"
                    f"{'...' if len(frames) > 5 else ''}; its labels would not be visible"
                )
            overlaps = (box[:, 2] > 0) & (box[:, 3] > 0) & (box[:, 0] < w) & (box[:, 1] < h)
            new = new.with_states(visible=new.visible & overlaps)
        tracks.append(new)
    return unprojected(labels).with_tracks(tuple(tracks), width=int(w), height=int(h))


def _keep_turns(before: np.ndarray, after: np.ndarray, refl: np.ndarray) -> np.ndarray:
    """Keep the cumulative angle continuous where the map itself does not change."""
    out = after.copy()
    for i in range(1, len(out)):
        want = out[i - 1] + (-(before[i] - before[i - 1]) if refl[i] else before[i] - before[i - 1])
        out[i] = out[i] + 360.0 * round((want - out[i]) / 360.0)
    return out


# -- declared facts ---------------------------------------------------------------------------
# Each fact's module registers its own kernel per label kernel (``tempogen.facts.kernels``);
# these run every declared fact of a clip through them, and refuse a fact without one.
def facts_reverse(facts: dict[str, Any]) -> dict[str, Any]:
    """Time reversal: sequences reverse and each element inverts; trends swap; counts stay."""
    return through("time_reversal", "reverse", facts)


def facts_mirror(facts: dict[str, Any], axis: str) -> dict[str, Any]:
    """Mirror: left<->right (horizontal) or up<->down (vertical); the sense of turning flips."""
    return through("mirror", f"mirror {axis}", facts, axis=axis)


def facts_rotate(facts: dict[str, Any], degrees: int) -> dict[str, Any]:
    """Rotate the picture clockwise by a multiple of 90: directions turn with it."""
    return through("rotate", f"rotate {degrees}", facts, degrees=degrees)


def facts_ramp(facts: dict[str, Any], start: float, end: float) -> dict[str, Any]:
    """A playback-rate ramp: a steady motion becomes accelerating (rising rate) or
    decelerating; a trend against the ramp cannot be decided without the states."""
    if math.isclose(start, end):
        return dict(facts)
    return through("rate_ramp", "speed_ramp", facts, start=start, end=end)


def facts_speed(facts: dict[str, Any], factor: float) -> dict[str, Any]:
    """A uniform rate change keeps every trend and sequence; speeding up drops frames, which
    can hide a brief event or alias a fast turn, so counts and rotations then refuse."""
    return through("speed", f"speed x{factor:g}", facts, factor=factor)


def facts_loop(facts: dict[str, Any], times: int) -> dict[str, Any]:
    """Looping multiplies counts; sequences would gain a jump at each seam, so they refuse."""
    return through("repeat", f"loop {times}", facts, times=times)


def facts_concat(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """A then B: sequences join (a repeated element merges), counts add."""
    if set(a) != set(b):
        raise EditError(f"concat: clips declare different labels: {sorted(a)} vs {sorted(b)}")
    out: dict[str, Any] = {}
    for k in a:
        if not has_kernel("join", k):
            raise refusal("concat", k, f"joining {a[k]!r} and {b[k]!r}")
        try:
            out[k] = get_kernel("join", k, "concat")(a[k], b[k])
        except KernelRefusal as why:
            raise refusal("concat", k, str(why)) from None
    return out


def facts_unchanged(facts: dict[str, Any], op: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    """Ops that keep these facts as they are (constant speed change, static crop)."""
    for k in facts:
        if k not in allowed:
            raise refusal(op, k, "no rule for this label")
    return dict(facts)
