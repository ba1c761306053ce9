"""3D objects for velocity & frequency whose speed swings or turns: a pendulum whose swing
grows, dies away or keeps its size, and a rotor that spins up, spins down or spins steadily.

As in :mod:`objects3d_tasks`, each pattern plans 3D poses, labels the clip with their projection
through the camera the renderer draws with and hands the same poses to ``scene.world``.
"""

from __future__ import annotations

import math

import numpy as np
import trimesh

from tempogen import observe
from tempogen.generators.motion import MAX_TURN_PER_SAMPLE, Motion, register_motion
from tempogen.generators.patterns.rigid3d import (
    NOTE,
    POST,
    TRACK_PAD,
    RigidWorld,
    Z,
    add_part,
    aim_camera,
    basis,
    extent,
    origins,
    paint_looks,
    rotation,
    screen_angle,
    transform,
    translate,
    unproject,
)
from tempogen.generators.patterns.velocity import PROFILES
from tempogen.generators.scene import SAMPLES, Scene

GRAVITY = 9.81  # m/s^2
ENVELOPE = 4.0  # how much a growing (or dying) swing's amplitude changes over the clip
MARGIN = 1.25  # how far past observe's speed thresholds a planned pendulum's trend must be

# a pendulum (:class:`Pendulum3D`); its rod's length follows from the clip's length
BOB = (0.14, 0.18)  # the ball's radius, in rod lengths
GROWING = (8.0, 10.0)  # degrees: a growing swing's first amplitude
DYING = (32.0, 40.0)  # degrees: a dying swing's first amplitude
STEADY = (22.0, 32.0)  # degrees: a steady swing's amplitude
PENDULUM_FOV = (38.0, 44.0)  # degrees: the camera's vertical field of view
PIVOT = 1.2  # metres above the floor the rod hangs from
PENDULUM_SIDE = 0.1  # most rod lengths the camera stands to either side
PHASE_TRIES = 40  # starting phases tried for a trend the samples read clearly
ROD = 0.025  # the rod's radius, in rod lengths
BEAM = (1.3, 0.06, 0.1)  # the beam's length, height and depth, in rod lengths

# a rotor (:class:`Rotor3D`)
ROTOR_DEPTH = 4.0  # metres from the camera
ROTOR_FOV = 40.0  # degrees: the camera's vertical field of view
ROTOR_SIZE = (3.0, 3.8)  # a blade tip's distance from the hub, in scene units
ROTOR_MARGIN = 1.3  # tip radii kept between the hub and the canvas's edge
HUB = 0.2  # the hub's radius, in tip radii
ROTOR_STEP = (0.5, 0.78)  # the fastest sampled step, as a share of the most


