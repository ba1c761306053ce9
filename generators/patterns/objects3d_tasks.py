"""3D objects for count, velocity & frequency, shape & trend and visual cues: a bouncing ball,
lamps that light up, a ball rolling at a changing speed and a ball flying a shape.

Like :mod:`objects3d`, each pattern plans 3D poses, labels the clip with their projection
through the camera the renderer draws with, and hands the same poses to ``scene.world``. The
timing of every event (a contact, a lamp turning on) comes from the 2D patterns' planners, so
the 3D clips certify under the same sampling rules.
"""

from __future__ import annotations

import math

import numpy as np
import trimesh

from tempogen.generators.motion import SAMPLES, Look, Motion, Scene, register_motion
from tempogen.generators.paths import event_samples, spaced_gaps
from tempogen.generators.patterns.count import LOOP_EXTRA
from tempogen.generators.patterns.direction import _PAIRS, _SINGLE, slide_path
from tempogen.generators.patterns.objects3d import (
    NOTE,
    RigidWorld,
    _add,
    _camera,
    _looks,
    orbit_clip,
    rotation,
    translate,
    unproject,
)
from tempogen.generators.patterns.shape import screen_path
from tempogen.generators.patterns.velocity import GAPS, PROFILES, bounce_heights
from tempogen.generators.patterns.visual_cues import end_samples, start_samples

UNLIT: tuple[int, int, int] = (118, 118, 118)  # an unlit bulb: grey, no hue for a mask
POST: tuple[int, int, int] = (70, 70, 70)
AWAY = translate((0.0, -1e3, 0.0))  # a hidden body: far below the floor, out of view


def _floor_camera(scene: Scene, target_y: float):
    """A camera 2.8-3.4 m away, a little above the scene, looking slightly down."""
    rng = scene.rng
    dist = rng.uniform(2.8, 3.4)
    eye = (rng.uniform(-0.4, 0.4), target_y + rng.uniform(0.2, 0.7), dist)
    return _camera(scene, eye, (0.0, target_y, 0.0), rng.uniform(38.0, 44.0))


def _bounce_clip(scene: Scene, contacts: list[int]) -> None:
    """A ball bouncing in place on a floor, touching it at the frames ``contacts``."""
    look, band = _looks(scene, "circle", "block")
    rng = scene.rng
    cam = _floor_camera(scene, 0.7)
    rad = rng.uniform(0.16, 0.22)
    top = rng.uniform(0.9, 1.2)  # highest centre above the floor (metres)
    # bounce_heights works in "y down" units: floor at ``f``, room above the ball = top - rad
    f = top + 2.5 * rad
    heights = f - bounce_heights(scene, contacts, f, rad)
    x0, z0 = rng.uniform(-0.6, 0.6), rng.uniform(-0.4, 0.4)
    centres = np.stack([np.full(scene.n, x0), heights, np.full(scene.n, z0)], 1)
    spin = rng.uniform(0, 2 * math.pi)
    poses = np.stack([translate(c) for c in centres])
    poses[:, :3, :3] = trimesh.transformations.rotation_matrix(spin, (0, 1, 0))[:3, :3]
    ball = trimesh.creation.icosphere(3, rad)
    paint = np.where((np.abs(ball.vertices[:, 1]) < 0.2 * rad)[:, None], band.color, look.color)
    world = RigidWorld(cam, scene.n, floor=0.0)
    world.add(ball, poses, vertex_colors=paint)
    scene.world = world
    scene.meta["paints"] = world.paints()

    px = cam.project(centres)
    ppm = np.array([cam.pixels_per_metre(c) for c in centres])
    contact = np.array([x0, rad, z0])
    look.size = rad * cam.pixels_per_metre(contact) + 1.0
    scale = ppm / cam.pixels_per_metre(contact)
    _add(scene, "subject", look, "ball", x=px[:, 0], y=px[:, 1], scale=scale)
    floor = scene.add_floor(float(cam.project(contact)[1]) + look.size)
    scene.nouns[floor.name] = "the floor"
    scene.ask(["subject", "floor"], kind="bounce")


@register_motion
class BallBounce3D(Motion):
    """A ball bounces N times on a floor, seen in perspective; contacts on sampled frames."""

    name = "ball_bounce3d"
    temporal_noise = True
    task = "count"
    fact = "count"
    answers = (1, 2, 3, 4, 5, 6)
    question = "How many times does {subject} bounce on the floor?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: int) -> None:
        gaps = spaced_gaps(scene, answer)
        _bounce_clip(scene, [scene.sample_frame(k) for k in event_samples(scene, gaps)])


