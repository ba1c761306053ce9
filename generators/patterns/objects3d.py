"""Simulated 3D objects (TOMATO's "simulated" category): a spinning cube, a spinning top, a
moon orbiting a planet and a ball rolling on a floor, rendered with pyrender.

Each pattern plans rigid 3D poses per frame, then labels the clip with what the camera sees:
a position is the projection of a 3D centre through the same :class:`Camera` the renderer
draws with, a size is a projected radius, an angle is measured on screen. ``scene.world``
renders those same poses, so labels and pixels agree by construction. Marks that show a turn
(the bar on the cube, one half of the top's disc, the band on the ball) get their own colour;
a spinning object's mark is also labelled, as the prop track ``mark``, so a pixel check can
read the turn as the angle of the mark's centroid around the subject's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import trimesh

from tempogen import observe
from tempogen.generators.camera import Camera, look_at
from tempogen.generators.decor3d import Decor
from tempogen.generators.motion import MAX_TURN_PER_SAMPLE, Look, Motion, Scene, register_motion
from tempogen.generators.paths import UNIT, fit_start, signed_sweep, through
from tempogen.generators.patterns.rotation import SENSES
from tempogen.generators.render3d import RGB, Renderer

NOTE = "simulated 3D objects"
PAINT_GAP = 125.0  # least RGB distance between two paints of one clip
X, Y, Z = np.eye(3)


# 3D helpers --------------------------------------------------------------------------------
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
        return self._render(background, rng, coverage=True)

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


def _camera(scene: Scene, eye: Any, target: Any, fov_deg: float) -> Camera:
    pose = look_at(np.asarray(eye, float), np.asarray(target, float))
    return Camera(scene.width, scene.height, math.radians(fov_deg), pose)


def _looks(scene: Scene, *shapes: str) -> list[Look]:
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


def _add(scene: Scene, name: str, look: Look, noun: str, role: str = "subject", **states: Any):
    scene.add(name, look, role=role, **states)
    scene.nouns[name] = f"the {look.color_name} {noun}"


def _extent(camera: Camera, centre_px: np.ndarray, points: np.ndarray) -> float:
    """Largest on-screen distance from projected centres (n, 2) to points (n, k, 3)."""
    px = camera.project(points)
    return float(np.linalg.norm(px - centre_px[:, None, :], axis=-1).max()) + 1.0


# patterns ----------------------------------------------------------------------------------
@register_motion
class CubeSpin(Motion):
    """A cube, one face to the camera with a bar across it, spins about the axis that points
    at the camera, so its turn on screen is a plain rotation.

    Its label's shape is ``square``: the face a viewer sees is a square, so observe reads a
    turn modulo 90 degrees and each sampled step stays under 40% of that (36 degrees). The
    bar alone would tell turns apart up to 180 degrees; keeping steps small means the
    silhouette already shows the sense, and the bar agrees with it.
    """

    name = "cube_spin"
    task = "rotation"
    fact = "rotation"
    answers = SENSES
    question = "Which direction(s) does {subject} rotate in, from the viewer's perspective?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        look, mark = _looks(scene, "square", "block")
        cam = _camera(scene, (0.0, 0.0, 4.0), (0.0, 0.0, 0.0), 40.0)
        face_px = scene.rng.uniform(2.0, 2.5) * scene.unit  # circumradius of the front face
        u, v = scene.place(face_px * 1.6)
        centre = unproject(cam, u, v, 4.0)
        edge = face_px * math.sqrt(2) / cam.pixels_per_metre(centre)
        limit = min(MAX_TURN_PER_SAMPLE, 0.4 * observe.period_of("square"))
        step = scene.rng.uniform(0.45, 0.9) * limit
        turned = scene.rng.uniform(0, 360) + signed_sweep(scene, answer, step)
        # a right-handed turn about an axis towards the viewer is counter-clockwise on screen
        frame = translate(centre) @ basis(cam.pose[:3, 3] - centre)
        poses = np.stack([frame @ rotation(Z, -math.radians(a)) for a in turned])
        cube = trimesh.creation.box((edge, edge, edge))
        paint = np.tile(shade(look.color, 0.6), (len(cube.faces), 1))
        paint[cube.triangles_center[:, 2] > 0.49 * edge] = look.color  # the face to the camera
        bar = trimesh.creation.box((0.6 * edge, 0.16 * edge, 0.02 * edge))
        bar_at = translate((0.0, 0.28 * edge, 0.51 * edge))
        world = RigidWorld(cam, scene.n)
        world.add(cube, poses, face_colors=paint)
        world.add(bar, poses @ bar_at, color=mark.color)
        scene.world = world
        scene.meta["paints"] = world.paints()

        centre_px = np.repeat(cam.project(centre)[None], scene.n, axis=0)
        look.size = _extent(cam, centre_px, transform(poses, cube.vertices))
        bar_px = cam.project(origins(poses @ bar_at))
        angle = screen_angle(centre_px, bar_px)
        _add(scene, "subject", look, "cube", x=centre_px[:, 0], y=centre_px[:, 1], angle=angle)
        mark.size = 0.3 * edge * cam.pixels_per_metre(centre) + 1.0
        _add(scene, "mark", mark, "bar", role="prop", x=bar_px[:, 0], y=bar_px[:, 1])
        scene.ask(["subject"], kind="spin")


@register_motion
class TopSpin(Motion):
    """A spinning top on a floor, seen from a camera 40-55 degrees above the floor.

    The question says "seen from above" and the track's angle is the top's yaw, clockwise
    seen from above. The disc is painted in two halves; from any camera above the disc the
    halves run round its ellipse on screen in that same sense, so the on-screen sense is
    the answer. Only the paint shows the turn: the shape is ``arrow`` (one symmetry, period
    360), so steps stay under 90 degrees per sample.
    """

    name = "top_spin"
    task = "rotation"
    fact = "rotation"
    answers = SENSES
    question = "Which direction(s) does {subject} spin in, seen from above?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        look, mark, body = _looks(scene, "arrow", "block", "circle")
        scene.meta["viewpoint"] = "above"  # the angle is a yaw: its sense is read from above
        elev = math.radians(scene.rng.uniform(40, 55))
        azim = math.radians(scene.rng.uniform(-30, 30))
        dist = scene.rng.uniform(2.3, 2.8)
        target = np.array([0.0, 0.35, 0.0])
        eye = target + dist * np.array(
            [math.cos(elev) * math.sin(azim), math.sin(elev), math.cos(elev) * math.cos(azim)]
        )
        cam = _camera(scene, eye, target, 40.0)
        rad, height = scene.rng.uniform(0.24, 0.28), scene.rng.uniform(0.5, 0.6)
        disc_t = 0.05
        upright = rotation(X, -math.pi / 2)  # trimesh's +z axis to world +y
        cone = trimesh.creation.cone(radius=rad, height=height, sections=64)
        cone.apply_transform(translate((0, height, 0)) @ rotation(X, math.pi / 2))  # tip down
        disc = trimesh.creation.cylinder(radius=rad * 1.04, height=disc_t, sections=64)
        disc.apply_transform(translate((0, height + disc_t / 2, 0)) @ upright)
        stem = trimesh.creation.cylinder(radius=0.12 * rad, height=0.45 * rad, sections=32)
        stem.apply_transform(translate((0, height + disc_t + 0.2 * rad, 0)) @ upright)
        halves = np.where(disc.triangles_center[:, :1] > 0, look.color, mark.color)

        limit = min(MAX_TURN_PER_SAMPLE, 0.4 * observe.period_of("arrow"))
        yaw = scene.rng.uniform(0, 360) + signed_sweep(
            scene, answer, scene.rng.uniform(0.45, 0.8) * limit
        )
        # a right-handed turn about +y is counter-clockwise seen from above
        poses = np.stack([rotation(Y, -math.radians(a)) for a in yaw])
        world = RigidWorld(cam, scene.n, floor=0.0)
        world.add(cone, poses, color=body.color)
        world.add(disc, poses, face_colors=halves)
        world.add(stem, poses, color=body.color)
        scene.world = world
        scene.meta["paints"] = world.paints()

        top = np.array([0.0, height + disc_t, 0.0])
        centre_px = np.repeat(cam.project(top)[None], scene.n, axis=0)
        ring = np.linspace(0, 2 * math.pi, 32, endpoint=False)
        rim = np.stack([np.cos(ring), np.zeros_like(ring), np.sin(ring)], 1) * rad * 1.04
        outline = np.concatenate(
            [rim + [0, height, 0], rim + top, [[0, 0, 0], top + [0, 0.45 * rad, 0]]]
        )
        look.size = _extent(cam, centre_px, transform(poses[:1], outline))
        _add(
            scene, "subject", look, "spinning top", x=centre_px[:, 0], y=centre_px[:, 1], angle=yaw
        )
        # the centroid of the painted half's face (a half disc's is 4r/3pi from its centre)
        half = transform(poses, np.array([[-4 * rad * 1.04 / (3 * math.pi), 0, 0]]) + top)
        half_px = cam.project(half[:, 0])
        mark.size = rad * 1.04 * cam.pixels_per_metre(top) + 1.0
        _add(scene, "mark", mark, "half", role="prop", x=half_px[:, 0], y=half_px[:, 1])
        scene.ask(["subject"], kind="spin")


@register_motion
class MoonOrbit(Motion):
    """A moon circles a planet in a plane that faces the camera, tilted up to 25 degrees (an
    ellipse on screen), never passing in front of or behind the planet."""

    name = "moon_orbit"
    task = "rotation"
    fact = "rotation"
    answers = SENSES
    question = "Which direction(s) does {subject} move around {o1}, from the viewer's perspective?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        def phase(rng: np.random.Generator) -> np.ndarray:
            step = rng.uniform(0.4, 0.75) * MAX_TURN_PER_SAMPLE
            return rng.uniform(0, 360) + signed_sweep(scene, answer, step)

        orbit_clip(scene, phase, kind="orbit")


def orbit_clip(
    scene: Scene, phase_of: Callable[[np.random.Generator], np.ndarray], kind: str
) -> None:
    """A moon circling a planet on a plane facing the camera, tilted up to 25 degrees, at the
    angles (degrees, counter-clockwise on screen) ``phase_of(scene.rng)`` gives per frame."""
    planet_look, moon_look = _looks(scene, "circle", "circle")
    cam = _camera(scene, (0.0, 0.0, 5.0), (0.0, 0.0, 0.0), 40.0)
    rng = scene.rng
    planet_px = scene.unit * rng.uniform(1.8, 2.4)
    moon_px = scene.unit * rng.uniform(0.8, 1.0)
    orbit_px = rng.uniform(0.3, 0.4) * min(scene.width, scene.height)
    room = max(0.0, min(0.15 * scene.width, scene.width / 2 - orbit_px - 1.5 * moon_px))
    cx = scene.width / 2 + rng.uniform(-1, 1) * room
    planet = unproject(cam, cx, scene.height / 2, 5.0)
    ppm = cam.pixels_per_metre(planet)
    # the ellipse's short axis keeps the moon clear of the planet
    clear = 1.5 * (planet_px + moon_px) / orbit_px
    tilt = math.radians(rng.uniform(-1, 1) * min(25.0, math.degrees(math.acos(min(clear, 1)))))
    right = cam.pose[:3, 0]
    normal = rotation(right, tilt)[:3, :3] @ (cam.pose[:3, 3] - planet)
    normal -= (normal @ right) * right  # square to ``right``: the orbit is a true circle
    normal /= np.linalg.norm(normal)
    up = np.cross(normal, right)
    phase = np.radians(phase_of(rng))
    # counter-clockwise from ``right`` towards ``up`` on screen, hence the minus sign
    r = orbit_px / ppm
    moon = planet + r * (np.cos(-phase)[:, None] * right + np.sin(-phase)[:, None] * up)
    world = RigidWorld(cam, scene.n)
    world.add(
        trimesh.creation.icosphere(4, planet_px / ppm),
        translate(planet),
        color=planet_look.color,
    )
    poses = np.repeat(np.eye(4)[None], scene.n, axis=0)
    poses[:, :3, 3] = moon
    world.add(trimesh.creation.icosphere(3, moon_px / ppm), poses, color=moon_look.color)
    scene.world = world
    scene.meta["paints"] = world.paints()

    p = cam.project(planet)
    m = cam.project(moon)
    moon_scale = np.array([cam.pixels_per_metre(q) for q in moon]) / ppm
    planet_look.size = planet_px + 1.0
    moon_look.size = moon_px + 1.0
    _add(scene, "planet", planet_look, "planet", role="prop", x=p[0], y=p[1])
    _add(scene, "subject", moon_look, "moon", x=m[:, 0], y=m[:, 1], scale=moon_scale)
    scene.ask(["subject", "planet"], kind=kind)


@register_motion
class BallRoll(Motion):
    """A ball rolls left or right along the floor, or one way then back, turning as it
    rolls (a band painted through its axle shows the roll)."""

    name = "ball_roll"
    temporal_noise = True
    task = "direction"
    fact = "direction"
    answers = (("left",), ("right",), ("left", "right"), ("right", "left"))
    question = "In which direction(s) does {subject} roll, from the viewer's perspective?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        look, band = _looks(scene, "circle", "block")
        rng = scene.rng
        cam = _camera(scene, (0.0, rng.uniform(1.0, 1.6), 4.0), (0.0, 0.3, 0.0), 40.0)
        rad = rng.uniform(0.22, 0.3)
        depth_z = rng.uniform(-0.4, 0.4)
        probe = np.array([0.0, rad, depth_z])
        ppm = cam.pixels_per_metre(probe)
        r_px = rad * ppm
        margin = r_px + 2.0
        n = scene.n
        knots = (
            [0, n - 1]
            if len(answer) == 1
            else [0, scene.sample_frame(scene.switch_sample()), n - 1]
        )
        for shrink in (1.0, 0.8, 0.6, 0.45, 0.3):
            speed = rng.uniform(0.5, 0.8) * scene.width * shrink / (n - 1)
            pts = [np.zeros(2)]
            for tok, (a, b) in zip(answer, zip(knots[:-1], knots[1:])):
                pts.append(pts[-1] + np.array(UNIT[tok]) * speed * (b - a))
            try:
                path = fit_start(np.array(pts), scene.width, scene.height, margin, rng)
                break
            except ValueError:
                continue
        else:
            raise ValueError(f"ball_roll {answer}: no path fits the canvas")
        u, _ = through(path, np.array(knots, float), scene.frames)
        # the camera's right axis is world x: pixels map linearly to x at the ball's depth
        x = cam.pose[0, 3] + (u - scene.width / 2) / ppm
        spun = rng.uniform(0, 2 * math.pi)
        # rolling without slipping towards +x turns the ball by -distance/radius about +z
        poses = np.stack(
            [translate((xi, rad, depth_z)) @ rotation(Z, spun - (xi - x[0]) / rad) for xi in x]
        )
        ball = trimesh.creation.icosphere(4, rad)
        in_band = np.abs(ball.vertices[:, 0]) < 0.22 * rad
        paint = np.where(in_band[:, None], band.color, look.color)
        world = RigidWorld(cam, n, floor=0.0)
        world.add(ball, poses, vertex_colors=paint)
        scene.world = world
        scene.meta["paints"] = world.paints()

        c = cam.project(origins(poses))
        look.size = r_px * 1.03 + 1.0
        angle = np.degrees((x - x[0]) / rad)  # clockwise on screen when rolling right
        _add(scene, "subject", look, "ball", x=c[:, 0], y=c[:, 1], angle=angle)
        scene.ask(["subject"])
