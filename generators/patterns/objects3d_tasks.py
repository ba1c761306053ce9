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

from tempogen.generators.motion import Motion, register_motion
from tempogen.generators.paths import event_samples, spaced_gaps
from tempogen.generators.patterns.count import LOOP_EXTRA
from tempogen.generators.patterns.direction import PAIRS, SINGLE, slide_path
from tempogen.generators.patterns.rigid3d import (
    BAND,
    NOTE,
    POST,
    TRACK_PAD,
    RigidWorld,
    add_part,
    aim_camera,
    floor_camera,
    paint_looks,
    rotation,
    translate,
)
from tempogen.generators.patterns.scenes3d import airborne, bounce_clip, flashes, lamps, orbit_clip
from tempogen.generators.patterns.shape import screen_path
from tempogen.generators.patterns.velocity import GAPS, PROFILES
from tempogen.generators.patterns.visual_cues import end_samples, start_samples
from tempogen.generators.scene import SAMPLES, Look, Scene

FLOOR_AIM = 0.3  # metres above the floor a camera watching a rolling ball looks at
EDGE_PX = 3.0  # pixels kept between a rolling ball's rim and the canvas's edge

# a ball rolling at a changing speed (:class:`BallPace3D`)
PACE_RADIUS = (0.2, 0.28)  # metres
PACE_DEPTH = 0.4  # most metres the ball rolls before or behind the middle
PACE_LENGTH = (0.5, 0.75)  # the path's length, as a share of the room across the canvas

# balls racing towards the camera (:class:`RollOrder3D`), seen from well above
RACE_SIDE = 0.3  # most metres the camera stands to either side
RACE_RISE = (1.7, 2.2)  # metres the camera stands above the floor
RACE_DISTANCE = (2.3, 2.8)  # metres the camera stands before the balls' row
RACE_AIM = 0.1  # metres above the floor the camera looks at
RACE_FOV = (40.0, 46.0)  # degrees: the vertical field of view
RACE_RADIUS = (0.14, 0.18)  # metres
RACE_GAP = (0.5, 0.65)  # metres between two balls
RACE_SHIFT = 0.15  # most metres the row stands off the middle
RACE_START = (-0.6, -0.3)  # metres (depth) a ball starts at: behind the middle
RACE_TRAVEL = (0.55, 0.7)  # metres a ball rolls towards the camera

# a ball rolling down (or up) a ramp (:class:`RampRoll3D`)
RAMP_BALL = (0.15, 0.2)  # metres: the ball's radius
RAMP_SLOPE = (8.0, 14.0)  # degrees
RAMP_DEPTH = 0.3  # most metres the ramp stands before or behind the middle
RAMP_LENGTH = (0.55, 0.7)  # the ramp's run, as a share of the room across the canvas
RAMP_SHIFT = 0.12  # most the ramp's run strays from the middle, as a share of that room
RAMP_WIDTH = 0.3  # metres from the ramp's middle to either side


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
        bounce_clip(scene, [scene.sample_frame(k) for k in event_samples(scene, gaps)])


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
        bounce_clip(scene, [scene.sample_frame(k) for k in event_samples(scene, gaps)])


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
        lamps(scene, order, lit)
        scene.ask(names, kind="lit")


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
        lamps(scene, ["subject"], {"subject": flashes(scene, gaps)})
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
        lamps(scene, ["subject"], {"subject": flashes(scene, spaced_gaps(scene, answer))})
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
        look, band = paint_looks(scene, "circle", "block")
        rng = scene.rng
        cam = floor_camera(scene, FLOOR_AIM)
        rad = rng.uniform(*PACE_RADIUS)
        z = rng.uniform(-PACE_DEPTH, PACE_DEPTH)
        # move along the camera's (level) right axis at a fixed depth: pixels follow metres
        right = cam.pose[:3, 0] / np.linalg.norm(cam.pose[:3, 0])
        start = np.array([0.0, rad, z])
        ppm = cam.pixels_per_metre(start)
        margin = TRACK_PAD * rad * ppm + EDGE_PX
        length = rng.uniform(*PACE_LENGTH) * (scene.width - 2 * margin)
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
            (np.abs(ball.vertices @ axle) < BAND * rad)[:, None], band.color, look.color
        )
        world = RigidWorld(cam, scene.n, floor=0.0)
        world.add(ball, poses, vertex_colors=paint)
        scene.world = world
        scene.meta["paints"] = world.paints()
        px = cam.project(centres)
        scale = np.array([cam.pixels_per_metre(c) for c in centres]) / ppm
        look.size = TRACK_PAD * rad * ppm + 1.0
        add_part(scene, "subject", look, "ball", x=px[:, 0], y=px[:, 1], scale=scale)
        scene.ask(["subject"], kind="position")


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
        airborne(scene, path, "ball")


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
        airborne(scene, path, "cube", cube=True)