@register_motion
class BallRhythm3D(Motion):
    """A ball bounces on a floor with shrinking, growing or equal gaps between contacts."""

    name = "ball_rhythm3d"
    temporal_noise = True
    task = "velocity&frequency"
    fact = "frequency"
    answers = ("increasing", "decreasing", "constant")
    question = "How does the bouncing frequency of {subject} change over the video?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: str) -> None:
        gaps = GAPS[answer][int(scene.rng.integers(len(GAPS[answer])))]
        _bounce_clip(scene, [scene.sample_frame(k) for k in event_samples(scene, gaps)])


def _lamps(scene: Scene, names: list[str], lit: dict[str, np.ndarray]) -> None:
    """Bulbs on posts in a row on a floor; a bulb shows its paint on the frames it is lit
    (a lit shell just outside the grey bulb, moved out of view when off)."""
    looks: list[Look] = _looks(scene, *["circle"] * len(names))
    rng = scene.rng
    cam = _floor_camera(scene, 0.5)
    rad = rng.uniform(0.13, 0.17)
    post_h = rng.uniform(0.45, 0.7)
    gap = rng.uniform(0.55, 0.75)
    xs = (np.arange(len(names)) - (len(names) - 1) / 2) * gap + rng.uniform(-0.2, 0.2)
    zs = rng.uniform(-0.25, 0.25, len(names))
    world = RigidWorld(cam, scene.n, floor=0.0)
    for name, look, x, z in zip(names, looks, xs, zs):
        centre = np.array([x, post_h + rad, z])
        post = trimesh.creation.cylinder(radius=0.05, height=post_h, sections=24)
        post.apply_transform(
            translate((x, post_h / 2, z))
            @ trimesh.transformations.rotation_matrix(-math.pi / 2, (1, 0, 0))
        )
        world.add(post, np.eye(4), color=POST)
        world.add(trimesh.creation.icosphere(3, rad), translate(centre), color=UNLIT)
        shell = np.stack([translate(centre) if on else AWAY for on in lit[name]])
        world.add(trimesh.creation.icosphere(3, 1.03 * rad), shell, color=look.color)
        c = cam.project(centre)
        look.size = 1.03 * rad * cam.pixels_per_metre(centre) + 1.0
        _add(scene, name, look, "lamp", role="cue", x=c[0], y=c[1], lit=lit[name])
    scene.world = world
    scene.meta["paints"] = world.paints()


@register_motion
class LampOrder3D(Motion):
    """Three lamps on posts; one lights up first, all at once, or none does."""

    name = "lamp_order3d"
    task = "visual_cues"
    fact = "order"
    answers = (
        (("obj1",), ("obj2", "obj3")),
        (("obj2",), ("obj1", "obj3")),
        (("obj3",), ("obj1", "obj2")),
        (("obj1", "obj2", "obj3"),),
        (),
    )
    question = "Which lamp turns on first?"
    objects = ("obj1", "obj2", "obj3")
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: tuple) -> None:
        names = list(self.objects)
        onsets = start_samples(scene, names, answer)
        offsets = end_samples(scene, onsets)
        lit = {n: np.zeros(scene.n, bool) for n in names}
        for n in onsets:
            lit[n][scene.sample_frame(onsets[n]) : scene.sample_frame(offsets[n])] = True
        order = [str(n) for n in scene.rng.permutation(names)]  # which post each object stands on
        _lamps(scene, order, lit)
        scene.ask(names, kind="lit")


def _flashes(scene: Scene, gaps: list[int] | None) -> np.ndarray:
    """Frames a lamp is lit: one flash per event sample, each about half an interval."""
    lit = np.zeros(scene.n, bool)
    for k in event_samples(scene, gaps) if gaps is not None else []:
        f = scene.sample_frame(k)
        lit[f : f + max(1, int(0.5 * scene.interval))] = True
    return lit


@register_motion
class LampBlink3D(Motion):
    """A lamp on a post flashes; the gaps between flashes shrink, grow or stay equal."""

    name = "lamp_blink3d"
    task = "velocity&frequency"
    fact = "frequency"
    answers = ("increasing", "decreasing", "constant", "none")
    question = "How does the flashing frequency of {subject} change over the video?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: str) -> None:
        gaps = None if answer == "none" else GAPS[answer][int(scene.rng.integers(3))]
        _lamps(scene, ["subject"], {"subject": _flashes(scene, gaps)})
        scene.ask(["subject"], kind="flash")


