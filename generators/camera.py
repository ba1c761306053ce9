"""A pinhole camera shared by the 3D renderer and the labels: one projection for both.

The pose is camera-to-world in OpenGL's convention (the camera looks down its ``-z`` axis,
``+y`` is up), exactly what pyrender expects for a camera node, so a joint projected here
lands on the pixel where the renderer draws it. Pixel coordinates match tempogen's labels:
``x`` to the right, ``y`` downwards, origin at the top-left corner of the top-left pixel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def look_at(eye: np.ndarray, target: np.ndarray, up: np.ndarray | None = None) -> np.ndarray:
    """Camera-to-world 4x4 pose of a camera at ``eye`` looking at ``target``."""
    eye = np.asarray(eye, dtype=np.float64)
    target = np.asarray(target, dtype=np.float64)
    up = np.array([0.0, 1.0, 0.0]) if up is None else np.asarray(up, dtype=np.float64)
    back = eye - target
    norm = np.linalg.norm(back)
    if norm < 1e-9:
        raise ValueError("camera: eye and target coincide")
    back /= norm
    right = np.cross(up, back)
    if np.linalg.norm(right) < 1e-9:
        raise ValueError("camera: viewing direction is parallel to the up vector")
    right /= np.linalg.norm(right)
    true_up = np.cross(back, right)
    pose = np.eye(4)
    pose[:3, 0], pose[:3, 1], pose[:3, 2], pose[:3, 3] = right, true_up, back, eye
    return pose


@dataclass(frozen=True, eq=False)
class Camera:
    """Perspective camera: vertical field of view, image size and camera-to-world pose."""

    width: int
    height: int
    yfov: float  # radians
    pose: np.ndarray  # 4x4 camera-to-world

    @property
    def focal(self) -> float:
        """Focal length in pixels (square pixels)."""
        return 0.5 * self.height / math.tan(0.5 * self.yfov)

    @property
    def aspect(self) -> float:
        return self.width / self.height

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        """World points (..., 3) in the camera's frame (visible points have ``z < 0``)."""
        p = np.asarray(points, dtype=np.float64)
        world_to_cam = np.linalg.inv(self.pose)
        return p @ world_to_cam[:3, :3].T + world_to_cam[:3, 3]

    def project(self, points: np.ndarray) -> np.ndarray:
        """Pixel coordinates (..., 2) of world points (..., 3); raises if one is behind."""
        c = self.to_camera(points)
        depth = -c[..., 2]
        if np.any(depth <= 1e-6):
            raise ValueError("camera: a projected point lies behind the camera")
        f = self.focal
        x = self.width / 2 + f * c[..., 0] / depth
        y = self.height / 2 - f * c[..., 1] / depth
        return np.stack([x, y], axis=-1)

    def depth(self, points: np.ndarray) -> np.ndarray:
        """Distance along the viewing axis of world points (..., 3)."""
        return -self.to_camera(points)[..., 2]

    def pixels_per_metre(self, point: np.ndarray) -> float:
        """Image scale at a world point: pixels that one metre facing the camera spans."""
        return self.focal / float(self.depth(np.asarray(point, dtype=np.float64)))
