"""Forward and inverse kinematics on SMPL's 24-joint tree, in numpy, for procedural motions.

Rotations follow SMPL: joint ``j``'s local axis-angle rotates its children about the joint
centre, expressed in the rest frame, so its world rotation is ``G[parent] @ R[j]`` and a child
sits at ``p[j] + G[j] @ (rest[child] - rest[j])``. Joint 0's rotation is the global
orientation and the root translation is added to every joint, exactly as ``smplx`` poses a
model, so joints computed here equal the body model's posed joints.

Inverse kinematics is analytic: a limb (shoulder-elbow-wrist or hip-knee-ankle) is two bones
with a hinge in the middle; the end effector lands on its target exactly, the middle joint
swings toward a pole direction, and the hinge only ever flexes the anatomical way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tempogen.errors import GenerationError
from tempogen.generators.poses import matrix_to_rotvec, rotvec_to_matrix
from tempogen.generators.skeleton import INDEX, NUM_JOINTS, PARENTS


class PoseError(GenerationError):
    """A motion asked for a pose the body cannot take (a target out of reach, a bad limit)."""


def axis_angle(
    axis: np.ndarray | tuple[float, float, float], degrees: np.ndarray | float
) -> np.ndarray:
    """Axis-angle vectors (..., 3) turning ``degrees`` (scalar or array) about ``axis``."""
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    return a * np.radians(np.asarray(degrees, dtype=np.float64))[..., None]


def compose(outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """Axis-angle of the rotation ``outer @ inner`` (apply ``inner`` first), broadcasting."""
    outer, inner = (
        np.array(a) for a in np.broadcast_arrays(np.asarray(outer, float), np.asarray(inner, float))
    )
    return matrix_to_rotvec(rotvec_to_matrix(outer) @ rotvec_to_matrix(inner))


def blend(a: np.ndarray, b: np.ndarray, w: np.ndarray | float) -> np.ndarray:
    """Rotations a fraction ``w`` (0 = ``a``, 1 = ``b``) of the way from ``a`` to ``b``
    along the shortest arc; ``a``, ``b`` axis-angle (..., 3), ``w`` broadcasts over frames."""
    w = np.asarray(w, dtype=np.float64)
    a_m, b_m = rotvec_to_matrix(a), rotvec_to_matrix(b)
    rel = matrix_to_rotvec(np.swapaxes(a_m, -1, -2) @ b_m)
    a_b, step = (np.array(x) for x in np.broadcast_arrays(np.asarray(a, float), rel * w[..., None]))
    return compose(a_b, step)


def _as_batch(poses: np.ndarray) -> tuple[np.ndarray, bool]:
    p = np.asarray(poses, dtype=np.float64)
    if p.shape == (NUM_JOINTS, 3):
        return p[None], True
    if p.ndim != 3 or p.shape[1:] != (NUM_JOINTS, 3):
        raise ValueError(f"poses: expected shape (T, 24, 3) or (24, 3), got {p.shape}")
    return p, False


def forward_kinematics(
    poses: np.ndarray, rest_joints: np.ndarray, trans: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Posed joint positions (T, 24, 3) and world rotations (T, 24, 3, 3) of SMPL poses.

    ``poses`` is (T, 24, 3) axis-angle (or one (24, 3) pose), ``rest_joints`` the model's
    (24, 3) T-pose joints for its shape, ``trans`` an optional (T, 3) root translation.
    """
    p, single = _as_batch(poses)
    rest = np.asarray(rest_joints, dtype=np.float64)
    if rest.shape != (NUM_JOINTS, 3):
        raise ValueError(f"rest_joints: expected shape (24, 3), got {rest.shape}")
    t = len(p)
    local = rotvec_to_matrix(p)
    rot = np.empty_like(local)
    pos = np.empty((t, NUM_JOINTS, 3))
    rot[:, 0] = local[:, 0]
    pos[:, 0] = rest[0]
    for j in range(1, NUM_JOINTS):
        q = PARENTS[j]
        rot[:, j] = rot[:, q] @ local[:, j]
        pos[:, j] = pos[:, q] + rot[:, q] @ (rest[j] - rest[q])
    if trans is not None:
        tr = np.asarray(trans, dtype=np.float64).reshape(-1, 3)
        pos = pos + tr[:, None, :]
    if single:
        return pos[0], rot[0]
    return pos, rot


@dataclass(frozen=True)
class Limb:
    """Two bones with a hinge between them: ``upper`` -> ``middle`` -> ``end``.

    ``hinge`` is the rest-frame axis about which a positive rotation of ``middle`` is the
    anatomical flexion (the elbow folds the forearm forward, the knee folds the shin back);
    ``max_flex`` (degrees) is the most it folds.
    """

    name: str
    upper: int
    middle: int
    end: int
    hinge: tuple[float, float, float]
    max_flex: float

    @property
    def parent(self) -> int:
        return PARENTS[self.upper]