@register_motion
class LampFlash3D(Motion):
    """A lamp on a post flashes N times, each flash seen on one sampled frame."""

    name = "lamp_flash3d"
    task = "count"
    fact = "count"
    answers = (1, 2, 3, 4, 5, 6)
    question = "How many times does {subject} flash?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: int) -> None:
        _lamps(scene, ["subject"], {"subject": _flashes(scene, spaced_gaps(scene, answer))})
        scene.ask(["subject"], kind="flash")


@register_motion
class BallPace3D(Motion):
    """A ball rolls left or right along a floor, speeding up, slowing down or steadily, or
    rests; it turns as it rolls (rolling without slipping)."""

    name = "ball_pace3d"
    temporal_noise = True
    task = "velocity&frequency"
    fact = "speed"
    answers = ("accelerating", "decelerating", "constant", "none")
    question = "What is the speed pattern of {subject}?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: str) -> None:
        look, band = _looks(scene, "circle", "block")
        rng = scene.rng
        cam = _floor_camera(scene, 0.3)
        rad = rng.uniform(0.2, 0.28)
        z = rng.uniform(-0.4, 0.4)
        # move along the camera's (level) right axis at a fixed depth: pixels follow metres
        right = cam.pose[:3, 0] / np.linalg.norm(cam.pose[:3, 0])
        start = np.array([0.0, rad, z])
        ppm = cam.pixels_per_metre(start)
        margin = 1.03 * rad * ppm + 3.0
        length = rng.uniform(0.5, 0.75) * (scene.width - 2 * margin)
        path = length * PROFILES["constant" if answer == "none" else answer](
            scene.frames / (scene.n - 1)
        )
        if answer == "none":
            path[:] = 0.0
        sign = rng.choice([-1.0, 1.0])
        lo = margin + (length if sign < 0 else 0.0)
        u0 = rng.uniform(lo, lo + scene.width - 2 * margin - length)
        travel = (u0 - float(cam.project(start)[0]) + sign * path) / ppm
        centres = start + travel[:, None] * right
        axle = np.cross((0.0, 1.0, 0.0), right)  # rolling along +right turns about up x right
        spun = rng.uniform(0, 2 * math.pi)
        poses = np.stack(
            [
                translate(c) @ trimesh.transformations.rotation_matrix(spun + d / rad, axle)
                for c, d in zip(centres, travel)
            ]
        )
        ball = trimesh.creation.icosphere(4, rad)
        paint = np.where(
            (np.abs(ball.vertices @ axle) < 0.22 * rad)[:, None], band.color, look.color
        )
        world = RigidWorld(cam, scene.n, floor=0.0)
        world.add(ball, poses, vertex_colors=paint)
        scene.world = world
        scene.meta["paints"] = world.paints()
        px = cam.project(centres)
        scale = np.array([cam.pixels_per_metre(c) for c in centres]) / ppm
        look.size = 1.03 * rad * ppm + 1.0
        _add(scene, "subject", look, "ball", x=px[:, 0], y=px[:, 1], scale=scale)
        scene.ask(["subject"], kind="position")


def _airborne(scene: Scene, path, noun: str, cube: bool = False) -> None:
    """A ball (or a tumbling cube) in the air on a plane facing the camera, so that its centre
    is seen at the pixels ``path(scene, margin)`` gives (None: it hovers in place). It is one
    paint: a band seen obliquely would cover one side more than the other and bias its
    centroid."""
    (look,) = _looks(scene, "circle")
    rng = scene.rng
    depth = rng.uniform(3.5, 4.5)
    eye = (rng.uniform(-0.5, 0.5), rng.uniform(0.8, 1.6), depth)
    cam = _camera(scene, eye, (0.0, 0.9, 0.0), rng.uniform(38.0, 44.0))
    look.size = scene.unit * rng.uniform(1.0, 1.3)
    margin = look.size * 1.3
    if path is None:
        u, v = (np.full(scene.n, c) for c in scene.place(margin))
    else:
        u, v = path(scene, margin)
    centres = np.stack([unproject(cam, a, b, depth) for a, b in zip(u, v)])
    rad = look.size / cam.focal * depth
    poses = np.stack([translate(c) for c in centres])
    body = trimesh.creation.icosphere(3, rad)
    if cube:  # corners within the ball's radius; it turns a quarter turn or so per second
        body = trimesh.creation.box([2 * rad / math.sqrt(3)] * 3)
        axis = rng.normal(size=3)
        rate = rng.uniform(1.0, 2.0) * rng.choice([-1.0, 1.0]) / scene.fps
        for i in range(scene.n):
            poses[i] = poses[i] @ rotation(axis / np.linalg.norm(axis), rate * i)
    world = RigidWorld(cam, scene.n)  # in the air: no floor for the path to cross
    world.add(body, poses, color=look.color)
    scene.world = world
    scene.meta["paints"] = world.paints()
    px = cam.project(centres)
    look.size += 1.0
    _add(scene, "subject", look, noun, x=px[:, 0], y=px[:, 1])
    scene.ask(["subject"])


