"""The toolkit of the simulated 3D objects (:mod:`.objects3d` and its siblings): 4x4 pose
algebra, the projection helpers that turn planned 3D poses into labels, and
:class:`RigidWorld`, the ``World`` that renders those same poses with pyrender."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import trimesh

from tempogen.generators.camera import Camera, look_at
from tempogen.generators.decor3d import Decor
from tempogen.generators.render3d import RGB, Renderer
from tempogen.generators.scene import Look, Scene

NOTE = "simulated 3D objects"  # the manifest's note of every 3D object pattern
PAINT_GAP = 125.0  # least RGB distance between two paints of one clip
UNLIT: tuple[int, int, int] = (118, 118, 118)  # an unlit bulb: grey, no hue for a mask
POST: tuple[int, int, int] = (70, 70, 70)  # posts, beams and ramps: grey, no hue
TRACK_PAD = 1.03  # a ball's track radius over its true radius (then a pixel more): its rim
BAND = 0.22  # half the width of a rolling ball's painted band, as a share of its radius
X, Y, Z = np.eye(3)
# a camera over a floor (:func:`floor_camera`)
FLOOR_DISTANCE = (2.8, 3.4)  # metres from the target
FLOOR_SIDE = 0.4  # most metres the camera stands to either side
FLOOR_RISE = (0.2, 0.7)  # metres the camera stands above the target
FLOOR_FOV = (38.0, 44.0)  # degrees: the vertical field of view


def translate(p: Any) -> np.ndarray:
    """4x4 translation."""
    m = np.eye(4)
    m[:3, 3] = p
    return m


def rotation(axis: np.ndarray, radians: float) -> np.ndarray:
    """4x4 right-handed rotation about a unit axis through the origin."""
    return trimesh.transformations.rotation_matrix(radians, axis)


def basis(z: np.ndarray) -> np.ndarray:
    """4x4 rotation whose local ``+z`` is ``z`` and whose local ``+y`` leans to world up."""
    z = z / np.linalg.norm(z)
    x = np.cross(Y, z)
    x /= np.linalg.norm(x)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = x, np.cross(z, x), z
    return m


def unproject(camera: Camera, u: float, v: float, depth: float) -> np.ndarray:
    """World point seen at pixel ``(u, v)``, ``depth`` metres along the viewing axis."""
    f = camera.focal
    p = np.array([(u - camera.width / 2) / f * depth, -(v - camera.height / 2) / f * depth, -depth])
    return camera.pose[:3, :3] @ p + camera.pose[:3, 3]


def screen_angle(centre: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Unwrapped on-screen angle (degrees, clockwise positive as in the labels) of ``point``
    around ``centre``, both (n, 2) pixel positions."""
    d = point - centre
    return np.degrees(np.unwrap(np.arctan2(d[:, 1], d[:, 0])))


def origins(poses: np.ndarray) -> np.ndarray:
    """World positions (n, 3) of the local origins of poses (n, 4, 4)."""
    return poses[:, :3, 3]


