"""Feet on the floor for imported motion: the posed body's soles on ``y = 0`` while a foot is
planted, and a planted foot that slides no more than the file's own.

A retargeted body is not the recorded one (other leg proportions, another foot), so the file's
pelvis height leaves its soles above or below the floor, and its planted feet drift. Here the
body the renderer draws is posed, its planted feet are found (low and slow), and the pelvis is
moved, smoothly, so that in every frame with a planted foot the lowest point of the mesh lies
on ``y = 0`` (within twice :data:`FLOOR_TOLERANCE`: a file whose feet already rest on its own
floor is left as it is), and, where the file's own foot positions are given, so that a planted foot moves
as the file's does. Between planted phases (a jump) the offsets are interpolated, so the body
still leaves the floor and nothing pops.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.ndimage import gaussian_filter1d, minimum_filter1d

from tempogen.generators.poses import PoseSequence

# SMPL joints of each foot (left, right): the ankle and the ball of the foot.
FOOT_JOINTS = ((7, 10), (8, 11))
CONTACT_HEIGHT = 0.10  # metres above the local floor a planted foot's lowest point stays within
CONTACT_SPEED = 0.4  # m/s: a planted foot's ankle or ball moves slower than this
FLOOR_WINDOW = 1.0  # seconds: the local floor is the lowest point of the body within this span
SPEED_SPAN = 0.04  # seconds over which a foot's speed is measured (noise of 120 fps capture)
MIN_PLANT = 0.1  # seconds: a shorter run of slow low frames is no plant
FLOOR_TOLERANCE = 0.004  # metres: a sole this close to y = 0 is left where the file put it
FILE_FLOOR = 0.05  # metres: a clip with no planted foot keeps its file's floor this close
LIFT_SMOOTH = 0.03  # seconds (sd): smoothing of the height correction (no pop between plants)
POSE_CHUNK = 512  # frames posed at a time (the vertices of a long clip would not fit)


@dataclass(frozen=True)
class Contact:
    """What :func:`ground` found and did: per frame (T,), or per frame and foot (T, 2)."""

    lowest: np.ndarray  # (T,) lowest mesh point before grounding, metres
    planted: np.ndarray  # (T, 2) bool: the left / right foot is planted
    lift: np.ndarray  # (T,) metres added to the pelvis height
    shift: np.ndarray  # (T, 2) metres added to the pelvis's x and z


def foot_points(joints: np.ndarray, which: Collection[int] | None = None) -> np.ndarray:
    """(T, 2, 3): each foot's anchor, the ball of the foot (its ankle where ``which``, the
    joints a file maps, lacks the ball): a planted foot pivots about it at toe-off."""
    out = []
    for ankle, ball in FOOT_JOINTS:
        out.append(joints[:, ball if which is None or ball in which else ankle])
    return np.stack(out, axis=1)


def _posed_feet(seq: PoseSequence, body: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lowest mesh point (T,), each foot's lowest point (T, 2) and the joints (T, 24, 3) of
    ``body`` posed by ``seq``, a chunk of frames at a time."""
    parts = np.asarray(body.parts)
    feet = [np.isin(parts, side) for side in FOOT_JOINTS]
    n = seq.num_frames
    lowest, foot_low = np.empty(n), np.empty((n, 2))
    joints = np.empty((n, 24, 3))
    for a in range(0, n, POSE_CHUNK):
        b = min(n, a + POSE_CHUNK)
        posed = body.pose(seq.poses[a:b], seq.trans[a:b], seq.betas)
        y = posed.vertices[..., 1]
        lowest[a:b] = y.min(axis=1)
        for s, mask in enumerate(feet):
            foot_low[a:b, s] = y[:, mask].min(axis=1)
        joints[a:b] = posed.joints
    return lowest, foot_low, joints


def planted_feet(
    lowest: np.ndarray, foot_low: np.ndarray, joints: np.ndarray, fps: float
) -> np.ndarray:
    """(T, 2) bool: frames where each foot is planted: its lowest point within
    :data:`CONTACT_HEIGHT` of the local floor (the body's lowest point within
    :data:`FLOOR_WINDOW`) and its ankle or ball slower than :data:`CONTACT_SPEED`, for at
    least :data:`MIN_PLANT` seconds."""
    n = len(lowest)
    window = max(1, int(round(FLOOR_WINDOW * fps)))
    floor = minimum_filter1d(lowest, size=window, mode="nearest")
    k = max(1, int(round(SPEED_SPAN * fps / 2)))
    out = np.zeros((n, 2), dtype=bool)
    if n < 2:
        out[:] = (foot_low - floor[:, None]) < CONTACT_HEIGHT
        return out
    idx = np.arange(n)
    lo, hi = np.maximum(idx - k, 0), np.minimum(idx + k, n - 1)
    dt = np.maximum(hi - lo, 1) / fps
    for s, side in enumerate(FOOT_JOINTS):
        speeds = [np.linalg.norm(joints[hi, j] - joints[lo, j], axis=1) / dt for j in side]
        slow = np.minimum(*speeds) < CONTACT_SPEED
        low = (foot_low[:, s] - floor) < CONTACT_HEIGHT
        out[:, s] = _drop_short(slow & low, max(1, int(round(MIN_PLANT * fps))))
    return out