@register_motion
class FlyShape3D(Motion):
    """A ball flies through the air along a path that, seen by the camera, draws a circle,
    polygon, infinity sign or star once (its plane faces the camera), or hovers in place."""

    name = "fly_shape3d"
    temporal_noise = True
    task = "shape&trend"
    fact = "trajectory"
    answers = ("circle", "triangle", "square", "trapezoid", "diamond", "infinity", "star", "none")
    question = "What shape does the trajectory of {subject} form as it moves?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: str) -> None:
        path = None if answer == "none" else lambda sc, m: screen_path(sc, answer, m)
        _airborne(scene, path, "ball")


@register_motion
class CubeFly3D(Motion):
    """A cube tumbles through the air along a path that, seen by the camera,
    draws each shape ``fly_shape3d`` draws (its plane faces the camera), or hovers."""

    name = "cube_fly3d"
    task = "shape&trend"
    fact = "trajectory"
    answers = FlyShape3D.answers
    question = "What shape does the flight path of {subject} trace?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: str) -> None:
        path = None if answer == "none" else lambda sc, m: screen_path(sc, answer, m)
        _airborne(scene, path, "cube", cube=True)


@register_motion
class Balloon3D(Motion):
    """A balloon drifts left, right, up or down, or one way then another, or hangs still, on
    a plane facing the camera (a balloon may rise: gravity still points down)."""

    name = "balloon3d"
    temporal_noise = True
    task = "direction"
    fact = "direction"
    answers = tuple(_SINGLE + _PAIRS + [()])
    question = "In which direction(s) does {subject} move, from the viewer's perspective?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        path = (lambda sc, m: slide_path(sc, answer, m)) if answer else None
        _airborne(scene, path, "balloon")


@register_motion
class RollOrder3D(Motion):
    """Three balls at rest side by side on a floor; one starts rolling towards the camera
    first, all start at once, or none moves (the 3D peer of ``first_mover``)."""

    name = "roll_order3d"
    task = "visual_cues"
    fact = "order"
    answers = LampOrder3D.answers
    question = "Which ball starts rolling first?"
    objects = ("obj1", "obj2", "obj3")
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: tuple) -> None:
        names = list(self.objects)
        onsets = start_samples(scene, names, answer)
        offsets = end_samples(scene, onsets)
        looks: list[Look] = _looks(scene, *["circle"] * len(names))
        rng = scene.rng
        # seen from well above, so that rolling towards the camera moves down the screen
        eye = (rng.uniform(-0.3, 0.3), rng.uniform(1.7, 2.2), rng.uniform(2.3, 2.8))
        cam = _camera(scene, eye, (0.0, 0.1, 0.0), rng.uniform(40.0, 46.0))
        rad = rng.uniform(0.14, 0.18)
        gap = rng.uniform(0.5, 0.65)
        xs = (np.arange(len(names)) - (len(names) - 1) / 2) * gap + rng.uniform(-0.15, 0.15)
        order = [str(n) for n in rng.permutation(names)]  # which place each object takes
        world = RigidWorld(cam, scene.n, floor=0.0)
        for name, look, x in zip(order, looks, xs):
            start = np.array([x, rad, rng.uniform(-0.6, -0.3)])
            u = np.zeros(scene.n)
            if name in onsets:
                a, b = scene.sample_frame(onsets[name]), scene.sample_frame(offsets[name])
                u = np.clip((scene.frames - a) / (b - a), 0.0, 1.0)
            travel = rng.uniform(0.55, 0.7) * u  # metres towards the camera (+z)
            centres = start + travel[:, None] * np.array([0.0, 0.0, 1.0])
            poses = np.stack(
                [
                    translate(c) @ rotation(np.array([1.0, 0.0, 0.0]), d / rad)
                    for c, d in zip(centres, travel)
                ]
            )
            world.add(trimesh.creation.icosphere(3, rad), poses, color=look.color)
            px = cam.project(centres)
            ppm = np.array([cam.pixels_per_metre(c) for c in centres])
            look.size = 1.03 * rad * ppm[0] + 1.0
            _add(scene, name, look, "ball", role="prop", x=px[:, 0], y=px[:, 1], scale=ppm / ppm[0])
        scene.world = world
        scene.meta["paints"] = world.paints()
        scene.ask(names, kind="move")


