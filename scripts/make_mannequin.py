"""Build tempogen's embedded body model, a mannequin of our own, in SMPL's ``.pkl`` format.

The body is a set of closed, overlapping surfaces: a lofted torso, a neck, a head with a nose,
and per bone a tapered tube whose rounded ends are spheres centred on the joints, so a limb
that turns about its joint keeps its end covered and elbows and knees bend cleanly. Every
vertex follows the joint that moves its part; the torso blends pelvis, spine and collars.
The joint regressor averages rings of vertices centred exactly on SMPL's joints
(``skeleton.REST_JOINTS``), so it reproduces them and follows the shape directions
(beta 0: size, beta 1: girth, beta 2: shoulder width).

Run ``python scripts/make_mannequin.py [--out PATH]``; the default output is
``assets/smpl_mannequin.pkl`` (the name starts with ``smpl_`` because ``smplx.create`` takes
a file's model type from the first word of its name). No solvers and no vectorised
transcendental functions (trigonometry comes from ``math``), so two runs give identical arrays.
"""

from __future__ import annotations

import argparse
import io
import math
import pickle
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tempogen.generators.skeleton import INDEX, JOINTS, NUM_JOINTS, PARENTS, REST_JOINTS
from tempogen.io import write_bytes

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "assets" / "smpl_mannequin.pkl"
NUM_BETAS = 10
NUM_POSE_BASIS = 9 * (NUM_JOINTS - 1)
SIZE_PER_BETA = 0.05  # beta 0: +5 % in every dimension (about the floor point under the body)
GIRTH_PER_BETA = 0.10  # beta 1: +10 % radius about each part's axis
SHOULDER_PER_BETA = 0.02  # beta 2: each shoulder 2 cm further out

X = np.array([1.0, 0.0, 0.0])
Y = np.array([0.0, 1.0, 0.0])
Z = np.array([0.0, 0.0, 1.0])


def joint(name: str) -> np.ndarray:
    """Rest position of a skeleton joint."""
    return np.array(REST_JOINTS[INDEX[name]], dtype=np.float64)


