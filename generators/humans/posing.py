"""Posing a simulated person: limbs moved by inverse kinematics toward 3D targets.

:class:`Posing` is the part of :class:`~tempogen.generators.humans.rig.Rig` that reads and
changes the per-frame poses (SMPL axis-angle, ``y`` up, facing ``+z``); the shoulder
rotations and bump profiles beside it are what motions build their targets from.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tempogen.generators.humans.look import SIDE_SIGN
from tempogen.generators.kinematics import (
    LIMBS,
    PoseError,
    axis_angle,
    flexion,
    forward_kinematics,
    limb_reach,
    set_global,
    solve_limb,
)
from tempogen.generators.motion import Scene
from tempogen.generators.poses import rotvec_to_matrix
from tempogen.generators.skeleton import INDEX

ARM_DOWN_DEGREES = 72.0  # how far a standing arm hangs down from the T-pose
REACH_MARGIN = 0.05  # metres of reach a hand keeps in hand when a motion checks its targets
# The collar shrugs up to SHRUG_DEGREES as the hand rises SHRUG_RISE metres above the shoulder.
SHRUG_RISE = 0.35
SHRUG_DEGREES = 12.0
PALM_ROUNDS = 4  # IK-then-twist rounds that land a twisted hand's centre on its target
FLEX_TOLERANCE = 1e-6  # degrees of flexion past a joint's limits still taken as within them


def arm_down(side: str, degrees: float = ARM_DOWN_DEGREES) -> np.ndarray:
    """Shoulder rotation lowering a T-pose arm ``degrees`` toward the side of the body."""
    return axis_angle((0.0, 0.0, 1.0), -SIDE_SIGN[side] * degrees)


def arm_forward(side: str) -> np.ndarray:
    """Shoulder rotation pointing a T-pose arm straight ahead."""
    return axis_angle((0.0, 1.0, 0.0), -SIDE_SIGN[side] * 90.0)


def bumps(frames: np.ndarray, centres: Sequence[float], half: float) -> np.ndarray:
    """A raised-cosine bump of half-width ``half`` frames at each centre (0..1, max-merged)."""
    out = np.zeros(len(frames))
    for c in centres:
        u = np.clip(np.abs(frames - c) / half, 0.0, 1.0)
        out = np.maximum(out, 0.5 + 0.5 * np.cos(np.pi * u))
    return out


def _rotate(rotvecs: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``v`` (3,) turned by each axis-angle vector (T, 3): (T, 3)."""
    return rotvec_to_matrix(rotvecs) @ v