@register_motion
class RampRoll3D(Motion):
    """A ball rolls down a ramp from rest, speeding up, or rolls up one and comes to rest at
    its top end as the clip ends, slowing down (even acceleration along the slope)."""

    name = "ramp_roll3d"
    task = "velocity&frequency"
    fact = "speed"
    answers = ("accelerating", "decelerating")
    question = "What is the speed pattern of {subject}?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: str) -> None:
        look, band = _looks(scene, "circle", "block")
        rng = scene.rng
        cam = _floor_camera(scene, 0.3)
        rad = rng.uniform(0.15, 0.2)
        slope = math.radians(rng.uniform(8.0, 14.0))
        right = cam.pose[:3, 0] / np.linalg.norm(cam.pose[:3, 0])  # level: the camera is upright
        s = math.cos(slope) * right * rng.choice([-1.0, 1.0]) + math.sin(slope) * np.eye(3)[1]
        n = np.cross(np.cross(s, np.eye(3)[1]), s)  # the ramp's upward normal
        n /= np.linalg.norm(n)
        z = rng.uniform(-0.3, 0.3)
        ppm = cam.pixels_per_metre(np.array([0.0, rad, z]))
        margin = 1.03 * rad * ppm + 3.0
        span = scene.width - 2 * margin
        length = rng.uniform(0.55, 0.7) * span / ppm / math.cos(slope)
        low = np.array([0.0, 0.0, z]) + (rng.uniform(-0.12, 0.12) * span / ppm) * right
        low -= 0.5 * length * (s - s[1] * np.eye(3)[1])  # centre the ramp's run on screen
        high = low + length * s
        side = np.cross(s, n) * 0.3
        foot = high - high[1] * np.eye(3)[1]
        wedge = trimesh.convex.convex_hull(
            np.array([p + k * side for p in (low, high, foot) for k in (-1.0, 1.0)])
        )
        d = length * PROFILES[answer](scene.frames / (scene.n - 1))
        centres = high - d[:, None] * s if answer == "accelerating" else low + d[:, None] * s
        centres = centres + rad * n
        axle = np.cross(n, s) * (-1.0 if answer == "accelerating" else 1.0)
        spun = rng.uniform(0, 2 * math.pi)
        poses = np.stack(
            [translate(c) @ rotation(axle, spun + t / rad) for c, t in zip(centres, d)]
        )
        ball = trimesh.creation.icosphere(4, rad)
        paint = np.where(
            (np.abs(ball.vertices @ axle) < 0.22 * rad)[:, None], band.color, look.color
        )
        world = RigidWorld(cam, scene.n, floor=0.0)
        world.add(wedge, np.eye(4), color=POST)
        world.add(ball, poses, vertex_colors=paint)
        scene.world = world
        scene.meta["paints"] = world.paints()
        px = cam.project(centres)
        look.size = 1.03 * rad * ppm + 1.0
        scale = np.array([cam.pixels_per_metre(c) for c in centres]) / ppm
        _add(scene, "subject", look, "ball", x=px[:, 0], y=px[:, 1], scale=scale)
        scene.ask(["subject"], kind="position")


@register_motion
class MoonLaps3D(Motion):
    """A moon circles a planet N whole times and a little more (N <= 3 keeps each sampled step
    under a quarter turn on screen), on a plane facing the camera, tilted up to 25 degrees.
    Ending exactly on the N-th lap, a reading a hundredth of a degree short counts one lap
    fewer: an NVIDIA GL's frames did (BENCHMARKS.md section 16)."""

    name = "moon_laps3d"
    task = "count"
    fact = "count"
    answers = (1, 2, 3)
    question = "How many full loops does {subject} make around {o1}?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: int) -> None:
        # the angle is linear in sample position, so every sampled step turns the same
        # 360 N / 15 degrees even where a short clip's samples are 2 and 3 frames apart
        at = np.interp(scene.frames, scene.samples, np.arange(SAMPLES, dtype=np.float64))

        def phase(rng: np.random.Generator) -> np.ndarray:
            sense = rng.choice([-1.0, 1.0])
            total = 360.0 * answer + rng.uniform(*LOOP_EXTRA)  # never ends on a whole lap
            return rng.uniform(0, 360) + sense * total * at / (SAMPLES - 1)

        orbit_clip(scene, phase, kind="loop")