# In the T-pose the arms point along +-x: the left elbow folds forward (+z) when turning
# about -y, the right one about +y. Both knees fold the shin backward about +x.
LIMBS: dict[str, Limb] = {
    "left_arm": Limb("left_arm", INDEX["left_shoulder"], INDEX["left_elbow"],
                     INDEX["left_wrist"], (0.0, -1.0, 0.0), 150.0),
    "right_arm": Limb("right_arm", INDEX["right_shoulder"], INDEX["right_elbow"],
                      INDEX["right_wrist"], (0.0, 1.0, 0.0), 150.0),
    "left_leg": Limb("left_leg", INDEX["left_hip"], INDEX["left_knee"],
                     INDEX["left_ankle"], (1.0, 0.0, 0.0), 150.0),
    "right_leg": Limb("right_leg", INDEX["right_hip"], INDEX["right_knee"],
                      INDEX["right_ankle"], (1.0, 0.0, 0.0), 150.0),
}  # fmt: skip
# degrees short of straight that a limb stops at (it never locks, nor bends back past its
# rest direction: the fold about the hinge stays >= 0)
MIN_FLEX = 4.0


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def hand_point(rest_joints: np.ndarray, side: str) -> np.ndarray:
    """Rest-frame centre of a hand: midway between the wrist and the hand joint."""
    rest = np.asarray(rest_joints, dtype=np.float64)
    return 0.5 * (rest[INDEX[f"{side}_wrist"]] + rest[INDEX[f"{side}_hand"]])


def limb_reach(
    limb: Limb, rest_joints: np.ndarray, effector: np.ndarray | None = None
) -> tuple[float, float]:
    """Closest and farthest distance from ``upper`` at which the effector can be placed."""
    g = _Geometry(limb, np.asarray(rest_joints, dtype=np.float64), effector)
    lo, hi = g.reach(np.radians(limb.max_flex)), g.reach(g.phi_min)
    return float(lo.max()), float(hi.min())


class _Geometry:
    """A limb's rest bones: ``b1`` upper -> middle, ``b2`` (E, 3) middle -> effector (one
    effector, or one per frame), hinge ``h`` (normal to ``b1``), and the solution of
    |b1 + R(h, phi) b2| = d for the fold ``phi``."""

    def __init__(self, limb: Limb, rest: np.ndarray, effector: np.ndarray | None) -> None:
        eff = rest[limb.end] if effector is None else np.asarray(effector, dtype=np.float64)
        self.b1 = rest[limb.middle] - rest[limb.upper]
        self.b2 = np.atleast_2d(eff - rest[limb.middle])
        h = np.asarray(limb.hinge, dtype=np.float64)
        self.h = _unit(h - np.dot(h, self.b1) / np.dot(self.b1, self.b1) * self.b1)
        # b1 . R(phi) b2 = A cos(phi) + B sin(phi): largest at phi0 (the straightest limb)
        a = self.b2 @ self.b1
        b = np.cross(self.h, self.b2) @ self.b1
        self.r0, self.phi0 = np.hypot(a, b), np.arctan2(b, a)
        self.phi_min = np.maximum(self.phi0 + np.radians(MIN_FLEX), 0.0)

    def reach(self, phi: np.ndarray | float) -> np.ndarray:
        return np.linalg.norm(self.b1 + _rodrigues(self.h, phi, self.b2), axis=-1)

    def fold(self, d: np.ndarray) -> np.ndarray:
        """The fold angle (radians, >= phi0) that puts the effector ``d`` from ``upper``."""
        c = 0.5 * (d**2 - np.dot(self.b1, self.b1) - np.sum(self.b2**2, axis=-1))
        return self.phi0 + np.arccos(np.clip(c / self.r0, -1.0, 1.0))


def _rodrigues(axis: np.ndarray, angle: np.ndarray | float, v: np.ndarray) -> np.ndarray:
    """Rotate ``v`` ((3,) or (T, 3)) by ``angle`` radians (scalar or (T,)) about ``axis``."""
    a = np.asarray(angle, dtype=np.float64)[..., None]
    along = (np.asarray(v) @ axis)[..., None] * axis
    return v * np.cos(a) + np.cross(axis, v) * np.sin(a) + along * (1 - np.cos(a))


