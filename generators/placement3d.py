"""Where scenery may stand in a 3D clip's view: the pixels the moving meshes cover, and
the world points seen at a pixel, at a depth or on the floor (``generators/decor3d.py``
places its signs and distractors with these)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from tempogen.generators.camera import Camera


def footprint(camera: Camera, solids: list[np.ndarray], margin: float) -> np.ndarray:
    """Pixels any of ``solids`` ((T, V, 3) world points per frame) covers in any frame (each
    frame's convex hull), grown by ``margin`` pixels: where scenery must not show."""
    w, h = camera.width, camera.height
    mask = np.zeros((h, w), np.uint8)
    for pts in solids:
        for frame in np.asarray(pts, dtype=np.float64):
            p = frame[camera.depth(frame) > 0.02]
            if not len(p):
                continue
            uv = np.clip(camera.project(p), [-4 * w, -4 * h], [5 * w, 5 * h])
            hull = cv2.convexHull(np.round(uv).astype(np.int32))
            cv2.fillConvexPoly(mask, hull, 1)
    k = 2 * int(math.ceil(margin)) + 1
    return cv2.dilate(mask, np.ones((k, k), np.uint8)).astype(bool)


def hull_mask(camera: Camera, quad: np.ndarray) -> np.ndarray:
    """Mask of the convex hull of pixel points (n, 2)."""
    mask = np.zeros((camera.height, camera.width), np.uint8)
    cv2.fillConvexPoly(mask, cv2.convexHull(np.round(quad).astype(np.int32)), 1)
    return mask.astype(bool)


def fits(
    camera: Camera,
    pts: np.ndarray,
    taken: np.ndarray,
    edge: float,
    behind: np.ndarray | None = None,
    share: float = 0.0,
) -> np.ndarray | None:
    """The mask of world points ``pts`` if all lie in front of the camera, ``edge`` pixels
    inside the frame and clear of ``taken`` (and at most ``share`` of it on ``behind``);
    else None."""
    if np.any(camera.depth(pts) <= 0.05):
        return None
    uv = camera.project(pts)
    if (
        uv[:, 0].min() < edge
        or uv[:, 1].min() < edge
        or uv[:, 0].max() > camera.width - edge
        or uv[:, 1].max() > camera.height - edge
    ):
        return None
    mask = hull_mask(camera, uv)
    if np.any(mask & taken):
        return None
    if behind is not None and np.count_nonzero(mask & behind) > share * np.count_nonzero(mask):
        return None
    return mask


def view_axes(camera: Camera) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Eye, viewing direction, and the level forward and right directions of a camera."""
    eye, fwd = camera.pose[:3, 3], -camera.pose[:3, 2]
    level = np.array([fwd[0], 0.0, fwd[2]])
    level /= max(np.linalg.norm(level), 1e-9)
    right = np.cross(level, [0.0, 1.0, 0.0])
    return eye, fwd, level, right


def floor_point(camera: Camera, floor: float, u: float, depth: float) -> np.ndarray:
    """The floor point ``depth`` metres along the viewing axis, seen at image column ``u``."""
    eye, fwd, level, right = view_axes(camera)
    s = (depth - (floor - eye[1]) * fwd[1]) / max(float(level @ fwd), 1e-6)
    lateral = (u - camera.width / 2) / camera.focal * depth
    p = eye + level * s + right * lateral
    p[1] = floor
    return p


def unproject(camera: Camera, u: float, v: float, depth: float) -> np.ndarray:
    """World point seen at pixel ``(u, v)``, ``depth`` metres along the viewing axis."""
    f = camera.focal
    c = np.array([(u - camera.width / 2) / f * depth, -(v - camera.height / 2) / f * depth, -depth])
    return camera.pose[:3, :3] @ c + camera.pose[:3, 3]


def floor_hit(camera: Camera, floor: float, u: float, v: float) -> np.ndarray | None:
    """Where the ray through pixel ``(u, v)`` meets the floor, or None (it looks upward)."""
    eye = camera.pose[:3, 3]
    ray = unproject(camera, u, v, 1.0) - eye
    if ray[1] >= -1e-6 or eye[1] <= floor:
        return None
    return eye + ray * (floor - eye[1]) / ray[1]


def flat_board(camera: Camera, centre: np.ndarray, bw: float, bh: float) -> np.ndarray:
    """Corners of a board lying on the floor at ``centre``, its text upright on screen."""
    right = camera.pose[:3, 0] * [1.0, 0.0, 1.0]
    right /= max(np.linalg.norm(right), 1e-9)
    far = np.cross([0.0, 1.0, 0.0], right)  # level, away from the viewer: the board's top
    a, b = right * bw / 2, far * bh / 2
    lift = np.array([0.0, 1e-3, 0.0])
    return np.stack([centre - a + b, centre + a + b, centre + a - b, centre - a - b]) + lift


def floor_usable(camera: Camera, floor: float | None) -> bool:
    """Whether a board can stand on the floor: the camera is above it and not looking
    straight down or up."""
    eye, fwd, _, _ = view_axes(camera)
    return floor is not None and eye[1] > floor + 0.05 and abs(fwd[1]) < 0.95