@register_motion
class Balloon3D(Motion):
    """A balloon drifts left, right, up or down, or one way then another, or hangs still, on
    a plane facing the camera (a balloon may rise: gravity still points down)."""

    name = "balloon3d"
    temporal_noise = True
    task = "direction"
    fact = "direction"
    answers = tuple(SINGLE + PAIRS + [()])
    question = "In which direction(s) does {subject} move, from the viewer's perspective?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: tuple[str, ...]) -> None:
        path = (lambda sc, m: slide_path(sc, answer, m)) if answer else None
        airborne(scene, path, "balloon")


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
        looks: list[Look] = paint_looks(scene, *["circle"] * len(names))
        rng = scene.rng
        # seen from well above, so that rolling towards the camera moves down the screen
        eye = (
            rng.uniform(-RACE_SIDE, RACE_SIDE),
            rng.uniform(*RACE_RISE),
            rng.uniform(*RACE_DISTANCE),
        )
        cam = aim_camera(scene, eye, (0.0, RACE_AIM, 0.0), rng.uniform(*RACE_FOV))
        rad = rng.uniform(*RACE_RADIUS)
        gap = rng.uniform(*RACE_GAP)
        shift = rng.uniform(-RACE_SHIFT, RACE_SHIFT)
        xs = (np.arange(len(names)) - (len(names) - 1) / 2) * gap + shift
        order = [str(n) for n in rng.permutation(names)]  # which place each object takes
        world = RigidWorld(cam, scene.n, floor=0.0)
        for name, look, x in zip(order, looks, xs):
            start = np.array([x, rad, rng.uniform(*RACE_START)])
            u = np.zeros(scene.n)
            if name in onsets:
                a, b = scene.sample_frame(onsets[name]), scene.sample_frame(offsets[name])
                u = np.clip((scene.frames - a) / (b - a), 0.0, 1.0)
            travel = rng.uniform(*RACE_TRAVEL) * u  # metres towards the camera (+z)
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
            look.size = TRACK_PAD * rad * ppm[0] + 1.0
            add_part(
                scene, name, look, "ball", role="prop", x=px[:, 0], y=px[:, 1], scale=ppm / ppm[0]
            )
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
        look, band = paint_looks(scene, "circle", "block")
        rng = scene.rng
        cam = floor_camera(scene, FLOOR_AIM)
        rad = rng.uniform(*RAMP_BALL)
        slope = math.radians(rng.uniform(*RAMP_SLOPE))
        right = cam.pose[:3, 0] / np.linalg.norm(cam.pose[:3, 0])  # level: the camera is upright
        s = math.cos(slope) * right * rng.choice([-1.0, 1.0]) + math.sin(slope) * np.eye(3)[1]
        n = np.cross(np.cross(s, np.eye(3)[1]), s)  # the ramp's upward normal
        n /= np.linalg.norm(n)
        z = rng.uniform(-RAMP_DEPTH, RAMP_DEPTH)
        ppm = cam.pixels_per_metre(np.array([0.0, rad, z]))
        margin = TRACK_PAD * rad * ppm + EDGE_PX
        span = scene.width - 2 * margin
        length = rng.uniform(*RAMP_LENGTH) * span / ppm / math.cos(slope)
        low = np.array([0.0, 0.0, z]) + (rng.uniform(-RAMP_SHIFT, RAMP_SHIFT) * span / ppm) * right
        low -= 0.5 * length * (s - s[1] * np.eye(3)[1])  # centre the ramp's run on screen
        high = low + length * s
        side = np.cross(s, n) * RAMP_WIDTH
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
            (np.abs(ball.vertices @ axle) < BAND * rad)[:, None], band.color, look.color
        )
        world = RigidWorld(cam, scene.n, floor=0.0)
        world.add(wedge, np.eye(4), color=POST)
        world.add(ball, poses, vertex_colors=paint)
        scene.world = world
        scene.meta["paints"] = world.paints()
        px = cam.project(centres)
        look.size = TRACK_PAD * rad * ppm + 1.0
        scale = np.array([cam.pixels_per_metre(c) for c in centres]) / ppm
        add_part(scene, "subject", look, "ball", x=px[:, 0], y=px[:, 1], scale=scale)
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
