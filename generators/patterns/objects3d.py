"""Simulated 3D objects (TOMATO's "simulated" category): a spinning cube, a spinning top, a
moon orbiting a planet and a ball rolling on a floor, rendered with pyrender.

Each pattern plans rigid 3D poses per frame, then labels the clip with what the camera sees:
a position is the projection of a 3D centre through the same :class:`Camera` the renderer
draws with, a size is a projected radius, an angle is measured on screen. ``scene.world``
renders those same poses, so labels and pixels agree by construction (the toolkit is
:mod:`.rigid3d`, the moon's orbit :func:`.scenes3d.orbit_clip`). Marks that show a turn
(the bar on the cube, one half of the top's disc, the band on the ball) get their own colour;
a spinning object's mark is also labelled, as the prop track ``mark``, so a pixel check can
read the turn as the angle of the mark's centroid around the subject's.
"""

from __future__ import annotations

import math

import numpy as np
import trimesh

from tempogen import observe
from tempogen.generators.motion import MAX_TURN_PER_SAMPLE, Motion, register_motion
from tempogen.generators.paths import UNIT, fit_start, signed_sweep, through
from tempogen.generators.patterns.rigid3d import (
    BAND,
    NOTE,
    TRACK_PAD,
    RigidWorld,
    X,
    Y,
    Z,
    add_part,
    aim_camera,
    basis,
    extent,
    origins,
    paint_looks,
    rotation,
    screen_angle,
    shade,
    transform,
    translate,
    unproject,
)
from tempogen.generators.patterns.rotation import ALIAS_SHARE, SENSES
from tempogen.generators.patterns.scenes3d import FOV, orbit_clip
from tempogen.generators.scene import Scene

# a spinning cube (:class:`CubeSpin`)
CUBE_DEPTH = 4.0  # metres from the camera
CUBE_FACE = (2.0, 2.5)  # the front face's circumradius, in scene units
CUBE_MARGIN = 1.6  # face radii kept between the cube's centre and the canvas's edge
CUBE_STEP = (0.45, 0.9)  # the turn per sample, as a share of the most that cannot alias
SIDE_SHADE = 0.6  # the cube's other faces, darker than the face to the camera
BAR = (0.6, 0.16, 0.02)  # the bar's length, width and depth, in cube edges
BAR_AT = (0.28, 0.51)  # the bar's centre above and before the cube's, in cube edges
BAR_TRACK = 0.3  # the bar's track radius, in cube edges

# a spinning top (:class:`TopSpin`)
TOP_ELEVATION = (40, 55)  # degrees the camera looks down from
TOP_AZIMUTH = 30  # most degrees the camera turns off straight ahead
TOP_DISTANCE = (2.3, 2.8)  # metres from the camera to where it looks
TOP_AIM = 0.35  # metres above the floor the camera looks at
TOP_RADIUS = (0.24, 0.28)  # metres: the cone's radius
TOP_HEIGHT = (0.5, 0.6)  # metres: the cone's height
DISC_THICK = 0.05  # metres: the painted disc's thickness
DISC_OVER = 1.04  # the disc's radius over the cone's: its rim shows from above
STEM = (0.12, 0.45)  # the stem's radius and height, in cone radii
STEM_RISE = 0.2  # the stem's centre above the disc, in cone radii
TOP_STEP = (0.45, 0.8)  # the turn per sample, as a share of the most that cannot alias

ORBIT_STEP = (0.4, 0.75)  # a moon's turn per sample, as a share of the most