def _frame(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Orthonormal basis (..., 3, 3) with columns a^, the part of b normal to a, and their cross."""
    e1 = _unit(a)
    b_perp = b - np.sum(b * e1, axis=-1, keepdims=True) * e1
    e2 = _unit(b_perp)
    e3 = np.cross(e1, e2)
    return np.stack([e1, e2, e3], axis=-1)


def solve_limb(
    poses: np.ndarray,
    rest_joints: np.ndarray,
    limb: Limb | str,
    targets: np.ndarray,
    pole: np.ndarray,
    *,
    trans: np.ndarray | None = None,
    effector: np.ndarray | None = None,
    what: str = "ik",
) -> np.ndarray:
    """Poses with ``limb``'s upper and middle rotations set so the effector reaches ``targets``.

    ``poses`` (T, 24, 3) holds everything above the limb already (root, spine, collar);
    ``targets`` (T, 3) are world positions for the effector (a rest-frame point carried by
    the lower bone, (3,) or one per frame (T, 3); default the ``end`` joint); ``pole`` (3,) or (T, 3) is a world direction
    the middle joint (elbow, knee) swings toward. A target nearer or farther than the limb
    can fold or stretch raises :class:`PoseError` naming ``what``, the limb and the frame.
    """
    lb = LIMBS[limb] if isinstance(limb, str) else limb
    p, _ = _as_batch(poses)
    p = p.copy()
    rest = np.asarray(rest_joints, dtype=np.float64)
    tgt = np.asarray(targets, dtype=np.float64).reshape(-1, 3)
    if len(tgt) != len(p):
        raise ValueError(f"{what}: {lb.name}: {len(tgt)} targets for {len(p)} poses")
    pole_a = np.broadcast_to(np.asarray(pole, dtype=np.float64), tgt.shape)
    joints, rot = forward_kinematics(p, rest, trans)
    shoulder = joints[:, lb.upper]
    g_parent = rot[:, lb.parent]

    geo = _Geometry(lb, rest, effector)
    reach = tgt - shoulder
    d = np.linalg.norm(reach, axis=1)
    lo = np.broadcast_to(geo.reach(np.radians(lb.max_flex)), d.shape)
    hi = np.broadcast_to(geo.reach(geo.phi_min), d.shape)
    bad = np.flatnonzero((d > hi + 1e-9) | (d < lo - 1e-9))
    if len(bad):
        i = int(bad[0])
        raise PoseError(
            f"{what}: frame {i}: {lb.name} target is {d[i]:.3f} m from the "
            f"{_name(lb.upper)}, outside its reach {lo[i]:.3f}..{hi[i]:.3f} m"
        )
    phi = geo.fold(d)
    w = geo.b1 + _rodrigues(geo.h, phi, geo.b2)  # upper -> effector, in the rest frame

    pole_perp = pole_a - np.sum(pole_a * reach, axis=1, keepdims=True) / (d**2)[:, None] * reach
    weak = np.flatnonzero(np.linalg.norm(pole_perp, axis=1) < 1e-6)
    if len(weak):
        raise PoseError(
            f"{what}: frame {int(weak[0])}: {lb.name} pole points along the limb; "
            "the middle joint's side is undefined"
        )
    rest_basis = _frame(w, np.broadcast_to(geo.b1, w.shape))
    world_basis = _frame(reach, pole_a)
    g_upper = world_basis @ np.swapaxes(rest_basis, -1, -2)
    p[:, lb.upper] = matrix_to_rotvec(np.swapaxes(g_parent, -1, -2) @ g_upper)
    p[:, lb.middle] = geo.h * phi[:, None]
    return p


def _name(j: int) -> str:
    from tempogen.generators.skeleton import JOINTS

    return JOINTS[j]


def flexion(poses: np.ndarray, limb: Limb | str) -> np.ndarray:
    """Degrees each frame's middle joint is folded about the limb's hinge (negative would be
    hyper-extension); rotation off the hinge axis shows up as a smaller projection."""
    lb = LIMBS[limb] if isinstance(limb, str) else limb
    p, _ = _as_batch(poses)
    h = _unit(np.asarray(lb.hinge, dtype=np.float64))
    return np.degrees(p[:, lb.middle] @ h)


def set_global(
    poses: np.ndarray,
    rest_joints: np.ndarray,
    joint: int,
    rotation: np.ndarray,
    trans: np.ndarray | None = None,
) -> np.ndarray:
    """Poses with ``joint``'s local rotation chosen so its world rotation equals ``rotation``
    ((3, 3) or (T, 3, 3)): a foot kept flat on the floor, a head kept level."""
    p, _ = _as_batch(poses)
    p = p.copy()
    _, rot = forward_kinematics(p, rest_joints, trans)
    want = np.broadcast_to(np.asarray(rotation, dtype=np.float64), rot[:, joint].shape)
    p[:, joint] = matrix_to_rotvec(np.swapaxes(rot[:, PARENTS[joint]], -1, -2) @ want)
    return p
