"""Label algebra: what every op does to every label kind.

Per-frame states (tracks) move with the frames exactly: a time op selects states, a spatial
op maps positions, angles and scales through the same similarity transform. Task facts are
then re-derived from the moved states by :mod:`tempogen.observe`. Per-frame meta moves too:
3D joints are retimed with the frames and dropped by a picture transform (with the camera
that projected them); a temporal-noise clip is refused, since no op re-certifies its noise.

Clips that carry only declared facts (an external video with ``rotation: [clockwise]`` in
its manifest) go through the kernels below instead. A fact with no sound kernel for an op
makes the op refuse, naming the fact; nothing stale passes through.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from tempogen.editing.clip import EditError, similarity_parts
from tempogen.labels import Labels

INVERT = {"left": "right", "right": "left", "up": "down", "down": "up", "cw": "ccw", "ccw": "cw"}
SWAP_TREND = {
    "accelerating": "decelerating",
    "decelerating": "accelerating",
    "increasing": "decreasing",
    "decreasing": "increasing",
}
KNOWN = ("direction", "rotation", "speed", "frequency", "count", "trajectory", "order", "approach")
# towards/away from the camera: time reversal swaps them; no flip, turn or zoom of the picture
# changes whether the subject grows or shrinks
DEPTH = {"towards": "away", "away": "towards"}
CLOCKWISE_TURN = {"right": "down", "down": "left", "left": "up", "up": "right"}


# -- per-frame states -----------------------------------------------------------------------
# What ``labels.meta`` holds per frame or per view, and so must move with the frames:
# each subject's 3D points (one per frame) and the camera that projects them into the picture.
FRAME_META = ("joints3d",)
VIEW_META = ("camera",)


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
    meta = dict(labels.meta)
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
    return replace(labels, meta={k: v for k, v in labels.meta.items() if k not in drop})


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
def _seq(v: Any, fact: str) -> list[str]:
    if not isinstance(v, list | tuple) or any(t not in INVERT for t in v):
        raise EditError(
            f"label {fact!r}: expected a list of tokens from {sorted(INVERT)}, got {v!r}"
        )
    return list(v)


def _depth(v: Any, fact: str) -> list[str]:
    if not isinstance(v, list | tuple) or any(t not in DEPTH for t in v):
        raise EditError(
            f"label {fact!r}: expected a list of tokens from {sorted(DEPTH)}, got {v!r}"
        )
    return list(v)


def _refuse(op: str, fact: str, why: str) -> EditError:
    return EditError(f"{op}: cannot transform label {fact!r} soundly: {why}")


def facts_reverse(facts: dict[str, Any]) -> dict[str, Any]:
    """Time reversal: sequences reverse and each element inverts; trends swap; counts stay."""
    out: dict[str, Any] = {}
    for k, v in facts.items():
        if k in ("direction", "rotation"):
            out[k] = [INVERT[t] for t in reversed(_seq(v, k))]
        elif k == "approach":
            out[k] = [DEPTH[t] for t in reversed(_depth(v, k))]
        elif k in ("speed", "frequency"):
            out[k] = SWAP_TREND.get(v, v)
        elif k in ("count", "trajectory"):
            out[k] = v
        elif k == "order":
            if v:
                raise _refuse(
                    "reverse", k, "who starts first in reverse depends on when each action ends"
                )
            out[k] = v
        else:
            raise _refuse("reverse", k, "no rule for this label")
    return out


def facts_mirror(facts: dict[str, Any], axis: str) -> dict[str, Any]:
    """Mirror: left<->right (horizontal) or up<->down (vertical); the sense of turning flips."""
    swap = (
        {"left": "right", "right": "left"} if axis == "horizontal" else {"up": "down", "down": "up"}
    )
    out: dict[str, Any] = {}
    for k, v in facts.items():
        if k == "direction":
            out[k] = [swap.get(t, t) for t in _seq(v, k)]
        elif k == "rotation":
            out[k] = [INVERT[t] for t in _seq(v, k)]
        elif k in ("speed", "frequency", "count", "trajectory", "order"):
            out[k] = v
        elif k == "approach":
            out[k] = _depth(v, k)
        else:
            raise _refuse(f"mirror {axis}", k, "no rule for this label")
    return out


def facts_rotate(facts: dict[str, Any], degrees: int) -> dict[str, Any]:
    """Rotate the picture clockwise by a multiple of 90: directions turn with it."""
    out: dict[str, Any] = {}
    for k, v in facts.items():
        if k == "direction":
            toks = _seq(v, k)
            for _ in range((degrees // 90) % 4):
                toks = [CLOCKWISE_TURN[t] for t in toks]
            out[k] = toks
        elif k in ("rotation", "speed", "frequency", "count", "trajectory", "order"):
            out[k] = v
        elif k == "approach":
            out[k] = _depth(v, k)
        else:
            raise _refuse(f"rotate {degrees}", k, "no rule for this label")
    return out


def facts_ramp(facts: dict[str, Any], start: float, end: float) -> dict[str, Any]:
    """A playback-rate ramp: a steady motion becomes accelerating (rising rate) or
    decelerating; a trend against the ramp cannot be decided without the states."""
    if math.isclose(start, end):
        return dict(facts)
    up = end > start
    out: dict[str, Any] = {}
    for k, v in facts.items():
        if k in ("speed", "frequency"):
            rising, falling = (
                ("accelerating", "decelerating") if k == "speed" else ("increasing", "decreasing")
            )
            if v == "constant" or v == (rising if up else falling):
                out[k] = rising if up else falling
            elif v == "none":
                out[k] = v
            else:
                raise _refuse(
                    "speed_ramp", k, f"{v} motion under a {'rising' if up else 'falling'} rate"
                )
        else:
            out[k] = v
    return out


def facts_speed(facts: dict[str, Any], factor: float) -> dict[str, Any]:
    """A uniform rate change keeps every trend and sequence; speeding up drops frames, which
    can hide a brief event or alias a fast turn, so counts and rotations then refuse."""
    for k in facts:
        if k not in KNOWN:
            raise _refuse(f"speed x{factor:g}", k, "no rule for this label")
        if factor > 1 and k in ("count", "frequency", "rotation"):
            raise _refuse(f"speed x{factor:g}", k, "dropped frames may hide events or alias a turn")
    return dict(facts)


def facts_loop(facts: dict[str, Any], times: int) -> dict[str, Any]:
    """Looping multiplies counts; sequences would gain a jump at each seam, so they refuse."""
    out: dict[str, Any] = {}
    for k, v in facts.items():
        if k == "count":
            out[k] = int(v) * times
        elif k in ("speed", "frequency") and v in ("constant", "none"):
            out[k] = v
        elif times == 1:
            out[k] = v
        else:
            raise _refuse(f"loop {times}", k, "the clip restarts at each seam")
    return out


def facts_concat(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """A then B: sequences join (a repeated element merges), counts add."""
    if set(a) != set(b):
        raise EditError(f"concat: clips declare different labels: {sorted(a)} vs {sorted(b)}")
    out: dict[str, Any] = {}
    for k in a:
        if k in ("direction", "rotation"):
            seq = _seq(a[k], k) + _seq(b[k], k)
            out[k] = [t for i, t in enumerate(seq) if i == 0 or seq[i - 1] != t]
        elif k == "approach":  # B starts as big as A ends (else the states check refuses)
            seq = _depth(a[k], k) + _depth(b[k], k)
            out[k] = [t for i, t in enumerate(seq) if i == 0 or seq[i - 1] != t]
        elif k == "count":
            out[k] = int(a[k]) + int(b[k])
        elif a[k] == b[k] and k in ("speed", "frequency") and a[k] in ("constant", "none"):
            out[k] = a[k]
        else:
            raise _refuse("concat", k, f"joining {a[k]!r} and {b[k]!r}")
    return out


def facts_unchanged(facts: dict[str, Any], op: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    """Ops that keep these facts as they are (constant speed change, static crop)."""
    for k in facts:
        if k not in allowed:
            raise _refuse(op, k, "no rule for this label")
    return dict(facts)
