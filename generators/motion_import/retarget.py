"""Retargeting: SMPL local rotations whose bones point like a mapped skeleton's bones."""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from tempogen.generators.poses import matrix_to_rotvec, rotvec_to_matrix
from tempogen.generators.skeleton import NUM_JOINTS, PARENTS, REST_JOINTS

COINCIDE = 1e-6  # share of the skeleton's size within which two rest joints are one point
SPREAD = 0.1  # second singular value of a joint's bone directions that makes them a fan
# SMPL's ankles: their frame is aligned flat-on-flat (the rest foot of both rigs stands on the
# floor), not by the ankle->ball bone, whose slope is the rig's (CMU's ankle sits 2 cm above
# its toe joint, SMPL's 5.5 cm: pointing SMPL's bone at the BVH's tilts the sole 14 degrees).
ANKLES = (7, 8)
# SMPL's toes (the foot joints 10/11, leaves) at rest, from the foot joint to the toe tip of the
# mesh (the mannequin's, measured: 2.3 degrees below the horizontal, straight ahead).
REST_TOE = np.array([0.0, -0.04, 1.0]) / np.linalg.norm([0.0, -0.04, 1.0])
FEET = (10, 11)


def unit(v: np.ndarray) -> np.ndarray:
    """``v`` scaled to unit length along its last axis (a zero vector stays zero)."""
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)


def _arc(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Smallest rotations (..., 3, 3) turning unit vectors ``a`` onto unit vectors ``b``."""
    a, b = np.broadcast_arrays(a, b)
    cross = np.cross(a, b)
    sin = np.linalg.norm(cross, axis=-1, keepdims=True)
    cos = np.sum(a * b, axis=-1, keepdims=True)
    helper = np.where(np.abs(a[..., :1]) < 0.9, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    axis = np.where(sin > 1e-9, cross, np.cross(a, helper))
    return rotvec_to_matrix(unit(axis) * np.arctan2(sin, cos))


def toe_tips(mapping: dict[int, int], parent: list[int], rest: np.ndarray) -> dict[int, int]:
    """For SMPL's mapped toes (10/11): the skeleton node their bone points at, the farthest
    child of the mapped node at rest (an end site or an unmapped joint); none if it has none."""
    size = float(np.ptp(rest, axis=0).max()) or 1.0
    out = {}
    for j in FEET:
        if j not in mapping:
            continue
        b = mapping[j]
        kids = [c for c, p in enumerate(parent) if p == b]
        far = max(kids, key=lambda c: float(np.linalg.norm(rest[c] - rest[b])), default=None)
        if far is not None and np.linalg.norm(rest[far] - rest[b]) > COINCIDE * size:
            out[j] = far
    return out


def retarget(
    mapping: dict[int, int],
    glob: np.ndarray,
    pos: np.ndarray,
    rest: np.ndarray,
    leaf_tips: dict[int, int] | None = None,
    flat_ankles: bool = True,
) -> np.ndarray:
    """SMPL local rotations whose bones point like the BVH's mapped bones, frame by frame.

    Each mapped joint gets a rest alignment (SMPL's T-pose frame -> the BVH rest frame): with
    several bones below it (pelvis, chest), the rotation that best fits all of them; with one,
    its parent's alignment followed by the smallest turn onto the BVH bone, so twist carries
    down a chain consistently. Per frame the joint takes its BVH joint's orientation times
    that alignment, and a one-bone joint is turned the last bit so the bone points exactly at
    the BVH child (intermediate BVH joints, such as CMU's Neck1, are absorbed this way).
    A mapped leaf uses its parent's alignment, except SMPL's toes (joints 10/11) where
    ``leaf_tips`` names the BVH node their bone points at (the toe's end site): the toe then
    points as the BVH's toe does. SMPL's ankles take their BVH ankle's rotation from a
    flat-on-flat rest alignment (see :data:`ANKLES`), so the foot's angle is the motion's;
    with ``flat_ankles`` False (``rest`` is a frame of the motion, where a foot need not stand
    flat) they align bone on bone like any other one-bone joint.
    """
    tips_of_leaves = leaf_tips or {}
    n = glob.shape[0]
    size = float(np.ptp(rest, axis=0).max()) or 1.0
    eps = COINCIDE * size

    def targets(j: int) -> list[int]:
        out = []
        for c in (c for c, pa in enumerate(PARENTS) if pa == j):
            out.extend([c] if c in mapping else targets(c))
        return out

    smpl_glob = np.empty((n, NUM_JOINTS, 3, 3))
    align: dict[int, np.ndarray] = {}

    def inherited(j: int) -> np.ndarray:
        a = PARENTS[j]
        while a >= 0 and a not in align:
            a = PARENTS[a]
        return align[a] if a >= 0 else np.eye(3)

    for j in range(NUM_JOINTS):
        if j not in mapping:
            smpl_glob[:, j] = smpl_glob[:, PARENTS[j]]
            continue
        b = mapping[j]
        direct = targets(j)
        tips = list(direct)
        while True:
            short = [k for k in tips if np.linalg.norm(rest[mapping[k]] - rest[b]) <= eps]
            if not short:
                break
            tips = [t for k in tips for t in ([k] if k not in short else targets(k))]
        d = np.array([unit(REST_JOINTS[k] - REST_JOINTS[j]) for k in tips]).reshape(-1, 3)
        v = np.array([unit(rest[mapping[k]] - rest[b]) for k in tips]).reshape(-1, 3)
        spread = len(tips) > 1 and np.linalg.svd(v, compute_uv=False)[1] > SPREAD
        if spread:
            align[j] = Rotation.align_vectors(v, d)[0].as_matrix()
            smpl_glob[:, j] = glob[:, b] @ align[j]
        elif tips and j in ANKLES and flat_ankles:
            up = inherited(j)
            k = max(
                range(len(tips)), key=lambda i: np.linalg.norm(rest[mapping[tips[i]]] - rest[b])
            )
            flat = np.array([1.0, 0.0, 1.0])
            align[j] = _arc(unit(up @ d[k] * flat), unit(v[k] * flat)) @ up
            smpl_glob[:, j] = glob[:, b] @ align[j]
        elif tips:
            k = max(
                range(len(tips)), key=lambda i: np.linalg.norm(rest[mapping[tips[i]]] - rest[b])
            )
            up = inherited(j)
            align[j] = _arc(up @ d[k], v[k]) @ up
            g = glob[:, b] @ align[j]
            if tips == direct:
                now = unit(pos[:, mapping[tips[k]]] - pos[:, b])
                g = _arc(g @ d[k], now) @ g
            smpl_glob[:, j] = g
        elif j in FEET and j in tips_of_leaves:
            tip = tips_of_leaves[j]
            up = inherited(j)
            align[j] = _arc(up @ REST_TOE, unit(rest[tip] - rest[b])) @ up
            g = glob[:, b] @ align[j]
            smpl_glob[:, j] = _arc(g @ REST_TOE, unit(pos[:, tip] - pos[:, b])) @ g
        else:
            align[j] = inherited(j)
            smpl_glob[:, j] = glob[:, b] @ align[j]

    local = np.empty_like(smpl_glob)
    local[:, 0] = smpl_glob[:, 0]
    pa = np.array(PARENTS[1:])
    local[:, 1:] = np.swapaxes(smpl_glob[:, pa], -1, -2) @ smpl_glob[:, 1:]
    return matrix_to_rotvec(local)