def third_ratio(px: np.ndarray, idx: np.ndarray) -> float:
    """Last-third over first-third mean step speed of pixel positions (n, 2) seen at ``idx``,
    as :func:`tempogen.observe.speed` measures it."""
    p = px[idx]
    v = np.hypot(*np.diff(p, axis=0).T) / np.diff(idx)
    k = max(1, len(v) // 3)
    return float(v[-k:].mean() / max(v[:k].mean(), 1e-12))


def _clear(answer: str, px: np.ndarray, n: int) -> bool:
    """Whether every frame and the uniform samples both read the planned swing's trend as
    ``answer``, with room to spare."""
    for idx in (np.arange(n), observe.uniform_indices(n, SAMPLES)):
        r = third_ratio(px, idx)
        if answer == "accelerating" and r < MARGIN * observe.SPEED_RATIO:
            return False
        if answer == "decelerating" and r > 1 / (MARGIN * observe.SPEED_RATIO):
            return False
        if answer == "constant" and abs(math.log(r)) > 0.5 * math.log(observe.CONST_RATIO):
            return False
    return True


@register_motion
class Pendulum3D(Motion):
    """A ball on a rod swings as a pendulum in a plane facing the camera: its swing grows
    (driven), dies away (damped), keeps its size, or the ball hangs still."""

    name = "pendulum3d"
    task = "velocity&frequency"
    fact = "speed"
    answers = ("accelerating", "decelerating", "constant", "none")
    question = "What is the speed pattern of {subject}?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: str) -> None:
        (look,) = paint_looks(scene, "circle")
        rng = scene.rng
        t = scene.frames / scene.fps
        # one swing cycle per third of the clip, so each third of the speed reading sees a
        # whole cycle; the rod is as long as a pendulum of that period (T = 2 pi sqrt(L / g))
        period = (scene.n - 1) / 3 / scene.fps
        length = GRAVITY * (period / (2 * math.pi)) ** 2
        rad = rng.uniform(*BOB) * length
        u = t / t[-1]
        if answer == "accelerating":
            amp = rng.uniform(*GROWING) * ENVELOPE**u
        elif answer == "decelerating":
            amp = rng.uniform(*DYING) * ENVELOPE**-u
        else:
            amp = np.full(scene.n, 0.0 if answer == "none" else rng.uniform(*STEADY))
        fov = rng.uniform(*PENDULUM_FOV)
        dist = 1.45 * length / (1.5 * math.tan(math.radians(fov) / 2))
        pivot = np.array([0.0, PIVOT, 0.0])
        eye = pivot + np.array(
            [rng.uniform(-PENDULUM_SIDE, PENDULUM_SIDE) * length, -0.5 * length, dist]
        )
        cam = aim_camera(scene, eye, eye - np.array([0.0, 0.0, dist]), fov)
        for _ in range(PHASE_TRIES):  # a starting phase whose sampled trend reads clearly
            phase = rng.uniform(0, 2 * math.pi)
            theta = np.radians(amp) * np.sin(2 * math.pi * t / period + phase)
            swing = np.stack([translate(pivot) @ rotation(Z, a) for a in theta])
            poses = swing @ translate((0.0, -length, 0.0))
            px = cam.project(origins(poses))
            if answer == "none" or _clear(answer, px, scene.n):
                break
        rod = trimesh.creation.cylinder(radius=ROD * length, height=length - rad, sections=16)
        rod.apply_transform(
            translate((0.0, -(length - rad) / 2, 0.0)) @ rotation(np.eye(3)[0], math.pi / 2)
        )
        beam = trimesh.creation.box(tuple(k * length for k in BEAM))
        world = RigidWorld(cam, scene.n)  # hung in the air from a beam: no floor
        world.add(beam, translate(pivot + np.array([0.0, 0.03 * length, 0.0])), color=POST)
        world.add(rod, swing, color=POST)
        world.add(trimesh.creation.icosphere(3, rad), poses, color=look.color)
        scene.world = world
        scene.meta["paints"] = world.paints()
        look.size = TRACK_PAD * rad * cam.pixels_per_metre(origins(poses)[0]) + 1.0
        add_part(scene, "subject", look, "ball", x=px[:, 0], y=px[:, 1])
        scene.ask(["subject"], kind="position")


@register_motion
class Rotor3D(Motion):
    """A four-bladed rotor, seen face-on, spins up, spins down, spins steadily or stands
    still; one blade has its own paint, so its turn is read from the pixels."""

    name = "rotor3d"
    task = "velocity&frequency"
    fact = "speed"
    answers = ("accelerating", "decelerating", "constant", "none")
    question = "What is the spinning speed pattern of {subject}?"
    renderer = "object3d"
    note = NOTE

    def animate(self, scene: Scene, answer: str) -> None:
        look, mark = paint_looks(scene, "arrow", "block")
        rng = scene.rng
        cam = aim_camera(scene, (0.0, 0.0, ROTOR_DEPTH), (0.0, 0.0, 0.0), ROTOR_FOV)
        tip_px = rng.uniform(*ROTOR_SIZE) * scene.unit
        u, v = scene.place(tip_px * ROTOR_MARGIN)
        centre = unproject(cam, u, v, ROTOR_DEPTH)
        tip = tip_px / cam.pixels_per_metre(centre)
        hub = HUB * tip
        # the fastest step between two sampled frames is 50-78% of the least turn that aliases
        step = rng.uniform(*ROTOR_STEP) * MAX_TURN_PER_SAMPLE
        shape = PROFILES["constant" if answer == "none" else answer](scene.frames / (scene.n - 1))
        fastest = np.abs(np.diff(shape[observe.uniform_indices(scene.n, SAMPLES)])).max()
        sweep = (0.0 if answer == "none" else step / fastest) * shape
        turned = rng.uniform(0, 360) + rng.choice([-1.0, 1.0]) * sweep
        frame = translate(centre) @ basis(cam.pose[:3, 3] - centre)
        poses = np.stack([frame @ rotation(Z, -math.radians(a)) for a in turned])
        blade_len = tip - hub
        blade_at = translate((hub + blade_len / 2, 0.0, 0.0))
        world = RigidWorld(cam, scene.n)
        pole = trimesh.creation.box((0.12 * tip, 4.0, 0.08 * tip))
        world.add(pole, frame @ translate((0.0, -2.0, -0.12 * tip)), color=POST)
        disc = trimesh.creation.cylinder(radius=hub, height=0.12 * tip, sections=32)
        world.add(disc, poses, color=look.color)
        for k in range(4):
            blade = trimesh.creation.box((blade_len, 0.3 * tip, 0.05 * tip))
            at = rotation(Z, k * math.pi / 2) @ blade_at
            world.add(blade, poses @ at, color=mark.color if k == 0 else look.color)
        scene.world = world
        scene.meta["paints"] = world.paints()

        centre_px = np.repeat(cam.project(centre)[None], scene.n, axis=0)
        corners = np.array([[tip, w, 0.0] for w in (-0.15 * tip, 0.15 * tip)])
        ends = np.concatenate([corners @ rotation(Z, k * math.pi / 2)[:3, :3].T for k in range(4)])
        look.size = extent(cam, centre_px, transform(poses, ends))
        mark_px = cam.project(origins(poses @ blade_at))
        angle = screen_angle(centre_px, mark_px)
        add_part(scene, "subject", look, "rotor", x=centre_px[:, 0], y=centre_px[:, 1], angle=angle)
        mark.size = 0.5 * blade_len * cam.pixels_per_metre(centre) + 1.0
        add_part(scene, "mark", mark, "blade", role="prop", x=mark_px[:, 0], y=mark_px[:, 1])
        scene.ask(["subject"], kind="angle")