# a rolling ball (:class:`BallRoll`)
ROLL_RISE = (1.0, 1.6)  # metres the camera stands above the floor
ROLL_DISTANCE = 4.0  # metres from the camera to the middle of the floor
ROLL_AIM = 0.3  # metres above the floor the camera looks at
ROLL_RADIUS = (0.22, 0.3)  # metres
ROLL_DEPTH = 0.4  # most metres the ball rolls before or behind the middle
ROLL_SHRINK = (1.0, 0.8, 0.6, 0.45, 0.3)  # path scales tried until the path fits the canvas
ROLL_SPEED = (0.5, 0.8)  # canvas widths a full-length path covers over the clip


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
        look, mark = paint_looks(scene, "square", "block")
        cam = aim_camera(scene, (0.0, 0.0, CUBE_DEPTH), (0.0, 0.0, 0.0), FOV)
        face_px = scene.rng.uniform(*CUBE_FACE) * scene.unit  # circumradius of the front face
        u, v = scene.place(face_px * CUBE_MARGIN)
        centre = unproject(cam, u, v, CUBE_DEPTH)
        edge = face_px * math.sqrt(2) / cam.pixels_per_metre(centre)
        limit = min(MAX_TURN_PER_SAMPLE, ALIAS_SHARE * observe.period_of("square"))
        step = scene.rng.uniform(*CUBE_STEP) * limit
        turned = scene.rng.uniform(0, 360) + signed_sweep(scene, answer, step)
        # a right-handed turn about an axis towards the viewer is counter-clockwise on screen
        frame = translate(centre) @ basis(cam.pose[:3, 3] - centre)
        poses = np.stack([frame @ rotation(Z, -math.radians(a)) for a in turned])
        cube = trimesh.creation.box((edge, edge, edge))
        paint = np.tile(shade(look.color, SIDE_SHADE), (len(cube.faces), 1))
        paint[cube.triangles_center[:, 2] > 0.49 * edge] = look.color  # the face to the camera
        bar = trimesh.creation.box(tuple(k * edge for k in BAR))
        bar_at = translate((0.0, BAR_AT[0] * edge, BAR_AT[1] * edge))
        world = RigidWorld(cam, scene.n)
        world.add(cube, poses, face_colors=paint)
        world.add(bar, poses @ bar_at, color=mark.color)
        scene.world = world
        scene.meta["paints"] = world.paints()

        centre_px = np.repeat(cam.project(centre)[None], scene.n, axis=0)
        look.size = extent(cam, centre_px, transform(poses, cube.vertices))
        bar_px = cam.project(origins(poses @ bar_at))
        angle = screen_angle(centre_px, bar_px)
        add_part(scene, "subject", look, "cube", x=centre_px[:, 0], y=centre_px[:, 1], angle=angle)
        mark.size = BAR_TRACK * edge * cam.pixels_per_metre(centre) + 1.0
        add_part(scene, "mark", mark, "bar", role="prop", x=bar_px[:, 0], y=bar_px[:, 1])
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
        look, mark, body = paint_looks(scene, "arrow", "block", "circle")
        scene.meta["viewpoint"] = "above"  # the angle is a yaw: its sense is read from above
        elev = math.radians(scene.rng.uniform(*TOP_ELEVATION))
        azim = math.radians(scene.rng.uniform(-TOP_AZIMUTH, TOP_AZIMUTH))
        dist = scene.rng.uniform(*TOP_DISTANCE)
        target = np.array([0.0, TOP_AIM, 0.0])
        eye = target + dist * np.array(
            [math.cos(elev) * math.sin(azim), math.sin(elev), math.cos(elev) * math.cos(azim)]
        )
        cam = aim_camera(scene, eye, target, FOV)
        rad, height = scene.rng.uniform(*TOP_RADIUS), scene.rng.uniform(*TOP_HEIGHT)
        disc_t = DISC_THICK
        upright = rotation(X, -math.pi / 2)  # trimesh's +z axis to world +y
        cone = trimesh.creation.cone(radius=rad, height=height, sections=64)
        cone.apply_transform(translate((0, height, 0)) @ rotation(X, math.pi / 2))  # tip down
        disc = trimesh.creation.cylinder(radius=rad * DISC_OVER, height=disc_t, sections=64)
        disc.apply_transform(translate((0, height + disc_t / 2, 0)) @ upright)
        stem = trimesh.creation.cylinder(radius=STEM[0] * rad, height=STEM[1] * rad, sections=32)
        stem.apply_transform(translate((0, height + disc_t + STEM_RISE * rad, 0)) @ upright)
        halves = np.where(disc.triangles_center[:, :1] > 0, look.color, mark.color)

        limit = min(MAX_TURN_PER_SAMPLE, ALIAS_SHARE * observe.period_of("arrow"))
        yaw = scene.rng.uniform(0, 360) + signed_sweep(
            scene, answer, scene.rng.uniform(*TOP_STEP) * limit
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
        rim = np.stack([np.cos(ring), np.zeros_like(ring), np.sin(ring)], 1) * rad * DISC_OVER
        outline = np.concatenate(
            [rim + [0, height, 0], rim + top, [[0, 0, 0], top + [0, STEM[1] * rad, 0]]]
        )
        look.size = extent(cam, centre_px, transform(poses[:1], outline))
        add_part(
            scene, "subject", look, "spinning top", x=centre_px[:, 0], y=centre_px[:, 1], angle=yaw
        )
        # the centroid of the painted half's face (a half disc's is 4r/3pi from its centre)
        half = transform(poses, np.array([[-4 * rad * DISC_OVER / (3 * math.pi), 0, 0]]) + top)
        half_px = cam.project(half[:, 0])
        mark.size = rad * DISC_OVER * cam.pixels_per_metre(top) + 1.0
        add_part(scene, "mark", mark, "half", role="prop", x=half_px[:, 0], y=half_px[:, 1])
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
            step = rng.uniform(*ORBIT_STEP) * MAX_TURN_PER_SAMPLE
            return rng.uniform(0, 360) + signed_sweep(scene, answer, step)

        orbit_clip(scene, phase, kind="orbit")


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
        look, band = paint_looks(scene, "circle", "block")
        rng = scene.rng
        cam = aim_camera(
            scene, (0.0, rng.uniform(*ROLL_RISE), ROLL_DISTANCE), (0.0, ROLL_AIM, 0.0), FOV
        )
        rad = rng.uniform(*ROLL_RADIUS)
        depth_z = rng.uniform(-ROLL_DEPTH, ROLL_DEPTH)
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
        for shrink in ROLL_SHRINK:
            speed = rng.uniform(*ROLL_SPEED) * scene.width * shrink / (n - 1)
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
        in_band = np.abs(ball.vertices[:, 0]) < BAND * rad
        paint = np.where(in_band[:, None], band.color, look.color)
        world = RigidWorld(cam, n, floor=0.0)
        world.add(ball, poses, vertex_colors=paint)
        scene.world = world
        scene.meta["paints"] = world.paints()

        c = cam.project(origins(poses))
        look.size = r_px * TRACK_PAD + 1.0
        angle = np.degrees((x - x[0]) / rad)  # clockwise on screen when rolling right
        add_part(scene, "subject", look, "ball", x=c[:, 0], y=c[:, 1], angle=angle)
        scene.ask(["subject"])
