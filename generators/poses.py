"""Pose sequences on SMPL's 24-joint tree, and the rotation arithmetic they need.

A :class:`PoseSequence` is what every source of human motion produces (procedural motions,
AMASS, VIBE, BVH) and what the body model poses: per-frame axis-angle rotations of the 24
joints relative to their parents (joint 0 is the global orientation), a root translation,
optional shape coefficients and the frame rate. World axes follow SMPL (``y`` up).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation, Slerp

from tempogen.generators.skeleton import NUM_JOINTS


@dataclass(frozen=True, eq=False)
class PoseSequence:
    """``poses`` (T, 24, 3) axis-angle, ``trans`` (T, 3) metres, ``betas`` (B,) or None."""

    poses: np.ndarray
    trans: np.ndarray
    fps: float
    betas: np.ndarray | None = None
    source: str = ""

    def __post_init__(self) -> None:
        poses = np.asarray(self.poses, dtype=np.float64)
        trans = np.asarray(self.trans, dtype=np.float64)
        where = f"{self.source}: " if self.source else ""
        if poses.ndim != 3 or poses.shape[1:] != (NUM_JOINTS, 3):
            raise ValueError(f"{where}poses: expected shape (T, 24, 3), got {poses.shape}")
        if trans.shape != (poses.shape[0], 3):
            raise ValueError(
                f"{where}trans: expected shape ({poses.shape[0]}, 3), got {trans.shape}"
            )
        if not (np.isfinite(poses).all() and np.isfinite(trans).all()):
            raise ValueError(f"{where}poses/trans: contain NaN or infinite values")
        if not self.fps > 0:
            raise ValueError(f"{where}fps: must be positive, got {self.fps}")
        object.__setattr__(self, "poses", poses)
        object.__setattr__(self, "trans", trans)
        if self.betas is not None:
            object.__setattr__(self, "betas", np.asarray(self.betas, dtype=np.float64).ravel())

    @property
    def num_frames(self) -> int:
        return int(self.poses.shape[0])

    @property
    def duration(self) -> float:
        """Seconds from the first to the last frame."""
        return (self.num_frames - 1) / self.fps

    def resample(self, fps: float, num_frames: int | None = None) -> PoseSequence:
        """The motion at another frame rate: rotations slerped, translation interpolated."""
        n = num_frames if num_frames is not None else int(np.floor(self.duration * fps + 1e-9)) + 1
        t_src = np.arange(self.num_frames) / self.fps
        t_dst = np.clip(np.arange(n) / fps, 0.0, t_src[-1])
        if self.num_frames == 1:
            poses = np.repeat(self.poses, n, axis=0)
            trans = np.repeat(self.trans, n, axis=0)
        else:
            poses = np.empty((n, NUM_JOINTS, 3))
            for j in range(NUM_JOINTS):
                slerp = Slerp(t_src, Rotation.from_rotvec(self.poses[:, j]))
                poses[:, j] = slerp(t_dst).as_rotvec()
            trans = np.stack([np.interp(t_dst, t_src, self.trans[:, k]) for k in range(3)], 1)
        return PoseSequence(poses, trans, fps, self.betas, self.source)


def rotvec_to_matrix(rotvec: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of axis-angle vectors (..., 3)."""
    r = np.asarray(rotvec, dtype=np.float64)
    return Rotation.from_rotvec(r.reshape(-1, 3)).as_matrix().reshape(*r.shape[:-1], 3, 3)


def matrix_to_rotvec(matrix: np.ndarray) -> np.ndarray:
    """Axis-angle vectors (..., 3) of rotation matrices (..., 3, 3)."""
    m = np.asarray(matrix, dtype=np.float64)
    return Rotation.from_matrix(m.reshape(-1, 3, 3)).as_rotvec().reshape(*m.shape[:-2], 3)