class Posing:
    """Pose geometry and limb IK of a rig (the fields are :class:`Rig`'s)."""

    scene: Scene
    motion: str
    rest: np.ndarray
    poses: np.ndarray
    trans: np.ndarray
    ground: float
    gloves: dict[str, np.ndarray]
    origin: np.ndarray

    @property
    def n(self) -> int:
        """Frames in the clip."""
        return self.scene.n

    # geometry of the current poses ----------------------------------------------------
    def fk(self) -> tuple[np.ndarray, np.ndarray]:
        """Joints (T, 24, 3) and world rotations of the poses as they stand now."""
        return forward_kinematics(self.poses, self.rest, self.trans)

    def joint(self, name: str) -> np.ndarray:
        """One joint's world positions (T, 3) under the current poses (numpy kinematics)."""
        return self.fk()[0][:, INDEX[name]]

    def rest_point(self, name: str) -> np.ndarray:
        """A joint's position standing at the origin in the rest pose (soles on the floor)."""
        return self.rest[INDEX[name]] + [0.0, self.ground, 0.0] + self.origin

    # limbs -----------------------------------------------------------------------------
    def reachable(self, side: str, targets: np.ndarray, margin: float = REACH_MARGIN) -> bool:
        """Whether a hand can reach every target with ``margin`` metres to spare."""
        lo, hi = limb_reach(LIMBS[f"{side}_arm"], self.rest, self.hand_rest(side))
        d = np.linalg.norm(np.asarray(targets) - self.joint(f"{side}_shoulder"), axis=-1)
        return bool(np.all(d <= hi - margin) and np.all(d >= lo + margin))

    def hand_rest(self, side: str) -> np.ndarray:
        """A hand's centre in the rest pose: the centroid of its glove's vertices."""
        return self.gloves[side]

    def _palm_twist(self, side: str, toward: np.ndarray) -> np.ndarray:
        """Per-frame twist (radians, within +-90 degrees, as a forearm turns) of the hand
        about its own axis that turns its flat side to face ``toward`` ((3,) or (T, 3))."""
        wrist, hand = INDEX[f"{side}_wrist"], INDEX[f"{side}_hand"]
        g = self.fk()[1][:, INDEX[f"{side}_elbow"]]
        axis = self.rest[hand] - self.rest[wrist]
        axis = axis / np.linalg.norm(axis)
        a = g @ axis
        n0 = g @ np.array([0.0, -1.0, 0.0])  # SMPL's T-pose palms face down
        c = np.broadcast_to(np.asarray(toward, dtype=np.float64), a.shape)
        psi = np.arctan2(np.sum(np.cross(a, n0) * c, axis=1), np.sum(n0 * c, axis=1))
        return (psi + np.pi / 2) % np.pi - np.pi / 2  # either flat side will do

    def arm_to(
        self,
        side: str,
        targets: np.ndarray,
        pole: np.ndarray | None = None,
        palm_toward: np.ndarray | None = None,
    ) -> None:
        """Move a hand's centre onto ``targets`` (T, 3): a small shrug of the collar as the
        hand rises above the shoulder, then two-bone IK on shoulder and elbow. ``pole`` is
        where the elbow points (default out, down and back); ``palm_toward`` ((3,) or (T, 3)
        world directions) twists the hand so its flat side faces that way, else it stays in
        line with the forearm. The twist moves the hand's centre (it is off the hand's axis),
        so IK and twist are solved together, the centre landing on the target exactly."""
        sign = SIDE_SIGN[side]
        wrist, hand, collar = (INDEX[f"{side}_{j}"] for j in ("wrist", "hand", "collar"))
        tgt = np.asarray(targets, dtype=np.float64)
        above = tgt[:, 1] - self.joint(f"{side}_shoulder")[:, 1]
        rise = np.clip(above / SHRUG_RISE, 0.0, 1.0)
        self.poses[:, collar] = axis_angle((0.0, 0.0, 1.0), sign * SHRUG_DEGREES * rise)
        if pole is None:
            pole = np.array([0.6 * sign, -1.0, -0.5])
        axis = self.rest[hand] - self.rest[wrist]
        axis = axis / np.linalg.norm(axis)
        offset = self.hand_rest(side) - self.rest[wrist]
        psi = np.zeros(self.n)
        rounds = 1 if palm_toward is None else PALM_ROUNDS
        for k in range(rounds):
            twisted = axis_angle(axis, np.degrees(psi))  # (T, 3)
            effector = self.rest[wrist] + _rotate(twisted, offset)
            self.poses[:, wrist] = 0.0
            self.poses = solve_limb(
                self.poses, self.rest, f"{side}_arm", tgt, pole,
                trans=self.trans, effector=effector, what=f"motion {self.motion!r}",
            )  # fmt: skip
            if k < rounds - 1 and palm_toward is not None:
                psi = self._palm_twist(side, palm_toward)
        self.poses[:, wrist] = axis_angle(axis, np.degrees(psi))

    def leg_to(self, side: str, ankles: np.ndarray, pole: np.ndarray | None = None) -> None:
        """Put an ankle on ``ankles`` (T, 3) with the knee toward ``pole`` (default: ahead)
        and keep the foot flat, pointing where the pelvis points."""
        pole = np.array([0.1 * SIDE_SIGN[side], 0.0, 1.0]) if pole is None else pole
        self.poses = solve_limb(
            self.poses, self.rest, f"{side}_leg", ankles, pole,
            trans=self.trans, what=f"motion {self.motion!r}",
        )  # fmt: skip
        _, rot = self.fk()
        self.poses = set_global(
            self.poses, self.rest, INDEX[f"{side}_ankle"], rot[:, 0], self.trans
        )

    def check_limits(self) -> None:
        """Raise :class:`PoseError` where an elbow or knee bends backwards or folds too far."""
        for name, limb in LIMBS.items():
            f = flexion(self.poses, limb)
            bad = np.flatnonzero((f < -FLEX_TOLERANCE) | (f > limb.max_flex + FLEX_TOLERANCE))
            if len(bad):
                raise PoseError(
                    f"motion {self.motion!r}: frame {int(bad[0])}: {name} flexes "
                    f"{f[bad[0]]:.1f} degrees, outside 0..{limb.max_flex:.0f}"
                )