def smoothstep(x: np.ndarray | float) -> np.ndarray:
    """3x^2 - 2x^3 on [0, 1], clamped: zero slope at both ends."""
    t = np.clip(np.asarray(x, dtype=np.float64), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def ramp(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """0 below ``lo``, 1 above ``hi``, smooth between."""
    return smoothstep((x - lo) / (hi - lo))


def superellipse(n: int, exponent: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit superellipse samples (cos-like, sin-like), point-symmetric so each ring's mean is
    exactly its centre."""
    if n % 2:
        raise ValueError("ring size must be even")
    half_c, half_s = [], []
    for k in range(n // 2):
        u = 2.0 * math.pi * k / n
        c, s = math.cos(u), math.sin(u)
        half_c.append(math.copysign(math.pow(abs(c), 2.0 / exponent), c))
        half_s.append(math.copysign(math.pow(abs(s), 2.0 / exponent), s))
    c = np.array(half_c + [-v for v in half_c])
    s = np.array(half_s + [-v for v in half_s])
    return c, s


@dataclass
class Piece:
    """One closed surface: vertices, outward-wound faces, per-vertex skinning and shape data."""

    name: str
    vertices: np.ndarray
    faces: np.ndarray
    weights: np.ndarray  # (n, 24)
    girth: np.ndarray  # (n, 3) displacement per unit of beta 1
    shoulder: np.ndarray  # (n, 3) displacement per unit of beta 2
    rings: dict[str, np.ndarray] = field(default_factory=dict)  # local vertex indices
    along: np.ndarray | None = None  # position along the bone, 0 at the start, 1 at the end


def loft(
    centers: np.ndarray,
    half_a: np.ndarray,
    half_b: np.ndarray,
    frame: tuple[np.ndarray, np.ndarray],
    n_around: int,
    exponent: float,
    pole0: np.ndarray,
    pole1: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """A closed surface through rings (centre, half-axes along ``frame``) capped by two poles.

    The frame (e1, e2) and the axis e1 x e2 (pointing from ``pole0`` to ``pole1``) give faces
    wound counter-clockwise seen from outside.
    """
    e1, e2 = frame
    c, s = superellipse(n_around, exponent)
    rings = (
        centers[:, None, :]
        + half_a[:, None, None] * c[None, :, None] * e1
        + half_b[:, None, None] * s[None, :, None] * e2
    )
    n_rings = len(centers)
    verts = np.concatenate([pole0[None], rings.reshape(-1, 3), pole1[None]])
    k = np.arange(n_around)
    k1 = (k + 1) % n_around
    faces = [np.stack([np.zeros(n_around, int), 1 + k1, 1 + k], 1)]
    for r in range(n_rings - 1):
        a, b = 1 + r * n_around + k, 1 + r * n_around + k1
        c_, d = b + n_around, a + n_around
        faces.append(np.stack([a, b, c_], 1))
        faces.append(np.stack([a, c_, d], 1))
    last = 1 + (n_rings - 1) * n_around
    top = len(verts) - 1
    faces.append(np.stack([np.full(n_around, top), last + k, last + k1], 1))
    return verts, np.concatenate(faces).astype(np.int64)


def tube(
    name: str,
    p0: np.ndarray,
    p1: np.ndarray,
    up: np.ndarray,
    half_a: Callable[[np.ndarray], np.ndarray],
    half_b: Callable[[np.ndarray], np.ndarray],
    joint_index: int,
    n_around: int = 14,
    spacing: float = 0.045,
    cap0: float | None = None,
    cap1: float | None = None,
    n_cap: int = 3,
    exponent: float = 2.0,
    girth: float = 1.0,
) -> Piece:
    """A tube from ``p0`` to ``p1`` with cross-section half-axes ``half_a(t)`` (towards
    ``up``) and ``half_b(t)``, t in [0, 1], closed by half-ellipsoid caps (hemispheres centred
    on ``p0``/``p1`` by default), skinned rigidly to one joint."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    length = float(np.sqrt(np.sum((p1 - p0) ** 2)))
    d = (p1 - p0) / length
    e1 = up - np.dot(up, d) * d
    e1 = e1 / np.sqrt(np.sum(e1 * e1))
    e2 = np.cross(d, e1)
    a0, a1 = float(half_a(np.array(0.0))), float(half_a(np.array(1.0)))
    b0, b1 = float(half_b(np.array(0.0))), float(half_b(np.array(1.0)))
    cap0 = max(a0, b0) if cap0 is None else cap0
    cap1 = max(a1, b1) if cap1 is None else cap1

    n_body = max(2, int(math.ceil(length / spacing)))
    t_body = np.array([i / n_body for i in range(n_body + 1)])
    phis = [0.5 * math.pi * i / n_cap for i in range(1, n_cap)]
    s_list, scale, t_list = [], [], []
    for phi in phis:  # start cap, pole side first
        s_list.append(-cap0 * math.cos(phi))
        scale.append(math.sin(phi))
        t_list.append(0.0)
    for t in t_body:
        s_list.append(t * length)
        scale.append(1.0)
        t_list.append(t)
    for phi in reversed(phis):
        s_list.append(length + cap1 * math.cos(phi))
        scale.append(math.sin(phi))
        t_list.append(1.0)
    s_arr, sc, t_arr = np.array(s_list), np.array(scale), np.array(t_list)
    centers = p0 + s_arr[:, None] * d
    verts, faces = loft(
        centers,
        half_a(t_arr) * sc,
        half_b(t_arr) * sc,
        (e1, e2),
        n_around,
        exponent,
        p0 - cap0 * d,
        p1 + cap1 * d,
    )
    # girth grows each vertex away from its nearest point on the bone segment
    s_v = np.concatenate([[-cap0], np.repeat(s_arr, n_around), [length + cap1]])
    axis = p0 + np.clip(s_v, 0.0, length)[:, None] * d
    n = len(verts)
    weights = np.zeros((n, NUM_JOINTS))
    weights[:, joint_index] = 1.0
    first = 1 + (n_cap - 1) * n_around
    last = first + n_body * n_around
    return Piece(
        name,
        verts,
        faces,
        weights,
        girth * (verts - axis),
        np.zeros((n, 3)),
        {"start": np.arange(first, first + n_around), "end": np.arange(last, last + n_around)},
        np.clip(s_v / length, 0.0, 1.0),
    )


def profile(r0: float, r1: float, bulge: float = 0.0, at: float = 0.5) -> Callable:
    """Radius along a bone: ``r0`` to ``r1`` with zero slope at both ends (so the spherical
    caps join smoothly), plus an optional muscle bulge peaking near ``at``."""

    def f(t: np.ndarray) -> np.ndarray:
        t = np.clip(np.asarray(t, dtype=np.float64), 0.0, 1.0)
        # warp t so the bump (16 w^2 (1-w)^2, peak 1 at w = 1/2) peaks at ``at``
        w = np.where(t < at, 0.5 * t / at, 0.5 + 0.5 * (t - at) / (1.0 - at))
        return r0 + (r1 - r0) * smoothstep(t) + bulge * 16.0 * w * w * (1 - w) * (1 - w)

    return f


# The torso's horizontal cross-sections: height, half-width (x), half-depth (z), centre z.
# Rows at the pelvis and spine joints' heights are centred exactly on those joints.
TORSO = np.array(
    [
        [0.800, 0.118, 0.078, -0.012],
        [0.830, 0.148, 0.094, -0.014],
        [0.860, 0.162, 0.102, -0.012],
        [0.895, 0.165, 0.104, -0.008],
        [0.930, 0.160, 0.101, 0.000],  # pelvis
        [0.970, 0.148, 0.094, -0.004],
        [1.010, 0.138, 0.090, -0.008],
        [1.050, 0.135, 0.090, -0.010],  # spine1
        [1.090, 0.138, 0.093, -0.010],
        [1.135, 0.143, 0.097, -0.010],
        [1.180, 0.148, 0.101, -0.010],  # spine2
        [1.220, 0.153, 0.105, -0.007],
        [1.260, 0.156, 0.107, -0.003],
        [1.300, 0.157, 0.107, 0.000],  # spine3
        [1.340, 0.158, 0.104, -0.004],
        [1.380, 0.158, 0.098, -0.008],
        [1.415, 0.152, 0.090, -0.011],
        [1.445, 0.136, 0.080, -0.012],
        [1.470, 0.110, 0.068, -0.012],
    ]
)
TORSO_JOINT_ROWS = {"pelvis": 4, "spine1": 7, "spine2": 10, "spine3": 13}
TORSO_CAP_BOTTOM = 0.030
TORSO_CAP_TOP = 0.035
# heights where the torso's skinning passes from one spine joint to the next
TORSO_KNOTS = ((0.985, "pelvis"), (1.110, "spine1"), (1.240, "spine2"), (1.350, "spine3"))


def catmull_rom(rows: np.ndarray, per_span: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows interpolated by a Catmull-Rom spline (passing exactly through each row), with
    ``per_span`` samples per interval; also the index of each original row in the output."""
    n = len(rows)
    ext = np.concatenate([2 * rows[:1] - rows[1:2], rows, 2 * rows[-1:] - rows[-2:-1]])
    out, at = [], []
    for i in range(n - 1):
        p0, p1, p2, p3 = ext[i], ext[i + 1], ext[i + 2], ext[i + 3]
        for j in range(per_span):
            t = j / per_span
            t2, t3 = t * t, t * t * t
            if j == 0:
                at.append(len(out))
                out.append(p1.copy())
                continue
            out.append(
                0.5
                * (
                    2 * p1
                    + (-p0 + p2) * t
                    + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2
                    + (-p0 + 3 * p1 - 3 * p2 + p3) * t3
                )
            )
    at.append(len(out))
    out.append(rows[-1].copy())
    return np.array(out), np.array(at)


def torso() -> Piece:
    """The lofted trunk from crotch to shoulders, skinned across pelvis, spine and collars."""
    rows, at = catmull_rom(TORSO, 2)
    caps_b, caps_t = [], []
    n_cap = 4
    for i in range(1, n_cap):
        phi = 0.5 * math.pi * i / n_cap
        r0, r1 = rows[0], rows[-1]
        c, s = math.cos(phi), math.sin(phi)
        caps_b.append([r0[0] - TORSO_CAP_BOTTOM * c, r0[1] * s, r0[2] * s, r0[3]])
        caps_t.append([r1[0] + TORSO_CAP_TOP * c, r1[1] * s, r1[2] * s, r1[3]])
    allrows = np.concatenate([np.array(caps_b), rows, np.array(caps_t[::-1])])
    offset = n_cap - 1
    centers = np.stack([np.zeros(len(allrows)), allrows[:, 0], allrows[:, 3]], 1)
    bottom = np.array([0.0, rows[0, 0] - TORSO_CAP_BOTTOM, rows[0, 3]])
    top = np.array([0.0, rows[-1, 0] + TORSO_CAP_TOP, rows[-1, 3]])
    n_around = 24
    # frame (z, x): axis z x x = +y, up the body
    verts, faces = loft(centers, allrows[:, 2], allrows[:, 1], (Z, X), n_around, 2.6, bottom, top)

    y = verts[:, 1]
    weights = np.zeros((len(verts), NUM_JOINTS))
    knots = [(h, INDEX[n]) for h, n in TORSO_KNOTS]
    weights[y < knots[0][0], knots[0][1]] = 1.0
    weights[y >= knots[-1][0], knots[-1][1]] = 1.0
    for (h0, j0), (h1, j1) in zip(knots[:-1], knots[1:]):
        inside = (y >= h0) & (y < h1)
        w = smoothstep((y[inside] - h0) / (h1 - h0))
        weights[inside, j0] = 1.0 - w
        weights[inside, j1] = w
    # the shoulder tops follow the collars
    ax = np.abs(verts[:, 0])
    collar = ramp(ax, 0.07, 0.14) * ramp(y, 1.33, 1.43)
    weights *= (1.0 - collar)[:, None]
    left = verts[:, 0] > 0
    weights[left, INDEX["left_collar"]] += collar[left]
    weights[~left, INDEX["right_collar"]] += collar[~left]

    axis = np.stack([np.zeros(len(verts)), y, np.interp(y, allrows[:, 0], allrows[:, 3])], 1)
    radial = verts - axis
    radial[:, 1] = 0.0
    waist = 1.0 - smoothstep(np.abs(y - 1.06) / 0.25)  # the waist thickens most
    girth = radial * (1.0 + 0.6 * waist)[:, None]
    shoulder = np.zeros_like(verts)
    shoulder[:, 0] = np.sign(verts[:, 0]) * collar
    rings = {
        name: 1 + (offset + at[row]) * n_around + np.arange(n_around)
        for name, row in TORSO_JOINT_ROWS.items()
    }
    return Piece("torso", verts, faces, weights, girth, shoulder, rings)


def left_arm() -> list[Piece]:
    """Collar, upper arm, forearm, palm, thumb and fingers of the left arm (T-pose, palm down)."""
    collar, shoulder = joint("left_collar"), joint("left_shoulder")
    elbow, wrist, hand = joint("left_elbow"), joint("left_wrist"), joint("left_hand")
    pieces = [
        tube("left_collar", collar, shoulder, Y, profile(0.050, 0.056), profile(0.050, 0.056),
             INDEX["left_collar"], spacing=0.04, n_cap=4),
        tube("left_upper_arm", shoulder, elbow, Y, profile(0.050, 0.039, 0.004, 0.4),
             profile(0.050, 0.039, 0.004, 0.4), INDEX["left_shoulder"]),
        tube("left_forearm", elbow, wrist, Y, profile(0.039, 0.027, 0.004, 0.3),
             profile(0.039, 0.027, 0.004, 0.3), INDEX["left_elbow"]),
        tube("left_palm", wrist, hand, Y, profile(0.023, 0.019), profile(0.033, 0.043),
             INDEX["left_wrist"], n_around=12, spacing=0.03, cap0=0.015, cap1=0.012, n_cap=3,
             exponent=2.6, girth=0.4),
        tube("left_thumb", wrist + np.array([0.020, -0.006, 0.030]),
             wrist + np.array([0.072, -0.012, 0.070]), Y, profile(0.012, 0.010),
             profile(0.013, 0.010), INDEX["left_wrist"], n_around=8, spacing=0.03, n_cap=3,
             girth=0.4),
        tube("left_fingers", hand, hand + np.array([0.075, -0.004, 0.0]), Y,
             profile(0.016, 0.013), profile(0.042, 0.036), INDEX["left_hand"], n_around=12,
             spacing=0.03, cap0=0.012, cap1=0.018, n_cap=3, exponent=2.6, girth=0.4),
    ]  # fmt: skip
    # beta 2 moves the shoulder out: the collar stretches, the rest of the arm translates
    for p in pieces:
        p.shoulder[:, 0] = p.along if p.name == "left_collar" else 1.0
    return pieces


def left_leg() -> list[Piece]:
    """Thigh, shin, foot and toes of the left leg."""
    hip, knee = joint("left_hip"), joint("left_knee")
    ankle, foot = joint("left_ankle"), joint("left_foot")
    heel = np.array([ankle[0], 0.041, -0.040])
    ball = np.array([foot[0], 0.024, foot[2] - 0.005])
    pieces = [
        tube("left_thigh", hip, knee, Z, profile(0.082, 0.050, 0.004, 0.3),
             profile(0.082, 0.050, 0.004, 0.3), INDEX["left_hip"], n_around=16),
        tube("left_shin", knee, ankle, Z, profile(0.050, 0.032, 0.010, 0.3),
             profile(0.050, 0.032, 0.010, 0.3), INDEX["left_knee"]),
        tube("left_foot", heel, ball, Y, profile(0.048, 0.030), profile(0.036, 0.045),
             INDEX["left_ankle"], n_around=14, spacing=0.035, cap0=0.040, cap1=0.020,
             exponent=2.8, girth=0.3),
        tube("left_toes", foot, foot + np.array([0.0, -0.002, 0.050]), Y, profile(0.024, 0.018),
             profile(0.044, 0.036), INDEX["left_foot"], n_around=14, spacing=0.03,
             cap0=0.015, cap1=0.028, n_cap=3, exponent=2.8, girth=0.3),
    ]  # fmt: skip
    for p in pieces[2:]:
        p.girth[:, 1] = 0.0  # feet widen but keep their soles on the floor
    return pieces


def head() -> list[Piece]:
    """Neck, head and nose (the nose tells which way the body faces)."""
    neck, head_j = joint("neck"), joint("head")
    pieces = [
        tube("neck", neck, head_j, Z, profile(0.052, 0.047), profile(0.054, 0.049),
             INDEX["neck"], n_around=16, spacing=0.03),
        tube("head", np.array([0.0, 1.585, 0.022]), np.array([0.0, 1.650, 0.018]), Z,
             profile(0.088, 0.097), profile(0.066, 0.078), INDEX["head"], n_around=24,
             spacing=0.022, cap0=0.068, cap1=0.068, n_cap=6, exponent=2.2, girth=0.3),
        tube("nose", np.array([0.0, 1.632, 0.098]), np.array([0.0, 1.604, 0.116]), Z,
             profile(0.010, 0.013), profile(0.009, 0.012), INDEX["head"], n_around=10,
             spacing=0.02, n_cap=3, girth=0.3),
    ]  # fmt: skip
    pieces[1].girth[:, 1] = 0.0  # a heavier body, not a taller one
    return pieces


def _twin(name: str) -> str:
    return name.replace("left_", "#").replace("right_", "left_").replace("#", "right_")


SWAP = np.array([INDEX[_twin(n)] for n in JOINTS])  # left <-> right joint columns


def mirrored(p: Piece) -> Piece:
    """The right-side twin of a left-side piece: x negated, winding flipped, joints swapped."""
    flip = np.array([-1.0, 1.0, 1.0])
    return Piece(
        p.name.replace("left_", "right_"),
        p.vertices * flip,
        p.faces[:, ::-1].copy(),
        p.weights[:, SWAP],
        p.girth * flip,
        p.shoulder * flip,
        p.rings,
        p.along,
    )


def signed_volume(verts: np.ndarray, faces: np.ndarray) -> float:
    """Enclosed volume, positive when the faces are wound outwards."""
    a, b, c = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    return float(np.sum(a * np.cross(b, c))) / 6.0


def build_mannequin() -> dict:
    """The mannequin as a dict in SMPL's format (plain numpy arrays)."""
    arm, leg = left_arm(), left_leg()
    pieces = [torso(), *head(), *arm, *map(mirrored, arm), *leg, *map(mirrored, leg)]
    starts, n = {}, 0
    for p in pieces:
        if signed_volume(p.vertices, p.faces) <= 0:
            raise AssertionError(f"{p.name}: faces wound inwards")
        starts[p.name] = n
        n += len(p.vertices)
    verts = np.concatenate([p.vertices for p in pieces])
    faces = np.concatenate([p.faces + starts[p.name] for p in pieces])
    weights = np.concatenate([p.weights for p in pieces])
    girth = np.concatenate([p.girth for p in pieces])
    shoulder = np.concatenate([p.shoulder for p in pieces])
    # flat soles: nothing below the floor
    verts[:, 1] = np.maximum(verts[:, 1], 0.0)

    def ring(piece: str, which: str) -> np.ndarray:
        p = next(p for p in pieces if p.name == piece)
        return starts[piece] + p.rings[which]

    def both(upper: str, lower: str) -> list[np.ndarray]:
        return [ring(upper, "end"), ring(lower, "start")]

    sources: dict[str, list[np.ndarray]] = {
        "pelvis": [ring("torso", "pelvis")],
        "spine1": [ring("torso", "spine1")],
        "spine2": [ring("torso", "spine2")],
        "spine3": [ring("torso", "spine3")],
        "neck": [ring("neck", "start")],
        "head": [ring("neck", "end")],
    }
    for side in ("left", "right"):
        sources.update(
            {
                f"{side}_hip": [ring(f"{side}_thigh", "start")],
                f"{side}_knee": both(f"{side}_thigh", f"{side}_shin"),
                f"{side}_ankle": [ring(f"{side}_shin", "end")],
                f"{side}_foot": [ring(f"{side}_toes", "start")],
                f"{side}_collar": [ring(f"{side}_collar", "start")],
                # where two bones meet, both bones' rings are centred on the joint
                f"{side}_shoulder": both(f"{side}_collar", f"{side}_upper_arm"),
                f"{side}_elbow": both(f"{side}_upper_arm", f"{side}_forearm"),
                f"{side}_wrist": both(f"{side}_forearm", f"{side}_palm"),
                f"{side}_hand": both(f"{side}_palm", f"{side}_fingers"),
            }
        )
    regressor = np.zeros((NUM_JOINTS, len(verts)))
    for name, rings in sources.items():
        idx = np.concatenate(rings)
        regressor[INDEX[name], idx] = 1.0 / len(idx)

    shapedirs = np.zeros((len(verts), 3, NUM_BETAS))
    shapedirs[:, :, 0] = SIZE_PER_BETA * verts
    shapedirs[:, :, 1] = GIRTH_PER_BETA * girth
    shapedirs[:, :, 2] = SHOULDER_PER_BETA * shoulder

    if np.abs(weights.sum(axis=1) - 1.0).max() > 1e-12:
        raise AssertionError("skinning weights do not sum to 1")
    if np.abs(regressor @ verts - REST_JOINTS).max() > 1e-9:
        raise AssertionError("joint regressor misses skeleton.REST_JOINTS")

    kintree = np.zeros((2, NUM_JOINTS), dtype=np.uint32)
    kintree[0] = [p if p >= 0 else 0xFFFFFFFF for p in PARENTS]
    kintree[1] = np.arange(NUM_JOINTS)

    def nearest(piece: str, point: Sequence[float]) -> int:
        lo = starts[piece]
        hi = lo + len(next(p for p in pieces if p.name == piece).vertices)
        d = np.sum((verts[lo:hi] - np.asarray(point)) ** 2, axis=1)
        return int(lo + np.argmin(d))

    # smplx's extra landmarks (its defaults index SMPL's 6,890-vertex mesh)
    vertex_ids = {
        "nose": nearest("nose", (0.0, 1.60, 0.14)),
        "reye": nearest("head", (-0.032, 1.650, 0.12)),
        "leye": nearest("head", (0.032, 1.650, 0.12)),
        "rear": nearest("head", (-0.085, 1.625, 0.02)),
        "lear": nearest("head", (0.085, 1.625, 0.02)),
    }
    for s, side, sign in (("l", "left", 1.0), ("r", "right", -1.0)):
        tip = joint(f"{side}_hand")[0] + sign * 0.10
        fingers = (("index", 0.028), ("middle", 0.010), ("ring", -0.010), ("pinky", -0.028))
        for finger, z in fingers:
            vertex_ids[f"{s}{finger}"] = nearest(f"{side}_fingers", (tip, 1.43, z))
        vertex_ids[f"{s}thumb"] = nearest(f"{side}_thumb", (sign * 0.80, 1.42, 0.10))
        big = "LBigToe" if s == "l" else "RBigToe"
        small = "LSmallToe" if s == "l" else "RSmallToe"
        heel = "LHeel" if s == "l" else "RHeel"
        vertex_ids[big] = nearest(f"{side}_toes", (sign * 0.085, 0.01, 0.20))
        vertex_ids[small] = nearest(f"{side}_toes", (sign * 0.145, 0.01, 0.17))
        vertex_ids[heel] = nearest(f"{side}_foot", (sign * 0.10, 0.0, -0.10))

    return {
        "v_template": verts,
        "f": faces.astype(np.uint32),
        "weights": weights,
        "J_regressor": regressor,
        "J": np.array(REST_JOINTS, dtype=np.float64),
        "kintree_table": kintree,
        "shapedirs": shapedirs,
        "posedirs": np.zeros((len(verts), 3, NUM_POSE_BASIS)),
        "bs_type": "lrotmin",
        "bs_style": "lbs",
        "vertex_ids": vertex_ids,
    }


class _Pickler(pickle.Pickler):
    """Stores an all-zero array as a call to ``numpy.zeros`` (``posedirs`` alone would be
    17 MB of zeros); it still unpickles to a plain array."""

    def reducer_override(self, obj: object) -> object:
        if isinstance(obj, np.ndarray) and obj.size > 1024 and not obj.any():
            return np.zeros, (obj.shape, obj.dtype.str)
        return NotImplemented


def to_bytes(model: dict) -> bytes:
    """The model pickled (protocol 4, all-zero arrays as ``numpy.zeros`` calls)."""
    buf = io.BytesIO()
    _Pickler(buf, protocol=4).dump(model)
    return buf.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    """Build the mannequin and write it atomically to ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output .pkl path")
    args = parser.parse_args(argv)
    model = build_mannequin()
    write_bytes(args.out, to_bytes(model))
    v, f = model["v_template"], model["f"]
    print(
        f"wrote {args.out}: {len(v)} vertices, {len(f)} faces, "
        f"height {v[:, 1].max():.3f} m, span {np.ptp(v[:, 0]):.3f} m"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