def _drop_short(mask: np.ndarray, shortest: int) -> np.ndarray:
    """``mask`` without its runs of True shorter than ``shortest`` frames."""
    out = mask.copy()
    edges = np.flatnonzero(np.diff(np.r_[0, mask.astype(np.int8), 0]))
    for a, b in zip(edges[::2], edges[1::2]):
        if b - a < shortest:
            out[a:b] = False
    return out


def _fill(values: np.ndarray, known: np.ndarray) -> np.ndarray:
    """``values`` (T,) where ``known``, linearly interpolated between known frames elsewhere
    (held flat before the first and after the last)."""
    idx = np.flatnonzero(known)
    return np.interp(np.arange(len(values)), idx, values[idx])


def _follow(step: np.ndarray, held: np.ndarray) -> np.ndarray:
    """(T, 2) horizontal shifts that make each planted foot move as the file's does: frame to
    frame, the mean change of (file's foot - ours) over the feet ``held`` planted across the
    step (``step`` (T-1, 2, 2)); kept as it is while no foot is planted (a jump).

    The body then walks on its own legs: where they are shorter than the file's (scaled by
    hip height), its path falls that much behind the file's instead of its feet sliding."""
    w = held.astype(np.float64)
    vel = (step * w[..., None]).sum(axis=1) / np.maximum(w.sum(axis=1), 1.0)[:, None]
    return np.concatenate([np.zeros((1, 2)), np.cumsum(vel, axis=0)])


def _smooth(values: np.ndarray, sigma: float) -> np.ndarray:
    """``values`` (frames first) low-passed by a Gaussian of ``sigma`` frames (none under half
    a frame: a low frame rate is left as it is)."""
    if sigma < 0.5:
        return values
    return np.asarray(gaussian_filter1d(values, sigma, axis=0, mode="nearest"))


def ground(
    seq: PoseSequence,
    body: Any = None,
    feet: np.ndarray | None = None,
    feet_joints: Collection[int] | None = None,
) -> tuple[PoseSequence, Contact]:
    """``seq`` with its pelvis moved so the posed ``body`` (default: the embedded mannequin)
    stands on ``y = 0`` wherever a foot is planted, and the :class:`Contact` found.

    ``feet`` (T, 2, 3), if given, is where the file's own feet are (the anchors of
    :func:`foot_points` of ``feet_joints``, in the same world): a planted foot is then held where the file's is,
    so it slides no more than the recorded one. Without a planted frame the lowest point of
    the whole clip is put on the floor, unless it is within :data:`FILE_FLOOR` of the file's.
    """
    if body is None:
        from tempogen.generators.body import load_body

        body = load_body(None)
    lowest, foot_low, joints = _posed_feet(seq, body)
    planted = planted_feet(lowest, foot_low, joints, seq.fps)
    contact = np.asarray(planted.any(axis=1), dtype=bool)
    n = seq.num_frames
    if contact.any():
        err = lowest
        known = contact
    else:  # nothing planted: the clip's lowest point on the floor, unless the file's is near
        low = float(lowest.min())
        err = np.full(n, 0.0 if abs(low) <= FILE_FLOOR else low)
        known = np.ones(n, dtype=bool)
    drop = np.sign(err) * np.maximum(np.abs(err) - FLOOR_TOLERANCE, 0.0)
    pin = _fill(-drop, known)
    # smooth, but never further than FLOOR_TOLERANCE from the pin while a foot is planted
    lift = _smooth(pin, LIFT_SMOOTH * seq.fps)
    lift = np.where(known, np.clip(lift, pin - FLOOR_TOLERANCE, pin + FLOOR_TOLERANCE), lift)
    shift = np.zeros((n, 2))
    if feet is not None and contact.any():
        ours = foot_points(joints, feet_joints)[..., [0, 2]]
        theirs = np.asarray(feet, dtype=np.float64)[..., [0, 2]]
        shift = _follow(np.diff(theirs - ours, axis=0), planted[1:] & planted[:-1])
    trans = seq.trans.copy()
    trans[:, 1] += lift
    trans[:, [0, 2]] += shift
    out = PoseSequence(seq.poses, trans, seq.fps, seq.betas, seq.source)
    return out, Contact(lowest, planted, lift, shift)


def reshaped(seq: PoseSequence, body: Any, betas: np.ndarray | None) -> PoseSequence:
    """``seq`` (grounded for the embedded mannequin with its own shape, as the loaders return
    it) for ``body`` with shape ``betas``: the pelvis moved by the change in the rest pose's
    sole height, so the other body stands on the same floor."""
    from tempogen.generators.body import load_body

    def sole(b: Any, shape: np.ndarray | None) -> float:
        return float(b.rest_vertices(shape)[:, 1].min())

    lift = sole(load_body(None), seq.betas) - sole(body, betas)
    trans = seq.trans + np.array([0.0, lift, 0.0])
    return PoseSequence(seq.poses, trans, seq.fps, betas, seq.source)