def transform(poses: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Local points (k, 3) moved by each pose: (n, k, 3)."""
    return np.einsum("nij,kj->nki", poses[:, :3, :3], points) + poses[:, None, :3, 3]


def shade(color: RGB, k: float) -> RGB:
    """A darker (k < 1) paint of the same hue."""
    r, g, b = (int(round(c * k)) for c in color)
    return (r, g, b)


@dataclass
class Body:
    """One rigid mesh, its pose in every frame ((n, 4, 4)) or in all ((4, 4)), its paint."""

    mesh: trimesh.Trimesh
    poses: np.ndarray
    color: RGB | None = None
    face_colors: np.ndarray | None = None
    vertex_colors: np.ndarray | None = None


@dataclass
class RigidWorld:
    """Rigid bodies seen through a camera, optionally standing on a floor (a ``World``)."""

    camera: Camera
    num_frames: int
    bodies: list[Body] = field(default_factory=list)
    floor: float | None = None
    decor: Decor | None = None  # a sign and distractors (style variations)

    def add(self, mesh: trimesh.Trimesh, poses: np.ndarray, **paint: Any) -> None:
        """Add a body: its mesh, poses and one paint (color, face_colors or vertex_colors)."""
        self.bodies.append(Body(mesh, poses, **paint))

    def paints(self) -> list[list[int]]:
        """Every colour painted on a body, for the pixel audit's hue masks."""
        out: set[tuple[int, ...]] = set()
        for b in self.bodies:
            for c in (b.color, b.face_colors, b.vertex_colors):
                if c is not None:
                    out |= {
                        tuple(int(v) for v in row[:3])
                        for row in np.reshape(c, (-1, np.shape(c)[-1]))
                    }
        return [list(c) for c in sorted(out)]

    def solid_points(self) -> list[np.ndarray]:
        """World points ((T, V, 3), or (1, V, 3) for a body at rest) of every body per
        frame: where scenery must not show."""
        out = []
        for b in self.bodies:
            poses = b.poses[None] if b.poses.ndim == 2 else b.poses
            out.append(transform(poses, np.asarray(b.mesh.vertices, dtype=np.float64)))
        return out

    def frames(self, background: str, rng: np.random.Generator) -> Iterator[np.ndarray]:
        """RGB frames of the planned poses; the array is reused between frames."""
        return (frame for frame, _ in self._render(background, rng, coverage=False))

    def frames_and_masks(
        self, background: str, rng: np.random.Generator
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """RGB frames and the coverage (uint8 alpha) of every body, for a noise-encoded clip:
        the one render pass gives both (arrays reused between frames)."""
        for frame, mask in self._render(background, rng, coverage=True):
            assert mask is not None  # a renderer made with coverage=True keeps one
            yield frame, mask

    def _render(
        self, background: str, rng: np.random.Generator, coverage: bool
    ) -> Iterator[tuple[np.ndarray, np.ndarray | None]]:
        r = Renderer(
            self.camera, background=background, rng=rng, floor=self.floor, coverage=coverage
        )
        try:
            moving = []
            for b in self.bodies:
                first = b.poses if b.poses.ndim == 2 else b.poses[0]
                h = r.add_mesh(
                    b.mesh,
                    color=b.color,
                    face_colors=b.face_colors,
                    vertex_colors=b.vertex_colors,
                    pose=first,
                )
                if b.poses.ndim == 3:
                    moving.append((h, b.poses))
            if self.decor is not None:
                self.decor.install(r)
            for i in range(self.num_frames):
                for h, poses in moving:
                    r.set_pose(h, poses[i])
                frame = r.render()
                yield frame, r.coverage
        finally:
            r.close()


def aim_camera(scene: Scene, eye: Any, target: Any, fov_deg: float) -> Camera:
    """A camera at ``eye`` looking at ``target`` with a vertical field of view of
    ``fov_deg`` degrees, the scene's canvas size."""
    pose = look_at(np.asarray(eye, float), np.asarray(target, float))
    return Camera(scene.width, scene.height, math.radians(fov_deg), pose)


def paint_looks(scene: Scene, *shapes: str) -> list[Look]:
    """Fresh colours for the parts of a 3D object, far apart even where shading darkens them
    (no red with orange, no blue with cyan), so a colour still names each part."""
    out: list[Look] = []
    for shape in shapes:
        while True:
            look = scene.look((shape,), size=1.0)
            if all(math.dist(look.color, o.color) >= PAINT_GAP for o in out):
                out.append(look)
                break
    return out


def add_part(
    scene: Scene, name: str, look: Look, noun: str, role: str = "subject", **states: Any
) -> None:
    """Add a track to the scene, named in the question as its colour and ``noun``."""
    scene.add(name, look, role=role, **states)
    scene.nouns[name] = f"the {look.color_name} {noun}"


def extent(camera: Camera, centre_px: np.ndarray, points: np.ndarray) -> float:
    """Largest on-screen distance from projected centres (n, 2) to points (n, k, 3)."""
    px = camera.project(points)
    return float(np.linalg.norm(px - centre_px[:, None, :], axis=-1).max()) + 1.0


def floor_camera(scene: Scene, target_y: float) -> Camera:
    """A camera 2.8-3.4 m away, a little above the scene, looking slightly down."""
    rng = scene.rng
    dist = rng.uniform(*FLOOR_DISTANCE)
    eye = (rng.uniform(-FLOOR_SIDE, FLOOR_SIDE), target_y + rng.uniform(*FLOOR_RISE), dist)
    return aim_camera(scene, eye, (0.0, target_y, 0.0), rng.uniform(*FLOOR_FOV))
